"""Library functions the sweep first tried with argument sets chosen by their signatures (issue 16).

``benchmarks/library_sweep.py`` now picks arguments by parameter names
(``lfilter(b, a, x)``, ``butter(N, Wn)``, ``trim_mean(a, proportiontocut)``).
The functions it reached this way showed two general behaviours, each pinned
here as user code and as the library function that showed it, against eager:

* complex ``np.sqrt``/``arcsin``/``arccos``/``arccosh``/``arcsinh`` on their
  branch cuts: NumPy takes the sign of a zero imaginary part (``-4 - 0j`` is
  below the cut: ``np.sqrt`` gives -2j), XLA's kernels ignore it (2j): a
  silent wrong result in ``scipy.signal.lp2bp_zpk``;
* ``a, b, c = (x.lower() for x in (a, b, c))``: a generator expression
  unpacked where it stands is consumed at once, as the list of its items
  (it fell back: ``butter``, ``cheby1``, ``ellip``, ``bessel``, ``ss2zpk``).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.signal

from tests.helpers import check


def _branch_points() -> np.ndarray:
    vals = []
    for re in (-4.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 4.0, np.inf, np.nan):
        for im in (-0.0, 0.0, 1.0, -2.0):
            vals += [complex(re, im), complex(im, re)]
    return np.array(vals)


# ------------------------------------------------ complex functions on their branch cuts
@pytest.mark.parametrize("fn", [np.sqrt, np.arcsin, np.arccos, np.arccosh, np.arcsinh, np.emath.sqrt])
@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_complex_branch_cuts_keep_the_sign_of_a_zero_imaginary_part(fn, dtype):
    check(fn, _branch_points().astype(dtype))


@pytest.mark.parametrize("fn", [np.sqrt, np.arcsin, np.arccosh])
def test_branch_cut_functions_of_real_numbers_unchanged(fn):
    check(fn, np.array([-1.0, 0.25, 4.0, 0.0, -0.0]))


def test_a_negative_zero_imaginary_part_made_in_the_graph():
    def f(z):
        w = z.astype(np.complex128) ** 2 - 1.0     # (-0.5+0j)**2 is 0.25-0j: the cut's lower side
        return np.sqrt(w), np.sqrt(w[0]), z - np.sqrt(w)
    check(f, np.array([-0.5, -0.5]))


def test_sqrt_into_out_falls_back_with_numpys_signs():
    def f(x):
        y = np.empty_like(x)
        np.sqrt(x, out=y)
        return y
    check(f, _branch_points(), full_graph=False)


def test_lp2bp_zpk_on_zeros_on_the_negative_axis():
    check(scipy.signal.lp2bp_zpk, np.array([-1.0, -1.0]), np.array([-0.5 + 0.3j, -0.5 - 0.3j]), 0.5)


# ------------------------------------------------ a generator expression unpacked where it stands
def test_generator_expression_unpacked_into_names():
    def f(x, s):
        a, b, c = (v.lower() for v in s)
        p, q = (np.sin(x[i]) * 2 for i in range(2))
        first, *rest = (x * k for k in range(4))
        [u, w] = (float(k) for k in (1, 2))
        return a + b + c, p, q, first, rest, u + w
    check(f, np.arange(3.0), ("A", "B", "C"))


def test_generator_expression_unpacked_prints_in_order():
    def f(x):
        a, b = (print(k) or k for k in range(2))
        print("after")
        return a + b + x
    check(f, np.arange(3.0))


@pytest.mark.parametrize("n", [1, 3])
def test_generator_expression_unpacked_into_the_wrong_number_of_names(n):
    def f(x, n):
        a, b = (x * k for k in range(n))      # eager's message: "too many values to unpack (expected 2)"
        return a
    e = check(f, np.arange(3.0), n, full_graph=False)
    assert e is None      # eager raises ValueError; the converted function raises the same message


def test_generator_expression_bound_to_a_name_is_eagers_and_one_graph():
    def f(x):
        g = (x * k for k in range(3))
        return sum(g), sum(g)   # the second is over an exhausted generator: 0
    check(f, np.arange(3.0), full_graph=True)


@pytest.mark.parametrize("fn,args", [
    (scipy.signal.butter, (4, 0.2)), (scipy.signal.cheby1, (4, 1.0, 0.2)), (scipy.signal.cheby2, (4, 40.0, 0.2)),
    (scipy.signal.ellip, (4, 1.0, 40.0, 0.2)), (scipy.signal.bessel, (4, 0.2)),
])
def test_iir_filter_design_is_one_graph(fn, args):
    # bessel: scipy.optimize.newton's loop now rolls (its closing `raise RuntimeError("Failed to converge
    # ...")` is a run-time check, h-algo18), and inside the rolled loop the `raise RuntimeError(msg)` of
    # its `if fder == 0:` with a message formatting a traced value is not a check: that statement falls
    # back (A2G003); it was one graph when the loop unrolled. Equal to eager either way.
    check(fn, *args, full_graph=fn is not scipy.signal.bessel)


def test_ss2zpk_after_unpacking_its_matrices():
    a = -np.array([[5.0, 1.0, 0.5], [1.0, 4.0, 0.2], [0.5, 0.2, 3.0]])
    b, c, d = np.array([[1.0], [0.5], [-0.3]]), np.array([[0.2, -1.0, 0.4]]), np.ones((1, 1))
    check(scipy.signal.ss2zpk, a, b, c, d, full_graph=False)


# ------------------------------------------------ scipy.signal.lfilter as a scan
def _signal(n: int = 64, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=n)


def test_lfilter_of_an_iir_filter_is_one_graph():
    b, a = scipy.signal.butter(4, 0.2)
    check(scipy.signal.lfilter, b, a, _signal(), full_graph=True)
    check(scipy.signal.lfilter, np.array([0.2, 0.3, 0.2]), np.array([1.0, -0.5, 0.25]), _signal(8), full_graph=True)


def test_lfilter_in_user_code_with_axis_and_initial_state():
    b, a = scipy.signal.butter(3, 0.1)

    def smooth(b, a, x):
        zi = scipy.signal.lfilter_zi(b, a)
        y, zf = scipy.signal.lfilter(b, a, x, zi=zi * x[0])
        rows = scipy.signal.lfilter(b, a, np.stack([x, 2 * x]), axis=1)
        cols = scipy.signal.lfilter(b, a[:2], np.stack([x, -x], axis=1), axis=0)
        return y, zf, rows, cols
    check(smooth, b, a, _signal(), full_graph=False)
    check(smooth, b, a, _signal().astype(np.float32), full_graph=False)


@pytest.mark.parametrize("case", ["a0 zero", "nan", "ints", "complex", "one-coefficient a"])
def test_lfilter_where_the_graph_does_not_model_it(case):
    b, a = scipy.signal.butter(2, 0.3)
    x = _signal(16)
    if case == "a0 zero":
        a = np.array([0.0, 0.5, 0.2])        # SciPy raises ValueError: on the host
    elif case == "nan":
        x[3] = np.nan                        # a non-finite input: SciPy's own call
    elif case == "ints":
        x = np.arange(16)                    # SciPy raises NotImplementedError
    elif case == "complex":
        x = x + 1j * x[::-1]
    else:
        a = np.array([2.0]) + 0j             # SciPy convolves, of complex data
    check(scipy.signal.lfilter, b, a, x, full_graph=False)


# ------------------------------------------------ np.apply_along_axis: func1d converted per slice
X = np.random.default_rng(0).normal(size=(3, 5))


def test_apply_along_axis_calls_user_code_per_slice_in_order():
    def f(x):
        def centre(v):
            print("row", v.shape)
            return v - v.mean()
        return (np.apply_along_axis(centre, 1, x), np.apply_along_axis(np.sum, 0, x[0]),
                np.apply_along_axis(lambda v: v * 1.0, -1, np.ones((2, 2, 3))),
                np.apply_along_axis(lambda v: v[0] > 0, 0, x), np.apply_along_axis(np.diag, 1, x))
    check(f, X, full_graph=True)


@pytest.mark.parametrize("fn", [np.sin, np.sum, np.sort])
def test_apply_along_axis_of_numpy_functions(fn):
    check(np.apply_along_axis, fn, 0, X)
    check(np.apply_along_axis, fn, 1, X)


def test_apply_along_axis_where_numpy_casts_or_raises():
    check(lambda x: np.apply_along_axis(lambda v: v if v[0] > 0 else v[:1], 0, x), X, full_graph=False)
    check(lambda x: np.apply_along_axis(np.sum, 0, x[:, :0]), X, full_graph=False)   # eager: ValueError
    check(lambda x: np.apply_along_axis(np.sum, 3, x), X, full_graph=False)          # eager: AxisError


def test_lfilter_with_a_one_coefficient_denominator():
    check(scipy.signal.lfilter, np.array([0.2, 0.3]), np.array([2.0]), X[0], full_graph=True)
    check(scipy.signal.lfilter, np.array([0.2, 0.3]), np.array([2.0]), X, 0, full_graph=True)


# ------------------------------------------------ x[..., k]: a 0-d ndarray viewing x, not a NumPy scalar
def test_ellipsis_index_to_0d_is_a_0d_ndarray():
    def polyval(c, x):               # scipy.signal._polyutils' Horner loop (freqz_sos)
        c0 = c[-1, ...]
        for i in range(2, c.shape[0] + 1):
            c0 = c[-i, ...] + c0 * x
        return c0, c[0, ...], c[..., 1], type(c[..., 1]).__name__
    check(polyval, np.arange(3.0), 0.5, full_graph=True)
    check(polyval, np.arange(3.0), np.arange(4.0), full_graph=True)
    check(lambda c: (c[..., 0] + 1, c[1, ...]), np.ones((2, 2)), full_graph=True)


def test_write_through_an_ellipsis_0d_view_is_one_graph():
    # a write through a view by a static index is a write into its base (h-fb14); it fell back before
    def f(c):
        y = c[..., 0]
        y -= 1.0                     # writes into c
        return y * 2, c
    check(f, np.arange(3.0), full_graph=True)


# ------------------------------------------------ np.broadcast_to(..., subok=True)
def test_broadcast_to_with_subok_is_a_readonly_view():
    def f(x):
        y = np.broadcast_to(x, (3, 4), subok=True)
        return y + 1, np.broadcast_to(x, (2, 4)), y.flags.writeable
    check(f, np.arange(4.0), full_graph=True)

    def write(x):
        y = np.broadcast_to(x, (3, 4), subok=True)
        y[0, 0] = 1.0                # eager: ValueError, a read-only view
        return y
    check(write, np.arange(4.0), full_graph=False)


def test_freqz_sos_is_one_graph():
    sos = np.array([[0.2, 0.3, 0.2, 1.0, -0.5, 0.25], [1.0, 0.5, 0.1, 1.0, -0.3, 0.1]])
    check(scipy.signal.freqz_sos, sos, full_graph=True)
