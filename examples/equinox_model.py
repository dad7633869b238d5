"""An Equinox model with ``@to_static`` on its ``__call__``: ``eqx.nn.Linear``
and ``eqx.nn.LayerNorm`` sub-layers, an optional final norm (``None`` or a
layer), a loop over its blocks, and a branch on a traced value:

    for block in self.blocks:                    # unrolled: a static list
        x = block(x)
    if self.norm is not None:                    # pruned: decided per model
        x = self.norm(x)
    logits = self.head(x)
    if jnp.max(jnp.abs(logits)) > self.clip:     # traced: lax.cond
        logits = self.clip * jnp.tanh(logits / self.clip)

The model takes one example, as Equinox layers do; the loss batches it with
``jax.vmap(model)`` outside (the traced ``if`` becomes a select per
example). The module is a pytree argument (``self``), so its weights are
graph inputs and ``eqx.filter_grad`` differentiates through the converted
call. Eager Python can neither be vmapped nor differentiated through the
traced ``if``: the eager loss loops over the examples in Python, and the
gradient is checked against central finite differences of it.

Run: ``python examples/equinox_model.py``.
"""

from __future__ import annotations

import time

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from common import compare, compare_trees, print_report
from timing import median_time


class Block(eqx.Module):
    lin1: eqx.nn.Linear
    lin2: eqx.nn.Linear
    norm: eqx.nn.LayerNorm

    def __init__(self, d, d_ff, key):
        k1, k2 = jax.random.split(key)
        self.lin1 = eqx.nn.Linear(d, d_ff, key=k1)
        self.lin2 = eqx.nn.Linear(d_ff, d, key=k2)
        self.norm = eqx.nn.LayerNorm(d)

    def __call__(self, x):                       # x: (d,), one example
        h = self.lin2(jax.nn.gelu(self.lin1(self.norm(x))))
        return x + h


class Net(eqx.Module):
    blocks: list
    norm: eqx.nn.LayerNorm | None
    head: eqx.nn.Linear
    clip: float = eqx.field(static=True)

    def __init__(self, d, d_ff, depth, n_out, key, final_norm=True, clip=3.0):
        keys = jax.random.split(key, depth + 1)
        self.blocks = [Block(d, d_ff, k) for k in keys[:-1]]
        self.norm = eqx.nn.LayerNorm(d) if final_norm else None
        self.head = eqx.nn.Linear(d, n_out, key=keys[-1])
        self.clip = clip

    @to_static
    def __call__(self, x):
        for block in self.blocks:
            x = block(x)
        if self.norm is not None:
            x = self.norm(x)
        logits = self.head(x)
        if jnp.max(jnp.abs(logits)) > self.clip:    # soft-clip only when needed
            logits = self.clip * jnp.tanh(logits / self.clip)
        return logits


eager_call = Net.__call__.__wrapped__   # the undecorated method: the eager model


def logits_before_clip(model, x):
    """Eager, up to the traced ``if``: shows which branch a call takes."""
    for block in model.blocks:
        x = block(x)
    if model.norm is not None:
        x = model.norm(x)
    return model.head(x)


def loss(model, xs, ys):
    return jnp.mean((jax.vmap(model)(xs) - ys) ** 2)


def eager_loss(model, xs, ys):
    return jnp.mean((jnp.stack([eager_call(model, x) for x in xs]) - ys) ** 2)


def directional_check(model, x, y, grads, n=3, eps=1e-3):
    """<grad, v> against a central difference of the eager loss along random directions v."""
    params, static = eqx.partition(model, eqx.is_inexact_array)
    leaves, treedef = jax.tree_util.tree_flatten(params)
    gleaves = jax.tree_util.tree_leaves(eqx.filter(grads, eqx.is_inexact_array))
    worst = 0.0
    for k in range(n):
        keys = jax.random.split(jax.random.PRNGKey(100 + k), len(leaves))
        v = [jax.random.normal(kk, p.shape) for kk, p in zip(keys, leaves)]
        at = lambda s: eqx.combine(jax.tree_util.tree_unflatten(treedef, [p + s * eps * d for p, d in zip(leaves, v)]), static)  # noqa: E731
        fd = (float(eager_loss(at(1.0), x, y)) - float(eager_loss(at(-1.0), x, y))) / (2 * eps)
        dot = float(sum(jnp.vdot(g, d) for g, d in zip(gleaves, v)))
        worst = max(worst, abs(fd - dot) / max(1.0, abs(fd)))
    return worst


