"""Subscripts and slices: static and traced indices, steps, `None`, `...`,
fancy and boolean indexing, `.at[...]` updates, NumPy in-place writes,
subscripts of tuples, dicts and strings."""

import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from helpers import check

from .common import M, X, codes, modes_of
from .coverage import covers


def static_indexing(x, m):
    return (x[0], x[-1], x[1:], x[::-1], x[:, None], m[0, 1], m[:, 1:], m[..., 0], m[None],
            m[1][2], x[slice(0, 2)], m[-1, ::2], x[jnp.array([2, 0])])


@covers("Subscript", "one graph", "integer, negative, tuple, `None`, `...`, chained and integer-array indices")
@covers("Slice", "one graph", "`a:b`, `::-1`, `::2`, `slice(...)` objects")
def test_static_indexing_one_graph():
    check(static_indexing, X, M, graphs=1)


def traced_index(x, i):
    return x[i], x[i - 1], lax.dynamic_slice(x, (i,), (2,)), x.at[i].set(0.0)


@covers("Subscript", "one graph", "a traced integer index (`x[i]`, `x.at[i].set`)")
@pytest.mark.parametrize("i", [0, 1])
def test_traced_index(i):
    check(traced_index, X, jnp.array(i), graphs=1)


def traced_slice_bound(x, i):
    return x[i:]


@covers("Slice", "interpreted", "`x[i:]` with a traced bound (the result's shape depends on the value)",
        code="A2G003", caveat="a data-dependent shape cannot be graph; `lax.dynamic_slice` with a static size can")
def test_traced_slice_bound_falls_back():
    # A2G003, not A2G008: eager raises nothing here, JAX does on a traced bound
    e = check(traced_slice_bound, X, jnp.array(1), full_graph=False)
    assert codes(e) == ["A2G003"]


def traced_slice_update(x, i):
    y = np.array(x)
    y[i:] = 0
    return x.at[:i].set(0.0), x.at[i:].add(1.0), y


@covers("Slice", "one graph", "`x.at[:n].set(v)`, `.add`, `y[n:] = v` on a NumPy array with a traced bound: "
        "a mask over the whole array (its shape does not depend on n)",
        caveat="only where v broadcasts to the slice whatever its length; else the statement runs in Python")
@pytest.mark.parametrize("i", [0, 2, -1])
def test_traced_slice_bound_update(i):
    check(traced_slice_update, X, jnp.array(i), graphs=1)


def boolean_mask(x):
    return x[x > 0.5]


@covers("Subscript", "interpreted", "boolean mask `x[x > 0.5]` returned (data-dependent shape)", code="A2G003",
        caveat="`jnp.where(x > 0.5, x, 0)` is one graph")
def test_boolean_mask_falls_back():
    e = check(boolean_mask, X, full_graph=False)
    assert codes(e) == ["A2G003"]


def boolean_mask_reduced(x):
    kept = x[x > 0.5]
    return kept.sum(), kept.mean(), len(kept), (kept * 2).max()


@covers("Subscript", "one graph", "boolean mask `x[x > 0.5]` reduced (`.sum()`, `.mean()`, `len`, ...): the kept "
        "rows first, their number traced (masked.py)")
def test_boolean_mask_reduced():
    check(boolean_mask_reduced, X, graphs=1)


def at_updates(x, m):
    x = x.at[0].set(9.0)
    x = x.at[1:].add(1.0)
    m = m.at[:, 0].multiply(-1.0)
    m = m.at[1, 2].max(100.0)
    return x, m


@covers("Subscript", "one graph", "`.at[i].set/add/multiply/max` functional updates")
def test_at_updates_one_graph():
    check(at_updates, X, M, graphs=1)


def numpy_writes(n, x):
    a = np.zeros(n)
    a[0] = 1.0
    a[1:] += 2.0
    a[-1] *= 3.0
    b = np.array(x)          # a NumPy copy of the argument
    b[b > 1] = 0.0
    return a, b


@covers("Subscript", "one graph", "NumPy in-place writes `a[i] = v`, `a[s] += v`, `a[mask] = v` on local arrays")
def test_numpy_item_writes_one_graph():
    check(numpy_writes, 4, np.arange(3.0), graphs=1)


def numpy_write_in_loop(x):
    out = np.zeros((20, 3))
    for i in range(20):
        out[i] = x * i
    return out


@covers("Subscript", "lax.fori_loop", "`out[i] = v` into a preallocated NumPy array in a rolled loop")
def test_numpy_write_in_rolled_loop():
    e = check(numpy_write_in_loop, np.arange(3.0), graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]


def aliased_write(x):
    y = x
    y[0] = 5.0
    return x


@covers("Subscript", "interpreted", "`y[0] = v` where `y` aliases an argument (the caller sees it)", code="A2G007")
def test_aliased_write_falls_back():
    e = check(aliased_write, np.arange(3.0), full_graph=False)
    assert codes(e) == ["A2G007"]


def jax_array_write(x):
    x[0] = 1.0
    return x


@covers("Subscript", "error as eager", "`x[0] = v` on a `jax.Array` raises TypeError as eager does")
def test_jax_array_item_write_raises_as_eager():
    check(jax_array_write, X, full_graph=False)


def python_subscripts(x, cfg, name):
    t = (x, x * 2, x * 3)
    layers = [1, 2, 3, 4]
    return t[1], t[-1], t[:2], t[::2], cfg["scale"] * x, layers[1:3], name[::-1], name[0], x * len(name[1:])


@covers("Subscript", "trace time", "subscripts and slices of tuples, lists, dicts and strings")
@covers("Slice", "trace time", "slices of tuples, lists and strings")
def test_python_subscripts():
    check(python_subscripts, X, {"scale": 2.0}, "abcd", graphs=1)


def out_of_range(x):
    return x[(1, 2, 3)[5]]


@covers("Subscript", "error as eager", "a static `IndexError` raises as eager")
def test_static_index_error_raises_as_eager():
    check(out_of_range, X, full_graph=False)


def write_past_the_end(x):
    out = np.zeros(3)
    for i in range(3):
        out[i + 1] = x          # i == 2 writes index 3: NumPy raises IndexError
    return out


@covers("Subscript", "error as eager", "NumPy write with an out-of-bounds index inside a loop: IndexError as eager "
        "(traced indices into NumPy arrays are bounds-checked at run time)")
def test_out_of_bounds_write_in_loop_raises_as_eager():
    check(write_past_the_end, 1.0, full_graph=False)
