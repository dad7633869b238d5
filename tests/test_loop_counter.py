"""The loop variable read after a rolled loop is carried (issue 16, item 6).

After ``for step in range(n)`` rolled into a ``lax.fori_loop``, ``step`` is
what eager leaves: the last index iterated (the index at a ``break``), a
Python int; when the body never runs, the value from before the loop. And a
loop that cannot roll and unrolls past 64 iterations warns (``UnrollWarning``).
"""

import warnings

import jax
import jax.numpy as jnp
import pytest

from ast2graph import UnrollWarning, explain, to_static
from helpers import check, check_calls, modes

X = jnp.arange(3.0)


def for_modes(e):
    return [m for c, m in modes(e) if c == "for"]


# ------------------------------------------------------ the example
def train(w):
    for step in range(300):
        w = w - 0.1 * w
        if jnp.abs(w).sum() < 1e-3:
            break
    return w, step


@pytest.mark.parametrize("w", [jnp.ones(3), jnp.full(3, 1e-9)], ids=["breaks-late", "breaks-first"])
def test_train_breaks_rolled(w):
    e = check(train, w, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]
    assert type(e.result[1]) is int


def test_train_runs_to_the_end_rolled():
    e = check(train, jnp.full(3, 1e20), full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]
    assert e.result[1] == 299 and type(e.result[1]) is int


def last_step(x):
    for step in range(2, 90, 3):
        x = x * 1.01 + step
    return step


