"""`raise` and `assert` under traced conditions stay in the graph as run-time
checks: the call raises what eager raises (type and message) when the
condition holds, and computes what eager computes otherwise. Each case
against the eager run; vmap against a Python loop over the batch."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static
from assert_programs import asserted
from helpers import check, modes


def validated(x):
    if jnp.any(jnp.isnan(x)):
        raise ValueError("input has NaNs")
    y = x * 2
    if y.sum() > 100:
        raise OverflowError("sum too large", 100)
    else:
        y = y + 1
    return y


def raise_in_rolled_loop(x):
    for i in range(30):
        x = x * 1.2
        if x.max() > 1e4:
            raise RuntimeError("diverged")
    return x


def raise_in_else(x):
    if x.sum() > 0:
        x = x - 1
    else:
        raise ValueError("non-positive sum")
    return x


GOOD, NAN, BIG = jnp.array([1.0, 2.0]), jnp.array([1.0, jnp.nan]), jnp.array([60.0, 1.0])


@pytest.mark.parametrize("x", [GOOD, NAN, BIG], ids=["good", "nan", "big"])
def test_raise_under_a_traced_if(x):
    e = check(validated, x, graphs=1)
    if e is not None:
        assert ("if", "checked") in modes(e)


@pytest.mark.parametrize("x", [GOOD, -GOOD, BIG], ids=["good", "negative", "big"])
def test_assert_on_traced_values(x):
    check(asserted, x, graphs=1)


@pytest.mark.parametrize("x", [jnp.array([0.1, 0.2]), jnp.array([1.0, 300.0])], ids=["stays", "diverges"])
def test_raise_in_a_rolled_loop(x):
    check(raise_in_rolled_loop, x, graphs=1)


@pytest.mark.parametrize("x", [GOOD, -GOOD], ids=["then", "else-raises"])
def test_raise_in_else(x):
    check(raise_in_else, x, graphs=1)


def test_vmap_raises_only_when_an_element_would():
    fine = jnp.stack([GOOD, GOOD * 2])
    np.testing.assert_allclose(jax.vmap(to_static(validated, full_graph=True))(fine),
                               np.stack([validated(r) for r in fine]))
    with pytest.raises(Exception, match="input has NaNs"):
        jax.vmap(to_static(validated, full_graph=True))(jnp.stack([GOOD, NAN]))


# Found by the fuzzer (campaign seed 7, programs 7668 and 7725): a run-time
# check's callback is not ordered with the prints' callbacks, so eager's output
# up to the raise was lost or extended. Code that prints keeps `raise` in Python.
def print_then_raise(x):
    for i in range(3):
        print("step", i)
        if x.sum() > 5 - 2 * i:
            raise RuntimeError("stop")
        x = x + 1
    return x


@pytest.mark.parametrize("x", [jnp.array([1.0, 1.0]), jnp.array([-9.0, 0.0])], ids=["raises-at-step-1", "returns"])
def test_prints_then_raise_keeps_eager_output(x):
    check(print_then_raise, x, full_graph=False)


def report(t):
    print(f"t={t:.3f}")
    return t


# Fuzzer seed 7 program 8926: the print is in a helper called after the raise.
def raise_then_print_in_helper(x):
    if jnp.max(x) < 0.9:
        raise ValueError("traced condition")
    return report(x.sum())


@pytest.mark.parametrize("x", [jnp.array([0.1, 0.2]), jnp.array([1.0, 2.0])], ids=["raises", "prints"])
def test_raise_before_a_print_in_a_helper(x):
    check(raise_then_print_in_helper, x, full_graph=False)
