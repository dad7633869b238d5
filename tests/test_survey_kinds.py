"""The report where a site hinges on a parameter's or a global's kind (issue 17, item 2).

Each function of tests/fixtures/survey_kinds.py is run with ``explain`` on
concrete inputs and surveyed from the file (never imported by the survey):
a function is listed (an ``always`` site) exactly when the run falls back on
the inputs eager's kinds suggest; a site that hinges on a kind the report
cannot know is ``depends`` and its cause names the value and both
assumptions, and the run agrees with each assumption.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import jax.numpy as jnp
import pytest

from ast2graph import explain
from ast2graph.report import ALWAYS, DEPENDS
from ast2graph.survey import survey_function

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAMS = str(FIXTURES / "survey_kinds.py")
sys.path.insert(0, str(FIXTURES))
import survey_kinds as K  # noqa: E402 - the file the survey reads, imported here to run it


def _run_sites(name: str, *args) -> set[tuple[str, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(getattr(K, name))(*args)
    return {(s.code.code, s.loc.line) for s in e.fallback_sites}


def _survey(name: str, kind: str) -> list:
    return [s for s in survey_function(PROGRAMS, name) if s.kind == kind]


@pytest.mark.parametrize("name,args", [
    # raise of a class of the file derived from Exception: a run-time check, as in the run
    ("check_then_log", (jnp.array([1.0, 2.0]),)),
    # labels taken for an int array (eager refuses float indices after the first site)
    ("nll_with_label_check", (jnp.ones((2, 3)), jnp.array([0, 2]))),
    # math.log may raise inside a try that catches it: a run-time check the handler takes (one graph since h-fb13)
    ("log_ratio_caught", (jnp.array([1.0, 2.0]),)),
    # complex() of traced Python floats: a Python complex in the graph (h-hunt19)
    ("complex_of_parts", (jnp.array([1.0, 2.0, 3.0]),)),
], ids=["exception_subclass", "integer_indices", "may_raise_caught", "complex_of_parts"])
def test_one_graph_is_not_listed(name: str, args: tuple) -> None:
    assert _run_sites(name, *args) == set()
    assert _survey(name, ALWAYS) == []


@pytest.mark.parametrize("name,args", [
    # collections is a known library: Counter of traced values hashes them
    ("count_labels", (jnp.array([1, 2, 1]),)),
    # `a, b, c = coef`: coef an array of three elements (not refuted as one of four)
    ("complex_root", (jnp.array([1.0, 2.0, 3.0]),)),
], ids=["stdlib_counter", "unpacked_parameter"])
def test_fallback_is_listed_where_the_run_falls_back(name: str, args: tuple) -> None:
    run = _run_sites(name, *args)
    assert run
    assert {(s.site.code.code, s.site.loc.line) for s in _survey(name, ALWAYS)} == run


def test_a_stand_in_after_a_site_refutes_nothing() -> None:
    # the loop runs in Python (a nested function escapes): `out`, which it fills, is empty in the survey,
    # and jnp.stack(out) raising there says nothing of x's kind: the function stays listed
    assert _run_sites("stack_after_escape", jnp.array([1.0, 0.0]))
    listed = _survey("stack_after_escape", ALWAYS)
    assert listed and all(s.site.code.code == "A2G009" for s in listed)


def test_a_registry_filled_by_module_code_depends_on_its_contents() -> None:
    # REGISTRY is filled by a decorator when the module runs: one graph with the run's string keys
    assert _run_sites("apply_registered", jnp.ones(3), ("square",)) == set()
    assert _survey("apply_registered", ALWAYS) == []
    (site,) = _survey("apply_registered", DEPENDS)
    assert "depends on the contents of `REGISTRY`" in site.site.cause


def test_a_python_int_from_a_float_depends_on_the_dtype() -> None:
    # int(a[0]) * int(a[1]): exact in int64 for int32 elements, maybe not for floats
    assert _run_sites("exact_product", jnp.array([3, 4], jnp.int32)) == set()
    floats = _run_sites("exact_product", jnp.array([3.0, 4.0]))
    assert _survey("exact_product", ALWAYS) == []
    depends = [s for s in _survey("exact_product", DEPENDS) if "`a` is a float array" in s.site.cause]
    assert {(s.site.code.code, s.site.loc.line) for s in depends} == floats
    assert "one graph if an int32 jax.Array" in depends[0].site.cause


def test_a_site_of_integer_data_depends_on_the_dtype() -> None:
    # k ** -1 of an int from .item(): a fallback for integer data, one graph for floats
    assert _run_sites("reciprocal_of_max", jnp.array([1.0, 2.0])) == set()
    ints = _run_sites("reciprocal_of_max", jnp.array([1, 2]))
    assert _survey("reciprocal_of_max", ALWAYS) == []
    depends = _survey("reciprocal_of_max", DEPENDS)
    assert {(s.site.code.code, s.site.loc.line) for s in depends} == ints
    assert all("`x` is an integer array" in s.site.cause for s in depends)


def test_recursion_depends_on_its_bound_being_a_python_int() -> None:
    # the nested function's `d` is the caller's `depth`: unrolled when it is a Python int
    assert _run_sites("refine_sqrt", jnp.array(2.0), 3) == set()
    assert _run_sites("refine_sqrt", jnp.array(2.0), jnp.array(3))
    assert _survey("refine_sqrt", ALWAYS) == []
    depends = _survey("refine_sqrt", DEPENDS)
    assert "A2G011" in {s.site.code.code for s in depends}
    assert all("`depth` is a traced array" in s.site.cause and "one graph if a Python int" in s.site.cause
               for s in depends)


def test_a_helpers_recursion_under_a_traced_branch_depends_on_the_argument() -> None:
    # the survey once inlined 2**30 calls here (never finished); the site is in
    # the helper, the value that decides is the caller's `c`
    assert _run_sites("bisection_root", 2.0) == set()
    assert {code for code, _ in _run_sites("bisection_root", jnp.array(2.0))} == {"A2G011"}
    assert _survey("bisection_root", ALWAYS) == []
    depends = _survey("bisection_root", DEPENDS)
    assert [s.site.code.code for s in depends] == ["A2G011"]
    assert "`c` is a traced array" in depends[0].site.cause and "one graph if a Python" in depends[0].site.cause


def test_every_depends_site_says_on_what() -> None:
    # a depends site names the value it hinges on and the assumption: none is left without a condition
    from ast2graph.report import report_path

    sites = [s for r in report_path(PROGRAMS) for s in r.sites if s.kind == DEPENDS]
    assert sites
    assert all("falls back if" in s.site.cause or "depends on" in s.site.cause for s in sites), \
        [s.site.cause for s in sites if "falls back if" not in s.site.cause and "depends on" not in s.site.cause]
