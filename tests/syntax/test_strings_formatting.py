"""Strings and formatting: f-strings with conversions and format specs, %-format,
str.format, string methods, constants of every kind; printed f-strings of traced
values are host callbacks."""

import pytest

from helpers import check, modes

from .common import X, codes
from .coverage import covers


def names_and_formats(x, step, name):
    key = f"{name}/layer_{step:03d}"
    info = f"{x.shape}|{x.dtype!s}|{name!r:>8}|{step / 3:.2f}|{step:{'>'}{6}}"
    legacy = "%s-%d-%.1f" % (name, step, 2.5)
    fmt = "{}:{:>4}".format(name, step)
    joined = "_".join([name.upper(), name.strip("x"), str(step)])
    return x * len(key), key, info, legacy, fmt, joined, name.startswith("e"), name.replace("e", "E")


@covers("JoinedStr", "trace time", "f-strings of static values, shapes and dtypes")
@covers("FormattedValue", "trace time", "`{v:03d}`, `{v!s}`, `{v!r:>8}`, `{v:.2f}`, nested format spec")
@pytest.mark.parametrize("step,name", [(0, "enc"), (12, "dec")])
def test_static_string_formatting(step, name):
    check(names_and_formats, X, step, name, graphs=1)


def constants(x):
    return (x * 2, x + 0.5, x * (1 + 2j).real, None, True, False, b"raw", "text", ..., 10 ** 3, 0x1F, 1_000)


@covers("Constant", "one graph", "int, float, complex, None, True/False, bytes, str, Ellipsis, hex and `_` literals")
def test_constants():
    check(constants, X, graphs=1)


def log_progress(x):
    for step in range(3):
        x = x * 0.5
        print(f"step {step}: loss {x.sum():.4f}, max={x.max()!r}, shape={x.shape}")
    return x


@covers("JoinedStr", "host callback", "`print(f\"... {traced:.4f} ...\")` in a loop: formatted on the host")
@covers("FormattedValue", "host callback", "`{traced:.4f}` and `{traced!r}` of traced values inside `print`")
def test_printed_fstring_of_traced_values():
    e = check(log_progress, X, graphs=1)
    assert ("call", "host callback") in modes(e)


def fstring_value_of_traced(x):
    label = f"total={x.sum()}"
    return x * 2, label


@covers("JoinedStr", "one graph", "an f-string of a traced value used as a value (returned): formatted on the host "
        "per call from the graph's outputs")
def test_fstring_of_traced_value_returned():
    check(fstring_value_of_traced, X, graphs=1)


def docstring_and_expr(x):
    """A docstring is an expression statement holding a constant."""
    "a bare string statement"
    x.sum()             # an expression statement whose value is dropped
    return x


@covers("Expr", "one graph", "docstring, bare string and a discarded call as expression statements")
@covers("Constant", "one graph", "docstring constant")
def test_expression_statements():
    check(docstring_and_expr, X, graphs=1)
