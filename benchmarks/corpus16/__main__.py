"""The issue-16 corpus: the single-graph rate per category and the fallbacks per reason.

Run from the repository root:

    .venv/bin/python -m benchmarks.corpus16              # Markdown tables, ready to paste
    .venv/bin/python -m benchmarks.corpus16 --programs   # also one line per program (first fallback site)
    .venv/bin/python -m benchmarks.corpus16 -k decoder   # only programs whose category or name contains it

Every program is run eagerly and through ``to_static(fn, full_graph=False)``
on each of its input sets (or its sequence of calls with state changed between
them), and compared with eager as ``tests/helpers.py`` compares: values,
dtypes, result kinds, printed output, exceptions, argument mutations.
*one graph*: every call ran exactly one graph and no fallback site.
*eager-equivalent*: every call gave eager's result. The exit status is 1 when
a program that is not in ``registry.XFAIL`` (or ``HANGS``) differs from eager.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from .measure import Outcome, measure
from .registry import CORPUS16, Registry


def _category_table(outcomes: list[Outcome], categories: dict[str, str], mismatch: bool = False) -> list[str]:
    """One row per category; ``mismatch`` adds the count of programs that differ from eager."""
    extra = (" MISMATCH |", "---:|") if mismatch else ("", "")
    lines = ["| category | programs | one graph | eager-equivalent |" + extra[0], "|---|---:|---:|---:|" + extra[1]]
    tot = [0, 0, 0]
    for cat, title in categories.items():
        rows = [o for o in outcomes if o.program.category == cat]
        if not rows:
            continue
        n, g, e = len(rows), sum(o.one_graph for o in rows), sum(o.equal for o in rows)
        tot = [tot[0] + n, tot[1] + g, tot[2] + e]
        lines.append(f"| {title} | {n} | {g} ({100 * g / n:.0f}%) | {e} |" + (f" {n - e} |" if mismatch else ""))
    n, g, e = tot
    if n:
        lines.append(f"| **all** | **{n}** | **{g} ({100 * g / n:.0f}%)** | **{e}** |"
                     + (f" **{n - e}** |" if mismatch else ""))
    return lines


def _reason_table(outcomes: list[Outcome]) -> list[str]:
    from ast2graph.fallback.sites import FallbackCode
    titles = {c.code: c.title for c in FallbackCode}
    sites: dict[str, int] = {}
    programs: dict[str, int] = {}
    for o in outcomes:
        seen = set()
        for code, *_ in o.sites:
            sites[code] = sites.get(code, 0) + 1
            seen.add(code)
        for code in seen:
            programs[code] = programs.get(code, 0) + 1
    lines = ["| code | reason | fallback sites | programs |", "|---|---|---:|---:|"]
    for code in sorted(sites, key=lambda c: (-sites[c], c)):
        lines.append(f"| {code} | {titles.get(code, '?')} | {sites[code]} | {programs[code]} |")
    return lines


def main(argv: list[str] | None = None, registry: Registry = CORPUS16, prog: str = "python -m benchmarks.corpus16",
         description: str = "", mismatch: bool = False) -> int:
    """The runner of a corpus (corpus16's by default; ``benchmarks.hunt`` passes its own)."""
    ap = argparse.ArgumentParser(prog=prog, description=description or __doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only programs whose category or name contains this")
    ap.add_argument("--programs", action="store_true", help="one line per program")
    ap.add_argument("--json", metavar="PATH", help="also write every program's outcome as JSON")
    args = ap.parse_args(argv)
    corpus = [p for p in registry.load_all() if args.k in p.category or args.k in p.name]
    t0 = time.perf_counter()
    outcomes = []
    for p in corpus:
        t = time.perf_counter()
        o = measure(p, registry.hangs)
        outcomes.append(o)
        if args.programs:
            print(f"{time.perf_counter() - t:5.1f}s {o.line()}", flush=True)
    secs = time.perf_counter() - t0
    runs = sum(p.runs for p in corpus)
    print(f"\nast2graph {registry.title}: {len(corpus)} programs, {runs} calls compared with eager "
          f"({secs:.0f} s)\n")
    print("\n".join(_category_table(outcomes, registry.categories, mismatch)))
    print("\nFallback sites per reason (distinct sites over all input sets; programs hitting the reason):\n")
    print("\n".join(_reason_table(outcomes)))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([o.to_json() for o in outcomes], fh, indent=1)
    wrong = [o for o in outcomes if not o.equal]
    if wrong:
        print("\nDifferent from eager:")
        for o in wrong:
            known = " (known: registry.XFAIL)" if o.program.name in registry.xfail else \
                " (known: registry.HANGS)" if o.program.name in registry.hangs else ""
            print(f"  {o.program.category}/{o.program.name}{known}: {o.error}")
    return 1 if any(o.program.name not in registry.xfail and o.program.name not in registry.hangs for o in wrong) else 0


if __name__ == "__main__":
    sys.exit(main())
