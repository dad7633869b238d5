"""Does ``ast2graph report`` agree with what ``to_static`` does? (issue 17)

Corpora (``--corpus``): ``corpus16`` (the default: the issue-16 corpus,
``benchmarks/corpus16``, 149 realistic programs, each with input sets that
take every path); ``examples`` (the functions each ``examples/*.py`` script
converts, run by the script's own ``main`` on its own inputs, its timing
loops cut to one call: every ``explain`` call is recorded); ``programs`` (the
program corpora of the tests that hold their programs and inputs in one
place: ``progs`` of tests/test_programs.py and tests/test_programs_models.py
on the inputs of their ``test_program_one_graph``, the ``RAISERS`` of
tests/test_graph_exceptions.py on the input it explains, ``asserted`` of
tests/assert_programs.py on the inputs of tests/test_runtime_checks.py);
``hunt`` (``benchmarks/hunt``, 216 realistic programs written to find
wrong results and fallbacks, with their input sets); ``algo18``
(``benchmarks/algo18``, 56 textbook and tutorial control-flow programs with
their input sets); ``all`` (the five). For
every function the run says
whether it falls back (``explain``: any fallback site on
any input set) and the report, reading the same file without importing it,
says whether it lists the function (an ``always`` site; with ``--possible``
any site). Printed: the confusion counts, recall (of the functions that fall
back, the share the report lists) and precision (of the functions it lists,
the share that fall back), for the default report and for ``--possible``, and
the disagreements (per corpus and overall). A third row, ``under arrays``,
measures a rule the report does not follow (h-report21: recall 92 %,
precision 68 % over all): list by default also a depends site that falls back
when a parameter is a traced array and is one graph when it is a Python number.

    python -m benchmarks.report_agreement [--corpus {corpus16,examples,programs,hunt,algo18,all}]
                                          [--outcomes F [F ...]] [-v] [--json PATH]

An input on which eager raises (tests/assert_programs.py on a negative
input) adds no run site: the test compares the exception, and the graph
raises it too.

``--outcomes`` reuses the JSON of ``python -m benchmarks.corpus16 --json F``,
``python -m benchmarks.hunt --json G`` and/or ``python -m benchmarks.algo18
--json A`` (the run side; otherwise every program is run here, minutes):
``--corpus all --outcomes F G A``; each program's outcome is taken from its
own corpus's file (by module).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import io
import json
import re
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
CORPORA = ("corpus16", "examples", "programs", "hunt", "algo18")
REGISTERED = ("corpus16", "hunt", "algo18")   # the corpora of programs with their input sets (a Registry)
# the example scripts (examples/common.py and timing.py are their shared helpers)
EXAMPLES = ("newton_solver", "numpy_model", "rnn_early_stop", "transformer_decoder", "equinox_model",
            "flax_nnx_model", "decision_transformer_attention")


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
    corpus: str = "corpus16"
    assumed: bool = False   # an always site, or a depends site that falls back under the default assumption


def _function_of(p) -> object:
    if not p.stateful:
        return p.fn
    fn, _world = p.make()
    return getattr(fn, "__func__", fn)


def _registry(corpus: str):
    """The registry of a corpus of programs with their input sets."""
    if corpus == "hunt":
        from .hunt.registry import HUNT

        return HUNT
    if corpus == "algo18":
        from .algo18.registry import ALGO18

        return ALGO18
    from .corpus16.registry import CORPUS16

    return CORPUS16


def rows(outcomes: dict | None, names: set[str] | None = None, corpus: str = "corpus16") -> list[Row]:
    """One row per program of ``corpus`` (one of ``REGISTERED``; ``names``:
    those only): the run's sites from ``outcomes`` (else the program is run
    here), the report's from the file."""
    from .corpus16.measure import measure

    registry = _registry(corpus)
    if outcomes is not None:   # this corpus's programs only (keys: a name, or (module, name) for several corpora)
        module = registry.package
        outcomes = {key[1] if isinstance(key, tuple) else key: o for key, o in outcomes.items()
                    if o.get("module", module) == module or o.get("module", module).startswith(module + ".")}
    out = []
    for p in registry.load_all():
        if names is not None and p.name not in names:
            continue
        if outcomes is not None and p.name in outcomes:
            sites = [f"{s['code']} line {s['line']}" for s in outcomes[p.name]["sites"]]
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sites = [f"{c} line {ln}" for c, ln, _col, _cause in measure(p, registry.hangs).sites]
        out.append(row(p, sites, corpus))
    return out


def row(p, sites: list[str], corpus: str = "corpus16") -> Row:
    """The report of program ``p``'s function against the run's ``sites``."""
    return function_row(p.name, _function_of(p), sites, corpus)


