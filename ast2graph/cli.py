"""The ``ast2graph`` command line: ``report``, ``show`` and ``codes``.

Requires: ``report`` (static fallback sites of files, never importing them),
``ssa.analyze`` (for ``show``) and ``fallback.sites.FallbackCode``.
Produces: ``main(argv=None) -> int``, the console script::

    ast2graph report PATH[::QUALNAME]... [--format text|json|sarif|html] [-o FILE] [--strict] [--possible]
                     [--max-file-size SIZE] [--config PYPROJECT | --no-config]
    ast2graph show FILE::QUALNAME [--ssa]
    ast2graph codes
    ast2graph explain FILE::QUALNAME --args 'jnp.ones(3), 2' [--format text|json] [--ir] [--lowered]

Invariants: ``report``/``show`` parse the user's files, never import or run
them; only ``explain`` (the opt-in mode) imports the module and calls the
function on the example arguments given.

Exit status: 0 done; 1 ``report --strict`` found an always-fallback site;
2 an error: a usage error, a missing path, a file named alone that cannot be
read, parsed or analysed (a syntax error, nesting too deep, over
``--max-file-size``), an unknown qualname -- reported as one
``ast2graph: error: ...`` line on stderr naming the file (and line), never a
traceback. In directory mode such a file is skipped: listed in every format
(text ``error:`` lines, JSON ``errors``, SARIF
``toolExecutionNotifications`` with ``executionSuccessful: false``) and
warned about on stderr; the other files are still reported, and the exit
status is 0 without ``--strict`` but 2 with it -- a skipped file is an error,
distinct from 1 "sites found", and 2 wins when both happen, so ``--strict``
never passes on files it did not read.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Sequence, TextIO

# Each command imports what it needs when it runs: ``ast2graph --help`` and a
# usage error import neither JAX nor the compiler (they answer in well under 0.5 s).

EXIT_OK, EXIT_SITES, EXIT_ERROR = 0, 1, 2
MAX_FILE_SIZE = 10 * 10**6   # report's default (report.MAX_FILE_SIZE; a test keeps the two equal)
_SIZE_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
               "kib": 2**10, "mib": 2**20, "gib": 2**30}


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(prog="ast2graph", description="ast2graph: Python AST -> JAX/XLA graph compiler tools")
    parser.add_argument("--version", action="version", version=f"ast2graph {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{report,show,codes,explain}")
    rep = sub.add_parser("report", help="list the sites that fall back to Python, without running the code",
                         description="Settings come from [tool.ast2graph] in the nearest pyproject.toml (strict, "
                                     "include-possible, ignore, per-file-ignores, max-file-size); options given "
                                     "here win.")
    rep.add_argument("targets", nargs="+", metavar="PATH[::QUALNAME]",
                     help=".py files or directories; ::Qual.name selects one function")
    rep.add_argument("--format", choices=("text", "json", "sarif", "html"), default="text",
                     help="html: one self-contained page, each line coloured by what happens to it, the sites on "
                          "hover, each function's control-flow graph drawn (SVG with Graphviz's dot installed)")
    rep.add_argument("-o", "--output", metavar="FILE", default=None, help="write the report to FILE, not stdout")
    rep.add_argument("--strict", action="store_true", default=None, help="exit 1 when any always-fallback site is found")
    rep.add_argument("--possible", "--include-depends", dest="possible", action="store_true", default=None,
                     help="also list the sites that fall back only for some inputs (a flag that may be a traced "
                          "array, a value whose kind the source does not fix); --include-depends is the old name")
    rep.add_argument("--max-file-size", type=parse_size, default=None, metavar="SIZE",
                     help="skip (as an error) a file larger than SIZE: bytes, or with a unit kB, MB, KiB, MiB "
                          "(default 10MB; 0: no limit)")
    rep.add_argument("--config", metavar="PYPROJECT", default=None,
                     help="read [tool.ast2graph] from this file instead of the nearest pyproject.toml")
    rep.add_argument("--no-config", action="store_true", help="ignore pyproject.toml settings")
    show = sub.add_parser("show", help="print the control-flow graph of one function (with --ssa: SSA and liveness)")
    show.add_argument("target", metavar="FILE::QUALNAME")
    show.add_argument("--ssa", action="store_true", help="print the full SSA dump: phis, versions and liveness")
    sub.add_parser("codes", help="print the table of fallback codes")
    exp = sub.add_parser("explain", help="import a module and convert one function on example inputs: the decisions of a real call")
    exp.add_argument("target", metavar="FILE::QUALNAME", help="a function, a callable object or a bound method path in the module")
    exp.add_argument("--args", default="", help="Python expression of the example arguments, evaluated in the module's namespace with jax, jnp and np available, e.g. 'jnp.ones(3), 2'")
    exp.add_argument("--format", choices=("text", "json"), default="text")
    exp.add_argument("--ir", action="store_true", help="also print the graph IR of each compiled segment")
    exp.add_argument("--lowered", action="store_true", help="also print the generated JAX code")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from .report import ReportError
    from .settings import SettingsError

    try:
        return _COMMANDS[args.command](args, sys.stdout)
    except (ReportError, SettingsError) as e:
        print(f"ast2graph: error: {e}", file=sys.stderr)
        return EXIT_ERROR


def parse_size(text: str) -> int:
    """``'2000000'``, ``'10MB'``, ``'10M'``, ``'512KiB'`` -> bytes (k/M/G decimal, Ki/Mi/Gi binary)."""
    match = re.fullmatch(r"\s*(\d+)\s*([A-Za-z]*)\s*", text)
    unit = _SIZE_UNITS.get(match.group(2).lower()) if match else None
    if unit is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: a number of bytes, or with a unit kB, MB, GB, "
                                         "KiB, MiB or GiB, e.g. 10MB")
    return int(match.group(1)) * unit


def split_target(target: str) -> tuple[str, str | None]:
    """``'f.py::C.m'`` -> ``('f.py', 'C.m')``; no ``::`` -> ``(target, None)``."""
    path, sep, qualname = target.partition("::")
    return path, (qualname or None) if sep else None


# ------------------------------------------------------------------ report
def cmd_report(args: argparse.Namespace, out: TextIO) -> int:
    from .report import ALWAYS, format_text, report_path, to_json, to_sarif
    from .settings import Settings, load_settings

    first = split_target(args.targets[0])[0]
    settings = Settings() if args.no_config else load_settings(first, args.config)
    strict = settings.strict if args.strict is None else args.strict
    possible = settings.include_possible if args.possible is None else args.possible
    size = args.max_file_size if args.max_file_size is not None else \
        parse_size(str(settings.max_file_size)) if settings.max_file_size is not None else MAX_FILE_SIZE
    reports = []
    for target in args.targets:
        path, qualname = split_target(target)
        reports += report_path(path, qualname, size)
    for r in reports:   # [tool.ast2graph] ignore / per-file-ignores
        r.sites = [s for s in r.sites if not settings.ignored(s.site.code.code, r.file)]
    if args.format == "text":
        text = format_text(reports, possible)
    elif args.format == "html":
        from .report_html import to_html

        text = to_html(reports, possible)
    else:
        render = to_json if args.format == "json" else to_sarif
        text = json.dumps(render(reports, possible), indent=2) + "\n"
    if args.output is None:
        out.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
    skipped = [r for r in reports if r.error is not None]
    for r in skipped:
        print(f"ast2graph: warning: skipped {r.error}", file=sys.stderr)
    if not strict:
        return EXIT_OK
    if skipped:
        return EXIT_ERROR  # a file not analysed may hide sites: never a pass, and not "sites found"
    found = any(s.kind == ALWAYS for r in reports for s in r.sites)
    return EXIT_SITES if found else EXIT_OK


# ----------------------------------------------------------------- explain
def cmd_explain(args: argparse.Namespace, out: TextIO) -> int:
    """The opt-in mode that imports and runs the user's code."""
    import importlib.util
    import os

    from .report import ReportError

    path, qualname = split_target(args.target)
    if not qualname:
        raise ReportError(f"{args.target}: name a function as FILE::QUALNAME")
    if not os.path.isfile(path):
        raise ReportError(f"{path}: no such file")
    module = _import_file(path, importlib.util)
    target = module
    for part in qualname.split("."):
        if not hasattr(target, part):
            raise ReportError(f"{path}: no attribute {qualname!r} in the module")
        target = getattr(target, part)
    example = _example_args(args.args, module)
    from .api import explain

    e = explain(target)(*example)
    if args.format == "json":
        out.write(json.dumps(_explanation_json(e), indent=2) + "\n")
        return EXIT_OK
    out.write(str(e) + "\n")
    if args.ir:
        out.write("\n" + e.ir_text + "\n")
    if args.lowered:
        out.write("\n" + e.lowered_source)
    return EXIT_OK


