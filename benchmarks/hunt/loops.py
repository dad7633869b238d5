"""Long loops (rolled) with effects: appends, prints, raises and early exits
under traced conditions, state changing kind, try/finally with continue."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .registry import program

LONG = jnp.sin(jnp.arange(40.0))


@program("control", (LONG, 0.99), (LONG, 2.0), (-jnp.abs(LONG), 0.5))
def first_peak_index_or_none(x, thresh):
    for i in range(x.shape[0]):
        if x[i] > thresh:
            return i, x[i]
    return None


@program("control", (LONG,), (jnp.zeros(30),))
def positives_listed_in_long_loop(x):
    out = []
    for i in range(x.shape[0]):
        if x[i] > 0.9:
            out.append(i)
    return out, len(out)


@program("control", (LONG, 0.95), (LONG, 5.0))
def print_in_long_loop(x, thresh):
    n = 0
    for i in range(x.shape[0]):
        if x[i] > thresh:
            print(f"peak at {i}: {float(x[i]):.4f}")
            n += 1
    print("peaks:", n)
    return n


@program("control", (LONG, 0.999), (LONG, 0.9), (jnp.zeros(25), 0.5))
def raise_in_long_loop_after_appends(x, limit):
    seen = []
    for i in range(x.shape[0]):
        seen.append(i)
        if x[i] > limit:
            raise ValueError(f"too large at {i} after {len(seen)}")
    return len(seen)


@program("control", (LONG,), (jnp.full(30, 0.5),))
def try_finally_continue_counts(x):
    kept = 0
    visits = 0
    for v in x:
        try:
            if v < 0:
                continue
            kept += 1
        finally:
            visits += 1
    return kept, visits


@program("control", (jnp.array([0.5, 0.25, 0.125]),), (jnp.array([3.0, 1.0]),))
def while_sum_state_kind_changes(x):
    total = 0
    k = 0
    while total < 2 and k < 100:
        total += x[k % x.shape[0]]
        k += 1
    return total, k


def bisect(f, lo, hi, depth=0):
    mid = (lo + hi) / 2
    if depth == 30 or hi - lo < 1e-6:
        return mid, depth
    if f(mid) > 0:
        return bisect(f, lo, mid, depth + 1)
    return bisect(f, mid, hi, depth + 1)


@program("control", (2.0,), (10.0,), (0.5,))
def recursive_bisection_float(c):
    return bisect(lambda t: t * t - c, 0.0, max(c, 1.0))


@program("control", (jnp.array([[1.0, -1.0, 2.0], [0.5, 0.5, -3.0]]),), (jnp.ones((2, 3)),))
def nested_loops_continue_and_accumulate_tuple(M):
    pairs = []
    s = 0.0
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] < 0:
                continue
            s = s + M[i, j]
            pairs.append((i, j))
    return tuple(pairs), s


@program("control", (np.linspace(0.0, 1.0, 30),), (np.zeros(20),))
def numpy_long_loop_inplace_running_max(x):
    out = np.empty_like(x)
    best = -np.inf
    for i in range(len(x)):
        if x[i] > best:
            best = x[i]
        out[i] = best
    return out, best
