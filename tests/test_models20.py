"""h-model20: JAX model / training programs, round 2: the fallbacks h-model19
left (a caller's dict clipped under a traced ``if``, a traced-start slice
handed to ``jax.grad`` in a rolled loop, a nonlocal written in a rolled loop),
each compared with eager over calls taking every path."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ast2graph import explain, to_static
from helpers import check_calls, modes


def _p(w=(1.0, -2.0), b=0.5):
    return {"w": jnp.array(w), "b": jnp.array(b)}


# ------------------------------------------- a caller's dict rebound under a traced if, read by tree readers only
def _clip_step(params, grads, c):
    n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
    if n > c:
        grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def test_a_callers_grads_clipped_under_a_traced_if_is_one_graph():
    g = _p((3.0, 4.0), 1.0)
    sorted_g = {"b": jnp.array(1.0), "w": jnp.array([3.0, 4.0])}
    check_calls(_clip_step, [(_p(), g, 1.0), (_p(), g, 100.0), (_p(), sorted_g, 1.0), (_p(), sorted_g, 100.0),
                             (_p(), g, 5.0)])
    e = explain(to_static(_clip_step))(_p(), g, 1.0)
    assert ("if", "lax.cond") in modes(e), str(e)


def test_nested_param_trees_clip_as_one_graph():
    def p2(s):
        return {"l1": {"w": jnp.ones((2, 2)) * s, "b": jnp.zeros(2)}, "l0": {"w": jnp.ones(2) * s}}
    check_calls(_clip_step, [(p2(1.0), p2(3.0), 1.0), (p2(1.0), p2(0.1), 100.0)])


def test_the_same_dict_as_params_and_grads_between_other_calls_stays_eagers():
    p, q = _p((3.0, 4.0), 1.0), _p((3.0, 4.0), 1.0)
    check_calls(_clip_step, [(q, p, 1.0), (p, p, 1.0), (p, p, 100.0), (q, p, 100.0), (q, p, 1.0)], full_graph=False)


def test_a_clipped_dict_returned_or_mutated_afterwards_keeps_eagers_identity():
    def clip_return(grads, c):
        n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
        if n > c:
            grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
        return grads

    def clip_mutate(grads, c):
        n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
        if n > c:
            grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
        grads["b"] = grads["b"] * 0   # visible to the caller on the path that kept its dict
        return jax.tree_util.tree_leaves(grads)

    def clip_is(grads, c):
        orig = grads
        n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
        if n > c:
            grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
        return grads is orig

    for fn in (clip_return, clip_mutate, clip_is):
        check_calls(fn, [(_p((3.0, 4.0), 1.0), 1.0), (_p((3.0, 4.0), 1.0), 100.0)], full_graph=False)

    def identity_seen(c):
        g = _p((3.0, 4.0), 1.0)
        return clip_return(g, c) is g

    check_calls(identity_seen, [(1.0,), (100.0,)], full_graph=False)


def test_an_alias_of_the_callers_dict_mutated_after_the_if_stays_eagers():
    def clip_alias(grads, c):
        keep = grads
        n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
        if n > c:
            grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
        keep["b"] = keep["b"] * 0   # grads sees it on the path that kept the caller's dict
        return jax.tree_util.tree_leaves(grads)

    check_calls(clip_alias, [(_p((3.0, 4.0), 1.0), 1.0), (_p((3.0, 4.0), 1.0), 100.0)], full_graph=False)


# ------------------------------------------- best_p = params of a loop, params first the caller's dict
def _keep_best(params, n):
    best_p, best = params, jnp.inf
    for i in range(n):
        loss, g = jax.value_and_grad(_mse)(params, XS, XS[:, 0] + (i % 5) * 0.5)
        if loss < best:
            best, best_p = loss, params
        params = jax.tree_util.tree_map(lambda a, b: a - 0.3 * b, params, g)
    return jax.tree_util.tree_map(lambda a: a * 1, best_p), best


def _keep_best_returned(params, n):
    best_p, best = params, jnp.inf
    for i in range(n):
        loss, g = jax.value_and_grad(_mse)(params, XS, XS[:, 0] + (i % 5) * 0.5)
        if loss < best:
            best, best_p = loss, params
        params = jax.tree_util.tree_map(lambda a, b: a - 0.3 * b, params, g)
    return best_p, best


def test_best_params_kept_from_the_callers_dict_read_by_tree_map_only_is_one_graph():
    check_calls(_keep_best, [(_p(), 20), (_p((4.0, 1.0), -1.0), 20), (_p(), 1), (_p(), 0)])
    e = explain(to_static(_keep_best))(_p(), 20)
    assert ("for", "lax.fori_loop") in modes(e), str(e)   # (its dicts sorted before the loop: no trip peeled)


def test_best_params_returned_may_be_the_callers_dict_and_stay_eagers():
    check_calls(_keep_best_returned, [(_p(), 12), (_p(), 0)], full_graph=False)

    def same(n):
        q = _p()
        return _keep_best_returned(q, n)[0] is q

    check_calls(same, [(12,), (0,)], full_graph=False)


# ------------------------------------------- a traced-start slice of static length handed to jax.grad in a rolled loop
XS = jnp.arange(80.0).reshape(40, 2) / 40


def _mse(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


def _sgd_windows(params, n):
    for i in range(n):
        g = jax.grad(_mse)(params, XS[i:i + 2], XS[i:i + 2, 0])
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)
    return params


def test_a_window_slice_from_a_rolled_loops_index_is_a_dynamic_slice_and_the_loop_rolls():
    check_calls(_sgd_windows, [(_p(), 30)])
    e = explain(to_static(_sgd_windows))(_p(), 30)
    assert ("for", "lax.fori_loop") in modes(e) and ("subscript", "dynamic_slice") in modes(e), str(e)



def _minibatches(params, bs):
    n = XS.shape[0] // bs
    for i in range(n):
        g = jax.grad(_mse)(params, XS[i * bs:(i + 1) * bs], XS[i * bs:(i + 1) * bs, 1])
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)
    for s in range(0, XS.shape[0] - bs, 1):
        params = jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params,
                                        jax.grad(_mse)(params, XS[s:s + bs], XS[s:s + bs, 0]))
    return params


def test_minibatch_slices_of_a_static_batch_size_are_dynamic_slices_and_the_loops_roll():
    check_calls(_minibatches, [(_p(), 2), (_p((0.5, 0.5), 0.0), 2)])
    e = explain(to_static(_minibatches))(_p(), 2)
    assert modes(e).count(("for", "lax.fori_loop")) == 2 and ("subscript", "dynamic_slice") in modes(e), str(e)


XS6 = XS[:6]


def _sgd_windows6(params, n):
    for i in range(n):
        g = jax.grad(_mse)(params, XS6[i:i + 2], XS6[i:i + 2, 0])
        params = jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, g)
    return params


def test_a_window_that_may_run_past_the_end_keeps_eagers_shorter_slice():
    # n = 6: the last window XS6[5:7] has one row; eager's gradient of it differs
    check_calls(_sgd_windows6, [(_p(), 6), (_p(), 5), (_p(), 6)], full_graph=False)

    def windows_sum(n, k0):
        out = []
        for i in range(k0, n):
            out.append(float((3 + i, XS6[i:3 + i])[1].sum()))
        return out

    check_calls(windows_sum, [(6, 0), (3, 0), (6, -2)], full_graph=False)


# ------------------------------------------- a nonlocal a helper rebinds inside a rolled loop
def _train_tracking_best(params, n):
    best = jnp.inf
    count = 0
    last = 0.0

    def record(loss):
        nonlocal best, count, last
        last = loss
        if loss < best:
            best = loss
            count += 1

    def report():
        return best, count

    for i in range(n):
        loss, g = jax.value_and_grad(_mse)(params, XS, XS[:, 0] + (i % 7) * 0.3)
        record(loss)
        params = jax.tree_util.tree_map(lambda p, g: p - 0.3 * g, params, g)
    return params, report(), last


def test_a_nonlocal_a_helper_rebinds_in_a_rolled_loop_is_carried_and_the_loop_rolls():
    check_calls(_train_tracking_best, [(_p(), 20), (_p((5.0, -5.0), 2.0), 20), (_p(), 0)])
    e = explain(to_static(_train_tracking_best))(_p(), 20)
    assert ("for", "lax.fori_loop") in modes(e), str(e)


def test_a_nonlocal_in_a_rolled_while_loop_and_one_bound_only_in_the_loop():
    def run(x, tol):
        steps = 0
        total = 0.0

        def tick(v):
            nonlocal steps, total
            steps += 1
            total = total + v

        while jnp.abs(x).sum() > tol:
            x = x * 0.5
            tick(x.sum())
        return x, steps, total

    check_calls(run, [(jnp.array([8.0, -3.0]), 0.1), (jnp.array([0.01, 0.0]), 0.1), (jnp.array([100.0, 1.0]), 1e-3)])

    def late(n):
        def setk(v):
            nonlocal k
            k = v
        for i in range(n):
            k = i            # bound in the loop only: not carried from before it
            setk(k * 2)
        return k

    check_calls(late, [(20,), (0,), (3,)], full_graph=False)


def test_a_function_handed_a_subtree_of_the_callers_dict_keeps_eagers_identity():
    # params a leaf where grads has a dict: tree_map hands f grads' inner dict itself
    held = []

    def f(p, g):
        held.append(g)
        return p

    def clip(params, grads, c):
        n = jnp.sqrt(sum(jnp.sum(g ** 2) for g in jax.tree_util.tree_leaves(grads)))
        if n > c:
            grads = jax.tree_util.tree_map(lambda g: g * c / n, grads)
        jax.tree_util.tree_map(f, params, grads)
        return held[-1] is inner

    inner = {"w": jnp.array([3.0, 4.0])}
    out = []
    for c in (1.0, 100.0):
        g = {"a": inner}
        out.append((clip({"a": 1.0}, g, c), to_static(clip, full_graph=False)({"a": 1.0}, g, c)))
    assert all(e == c for e, c in out), out


# ------------------------------------------- a loop that can break, over the caller's dict read by pytree readers only
def _train_until(params, tol):
    for step in range(30):
        loss, g = jax.value_and_grad(_mse)(params, XS, XS[:, 0])
        if loss < tol:
            break
        params = jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, g)
    return jax.tree_util.tree_map(lambda a: a * 1, params), step


def _train_until_returned(params, tol):
    for step in range(30):
        loss, g = jax.value_and_grad(_mse)(params, XS, XS[:, 0])
        if loss < tol:
            break
        params = jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, g)
    return params, step


def test_a_loop_that_can_break_over_the_callers_dict_rolls_when_only_pytree_readers_see_it():
    calls = [(_p(), 1e-9), (_p(), 10.0), (_p((2.0, 2.0), 1.0), 0.05)]
    check_calls(_train_until, calls)
    e = explain(to_static(_train_until))(*calls[0])
    assert ("for", "lax.while_loop") in modes(e) or ("for", "lax.fori_loop") in modes(e), str(e)
    check_calls(_train_until_returned, calls, full_graph=False)   # (after zero updates eager returns the caller's dict)
