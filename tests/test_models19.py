"""h-model19: realistic JAX model and training programs (pytrees of params,
training loops, optimiser objects), each compared with eager over calls
whose data take every path, stateful ones with the state changed between
calls."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import explain, to_static
from helpers import check_calls, check_sequence, modes

X = jnp.array([[1.0, 2.0], [2.0, 0.5], [-1.0, 1.0], [0.0, -1.5]])
Y = jnp.array([1.0, 2.0, -0.5, -1.0])
XS = jnp.arange(80.0).reshape(40, 2) / 40


def _mse(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


# ------------------------------------------- a loop whose carried pytree changes form on its first trip only
def _train(params, lr, steps):
    history = []
    for step in range(steps):
        loss, grads = jax.value_and_grad(_mse)(params, X, Y)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)   # sorted keys from here on
        history.append(float(loss))
    return params, history


def test_a_training_loop_over_a_user_ordered_params_dict_rolls_after_its_first_step():
    calls = [({"w": jnp.zeros(2), "b": jnp.zeros(())}, 0.1, 120), ({"w": jnp.ones(2), "b": jnp.ones(())}, 0.05, 120),
             ({"b": jnp.ones(()), "w": jnp.ones(2)}, 0.05, 120)]
    check_calls(_train, calls)
    e = explain(to_static(_train))(*calls[0])
    assert ("for", "peeled") in modes(e) and ("for", "lax.fori_loop") in modes(e), str(e)
    check_calls(_train, [({"w": jnp.zeros(2), "b": jnp.zeros(())}, 0.1, 18), ({"w": jnp.zeros(2), "b": jnp.zeros(())}, 0.1, 2)])


def _accumulate(params, n_micro):
    acc = None
    for i in range(n_micro):
        xb = jax.lax.dynamic_slice_in_dim(XS, i, 2)
        g = jax.grad(_mse)(params, xb, xb[:, 0])
        if acc is None:
            acc = g
        else:
            acc = jax.tree_util.tree_map(jnp.add, acc, g)
    return jax.tree_util.tree_map(lambda a: a / n_micro, acc)


def test_gradient_accumulation_from_none_rolls_after_its_first_microbatch():
    p = {"w": jnp.array([0.5, -1.0]), "b": jnp.zeros(())}
    check_calls(_accumulate, [(p, 30), (p, 25), (p, 1)])
    e = explain(to_static(_accumulate))(p, 30)
    assert ("for", "peeled") in modes(e), str(e)


def test_a_loop_that_can_break_is_not_peeled_and_stays_eagers():
    def train_until(params, tol):
        n = 0
        for step in range(40):
            loss, grads = jax.value_and_grad(_mse)(params, X, Y)
            params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
            n += 1
            if loss < tol:
                break
        return params, n

    check_calls(train_until, [({"w": jnp.zeros(2), "b": jnp.zeros(())}, 0.5),
                              ({"w": jnp.zeros(2), "b": jnp.zeros(())}, 1e-9)], full_graph=False)


_PARAMS: dict = {}


def _global_train(steps):
    params = _PARAMS
    for _ in range(steps):
        grads = jax.grad(_mse)(params, X, Y)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return params


def test_a_peeled_loop_follows_the_global_params_changed_between_calls():
    def make():
        _PARAMS.clear()
        _PARAMS.update(w=jnp.zeros(2), b=jnp.zeros(()))
        return _global_train, None

    def reorder(fn, world):
        b = _PARAMS.pop("b")
        _PARAMS["b"] = b + 1.0
        return fn(30)

    def rekey(fn, world):
        _PARAMS.clear()
        _PARAMS.update(b=jnp.ones(()), w=jnp.ones(2))
        return fn(30)

    check_sequence(make, [lambda fn, w: fn(30), reorder, rekey, lambda fn, w: fn(20)])
