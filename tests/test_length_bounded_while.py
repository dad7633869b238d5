"""A traced ``while len(xs) < n:`` that appends under a traced condition.

The test bounds the list's length at every iteration's start, so the list
is carried as a buffer of ``n - 1 + d`` rows (``d`` appends an iteration at
most; ``typeinfer/varlist.py``) without ``max_iters``. Where the test is only
that comparison, the body has no ``break`` and appends one item at most, the
loop ends with exactly ``n`` items: the list has a static length afterwards
(``jnp.array(accepted)`` stays in the graph). Every test compares with eager.
"""

import jax
import jax.numpy as jnp

from helpers import check

K0, K1, K2 = jax.random.PRNGKey(0), jax.random.PRNGKey(1), jax.random.PRNGKey(7)


def rejection(key, n):
    accepted = []
    tries = 0
    while len(accepted) < n:
        key, sub = jax.random.split(key)
        x = jax.random.uniform(sub, minval=-1.0, maxval=1.0)
        tries += 1
        if x * x < 0.25:
            accepted.append(x)
    return jnp.array(accepted), tries


def test_rejection_sampling_collects_exactly_n():
    for key, n in ((K0, 5), (K1, 1), (K2, 0), (K1, 12)):
        check(rejection, key, n, full_graph=True)


def reversed_and_prefilled(key, x):
    out = [x[0], x[1]]
    while 6 > len(out):
        key, sub = jax.random.split(key)
        v = jax.random.normal(sub)
        if v > 0:
            out.append(v * x[2])
    return jnp.stack(out)


def test_reversed_comparison_and_prefilled_list():
    check(reversed_and_prefilled, K0, jnp.arange(3.0), full_graph=True)
    check(reversed_and_prefilled, K1, jnp.arange(3.0), full_graph=True)


def also_bounded_by_tries(key, n):
    got = []
    tries = 0
    while len(got) <= n and tries < 50:
        key, sub = jax.random.split(key)
        v = jax.random.uniform(sub)
        tries += 1
        if v < 0.1:
            got.append(v)
    return got, tries, len(got)


def test_length_and_another_condition_keeps_a_traced_length():
    # the loop may also end on tries: the list's length depends on the data (eager's list after the call)
    for key in (K0, K1, K2):
        check(also_bounded_by_tries, key, 2, full_graph=True)


def two_appends(key, n):
    xs = []
    while len(xs) < n:
        key, sub = jax.random.split(key)
        v = jax.random.uniform(sub)
        if v < 0.5:
            xs.append(v)
            xs.append(-v)
    return xs


def test_two_appends_an_iteration_may_overshoot():
    # n - 1 + 2 rows: eager ends with n or n + 1 items
    for key in (K0, K1, K2):
        check(two_appends, key, 3, full_graph=True)


def with_break(key, n):
    xs = []
    while len(xs) < n:
        key, sub = jax.random.split(key)
        v = jax.random.uniform(sub)
        if v < 0.05:
            break
        if v < 0.6:
            xs.append(v)
    return xs


def test_break_leaves_the_length_traced():
    for key in (K0, K1, K2):
        check(with_break, key, 4, full_graph=True)


def stacked_after_break(key, n):
    xs = with_break(key, n)
    return jnp.stack(xs) if xs else jnp.zeros(0)


def test_stack_of_a_list_of_data_dependent_length_falls_back():
    for key in (K0, K1):
        check(stacked_after_break, key, 4, full_graph=False)


def bound_moves(key, n):
    xs = []
    while len(xs) < n:
        key, sub = jax.random.split(key)
        v = jax.random.uniform(sub)
        if v < 0.5:
            xs.append(v)
            n = n + (v < 0.1)   # the bound grows in the loop: it bounds nothing
    return xs


def test_a_bound_the_loop_rebinds_is_not_used():
    for key in (K0, K1, K2):
        check(bound_moves, key, 3, full_graph=False)
