"""Python numbers from arrays: int()/float()/.item(), overflow, //, %, -0.0, nan/inf, bools."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .registry import program

I = jnp.array([7, -7, 3, 0], dtype=jnp.int32)


@program("pynum", (jnp.array([7, -7, 3]), 2), (jnp.array([7, -7, 3]), -3), (jnp.array([10, 0, -1]), 4))
def python_floor_div_mod_of_items(a, d):
    out = []
    for v in a:
        n = int(v)
        out.append((n // d, n % d, divmod(n, d), -n // d))
    return out


@program("pynum", (jnp.array([1.5, -2.5, 0.5, 2.5]),), (jnp.array([-0.0, 0.0, 3.7, -3.7]),))
def rounding_of_floats(x):
    vals = [float(v) for v in x]
    return [round(v) for v in vals], [math.floor(v) for v in vals], [int(v) for v in vals], \
        [math.copysign(1.0, v) for v in vals], round(vals[-1], 1)


@program("pynum", (jnp.array([2**31 - 1, 1], dtype=jnp.int32),), (jnp.array([100000, 100000], dtype=jnp.int32),))
def int_overflow_python_vs_array(a):
    s_arr = a.sum()
    s_py = int(a[0]) + int(a[1])
    prod_arr = a[0] * a[1]
    prod_py = int(a[0]) * int(a[1])
    return s_arr, s_py, prod_arr, prod_py, s_py > 2**31 - 1


@program("pynum", (jnp.array([1.0, 0.0, -1.0]),), (jnp.array([0.0, 0.0, 0.0]),), (jnp.array([jnp.inf, 1.0, jnp.nan]),))
def safe_ratios(x):
    total = float(x.sum())
    ratios = []
    for v in x:
        v = float(v)
        if total == 0:
            ratios.append(float("nan"))
        elif math.isnan(v) or math.isinf(v):
            ratios.append(None)
        else:
            ratios.append(v / total)
    return ratios, math.isnan(total), total


@program("pynum", (jnp.array([3, 1, 2]),), (jnp.array([0, 0, 0]),))
def item_arith_and_bools(x):
    n = x.sum().item()
    k = x.max().item()
    flag = bool(x.any())
    mean = n / len(x)
    return n, k, flag, mean, n ** 2, k ** -1 if k else None, flag + flag, True if n else False


@program("pynum", (np.array([1, 2, 3], dtype=np.int64), 2**40), (np.array([-5, 0, 5], dtype=np.int64), -3))
def numpy_int64_scalars(a, scale):
    total = 0
    for v in a:
        total += v * scale
    return total, type(total).__name__, a.sum() * scale, int(a.max()) // 2


@program("pynum", (jnp.array([0.1, 0.2, 0.3]),), (jnp.array([1e-8, 1e8, -1e8]),))
def float_sum_orders(x):
    s1 = sum(float(v) for v in x)
    s2 = math.fsum(float(v) for v in x)
    s3 = float(x.sum())
    return s1, s2, s3, s1 == s2


@program("pynum", (jnp.array(5.0), 3), (jnp.array(-5.0), 3), (jnp.array(7.5), 0))
def float_mod_of_traced(x, m):
    v = float(x)
    if m == 0:
        return v, None
    return v % m, v // m, math.fmod(v, m), x % m


@program("pynum", (jnp.array([255, 1], dtype=jnp.uint8),), (jnp.array([128, 128], dtype=jnp.uint8),))
def uint8_wraparound(p):
    s = p[0] + p[1]
    py = int(p[0]) + int(p[1])
    clipped = min(py, 255)
    return s, py, clipped, (p.astype(jnp.int32) * 2).max(), np.uint8(int(p[0])) + np.uint8(1)


@program("pynum", (jnp.array([1.0, 2.0]), 3), (jnp.array([1.0, 2.0]), 3.0), (jnp.array([1.0, 2.0]), True))
def scale_by_python_scalar(x, s):
    y = x * s
    z = s * 2
    return y, z, type(z).__name__, s / 2


@program("pynum", (jnp.array([-0.0, 0.0]),), (jnp.array([-1e-30, 1e-30]),))
def negative_zero_handling(x):
    a = float(x[0])
    b = float(x[1])
    return a == b, math.copysign(1, a), str(a), f"{a:+.1f}", max(a, b), min(a, b), abs(a), -a + 0.0


@program("pynum", (jnp.array([3.0, 4.0]),), (jnp.array([1e200, 1e200], dtype=jnp.float32),))
def hypot_and_overflow(v):
    a, b = float(v[0]), float(v[1])
    h = math.hypot(a, b)
    sq = a * a + b * b
    return h, sq, math.isinf(sq), float(jnp.hypot(v[0], v[1]))


@program("pynum", (jnp.array(10),), (jnp.array(-3),), (jnp.array(0),))
def integer_powers_and_shifts(n):
    k = int(n)
    return k ** 2, 2 ** abs(k), k << 3, k >> 1, k & 0xF, ~k, k ^ 5, abs(k) ** 0.5
