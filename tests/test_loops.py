"""Loops: for over ranges/arrays/lists, while, carried values, else, break."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, modes

X = jnp.arange(3.0)
WS = [jnp.eye(3), 2 * jnp.eye(3), jnp.ones((3, 3)) / 3]


def for_modes(e):
    return [m for c, m in modes(e) if c == "for"]


def while_modes(e):
    return [m for c, m in modes(e) if c == "while"]


# ----------------------------------------------------------- range, static n
def sum_range(x, n):
    acc = x
    for i in range(n):
        acc = acc * 0.5 + i
    return acc


@pytest.mark.parametrize("n", [0, 1, 5])
def test_static_range_unrolled(n):
    e = check(sum_range, X, n, graphs=1)
    assert for_modes(e) == ["unrolled"]


def test_static_range_rolled_fori():
    e = check(sum_range, X, 40, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def range_start_stop_step(x, start, stop, step):
    acc = x
    for i in range(start, stop, step):
        acc = acc + i * x
    return acc


@pytest.mark.parametrize("args", [(2, 7, 1), (1, 10, 3), (5, 0, -1), (10, -3, -2), (3, 3, 1), (5, 6, 1)])
def test_range_start_stop_step_unrolled(args):
    e = check(range_start_stop_step, X, *args, graphs=1)
    assert for_modes(e) == ["unrolled"]


@pytest.mark.parametrize("args", [(3, 60, 1), (100, 10, -2), (50, -20, -3)])
def test_range_start_stop_step_rolled(args):
    e = check(range_start_stop_step, X, *args, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def loop_var_after(x, n):
    i = -1
    for i in range(n):
        x = x + 1.0
    return x, i


@pytest.mark.parametrize("n", [0, 1, 4, 30])
def test_loop_variable_used_after_static_range(n):
    check(loop_var_after, X, n, graphs=1)


def loop_var_after_step(x):
    for j in range(50, 3, -7):
        x = x + j
    return x * j


def test_loop_variable_after_rolled_negative_step():
    e = check(loop_var_after_step, X, graphs=1, unroll_limit=2)
    assert for_modes(e) == ["lax.fori_loop"]


# ------------------------------------------------------------ traced bound
def traced_bound(x, n):
    acc = x
    for i in range(n):
        acc = acc + i
    return acc


@pytest.mark.parametrize("n", [0, 1, 7])
def test_range_of_traced_int_array(n):
    # eager: range() accepts a 0-d int array through __index__
    e = check(traced_bound, X, jnp.int32(n), graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def traced_start_step(x, a, b):
    acc = x
    for i in range(a, b, 2):
        acc = acc * 0.5 + i
    return acc


@pytest.mark.parametrize("a,b", [(0, 0), (1, 2), (1, 9), (9, 1)])
def test_range_traced_start_stop(a, b):
    e = check(traced_start_step, X, jnp.int32(a), jnp.int32(b), graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


# ----------------------------------------------------------- rows of arrays
def over_rows(m):
    acc = jnp.zeros(m.shape[1:])
    for row in m:
        acc = acc * 0.9 + row
    return acc


def test_for_over_rows_small_unrolled():
    e = check(over_rows, jnp.arange(12.0).reshape(4, 3), graphs=1)
    assert for_modes(e) == ["unrolled"]


def test_for_over_rows_large_scan():
    e = check(over_rows, jnp.arange(120.0).reshape(40, 3) / 40, graphs=1)
    assert for_modes(e) == ["lax.scan"]


def rows_last(m):
    total = 0.0
    for r in m:
        total = total + r.sum()
    return total, r


def test_scan_row_used_after_loop():
    e = check(rows_last, jnp.arange(60.0).reshape(20, 3), graphs=1)
    assert for_modes(e) == ["lax.scan"]


# -------------------------------------------------------------- python lists
def over_weights(x, ws):
    for w in ws:
        x = jnp.tanh(w @ x)
    return x


def test_for_over_list_of_weights_unrolled():
    e = check(over_weights, X, WS, graphs=1)
    assert for_modes(e) == ["unrolled"]


def enumerate_zip(x, ws, scales):
    out = []
    for k, (w, s) in enumerate(zip(ws, scales)):
        out.append(w @ x * s + k)
    return out


def test_enumerate_zip_unrolled():
    e = check(enumerate_zip, X, WS, (1.0, 2.0, 3.0), graphs=1)
    assert for_modes(e) == ["unrolled"]


# --------------------------------------------------------------- nested loops
def nested(x):
    acc = jnp.zeros_like(x)
    for i in range(3):
        for j in range(4):
            if x.sum() > i * j:
                acc = acc + x * j
            else:
                acc = acc - i
    return acc


@pytest.mark.parametrize("x", [X, -X, X * 3])
def test_nested_loops_with_traced_if(x):
    e = check(nested, x, graphs=1)
    assert "lax.cond" in [m for c, m in modes(e) if c == "if"]


def nested_rolled(x):
    acc = x
    for i in range(20):
        for j in range(3):
            if acc.sum() > 10:
                acc = acc * 0.5
            else:
                acc = acc + j
    return acc


def test_nested_rolled_outer_with_unrolled_inner():
    e = check(nested_rolled, X, graphs=1)
    assert "lax.fori_loop" in for_modes(e)
    assert ("if", "lax.cond") in modes(e)


def nested_static_if(x, n):
    for i in range(n):
        if i % 2 == 0:
            x = x + i
        else:
            x = x * 2
    return x


def test_static_if_in_unrolled_loop():
    e = check(nested_static_if, X, 5, graphs=1)
    assert ("if", "pruned") in modes(e)


# ---------------------------------------------------------------------- while
def newton_sqrt(a):
    x = a
    while jnp.abs(x * x - a).max() > 1e-3:
        x = 0.5 * (x + a / x)
    return x


@pytest.mark.parametrize("a", [jnp.array([1.0, 4.0, 9.0]), jnp.array([2.0, 100.0, 0.5])])
def test_while_traced_newton(a):
    e = check(newton_sqrt, a, graphs=1)
    assert while_modes(e) == ["lax.while_loop"]


def halve(x):
    n = 0
    while x.max() > 1.0:
        x = x / 2
        n = n + 1
    return x, n


@pytest.mark.parametrize("x", [X * 0.1, X, X * 100], ids=["zero-trips", "one-trip", "many"])
def test_while_traced_halving(x):
    e = check(halve, x, graphs=1)
    assert while_modes(e) == ["lax.while_loop"]


def counter_while(x, n):
    i = 0
    while i < n:
        x = x + i
        i += 1
    return x, i


@pytest.mark.parametrize("n", [0, 1, 4])
def test_while_static_counter(n):
    e = check(counter_while, X, n, graphs=1)
    assert while_modes(e) == (["static"] if n == 0 else ["unrolled"])


def pure_python_while(x, n):
    k = 1
    while k < n:
        k *= 2
    return x * k


def test_while_static_pure_python():
    e = check(pure_python_while, X, 100, graphs=1)
    assert while_modes(e) == ["static"]


def counter_then_traced(x):
    i = 0
    while i < 3 or x.sum() < 100:
        x = x + 10.0
        i = i + 1
    return x


def test_while_static_then_traced():
    e = check(counter_then_traced, X, graphs=1)
    assert set(while_modes(e)) <= {"peeled", "lax.while_loop"}
    assert "lax.while_loop" in while_modes(e)


# --------------------------------------------------------------- carried values
def widen(x, n):
    acc = 0
    for i in range(n):
        acc = acc + x * i
    return acc


@pytest.mark.parametrize("n", [0, 3, 30])
def test_carried_python_int_widens_to_array(n):
    # 0 (a 0-d int) -> f32[3] is a shape change on the first trip only: the long
    # loop rolls after that trip is peeled (h-model19), a short one unrolls
    e = check(widen, X, n, graphs=1)
    assert for_modes(e) == (["peeled", "lax.fori_loop"] if n > 17 else ["unrolled"])


def widen_scalar(x, n):
    acc = 0
    for i in range(n):
        acc = acc + x[0] * i + 0.5
    return x * acc


@pytest.mark.parametrize("n", [0, 3, 30])
def test_carried_python_int_widens_to_float_scalar(n):
    e = check(widen_scalar, X + 1.0, n, graphs=1)
    assert for_modes(e) == (["lax.fori_loop"] if n == 30 else ["unrolled"])


def widen_while(x):
    acc = 0
    while x.sum() < 50:
        x = x * 2 + 1
        acc = acc + x.sum()
    return acc + 1.0


@pytest.mark.parametrize("x", [X, X + 100], ids=["runs", "never"])
def test_carried_widening_in_while(x):
    # acc is the Python int 0 if the loop never runs, a jax.Array otherwise:
    # its kind depends on the data, carried by a run-time kind tag (one graph)
    check(widen_while, x, graphs=1)


def carried_tuple(x, n):
    state = (x, jnp.float32(0.0))
    for i in range(n):
        a, b = state
        state = (a * 0.5, b + a.sum())
    return state


@pytest.mark.parametrize("n", [2, 25])
def test_loop_carried_tuple(n):
    check(carried_tuple, X, n, graphs=1)


def carried_dict(x):
    d = {"a": x, "b": 0.0}
    for i in range(20):
        d = {"a": d["a"] + 1.0, "b": d["b"] + d["a"].sum()}
    return d


def test_loop_carried_dict():
    e = check(carried_dict, X, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def carried_static_constant(x):
    k = 2.0
    for i in range(30):
        x = x * k - 1.0
    return x, k


def test_unchanged_static_value_in_rolled_loop():
    check(carried_static_constant, jnp.ones(3) * 0.5, graphs=1)


# ----------------------------------------------------------------- else clauses
def for_else(x, n):
    for i in range(n):
        x = x + 1.0
    else:
        x = x * 10.0
    return x


@pytest.mark.parametrize("n", [0, 2, 30])
def test_for_else_without_break(n):
    check(for_else, X, n, graphs=1)


def while_else(x):
    while x.sum() < 20:
        x = x + 1.0
    else:
        x = -x
    return x


@pytest.mark.parametrize("x", [X, X * 10])
def test_while_else_without_break(x):
    e = check(while_else, x, graphs=1)
    assert while_modes(e) == ["lax.while_loop"]


# ------------------------------------------------------------------------ break
def static_break(x, n):
    for i in range(10):
        if i >= n:
            break
        x = x + i
    else:
        x = x * 100
    return x


@pytest.mark.parametrize("n", [0, 3, 20])
def test_break_on_static_condition(n):
    e = check(static_break, X, n, graphs=1)
    assert for_modes(e) == ["unrolled"]


def static_continue(x):
    for i in range(6):
        if i % 2:
            continue
        x = x * 2 + i
    return x


def test_continue_on_static_condition():
    check(static_continue, X, graphs=1)


def while_true_break(x):
    i = 0
    while True:
        x = x + i
        i += 1
        if i == 4:
            break
    return x


def test_while_true_static_break():
    check(while_true_break, X, graphs=1)


# ------------------------------------------------------------- unroll_limit
def twelve(x):
    for i in range(12):
        x = x * 0.9 + i
    return x


def test_unroll_limit_option_changes_decision():
    e = check(twelve, X, graphs=1)
    assert for_modes(e) == ["unrolled"]
    e = check(twelve, X, graphs=1, unroll_limit=4)
    assert for_modes(e) == ["lax.fori_loop"]


def test_unroll_limit_for_rows():
    m = jnp.arange(15.0).reshape(5, 3)
    assert for_modes(check(over_rows, m, graphs=1)) == ["unrolled"]
    assert for_modes(check(over_rows, m, graphs=1, unroll_limit=2)) == ["lax.scan"]


def pure_python_for(x):
    k = 1
    for _ in range(100):
        k = k * 3 % 11
    return x * k, k


def test_pure_python_for_is_static():
    e = check(pure_python_for, X, graphs=1)
    assert for_modes(e) == ["static"]


def python_index_sum_as_shape(x):
    n = 0
    for i in range(20):
        n += i
    return jnp.zeros(n % 7) + x.sum()


def test_pure_python_loop_using_index_stays_static():
    e = check(python_index_sum_as_shape, X, graphs=1)
    assert for_modes(e) == ["static"]


def list_append(x):
    ys = []
    for i in range(4):
        ys.append(x * i)
    return jnp.stack(ys)


def test_list_append_in_unrolled_loop():
    check(list_append, X, graphs=1)


# ------------------------------------------------- static break beyond the limit
def long_static_break(x, n):
    for i in range(40):
        if i >= n:
            break
        x = x + i
    return x


@pytest.mark.parametrize("n", [0, 30, 50])
def test_for_static_break_beyond_unroll_limit_is_one_graph(n):
    # Rolled, the index is traced, so the break becomes a carried flag.
    e = check(long_static_break, X, n, graphs=1)
    assert for_modes(e) == ["lax.fori_loop"]


def grows_with_parity_test(x):
    for i in range(20):
        if i % 2 == 0:
            x = jnp.concatenate([x, x[:1]])
    return x


def test_decisions_of_abandoned_roll_are_dropped():
    # Rolling fails (x changes shape), so the loop unrolls; the traced `if`
    # of the abandoned rolled attempt must not appear in explain.
    e = check(grows_with_parity_test, X, graphs=1)
    assert for_modes(e) == ["unrolled"]
    assert "lax.cond" not in e.lowered_source
    assert ("if", "lax.cond") not in modes(e)


def long_while_static_break(x, n):
    i = 0
    while i < 100:
        if i >= n:
            break
        x = x + i
        i += 1
    return x, i


def test_while_static_break_within_unroll_limit():
    e = check(long_while_static_break, X, 5, graphs=1)
    assert while_modes(e) == ["unrolled"]


def test_while_static_break_beyond_unroll_limit_falls_back_correctly():
    check(long_while_static_break, X, 30, full_graph=False)


def test_while_static_break_beyond_unroll_limit_is_graph():
    check(long_while_static_break, X, 30, graphs=1)


# --------------------------------------------------------- Python ints widened
def python_int_grows(x):
    k = 1
    for i in range(30):
        x = x + 1.0
        k = k * 3
    return x, k


def test_carried_python_int_does_not_overflow():
    check(python_int_grows, X, graphs=1)


def python_int_small(x):
    k = 1
    for i in range(30):
        x = x + 1.0
        k = k * 3 % 1000
    return x, k


def test_carried_python_int_unrolls_for_exact_eager_semantics():
    # Rolling would make k an int32 array; 30 <= max_unroll, so it unrolls and k stays a Python int.
    e = check(python_int_small, X, graphs=1)
    assert for_modes(e) == ["unrolled"]


def dtype_changing_for(x, n):
    y = jnp.zeros(3, jnp.int32)
    for i in range(n):
        y = y + x
    return y


def dtype_changing_while(x, n):
    y = jnp.zeros(3, jnp.int32)
    i = 0
    while i < n:
        y = y * 0.5 + x
        i += 1
    return y


@pytest.mark.parametrize("n", [jnp.array(0), jnp.array(2), 0, 2, 40])
def test_loop_that_may_run_zero_times_keeps_the_entry_dtype(n):
    """An array whose dtype the body changes (int32 to float32) is int32 after
    zero iterations, as in eager (the rolled loop carried the promoted dtype:
    zeros of float32 came back for a traced n of 0; noticed by helper-17).
    Such a loop runs as Python control flow; a static trip count stays one graph."""
    e = check(dtype_changing_for, jnp.ones(3), n, full_graph=False)
    assert (e.graph_count == 1) == (not isinstance(n, jax.Array))
    check(dtype_changing_while, jnp.ones(3), n, full_graph=False)


# ------------------------------------- a rolled loop over the rows of a NumPy array
# The row is of the array's kind: iterating a NumPy array gives NumPy scalars (rows: ndarray views).
# A float64 sum carried over it came back as a float32 jax.Array (the rows were taken for jax.Arrays),
# and `row += 1` over a rolled loop's rows missed the array (a row is a view of it).
def sum_rows(batch, s):
    for x in batch:
        s += x
    return s


def add_to_rows(M):
    for row in M:
        row += 1
    return M


def write_rows(M):
    for row in M:
        row[0] = row[1] * 2
    return M.sum()


@pytest.mark.parametrize("s", [np.float64(0.5), 0.5, np.float32(0.5)], ids=["f64", "float", "f32"])
@pytest.mark.parametrize("n", [10, 300])
def test_sum_over_numpy_elements_keeps_their_kind_and_dtype(n, s):
    check(sum_rows, np.linspace(-1, 1, n), s, full_graph=True)
    check(sum_rows, np.linspace(-1, 1, n).astype(np.float32), s, full_graph=True)


@pytest.mark.parametrize("fn", [add_to_rows, write_rows])
@pytest.mark.parametrize("n", [4, 40])
def test_writes_through_the_rows_of_a_numpy_array(fn, n):
    check(fn, np.arange(2.0 * n).reshape(n, 2), full_graph=False)
