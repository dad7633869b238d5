"""Issue 5's models, decorated as they are: a NumPy-written model with in-place
updates, a class-based model with sub-layers and an optional norm, and an
Equinox model. Each runs as one graph with the eager results (``check``), and
``jax.grad`` works through their loops (compared with ``jax.grad`` of the
eager model where eager can be differentiated, else finite differences of the
eager model). Also: Python-number state on a model (``self.calls += 1``) does
not recompile every call."""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check

RNG = np.random.default_rng(0)


def finite_differences(f, x, eps=1e-2):
    x = np.asarray(x, dtype=np.float64)
    grads = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[k] += eps
        down[k] -= eps
        grads[k] = (float(f(up.astype(np.float32))) - float(f(down.astype(np.float32)))) / (2 * eps)
    return grads


# --------------------------------------------------------------- NumPy model
def numpy_rnn(xs, w, u):
    """An Elman RNN written the NumPy way: preallocated outputs written row by
    row, a clipped state, a masked write, a running statistic."""
    steps, hidden = xs.shape[0], w.shape[0]
    out = np.zeros((steps, hidden), dtype=np.float32)
    h = np.zeros(hidden, dtype=np.float32)
    peak = np.zeros(hidden, dtype=np.float32)
    for t in range(steps):
        h = np.tanh(w @ h + u @ xs[t])
        h[np.abs(h) < 0.05] = 0.0
        out[t] = h
        peak = np.maximum(peak, np.abs(h))
    out[:, 0] *= 2
    return out, peak


def numpy_args(steps=24, hidden=6, inputs=3):
    xs = RNG.normal(size=(steps, inputs)).astype(np.float32)
    w = (RNG.normal(size=(hidden, hidden)) * 0.4).astype(np.float32)
    u = RNG.normal(size=(hidden, inputs)).astype(np.float32)
    return xs, w, u


@pytest.mark.parametrize("steps", [5, 24])   # unrolled and rolled (fori_loop)
def test_numpy_model_with_in_place_updates_is_one_graph(steps):
    e = check(numpy_rnn, *numpy_args(steps), graphs=1, rtol=1e-4, atol=1e-5)
    assert all(isinstance(r, np.ndarray) for r in e.result)


def test_grad_through_the_numpy_model_loop():
    xs, w, u = numpy_args(24, 4, 2)
    loss = lambda w_: numpy_rnn(xs, w_, u)[0].sum()   # noqa: E731 - eager: NumPy floats
    converted = to_static(numpy_rnn, full_graph=True)
    got = jax.grad(lambda w_: converted(xs, w_, u)[0].sum())(jnp.asarray(w))
    np.testing.assert_allclose(got, finite_differences(loss, w), rtol=5e-2, atol=5e-2)


# ------------------------------------------------------- class-based model
class Dense:
    def __init__(self, n_in, n_out, key):
        self.w = jax.random.normal(key, (n_out, n_in)) / np.sqrt(n_in)
        self.b = jnp.zeros(n_out)

    def __call__(self, x):
        return self.w @ x + self.b


class LayerNorm:
    def __init__(self, n, eps=1e-5):
        self.scale, self.eps = jnp.ones(n), eps

    def __call__(self, x):
        mu = x.mean()
        return self.scale * (x - mu) / jnp.sqrt(((x - mu) ** 2).mean() + self.eps)


class ResidualMLP:
    """Sub-layers in a list, an optional norm (None or a layer), a config flag,
    a refinement loop with a static bound, and a traced early exit."""

    def __init__(self, n, depth, use_norm, key, refine=20):
        keys = jax.random.split(key, depth)
        self.layers = [Dense(n, n, k) for k in keys]
        self.norm = LayerNorm(n) if use_norm else None
        self.activation = "tanh"
        self.refine = refine

    def __call__(self, x):
        for layer in self.layers:
            h = layer(x)
            h = jnp.tanh(h) if self.activation == "tanh" else jax.nn.relu(h)
            x = x + h
        if self.norm is not None:
            x = self.norm(x)
        for _ in range(self.refine):          # rolled: lax.fori_loop, reverse-differentiable
            x = x - 0.05 * jnp.tanh(self.layers[0](x))
        return x


@pytest.mark.parametrize("use_norm", [True, False], ids=["norm", "no-norm"])
def test_class_model_with_sublayers_and_optional_norm(use_norm):
    model = ResidualMLP(5, 3, use_norm, jax.random.PRNGKey(1))
    e = check(model, jnp.linspace(-1.0, 1.0, 5), graphs=1, rtol=1e-4, atol=1e-5)
    assert ("for", "lax.fori_loop") in [(d.construct, d.mode) for d in e.decisions]


def test_grad_through_the_class_model_matches_grad_of_eager():
    model = ResidualMLP(5, 3, True, jax.random.PRNGKey(2))
    x = jnp.linspace(-1.0, 1.0, 5)
    converted = to_static(model, full_graph=True)
    got = jax.grad(lambda v: converted(v).sum())(x)
    want = jax.grad(lambda v: model(v).sum())(x)   # eager: static control flow, differentiable
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------ Equinox model
eqx = pytest.importorskip("equinox")


class Block(eqx.Module):
    lin1: eqx.nn.Linear
    lin2: eqx.nn.Linear
    norm: eqx.nn.LayerNorm | None

    def __init__(self, n, key, use_norm):
        k1, k2 = jax.random.split(key)
        self.lin1 = eqx.nn.Linear(n, 2 * n, key=k1)
        self.lin2 = eqx.nn.Linear(2 * n, n, key=k2)
        self.norm = eqx.nn.LayerNorm(n) if use_norm else None

    def __call__(self, x):
        y = x + self.lin2(jax.nn.gelu(self.lin1(x)))
        if self.norm is not None:
            y = self.norm(y)
        return y


