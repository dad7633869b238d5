"""``to_static``'s options are checked when given (issue 15, item 8): a wrong
type is a TypeError, a value out of range a ValueError, each naming the
option, the value and what it must be; the valid edge values still work."""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import assert_same, check, modes

from ast2graph import to_static

X = jnp.arange(4.0)


def f(x):
    return x * 2


class Thing:
    def __repr__(self):
        return "Thing()"


BAD = [
    ("full_graph", "yes", TypeError), ("full_graph", 1, TypeError), ("full_graph", None, TypeError),
    ("unroll_limit", "3", TypeError), ("unroll_limit", 3.0, TypeError), ("unroll_limit", None, TypeError),
    ("unroll_limit", True, TypeError), ("unroll_limit", -1, ValueError),
    ("max_unroll", "3", TypeError), ("max_unroll", None, TypeError), ("max_unroll", False, TypeError),
    ("max_unroll", -5, ValueError), ("max_unroll", np.int32(-1), ValueError),
    ("static_values", "3", TypeError), ("static_values", None, TypeError), ("static_values", 2.5, TypeError),
    ("static_values", True, TypeError), ("static_values", -1, ValueError),
    ("max_iters", "3", TypeError), ("max_iters", 2.0, TypeError), ("max_iters", True, TypeError),
    ("max_iters", 0, ValueError), ("max_iters", -3, ValueError),
    ("in_shardings", "3", TypeError), ("in_shardings", 3, TypeError), ("in_shardings", (None, "a"), TypeError),
    ("out_shardings", 3.0, TypeError), ("out_shardings", [None, Thing()], TypeError),
    ("donate_argnums", "0", TypeError), ("donate_argnums", 1.0, TypeError), ("donate_argnums", True, TypeError),
    ("donate_argnums", [0, "1"], TypeError), ("donate_argnums", {0: 1}, TypeError), ("donate_argnums", Thing(), TypeError),
    ("donate_argnums", -1, ValueError), ("donate_argnums", (0, -2), ValueError),
    ("donate_argnames", 0, TypeError), ("donate_argnames", ["x", 1], TypeError), ("donate_argnames", b"x", TypeError),
    ("donate_argnames", "not a name", ValueError), ("donate_argnames", ("x", "1x"), ValueError),
]


@pytest.mark.parametrize("option,value,error", BAD, ids=[f"{o}={v!r}" for o, v, _ in BAD])
def test_bad_option_fails_at_to_static_naming_it(option, value, error):
    message = re.escape(f"to_static: {option} must be") + ".*" + re.escape(repr(value))
    with pytest.raises(error, match=message):
        to_static(f, **{option: value})
    with pytest.raises(error, match=message):   # the decorator form: before any function is given
        to_static(**{option: value})


@pytest.mark.parametrize("fn", [3, "f", [f]])
def test_fn_must_be_callable(fn):
    with pytest.raises(TypeError, match=re.escape("to_static: fn must be a callable") + ".*" + re.escape(repr(fn))):
        to_static(fn)


def test_positional_flag_instead_of_a_function():
    with pytest.raises(TypeError, match="to_static: fn must be a callable.*True"):
        to_static(True)


# ------------------------------------------------------------ valid edge values
def loop(x):
    for i in range(5):
        x = x * 0.5 + i
    return x


def loop_over_rows(x):
    acc = 0.0
    for row in x:
        acc = acc + row.sum()
        print("row")
    return acc


def scaled(x, k):
    return x * k


def halve(x):
    while x.sum() > 1.0:
        x = x / 2
    return x


def test_unroll_limit_zero_rolls_every_loop():
    assert modes(check(loop, X, graphs=1)) == [("for", "unrolled")]
    assert modes(check(loop, X, unroll_limit=0, graphs=1)) == [("for", "lax.fori_loop")]


def test_max_unroll_zero_still_equals_eager():
    check(loop_over_rows, jnp.ones((3, 2)), full_graph=False, max_unroll=0)


def test_static_values_zero_traces_python_numbers_from_the_first_call():
    g = to_static(scaled, full_graph=True, static_values=0)
    for k in (1.0, 2.0, 3.0, 4.0):
        assert_same(scaled(X, k), g(X, k))
    assert g.recompiles <= 1, g.recompile_reasons


def test_max_iters_one():
    check(halve, jnp.array([0.6, 0.6]), max_iters=1, graphs=1)


def test_numpy_integers_and_bools_are_accepted():
    check(loop, X, unroll_limit=np.int64(2), max_unroll=np.int32(8), static_values=np.int16(1),
          max_iters=np.int64(3), full_graph=np.bool_(True), graphs=1)
    g = to_static(loop, full_graph=True, unroll_limit=np.int64(2))
    assert type(g._state.options.unroll_limit) is int and type(g._state.options.full_graph) is bool


def test_empty_and_none_jit_options_are_accepted():
    for kw in ({"donate_argnums": ()}, {"donate_argnums": []}, {"donate_argnames": ()},
               {"donate_argnums": None, "donate_argnames": None}, {"in_shardings": None},
               {"out_shardings": None}, {"in_shardings": (None,)}, {"donate_argnums": np.int64(0)},
               {"in_shardings": jax.sharding.SingleDeviceSharding(jax.devices()[0])},
               {"donate_argnames": ("x",)}, {"donate_argnums": range(1)}):
        x = jnp.arange(4.0)
        assert_same(f(jnp.arange(4.0)), to_static(f, full_graph=True, **kw)(x))
