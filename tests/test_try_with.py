"""try/except/else/finally and with in the graph (issue 4): a compiled graph
raises no Python exception, so a try whose body specialises is body, else,
finally; an exception raised at trace time on a static path is handled as
eager handles it; trace-time-only context managers are entered while tracing.
Everything else falls back, with the rest of the function compiled."""

import contextlib
import logging
import os

import jax
import jax.numpy as jnp
import pytest

from helpers import check, modes

X = jnp.arange(3.0)
CACHE = {"a": 2.0}


def cache_lookup(x, key="b"):
    try:
        s = CACHE[key]
    except KeyError as e:
        s = 3.0
        print("missing", e)
    else:
        s = s + 1
    finally:
        x = x + 1
    with jax.named_scope("block"):
        z = x * s
    return z


@pytest.mark.parametrize("key", ["a", "b"])
def test_try_handled_statically_or_unreachable(key):
    e = check(cache_lookup, X, kwargs={"key": key}, graphs=1)
    assert ("try", "handled at trace time" if key == "b" else "graph") in modes(e)
    assert ("with", "trace time") in modes(e)


def raise_in_unrolled_loop(x):
    for i in range(3):
        try:
            if i == 1:
                raise ValueError("one")
            x = x + i
        except ValueError:
            x = x * 10
    return x


def return_in_try_finally(x):
    try:
        return x / 0
    finally:
        print("finally runs")


def nested_try(x):
    try:
        try:
            y = [1, 2][5]
        except IndexError:
            y = 7
        z = x * y
    except Exception:
        z = x
    return z


def precision_scope(x):
    with jax.default_matmul_precision("float32"), contextlib.nullcontext() as nothing:
        y = x @ x + (0 if nothing is None else 1)
    return y


@pytest.mark.parametrize("fn", [raise_in_unrolled_loop, return_in_try_finally, nested_try, precision_scope])
def test_try_and_with_in_one_graph(fn):
    e = check(fn, X, graphs=1)
    assert not e.fallback_sites


def unmatched(x):
    try:
        y = {}["missing"]
    except ValueError:
        y = 1
    return x * y


def test_unmatched_exception_raises_like_eager():
    e = check(unmatched, X, full_graph=False)  # eager raises KeyError; so does the converted call
    assert e is None or e.fallback_sites


def file_context(x):
    y = x + 1
    with open(os.devnull) as fh:
        fh.read()
    return y * 2


def test_runtime_context_manager_falls_back_with_rest_compiled():
    e = check(file_context, X, full_graph=False, graphs=2)
    assert [s.code.code for s in e.fallback_sites] == ["A2G001"]


def suppressed(x, cfg):
    y = x * 2
    with contextlib.suppress(KeyError):
        y = y + cfg["bias"]        # a missing key: eager suppresses KeyError on every call
        y = y * 10
    return y


@pytest.mark.parametrize("cfg", [{"bias": 1.0}, {}], ids=["present", "missing"])
def test_contextlib_suppress_in_the_graph(cfg):
    check(suppressed, jnp.arange(3.0), cfg, graphs=1)


def logs(x):
    log = logging.getLogger("ast2graph.tests")
    log.warning("sum %s", 3)
    return x + 1


def test_logging_getlogger_is_a_lookup_not_a_fallback():
    check(logs, jnp.arange(3.0), graphs=1)


# ---- a `with` whose manager swallows an exception raised part way through its body:
# the code after it sees the names as they were when the exception was raised
class _SwallowKeyError:
    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        return et is KeyError


def _swallowed_before_rebinding(x):
    res = "unset"
    with _SwallowKeyError():
        if x[0] < 0:
            raise KeyError("neg")
        res = float(x.sum())
    return res


def _swallowed_between_rebindings(x):
    res = 0.0
    with contextlib.suppress(KeyError):
        a = x * 2
        res = a.sum()
        if x[0] < 0:
            raise KeyError("neg")
        res = res + 100
    return res


def _swallowed_in_a_loop(xs):
    total = 0.0
    for x in xs:
        last = -1.0
        with contextlib.suppress(KeyError):
            if x < 0:
                raise KeyError(x)
            last = x * 2
        total += last
    return total


@pytest.mark.parametrize("fn,inputs", [
    (_swallowed_before_rebinding, [[-1.0, 2.0], [1.0, 2.0]]),
    (_swallowed_between_rebindings, [[-1.0, 2.0], [1.0, 2.0]]),
    (_swallowed_in_a_loop, [[1.0, -2.0, 3.0]]),
])
def test_swallowed_exception_keeps_earlier_bindings(fn, inputs):
    import numpy as np
    for v in inputs:
        check(fn, np.array(v) if fn is not _swallowed_in_a_loop else v, full_graph=False)
