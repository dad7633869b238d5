"""``try`` and ``with`` in the graph.

Requires: the ``Specializer`` state (mixed in).
Produces:
* ``try``: a compiled graph raises no Python exception at run time (XLA
  does not raise), so when the body specialises, the handlers are
  unreachable and the statement is body, ``else:``, ``finally:`` in order.
  An exception eager raises at trace time on the same (static) path is
  handled statically by the first matching handler, exactly as eager does.
  Anything else (an exception under a traced condition, an unmatched one)
  falls back to Python.
* ``with``: context managers that only affect tracing (``jax.named_scope``,
  ``jax.default_matmul_precision``, ``contextlib.nullcontext``,
  ``np.errstate``, ...) are entered and exited at trace time; any other
  context manager must run on every call and falls back.
Invariants: ``finally:`` runs after everything the ``try`` does, so the
continuation machinery (early exits) may not cross a ``try`` with ``finally``.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any

import gast
import jax
import numpy as np

from ..fallback.sites import FallbackCode, GraphBreak
from .state import ControlSignal

_TRACE_TIME_CONTEXTS = (
    jax.named_scope, jax.default_matmul_precision, jax.numpy_dtype_promotion,
    contextlib.nullcontext, np.errstate, warnings.catch_warnings,
)


class BlocksMixin:
    def exec_Try(self, stmt: Any) -> None:
        depth = self.traced_depth
        barrier = bool(stmt.finalbody)
        if barrier:
            self.cont.append(None)
        try:
            try:
                self.handlers_depth += bool(stmt.handlers)
                try:
                    self.exec_block(stmt.body)
                finally:
                    self.handlers_depth -= bool(stmt.handlers)
            except GraphBreak as e:
                self._handle_static_exception(stmt, e, depth)
            else:
                self.decide(stmt, "try", "graph", "the body specialised: a compiled graph raises no Python exception, the handlers are unreachable")
                self.exec_block(stmt.orelse)
        except ControlSignal:
            self.exec_block(stmt.finalbody)
            raise
        finally:
            if barrier:
                self.cont.pop()
        self.exec_block(stmt.finalbody)

    def _suppress(self, stmt: Any, expr: Any) -> None:
        """``with contextlib.suppress(E): body``: a compiled graph raises no
        Python exception; one raised on a static path while tracing (eager
        raises it on every call) ends the block as eager's suppress does."""
        types = tuple(self.eval(a) for a in expr.args)
        depth = self.traced_depth
        self.decide(stmt, "with", "trace time", "contextlib.suppress: exceptions raised while tracing are suppressed as eager suppresses them")
        self.handlers_depth += 1
        try:
            self.exec_block(stmt.body)
        except GraphBreak as e:
            exc = getattr(e, "exc", None)
            if exc is None or getattr(e, "traced_depth", -1) != depth or not isinstance(exc, types):
                raise
        finally:
            self.handlers_depth -= 1

    def _handle_static_exception(self, stmt: Any, error: GraphBreak, depth: int) -> None:
        exc = getattr(error, "exc", None)
        if exc is None or getattr(error, "traced_depth", -1) != depth:
            raise error
        for handler in stmt.handlers:
            caught = Exception if handler.type is None else self.eval(handler.type)
            try:
                matches = isinstance(exc, caught)
            except TypeError:
                raise error from None
            if not matches:
                continue
            self.decide(stmt, "try", "handled at trace time", f"{type(exc).__name__} raised on a static path, caught by the handler")
            if handler.name is not None:
                self.assign(handler.name, exc, handler)
            self.exec_block(handler.body)
            if handler.name is not None:
                self.frame.env.pop(handler.name.id, None)
            return
        raise error

    def exec_With(self, stmt: Any) -> None:
        expr = stmt.items[0].context_expr
        if len(stmt.items) == 1 and isinstance(expr, gast.Call) and self.eval(expr.func) is contextlib.suppress:
            self._suppress(stmt, expr)
            return
        managers = []
        for item in stmt.items:
            expr = item.context_expr
            callee = self.eval(expr.func) if isinstance(expr, gast.Call) else None
            if not any(callee is c for c in _TRACE_TIME_CONTEXTS):
                raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "`with` on a context manager whose __enter__/__exit__ must run on every call", "with",
                                       hint="keep the with-block outside the compiled function, or use a context manager that only affects tracing (jax.named_scope, ...)")
            args = [self.eval(a) for a in expr.args]
            kwargs = {k.arg: self.eval(k.value) for k in expr.keywords}
            manager = self.static_call(callee, tuple(args), kwargs, expr)
            value = manager.__enter__()
            managers.append(manager)
            if item.optional_vars is not None:
                self.assign(item.optional_vars, value, item)
        self.decide(stmt, "with", "trace time", "context managers that only affect tracing, entered and exited while tracing")
        try:
            self.exec_block(stmt.body)
        finally:
            for manager in reversed(managers):
                manager.__exit__(None, None, None)
