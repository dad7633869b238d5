"""NumPy views and NumPy functions given to ``to_static`` as they are.

- arrays the trace made that share memory (a base and its views) stay sharing
  when they leave a compiled segment, in a new set per call;
- ``x[..., 0]`` of a 1-d array is a 0-d array viewing ``x`` (``y -= v`` writes
  through it), not a NumPy scalar;
- an ``__array_function__`` dispatcher (``np.polyval``) given to ``to_static``
  is converted as a user's call of it (one graph where it has a JAX
  equivalent), its Python implementation otherwise, and a call with an
  argument overriding ``__array_function__`` goes through NumPy's dispatcher;
- a NumPy function run as its JAX equivalent returns eager's containers
  (``np.meshgrid``'s tuple, ``np.linalg.eigh``'s ``EighResult``).
"""

from __future__ import annotations

import numpy as np
import pytest

from ast2graph import explain, to_static
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


@pytest.mark.parametrize("fn, args", [
    (np.polyval, (np.array([1.0, -2.0, 0.5]), X)),
    (np.linalg.norm, (X,)),
    (np.cross, (np.arange(3.0), np.arange(3.0) + 2)),
    (np.vander, (X,)),
    (np.meshgrid, (X, X[:2])),
    (np.linalg.eigh, (np.eye(3) * 2 + 0.5,)),
])
def test_numpy_dispatchers_given_to_to_static_are_one_graph(fn, args):
    check(fn, *args, graphs=1)


def test_dispatcher_in_a_user_function_returns_eager_containers():
    def f(x, y):
        gx, gy = np.meshgrid(x, y)
        w, v = np.linalg.eigh(np.outer(x, x) + np.eye(len(x)))
        return np.meshgrid(x, y), gx + 1, np.linalg.eigh(np.eye(2)), w

    check(f, X, X[:3], graphs=1)


class Duck:
    """An array-like overriding ``__array_function__``: NumPy hands it the call."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array_function__(self, func, types, args, kwargs):
        return ("handled by Duck", func.__name__)


def test_argument_overriding_array_function_goes_through_the_dispatcher():
    static = to_static(np.polyval)
    p = np.array([1.0, 2.0])
    assert static(p, Duck([1.0])) == np.polyval(p, Duck([1.0])) == ("handled by Duck", "polyval")
    assert static([p], Duck([1.0])) == np.polyval([p], Duck([1.0]))   # inside a list too
    check(np.polyval, p, X, graphs=1)   # and the plain call is still the graph


def test_dispatcher_without_jax_equivalent_converts_its_implementation():
    """np.fix (NumPy 2.4: no JAX op of its own for ast2graph) runs NumPy's
    Python code converted, not eagerly with a warning."""
    e = check(np.fix, X - 2.0, full_graph=False)
    assert e.function.eager_reason is None and e.graph_count >= 1


def test_two_dispatchers_with_the_same_arguments_stay_apart():
    """All dispatchers share the one calling function's code: each converted
    function still calls its own NumPy function."""
    a, b, c = to_static(np.ptp), to_static(np.median), to_static(np.ptp)
    for _ in range(2):
        assert a(X) == np.ptp(X) and b(X) == np.median(X) and c(X) == np.ptp(X)
        assert type(a(X)) is type(np.ptp(X))
