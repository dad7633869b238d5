"""Python control flow around compiled leaves: the smallest enclosing construct.

Requires: ``InterpretedNode`` (to evaluate one expression or bind one target
exactly as eager Python does) and a ``run_block`` callable that runs a
statement list as compiled segments (``runtime.block.Block``).
Produces: ``PythonControl`` plans for ``if``/``for``/``while`` statements that
cannot be one graph because of something inside them: the test, the iterable
and the loop target run in Python; the bodies run as blocks of compiled
segments (recursively: only the statement that really cannot be graph runs in
Python). ``JumpPlan`` for a bare ``break``/``continue`` in such a body.
``splittable`` says whether a statement can run that way.
Invariants: the control flow is Python's own (truthiness, iteration protocol,
``else`` clauses, ``break``/``continue``/``return``), so the statement behaves
exactly as eager; only its leaves are compiled.
"""

from __future__ import annotations

from typing import Any, Callable, TYPE_CHECKING

import gast

from .interpreted import CELLS, InterpretedNode, call_cells
from .sites import FallbackSite

# What running a statement or a block did.
NEXT, BREAK, CONTINUE, RETURN = "next", "break", "continue", "return"

_VALUE = "__a2g_value"
_LOOP = (gast.For, gast.While)
_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)

if TYPE_CHECKING:   # (annotations only: the compiler's unit, a layer above)
    from ..typeinfer.state import Unit


def escapes(stmt: Any) -> bool:
    """Whether ``stmt`` holds a ``break``/``continue`` aimed at a loop outside it."""

    def visit(node: Any, in_loop: bool) -> bool:
        if isinstance(node, (gast.Break, gast.Continue)):
            return not in_loop
        if isinstance(node, _SCOPES):
            return False
        if isinstance(node, _LOOP + (gast.AsyncFor,)):
            # the loop's own body jumps to it; its else clause does not
            return (any(visit(s, True) for s in node.body)
                    or any(visit(s, in_loop) for s in node.orelse))
        return any(visit(child, in_loop) for child in gast.iter_child_nodes(node))

    return visit(stmt, False)


def splittable(stmt: Any) -> bool:
    """An ``if``/``for``/``while`` whose bodies can run as blocks of segments:
    every statement in them that jumps out of itself is a bare jump or is
    splittable too (a ``try`` or ``with`` holding a ``break`` cannot run alone)."""
    if not isinstance(stmt, (gast.If, gast.For, gast.While)):
        return False
    for s in stmt.body + stmt.orelse:
        if isinstance(s, (gast.Break, gast.Continue)) or not escapes(s):
            continue
        if not splittable(s):
            return False
    return True


class _Eval:
    """Evaluates one expression of the user's as eager Python does (same
    globals, closure, locals; tracebacks at the user's line)."""

    def __init__(self, unit: Unit, expr: Any):
        assign = gast.Assign(targets=[gast.Name(_VALUE, gast.Store(), None, None)], value=expr, type_comment=None)
        gast.copy_location(assign, expr)
        self.node = InterpretedNode(unit, assign)

    def __call__(self, env: dict[str, Any]) -> Any:
        self.node.run(env)
        return env.pop(_VALUE)


class _Bind:
    """Binds a loop target (any target Python accepts) to one item."""

    def __init__(self, unit: Unit, target: Any):
        assign = gast.Assign(targets=[target], value=gast.Name(_VALUE, gast.Load(), None, None), type_comment=None)
        gast.copy_location(assign, target)
        self.node = InterpretedNode(unit, assign)

    def __call__(self, env: dict[str, Any], item: Any) -> None:
        env[_VALUE] = item
        self.node.run(env)
        env.pop(_VALUE, None)


class StatementPlan:
    """A plan for one statement of a block that does not depend on guards."""

    start: int

    @property
    def end(self) -> int:
        return self.start + 1

    def guards_hold(self, leaves: Any) -> bool:
        return True


class JumpPlan(StatementPlan):
    """A bare ``break`` or ``continue`` in a body run by Python control flow."""

    def __init__(self, start: int, kind: str):
        self.start, self.kind = start, kind

    def run(self, env: dict[str, Any], leaves: Any) -> tuple[str, Any]:
        return self.kind, None


class PythonControl(StatementPlan):
    """An ``if``/``for``/``while`` run as Python control flow around compiled bodies.

    ``blocks(stmts)`` gives the runner of a statement list (cached by the
    owner, so a body's compiled segments are reused across iterations and calls)."""

    def __init__(self, unit: Unit, start: int, stmt: Any, site: FallbackSite,
                 blocks: Callable[[list], Callable[[dict], tuple[str, Any]]]):
        self.start, self.stmt, self.site = start, stmt, site
        self.body = blocks(stmt.body)
        self.orelse = blocks(stmt.orelse) if stmt.orelse else None
        self.cellvars = unit.cellvars
        if isinstance(stmt, gast.For):
            self.iterable, self.bind = _Eval(unit, stmt.iter), _Bind(unit, stmt.target)
        else:
            self.test = _Eval(unit, stmt.test)

    def _iterations(self, env: dict[str, Any]):
        if isinstance(self.stmt, gast.For):
            it = iter(self.iterable(env))
            while True:
                if self.cellvars and CELLS in env:
                    # the iterator may be a generator or map of a closure over this
                    # call's cells: it reads what the compiled body just assigned
                    call_cells(env, self.cellvars)
                try:
                    item = next(it)
                except StopIteration:
                    return
                self.bind(env, item)
                yield
        else:
            while self.test(env):
                yield

    def run(self, env: dict[str, Any], leaves: Any) -> tuple[str, Any]:
        if isinstance(self.stmt, gast.If):
            if self.test(env):
                return self.body(env)
        else:
            for _ in self._iterations(env):
                outcome = self.body(env)
                if outcome[0] == BREAK:
                    return NEXT, None
                if outcome[0] == RETURN:
                    return outcome
        return self.orelse(env) if self.orelse else (NEXT, None)