def function_row(name: str, fn: Callable, sites: list[str], corpus: str = "corpus16") -> Row:
    """The report of ``fn`` (read from its file, never imported by the
    report) against the run's ``sites`` (``"CODE line N"``; empty: one graph)."""
    from ast2graph.report import ALWAYS, report_path

    file, qualname = inspect.getsourcefile(fn), fn.__qualname__
    try:
        reported = [s for r in report_path(file, qualname) for s in r.sites]
    except Exception as e:  # noqa: BLE001 - a report error is a disagreement to show, not a crash
        reported, sites = [], sites + [f"report error: {e}"]
    always = [s for s in reported if s.kind == ALWAYS]
    assumed = [s for s in reported if s.kind == ALWAYS or _UNDER_DEFAULT.search(s.site.cause)]
    return Row(name, file, qualname, bool(sites), bool(always), bool(reported),
               sites[0] if sites else "",
               f"{always[0].site.code.code} line {always[0].site.loc.line}" if always else "", corpus, bool(assumed))


_UNDER_DEFAULT = re.compile(r"falls back if .* is a traced array \(.*\), one graph if a Python")


# ------------------------------------------------------------------ the run of other corpora

def _site_strings(explanation: Any) -> list[str]:
    return [f"{s.code.code} line {s.loc.line}" for s in explanation.fallback_sites]


def _python_function(static: Any) -> Callable:
    """The user's function a ``StaticFunction`` converts (a method's function,
    a callable object's ``__call__``)."""
    binding = static._state.binding
    target = binding.target if binding is not None else static._fn
    target = getattr(target, "__func__", target)
    if not inspect.isfunction(target) and callable(target):
        target = getattr(type(target).__call__, "__func__", type(target).__call__)
    return inspect.unwrap(target)


@contextlib.contextmanager
def _recording(calls: list) -> Iterable[None]:
    """Every ``StaticFunction.explain`` call made inside: (function, sites)."""
    from ast2graph.api import StaticFunction

    original = StaticFunction.explain

    def explain(self, *args: Any, **kwargs: Any) -> Any:
        e = original(self, *args, **kwargs)
        calls.append((_python_function(self), _site_strings(e)))
        return e

    StaticFunction.explain = explain
    try:
        yield
    finally:
        StaticFunction.explain = original


def _grouped(calls: list, corpus: str, prefix: str = "") -> list[Row]:
    """One row per function: it falls back when any of its calls did."""
    by_fn: dict[Callable, list[str]] = {}
    for fn, sites in calls:
        by_fn.setdefault(fn, []).extend(sites)
    return [function_row(prefix + fn.__qualname__, fn, sites, corpus) for fn, sites in by_fn.items()]


@contextlib.contextmanager
def _on_path(folder: Path) -> Iterable[None]:
    """``folder`` first on ``sys.path`` while a script or test module is
    imported (as its own folder is when it runs), and no longer after."""
    saved = list(sys.path)
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path[:] = saved


def _once(fn: Callable, *args: Any, repeat: int = 1) -> float:
    fn(*args)
    return 1.0


@contextlib.contextmanager
def _one_timed_call(module: Any) -> Iterable[None]:
    """The example's timings (``timing.median_time``, its repeat counts
    written in the script) cut to one call: only what the calls do counts here."""
    holders = [m for m in (module, sys.modules.get("common")) if m is not None and hasattr(m, "median_time")]
    saved = [m.median_time for m in holders]
    for m in holders:
        m.median_time = _once
    try:
        yield
    finally:
        for m, f in zip(holders, saved):
            m.median_time = f


def example_rows(names: Iterable[str] = EXAMPLES) -> list[Row]:
    """The functions each example script converts, on its own inputs: its
    ``main`` runs (printing into nothing, one timed call per measurement) and
    every ``explain`` it makes is recorded."""
    out = []
    for name in names:
        with _on_path(ROOT / "examples"):   # the scripts import `common` and `timing` from their folder
            module = importlib.import_module(name)
        calls: list = []
        with _recording(calls), _one_timed_call(module), contextlib.redirect_stdout(io.StringIO()), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.main(**({"repeat": 1} if "repeat" in inspect.signature(module.main).parameters else {}))
        out += _grouped(calls, "examples", f"{name}:")
    return out


def example_run_rows(name: str, run: Callable[[], Any]) -> tuple[Any, list[Row]]:
    """``run()`` (example ``name``'s ``main``, called as the caller calls
    it) with every ``explain`` it makes recorded: its result, and the rows
    ``example_rows`` would give (tests/test_examples.py: the suite's runs of
    the examples are the ones the report is compared with)."""
    calls: list = []
    with _recording(calls):
        result = run()
    return result, _grouped(calls, "examples", f"{name}:")


def _parametrized(test: Callable, argname: str) -> list:
    """The values of ``argname`` in ``test``'s ``@pytest.mark.parametrize``."""
    for mark in getattr(test, "pytestmark", []):
        if mark.name == "parametrize" and mark.args[0] == argname:
            return list(mark.args[1])
    raise LookupError(f"{test.__name__} is not parametrized over {argname}")


