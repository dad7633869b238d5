"""Small gaps of issue 16 item 6, each one graph with eager's result and
kinds: ``c in (2, 3)`` of a traced scalar, ``range`` with a traced step,
``len``/``enumerate`` of a traced range, builtin ``min``/``max``/``sum`` of
a traced 1-D array."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

X = jnp.arange(3.0)


# ------------------------------------------------- 1. `in` of a traced scalar
def in_tuple(c):
    return c in (2, 3)


def not_in_list(c):
    return c not in [2, 3.0]


def in_if(c, x):
    if c in (2, 3):
        return x + 1
    return x - 1


def in_traced_items(c, a, b):
    return c in [a, b], c not in (a, 7)


def in_same_object(x):
    return x in (x, 1), x not in [x]


@pytest.mark.parametrize("c", [jnp.array(2), jnp.array(4), jnp.array(3.0), jnp.array(2.5), jnp.array(True),
                               np.int32(3), np.float32(1.0), 3, 4.0])
def test_in_static_numbers(c):
    check(in_tuple, c, graphs=1)
    check(not_in_list, c, graphs=1)
    check(in_if, c, X, graphs=1)


@pytest.mark.parametrize("c,a,b", [(jnp.array(2), jnp.array(2), jnp.array(5)), (jnp.array(1), jnp.array(2), jnp.array(3)),
                                   (jnp.array(7), jnp.array(0), jnp.array(3))])
def test_in_traced_items(c, a, b):
    check(in_traced_items, c, a, b, graphs=1)


@pytest.mark.parametrize("x", [jnp.array(float("nan")), jnp.arange(3.0)])
def test_in_identity_first(x):
    check(in_same_object, x, graphs=1)


def test_in_ambiguous_array_raises_as_eager():
    check(in_tuple, jnp.arange(3), full_graph=False)


# ----------------------------------------- 3. len() of a range with traced bounds
def range_len(a, b):
    return len(range(a, b)), len(range(b)), len(range(a, b, 3)), len(range(b, a, -2))


@pytest.mark.parametrize("a,b", [(jnp.array(2), jnp.array(9)), (jnp.array(5), jnp.array(1)), (jnp.array(-4), jnp.array(-4)),
                                 (jnp.array(-7), jnp.array(3)), (1, jnp.array(6))])
def test_len_of_traced_range(a, b):
    check(range_len, a, b, graphs=1)


# ------------------------------------------------ 2. range() with a traced step
def range_traced_step(a, b, s):
    n = len(range(a, b, s))
    acc = 0
    for i in range(a, b, s):
        acc = acc + i * i
    return n, acc


def range_traced_step_loop(x, s):
    for i in range(10, 0, s):
        x = x + i
    return x


@pytest.mark.parametrize("a,b,s", [(0, jnp.array(10), jnp.array(3)), (jnp.array(9), jnp.array(-3), jnp.array(-2)),
                                   (jnp.array(2), jnp.array(2), jnp.array(1)), (jnp.array(1), jnp.array(8), jnp.array(-1)),
                                   (jnp.array(8), jnp.array(1), jnp.array(4)), (jnp.array(0), jnp.array(5), jnp.array(0)),
                                   (jnp.array(-5), jnp.array(6), 2)])
def test_range_traced_step(a, b, s):
    check(range_traced_step, a, b, s, graphs=1)


@pytest.mark.parametrize("s", [jnp.array(-3), jnp.array(-1), jnp.array(4), jnp.array(0)])
def test_range_traced_step_loop(s):
    check(range_traced_step_loop, X, s, graphs=1)


# ------------------------------------ 4. builtin max/min/sum of a traced array
NAN = float("nan")


def builtin_reductions(x):
    return max(x), min(x), sum(x)


def builtin_sum_start(x):
    return sum(x, 10), sum(x, start=0.5), sum(x, x[0])


def builtin_any_all(x):
    return any(x), all(x)


def builtin_sum_rows(x):
    return sum(x)


@pytest.mark.parametrize("x", [jnp.array([1.0, NAN, 3.0]), jnp.array([NAN, 1.0]), jnp.array([1.0, 2.0, NAN]),
                               jnp.array([-0.0, 0.0]), jnp.array([0.0, -0.0]), jnp.array([3, -1, 7, 7]),
                               np.array([1.5, NAN, -2.0]), np.array([2, 9, 4], dtype=np.int32),
                               jnp.array([True, False, True]), jnp.array([5.0])])
def test_builtin_max_min_sum_of_array(x):
    check(builtin_reductions, x, graphs=1, rtol=0, atol=0)
    check(builtin_sum_start, x, graphs=1, rtol=0, atol=0)
    check(builtin_any_all, x, graphs=1)


def test_builtin_sum_adds_left_to_right():
    # float32: eager's left fold gives 1.0; a tree reduction may not
    x = jnp.array([1e8, 1.0, -1e8, 1.0], dtype=jnp.float32)
    check(builtin_reductions, x, graphs=1, rtol=0, atol=0)


def test_builtin_sum_of_rows():
    check(builtin_sum_rows, jnp.arange(6.0).reshape(3, 2), graphs=1, rtol=0, atol=0)


@pytest.mark.parametrize("x", [jnp.zeros((0,)), np.zeros((0,), np.float32)])
def test_builtin_reductions_of_empty_array(x):
    check(builtin_sum_rows, x, graphs=1)   # 0, a Python int
    check(builtin_reductions, x, full_graph=False)   # max() arg is an empty sequence, as eager


def test_builtin_max_of_matrix_raises_as_eager():
    check(builtin_reductions, jnp.ones((2, 2)), full_graph=False)


def builtin_reductions_long(x):
    return max(x), sum(x)


def test_builtin_reductions_of_long_array_run_in_python():
    # more rows than max_unroll: no fold in the graph yet (eager's result, in Python)
    check(builtin_reductions_long, jnp.arange(300.0), full_graph=False)


def nan_items(c):
    return c in (1.0, float("nan"))


def test_in_with_nan_item_runs_in_python():
    check(nan_items, jnp.array(float("nan")), full_graph=False)
    check(nan_items, jnp.array(1.0), full_graph=False)


def chained_membership(c):
    return 0 < c in (1, 2)


def chained_membership_test(c):
    if 0 < c in (1, 2):
        return c + 1
    return c - 1


@pytest.mark.parametrize("v", [1, 5, -1])
def test_chained_comparison_with_membership_has_eagers_kind(v):
    # eager's `a and b` is a (a jax bool) or b (a Python bool) by the data: the
    # returned value runs in Python; the test of an `if` is one graph
    check(chained_membership, jnp.int32(v), full_graph=False)
    check(chained_membership_test, jnp.int32(v))


def builtin_sum_of_list(a):
    w = []
    for v in a:
        w.append(v)
    return sum(w), sum([a[0], a[1]], 0.5), sum((a[0] * 2, 1))


@pytest.mark.parametrize("a", [np.array([0.1, 0.2, 0.3]), np.array([1, 2, 3]), np.float32([0.1, 0.2, 0.7]),
                               jnp.array([0.1, 0.2, 0.3]), jnp.array([1, 2, 3])])
def test_builtin_sum_of_a_list_keeps_eager_kinds(a):
    """sum() of a list of traced values adds as eager: float64 NumPy scalars
    stay float64 (it was one XLA reduction typed float32; found by the
    issue-16 corpus's moving-average program)."""
    check(builtin_sum_of_list, a, graphs=1, rtol=0, atol=0)


# ------------------------- arrays built only from constants and shapes: folded
def ones_of_shape_array(x):
    n = jnp.asarray(x.shape)[0]
    return jnp.ones(n) * x.sum(), n


def loop_of_full(x):
    k = jnp.full([], 3)
    for i in range(k):
        x = x + i
    return x, k


def reshape_by_prod(x):
    m = jnp.array(x.shape).prod()
    return x.reshape(int(m)), m * 2, type(m).__name__ == type(jnp.zeros(())).__name__


def slice_by_constant(x):
    n = len(x) // jnp.array(2)
    return x[:n], x[n], jnp.arange(n + 1)


def folded_values_meet_traced_ones(x):
    idx = jnp.arange(3)
    big = jnp.full((100,), 2)   # too large to fold: a graph value, as before
    return x[idx] * 2, (idx + x[0].astype(jnp.int32)).sum(), big.sum()


@pytest.mark.parametrize("x", [jnp.arange(6.0), jnp.arange(6.0).reshape(2, 3), jnp.ones(4)])
def test_arrays_of_constants_and_shapes_are_folded(x):
    """``jnp.asarray(x.shape)[0]``, ``jnp.full([], 3)``, ``jnp.array(x.shape).prod()``:
    small integer arrays made only from static data are made at trace time as
    eager makes them, so a shape, a range or a slice bound can use them (they
    ran in Python: A2G003)."""
    check(ones_of_shape_array, x, graphs=1)
    check(loop_of_full, x, graphs=1)
    check(reshape_by_prod, x, graphs=1)
    if x.ndim == 1:
        check(slice_by_constant, x, graphs=1)
        check(folded_values_meet_traced_ones, x, graphs=1)


def folded_compare_and_methods(x):
    c = jnp.array([1, 2, 3])
    if (c > 1).any():   # a single comparison: eager asks no truth of `c > 1` itself
        x = x + 1
    return x, c.tolist(), int(c[1]), c < 2


def test_folded_constants_compare_and_convert_as_eager():
    check(folded_compare_and_methods, jnp.arange(3.0), graphs=1)


# ------------------------------- a nested function read only by comprehensions
def table_of_rates(n, base, x):
    def lr_at(s):   # a cell variable: the comprehension below reads it from its own scope
        return base * (0.9 ** s) if s > 2 else base * (s + 1) / 3

    return jnp.array([lr_at(s) for s in range(n)]) * x.sum()


def closure_sees_last_value(x):
    k = 1.0
    g = lambda: k   # noqa: E731 - reads the cell after the call: eager's g sees k = 2.0
    k = 2.0
    return x * k, g


@pytest.mark.parametrize("n", [1, 4, 10])
def test_nested_function_read_only_by_a_comprehension_is_one_graph(n):
    # a cell read only by list/set/dict comprehensions cannot be read after the
    # call: the nested function need not leave the graph (it fell back: A2G009)
    check(table_of_rates, n, 0.1, jnp.ones(3), graphs=1)


def test_closure_returned_still_sees_the_cell_s_last_value():
    # a lambda reads the cell after the call: its value still leaves with it
    from ast2graph import to_static

    x = jnp.ones(2)
    (y, g), (y_eager, g_eager) = to_static(closure_sees_last_value)(x), closure_sees_last_value(x)
    assert g() == g_eager() == 2.0
    assert bool((y == y_eager).all()) and y.dtype == y_eager.dtype
