"""Does ``ast2graph report`` agree with what ``to_static`` does? (issue 17)

For every program of the issue-16 corpus (``benchmarks/corpus16``: 149
realistic programs, each with input sets that take every path), the run says
whether the program's function falls back (``explain``: any fallback site on
any input set) and the report, reading the same file without importing it,
says whether it lists the function (an ``always`` site; with ``--possible``
any site). Printed: the confusion counts, recall (of the functions that fall
back, the share the report lists) and precision (of the functions it lists,
the share that fall back), for the default report and for ``--possible``, and
the disagreements.

    python -m benchmarks.report_agreement [--outcomes corpus.json] [-v]

``--outcomes`` reuses the JSON of ``python -m benchmarks.corpus16 --json F``
(the run side; otherwise every program is run here, a few minutes).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
import warnings
from dataclasses import dataclass


@dataclass
class Row:
    name: str
    file: str
    qualname: str
    falls_back: bool
    listed: bool            # an always site in the function (the default report)
    possible: bool          # any site (--possible)
    first_run_site: str = ""
    first_report_site: str = ""


def _function_of(p) -> object:
    if not p.stateful:
        return p.fn
    fn, _world = p.make()
    return getattr(fn, "__func__", fn)


def rows(outcomes: dict[str, dict] | None, names: set[str] | None = None) -> list[Row]:
    """One row per program (``names``: those only): the run's sites from
    ``outcomes`` (else the program is run here), the report's from the file."""
    from .corpus16 import load_all
    from .corpus16.measure import measure

    out = []
    for p in load_all():
        if names is not None and p.name not in names:
            continue
        if outcomes is not None and p.name in outcomes:
            sites = [f"{s['code']} line {s['line']}" for s in outcomes[p.name]["sites"]]
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sites = [f"{c} line {ln}" for c, ln, _col, _cause in measure(p).sites]
        out.append(row(p, sites))
    return out


def row(p, sites: list[str]) -> Row:
    """The report of program ``p``'s function against the run's ``sites``."""
    from ast2graph.report import ALWAYS, report_path

    fn = _function_of(p)
    file, qualname = inspect.getsourcefile(fn), fn.__qualname__
    try:
        reported = [s for r in report_path(file, qualname) for s in r.sites]
    except Exception as e:  # noqa: BLE001 - a report error is a disagreement to show, not a crash
        reported, sites = [], sites + [f"report error: {e}"]
    always = [s for s in reported if s.kind == ALWAYS]
    return Row(p.name, file, qualname, bool(sites), bool(always), bool(reported),
               sites[0] if sites else "",
               f"{always[0].site.code.code} line {always[0].site.loc.line}" if always else "")


def figures(rs: list[Row], listed: str) -> dict:
    tp = sum(r.falls_back and getattr(r, listed) for r in rs)
    fp = sum(not r.falls_back and getattr(r, listed) for r in rs)
    fn = sum(r.falls_back and not getattr(r, listed) for r in rs)
    tn = len(rs) - tp - fp - fn
    return {"functions": len(rs), "fall back": tp + fn, "listed": tp + fp, "both": tp, "missed": fn,
            "listed, one graph": fp, "neither": tn,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "precision": tp / (tp + fp) if tp + fp else 1.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.report_agreement", description=__doc__.splitlines()[0])
    ap.add_argument("--outcomes", metavar="JSON", help="the run side from `python -m benchmarks.corpus16 --json`")
    ap.add_argument("-v", action="store_true", help="list every disagreement")
    ap.add_argument("--json", metavar="PATH", help="also write the rows and figures as JSON")
    args = ap.parse_args(argv)
    outcomes = None
    if args.outcomes:
        with open(args.outcomes) as fh:
            outcomes = {o["name"]: o for o in json.load(fh)}
    rs = rows(outcomes)
    table = {"default report": figures(rs, "listed"), "--possible": figures(rs, "possible")}
    print("| report | functions | fall back | listed | both | missed | listed but one graph | recall | precision |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, f in table.items():
        print(f"| {name} | {f['functions']} | {f['fall back']} | {f['listed']} | {f['both']} | {f['missed']} | "
              f"{f['listed, one graph']} | {f['recall']:.0%} | {f['precision']:.0%} |")
    if args.v:
        print("\nfalls back, not listed by the default report:")
        for r in rs:
            if r.falls_back and not r.listed:
                print(f"  {r.name:32s} run: {r.first_run_site}")
        print("\nlisted by the default report, one graph at run time:")
        for r in rs:
            if r.listed and not r.falls_back:
                print(f"  {r.name:32s} report: {r.first_report_site}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"figures": table, "rows": [r.__dict__ for r in rs]}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