def _program_calls() -> list[tuple[str, Callable, list]]:
    """(test module, function, inputs): the tests' programs held with their inputs in one place."""
    with _on_path(ROOT / "tests"):   # the test modules import `helpers` from their folder
        tests = {name: importlib.import_module(name) for name in
                 ("test_programs", "test_programs_models", "test_graph_exceptions", "test_runtime_checks",
                  "assert_programs")}
    out = []
    for module_name in ("test_programs", "test_programs_models"):
        m = tests[module_name]
        inputs = _parametrized(m.test_program_one_graph, "x")
        out += [(module_name, fn, [(x,) for x in inputs]) for fn in m.progs.values()]
    exceptions = tests["test_graph_exceptions"]
    out += [("test_graph_exceptions", fn, [(-exceptions.X,)]) for fn in exceptions.RAISERS]
    checks, asserts = tests["test_runtime_checks"], tests["assert_programs"]
    out.append(("test_runtime_checks", asserts.asserted,
                [(x,) for x in _parametrized(checks.test_assert_on_traced_values, "x")]))
    return out


def _raises(fn: Callable, args: tuple) -> bool:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001
        return True
    return False


def program_rows() -> list[Row]:
    """Each program of the tests' corpora, ``explain``-ed on each of its inputs."""
    from ast2graph import explain

    out = []
    for module_name, fn, inputs in _program_calls():
        sites: list[str] = []
        for args in inputs:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    sites += _site_strings(explain(fn)(*args))
                except Exception as e:  # noqa: BLE001 - a raise is eager's (no site) or a disagreement to show
                    if not _raises(fn, args):
                        sites.append(f"run error: {type(e).__name__}: {e}")
        out.append(function_row(f"{module_name}:{fn.__qualname__}", fn, sites, "programs"))
    return out


def figures(rs: list[Row], listed: str) -> dict:
    tp = sum(r.falls_back and getattr(r, listed) for r in rs)
    fp = sum(not r.falls_back and getattr(r, listed) for r in rs)
    fn = sum(r.falls_back and not getattr(r, listed) for r in rs)
    tn = len(rs) - tp - fp - fn
    return {"functions": len(rs), "fall back": tp + fn, "listed": tp + fp, "both": tp, "missed": fn,
            "listed, one graph": fp, "neither": tn,
            "recall": tp / (tp + fn) if tp + fn else 1.0, "precision": tp / (tp + fp) if tp + fp else 1.0}


def corpus_rows(corpus: str, outcomes: dict[str, dict] | None = None) -> list[Row]:
    if corpus in REGISTERED:
        return rows(outcomes, corpus=corpus)
    return example_rows() if corpus == "examples" else program_rows()


def _print_table(table: dict[str, dict]) -> None:
    print("| corpus | report | functions | fall back | listed | both | missed | listed but one graph | recall | precision |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for (corpus, name), f in table.items():
        print(f"| {corpus} | {name} | {f['functions']} | {f['fall back']} | {f['listed']} | {f['both']} | "
              f"{f['missed']} | {f['listed, one graph']} | {f['recall']:.0%} | {f['precision']:.0%} |")


def _print_disagreements(rs: list[Row]) -> None:
    print("\nfalls back, not listed by the default report:")
    for r in rs:
        if r.falls_back and not r.listed:
            print(f"  [{r.corpus}] {r.name:40s} run: {r.first_run_site}")
    print("\nlisted by the default report, one graph at run time:")
    for r in rs:
        if r.listed and not r.falls_back:
            print(f"  [{r.corpus}] {r.name:40s} report: {r.first_report_site}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.report_agreement", description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=CORPORA + ("all",), default="corpus16",
                    help="which functions to compare (default corpus16; all: every corpus)")
    ap.add_argument("--outcomes", metavar="JSON", nargs="+", help="the run side of corpus16, hunt and/or algo18 from "
                    "`python -m benchmarks.corpus16 --json` / `... hunt --json` / `... algo18 --json` (one file per "
                    "corpus; programs of a corpus without one are run here)")
    ap.add_argument("-v", action="store_true", help="list every disagreement")
    ap.add_argument("--json", metavar="PATH", help="also write the rows and figures as JSON")
    args = ap.parse_args(argv)
    outcomes = None
    if args.outcomes:
        outcomes = {}
        for path in args.outcomes:   # keyed by module and name: two corpora may hold programs of one name
            with open(path) as fh:
                outcomes.update({(o.get("module", ""), o["name"]): o for o in json.load(fh)})
    corpora = CORPORA if args.corpus == "all" else (args.corpus,)
    rs: list[Row] = []
    table: dict[tuple[str, str], dict] = {}
    for corpus in corpora:
        these = corpus_rows(corpus, outcomes)
        rs += these
        table[corpus, "default report"] = figures(these, "listed")
        table[corpus, "--possible"] = figures(these, "possible")
        table[corpus, "under arrays"] = figures(these, "assumed")
    if len(corpora) > 1:
        table["all", "default report"] = figures(rs, "listed")
        table["all", "--possible"] = figures(rs, "possible")
        table["all", "under arrays"] = figures(rs, "assumed")
    _print_table(table)
    if args.v:
        _print_disagreements(rs)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"figures": {f"{c} / {n}": f for (c, n), f in table.items()},
                       "rows": [r.__dict__ for r in rs]}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
