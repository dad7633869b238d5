"""Early exits: break / continue / return under traced conditions, in every
kind of loop, and for/while ... else. Every case against the eager run, one
graph (full_graph=True), on inputs that take each exit and none."""

import jax.numpy as jnp
import pytest

from helpers import check, modes

X = jnp.arange(3.0)
INPUTS = [X, X * 100, -X - 1]
IDS = ["late", "first", "never"]


def loop_modes(e):
    return [m for c, m in modes(e) if c in ("for", "while")]


def break_rolled(x):
    acc = x
    for i in range(40):
        if acc.sum() > 20:
            break
        acc = acc * 2 + i
    return acc


def break_unrolled(x):
    acc = x
    for i in range(6):
        if acc.sum() > 20:
            break
        acc = acc * 2 + i
    return acc


def break_unrolled_target_used(x):
    for i in range(6):
        if x.sum() > 20:
            break
        x = x * 2 + 1
    return x, i


def break_rows(x):
    total = jnp.zeros(())
    for row in jnp.ones((30, 3)) * x:
        total = total + row.sum()
        if total > 50:
            break
    return total


def break_while(x):
    i = 0
    while i < 10:
        x = x + 1
        if x.sum() > 12:
            break
        i += 1
    return x, i


def break_traced_while(x):
    while x.sum() < 1000:
        x = x * 2 + 1 + jnp.abs(x)
        if x.max() > 50:
            break
    return x


def continue_rolled(x):
    acc = jnp.zeros(())
    for i in range(30):
        if (x[i % 3] + i) % 2 > 0.5:
            continue
        acc = acc + x[i % 3] * i
    return acc


def continue_unrolled(x):
    acc = jnp.zeros(())
    for v in [1.0, 2.0, 3.0, 4.0]:
        if x.sum() * v > 10:
            continue
        acc = acc + v
    return acc


def return_in_loop(x):
    for i in range(40):
        x = x * 1.5
        if x.sum() > 30:
            return x, True
    return x, False


def return_in_unrolled_loop(x):
    for w in [2.0, 3.0, 4.0]:
        x = x * w
        if x.max() > 10:
            return x - 1
    return x + 1


def return_in_while(x):
    n = 0
    while n < 100:
        n += 1
        if jnp.abs(x).sum() > 100:
            return x, n
        x = x * 2 + 1
    return -x, n


def for_else(x):
    for i in range(20):
        if x.sum() > 40:
            break
        x = x + 1
    else:
        x = x * 0
    return x


def while_else(x):
    k = 0
    while k < 5:
        if x.sum() > 10:
            break
        x = x + 2
        k += 1
    else:
        x = -x
    return x, k


def nested_break(x):
    acc = jnp.zeros(())
    for i in range(4):
        for j in range(20):
            if acc > 10 * (i + 1):
                break
            acc = acc + x.sum() + j
        acc = acc + 1
    return acc


def return_from_inner_loop(x):
    for i in range(3):
        for j in range(20):
            x = x + 1
            if x.sum() > 30:
                return x, i
    return x, -1


def break_then_more(x):
    for i in range(25):
        if x.sum() > 15:
            x = x - 1
            break
        elif x.sum() < -15:
            continue
        x = x + i
    y = x * 2
    return y


CASES = [break_rolled, break_unrolled, break_unrolled_target_used, break_rows, break_while,
         break_traced_while, continue_rolled, continue_unrolled, return_in_loop, return_in_unrolled_loop,
         return_in_while, for_else, while_else, nested_break, return_from_inner_loop, break_then_more]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
@pytest.mark.parametrize("x", INPUTS, ids=IDS)
def test_early_exit_one_graph(fn, x):
    e = check(fn, x, graphs=1)
    assert not e.fallback_sites


def test_rolled_break_is_a_flag_in_a_rolled_loop():
    e = check(break_rolled, X, graphs=1)
    assert loop_modes(e) == ["lax.fori_loop"]
    assert ("exit", "flag") in modes(e)


def test_traced_while_break_condition_includes_the_flag():
    e = check(break_traced_while, X, graphs=1)
    assert loop_modes(e) == ["lax.while_loop"]
    assert "not_and" in e.ir_text


def test_rolled_loop_variable_after_traced_break_is_carried():
    def f(x):
        for i in range(40):
            if x.sum() > 20:
                break
            x = x * 2
        return x, i

    # i is carried: after the loop it holds the index at the break (issue 16)
    e = check(f, X, full_graph=True, graphs=1)
    assert loop_modes(e) == ["lax.fori_loop"]
    e = check(f, X, full_graph=True, graphs=1, max_unroll=8)
    assert loop_modes(e) == ["lax.fori_loop"]


def unconditional_return_in_body(x):
    for i in range(30):
        x = x * 2
        return x, i
    return x, -1


def unconditional_return_in_while(x):
    while x.sum() < 100:
        x = x + 1
        return x
    return -x


@pytest.mark.parametrize("fn", [unconditional_return_in_body, unconditional_return_in_while])
@pytest.mark.parametrize("x", INPUTS, ids=IDS)
def test_unconditional_return_in_loop_body(fn, x):
    check(fn, x, graphs=1)


def bool_of_array(x):
    if bool(x.sum() > 3):
        return x * 2
    return x


@pytest.mark.parametrize("x", INPUTS, ids=IDS)
def test_bool_of_traced_scalar_is_its_truth_value(x):
    check(bool_of_array, x, graphs=1)


# A body ending in an unconditional `break` has no back edge, so SSA puts no
# phi at the loop header for what it assigns; the loop state must still carry
# it out of the loop (found by the differential fuzzer: the graph returned the
# values from before the loop).
def unconditional_break_in_while(x):
    while x[0] < x[1]:
        x = x + 1.0
        break
    return x


def unconditional_break_in_while_new_name(x):
    y = x
    while x.sum() < 100:
        y = x * 3
        x = x + 1
        break
    return x, y


def unconditional_break_in_rolled_for(x):
    s = x
    for i in range(x.shape[0] + jnp.argmax(x) + 20):
        s = s + i
        break
    return s


@pytest.mark.parametrize("fn", [unconditional_break_in_while, unconditional_break_in_while_new_name,
                                unconditional_break_in_rolled_for])
@pytest.mark.parametrize("x", INPUTS + [jnp.array([2.0, 1.0, 0.0])], ids=IDS + ["no_trip"])
def test_unconditional_break_in_loop_body(fn, x):
    check(fn, x, graphs=1)


# Found by the fuzzer (campaign seed 1, program 247): a traced `return` in an
# inner loop whose `else:` breaks the outer loop under a traced condition. The
# else ran on the path where the inner loop had returned, so the return was lost.
def return_in_inner_loop_with_breaking_else(x, m):
    k = 0
    for _ in range(2):
        for row in m[:2]:
            if jnp.any(x > 0.5):
                return row, k
            k = k + 1
        else:
            if x.sum() > -1:
                break
        k = 7
    return m[0] * 0, k


@pytest.mark.parametrize("x", [jnp.array([1.5, -0.3, 1.8]), jnp.array([0.1, 0.2, 0.3]),
                               jnp.array([-1.0, -2.0, 0.0])], ids=["returns", "else-breaks", "runs-on"])
def test_return_in_inner_loop_with_breaking_else(x):
    check(return_in_inner_loop_with_breaking_else, x, jnp.arange(12.0).reshape(4, 3), graphs=1)
