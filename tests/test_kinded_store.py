"""A value whose kind depends on the path (a Python float on one path, a 0-d
jax.Array on the other) written into a float NumPy array: NumPy stores the
number cast to the array's dtype whatever its kind, so the write is one graph.

Each case is compared with the eager run of the same function.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

X = jnp.array([0.5, -1.5, 2.25, -0.1])


def square_positive_into(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** 2 if x[i] > 0 else 0.1
    return out.sum()


def into_int_array(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] * 3 if x[i] > 0 else 7
    return out


def maybe_none(x, out):
    for i in range(x.shape[0]):
        out[i] = None if x[i] > 0 else x[i]
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_kinded_value_into_float_array_is_one_graph(dtype, sign):
    check(square_positive_into, X * sign, np.zeros(4, dtype), full_graph=True)


@pytest.mark.parametrize("fn,dtype", [(into_int_array, np.int64), (maybe_none, np.float64)])
def test_other_stores_match_eager(fn, dtype):
    check(fn, X, np.zeros(4, dtype), full_graph=False)
