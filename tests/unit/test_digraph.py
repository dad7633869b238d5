"""ssa/digraph.py against networkx: the same iteration orders, descendants,
paths, relabelling, immediate dominators and dominance frontiers on random
directed graphs (the CFG passes relied on networkx's results before)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from ast2graph.ssa import digraph as dg


def _pair(seed: int) -> tuple[nx.DiGraph, dg.DiGraph]:
    r = random.Random(seed)
    n = r.randint(1, 12)
    a, b = nx.DiGraph(), dg.DiGraph()
    for i in range(n):
        a.add_node(i)
        b.add_node(i)
    for _ in range(r.randint(0, 3 * n)):
        u, v = r.randrange(n), r.randrange(n)
        a.add_edge(u, v)
        b.add_edge(u, v)
    if n > 2 and r.random() < 0.3:
        k = r.randrange(1, n)
        a.remove_node(k)
        b.remove_node(k)
    return a, b


@pytest.mark.parametrize("seed", range(0, 600, 3))
def test_same_as_networkx(seed):
    a, b = _pair(seed)
    assert list(a.nodes) == list(b.nodes) and list(a.edges) == list(b.edges)
    assert a.number_of_nodes() == b.number_of_nodes() and a.number_of_edges() == b.number_of_edges()
    for x in a.nodes:
        assert list(a.predecessors(x)) == list(b.predecessors(x))
        assert list(a.successors(x)) == list(b.successors(x))
        assert a.in_degree(x) == b.in_degree(x)
    start, last = next(iter(a.nodes)), list(a.nodes)[-1]
    assert nx.descendants(a, start) == dg.descendants(b, start)
    assert nx.has_path(a, start, last) == dg.has_path(b, start, last)
    assert dict(nx.immediate_dominators(a, start)) | {start: None} == dg.immediate_dominators(b, start) | {start: None}
    assert {k: set(v) for k, v in nx.dominance_frontiers(a, start).items()} == dg.dominance_frontiers(b, start)
    mapping = {x: (x * 7) % 13 + 100 for x in a.nodes}
    ra, rb = nx.relabel_nodes(a, mapping, copy=True), dg.relabel_nodes(b, mapping)
    assert list(ra.nodes) == list(rb.nodes) and list(ra.edges) == list(rb.edges)


def test_node_attributes_survive_relabelling():
    g = dg.DiGraph()
    g.add_node(0, block="entry")
    g.add_edge(0, 1)
    h = dg.relabel_nodes(g, {0: 5, 1: 6})
    assert h.nodes[5] == {"block": "entry"} and list(h.edges()) == [(5, 6)]
    h.nodes[5]["block"] = "changed"
    assert g.nodes[0]["block"] == "entry"   # a copy, as networkx's copy=True
