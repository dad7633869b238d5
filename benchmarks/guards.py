"""What the guards cost on a warm call: a model with a list of 24 layers and a
nested config dict, converted with ``to_static``, against ``jax.jit`` of the
same computation on the same call (issue 14: within 1.5x).

Every static value the converted graph read (the config's strings, flags and
numbers, the list of layers, each layer's attributes) is re-checked before
every call, and the 48 weights are read as graph inputs; ``jax.jit`` is given
the weights as one argument pytree and the config as a static closure (it
would not notice a change of either: that is the difference being priced).
A third column changes the config in place between calls (a list appended to
and popped) to show the content guard catches it and the graph comes back.

    .venv/bin/python benchmarks/guards.py [--reps 15] [--width 64]
"""

from __future__ import annotations

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import fmt_ratio, fmt_time, time_reps  # noqa: E402

from ast2graph import to_static  # noqa: E402


class Layer:
    def __init__(self, key: jax.Array, width: int):
        self.w = jax.random.normal(key, (width, width)) / np.sqrt(width)
        self.b = jnp.zeros(width)


class Model:
    def __init__(self, depth: int, width: int):
        keys = jax.random.split(jax.random.PRNGKey(0), depth)
        self.layers = [Layer(k, width) for k in keys]
        self.cfg = {"act": "tanh", "residual": True, "scales": [1.0, 0.5, 0.25],
                    "norm": {"eps": 1e-5, "enabled": True}}

    def __call__(self, x: jax.Array) -> jax.Array:
        scales = self.cfg["scales"]
        for i, layer in enumerate(self.layers):
            h = x @ layer.w + layer.b
            if self.cfg["act"] == "tanh":
                h = jnp.tanh(h)
            else:
                h = jax.nn.relu(h)
            if self.cfg["residual"]:
                x = x + scales[i % len(scales)] * h
            else:
                x = h
            if self.cfg["norm"]["enabled"]:
                x = x / (jnp.sqrt(jnp.mean(x * x)) + self.cfg["norm"]["eps"])
        return x


def hand_written(cfg: dict):
    """The same computation for jax.jit: weights as an argument, config static."""
    scales = list(cfg["scales"])

    def f(params, x):
        for i, (w, b) in enumerate(params):
            h = jnp.tanh(x @ w + b)
            x = x + scales[i % len(scales)] * h
            x = x / (jnp.sqrt(jnp.mean(x * x)) + cfg["norm"]["eps"])
        return x

    return jax.jit(f)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--depth", type=int, default=24)
    args = ap.parse_args(argv)

    model = Model(args.depth, args.width)
    x = jnp.ones((8, args.width))
    converted = to_static(model.__call__, full_graph=True)
    params = [(layer.w, layer.b) for layer in model.layers]
    jitted = hand_written(model.cfg)

    expected = np.asarray(model(x))
    for name, got in (("ast2graph", converted(x)), ("jax.jit", jitted(params, x))):
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-4, atol=1e-5, err_msg=name)

    def churn():
        model.cfg["scales"].append(2.0)   # seen by the content guard: a recompile
        y = converted(x)
        model.cfg["scales"].pop()         # and back: the first graph again
        return y

    t_conv, t_jit = time_reps([lambda: converted(x), lambda: jitted(params, x)], args.reps, 0.05)
    recompiles_before = converted.recompiles
    churn()
    np.testing.assert_allclose(np.asarray(converted(x)), expected, rtol=1e-4, atol=1e-5)
    print(f"model: {args.depth} layers of {args.width}x{args.width}, a nested config dict; x {tuple(x.shape)}; "
          f"jax {jax.__version__}, {jax.devices()[0].platform}")
    print(f"{'ast2graph warm call':<32}{fmt_time(t_conv):>12}")
    print(f"{'jax.jit (weights as argument)':<32}{fmt_time(t_jit):>12}")
    print(f"{'ratio ast2graph / jax.jit':<32}{fmt_ratio(t_conv / t_jit):>12}")
    print(f"in-place config change between calls: {converted.recompiles - recompiles_before} recompile(s), "
          f"result equal to eager after it ({converted.recompile_reasons[-1]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
