"""Aliasing and in-place writes: NumPy views (slices, reshape, ravel, rows bound
before the base is written), lists and dicts holding arrays, ``+=`` on NumPy
arrays, jax arrays, lists and ints in dicts."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


@program("aliasing", (A.copy(),), (-A.copy(),), (np.eye(3),))
def row_bound_then_base_scaled(M):
    first = M[0]
    total_before = first.sum()
    M *= 2.0
    M[1:] -= M[0]
    return first.sum() - total_before, first, M


@program("aliasing", (np.arange(6.0).reshape(2, 3),), (np.ones((3, 2)),))
def reshape_view_zero_every_other(x):
    flat = x.reshape(-1)
    flat[::2] = 0.0
    n_zero = int((x == 0).sum())
    return x, n_zero, flat.base is x


@program("aliasing", (np.arange(6.0).reshape(2, 3),), (np.arange(4.0).reshape(2, 2) - 1,))
def ravel_of_transpose_is_a_copy(x):
    t = x.T
    f = t.ravel()
    f[0] = 99.0
    g = x.ravel()
    g[-1] = -1.0
    return x, f, g


@program("aliasing", (np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),), (np.zeros((2, 2)),))
def list_of_rows_sees_later_write(X):
    rows = [X[i] for i in range(X.shape[0])]
    X += 1.0
    X[0, 0] = 100.0
    acc = np.zeros(X.shape[1])
    for r in rows:
        acc = acc + r
    return acc, rows[0][0]


@program("aliasing", (np.array([1.0, 2.0, 3.0]), jnp.array([1.0, 2.0, 3.0])),
         (np.array([0.5]), jnp.array([0.5])))
def iadd_numpy_alias_vs_jax_rebind(a_np, a_j):
    b_np = a_np
    b_np += 1.0
    b_j = a_j
    b_j += 1.0
    return a_np, b_np, a_j, b_j, b_np is a_np, b_j is a_j


@program("aliasing", (np.array([1.0, 2.0, 3.0]),), (np.array([-1.0, 4.0]),))
def list_iadd_extends_shared_list(x):
    history = [x[0]]
    alias = history
    alias += [x[-1]]
    alias = alias + [x.sum()]
    history.append(len(alias))
    return history, alias, alias is history


@program("aliasing", (jnp.array([3, 1, 3, 2, 3, 1]),), (jnp.array([0, 0]),), (jnp.array([5]),))
def dict_int_counts_iadd(labels):
    counts = {}
    for v in labels:
        k = int(v)
        if k not in counts:
            counts[k] = 0
        counts[k] += 1
    top = max(counts, key=counts.get)
    return counts, top, sum(counts.values())


@program("aliasing", (np.array([[1.0, 2.0], [3.0, 4.0]]),), (np.array([[5.0, 6.0], [7.0, 8.0], [9.0, 0.0]]),))
def swap_rows_tuple_assign_views(A):
    A[0], A[1] = A[1], A[0]
    B = A.copy()
    B[[0, 1]] = B[[1, 0]]
    return A, B


@program("aliasing", (np.arange(1.0, 6.0),), (np.array([2.0, -2.0, 2.0]),))
def overlapping_slice_inplace(a):
    b = a.copy()
    a[1:] += a[:-1]
    b[1:] = b[:-1]
    return a, b


@program("aliasing", (np.array([1.0, 2.0, 3.0]),), (np.array([4.0, 4.0]),))
def same_buffer_repeated_in_list(x):
    bufs = [np.zeros(len(x))] * 3
    fresh = [np.zeros(len(x)) for _ in range(3)]
    for i in range(3):
        bufs[i][i % len(x)] += x[i % len(x)]
        fresh[i][i % len(x)] += x[i % len(x)]
    return bufs[0], fresh[0], sum(b.sum() for b in bufs)


@program("aliasing", (np.array([1.0, 2.0, 3.0, 4.0]),), (np.array([0.0, 0.0]),))
def prev_is_cur_bug_kept(x):
    cur = x.copy()
    prev = cur
    diffs = []
    for _ in range(3):
        prev = cur
        cur[:] = cur * 0.5 + 1.0
        diffs.append(float(np.abs(cur - prev).max()))
    return cur, diffs


@program("aliasing", (np.array([1.0, -2.0, 3.0, -4.0]),), (np.array([-1.0, -1.0]),))
def masked_inplace_with_mean_before(x):
    m = x.mean()
    x[x > 0] -= m
    x[x <= 0] *= 2
    return x, m


@program("aliasing", (np.array([1.0, 2.0, 3.0]),), (np.array([0.0]),))
def broadcast_to_is_read_only(x):
    b = np.broadcast_to(x, (2, len(x)))
    s = b.sum()
    try:
        b[0, 0] = 5.0
        wrote = True
    except ValueError as e:
        wrote = str(e)
    return s, wrote


@program("aliasing", (np.array([3.0, 1.0, 2.0]), np.zeros(4)), (np.array([1.0]), np.ones(2)))
def ufunc_out_into_slice(a, buf):
    np.multiply(a, 2.0, out=buf[1:len(a) + 1])
    np.add(buf, 1.0, out=buf)
    return buf


def _write_cache(cache, key, value):
    cache[key] = value
    return cache


@program("aliasing", (jnp.array([1.0, 2.0]),), (jnp.array([-3.0, 0.5]),))
def dict_passed_to_helper_mutated(x):
    cache = {"scale": 1.0}
    view = cache
    out = _write_cache(view, "scale", float(x.max()))
    _write_cache(cache, "shift", x.min())
    del cache["scale"]
    cache["scale"] = 2.0
    return x * out["scale"] + cache["shift"], list(cache), out is cache


SHARED_BUF = np.zeros(3)


def accumulate_into_global(x):
    view = SHARED_BUF[:2]
    view += x[:2]
    SHARED_BUF[2] = SHARED_BUF[:2].sum()
    return SHARED_BUF.copy(), view


def _acc(x):
    def step(fn, _):
        return fn(x), SHARED_BUF.copy()
    return step


def _zero_then(x):
    def step(fn, _):
        SHARED_BUF[:] = 0.0
        return fn(x), SHARED_BUF.copy()
    return step


@stateful("aliasing", [_acc(np.array([1.0, 2.0, 3.0])), _acc(np.array([1.0, 2.0, 3.0])),
                       _zero_then(np.array([5.0, -1.0, 0.0])), _acc(np.array([0.5, 0.5, 0.5]))])
def make_global_buffer_view_iadd():
    SHARED_BUF[:] = 0.0
    return accumulate_into_global, None


def normalize_stats(batch, stats={"n": 0, "mean": 0.0}):
    stats["n"] += 1
    stats["mean"] += (float(batch.mean()) - stats["mean"]) / stats["n"]
    return batch - stats["mean"], dict(stats)


def _ns(x):
    def step(fn, _):
        return fn(x)
    return step


def _ns_reset(x):
    def step(fn, _):
        normalize_stats.__defaults__[0]["n"] = 0
        normalize_stats.__defaults__[0]["mean"] = 0.0
        return fn(x)
    return step


@stateful("aliasing", [_ns(jnp.array([1.0, 3.0])), _ns(jnp.array([5.0, 7.0])), _ns(jnp.array([0.0, 0.0])),
                       _ns_reset(jnp.array([2.0, 2.0])), _ns(jnp.array([4.0, 4.0]))])
def make_default_dict_running_mean():
    normalize_stats.__defaults__[0]["n"] = 0
    normalize_stats.__defaults__[0]["mean"] = 0.0
    return normalize_stats, None


@program("aliasing", (np.arange(12.0).reshape(3, 4),), (np.ones((2, 2)),))
def column_view_through_helper(M):
    col = M[:, 1]
    col *= -1
    d = np.diagonal(M)
    try:
        d[0] = 0.0
    except ValueError as e:
        return M, str(e)
    return M, "wrote"


@program("aliasing", (jnp.array([1.0, 2.0, 3.0]),), (jnp.array([4.0]),))
def jax_array_in_list_updated_by_at(x):
    params = [x, x * 2]
    grads = params
    params[0] = params[0].at[0].set(-1.0)
    grads = [g + 1 for g in grads]
    return params, grads, x


@program("aliasing", (np.array([3.0, 1.0, 4.0, 1.0, 5.0]),), (np.array([2.0, -2.0]),))
def prefix_sum_in_place_enumerate(x):
    for i, v in enumerate(x[:-1]):
        x[i + 1] += v
    return x, x[-1]


@program("aliasing", (np.array([1.0, 2.0, 3.0]),), (np.array([0.5, 0.5, 0.5, 0.5]),))
def iterator_pulled_after_write(x):
    it = iter(x)
    first = next(it)
    x[1:] = x[1:] * 10
    rest = [v for v in it]
    return first, rest
