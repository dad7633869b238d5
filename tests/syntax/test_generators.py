"""Generators: a generator function runs eagerly (with a warning); a converted
function that calls one or defines one falls back there."""

import warnings

import jax.numpy as jnp
import pytest

from ast2graph import FullGraphError, explain, to_static
from helpers import assert_same, check

from .common import M, X, codes
from .coverage import covers


def rows_doubled(m):
    for row in m:
        yield row * 2


def with_total(m):
    yield from rows_doubled(m)
    yield m.sum()


@covers("Yield", "eager", "a generator function given to `to_static`", code="A2G013")
@covers("YieldFrom", "eager", "`yield from` in a generator function given to `to_static`", code="A2G013")
@pytest.mark.parametrize("fn", [rows_doubled, with_total])
def test_generator_function_runs_eagerly(fn):
    with pytest.warns(UserWarning, match="generator function"):
        static = to_static(fn)
    e = explain(static)(M)
    assert_same(list(fn(M)), list(e.result))          # the same items as the eager generator
    assert codes(e) == ["A2G013"] and e.graph_count == 0


@covers("Yield", "refused", "a generator function with `full_graph=True` (FullGraphError)")
def test_generator_function_full_graph_refused():
    with pytest.raises(FullGraphError):
        to_static(rows_doubled, full_graph=True)


def consume(m):
    doubled = list(rows_doubled(m))
    return jnp.stack(doubled) + 1, sum(with_total(m))


@covers("Yield", "interpreted", "a converted function consuming a generator (`list(gen(m))`, `sum(...)`)",
        code="A2G013")
def test_calling_a_generator_falls_back():
    e = check(consume, M, full_graph=False)
    assert set(codes(e)) == {"A2G013"}


def defines_local_generator(x):
    def scales():
        yield 1.0
        yield 2.0

    return x * sum(scales())


@covers("Yield", "eager", "a function that only *defines* a local generator runs eagerly as a whole",
        code="A2G013", caveat="should be graph: the enclosing function is not a generator; only the nested def needs Python")
def test_local_generator_definition_makes_the_function_eager():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = check(defines_local_generator, X, full_graph=False)
    assert codes(e) == ["A2G013"] and e.graph_count == 0
