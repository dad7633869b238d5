"""``to_static(fn, max_iters=N)`` (issue 5): a ``while`` with a traced
condition and a ``for`` over a ``range`` with a traced bound become a
``lax.scan`` of N guarded steps, so ``jax.grad`` works through them.

Values against the eager run (``check``); gradients against finite
differences of the eager function (eager code with a traced ``while``
condition cannot itself be ``jax.grad``-ed) and against ``jax.grad`` of an
equivalent hand-unrolled function; ``vmap`` against a Python loop over the
batch; ``LoopBoundError`` when N is too small; the default lowering unchanged.
"""

import inspect
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import LoopBoundError, explain, to_static
from helpers import check, modes
from test_compose import finite_differences

A = jnp.array([2.0, 9.0, 16.0, 0.5])


def newton_sqrt(a):
    x = jnp.where(a > 1.0, a / 2.0, 1.0)
    while jnp.max(jnp.abs(x * x - a)) > 1e-5:
        x = 0.5 * (x + a / x)
    return x


def newton_steps(a):
    """The same iteration, also counting its steps (eager only)."""
    x, k = jnp.where(a > 1.0, a / 2.0, 1.0), 0
    while jnp.max(jnp.abs(x * x - a)) > 1e-5:
        x, k = 0.5 * (x + a / x), k + 1
    return k


def newton_unrolled(a, k):
    """``newton_sqrt`` with its trip count ``k`` given: plain Python, differentiable."""
    x = jnp.where(a > 1.0, a / 2.0, 1.0)
    for _ in range(k):
        x = 0.5 * (x + a / x)
    return x


def tanh_cell(h, x):
    w = jnp.linspace(-0.5, 0.5, h.shape[0] * h.shape[0]).reshape(h.shape[0], h.shape[0])
    return jnp.tanh(h @ w + x)


def rnn_early_stop(xs, h0):
    T = xs.shape[0]
    h = h0
    t = 0
    done = False
    while t < T and not done:
        h_prev = h
        h = tanh_cell(h, xs[t])
        done = jnp.linalg.norm(h - h_prev) < 1e-3
        t += 1
    return h, t


def grow_until(x):
    y = x
    while jnp.sum(y) < 100.0:
        y = y * 1.5 + 0.1
        if jnp.max(y) > 20.0:
            break
    return y


def power_series(x, n):
    acc = jnp.zeros_like(x)
    term = jnp.ones_like(x)
    for i in range(n):
        term = term * x
        acc = acc + term / (i + 1)
    return acc


def partial_sums(x, n):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + x * i
        if acc.sum() > 50.0:
            break
    return acc


def fading_xs(T=60, d=4):
    steps = jnp.arange(T, dtype=jnp.float32)[:, None]
    return jnp.sin(steps + jnp.arange(d, dtype=jnp.float32)) * jnp.exp(-steps / 5.0)


def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


# ------------------------------------------------------------------ values
def test_newton_while_equals_eager_as_one_scan():
    e = check(newton_sqrt, A, max_iters=50, graphs=1)
    assert modes(e) == [("while", "lax.scan")]
    assert "lax.scan of max_iters=50 steps (reverse-differentiable)" in str(e)


def test_rnn_early_stop_while_not_done():
    e = check(rnn_early_stop, fading_xs(), jnp.zeros(4), max_iters=60, graphs=1)
    assert ("while", "lax.scan") in modes(e)


def test_while_with_break_under_traced_condition():
    check(grow_until, jnp.array([0.5, 1.0, 2.0]), max_iters=30, graphs=1)
    check(grow_until, jnp.array([0.1, 0.1]), max_iters=30, graphs=1)


def test_for_over_traced_range():
    e = check(power_series, jnp.array([0.5, -0.3, 1.2]), jnp.array(7), max_iters=10, graphs=1)
    assert modes(e) == [("for", "lax.scan")]
    check(power_series, jnp.array([0.5, -0.3, 1.2]), jnp.array(0), max_iters=10, graphs=1)
    check(power_series, jnp.array([0.5, -0.3, 1.2]), jnp.array(10), max_iters=10, graphs=1)


def test_traced_break_ends_a_for_loop_longer_than_max_iters():
    # range(1000) but the break comes after 5 iterations: no LoopBoundError
    check(partial_sums, jnp.array([1.0, 2.0]), jnp.array(1000), max_iters=20, graphs=1)
    check(partial_sums, jnp.array([0.01, 0.02]), jnp.array(15), max_iters=20, graphs=1)


