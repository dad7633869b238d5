"""Deterministic text printer and DOT export for the graph IR.

Requires: a ``Graph`` (verified or not).
Produces: text in which values are numbered ``%0, %1, ...`` in definition
order, ops print as ``%r = name(operands, static=...) : type  # file:line``,
regions are indented; and a DOT digraph of ops and def-use edges.
Invariants: the same graph always prints the same text (golden tests read it);
file names print as base names so the text does not depend on the checkout.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # networkx is imported by to_networkx only: not on the conversion path
    import networkx as nx

from .core import (CallOp, ConstOp, ForOp, Graph, IfOp, Op, Region, ScanOp,
                   SwitchOp, Value, WhileOp)


class _Names:
    def __init__(self) -> None:
        self.ids: dict[int, str] = {}

    def define(self, v: Value) -> str:
        name = f"%{len(self.ids)}"
        self.ids[id(v)] = name
        return name

    def __call__(self, v: Value) -> str:
        return self.ids.get(id(v), "%<undefined>")


def _static_repr(x: Any) -> str:
    from ..resolver import qualified_name

    if callable(x) and not isinstance(x, type):
        return qualified_name(x)
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


def _call_text(op: CallOp, names: _Names) -> str:
    import jax

    args, kwargs = jax.tree_util.tree_unflatten(op.treedef, [_Leaf(x, names) for x in op.leaves])
    parts = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{op.name}({', '.join(parts)})"


class _Leaf:
    """Prints a leaf: a value name or a short static repr."""

    def __init__(self, x: Any, names: _Names):
        self.text = names(x) if isinstance(x, Value) else _static_repr(x)

    def __repr__(self) -> str:
        return self.text


def _loc_text(op: Op) -> str:
    if not op.loc.line:
        return ""
    return f"  # {os.path.basename(op.loc.file)}:{op.loc.line}"


def _results(op: Op, names: _Names) -> str:
    if not op.results:
        return ""
    return ", ".join(names.define(r) for r in op.results) + " = "


def _types(values: list[Value]) -> str:
    return ", ".join(str(v.type) for v in values)


def _head(op: Op, names: _Names) -> str:
    if isinstance(op, CallOp):
        return _call_text(op, names)
    if isinstance(op, ConstOp):
        return f"const {_static_repr(op.value)}"
    if isinstance(op, IfOp):
        return f"if {names(op.pred)}"
    if isinstance(op, SwitchOp):
        return f"switch {names(op.index)}"
    if isinstance(op, WhileOp):
        return f"while init({', '.join(names(v) for v in op.init)}){_bound_text(op, names)}"
    if isinstance(op, ForOp):
        lo, hi = (names(b) if isinstance(b, Value) else str(b) for b in (op.lower, op.upper))
        return f"for {lo} to {hi} init({', '.join(names(v) for v in op.init)}){_bound_text(op, names)}"
    if isinstance(op, ScanOp):
        return f"scan {names(op.xs)} init({', '.join(names(v) for v in op.init)})"
    return type(op).__name__


def _bound_text(op: WhileOp | ForOp, names: _Names) -> str:
    """`` max_iters=N`` (and the carried break flag ``done=%k``) of a bounded loop."""
    if op.max_iters is None:
        return ""
    done = getattr(op, "done", None)
    return f" max_iters={op.max_iters}" + (f" done={names(op.init[done])}" if done is not None else "")


def _print_region(label: str, region: Region, names: _Names, indent: str, out: list[str]) -> None:
    args = ", ".join(f"{names.define(a)}: {a.type}" for a in region.args)
    out.append(f"{indent}{label}({args}) {{")
    for op in region.ops:
        _print_op(op, names, indent + "  ", out)
    out.append(f"{indent}  yield {', '.join(names(v) for v in region.yields)}")
    out.append(f"{indent}}}")


def _region_labels(op: Op) -> list[str]:
    if isinstance(op, IfOp):
        return ["then", "else"]
    if isinstance(op, WhileOp):
        return ["cond", "body"]
    if isinstance(op, SwitchOp):
        return [f"case{i}" for i in range(len(op.branches))]
    return ["body"]


def _print_op(op: Op, names: _Names, indent: str, out: list[str]) -> None:
    head = _head(op, names)
    results = _results(op, names)
    types = f" : {_types(op.results)}" if op.results else ""
    out.append(f"{indent}{results}{head}{types}{_loc_text(op)}")
    for label, region in zip(_region_labels(op), op.regions()):
        _print_region(label, region, names, indent + "  ", out)


def print_graph(graph: Graph) -> str:
    """The graph as deterministic text."""
    names = _Names()
    params = ", ".join(f"{names.define(p)}: {p.type} <{n}>" for p, n in zip(graph.params, graph.param_names))
    out = [f"graph {graph.name}({params}) {{"]
    for op in graph.body.ops:
        _print_op(op, names, "  ", out)
    out.append(f"  return {', '.join(names(v) for v in graph.outputs)}")
    out.append("}")
    return "\n".join(out)


def to_networkx(graph: Graph) -> nx.DiGraph:
    """Ops (and parameters) as nodes, def-use as edges; nested ops included."""
    import networkx as nx

    g = nx.DiGraph()
    names = _Names()
    producer: dict[int, str] = {}
    for p, n in zip(graph.params, graph.param_names):
        node = names.define(p)
        g.add_node(node, label=f"{node} <{n}>: {p.type}")
        producer[id(p)] = node
    _add_region(g, graph.body, names, producer)
    return g


def _add_region(g: nx.DiGraph, region: Region, names: _Names, producer: dict[int, str]) -> None:
    for a in region.args:
        producer[id(a)] = names.define(a)
        g.add_node(producer[id(a)], label=f"{producer[id(a)]}: {a.type}")
    for op in region.ops:
        node = f"op{g.number_of_nodes()}"
        for v in op.operands():
            if id(v) in producer:
                g.add_edge(producer[id(v)], node)
        label = _head(op, names)
        for r in op.results:
            producer[id(r)] = node
            names.define(r)
        g.add_node(node, label=f"{label} : {_types(op.results)}")
        for sub in op.regions():
            _add_region(g, sub, names, producer)
            for y in sub.yields:
                if id(y) in producer:
                    g.add_edge(producer[id(y)], node)


def to_dot(graph: Graph) -> str:
    """DOT text of ``to_networkx(graph)`` (no pydot/pygraphviz needed)."""
    g = to_networkx(graph)
    lines = [f'digraph "{graph.name}" {{', "  node [shape=box, fontname=monospace];"]
    for node, data in g.nodes(data=True):
        label = str(data.get("label", node)).replace('"', '\\"')
        lines.append(f'  "{node}" [label="{label}"];')
    for a, b in g.edges():
        lines.append(f'  "{a}" -> "{b}";')
    lines.append("}")
    return "\n".join(lines)
