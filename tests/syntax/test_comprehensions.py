"""Comprehensions and generator expressions: list, set, dict, generator; filters,
nested `for` clauses, over static iterables and array rows."""

import jax.numpy as jnp
import pytest

from helpers import check

from .common import X, assert_one_graph, modes_of
from .coverage import covers


def heads(x, n_heads):
    parts = [x * h for h in range(n_heads) if h != 1]
    pairs = [a * b for a in (1.0, 2.0) for b in (3.0, 4.0) if a < b]
    return jnp.stack(parts) if parts else x, pairs


@covers("ListComp", "unrolled", "`[f(h) for h in range(n) if ...]`, nested `for` clauses")
@pytest.mark.parametrize("n", [0, 1, 4])
def test_list_comprehension(n):
    e = check(heads, X, n, graphs=1)
    assert set(modes_of(e, "comprehension")) == {"unrolled"}


def row_norms(m):
    return jnp.stack([jnp.sqrt((row ** 2).sum()) for row in m])


@covers("ListComp", "unrolled", "over the rows of an array (40 rows)")
def test_list_comprehension_over_rows():
    e = check(row_norms, jnp.ones((40, 3)), graphs=1)
    assert modes_of(e, "comprehension") == ["unrolled"]


def params_by_name(x, names):
    table = {name: x * k for k, name in enumerate(names)}
    shapes = {k: v.shape for k, v in table.items()}
    return table, shapes


@covers("DictComp", "unrolled", "`{k: v for ...}` building a parameter table, and over `.items()`")
def test_dict_comprehension():
    e = check(params_by_name, X, ("w", "b", "g"), graphs=1)
    assert set(modes_of(e, "comprehension")) == {"unrolled"}


def distinct(x, sizes):
    seen = {s % 3 for s in sizes}
    return x * len(seen), sorted(seen)


@covers("SetComp", "unrolled", "`{s % 3 for s in sizes}` over static values")
def test_set_comprehension():
    e = check(distinct, X, [1, 4, 5, 9], graphs=1)
    assert modes_of(e, "comprehension") == ["unrolled"]


def set_of_traced(x):
    return {v for v in x}


@covers("SetComp", "error as eager", "a set of traced scalars (unhashable arrays raise TypeError)")
def test_set_comprehension_of_arrays_raises_as_eager():
    check(set_of_traced, X, full_graph=False)


def weighted_sum(x, ws):
    total = sum(w * x for w in ws)
    ok = all(w > 0 for w in ws)
    best = max(w for w in ws)
    return total, ok, best


@covers("GeneratorExp", "unrolled", "`sum(...)`, `all(...)`, `max(...)` of generator expressions")
def test_generator_expressions():
    e = check(weighted_sum, X, [0.5, 1.5, 2.0], graphs=1)
    assert set(modes_of(e, "comprehension")) == {"unrolled"}


def any_of_traced(x):
    return any(v > 1 for v in x)


@covers("GeneratorExp", "one graph", "`any(v > 1 for v in x)` over a traced array: the truths reduced in the graph "
        "(a Python bool, as eager)")
def test_any_over_traced_array_is_one_graph():
    assert_one_graph(check(any_of_traced, X))


def closures_in_comprehension(x):
    scales = [lambda v, k=k: v * k for k in range(3)]   # default argument binds each k
    late = [lambda v: v * k for k in range(3)]          # late binding: every lambda sees k == 2
    return [f(x) for f in scales], [g(x) for g in late]


@covers("ListComp", "unrolled", "lambdas built in a comprehension: default-bound and late-bound loop variable")
@covers("Lambda", "unrolled", "lambdas closing over a comprehension variable (late binding as in eager)")
def test_lambdas_in_comprehension_bind_like_eager():
    e = check(closures_in_comprehension, X, graphs=1)
    assert set(modes_of(e, "comprehension")) == {"unrolled"}


def comp_in_traced_branch(x):
    if x.sum() > 0:
        y = sum([x * k for k in range(3)])
    else:
        y = x
    return y


@covers("ListComp", "lax.cond", "a comprehension inside a traced branch")
@pytest.mark.parametrize("x", [X, -X - 1], ids=["pos", "neg"])
def test_comprehension_in_traced_branch(x):
    e = check(comp_in_traced_branch, x, graphs=1)
    assert modes_of(e, "if") == ["lax.cond"]


def positives(x):
    pos = [v for v in x if v > 0]
    return pos, len(pos), max(v for v in x if v < 3)


def filtered_pairs(x):
    pairs = [(i, float(v)) for i, v in enumerate(x) if v > 1]
    inverses = [1.0 / f for f in (float(v) for v in x) if f != 0.0]
    doubled = [y for v in x if (y := float(v) * 2) > 1.0]
    return pairs, inverses, doubled, y


FILTER_DATA = [[1.0, -2.0, 3.0, 0.0], [-1.0, -2.0, 5.0, 2.0], [-1.0, -1.0, -1.0, -1.0]]


@covers("ListComp", "lax.cond", "a filter on a traced value: the item appended on one branch, a list whose length "
        "depends on the data (len, max, returned)")
@pytest.mark.parametrize("data", FILTER_DATA)
def test_traced_filter_one_graph(data):
    check(positives, jnp.asarray(data), full_graph=True)
    check(filtered_pairs, jnp.asarray(data), full_graph=True)


def filter_then_walrus(x):
    return [(y := v * 2) for v in x if v > 0], y


@covers("ListComp", "interpreted", "a traced filter before an element that assigns (a walrus)", code="A2G003")
def test_traced_filter_with_walrus_in_element_falls_back():
    e = check(filter_then_walrus, jnp.asarray([1.0, -2.0, 3.0]), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G003"]
