"""Timing, formatting and comparison helpers shared by the benchmark sections.

``run.py`` (the one benchmark command) and the section modules next to it
(``compile_time.py``, ``conversion.py``) all time with ``time_reps`` and
compare results with ``results_equal``: there is one copy of each.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from typing import Any, Callable

import jax
import numpy as np


def fmt_time(s: float | None) -> str:
    if s is None or s != s:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_ratio(r: float | None) -> str:
    if r is None or r != r:
        return "n/a"
    if r >= 100:
        return f"{r:.0f}x"
    if r >= 10:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


def fmt_bytes(n: float | None) -> str:
    if n is None:
        return "n/a"
    if n < 1024 ** 2:
        return f"{n / 1024:.0f} KiB"
    return f"{n / 1024 ** 2:.1f} MiB"


def block(x: Any) -> Any:
    return jax.block_until_ready(x)


def time_reps(fns: list[Callable[[], Any]], reps: int, min_rep_s: float) -> list[float]:
    """Median per-call time of each thunk; repetitions interleaved round-robin.

    Each thunk is called once to warm it, then once more to size the inner
    loop so that one repetition takes at least ``min_rep_s`` (every call is
    blocked on). Sizing on the warm call matters: a first call that compiles
    or takes a slower path would make the loop a few calls long, and short
    loops interleaved with other thunks' loops run on cold caches.
    """
    inner = []
    for fn in fns:
        block(fn())
        t0 = time.perf_counter()
        block(fn())
        dt = time.perf_counter() - t0
        inner.append(max(1, min(10_000, int(min_rep_s / max(dt, 1e-7)))))
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for k, fn in enumerate(fns):
            n = inner[k]
            t0 = time.perf_counter()
            for _ in range(n):
                block(fn())
            samples[k].append((time.perf_counter() - t0) / n)
    return [statistics.median(s) for s in samples]


def median_of(fn: Callable[[], float], reps: int) -> float:
    """Median of ``reps`` values returned by ``fn`` (a thunk that measures itself)."""
    return statistics.median(fn() for _ in range(reps))


def results_equal(a: Any, b: Any, rtol: float, atol: float) -> tuple[bool, str]:
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    if len(la) != len(lb):
        return False, f"structure {ta} vs {tb}"
    worst = 0.0
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape and x.size != y.size:
            return False, f"shape {x.shape} vs {y.shape}"
        x, y = x.reshape(-1), y.reshape(-1)
        if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
            return False, f"max abs diff {np.nanmax(diff):.3g}"
        if x.size and np.issubdtype(x.dtype, np.inexact):
            finite = np.isfinite(x) & np.isfinite(y)
            if finite.any():
                worst = max(worst, float(np.max(np.abs(x[finite].astype(np.complex128 if np.iscomplexobj(x) else np.float64)
                                                      - y[finite].astype(np.complex128 if np.iscomplexobj(y) else np.float64)))))
    return True, f"max abs diff {worst:.2g}"


def machine_lines() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    dev = jax.devices()[0]
    import jaxlib
    return [
        f"platform: {platform.platform()} ({platform.machine()}), {platform.processor() or 'cpu'}",
        f"CPUs: {os.cpu_count()} (usable by this process: {usable})",
        f"python {platform.python_version()}, jax {jax.__version__}, jaxlib {jaxlib.__version__}",
        f"device: {dev.platform} / {getattr(dev, 'device_kind', dev)} ({jax.device_count()} device(s))",
    ]


def linear_fit(xs: list[float], ys: list[float]) -> tuple[float, float, float]:
    """Least-squares ``y = a + b x``: (a, b, R²)."""
    x, y = np.asarray(xs, float), np.asarray(ys, float)
    b, a = np.polyfit(x, y, 1)
    pred = a + b * x
    ss_res = float(np.sum((y - pred) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return float(a), float(b), (1.0 - ss_res / ss_tot) if ss_tot else 1.0


def loglog_slope(xs: list[float], ys: list[float]) -> float:
    """The exponent k of ``y ~ x**k`` (least squares on logarithms)."""
    return float(np.polyfit(np.log(np.asarray(xs, float)), np.log(np.asarray(ys, float)), 1)[0])
