"""The report where a site hinges on an assumption about a parameter (h-report21).

Each function of tests/fixtures/survey_assumptions.py is surveyed from the
file (never imported by the report), then run with ``explain`` and compared
with eager: a site the report calls ``always`` is a fallback of the run; one
that hinges on what the caller passes is ``depends``, its cause names the
parameter and both assumptions, and the run agrees with each assumption.
"""

from __future__ import annotations

from pathlib import Path

import jax.numpy as jnp
import numpy as np

from ast2graph.report import ALWAYS, DEPENDS, report_path
from helpers import check, check_calls
from report_helpers import import_after_report, run_sites

PROGRAMS = str(Path(__file__).parent / "fixtures" / "survey_assumptions.py")


def _sites(qualname: str) -> list:
    return [s for r in report_path(PROGRAMS, qualname) for s in r.sites]


def _module() -> dict:
    return import_after_report(PROGRAMS)


def test_numpy_write_in_place_and_rebound_depends_on_the_library():
    # `self.w -= x` on one path of a traced `if`, `self.w = np.zeros(3)` on the other: with a NumPy `x` the
    # run falls back (A2G007: the attribute is rebound where its array is also written in place), with a
    # jax.Array it is one graph. The report once said nothing even with --possible (it tried jax kinds only)
    sites = _sites("Moments.first")
    assert [(s.kind, s.site.code.code) for s in sites] == [(DEPENDS, "A2G007")]
    cause = sites[0].site.cause
    assert "falls back if `x` is a NumPy array" in cause and "one graph if a float32 jax.Array" in cause
    m = _module()
    line = sites[0].site.loc.line
    assert run_sites(m["Moments"]().first, np.ones(3)) == {("A2G007", line)}
    assert run_sites(m["Moments"]().first, jnp.ones(3)) == set()
    assert run_sites(m["Moments"]().first, np.ones(())) == {("A2G007", line)}
    for x in (np.ones(3), -np.ones(3)):   # both paths, and the object's array afterwards, as eager
        check(lambda x: m["Moments"]().first(x), x, full_graph=False)


def test_a_shape_change_of_the_placeholders_is_depends():
    # the two returns join as f32[4,4] (the placeholder's shape) and a Python float: a shape the source does
    # not say. The default report listed it (always); a 0-d base_lr joins, so it is depends, and the run
    # with the callers' Python numbers is one graph
    sites = _sites("lr_schedule")
    assert sites and all(s.kind == DEPENDS for s in sites)
    assert all("falls back if `base_lr` is an array of more dimensions" in s.site.cause for s in sites)
    fn = _module()["lr_schedule"]
    check_calls(fn, [(0, 100, 10, 1e-3), (5, 100, 10, 1e-3), (50, 100, 10, 1e-3), (150, 100, 10, 1e-3)])


def test_a_raise_the_function_catches_refutes_nothing():
    # `if x > 1` inside `try: ... except ValueError`: eager raises for an array of several elements, and the
    # function is written to catch it. The survey took the raise for evidence against the kind and settled on
    # a 0-d array (one graph): now the site is listed, as the run falls back for those inputs
    for name, args in (("truth_value_caught", [(np.array([1.0, 2.0]),), (np.array([3.0]),)]),
                       ("read_only_write_caught", [(np.array([1.0, 2.0, 3.0]),), (np.array([0.0]),)])):
        reported = {(s.site.code.code, s.site.loc.line) for s in _sites(name) if s.kind == ALWAYS}
        fn = _module()[name]
        ran = set().union(*(run_sites(fn, *a) for a in args))
        assert reported == ran and ran, (name, reported, ran)
        check_calls(fn, args, full_graph=False)
