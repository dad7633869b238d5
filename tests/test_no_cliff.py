"""No cliff: a site that cannot be graph inside an `if`/`for`/`while` makes only
that construct run as Python control flow (its test or iterable evaluated in
Python); the statements of its body stay compiled, and only the statement
that needs Python runs as an interpreted node. Every case against the eager
run, on inputs that take each path."""

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static, explain
from helpers import check

X = jnp.array([1.0, 2.0, 3.0])


def sites(e):
    return [(s.code.code, s.construct) for s in e.fallback_sites]


def int_in_for(x, n):
    acc = 0.0
    for i in range(n):
        k = int(float(str(x[i % 3])))          # needs the value on the host
        x = x * 2 + i
        acc = acc + x.sum() * k
        if x.sum() > 1000:
            break
    return x, acc


@pytest.mark.parametrize("n", [0, 1, 4, 12])
def test_for_body_stays_compiled_around_an_interpreted_statement(n):
    e = check(int_in_for, X, n, full_graph=False)
    if n:
        assert sites(e) == [("A2G003", "for"), ("A2G003", "call")]
        loop = e.fallback_sites[0]
        assert "runs as Python control flow" in loop.effect and "stay compiled" in loop.effect
        # the statements after the int() ran compiled, once per iteration
        assert e.graph_count >= 2 * min(n, 3)


def test_loop_counter_does_not_recompile_every_iteration():
    f = to_static(int_in_for)
    e = explain(f)(X * 0.01, 40)
    assert len(e.record.compiled) <= 8, str(e)   # not one compile per iteration
    np.testing.assert_allclose(e.result[0], int_in_for(X * 0.01, 40)[0], rtol=1e-6)
    explain(f)(X * 0.01, 40)   # may compile the first iteration once more, with the counter traced
    e3 = explain(f)(X * 0.01, 40)
    assert not e3.record.compiled                # from then on nothing compiles


def item_in_while(x):
    steps = 0
    while x.sum() < 50:
        steps = steps + 1
        scale = float(str(x[0]))
        if scale > 4:
            x = x + scale
            continue
        x = x * 2
    else:
        x = -x
    return x, steps


@pytest.mark.parametrize("x", [X, X * 100, X * 3], ids=["several", "none", "continue"])
def test_while_with_item_runs_as_python_loop(x):
    e = check(item_in_while, x, full_graph=False)
    if float(str(x.sum())) < 50:
        assert ("A2G003", "while") in sites(e)


def counter_as_python_number(x):
    k = 0
    for i in range(6):
        k = i + 1                   # stays a Python int, as in eager
        x = x + float(str(x[0])) * 0.5
    return x, k, type(k).__name__


def test_python_numbers_in_a_python_loop_stay_python_numbers():
    e = check(counter_as_python_number, X, full_graph=False)
    assert e.result[2] == "int"
    assert type(e.result[1]) is int


def return_from_python_loop(x):
    for row in x:
        v = float(str(row.sum()))
        if v > 2.5:
            return row * v, "early"
        x = x + 1
    return x, "late"


@pytest.mark.parametrize("x", [jnp.ones((4, 2)), jnp.zeros((3, 2)), jnp.full((2, 2), -5.0)])
def test_return_inside_python_loop(x):
    check(return_from_python_loop, x, full_graph=False)


def nested_loops(x):
    out = []
    for i in range(3):
        for j in range(2):
            if int(float(str(x[i]))) % 2 == j:
                out.append(x[i] * j)
            x = x + 1
    return jnp.stack(out), x


def test_nested_loops_with_fallback_in_inner_body():
    check(nested_loops, X, full_graph=False)


def branch_with_concrete(x):
    if x.sum() > 3:
        k = int(float(str(x.sum())))
        y = x * k
    else:
        y = x - 1
    return y * 2


@pytest.mark.parametrize("x", [X, -X], ids=["taken", "not_taken"])
def test_traced_if_with_concrete_value_runs_as_python_if(x):
    e = check(branch_with_concrete, x, full_graph=False)
    assert sites(e)[0] == ("A2G003", "if")


def try_with_break_in_loop(x):
    for i in range(4):
        try:
            if float(str(x[0])) > 2:
                break
            x = x + 1
        finally:
            x = x * 1.5
    return x


def test_try_holding_a_break_runs_the_whole_loop_in_python():
    # a `try` that breaks out of the loop cannot run alone: the loop is interpreted
    e = check(try_with_break_in_loop, X, full_graph=False)
    assert sites(e) == [("A2G003", "call")]
    assert e.graph_count == 1   # only `return x` ran compiled


def raises_in_python_loop(x):
    for i in range(5):
        if int(float(str(x[0]))) > 3:
            raise ValueError(f"too big at {i}")
        x = x + 1
    return x


def test_exception_from_python_loop_is_eagers():
    check(raises_in_python_loop, X, full_graph=False)


def unpack_target(x):
    total = x[0] * 0
    for i, (a, b) in enumerate(zip(x, x[::-1])):
        total = total + a * b * int(float(str(b)))
    return total, i


def test_loop_target_unpacking_in_python_loop():
    check(unpack_target, X, full_graph=False)


def mutation_through_python_loop(x, log):
    for i in range(3):
        log.append(int(float(str(x[i]))))
        x = x * 2
    return x


def test_list_mutation_in_python_loop_visible_to_caller():
    check(mutation_through_python_loop, X, [], full_graph=False)


# Each construct of issue 4 item 1 inside a loop body: only it runs in Python,
# the statement after it in the body is compiled (one graph run per iteration).
SEEN: set = set()


def global_set_add_in_loop(x):   # (a global's assignment is written back after the call: one graph)
    for i in range(3):
        x = x * 2
        SEEN.add(i)
        x = x + 1
    return x


def match_in_loop(x):
    for i in range(3):
        match int(float(str(x[0]))) % 2:
            case 0:
                x = x + 1
            case _:
                x = x * 3
        x = x - 0.5
    return x


def raise_under_traced_condition_in_loop(x):
    for i in range(3):
        x = x * 2
        if x.sum() > 100:
            raise ValueError(f"diverged: {x.sum()}")   # a message formatted from traced values
        x = x + 1
    return x


def with_open_in_loop(x):
    import os
    for i in range(3):
        with open(os.devnull, "w") as fh:
            fh.write(str(float(str(x[0]))))
        x = x + 1
    return x


def item_in_branch_in_loop(x):
    for i in range(3):
        if x[0] > 1.5:
            v = float(str(x[1]))
            x = x + v
        x = x * 0.5
    return x


INSIDE = [global_set_add_in_loop, match_in_loop, with_open_in_loop, item_in_branch_in_loop]


@pytest.mark.parametrize("x", [X, X * 4], ids=["small", "large"])
def test_raise_with_a_traced_message_in_a_loop_is_one_graph(x):
    # a run-time check that makes eager's exception on the host (its message
    # formatted from the values); the large input raises it, as eager does
    check(raise_under_traced_condition_in_loop, x, full_graph=True)


@pytest.mark.parametrize("fn", INSIDE, ids=[f.__name__ for f in INSIDE])
@pytest.mark.parametrize("x", [X, X * 4], ids=["small", "large"])
def test_unsupported_construct_in_loop_keeps_the_body_compiled(fn, x):
    SEEN.clear()
    e = check(fn, x, full_graph=False, warm=False)
    assert SEEN in (set(), {0, 1, 2})
    if e is not None:        # None: both raised the same exception
        assert e.fallback_sites
        assert e.graph_count >= 3, str(e)
