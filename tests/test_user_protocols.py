"""A user class's ``__getitem__``, ``__len__`` and ``__add__`` under ``sum`` are
converted like its other methods, so objects holding traced arrays work.

Each case is compared with the eager run of the same function.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from helpers import check


class Vec:
    def __init__(self, a):
        self.a = a

    def __add__(self, other):
        return Vec(self.a + (other.a if isinstance(other, Vec) else other))

    def __radd__(self, other):
        return Vec(other + self.a)

    def __getitem__(self, i):
        return self.a[i]

    def __len__(self):
        return self.a.shape[0]


class Window:
    """A sequence view whose length is its own (a static int) and whose items are computed."""

    def __init__(self, x, size):
        self.x, self.size = x, size

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        if i >= self.size:
            raise IndexError(i)
        return self.x[i] * 2


class BadLen:
    def __init__(self, x):
        self.x = x

    def __len__(self):
        return self.x.sum()   # a traced value: eager raises TypeError


def sum_of_objects(x):
    w = sum([Vec(x), Vec(x * 2)], Vec(jnp.zeros(2)))
    return w.a, sum([Vec(x), Vec(x)]).a


def subscript_and_len(x):
    v = Vec(x) + 1.0
    return v[0], v[-1], len(v), len(Vec(x)) * v[1]


def iterate_by_getitem(x):
    w = Window(x, 3)
    return [w[i] for i in range(len(w))]


@pytest.mark.parametrize("fn", [sum_of_objects, subscript_and_len, iterate_by_getitem])
def test_user_protocols_one_graph(fn):
    check(fn, jnp.array([3.0, 4.0, 5.0])[: 2 if fn is not iterate_by_getitem else 3], full_graph=True)


def test_getitem_raising_index_error_matches_eager():
    def f(x):
        w = Window(x, 2)
        return w[5]

    check(f, jnp.array([1.0, 2.0]), full_graph=False)


def test_len_returning_a_traced_value_falls_back():
    def f(x):
        return len(BadLen(x))

    e = check(f, jnp.array([1.0, 2.0]), full_graph=False)
    assert e is None or e.fallback_sites
