"""``x[:n]``, ``x[i:j]``, ``x[n:]`` with traced bounds (``typeinfer/masked.py``).

The slice is the whole array with the kept positions marked; reductions,
elementwise operations, ``@`` and ``len`` of it stay in the graph. Every
function is compared with its eager run on bounds that take every path:
empty slices, negative bounds, bounds beyond the length, NumPy and JAX arrays.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check

XJ = jnp.array([0.5, -1.0, 2.0, 3.5, -0.25, 1.0])
XN = np.array([0.5, -1.0, 2.0, 3.5, -0.25, 1.0])
BOUNDS = (0, 1, 3, 6, 9, -1, -4, -7)


def reductions(x, n):
    k = int(n)
    s = x[:k]
    return s.sum(), np.sum(s ** 2), jnp.sum(s * 2.0 + 1.0), len(s)


@pytest.mark.parametrize("x", (XJ, XN), ids=("jax", "numpy"))
@pytest.mark.parametrize("n", BOUNDS)
def test_sum_of_a_prefix(x, n):
    check(reductions, x, jnp.asarray(n))


def tail_and_middle(x, i, j):
    a, b = int(i), int(j)
    return x[a:].sum(), x[a:b].sum(), x[a:b:2].sum(), x[b:a:-1].sum(), len(x[a:b]), len(x[b:a:-2])


@pytest.mark.parametrize("x", (XJ, XN), ids=("jax", "numpy"))
@pytest.mark.parametrize("i,j", [(0, 6), (1, 4), (4, 1), (-3, -1), (-9, 9), (7, 9), (2, 2), (-1, -6)])
def test_suffix_and_middle_slices_clamp_as_eager(x, i, j):
    check(tail_and_middle, x, jnp.asarray(i), jnp.asarray(j))


def extremes(x, n):
    k = int(n)
    return x[:k].max(), np.min(x[k:]), jnp.max(x[:k])


@pytest.mark.parametrize("x", (XJ, XN), ids=("jax", "numpy"))
@pytest.mark.parametrize("n", (0, 2, 6, -2, 9))
def test_max_min_raise_eagers_value_error_when_empty(x, n):
    check(extremes, x, jnp.asarray(n))


def mean_of(x, n):
    return x[:int(n)].mean()


@pytest.mark.parametrize("n", (1, 4, 6))
def test_mean(n):
    check(mean_of, XJ, jnp.asarray(n))
    check(mean_of, XN, jnp.asarray(n))


def test_mean_of_an_empty_slice_is_nan_and_numpy_warns():
    check(mean_of, XJ, jnp.asarray(0))
    with warnings.catch_warnings(record=True) as eager:
        warnings.simplefilter("always")
        mean_of(XN, jnp.asarray(0))
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        out = to_static(mean_of, full_graph=True)(XN, jnp.asarray(0))
    assert np.isnan(out)
    assert {str(w.message) for w in got} == {str(w.message) for w in eager}, (eager, got)


def products(x, w, n):
    k = int(n)
    m = x.reshape(3, 2)
    return x[k:] @ w[k:], np.dot(x[:k], w[:k]), (m[:k // 2] @ jnp.ones((2, 4))).sum(), (-x[:k]).sum(axis=0)


@pytest.mark.parametrize("n", (0, 2, 5, 8, -2))
def test_dot_of_two_slices_and_a_row_slice_times_a_matrix(n):
    check(products, XJ, XJ * 0.5 + 1.0, jnp.asarray(n))


def rows(x, n):
    m = x.reshape(3, 2)
    k = int(n)
    return m[:k].sum(axis=1).sum(), m[:k].sum(axis=0), m[k:].max(axis=0)


@pytest.mark.parametrize("n", (0, 1, 2, 3, 5, -1, -4))
def test_reductions_over_an_axis(n):
    check(rows, XJ, jnp.asarray(n))   # m[k:] is empty for k >= 3: eager's ValueError from a run-time check


def loop_over(x, n):
    total = x[0] * 0.0   # an array from the start: a Python 0.0 would stay a float when the slice is empty
    count = 0
    for v in x[:int(n)]:
        total = total + v * v
        count += 1
    return total, count


@pytest.mark.parametrize("n", (0, 3, 6, 9, -2))
def test_loop_over_a_slice_has_a_traced_trip_count(n):
    e = check(loop_over, XJ, jnp.asarray(n))
    assert any(d.construct == "for" and d.mode == "lax.fori_loop" for d in e.decisions), e


def returned(x, n):
    return x[:int(n)]


def reshaped(x, n):
    return x[:int(n)].reshape(-1, 1)


def shape_read(x, n):
    return x[:int(n)].shape   # (the count, a traced Python int): one graph


def zeros_of_its_shape(x, n):
    return jnp.zeros(x[:int(n)].shape)   # a shape needs the number itself


def test_its_shape_is_a_traced_int_until_a_shape_needs_the_number():
    check(shape_read, XJ, jnp.asarray(3), full_graph=True)
    e = check(zeros_of_its_shape, XJ, jnp.asarray(3), full_graph=False)
    assert e.fallback_sites and "as a shape" in e.fallback_sites[0].cause, e


@pytest.mark.parametrize("fn", (returned, reshaped))
def test_other_uses_fall_back_with_the_reason(fn):
    check(fn, XJ, jnp.asarray(3), full_graph=False)
    e = explain(to_static(fn))(XJ, jnp.asarray(3))
    assert e.fallback_sites and "traced bound" in e.fallback_sites[0].cause, e


# ------------------------------------------------------------------ writes
def write_same_bounds(x, n):
    k = int(n)
    y = np.array(x)
    y[:k] += 1.0
    z = np.zeros(6)
    z[k:] = x[k:] * 2.0
    w = np.array(x)
    w[:k:2] = w[:k:2] - x[:k:2]
    return y, z, w


def write_other_bounds(x, n):
    k = int(n)
    y = np.zeros(6)
    y[:k] = x[1:k + 1]   # one row fewer when k + 1 passes the end: NumPy's ValueError, from a run-time check
    return y


def write_one_row_broadcasts(x, n):
    k = int(n)
    y = np.zeros(6)
    y[:k] = x[k - 1:k]   # one kept row (or none) broadcast along the target, as NumPy does
    return y


def write_rows(x, n):
    k = int(n)
    m = np.array(x).reshape(3, 2)
    m[:k] *= m[:k]
    out = np.ones((3, 2), np.float32)
    out[k:] = m[k:]   # float64 rows into a float32 array: cast as NumPy casts
    return m, out


def at_writes(x, n):
    k = int(n)
    return x.at[:k].set(x[:k] * 3.0), x.at[k:].add(x[k:]), x.at[:k].max(-x[:k])


@pytest.mark.parametrize("n", (0, 1, 3, 5, 6, 9, -1, -4, -7))
def test_writes_of_a_slice_into_a_slice_with_traced_bounds(n):
    for fn in (write_same_bounds, write_other_bounds, write_one_row_broadcasts):
        check(fn, XN, jnp.asarray(n))
    check(write_rows, XN, jnp.asarray(min(n, 4)))
    check(at_writes, XJ, jnp.asarray(n))


def write_in_branch_and_loop(x, n):
    k = int(n)
    y = np.array(x)
    if x[0] > 0:
        y[:k] = y[:k] * 0.5
    for i in range(20):   # rolled
        y[:k] += 0.125
    return y


@pytest.mark.parametrize("n", (0, 3, 9, -2))
def test_writes_under_a_traced_if_and_in_a_rolled_loop(n):
    check(write_in_branch_and_loop, XN, jnp.asarray(n))
    check(write_in_branch_and_loop, -XN, jnp.asarray(n))


def write_casts_float_into_int(x, n):
    k = int(n)
    y = np.arange(6)
    y[:k] = x[:k]
    return y


def test_a_write_that_casts_across_kinds_falls_back_with_the_reason():
    check(write_casts_float_into_int, XN, jnp.asarray(3), full_graph=False)
    e = explain(to_static(write_casts_float_into_int))(XN, jnp.asarray(3))
    assert e.fallback_sites and "casting float64 into int64" in e.fallback_sites[0].cause, e



def count_and_scale(x, n):
    k = int(n)
    return (x[:k] > 0).sum(), np.abs(x[k:]).sum(), (x[:k] >= 1.0).any(), jnp.exp(x[:k]).sum()


@pytest.mark.parametrize("x", (XJ, XN), ids=("jax", "numpy"))
@pytest.mark.parametrize("n", (0, 1, 3, 6, 9, -2))
def test_comparisons_and_ufuncs_of_a_slice(x, n):
    check(count_and_scale, x, jnp.asarray(n))


def items_of_trimmed(x):
    k = int((x < 0).sum())
    t = x[k:]   # (scipy's _trim_zeros, then den[0])
    return t[0], t[-1], t[1] / t[0]


@pytest.mark.parametrize("x", ([-1.0, 2.0, 3.0, 4.0], [-1.0, -2.0, -3.0, 4.0], [-1.0, -2.0, -3.0, -4.0], [1.0, 2.0]))
@pytest.mark.parametrize("kind", (np.array, jnp.array), ids=("numpy", "jax"))
def test_int_index_into_a_slice_with_traced_bound(x, kind):
    # NumPy raises IndexError past the slice's end; JAX clamps, and raises on an empty one
    check(items_of_trimmed, kind(x))


# ---------------------------------- shape and size of a masked value; np.nonzero / np.where(c) / np.flatnonzero
MASK_INPUTS = ([0.5, -1.0, 2.0, 3.0], [-0.5, -1.0, -2.0, -3.0], [3.0, 0.0, 1.0, float("nan")], [1.0, 2.0])


def shape_and_size(x):
    pos = x[x > 0]
    top = pos.max() if pos.size > 0 else None
    return pos.sum(), top, pos.shape[0], pos.size, len(pos.shape)


def first_positive_index(x):
    idx = np.where(x > 0)[0]
    if len(idx) == 0:
        return -1
    return int(idx[0])


def nonzero_positions(x):
    (nz,) = np.nonzero(x)
    flat = np.flatnonzero(x > 1)
    total = 0
    for i in nz:
        total += i
    return len(nz), total, flat.sum() if len(flat) else 0, nz[-1] if nz.size else None


def rows_kept(m):
    keep = m[m[:, 0] > 0]
    return keep.shape, keep.size, keep.sum(axis=0)


@pytest.mark.parametrize("x", MASK_INPUTS)
@pytest.mark.parametrize("kind", (np.array, jnp.array), ids=("numpy", "jax"))
@pytest.mark.parametrize("fn", (shape_and_size, first_positive_index, nonzero_positions))
def test_masked_shape_size_and_nonzero_positions(fn, kind, x):
    # np.nonzero of a jax.Array calls its .nonzero() (JAX's int32 positions): that call runs in Python
    check(fn, kind(x), full_graph=not (fn is nonzero_positions and kind is jnp.array))


@pytest.mark.parametrize("kind", (np.array, jnp.array), ids=("numpy", "jax"))
def test_shape_of_masked_rows(kind):
    check(rows_kept, kind([[1.0, 2.0], [-1.0, 3.0], [2.0, -4.0]]), full_graph=True)
    check(rows_kept, kind([[-1.0, 2.0], [-1.0, 3.0]]), full_graph=True)


def test_nonzero_of_a_matrix_still_falls_back():
    def f(m):
        return len(np.nonzero(m > 0)[0])

    e = check(f, np.array([[1.0, -2.0], [3.0, 4.0]]), full_graph=False)
    assert e.fallback_sites
