"""Calls and functions: library calls, user helpers (inlined), keyword and
star arguments, defaults, nested `def`s and lambdas, recursion, `functools.partial`,
local functions handed to JAX transformations."""

import functools
import math

import jax
import jax.numpy as jnp
import pytest
from jax import lax

from ast2graph import explain
from helpers import assert_same, check, modes

from .common import SIGN_IDS, SIGNS, X, codes, modes_of
from .coverage import covers


def library_calls(x, m):
    a = jnp.concatenate([x, jnp.sin(x)], axis=0)
    b = lax.dynamic_slice(a, (1,), (3,))
    c = jax.nn.softmax(m, axis=-1)
    d = x.reshape(1, 3).astype(jnp.float32).sum(axis=0)
    return a, b, c, d, x.at[1].set(9.0), jnp.where(x > 1, x, 0.0)


@covers("Call", "one graph", "`jnp.*`, `lax.*`, `jax.nn.*`, array methods, keyword arguments, `x.at[i].set`")
@covers("Attribute", "one graph", "module attributes (`jnp.sin`, `jax.nn.softmax`) and array methods")
def test_library_calls_one_graph():
    check(library_calls, X, jnp.arange(6.0).reshape(2, 3), graphs=1)


def dense(x, w, b=None, *, activation=jnp.tanh):
    y = w @ x
    if b is not None:
        y = y + b
    return activation(y)


def mlp(x, ws, bias):
    for w in ws:
        x = dense(x, w, bias, activation=jax.nn.relu)
    return dense(x, ws[0])


@covers("Call", "one graph", "user helper with defaults, keyword-only argument, function-valued argument (inlined)")
@pytest.mark.parametrize("bias", [None, 0.5])
def test_helper_calls_inlined(bias):
    e = check(mlp, X, [jnp.eye(3), jnp.ones((3, 3))], bias, graphs=1)
    assert set(modes_of(e, "if")) == {"pruned"}


def varargs(x, *scales, offset=0.0, **extra):
    out = x
    for s in scales:
        out = out * s
    return out + offset + sum(extra.values())


def star_calls(x):
    args = (2.0, 3.0)
    opts = {"offset": 1.0, "k": 5.0}
    return varargs(x, *args, **opts), varargs(*[x], 4.0), jnp.stack([*[x, x], x])


@covers("Call", "one graph", "`f(*args, **kwargs)` into a `*scales, **extra` helper")
@covers("Starred", "one graph", "`*args` in calls and `[*a, b]` in displays")
def test_star_arguments():
    check(star_calls, X, graphs=1)


def with_nested_def(x, scale):
    def act(v, k=2.0):
        if v.sum() > 0:
            return v * k * scale
        return v

    return act(x), act(x, k=3.0)


@covers("FunctionDef", "lax.cond", "nested `def` closing over an argument, traced `if`/`return` inside (inlined)")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_nested_def_inlined(x):
    e = check(with_nested_def, x, 1.5, graphs=1)
    assert set(modes_of(e, "if")) == {"lax.cond"}


def lambdas(x):
    sq = lambda v: v * v                  # noqa: E731
    affine = lambda v, a=2.0, b=1.0: a * v + b   # noqa: E731
    return sq(x), affine(x), affine(x, b=-1.0), (lambda: x.sum())()


@covers("Lambda", "one graph", "lambdas with defaults, called directly and immediately")
def test_lambdas_called_directly():
    check(lambdas, X, graphs=1)


def lambda_to_builtins(x, names):
    order = sorted(names, key=lambda s: (len(s), s))
    lengths = list(map(lambda s: len(s), names))
    return x * len(order), order, lengths


@covers("Lambda", "one graph", "lambdas passed to `sorted(key=...)` and `map`: the builtin calls them, each call inlined")
def test_lambda_to_python_builtins():
    check(lambda_to_builtins, X, ["bb", "a", "ccc"], graphs=1)


def grad_of_local(x, target):
    def loss(w):
        return jnp.sum((jnp.tanh(w) - target) ** 2)

    def step(c, r):
        return c + r, c * r

    g = jax.grad(loss)(x)
    v = jax.vmap(lambda r: r * 2.0)(jnp.stack([x, x]))
    total, ys = lax.scan(step, 0.0, x)
    return g, v, total, ys


@covers("FunctionDef", "one graph", "local `def` and lambdas handed to `jax.grad`, `jax.vmap`, `lax.scan`")
def test_local_functions_passed_to_jax():
    e = check(grad_of_local, X, 0.5, graphs=1)
    assert ("call", "closure") in modes(e)


def grad_closing_over_argument(x, data):
    def loss(w):
        return jnp.sum((w * data - 1.0) ** 2)    # closes over a traced argument

    return jax.grad(loss)(x)


@covers("FunctionDef", "one graph", "local loss function closing over a traced argument, handed to `jax.grad` "
        "(the transform is applied in the graph where it is called)")
def test_grad_of_closure_over_traced_value():
    e = check(grad_closing_over_argument, X, X + 1, graphs=1)
    assert ("call", "transform") in modes(e)


def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def recursive_static(x, n):
    return x * fact(n)


