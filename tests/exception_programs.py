"""Functions that raise, for tests/test_graph_exceptions.py, kept out of the
test module: pytest rewrites `assert` in test modules, so their eager run
would not be plain Python."""

import jax.numpy as jnp
import numpy as np


class CodedError(Exception):
    def __init__(self, msg, *, code):
        super().__init__(msg)
        self.code = code
        self.tags = ["made"]


class Unbuildable(Exception):
    def __init__(self, n):
        raise TypeError(f"cannot make Unbuildable({n})")


PREBUILT = ValueError("prebuilt")


def keyword_only(x):
    if x.sum() > 0:
        raise CodedError("bad", code=3)
    return x + 1


def prebuilt(x):
    if x.sum() > 0:
        raise PREBUILT
    return x + 1


def bare_class(x):
    if x.sum() > 0:
        raise KeyError
    return x + 1


def traced_arguments(x):
    if x.sum() > 0:
        raise ValueError(f"sum is {x.sum()}, max {x.max():.2f}", x[0], x.shape)
    return x + 1


def numpy_arguments(x):
    s = np.asarray(x).sum()
    if s > 0:
        raise ValueError("numpy", s, s > 1)
    return x


def unbuildable(x):
    if x.sum() > 0:
        raise Unbuildable(2)
    return x + 1


def multi_line(x):
    if x.sum() > 0:
        raise CodedError(
            "multi",
            code=5)
    return x + 1


def checked_helper(x):
    if x.sum() > 0:
        raise CodedError("in helper", code=1)
    return x * 2


def calls_helper(x):
    y = checked_helper(x) + 1
    return y


def asserts_compare(x):
    assert x.sum() < 0, f"got {x.sum()}"
    return x + 1


def asserts_call(x):
    assert jnp.all(x < 0)
    return x + 1


def exits(x):
    if x.sum() > 0:
        raise SystemExit(2)
    return x + 1


def interrupts(x):
    if x.sum() > 0:
        raise KeyboardInterrupt
    return x + 1


def asserts_multi_line(x):
    assert (x.sum()
            < 0), "multi-line test"
    return x + 1


def asserts_name(x):
    ok = x.sum() < 0
    assert ok
    return x + 1


def asserts_one_line(x): assert x.sum() < 0; return x + 1  # noqa: E701, E702
