"""Scoping: globals read and written, closures, `nonlocal`, class-level
constants, shadowed builtins, names bound in only some paths."""

import jax.numpy as jnp
import pytest

import syntax.common as common_module
from ast2graph import explain, to_static
from helpers import check

from .common import X, codes
from .coverage import covers

EPS = 1e-5
TABLE = {"relu": 1.0, "gelu": 2.0}
WEIGHT = jnp.eye(3) * 2


def reads_globals(x, kind):
    return (x - x.mean()) / jnp.sqrt(x.var() + EPS) * TABLE[kind] + WEIGHT @ x + common_module.X


@covers("Name", "one graph", "module globals read: a float, a dict, a global weight array, a module attribute")
def test_global_reads():
    check(reads_globals, X, "gelu", graphs=1)


STATE = {"last": None}
LAST = None


def writes_global(x):
    global LAST
    LAST = x * 2
    return LAST + 1


@covers("Global", "one graph", "`global LAST; LAST = v`: the new value comes out of the graph and is set in the "
        "module after the call")
def test_global_write_written_back():
    check(writes_global, X, graphs=1)
    assert jnp.array_equal(LAST, X * 2)   # the converted call's write is visible in the module


def reads_declared_global(x):
    global EPS
    return x * EPS


@covers("Global", "one graph", "`global` declaration of a name that is only read")
def test_global_declaration_read_only():
    check(reads_declared_global, X, graphs=1)


def make_scaler(scale):
    offset = scale * 2

    def apply(x):
        return x * scale + offset   # free variables of the closure

    return apply


@covers("Name", "one graph", "free variables of a closure (converted closure)")
def test_closure_free_variables():
    check(make_scaler(3.0), X, graphs=1)


def make_counter():
    count = 0

    def step(x):
        nonlocal count
        count += 1
        return x * count

    return step


@covers("Nonlocal", "one graph", "a converted closure that rebinds its `nonlocal` cell: the new value comes out "
        "of the graph and is set in the cell after the call")
def test_converted_function_with_nonlocal_writes_the_cell_back():
    eager_step, converted_step = make_counter(), make_counter()
    static = to_static(converted_step, full_graph=True)
    for _ in range(3):   # the cell advances on every call, as in eager
        e = explain(static)(X)
        assert jnp.array_equal(e.result, eager_step(X))
    assert e.graph_count == 1 and codes(e) == []


def nonlocal_in_helper(x):
    count = 0

    def bump():
        nonlocal count
        count += 1

    bump()
    bump()
    return x * count


@covers("Nonlocal", "one graph", "a nested helper that rebinds a `nonlocal` of the converted function, inlined: "
        "the write lands in the function's frame (a call that would not be one graph runs eagerly as a whole: a "
        "helper run by Python could not rebind a variable the graph keeps)")
def test_nonlocal_write_in_nested_helper():
    check(nonlocal_in_helper, X, graphs=1)


def calls_nonlocal_helper(x):
    return nonlocal_in_helper(x) + 1


@covers("Nonlocal", "one graph", "a helper called from a converted function, whose nested function rebinds "
        "its `nonlocal` on a straight path: inlined, the write lands in the helper's frame")
def test_nonlocal_write_in_an_inlined_helper():
    check(calls_nonlocal_helper, X, graphs=1)


class Hyper:
    LR = 0.1
    NAMES = ("a", "b")


def class_constants(x):
    return x * Hyper.LR, len(Hyper.NAMES)


@covers("Attribute", "trace time", "class-level constants read through the class")
def test_class_constants():
    check(class_constants, X, graphs=1)


def shadows_builtin(x, max=2.0):   # noqa: A002 - shadows the builtin on purpose
    sum = x.sum()                  # noqa: A001
    return x * max + sum


@covers("Name", "one graph", "locals and parameters shadowing builtins (`max`, `sum`)")
def test_shadowed_builtins():
    check(shadows_builtin, X, graphs=1)


def maybe_unbound(x, flag):
    if flag:
        y = x * 2
    return y


@covers("Name", "error as eager", "a name bound on a static path not taken: UnboundLocalError as eager")
@pytest.mark.parametrize("flag", [True, False])
def test_unbound_local_like_eager(flag):
    check(maybe_unbound, X, flag, full_graph=False)


def late_binding(x):
    fs = []
    for k in range(3):
        fs.append(lambda v: v * k)
    return [f(x) for f in fs]


@covers("Lambda", "unrolled", "lambdas appended in a loop see the final loop value (late binding, as eager)")
def test_late_binding_closures():
    check(late_binding, X, graphs=1)
