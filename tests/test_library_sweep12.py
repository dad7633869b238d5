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
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

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
