"""A sum of traced Python ints that may leave int64 is checked at run time.

Eager's int is exact; the graph's is int64. ``n + int(v)`` with ``n`` a large
static int (2**61 or more, or a sum computed from one) would wrap around
silently: a run-time check raises ``IntRangeError`` instead (as ``int()`` of a
value beyond int64 does), and values that fit give eager's result in one
graph. Two ints of int64 data (``int(v[0]) + int(v[1])``) are checked the same
way. Where nothing of the call has happened when the check fires (no print,
no write-back; printed text is held back until the graph returns), the call
runs eagerly and returns eager's exact int (``explain`` lists the site,
A2G016); ``full_graph=True`` refuses it.
"""

from __future__ import annotations

import contextlib
import io

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from ast2graph.diagnostics import FullGraphError, IntRangeError
from helpers import check


def runs_eagerly_beyond_int64(fn, *args):
    """Eager's exact int beyond int64: the call runs eagerly (one A2G016
    site, no graph), and refuses under ``full_graph=True``."""
    explanation = check(fn, *args, full_graph=False)
    assert explanation.graph_count == 0 and [s.code.code for s in explanation.fallback_sites] == ["A2G016"], str(explanation)
    assert "beyond int64" in explanation.fallback_sites[0].cause
    with pytest.raises(FullGraphError, match="beyond int64"):
        to_static(fn, full_graph=True)(*args)


def add(v, n):
    return n + int(v)


def sub(v, n):
    return n - int(v)


@pytest.mark.parametrize("fn", [add, sub])
@pytest.mark.parametrize("v,n", [(3, 4), (2**62, 5), (-(2**62), 2**61)])
def test_sums_that_fit_are_eager_and_one_graph(fn, v, n):
    check(fn, np.int64(v), n, full_graph=True)


@pytest.mark.parametrize("fn,v,n", [(add, 2**62, 2**62), (add, -(2**62), -(2**62) - 1), (sub, -(2**62), 2**62)])
def test_a_sum_beyond_int64_runs_eagerly(fn, v, n):
    eager = fn(np.int64(v), n)
    assert not -(2**63) <= eager < 2**63   # eager's exact int is beyond int64
    runs_eagerly_beyond_int64(fn, np.int64(v), n)


def add_data(v):
    return int(v[0]) + int(v[1])


def sub_data(v):
    return int(v[0]) - int(v[1])


def sum_data(v):
    return sum(int(t) for t in v)


@pytest.mark.parametrize("fn", [add_data, sub_data, sum_data])
@pytest.mark.parametrize("v", [[3, 4], [2**62, 2**61], [-(2**62), -(2**61)], [-5, 2**61]])
def test_sums_of_int64_data_that_fit_are_eager(fn, v):
    check(fn, np.array(v, np.int64), full_graph=True)


@pytest.mark.parametrize("fn,v", [(add_data, [2**62, 2**62]), (sub_data, [-(2**62) - 5, 2**62]),
                                  (sum_data, [2**62, 2**62])])
def test_a_sum_of_int64_data_beyond_int64_runs_eagerly(fn, v):
    eager = fn(np.array(v, np.int64))
    assert not -(2**63) <= eager < 2**63   # eager's exact int is beyond int64 (was wrapped around silently)
    runs_eagerly_beyond_int64(fn, np.array(v, np.int64))


def floordiv_data(v):
    i, j = int(v[0]), int(v[1])
    return i // j, i % j, divmod(i, j)


@pytest.mark.parametrize("v", [[7, -2], [-7, 2], [-(2**63), 1], [2**63 - 1, -1], [-(2**63), 2]])
def test_floor_division_of_int64_data_that_fits_is_eager(v):
    check(floordiv_data, np.array(v, np.int64), full_graph=True)


def test_minus_two_to_the_63_floor_divided_by_minus_one_runs_eagerly():
    v = np.array([-(2**63), -1], np.int64)
    assert floordiv_data(v)[0] == 2**63   # eager's exact int; the graph's int64 division wrapped to -2**63
    runs_eagerly_beyond_int64(floordiv_data, v)


def test_the_same_function_is_one_graph_again_once_its_ints_fit():
    """The eager call is for that call only: the next call whose ints fit
    is one graph again, with eager's result."""
    f = to_static(add_data)
    for v in ([3, 4], [2**62, 2**62], [5, 6], [-(2**62) - 5, -(2**62)], [1, 1]):
        a = np.array(v, np.int64)
        explanation = explain(f)(a)
        assert explanation.result == add_data(a) and type(explanation.result) is int
        fits = -(2**63) <= add_data(a) < 2**63
        assert explanation.graph_count == (1 if fits else 0), str(explanation)


def write_then_add(a, v):
    a[0] = 7.0   # an argument written in place: eager's write happened before its int left int64
    a[1] += 1.0
    return int(v[0]) + int(v[1])


COUNT = 0


def count_then_add(v):
    global COUNT
    COUNT += 1   # module state written each call
    return int(v[0]) + int(v[1]), COUNT


def test_writes_of_a_call_whose_int_leaves_int64_happen_once():
    """A segment that writes state takes no int64 check (a check's raise
    would lose eager's earlier writes): the int is computed in Python there,
    the writes happen once, and calls whose ints fit give eager's results too."""
    for v in ([1, 2], [2**62, 2**62]):
        check(write_then_add, np.zeros(3), np.array(v, np.int64), full_graph=False)
    global COUNT
    f = to_static(count_then_add)
    for v in ([1, 2], [2**62, 2**62], [3, 4], [2**62, 2**62]):
        COUNT = 0
        expected = count_then_add(np.array(v, np.int64))
        COUNT = 0
        assert f(np.array(v, np.int64)) == expected and COUNT == 1


def print_then_add(v):
    print("adding")
    return int(v[0]) + int(v[1])


def print_around_int(x):
    print("start")
    n = int(x.sum() * 1e18)
    print("n", n)
    return n, x * 2


def test_a_graph_that_prints_before_its_int_leaves_int64_runs_in_python_having_printed_once():
    """The graph's printed text is held back until the call ends: a call whose
    int leaves int64 runs the segment in Python instead, printing once, as
    eager (a print before and after the int, the int printed exact); calls
    whose ints fit are one graph, alternating with the others."""
    for v in ([1, 2], [2**62, 2**62], [3, 4], [2**62, 2**62]):
        check(print_then_add, np.array(v, np.int64), full_graph=False)
    check(print_then_add, np.array([1, 2], np.int64), graphs=1)
    f = to_static(print_around_int)
    for x in (jnp.ones(3), jnp.ones(3) * 100, jnp.ones(3), jnp.full(3, -100.0)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            got = f(x)
        eager = io.StringIO()
        with contextlib.redirect_stdout(eager):
            expected = print_around_int(x)
        assert (type(got[0]), got[0], out.getvalue()) == (type(expected[0]), expected[0], eager.getvalue())
        np.testing.assert_array_equal(got[1], expected[1])
    check(print_around_int, jnp.ones(3), graphs=1)
