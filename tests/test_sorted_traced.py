"""``sorted()`` of traced scalars is one graph, in the order CPython's list.sort gives.

Every case is compared with the eager run (tests/helpers.check). The inputs
include ties (stability), NaNs (every comparison with a NaN is false: the
order is the algorithm's own, not a sort of the values), descending runs and
``reverse=True`` (stability kept), so a graph that merely sorts the values
would fail here.
"""

from __future__ import annotations

import itertools
import math

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain
from helpers import check, check_calls

NAN = float("nan")
VECTORS = [
    [3.0, 1.0, 2.0, 5.0, 4.0],
    [1.0, 1.0, 0.0, 1.0, 0.0],
    [5.0, 4.0, 3.0, 2.0, 1.0],
    [5.0, 4.0, 4.0, 2.0, 1.0],
    [NAN, 1.0, 0.0, 2.0, -1.0],
    [2.0, NAN, 1.0, NAN, 0.0],
    [1.0, 2.0, NAN, 0.0, 3.0],
    [-0.0, 0.0, -0.0, 0.0, -1.0],
]


def sort_floats(x):
    vals = [float(x[i]) for i in range(5)]
    return sorted(vals)


def sort_reverse(x):
    vals = [float(x[i]) for i in range(5)]
    return sorted(vals, reverse=True)


def sort_arrays(x):
    return sorted([x[0], x[1], x[2], x[3], x[4]])


def median_of_list(x):
    vals = sorted([float(v) for v in x])
    return vals[len(vals) // 2]


def argsort_by_key(x):
    return sorted(range(5), key=lambda i: float(x[i]))


def rank_pairs_key(x):
    rows = [x[i] for i in range(5)]
    return sorted(rows, key=lambda r: -r, reverse=True)


@pytest.mark.parametrize("fn", [sort_floats, sort_reverse, sort_arrays, median_of_list, argsort_by_key, rank_pairs_key])
def test_sorted_matches_eager(fn):
    # one graph for every vector: the order is computed from the data, not fixed at trace time
    check_calls(fn, [(jnp.asarray(data, dtype=jnp.float32),) for data in VECTORS], full_graph=True)


def test_every_order_of_ties_and_nans():
    """All orders of a small multiset with ties and a NaN: the emulation
    follows count_run and binarysort comparison for comparison."""
    perms = [(jnp.asarray(perm, dtype=jnp.float32),) for perm in sorted(set(itertools.permutations(
        [1.0, 1.0, 0.0, NAN, 2.0])), key=str)]
    check_calls(sort_floats, perms, full_graph=True)
    check_calls(sort_reverse, perms, full_graph=True)


def test_int_keys_and_python_ints():
    def f(x):
        counts = [int(v) for v in x]
        return sorted(counts, reverse=True)[:3]

    check(f, jnp.asarray([3, 1, 4, 1, 5, 9, 2, 6], dtype=jnp.int32), full_graph=True)


def test_bool_keys():
    def f(x):
        return sorted(range(4), key=lambda i: bool(x[i] > 0))

    check(f, jnp.asarray([1.0, -1.0, 2.0, -2.0]), full_graph=True)


def test_static_keys_of_traced_items_sort_at_trace_time():
    def f(x):
        pairs = [(2, x[0]), (0, x[1]), (1, x[2])]
        return [v for _, v in sorted(pairs, key=lambda p: p[0])]

    check(f, jnp.asarray([1.0, 2.0, 3.0]), full_graph=True)


def test_mixed_kinds_fall_back_with_reason():
    def f(x):
        return sorted([float(x[0]), x[1], 0.5])

    e = check(f, jnp.asarray([2.0, 1.0]), full_graph=False)
    assert any("sorted()" in s.cause for s in e.fallback_sites)


def test_many_items_fall_back():
    def f(x):
        return sorted([x[i] for i in range(70)])[0]

    e = check(f, jnp.arange(70.0)[::-1], full_graph=False)
    assert any("timsort" in s.cause for s in e.fallback_sites)


def sort_in_place(x):
    vals = [float(v) for v in x]
    vals.sort(reverse=True)
    return vals


def top_two(x):
    idx = sorted(range(len(x)), key=lambda i: x[i], reverse=True)[:2]
    return [x[i] for i in idx]


@pytest.mark.parametrize("fn", [sort_in_place, top_two])
@pytest.mark.parametrize("data", VECTORS[:6], ids=[str(i) for i in range(6)])
def test_list_sort_and_top_k(fn, data):
    check(fn, jnp.asarray(data, dtype=jnp.float32), full_graph=True)


def test_sort_of_an_argument_list_writes_it_back():
    def f(xs, x):
        xs.append(x[0] * 2)
        xs.sort()
        return xs[0]

    for data in VECTORS[:5]:
        v = jnp.asarray(data, dtype=jnp.float32)
        check(f, [v[1], v[2], v[3]], v, full_graph=True)


def test_unsortable_items_fall_back():
    def f(x):
        d = {"a": x[0], "b": x[1], "c": x[2]}
        return [k for k, _ in sorted(d.items(), key=lambda kv: kv[1])]

    e = check(f, jnp.asarray([2.0, 3.0, 1.0]), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"]


def test_sorted_of_a_generator_expression():
    def f(x):
        return sorted((float(v) * 2 for v in x), reverse=True)

    for data in VECTORS[:6]:
        check(f, jnp.asarray(data, dtype=jnp.float32), full_graph=True)


def test_python_numbers_keep_64_bits():
    """Keys that differ beyond float32 or int32 keep eager's order and values."""
    def floats(x):
        a = float(x[0])
        return sorted([a + 1e-12, a, a + 2e-12, a - 1e-12])

    def ints(x):
        a = int(x[0])
        return sorted([a + 2**40 + 1, a + 2**40, a], reverse=True)

    check(floats, jnp.asarray([1.0, 2.0]), full_graph=True)
    check(ints, jnp.asarray([1.0, 2.0]), full_graph=True)


def test_tuples_holding_traced_values_fall_back():
    """Keys that are tuples holding traced values (eager compares them element
    by element) run in Python, not at trace time on graph values."""
    def f(x):
        return sorted([(x[0], 1), (x[1], 2)]), sorted([(1, x[0]), (0, x[1])])

    e = check(f, jnp.asarray([2.0, 1.0]), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"]
