"""typeinfer: the lattice, widening to a fixpoint, guards and captures."""

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import FullGraphError, explain, to_static
from ast2graph.ir import ArrayType
from ast2graph.typeinfer.lattice import join_types, same_static, static_array_type

from helpers import check, modes

F32 = ArrayType((), np.dtype("float32"))
I32W = ArrayType((), np.dtype("int32"), True)


def test_join_types_promotes_and_rejects_shape_change():
    assert join_types(I32W, F32) == F32
    assert join_types(F32, F32) == F32
    assert join_types(ArrayType((3,), np.dtype("float32")), ArrayType((4,), np.dtype("float32"))) is None
    assert static_array_type(0) == ArrayType((), np.dtype("int64"), True)   # a Python int: exact, weak
    assert static_array_type(0.5) == ArrayType((), np.dtype("float64"), True)
    assert static_array_type(True).dtype == np.dtype(bool)


def test_same_static_distinguishes_types():
    assert same_static(1, 1) and not same_static(1, 1.0) and not same_static(True, 1)
    assert same_static(float("nan"), float("nan"))
    assert same_static((1, "a"), (1, "a")) and not same_static([1], [2])


def widen(x):
    acc = 0
    for i in range(30):
        acc = acc + x[i % 3]
    return acc


def count_up(x):
    n = 0
    for i in range(30):
        x = x + 1.0
        n = n + 1
    return x, n


def test_python_int_that_stays_a_python_int_is_not_widened():
    e = check(count_up, jnp.arange(3.0), graphs=1)
    assert modes(e) == [("for", "unrolled")]
    assert isinstance(e.result[1], int)


def test_python_int_widens_to_float_array_in_rolled_loop():
    e = check(widen, jnp.arange(3.0), graphs=1)
    assert ("for", "lax.fori_loop") in modes(e)
    assert "f32[]" in e.ir_text  # acc is a float array from the start


def shape_change(x):
    for i in range(30):
        x = jnp.concatenate([x, x[:1]])
    return x


def test_shape_change_in_loop_falls_back_with_the_variable_named():
    with pytest.raises(FullGraphError, match="'x'"):
        to_static(shape_change, full_graph=True, max_unroll=10)(jnp.ones(2))
    # Not full_graph: the loop unrolls instead (30 <= max_unroll) and equals eager.
    e = check(shape_change, jnp.ones(2), graphs=1)
    assert ("for", "unrolled") in modes(e)


FLAG = True
SCALE = jnp.array(2.0)


def uses_globals(x):
    if FLAG:
        return x * SCALE
    return x


def test_guards_and_captures_follow_global_changes():
    global FLAG, SCALE
    f = to_static(uses_globals, full_graph=True)
    x = jnp.ones(3)
    np.testing.assert_allclose(f(x), uses_globals(x))
    SCALE = jnp.array(5.0)  # a captured array: a graph input, re-read per call
    np.testing.assert_allclose(f(x), uses_globals(x))
    FLAG = False  # a guarded static: the call re-specialises
    try:
        np.testing.assert_allclose(f(x), uses_globals(x))
        assert f.recompiles == 1
    finally:
        FLAG, SCALE = True, jnp.array(2.0)


def fact(n, x):
    if n == 0:
        return x
    return fact(n - 1, x * n)


def test_recursion_with_static_depth_unrolls():
    e = check(fact, 4, jnp.ones(2), graphs=1)
    assert e.decisions


def runaway(x):
    return runaway(x + 1)


def test_unbounded_recursion_falls_back_and_raises_like_eager():
    with pytest.raises(FullGraphError, match="A2G011"):
        to_static(runaway, full_graph=True)(jnp.ones(2))
    with pytest.raises(RecursionError):
        to_static(runaway)(jnp.ones(2))


def static_while(x):
    i = 0
    while i < 5:
        x = x + i
        i += 1
    return x, i


def test_static_while_is_evaluated_at_trace_time():
    e = check(static_while, jnp.ones(2), graphs=1)
    assert modes(e) == [("while", "unrolled")]
