"""Reaching definitions (forward may-dataflow to a fixpoint).

Requires: a ``CFG`` with per-entry ``Effects`` (``kills``, ``gen_defined``,
``gen_undefined``).
Produces: ``reaching_definitions(cfg) -> ReachingDefs`` with block-level
``rd_in`` / ``rd_out`` sets of ``Definition`` and ``at(block, index)`` (the
definitions reaching the point just before entry ``index``), plus
``undefined_at(block, index)``: the names that may be unbound there.
Invariants: at the entry every parameter has a ``Definition(name, 'param')``
and every other local name an *undefined* ``Definition(name, 'entry',
undefined=True)``; ``del x`` (and the implicit ``del e`` after ``except ... as
e``) kills ``x`` and generates an undefined definition sited at that entry;
``maybe`` bindings generate without killing. Only blocks reachable from the
entry are solved; every other block has empty sets (no path from the entry
reaches it). Classic iterative solution (Aho, Lam, Sethi & Ullman,
*Compilers*, sec. 9.2.4).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cfg import CFG
from .effects import Effects


@dataclass(frozen=True)
class Definition:
    """``name`` bound at ``site`` (an entry, or ``'param'``/``'entry'``)."""

    name: str
    site: object
    undefined: bool = False


Defs = frozenset[Definition]


def transfer(defs: Defs, site: object, eff: Effects) -> Defs:
    if not (eff.kills or eff.gen_defined or eff.gen_undefined):
        return defs
    kept = {d for d in defs if d.name not in eff.kills}
    kept |= {Definition(n, site) for n in eff.gen_defined}
    kept |= {Definition(n, site, True) for n in eff.gen_undefined}
    return frozenset(kept)


class ReachingDefs:
    def __init__(self, cfg: CFG, rd_in: dict[int, Defs], rd_out: dict[int, Defs]) -> None:
        self.cfg = cfg
        self.rd_in = rd_in
        self.rd_out = rd_out

    def at(self, block: int, index: int) -> Defs:
        defs = self.rd_in[block]
        for entry in self.cfg.block(block).stmts[:index]:
            defs = transfer(defs, entry, self.cfg.effect(entry))
        return defs

    def undefined_at(self, block: int, index: int) -> frozenset[str]:
        return frozenset(d.name for d in self.at(block, index) if d.undefined)


def entry_definitions(cfg: CFG) -> Defs:
    params = set(cfg.params)
    defs = {Definition(p, "param") for p in params if p in cfg.locals}
    defs |= {Definition(n, "entry", True) for n in cfg.locals - params}
    return frozenset(defs)


def _block_out(cfg: CFG, block: int, defs: Defs) -> Defs:
    for entry in cfg.block(block).stmts:
        defs = transfer(defs, entry, cfg.effect(entry))
    return defs


def reaching_definitions(cfg: CFG) -> ReachingDefs:
    graph, reach = cfg.graph, cfg.reachable
    rd_in: dict[int, Defs] = {b: frozenset() for b in graph}
    rd_out: dict[int, Defs] = {b: frozenset() for b in graph}
    start = entry_definitions(cfg)
    work = sorted(reach, reverse=True)  # pop() takes the entry side first
    pending = set(work)
    while work:
        b = work.pop()
        pending.discard(b)
        preds = [p for p in graph.predecessors(b) if p in reach]
        new_in = frozenset().union(*(rd_out[p] for p in preds))
        if b == cfg.entry:
            new_in |= start
        rd_in[b] = new_in
        new_out = _block_out(cfg, b, new_in)
        if new_out != rd_out[b]:
            rd_out[b] = new_out
            for s in graph.successors(b):
                if s not in pending:
                    pending.add(s)
                    work.append(s)
    return ReachingDefs(cfg, rd_in, rd_out)
