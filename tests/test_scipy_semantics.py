"""User functions calling SciPy, each against eager: values, dtypes (64-bit
where eager is 64-bit), kinds, structure and exceptions."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy._lib.array_api_extra as xpx
import scipy.fft
import scipy.linalg
import scipy.special
import scipy.stats
from scipy.stats._stats_py import SignificanceResult

from tests.helpers import check, check_sequence

X = np.linspace(0.0, 1.0, 5) + 1.0 / 3.0
Y = np.random.default_rng(0).normal(size=8)
Z = np.random.default_rng(1).normal(size=8)
P = np.abs(Y) + 0.1
P = P / P.sum()


# ----------------------------------------------- 64-bit values kept (no narrowing)
def test_scipy_result_bunch_of_float64_values_stays_float64():
    def f(x):
        return SignificanceResult(np.sum(x), np.mean(x))   # it was typed as a JAX op: float32
    check(f, X)


def test_reduce_of_numpy_function_keeps_numpy_precision():
    def f(x, y):
        return functools.reduce(np.multiply, [x, y, x])
    check(f, X, X * 2.0)


def test_reduce_of_one_item_is_the_item():
    def f(x):
        return functools.reduce(np.multiply, [x]) / x.sum()
    check(f, X)


def test_reduce_with_initial_and_lambda():
    def f(x):
        return functools.reduce(lambda a, b: a + b * 2.0, [x, x, x], 1.0)
    check(f, X)


@pytest.mark.parametrize("name,args", [
    ("chatterjeexi", (Y, Z)), ("combine_pvalues", (P,)), ("jarque_bera", (Y,)),
    ("mood", (Y, Z)), ("siegelslopes", (Y,)), ("spearmanrho", (Y, Z)), ("theilslopes", (Y,)),
    ("chi2_contingency", (P,))])
def test_scipy_stats_results_keep_eager_dtypes(name, args):
    fn = getattr(scipy.stats, name, None)
    if fn is None:
        pytest.skip(f"scipy.stats.{name} not in this SciPy")
    check(fn, *args, full_graph=False)   # decorated as it is: its last segment builds the result


# ----------------------------------------- SciPy functions as their JAX namesakes


RNG = np.random.default_rng(3)
A = RNG.normal(size=(4, 4))
SPD = A @ A.T + 4 * np.eye(4)
B = RNG.normal(size=4)
V = RNG.normal(size=8)
SINGULAR = A.copy()
SINGULAR[:, 2] = 0.0
WITH_NAN = A.copy()
WITH_NAN[1, 1] = np.nan


def _mapped(explanation, name):
    return any(d.mode == "graph op" and d.reason.startswith(name) for d in explanation.decisions)


@pytest.mark.parametrize("name,fn,args", [
    ("scipy.linalg.solve", lambda a, b: scipy.linalg.solve(a, b) * 2.0, (A, B)),
    ("scipy.linalg.inv", lambda a: scipy.linalg.inv(a) + 1.0, (A,)),
    ("scipy.linalg.det", lambda a: scipy.linalg.det(a), (A,)),
    ("scipy.linalg.cholesky", lambda a: scipy.linalg.cholesky(a, lower=True), (SPD,)),
    ("scipy.linalg.lu_factor", lambda a: scipy.linalg.lu_factor(a), (A,)),
    ("scipy.linalg.solve_triangular", lambda a, b: scipy.linalg.solve_triangular(a, b), (A, B)),
    ("scipy.linalg.pinv", lambda a: scipy.linalg.pinv(a), (A,)),
    ("scipy.linalg.norm", lambda v: scipy.linalg.norm(v), (V,)),
    ("scipy.linalg.toeplitz", lambda v: scipy.linalg.toeplitz(v), (V,)),
    ("scipy.linalg.block_diag", lambda a, b: scipy.linalg.block_diag(a, b), (A, SPD)),
    ("scipy.special.erf", lambda v: scipy.special.erf(v), (V,)),
    ("scipy.special.gammaln", lambda v: scipy.special.gammaln(v) - v, (V,)),
    ("scipy.fft.rfft", lambda v: scipy.fft.rfft(v), (V,)),
    ("scipy.fft.fft", lambda v: scipy.fft.fft(v) * 2, (V,)),
    ("scipy.fft.irfft", lambda v: scipy.fft.irfft(scipy.fft.rfft(v)), (V,)),
])
def test_scipy_function_with_validated_jax_equivalent_is_one_graph(name, fn, args):
    e = check(fn, *args)
    assert _mapped(e, name), e.decisions


@pytest.mark.parametrize("fn,args", [
    (lambda a, b: scipy.linalg.solve(a, b), (SINGULAR, B)),      # LinAlgError('Matrix is singular.')
    (lambda a, b: scipy.linalg.solve(a, b), (WITH_NAN, B)),      # ValueError('array must not contain infs or NaNs')
    (lambda a: scipy.linalg.inv(a), (SINGULAR,)),
    (lambda a: scipy.linalg.cholesky(a), (A,)),                  # '3-th leading minor ... not positive definite'
    (lambda a: scipy.linalg.det(a), (WITH_NAN,)),
    (lambda a, b: scipy.linalg.solve_triangular(a, b), (np.triu(SINGULAR), B)),
])
def test_scipy_errors_are_eagers_from_the_graph(fn, args):
    check(fn, *args)


def test_scipy_results_where_jax_differs_on_non_finite_data_are_scipys():
    v = V.copy()
    v[3] = np.nan      # jax.scipy.linalg.toeplitz spreads the NaN over the whole matrix
    check(lambda x: scipy.linalg.toeplitz(x), v)
    w = np.array([-np.inf, 0.0, -2.0, 3.5, np.inf, np.nan, 1e300, -1e-300])
    check(lambda x: scipy.special.gammaln(x), w)


def test_singular_matrix_on_a_later_call_raises_as_eager():
    def make():
        return (lambda a, b: scipy.linalg.solve(a, b) + 1.0), None
    check_sequence(make, [lambda f, w: f(A, B), lambda f, w: f(SINGULAR, B), lambda f, w: f(SPD, B),
                          lambda f, w: f(WITH_NAN, B)], recompiles=0)


@pytest.mark.parametrize("fn,args", [
    (lambda a: scipy.linalg.eigh(a), (SPD,)),                    # eigenvectors: unique only up to sign
    (lambda a: scipy.linalg.svd(a), (A,)),
    (lambda a: scipy.linalg.expm(a * 3.0), (SPD,)),              # JAX's agrees to 1e-10 only for large norms
])
def test_scipy_functions_not_equivalent_keep_eagers_results(fn, args):
    e = check(fn, *args, full_graph=False)
    assert not any(d.mode == "graph op" and d.reason.startswith("scipy.") for d in e.decisions)


def test_library_function_decorated_directly_runs_as_its_equivalent():
    e = check(scipy.linalg.solve, A, B)
    assert _mapped(e, "scipy.linalg.solve")


def test_scipy_python_function_of_static_values_is_converted():
    # hankel has a JAX namesake; called on static data it is SciPy's Python, as eager runs it
    def f(x):
        return x + scipy.linalg.hankel([1.0, 2.0, 3.0])
    check(f, np.ones((3, 3)))


C = A + 1j * RNG.normal(size=(4, 4))
HERMITIAN = C @ C.conj().T + 4 * np.eye(4)


@pytest.mark.parametrize("name,fn,args", [
    # LAPACK reads one triangle: the eigenvalues of the Hermitian matrix in it (JAX's eigh symmetrizes)
    ("scipy.linalg.eigvalsh", lambda a: scipy.linalg.eigvalsh(a), (A,)),
    ("scipy.linalg.eigvalsh", lambda a: scipy.linalg.eigvalsh(a, lower=False), (A,)),
    ("scipy.linalg.eigvalsh", lambda a: scipy.linalg.eigvalsh(a), (C,)),
    ("scipy.linalg.eigh", lambda a: scipy.linalg.eigh(a, eigvals_only=True), (SPD,)),
    # potrf leaves the other triangle as it was (JAX's cho_factor zeroes it)
    ("scipy.linalg.cho_factor", lambda a: scipy.linalg.cho_factor(a), (SPD,)),
    ("scipy.linalg.cho_factor", lambda a: scipy.linalg.cho_factor(a, lower=True), (SPD,)),
    ("scipy.linalg.cho_factor", lambda a: scipy.linalg.cho_factor(a), (HERMITIAN,)),
    ("scipy.linalg.cho_solve", lambda a, b: scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), b), (SPD, B)),
])
def test_scipy_function_as_a_jax_rule_is_one_graph(name, fn, args):
    e = check(fn, *args)
    assert _mapped(e, name), e.decisions


def test_cho_factor_of_a_matrix_not_positive_definite_raises_as_eager():
    check(lambda a: scipy.linalg.cho_factor(a), A)


@pytest.mark.parametrize("fn", [
    lambda x: x * scipy.special.bernoulli(6)[:3].sum(),        # scipy.special._specfun.bernob
    lambda x: x * scipy.special.comb(10, 3, exact=True),      # scipy.special._comb._comb_int
    lambda x: x + scipy.special.ai_zeros(3)[0].sum(),          # scipy.special._specfun.airyzo
])
def test_scipy_compiled_helpers_of_static_values_run_at_trace_time(fn):
    check(fn, V)


# ------------------------------------------------ SciPy helpers in their graph form


def test_apply_where_with_fill_value_is_one_graph():
    # eager indexes with the mask (a shape the graph cannot know); its own JAX branch is a where
    check(lambda x: xpx.apply_where(x > 0, (x,), np.log, fill_value=0.0), V)


def test_apply_where_with_two_functions_is_one_graph():
    check(lambda x, y: xpx.apply_where(x > y, (x, y), lambda a, b: a * b, lambda a, b: a - b), V, V[::-1].copy())


def test_scipy_stats_distribution_method_keeps_eagers_result():
    check(lambda x: scipy.stats.norm.pdf(x, loc=0.5, scale=2.0), V, full_graph=False)


# -------------------------------------- scipy.stats distributions' methods in the graph
MIXED = np.array([-1.5, 0.0, 0.3, 2.0, np.nan, np.inf, -np.inf, 7.5])


@pytest.mark.parametrize("fn", [
    lambda x: scipy.stats.norm.pdf(x),
    lambda x: scipy.stats.norm.logpdf(x, loc=0.5, scale=2.0),
    lambda x: scipy.stats.norm.cdf(x, 1.0, 3.0),
    lambda x: scipy.stats.norm.sf(x),
    lambda x: scipy.stats.gamma.pdf(x, 2.5),              # outside the support: 0; a NaN stays NaN
    lambda x: scipy.stats.t.logpdf(x, df=3.0),
    lambda x: scipy.stats.expon.logsf(x, scale=2.0),
    lambda x: scipy.stats.norm.pdf(x, scale=-1.0),        # an invalid scale: SciPy's badvalue (NaN) everywhere
])
@pytest.mark.parametrize("data", [V, MIXED], ids=["normal", "special"])
def test_distribution_method_is_one_graph(fn, data):
    e = check(fn, data)
    assert e.graph_count == 1


def test_distribution_method_with_a_traced_shape_parameter():
    check(lambda x, a: scipy.stats.gamma.pdf(x, a), np.abs(V) + 0.1, np.array([0.5, -1.0, 2.0, 3.5, 1.0, 0.0, 4.0, 2.5]))


@pytest.mark.parametrize("x,n", [
    (V * 4.0, np.array([1, 2, 3, 0, -1, 2.5, 4, 5.0])),             # invalid orders give NaN
    (np.array([0.0, 2 * np.pi, 1.0, 4 * np.pi, -2 * np.pi]), 3),     # where sin(x/2) vanishes: +-1
])
def test_diric_is_one_graph(x, n):
    check(lambda x, n: scipy.special.diric(x, n), x, n)


# ------------------------------------- memory layout of NumPy arrays: eager's, not modelled
@pytest.mark.parametrize("x", [A, np.asfortranarray(A), A[:, ::2]], ids=["C", "F", "view"])
def test_layout_of_a_numpy_array_falls_back_with_its_reason(x):
    def f(a):
        b = np.exp(a)
        order = "F" if a.flags["F_CONTIGUOUS"] and not a.flags["C_CONTIGUOUS"] else "C"
        return b * 2.0, order, a.strides
    e = check(f, x, full_graph=False)
    assert any("memory layout" in s.cause for s in e.fallback_sites)


@pytest.mark.parametrize("fn", [
    lambda x: scipy.special.jv(1.5, x),   # JAX has no function of that name
    lambda x: scipy.special.beta(x, x),   # jax.scipy.special.beta agrees only on some data
])
def test_compiled_scipy_ufunc_without_equivalent_runs_on_the_host_in_the_graph(fn):
    e = check(fn, np.linspace(0.1, 3.0, 8))
    assert any(d.mode == "host callback" for d in e.decisions), e


def _ill_conditioned(n=4):
    rng = np.random.default_rng(5)
    u, v = np.linalg.qr(rng.normal(size=(n, n)))[0], np.linalg.qr(rng.normal(size=(n, n)))[0]
    return u @ np.diag(np.logspace(0, -17, n)) @ v


def _warnings_of(fn, *args):
    import warnings
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = fn(*args)
    return out, [(w.category, str(w.message)) for w in seen if w.category is not RuntimeWarning]


@pytest.mark.parametrize("fn,args", [
    (lambda a, b: scipy.linalg.solve(a, b), (_ill_conditioned(), B)),     # LinAlgWarning: ill-conditioned
    (lambda a: scipy.linalg.inv(a), (_ill_conditioned(),)),
    (lambda a: scipy.linalg.lu_factor(a), (SINGULAR,)),                    # 'Diagonal number 3 is exactly zero'
    (lambda a, b: scipy.linalg.solve(a, b), (A, B)),                       # no warning
])
def test_scipy_warnings_come_from_the_graph_as_from_eager(fn, args):
    from ast2graph import to_static
    static = to_static(fn, full_graph=True)
    for _ in range(2):   # the first call converts, the second is a warm one
        expected, eager_warnings = _warnings_of(fn, *args)
        got, graph_warnings = _warnings_of(static, *args)
        assert graph_warnings == eager_warnings
        np.testing.assert_allclose(np.asarray(got[0] if isinstance(got, tuple) else got),
                                   np.asarray(expected[0] if isinstance(expected, tuple) else expected), rtol=1e-11)


@pytest.mark.parametrize("fn", [
    lambda x: scipy.special.psi(x),            # digamma's ufunc is named psi
    lambda x: scipy.special.digamma(x) + 1.0,
])
def test_scipy_special_alias_as_a_jax_rule_is_one_graph(fn):
    check(fn, V * 3.0)


def test_scipy_function_whose_jax_loop_may_not_end_is_not_mapped():
    # jax.scipy.special.gammainc(1e30, 1e30) iterates for minutes; SciPy's own ufunc, on the host, returns at once
    e = check(lambda a, x: scipy.special.gammainc(a, x), np.array([1e30, 2.0]), np.array([1e30, 3.0]))
    assert not _mapped(e, "scipy.special.gammainc")
    assert any(d.mode == "host callback" for d in e.decisions), e


def test_scipy_call_that_may_overwrite_an_argument_is_not_mapped():
    # eager's LAPACK may leave its LU factors in a (a Fortran-ordered float64 array): the write is eager's
    def f(a, b):
        x = scipy.linalg.solve(a, b, overwrite_a=True)
        return x, a
    e = check(f, np.asfortranarray(A), B, full_graph=False)
    assert not _mapped(e, "scipy.linalg.solve")


def test_scipy_function_with_a_graph_form_decorated_directly_is_one_graph():
    check(scipy.special.diric, V * 4.0, np.array([1, 2, 3, 0, -1, 2.5, 4, 5.0]))


def test_scipy_ufunc_on_a_large_array_is_one_graph():
    check(lambda x: scipy.special.erf(x) * 2.0, np.linspace(-3.0, 3.0, 300_000))
