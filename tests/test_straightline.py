"""Straight-line code: operators, calls, attributes, subscripts, closures, helpers."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from ast2graph import explain, to_static
from helpers import check, modes

X = jnp.arange(3.0)
M = jnp.arange(6.0).reshape(2, 3)

SCALE = 3.0
OFFSETS = (1.0, 2.0, 3.0)


# ------------------------------------------------------------------ operators
def arith(x, y):
    a = x + y
    b = x - y
    c = x * y
    d = x / (y + 1.0)
    e = x // (y + 1.0)
    f = x % (y + 1.0)
    g = x ** 2
    h = 2.0 ** x
    return a, b, c, d, e, f, g, h


def test_arithmetic_on_arrays():
    check(arith, X, X[::-1] + 0.5, graphs=1)


def scalar_mix(x):
    return 2 * x + 1, 1.5 - x, 3 / (x + 1), x * True, -x, +x, abs(x - 1)


def test_arithmetic_with_python_scalars_and_unary():
    check(scalar_mix, X, graphs=1)


def comparisons(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def test_comparisons():
    check(comparisons, X, jnp.array([0.0, 2.0, 1.0]), graphs=1)


def matmul_ops(m, x):
    return m @ x, x @ x, m.T @ m


def test_matmul():
    check(matmul_ops, M, X, graphs=1)


def bitwise(a, b):
    return a & b, a | b, a ^ b, ~a, a << 1, a >> 1


def test_bitwise_on_int_arrays():
    check(bitwise, jnp.arange(4, dtype=jnp.int32), jnp.array([3, 1, 2, 0], dtype=jnp.int32), graphs=1)


def augassign(x):
    y = x
    y += 1.0
    y *= 2.0
    y -= x
    y /= 4.0
    y **= 2
    n = 3
    n += 4
    n *= 2
    return y, n


def test_augmented_assignment():
    check(augassign, X, graphs=1)


# ----------------------------------------------------------------- unpacking
def unpack(m):
    a, b = m
    (p, q), r = (a, b), a + b
    first, *rest = [a, b, r]
    *init, last = (1, 2, 3)
    return p, q, r, first, rest, init, last


def test_tuple_and_starred_unpacking():
    check(unpack, M, graphs=1)


def swap(x, y):
    x, y = y, x
    return x - y


def test_swap():
    check(swap, X, X * 3, graphs=1)


# --------------------------------------------------------------------- calls
def jnp_calls(x):
    a = jnp.sin(x) + jnp.cos(x)
    b = jnp.where(x > 1, x, -x)
    c = jnp.stack([x, x * 2])
    d = jnp.concatenate([x, x])
    e = lax.cumsum(x)
    f = jax.nn.relu(x - 1)
    g = jnp.maximum(x, 1.0)
    return a, b, c, d, e, f, g


def test_jnp_and_lax_calls():
    check(jnp_calls, X, graphs=1)


def methods(m):
    return (m.sum(axis=0), m.sum(), m.T, m.reshape(3, 2), m.reshape((-1,)),
            m.astype(jnp.int32), m.mean(axis=1), m.max(), m.argmax(axis=1), m.ravel())


def test_array_methods_and_attributes():
    check(methods, M, graphs=1)


def static_shape(m):
    rows, cols = m.shape
    z = jnp.zeros((len(m), cols * 2))
    return z + rows, m.ndim, m.size, len(m), m.dtype == jnp.float32


def test_shape_and_len_are_static():
    check(static_shape, M, graphs=1)


def at_set(x, v):
    y = x.at[1].set(v)
    z = y.at[0].add(10.0)
    w = z.at[:2].multiply(2.0)
    return x, y, z, w


def test_at_set_is_functional():
    check(at_set, X, jnp.float32(7.0), graphs=1)


def at_traced_index(x, i):
    return x.at[i].set(-1.0)


def test_at_set_traced_index():
    check(at_traced_index, X, jnp.int32(2), graphs=1)


# ---------------------------------------------------------------- subscripts
def subscripts(m, x):
    return m[0], m[1, 2], m[:, 1], m[::-1], m[..., :2], x[1:], x[-1], x[None], m[0][1:]


def test_static_subscripts_and_slices():
    check(subscripts, M, X, graphs=1)


def traced_index(x, i):
    return x[i], x[i] * 2.0


def test_traced_index():
    check(traced_index, X, jnp.int32(1), graphs=1)


def dynamic_slice(x, i):
    return lax.dynamic_slice(x, (i,), (2,))


def test_dynamic_slice_call():
    check(dynamic_slice, X, jnp.int32(1), graphs=1)


# ------------------------------------------------------------------ f-strings
def fstring(x, name):
    label = f"{name}-{x.shape[0]}-{len(x):03d}"
    return label, x * 2


def test_fstring_on_static_values():
    check(fstring, X, "layer", graphs=1)


# ---------------------------------------------------------- globals/closures
def uses_globals(x):
    return x * SCALE + OFFSETS[1], jnp.float32(len(OFFSETS))


def test_global_constants():
    check(uses_globals, X, graphs=1)


def make_closure(k, bias):
    def inner(x):
        return x * k + bias
    return inner


def test_closure_reads():
    check(make_closure(2.5, jnp.ones(3)), X, graphs=1)


def test_closure_defined_in_test():
    w = jnp.array([1.0, -1.0, 0.5])

    def fn(x):
        return jnp.dot(w, x)

    check(fn, X, graphs=1)


# -------------------------------------------------------- helpers and lambdas
def _helper(x, k=2.0):
    y = x * k
    return y + 1.0


def _helper_with_if(x, flag):
    if flag:
        return x + 1.0
    return x - 1.0


def uses_helper(x):
    return _helper(x) + _helper(x, k=3.0), _helper_with_if(x, True), _helper_with_if(x, False)


def test_nested_helper_call():
    e = check(uses_helper, X, graphs=1)
    assert ("if", "pruned") in modes(e)


def _traced_helper(x):
    if x.sum() > 2:
        y = x * 2
    else:
        y = x
    return y


def calls_traced_helper(x):
    return _traced_helper(x) + 1


def test_nested_helper_with_traced_branch():
    e = check(calls_traced_helper, X, graphs=1)
    assert ("if", "lax.cond") in modes(e)
    check(calls_traced_helper, -X, graphs=1)


def uses_lambda(x):
    sq = lambda v: v * v  # noqa: E731
    return sq(x) + (lambda a, b=1.0: a - b)(x)


def test_lambda():
    check(uses_lambda, X, graphs=1)


# ---------------------------------------------------------------- comprehensions
WS = [jnp.eye(3), 2 * jnp.eye(3), jnp.ones((3, 3))]


def comprehension(x):
    ys = [x * i for i in range(3)]
    return jnp.stack(ys), [r.sum() for r in ys if True]


def test_list_comprehension():
    e = check(comprehension, X, graphs=1)
    assert ("comprehension", "unrolled") in modes(e)


def gen_sum(x):
    return sum(w @ x for w in WS)


def test_sum_of_generator_over_static_list():
    check(gen_sum, X, graphs=1)


def dict_comp(x):
    d = {k: x * k for k in (1, 2)}
    return d[2] - d[1]


def test_dict_comprehension():
    check(dict_comp, X, graphs=1)


# ------------------------------------------------ static scalars and recompiles
def scaled(x, n):
    return x * n + n


def test_python_scalar_argument_recompiles():
    f = to_static(scaled, full_graph=True)
    e1 = explain(f)(X, 2)
    np.testing.assert_allclose(e1.result, scaled(X, 2))
    assert e1.graph_count == 1 and len(e1.record.compiled) == 1
    e2 = explain(f)(X, 5)
    np.testing.assert_allclose(e2.result, scaled(X, 5))
    assert len(e2.record.compiled) == 1  # a new specialisation
    assert f.recompiles >= 1
    e3 = explain(f)(X, 2)
    np.testing.assert_allclose(e3.result, scaled(X, 2))
    assert len(e3.record.compiled) == 0  # cached


def test_new_shape_recompiles_with_correct_result():
    f = to_static(scaled, full_graph=True)
    check(scaled, X, 2, graphs=1)
    np.testing.assert_allclose(f(X, 2), scaled(X, 2))
    np.testing.assert_allclose(f(M, 2), scaled(M, 2))


def python_only(n):
    return n * 2 + 1, str(n)


def test_pure_python_function():
    check(python_only, 4)


def int_dtype_promotion(x):
    i = jnp.arange(3)
    return x + i, i * 2, i / 2, i // 2


def test_int_float_promotion():
    check(int_dtype_promotion, X, graphs=1)


def inner_def(x):
    def g(v, k=2):
        return v * k
    return g(x) + g(x, 3)


def test_function_defined_inside():
    check(inner_def, X, graphs=1)


def _star_helper(a, b, k=1.0):
    return a * b + k


def star_call(x):
    args = (x, 2.0)
    kw = {"k": 3.0}
    return _star_helper(*args, **kw)


def test_star_args_call():
    check(star_call, X, graphs=1)


def python_builtins(x, n):
    return max(n, 2), min(x.shape), abs(-n), divmod(n, 3), int(3.7), float(n), x.shape == (3,)


def test_python_builtins_on_static_values():
    check(python_builtins, X, 5, graphs=1)


GLOBAL_ARRAY = jnp.ones(3) * 2


def global_array(x):
    return x @ GLOBAL_ARRAY


def test_global_array_captured():
    check(global_array, X, graphs=1)


def test_global_change_is_seen_on_next_call():
    global SCALE
    f = to_static(uses_globals, full_graph=True)
    old = SCALE
    try:
        np.testing.assert_allclose(f(X)[0], uses_globals(X)[0])
        SCALE = 7.0
        np.testing.assert_allclose(f(X)[0], uses_globals(X)[0])
    finally:
        SCALE = old
