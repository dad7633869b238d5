"""NumPy functions called on traced values give eager's results: the same
values, dtypes, kinds of object (a Python bool, a NumPy scalar, a 0-d
ndarray, an ndarray) and the same writes into their arguments.

Each test is user code calling the NumPy function, compared with the eager
run (``tests.helpers.check``); the library function that showed the
behaviour (``benchmarks/library_sweep.py``) is named in the test.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import check

_RNG = np.random.default_rng(7)
V = _RNG.normal(size=8)
M = _RNG.normal(size=(4, 4))
M2 = _RNG.normal(size=(4, 4))


# ------------------------------------------------------------------ kinds
def test_comparisons_of_whole_arrays_are_python_bools():
    # np.allclose, np.array_equal, np.array_equiv return bool(...): a Python bool, not np.bool_
    def f(a, b):
        return np.allclose(a, b), np.array_equal(a, b), np.array_equiv(a, b), np.allclose(a, b + 1.0)

    check(f, V, V.copy())


def test_python_bool_result_used_in_a_condition():
    def f(a, b):
        same = np.array_equal(a, b)
        return (a + 1.0 if same else a - 1.0), same

    check(f, V, V.copy(), full_graph=False)
    check(f, V, V + 1.0, full_graph=False)


def test_zero_d_ndarray_results_stay_ndarrays():
    # np.cov of a vector and np.tensordot over every axis return 0-d ndarrays, np.sum a NumPy scalar
    def f(v, a, b):
        return np.cov(v), np.tensordot(a, b), np.linalg.tensordot(a, b), np.sum(v)

    check(f, V, M, M2)


def test_asarray_of_a_numpy_scalar_is_a_zero_d_array():
    def f(v):
        return np.asarray(v.sum()), np.array(v[0]), np.asarray(v[1], dtype=np.float32)

    check(f, V)


def test_methods_of_a_zero_d_array_keep_its_kind():
    # x.copy(), x.astype(...) of a 0-d ndarray are 0-d ndarrays; x + 1, x.sum(), x[()] NumPy scalars
    def f(v):
        c = np.cov(v)
        return c.copy(), c.astype(np.float32), c + 1, c.sum(), c[()], c.item()

    check(f, V)


def test_zero_d_array_argument():
    def f(a):
        return a, a * 2, a.copy(), np.asarray(a), a.reshape(())

    check(f, np.array(2.5))


def test_zero_d_array_is_printed_and_inspected_as_eager():
    def f(v):
        c = np.cov(v)
        print(repr(c), type(c).__name__, isinstance(c, np.ndarray), c.ndim)
        return c

    check(f, V)


def test_zero_d_array_or_scalar_by_the_path_is_tagged():
    def f(a, v):
        r = a if v.sum() > 0 else a * 2    # a 0-d ndarray on one path, a NumPy scalar on the other
        return r

    # a run-time kind tag picks eager's object (typeinfer/pathkinds.py): one graph, both paths
    for v in (V, -V):
        check(f, np.array(2.0), v, full_graph=True)


def test_zero_d_array_written_in_place_falls_back():
    def f(v):
        c = np.cov(v)
        d = c
        c += 1.0          # in place on the 0-d ndarray: d sees it
        return c, d

    check(f, V, full_graph=False)


def test_views_made_by_numpy_functions_are_views():
    # np.permute_dims / np.matrix_transpose return views: a write through one shows in the argument
    def f(a):
        t = np.permute_dims(a)
        t[0, 1] = 5.0
        return a

    check(f, M, full_graph=False)


def test_zero_d_array_written_by_subscript_stays_an_array():
    def f(v):
        c = np.cov(v)
        c[()] = 2.0
        d = np.asarray(v.sum())
        d[...] = 3.0
        return c, d

    check(f, V)


# ------------------------------------------------- JAX namesakes that differ
TIES = np.array([3., 1., 2., 1., 3., 1., 0., 2., 1., 3., 3., 1., 2., 2., 0., 1., 1., 1.] * 3)


def test_argsort_with_ties_gives_numpys_order():
    # NumPy's default sort is not stable (JAX's is): where keys tie, NumPy orders them on the host
    def f(x):
        return np.argsort(x), np.argsort(x.reshape(6, 9), axis=1), x.argsort(), np.argsort(x, axis=None)

    check(f, TIES)


def test_argsort_without_ties_and_stable_argsort():
    def f(x, y):
        return np.argsort(x), np.argsort(y, kind="stable"), np.argsort(y, kind="mergesort"), np.sort(y, kind="heapsort")

    check(f, V, TIES)


def test_argsort_of_nans_and_signed_zeros():
    def f(x):
        return np.argsort(x), np.sort(x)

    check(f, np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 2.0, -1.0]))


def test_partition_is_numpys_on_the_host():
    # NumPy's introselect leaves the other elements in its own order: no JAX op computes it, NumPy does (a callback)
    def f(x, y):
        y.partition(2)
        return np.partition(x, 3), np.argpartition(x, 2), np.partition(x.reshape(2, 4), 1, axis=None), y

    check(f, V, V[::-1].copy())


def test_polydiv_trims_the_remainder_as_numpy():
    def f(a, b):
        return np.polydiv(a, b)

    check(f, np.array([1., 2., 3.]), np.array([1., 2., 3.]), full_graph=False)
    check(f, V, V[:3], full_graph=False)


def test_integer_floor_division_by_zero_is_zero():
    def f(a, b):
        return np.floor_divide(a, 0), np.floor_divide(a, b), np.divmod(a, b), np.remainder(a, b)

    check(f, np.array([5, -5, 7]), np.array([0, 2, 0]))


def test_tril_triu_of_a_vector():
    def f(v):
        return np.tril(v), np.triu(v, 1), np.tril(v.reshape(2, 4), -1)

    check(f, V)


def test_pinv_and_matrix_rank_use_numpys_cutoffs():
    q1, _ = np.linalg.qr(_RNG.normal(size=(3, 3)))
    q2, _ = np.linalg.qr(_RNG.normal(size=(3, 3)))
    a = q1 @ np.diag([2.0, 1.0, 6e-15]) @ q2.T    # a singular value between NumPy's cutoff (1e-15) and JAX's

    def f(a):
        return np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.matrix_rank(a, rtol=0.6), \
            np.linalg.matrix_rank(a, tol=0.6)   # rtol relative to the largest (2.0): rank 1

    check(f, a, rtol=1e-3, atol=1e2)


def test_index_and_count_results_are_int64():
    def f(v):
        return np.searchsorted(np.sort(v), 0.1), np.histogram(v), np.histogram2d(v, v), np.linalg.matrix_rank(M)

    check(f, V)


def test_fix_is_one_graph():
    def f(v):
        return np.fix(v * 3), np.trunc(v, out=None)

    check(f, V)


def test_numpy_raising_for_its_arguments_raises():
    def f(v):
        return np.percentile(v, 150)

    check(f, V, full_graph=False)


def test_eigh_and_cholesky_read_one_triangle():
    # NumPy reads the lower (UPLO) triangle only; JAX symmetrizes its input by default
    a = M @ M.T + 4 * np.eye(4)
    a[0, 3] += 5.0      # not symmetric: the upper triangle is not read

    def f(a):
        w, v = np.linalg.eigh(a)
        return w, np.abs(v), np.linalg.eigvalsh(a), np.linalg.eigvalsh(a, UPLO="U"), np.linalg.cholesky(a)

    check(f, a)


# ------------------------------------------------------ writes into arrays
def test_copyto_writes_into_the_argument():
    def f(dst, src):
        np.copyto(dst, src)
        return dst * 2

    check(f, M.copy(), M2)


def test_copyto_with_where_and_a_scalar():
    def f(dst, src):
        np.copyto(dst, src, where=src > 0)
        np.copyto(dst[0:0], 1.0) if False else None
        return dst

    check(f, M.copy(), M2)


def test_copyto_into_a_new_array():
    def f(x):
        e = np.empty(x.shape)
        np.copyto(e, x + 1.0)
        return e

    check(f, V)


def test_fill_diagonal_put_putmask_place_put_along_axis():
    def f(a, b, c, d, e):
        np.fill_diagonal(a, 3.0)
        np.put(b, [0, 5, -1], [9.0, 8.0])
        np.putmask(c, c > 0, [1.0, 2.0, 3.0])
        np.place(d, d < 0, [7.0, 6.0])
        np.put_along_axis(e, np.array([[0], [2], [1], [3]]), 7.0, axis=1)
        return a.sum() + b.sum()

    check(f, M.copy(), M.copy(), M.copy(), M.copy(), M.copy())


def test_fill_diagonal_wraps_tall_matrices():
    def f(a):
        np.fill_diagonal(a, [1.0, 2.0], wrap=True)
        return a

    check(f, np.zeros((7, 3)))


def test_ufunc_at_accumulates_repeated_indices():
    def f(counts, labels, w):
        np.add.at(counts, labels, w)
        np.maximum.at(counts, [0, 1], 0.5)
        return counts

    check(f, np.zeros(4), np.array([0, 2, 2, 3, 0, 2]), np.arange(6.0))


def test_ufunc_at_out_of_bounds_raises_as_numpy():
    def f(counts, labels):
        np.add.at(counts, labels, 1.0)
        return counts

    check(f, np.zeros(4), np.array([0, 4]))


def test_ndarray_fill_and_sort_in_place():
    def f(a, b):
        a.fill(2.5)
        b.sort()
        b.sort(axis=0)
        return a, b

    check(f, M.copy(), M2.copy())


def test_out_arguments_of_numpy_functions():
    def f(a, b, c, d):
        np.cumsum(a[0], out=d)
        np.dot(a, b, out=c)
        s = np.sum(a, axis=0, out=d).sum()
        np.clip(a, 0, 1, out=a)
        return s, np.mean(b, axis=1, out=d), a, c

    check(f, M.copy(), M2, np.zeros((4, 4)), np.zeros(4))


def test_writes_the_graph_cannot_make_fall_back():
    def through_a_view(a):
        np.fill_diagonal(a[:2], 1.0)    # writes into a view of the argument
        return a

    def traced_put(a, i):
        np.put(a, i, 1.0)               # traced indices: repeated ones are written in order by NumPy
        return a

    def traced_kth(a, k):
        return np.partition(a, k)      # NumPy's partition on the host needs kth at trace time

    for fn, args in ((through_a_view, (M.copy(),)), (traced_put, (M.copy(), np.array([1, 1]))),
                     (traced_kth, (V.copy(), np.array(2)))):
        e = check(fn, *args, full_graph=False)
        assert e.fallback_sites, fn.__name__


def test_aliased_argument_written_by_copyto():
    def f(a, b):
        c = a
        np.copyto(a, b)    # c sees the write
        return c

    check(f, M.copy(), M2, full_graph=False)


def test_out_result_is_the_out_array():
    def f(a, d):
        r = np.sum(a, axis=0, out=d)
        return r is d, r

    check(f, M.copy(), np.zeros(4), full_graph=False)


# ------------------------------------------- signatures NumPy and JAX differ in
def test_ufunc_methods_on_traced_values():
    def f(v, i):
        return (np.add.reduce(v), np.maximum.reduce(v), np.add.accumulate(v), np.multiply.outer(v, v),
                np.add.reduce(i), np.multiply.accumulate(i), np.subtract.outer(i, i), np.logical_and.reduce(v > 0))

    check(f, V, np.arange(1, 5, dtype=np.int32))


def test_take_checks_bounds_as_numpy():
    def f(v, i):
        return np.take(v, i), np.take_along_axis(v, i, axis=0), v.take(i)

    check(f, V, np.array([1, -2]))
    check(f, V, np.array([1, 8]))          # eager raises IndexError; so does the converted call
    check(f, V, np.array([-9, 0]))


def test_take_and_repeat_with_float_counts_truncate():
    def f(v):
        return np.take(v, 1.7), np.repeat(v, 0.5), np.repeat(v, 2.9), np.take(v, [1, 2])

    check(f, V)


# --------------------------------------------- NumPy's errors for some data
def test_nanargmax_of_an_all_nan_slice_raises():
    def f(v):
        return np.nanargmax(v), np.nanargmin(v, axis=0)

    check(f, np.array([[1.0, np.nan], [3.0, 2.0]]))
    check(f, np.array([[np.nan, np.nan], [np.nan, np.nan]]))    # ValueError, as eager


def test_average_with_weights_summing_to_zero_raises():
    def f(v, w):
        return np.average(v, weights=w), np.average(v.reshape(2, 2), axis=0, weights=w[:2])

    check(f, np.arange(4.0), np.array([1.0, 2.0, 1.0, -1.0]))
    check(f, np.arange(4.0), np.array([1.0, -1.0, 1.0, -1.0]))  # ZeroDivisionError, as eager


@pytest.mark.parametrize("x, w", [
    (np.array([-0.0]), np.array([1.0])),                     # XLA's one-element sum keeps -0.0; NumPy's adds to +0.0
    (np.array([-0.0], np.float32), np.array([2.0], np.float32)),
    (np.array([0.0, -0.0]), np.array([-1.0, -2.0])),         # +0.0 / -3.0 is -0.0 in both
    (np.array([[-0.0, 1.0], [-0.0, 2.0]]), np.array([1.0, 3.0])),
], ids=["one", "f32", "negative_weights", "axis0"])
def test_weighted_average_has_numpys_signed_zeros(x, w):
    def f(v, u):
        return np.average(v, weights=u, axis=0 if u.shape != v.shape else None, returned=True)

    e = check(f, x, w, full_graph=True)
    eager = f(x, w)
    for a, b in zip(eager, e.result):
        assert np.array_equal(np.signbit(a), np.signbit(b)), (eager, e.result)


def test_weighted_average_with_mismatched_weights_raises_numpys_error():
    def f(v, u):
        return np.average(v, weights=u)   # no axis: NumPy's TypeError

    check(f, np.ones((2, 2)), np.ones(2), full_graph=False)


def test_quantile_of_a_traced_q_out_of_range_raises():
    def f(v, q):
        return np.quantile(v, q), np.nanpercentile(v, q * 100), np.percentile(v, 50)

    check(f, V, np.array([0.2, 0.9]))
    check(f, V, np.array([0.2, 1.9]))   # ValueError, as eager


def test_digitize_with_traced_bins():
    def f(x, b):
        return np.digitize(x, b), np.digitize(x, b, right=True)

    check(f, np.array([0.5, 2.5, 9.0]), np.arange(4.0))
    check(f, np.array([0.5, 2.5, 9.0]), np.arange(4.0)[::-1].copy())   # decreasing bins
    check(f, np.array([0.5, 2.5, 9.0]), np.array([0.0, 2.0, 1.0]))     # ValueError, as eager


# ------------------------------------------------ the vetted graph ops
def test_vetted_graph_ops_compute_numpys_results():
    # numpy_api.VETTED_NAMES are not checked at trace time: each is checked here against NumPy on exemplar
    # data, with the first argument set of the namespace sweep that NumPy accepts (benchmarks/library_sweep.py)
    import importlib

    from ast2graph.ir.core import Value
    from ast2graph.typeinfer import numpy_api
    from ast2graph.typeinfer.lattice import array_type_of
    from ast2graph.typeinfer.numpy_probe import differs
    from ast2graph.graphlib.trees import tree_flatten
    from benchmarks.library_sweep import ARG_SETS, _eager

    failures, checked = [], 0
    for name in numpy_api.VETTED_NAMES:
        if name.startswith("empty"):
            continue   # uninitialised memory: no values to compare
        module, _, attr = ("numpy." + name).rpartition(".")
        fn = getattr(importlib.import_module(module), attr)
        for _, make in ARG_SETS:
            try:
                _eager(fn, make)
            except BaseException:  # noqa: BLE001 - not this argument set
                continue
            args = tuple(Value(array_type_of(a)) if isinstance(a, np.ndarray) else a for a in make())
            op = numpy_api.graph_function(fn, args, {})
            if op is not fn:
                leaves, treedef = tree_flatten((args, {}), is_leaf=lambda x: isinstance(x, Value))
                checked += 1
                why = differs(fn, op, treedef, leaves, raises_checked=numpy_api.raise_check(fn, args, {}) is not None)
                if why:
                    failures.append((name, why))
            break
    assert not failures, failures
    assert checked > 150


def test_put_with_static_array_indices():
    def f(a):
        np.put(a, np.array([0, 5]), np.array([9.0, 8.0]))
        np.put(a, [1], 4.0, mode="wrap")
        return a

    check(f, M.copy())


def test_searchsorted_of_unsorted_keys_is_numpys_binary_search():
    def f(a, v):
        return np.searchsorted(a, v), np.searchsorted(a, v, side="right"), a.searchsorted(v)

    check(f, np.sort(V), V[:3])
    check(f, V, V[:3])       # not sorted: NumPy's answer is what its binary search finds (computed on the host)


def test_empty_arrays_overwritten_in_the_graph():
    def f(x):
        e = np.empty(x.shape)
        e[:] = x * 2
        g = np.empty_like(x)
        g[...] = 1.0
        g += x
        h = np.empty(3)
        np.copyto(h, x[:3])
        return e, g, h

    check(f, V)


def test_choose_raises_for_an_entry_out_of_range():
    def f(a, x, y):
        return np.choose(a, (x, y)), np.choose(a, (x, y), mode="wrap")

    check(f, np.array([0, 1, 0]), V[:3], V[3:6])
    check(f, np.array([0, 2, 0]), V[:3], V[3:6])    # ValueError, as eager


def test_histogramdd_of_a_vector():
    def f(v):
        return np.histogramdd(v), np.histogramdd(v.reshape(4, 2), bins=3)

    check(f, V)


def test_numpy_c_functions_given_to_to_static():
    # np.dot, np.where, np.concatenate have no Python source: converted as a user's call of them (one op)
    for fn, args in ((np.dot, (V, V)), (np.where, (V > 0, V, 0.0)), (np.concatenate, ((V, V),)),
                     (np.lexsort, ((V, V),)), (np.vdot, (V, V))):
        check(fn, *args)


def test_integer_power_with_a_negative_traced_exponent_raises():
    def f(a, b):
        return np.power(a, b), np.power(a, 2), np.power(a * 1.0, b)

    check(f, np.array([2, 3]), np.array([1, 2]))
    check(f, np.array([2, 3]), np.array([-1, 2]))    # ValueError, as eager


# --------------------------------------------- operators and casts of NumPy integers
def _floordiv_static_zero(a):
    return a // 0, a % 0, a[0] // 0


def _power_traced(a, b):
    return a ** b


@pytest.mark.parametrize("a", [np.array([5, -5, 7]), np.array([0, 3, -9], dtype=np.int32)])
def test_numpy_integer_operators_by_zero_give_numpys_zero(a):
    """``a // 0`` and ``a % 0`` of NumPy integers are 0 (with NumPy's warning),
    where XLA's integer division by zero gives another number."""
    with np.errstate(all="ignore"):
        check(_floordiv_static_zero, a)


