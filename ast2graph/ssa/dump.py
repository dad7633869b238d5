"""Deterministic text rendering of a CFG with its SSA and liveness facts.

Requires: a ``CFG``, its ``Liveness`` and ``SSAResult``.
Produces: ``dump_ssa(cfg, liveness, ssa) -> str`` and ``cfg_text(cfg)`` (the
blocks and their statements only: ``ast2graph cfg`` and the HTML report). One paragraph per block in
id order::

    b3: preds b1 b2
      x.3 = phi(b1: x.1, b2: x.2)
      live-in: {x}
      L6: return x  [x.3]
      live-out: {}

The header names the predecessors and marks ``(entry)``, ``(exit)`` and
``(unreachable)``; each entry is ``L<line>: <first line of ast.unparse>``
(truncated to 60 characters; pseudo-entries render as ``if c:``, ``while c:``,
``<for-iter> xs``, ``<for-next>``, ``<for-target> i``, ...) followed by
``[reads => writes]`` SSA versions.
Invariants: the text depends only on the source (no ids, no addresses, no set
iteration order), so golden tests can compare it exactly.
"""

from __future__ import annotations

import ast

import gast

from . import cfg as c
from .construct import SSAResult
from .liveness import Liveness

_WIDTH = 60


def unparse(node: object) -> str:
    """First line of the Python source of a gast node, truncated."""
    if node is None:
        return ""
    text = ast.unparse(gast.gast_to_ast(node)).strip().splitlines()
    line = text[0] if text else ""
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        line = next((t for t in text if not t.startswith("@")), line)
    return line if len(line) <= _WIDTH else line[: _WIDTH - 3] + "..."


def _with_items(node: gast.With) -> str:
    parts = []
    for item in node.items:
        text = unparse(item.context_expr)
        if item.optional_vars is not None:
            text += " as " + unparse(item.optional_vars)
        parts.append(text)
    return ", ".join(parts)


def _handler(node: gast.ExceptHandler) -> str:
    text = "except"
    if node.type is not None:
        text += " " + unparse(node.type)
    if node.name is not None:
        text += " as " + node.name.id
    return text + ":"


def _case(node: gast.match_case) -> str:
    guard = f" if {unparse(node.guard)}" if node.guard is not None else ""
    return f"case {unparse(node.pattern)}{guard}:"


_RENDER = {
    c.IfTest: lambda n: f"if {unparse(n.test)}:",
    c.LoopEntry: lambda n: "<while-entry>",
    c.LoopTest: lambda n: f"while {unparse(n.test)}:",
    c.ForIter: lambda n: f"<for-iter> {unparse(n.iter)}",
    c.ForNext: lambda n: "<for-next>",
    c.ForTarget: lambda n: f"<for-target> {unparse(n.target)}",
    c.WithEnter: lambda n: f"with {_with_items(n)}:",
    c.TryEnter: lambda n: "try:",
    c.HandlerEnter: _handler,
    c.HandlerExit: lambda n: f"<except-exit> {n.name.id}",
    c.MatchSubject: lambda n: f"match {unparse(n.subject)}:",
    c.MatchCase: _case,
}


def entry_text(entry: object) -> str:
    if c.is_pseudo(entry):
        return _RENDER[type(entry)](entry.node)
    return unparse(entry)


def entry_line(entry: object) -> str:
    node = entry.node if c.is_pseudo(entry) else entry
    if isinstance(node, gast.match_case):
        node = node.pattern
    line = getattr(node, "lineno", None)
    return f"L{line}" if line is not None else "L?"


def _names(names: frozenset[str]) -> str:
    return "{" + ", ".join(sorted(names)) + "}"


def _versions(ssa: SSAResult, entry: object) -> str:
    reads, writes = ssa.entry_versions.get(entry, ((), ()))
    if not reads and not writes:
        return ""
    text = " ".join(reads)
    if writes:
        text = (text + " " if text else "") + "=> " + " ".join(writes)
    return f"  [{text}]"


def _header(cfg: c.CFG, b: int) -> str:
    tags = []
    if b == cfg.entry:
        tags.append("(entry)")
    if b == cfg.exit:
        tags.append("(exit)")
    if b not in cfg.reachable:
        tags.append("(unreachable)")
    head = " ".join([f"b{b}:"] + tags)
    preds = cfg.preds(b)
    return head + (" preds " + " ".join(f"b{p}" for p in preds) if preds else "")


def _phi_lines(ssa: SSAResult, b: int) -> list[str]:
    lines = []
    for var, incoming in sorted(ssa.phis.get(b, {}).items()):
        args = ", ".join(f"b{p}: {v}" for p, v in incoming)
        lines.append(f"  {ssa.phi_versions[b][var]} = phi({args})")
    return lines


def dump_block(cfg: c.CFG, live: Liveness, ssa: SSAResult, b: int) -> list[str]:
    lines = [_header(cfg, b)] + _phi_lines(ssa, b)
    lines.append(f"  live-in: {_names(live.live_in[b])}")
    for entry in cfg.block(b).stmts:
        lines.append(f"  {entry_line(entry)}: {entry_text(entry)}{_versions(ssa, entry)}")
    lines.append(f"  live-out: {_names(live.live_out[b])}")
    return lines


def dump_ssa(cfg: c.CFG, live: Liveness, ssa: SSAResult) -> str:
    lines: list[str] = []
    for b in cfg.block_ids():
        lines += dump_block(cfg, live, ssa, b)
    return "\n".join(lines) + "\n"


def cfg_text(cfg) -> str:
    """One paragraph per block (of an ``ssa.cfg.CFG``): header with preds/succs, then its entries."""
    lines: list[str] = []
    for b in cfg.block_ids():
        tags = [t for t, on in (("(entry)", b == cfg.entry), ("(exit)", b == cfg.exit),
                                ("(unreachable)", b not in cfg.reachable)) if on]
        head = " ".join([f"b{b}:"] + tags)
        for label, ids in (("preds", cfg.preds(b)), ("succs", cfg.succs(b))):
            if ids:
                head += f" {label} " + " ".join(f"b{i}" for i in ids)
        lines.append(head)
        lines += [f"  {entry_line(e)}: {entry_text(e)}" for e in cfg.block(b).stmts]
    return "\n".join(lines) + "\n"
