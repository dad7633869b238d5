"""A Flax NNX model with ``@to_static`` on its ``__call__``: ``nnx.Linear``,
``nnx.BatchNorm``, ``nnx.Dropout`` (an ``nnx.Rngs`` stream) and
``nnx.LayerNorm`` layers in an ``nnx.List``, a call counter in an
``nnx.Variable``, and a branch on a traced value:

    self.calls[...] += 1                         # state written by the converted code
    for block in self.blocks:                    # unrolled: a static nnx.List
        x = block(x)                             # BatchNorm statistics, the dropout rng: written by flax
    logits = self.head(self.norm(x))
    if jnp.max(jnp.abs(logits)) > self.clip:     # traced: lax.cond
        logits = self.clip * jnp.tanh(logits / self.clip)

Every call is one graph. The model's state (weights, running statistics,
the rng stream's count, the counter) is read from the model on every call
and what the call changes is written back into it after the call, as eager
flax does it: the eager and the converted model, built from the same seeds,
agree after every call in outputs and in every piece of state, in training
mode and after ``model.eval()`` (which re-specialises: BatchNorm then uses
its running averages, Dropout does nothing). A whole training step,
``nnx.value_and_grad`` of a loss and an optax optimizer's update, converted
the same way, is one graph too, and is compared with eager and with
``nnx.jit`` of the same step.

Run: ``python examples/flax_nnx_model.py``.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from ast2graph import explain, to_static
from common import compare_trees, print_report
from timing import median_time


class Block(nnx.Module):
    def __init__(self, d, d_ff, rate, rngs):
        self.lin1 = nnx.Linear(d, d_ff, rngs=rngs)
        self.bn = nnx.BatchNorm(d_ff, momentum=0.9, rngs=rngs)
        self.drop = nnx.Dropout(rate, rngs=rngs)
        self.lin2 = nnx.Linear(d_ff, d, rngs=rngs)

    def __call__(self, x):
        h = self.drop(jax.nn.relu(self.bn(self.lin1(x))))
        return x + self.lin2(h)


class Classifier(nnx.Module):
    def __init__(self, d_in, d, d_ff, depth, n_out, rngs, rate=0.2, clip=3.0):
        self.embed = nnx.Linear(d_in, d, rngs=rngs)
        self.blocks = nnx.List([Block(d, d_ff, rate, rngs) for _ in range(depth)])
        self.norm = nnx.LayerNorm(d, rngs=rngs)
        self.head = nnx.Linear(d, n_out, rngs=rngs)
        self.calls = nnx.Variable(jnp.array(0, jnp.int32))
        self.clip = clip

    @to_static(full_graph=True)
    def __call__(self, x):
        self.calls[...] += 1
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.norm(x))
        if jnp.max(jnp.abs(logits)) > self.clip:    # soft-clip only when needed
            logits = self.clip * jnp.tanh(logits / self.clip)
        return logits


eager_call = Classifier.__call__.__wrapped__   # the undecorated method: the eager model


def state_of(obj) -> dict:
    """Every piece of state as plain arrays (an rng key as its key data)."""
    out = {}
    for path, v in nnx.to_flat_state(nnx.state(obj)):
        value = v.get_value()
        if jnp.issubdtype(value.dtype, jax.dtypes.prng_key):
            value = jax.random.key_data(value)
        out["/".join(map(str, path))] = np.asarray(value)
    return out


def loss_fn(model, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(model(x), y).mean()


def eager_loss_fn(model, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(eager_call(model, x), y).mean()


def train_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(loss_fn)(model, x, y)   # the converted model, differentiated
    optimizer.update(model, grads)
    return loss


def eager_train_step(model, optimizer, x, y):
    loss, grads = nnx.value_and_grad(eager_loss_fn)(model, x, y)
    optimizer.update(model, grads)
    return loss


def make(d_in, d, d_ff, depth, n_out, lr):
    model = Classifier(d_in, d, d_ff, depth, n_out, nnx.Rngs(params=0, dropout=1))
    return model, nnx.Optimizer(model, optax.sgd(lr, momentum=0.9), wrt=nnx.Param)


def same_sequence(label, run_eager, run_static, calls, world_eager, world_static, show_explain):
    """The same calls on two worlds built alike: results and state after each call."""
    worst, ok, why = 0.0, True, ""
    for k in range(calls):
        want = run_eager()
        got = run_static()
        for a, b in ((want, got), ([state_of(o) for o in world_eager], [state_of(o) for o in world_static])):
            equal, diff, reason = compare_trees(a, b, rtol=1e-4, atol=1e-5)
            ok, worst, why = ok and equal, max(worst, diff), why or (reason and f"call {k}: {reason}")
    print(label)
    print(f"  eager == to_static: {ok} (outputs and state after each of {calls} calls; max abs diff {worst:.2e}"
          f"{'; ' + why if why else ''})")
    return ok


def main(batch=64, d_in=16, d=64, d_ff=128, depth=3, n_out=10, calls=3, repeat=20) -> int:
    kx, ky = jax.random.split(jax.random.PRNGKey(0))
    x = jax.random.normal(kx, (batch, d_in)) * jnp.linspace(0.1, 4.0, batch)[:, None]
    y = jax.random.randint(ky, (batch,), 0, n_out)
    print(f"Flax NNX model: {depth} blocks (nnx.Linear/BatchNorm/Dropout), nnx.LayerNorm, d={d}, d_ff={d_ff}, "
          f"batch={batch}; @to_static on Classifier.__call__")
    dims = (d_in, d, d_ff, depth, n_out, 0.05)
    (m_e, o_e), (m_s, o_s) = make(*dims), make(*dims)
    ok = True
    for mode in ("train", "eval"):
        if mode == "eval":
            m_e.eval()
            m_s.eval()
        print()
        ok &= same_sequence(f"[{mode} mode: model(x), {calls} calls]", lambda: eager_call(m_e, x), lambda: m_s(x),
                            calls, [m_e], [m_s], mode == "train")
        e = explain(Classifier.__call__)(m_s, x)
        eager_call(m_e, x)
        print("  " + str(e).replace("\n", "\n  ") if mode == "train" else f"  graphs run: {e.graph_count}; "
              f"fallback sites: {len(e.fallback_sites)}")
        ok &= e.graph_count == 1 and not e.fallback_sites
        t_eager = median_time(lambda: eager_call(m_e, x), repeat=repeat)
        t_static = median_time(lambda: m_s(x), repeat=repeat)
        print(f"  eager call:      {t_eager * 1e3:9.3f} ms (median of {repeat})")
        print(f"  to_static call:  {t_static * 1e3:9.3f} ms (median of {repeat}; {t_eager / t_static:.1f}x "
              f"{'faster' if t_static < t_eager else 'slower'})")
        m_e.train()
        m_s.train()

    print()
    (m_e, o_e), (m_s, o_s), (m_j, o_j) = make(*dims), make(*dims), make(*dims)
    static_step = to_static(train_step, full_graph=True)
    ok &= same_sequence(f"[training step: nnx.value_and_grad + optax SGD update, {calls} steps]",
                        lambda: eager_train_step(m_e, o_e, x, y), lambda: static_step(m_s, o_s, x, y),
                        calls, [m_e, o_e], [m_s, o_s], False)
    e = explain(static_step)(m_s, o_s, x, y)
    eager_train_step(m_e, o_e, x, y)
    print(f"  graphs run: {e.graph_count}; fallback sites: {len(e.fallback_sites)}")
    ok &= e.graph_count == 1 and not e.fallback_sites
    jit_step = nnx.jit(train_step)
    t0 = time.perf_counter()
    jax.block_until_ready(jit_step(m_j, o_j, x, y))
    first = time.perf_counter() - t0
    t_eager = median_time(lambda: eager_train_step(m_e, o_e, x, y), repeat=3)
    t_static = median_time(lambda: static_step(m_s, o_s, x, y), repeat=repeat)
    t_jit = median_time(lambda: jit_step(m_j, o_j, x, y), repeat=repeat)
    print(f"  eager step:      {t_eager * 1e3:9.3f} ms (median of 3)")
    print(f"  to_static step:  {t_static * 1e3:9.3f} ms (median of {repeat}; {t_eager / t_static:.1f}x faster than eager)")
    print(f"  nnx.jit step:    {t_jit * 1e3:9.3f} ms (median of {repeat}; first call {first * 1e3:.0f} ms)")
    print()
    print_report(__file__, ["Classifier.__call__", "Block.__call__", "train_step"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
