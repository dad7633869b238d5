"""The user API: decorators, methods, functions without source, explain output."""

import functools
import os

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import FullGraphError, StaticFunction, explain, to_static
from helpers import assert_same, check, modes

X = jnp.arange(3.0)
NEG = -jnp.arange(1.0, 4.0)


# ------------------------------------------------------------------ decorators
def plain(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


@to_static
def decorated(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


@to_static(full_graph=True)
def decorated_full(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


@pytest.mark.parametrize("x", [X, NEG])
def test_decorator_forms(x):
    expected = plain(x)
    assert isinstance(decorated, StaticFunction) and isinstance(decorated_full, StaticFunction)
    assert_same(expected, decorated(x))
    assert_same(expected, decorated_full(x))
    assert_same(expected, to_static(plain)(x))
    e = explain(decorated_full)(x)
    assert e.graph_count == 1 and modes(e) == [("if", "lax.cond")]
    assert decorated.__name__ == "decorated" and decorated_full.__wrapped__ is not None


def test_check_on_plain_function():
    e = check(plain, X, graphs=1)
    assert modes(e) == [("if", "lax.cond")]


@to_static(full_graph=True)
def decorated_fallback(x):
    with open(os.devnull) as fh:
        x = x + 1
    return x


def test_decorator_full_graph_raises_at_call():
    with pytest.raises(FullGraphError):
        decorated_fallback(X)


def test_explain_accepts_a_plain_function():
    e = explain(plain)(X)
    assert_same(plain(X), e.result)
    assert e.graph_count == 1


# --------------------------------------------------------------------- methods
class Layer:
    def __init__(self, w, scale):
        self.w = w
        self.scale = scale

    @to_static
    def forward(self, x):
        y = self.w @ x
        if y.sum() > 0:
            y = y * self.scale
        return y

    def plain_forward(self, x):
        y = self.w @ x
        if y.sum() > 0:
            y = y * self.scale
        return y


@pytest.mark.parametrize("x", [X, NEG])
def test_method_decorated_in_class_body(x):
    layer = Layer(jnp.eye(3) * 2, 3.0)
    assert_same(layer.plain_forward(x), layer.forward(x))
    e = explain(Layer.forward)(layer, x)
    assert e.graph_count == 1 and ("if", "lax.cond") in modes(e)
    assert_same(layer.plain_forward(x), e.result)


def test_two_instances_do_not_share_static_state():
    a, b = Layer(jnp.eye(3), 2.0), Layer(jnp.eye(3), 5.0)
    assert_same(a.plain_forward(X), a.forward(X))
    assert_same(b.plain_forward(X), b.forward(X))
    assert_same(a.plain_forward(X), a.forward(X))


@pytest.mark.parametrize("x", [X, NEG])
def test_bound_method(x):
    layer = Layer(jnp.ones((2, 3)), 0.5)
    e = check(layer.plain_forward, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


def test_partial():
    def scaled(x, k, bias=0.0):
        return x * k + bias

    check(functools.partial(scaled, k=3.0), X, graphs=1)


class WithCall:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k


def test_method_of_callable_object():
    obj = WithCall(4.0)
    check(obj.__call__, X, graphs=1)


# ----------------------------------------------------------- no source: eager
def test_exec_defined_function_warns_and_runs_eagerly():
    ns = {"jnp": jnp}
    exec("def nosrc(x):\n    return jnp.sin(x) * 2\n", ns)
    nosrc = ns["nosrc"]
    with pytest.warns(UserWarning, match="runs eagerly"):
        f = to_static(nosrc)
    assert_same(nosrc(X), f(X))
    e = explain(f)(X)
    assert e.graph_count == 0
    assert [s.code.code for s in e.fallback_sites] == ["A2G012"]


def test_exec_defined_function_full_graph_raises():
    ns = {}
    exec("def nosrc(x):\n    return x + 1\n", ns)
    with pytest.raises(FullGraphError):
        to_static(ns["nosrc"], full_graph=True)


def test_builtin_without_source_runs_eagerly():
    with pytest.warns(UserWarning):
        f = to_static(len)
    assert f([1, 2, 3]) == len([1, 2, 3])
    assert f(X) == len(X)


def uses_exec_helper(x):
    return _NOSRC_HELPER(x) + 1


_ns: dict = {"jnp": jnp}
exec("def _h(x):\n    return jnp.cos(x)\n", _ns)
_NOSRC_HELPER = _ns["_h"]


def test_call_to_sourceless_helper_inside_converted_function():
    # the helper is opaque but a plain jnp function: the call may be graph or a fallback; the value must match
    check(uses_exec_helper, X, full_graph=False)


# -------------------------------------------------------------- explain output
def looped(x, n):
    for i in range(n):
        x = x * 0.5 + i
    while x.sum() > 1:
        x = x / 2
    if x.sum() > 0.5:
        x = x + 1
    return x


def test_explain_string_mentions_decisions():
    e = check(looped, X, 40, graphs=1)
    text = str(e)
    assert "looped" in text
    assert "decisions" in text
    for mode in ("lax.fori_loop", "lax.while_loop", "lax.cond"):
        assert mode in text
    assert "graphs run: 1" in text
    assert [d.construct for d in e.decisions] == ["for", "while", "if"]
    assert all(d.reason for d in e.decisions)


def test_ir_text_and_lowered_source():
    e = check(looped, X, 40, graphs=1)
    ir = e.ir_text
    assert "if" in ir and "while" in ir and "for" in ir
    src = e.lowered_source
    assert "lax.cond" in src and "lax.while_loop" in src and "lax.fori_loop" in src


def test_explain_string_mentions_fallback_sites():
    def with_try(x):
        y = x + 1
        with open(os.devnull):
            y = y * 2
        return y

    e = check(with_try, X, full_graph=False, graphs=2)
    text = str(e)
    assert "fallback sites" in text and "A2G001" in text and "test_api.py" in text


def test_explain_reports_cache_hits():
    f = to_static(plain, full_graph=True)
    first = explain(f)(X)
    assert len(first.record.compiled) == 1
    second = explain(f)(NEG)  # same shapes and dtypes: no new compilation
    assert len(second.record.compiled) == 0
    assert_same(plain(NEG), second.result)
    assert f.recompiles == 0


# ---------------------------------------------------------- kwargs / defaults
def with_defaults(x, y=None, *, scale=2.0, shift=0):
    if y is None:
        y = jnp.ones_like(x)
    return x * scale + y + shift


def test_defaults():
    check(with_defaults, X, graphs=1)


def test_kwargs():
    check(with_defaults, X, kwargs={"y": X * 3, "scale": 0.5, "shift": 4}, graphs=1)
    check(with_defaults, X, X, kwargs={"shift": -1}, graphs=1)


def varargs(x, *rest, **named):
    total = x
    for r in rest:
        total = total + r
    for k in sorted(named):
        total = total * named[k]
    return total


def test_varargs_and_varkw():
    check(varargs, X, X, X * 2, kwargs={"a": 2.0, "b": 3.0}, graphs=1)


def array_kwarg(x, *, w):
    return w @ x


def test_array_keyword_only():
    check(array_kwarg, X, kwargs={"w": jnp.eye(3) * 2}, graphs=1)


# --------------------------------------------------------------- return kinds
def returns_dict(x):
    return {"double": x * 2, "sum": x.sum(), "n": 3, "name": "out"}


def returns_nested(x):
    return (x, [x + 1, (x.sum(), None)]), 1.5


def returns_none(x):
    y = x + 1


def returns_int(x):
    return x.shape[0] * 2


def returns_bool(x, n):
    return n > 2


def returns_string(x):
    return f"len={len(x)}"


@pytest.mark.parametrize("fn", [returns_dict, returns_nested, returns_none, returns_int, returns_string])
def test_return_kinds(fn):
    check(fn, X, graphs=1)


def test_return_python_int_type():
    got = to_static(returns_int)(X)
    assert type(got) is int and got == returns_int(X)
    assert to_static(returns_none)(X) is None
    assert to_static(returns_bool)(X, 5) is True


def return_in_static_branch_then_traced(x, early):
    if early:
        return None
    return x * 2


@pytest.mark.parametrize("early", [True, False])
def test_return_none_or_array_by_static_flag(early):
    check(return_in_static_branch_then_traced, X, early, graphs=1)


def mutates_list_arg(x, out):
    out.append(x * 2)
    return len(out)


def test_argument_mutation_is_visible():
    # check compares the argument after the call too
    check(mutates_list_arg, X, [], full_graph=False)


def internal_error_victim(x):
    y = x * 2
    return y + 1


def test_internal_error_falls_back_with_a_warning(monkeypatch):
    import ast2graph.runtime.block as block

    def broken(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.delenv("AST2GRAPH_CHECKS", raising=False)
    monkeypatch.setattr(block, "specialize", broken)
    f = to_static(internal_error_victim)
    with pytest.warns(UserWarning, match="internal error"):
        e = explain(f)(X)
    assert_same(internal_error_victim(X), e.result)
    assert {s.code.code for s in e.fallback_sites} == {"A2G015"}
    with pytest.raises(FullGraphError, match="A2G015"):
        to_static(internal_error_victim, full_graph=True)(X)


def scaled(x, scale, n=3):
    for i in range(n):
        x = x * scale
    return x


def test_python_scalar_argument_becomes_traced_after_several_values():
    f = to_static(scaled, full_graph=True)
    for k in range(10):
        e = explain(f)(X, 1.0 + k * 0.1)
        assert_same(scaled(X, 1.0 + k * 0.1), e.result)
    # static for the first 4 values (3 recompiles), then one recompile to a traced scalar
    assert f.recompiles == 4
    assert any("now traced" in r for r in f.recompile_reasons)
    assert "recompile reasons" in str(e)


def test_static_values_option():
    f = to_static(scaled, static_values=1)
    for k in range(4):
        assert_same(scaled(X, 2.0 + k), f(X, 2.0 + k))
    assert f.recompiles == 1


def _clamped_sum(x, lo):
    total = x.sum()
    if total < lo:
        total = jnp.asarray(lo, x.dtype)
    return total * 2


def test_clear_caches_keeps_converted_functions_working():
    """After ast2graph.clear_caches() a function converted before still runs
    its graph, and a new conversion parses and types from scratch; both equal
    eager."""
    import ast2graph

    x = jnp.arange(4.0)
    before = to_static(_clamped_sum, full_graph=True)
    assert float(before(x, 1.0)) == float(_clamped_sum(x, 1.0))
    ast2graph.clear_caches()
    assert float(before(x, 100.0)) == float(_clamped_sum(x, 100.0))
    ast2graph.clear_caches(source_files=False)
    check(_clamped_sum, x, 100.0)
    ast2graph.clear_caches()
    check(_clamped_sum, -x, 1.0)


def _two(x, k):
    return x + k


def _keyword_only(x, *, k):
    return x + k


class _Scaler:
    def __call__(self, x, k):
        return x * k


@pytest.mark.parametrize("fn, args, kwargs", [
    (_two, (1.0,), {}), (_two, (1.0, 2.0, 3.0), {}), (_two, (1.0,), {"z": 2.0}), (_two, (1.0,), {"x": 2.0}),
    (_keyword_only, (1.0, 2.0), {}), (_keyword_only, (1.0,), {}), (_Scaler(), (1.0,), {}),
    (functools.partial(_two, k=1.0), (1.0, 2.0), {}),
])
def test_arguments_the_function_does_not_take_raise_pythons_own_type_error(fn, args, kwargs):
    # check() compares the exception's type and message with eager's ("_two() missing 1 required positional
    # argument: 'k'", not inspect's "missing a required argument: 'k'")
    check(fn, *args, kwargs=kwargs)
