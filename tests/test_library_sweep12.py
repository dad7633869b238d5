"""The library sweep in h-lib12 (issue 16, library part): NumPy and SciPy
functions called from user code as people call them (keyword options,
``axis=``, 2-D and integer inputs), with jax.Array and NumPy inputs.

* A list or tuple of numbers given to a NumPy function whose jax.numpy
  namesake refuses it ("requires ndarray or scalar arguments") is NumPy's
  array of it: ``np.percentile(x, [5, 50, 95])``, ``np.polyval([3, 0, 1], x)``,
  ``np.convolve(x, [1, -1])``, ``np.isin(i, [1, 2, 3])``,
  ``np.searchsorted(s, [0.0, 0.5])``, ``np.histogram(x, bins=[...])`` are one graph.
* NumPy's linear algebra on jax.Arrays returns NumPy's named tuples
  (``EighResult``, ``SVDResult``, ``QRResult``, ``SlogdetResult``) where JAX's
  namesakes return their own classes: the result kinds are read from eager's
  run as for a plain tuple, the result put in eager's class. ``np.linalg.eigh``,
  ``svd``, ``qr``, ``slogdet`` of jax.Arrays are one graph.
* A NumPy function written in Python given float operands of mixed widths
  (a float32 array beside a 64-bit array: ``np.percentile(x32, [5, 95])``)
  may compute steps at the narrow width before the wide operand joins, where
  the graph's op widens first: a last-bit difference in the float64 result
  (it was a wrong result). It runs as NumPy's own Python, converted, or falls
  back. A ufunc's ``out=...`` (a new array) of shaped operands is ``out=None``.
* The layout (``.flags``) of a view other than an index (``x[2:9].reshape(7,
  -1)``, ``np.swapaxes(m, 0, 1)``, ``m.T.reshape(-1)``) of an array whose
  layout is known is NumPy's own answer, its recipe replayed on a small
  stand-in: SciPy's ``get_lapack_funcs`` reads ``.flags.fortran`` of such a
  view; ``scipy.signal.detrend`` is one graph.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import scipy.signal

from ast2graph import explain
from tests.helpers import check, check_calls

rng = np.random.default_rng(12)
V = rng.standard_normal(16)
P = rng.random(16)
M = rng.standard_normal((4, 5))
I = rng.integers(0, 8, 12)


def test_list_operands_numpy_takes_as_arrays_one_graph():
    # jnp.percentile / polyval / convolve / isin / searchsorted / histogram refuse a Python list
    # where NumPy converts it (np.asarray): the list becomes NumPy's array of it
    def f(x, i):
        s = x.sum()
        return (np.percentile(x, [5, 50, 95]), np.percentile(x, q=(10, 90)), np.polyval([3.0, 0.0, -1.0], x),
                np.convolve(x, [1, -1], mode="valid"), np.isin(i, [1, 2, 3]), np.isin(i, (s > 0, 5)),
                np.searchsorted(np.sort(x), [0.0, 0.5]), np.histogram(x, bins=[-1.0, 0.0, 0.5, 2.0])[0],
                np.interp(x, [-1, 0, 1], [0.0, s, 1.0]))

    check_calls(f, [(V, I), (P, I[::-1])])

    def g(x, i):   # jax.Arrays: float32 data (np.percentile of it with an int64 q: NumPy's Python, below)
        return (np.polyval([3.0, 0.0, -1.0], x), np.convolve(x, [1, -1], mode="valid"), np.isin(i, [1, 2, 3]),
                np.searchsorted(np.sort(x), [0.0, 0.5]), np.histogram(x, bins=[-1.0, 0.0, 0.5, 2.0])[0])

    check_calls(g, [(jnp.asarray(V), jnp.asarray(I)), (jnp.asarray(P), jnp.asarray(I[::-1]))])


def test_list_where_jax_refuses_something_else_still_falls_back():
    # a list of strings is no array of numbers: not converted; the fallback site stays
    def f(x):
        return np.percentile(x, [5, 50]), np.isin(x.astype(int), ["a"])

    check(f, V, full_graph=False)


def test_numpy_linalg_named_tuples_of_jax_arrays_one_graph():
    def f(a):
        w, v = np.linalg.eigh(a)
        r, q, s = np.linalg.svd(a), np.linalg.qr(a), np.linalg.slogdet(a)
        return w, v, r, q, s, type(r).__name__, r.S, q.Q, s.sign, s.logabsdet

    a = M[:, :4] @ M[:, :4].T + np.eye(4)
    check_calls(f, [(jnp.asarray(a),), (jnp.asarray(a * 2),), (a,)])


def test_mixed_width_percentile_is_numpys_not_the_widened_op():
    # NumPy's _lerp computes b - a in float32, then adds the float64 weights: the graph's
    # jnp.percentile widened first (a last-bit difference of the float64 result, seen here)
    def f(x):
        return np.percentile(x, np.array([5, 50, 95])), np.percentile(x, 50), np.quantile(x, 0.25)

    x32 = V.astype(np.float32)
    check(f, x32, full_graph=False)
    check(f, jnp.asarray(x32), full_graph=False)
    check(f, V)   # one width: one graph
    sites = explain(f)(x32).fallback_sites
    assert [s.code.code for s in sites] == ["A2G009"] and "narrower" in sites[0].cause


def test_layout_of_a_reshaped_or_swapped_view_is_numpys():
    # a view other than an index (x[2:9].reshape(7, -1), .T, np.swapaxes) of an array whose layout is
    # known: NumPy's flags, from the recipe replayed on a stand-in (SciPy's get_lapack_funcs reads
    # .flags.fortran of xp.reshape(x_edge, (n, -1)): scipy.signal.detrend fell back there)
    def f(x, m):
        a = x[2:9].reshape(7, -1)
        b = x[::2].reshape(-1, 1)
        t = np.swapaxes(m, 0, 1)
        s = m[np.int64(1):np.int64(3)]   # (slice bounds of np.int64: detrend's slice(bp[m], bp[m + 1]))
        return (a.flags.fortran, a.flags.c_contiguous, b.flags.c_contiguous, b.flags.f_contiguous,
                t.flags.fortran, m.T.reshape(-1).flags.c_contiguous, s.flags.fortran, s.flags.c_contiguous, a * 2)

    check_calls(f, [(V, M), (P, np.asfortranarray(M))])
    check_calls(scipy.signal.detrend, [(V,), (jnp.asarray(P),)])


def test_ufunc_out_ellipsis_is_a_new_array():
    # out=... (NumPy 2: always an array): of shaped operands a new array, as out=None;
    # of 0-d ones a 0-d array the graph cannot tell from a scalar: falls back
    def f(x):
        return np.add(x, 1.0, out=...), np.sqrt(np.abs(x), out=...)

    def g(x):
        return np.multiply(x[0], 2.0, out=...)

    check_calls(f, [(V,), (P,)])
    check(g, V, full_graph=False)
    assert [s.code.code for s in explain(g)(V).fallback_sites] == ["A2G007"]
