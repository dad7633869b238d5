"""Library-style helpers converted as they are written: ``functools.lru_cache``
functions of static values, wrappers whose ``__signature__`` differs from
their code's, containers built by ``*``/``+``, and NumPy's conversion
functions (``np.asanyarray``, ``np.asarray(order=...)``, ``np.array(copy=None)``)
on traced values, each against eager."""

from __future__ import annotations

import functools
import inspect

import jax.numpy as jnp
import numpy as np
import pytest

from tests.helpers import check, check_sequence

X = np.arange(6.0).reshape(2, 3) + 0.5
MISSES: list = []


@functools.lru_cache(maxsize=8)
def _scale_for(kind: str, n: int) -> float:
    MISSES.append((kind, n))   # runs only on a cache miss, in eager as in the graph
    return {"mean": 1.0 / n, "sum": 1.0}[kind]


def reduce_rows(x, kind="mean"):
    return x.sum(axis=1) * _scale_for(kind, x.shape[1])


def test_lru_cached_helper_of_static_values_is_one_graph():
    _scale_for.cache_clear()
    check(reduce_rows, X, graphs=1)


def test_lru_cached_helper_misses_and_hits_as_eager():
    def make():
        _scale_for.cache_clear()
        MISSES.clear()
        return reduce_rows, None

    def call(kind, clear=False):
        def step(fn, world):
            if clear:
                _scale_for.cache_clear()
            out = fn(X, kind)
            return out, list(MISSES)
        return step

    check_sequence(make, [call("mean"), call("mean"), call("sum"), call("mean", clear=True), call("sum")],
                   full_graph=False)


def _with_xp(f):
    """array-api-compat's get_xp: the wrapper declares f's parameters (minus xp)."""
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        return f(*args, xp=np, **kwargs)

    sig = inspect.signature(f)
    wrapped.__signature__ = sig.replace(parameters=[p for n, p in sig.parameters.items() if n != "xp"])
    return wrapped


@_with_xp
def softmax_rows(x, axis=-1, *, xp):
    e = xp.exp(x - xp.max(x, axis=axis, keepdims=True))
    return e / xp.sum(e, axis=axis, keepdims=True)


def test_wrapper_with_declared_signature_binds_its_code():
    check(softmax_rows, X, graphs=1)
    check(lambda x: softmax_rows(x, axis=0) + 1, X, graphs=1)


def test_list_repeated_then_written_is_the_functions_own():
    def diffs(y, axis=-1):
        nd = y.ndim
        lo, hi = [slice(None)] * nd, [slice(None)] + [slice(None)] * (nd - 1)
        lo[axis], hi[axis] = slice(1, None), slice(None, -1)
        return y[tuple(lo)] - y[tuple(hi)]

    check(diffs, X, graphs=1)
    check(lambda y: diffs(y, 0), X, graphs=1)


@pytest.mark.parametrize("convert", [
    lambda x: np.asarray(x, order="C"),
    lambda x: np.asanyarray(x, dtype=np.float32),
    lambda x: np.ascontiguousarray(x),
    lambda x: np.array(x, copy=None),
    lambda x: np.array(x, ndmin=3),
    lambda x: np.asarray(x.T, order="F"),
], ids=["asarray-order", "asanyarray-dtype", "ascontiguousarray", "array-copy-none", "array-ndmin", "asarray-F"])
def test_numpy_conversions_of_traced_values(convert):
    def f(x):
        y = convert(x * 2.0)
        return y.sum(axis=-1), y

    check(f, X, graphs=1)


def test_write_into_converted_argument_reaches_the_argument():
    def f(x):
        y = np.asanyarray(x, order="C")   # x itself: the write shows in the caller's array
        y[0, 0] = 100.0
        return x.sum() + y.sum()

    check(f, X, full_graph=False)


def _exp_in_place(y):
    np.exp(y, out=y)   # writes the caller's array
    return y


@pytest.mark.parametrize("name", ["local", "temporary-where", "argument", "asarray-view", "helper", "loop", "cast-raises",
                                  "aliased"])
