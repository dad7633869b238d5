"""h-lib15: fixes in the shared passes for library functions that fell back in
h-lib14's sweep (``tests/test_library_sweep14.py``), each checked in one graph
(``full_graph=True``) and against eager."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import check, check_calls

X23 = np.arange(6.0).reshape(2, 3) - 2.5
X234 = np.arange(24.0).reshape(2, 3, 4) * 0.5 - 3.0


# ------------------------------------------------ writes through axis-permuted views
def test_a_write_through_a_moveaxis_view_writes_its_base():
    def f(X):
        X = X.copy()
        Xr = np.moveaxis(X, 0, 0)
        Xr -= 1.0
        return X

    check_calls(f, [(X23,), (X23 * 3,)])


def test_writes_through_rollaxis_and_transpose_views_reach_the_base_and_the_view():
    def f(X):
        X = X.copy()
        Xr = np.rollaxis(X, 1)
        Xr -= 1.0
        Xr[0] *= 2.0
        T = X.T
        T[-1, 0] = 7.0
        return X, Xr, T, Xr.shape

    check_calls(f, [(X23,), (X23 - 4,)])


def test_a_write_through_a_3d_moveaxis_view_is_seen_by_its_other_views():
    def f(X):
        X = X.copy()
        S = X[1]
        V = np.moveaxis(X, -1, 0)
        V[1:] /= 2.0
        W = np.swapaxes(X, 0, 2)
        W[0, 0, 1] += 10.0
        return X, S, V, W

    check(f, X234)
