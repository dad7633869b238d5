"""What NumPy's RuntimeWarnings cost a graph's compile (issue 16's effects).

A converted graph of NumPy code computes the flags of NumPy's floating-point
warnings (divide by zero, overflow, invalid value) and issues eager's
warnings after the call. Each flag is a test on an op's operands or result;
compiled one by one, they made XLA write each tested result to memory and
compile a kernel per flag (a 4-5x longer compile for a small function).
Now the flags that leave the graph are packed as bits and reduced together,
what is known when tracing is folded, and domain errors (sqrt, log, ...) are
tested on the operand (``typeinfer/hostwarnings.py``).

Side by side in one run, interleaved, medians: the first call of a fresh
``to_static(f)`` (conversion, trace, XLA compile; JAX's caches cleared, no
persistent cache) with NumPy's warnings tracked (the default ``np.geterr()``)
and with them off (``np.errstate(all="ignore")``: no flags in the graph), and
the compile of ``jax.jit`` of the same function written with ``jax.numpy``.
Warm calls per run are timed too.

    .venv/bin/python benchmarks/warning_flags.py [--reps 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ["AST2GRAPH_NO_CACHE"] = "1"   # every compile is a compile

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import fmt_ratio, fmt_time, machine_lines, time_reps  # noqa: E402

from ast2graph import explain, to_static  # noqa: E402


def elementwise(x, y):
    z = x * 2.0 + y
    w = np.sqrt(z) / (y + 1.0)
    s = 0.0
    for i in range(3):
        s = s + np.log(w[i])
    return z - w, s


def softmax_xent(x, w, labels):
    logits = x @ w
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p = p / p.sum(axis=1, keepdims=True)
    return -np.log(p[np.arange(x.shape[0]), labels]).mean()


def newton_sqrt(a):
    x = a + 1.0
    for _ in range(8):   # unrolled: 8 divisions, each with its flags
        x = x - (x * x - a) / (2.0 * x)
    return x


def _jnp(fn):
    """The same function on jax.numpy (the hand-written side)."""
    def run(*args):
        saved = fn.__globals__["np"]
        fn.__globals__["np"] = jnp
        try:
            return fn(*args)
        finally:
            fn.__globals__["np"] = saved
    return run


def first_call(fn, args, ignore: bool) -> tuple[float, float]:
    """Seconds of a fresh converted function's first call, and of its XLA stage."""
    jax.clear_caches()
    with np.errstate(all="ignore") if ignore else np.errstate():
        t0 = time.perf_counter()
        e = explain(to_static(fn, full_graph=True))(*args)
        total = time.perf_counter() - t0
    return total, e.stage_seconds.get("jit", 0.0)


def hand_compile(fn, args) -> float:
    jax.clear_caches()
    lowered = jax.jit(_jnp(fn)).lower(*[jnp.asarray(a) for a in args])
    t0 = time.perf_counter()
    lowered.compile()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    cases = [
        ("elementwise (sqrt, /, log)", elementwise, (rng.random(256) + 0.5, rng.random(256))),
        ("softmax cross-entropy", softmax_xent, (rng.standard_normal((64, 16)), rng.standard_normal((16, 10)),
                                                 rng.integers(0, 10, 64))),
        ("newton sqrt, 8 steps", newton_sqrt, (rng.random(1024) + 1.0,)),
    ]
    for line in machine_lines():
        print(line)
    print(f"first call = conversion + trace + XLA compile; medians of {args.reps} interleaved repetitions\n")
    print(f"{'program':28} {'warnings on':>12} {'(compile)':>10} {'off':>10} {'(compile)':>10} {'on/off':>7} "
          f"{'jax.jit compile':>16} {'warm on/off':>12}")
    for name, fn, fargs in cases:
        on, off, hand = [], [], []
        for _ in range(args.reps):
            on.append(first_call(fn, fargs, False))
            off.append(first_call(fn, fargs, True))
            hand.append(hand_compile(fn, fargs))
        f_on = to_static(fn, full_graph=True)
        with np.errstate(all="ignore"):
            f_off = to_static(fn, full_graph=True)
            f_off(*fargs)
        f_on(*fargs)

        def run_off():
            with np.errstate(all="ignore"):
                return f_off(*fargs)
        warm = time_reps([lambda: f_on(*fargs), run_off], args.reps, 0.01)
        t_on, c_on = (statistics.median(x) for x in zip(*on))
        t_off, c_off = (statistics.median(x) for x in zip(*off))
        print(f"{name:28} {fmt_time(t_on):>12} {fmt_time(c_on):>10} {fmt_time(t_off):>10} {fmt_time(c_off):>10} "
              f"{fmt_ratio(t_on / t_off):>7} {fmt_time(statistics.median(hand)):>16} "
              f"{fmt_ratio(warm[0] / warm[1]):>12}")


if __name__ == "__main__":
    main()
