"""Context managers: trace-time scopes stay in the graph; managers whose
`__enter__`/`__exit__` must run on every call run in Python."""

import contextlib
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_sequence, modes

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
@covers("withitem", "trace time", "two items in one `with` (`a, b as v`): entered left to right, exited in reverse")
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


@covers("With", "trace time", "a user `@contextmanager` that appends enter/exit to an argument list (the "
        "list's new contents written back into the caller's list)")
def test_user_context_manager_mutating_an_argument_is_one_graph():
    check(user_context, X, [], graphs=1)


@contextlib.contextmanager
def announce(name):
    print("enter", name)
    try:
        yield name
    finally:
        print("exit", name)


def generator_context(x):
    with announce("a") as s:
        if x.sum() > 0:
            x = x + 1
    return x, s


@covers("With", "one graph", "a user `@contextmanager` (print before the `yield`, `finally:` after it) around a "
        "traced `if`: inlined, the body runs at the `yield`")
def test_user_contextmanager_in_the_graph():
    e = check(generator_context, X, graphs=1)
    assert "converted" in modes_of(e, "with")


class Counter:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n += 1
        return self

    def __exit__(self, exc_type, exc, tb):
        return False


COUNTER = Counter()


def class_context(x):
    with COUNTER as c:
        if x.sum() > 0:
            x = x * 2
    return x, c.n


@covers("With", "one graph", "`with obj:` on a user class with `__enter__`/`__exit__` (`self.n += 1`, written back "
        "every call) around a traced `if`")
@covers("withitem", "one graph", "`obj as c`: the value `__enter__` returns bound by `as`")
def test_user_class_context_manager_in_the_graph():
    def make():
        COUNTER.n = 0
        return class_context, COUNTER

    steps = [lambda fn, c: (fn(X), c.n), lambda fn, c: (fn(-X), c.n), lambda fn, c: (setattr(c, "n", 7), fn(X), c.n)]
    check_sequence(make, steps)
    COUNTER.n = 0
    e = explain(to_static(class_context, full_graph=True))(X)
    assert e.graph_count == 1 and COUNTER.n == 1 and "converted" in modes_of(e, "with")


def break_through_with(x):
    for i in range(4):
        with announce(f"step{i}"):
            if x.sum() > 5:
                break
            x = x * 2
    return x


@covers("With", "flag", "`break` under a traced condition inside a `with` on a user `@contextmanager` in a loop: "
        "the exit runs once, then the break is taken under its flag")
def test_break_through_with():
    e = check(break_through_with, X, graphs=1)
    assert "flag" in modes_of(e, "exit")


def suppressed(x, key):
    with contextlib.suppress(KeyError):
        x = x + {"a": 1.0}[key]
    return x


@covers("With", "trace time", "`contextlib.suppress(KeyError)` swallowing an exception raised on a static path")
@pytest.mark.parametrize("key", ["a", "b"])
def test_suppress_in_the_graph(key):
    e = check(suppressed, X, key, graphs=1)
    assert ("with", "trace time") in modes(e)
