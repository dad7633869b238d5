"""Comparisons and boolean logic: every comparison operator, chains, identity and
membership, and/or/not with Python semantics on static and traced operands."""

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .common import NEG, X, modes_of
from .coverage import covers


def compare_arrays(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


@covers("Compare", "one graph", "`< <= > >= == !=` on arrays (elementwise)")
def test_comparison_operators_on_arrays():
    check(compare_arrays, X, jnp.array([0.0, 2.0, 1.0]), graphs=1)


def identity_membership(x, bias=None, mode="train"):
    return (bias is None, x is not None, mode in ("train", "eval"), "b" not in mode,
            x.shape == (3,), x.dtype != jnp.int32, 1 < len(mode) <= 5)


@covers("Compare", "trace time", "`is`, `is not`, `in`, `not in`, shape/dtype tests, static chains")
@pytest.mark.parametrize("mode", ["train", "predict"])
def test_identity_and_membership_are_static(mode):
    check(identity_membership, X, kwargs={"mode": mode}, graphs=1)


def traced_membership(c, x):
    if c in (2, 3):
        return x * 2, c not in [1, 2]
    return x - 1, c not in [1, 2]


@covers("Compare", "lax.cond", "`c in (2, 3)` / `c not in [1, 2]` of a traced scalar: a traced Python bool, as eager")
@pytest.mark.parametrize("c", [jnp.array(2), jnp.array(1), 3])
def test_traced_membership(c):
    check(traced_membership, c, X, graphs=1)


def chained_traced(x):
    s = x.sum()
    if -1.0 < s <= 5.0:
        return x * 2
    return x - 1


@covers("Compare", "lax.cond", "chained comparison `a < s <= b` on a traced value as an `if` test")
@pytest.mark.parametrize("x", [X, NEG, X * 10], ids=["inside", "below", "above"])
def test_chained_comparison_traced(x):
    e = check(chained_traced, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def and_or_static(a, b, flag):
    return a and b, a or b, not a, (a or 0) and b, flag and "yes" or "no"


@covers("BoolOp", "trace time", "`and`/`or` on Python values returns an operand (not a bool)")
@pytest.mark.parametrize("a,b,flag", [(0, 3, True), (2, 0, False), ("", "x", True)])
def test_and_or_on_python_values(a, b, flag):
    e = check(and_or_static, a, b, flag, graphs=1)
    assert set(modes_of(e, "boolop")) == {"static"}


def and_or_traced(x, y):
    s, t = x.sum(), y.sum()
    both = s > 0 and t > 0
    either = s > 10 or t > 0
    pick = s or t                 # an operand, not a bool
    return both, either, pick


@covers("BoolOp", "select", "`and`/`or` on traced scalars: the selected operand, not a bool")
@pytest.mark.parametrize("x,y", [(X, NEG), (NEG, X), (X * 0, NEG)], ids=["pos-neg", "neg-pos", "zero-neg"])
def test_and_or_on_traced_scalars(x, y):
    e = check(and_or_traced, x, y, graphs=1)
    assert set(modes_of(e, "boolop")) == {"select"}


def or_default(x, bias=None, scale=None):
    bias = bias or jnp.zeros_like(x)
    return x * (scale or 2.0) + bias


@covers("BoolOp", "trace time", "`bias = bias or default` with `None` arguments")
@pytest.mark.parametrize("scale", [None, 3.0])
def test_or_default_idiom(scale):
    e = check(or_default, X, kwargs={"scale": scale}, graphs=1)
    assert set(modes_of(e, "boolop")) <= {"static"}


def or_on_arrays(x, y):
    return x or y


@covers("BoolOp", "error as eager", "`x or y` on multi-element arrays raises the ambiguous-truth ValueError")
def test_or_on_arrays_raises_as_eager():
    check(or_on_arrays, X, NEG, full_graph=False)   # the site runs in Python (A2G008)


def and_in_if(x, limit):
    if x.sum() > 0 and x.max() < limit:
        y = x * 2
    elif not x.min() > -2:
        y = x + 100
    else:
        y = -x
    return y


@covers("BoolOp", "select", "`and` in a traced `if` test, `not` of a traced comparison in `elif`")
@covers("UnaryOp", "lax.switch", "`not` of a traced comparison as an `elif` test")
@pytest.mark.parametrize("x", [X, X * 10, NEG, X - 1.5], ids=["then", "too-big", "elif", "else"])
def test_and_not_in_traced_if(x):
    e = check(and_in_if, x, 5.0, graphs=1)
    assert "select" in modes_of(e, "boolop")
    assert set(modes_of(e, "if")) <= {"lax.cond", "lax.switch"}


def static_short_circuit(x, layers):
    if layers and layers[0] > 1:       # layers[0] is only read when layers is non-empty
        x = x * layers[0]
    return x


@covers("BoolOp", "pruned", "short circuit on static values guards a read (`lst and lst[0] > 1`)")
@pytest.mark.parametrize("layers", [[], [3], [1]])
def test_static_short_circuit(layers):
    e = check(static_short_circuit, X, layers, graphs=1)
    assert modes_of(e, "if") == ["pruned"]


def side_effect_in_right_operand(x):
    return x.sum() > 0 and print("right operand ran") is None


@covers("BoolOp", "interpreted", "traced `a and f()` where `f` prints: the statement runs in Python, so `f` "
        "runs only when `a` is true, as in eager", code="A2G002")
@pytest.mark.parametrize("x", [NEG, X], ids=["left-false", "left-true"])
def test_side_effect_in_right_operand_runs_only_when_eager_runs_it(x):
    e = check(side_effect_in_right_operand, x, full_graph=False)
    assert "A2G002" in [s.code.code for s in e.fallback_sites]


def and_static_false(x, flag):
    if x.sum() > 0 and flag:         # falsy whatever x holds when flag is: only the else path
        return x[x > 0]              # (a data-dependent shape, which a traced branch could not hold)
    if x.sum() > 0 or not flag:      # truthy whatever x holds
        x = x + 1
    return x


@covers("BoolOp", "pruned", "`if traced and <static falsy>:` / `if traced or <static truthy>:`: the test's truth is "
        "static whatever the traced operand holds")
def test_traced_and_static_false_is_pruned():
    e = check(and_static_false, X, False, graphs=1)
    assert modes_of(e, "if") == ["pruned", "pruned"]
