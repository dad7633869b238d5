"""An RNN that stops early once its state has converged, and training it:

    while t < T and not done:                       # a traced condition
        h_new = cell(h, xs[t])
        done = jnp.max(jnp.abs(h_new - h)) < tol    # traced convergence test
        h, t = h_new, t + 1

``to_static(run)`` makes the loop one ``lax.while_loop``. JAX cannot
reverse-differentiate a ``while_loop``, so the loss for ``jax.grad`` is
converted with ``to_static(loss, max_iters=T)``: the loop becomes a
``lax.scan`` of T steps that runs the body only while the condition holds.
Eager Python cannot be ``jax.grad``-ed here (``not done`` needs a concrete
value); the gradient is checked against ``jax.grad`` of the same cell
applied the number of times eager ran it (a plain Python loop) and against
a central finite difference of the eager loss.

Run: ``python examples/rnn_early_stop.py``.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import explain, to_static
from common import compare, compare_trees, print_report
from timing import median_time


def init_params(key, n_in, hidden, n_out):
    k1, k2, k3 = jax.random.split(key, 3)
    return {
        "w": jax.random.normal(k1, (hidden, hidden)) * (0.5 / np.sqrt(hidden)),
        "u": jax.random.normal(k2, (n_in, hidden)) / np.sqrt(n_in),
        "b": jnp.zeros(hidden),
        "v": jax.random.normal(k3, (hidden, n_out)) / np.sqrt(hidden),
    }


def cell(params, h, x):
    return jnp.tanh(h @ params["w"] + x @ params["u"] + params["b"])


def run(params, xs, h0, tol=1e-4):
    """The final state and how many steps ran (stops when the state settles)."""
    T = xs.shape[0]
    h = h0
    t = 0
    done = False
    while t < T and not done:
        h_new = cell(params, h, xs[t])
        done = jnp.max(jnp.abs(h_new - h)) < tol
        h = h_new
        t += 1
    return h, t


def loss(params, xs, h0, target):
    h, _ = run(params, xs, h0)
    return jnp.sum((h @ params["v"] - target) ** 2)


def loss_unrolled(params, xs, h0, target, steps):
    """``loss`` with the trip count given: plain Python, differentiable by jax.grad."""
    h = h0
    for t in range(steps):
        h = cell(params, h, xs[t])
    return jnp.sum((h @ params["v"] - target) ** 2)


def inputs(key, T, n_in, hidden, n_out):
    k1, k2, k3 = jax.random.split(key, 3)
    decay = jnp.exp(-jnp.arange(T) / (T / 20))[:, None]   # inputs fade: the state settles
    xs = jax.random.normal(k1, (T, n_in)) * decay + 0.3
    return xs, jax.random.normal(k2, (hidden,)) * 0.1, jax.random.normal(k3, (n_out,))


def main(T=400, n_in=16, hidden=64, n_out=4, repeat=20) -> int:
    params = init_params(jax.random.PRNGKey(0), n_in, hidden, n_out)
    xs, h0, target = inputs(jax.random.PRNGKey(1), T, n_in, hidden, n_out)
    print(f"RNN with early stopping: T={T}, {n_in} inputs, hidden {hidden}")
    print()
    forward = compare("[forward: run(params, xs, h0)]", run, to_static(run, full_graph=True), params, xs, h0,
                      repeat=repeat)
    steps = forward.explanation.result[1]
    _, eager_steps = run(params, xs, h0)
    print(f"  steps run before the state settled: {steps} of {T} (eager: {eager_steps})")

    # ------------------------------------------------------------ jax.grad
    print()
    print(f"[jax.grad of the loss through the early-stopping loop: to_static(loss, max_iters={T})]")
    grad_static = jax.grad(to_static(loss, full_graph=True, max_iters=T))
    e = explain(to_static(loss, full_graph=True, max_iters=T))(params, xs, h0, target)
    t0 = time.perf_counter()
    got = jax.block_until_ready(grad_static(params, xs, h0, target))
    first = time.perf_counter() - t0
    want = jax.grad(loss_unrolled)(params, xs, h0, target, eager_steps)
    same, worst, why = compare_trees(want, got, rtol=1e-4, atol=1e-5)
    # a central difference of the eager loss along a random direction
    leaves, treedef = jax.tree_util.tree_flatten(params)
    keys = jax.random.split(jax.random.PRNGKey(2), len(leaves))
    direction = jax.tree_util.tree_unflatten(treedef, [jax.random.normal(k, x.shape) for k, x in zip(keys, leaves)])
    eps = 1e-3
    shifted = lambda s: jax.tree_util.tree_map(lambda p, d: p + s * eps * d, params, direction)  # noqa: E731
    fd = (float(loss(shifted(1.0), xs, h0, target)) - float(loss(shifted(-1.0), xs, h0, target))) / (2 * eps)
    dot = float(sum(jnp.vdot(g, d) for g, d in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(direction))))
    fd_ok = abs(fd - dot) <= 2e-2 * max(1.0, abs(fd))
    t_unrolled = median_time(lambda: jax.grad(loss_unrolled)(params, xs, h0, target, eager_steps), repeat=3)
    t_grad = median_time(lambda: grad_static(params, xs, h0, target), repeat=repeat)
    jit_grad = jax.jit(grad_static)
    t_jit_grad = median_time(lambda: jit_grad(params, xs, h0, target), repeat=repeat)
    print(f"  grad == jax.grad of the eager cell run {eager_steps} times: {same} (max abs diff {worst:.2e}){'; ' + why if why else ''}")
    print(f"  directional derivative: finite difference of eager {fd:.5f}, grad {dot:.5f}: {fd_ok}")
    print(f"  eager jax.grad (unrolled, {eager_steps} steps): {t_unrolled * 1e3:9.3f} ms (median of 3)")
    print(f"  jax.grad(to_static(loss, max_iters={T})):    {t_grad * 1e3:9.3f} ms (median of {repeat}; "
          f"{t_unrolled / t_grad:.1f}x faster; first call {first * 1e3:.0f} ms)")
    print(f"  jax.jit(jax.grad(to_static(...))):           {t_jit_grad * 1e3:9.3f} ms (median of {repeat})")
    print("  " + str(e).replace("\n", "\n  "))
    print()
    print_report(__file__, ["run", "loss"])
    return 0 if forward.ok and same and fd_ok and e.graph_count == 1 and steps < T else 1


if __name__ == "__main__":
    raise SystemExit(main())