def _import_file(path: str, util) -> object:
    import os

    name = "_ast2graph_explain_" + os.path.splitext(os.path.basename(path))[0]
    spec = util.spec_from_file_location(name, path)
    module = util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    return module


def _example_args(text: str, module: object) -> tuple:
    import jax
    import jax.numpy as jnp
    import numpy as np

    from .report import ReportError

    if not text.strip():
        return ()
    namespace = {"jax": jax, "jnp": jnp, "np": np, **vars(module)}
    try:
        value = eval(f"({text},)", namespace)  # noqa: S307 - the user's own expression, opt-in
    except SyntaxError as e:
        raise ReportError(f"--args: not a Python expression: {e.msg}") from None
    return tuple(value)


def _explanation_json(e) -> dict:
    return {
        "function": e.function.name, "graphs": e.graph_count, "recompiles": e.function.recompiles,
        "conversion_seconds": e.conversion_seconds, "stage_seconds": e.stage_seconds,
        "decisions": [{"file": d.loc.file, "line": d.loc.line, "col": d.loc.col + 1, "construct": d.construct,
                       "mode": d.mode, "reason": d.reason, "count": d.count} for d in e.decisions],
        "fallback_sites": [s.to_json() for s in e.fallback_sites],
    }


# -------------------------------------------------------------------- show
def cmd_show(args: argparse.Namespace, out: TextIO) -> int:
    from .report import on_deep_stack

    return on_deep_stack(_show, args, out)