@pytest.mark.parametrize("b", [np.array([2, 1, 0]), np.array([-1, 2, 1])])
def test_numpy_integer_power_with_a_negative_exponent_raises_as_eager(b):
    check(_power_traced, np.array([2, 3, 4]), b)


def _to_int(x):
    return x.astype(np.int64), x.astype(np.int32), (x * 100).astype(np.int8), x.astype("uint8")


@pytest.mark.parametrize("x", [np.array([1.5, -2.7, 3.0]), np.array([np.nan, 1e30, 2.5]),
                               np.array([np.inf, -np.inf, -1e20]), np.array([200.0, -3.0, 1.99]),
                               np.array([1.5, -2.7, 3.0], dtype=np.float32)],
                         ids=["in-range", "nan-big", "inf", "wraps", "float32"])
def test_float_to_int_astype_gives_numpys_values_out_of_range_too(x):
    """NumPy converts NaN, infinities and out-of-range floats as the platform
    does (INT_MIN, wrapped bits), XLA saturates: such data converts on the host."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(_to_int, x)


# ------------------------------------- list indices of NumPy arrays (fancy indexing)
def row_swap(a, b):
    a = a.copy()
    p = int(np.argmax(np.abs(a[:, 0])))
    a[[0, p]] = a[[p, 0]]          # the row-swap idiom: p traced, p == 0 on some inputs
    return a, a[[0, 2]], b[[True, False, True]], a[[0, 2], 1:]


def repeated_rows(x, i, j):
    x[[i, j]] = [10.0, 20.0]       # i == j: NumPy keeps the last value
    x[[2, 2]] += 1.0               # a repeated index is incremented once (buffered), as NumPy does
    return x


@pytest.mark.parametrize("a", [np.array([[1.0, 2.0, 3.0], [7.0, 1.0, 0.0], [2.0, 2.0, 2.0]]),
                               np.array([[9.0, 2.0, 3.0], [7.0, 1.0, 0.0], [2.0, 2.0, 2.0]])])
def test_list_index_of_a_numpy_array_is_fancy_indexing(a):
    check(row_swap, a, np.arange(3.0), graphs=1)


@pytest.mark.parametrize("i, j", [(1, 1), (0, 2), (2, 0)])
def test_list_index_write_keeps_numpy_s_order(i, j):
    check(repeated_rows, np.zeros(4), i, j, graphs=1)


def static_out_of_bounds(x):
    return x[np.array([0, 5])]     # XLA's gather would clamp 5 to 2


def traced_out_of_bounds(x, k):
    return x[[0, k]]


def test_out_of_bounds_index_arrays_raise_numpy_s_index_error():
    check(static_out_of_bounds, np.arange(3.0), full_graph=False)
    for k in (1, 3, -4):
        check(traced_out_of_bounds, np.arange(3.0), k, full_graph=False)
        check(traced_out_of_bounds, np.arange(3.0), jnp.array(k), full_graph=False)   # a run-time check
    check(traced_out_of_bounds, np.arange(3.0), jnp.array(2), graphs=1)


# ------------------------------------------------------------- np.histogram's edges
# JAX's linspace computes the edges in their own type: float32 edges an ulp off
# NumPy's (-0.99999988 for -1), so a value on an edge was counted in the bin
# below (np.histogram(x32, 3, range=(-3, 3)) gave [2 1 3] for [1 2 3]).
_HIST_DATA = [
    np.arange(6.0, dtype=np.float32) - 2,                          # values on the edges
    np.linspace(-1, 1, 11).astype(np.float32),
    np.random.default_rng(3).normal(size=200).astype(np.float32),
    np.random.default_rng(4).normal(size=50),                      # float64
    np.array([3, 1, 4, 1, 5, 9, 2, 6]),                            # ints: float64 edges
    np.full(4, 2.5, np.float32),                                   # min == max
    np.array([0.1, 0.2, 0.30000001, 0.7], np.float32),
]


@pytest.mark.parametrize("data", _HIST_DATA, ids=lambda d: f"{d.dtype}[{len(d)}]")
@pytest.mark.parametrize("how", ["auto", "range", "float range", "density", "weights"])
def test_histogram_edges_and_counts_are_numpys(data, how):
    def f(x):
        if how == "auto":
            return np.histogram(x, bins=4), np.histogram(x), np.histogram_bin_edges(x, bins=7)
        if how == "range":
            return np.histogram(x, bins=3, range=(-3, 3)), np.histogram_bin_edges(x, 5, range=(0, 1))
        if how == "float range":
            return np.histogram(x, bins=10, range=(0.1, 0.7))
        if how == "density":
            return np.histogram(x, bins=5, density=True)
        return np.histogram(x, bins=4, weights=x * 2)

    check(f, data, full_graph=True)


@pytest.mark.parametrize("data", [np.array([1.0, np.nan, 2.0]), np.array([1.0, np.inf], np.float32),
                                  np.array([np.nan, 0.5, 3.0])])
def test_histogram_of_non_finite_data(data):
    def auto(x):
        return np.histogram(x, bins=3)   # eager: ValueError naming the autodetected range

    def ranged(x):
        return np.histogram(x, bins=3, range=(0, 3))   # NaN and inf are outside: not counted

    check(auto, data, full_graph=True)
    check(ranged, data, full_graph=True)


def test_host_calls_with_64_bit_values_beside_parallel_ops():
    # histogram2d's ops made XLA run the graph's host callbacks on a worker thread, where JAX's x64
    # switch is off: math.gamma's and round's float64 came back "Incorrect output dtype" (tests/unit/test_host_callbacks.py)
    import math

    def f(v):
        h = np.histogram2d(v, v)[0].sum()
        return math.gamma(float(v[0]) + 2.0), round(float(v[1]), 3), np.histogram(v), h

    check(f, np.random.default_rng(0).normal(size=10), full_graph=True)


# --------------------------------------- np.mean / np.average / np.var divide as NumPy does
# NumPy divides the sum by the count; XLA multiplies by the count's reciprocal
# (np.mean of [1, 2, 4] in float32: 2.3333333, not 2.3333335): exact here, with
# data whose sums are exact (NumPy's pairwise summation order is not XLA's).
_EXACT_SUMS = [np.array([1.0, 2.0, 4.0], np.float32), np.array([1.0, 2.0, 4.0]), np.array([1, 2, 4]),
               np.array([True, False, True]), np.array([1.0, 2.0, 4.0], np.float16), np.array([1 + 2j, 3 - 1j, 4 + 0j]),
               np.array([[1.0, 2.0, 4.0], [5.0, 7.0, 11.0]], np.float32)]


@pytest.mark.parametrize("x", _EXACT_SUMS, ids=lambda x: f"{x.dtype}{x.shape}")
@pytest.mark.parametrize("reduce", [
    lambda x: np.mean(x), lambda x: x.mean(axis=-1), lambda x: np.mean(x, axis=0, keepdims=True),
    lambda x: np.mean(x, dtype=np.float64), lambda x: np.average(x), lambda x: np.average(x, axis=0, returned=True),
], ids=["mean", "mean_last", "mean0_keepdims", "mean_f64", "average", "average_returned"])
def test_mean_and_average_divide_as_numpy(x, reduce):
    check(reduce, x, rtol=0, atol=0)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 6.0], np.float32), np.array([1.0, 2.0, 6.0]), np.array([1, 2, 6]),
                               np.array([1 + 0j, 2 + 0j, 6 + 0j]), np.array([[1.0, 2.0, 6.0], [0.0, 3.0, 3.0]], np.float32)],
                         ids=lambda x: f"{x.dtype}{x.shape}")
@pytest.mark.parametrize("reduce", [lambda x: np.var(x), lambda x: x.var(axis=-1), lambda x: np.std(x, axis=-1, ddof=2)],
                         ids=["var", "var_last", "std_ddof"])
def test_var_divides_as_numpy(x, reduce):
    # mean 3, squared deviations 4, 1, 9: every sum exact in any order, 14 / 3 not
    check(reduce, x, rtol=0, atol=0)


_THIRDS = np.array([1.0, 2.0, 4.0, 7.0, 11.0], np.float32) / 3


@pytest.mark.parametrize("x", [_THIRDS, _THIRDS.astype(np.float64), jnp.asarray(_THIRDS), np.array([125, 135]),
                               np.array([1.5 + 2.25j]), np.float32(1.005)], ids=lambda x: f"{type(x).__name__}-{x.dtype}")
@pytest.mark.parametrize("rounding", [lambda x: np.round(x, 2), lambda x: np.around(x, 1), lambda x: x.round(2),
                                      lambda x: np.round(x, -1), lambda x: np.round(x)],
                         ids=["round2", "around1", "method", "round_tens", "round0"])
def test_round_with_decimals_scales_as_numpy(x, rounding):
    # NumPy scales by 10**d, rounds, divides by 10**d; JAX multiplies by 10**-d (0.32999998 for 0.33);
    # a jax.Array's own round is JAX's (np.round hands it to x.round); JAX has no integer round to tens
    check(rounding, x, rtol=0, atol=0, full_graph=np.asarray(x).dtype.kind != "i")


@pytest.mark.parametrize("x", [np.array([1.0, 2.0, 4.0, 7.0, 11.0]), np.array([1.0, 2.0, 4.0, 7.0, 11.0], np.float32),
                               jnp.array([1.0, 2.0, 4.0, 7.0, 11.0])], ids=lambda x: f"{type(x).__name__}-{x.dtype}")
@pytest.mark.parametrize("divide", [lambda x: np.cumsum(x) / np.arange(1, 6), lambda x: x / (np.ones(5) * 3),
                                    lambda x: x / (jnp.ones(5) * 3), lambda x: x / jnp.full(5, 7.0)],
                         ids=["by_arange", "by_numpy_product", "by_jax_product", "by_full"])
def test_division_by_an_array_of_constants_is_a_division(x, divide):
    # XLA folds a divisor computed from constants and multiplies by its reciprocals (an ulp off);
    # eager divides, by an array it was handed
    check(divide, x, rtol=0, atol=0)


_HALVES = [(np.random.default_rng(k).normal(size=shape) * scale).astype(np.float16)
           for k, (shape, scale) in enumerate([((5,), 1.0), ((16,), 100.0), ((3, 4), 0.01), ((2, 9), 10.0)])]


@pytest.mark.parametrize("x", _HALVES, ids=lambda x: f"float16{x.shape}")
@pytest.mark.parametrize("spread", [lambda x: np.var(x), lambda x: x.std(axis=-1), lambda x: x.var(keepdims=True, ddof=1)],
                         ids=["var", "std_last", "var_keepdims_ddof"])
def test_float16_var_rounds_where_numpy_rounds(x, spread):
    # the sums added in float32, the mean, deviations, squares and quotient rounded to float16, as NumPy's loops
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's float16 overflow warnings (eager only)
        check(spread, x, rtol=0, atol=0)


def test_float16_var_along_an_outer_axis_falls_back():
    x = _HALVES[2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        e = check(lambda x: np.var(x, axis=0), x, full_graph=False, rtol=0, atol=0)
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"]
