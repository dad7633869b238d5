"""Dtype promotion and the Python kinds of results: float32 jnp meeting float64
NumPy, int + bool, Python int overflow vs int32 wrap, ``//`` and ``%`` with
negatives, true division of ints, NumPy scalars vs 0-d arrays vs floats."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .registry import program


@program("dtypes", (jnp.array([1.0, 2.0], dtype=jnp.float32), np.array([0.1, 0.2])),
         (jnp.array([1e-3, 3.0], dtype=jnp.float32), np.array([1e-12, 1.0])))
def f32_jax_meets_f64_numpy(w, x64):
    a = w + x64
    b = np.asarray(w) + x64
    c = x64 * 2 + w.sum()
    return a, b, c, a.dtype == w.dtype, b.dtype


@program("dtypes", (np.array([True, False, True]),), (np.array([False, False]),))
def bool_arithmetic(mask):
    n = 0
    for m in mask:
        n = n + m
    both = mask + mask
    total = True + True
    as_int = mask.astype(int) + mask.astype(int)
    return n, both, total, as_int, sum(mask), mask.sum()


@program("dtypes", (np.array([104, 101, 108, 108, 111], dtype=np.int32),), (np.array([2**31 - 1, 7], dtype=np.int32),))
def string_hash_python_vs_int32(codes):
    h = 0
    for c in codes:
        h = h * 31 + int(c)
    wrapped = np.int32(0)
    arr = codes.astype(np.int32)
    acc = arr * np.int32(31) + arr
    return h, h % 2**32, acc, acc.dtype, wrapped


@program("dtypes", (jnp.array([-7, 7, -8, 0]),), (jnp.array([-1, 3]),))
def floordiv_mod_negatives(x):
    out = []
    for v in x:
        k = int(v)
        out.append((k // 2, k % 3, -k // 4, math.fmod(k, 3), divmod(k, -3)))
    return out, x // 3, x % -3, jnp.floor_divide(x, -2)


@program("dtypes", (np.array([7, 2, 9], dtype=np.int64), jnp.array([7, 2, 9])), (np.array([1, 1], dtype=np.int64), jnp.array([3, 4])))
def true_division_of_ints(a, j):
    n = len(a)
    mean_py = int(a.sum()) / n
    mean_np = a.sum() / n
    ratio_np = a / a[0]
    ratio_j = j / j[0]
    half = int(j[0]) // 2 / 1
    return mean_py, mean_np, ratio_np, ratio_j, half


@program("dtypes", (np.array([3, 1, 4, 1, 5], dtype=np.int64),), (np.array([9], dtype=np.int64),))
def numpy_scalar_kinds(a):
    s = a.sum()
    m = a.max() + 1
    first = a[0]
    idx = a.argmax()
    pos = int(idx) + 0
    mean = a.mean()
    scaled = len(a) * first
    return s, m, first, idx, pos, mean, scaled, type(s).__name__


@program("dtypes", (np.array([0.5, 1.5]),), (np.array([-2.0]),))
def zero_d_vs_scalar(x):
    s0 = x.sum()
    s1 = np.sum(x, keepdims=True)[0]
    s2 = np.array(x.sum())
    s3 = np.asarray(s2 + 1)
    s4 = s2 + 1
    s5 = float(s2) + 1
    return s0, s1, s2, s3, s4, s5


@program("dtypes", (np.array([250, 3, 128], dtype=np.uint8),), (np.array([0, 255], dtype=np.uint8),))
def uint8_image_brightness(img):
    wrapped = img + 10
    widened = img.astype(int) + 10
    clipped = np.clip(widened, 0, 255).astype(np.uint8)
    diff = img - img[::-1]
    return wrapped, widened, clipped, diff, img.mean(), img.sum()


@program("dtypes", (np.array([1, 2, 3, 4], dtype=np.int64),), (np.array([5], dtype=np.int64),))
def int_array_reductions(a):
    m = a.mean()
    v = a.var()
    half = a // 2
    fl = a / 2
    q, r = divmod(a, 3)
    return m, v, half, fl, q, r, a.dtype == half.dtype


@program("dtypes", (jnp.array([1.0, -2.0, 3.0]),), (np.array([1.0, -2.0, 3.0]),), (np.array([-1.0]),))
def mask_count_kinds(x):
    pos = (x > 0).sum()
    frac = pos / x.size
    n = int(pos)
    return pos, frac, n, n / len(x)


@program("dtypes", (jnp.array([1.0, 2.0], dtype=jnp.float32),), (jnp.array([0.25, 8.0], dtype=jnp.float32),))
def weak_typed_scalars(x):
    a = x * 2.0
    b = x * np.float64(2.0)
    c = x + jnp.asarray(3)
    d = jnp.asarray(3) + 1
    e = jnp.float32(1.5) * 2
    f = x * np.array(2.0)
    return a, b, c, d, e, f


@program("dtypes", (2, -8.0), (3, 27.0), (-1, 4.0))
def python_power_edge_cases(n, v):
    a = 2 ** n
    b = v ** (1 / 3)
    c = np.float64(v) ** 0.5 if v >= 0 else np.float64(-1.0)
    d = (-2) ** n
    e = pow(n, 2, 5)
    return a, b, c, d, e


@program("dtypes", (jnp.array([2.0, 2.0, 1.0]),), (jnp.array([1.0, 3.0]),))
def max_of_mixed_python_numbers(x):
    best = max(2, float(x[0]))
    low = min(float(x[-1]), 1)
    ranked = sorted([1, float(x[0]), True, 0.5])
    tie = max([(2, "int"), (2.0, "float")], key=lambda t: t[0])
    return best, low, ranked, tie


@program("dtypes", (np.array([1.0, 2.0], dtype=np.float32),), (np.array([], dtype=np.float32),))
def sum_start_keeps_kind(x):
    s = sum(x)
    t = sum([v for v in x], 0.0)
    u = sum(int(v) for v in x)
    w = np.float32(0) + sum(x)
    return s, t, u, w


@program("dtypes", (np.array([2.5, 3.5, -2.5, 0.5]),), (np.array([1.4999, -0.5]),))
def rounding_modes(x):
    py = [round(float(v)) for v in x]
    py1 = [round(float(v), 1) for v in x]
    npr = np.round(x)
    tr = [int(v) for v in x]
    fl = [math.floor(v) for v in x]
    return py, py1, npr, tr, fl, np.rint(x).astype(np.int64)


@program("dtypes", (jnp.array([3, 4], dtype=jnp.int32),), (jnp.array([-5, 2], dtype=jnp.int32),))
def jax_int_division_dtypes(x):
    a = x / 2
    b = x // 2
    c = x * 0.5
    d = x.mean()
    e = jnp.sqrt(x.astype(jnp.float32))
    return a, b, c, d, e, x.sum().dtype


@program("dtypes", (np.array([1, 2, 3], dtype=np.int64), 2**40), (np.array([-1, 0], dtype=np.int64), 3))
def int64_times_python_int(a, k):
    b = a * k
    c = a[0] * k
    d = int(a[0]) * k * k * k
    e = b.sum() // 7
    return b, c, d, e, type(c).__name__


@program("dtypes", (jnp.array([0.1, 0.2, 0.3]),), (jnp.array([1.0]),))
def float32_accumulate_vs_python_float(x):
    acc32 = jnp.float32(0)
    accpy = 0.0
    for v in x:
        acc32 = acc32 + v
        accpy = accpy + float(v)
    return acc32, accpy, accpy == 0.6, float(acc32)
