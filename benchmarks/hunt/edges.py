"""Edge semantics of NumPy and Python numbers in ordinary code: integer
division by zero, nan/inf casts and reductions, NumPy's reduction dtypes,
empty arrays, math-domain errors, and the errors of truth values."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .registry import program


@program("edges", (np.array([7, -7, 3, 0], dtype=np.int64), np.array([2, 2, 0, 0], dtype=np.int64)),
         (np.array([5, 6], dtype=np.int64), np.array([-2, 4], dtype=np.int64)))
def safe_int_division_numpy(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        q = a // b
        r = a % b
        t = a / b
    return q, r, t


@program("edges", (np.array([0.1, np.nan, 0.95, 1.0]), 10), (np.array([0.0, 0.5]), 4))
def histogram_bins_with_nan(x, n):
    with np.errstate(invalid="ignore"):
        idx = (x * n).astype(np.int64)
    idx = np.minimum(idx, n - 1)
    ok = np.isfinite(x)
    counts = np.bincount(idx[ok], minlength=n)
    return counts, int(ok.sum()), idx


@program("edges", (np.array([1, 2, 3], dtype=np.int32),), (np.array([2**30, 2**30], dtype=np.int32),),
         (np.array([True, True, False]),))
def reduction_dtypes_numpy(a):
    return a.sum(), a.prod(), np.cumsum(a), a.mean(), a.max(), np.sum(a, dtype=a.dtype)


@program("edges", (np.array([3.0, np.nan, 1.0]),), (np.array([2.0, 5.0, -1.0]),))
def nan_ordering(x):
    py_max = max(x.tolist())
    np_max = np.max(x)
    nan_max = np.nanmax(x)
    am = int(np.argmax(x))
    srt = np.sort(x)
    med = np.median(x)
    return py_max, np_max, nan_max, am, srt, med


@program("edges", (np.array([]),), (np.array([1.0, 2.0]),))
def empty_reductions(x):
    n = x.size
    if n == 0:
        return x.sum(), n, "empty"
    return x.mean(), n, x.max()


@program("edges", (np.array([4.0, -1.0]),), (np.array([9.0, 0.0]),))
def math_domain_error_vs_numpy_nan(x):
    with np.errstate(invalid="ignore"):
        n = np.sqrt(x)
    out = []
    for v in x:
        try:
            out.append(math.sqrt(v))
        except ValueError as e:
            out.append(str(e))
    return n, out


@program("edges", (np.array([1.5, np.nan]),), (np.array([2.5, 3.5]),), (np.array([np.inf]),))
def int_of_nan_raises(x):
    got = []
    for v in x:
        try:
            got.append(int(v))
        except (ValueError, OverflowError) as e:
            got.append(f"{type(e).__name__}: {e}")
    return got


@program("edges", (np.array([1.0, 2.0]),), (np.array([3.0]),))
def truth_value_of_array_error(x):
    try:
        if x > 1:
            return "big"
        return "small"
    except ValueError as e:
        return str(e)


@program("edges", (jnp.array([1.0, 2.0]),), (jnp.array([5.0]),))
def float_of_array_error(x):
    try:
        return float(x)
    except TypeError as e:
        return str(e)


@program("edges", (np.array([2, 3], dtype=np.int64), -1), (np.array([2, 3], dtype=np.int64), 2))
def integer_negative_power(a, k):
    try:
        return a ** k
    except ValueError as e:
        return str(e)


@program("edges", (np.float64(1.0), 0.0), (np.float64(-1.0), 0.0), (np.float64(3.0), 2.0))
def numpy_scalar_divide_by_zero(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    try:
        p = float(a) / b
    except ZeroDivisionError as e:
        p = str(e)
    return r, p


@program("edges", (jnp.array([-1.0, 0.0, 2.0]),), (jnp.array([0.0]),))
def negative_zero_printed(x):
    y = x * 0.0
    z = -x + 0.0
    print(y, z)
    print(f"{float(y[0])} {float(z[0]):+.1f}")
    return y, z, [math.copysign(1.0, float(v)) for v in y]


@program("edges", (np.array([-128, 5, 127], dtype=np.int8),), (np.array([1, -1], dtype=np.int8),))
def int8_abs_and_negate_wrap(a):
    return np.abs(a), -a, a * 2, a.astype(np.int16) * 2, a.sum()


@program("edges", (np.array([2, 5, 9], dtype=np.uint32), np.array([3, 1, 9], dtype=np.uint32)),
         (np.array([0], dtype=np.uint32), np.array([1], dtype=np.uint32)))
def unsigned_difference_wraps(a, b):
    d = a - b
    safe = np.where(a > b, a - b, b - a)
    signed = a.astype(np.int64) - b
    return d, safe, signed, d.dtype


@program("edges", (np.array([1.0, 2.0, 3.0]), 2.5, 1.0), (np.array([1.0, 5.0]), 0.0, 10.0))
def clip_low_above_high(x, lo, hi):
    return np.clip(x, lo, hi), np.minimum(np.maximum(x, lo), hi)


@program("edges", (0.0, 1.0, 0.1), (1.0, 2.0, 0.25), (0.0, 1.0, 0.3))
def arange_float_length(a, b, step):
    r = np.arange(a, b, step)
    s = np.linspace(a, b, 4, dtype=int)
    return len(r), r[-1], s


@program("edges", (np.array([1.0, 1e-300, 1e300]),), (np.array([0.5, 2.0]),))
def float64_underflow_overflow(x):
    with np.errstate(over="ignore", under="ignore"):
        sq = x * x
        inv = 1.0 / sq
    return sq, inv, np.isinf(inv).sum(), float(x.prod())


@program("edges", (np.array([1.0, -2.0, 3.0], dtype=np.float32), 0.1), (np.array([1e8], dtype=np.float32), 1.0))
def float32_numpy_with_python_float(x, eps):
    y = x + eps
    z = x * np.float64(eps)
    w = x.sum() + eps
    return y, z, w, type(w).__name__


@program("edges", ({"b": 2, "a": 1},), ({"z": 0},))
def dict_reinsert_order(d):
    d = dict(d)
    d["c"] = 3
    first = next(iter(d))
    val = d.pop(first)
    d[first] = val * 10
    d.update({"a": -1})
    return d, list(d.items())


@program("edges", (np.array([[1.0, 2.0], [3.0, 4.0]]),), (np.array([[0.0, 1.0], [1.0, 0.0]]),))
def matrix_iteration_yields_rows(M):
    out = []
    for row in M:
        row[0] = row[0] + 1
        out.append(row.sum())
    return out, M
