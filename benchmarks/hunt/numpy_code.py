"""NumPy code: float64 data, in-place writes into arrays and arguments, mixed with jnp."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

F64 = np.array([0.1, 0.7, 0.3, 0.9, 0.5])


@program("numpy", (F64.copy(), 4), (np.array([0.0, 1.0, 1.0]), 2), (np.array([0.5]), 3))
def histogram_manual(data, bins):
    lo, hi = data.min(), data.max()
    counts = np.zeros(bins, dtype=np.int64)
    if hi == lo:
        counts[0] = len(data)
        return counts, lo, hi
    width = (hi - lo) / bins
    for v in data:
        idx = int((v - lo) / width)
        if idx == bins:
            idx -= 1
        counts[idx] += 1
    return counts, lo, hi


@program("numpy", (np.array([3.0, 1.0, 2.0, 1.0]),), (np.array([5.0, 5.0]),))
def normalize_in_place(x):
    s = x.sum()
    x /= s
    x[x < 0.2] = 0.0
    return x.argmax(), x


@program("numpy", (np.array([1.0, 2.0, 3.0]), jnp.array([0.5, 0.5, 0.5])),
         (np.array([1e-9, 1e9, 1.0]), jnp.array([1.0, 1.0, 1.0])))
def mixed_numpy_jax_dot(a64, b32):
    d_np = np.dot(a64, np.asarray(b32))
    d_j = jnp.dot(a64, b32)
    c = a64 * 2 + 1
    return d_np, d_j, c, c.dtype == np.float64


@program("numpy", (np.array([[1.0, 2.0], [3.0, 4.0]]),), (np.array([[0.0, 0.0], [0.0, 1.0]]),))
def standardize_columns_in_place(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd == 0] = 1.0
    X -= mu
    X /= sd
    return mu, sd


@program("numpy", (np.array([5, 3, 5, 1, 3]),), (np.array([2, 2, 2]),))
def argsort_ties_stable(a):
    order = np.argsort(a, kind="stable")
    ranks = np.empty_like(order)
    ranks[order] = np.arange(len(a))
    top = int(np.argmax(a))
    uniq, counts = np.unique(a, return_counts=True)
    return order, ranks, top, uniq, counts


@program("numpy", (np.array([1.0, np.nan, 3.0]),), (np.array([np.inf, -np.inf, 0.0]),), (np.array([1.0, 2.0]),))
def clean_nans(x):
    bad = ~np.isfinite(x)
    n_bad = int(bad.sum())
    if n_bad:
        x = x.copy()
        x[bad] = np.nanmean(np.where(np.isinf(x), np.nan, x)) if n_bad < len(x) else 0.0
    return x, n_bad


@program("numpy", (np.arange(10, dtype=np.int64),), (np.array([5, -3, 8], dtype=np.int64),))
def prefix_sums_and_diff(a):
    c = np.cumsum(a)
    out = np.empty(len(a) + 1, dtype=a.dtype)
    out[0] = 0
    out[1:] = c
    window = out[3:] - out[:-3] if len(a) >= 3 else None
    return out, window


def update_buffer(buf, x, pos):
    n = buf.shape[0]
    buf[pos % n] = x
    return (pos + 1) % n, buf.mean()


def _buf_step(x, pos):
    def step(fn, buf):
        r = fn(buf, x, pos)
        return r, buf.copy()
    return step


@stateful("numpy", [_buf_step(1.0, 0), _buf_step(2.0, 1), _buf_step(3.0, 7), _buf_step(np.float64(0.1), 2)])
def make_ring_buffer_in_place():
    return update_buffer, np.zeros(4)


@program("numpy", (np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]), 2),
         (np.eye(3), 1))
def game_of_life_steps(grid, steps):
    g = grid.copy()
    n, m = g.shape
    for _ in range(steps):
        new = np.zeros_like(g)
        for i in range(n):
            for j in range(m):
                s = g[max(i - 1, 0):i + 2, max(j - 1, 0):j + 2].sum() - g[i, j]
                if g[i, j] == 1 and s in (2, 3):
                    new[i, j] = 1
                elif g[i, j] == 0 and s == 3:
                    new[i, j] = 1
        g = new
    return g, int(g.sum())


@program("numpy", (np.array([1.0, 2.0, 3.0, 4.0]), 0.5), (np.array([10.0, 0.0]), 0.9))
def ema_float64(x, alpha):
    out = np.empty_like(x)
    acc = x[0]
    for i, v in enumerate(x):
        acc = alpha * v + (1 - alpha) * acc
        out[i] = acc
    return out, acc, type(acc).__name__


@program("numpy", (np.array([2, 7, 1, 8, 2, 8], dtype=np.int32),), (np.array([1, 1], dtype=np.int32),))
def int32_stats(a):
    mean = a.mean()
    var = a.var()
    med = np.median(a)
    big = a[a > mean]
    return mean, var, med, big, a.sum() // len(a), a.dtype.name


@program("numpy", (np.array([1.0, 2.0, 3.0]), jnp.array([1.0, 2.0, 3.0])), (np.array([0.0]), jnp.array([1.0])))
def assign_jax_into_numpy(buf, x):
    buf[:] = np.asarray(jnp.cumsum(x))
    buf[0] += 0.5
    return buf.sum(), buf.dtype
