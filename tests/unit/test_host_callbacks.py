"""64-bit values across host callbacks (``graphlib/arrays.py``: ``pure_host_call``, ``words_sent``).

JAX hands a callback's arguments over and checks its results under the x64
switch of the thread that runs it; a graph with 64-bit values is traced and
called inside ``jax.enable_x64(True)``, which holds for the calling thread
only. Where XLA runs the callback on another thread (its CPU worker threads,
a GPU's host thread), float64 arguments arrived as float32 and a float64
result was refused. Each test compiles under x64 here and runs the
executable from a thread whose switch is off: the callback then runs there.
"""

import math
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph.graphlib.bounded import raise_if
from ast2graph.graphlib.hostcalls import pure_host_call, words_sent

X = 0.1 + 2.0 ** -40   # not a float32: narrowing changes it


def _in_another_thread(fn, *args):
    box = {}

    def run():
        try:
            box["out"] = fn(*args)
        except BaseException as e:  # noqa: BLE001
            box["error"] = e

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["out"]


def _compiled(fn, *args):
    with jax.enable_x64(True):
        return jax.jit(fn).lower(*args).compile()


def test_float64_operands_and_results_cross_exactly():
    def f(x):
        return pure_host_call(lambda v: np.asarray(math.exp(float(v)) + float(v), np.float64),
                              jax.ShapeDtypeStruct((), np.float64), x)

    with jax.enable_x64(True):
        x = jnp.asarray(X, np.float64)
    compiled = _compiled(f, x)
    out = _in_another_thread(compiled, x)
    assert out.dtype == np.float64 and float(out) == math.exp(X) + X


def test_int64_and_tuples_of_results():
    def f(x, k):
        return pure_host_call(lambda v, n: (np.asarray(v * 3), np.asarray(n + 2 ** 40)),
                              (jax.ShapeDtypeStruct((2,), np.float64), jax.ShapeDtypeStruct((), np.int64)), x, k)

    with jax.enable_x64(True):
        x, k = jnp.asarray([X, -X], np.float64), jnp.asarray(2 ** 41, np.int64)
    a, b = _in_another_thread(_compiled(f, x, k), x, k)
    assert a.tolist() == [X * 3, -X * 3] and int(b) == 2 ** 41 + 2 ** 40


def test_a_run_time_check_gets_64_bit_values():
    seen = []

    def raiser(mask, v):
        seen.append((v.dtype, float(v)))
        raise ValueError(f"bad {float(v)}")

    def f(x):
        raise_if(x > 0, raiser, x)
        return x

    with jax.enable_x64(True):
        x = jnp.asarray(X, np.float64)
    compiled = _compiled(f, x)
    with pytest.raises(Exception):
        _in_another_thread(lambda v: jax.block_until_ready(compiled(v)), x)
    assert seen == [(np.float64, X)]


def test_words_sent_decodes_every_dtype():
    with jax.enable_x64(True):
        values = [jnp.asarray([X, 2.0], np.float64), jnp.asarray([-(2 ** 50), 7], np.int64),
                  jnp.asarray([2 ** 63 + 5], np.uint64), jnp.asarray([1.5], np.float32), jnp.asarray([True])]
        sent, decode = words_sent(tuple(values))
        back = decode(lambda *xs: xs)(*[np.asarray(s) for s in sent])
    for v, b in zip(values, back):
        assert b.dtype == v.dtype and b.tolist() == np.asarray(v).tolist()
