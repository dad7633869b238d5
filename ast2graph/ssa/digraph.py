"""The directed graph of a CFG and the few graph algorithms the SSA passes use.

Requires: nothing (the standard library).
Produces: ``DiGraph`` — the subset of ``networkx.DiGraph``'s interface the
CFG uses (``add_node``, ``add_edge``, ``remove_node``, ``nodes`` / ``nodes[i]``
attribute dicts, ``edges``, ``predecessors``, ``successors``, ``in_degree``,
``number_of_nodes`` / ``number_of_edges``, iteration), and ``descendants``,
``has_path``, ``relabel_nodes``, ``immediate_dominators``,
``dominance_frontiers`` with networkx 3.6's results.
Invariants: iteration orders are networkx's (nodes in insertion order, each
node's successors and predecessors in edge insertion order, edges node by
node), so every pass sees the same order it saw with networkx; the dominator
results are the unique immediate dominators and frontiers of the graph.

Why not networkx itself: ``import networkx`` imports all its algorithms, a
good part of a fresh process's first ``to_static`` call (README, "The first
call in a fresh process"); ``ir.printer.to_networkx`` still gives a
``networkx.DiGraph``, importing networkx when called.
"""

from __future__ import annotations

from functools import reduce
from typing import Any, Hashable, Iterable, Iterator


class _Nodes:
    """``graph.nodes``: iterable over the nodes, ``nodes[n]`` their attribute dict."""

    def __init__(self, attrs: dict) -> None:
        self._attrs = attrs

    def __iter__(self) -> Iterator:
        return iter(self._attrs)

    def __len__(self) -> int:
        return len(self._attrs)

    def __contains__(self, n: object) -> bool:
        return n in self._attrs

    def __getitem__(self, n: Hashable) -> dict:
        return self._attrs[n]

    def __call__(self) -> "_Nodes":
        return self

    def items(self) -> Iterable:
        return self._attrs.items()


class _Edges:
    """``graph.edges`` (or ``graph.edges()``): the ``(u, v)`` pairs, node by node."""

    def __init__(self, succ: dict) -> None:
        self._succ = succ

    def __iter__(self) -> Iterator[tuple]:
        return ((u, v) for u, nbrs in self._succ.items() for v in nbrs)

    def __len__(self) -> int:
        return sum(len(nbrs) for nbrs in self._succ.values())

    def __contains__(self, e: object) -> bool:
        return isinstance(e, tuple) and len(e) == 2 and e[1] in self._succ.get(e[0], ())

    def __call__(self) -> "_Edges":
        return self


class DiGraph:
    """A directed graph without parallel edges; node attributes as dicts."""

    def __init__(self) -> None:
        self._node: dict[Hashable, dict] = {}
        self.succ: dict[Hashable, dict] = {}   # node -> {successor: None}, in insertion order
        self.pred: dict[Hashable, dict] = {}

    def add_node(self, n: Hashable, **attrs: Any) -> None:
        if n not in self._node:
            self._node[n], self.succ[n], self.pred[n] = {}, {}, {}
        self._node[n].update(attrs)

    def add_nodes_from(self, nodes: Iterable) -> None:
        for n in nodes:
            self.add_node(n)

    def add_edge(self, u: Hashable, v: Hashable) -> None:
        self.add_node(u)
        self.add_node(v)
        self.succ[u][v] = None
        self.pred[v][u] = None

    def add_edges_from(self, edges: Iterable[tuple]) -> None:
        for u, v in edges:
            self.add_edge(u, v)

    def remove_node(self, n: Hashable) -> None:
        for v in self.succ.pop(n):
            del self.pred[v][n]
        for u in self.pred.pop(n):
            if u != n:   # a self-loop went with succ
                del self.succ[u][n]
        del self._node[n]

    @property
    def nodes(self) -> _Nodes:
        return _Nodes(self._node)

    @property
    def edges(self) -> _Edges:
        return _Edges(self.succ)

    def successors(self, n: Hashable) -> Iterator:
        return iter(self.succ[n])

    def predecessors(self, n: Hashable) -> Iterator:
        return iter(self.pred[n])

    def in_degree(self, n: Hashable) -> int:
        return len(self.pred[n])

    def number_of_nodes(self) -> int:
        return len(self._node)

    def number_of_edges(self) -> int:
        return len(self.edges)

    def __iter__(self) -> Iterator:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def __contains__(self, n: object) -> bool:
        return n in self._node


def descendants(g: DiGraph, source: Hashable) -> set:
    """The nodes a path from ``source`` reaches (``source`` only through a cycle: never, as networkx)."""
    seen, todo = {source}, [source]
    while todo:
        for v in g.succ[todo.pop()]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    seen.discard(source)
    return seen


def has_path(g: DiGraph, source: Hashable, target: Hashable) -> bool:
    return source == target or target in descendants(g, source)


def relabel_nodes(g: DiGraph, mapping: dict) -> DiGraph:
    """A copy of ``g`` with node ``n`` renamed ``mapping.get(n, n)``; attribute dicts copied."""
    h = DiGraph()
    for n, attrs in g._node.items():
        h.add_node(mapping.get(n, n), **attrs)
    h.add_edges_from((mapping.get(u, u), mapping.get(v, v)) for u, v in g.edges)
    return h


def _dfs_postorder(g: DiGraph, start: Hashable) -> list:
    order, seen = [], {start}
    stack = [(start, iter(g.succ[start]))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in seen:
                seen.add(child)
                stack.append((child, iter(g.succ[child])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def immediate_dominators(g: DiGraph, start: Hashable) -> dict:
    """Each node reachable from ``start`` (``start`` excluded) -> its immediate
    dominator (Cooper, Harvey and Kennedy, "A simple, fast dominance algorithm")."""
    idom: dict = {start: None}
    order = _dfs_postorder(g, start)
    dfn = {u: i for i, u in enumerate(order)}
    order.pop()
    order.reverse()

    def intersect(u: Hashable, v: Hashable) -> Hashable:
        while u != v:
            while dfn[u] < dfn[v]:
                u = idom[u]
            while dfn[u] > dfn[v]:
                v = idom[v]
        return u

    changed = True
    while changed:
        changed = False
        for u in order:
            new = reduce(intersect, (v for v in g.pred[u] if v in idom))
            if u not in idom or idom[u] != new:
                idom[u] = new
                changed = True
    del idom[start]
    return idom


def dominance_frontiers(g: DiGraph, start: Hashable) -> dict:
    """Each node reachable from ``start`` -> its dominance frontier."""
    idom = immediate_dominators(g, start) | {start: None}
    df: dict = {u: set() for u in idom}
    for u in idom:
        if u == start or len(g.pred[u]) >= 2:
            for v in g.pred[u]:
                if v in idom:
                    while v != idom[u]:
                        df[v].add(u)
                        v = idom[v]
    return df
