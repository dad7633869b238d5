"""Control flow: early returns, break/continue, while/else, try/except/finally, raise, with, recursion."""

from __future__ import annotations

import contextlib
import math
import time

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

XA = jnp.array([0.5, -1.0, 2.0, 0.1])
XN = jnp.array([-0.5, -1.0, -2.0, -0.1])


class DataError(Exception):
    pass


@program("control", (XA,), (XN,), (jnp.array([1.0, jnp.nan, 0.0, 0.0]),))
def validate_then_compute(x):
    if jnp.isnan(x).any():
        raise DataError(f"{int(jnp.isnan(x).sum())} NaN value(s) in input")
    if (x < 0).all():
        return None
    return jnp.log1p(jnp.maximum(x, 0)).sum()


@program("control", (XA,), (XN,), (jnp.zeros(4),))
def safe_log_ratio(x):
    try:
        r = math.log(float(x.max()) / float(x.sum()))
    except ZeroDivisionError:
        r = float("inf")
    except ValueError as e:
        r = str(e)
    finally:
        done = True
    return r, done


@program("control", (jnp.array([1.0, 3.0, -2.0, 5.0]), 4.0), (jnp.array([1.0, 1.0, 1.0]), 10.0))
def first_exceeding(x, thresh):
    running = 0.0
    for i, v in enumerate(x):
        running += v
        if running > thresh:
            break
    else:
        return -1, running
    return i, running


@program("control", (jnp.array([1.0, -1.0, 2.0, -3.0, 4.0]),), (jnp.array([-1.0, -1.0]),))
def skip_negatives_continue(x):
    total = 0
    count = 0
    for v in x:
        if v < 0:
            continue
        total = total + v
        count += 1
    mean = total / count if count else float("nan")
    return total, count, mean


@program("control", (jnp.array(27),), (jnp.array(1),), (jnp.array(6),))
def collatz_steps(n):
    n = int(n)
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@program("control", (jnp.array(10.0), 0), (jnp.array(10.0), 3), (jnp.array(-1.0), 2))
def recursive_sqrt_refine(x, depth):
    def refine(g, d):
        if d == 0:
            return g
        return refine(0.5 * (g + x / g), d - 1)
    if x < 0:
        raise ValueError("x must be non-negative")
    return refine(x, depth)


class Timer:
    def __init__(self):
        self.entered = 0
        self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc):
        self.exited += 1
        return False


@program("control", (XA,), (XN,))
def with_timer_early_return(x):
    t = Timer()
    with t:
        y = jnp.cumsum(x)
        if y[-1] > 0:
            return y, t.entered, t.exited
        y = -y
    return y, t.entered, t.exited


@program("control", (XA,), (jnp.array([1.0, 2.0]),))
def suppress_index_error(x):
    vals = []
    with contextlib.suppress(IndexError):
        for i in range(5):
            vals.append(float(x[i]) if i < x.shape[0] else [][0])
    return vals


@program("control", (jnp.array([3.0, 1.0, 2.0]),), (jnp.array([1.0, 2.0, 3.0]),), (jnp.array([2.0, 2.0, 1.0]),))
def bubble_sort_with_swaps(x):
    a = [float(v) for v in x]
    swaps = 0
    n = len(a)
    while True:
        swapped = False
        for i in range(n - 1):
            if a[i] > a[i + 1]:
                a[i], a[i + 1] = a[i + 1], a[i]
                swapped = True
                swaps += 1
        if not swapped:
            break
    return a, swaps


@program("control", (jnp.array([0.9, 0.05, 0.05]),), (jnp.array([0.3, 0.3, 0.4]),), (jnp.array([0.0, 0.0, 0.0]),))
def entropy_with_guards(p):
    total = p.sum()
    assert total > 0, f"probabilities sum to {float(total)}"
    p = p / total
    h = 0.0
    for pi in p:
        if pi == 0:
            continue
        h -= pi * jnp.log2(pi)
    return h, "confident" if h < 1.0 else "uncertain"


@program("control", (jnp.array([4, 6, 9]),), (jnp.array([7, 13, 5]),))
def gcd_recursive(a):
    def gcd(x, y):
        return x if y == 0 else gcd(y, x % y)
    g = int(a[0])
    for v in a[1:]:
        g = gcd(g, int(v))
    return g, [int(v) // g for v in a]


@program("control", (XA, 0.5), (XA, 5.0), (XN, 0.5))
def while_else_search(x, target):
    lo, hi = 0, x.shape[0]
    srt = jnp.sort(x)
    while lo < hi:
        mid = (lo + hi) // 2
        if jnp.abs(srt[mid] - target) < 1e-6:
            found = mid
            break
        if srt[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    else:
        found = None
    return found, lo, hi


@program("control", (XA,), (XN,), (jnp.array([0.0, 0.0, 0.0, 0.0]),))
def nested_try_finally_counts(x):
    log = []
    def risky(v):
        try:
            if v == 0:
                raise ZeroDivisionError("zero")
            return 1.0 / v
        finally:
            log.append("risky")
    out = []
    for v in x:
        try:
            out.append(risky(v))
        except ZeroDivisionError as e:
            out.append(0.0)
            log.append(f"caught {e}")
    return jnp.stack(out), log


@program("control", (jnp.array([1, 2, 3]), "sum"), (jnp.array([1, 2, 3]), "prod"), (jnp.array([1, 2, 3]), "max"),
         (jnp.array([1, 2, 3]), "median"))
def dispatch_by_string(x, op):
    if op == "sum":
        r = x.sum()
    elif op == "prod":
        r = x.prod()
    elif op == "max":
        r = x.max()
    else:
        raise NotImplementedError(f"unknown reduction {op!r}")
    return r
