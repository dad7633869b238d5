"""The ``ast2graph`` command line: ``report``, ``show`` and ``codes``.

Requires: ``report`` (static fallback sites of files, never importing them),
``ssa.analyze`` (for ``show``) and ``fallback.sites.FallbackCode``.
Produces: ``main(argv=None) -> int``, the console script::

    ast2graph report PATH[::QUALNAME] [--format text|json|sarif] [--strict] [--include-depends]
    ast2graph show FILE::QUALNAME [--ssa]
    ast2graph codes

Invariants: the user's files are parsed, never imported or executed. Exit
status: 0 done; 1 ``report --strict`` found an always-fallback site; 2 a
usage error, a missing path, a file that does not parse, or an unknown
qualname -- reported as one ``ast2graph: error: ...`` line on stderr naming
the file (and line), never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence, TextIO

from .fallback.sites import FallbackCode
from .parser.locate import normalise
from .report import (ALWAYS, ReportError, format_text, iter_functions, load_file, report_path,
                     to_json, to_sarif)
from .ssa import analyze
from .ssa import cfg as cfg_mod
from .ssa.dump import entry_line, entry_text

EXIT_OK, EXIT_SITES, EXIT_ERROR = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="ast2graph", description="ast2graph: Python AST -> JAX/XLA graph compiler tools")
    parser.add_argument("--version", action="version", version=f"ast2graph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{report,show,codes}")
    rep = sub.add_parser("report", help="list the sites that fall back to Python, without running the code")
    rep.add_argument("target", metavar="PATH[::QUALNAME]", help="a .py file or a directory; ::Qual.name selects one function")
    rep.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    rep.add_argument("--strict", action="store_true", help="exit 1 when any always-fallback site is found")
    rep.add_argument("--include-depends", action="store_true", help="also list the sites whose fate depends on the input types")
    show = sub.add_parser("show", help="print the control-flow graph of one function (with --ssa: SSA and liveness)")
    show.add_argument("target", metavar="FILE::QUALNAME")
    show.add_argument("--ssa", action="store_true", help="print the full SSA dump: phis, versions and liveness")
    sub.add_parser("codes", help="print the table of fallback codes")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _COMMANDS[args.command](args, sys.stdout)
    except ReportError as e:
        print(f"ast2graph: error: {e}", file=sys.stderr)
        return EXIT_ERROR


def split_target(target: str) -> tuple[str, str | None]:
    """``'f.py::C.m'`` -> ``('f.py', 'C.m')``; no ``::`` -> ``(target, None)``."""
    path, sep, qualname = target.partition("::")
    return path, (qualname or None) if sep else None


# ------------------------------------------------------------------ report
def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    path, qualname = split_target(args.target)
    reports = report_path(path, qualname)
    if args.format == "text":
        out.write(format_text(reports, args.include_depends))
    else:
        render = to_json if args.format == "json" else to_sarif
        out.write(json.dumps(render(reports, args.include_depends), indent=2) + "\n")
    for r in reports:
        if r.error is not None:
            print(f"ast2graph: warning: skipped {r.error}", file=sys.stderr)
    found = any(s.kind == ALWAYS for r in reports for s in r.sites)
    return EXIT_SITES if args.strict and found else EXIT_OK


# -------------------------------------------------------------------- show
def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    path, qualname = split_target(args.target)
    if not qualname:
        raise ReportError(f"{args.target}: name a function as FILE::QUALNAME")
    source = load_file(path)
    entries = {e.qualname: e for e in iter_functions(source.module)}
    if qualname not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise ReportError(f"{path}: no function or method named {qualname!r} (functions: {known})")
    node = entries[qualname].node
    out.write(f"# {qualname} ({path}:{node.lineno})\n")
    info = analyze(normalise(node))
    out.write(info.dump() if args.ssa else cfg_text(info.cfg))
    return EXIT_OK


def cfg_text(cfg: cfg_mod.CFG) -> str:
    """One paragraph per block: header with preds/succs, then its entries."""
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


# ------------------------------------------------------------------- codes
def cmd_codes(args: argparse.Namespace, out: TextIO) -> int:
    out.write(codes_table())
    return EXIT_OK


def codes_table() -> str:
    width = max(len(c.title) for c in FallbackCode)
    rows = [f"{'CODE':<7} {'TITLE':<{width}}  HINT"]
    rows += [f"{c.code:<7} {c.title:<{width}}  {c.hint}" for c in FallbackCode]
    return "\n".join(rows) + "\n"


_COMMANDS = {"report": cmd_report, "show": cmd_show, "codes": cmd_codes}


if __name__ == "__main__":
    sys.exit(main())