def _show(args: argparse.Namespace, out: TextIO) -> int:
    from .parser.locate import normalise
    from .report import ReportError, iter_functions, load_file, too_deep_is_error
    from .ssa import analyze
    from .ssa.dump import cfg_text

    path, qualname = split_target(args.target)
    if not qualname:
        raise ReportError(f"{args.target}: name a function as FILE::QUALNAME")
    source = load_file(path)
    entries = {e.qualname: e for e in iter_functions(source.module)}
    if qualname not in entries:
        known = ", ".join(sorted(entries)) or "none"
        raise ReportError(f"{path}: no function or method named {qualname!r} (functions: {known})")
    node = entries[qualname].node
    with too_deep_is_error(path):
        info = analyze(normalise(node))
        text = info.dump() if args.ssa else cfg_text(info.cfg)
    out.write(f"# {qualname} ({path}:{node.lineno})\n")
    out.write(text)
    return EXIT_OK


# ------------------------------------------------------------------- codes
def cmd_codes(args: argparse.Namespace, out: TextIO) -> int:
    out.write(codes_table())
    return EXIT_OK


def codes_table() -> str:
    from .fallback.sites import FallbackCode

    width = max(len(c.title) for c in FallbackCode)
    rows = [f"{'CODE':<7} {'TITLE':<{width}}  HINT"]
    rows += [f"{c.code:<7} {c.title:<{width}}  {c.hint}" for c in FallbackCode]
    return "\n".join(rows) + "\n"


_COMMANDS = {"report": cmd_report, "show": cmd_show, "codes": cmd_codes, "explain": cmd_explain}


if __name__ == "__main__":
    sys.exit(main())
