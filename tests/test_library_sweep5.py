"""The library sweep in h-lib5 (issue 16): a run that finishes, and the
largest group of fallbacks it shows, pinned.

* ``benchmarks/library_sweep.py`` runs each namespace in a child process of
  its own: a native crash (heap corruption: glibc's "corrupted ..." abort or
  a segfault, seen in long runs at ``scipy.linalg.lu_solve`` and at the exit
  of the ``scipy.linalg`` namespace) is one outcome ``crashed`` named by the
  function that was running, a new child goes on after it, and the other
  namespaces' outcomes are kept (the whole run used to die). A crash after
  the last function (at interpreter exit) is recorded as ``exit-crash`` and
  is not a function tried. A function two namespaces hold (``optax.losses``'
  through ``optax``) is still tried once, under the first.
* The sweep's fallbacks grouped by reason: among those a general mechanism
  could make one graph, the largest is A2G007 "the array in 'x' is also
  reachable as 'y': a write must show through every alias" (19 functions
  with no other reason). A write ``x[i] = v`` into an array this call made
  that other plain local names hold (``z = y; z[0] = v``; a callee writing
  its parameter: scikit-learn's ``norms = _handle_zeros_in_scale(norms,
  copy=False)``) now binds every such name, of this function and of its
  inlined callers, to the written version: one graph (``normalize``,
  ``cosine_similarity``, ``paired_cosine_distances``). It keeps its
  fallback where a name is not all that holds it: a container, an
  attribute or a ``__slots__`` attribute (array-api-extra's ``at(z)``:
  ``scipy.stats.zscore``), a value a caller evaluated before its call
  (``h(n, g(n))``), a loop (its iterator, its carried values) or a traced
  branch, an argument (written back through one name).
"""

from __future__ import annotations

import json
import sys
import textwrap

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics.pairwise
import sklearn.preprocessing

from benchmarks import library_sweep
from tests.helpers import check


# ------------------------------------------------ the sweep survives a native crash
def _module(tmp_path, name: str, source: str) -> None:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))


@pytest.fixture
def crashing_namespaces(tmp_path, monkeypatch):
    _module(tmp_path, "h_lib5_crashes", """
        import os

        def a_first(x):
            return x + 1

        def b_aborts(x):
            os.abort()          # as glibc does on heap corruption

        def c_after(x):
            return x * 2
    """)
    _module(tmp_path, "h_lib5_dies_at_exit", """
        import atexit, os
        atexit.register(os.abort)

        def only(x):
            return x - 1
    """)
    _module(tmp_path, "h_lib5_reexports", """
        from h_lib5_crashes import a_first

        def own(x):
            return x / 2
    """)
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}:{monkeypatch.delenv('PYTHONPATH', raising=False) or ''}")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_crash_costs_one_function_and_the_run_goes_on(crashing_namespaces, capsys):
    out = crashing_namespaces / "out.json"
    assert library_sweep.main(["--namespace", "h_lib5_crashes", "--namespace", "h_lib5_dies_at_exit",
                               "--namespace", "h_lib5_reexports", "--json", str(out)]) == 0
    got = {o["name"]: o["status"] for o in json.loads(out.read_text())}
    assert got == {
        "h_lib5_crashes.a_first": "one-graph",
        "h_lib5_crashes.b_aborts": "crashed",       # the function that was running when the child died
        "h_lib5_crashes.c_after": "one-graph",      # a new child went on after it
        "h_lib5_dies_at_exit.only": "one-graph",
        "h_lib5_dies_at_exit at exit": "exit-crash",
        "h_lib5_reexports.own": "one-graph",        # a_first, tried under h_lib5_crashes, is not tried again
    }
    crashed = next(o for o in json.loads(out.read_text()) if o["status"] == "crashed")
    assert crashed["detail"].startswith("signal 6")
    table = capsys.readouterr().out
    assert "5 functions tried" in table      # the exit crash is no function
    assert "crashed at exit, after their last function (outcomes kept): h_lib5_dies_at_exit" in table


def test_in_process_runs_keep_the_old_single_process_path(crashing_namespaces):
    out = crashing_namespaces / "out.json"
    assert library_sweep.main(["--namespace", "h_lib5_reexports", "--namespace", "h_lib5_crashes",
                               "--only", "a_first", "--in-process", "--json", str(out)]) == 0
    assert [(o["name"], o["status"]) for o in json.loads(out.read_text())] == \
        [("h_lib5_reexports.a_first", "one-graph")]


def test_function_keys_are_the_same_in_every_process():
    assert library_sweep.function_key(np.sum) == "numpy.sum"
    assert library_sweep.function_key(scipy.stats.zscore) == "scipy.stats._stats_py.zscore"
    assert sys.modules["benchmarks.library_sweep"] is library_sweep


# ------------------------------------------------ a write that must show through an alias
def _zeros_to_one(scale):
    # sklearn.preprocessing._data._handle_zeros_in_scale(scale, copy=False)
    scale[scale < 1e-3] = 1.0
    return scale


def _writes_then_returns(n):
    _zeros_to_one(n)
    return n


X4 = np.array([0.0, 2.0, -4.0, 1e-5])


def test_a_callee_writing_its_parameter_the_caller_also_holds_is_one_graph():
    def f(x):
        norms = np.abs(x) * 0.5
        norms = _zeros_to_one(norms)
        return x / norms
    check(f, X4)