def test_ufunc_out_writes_as_eager(name):
    def local(x):
        y = x * 2
        np.exp(y, out=y)
        return y

    def temporary_where(h0, h1):
        return np.true_divide(h0, h1, out=np.zeros_like(h0), where=h1 != 0)

    def argument(x):
        np.exp(x, out=x)
        return x.sum()

    def asarray_view(x):   # sklearn.utils.extmath.softmax
        X = x.copy()
        X -= np.max(X, axis=1).reshape((-1, 1))
        np.exp(X, out=np.asarray(X))
        X /= np.sum(X, axis=1).reshape((-1, 1))
        return X

    def helper(x):
        y = x + 1.0
        z = _exp_in_place(y)
        return y, z

    def loop(x):
        y = np.ones_like(x)
        for k in range(3):
            np.multiply(y, x, out=y)
        return y

    def cast_raises(x):
        y = np.zeros(3, dtype=np.int64)
        np.add(x[0], 1.0, out=y)   # float64 into int64: eager raises UFuncTypeError
        return y

    def aliased(x):
        y = x.copy()
        z = y
        np.exp(y, out=y)
        return z

    fn = {"local": local, "temporary-where": temporary_where, "argument": argument, "asarray-view": asarray_view,
          "helper": helper, "loop": loop, "cast-raises": cast_raises, "aliased": aliased}[name]
    args = (X, np.where(X > 1, X, 0.0)) if name == "temporary-where" else (X,)
    one = name in ("local", "temporary-where", "argument", "asarray-view", "loop")
    check(fn, *args, full_graph=one, graphs=1 if one else None)


@pytest.mark.parametrize("data", [X, np.array([1.0, np.inf, 2.0])], ids=["finite", "inf"])
def test_numpy_python_function_on_traced_values_is_converted(data):
    """np.asarray_chkfinite has no JAX twin: its NumPy code is converted (its
    `raise` a run-time check raising eager's ValueError)."""
    def f(x):
        return np.asarray_chkfinite(x * 2.0).sum()

    check(f, data, graphs=1)


@pytest.mark.parametrize("z", [np.arange(3.0) + 0j, np.arange(3.0) + 1j])
def test_numpy_python_function_with_dtype_by_path_stays_eagers(z):
    def f(z):
        return np.real_if_close(z * 2)   # float64 or complex128, by data: not one graph

    check(f, z, full_graph=False)


def test_namedtuple_of_float64_values_keeps_their_dtype():
    """P(x.sum(), x * 2) holds the values as they are (float64 NumPy values were
    narrowed to float32 when the class call was traced as a JAX op)."""
    import collections
    import typing

    P = collections.namedtuple("P", "a b")

    class Q(typing.NamedTuple):
        a: object
        b: object = 2

    def helper(x):
        return P(x.sum(), x * 2)

    def f(x):
        p = helper(x)
        acc = Q(x.max())
        for k in range(2):
            acc = Q(acc.a + p.a, k)
        return p, acc, np.linalg.slogdet(np.eye(2) * p.a)

    check(f, X, graphs=1)


@pytest.mark.parametrize("fn", ["expit", "xlogy", "entr", "logit"])
def test_scipy_special_ufuncs_on_traced_values(fn):
    special = pytest.importorskip("scipy.special")
    ufunc = getattr(special, fn)
    p = np.array([0.1, 0.25, 0.65])
    args = (p, p[::-1]) if ufunc.nin == 2 else (p,)
    check(ufunc, *args, graphs=1)                     # to_static(scipy.special.expit)
    check(lambda *a: ufunc(*a) * 2.0, *args, graphs=1)   # inside a user function


# ------------------------ np.linalg errors: NumPy raises where jnp.linalg gives inf/NaN
def linalg_inv(a):
    return np.linalg.inv(a)


def linalg_solve(a, b):
    return np.linalg.solve(a, b)


def linalg_cholesky(a):
    return np.linalg.cholesky(a)


def inv_in_branch(a, x):
    if x.sum() > 0:
        return np.linalg.inv(a) @ a
    return a


@pytest.mark.parametrize("fn,args", [
    (linalg_inv, (np.zeros((2, 2)),)), (linalg_inv, (np.array([[2.0, 1.0], [1.0, 3.0]]),)),
    (linalg_inv, (jnp.zeros((2, 2)),)), (linalg_inv, (np.array([[1.0, np.nan], [0.0, 1.0]]),)),
    (linalg_inv, (np.zeros((3, 2, 2)),)), (linalg_solve, (np.zeros((2, 2)), np.ones(2))),
    (linalg_solve, (np.eye(2), np.ones(2))), (linalg_cholesky, (-np.eye(2),)), (linalg_cholesky, (np.eye(2) * 2,)),
    (inv_in_branch, (np.zeros((2, 2)), jnp.ones(2))), (inv_in_branch, (np.zeros((2, 2)), -jnp.ones(2)))])
def test_numpy_linalg_raises_eager_linalgerror(fn, args):
    """np.linalg.inv/solve of a singular matrix and cholesky of one that is
    not positive definite raise NumPy's LinAlgError, as eager does (run as
    jnp.linalg's they returned inf/NaN silently: noticed by helper-17); only
    on the path that calls them."""
    check(fn, *args)
