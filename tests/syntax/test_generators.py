"""Generators: a generator function given to ``to_static`` runs eagerly (with
a warning). A function that only defines one (a nested def) is not itself a
generator. A call of a generator function consumed by iteration where it is
made, whose items are static control flow without Python effects, is
interpreted at trace time (tests/test_generators_inline.py); other calls fall
back there (A2G013)."""

import jax.numpy as jnp
import pytest

from ast2graph import FullGraphError, explain, to_static
from helpers import assert_same, check

from .common import M, X, assert_one_graph, codes
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
    return jnp.stack(doubled) + 1, sum(rows_doubled(m))


@covers("Yield", "unrolled", "a converted function consuming a generator (`list(gen(m))`, `sum(...)`): its items "
        "interpreted at trace time")
def test_consuming_a_generator_is_one_graph():
    assert_one_graph(check(consume, M))


def consume_delegating(m):
    return sum(with_total(m))


@covers("YieldFrom", "interpreted", "a converted function consuming a generator that uses `yield from`", code="A2G013")
def test_calling_a_delegating_generator_falls_back():
    e = check(consume_delegating, M, full_graph=False)
    assert set(codes(e)) == {"A2G013"}


def defines_local_generator(x):
    def scales():
        yield 1.0
        yield 2.0

    return x * sum(scales())


@covers("Yield", "one graph", "a function that only *defines* a local generator (and consumes it) is not a generator")
def test_local_generator_definition_is_one_graph():
    assert_one_graph(check(defines_local_generator, X))


def keeps_generator_objects(m, n):
    import itertools

    def halves(v):
        while True:
            yield v
            v = v * 0.5

    g = rows_doubled(m)
    first = next(g)
    rest = list(g)
    return first, rest, [h.sum() for h in itertools.islice(halves(m), n)]


@covers("Yield", "one graph", "a generator object kept by the function (`g = gen(m)`, `next(g)`, `list(g)`, "
        "`islice` of an infinite generator, one generator fed to another): its body interpreted item by item as "
        "the consumer pulls")
def test_generator_objects_are_one_graph():
    assert_one_graph(check(keeps_generator_objects, M, 3))
