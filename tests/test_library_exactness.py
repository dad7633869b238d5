"""Library functions that once gave a silent wrong result, each against eager.

The library sweep (``benchmarks/library_sweep.py``) found these: a Python bool
returned as ``np.False_``, a 0-d ndarray returned as a NumPy scalar, a write
into an argument lost, a float64 statistic computed in float32, complex roots
in another order, a remainder with another shape. Each is pinned here twice:
as user code showing the general behaviour, and as the library function that
showed it, compared with eager (values, dtypes, kinds, argument mutations).
Where the graph cannot compute exactly what eager computes, the construct
falls back with a reason: asserted by its code.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal
import scipy.special
import scipy.stats
from sklearn.utils.extmath import svd_flip

from tests.helpers import check, check_sequence

V = np.random.default_rng(0).normal(size=8)
W = np.random.default_rng(1).normal(size=8)
A = np.random.default_rng(0).normal(size=(4, 4))
B = np.random.default_rng(1).normal(size=(4, 4))


def codes(explanation) -> set[str]:
    return {s.code.code for s in explanation.fallback_sites}


# ------------------------------------------------ Python bool, not np.bool_
def test_bool_of_an_array_reduction_is_a_python_bool():
    def f(x, y):
        close = np.abs(x - y) <= 1e-8 + 1e-5 * np.abs(y)
        return bool(np.all(close)), bool((x == y).all())
    check(f, V, W)
    check(f, V, V.copy())


@pytest.mark.parametrize("fn", [np.allclose, np.array_equal, np.array_equiv])
def test_numpy_comparisons_return_python_bools(fn):
    check(fn, V, W)
    check(fn, V, V.copy())


# ------------------------------------------------ a 0-d ndarray, not a NumPy scalar
def test_squeeze_and_reshape_to_0d_give_a_0d_ndarray():
    def f(x, a, b):
        c = np.dot(x[None, :], x[:, None])
        c *= 0.5
        t = np.dot(a.reshape(1, -1), b.reshape(-1, 1)).reshape(())
        return c.squeeze(), t
    check(f, V, A, B)


def test_reshape_and_squeeze_methods_to_0d_by_operand_kind():
    def f(x):
        s = np.sum(x)              # a NumPy scalar: its .reshape(()) is a NumPy scalar
        a = np.asarray(x.sum())    # a 0-d ndarray: so is its .squeeze()
        y = x.reshape(1, 3)[:, :1].squeeze()
        return s.reshape(()), s.squeeze(), a.reshape(()), a.squeeze() + 1, y, y * 2
    check(f, np.arange(3.0))


def test_write_through_a_0d_view_reaches_the_base():
    def f(x):
        y = x[:1].reshape(())      # a 0-d ndarray viewing x
        y += 5.0                   # in place: x[0] changes
        z = np.squeeze(x[1:2])
        z *= 3.0
        return y, z, x
    check(f, np.arange(3.0), full_graph=False)


def test_numpy_cov_of_a_vector_and_full_tensordot_are_0d_ndarrays():
    check(np.cov, V)
    check(np.tensordot, A, B)
    check(np.linalg.tensordot, A, B)


# ------------------------------------------------ writes into arguments reach the caller
def test_writes_into_an_argument_through_numpy_functions_reach_the_caller():
    def f(dst, src, m):
        np.copyto(dst, src)
        m.flat[::m.shape[1] + 1] = src[:4]
        return dst.sum() + m.sum()
    check(f, V.copy(), W, A.copy(), full_graph=False)


def test_numpy_copyto_and_fill_diagonal_write_into_their_argument():
    check(np.copyto, V.copy(), W, full_graph=False)
    check(np.fill_diagonal, A.copy(), B, full_graph=False)


def test_in_place_sign_flip_of_arguments():
    def f(u, v):
        i = np.argmax(np.abs(u), axis=0)
        s = np.sign(u[i, np.arange(u.shape[1])])
        u *= s[np.newaxis, :]
        v *= s[:, np.newaxis]
        return u, v
    check(f, A.copy(), B.copy())
    check(svd_flip, A.copy(), B.copy())


# ------------------------------------------------ partition: NumPy's own order
def test_partition_keeps_numpy_order_beyond_kth():
    def f(x, k):
        return np.partition(x, k), np.partition(x * 2.0, 1)
    check(f, np.random.default_rng(3).normal(size=40), 5)
    check(np.partition, V, 2)


# ------------------------------------------------ data-dependent shapes fall back
def test_trimming_leading_zeros_is_a_data_dependent_shape():
    def f(r):
        while np.allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1:
            r = r[1:]
        return r
    check(f, np.array([0.0, 0.0, 1.0, 2.0]), full_graph=False)
    e = check(np.polydiv, V, W[:3], full_graph=False)
    assert "A2G009" in codes(e), str(e)


# ------------------------------------------------ float64 statistics stay float64
def test_statistics_through_compiled_special_functions_stay_float64():
    def f(x):
        n = x.shape[0]
        m = x - x.mean()
        s = n / 6.0 * (np.mean(m ** 3) / np.mean(m ** 2) ** 1.5) ** 2
        return s, scipy.special.chdtrc(2, s)
    check(f, V, full_graph=False)


@pytest.mark.parametrize("fn", [scipy.stats.jarque_bera, scipy.stats.theilslopes])
def test_scipy_stats_results_are_float64(fn):
    check(fn, V, full_graph=False)


# ------------------------------------------------ complex roots in eager's order
def test_complex_roots_keep_eager_order_and_conjugates():
    def f(a):
        r = np.roots(a)
        return r, np.conj(r)
    check(f, W, full_graph=False)


@pytest.mark.parametrize("fn", [scipy.signal.residue, scipy.signal.residuez])
def test_scipy_signal_residues(fn):
    check(fn, V, W, full_graph=False)


# ------------------------------------------------ a pending write to outside state, then None
def test_a_pending_write_to_an_outside_dict_does_not_stop_reads_of_none():
    def make():
        config = {"skip": False}

        def f(x, device=None):
            config["skip"] = True        # written back after the call
            pair = (device, None)        # a read of None: not of the written dict
            if pair[0] == pair[1]:
                return x * 2.0, config.get("skip")
            return x, config.get("skip")
        return f, config

    def step(f, config):
        return f(V), dict(config)
    check_sequence(make, [step, step])


def test_sklearn_metrics_under_config_context():
    import sklearn.metrics
    y = np.array([0.5, 1.0, 2.0, 3.0])
    p = np.array([0.4, 1.1, 2.5, 2.0])
    check(sklearn.metrics.mean_squared_error, y, p, full_graph=False)


# ------------------------------------------------ x.flags.writeable of a new array
def test_flags_writeable_of_a_new_numpy_array_is_static():
    def f(x):
        y = np.exp(x) * 2.0               # a ufunc's and an operator's results: new, writeable
        z = np.sort(x)                    # a NumPy function's new array
        if y.flags.writeable and z.flags["WRITEABLE"]:
            y[0] = 0.0
        return y, z, y.flags.writeable
    check(f, V)


def test_flags_writeable_where_eager_depends_on_the_object_falls_back():
    def f(x):
        b = np.broadcast_to(x, (2, 8))    # a read-only view
        return b.flags.writeable, x.flags.writeable, b[0].flags["W"]
    check(f, V, full_graph=False)
    r = V.copy()
    r.setflags(write=False)
    check(f, r, full_graph=False)


def test_scipy_stats_writing_into_its_own_new_arrays():
    check(scipy.stats.gzscore, np.abs(V) + 0.1, full_graph=False)
    check(scipy.stats.iqr, V, full_graph=False)


# ------------------------------------------------ `is` between arrays the trace knows
def test_identity_of_argument_arrays_and_new_arrays():
    def f(x, y):
        z = np.exp(x)
        z[0] = 1.0                        # the same object after the write
        same = y is x, z is x, z is np.exp(x), np.asarray(x) is x
        return (x + y if y is x else x - y), same
    check(f, V, W)
    check(f, V, V, full_graph=False)   # the same array twice: eager's `is` is True (not known: falls back)
    a = np.arange(8.0)
    check(f, a, a[::-1], full_graph=False)   # a view of another argument: not known


def test_sklearn_pairwise_identity_check():
    import sklearn.metrics.pairwise as pw
    check(pw.paired_cosine_distances, A, B, full_graph=False)


def test_identity_of_arguments_when_the_caller_passes_one_array_twice_later():
    def make():
        def f(x, y):
            return x * 2.0 if y is x else x - y
        return f, {"a": V.copy(), "b": W.copy()}

    def apart(f, w):
        return f(w["a"], w["b"])

    def twice(f, w):
        return f(w["a"], w["a"])
    check_sequence(make, [apart, twice, apart], full_graph=False)


# ------------------------------------------------ a raise after statements that compute its message
def _finite_check(x, allow_nan=False, name=""):
    has_inf = np.any(np.isinf(x))
    has_nan_error = False if allow_nan else np.any(np.isnan(x))
    if has_inf or has_nan_error:
        if has_nan_error:
            type_err = "NaN"                       # a str chosen by a traced condition
        else:
            type_err = f"infinity or a value too large for {x.dtype!r}"
        padded = name + " " if name else ""
        msg_err = f"Input {padded}contains {type_err}."
        raise ValueError(msg_err)
    return x * 2


@pytest.mark.parametrize("x", [V, np.array([1.0, np.nan]), np.array([1.0, np.inf]), np.array([np.inf, np.nan])])
def test_raise_after_message_statements_is_a_run_time_check(x):
    check(_finite_check, x)
    check(_finite_check, x, kwargs={"name": "X"})


def test_names_bound_before_a_checked_raise_keep_their_values_after_it():
    def f(x, i):
        m = "small"
        k = 0
        if np.any(x > 5):
            m = "big"
            k = k + 1
            raise ValueError(m)
        return m, k, x[i]
    check(f, np.arange(3.0), 1)
    check(f, np.arange(8.0), 1)


def test_a_message_block_with_a_run_time_check_of_its_own_is_not_hoisted():
    def f(x, i):
        if np.any(x > 5):
            v = x[i]                   # eager checks i only when the block runs
            raise ValueError(f"big: {v}")
        return x
    check(f, np.arange(3.0), 7, full_graph=False)
    check(f, np.arange(8.0), 1, full_graph=False)


def test_chosen_strings_print_and_return_as_eager():
    def f(x):
        s = "NaN" if np.any(np.isnan(x)) else "ok"
        print(s)
        return s, f"<{s}>", s == "ok"
    check(f, V, full_graph=False)
    check(f, np.array([1.0, np.nan]), full_graph=False)


def test_sklearn_metrics_finite_check():
    import sklearn.metrics
    y = np.array([0, 1, 1, 0])
    p = np.array([0.1, 0.8, 0.6, 0.3])
    check(sklearn.metrics.brier_score_loss, y, p, full_graph=False)
    check(sklearn.metrics.brier_score_loss, y, np.array([0.1, np.nan, 0.6, 0.3]), full_graph=False)
