"""``x / max(n, 1)`` of a traced Python int needs no zero-division check: the
divisor's range excludes 0 (``INT_RANGE``), so it stays one graph even where a
run-time check could not raise (in a segment that writes state). A divisor
that may be 0 keeps eager's ZeroDivisionError.

Each case is compared with the eager run of the same function.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from helpers import check, check_sequence


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, ys):
        i = 0
        while i < ys.shape[0] and ys[i] >= 0:
            self.total += ys[i]
            self.count += 1
            i += 1
        return self.total / max(self.count, 1), self.total / min(-1, -self.count)


YS = jnp.array([0.5, 2.0, -1.0, 3.0])


def test_mean_over_max_count_is_one_graph():
    def make():
        m = RunningMean()
        return m.update, m

    steps = [lambda f, m, s=s: (f(YS * s), m.total, m.count) for s in (1.0, -1.0, 2.0)]
    check_sequence(make, steps, full_graph=True)


def test_divisor_that_may_be_zero_raises_as_eager():
    def f(x):
        n = int((x > 0).sum())
        return 1.0 / max(n, 0), 1.0 / min(n, 5)

    check(f, jnp.array([-1.0, -2.0]), full_graph=False)
    check(f, jnp.array([1.0, -2.0]), full_graph=False)
