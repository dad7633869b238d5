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


def test_a_module_level_generator_is_the_librarys_object():
    # `RNG = np.random.default_rng(0)` is a known library's code on literals: the survey makes the Generator
    # (as it makes an __init__'s values) instead of a placeholder array, whose missing `.normal` it took for
    # evidence against `x`'s kind (the report said nothing certain; the run falls back at the draw)
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("noisy") if s.kind == ALWAYS}
    fn = _module()["noisy"]
    assert reported == run_sites(fn, jnp.ones(3)) == run_sites(fn, np.ones((2, 2))) and reported


def test_a_count_of_a_helper_is_a_python_int():
    # `size` goes to `range(0, x.shape[0], size)` in the module's `batches`: the search took it for an array,
    # which `range()` refuses, and found no kinds eager accepts (nothing listed); as a Python int the site
    # of the run is found
    calls = [(jnp.arange(10.0), 3), (jnp.arange(4.0) - 2, 2), (jnp.arange(5.0), 10)]
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("batch_sums_until") if s.kind == ALWAYS}
    fn = _module()["batch_sums_until"]
    assert reported and reported <= set().union(*(run_sites(fn, *a) for a in calls))
    check_calls(fn, calls, full_graph=False)


def test_a_refusal_of_the_compilers_own_stand_in_is_a_site():
    # len() of a string of traced f-strings raised TypeError naming 'DeferredStr' (the compiler's stand-in):
    # eager's str has a length, so it refutes no kind of `x`; the report listed nothing, the run falls back
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("joined_texts") if s.kind == ALWAYS}
    fn = _module()["joined_texts"]
    for x in (jnp.array([0.1, 2.5, -1.0]), jnp.ones((2, 2))):
        assert reported == run_sites(fn, x) and reported
    check_calls(fn, [(jnp.array([0.1, 2.5, -1.0]),), (jnp.array([1e-7, 3.0]),)], full_graph=False)


def test_a_conversion_of_several_elements_is_eagers_raise():
    # float()/int() of an array of more than one element raises in eager whatever its values: under the
    # placeholder (4, 4) that refutes the kind (max_subarray was listed as depending on a's shape; its
    # vectors are one graph), and inside a try that catches TypeError it is the site the run has
    assert [s for s in _sites("max_subarray") if s.kind == ALWAYS] == []
    fn = _module()["max_subarray"]
    check_calls(fn, [(jnp.array([-2, 1, -3, 4, -1, 2, 1, -5, 4]),), (jnp.array([-3, -1, -2]),)])
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("float_caught") if s.kind == ALWAYS}
    fn = _module()["float_caught"]
    assert reported and reported == run_sites(fn, jnp.array([1.0, 2.0]))
    check_calls(fn, [(jnp.array([1.0, 2.0]),), (jnp.array([5.0]),)], full_graph=False)


def test_a_ufunc_out_of_a_jax_array_is_eagers_raise():
    # np.multiply(a, 2.0, out=buf[1:...]) with a jax.Array buffer raises TypeError in eager: the compiler said
    # A2G007 (a write it cannot make) and the report listed it as always; it is eager's raise (A2G008), which
    # refutes the jax kinds, and the NumPy buffers the function is written for are one graph
    assert [s for s in _sites("ufunc_out_into_slice") if s.kind == ALWAYS] == []
    fn = _module()["ufunc_out_into_slice"]
    check_calls(fn, [(np.array([3.0, 1.0, 2.0]), np.zeros(4)), (np.array([1.0]), np.ones(2))])
    check(fn, jnp.array([3.0, 1.0]), jnp.zeros(4), full_graph=False)   # eager's TypeError, raised alike
    check(fn, np.array([3.0]), jnp.zeros(2), full_graph=False)


def test_a_conversion_refutes_the_array_it_converts_not_a_size():
    # int((v - lo) / width) of a row of the 2-d placeholder `data` refuted the switch of `nb` (np.zeros(nb))
    # to a Python int, as `nb` flows into `width`: the array converted moves to a lower rank first, and the
    # NumPy data with Python numbers the function is written for is one graph (not listed)
    assert [s for s in _sites("histogram") if s.kind == ALWAYS] == []
    data = np.linspace(-3.0, 3.0, 20)
    check_calls(_module()["histogram"], [(data, -2.0, 2.0, 8), (data * 5, -2.0, 2.0, 8), (np.zeros(20), -1.0, 1.0, 4)])


def test_a_raise_under_a_traced_test_is_always():
    # `if x[1] < 0: raise` the compiler meets on a traced path: the run splits there on every call (the input
    # that does not raise too), so the site is always, not 'reached only when x[1] < 0'
    sites = [s for s in _sites("checked_inverse") if s.kind == ALWAYS]
    fn = _module()["checked_inverse"]
    reported = {(s.site.code.code, s.site.loc.line) for s in sites}
    assert reported and reported == run_sites(fn, jnp.array([1.0, 2.0]))
    check_calls(fn, [(jnp.array([1.0, 2.0]),), (jnp.array([0.0, 2.0]),), (jnp.array([1.0, -1.0]),)],
                full_graph=False)


def test_an_identity_check_does_not_make_a_parameter_a_number():
    # `x * 2 is x` of traced arrays falls back (A2G003); the search took it for a site needing a value and
    # switched `x` to a Python int, under which it vanished (depends): nothing in the source says a number
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("identity_of_parameters") if s.kind == ALWAYS}
    fn = _module()["identity_of_parameters"]
    assert reported and reported == run_sites(fn, jnp.array([1.0, 2.0]), None)
    check_calls(fn, [(jnp.array([1.0, 2.0]), None), (jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0]))], full_graph=False)


def test_a_module_level_exception_object_is_made():
    # PREBUILT = ValueError("prebuilt") is a builtin exception the survey makes (not a placeholder array, whose
    # raise is a TypeError): the raise under the traced test is a run-time check, one graph, not listed
    assert [s for s in _sites("raise_prebuilt") if s.kind == ALWAYS] == []
    fn = _module()["raise_prebuilt"]
    check_calls(fn, [(-jnp.ones(3),), (jnp.ones(3),)])


def test_a_tree_given_to_tree_util_is_a_container():
    # `grads` goes to jax.tree_util.tree_leaves/tree_map only: a dict of arrays first (it was an array, under
    # which the `if` joins); the caller's dict kept on one path and rebound on the other falls back (A2G004)
    reported = {(s.site.code.code, s.site.loc.line) for s in _sites("clip_by_global_norm") if s.kind == ALWAYS}
    fn = _module()["clip_by_global_norm"]
    grads = {"a": jnp.array([3.0, 4.0]), "b": jnp.array([[1.0, 2.0]])}
    assert reported and reported == run_sites(fn, grads, 1.0)
    check_calls(fn, [(grads, 1.0), (grads, 100.0)], full_graph=False)


def test_a_large_module_level_array_is_not_made(tmp_path):
    # module-level values are made when a known library's code on literals makes them (RNG above), but not an
    # array of more than a million elements (the report must not allocate the user's data): a placeholder
    from ast2graph.survey import synthetic_module

    path = tmp_path / "big.py"
    path.write_text("import numpy as np\nBIG = np.ones((50000, 50000))\nSMALL = np.zeros((2, 3))\n"
                    "HUGE = np.arange(10 ** 10)\n")
    g = synthetic_module(str(path)).globals
    assert np.shape(g["SMALL"]) == (2, 3) and isinstance(g["SMALL"], np.ndarray)
    assert np.size(g["BIG"]) < 100 and np.size(g["HUGE"]) < 100
