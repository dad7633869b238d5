"""A sum of traced Python ints that may leave int64 is checked at run time.

Eager's int is exact; the graph's is int64. ``n + int(v)`` with ``n`` a large
static int (2**61 or more, or a sum computed from one) would wrap around
silently: a run-time check raises ``IntRangeError`` instead (as ``int()`` of a
value beyond int64 does), and values that fit give eager's result in one
graph. Two ints of int64 data (``int(v[0]) + int(v[1])``) are checked the same
way.
"""

from __future__ import annotations

import numpy as np
import pytest

from ast2graph import to_static
from ast2graph.diagnostics import IntRangeError
from helpers import check


def add(v, n):
    return n + int(v)


def sub(v, n):
    return n - int(v)


@pytest.mark.parametrize("fn", [add, sub])
@pytest.mark.parametrize("v,n", [(3, 4), (2**62, 5), (-(2**62), 2**61)])
def test_sums_that_fit_are_eager_and_one_graph(fn, v, n):
    check(fn, np.int64(v), n, full_graph=True)


@pytest.mark.parametrize("fn,v,n", [(add, 2**62, 2**62), (add, -(2**62), -(2**62) - 1), (sub, -(2**62), 2**62)])
def test_a_sum_beyond_int64_raises_int_range_error(fn, v, n):
    eager = fn(np.int64(v), n)
    assert not -(2**63) <= eager < 2**63   # eager's exact int is beyond int64
    with pytest.raises(IntRangeError, match="beyond int64"):
        to_static(fn)(np.int64(v), n)


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
def test_a_sum_of_int64_data_beyond_int64_raises_int_range_error(fn, v):
    eager = fn(np.array(v, np.int64))
    assert not -(2**63) <= eager < 2**63   # eager's exact int is beyond int64 (was wrapped around silently)
    with pytest.raises(IntRangeError, match="beyond int64"):
        to_static(fn)(np.array(v, np.int64))


def floordiv_data(v):
    i, j = int(v[0]), int(v[1])
    return i // j, i % j, divmod(i, j)


@pytest.mark.parametrize("v", [[7, -2], [-7, 2], [-(2**63), 1], [2**63 - 1, -1], [-(2**63), 2]])
def test_floor_division_of_int64_data_that_fits_is_eager(v):
    check(floordiv_data, np.array(v, np.int64), full_graph=True)


def test_minus_two_to_the_63_floor_divided_by_minus_one_raises_int_range_error():
    v = np.array([-(2**63), -1], np.int64)
    assert floordiv_data(v)[0] == 2**63   # eager's exact int; the graph's int64 division wrapped to -2**63
    with pytest.raises(IntRangeError, match="beyond int64"):
        to_static(floordiv_data)(v)