def test_the_callers_other_names_see_the_write():
    def f(x):
        norms = np.abs(x) * 0.5
        before = norms                   # another name for the same array: eager sees the write in it too
        after = _zeros_to_one(norms)
        return before + after, before is after
    check(f, X4)


def test_a_write_two_calls_deep_reaches_every_caller():
    def f(x):
        m = np.abs(x) * 0.5
        k = m
        r = _writes_then_returns(m)
        return k * 1.0, r is k, m.sum()
    check(f, X4)


def test_a_write_through_one_of_two_local_names_is_one_graph():
    def f(x):
        y = x * 2.0
        z = y
        y[y < 0] = 0.0
        return z                     # eager: z is y, written
    check(f, np.array([1.0, -2.0, 3.0]))


def test_a_local_function_reads_the_written_alias():
    def f(x):
        m = np.abs(x) * 0.5
        def peek():
            return m.sum()
        _zeros_to_one(m)
        return peek()
    check(f, X4)


def test_an_argument_evaluated_before_a_writing_call_sees_the_write():
    def pair(a, b):
        return a - b

    def f(x):
        norms = np.abs(x) * 0.5
        return pair(norms, _zeros_to_one(norms))   # eager: a is the written array (a - b is all zeros)
    e = check(f, X4, full_graph=False)
    assert "A2G007" in [s.code.code for s in e.fallback_sites]


def test_an_alias_in_a_list_an_attribute_or_a_slot_made_in_the_call_sees_the_write():
    class Box:
        def __init__(self, a):
            self.a = a

    class Slotted:
        __slots__ = ("a",)

        def __init__(self, a):
            self.a = a

    def in_list(x):
        m = np.abs(x) * 0.5
        held = [m]
        _zeros_to_one(m)
        return held[0]

    def in_attribute(x):
        m = np.abs(x) * 0.5
        b = Box(m)
        _zeros_to_one(m)
        return b.a

    def in_slot(x):
        m = np.abs(x) * 0.5
        b = Slotted(m)
        _zeros_to_one(m)
        return b.a
    # a list, an object made in this call: the item, the attribute rebound to the written array
    # (h-lib11; the list since h-model21)
    for f in (in_list, in_attribute, in_slot):
        check(f, X4)


def test_a_write_in_a_loop_or_under_a_traced_condition_keeps_every_alias():
    def in_loop(x):
        y = x * 2.0
        z = y
        for i in range(2):
            y[i] = 0.0
        return z

    def under_if(x):
        y = x * 2.0
        z = y
        if x[0] > 0:
            y[y < 0] = 0.0
        return z

    def loop_over_aliases(x):
        y = x * 2.0
        z = y
        for a in (y, z):         # the iterator holds the array too
            a[0] = a[0] + 1.0
        return y, z
    for f in (in_loop, under_if, loop_over_aliases):
        for x in (np.array([1.0, -2.0, 3.0]), np.array([-1.0, -2.0, 3.0])):
            check(f, x, full_graph=False)


def test_an_argument_array_written_through_a_second_name_is_written_back():
    def f(x):
        z = x
        x[0] = 5.0
        return z.sum()
    check(f, np.array([1.0, -2.0, 3.0]), full_graph=False)


@pytest.mark.parametrize("fn", [sklearn.preprocessing.normalize, sklearn.metrics.pairwise.cosine_similarity,
                                sklearn.metrics.pairwise.paired_cosine_distances])
def test_sklearn_handle_zeros_in_scale_is_one_graph(fn):
    # norms = _handle_zeros_in_scale(norms, copy=False): the callee writes the caller's array
    a = np.array([[1.0, 2.0], [0.0, 0.0], [3.0, -4.0]])
    args = (a, a[::-1].copy()) if fn is sklearn.metrics.pairwise.paired_cosine_distances else (a,)
    check(fn, *args)


@pytest.mark.parametrize("fn,args", [
    (scipy.stats.zscore, (np.array([0.3, -1.2, 2.5, 0.7, -0.4, 1.9, -2.2, 0.1]),)),
    (scipy.stats.gzscore, (np.array([0.3, 1.2, 2.5, 0.7, 0.4, 1.9, 2.2, 0.1]),)),
])
def test_the_array_api_at_helper_is_one_graph(fn, args):
    # z = xpx.at(z)[mask].set(v): the at object, made in this call, holds the array in a slot, rebound
    # to the written array; the caller's call is a method of that object, made of plain arguments (h-lib11)
    check(fn, *args)


def test_aliases_across_a_segment_boundary_a_dict_and_a_rebinding():
    def across_fallback(x):
        m = np.abs(x) * 0.5
        k = m
        _zeros_to_one(m)
        b = x.tobytes()          # runs in Python: the segment ends with m and k live
        k[1] = len(b)
        return m, k is m, k.sum()

    def in_dict(x):
        m = np.abs(x) * 0.5
        d = {"a": m}
        k = m
        _zeros_to_one(k)
        return d["a"]

    def rebound_between(x):
        m = np.abs(x) * 0.5
        k = m
        _zeros_to_one(m)
        m = m * 2.0              # m is another array now: the second write reaches k only
        _zeros_to_one(k)
        return m, k
    for f in (across_fallback, in_dict, rebound_between):
        for x in (X4, -X4):
            check(f, x, full_graph=False)
