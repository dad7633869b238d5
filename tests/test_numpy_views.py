"""NumPy views and NumPy functions given to ``to_static`` as they are.

- arrays the trace made that share memory (a base and its views) stay sharing
  when they leave a compiled segment, in a new set per call;
- ``x[..., 0]`` of a 1-d array is a 0-d array viewing ``x`` (``y -= v`` writes
  through it), not a NumPy scalar.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import check, check_sequence

X = np.arange(4.0) + 0.5


def write_through_reversed_view(x):
    v = np.zeros((len(x), 3))
    tmp = v[:, ::-1]
    tmp[:, 0] = 1
    tmp[:, 1:] = x[:, None]
    return v


def write_through_ellipsis_view(a, b):
    cp = np.zeros(3)
    cp0 = cp[..., 0]
    cp0 -= a[..., 1] * b[..., 2]
    return cp


def ufunc_out_into_view(a, b):
    cp = np.zeros(3)
    cp0 = cp[..., 0]
    np.multiply(a[..., 1], b[..., 2], out=cp0)
    tmp = np.multiply(a[..., 2], b[..., 1], out=...)
    cp0 -= tmp
    return cp


def view_pair_leaves_then_python_writes(x):
    v = np.zeros((2, 3))
    row = v[1]
    print("made")          # ends nothing, but the views below are written by Python statements
    row[:] = 7.0
    v[0, 0] = float(x.sum())
    return v, row


@pytest.mark.parametrize("fn, args", [
    (write_through_reversed_view, (X,)),
    (write_through_ellipsis_view, (np.arange(3.0) + 1, np.arange(3.0) + 5)),
    (ufunc_out_into_view, (np.arange(3.0) + 1, np.arange(3.0) + 5)),
    (view_pair_leaves_then_python_writes, (X,)),
])
def test_writes_through_views_reach_the_base(fn, args):
    check(fn, *args, full_graph=False)


def test_zero_d_view_in_a_helper_and_a_loop():
    def helper(cp, a):
        c0 = cp[..., 0]
        c0 += a
        return cp

    def f(x):
        cp = np.zeros(2)
        for k in range(3):
            cp = helper(cp, x[k])
        return cp

    check(f, X, full_graph=False)


def test_views_of_trace_made_arrays_are_new_per_call():
    """The caller writes into the first call's results: the second call's
    (made anew, as eager's) are unaffected, and its base and view share memory."""
    def make():
        def f(x):
            v = np.zeros(3)
            w = v[1:]
            print("between")
            w[0] = 5.0
            return v, w, x.sum()
        return f, {}

    def call(fn, world):
        v, w, s = fn(X)
        shared = np.shares_memory(v, w)
        v[2] = -1.0        # shows in w, and in nothing of the next call
        return v.copy(), w.copy(), s, shared

    check_sequence(make, [call, call], full_graph=False)
