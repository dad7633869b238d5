"""The library sweep in h-lib8 (issue 16, section 7): general causes of fallback
in sklearn.metrics, scipy.stats and scipy.linalg.

* A write through a traced boolean mask of a value read through a mask
  (``out[m] = 1 - num[m] / den[m]``, sklearn's r2_score; ``r[m] =
  np.nextafter(r[m], r[m] + 1)``, its ``_weighted_percentile``): the kept
  rows in order to the kept positions; NumPy's broadcast error checked at
  run time where the counts may differ.
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
