"""What rounding each op as eager does costs (``exact_rounding``).

By default a converted graph rounds a product before the add or subtract that
uses it, as eager does op by op, and keeps a division from being rewritten
across the ops that made its operands (README, "Fused multiply-add"); XLA on
its own contracts a product and a sum into one fused multiply-add. Four
programs, each timed side by side in one run (interleaved repetitions,
medians): ``to_static(f)`` (the default), ``to_static(f, exact_rounding=False)``
and ``jax.jit(f)``; the last
columns say whether each result is eager's bit for bit.

    .venv/bin/python benchmarks/exact_rounding.py [--reps 15] [--n 2000000]
"""

from __future__ import annotations

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import fmt_ratio, fmt_time, machine_lines, time_reps  # noqa: E402

from ast2graph import to_static  # noqa: E402


def horner(coeffs, x):
    acc = jnp.zeros_like(x)
    for i in range(coeffs.shape[0]):   # 12 products, each summed
        acc = acc * x + coeffs[i]
    return acc


def elementwise(x, y):
    return jnp.tanh(x * y + 1.0) * x - jnp.exp(-y * y) * 0.5 + x * x


def layer_norm(x, g, b):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * jax.lax.rsqrt(v + 1e-5) * g + b


def mlp(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2 + x


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--n", type=int, default=2_000_000)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal(args.n), jnp.float32)
    rows = args.n // 512
    cases = [
        ("Horner, 12 coefficients", horner, (jnp.asarray(rng.standard_normal(12), jnp.float32), x)),
        ("tanh/exp elementwise", elementwise, (x, x[::-1])),
        (f"layer norm {rows}x512", layer_norm, (x[:rows * 512].reshape(rows, 512), jnp.ones(512), jnp.zeros(512))),
        ("MLP 512x512 + residual", mlp, (x[:512 * 512].reshape(512, 512),
                                         jnp.asarray(rng.standard_normal((512, 512)) / 23, jnp.float32),
                                         jnp.asarray(rng.standard_normal((512, 512)) / 23, jnp.float32))),
    ]
    print("\n".join(machine_lines()))
    print("\n| program | default | exact_rounding=False | jax.jit | default / exact_rounding=False "
          "| default == eager | exact_rounding=False == eager |")
    print("|---|---|---|---|---|---|---|")
    for name, fn, fargs in cases:
        exact, fast, jitted = to_static(fn, full_graph=True), to_static(fn, full_graph=True, exact_rounding=False), jax.jit(fn)
        eager = np.asarray(fn(*fargs))
        same = bool(np.array_equal(np.asarray(exact(*fargs)), eager))
        same_fast = bool(np.array_equal(np.asarray(fast(*fargs)), eager))
        t_exact, t_fast, t_jit = time_reps([lambda: exact(*fargs), lambda: fast(*fargs), lambda: jitted(*fargs)],
                                           args.reps, 0.05)
        print(f"| {name} | {fmt_time(t_exact)} | {fmt_time(t_fast)} | {fmt_time(t_jit)} | "
              f"{fmt_ratio(t_exact / t_fast)} | {same} | {same_fast} |")


if __name__ == "__main__":
    main()
