"""jax.grad, jax.vmap and jax.jit applied to converted functions (issue 5):
gradients against finite differences of the eager function (or jax.grad of
eager where it can differentiate), vmap against a Python loop over the batch."""

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static

X = jnp.linspace(0.1, 1.0, 4)


def loop_and_branch(x):
    acc = 0.0
    for i in range(30):  # rolled: lax.fori_loop with static bounds, reverse-differentiable
        acc = acc + jnp.sin(x * i).sum()
    if acc > 0:
        acc = acc * 2
    else:
        acc = -acc
    return acc


def unrolled(x):
    s = 0.0
    for i in range(5):
        s = s + (x ** 2).sum() * i
    return s


def finite_differences(f, x, eps=1e-3):
    return np.array([(f(x.at[k].add(eps)) - f(x.at[k].add(-eps))) / (2 * eps) for k in range(x.shape[0])])


def test_grad_through_rolled_loop_and_branch():
    got = jax.grad(to_static(loop_and_branch, full_graph=True))(X)
    np.testing.assert_allclose(got, finite_differences(loop_and_branch, X), rtol=1e-2, atol=1e-2)


def test_grad_matches_grad_of_eager():
    np.testing.assert_allclose(jax.grad(to_static(unrolled, full_graph=True))(X), jax.grad(unrolled)(X), rtol=1e-5)


def test_vmap_matches_a_python_loop_over_the_batch():
    batch = jnp.stack([X, X * 2, -X])
    got = jax.vmap(to_static(loop_and_branch, full_graph=True))(batch)
    np.testing.assert_allclose(got, np.array([loop_and_branch(r) for r in batch]), rtol=1e-4)


def test_jit_of_converted_function():
    np.testing.assert_allclose(jax.jit(to_static(loop_and_branch, full_graph=True))(X), loop_and_branch(X), rtol=1e-5)


def test_nested_to_static():
    inner = to_static(unrolled, full_graph=True)

    def outer(x):
        if x.sum() > 1:
            return inner(x) + 1
        return inner(-x)

    np.testing.assert_allclose(to_static(outer, full_graph=True)(X), outer(X), rtol=1e-5)


def vmap_and_grad_of_closures(x, w):
    rows = jax.vmap(lambda r: jnp.tanh(r @ w))(x)           # closes over the traced w
    loss = lambda v: jnp.sum(jnp.tanh(v @ w) ** 2)          # noqa: E731
    return rows, jax.grad(loss)(x[0]), jax.value_and_grad(loss)(x[1])


def test_jax_transforms_of_closures_over_traced_values_are_one_graph():
    from helpers import check

    check(vmap_and_grad_of_closures, jnp.ones((2, 3)), jnp.arange(9.0).reshape(3, 3) / 9, graphs=1)
