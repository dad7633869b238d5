"""Unit tests for ast2graph.resolver: scopes, static values, call kinds."""

from __future__ import annotations

import builtins
import math
import operator
import time

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ast2graph.parser import parse_function
from ast2graph.resolver import (
    CallKind, NameKind, Resolution, Scope, classify_callee, is_effectful,
    is_pure_static_callable, qualified_name, resolve, resolve_attr_chain, scope_of,
)

GLOBAL_K = 3
counter = 0


def helper(x):
    return x + 1


def scoped(a, /, b, *args, c, **kw):
    global counter
    d = a + GLOBAL_K
    e: int
    for i in range(b):
        d += i
    with open("f") as fh:
        pass
    try:
        pass
    except ValueError as err:
        pass
    import os.path
    from math import sqrt as root

    def inner(q=len(args)):
        r = q
        return r

    class Local:
        s = 1

    squares = [t * t for t in args if (w := t)]
    lam = lambda u: u  # noqa: E731
    del e
    counter += 1
    return d, fh, err, os, root, inner, Local, squares, w, lam, missing_name


def _calls(res: Resolution) -> dict[str, CallKind]:
    return {gast.dump(call.func): kind for call, kind in res.calls.items()}


def _names(fn) -> dict[str, gast.Name]:
    tree = parse_function(fn).tree
    return {n.id: n for n in gast.walk(tree) if isinstance(n, gast.Name)}


def test_scope_params_in_order():
    scope = scope_of(parse_function(scoped).tree)
    assert scope.params == ("a", "b", "args", "c", "kw")


def test_scope_locals():
    scope = scope_of(parse_function(scoped).tree)
    assert scope.locals == frozenset(
        {"d", "e", "i", "fh", "err", "os", "root", "inner", "Local", "squares", "w", "lam"}
    )
    # Bound only in nested scopes / comprehension targets: not locals.
    for name in ("q", "r", "s", "t", "u"):
        assert name not in scope.locals
    assert scope.declared_global == frozenset({"counter"})
    assert "counter" not in scope.locals


def test_scope_kinds():
    scope = scope_of(parse_function(scoped).tree)
    assert scope.kind("a") is NameKind.PARAM
    assert scope.kind("kw") is NameKind.PARAM
    assert scope.kind("d") is NameKind.LOCAL
    assert scope.kind("counter") is NameKind.GLOBAL
    assert scope.kind("GLOBAL_K") is NameKind.GLOBAL
    assert scope.kind("missing_name") is NameKind.GLOBAL  # Python rules
    assert scope.kind("len") is NameKind.BUILTIN


def make_nonlocal():
    n = 0
    k = 5

    def bump(x):
        nonlocal n
        n += x
        return n + k

    return bump


def test_nonlocal_and_free():
    fn = make_nonlocal()
    tree = parse_function(fn).tree
    scope = scope_of(tree, fn.__code__.co_freevars)
    assert scope.declared_nonlocal == frozenset({"n"})
    assert scope.free == frozenset({"n", "k"})
    assert scope.locals == frozenset()
    assert scope.kind("n") is NameKind.FREE
    assert scope.kind("k") is NameKind.FREE
    assert scope_of(tree).kind("n") is NameKind.FREE  # nonlocal alone suffices


def shadows_builtin(x):
    return sum(x)


sum = jnp.sum  # noqa: A001 -- a module global that shadows a builtin


def test_global_shadowing_builtin_is_global():
    res = resolve(parse_function(shadows_builtin))
    assert res.scope.kind("sum") is NameKind.GLOBAL
    assert scope_of(parse_function(shadows_builtin).tree).kind("sum") is NameKind.BUILTIN
    (call,) = res.calls
    assert res.static_value(call.func) == (True, jnp.sum)
    assert res.call_kind(call) is CallKind.ARRAY_OP



def uses_everything(x, obj):
    a = jnp.sum(x)
    b = len(x)
    c = helper(x)
    d = x.sum()
    e = obj.layer(x)
    f = math.sqrt(2.0)
    g = np.linalg.norm(x)
    h = jax.lax.cond
    return a, b, c, d, e, f, g, h, GLOBAL_K


def test_static_values():
    res = resolve(parse_function(uses_everything))
    names = _names(uses_everything)
    attrs = {gast.dump(n): n for n in gast.walk(parse_function(uses_everything).tree)
             if isinstance(n, gast.Attribute)}
    by_src = {parse_function(uses_everything).source_segment(n): n for n in attrs.values()}
    assert res.static_value(by_src["jnp.sum"]) == (True, jax.numpy.sum)
    assert res.static_value(by_src["np.linalg.norm"]) == (True, np.linalg.norm)
    assert res.static_value(by_src["jax.lax.cond"]) == (True, jax.lax.cond)
    assert res.static_value(names["GLOBAL_K"]) == (True, 3)
    assert res.static_value(names["len"]) == (True, builtins.len)
    assert res.static_value(names["x"]) == (False, None)
    assert res.static_value(by_src["x.sum"]) == (False, None)
    assert res.static_value(by_src["obj.layer"]) == (False, None)


def test_call_kinds():
    res = resolve(parse_function(uses_everything))
    kinds = {parse_function(uses_everything).source_segment(c): k for c, k in res.calls.items()}
    assert kinds == {
        "jnp.sum(x)": CallKind.ARRAY_OP,
        "len(x)": CallKind.BUILTIN,
        "helper(x)": CallKind.USER_FUNCTION,
        "x.sum()": CallKind.DYNAMIC,
        "obj.layer(x)": CallKind.DYNAMIC,
        "math.sqrt(2.0)": CallKind.OPAQUE,
        "np.linalg.norm(x)": CallKind.ARRAY_OP,
    }
    for call, kind in res.calls.items():
        assert res.call_kind(call) is kind


