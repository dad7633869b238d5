"""The library sweep in h-lib6 (issue 16 part 7): library code that reads an
array's memory layout or aliasing, and compiled helpers that write into
output arrays, in one graph where eager's answer is known.

* ``x.flags`` layout fields (``c_contiguous``, ``f_contiguous``,
  ``contiguous``, ``fortran``, ``fnc``, ``forc``, ``aligned`` and their keys
  ``flags["F_CONTIGUOUS"]``, ...) of a NumPy array eager allocates whole (a
  ufunc's or an operator's result, an array made at trace time and written
  with traced values) with at most one axis longer than 1: both C and F
  contiguous on every call (scipy.ndimage's ``if not
  input.flags.c_contiguous``, ``np.isfortran``). A 2-D result's order follows
  its operands' (``x * 2`` of a Fortran-ordered ``x`` is Fortran-ordered) and
  an argument's layout is not in the plan key: those still fall back.
* ``np.may_share_memory``/``np.shares_memory`` of an argument's array and an
  array this call made at trace time (``out = np.zeros(n)``: new memory), or
  of two arrays this call made (new, not views), is False in the graph.
* scipy.ndimage's compiled filters (``_nd_image.correlate1d``,
  ``min_or_max_filter1d``, ``uniform_filter1d``, ``spline_filter1d``,
  ``fourier_filter``, ...) run on the host inside the graph on eager's values
  (a pure callback), their output array's new contents written into it
  through every local name that holds it: ``gaussian_filter1d``,
  ``maximum_filter1d``, ``uniform_filter1d``, ``spline_filter1d``,
  ``fourier_gaussian`` are one graph.
* A write into an array a callee's caller also holds binds the caller's name
  too when the call passes displays, subscripts, attributes and arithmetic of
  names (``correlate1d(input, [-1, 0, 1], axis, output, modes[axis], cval,
  0)``, scipy.ndimage's ``prewitt``), not only names and constants: their
  values are bound to the callee's parameters, nothing else holds them. An
  argument with a call in it keeps its fallback (calls of ``int``, ``len``,
  ... by name excepted: ``filter_(input, int(size), axis, output, ...)``;
  ``*args``/``**kwargs`` of names are unpacked into the callee's parameters).
  Inside unrolled ``for`` loops over static containers and ranges too, where
  the loop's iterable does not hold the array (``for axis in axes:
  correlate1d(input, w, axis, output); input = output``: scipy.ndimage's
  separable filters ``gaussian_filter``, ``sobel``, ``uniform_filter``,
  ``maximum_filter``, and ``shift``/``zoom``'s spline prefilter are one
  graph); a ``while`` loop, an iterator, or an iterable holding the array
  keeps the fallback.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage as nd

from tests.helpers import check, check_sequence

X = np.array([0.5, -1.25, 2.0, 3.5, -0.75, 1.0, 0.25, -2.5])
M = np.arange(12.0).reshape(3, 4) - 5.0


# ------------------------------------------------ layout flags of arrays allocated whole
def test_layout_flags_of_a_new_vector_are_one_graph():
    def f(x):
        y = np.sin(x) + 1.0
        return (y, y.flags.c_contiguous, y.flags.f_contiguous, y.flags.contiguous, y.flags.fortran,
                y.flags.fnc, y.flags.forc, y.flags.aligned, np.isfortran(y))
    check(f, X, full_graph=True)


def test_layout_flag_keys_and_getattr_are_one_graph():
    def f(x):
        y = x * 2.0
        return (y.flags["C_CONTIGUOUS"], y.flags["F_CONTIGUOUS"], y.flags["FORTRAN"], y.flags["ALIGNED"],
                y.flags["FNC"], y.flags["FORC"], getattr(y.flags, "c_contiguous"), y.flags["WRITEABLE"])
    check(f, X, full_graph=True)


def test_an_array_made_at_trace_time_and_written_knows_its_layout():
    def f(x):
        m = np.zeros((1, 4))
        m[0, :2] = x[:2]
        if not m.flags.c_contiguous:          # scipy.ndimage's "the Cython code can't cope with broadcasted inputs"
            m = np.ascontiguousarray(m)
        return m * 2, m.flags.f_contiguous
    check(f, X, full_graph=True)


def test_a_two_dimensional_result_follows_its_operands_layout():
    def result(x):
        y = x * 2.0
        return y.flags.f_contiguous
    check(result, M, full_graph=True)   # (h-lib7: a ufunc's result of operands of one known order has it)


def _argument_layout(x):
    f = x.flags
    return x.flags.c_contiguous, x.flags["F_CONTIGUOUS"], f.fortran, getattr(f, "forc"), x.sum()


def test_the_layout_of_an_argument_is_in_the_plan_key_and_one_graph():
    """An argument's C and F contiguity is in the plan key
    (``specialize.numpy_layout``): read in the graph, and a call with another
    layout (same shape and dtype) compiles anew rather than reuse the answer."""
    for x in (X, X[::2], M, np.asfortranarray(M), M[:, ::2], M.T):
        check(_argument_layout, x, full_graph=True)

    def make():
        def f(a, b):
            a[0, 0] = 5.0   # an in-place write keeps the argument's memory and layout
            if a.flags.f_contiguous and not a.flags.c_contiguous:
                return a.T @ b
            return a @ b
        return f, None
    steps = [lambda f, w, x=x: f(x.copy(order="A"), np.eye(3))
             for x in (np.ones((3, 3)), np.asfortranarray(np.arange(9.0).reshape(3, 3)), np.ones((3, 3)),
                       np.asfortranarray(np.ones((3, 3))))]
    check_sequence(make, steps, full_graph=True)


def test_layout_answers_follow_the_shape_between_calls():
    def make():
        def f(x):
            y = np.exp(x) - 1.0
            return y.flags.c_contiguous, y.flags.f_contiguous, y.sum()
        return f, None
    check_sequence(make, [lambda f, w: f(X), lambda f, w: f(np.ones((4, 1))), lambda f, w: f(X[:3])],
                   full_graph=False)


def test_the_layout_of_an_array_leaving_a_segment_is_eagers():
    def f(x):
        y = x * 2.0
        return y.flags.c_contiguous
    check(f, np.asfortranarray(M), full_graph=False)


# ------------------------------------------------ may_share_memory of arrays whose memory is known
def test_may_share_memory_of_an_argument_and_a_new_output_is_one_graph():
    def f(x):
        out = np.zeros(x.shape)
        if np.may_share_memory(x, out) or np.shares_memory(out[1:], x):
            return x
        y = x + 1.0
        return out + y, np.may_share_memory(y, x), np.may_share_memory(y, out)
    check(f, X, full_graph=True)


def test_may_share_memory_of_an_argument_with_itself_or_a_view_keeps_eagers_answer():
    def f(x, y):
        return np.may_share_memory(x, y), x.sum()
    check(f, X, X, full_graph=False)
    check(f, X, X[2:], full_graph=False)
    check(f, X, X.copy(), full_graph=False)


# ------------------------------------------------ scipy.ndimage's compiled filters, on the host in the graph
@pytest.mark.parametrize("fn, args", [
    (nd.gaussian_filter1d, (X, 0.5)),
    (nd.maximum_filter1d, (X, 2)),
    (nd.minimum_filter1d, (X, 3)),
    (nd.uniform_filter1d, (X, 2)),
    (nd.spline_filter1d, (X,)),
    (nd.fourier_gaussian, (X, 0.5)),
    (nd.prewitt, (X,)),
    (nd.gaussian_filter, (M, 1.0)),
    (nd.sobel, (M,)),
    (nd.uniform_filter, (M,)),
    (nd.maximum_filter, (M, 2)),
    (nd.shift, (X, 0.5)),
    (nd.zoom, (X, 2.0)),
    (nd.median_filter, (X, 3)),
    (nd.percentile_filter, (X, 25, 3)),
    (nd.laplace, (M,)),
    (nd.gaussian_laplace, (M, 1.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_ndimage_filters_are_one_graph(fn, args):
    check(fn, *args, full_graph=True)


def test_ndimage_filters_as_users_call_them():
    def smooth(x, sigma):
        a = nd.gaussian_filter1d(x, sigma, mode="nearest")
        b = nd.maximum_filter1d(x, size=3, mode="constant", cval=-1.0)
        c = nd.uniform_filter1d(np.arange(8), 3)           # integers in, integers out
        return a - b, c, nd.gaussian_filter1d(x, 2 * sigma, order=1)
    check(smooth, X, 0.7, full_graph=True)


def test_ndimage_output_given_by_the_caller_is_written_through_every_name():
    def f(x):
        out = np.zeros(x.shape)
        alias = out
        r = nd.maximum_filter1d(x, 3, output=out)
        return alias, r is None, out is alias, out.sum()
    check(f, X, full_graph=True)


def test_ndimage_writing_into_the_argument_keeps_eagers_write():
    def f(x):
        nd.maximum_filter1d(x, 3, output=x)     # input and output one array: written in place in eager
        return x * 1.0
    e = check(f, X, full_graph=False)
    assert e.fallback_sites


def test_ndimage_filters_see_each_call_s_values():
    def make():
        def f(x, s):
            return nd.gaussian_filter1d(x, s)
        return f, None
    check_sequence(make, [lambda f, w: f(X, 0.5), lambda f, w: f(X * 3.0, 0.5), lambda f, w: f(X[:5], 0.5),
                          lambda f, w: f(X, 1.5)], full_graph=False)


# ------------------------------------------------ a callee's write seen by its caller's names
def _scale_into(out, weights, k):
    out[...] = out * weights[0] + k


def test_a_callee_given_displays_and_subscripts_writes_through_the_callers_names():
    def f(x):
        out = np.abs(x) * 0.5
        keep = out
        ks = [1.0, 2.0]
        _scale_into(out, [2.0, -3.0], ks[1] * 2)
        return keep, out, keep is out
    check(f, X, full_graph=True)


def test_a_callee_given_a_call_in_an_argument_keeps_its_fallback():
    def f(x):
        out = np.abs(x) * 0.5
        keep = out
        _scale_into(out, [float(np.sum(out))], 1.0)
        return keep, out
    e = check(f, X, full_graph=False)
    assert "A2G007" in [s.code.code for s in e.fallback_sites]


def test_a_callee_writing_the_callers_array_in_an_unrolled_loop_is_one_graph():
    def f(x):
        out = np.zeros(x.shape)
        keep = out
        for k in [1.0, 2.0]:
            _scale_into(out, [k], int(k) * 0.5)
        for j in range(2):
            _scale_into(keep, [1.5], j)
        return keep, out, keep is out
    check(f, X, full_graph=True)


def test_a_loop_whose_iterable_holds_the_written_array_keeps_eagers_writes():
    def f(x):
        a = x * 1.0
        for arr in (a, a * 2.0):            # the tuple holds a: its next item must see the write
            _scale_into(arr, [2.0], 1.0)
        b = np.zeros(3)
        for arr in [b, np.ones(3)]:
            _scale_into(arr, [3.0], x[0])
        return a, b
    check(f, X, full_graph=False)


def test_a_callee_called_through_a_local_name_writes_through_the_callers_names():
    def f(x):
        out = x * 0.5
        keep = out
        write = _scale_into
        write(out, [2.0], 1.0)
        return keep, out
    check(f, X, full_graph=True)


def _scale_forwarding(out, *rest, **kw):
    _scale_into(out, *rest, **kw)


def test_a_write_through_star_arguments_reaches_the_callers_names():
    def f(x):
        out = x * 0.5
        keep = out
        extra = ([2.0],)
        _scale_forwarding(out, *extra, k=1.0)
        return keep, out
    check(f, X, full_graph=True)


def test_a_trace_time_array_written_after_the_filter_is_read_as_it_was():
    def f(x):
        w = np.array([1.0, 2.0, 1.0])
        y = nd.correlate1d(x, w)       # the host call reads w as it is now, on every call
        w[0] = 5.0
        z = nd.correlate1d(x, w)
        return y, z, w
    check(f, X, full_graph=True)
