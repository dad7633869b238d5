"""Fallbacks found on realistic programs (issue 16), hunt 12: one graph now.

Each function is compared with its eager run on inputs that take every path,
under ``full_graph=True``.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from helpers import check

FLOATS = [jnp.array(2.7), jnp.array(-3.5), jnp.array(jnp.nan), jnp.array(jnp.inf), jnp.array(-jnp.inf)]


# ----------------------------------------------- int(x) in a try: two exceptions of one statement
def int_or_minus_one(x):
    try:
        n = int(x)
    except (ValueError, OverflowError):
        n = -1
    return n


def int_kind_of_error(x):
    try:
        n = int(x * 2)
    except (ValueError, OverflowError) as e:
        return (0 if isinstance(e, ValueError) else 1), x
    return n, x + 1


def int_return_in_try_except_exception(x):
    try:
        return int(x * 2) + 1
    except Exception:
        return 0


def int_handlers_apart(x):
    try:
        n = int(x)
        m = n % 7
    except ValueError:
        m = -1
    except OverflowError:
        m = -2
    else:
        m = m + 100
    return m


def int_then_array_math(x, y):
    try:
        k = int(x)
        out = y * k
    except (ValueError, OverflowError):
        out = y * 0.5
    return out


@pytest.mark.parametrize("fn", [int_or_minus_one, int_kind_of_error, int_return_in_try_except_exception,
                                int_handlers_apart])
@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_two_exceptions(fn, x):
    check(fn, x, full_graph=True)


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_then_array_math(x):
    check(int_then_array_math, x, jnp.arange(3.0), full_graph=True)


def int_only_value_error(x):
    try:
        n = int(x)
    except ValueError:
        n = -1
    return n


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_one_exception_taken_the_other_raised(x):
    """NaN's ValueError is taken by the handler; an infinity's OverflowError
    leaves the try: eager's exception and message (a check of its own)."""
    check(int_only_value_error, x, full_graph=True)


def int_in_loop_try(xs):
    total = 0
    for i in range(3):
        try:
            total += int(xs[i])
        except (ValueError, OverflowError):
            total -= 100
    return total


@pytest.mark.parametrize("xs", [jnp.array([1.5, 2.5, 3.5]), jnp.array([jnp.nan, 2.0, jnp.inf]),
                                jnp.array([-jnp.inf, jnp.nan, 7.9])])
def test_int_in_try_inside_a_loop(xs):
    check(int_in_loop_try, xs, full_graph=True)


def int_beyond_int64_in_try(x):
    try:
        n = int(x)
    except (ValueError, OverflowError):
        n = -1
    return n


def test_int_beyond_int64_in_try_is_eagers_exact_int():
    """A finite float beyond int64: eager's int is exact, and the handler is
    not run; that call runs in Python (the graph's int64 cannot hold it)."""
    check(int_beyond_int64_in_try, jnp.array(2.7), full_graph=True)
    check(int_beyond_int64_in_try, jnp.array(3e19, dtype=jnp.float32), full_graph=False)


# ----------------------------------------------- a handler of a traced raise that raises again
X_POS = jnp.array([1.0, 2.0, 3.0])
X_NEG = jnp.array([-1.0, 2.0, 3.0])


def raise_from_e(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise RuntimeError("bad input") from e
    return y


def raise_from_none(x):
    try:
        if x[0] < 0:
            raise KeyError("k")
        y = x + 1
    except KeyError:
        raise ValueError("no key") from None
    return y.sum()


def raise_in_handler_no_from(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise TypeError(f"wrapped: {e}")
    return y


def bare_reraise(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError:
        raise
    return y


def reraise_after_computing(x):
    try:
        if x.sum() < 2:
            raise ArithmeticError("too small")
        y = jnp.sqrt(x)
    except ArithmeticError as e:
        note = x * 0
        raise RuntimeError(str(e)) from e
    return y


def reraise_with_else(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
    except ValueError as e:
        raise RuntimeError("bad") from e
    else:
        x = x * 3
    return x


def raise_from_int_check(x):
    try:
        n = int(x)
    except (ValueError, OverflowError) as e:
        raise RuntimeError(f"not a count: {e}") from e
    return n + 1


def _chain(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        c = e.__cause__
        return (type(e), str(e), type(c), str(c) if c is not None else None, e.__suppress_context__,
                type(e.__context__), str(e.__context__) if e.__context__ is not None else None)
    return None


@pytest.mark.parametrize("fn", [raise_from_e, raise_from_none, raise_in_handler_no_from, bare_reraise,
                                reraise_after_computing, reraise_with_else])
@pytest.mark.parametrize("x", [X_POS, X_NEG], ids=["pass", "raise"])
def test_raise_in_the_handler_of_a_traced_raise(fn, x):
    from ast2graph import to_static

    check(fn, x, full_graph=True)
    assert _chain(to_static(fn, full_graph=True), x) == _chain(fn, x)


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_raise_from_in_the_handler_of_int(x):
    from ast2graph import to_static

    check(raise_from_int_check, x, full_graph=True)
    assert _chain(to_static(raise_from_int_check, full_graph=True), x) == _chain(raise_from_int_check, x)


def raise_from_with_finally(x):
    out = []
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise RuntimeError("bad") from e
    finally:
        out.append(1)
    return y, out


def raise_from_in_a_loop(x):
    acc = x * 0
    for i in range(3):
        try:
            if x[i] < 0:
                raise ValueError(f"negative at {i}")
            acc = acc + x[i]
        except ValueError as e:
            raise RuntimeError("stop") from e
    return acc


def raise_from_under_except_exception(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except Exception as e:
        raise RuntimeError("bad") from e
    return y


@pytest.mark.parametrize("fn", [raise_from_with_finally, raise_from_in_a_loop, raise_from_under_except_exception])
@pytest.mark.parametrize("x", [X_POS, X_NEG, jnp.array([1.0, -2.0, 3.0])], ids=["pass", "raise", "raise-later"])
def test_raise_from_with_finally_loops_and_broad_handlers(fn, x):
    from ast2graph import to_static

    check(fn, x, full_graph=True)
    assert _chain(to_static(fn, full_graph=True), x) == _chain(fn, x)


def reraise_after_print(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        print("logging:", e)
        raise
    return y


def reraise_into_an_outer_handler(x):
    try:
        try:
            if x[0] < 0:
                raise ValueError("neg")
            y = x * 2
        except ValueError as e:
            raise KeyError("inner") from e
    except KeyError:
        y = x * 0
    return y


@pytest.mark.parametrize("fn", [reraise_after_print, reraise_into_an_outer_handler])
@pytest.mark.parametrize("x", [X_POS, X_NEG], ids=["pass", "raise"])
def test_handler_raise_that_stays_in_python_is_still_eagers(fn, x):
    """A print before the re-raise (a check is not ordered with the print's
    callback) and a re-raise an outer handler takes still run in Python:
    eager's output, result and exception."""
    check(fn, x, full_graph=False)
