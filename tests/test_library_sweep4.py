"""Library namespaces the sweep first tried in h-lib4 (issue 16).

``benchmarks/library_sweep.py`` now also sweeps ``numpy.polynomial``'s six
kinds, ``scipy.ndimage``, ``scipy.interpolate``, ``scipy.fft``,
``scipy.cluster.vq``, the plain functions of ``scipy.optimize`` and
``jax.nn``. What they showed, each pinned as user code and as the library
function that showed it, against eager:

* a NumPy view read from a view of an array the function made
  (``mat.reshape(-1)[n::n + 1]`` of ``mat = np.zeros(..)``) was taken for an
  array read from outside the function: the graph read a copy, so
  ``bot[...] = 1`` through it never reached ``mat`` (a silent wrong result in
  ``np.polynomial.polynomial.polycompanion`` and every ``*companion``).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import check


# ------------------------------------------------ views of views of an array made here
def test_a_view_of_a_reshaped_array_made_here_writes_through():
    def f(c):
        n = len(c) - 1
        mat = np.zeros((n, n), dtype=c.dtype)
        bot = mat.reshape(-1)[n::n + 1]
        bot[...] = 1
        mat[:, -1] -= c[:-1] / c[-1]
        return mat
    check(f, np.arange(1.0, 6.0), full_graph=False)


def test_a_view_of_a_view_made_here_in_two_steps():
    def f(c):
        mat = np.zeros((3, 3))
        r = mat.reshape(-1)
        bot = r[1:]
        bot[0] = 1
        return mat + c[0]
    check(f, np.arange(1.0, 6.0))


def test_a_traced_write_through_a_view_of_a_view_made_here_falls_back():
    def f(c):
        mat = np.zeros((3, 3))
        bot = mat.reshape(-1)[1:]
        bot[2:4] = c[:2]       # the graph writes whole arrays, not through views: the write runs in Python
        return mat
    e = check(f, np.arange(1.0, 6.0), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G007"]


def test_transpose_of_a_view_made_here():
    def f(c):
        mat = np.zeros((3, 4))
        t = mat[1:].T
        t[0] = 7.0
        t[1, 1] = 3.0
        return mat * c[0], t.shape
    check(f, np.arange(1.0, 6.0))


def test_a_view_of_a_view_made_here_across_a_fallback():
    def f(c):
        mat = np.zeros(4)
        bot = mat.reshape(2, 2)[1:]
        b = c.tobytes()        # runs in Python: the segment ends with mat and bot live
        bot[0] = c[0] + len(b)
        return mat
    check(f, np.arange(1.0, 6.0), full_graph=False)


def test_a_view_of_an_outside_array_is_still_read_from_outside():
    g = np.arange(6.0)

    def f(c):
        v = g.reshape(2, 3)[1:]
        return v.sum() + c
    check(f, np.float64(1.0))
    g[4] = 100.0              # the caller changed it: the graph reads it again
    check(f, np.float64(1.0))


@pytest.mark.parametrize("name", ["polynomial.polycompanion", "chebyshev.chebcompanion", "legendre.legcompanion",
                                  "hermite.hermcompanion", "hermite_e.hermecompanion", "laguerre.lagcompanion"])
def test_polynomial_companion_matrices(name):
    module, fn = name.split(".")
    f = getattr(getattr(np.polynomial, module), fn)
    check(f, np.random.default_rng(0).normal(size=8), full_graph=False)
