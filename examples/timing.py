"""Timing helper shared by the examples: warm median of blocking calls."""

from __future__ import annotations

import time

import jax
import numpy as np


def median_time(fn, *args, repeat: int = 20) -> float:
    """Median seconds of ``repeat`` warm calls, each waited for."""
    jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        times.append(time.perf_counter() - t0)
    return float(np.median(times))