def main(batch=32, d=64, d_ff=128, depth=4, n_out=8, repeat=20) -> int:
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    models = {"final norm": Net(d, d_ff, depth, n_out, k1, final_norm=True, clip=1.0),
              "no final norm": Net(d, d_ff, depth, n_out, k1, final_norm=False, clip=3.0)}
    xb = jax.random.normal(k2, (batch, d)) * jnp.linspace(0.1, 10.0, batch)[:, None]
    ys = jax.random.normal(k3, (batch, n_out))
    print(f"Equinox model: {depth} blocks (eqx.nn.Linear/LayerNorm), d={d}, d_ff={d_ff}; @to_static on Net.__call__")
    ok, taken = True, []
    for name, model in models.items():
        # the examples with the smallest and the largest logits (eager): both sides of the traced `if`
        peaks = [float(jnp.max(jnp.abs(logits_before_clip(model, x)))) for x in xb]
        for n, k in enumerate((int(np.argmin(peaks)), int(np.argmax(peaks)))):
            x = xb[k]
            print()
            c = compare(f"[{name}, example {k}: model(x)]", eager_call, Net.__call__, model, x,
                        repeat=repeat, rtol=1e-4, atol=1e-5, show_explain=(n == 0))
            ok = ok and c.ok
            taken.append(bool(jnp.max(jnp.abs(logits_before_clip(model, x))) > model.clip))
            print(f"  soft-clip branch taken: {taken[-1]}")

    model = models["no final norm"]
    print()
    print(f"[eqx.filter_grad of a loss over a batch of {batch}: jax.vmap(model)(xs) inside]")
    grad_fn = eqx.filter_grad(loss)
    t0 = time.perf_counter()
    grads = jax.block_until_ready(grad_fn(model, xb, ys))
    first = time.perf_counter() - t0
    rel = directional_check(model, xb, ys, grads)
    grad_ok = rel < 2e-2
    same_loss, diff, _ = compare_trees(eager_loss(model, xb, ys), loss(model, xb, ys), rtol=1e-4, atol=1e-5)
    t_grad = median_time(lambda: grad_fn(model, xb, ys), repeat=repeat)
    jit_grad = eqx.filter_jit(grad_fn)
    t_jit = median_time(lambda: jit_grad(model, xb, ys), repeat=repeat)
    t_eager_loss = median_time(lambda: eager_loss(model, xb, ys), repeat=3)
    t_loss = median_time(lambda: loss(model, xb, ys), repeat=repeat)
    print(f"  loss: eager (a Python loop over the batch) == to_static under jax.vmap: {same_loss} (max abs diff {diff:.2e})")
    print(f"  gradient vs central differences of the eager loss (3 random directions): "
          f"worst relative error {rel:.1e}: {grad_ok}")
    print(f"  eager loss (forward only):               {t_eager_loss * 1e3:9.3f} ms (median of 3)")
    print(f"  loss with jax.vmap(converted model):     {t_loss * 1e3:9.3f} ms (median of {repeat})")
    print(f"  eqx.filter_grad(loss):                   {t_grad * 1e3:9.3f} ms (median of {repeat}; first call {first * 1e3:.0f} ms)")
    print(f"  eqx.filter_jit(eqx.filter_grad(loss)):   {t_jit * 1e3:9.3f} ms (median of {repeat})")
    print()
    print_report(__file__, ["Net.__call__", "Block.__call__"])
    return 0 if ok and grad_ok and same_loss and set(taken) == {True, False} else 1


if __name__ == "__main__":
    raise SystemExit(main())
