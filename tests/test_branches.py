"""Branches: if/elif/else, conditional expressions, boolean operators."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, modes

TRACED_IF = {"lax.cond", "lax.switch"}  # an if/elif chain may lower to one lax.switch


def traced_if_modes(e):
    return [m for c, m in modes(e) if c == "if" and m in TRACED_IF]


X = jnp.arange(3.0)          # sum 3
NEG = -jnp.arange(1.0, 4.0)  # sum -6


# ------------------------------------------------------------- traced if/else
def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


@pytest.mark.parametrize("x", [X, NEG], ids=["then", "else"])
def test_if_else_traced(x):
    e = check(if_else, x, graphs=1)
    assert modes(e) == [("if", "lax.cond")]


def if_no_else(x):
    y = x + 1
    if x.sum() > 0:
        y = y * 3
    return y


@pytest.mark.parametrize("x", [X, NEG], ids=["taken", "skipped"])
def test_if_without_else_traced(x):
    e = check(if_no_else, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def elif_chain(x):
    s = x.sum()
    if s > 5:
        y = x * 10
    elif s > 0:
        y = x * 2
    elif s > -5:
        y = x - 100
    else:
        y = -x
    return y


@pytest.mark.parametrize("x", [X * 3, X, NEG / 3, NEG], ids=["first", "second", "third", "else"])
def test_elif_chain_traced(x):
    e = check(elif_chain, x, graphs=1)
    assert traced_if_modes(e) in (["lax.cond"] * 3, ["lax.switch"])
    assert all(c != "if" or m in TRACED_IF for c, m in modes(e))


def nested_if(x, y):
    if x.sum() > 0:
        if y.sum() > 0:
            z = x + y
        else:
            z = x - y
    else:
        if y.sum() > 0:
            z = y * 2
        else:
            z = x * y
    return z


@pytest.mark.parametrize("sx,sy", [(1, 1), (1, -1), (-1, 1), (-1, -1)])
def test_nested_if_traced(sx, sy):
    e = check(nested_if, X * sx + 0.5 * sx, X * sy + 0.5 * sy, graphs=1)
    assert len(traced_if_modes(e)) >= 2 and all(c != "if" or m in TRACED_IF for c, m in modes(e))


# -------------------------------------------------------------- static if
def static_flag(x, flag):
    if flag:
        y = x * 2
    else:
        y = "not an array"
    return y


@pytest.mark.parametrize("flag", [True, False])
def test_static_python_flag_pruned(flag):
    e = check(static_flag, X, flag, graphs=1)
    assert modes(e) == [("if", "pruned")]


def none_default(x, bias=None):
    if bias is None:
        bias = jnp.zeros_like(x)
    return x + bias


def test_is_none_pruned():
    e = check(none_default, X, graphs=1)
    assert modes(e) == [("if", "pruned")]
    e = check(none_default, X, jnp.ones(3), graphs=1)
    assert modes(e) == [("if", "pruned")]


def shape_test(x):
    if x.shape[0] > 2:
        return x[:2]
    else:
        return x.reshape(1, -1)


@pytest.mark.parametrize("x", [X, jnp.arange(2.0)], ids=["long", "short"])
def test_shape_predicate_pruned(x):
    e = check(shape_test, x, graphs=1)
    assert modes(e) == [("if", "pruned")]


def static_early_return(x, mode):
    if mode == "double":
        return x * 2
    if mode == "square":
        return x * x
    return x


@pytest.mark.parametrize("mode", ["double", "square", "other"])
def test_static_early_return(mode):
    e = check(static_early_return, X, mode, graphs=1)
    assert all(m == "pruned" for c, m in modes(e) if c == "if")


# ----------------------------------------------------------- joins of types
def int_vs_array(x):
    if x.sum() > 0:
        y = 0
    else:
        y = x.sum() * 2
    return x + y


@pytest.mark.parametrize("x", [X, NEG], ids=["int", "array"])
def test_python_int_and_array_joined(x):
    e = check(int_vs_array, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def int_vs_vector(x):
    if x.sum() > 0:
        y = 0
    else:
        y = x * 2
    return x + y


@pytest.mark.parametrize("x", [X, NEG], ids=["int", "array"])
def test_python_int_and_vector_falls_back(x):
    # a 0-d Python int and an f32[3] cannot be one cond result: the if runs in Python
    e = check(int_vs_vector, x, full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G004"]


def int_vs_float(x):
    if x.sum() > 0:
        y = jnp.arange(3)
    else:
        y = x
    return y * 0.5 + x


def dtype_by_path(x):
    y = x
    if x.sum() > 0:
        y = x.astype(jnp.int32)
    return y


def real_if_close_like(z):
    if np.all(np.absolute(z.imag) < 1e-9):
        z = z.real
    return z


@pytest.mark.parametrize("x", [X, NEG], ids=["int", "float"])
def test_int_and_float_dtypes_do_not_join(x):
    # after a traced `if`, eager's y has the taken branch's dtype (int32 or
    # float32): one cond result would give both paths one dtype (it was joined
    # as float32, a wrong dtype when y is seen); each dtype is a variant of its
    # own, the taken one named by a run-time kind tag (pathkinds.py)
    for fn in (int_vs_float, dtype_by_path):
        check(fn, x, graphs=1)


@pytest.mark.parametrize("z", [np.arange(3.0) + 0j, np.arange(3.0) + 1j])
def test_numpy_dtype_by_path_is_eagers(z):
    check(real_if_close_like, z, full_graph=False)   # float64 on one path, complex128 on the other


def same_static_both(x):
    if x.sum() > 0:
        n = 3
        y = x + 1
    else:
        n = 3
        y = x - 1
    return y * n, n


@pytest.mark.parametrize("x", [X, NEG])
def test_static_value_agreeing_on_both_branches(x):
    check(same_static_both, x, graphs=1)


def tuple_join(x):
    if x.sum() > 0:
        a, b = x, 1.0
    else:
        a, b = -x, 2.0
    return a * b


@pytest.mark.parametrize("x", [X, NEG])
def test_tuple_of_values_joined(x):
    check(tuple_join, x, graphs=1)


# ------------------------------------------------------------ conditional exp
def ifexp_traced(x):
    return x * 2 if x.sum() > 0 else x - 1


@pytest.mark.parametrize("x", [X, NEG])
def test_conditional_expression_traced(x):
    e = check(ifexp_traced, x, graphs=1)
    assert ("ifexp", "lax.cond") in modes(e)


def ifexp_static(x, flag):
    return (x * 2 if flag else "none"), (1 if x.ndim == 1 else 2)


@pytest.mark.parametrize("flag", [True, False])
def test_conditional_expression_static(flag):
    e = check(ifexp_static, X, flag, graphs=1)
    assert ("ifexp", "pruned") in modes(e)
    assert ("ifexp", "lax.cond") not in modes(e)


# ---------------------------------------------------------- boolean operators
def boolop_static(x, a, b):
    return (a and b), (a or b), (a or x), (b and x), (not a)


@pytest.mark.parametrize("a,b", [(0, 5), (3, None), ("", "s"), (2, 7)])
def test_and_or_static_return_operand(a, b):
    e = check(boolop_static, X, a, b, graphs=1)
    assert all(m == "static" for c, m in modes(e) if c == "boolop")


def boolop_traced(x):
    s = x.sum()
    both = (s > 0) and (s < 10)
    either = (s < -5) or (s > 5)
    return jnp.where(both, x, -x), jnp.where(either, 1.0, 0.0)


@pytest.mark.parametrize("x", [X, NEG, X * 10], ids=["in", "neg", "big"])
def test_and_or_on_traced_scalars(x):
    e = check(boolop_traced, x, graphs=1)
    assert ("boolop", "select") in modes(e)


def boolop_in_if(x):
    s = x.sum()
    if s > 0 and s < 10:
        y = x + 1
    elif s < -5 or s > 100:
        y = x - 1
    else:
        y = x
    return y


@pytest.mark.parametrize("x", [X, NEG, X * 100, NEG / 10])
def test_and_or_in_traced_if(x):
    e = check(boolop_in_if, x, graphs=1)
    assert traced_if_modes(e)


def not_traced(x):
    if not x.sum() > 0:
        y = -x
    else:
        y = x
    return y


@pytest.mark.parametrize("x", [X, NEG])
def test_not_traced(x):
    e = check(not_traced, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def chained_compare(x):
    if 0 < x.sum() < 10:
        y = x * 2
    else:
        y = x * 0
    return y


@pytest.mark.parametrize("x", [X, NEG, X * 10], ids=["inside", "below", "above"])
def test_chained_comparison_traced(x):
    e = check(chained_compare, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def chained_static(x, n):
    if 0 < n <= 3:
        return x * n
    return x


@pytest.mark.parametrize("n", [0, 2, 4])
def test_chained_comparison_static(n):
    e = check(chained_static, X, n, graphs=1)
    assert ("if", "pruned") in modes(e)


def truthiness(x):
    if x.sum():
        y = x + 1
    else:
        y = x - 1
    return y


@pytest.mark.parametrize("x", [X, jnp.zeros(3)], ids=["nonzero", "zero"])
def test_truthiness_of_0d_array(x):
    e = check(truthiness, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def if_uses_then_value_only_inside(x):
    if x.sum() > 0:
        t = x * 2
        x = t + 1
    return x


@pytest.mark.parametrize("x", [X, NEG])
def test_branch_local_temporary(x):
    check(if_uses_then_value_only_inside, x, graphs=1)


def if_in_static_if(x, flag):
    if flag:
        if x.sum() > 0:
            x = x * 2
    return x


@pytest.mark.parametrize("flag,x", [(True, X), (True, NEG), (False, X)])
def test_traced_if_in_static_if(flag, x):
    e = check(if_in_static_if, x, flag, graphs=1)
    assert ("if", "pruned") in modes(e)
    assert (("if", "lax.cond") in modes(e)) == flag


def ambiguous_truth(x):
    if x:
        return 1
    return 2


def test_truthiness_of_vector_raises_like_eager():
    check(ambiguous_truth, X, full_graph=False)


def walrus_in_test(x):
    if (s := x.sum()) > 1:
        y = x * s
    else:
        y = x
    return y, s


@pytest.mark.parametrize("x", [X, NEG])
def test_walrus_in_traced_condition(x):
    e = check(walrus_in_test, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def static_and_traced(x, n):
    if n > 2 and x.sum() > 0:
        y = x
    else:
        y = -x
    return y


@pytest.mark.parametrize("n,x", [(1, X), (3, X), (3, NEG)])
def test_static_short_circuit_before_traced_operand(n, x):
    e = check(static_and_traced, x, n, graphs=1)
    assert (("if", "pruned") in modes(e)) == (n <= 2)
