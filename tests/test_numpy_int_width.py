"""NumPy's integer accumulations are computed at NumPy's width, not JAX's.

``np.cumsum`` of an int32 array accumulates in int64 (the platform int); JAX's
``cumsum`` stays int32 and wraps. The graph must compute NumPy's values, not
JAX's values widened afterwards. Each case compares with eager on data whose
int32 (or int8, uint8) accumulation overflows.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers import check

BIG32 = np.array([2**30, 2**30, 5, 2**30], dtype=np.int32)
SMALL = {"int8": np.array([100, 120, 27, -128], dtype=np.int8), "uint8": np.array([200, 100, 255, 3], dtype=np.uint8),
         "int16": np.array([30000, 30000, -5, 7], dtype=np.int16), "int32": BIG32,
         "bool": np.array([True, True, False, True])}


def cumsum(x):
    return np.cumsum(x)


def cumprod(x):
    return np.cumprod(x)


def accumulate(x):
    return np.add.accumulate(x)


def nancumsum(x):
    return np.nancumsum(x)


def reductions(x):
    return np.sum(x), np.prod(x), x.sum(), x.prod(), np.add.reduce(x), np.trace(np.diag(x))


def method_cumsum(x):
    return x.cumsum(), x.cumprod()


@pytest.mark.parametrize("fn", [cumsum, cumprod, accumulate, nancumsum, reductions, method_cumsum])
@pytest.mark.parametrize("dtype", list(SMALL))
def test_integer_accumulation_matches_numpy(fn, dtype):
    check(fn, SMALL[dtype], full_graph=False)


def test_cumsum_of_int32_is_one_graph():
    check(cumsum, BIG32, full_graph=True)
    check(accumulate, BIG32, full_graph=True)
