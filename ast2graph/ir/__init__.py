"""The graph IR between ``typeinfer`` and ``lowering``: ops, printer, verifier."""

from .core import (ArrayType, CallOp, ConstOp, ForOp, Graph, IfOp, Op, Region,
                   ScanOp, SwitchOp, Value, WhileOp, walk_ops)
from .printer import print_graph, to_dot, to_networkx
from .verify import verify

__all__ = [
    "ArrayType", "CallOp", "ConstOp", "ForOp", "Graph", "IfOp", "Op", "Region",
    "ScanOp", "SwitchOp", "Value", "WhileOp", "walk_ops", "print_graph",
    "to_dot", "to_networkx", "verify",
]