@covers("Call", "pruned", "recursion on a static argument (unrolled by inlining)")
@pytest.mark.parametrize("n", [0, 5])
def test_static_recursion(n):
    e = check(recursive_static, X, n, graphs=1)
    assert set(modes_of(e, "ifexp")) == {"pruned"}


def nested_recursion(x, n):
    def power(b, k):
        if k == 0:
            return jnp.ones_like(b)
        half = power(b, k // 2)
        return half * half * (b if k % 2 else 1)

    return power(x, n)


def nested_recursion_escapes(x, n):
    def countdown(k):
        return x if k == 0 else countdown(k - 1) + 1

    return countdown(n), countdown


@covers("Call", "pruned", "a recursive nested function on a static argument (its own cell needs no value)")
@pytest.mark.parametrize("n", [0, 5])
def test_nested_static_recursion(n):
    check(nested_recursion, X, n, full_graph=True)


def test_nested_recursive_function_that_escapes_falls_back():
    def call_it(x, n):
        y, fn = nested_recursion_escapes(x, n)
        return y, fn(1)   # inlined: the function does not leave the graph

    check(call_it, X, 3, full_graph=True)
    e = explain(nested_recursion_escapes)(X, 3)   # returned: it reads its own cell after the call
    assert "A2G009" in codes(e)
    y, fn = e.result
    y_eager, fn_eager = nested_recursion_escapes(X, 3)
    assert_same(y_eager, y)
    assert_same(fn_eager(2), fn(2))


def recursive_traced(x):
    return fact(x.sum())


@covers("Call", "interpreted", "recursion on a traced argument", code="A2G011")
def test_traced_recursion_falls_back():
    e = check(recursive_traced, jnp.array([1.0, 2.0]), full_graph=False)
    assert "A2G011" in codes(e)


def partials(x):
    clip01 = functools.partial(jnp.clip, min=0.0, max=1.0)
    scaled = functools.partial(dense, activation=jnp.sin)
    return clip01(x), scaled(x, jnp.eye(3))


@covers("Call", "one graph", "`functools.partial` of a library function and of a user helper")
def test_partial_calls():
    check(partials, X, graphs=1)


def builtins_on_static(x, sizes):
    return (x * len(sizes), max(sizes), min(sizes), sum(sizes), abs(-3), round(2.6), int("7"),
            float(3), isinstance(x, jax.Array), list(range(3)), tuple(sizes), divmod(7, 2))


@covers("Call", "trace time", "Python builtins on static values (`len max min sum round int float isinstance`)")
def test_builtins_on_static_values():
    check(builtins_on_static, X, [3, 1, 2], graphs=1)


def builtins_of_traced_array(x):
    return max(x), min(x), sum(x)


@covers("Call", "one graph", "builtin `max(x)` / `min(x)` / `sum(x)` of a traced 1-D array: eager's fold over its rows "
        "(Python's choice with NaN, left-to-right sum), unrolled up to max_unroll rows")
@pytest.mark.parametrize("x", [jnp.array([2.0, float("nan"), -1.0]), jnp.array([3, 1, 2])])
def test_builtins_of_traced_array(x):
    check(builtins_of_traced_array, x, graphs=1, rtol=0, atol=0)


def int_of_traced(x):
    n = int(x.sum())
    return x * n, n, float(x[0]), x.max().item(), math.floor(x[1]), round(float(x[2]))


@covers("Call", "one graph", "`int()`/`float()`/`bool()`/`.item()`/`round()`/`math.floor()` of a traced value: a "
        "traced Python number, of eager's type, in the graph")
def test_int_of_traced():
    check(int_of_traced, X, graphs=1)


def tolist_of_traced(x):
    rows = x.tolist()
    return x * int(sum(rows)), rows, type(rows[0]).__name__


@covers("Call", "one graph", "`.tolist()` of a traced array of static shape: eager's lists of Python numbers, each a "
        "traced Python number in the graph")
def test_tolist_of_traced():
    check(tolist_of_traced, X, graphs=1)


def tobytes_of_traced(x):
    raw = x.sum().tobytes()
    return x * len(raw), raw


@covers("Call", "interpreted", "`.tobytes()` of a traced value (a Python object made from its values)", code="A2G003")
def test_tobytes_of_traced_falls_back():
    e = check(tobytes_of_traced, X, full_graph=False, graphs=1)   # the .tobytes() statement runs in Python
    assert codes(e) == ["A2G003"]


def decorated_nested(x):
    @functools.lru_cache(maxsize=None)
    def width(n):
        return n * 2

    return x * width(3)


@covers("FunctionDef", "interpreted", "a decorated nested `def` (`@functools.lru_cache`)", code="A2G001")
def test_decorated_nested_def_falls_back():
    e = check(decorated_nested, X, full_graph=False)
    assert codes(e)[0] == "A2G001"


def print_call(x):
    print("shape", x.shape, "sum", x.sum(), sep=" ", end="\n")
    return x * 2


@covers("Call", "host callback", "`print(...)` with traced arguments and keyword arguments")
def test_print_is_a_host_callback():
    e = check(print_call, X, graphs=1)
    assert ("call", "host callback") in modes(e)
