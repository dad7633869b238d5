"""Verifier of the graph IR's invariants.

Requires: a ``Graph``.
Produces: nothing; raises ``VerificationError`` naming the op's source
location when an invariant of ``ir.core`` is broken.
Invariants checked: def-before-use with region scoping, single definition of
every value, region yield arity and types against the op that owns the region,
scalar boolean predicates and loop conditions, a loop's ``max_iters`` bound
(a positive int) and its ``done`` flag (a carried scalar bool).
Run after ``typeinfer`` when ``AST2GRAPH_CHECKS=1`` and always in tests.
"""

from __future__ import annotations

import numpy as np

from ..diagnostics import VerificationError
from .core import (ArrayType, ForOp, Graph, IfOp, Op, Region, ScanOp, SwitchOp,
                   Value, WhileOp)


def _same(a: list[Value], b: list[Value]) -> bool:
    return [v.type for v in a] == [v.type for v in b]


def _fail(op: Op, msg: str) -> None:
    raise VerificationError(f"invalid graph IR: {msg}", op.loc)


def _check_region_types(op: Op) -> None:
    if isinstance(op, (IfOp, SwitchOp)):
        for r in op.regions():
            if r.args or not _same(r.yields, op.results):
                _fail(op, f"{type(op).__name__} branch yields {[str(v.type) for v in r.yields]}, results are {[str(v.type) for v in op.results]}")
        pred = op.pred if isinstance(op, IfOp) else op.index
        if pred.type.shape != ():
            _fail(op, "branch predicate/index is not a scalar")
    if isinstance(op, IfOp) and op.pred.type.dtype != np.dtype(bool):
        _fail(op, "if predicate is not bool")
    if isinstance(op, WhileOp):
        if not (_same(op.cond.args, op.init) and _same(op.body.args, op.init) and _same(op.body.yields, op.init)):
            _fail(op, "while carried types disagree between init, cond and body")
        if len(op.cond.yields) != 1 or op.cond.yields[0].type.shape != () or op.cond.yields[0].type.dtype != np.dtype(bool):
            _fail(op, "while condition must yield one scalar bool")
        if not _same(op.results, op.init):
            _fail(op, "while results disagree with init")
    if isinstance(op, ForOp):
        if len(op.body.args) != len(op.init) + 1 or not _same(op.body.args[1:], op.init) or not _same(op.body.yields, op.init):
            _fail(op, "for body arguments/yields disagree with init")
    if isinstance(op, (WhileOp, ForOp)):
        _check_bound(op)
    if isinstance(op, ScanOp):
        row = ArrayType(op.xs.type.shape[1:], op.xs.type.dtype, op.xs.type.weak_type)
        n = len(op.init)
        if not _same(op.body.args[:n], op.init) or op.body.args[n].type != row or not _same(op.body.yields, op.init):
            _fail(op, "scan body arguments/yields disagree with init and rows")


def _check_bound(op: WhileOp | ForOp) -> None:
    n = op.max_iters
    if n is not None and (type(n) is not int or n < 1):
        _fail(op, f"max_iters must be a positive int, not {n!r}")
    done = getattr(op, "done", None)
    if done is None:
        return
    if n is None or not 0 <= done < len(op.init) or op.init[done].type != ArrayType((), np.dtype(bool)):
        _fail(op, "for `done` must name a carried scalar bool of a loop with max_iters")


def _verify_region(region: Region, visible: set[int], defined: set[int]) -> None:
    scope = set(visible)

    def define(v: Value, op: Op | None) -> None:
        if id(v) in defined:
            raise VerificationError(f"invalid graph IR: value {v!r} defined twice", op.loc if op else None)
        defined.add(id(v))
        scope.add(id(v))

    for a in region.args:
        define(a, None)
    for op in region.ops:
        for v in op.operands():
            if id(v) not in scope:
                _fail(op, f"operand {v!r} used before its definition or outside its region")
        for sub in op.regions():
            _verify_region(sub, scope, defined)
        _check_region_types(op)
        for r in op.results:
            define(r, op)
    for y in region.yields:
        if id(y) not in scope:
            raise VerificationError(f"invalid graph IR: yielded value {y!r} is not defined in scope")


def verify(graph: Graph) -> None:
    """Raise ``VerificationError`` if ``graph`` breaks an IR invariant."""
    defined: set[int] = set()
    params: set[int] = set()
    for p in graph.params:
        if id(p) in defined:
            raise VerificationError(f"invalid graph IR: parameter {p!r} repeated", graph.loc)
        defined.add(id(p))
        params.add(id(p))
    _verify_region(graph.body, params, defined)