def test_return_step_after_full_loop():
    e = check(last_step, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


# ------------------------------------------------- bound before the loop
def bound_before(x, n):
    i = 7
    for i in range(n):
        x = x * 1.01
        if x.sum() > 40.0:
            break
    return x, i


@pytest.mark.parametrize("n", [0, 1, 30, 200])
def test_bound_before_static_count(n):
    check(bound_before, X, n, full_graph=True, graphs=1)


@pytest.mark.parametrize("n", [0, 1, 30, 200])
def test_bound_before_traced_count(n):
    e = check(bound_before, X, jnp.int32(n), full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def bound_before_stepped(x, a, b):
    i = -5
    for i in range(a, b, 3):
        x = x + i
    return x, i


@pytest.mark.parametrize("a,b", [(0, 40), (10, 2), (3, 4)])
def test_bound_before_traced_start_stop(a, b):
    e = check(bound_before_stepped, X, jnp.int32(a), jnp.int32(b), full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def unbound_traced_count(x, n):
    for i in range(n):
        x = x + 1.0
    return x, i


@pytest.mark.parametrize("n", [0, 3])
def test_unbound_before_traced_count_keeps_eager_error(n):
    # the body may not run and i is unbound before: eager may raise at the read
    check(unbound_traced_count, X, jnp.int32(n), full_graph=False)


# ---------------------------------------------- the counter used afterwards
def counter_arithmetic(x):
    for step in range(50):
        x = x * 0.9
        if x.sum() < 1.0:
            break
    return x, step * 2, step + 0.5, step // 3, -step


@pytest.mark.parametrize("x", [X, X * 100, X * 1e9])
def test_counter_arithmetic_stays_python(x):
    e = check(counter_arithmetic, x, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]
    assert [type(v) for v in e.result[1:]] == [int, float, int, int]


def counter_to_float(x):
    for step in range(50):
        x = x * 0.9
        if x.sum() < 1.0:
            break
    return x, float(step)


def test_counter_float():
    # float() of the carried int is a traced Python float: one graph, the loop rolled
    e = check(counter_to_float, X * 100, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]
    assert type(e.result[1]) is float


def counter_indexes(x, table):
    for k in range(40):
        x = x + 1.0
        if x.sum() > 20:
            break
    return table[k], x


def test_counter_indexes_an_array():
    check(counter_indexes, X, jnp.arange(100.0) * 3, full_graph=True, graphs=1)


# ------------------------------------------------------------ nested loops
def nested(w):
    for i in range(30):
        for j in range(20):
            w = w * 1.001
            if w.sum() > 3.2:
                break
    return w, i, j


def test_nested_loops_both_rolled():
    e = check(nested, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop", "lax.fori_loop"]


def nested_outer_break(w):
    for i in range(30):
        for j in range(20):
            w = w * 1.01
        if w.sum() > 50:
            break
    return w, i * 100 + j


@pytest.mark.parametrize("w", [X, X * 1e-6])
def test_nested_outer_break(w):
    e = check(nested_outer_break, w, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop", "lax.fori_loop"]


def first_bound_after_break(x):
    for i in range(40):
        if x.sum() > 5:
            break
        y = x * i
        x = x + 1.0
    return y


@pytest.mark.parametrize("x", [X, X + 10])
def test_variable_first_bound_after_a_traced_break_matches_eager(x):
    # eager raises UnboundLocalError when it breaks on the first iteration
    check(first_bound_after_break, x, full_graph=False)


# ------------------------------------------------------------ rows loop
def last_row(xs):
    acc = xs[0] * 0
    for x in xs:
        acc = acc + x
    return acc, x


def test_rows_loop_variable_after():
    e = check(last_row, jnp.arange(120.0).reshape(40, 3), full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.scan"]


# ------------------------------------------------------------ UnrollWarning
def python_int_grows(x):
    k = 0
    for i in range(100):
        x = x * 1.01
        k = k + 10 ** 12
    return x, k


def test_unroll_past_64_warns():
    with pytest.warns(UnrollWarning, match=r"test_loop_counter\.py:\d+: loop unrolled 100 times .*max_unroll"):
        e = check(python_int_grows, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["unrolled"]


def python_int_grows_short(x):
    k = 0
    for i in range(40):
        x = x * 1.01
        k = k + 10 ** 12
    return x, k


def test_unroll_of_64_or_fewer_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnrollWarning)
        e = check(python_int_grows_short, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["unrolled"]


def rolled_long(x):
    for i in range(1000):
        x = x * 0.999
    return x, i


def test_rolled_loop_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnrollWarning)
        e = check(rolled_long, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def test_warns_once_per_loop():
    def f(x):
        k = 0
        for i in range(90):
            x = x + 1.0
            k = k + 10 ** 12
        return x, k

    with pytest.warns(UnrollWarning) as record:
        to_static(f)(X)
        to_static(f)(X + 1)
    assert len([w for w in record if issubclass(w.category, UnrollWarning)]) == 1


def row_at_break(xs):
    acc = xs[0] * 0
    for x in xs:
        acc = acc + x
        if acc.sum() > 100:
            break
    return acc, x


@pytest.mark.parametrize("scale", [1.0, 1e-3])
def test_rows_loop_variable_at_break(scale):
    e = check(row_at_break, jnp.arange(120.0).reshape(40, 3) * scale, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.scan"]


def row_bound_before(xs):
    x = jnp.full(3, -1.0)
    for x in xs:
        x = x * 2
    return x


@pytest.mark.parametrize("n", [0, 30])
def test_rows_loop_variable_bound_before(n):
    check(row_bound_before, jnp.ones((n, 3)), full_graph=True, graphs=1)


def target_rebound_in_body(x):
    for i in range(40):
        x = x + i
        i = i * 2
    return x, i


def test_loop_variable_rebound_in_body():
    # eager: the value the body left (78), not the last index (main gave 39)
    e = check(target_rebound_in_body, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def row_rebound_in_body(xs):
    for x in xs:
        x = x * 2
    return x


def test_rows_loop_variable_rebound_in_body():
    check(row_rebound_in_body, jnp.ones((30, 3)), full_graph=True, graphs=1)


def no_exit_static_last(x):
    i = None
    for i in range(100):
        x = x + 1.0
    return x, i, list(range(i // 33))


def test_no_exit_loop_variable_stays_static():
    # no break/return and not rebound: the last index is known at trace time
    e = check(no_exit_static_last, X, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def bounded_traced_count(x, n):
    i = 7
    for i in range(n):
        x = x * 1.1
        if x.sum() > 20:
            break
    return x, i


@pytest.mark.parametrize("n", [0, 3, 40])
def test_bound_before_traced_count_max_iters(n):
    e = check(bounded_traced_count, X + 1, jnp.int32(n), full_graph=True, graphs=1, max_iters=64)
    assert for_modes(e) == ["lax.scan"]


def return_in_loop_then_counter(x):
    for i in range(40):
        x = x * 1.1
        if x.sum() > 20:
            return x, i
    return x, -i


@pytest.mark.parametrize("x", [X, X * 1e-9])
def test_return_in_loop_then_counter(x):
    e = check(return_in_loop_then_counter, x, full_graph=True, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def rejection_halfnormal(key):
    while True:
        key, k1, k2 = jax.random.split(key, 3)
        x = jnp.abs(jax.random.cauchy(k1))
        u = jax.random.uniform(k2)
        if u < jnp.exp(-0.5 * x ** 2) * (1 + x ** 2) / 1.53:
            return x


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_while_true_whose_only_exit_is_a_traced_return_is_one_graph(seed):
    """``while True:`` with no ``break`` ends only by its ``return``: after the
    rolled loop the function has returned (the implicit ``None`` after it is
    unreachable; joining it failed the roll). Found by the issue-16 corpus."""
    check(rejection_halfnormal, jax.random.PRNGKey(seed), graphs=1)


def grow_until(x):
    while True:
        x = jnp.concatenate([x, x[-1:] * 0.5])
        if x[-1] < 0.1:
            return x


def test_while_true_that_cannot_roll_stops_unrolling_at_max_unroll():
    """A ``while True:`` that cannot roll (its array grows) unrolls at most
    ``max_unroll`` iterations, then runs as Python control flow with eager's
    result (it unrolled until ``static_iteration_limit``, each iteration nested
    deeper: conversion never finished)."""
    check(grow_until, jnp.ones(1), full_graph=False, max_unroll=8)


# ------------------------------------------- a counter of a loop with a traced break
# ``while True: ...; if abs(prev - loss) < tol: break; ...; it += 1``: rolling
# turns ``it`` into an int of the graph, still eager's Python int, and counting
# by one it would take 2**31 iterations to leave int32. Such a loop used to
# unroll up to max_unroll iterations, each nested under the last one's traced
# exit (a 20-30 s conversion); it now rolls. A number bound any other way keeps
# the exact rule.

XS = jnp.array([1.0, 2.0, -1.0, 0.5])
YS = jnp.array([2.0, 4.1, -2.0, 0.9])


def _loss(w):
    return jnp.mean((w * XS - YS) ** 2)


def train_until_converged(w, lr, tol):
    prev = None
    it = 0
    while True:
        loss = _loss(w)
        if prev is not None and abs(prev - loss) < tol:
            break
        if it >= 200:
            break
        prev = loss
        w = w - lr * jax.grad(_loss)(w)
        it += 1
    return w, it, float(loss)


@pytest.mark.parametrize("lr,tol", [(0.1, 1e-4), (0.01, 1e-9), (0.3, 1e-1)])
def test_counter_of_a_loop_with_a_traced_break_rolls(lr, tol):
    e = check(train_until_converged, jnp.float32(0.0), lr, tol, graphs=1)
    modes = {(d.construct, d.mode) for d in e.decisions}
    assert ("while", "lax.while_loop") in modes and not any(d.construct == "while" and d.mode == "unrolled"
                                                            for d in e.decisions)


def doubling_until_big(x, limit):
    k = 1
    while True:
        if x.sum() * k > limit:
            break
        k = k * 2 + 1     # not a counter by one: may leave int32 in 31 iterations
        x = x + 1.0
        if k > 10**12:
            break
    return k, x


@pytest.mark.parametrize("limit", [5.0, 1e6, 1e30])
def test_a_number_grown_otherwise_stays_exact(limit):
    check(doubling_until_big, XS, limit, full_graph=False)


def counted_countdown(x):
    n = 40
    while True:
        x = x * 0.9
        n -= 1
        if n == 0:
            break
    return n, x


def test_a_counter_with_a_static_exit_stays_static():
    # no traced exit: the loop's end is static, the counter is eager's int whatever the loop becomes
    e = check(counted_countdown, XS, graphs=1)
    assert e.result[0] == 0 and type(e.result[0]) is int


def fit_counting(w):
    count = 0
    for step in range(300):
        w = w - 0.1 * w
        if jnp.abs(w).sum() < 1e-3:
            break
        if w.sum() > 1.0:
            count += 1
    return w, count


@pytest.mark.parametrize("w", [jnp.ones(3), jnp.zeros(3), jnp.full(3, 1e4)], ids=["ends", "at-once", "never"])
def test_counter_of_a_for_with_a_traced_break_rolls(w):
    # it unrolled all 300 iterations (a 24 s compile) because `count` was a Python int
    e = check(fit_counting, w, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


# a counter counted under a traced condition is traced after the first iteration either way: the loop
# rolls (it unrolled every iteration: "rolling would turn Python scalar 'cnt' into a 32-bit array")
def count_positive(x):
    cnt, down, tot = 0, 7, 0.0
    for v in x:   # the rows of an array
        if v > 0:
            cnt += 1
        else:
            down -= 1
            tot += float(v)
    return jnp.zeros(2) + cnt, cnt * 2 ** 30, cnt / 3, type(cnt), down, tot


def count_in_nested_loops(x):
    cnt = 0
    for i in range(20):
        for j in range(3):
            if x[i] > j:
                cnt += 1   # (in a nested loop: at most 32 bits, the 2**31-steps rule)
    return cnt, cnt * 2 ** 29, x[cnt % 20]


def test_a_counter_under_a_traced_condition_rolls_and_stays_an_exact_python_int():
    xs = [(jnp.linspace(-1.0, 1.0, 30),), (jnp.zeros(30),), (jnp.ones(30),)]
    f = check_calls(count_positive, xs)
    assert for_modes(explain(f)(*xs[0])) == ["lax.scan"]
    g = check_calls(count_in_nested_loops, [(jnp.linspace(-1.0, 4.0, 20),), (jnp.full(20, 9.0),)])
    assert for_modes(explain(g)(jnp.zeros(20))) == ["lax.fori_loop", "unrolled"]   # (the inner: 3 iterations)


# Python ints doubled by sums past int64: eager's int is exact, the graph's int64 wrapped silently (a
# carried int of unknown bits was taken for a counter, and a list item of 63 bits lost its bits)
def doubled(v):
    n = int(v[0] > 0) + 1   # a traced Python int
    for _ in range(70):     # rolled: n carried
        n = n + n
    return n


def doubled_items(v):
    c = [1, 1]
    c[int(v[0] > 0)] += 1
    for _ in range(70):
        c[0] = c[0] + c[0]
    return c


def doubled_beside_a_counter(v):
    counts = [2 ** 50] * 2
    for k in range(14):     # unrolled: each item a select of the last
        b = jnp.clip((v[k] * 2).astype(int), 0, 1)
        counts[b] += 1
        counts[0] = counts[0] + counts[0]
    return counts


def test_python_ints_summed_past_int64_stay_exact():
    for fn, n in ((doubled, 3), (doubled_items, 3), (doubled_beside_a_counter, 14)):
        check_calls(fn, [(jnp.linspace(0.0, 1.0, n),), (-jnp.ones(n),)], full_graph=False)
