"""Early exits: `break`, `continue` and `return` under static and traced
conditions, in unrolled and rolled loops and in plain branches; inputs that
take each exit and none."""

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .common import NEG, X, modes_of
from .coverage import covers

EXITS = [X, X * 100, -X - 1]
EXIT_IDS = ["late", "first", "never"]


def early_stop_rolled(x):
    loss = x
    for step in range(40):
        loss = loss * 0.5 + step
        if loss.sum() > 30:
            break
    return loss


@covers("Break", "flag", "`break` under a traced `if` in a rolled `for` (40 iterations)")
@pytest.mark.parametrize("x", EXITS, ids=EXIT_IDS)
def test_break_in_rolled_for(x):
    e = check(early_stop_rolled, x, graphs=1)
    assert ("exit", "flag") in modes(e) and modes_of(e, "for") == ["lax.fori_loop"]


def early_stop_step_used(x):
    loss = x
    for step in range(40):
        loss = loss * 0.5 + step
        if loss.sum() > 30:
            break
    return loss, step


@covers("Break", "flag", "`break` under a traced `if`, loop variable read after the loop (40 iterations)")
@pytest.mark.parametrize("x", EXITS, ids=EXIT_IDS)
def test_break_loop_variable_used_after(x):
    # the loop variable is carried: after the loop it is the index at the break
    e = check(early_stop_step_used, x, full_graph=True, graphs=1)
    assert ("exit", "flag") in modes(e) and modes_of(e, "for") == ["lax.fori_loop"]


def break_unrolled(x):
    for w in [2.0, 3.0, 4.0]:
        if x.max() > 10:
            break
        x = x * w
    return x


@covers("Break", "flag", "`break` under a traced `if` in an unrolled `for` over a list")
@pytest.mark.parametrize("x", EXITS, ids=EXIT_IDS)
def test_break_in_unrolled_for(x):
    e = check(break_unrolled, x, graphs=1)
    assert ("exit", "flag") in modes(e) and modes_of(e, "for") == ["unrolled"]


def break_static(x, stop):
    for i in range(6):
        if i == stop:
            break
        x = x + i
    else:
        x = -x
    return x


@covers("Break", "pruned", "`break` under a static `if` (pruned per iteration); `for ... else`")
@pytest.mark.parametrize("stop", [2, 99])
def test_break_static(stop):
    e = check(break_static, X, stop, graphs=1)
    assert set(modes_of(e, "if")) == {"pruned"}


def break_while(x):
    while x.sum() < 1000:
        x = x * 2 + 1
        if x.max() > 50:
            break
    else:
        x = x * 0
    return x


@covers("Break", "flag", "`break` out of a traced `while` (`lax.while_loop`) with an `else` clause")
@pytest.mark.parametrize("x", [X, X * 30, X * 1000], ids=["break", "first", "never"])
def test_break_in_traced_while(x):
    e = check(break_while, x, graphs=1)
    assert modes_of(e, "while") == ["lax.while_loop"] and ("exit", "flag") in modes(e)


def skip_negative_rows(m):
    total = jnp.zeros(())
    for row in m:
        if row.sum() < 0:
            continue
        total = total + row.sum()
    return total


@covers("Continue", "flag", "`continue` under a traced `if` in a `lax.scan` over rows")
def test_continue_in_scan():
    m = jnp.arange(60.0).reshape(20, 3) * jnp.where(jnp.arange(20) % 3 == 0, -1.0, 1.0)[:, None]
    e = check(skip_negative_rows, m, graphs=1)
    assert ("exit", "flag") in modes(e) and modes_of(e, "for") == ["lax.scan"]


def continue_static(x):
    for i in range(5):
        if i % 2:
            continue
        x = x * 2 + i
    return x


@covers("Continue", "pruned", "`continue` under a static `if` in an unrolled loop")
def test_continue_static():
    e = check(continue_static, X, graphs=1)
    assert set(modes_of(e, "if")) == {"pruned"}


def continue_while(x):
    k = 0
    while k < 8:
        k += 1
        if (x[k % 3] * k) % 2 > 0.5:
            continue
        x = x + k
    return x, k


@covers("Continue", "flag", "`continue` under a traced `if` in a static-counter `while`")
@pytest.mark.parametrize("x", [X, X + 0.5], ids=["int", "half"])
def test_continue_in_while(x):
    e = check(continue_while, x, graphs=1)
    assert ("exit", "flag") in modes(e)


def clip_or_scale(x):
    if x.sum() > 10:
        return jnp.clip(x, 0, 1)
    y = x * 2
    if y.min() < -3:
        return y + 100
    return y


@covers("Return", "joined", "`return` under traced `if`s outside loops: the rest runs in the other branch")
@pytest.mark.parametrize("x", [X * 10, NEG, X], ids=["first", "second", "end"])
def test_return_under_traced_if(x):
    e = check(clip_or_scale, x, graphs=1)
    assert modes_of(e, "return") == ["joined", "joined"]


def find_first(x):
    for i in range(40):
        x = x * 1.5
        if x.sum() > 30:
            return x, i
    return x, -1


@covers("Return", "flag", "`return` from a rolled loop under a traced `if`")
@pytest.mark.parametrize("x", EXITS, ids=EXIT_IDS)
def test_return_from_rolled_loop(x):
    e = check(find_first, x, graphs=1)
    assert ("exit", "flag") in modes(e)


def return_static(x, flag):
    if flag:
        return x
    return x * 2, None


@covers("Return", "pruned", "`return` under a static `if`; the two returns have different structures")
@pytest.mark.parametrize("flag", [True, False])
def test_return_under_static_if(flag):
    e = check(return_static, X, flag, graphs=1)
    assert modes_of(e, "if") == ["pruned"]


def bare_return(x, n):
    y = x * 2
    if n > 5:
        return
    return None


@covers("Return", "pruned", "bare `return` and `return None`")
@pytest.mark.parametrize("n", [3, 7])
def test_bare_return(n):
    e = check(bare_return, X, n, graphs=1)
    assert modes_of(e, "if") == ["pruned"]


def return_from_nested_loops(x):
    for i in range(3):
        for j in range(20):
            x = x + 1
            if x.sum() > 30:
                return x, i
    return x, -1


@covers("Return", "flag", "`return` from the inner of two loops under a traced `if`")
@pytest.mark.parametrize("x", EXITS, ids=EXIT_IDS)
def test_return_from_nested_loops(x):
    e = check(return_from_nested_loops, x, graphs=1)
    assert ("exit", "flag") in modes(e)