def closure_user(scale):
    def apply(x):
        return fn(x) * scale

    fn = jnp.tanh
    return apply


def test_free_variable_static_value():
    res = resolve(parse_function(closure_user(2.0)))
    names = _names(closure_user(2.0))
    assert res.static_value(names["fn"]) == (True, jnp.tanh)
    assert res.static_value(names["scale"]) == (True, 2.0)
    (call,) = [c for c in res.calls if isinstance(c.func, gast.Name)]
    assert res.call_kind(call) is CallKind.ARRAY_OP


def test_empty_cell_is_not_static():
    def outer():
        def inner():
            return later()
        res = resolve(parse_function(inner))
        (call,) = res.calls
        before = res.static_value(call.func)
        later = len  # noqa: F841
        return res, call, before, res.static_value(call.func)

    res, call, before, after = outer()
    assert before == (False, None)
    assert res.calls[call] is CallKind.DYNAMIC  # decided when resolve ran
    assert after == (True, len)  # static values are read live


def comprehension_calls(xs, fns):
    out = [helper(f(x)) for f in fns for x in xs]
    nested = lambda y: len(y)  # noqa: E731

    def inner(z=abs(-1)):
        return print(z)

    return out, nested, inner


def test_calls_skip_nested_scopes_and_respect_comprehension_targets():
    pf = parse_function(comprehension_calls)
    kinds = {pf.source_segment(c): k for c, k in resolve(pf).calls.items()}
    assert kinds == {
        "helper(f(x))": CallKind.USER_FUNCTION,
        "f(x)": CallKind.DYNAMIC,
        "abs(-1)": CallKind.BUILTIN,
    }


def f(x):  # a global named like a comprehension target above
    return x


def test_walrus_in_comprehension_is_local():
    def g(xs):
        ys = [(last := x) for x in xs]
        return ys, last

    scope = scope_of(parse_function(g).tree)
    assert scope.locals == frozenset({"ys", "last"})
    assert "x" not in scope.locals


def test_classify_callee():
    assert classify_callee(jnp.sum) is CallKind.ARRAY_OP
    assert classify_callee(np.sin) is CallKind.ARRAY_OP
    assert classify_callee(jax.Array.sum) is CallKind.ARRAY_OP
    assert classify_callee(len) is CallKind.BUILTIN
    assert classify_callee(int) is CallKind.BUILTIN
    assert classify_callee(helper) is CallKind.USER_FUNCTION
    assert classify_callee(math.sqrt) is CallKind.OPAQUE
    assert classify_callee(operator.add) is CallKind.OPAQUE
    import json
    assert classify_callee(json.dumps) is CallKind.OPAQUE  # stdlib Python function
    import pytest
    assert classify_callee(pytest.raises) is CallKind.OPAQUE  # site-packages


def test_is_effectful():
    for obj in (print, input, open, np.random.normal, np.random.default_rng,
                time.time, jax.debug.print, jax.debug.callback):
        assert is_effectful(obj), obj
    import logging
    import random
    assert is_effectful(random.random) and is_effectful(random.randint)
    assert is_effectful(logging.getLogger("x").info)
    for obj in (jnp.sum, len, math.sqrt, helper, np.sin):
        assert not is_effectful(obj), obj


def test_is_pure_static_callable():
    for obj in (len, range, isinstance, math.sqrt, operator.add, max):
        assert is_pure_static_callable(obj), obj
    import functools
    import itertools
    assert is_pure_static_callable(functools.reduce)
    assert is_pure_static_callable(itertools.product)
    for obj in (print, jnp.sum, helper, open):
        assert not is_pure_static_callable(obj), obj


class _Prop:
    calls = 0

    @property
    def boom(self):
        type(self).calls += 1
        return 1


class _Meta(type):
    @property
    def boom(cls):
        _Prop.calls += 1
        return 1


class _WithMeta(metaclass=_Meta):
    plain = 7


def test_resolve_attr_chain_is_safe():
    assert resolve_attr_chain(np, ["linalg", "norm"]) == (True, np.linalg.norm)
    assert resolve_attr_chain(jax, ["numpy", "sum"]) == (True, jnp.sum)
    assert resolve_attr_chain(_WithMeta, ["plain"]) == (True, 7)
    assert resolve_attr_chain(_WithMeta, ["boom"]) == (False, None)
    assert resolve_attr_chain(_Prop(), ["boom"]) == (False, None)
    assert resolve_attr_chain(np, ["no_such_thing"]) == (False, None)
    assert _Prop.calls == 0


def test_qualified_name():
    assert qualified_name(jnp.sum) == "jax.numpy.sum"
    assert qualified_name(len) == "builtins.len"
    assert qualified_name(operator.add) == "operator.add"
    assert qualified_name(np.sin) == "numpy.sin"
    assert qualified_name(jax.lax.cond) == "jax.lax.cond"
    assert qualified_name(helper).endswith("test_resolver.helper")


def test_scope_is_hashable_and_pure_syntax():
    tree = parse_function(helper).tree
    assert scope_of(tree) == scope_of(tree)
    assert isinstance(hash(scope_of(tree)), int)
    assert isinstance(scope_of(tree), Scope)
