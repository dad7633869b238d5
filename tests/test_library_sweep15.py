"""h-lib15: fixes in the shared passes for library functions that fell back in
h-lib14's sweep (``tests/test_library_sweep14.py``), each checked in one graph
(``full_graph=True``) and against eager."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.helpers import check, check_calls, check_warnings

X23 = np.arange(6.0).reshape(2, 3) - 2.5
X234 = np.arange(24.0).reshape(2, 3, 4) * 0.5 - 3.0


# ------------------------------------------------ writes through axis-permuted views
def test_a_write_through_a_moveaxis_view_writes_its_base():
    def f(X):
        X = X.copy()
        Xr = np.moveaxis(X, 0, 0)
        Xr -= 1.0
        return X

    check_calls(f, [(X23,), (X23 * 3,)])


def test_writes_through_rollaxis_and_transpose_views_reach_the_base_and_the_view():
    def f(X):
        X = X.copy()
        Xr = np.rollaxis(X, 1)
        Xr -= 1.0
        Xr[0] *= 2.0
        T = X.T
        T[-1, 0] = 7.0
        return X, Xr, T, Xr.shape

    check_calls(f, [(X23,), (X23 - 4,)])


def test_a_write_through_a_3d_moveaxis_view_is_seen_by_its_other_views():
    def f(X):
        X = X.copy()
        S = X[1]
        V = np.moveaxis(X, -1, 0)
        V[1:] /= 2.0
        W = np.swapaxes(X, 0, 2)
        W[0, 0, 1] += 10.0
        return X, S, V, W

    check(f, X234)


# ------------------------------------------------ divmod's RuntimeWarnings
def test_np_divmod_of_floats_by_zero_warns_as_numpy():
    def f(x, d):
        return np.divmod(x, d)

    for args in [(np.array([1.0, 0.0, -2.0]), 0.0), (np.array([1e308, 3.0, -7.5]), np.array([1e-300, 2.0, 2.0])),
                 (np.array([np.inf, 5.0]), np.array([2.0, np.inf]))]:
        check_warnings(f, *args)


def test_np_divmod_of_integers_warns_of_zero_divisors_and_overflow():
    def f(a, b):
        return np.divmod(a, b)

    check_warnings(f, np.array([5, -128, 7], np.int8), np.array([0, -1, 2], np.int8))
    check_warnings(f, np.array([5, 9], np.uint8), np.array([0, 2], np.uint8))


def test_builtin_divmod_of_numpy_scalars_warns_as_numpys_scalar_divmod():
    def f(a, b):
        return divmod(a, b)

    for args in [(np.int8(-128), -1), (np.int8(-128), np.int8(-1)), (np.int8(5), np.int8(0)), (np.float64(-1.0), 0.0),
                 (np.float32(0.0), np.float32(0.0)), (3.0, np.float64(0.0)), (np.array(2.0), 0.0), (np.float64(7.5), 2)]:
        check_warnings(f, *args)


def test_divmod_warnings_follow_the_errstate_and_filters_between_calls():
    def f(x):
        return divmod(x, 0.0)

    x = np.array([1.0, 0.0])
    check_warnings(f, x)
    with np.errstate(divide="ignore"):
        check_warnings(f, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check_warnings(f, x)


def test_a_float_floor_division_that_overflows_also_warns_invalid_as_numpys_loop():
    def f(a, b, s):
        return a // b, np.floor_divide(a, b), s // 0.1, a.astype(np.float16) // np.float16(0.5)

    check_warnings(f, np.array([1e308, -1e308, 3.0]), np.array([1e-300, 0.5, 2.0]), np.float32(3e38))
    check_warnings(f, np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.5, 2.0]), np.float32(3.0))


# ------------------------------------------------ apply_along_axis's func1d returning an array or a tuple
def test_apply_along_axis_func1d_returning_an_array_on_one_path_and_a_tuple_on_another():
    def pair(x):
        return (x.min(), x.max())

    def f(m):
        def f1d(x):
            t = pair(x)   # (a call inside func1d returns its tuple: only func1d's own returns are converted)
            if np.isnan(x).any():
                return np.full(3, np.nan)
            return (t[0], t[1], float(isinstance(t, tuple)))
        return np.apply_along_axis(f1d, 1, m)

    m = X234.reshape(4, 6)
    n = m.copy()
    n[2, 3] = np.nan
    check_calls(f, [(m,), (n,), (m * 2,)])


def test_apply_along_axis_of_a_builtin_after_a_converting_call_leaves_later_calls_alone():
    def two(x):
        return x[0], x[-1]

    def f(m):
        s = np.apply_along_axis(np.sum, 0, m)
        return s, two(m), type(two(m[0])).__name__

    check(f, X23)


def test_scipy_stats_with_axis_on_2d_data_is_one_graph_nan_or_not():
    import scipy.stats as st

    def f(m):
        return st.skew(m, axis=1)

    m = np.random.default_rng(15).standard_normal((3, 4))
    n = m.copy()
    n[1, 2] = np.nan
    check_calls(f, [(m,), (n,)])


# ------------------------------------------------ run-time checks after writes that are undone
CONFIG = {"flag": False, "depth": 0}


class _Setting:
    """``sklearn.config_context``'s shape: set the dict's entries, restore them in ``finally``."""

    def __init__(self, **kw):
        self.kw = kw

    def __enter__(self):
        self.old = CONFIG.copy()   # (as sklearn's get_config: the whole dict read)
        for k, v in self.kw.items():
            CONFIG[k] = v

    def __exit__(self, *exc):
        for k in self.kw:
            CONFIG[k] = self.old[k]
        return False


def _walk(x, off):
    k = off * 0
    s = x[0] * 0.0
    while k < 3:   # (a traced trip count: a rolled loop, its index checked at run time)
        s = s + x[k + off]
        k = k + 1
    return s


def test_a_check_in_a_rolled_loop_after_a_restored_config_write_stays_in_the_graph():
    def f(x, limit):
        with _Setting(flag=True):
            y = x * 2
        return _walk(x, limit) + y.sum(), CONFIG["flag"]

    x = np.arange(5.0)
    check_calls(f, [(x, np.int64(0)), (x, np.int64(3)), (x + 1, np.int64(2))])
    CONFIG["flag"] = True   # (the restored value changed between calls: guarded)
    try:
        check_calls(f, [(x, np.int64(0)), (x, np.int64(3))])
    finally:
        CONFIG["flag"] = False


def test_a_check_in_a_rolled_loop_inside_the_manager_stays_in_the_graph():
    def f(x, limit):
        with _Setting(depth=3):
            return _walk(x, limit), CONFIG["depth"]

    x = np.arange(5.0)
    check_calls(f, [(x, np.int64(1)), (x, np.int64(4))])


def test_a_check_after_a_write_left_in_place_still_sees_eagers_state():
    def f(x, limit):
        CONFIG["depth"] = CONFIG["depth"] + 1   # not restored: eager raises after this write
        return _walk(x, limit)

    def g(x, limit):
        s = x.sum() * 0.0
        while s < x.shape[0]:
            s = s + 1.0 + 0.0 * x[int(s) + limit]
            CONFIG["depth"] = 7   # written in the loop after the check: seen when a later trip raises
        return s

    x = np.arange(5.0)
    for fn in (f, g):
        CONFIG["depth"] = 0
        check_calls(fn, [(x, np.int64(0)), (x, np.int64(3)), (x, np.int64(1))], full_graph=False)
        assert CONFIG["depth"] == (6 if fn is f else 7)
    CONFIG["depth"] = 0


def test_sklearn_d2_absolute_error_score_is_one_graph_and_raises_as_eager():
    from sklearn.metrics import d2_absolute_error_score

    def f(y, p):
        return d2_absolute_error_score(y, p)

    y = np.random.default_rng(15).standard_normal(8)
    bad = y.copy()
    bad[3] = np.inf
    check_calls(f, [(y, y + 0.1), (y, bad)])
