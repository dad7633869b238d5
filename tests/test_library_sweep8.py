"""The library sweep in h-lib8 (issue 16, section 7): general causes of fallback
in sklearn.metrics, scipy.stats and scipy.linalg.

* A write through a traced boolean mask of a value read through a mask
  (``out[m] = 1 - num[m] / den[m]``, sklearn's r2_score; ``r[m] =
  np.nextafter(r[m], r[m] + 1)``, its ``_weighted_percentile``): the kept
  rows in order to the kept positions; NumPy's broadcast error checked at
  run time where the counts may differ.
* A local function reaches only the names its ``def`` mentions (array_api_compat's
  ``clip``: ``def _isscalar`` is no alias of ``out``); ``np.from_dlpack`` of a
  NumPy array (sklearn's ``move_to``) is a new view of it.
* A raise under a traced condition whose message is ``str.format`` of traced
  values (scipy.linalg.eigh) is a run-time check; no other call runs early.
* A SciPy function run as its JAX equivalent gives its results' layout
  (``lu_factor``'s Fortran-ordered lu, read by ``lu_solve``).
* LAPACK workspace queries are read at trace time (``ret[-2][0].real``); an
  ``overwrite_X`` of a C-ordered operand (f2py copies it) and dgees' unused
  call-back (``sort_t=0``) stay in the graph: qr, rq, schur.
"""

from __future__ import annotations

import numpy as np
import pytest

from ast2graph import to_static
from tests.helpers import check, check_sequence

num = np.array([1.0, 0.0, 3.0, 2.0])
den = np.array([0.0, 1.0, 2.0, 4.0])


def masked_ratio(a, b):
    out = np.ones(a.shape[0])
    valid = (a != 0) & (b != 0)
    out[valid] = 1 - a[valid] / b[valid]
    out[(a != 0) & ~(b != 0)] = 0.0
    return out


def test_a_masked_value_written_through_its_mask_is_one_graph():
    check(masked_ratio, num, den, full_graph=True)


def test_a_masked_write_follows_the_mask_on_every_call():
    def make():
        return masked_ratio, None
    check_sequence(make, [lambda f, w: f(num, den), lambda f, w: f(den, num), lambda f, w: f(np.zeros(4), den),
                          lambda f, w: f(num, np.ones(4))], full_graph=True)


def test_an_augmented_write_through_a_mask():
    def f(x, m):
        y = x.copy()
        y[m] += x[m] * 2
        y[m] *= 3
        return y
    check_sequence(lambda: (f, None), [lambda f, w: f(num, num > 1), lambda f, w: f(num, num < 0),
                                       lambda f, w: f(den, den >= 0)], full_graph=True)


def test_a_two_dimensional_mask_and_rows():
    def f(x, m, v):
        y = x.copy()
        y[m] = v[m] + 1.0
        z = np.zeros((3, 2))
        rows = x[:, 0] > 0
        z[rows] = x[rows] * 2.0
        return y, z
    x = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 4.0]])
    check(f, x, x > 0, x * 10, full_graph=True)


def test_a_binary_ufunc_of_masked_values():
    def f(r):
        r = r.copy()
        m = r == 0
        r[m] = np.nextafter(r[m], r[m] + 1)
        return r, np.maximum(r[m], 0.5).sum()
    check_sequence(lambda: (f, None), [lambda f, w: f(np.array([0.0, 1.0, 0.0])), lambda f, w: f(np.ones(3)),
                                       lambda f, w: f(np.zeros(3))], full_graph=True)


def test_a_write_of_another_count_raises_as_eager():
    def f(x, m, k):
        y = x.copy()
        y[m] = x[x > k]
        return y
    check_sequence(lambda: (f, None), [lambda f, w: f(num, num > 1, 1.0), lambda f, w: f(num, num > 1, 2.5),
                                       lambda f, w: f(num, num > 1, 0.5), lambda f, w: f(num, num > 5, 2.5),
                                       lambda f, w: f(num, num > 1, 5.0)], full_graph=True)


def test_an_integer_target_keeps_its_dtype():
    def f(x, m):
        y = np.zeros(4, dtype=np.int64)
        y[m] = x[m] * 3
        return y
    check(f, np.array([3, 0, 1, 2], dtype=np.int32), np.array([True, False, True, True]), full_graph=True)


