"""Calls from a converted function (issue 5, item 1): helpers wrapped with
``functools.wraps`` decorators, keyword-only parameters, ``*args``/``**kwargs``,
``functools.partial`` (of a user function, of ``print``), lambdas with
defaults, recursion with a static depth (unrolled) and with a data-dependent
depth (falls back with a reason, never loops forever). Each against eager."""

import functools

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check

X = jnp.arange(3.0)


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@logged
def scaled(x, *, scale=2.0):
    if x.sum() > 0:
        return x * scale
    return -x


def total(*xs, **opts):
    acc = 0
    for v in xs:
        acc = acc + v
    return acc * opts.get("k", 1)


def factorial_scale(n, x):
    if n == 0:
        return x
    return factorial_scale(n - 1, x * n)


def halve_until_small(x):
    if x.sum() > 1:
        return halve_until_small(x / 2)
    return x


scale4 = functools.partial(scaled, scale=4.0)
announce = functools.partial(print, "sum:")


def wraps_and_keyword_only(x):
    return scaled(x, scale=3.0) + scaled(-x)


def star_args(x):
    return total(x, x * 2, x * 3, k=2)


def static_recursion(x):
    return factorial_scale(5, x)


def partial_and_lambda(x):
    return scale4(x) + (lambda y, z=2: y * z)(x)


def partial_of_print(x):
    announce(x.sum())
    return x


@pytest.mark.parametrize("fn", [wraps_and_keyword_only, star_args, static_recursion, partial_and_lambda,
                                partial_of_print])
@pytest.mark.parametrize("x", [X, -X - 1], ids=["pos", "neg"])
def test_call_forms_are_one_graph(fn, x):
    check(fn, x, graphs=1)


def test_to_static_on_a_wraps_decorated_function():
    check(scaled, X, graphs=1, kwargs={"scale": 5.0})


def test_recursion_with_a_data_dependent_depth_falls_back_with_a_reason():
    e = check(halve_until_small, X * 3, full_graph=False)
    assert [s.code.code for s in e.fallback_sites][:1] == ["A2G011"]


def noisy(x):
    y = x * 2
    noise = np.random.normal(size=x.shape)   # stateful: runs in Python, every call
    return y + noise.astype(np.float32)


def test_stateful_numpy_random_falls_back_and_draws_what_eager_draws():
    np.random.seed(0)
    want = noisy(X)
    np.random.seed(0)
    e = explain(to_static(noisy))(X)
    np.testing.assert_allclose(e.result, want, rtol=1e-6)
    assert [s.code.code for s in e.fallback_sites] == ["A2G002"]   # a call with a Python side effect
    assert "numpy.random.normal" in e.fallback_sites[0].cause


def _bisect(f, lo, hi, depth=0):
    mid = (lo + hi) / 2
    if depth == 30 or hi - lo < 1e-6:
        return mid, depth
    if f(mid) > 0:
        return _bisect(f, lo, mid, depth + 1)
    return _bisect(f, mid, hi, depth + 1)


def recursive_bisection(c):
    return _bisect(lambda t: t * t - c, 0.0, 4.0)


def test_recursion_under_a_traced_branch_falls_back_before_it_doubles():
    """Both sides of a traced ``if`` are inlined: a recursion 30 deep under
    one would inline 2**30 calls (the conversion never finished). It stops
    after ``max_traced_recursion`` inlined calls with an A2G011 site, and the
    call runs in Python: eager's result, in seconds."""
    e = check(recursive_bisection, jnp.float32(2.0), full_graph=False)
    assert [s.code.code for s in e.fallback_sites][:1] == ["A2G011"]
    assert "under a traced branch" in e.fallback_sites[0].cause


def _tree_sum(x, depth):
    if depth == 0:
        return x
    if x.sum() > 0:
        return _tree_sum(x * 0.5, depth - 1) + 1.0
    return _tree_sum(x + 1.0, depth - 1) - 1.0


def shallow_traced_recursion(x):
    return _tree_sum(x, 3)


@pytest.mark.parametrize("x", [X, -X - 1], ids=["pos", "neg"])
def test_shallow_recursion_under_a_traced_branch_is_one_graph(x):
    check(shallow_traced_recursion, x, graphs=1, full_graph=True)