class EqxNet(eqx.Module):
    blocks: list
    head: eqx.nn.Linear
    steps: int = eqx.field(static=True)

    def __init__(self, n, depth, key, steps=18):
        keys = jax.random.split(key, depth + 1)
        self.blocks = [Block(n, k, use_norm=i % 2 == 0) for i, k in enumerate(keys[:-1])]
        self.head = eqx.nn.Linear(n, 1, key=keys[-1])
        self.steps = steps

    def __call__(self, x):
        for block in self.blocks:
            x = block(x)
        for _ in range(self.steps):       # rolled
            x = 0.9 * x + 0.1 * jnp.tanh(self.blocks[0].lin2(self.blocks[0].lin1(x)))
        score = self.head(x)[0]
        if score > 0:                      # traced branch: lax.cond
            x = x * 2
        return x, score


def loss(model, x):
    out, score = model(x)
    return (out ** 2).sum() + score


def test_equinox_model_called_by_a_converted_function_is_one_graph():
    net = EqxNet(6, 3, jax.random.PRNGKey(3))
    for x in (jnp.linspace(-1.0, 1.0, 6), -jnp.linspace(-1.0, 1.0, 6) * 3):
        check(loss, net, x, graphs=1, rtol=1e-4, atol=1e-5)


def test_equinox_model_decorated_directly():
    net = EqxNet(6, 2, jax.random.PRNGKey(4))
    check(net, jnp.linspace(0.0, 1.0, 6), graphs=1, rtol=1e-4, atol=1e-5)


def test_grad_through_the_equinox_model_loops():
    net = EqxNet(6, 2, jax.random.PRNGKey(5))
    x = jnp.linspace(-1.0, 1.0, 6)
    got = eqx.filter_grad(to_static(loss, full_graph=True))(net, x)
    # eager: the traced `if` cannot be differentiated as Python; its branch is
    # fixed for this input, so jax.grad of the branch-free twin is the reference
    flag = bool(net(x)[1] > 0)

    def twin(model, v):
        for block in model.blocks:
            v = block(v)
        for _ in range(model.steps):
            v = 0.9 * v + 0.1 * jnp.tanh(model.blocks[0].lin2(model.blocks[0].lin1(v)))
        score = model.head(v)[0]
        return ((v * 2 if flag else v) ** 2).sum() + score

    want = eqx.filter_grad(twin)(net, x)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


# ------------------------------------------------- Python-number state
class Counting:
    def __init__(self):
        self.w = jnp.arange(3.0)
        self.calls = 0
        self.seen = None

    def __call__(self, x):
        self.calls += 1
        y = x * self.w + self.calls
        self.seen = y
        return y


def test_int_attribute_counter_does_not_recompile_every_call():
    eager_model, model = Counting(), Counting()
    converted = to_static(model, full_graph=True)
    for k in range(12):
        x = jnp.full(3, float(k))
        want, got = eager_model(x), converted(x)
        np.testing.assert_allclose(got, want)
        assert type(model.calls) is int and model.calls == eager_model.calls
        np.testing.assert_allclose(model.seen, eager_model.seen)
    assert converted.recompiles <= converted._state.options.static_values   # then traced: no storm
    assert any("Counting.calls" in r and "now traced" in r for r in converted.recompile_reasons)


def test_busy_scalar_argument_is_still_a_python_number_in_python_run_statements():
    def f(x, n):
        acc = 0
        for i in range(n):            # a traced n: lax.fori_loop; the counter is a Python int in eager
            acc = acc + i
        return x * n, acc, n + 1

    for n in range(7):
        check(f, jnp.ones(2), n, graphs=1)


def test_python_numbers_and_numpy_scalars_come_back_as_eager_gives_them():
    def f(x, y):
        i = 0
        while x.sum() > 1:          # traced: the counter is a Python int in eager
            x = x / 2
            i += 1
        return x, i, i < 3, i / 2, np.sum(y), np.sum(x), np.sin(y) * 2

    e = check(f, jnp.arange(4.0), np.arange(3, dtype=np.float32), graphs=1)
    assert [type(v).__name__ for v in e.result[1:4]] == ["int", "bool", "float"]


class Scaled(eqx.Module):
    w: jax.Array

    def __init__(self, n):
        self.w = jnp.arange(float(n))

    def forward(self, x):
        if x.sum() > 0:           # traced: lax.cond
            return x * self.w
        return x - self.w


class ScaledStatic(Scaled):
    forward = to_static(Scaled.forward, full_graph=True)   # decorated in the class body


@pytest.mark.parametrize("x", [jnp.ones(3), -jnp.ones(3)], ids=["pos", "neg"])
def test_equinox_method_converted_in_the_class_body(x):
    eager, converted = Scaled(3), ScaledStatic(3)
    np.testing.assert_allclose(converted.forward(x), eager.forward(x))
    got = jax.grad(lambda m: m.forward(x).sum())(converted).w
    want = jax.grad(lambda m: m.forward(x).sum())(eager).w   # eager: a concrete branch, differentiable
    np.testing.assert_allclose(got, want)


class Batched(eqx.Module):
    lin: eqx.nn.Linear

    def __init__(self, key):
        self.lin = eqx.nn.Linear(3, 2, key=key)

    def __call__(self, xs):
        return jax.vmap(self.lin)(xs).sum()   # the usual Equinox batching


def test_equinox_vmap_of_a_submodule_is_one_graph():
    check(Batched(jax.random.PRNGKey(6)), jnp.arange(12.0).reshape(4, 3), graphs=1, rtol=1e-5)