def test_a_local_function_that_does_not_name_the_array_is_no_alias():
    # array_api_compat's clip: ``def _isscalar(a): ...`` then ``out[()] = x``
    def f(x, out):
        def _isscalar(a):
            return isinstance(a, (int, float)) or a is None
        lo = 0.5 if _isscalar(0.5) else None
        out[()] = x
        out[out < lo] = lo
        return out
    check_sequence(lambda: (f, None), [lambda f, w: (f(num, np.zeros(4)),), lambda f, w: (f(den, np.ones(4)),)],
                   full_graph=True)


def test_a_local_function_that_names_the_array_still_sees_the_write():
    def f(x):
        out = np.zeros(3)
        def peek():
            return out.sum()
        out[()] = x
        return peek(), out
    check(f, np.array([1.0, 2.0, 3.0]), full_graph=False)

    def g(x):
        out = np.zeros(3)
        def peek(a=out):
            return a.sum()
        out[()] = x
        return peek(), out
    check(g, np.array([1.0, 2.0, 3.0]), full_graph=False)


def test_from_dlpack_of_a_numpy_array_is_a_new_view():
    # sklearn's move_to(x, xp=np, device="cpu"): np.from_dlpack(x, device="cpu")
    def f(x):
        y = np.from_dlpack(x, device="cpu")
        z = np.from_dlpack(x[::-1], device="cpu")
        return y * 2, z + 1, np.from_dlpack(x, copy=True)
    check(f, np.array([1.0, 2.0, 3.0]), full_graph=True)
    ro = np.array([1.0, 2.0])
    ro.flags.writeable = False
    check(f, ro, full_graph=True)

    def g(x):
        y = np.from_dlpack(x, device="cpu")
        y[0] = 5.0   # a write through the view reaches the caller's array (this runs in Python)
        assert y is not x
        return y, x, y.flags.writeable
    check(g, np.array([1.0, 2.0, 3.0]), full_graph=False)
    with pytest.raises(ValueError):   # eager: assignment destination is read-only
        to_static(g)(ro)


def test_a_raise_whose_message_is_str_format_of_a_traced_value_is_a_check():
    # scipy.linalg.eigh: ``msg = drv_err['ev'].format(info)`` then ``raise LinAlgError(msg)``
    def f(x, n):
        info = (x > 2).sum()
        if info == 0:
            return x * 2
        else:
            errs = {"ev": "failed; {} elements", "evd": "rows {0}/{1}"}
            if n > 1:
                msg = errs["ev"].format(info)
            else:
                msg = errs["evd"].format(info, n + 1)
            raise ValueError(msg)
    check_sequence(lambda: (f, None), [lambda f, w: f(np.array([1.0, 2.0]), 2), lambda f, w: f(np.array([3.0, 4.0]), 2),
                                       lambda f, w: f(np.array([1.0, 4.0]), 1), lambda f, w: f(np.array([0.0, 1.0]), 1)],
                   full_graph=True)


class _Template:
    """An object with its own ``format``: eager calls it only when raising."""

    def __init__(self):
        self.calls = 0

    def format(self, *args):
        self.calls += 1
        return f"failed {args}"


def test_a_format_method_of_another_object_is_not_run_before_eager_runs_it():
    t = _Template()

    def f(x):
        info = (x > 2).sum()
        if info == 0:
            return x * 2
        else:
            msg = t.format(info)
            raise ValueError(msg)
    out = to_static(f)(np.array([1.0, 2.0]))
    assert t.calls == 0 and np.array_equal(out, np.array([2.0, 4.0]))
    with pytest.raises(ValueError, match="failed"):
        to_static(f)(np.array([3.0, 4.0]))
    assert t.calls == 1


def test_scipy_linalg_eigh_is_one_graph():
    import scipy.linalg as sl
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
    check(sl.eigh, a, full_graph=True)
    check(lambda m: sl.eigh(m, eigvals_only=True), a * 2.0, full_graph=True)


def test_lu_solve_of_lu_factor_in_one_function_is_one_graph():
    # lu_factor runs as JAX's; its lu is Fortran-ordered on every exemplar (C-ordered operands), which
    # lu_solve's get_lapack_funcs reads (lu.flags.fortran)
    import scipy.linalg as sl

    def f(a, rhs):
        lu, piv = sl.lu_factor(a)
        return sl.lu_solve((lu, piv), rhs), lu.flags.f_contiguous, lu.flags.c_contiguous
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
    rhs = np.array([1.0, 2.0, 3.0])
    check(f, a, rhs, full_graph=True)
    check_sequence(lambda: (f, None), [lambda f, w: f(a, rhs), lambda f, w: f(a * 2.0 + np.eye(3), rhs[::-1].copy()),
                                       lambda f, w: f(np.asfortranarray(a), rhs), lambda f, w: f(a, rhs)],
                   full_graph=False)


