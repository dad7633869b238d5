"""Exceptions: `raise`, `try`/`except`/`else`/`finally`, `try`/`except*`, `assert`,
on static and traced paths; exception type and message as eager."""

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .asserting import assert_traced, checked
from .common import X, codes, modes_of
from .coverage import covers


def validate(x, mode):
    if x.ndim != 1:
        raise ValueError(f"expected a vector, got shape {x.shape}")
    if mode not in ("sum", "mean"):
        raise NotImplementedError(mode)
    return x.sum() if mode == "sum" else x.mean()


@covers("Raise", "pruned", "`raise` under a static `if` that is not taken")
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_raise_not_taken(mode):
    e = check(validate, X, mode, graphs=1)
    assert set(modes_of(e, "if")) == {"pruned"}


@covers("Raise", "error as eager", "`raise ValueError(f\"...\")` on a static path: same type and message")
@pytest.mark.parametrize("args", [(jnp.ones((2, 2)), "sum"), (X, "max")], ids=["shape", "mode"])
def test_raise_taken_raises_as_eager(args):
    check(validate, *args, full_graph=False)


def raise_traced(x):
    if x.sum() > 100:
        raise ValueError("diverged")
    return x * 2


@covers("Raise", "checked", "`raise` of a static exception under a traced `if`: a run-time check in the graph "
        "(same type and message as eager)")
@pytest.mark.parametrize("x", [X, X * 100], ids=["ok", "raises"])
def test_raise_under_traced_if(x):
    e = check(raise_traced, x, graphs=1)
    if e is not None:
        assert ("if", "checked") in modes(e)


def chained_raise(x, key):
    table = {"a": 1.0}
    try:
        return x * table[key]
    except KeyError as err:
        raise LookupError(f"unknown key {key}") from err


@covers("Raise", "error as eager", "`raise ... from err` inside a handler")
def test_raise_from_as_eager():
    check(chained_raise, X, "b", full_graph=False)


CACHE = {"a": 2.0}


def cached_scale(x, key):
    try:
        s = CACHE[key]
    except KeyError as e:
        print("missing", e)
        s = 3.0
    else:
        s = s + 1
    finally:
        x = x + 1
    return x * s


@covers("Try", "one graph", "`try` body that specialises: `else`/`finally` run, the handler is unreachable")
@covers("Try", "trace time", "an exception raised on a static path (dict lookup) caught by its handler")
@covers("ExceptHandler", "trace time", "`except KeyError as e:` matched at trace time against the exception eager "
        "raises on a static path; `e` bound, then unbound after the handler")
@pytest.mark.parametrize("key", ["a", "b"])
def test_try_except_else_finally(key):
    e = check(cached_scale, X, key, graphs=1)
    assert modes_of(e, "try") == ["graph" if key == "a" else "handled at trace time"]


def try_in_loop(x):
    for i in range(3):
        try:
            if i == 1:
                raise ValueError("skip one")
            x = x + i
        except ValueError:
            x = x * 10
    return x


@covers("Try", "unrolled", "`try`/`except` around a static `raise` in an unrolled loop")
def test_try_in_unrolled_loop():
    e = check(try_in_loop, X, graphs=1)
    assert "handled at trace time" in modes_of(e, "try")


def unhandled(x):
    try:
        y = {}["missing"]
    except ValueError:
        y = 1
    return x * y


@covers("Try", "error as eager", "an exception no handler matches propagates as eager")
@covers("ExceptHandler", "error as eager", "`except ValueError:` that does not match the raised `KeyError`")
def test_unmatched_handler_raises_as_eager():
    check(unhandled, X, full_graph=False)


def return_in_finally_try(x):
    try:
        return x / 2
    finally:
        print("cleanup")


@covers("Try", "one graph", "`return` in `try` with a `finally` that prints")
def test_return_through_finally():
    check(return_in_finally_try, X, graphs=1)


def break_through_finally(x):
    for i in range(4):
        try:
            if x.sum() > 3:
                break
            x = x + 1
        finally:
            print("cleanup", i)
            x = x * 1.0
    return x


@covers("Try", "flag", "`break` under a traced condition in `try`/`finally` in a loop: the finally runs once on "
        "every path, then the break is taken under its flag")
@pytest.mark.parametrize("scale", [0.0, 2.0])
def test_break_through_finally(scale):
    e = check(break_through_finally, X * scale, graphs=1)
    assert "flag" in modes_of(e, "exit")


def else_after_break(x):
    for i in range(3):
        try:
            if x.sum() > 3:
                break
            x = x + 1
        except ValueError:
            pass
        else:
            x = x * 2
    return x


@covers("Try", "flag", "`try`/`except`/`else` around a `break` under a traced condition: `else:` runs under "
        "\"the body did not exit\" (eager skips it on the break's path only)")
@pytest.mark.parametrize("scale", [0.0, 2.0])
def test_else_after_traced_break(scale):
    e = check(else_after_break, X * scale, graphs=1)
    assert "flag" in modes_of(e, "exit")


def try_star(x):
    try:
        raise ExceptionGroup("batch", [ValueError("v"), TypeError("t")])
    except* ValueError:
        x = x + 1
    except* TypeError:
        x = x * 2
    return x


@covers("TryStar", "interpreted", "`try`/`except*` with an `ExceptionGroup`", code="A2G001")
def test_try_star_falls_back():
    e = check(try_star, X, full_graph=False)
    assert codes(e) == ["A2G001"]


@covers("Assert", "one graph", "`assert` on static values that holds")
def test_static_assert_holds():
    check(checked, X, 2, graphs=1)


@covers("Assert", "error as eager", "failing static `assert` with a message: AssertionError with that message")
def test_static_assert_fails_as_eager():
    check(checked, X, 0, full_graph=False)


@covers("Assert", "checked", "`assert` on a traced value: a run-time check in the graph (AssertionError with "
        "eager's message)")
@pytest.mark.parametrize("x", [X, X * -1000], ids=["holds", "fails"])
def test_traced_assert_is_a_run_time_check(x):
    e = check(assert_traced, x, graphs=1)
    if e is not None:
        assert ("assert", "checked") in modes(e)
