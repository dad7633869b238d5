"""Context managers: trace-time scopes stay in the graph; managers whose
`__enter__`/`__exit__` must run on every call run in Python."""

import contextlib
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, modes

from .common import X, codes, modes_of
from .coverage import covers


def scoped(x, w):
    with jax.named_scope("attention"):
        y = w @ x
    with jax.default_matmul_precision("float32"), contextlib.nullcontext() as nothing:
        y = y @ w + (0.0 if nothing is None else 1.0)
    with np.errstate(divide="ignore"):
        z = y / 2
    return z


@covers("With", "trace time", "`jax.named_scope`, `jax.default_matmul_precision`, `nullcontext() as v`, `np.errstate`")
def test_trace_time_context_managers():
    e = check(scoped, X, jnp.eye(3) * 2, graphs=1)
    assert modes_of(e, "with") == ["trace time"] * 3


def scoped_in_loop(x):
    for i in range(3):
        with jax.named_scope(f"layer{i}"):
            x = jnp.tanh(x + i)
    return x


@covers("With", "unrolled", "`with jax.named_scope(f\"layer{i}\")` inside an unrolled loop")
def test_named_scope_in_loop():
    e = check(scoped_in_loop, X, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


def read_file(x):
    y = x + 1
    with open(os.devnull) as fh:
        data = fh.read()
    return y * (len(data) + 2)


@covers("With", "interpreted", "`with open(...) as fh` (runs on every call); statements around stay compiled",
        code="A2G001")
def test_file_context_falls_back():
    e = check(read_file, X, full_graph=False, graphs=2)
    assert codes(e) == ["A2G001"]


@contextlib.contextmanager
def timer(log):
    log.append("enter")
    yield 2.0
    log.append("exit")


def user_context(x, log):
    with timer(log) as k:
        y = x * k
    return y


@covers("With", "interpreted", "a user `@contextmanager` that records enter/exit into an argument list",
        code="A2G001")
def test_user_context_manager_falls_back():
    e = check(user_context, X, [], full_graph=False)
    assert codes(e) == ["A2G001"]


def suppressed(x, key):
    with contextlib.suppress(KeyError):
        x = x + {"a": 1.0}[key]
    return x


@covers("With", "trace time", "`contextlib.suppress(KeyError)` swallowing an exception raised on a static path")
@pytest.mark.parametrize("key", ["a", "b"])
def test_suppress_in_the_graph(key):
    e = check(suppressed, X, key, graphs=1)
    assert ("with", "trace time") in modes(e)
