"""Operators: binary and unary operators on arrays, Python numbers and mixes."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

from .common import X
from .coverage import covers


def gelu_softmax(x, y):
    g = 0.5 * x * (1.0 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))
    z = (x - x.max()) / (y + 1.0)
    p = jnp.exp(z) / jnp.exp(z).sum()
    return g, p, x // (y + 1.0), x % (y + 1.0), 2.0 ** x, x - y


@covers("BinOp", "one graph", "`+ - * / // % **` on arrays and array/Python-scalar mixes")
def test_arithmetic_one_graph():
    check(gelu_softmax, X, X[::-1] + 0.5, graphs=1)


def matmul(w, x, b):
    return w @ x + b, x @ x, (w.T @ w) @ x


@covers("BinOp", "one graph", "`@` matrix products")
def test_matmul_one_graph():
    check(matmul, jnp.arange(6.0).reshape(2, 3), X, jnp.ones(2), graphs=1)


def bit_ops(a, b):
    return a & b, a | b, a ^ b, a << 1, a >> 1, ~a, (a > 1) & (b < 3), ~(a > 1)


@covers("BinOp", "one graph", "`& | ^ << >>` on int and bool arrays")
@covers("UnaryOp", "one graph", "`~` on int and bool arrays")
def test_bitwise_one_graph():
    check(bit_ops, jnp.arange(4), jnp.arange(4) + 1, graphs=1)


def python_numbers(x, n, c):
    k = n * 2 + 1
    r = n / 4
    q, m = divmod(n, 3)
    h = (n << 2) | 1 ^ 6 & 7 >> 1
    return x * k + c ** 2 - r, q, m, h, -n, +c, not n, ~n, n // 2 * 1.5


@covers("BinOp", "trace time", "arithmetic on static Python ints and floats (exact Python semantics)")
@covers("UnaryOp", "trace time", "`- + not ~` on static Python numbers")
@pytest.mark.parametrize("n,c", [(0, 0.5), (7, -1.25)])
def test_python_number_arithmetic(n, c):
    check(python_numbers, X, n, c, graphs=1)


def unary_arrays(x):
    return -x, +x, abs(-x), -(x.sum())


@covers("UnaryOp", "one graph", "`-x`, `+x` on arrays")
def test_unary_on_arrays():
    check(unary_arrays, X, graphs=1)


def int_division_by_zero(n):
    return n // 0


@covers("BinOp", "error as eager", "`n // 0` on a static int raises ZeroDivisionError")
def test_static_division_by_zero_raises_as_eager():
    check(int_division_by_zero, 3, full_graph=False)   # the site runs in Python (A2G008)


def numpy_on_traced(x):
    return np.sqrt(x) + np.sum(x) * np.pi, x.astype(np.int32) * 2


@covers("BinOp", "one graph", "NumPy functions and dtypes mixed with traced arrays (`np.*` runs as `jnp.*`)")
def test_numpy_calls_on_traced_values():
    check(numpy_on_traced, X, graphs=1)


def int_float_promotion(i, x):
    return i + 1, i * 0.5, i / 2, x * i, (i + x).dtype == x.dtype


@covers("BinOp", "one graph", "int array with Python float and float array (JAX promotion)")
def test_promotion_like_eager():
    check(int_float_promotion, jnp.arange(3), X, graphs=1)
