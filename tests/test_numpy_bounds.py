"""Traced integer indices into NumPy arrays: NumPy raises IndexError when one
is out of bounds, where XLA would clamp a read or drop a write. The graph
checks them at run time (a host callback that runs only on failure), so the
converted function raises what eager raises, and computes what eager computes
when the indices are in bounds. Each case against the eager run."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check


def shifted_write(x, k):
    out = np.zeros(3, dtype=np.float32)
    for i in range(3):
        out[i + k] = x
    return out


def rolled_write(x, k):
    out = np.zeros(20, dtype=np.float32)
    for i in range(20):
        out[i + k] = x[i % 4]
    return out


def traced_read(x, table):
    i = jnp.argmax(x) + 2       # a traced index
    return table[i] * 2


def traced_pair_read(x, table):
    i = jnp.argmax(x)
    return table[i, i + 1]


@pytest.mark.parametrize("k", [0, 1, -4], ids=["in-bounds", "past-end", "before-start"])
def test_write_with_a_loop_index(k):
    check(shifted_write, np.float32(1.5), k, full_graph=False)


@pytest.mark.parametrize("k", [0, 1], ids=["in-bounds", "past-end"])
def test_write_in_a_rolled_loop(k):
    check(rolled_write, np.arange(4, dtype=np.float32), k, graphs=1 if k == 0 else None, full_graph=k == 0)


@pytest.mark.parametrize("x", [jnp.array([3.0, 1.0, 0.0, 0.0]), jnp.array([0.0, 0.0, 0.0, 3.0])],
                         ids=["in-bounds", "out-of-bounds"])
def test_traced_read_of_a_numpy_table(x):
    check(traced_read, x, np.arange(5, dtype=np.float32), graphs=1)


@pytest.mark.parametrize("x", [jnp.array([3.0, 1.0, 0.0]), jnp.array([0.0, 0.0, 3.0])],
                         ids=["in-bounds", "out-of-bounds"])
def test_traced_pair_read(x):
    check(traced_pair_read, x, np.arange(9, dtype=np.float32).reshape(3, 3), graphs=1)


def test_jax_arrays_keep_jax_semantics():
    def clamped(x):
        return x[jnp.argmax(x) + 10]   # a jax.Array clamps in eager too
    check(clamped, jnp.arange(3.0), graphs=1)
