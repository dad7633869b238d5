"""The report checked against the run (issue 17): helpers for the tests of
``ast2graph report``.

Requires: a file the report reads (never imported by it) and, after the
report, the same file imported here to run its functions with ``explain``.
Produces: ``report_sites(path, qualname, kind)``, ``run_sites(fn, *args)``,
``import_after_report(path)`` and ``assert_agrees(path, calls)``: the report's
always sites of each function are exactly the run's fallback sites (code and
line) on the given inputs.
Invariants: a test never hard-codes a site the run does not produce: what
the report must list is what ``explain`` says on real inputs.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import warnings
from pathlib import Path
from typing import Any, Callable

from ast2graph import explain
from ast2graph.report import ALWAYS, report_path

_COUNTER = itertools.count()


def report_sites(path: str, qualname: str | None = None, kind: str | None = ALWAYS) -> set[tuple[str, int]]:
    """(code, line) of the report's sites of ``kind`` (None: every kind) in ``path`` (or one function)."""
    return {(s.site.code.code, s.site.loc.line) for r in report_path(path, qualname) for s in r.sites
            if kind is None or s.kind == kind}


def run_sites(fn: Callable, *args: Any) -> set[tuple[str, int]]:
    """(code, line) of the fallback sites of one call of ``fn`` converted."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(fn)(*args)
    return {(s.code.code, s.loc.line) for s in e.fallback_sites}


def import_after_report(path: str, text: str | None = None) -> dict:
    """The module namespace of ``path``, run (the report has read it already).
    ``text``: the file's text to run instead (same lines), e.g. without a
    guard that proves the report never imports it."""
    source = Path(path).read_text() if text is None else text
    name = f"_report_helpers_{next(_COUNTER)}_{Path(path).stem}"
    spec = importlib.util.spec_from_loader(name, loader=None, origin=path)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = path
    sys.modules[name] = module
    exec(compile(source, path, "exec"), module.__dict__)  # noqa: S102 - the test's own fixture
    return module.__dict__


def assert_agrees(path: str, calls: dict[str, tuple[Callable[[dict], Callable], tuple]],
                  text: str | None = None) -> None:
    """For each ``qualname -> (pick, args)``: the report's always sites of the
    function equal the run's sites of ``pick(namespace)(*args)``."""
    reported = {q: report_sites(path, q) for q in calls}
    namespace = import_after_report(path, text)
    for qualname, (pick, args) in calls.items():
        assert reported[qualname] == run_sites(pick(namespace), *args), qualname
