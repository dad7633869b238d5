"""Loops: `for` over ranges, array rows, lists, dicts, enumerate/zip and strings;
`while` on static and traced conditions; `else` clauses; carried values."""

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .common import X, codes, modes_of
from .coverage import covers

WS = [jnp.eye(3), 2 * jnp.eye(3), jnp.ones((3, 3)) / 3]


def rnn(x, n):
    h = jnp.zeros(3)
    for t in range(n):
        h = jnp.tanh(h * 0.5 + x * t)
    return h


@covers("For", "unrolled", "`for t in range(n)`, static n <= unroll_limit")
@pytest.mark.parametrize("n", [0, 1, 5])
def test_range_unrolled(n):
    e = check(rnn, X, n, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


@covers("For", "lax.fori_loop", "`for t in range(n)`, static n above unroll_limit")
def test_range_rolled():
    e = check(rnn, X, 40, graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]


@covers("For", "lax.fori_loop", "`for t in range(n)` with a traced n (a jnp scalar)")
@pytest.mark.parametrize("n", [0, 3])
def test_range_traced_count(n):
    e = check(rnn, X, jnp.array(n), graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]


def countdown(x, step):
    for i in range(10, 0, step):
        x = x * 0.5 + i
    return x


@covers("For", "lax.fori_loop", "`for i in range(10, 0, s)` with a traced step s (a zero step raises eager's ValueError: a run-time check)")
@pytest.mark.parametrize("step", [-3, 2, 0])
def test_range_traced_step(step):
    e = check(countdown, X, jnp.array(step), graphs=1)
    assert step == 0 or modes_of(e, "for") == ["lax.fori_loop"]


def stack_layers(x, ws):
    for w in ws:
        x = jnp.tanh(w @ x)
    for k, w in enumerate(ws):
        x = x + k * w.sum()
    for a, b in zip(ws, ws[1:]):
        x = x + (a - b).mean()
    for name, scale in {"a": 1.0, "b": 0.5}.items():
        x = x * scale + len(name)
    for ch in "ab":
        x = x + ord(ch)
    return x


@covers("For", "unrolled", "over a list of weights, `enumerate`, `zip`, `dict.items()`, a str")
def test_static_iterables_unrolled():
    e = check(stack_layers, X, WS, graphs=1)
    assert modes_of(e, "for") == ["unrolled"] * 5


def row_sums(m):
    total = jnp.zeros(())
    rows = []
    for row in m:
        total = total + row.sum()
    for i, row in enumerate(m[:3]):
        rows.append(row * i)
    return total, jnp.stack(rows)


@covers("For", "lax.scan", "`for row in m` over 40 rows")
def test_rows_rolled_scan():
    e = check(row_sums, jnp.ones((40, 3)), graphs=1)
    assert modes_of(e, "for") == ["lax.scan", "unrolled"]


@covers("For", "unrolled", "`for row in m` over 4 rows, list append + `jnp.stack`")
def test_rows_unrolled():
    e = check(row_sums, jnp.arange(12.0).reshape(4, 3), graphs=1)
    assert modes_of(e, "for") == ["unrolled", "unrolled"]


def loop_var_after(x, n):
    i = -1
    for i in range(n):
        x = x + 1.0
    return x, i


@covers("For", "unrolled", "loop variable read after the loop (pre-initialised)")
@covers("For", "lax.fori_loop", "loop variable read after a rolled loop (pre-initialised)")
@pytest.mark.parametrize("n", [0, 4, 30])
def test_loop_variable_after_loop(n):
    e = check(loop_var_after, X, n, graphs=1)
    assert modes_of(e, "for") == (["lax.fori_loop"] if n > 16 else ["unrolled"])


def loop_var_undefined(x, n):
    for i in range(n):
        x = x + i
    return x, i


@covers("For", "lax.scan", "loop variable first bound by a loop with a traced trip count (carried with a "
        "defined-flag)", caveat="n == 0: eager raises UnboundLocalError at the read, so does the call (a run-time check)")
@pytest.mark.parametrize("n", [0, 3])
def test_loop_variable_may_be_undefined(n):
    check(loop_var_undefined, X, jnp.array(n), graphs=1)


def growing(x, n):
    acc = jnp.zeros(0)
    for i in range(n):
        acc = jnp.append(acc, x[i % 3])
    return acc


@covers("For", "unrolled", "an array growing each iteration, static n (cannot roll, so unrolled)")
def test_growing_carry_unrolls():
    e = check(growing, X, 20, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


@covers("For", "python control", "an array growing each iteration, traced n", code="A2G005")
def test_growing_carry_traced_count_runs_as_python():
    e = check(growing, X, jnp.array(4), full_graph=False)
    assert codes(e)[0] == "A2G005"


def for_else_no_break(x, n):
    for i in range(n):
        x = x * 0.5 + i
    else:
        x = -x
    return x


@covers("For", "unrolled", "`for ... else` without a break: `else` always runs")
def test_for_else_without_break():
    e = check(for_else_no_break, X, 3, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


def enumerate_rows(m):
    acc = jnp.zeros(3)
    for i, row in enumerate(m):
        acc = acc + row * i
    for i in reversed(range(len(m))):
        acc = acc * 0.99 + i
    return acc


@covers("For", "unrolled", "`for i, row in enumerate(m)` and `reversed(range(n))` over 40 rows",
        caveat="should roll (`lax.scan`/`fori_loop`) above the unroll limit: unrolled 40 times today")
def test_enumerate_and_reversed_over_many_rows_unroll():
    e = check(enumerate_rows, jnp.arange(120.0).reshape(40, 3) / 40, graphs=1)
    assert modes_of(e, "for") == ["unrolled", "unrolled"]


def enumerate_zip_traced_range(x, n):
    acc = jnp.zeros_like(x)
    for i, j in enumerate(range(n)):
        acc = acc + x * j - i
    for a, b in zip(range(n), range(1, 10, 2)):
        acc = acc * 0.5 + a * b
    return acc


@covers("For", "lax.fori_loop", "`enumerate(range(n))` and `zip(range(n), ...)` with a traced n: rolled over the "
        "shortest part's trip count")
@pytest.mark.parametrize("n", [0, 3, 8])
def test_enumerate_and_zip_of_a_traced_range_roll(n):
    e = check(enumerate_zip_traced_range, X, jnp.array(n), graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop", "lax.fori_loop"]


def grow_dict_while_iterating(x):
    widths = {"a": 1, "b": 2}
    for k in widths:
        widths[k + "_bias"] = 0      # eager: RuntimeError, dictionary changed size during iteration
    return x * len(widths)


@covers("For", "error as eager", "`for k in d:` that adds keys to `d`: RuntimeError (dictionary changed size "
        "during iteration) as eager; static containers are iterated live")
def test_dict_grown_while_iterating_raises_as_eager():
    check(grow_dict_while_iterating, X, full_graph=False)


def worklist(x):
    todo = [1, 2]
    for v in todo:
        x = x + v
        if v < 3:
            todo.append(v + 2)      # eager iterates the grown list too
    return x, todo


@covers("For", "unrolled", "`for v in lst:` that appends to `lst`: the new items are iterated, as eager")
def test_list_grown_while_iterating_is_iterated_further():
    check(worklist, X, graphs=1)


# ------------------------------------------------------------------ while
def newton(a, tol, max_iter):
    x = jnp.where(a > 1.0, a / 2.0, 1.0)
    it = 0
    while jnp.max(jnp.abs(x * x - a)) > tol and it < max_iter:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it


@covers("While", "lax.while_loop", "Newton iteration on a traced test `and` a Python counter")
@pytest.mark.parametrize("max_iter", [3, 50])
def test_traced_while(max_iter):
    e = check(newton, jnp.linspace(0.5, 40.0, 5), 1e-3, max_iter, graphs=1)
    assert modes_of(e, "while") == ["lax.while_loop"]


@covers("While", "unrolled", "`while traced and it < 0`: the test is false whatever the traced operand holds "
        "(`traced and <static false>`), the loop runs no iteration")
def test_traced_while_with_a_false_static_operand():
    e = check(newton, jnp.linspace(0.5, 40.0, 5), 1e-3, 0, graphs=1)
    assert modes_of(e, "while") == ["unrolled"]


def static_while(x, n):
    i = 0
    while i < n:
        x = x * 2 - i
        i += 1
    return x, i


@covers("While", "unrolled", "`while i < n` on a static counter")
@pytest.mark.parametrize("n", [0, 3, 20])
def test_static_while_unrolled(n):
    e = check(static_while, X, n, graphs=1)
    assert modes_of(e, "while") == (["unrolled"] if n else ["static"])   # no iteration: nothing traced


def python_while(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@covers("While", "trace time", "Collatz steps of a static int (pure Python work)")
def test_python_only_while_is_static():
    e = check(python_while, 27, graphs=1)
    assert modes_of(e, "while") == ["static"]


def while_else(x):
    while x.sum() < 50:
        x = x * 2 + 1
    else:
        x = x - 1
    return x


@covers("While", "lax.while_loop", "`while ... else` on a traced test, zero or more iterations")
@pytest.mark.parametrize("x", [X, X * 100], ids=["loops", "never"])
def test_while_else_traced(x):
    e = check(while_else, x, graphs=1)
    assert modes_of(e, "while") == ["lax.while_loop"]


def while_int_of_traced(x):
    k = 0
    while k < 3:
        n = int(float(str(x[k])))          # needs the value on the host
        x = x + n
        k += 1
    return x


@covers("While", "python control", "a `while` body that parses the text of a traced value (`float(str(v))`)", code="A2G003",
        caveat="the loop runs as Python control flow; the rest of its body stays compiled")
def test_while_with_host_value_runs_as_python():
    e = check(while_int_of_traced, X, full_graph=False)
    assert "A2G003" in codes(e)


def print_in_loop(x):
    for i in range(20):
        x = x * 0.5
        if i % 10 == 0:
            print("step", i, x.sum())
    return x


@covers("For", "lax.fori_loop", "`print` inside a rolled loop (ordered host callback every iteration)")
def test_print_in_rolled_loop():
    e = check(print_in_loop, X, graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]
    assert ("call", "host callback") in modes(e)


def over_arange(x):
    for t in jnp.arange(40):
        x = x * 0.9 + t
    return x


@covers("For", "lax.scan", "`for t in jnp.arange(40)` (an array: its elements are scanned)")
def test_for_over_array_elements_scans():
    e = check(over_arange, X, graphs=1)
    assert modes_of(e, "for") == ["lax.scan"]