def test_print_in_condition_and_body_as_often_as_eager():
    def small(x):
        print("test", x)
        return x < 3.0

    def printing(x):
        while small(x):
            print("body", x)
            x = x + 1.0
        return x

    check(printing, jnp.array(0.5), max_iters=10, graphs=1)


def test_decorator_form():
    f = to_static(max_iters=50, full_graph=True)(newton_sqrt)
    np.testing.assert_allclose(f(A), newton_sqrt(A), rtol=1e-6)


# --------------------------------------------------------------- gradients
def test_grad_of_newton_against_finite_differences_and_unrolled():
    f = to_static(newton_sqrt, max_iters=50, full_graph=True)
    loss = lambda a: f(a).sum()  # noqa: E731
    got = jax.grad(loss)(A)
    fd = finite_differences(lambda a: newton_sqrt(a).sum(), A)
    np.testing.assert_allclose(got, fd, rtol=1e-2, atol=1e-2)
    k = newton_steps(A)
    np.testing.assert_allclose(got, jax.grad(lambda a: newton_unrolled(a, k).sum())(A), rtol=1e-5)


def test_grad_through_while_with_break():
    x = jnp.array([0.5, 1.0, 2.0])
    f = to_static(grow_until, max_iters=30, full_graph=True)
    got = jax.grad(lambda x: f(x).sum())(x)
    np.testing.assert_allclose(got, finite_differences(lambda x: grow_until(x).sum(), x), rtol=1e-2, atol=1e-2)


def test_grad_through_rnn_early_stop():
    xs, h0 = fading_xs(), jnp.array([0.3, -0.2, 0.1, 0.4])
    f = to_static(rnn_early_stop, max_iters=60, full_graph=True)
    got = jax.grad(lambda h: f(xs, h)[0].sum())(h0)
    fd = finite_differences(lambda h: rnn_early_stop(xs, h)[0].sum(), h0)
    np.testing.assert_allclose(got, fd, rtol=1e-2, atol=1e-2)


def test_grad_through_traced_range_equals_grad_of_eager_with_static_n():
    x = jnp.array([0.5, -0.3, 1.2])
    f = to_static(power_series, max_iters=10, full_graph=True)
    got = jax.grad(lambda x: f(x, jnp.array(7)).sum())(x)
    # eager with a Python int n is plain Python unrolled: jax.grad can differentiate it
    np.testing.assert_allclose(got, jax.grad(lambda x: power_series(x, 7).sum())(x), rtol=1e-5)
    np.testing.assert_allclose(got, finite_differences(lambda x: power_series(x, jnp.array(7)).sum(), x),
                               rtol=1e-2, atol=1e-2)


def test_jit_of_grad():
    f = to_static(newton_sqrt, max_iters=50, full_graph=True)
    got = jax.jit(jax.grad(lambda a: f(a).sum()))(A)
    np.testing.assert_allclose(got, finite_differences(lambda a: newton_sqrt(a).sum(), A), rtol=1e-2, atol=1e-2)


# -------------------------------------------------------------------- vmap
def test_vmap_newton_against_a_python_loop():
    batch = jnp.stack([A, A * 3.0, A + 0.25])
    got = jax.vmap(to_static(newton_sqrt, max_iters=50, full_graph=True))(batch)
    np.testing.assert_allclose(got, np.stack([newton_sqrt(a) for a in batch]), rtol=1e-6)


def test_vmap_traced_range_with_batched_bounds():
    xs, ns = jnp.array([[0.5, 1.0], [0.2, -0.4], [1.1, 0.3]]), jnp.array([3, 0, 9])
    got = jax.vmap(to_static(power_series, max_iters=10, full_graph=True))(xs, ns)
    np.testing.assert_allclose(got, np.stack([power_series(x, n) for x, n in zip(xs, ns)]), rtol=1e-6)


def test_vmap_bounded_loop_in_a_branch_not_taken_does_not_raise():
    def doubling(x):
        if x > 0:
            while x < 10:
                x = x * 2
        else:
            x = -x
        return x

    # under vmap both branches run: the negative element's while never ends,
    # but its branch is not taken, so it is no error
    xs = jnp.array([1.0, 3.0, -1e-6])
    got = jax.vmap(to_static(doubling, max_iters=4, full_graph=True))(xs)
    np.testing.assert_allclose(got, np.array([doubling(x) for x in xs]))


def test_vmap_nested_whiles():
    def halvings(x):
        n = 0.0
        while x > 1:
            y = x
            while y > 1:
                y = y / 2
                n = n + 1
            x = x - 1
        return n

    xs = jnp.array([3.0, 9.0, 0.5])
    f = to_static(halvings, max_iters=20, full_graph=True)
    np.testing.assert_allclose(jax.vmap(f)(xs), np.array([halvings(x) for x in xs]))
    check(halvings, jnp.array(9.0), max_iters=20, graphs=1)


