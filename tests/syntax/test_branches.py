"""Branches: `if`/`elif`/`else` and conditional expressions on static and traced
conditions, each on inputs that take every path."""

from dataclasses import dataclass

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .common import NEG, SIGN_IDS, SIGNS, X, codes, modes_of
from .coverage import covers


@dataclass(frozen=True)
class Config:
    activation: str = "relu"
    use_bias: bool = True
    residual: bool = False


def block(x, w, cfg):
    h = w @ x
    if cfg.use_bias:
        h = h + 0.5
    if cfg.activation == "relu":
        h = jnp.maximum(h, 0.0)
    elif cfg.activation == "tanh":
        h = jnp.tanh(h)
    else:
        h = h
    if cfg.residual and h.shape == x.shape:
        h = h + x
    return h


CONFIGS = [Config(), Config("tanh", False, True), Config("linear", True, True)]


@covers("If", "pruned", "`if`/`elif`/`else` on a static config (frozen dataclass attributes, shape tests)")
@pytest.mark.parametrize("cfg", CONFIGS, ids=["relu", "tanh-residual", "linear-residual"])
def test_static_if_pruned(cfg):
    e = check(block, X, jnp.eye(3) - 0.5, cfg, graphs=1)
    assert set(modes_of(e, "if")) == {"pruned"}


def traced_if(x):
    if x.sum() > 0:
        y = x * 2
        z = y.max()
    else:
        y = x - 1
        z = jnp.zeros(())
    return y, z


@covers("If", "lax.cond", "`if`/`else` on a traced condition, two variables joined")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_traced_if_else(x):
    e = check(traced_if, x, graphs=1)
    assert modes(e) == [("if", "lax.cond")]


def traced_if_no_else(x):
    y = x + 1
    if y.mean() > 0:
        y = y * 3
    return y


@covers("If", "lax.cond", "`if` without `else` on a traced condition")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_traced_if_without_else(x):
    e = check(traced_if_no_else, x, graphs=1)
    assert modes(e) == [("if", "lax.cond")]


def piecewise(x):
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


@covers("If", "lax.switch", "`if`/`elif`/`elif`/`else` chain on traced conditions")
@pytest.mark.parametrize("x", [X * 3, X, NEG / 3, NEG], ids=["first", "second", "third", "else"])
def test_elif_chain_switch(x):
    e = check(piecewise, x, graphs=1)
    assert modes_of(e, "if") == ["lax.switch"]


def mixed_static_traced(x, training):
    if training:
        if x.sum() > 0:
            x = x * 0.9
        else:
            x = x * 1.1
    return x


@covers("If", "pruned", "static `if` around a traced `if` (pruned when the flag is off)")
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_static_if_around_traced_if(x, training):
    e = check(mixed_static_traced, x, training, graphs=1)
    assert modes_of(e, "if") == (["pruned", "lax.cond"] if training else ["pruned"])


def one_sided(x):
    if x.sum() > 0:
        y = x * 2
    return y


@covers("If", "lax.cond", "traced `if` that binds a variable on one branch only (carried with a defined-flag)",
        caveat="on the other path eager raises UnboundLocalError, and so does the converted call (a run-time check)")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_one_sided_binding_carries_a_defined_flag(x):
    e = check(one_sided, x, graphs=1)
    if e is not None:          # eager returned
        assert modes_of(e, "if") == ["lax.cond"]


def shape_mismatch(x):
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x
    return y * 2


@covers("If", "python control", "traced `if` whose branches give different shapes", code="A2G004")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_branch_shape_mismatch_runs_as_python(x):
    e = check(shape_mismatch, x, full_graph=False)
    assert codes(e) == ["A2G004"]


def print_in_branch(x):
    if x.sum() > 0:
        print("positive", x.sum())
        x = x - 1
    else:
        print("negative")
    return x


@covers("If", "lax.cond", "traced `if` whose branches print (host callbacks inside `lax.cond`)")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_print_in_traced_branch(x):
    e = check(print_in_branch, x, graphs=1)
    assert ("if", "lax.cond") in modes(e) and ("call", "host callback") in modes(e)


# ---------------------------------------------------------------- IfExp
def ifexp_forms(x, flag, scale=None):
    a = x * 2 if flag else x - 1
    b = x if x.sum() > 0 else -x
    c = 1.0 if scale is None else scale
    d = x.max() if x.min() > 0 else (x.min() if x.max() > 1 else 0.0)
    return a, b * c, d * x   # d: a float on one path, an array on the other; d * x: an array on both


def ifexp_kind_by_path(x):
    d = x.max() if x.min() > 0 else 0.0
    return d


@covers("IfExp", "pruned", "`a if flag else b` on a static flag / `None` test")
@covers("IfExp", "lax.cond", "`a if x.sum() > 0 else b` on traced values, nested")
@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("x", [X, NEG, X + 1], ids=["mixed", "neg", "pos"])
def test_conditional_expressions(x, flag):
    e = check(ifexp_forms, x, flag, graphs=1)
    assert set(modes_of(e, "ifexp")) == {"pruned", "lax.cond"}


@covers("IfExp", "one graph", "`x.max() if traced else 0.0` returned: a jax.Array on one path, a Python float on "
        "the other (a run-time kind tag says which; the caller gets eager's object)")
@pytest.mark.parametrize("x", [X + 1, NEG], ids=["array", "float"])
def test_conditional_expression_kind_by_path(x):
    check(ifexp_kind_by_path, x, graphs=1)
