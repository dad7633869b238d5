"""`x op= v` on a NumPy array is in place (ndarray.__iadd__ ...): the caller's
array and every alias see it, as eager. Found by review: `x -= 1.0` on an
ndarray argument, and `x[0] += v` / `x += v` inside a rolled loop, left the
caller's array unchanged. With a jax.Array operand NumPy defers, and `x` is
rebound to a jax.Array (the original array unchanged). Each against eager."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check


def decrement(x):
    x -= 1.0
    return x


def accumulate_rolled(x, v):
    for _ in range(20):
        x += v
    return x.sum()


def item_accumulate_rolled(x, v):
    for _ in range(20):
        x[0] += v
    return x.sum()


def alias_then_inplace(x, v):
    y = x
    y *= 2
    for _ in range(20):
        x += v
    return x.sum(), y


def local_then_jax_operand(x):
    z = np.zeros(3, dtype=np.float32)
    z += 1.0
    z += x            # a jax.Array operand: NumPy defers, z becomes a jax.Array
    z *= 2
    return z


def int_array_plus_float(x):
    x += 0.5          # eager: UFuncTypeError (same_kind casting)
    return x


@pytest.mark.parametrize("fn", [decrement])
def test_inplace_on_an_argument_is_one_graph(fn):
    check(fn, np.zeros(2, np.float32), graphs=1)


@pytest.mark.parametrize("fn", [accumulate_rolled, item_accumulate_rolled])
def test_inplace_on_an_argument_in_a_loop(fn):
    check(fn, np.ones(2, np.float32), np.float32(1.0), graphs=1)


def test_inplace_through_an_alias_falls_back_with_eager_results():
    e = check(alias_then_inplace, np.ones(2, np.float32), np.float32(1.0), full_graph=False)
    assert "A2G007" in [s.code.code for s in e.fallback_sites]


def test_jax_operand_rebinds():
    check(local_then_jax_operand, jnp.ones(3), graphs=1)


def test_casting_error_as_eager():
    check(int_array_plus_float, np.zeros(2, np.int32), full_graph=False)