def test_vmap_inner_loop_of_a_finished_element_does_not_raise():
    def decades(x):
        n = 0.0
        while x > 0.001:
            y = x
            while y < 1.0:   # at most 9 iterations while the outer loop runs
                y = y * 2.0
                n = n + 1.0
            x = x / 10.0
        return n

    # under vmap the outer body also runs for 2.0 after it has finished
    # (x = 0.0002: the inner loop would need 13 iterations), then discarded
    xs = jnp.array([2.0, 200.0])
    got = jax.vmap(to_static(decades, max_iters=10, full_graph=True))(xs)
    np.testing.assert_allclose(got, np.array([decades(x) for x in xs]))


# ------------------------------------------------------------------ errors
def _assert_names_loop(error, fn, text, n):
    message = str(error)
    assert os.path.basename(__file__) in message and f":{_line_of(fn, text)}" in message, message
    assert f"max_iters={n}" in message and "raise max_iters" in message, message


def test_too_few_iterations_raise_loop_bound_error():
    assert newton_steps(A) > 3   # eager iterates longer than 3 times
    with pytest.raises(LoopBoundError) as info:
        to_static(newton_sqrt, max_iters=3)(A)
    _assert_names_loop(info.value, newton_sqrt, "while", 3)


def test_exactly_max_iters_iterations_is_no_error():
    k = newton_steps(A)
    check(newton_sqrt, A, max_iters=k, graphs=1)
    with pytest.raises(LoopBoundError):
        to_static(newton_sqrt, max_iters=k - 1)(A)


def test_too_few_iterations_of_a_traced_range():
    with pytest.raises(LoopBoundError) as info:
        to_static(power_series, max_iters=5, full_graph=True)(jnp.array([0.5]), jnp.array(6))
    _assert_names_loop(info.value, power_series, "for i in range(n)", 5)


def test_loop_bound_error_under_grad_and_vmap():
    f = to_static(newton_sqrt, max_iters=3, full_graph=True)
    with pytest.raises(LoopBoundError):
        jax.grad(lambda a: f(a).sum())(A)
    g = to_static(power_series, max_iters=5, full_graph=True)
    # one element of the batch needs 6 iterations
    with pytest.raises(LoopBoundError):
        jax.vmap(g)(jnp.ones((3, 2)), jnp.array([1, 6, 2]))


def test_loop_bound_error_under_jit_names_the_bound():
    f = to_static(newton_sqrt, max_iters=3, full_graph=True)
    with pytest.raises(Exception, match="max_iters=3"):
        jax.jit(f)(A)
    # the failed call leaves nothing behind: the next call is right
    np.testing.assert_allclose(to_static(newton_sqrt, max_iters=50)(A), newton_sqrt(A), rtol=1e-6)


def test_max_iters_must_be_positive():
    with pytest.raises(ValueError):
        to_static(newton_sqrt, max_iters=0)


# ------------------------------------------------------- lowering decisions
def test_default_lowering_is_unchanged():
    e = check(newton_sqrt, A, graphs=1)
    assert modes(e) == [("while", "lax.while_loop")]
    assert "lax.while_loop(" in e.lowered_source and "_bounded" not in e.lowered_source
    assert "max_iters=" not in e.ir_text
    e = check(power_series, jnp.array([0.5, 1.0]), jnp.array(7), graphs=1)
    assert modes(e) == [("for", "lax.fori_loop")]
    assert "lax.fori_loop(" in e.lowered_source and "_bounded" not in e.lowered_source


def test_static_trip_counts_stay_fori_and_scan():
    def static_loops(x):
        acc = 0.0
        for i in range(30):
            acc = acc + jnp.sin(x * i).sum()
        for row in jnp.ones((20, 2)):
            acc = acc + row.sum()
        return acc

    e = check(static_loops, jnp.array([0.1, 0.2]), max_iters=5, graphs=1)
    assert [m for m in modes(e) if m[0] == "for"] == [("for", "lax.fori_loop"), ("for", "lax.scan")]
    assert "max_iters=" not in str(e) and "_bounded" not in e.lowered_source


def test_ir_prints_the_bound():
    e = explain(to_static(newton_sqrt, max_iters=50, full_graph=True))(A)
    assert "max_iters=50" in e.ir_text and "_bounded_while(" in e.lowered_source
    e = explain(to_static(partial_sums, max_iters=20, full_graph=True))(jnp.ones(2), jnp.array(9))
    assert "max_iters=20 done=%" in e.ir_text and "_bounded_fori(" in e.lowered_source
