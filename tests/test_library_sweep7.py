"""The library sweep in h-lib7 (issue 16): scipy.linalg's LAPACK wrappers in the graph.

* SciPy's f2py wrappers of LAPACK/BLAS (``get_lapack_funcs``' ``dgetrf``,
  ``dgetrs``, ``dgesdd``, ``dgelsd``, ...) on traced operands run on the host
  inside the graph (a pure callback) on eager's values, each array operand a
  private copy; their result types are those of eager's own call on exemplar
  operands of the same shapes (f2py's bounds follow shapes and integer
  parameters only): arrays NumPy arrays, ``info`` a Python int. Refused
  (fallback as before): an ``overwrite_X`` that is not a static false, a
  routine that writes an operand in place, a call-back, a traced integer.
* Workspace queries (``dgelsd_lwork(m, n, nrhs, cond)``, ``lwork=-1``) give
  sizes from the shapes alone: made at trace time.
* ``get_lapack_funcs``' labels on the wrapper (``func.typecode = prefix``) are
  written while tracing (every eager call writes the same values), not
  lifted: a later read of the wrapper no longer falls back (A2G007).
* A block that only raises under a traced condition (``if info == 0: return
  x`` then ``raise ValueError(f"... {-info}")``; nested ``if``s of raises) is
  run-time checks, each under the conditions leading to it.
* scipy.linalg functions with integer operands (``lu_solve``'s pivots) are
  not validated against JAX on exemplar data: LAPACK indexes with them (the
  heap corruption seen in long sweeps).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl
from scipy.linalg import get_lapack_funcs

from ast2graph import explain, to_static
from tests.helpers import check, check_sequence

A = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
B = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 4.0], [3.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
b = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize("fn, args", [
    (sl.lu_factor, (A,)),
    (sl.lu_solve, (sl.lu_factor(A), b)),
    (sl.svd, (A,)),
    (sl.svd, (B,)),
    (sl.polar, (A,)),
    (sl.lstsq, (A, b)),
    (sl.cholesky_banded, (np.array([[0.0, 1.0, 1.0], [4.0, 3.0, 2.0]]),)),
], ids=["lu_factor", "lu_solve", "svd", "svd_tall", "polar", "lstsq", "cholesky_banded"])
def test_scipy_linalg_lapack_functions_are_one_graph(fn, args):
    check(fn, *args, full_graph=True)


def test_lapack_results_follow_the_data_on_every_call():
    def make():
        def f(lu_piv, a, rhs):
            return sl.lu_solve(lu_piv, rhs), sl.svd(a, compute_uv=False), sl.polar(a)
        return f, None
    A2 = A * 2.0 + np.eye(3)
    check_sequence(make, [lambda f, w: f(sl.lu_factor(A), A, b), lambda f, w: f(sl.lu_factor(A2), A2, b[::-1].copy()),
                          lambda f, w: f(sl.lu_factor(np.eye(3)), np.eye(3), b)], full_graph=True)


def test_a_lapack_result_read_for_its_layout_is_one_graph():
    def f(a):
        getrf, = get_lapack_funcs(("getrf",), (a,))
        lu, piv, info = getrf(a)
        return lu.flags.f_contiguous, lu.flags.c_contiguous, piv.flags.c_contiguous, lu.flags.writeable, lu + 1.0
    check(f, A, full_graph=True)


def test_a_singular_matrix_warns_as_eager_does():
    check(sl.lu_factor, np.array([[1.0, 2.0], [2.0, 4.0]]), full_graph=True)


def test_get_lapack_funcs_labels_are_written_while_tracing():
    def f(a):
        getrf, = get_lapack_funcs(("getrf",), (a,))
        lu, piv, info = getrf(a)
        return lu, piv, info, getrf.typecode
    get_lapack_funcs.memo.clear()   # (the wrapper labelled by this call, not an earlier one)
    check(f, A, full_graph=True)


def test_an_info_result_is_a_python_int():
    def f(a):
        getrf, = get_lapack_funcs(("getrf",), (a,))
        lu, piv, info = getrf(a)
        return info, info + 1, lu * info
    check(f, A, full_graph=True)


def test_a_workspace_query_of_static_sizes_is_one_graph():
    def f(a):
        gesdd_lwork = get_lapack_funcs("gesdd_lwork", (a,))
        work, info = gesdd_lwork(a.shape[0], a.shape[1])
        return a * 2.0, int(work), info
    check(f, A, full_graph=True)


def test_overwrite_that_may_write_an_argument_falls_back():
    def f(a):
        getrf, = get_lapack_funcs(("getrf",), (a,))
        lu, piv, info = getrf(a, overwrite_a=True)
        return lu, piv, info
    e = check(f, np.asfortranarray(A), full_graph=False)
    assert e.fallback_sites


def test_a_traced_integer_parameter_falls_back():
    def f(a):
        geqrf, = get_lapack_funcs(("geqrf",), (a,))
        lwork = (a[0, 0] * 0 + 16).astype(np.int_)
        qr, tau, work, info = geqrf(a, lwork=lwork)
        return qr, tau, info
    e = check(f, A, full_graph=False)
    assert e.fallback_sites


# ------------------------------------------------ blocks that only raise, under traced conditions
def _after_return(x):
    info = x[0]
    if info == 0:
        return x * 2
    raise ValueError(f"illegal value in {-info}th argument")


def _nested(x):
    info = x[0]
    if info > 0:
        raise np.linalg.LinAlgError("did not converge")
    if info < 0:
        if info == -4:
            msg = "A has a NaN entry"
            raise ValueError(msg)
        raise ValueError(f"illegal value in {-info}th argument")
    return x * 2


@pytest.mark.parametrize("fn", [_after_return, _nested])
@pytest.mark.parametrize("first", [0, -4, -3, 2])
def test_a_block_that_only_raises_is_run_time_checks(fn, first):
    check(fn, np.array([first, 1]), full_graph=True)


def test_raise_checks_follow_the_data_between_calls():
    def make():
        return _nested, None
    check_sequence(make, [lambda f, w: f(np.array([0, 1])), lambda f, w: f(np.array([-4, 1])),
                          lambda f, w: f(np.array([3, 1])), lambda f, w: f(np.array([-2, 1]))], full_graph=True)


def test_a_raise_after_an_effect_keeps_eagers_order():
    def f(x):
        info = x[0]
        if info == 0:
            return x * 2
        print("about to raise")
        raise ValueError(f"bad {info}")
    check(f, np.array([0, 1]), full_graph=False)
    check(f, np.array([1, 1]), full_graph=False)


def test_lu_solve_is_never_validated_on_exemplar_pivots():
    lu_piv = sl.lu_factor(A)
    for _ in range(3):   # (random pivots made LAPACK write out of bounds: a crash, sooner or later)
        e = explain(to_static(sl.lu_solve))(lu_piv, b)
        np.testing.assert_allclose(e.result, sl.lu_solve(lu_piv, b))


# ------------------------------------------------ the layout of a ufunc's result follows its operands'
M = np.arange(12.0).reshape(3, 4)


def _layout(x, y):
    z = x * 2.0 + y
    return z.flags.c_contiguous, z.flags.f_contiguous, z.flags.fnc, z.sum()


@pytest.mark.parametrize("order_x, order_y", [("F", "F"), ("C", "C")])
def test_a_ufunc_result_of_operands_of_one_order_has_it(order_x, order_y):
    check(_layout, np.asarray(M, order=order_x), np.asarray(M + 1.0, order=order_y), full_graph=True)


def test_a_ufunc_result_of_mixed_orders_falls_back():
    e = check(_layout, np.asfortranarray(M), np.ascontiguousarray(M), full_graph=False)
    assert e.fallback_sites


def test_the_layout_answer_follows_the_arguments_between_calls():
    def make():
        return _layout, None
    check_sequence(make, [lambda f, w: f(np.asfortranarray(M), np.asfortranarray(M)),
                          lambda f, w: f(np.ascontiguousarray(M), np.ascontiguousarray(M)),
                          lambda f, w: f(np.asfortranarray(M), np.asfortranarray(M))], full_graph=True)


def test_a_broadcast_operand_leaves_the_layout_unknown():
    def f(x, row):
        z = x + row
        return z.flags.f_contiguous
    e = explain(to_static(f))(np.asfortranarray(M), np.ones(4))
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"]


@pytest.mark.xfail(strict=True, reason="the fallback reads the layout of the array the segment hands back, in C "
                   "order, where eager's follows its operands' (x + row of a Fortran-ordered x is Fortran-ordered): "
                   "the runtime would have to hand back eager's layout (plans record it, the runtime converts)")
def test_the_layout_read_by_a_fallback_is_eagers():
    def f(x, row):
        z = x + row
        return z.flags.f_contiguous
    check(f, np.asfortranarray(M), np.ones(4), full_graph=False)


def _elementwise_of_same_shape(x, y):
    return np.sin(x), x * 2.0 + y, x.T @ x


def test_an_output_of_fortran_ordered_operands_is_handed_back_in_fortran_order():
    # the graph's output was copied into a C-ordered ndarray: eager's np.sin(x) of a Fortran-ordered x is
    # Fortran-ordered (its .flags, .strides, .tobytes() differ); the plan hands it back in eager's order
    F = np.asfortranarray(M)
    static = to_static(_elementwise_of_same_shape, full_graph=True)   # one function: the layouts change between calls
    for args in ((F, F), (M, M), (F, M), (F, F)):
        check(_elementwise_of_same_shape, *args, full_graph=True)
        eager, converted = _elementwise_of_same_shape(*args), static(*args)
        assert [(a.flags.c_contiguous, a.flags.f_contiguous) for a in eager] == \
            [(b.flags.c_contiguous, b.flags.f_contiguous) for b in converted]


def test_matmul_and_an_order_keyword_do_not_follow_the_operands():
    S = np.asfortranarray(np.arange(9.0).reshape(3, 3))

    def f(x):
        return (x @ x).flags.f_contiguous
    # (F @ F is C-ordered in NumPy: not the elementwise rule; a matrix product's own, h-lib9)
    check(f, S, full_graph=True)

    def g(x):
        return np.add(x, x, order="C").flags.f_contiguous
    e = explain(to_static(g))(S)
    assert e.fallback_sites


def test_unary_and_comparison_ufuncs_follow_their_operand():
    def f(x):
        return (-x).flags.fnc, np.sin(x).flags.f_contiguous, (x > 1.0).flags.f_contiguous
    check(f, np.asfortranarray(M), full_graph=True)
    check(f, M, full_graph=True)
