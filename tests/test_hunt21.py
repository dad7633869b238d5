"""h-hunt21: adversarial programs against last session's riskiest analyses
(a caller's dict whose identity nobody can see, joined by value; Python-number
expressions hoisted out of closures handed to JAX; closures handed to JAX
transformations), each compared with eager over calls taking every path."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from helpers import check_calls, check_sequence


# ------------------------------------------- a caller's dict joined by value: a dict inside it held elsewhere
def _clip_then_zero_inner(grads, inner, c):
    n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    if n > c:
        grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
    inner["w"] = inner["w"] * 0   # grads["z"] is inner: eager's kept path sees the write
    return jax.tree_util.tree_map(lambda g: g + 1, grads)


def _keep_then_zero_inner(grads, inner, c):
    n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    if n > c:
        grads = grads   # kept on both paths, its keys unsorted: a sorted copy where only readers see it
    inner["w"] = inner["w"] * 0
    return jax.tree_util.tree_map(lambda g: g + 1, grads)


def _inner_world(fn):
    def make():
        inner = {"w": jnp.array([3.0, 4.0])}
        return fn, ({"z": inner, "a": jnp.array(1.0)}, inner)
    return make


def _inner_step(c):
    def step(fn, world):
        grads, inner = world
        inner["w"] = jnp.array([3.0, 4.0])
        return fn(grads, inner, c), grads
    return step


def test_a_dict_inside_the_callers_grads_written_through_another_argument_is_seen():
    for fn in (_clip_then_zero_inner, _keep_then_zero_inner):
        check_sequence(_inner_world(fn), [_inner_step(1.0), _inner_step(100.0), _inner_step(1.0), _inner_step(100.0)],
                       full_graph=False)