def test_the_layout_of_a_result_is_not_claimed_for_other_operand_layouts():
    import scipy.linalg as sl

    def f(a):
        lu, piv = sl.lu_factor(a)
        return lu.flags.f_contiguous
    a = np.asfortranarray(np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]]))
    check(f, a, full_graph=False)
    check(f, a.T, full_graph=False)
    check(f, np.ascontiguousarray(a), full_graph=True)


def test_a_workspace_query_result_is_read_at_trace_time():
    # scipy.linalg's safecall: ``lwork = ret[-2][0].real.astype(np.int_)`` of an lwork=-1 query, then the call
    from scipy.linalg import get_lapack_funcs

    def f(a):
        geqrf, = get_lapack_funcs(("geqrf",), (a,))
        ret = geqrf(a, lwork=-1, overwrite_a=False)
        lwork = ret[-2][0].real.astype(np.int_)
        qr, tau, work, info = geqrf(a, lwork=lwork, overwrite_a=False)
        return qr, tau, info, np.zeros(int(ret[-2][0].real) % 7)
    a = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
    check(f, a, full_graph=True)
    check_sequence(lambda: (f, None), [lambda f, w: f(a), lambda f, w: f(a[::-1].copy()), lambda f, w: f(np.eye(3))],
                   full_graph=True)


def test_attributes_of_a_numpy_scalar_follow_it_on_every_call():
    state = {"scale": np.float64(2.5)}

    def make():
        state["scale"] = np.float64(2.5)

        def f(x):
            s = state["scale"]
            return x * s.real, s.imag, s.real.dtype
        return f, state

    def step(value):
        def run(f, w):
            w["scale"] = value
            return f(np.array([1.0, 2.0]))
        return run
    check_sequence(make, [step(np.float64(2.5)), step(np.float64(-1.0)), step(np.float32(3.0)),
                          step(np.complex128(1 + 2j))], full_graph=True)


M3 = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 2.0]])
R34 = np.array([[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 4.0, 2.0], [3.0, 0.0, 1.0, 1.0]])


@pytest.mark.parametrize("name, args", [
    ("qr", (M3,)), ("qr", (R34.T.copy(),)), ("rq", (M3,)), ("rq", (R34,)),
    ("schur", (M3,)), ("schur", (np.array([[0.0, -1.0], [1.0, 0.0]]),)),
], ids=["qr", "qr_tall", "rq", "rq_wide", "schur", "schur_rotation"])
def test_scipy_linalg_qr_rq_schur_are_one_graph(name, args):
    # qr/rq: a workspace query, then orgqr/orgrq with overwrite_a=1 of a C-ordered np.empty copy (f2py
    # copies it: nothing written); schur: dgees given a call-back that sort_t=0 never calls
    import scipy.linalg as sl
    check(getattr(sl, name), *args, full_graph=True)


def test_overwrite_of_a_fortran_ordered_operand_is_not_in_the_graph():
    # economic qr: orgqr(qr, tau, overwrite_a=1) of geqrf's Fortran-ordered qr (f2py would write into it)
    import scipy.linalg as sl

    def f(a):
        q, r = sl.qr(a, mode="economic")
        return q, r
    with pytest.raises(Exception, match="A2G"):
        to_static(f, full_graph=True)(R34.T.copy())
    check(f, R34.T.copy(), full_graph=False)
    # a wide qr / tall rq: orgqr(qr[:, :m], overwrite_a=1) of a view of that Fortran-ordered array
    check(sl.qr, R34, full_graph=False)
    check(sl.rq, R34.T.copy(), full_graph=False)


def test_overwrite_a_of_a_c_ordered_argument_leaves_it_alone_as_eager():
    import scipy.linalg as sl

    def f(a):
        q, r = sl.qr(a, overwrite_a=True)
        return q, r, a
    check_sequence(lambda: (f, None), [lambda f, w: f(M3.copy()), lambda f, w: f(M3 * 2.0)], full_graph=False)


def test_schur_with_a_sort_calls_the_function_in_python():
    import scipy.linalg as sl

    def f(a):
        return sl.schur(a, sort="lhp")
    check(f, np.array([[1.0, 2.0], [3.0, -4.0]]), full_graph=False)
