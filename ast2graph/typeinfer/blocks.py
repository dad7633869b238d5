"""``try`` and ``with`` in the graph.

Requires: the ``Specializer`` state (mixed in).
Produces:
* ``try``: a compiled graph raises no Python exception at run time (XLA
  does not raise), so when the body specialises, the handlers are
  unreachable and the statement is body, ``else:``, ``finally:`` in order.
  An exception eager raises at trace time on the same (static) path is
  handled statically by the first matching handler, exactly as eager does.
  An exception under a traced condition is a run-time check where
  ``checkscope`` proves that no handler takes it and the exits around it
  leave eager's state; anything else (an unmatched one) falls back to Python.
* ``with``: context managers that only affect tracing (``jax.named_scope``,
  ``jax.default_matmul_precision``, ``contextlib.nullcontext``,
  ``np.errstate``, ...) are entered and exited at trace time; the user's
  own (a class with Python ``__enter__``/``__exit__``, a
  ``@contextlib.contextmanager`` generator) are converted like calls
  (``contexts``); any other context manager must run on every call and
  falls back.
* ``try`` with ``finally:`` (or ``else:``): a ``break``/``continue``/
  ``return`` under a traced condition in the body sets a flag of a
  ``TryCtx`` (``exits``): the rest of the body runs in the other branches,
  ``finally:`` runs once after the join, then each exit is taken under its
  flag (``guarded_body``). An exception eager raises on a static path runs
  ``finally:`` before an outer handler takes it.
* a ``raise`` under a traced condition that a handler of the enclosing
  ``try`` (or a ``contextlib.suppress``) takes is such an exit too: a flag
  per raise statement (``caught_raise``), its handler run under the flag
  after the body, before ``finally:`` (``else:`` as the other branch); a
  run-time check a handler takes likewise (``caught_check``). A
  ``return``/``break``/``continue`` in that handler sets the ``try``'s flag
  as one in the body does (``_handler_in_flags``): taken after ``finally:``.
Invariants: ``finally:`` runs exactly once on every path, after everything
the body does; ``else:`` never runs on an exit's path (after a traced exit it
runs under "no flag set").

Reference semantics of a traced ``break`` through ``finally:`` (eager Python)::

    for x in xs:               for x in xs:
        try:                       brk = False
            if c(x): break         if c(x): brk = True
            a(x)                   else:    a(x)
        finally:                   f(x)
            f(x)                   if brk: break
"""

from __future__ import annotations

import contextlib
import functools
import types
import warnings
from typing import Any, Callable

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode, GraphBreak
from ..graphlib import arrays
from ..ir.core import Region, Value, walk_ops
from .checkscope import Protector, _binds, _handler_classes, _loads, _plain_type_expr
from .contexts import ContextsMixin, contextmanager_function, python_code, user_manager_class
from .exits import BodyEnd, TryCtx
from .state import UNBOUND, BreakSignal, CaughtSignal, ContinueSignal, ControlSignal, MaybeBound, ReturnSignal, own_nodes

_TRACE_TIME_CONTEXTS = (
    jax.named_scope, jax.default_matmul_precision, jax.numpy_dtype_promotion,
    contextlib.nullcontext, np.errstate, warnings.catch_warnings,
)


class BlocksMixin(ContextsMixin):
    def exec_Try(self, stmt: Any) -> None:
        with self.protected(self.handler_protector(stmt)) as protector:   # run-time checks inside (checkscope)
            self._try(stmt, protector)

    def _try(self, stmt: Any, protector: Any) -> None:
        depth = self.traced_depth

        def body() -> None:
            try:
                self.exec_block(stmt.body)
            except GraphBreak as e:
                self._handle_static_exception(stmt, e, depth)
            except BodyEnd:
                if stmt.orelse:   # eager runs else: on the paths that did not exit only
                    self._else_unless_exited(stmt)
                raise
            else:
                self.decide(stmt, "try", "graph", "the body specialised: a compiled graph raises no Python exception, the handlers are unreachable")
                self.exec_block(stmt.orelse)

        if not stmt.finalbody and not stmt.orelse and not _raises(stmt.body) and not _check_sites(stmt.body):
            body()
            return
        # an exit under a traced condition in the body ends it here (TryCtx), so
        # that else: runs only on the paths that did not exit and finally: once after it
        def final() -> None:
            with self.unwinding(protector):
                self.exec_block(stmt.finalbody)

        self.guarded_body(stmt, body, final, stmt.finalbody + stmt.orelse + [s for h in stmt.handlers for s in h.body],
                          (lambda exc: self._static_handler(stmt, exc)) if stmt.handlers else None)

    def _else_unless_exited(self, stmt: Any) -> None:
        """``else:`` of a ``try`` whose body took an exit under a traced
        condition: it runs under ``not exited`` (the flags of the ``TryCtx``),
        still inside the ``try``'s ``finally:``, outside its handlers."""
        ctx = self.cont[-1]
        if not isinstance(ctx, TryCtx) or ctx.stmt is not stmt:
            raise self.graph_break(FallbackCode.EARLY_EXIT, stmt, "`try` with `else:` around an exit under a traced condition", "try")
        env = self.frame.env
        raised = [(site, env.get(f, False)) for site, f in ctx.sites.items()]
        flags = [env.get(f, False) for f in (ctx.brk, ctx.cnt, ctx.ret)] + [f for _, f in raised]
        if any(f is True for f in flags):
            return
        traced = [(site, f) for site, f in raised if f is not False]
        if len(traced) == 1 and isinstance(traced[0][1], Value) and flags[:3] == [False] * 3:
            self._handler_or_else(stmt, ctx, *traced[0])
            return
        traced = [f for f in flags if isinstance(f, Value)]
        if len(traced) != len([f for f in flags if f is not False]):
            raise self.graph_break(FallbackCode.EARLY_EXIT, stmt, "an exit flag of a `try` body that is neither static nor traced", "try")
        if not traced:
            self.exec_block(stmt.orelse)
            return
        exited = traced[0]
        for f in traced[1:]:
            exited = self.emit_call(jnp.logical_or, (exited, f), {}, stmt, "or")
        ssa = self.frame.unit.ssa
        assigned = ssa.assigned(stmt.orelse)
        loads = {n.id for r in stmt.finalbody for n in gast.walk(r) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        names = sorted(assigned & (set(ssa.live_out(stmt)) | loads))
        self.decide(stmt, "try", "lax.cond", "else: runs on the paths where the body did not exit")
        self._traced_branches(stmt, exited, [lambda: None, lambda: self.exec_block(stmt.orelse)], names, assigned)

    # ------------------------------------------- exits through a finally/an __exit__
    def guarded_body(self, stmt: Any, body: Callable[[], None], final: Callable[[], None], reads: list,
                     lookup: Callable[[BaseException], Any] | None = None) -> None:
        """``body`` then ``final`` once on every way out of it, as eager's
        ``try: body finally: final``. A static ``break``/``continue``/``return``
        runs ``final`` and goes on; one under a traced condition sets a flag of
        a ``TryCtx`` (the rest of the body runs in the other branches), ``final``
        runs after the join, then each flag re-raises its exit under its
        condition. ``reads``: statements of ``final`` (their names are live
        after the body). ``lookup``: the handler that takes an exception
        raised under a traced condition in the body (``caught_raise``), or None."""
        ctx = self._new_try(stmt, reads, lookup)
        depth = self.traced_depth
        self.cont.append(ctx)
        try:
            try:
                body()
            except BodyEnd:
                pass
            except ControlSignal as signal:
                self.cont.pop()
                self._drop_flags(ctx)
                if self._drop_caught(ctx):   # (a static exit after a traced raise: not joined)
                    raise self.graph_break(FallbackCode.EARLY_EXIT, signal.node or stmt, "an exit after a raise "
                                           "under a traced condition that a handler takes", "try") from None
                self._finally_then(stmt, final, functools.partial(_reraise, signal),
                                   signal.value if isinstance(signal, ReturnSignal) else UNBOUND)
                raise
            except GraphBreak as e:   # eager's exception on this static path: finally runs, then it propagates
                if getattr(e, "exc", None) is None or getattr(e, "traced_depth", -1) != depth:
                    raise
                if any(self.frame.env.get(f, False) is not False for f in ctx.sites.values()):
                    raise   # (after a raise a handler takes under a traced condition: not joined, it falls back)
                self.cont.pop()
                self._drop_flags(ctx)
                self._drop_caught(ctx)
                self._finally_then(stmt, final, functools.partial(_reraise, e))
                raise
        finally:
            if self.cont and self.cont[-1] is ctx:
                self.cont.pop()
        for site, caught in self._drop_caught(ctx):   # (the flags exclude each other: one raise per path)
            self._handler_in_flags(stmt, ctx, site, caught)
        flags = self._drop_flags(ctx)
        self._finally_then(stmt, final, functools.partial(self._reraise_exits, stmt, *flags), flags[1])

    def _finally_then(self, stmt: Any, final: Callable[[], None], then: Callable[[], None],
                      returning: Any = UNBOUND) -> None:
        """``final`` (the ``finally:`` block or the exit), then ``then()``:
        what the ``try`` does after it (the body's pending exits under their
        flags, its static exit or exception re-raised). An exit under a
        traced condition in ``final`` (``finally: if c: continue``) ends the
        enclosing body inside the branches of its ``if`` (``BodyEnd``): the
        branches that do not exit run the rest of ``final`` and then the
        continuation, whose first statement is ``then`` (``_AfterFinally``).
        Eager: an exit taken in ``finally:`` discards the pending one; one
        not taken lets it go on. ``returning``: the value the body returns
        (on some path), held while ``final`` runs: eager returns that very
        object, so an in-place write in ``final`` must show through it
        (``mutation._references``: it falls back)."""
        self.cont.append(([stmt, _AfterFinally(stmt, then)], 0))
        self.held_returns.append(returning)
        try:
            final()
        finally:
            self.held_returns.pop()
            self.cont.pop()
        then()

    def exec__AfterFinally(self, node: "_AfterFinally") -> None:
        node.then()

    def _new_try(self, stmt: Any, reads: list, lookup: Callable[[BaseException], Any] | None = None) -> TryCtx:
        ssa = self.frame.unit.ssa
        loads = {n.id for r in reads for n in gast.walk(r) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        # the names the body, its handlers and else: bind (the continuation of an exit in a handler binds them too)
        names = sorted(ssa.assigned(stmt) & (set(ssa.live_out(stmt)) | loads))
        key = f"{stmt.lineno}:{stmt.col_offset}:{id(stmt)}"
        ctx = TryCtx(stmt, names, f"<break try {key}>", f"<continue try {key}>", f"<return try {key}>", f"<retval try {key}>")
        env = self.frame.env
        env[ctx.brk] = env[ctx.cnt] = env[ctx.ret] = False
        env.pop(ctx.retval, None)
        self.frame.local_names = self.frame.local_names | {ctx.brk, ctx.cnt, ctx.ret, ctx.retval}
        if lookup is not None:
            ctx.lookup = lookup
            ctx.sites = {id(n): f"<raise try {key} {n.lineno}:{n.col_offset}>"
                     for n in _raise_nodes(stmt.body) + _check_sites(stmt.body)}
            # (a check's second exception, taken by a handler: ``int(x)``'s OverflowError after NaN's ValueError)
            # (and a second check's of one statement: ``math.log(a / b)``, ``caught_check``)
            ctx.sites.update({(id(n), k): f"<raise try {key} {n.lineno}:{n.col_offset} {k}>"
                              for n in _check_sites(stmt.body) for k in (1, 2, 3)})
            ctx.depth, ctx.frame, ctx.protectors = self.traced_depth, self.frame, len(self.protectors)
            for flag in ctx.sites.values():
                env[flag] = False
            self.frame.local_names = self.frame.local_names | set(ctx.sites.values())
        return ctx

    def _drop_flags(self, ctx: TryCtx) -> tuple:
        env = self.frame.env
        return (env.pop(ctx.ret, False), env.pop(ctx.retval, UNBOUND), env.pop(ctx.brk, False), env.pop(ctx.cnt, False))

    def _drop_caught(self, ctx: TryCtx) -> list:
        """The raise sites whose flag is set on some path, with the flag."""
        flags = [(site, self.frame.env.pop(f, False)) for site, f in ctx.sites.items()]
        return [(site, f) for site, f in flags if f is not False]

    # ------------------------------------------- a raise under a traced condition that a handler takes
    def caught_raise(self, stmt: gast.Raise) -> CaughtSignal | None:
        """``raise E(...)`` under a traced condition in the body of a ``try``
        whose handler takes it: an exit of the body (``CaughtSignal``, a flag
        of the ``TryCtx`` as ``break`` sets one), the handler then running
        under that flag after the body (``_run_handler``). Only where it is
        exact: the nearest enclosing construct is that ``try`` (no loop, no
        inner ``try``/``with`` between), the exception is static (made at
        trace time from static arguments; each raise statement has a flag of
        its own, its exception the same whenever it runs), the handler
        matching it is known at trace time, and
        that handler neither raises nor lets its exception object escape
        (``_plain_handler``; a ``return``/``break``/``continue`` in it is an
        exit of the ``try``: ``_handler_in_flags``). None otherwise (as
        before: a fallback)."""
        ctx = self.nearest_loop()
        if not isinstance(ctx, TryCtx) or id(stmt) not in ctx.sites or ctx.frame is not self.frame \
                or self.traced_depth <= ctx.depth or len(self.protectors) != ctx.protectors or stmt.exc is None:
            return None
        try:
            exc = self.static_exception(stmt.exc, stmt)
        except GraphBreak:
            return None
        handler = ctx.lookup(exc) if exc is not None else None
        if handler is None or not _plain_handler(handler):
            return None
        prior = ctx.caught.get(id(stmt))   # (a body is run again to its end: the same raise)
        if prior is not None and (prior[0] is not handler or type(prior[1]) is not type(exc) or prior[1].args != exc.args):
            return None
        ctx.caught.setdefault(id(stmt), (handler, exc))
        return CaughtSignal(stmt, exc)

    # ------------------------------------------- a run-time check that a handler takes
    def caught_check(self, fn: Callable, args: tuple, kwargs: dict, node: Any) -> bool:
        """A run-time check (``fn``) that the handler of the ``try`` around it
        would take: instead of the check, its condition as a graph value, and
        after its statement the body ends there under that condition, as a
        ``raise`` does (``raise_caught_check``). Only where it is exact: the
        statement is one of the ``try`` body's own (no loop, branch, callee,
        ``try`` or ``with`` between; after an earlier check or raise of the
        body it stands in the rest of the body, run where that one did not
        fire: ``branches_ending_try``), it binds plain names at most and calls
        nothing that may change state (``_pure_statement``: eager stops it
        midway), the check's exception is made at trace time from constants
        (``fn._a2g_caught``: a LinAlgError's, a ZeroDivisionError's message),
        and its handler is known now and raises nothing of its own
        (``_plain_handler``; its exits are the ``try``'s: ``_handler_in_flags``).
        False otherwise (as before: a fallback)."""
        caught = getattr(fn, "_a2g_caught", None)
        ctx = self.nearest_loop()
        pending = self.__dict__.get("_caught_check")
        if caught is None or not isinstance(ctx, TryCtx) or ctx.lookup is None or ctx.frame is not self.frame \
                or self.traced_depth < ctx.depth or len(self.protectors) != ctx.protectors \
                or len(self.cont) < 2 or self.cont[-2] is not ctx:
            return False
        stmts, i = self.cont[-1]
        stmt = stmts[i]
        if pending is not None and (pending[0] is not stmt or pending[4] is not self.region):
            return False
        if not _in_body(stmts, ctx.stmt.body) or id(stmt) not in ctx.sites or not self._pure_statement(stmt):
            return False
        form = caught(*args, **kwargs)
        forms = form if isinstance(form, list) else [] if form is None else [form]
        # a second check of one statement (``math.log(a / b)``: the division's, then the log's): taken where
        # the first did not fire (eager raises the first), numbered after it
        earlier = [pred for _, pred, _ in pending[1]] if pending is not None else []
        if earlier and any(isinstance(f, arrays.ResidualCheck) for f in forms):
            return False
        taken = self._taken_forms(ctx, stmt, forms, len(earlier))
        if taken is None and earlier and forms and self.raise_checks is True \
                and all(ctx.lookup(f[2]) is None and self.check_passes(type(f[2])) for f in forms):
            taken = []   # no handler takes it: checks of their own (below), where the earlier one did not fire
        if taken is None:
            return False
        for f in forms:   # the parts no handler takes: checks of their own, raising out of the try
            if isinstance(f, arrays.ResidualCheck):
                self.emit_call(f.fn, f.args, {}, node, "check", effect=True)
            elif all(f is not t for _, _, t in taken):
                pred = self._unless(self._form_pred(f, node), earlier, node)
                self.emit_call(arrays.raise_when, (pred, arrays.Remake(f[2])), {}, node, "check",
                               effect=True)   # (a new exception per call, as eager's)
                if earlier:   # (never fires where an earlier check of the statement did: raise_caught_check)
                    self.__dict__.setdefault("_masked_checks", set()).add(id(self.region.ops[-1]))
        exits = list(pending[1]) if pending is not None else []
        for key, handler, (pred_fn, pred_args, exc, *_) in taken:
            pred = self._form_pred((pred_fn, pred_args), node)
            ctx.caught.setdefault(key, (handler, exc))
            exits.append((key, pred, exc))   # (the first that holds is taken: ``branch_index``)
        # (a name the handler binds before it reads it: the statement's value, never seen, keeps it bound)
        overwritten = set.intersection(*(_bound_before_read(h.body) for _, h, _ in taken)) if taken else set()
        if pending is not None:
            before, start = pending[2], pending[3]
            before = {n: v for n, v in before.items() if n not in overwritten}
        else:
            before = {n: self.frame.env.get(n, UNBOUND) for n in _target_names(stmt) if n not in overwritten}
            start = len(self.region.ops)
        self.__dict__["_caught_check"] = (stmt, exits, before, start, self.region, node)
        return True

    def _mask_fp_warnings(self, start: int, exits: list, node: Any) -> set:
        """The NumPy RuntimeWarning callbacks of a statement whose check a
        handler takes (``total + np.linalg.solve(a, b)``'s ``+``,
        ``calls._emit_fp_flags``), made after the check: eager runs them only
        where it did not fire, so their flags are masked by that (one made
        before the check stays as it is: eager issued it before raising).
        Returns the callbacks, which then stand in the statement."""
        done: set = set()
        region = self.region
        found = self.__dict__.get("fp_outputs", [])
        for op in list(region.ops[start:]):
            if getattr(getattr(op, "fn", None), "_a2g_fp_issuer", None) is None or len(op.leaves) != 1:
                continue
            at = next(k for k, o in enumerate(region.ops) if o is op)
            later = {id(r) for o in walk_ops(Region(ops=region.ops[at + 1:])) for r in o.results}
            preds = [pred for _, pred, _ in exits if id(pred) not in later]
            if not all(isinstance(p, Value) for p in preds):
                continue
            if preds:
                n = len(region.ops)
                fired = functools.reduce(lambda a, b: self.emit_call(jnp.logical_or, (a, b), {}, node, "or"), preds)
                passed = self.emit_call(jnp.logical_not, (fired,), {}, node, "not")
                flags = op.leaves[0]
                kept = self.emit_call(jnp.logical_and, (flags, passed), {}, node, "and")
                if not isinstance(kept, Value):
                    continue
                new = region.ops[n:]
                del region.ops[n:]
                region.ops[at:at] = new
                op.leaves = [kept]
                found[:] = [(kept, o, issue) if o is op else (f, o, issue) for f, o, issue in found]
            done.add(id(op))
        return done

    def _unless(self, pred: Any, earlier: list, node: Any) -> Any:
        """``pred and not any(earlier)``."""
        for e in earlier:
            pred = self.emit_call(jnp.logical_and, (pred, self.emit_call(jnp.logical_not, (e,), {}, node, "not")),
                                  {}, node, "and")
        return pred

    def _taken_forms(self, ctx: TryCtx, stmt: Any, forms: list, offset: int = 0) -> list | None:
        """The caught forms of a check (``fn._a2g_caught``) that a handler of
        ``ctx`` takes, each ``(key, handler, form)``: the statement's own flag
        for the first, ``(id(stmt), k)`` for the k-th other exception one
        statement may raise (``int(x)``: NaN's ValueError, an infinity's
        OverflowError). None where one cannot be taken exactly, or none is
        taken (a form no handler takes is a check of its own: ``caught_check``)."""
        taken = []
        for f in forms:
            if isinstance(f, arrays.ResidualCheck):
                continue
            handler = ctx.lookup(f[2])
            if handler is None:
                continue
            if not _plain_handler(handler) or len(f) > 3 and handler.name is not None:
                return None   # (a fourth item: the exception's text is a stand-in, for a handler that binds no name)
            k = offset + len(taken)
            key = id(stmt) if not k else (id(stmt), k)
            prior = ctx.caught.get(key)
            if key not in ctx.sites or prior is not None and (prior[0] is not handler or type(prior[1]) is not type(f[2])
                                                              or prior[1].args != f[2].args):
                return None
            taken.append((key, handler, f))
        return taken or None

    def _form_pred(self, form: tuple, node: Any) -> Any:
        """Where a caught form's exception is raised, as a graph value."""
        pred_fn, pred_args = form[0], form[1]
        return pred_args[0] if pred_fn is None else self.emit_call(pred_fn, pred_args, {}, node, "check failure")

    def check_may_be_caught(self) -> bool:
        """Whether a check made here may be taken by the handler of the
        ``try`` around it (``caught_check`` decides when it is made): a check
        site that refuses checks (a segment that writes state or prints) may
        still make one here."""
        ctx = self.nearest_loop()
        return isinstance(ctx, TryCtx) and ctx.lookup is not None and ctx.frame is self.frame \
            and self.traced_depth >= ctx.depth and len(self.cont) >= 2 and self.cont[-2] is ctx

    def raise_caught_check(self, stmt: Any, returned: ReturnSignal | None = None) -> None:
        """After ``stmt``, whose check ``caught_check`` took: the body ends
        where the check's condition holds (the names the statement bound keep
        their values from before it, as eager never binds them), the handler
        then running under that flag (``guarded_body``); the rest of the body
        runs where it does not (``returned``: a ``return`` statement's exit,
        taken there after the ``try`` as a traced ``return`` in its body is)."""
        _, exits, before, start, region, node = self.__dict__.pop("_caught_check")
        masked = self.__dict__.pop("_masked_checks", set())
        if region is self.region:
            masked |= self._mask_fp_warnings(start, exits, node)
        if region is not self.region or any(getattr(getattr(op, "fn", None), "_a2g_effect", False)
                                            and not getattr(op.fn, "_a2g_pure", False) and id(op) not in masked
                                            for op in walk_ops(Region(ops=region.ops[start:]))):
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "a check (eager may raise here) that a handler "
                                   "takes, before something eager does not do once it raised", "try")
        ctx = self.nearest_loop()

        def raised(exc: BaseException) -> None:
            env = self.frame.env
            for name, value in before.items():
                if value is UNBOUND:
                    env.pop(name, None)
                else:
                    env[name] = value
            raise CaughtSignal(stmt, exc)

        names = "/".join(type(exc).__name__ for _, _, exc in exits)
        self.decide(stmt, "try", "lax.cond" if len(exits) == 1 else "lax.switch", f"{names} of a run-time check, "
                    "taken by its handler: the rest of the body runs where the check does not fire, the handler where it does")
        def passed() -> None:
            if returned is not None:
                raise returned

        runs = [functools.partial(raised, exc) for _, _, exc in exits] + [passed]
        if len(exits) == 1:
            self.branches_ending_try(stmt, exits[0][1], runs, dict(self.frame.env), ctx, False)
            return
        index = self.emit_call(arrays.branch_index, tuple(pred for _, pred, _ in exits), {}, stmt, "branch_index")
        self.branches_ending_try(stmt, index, runs, dict(self.frame.env), ctx, True)

    def _pure_statement(self, stmt: Any) -> bool:
        """``stmt`` binds plain names at most, and what it evaluates changes
        no state (so stopping it midway, as eager's exception does, leaves
        what running it whole leaves, but its bindings): calls of NumPy, JAX
        and ``math`` functions and of arithmetic builtins, non-mutating
        methods of arrays, attributes of modules and arrays."""
        if not isinstance(stmt, _CHECK_STATEMENTS) \
                or any(not isinstance(t, gast.Name) for t in getattr(stmt, "targets", [getattr(stmt, "target", None)])
                       if t is not None):
            return False
        nodes = list(own_nodes(stmt))
        if any(isinstance(n, _IMPURE) for n in nodes):
            return False
        if isinstance(stmt, gast.AugAssign):   # ``xs += [v]`` extends the list in place: an array or a number only
            target = self.frame.env.get(stmt.target.id)
            if not isinstance(target, Value) and type(target) not in (int, float, complex, bool):
                return False
        funcs = {id(n.func) for n in nodes if isinstance(n, gast.Call)}
        return all(self._pure_callee(n.func) for n in nodes if isinstance(n, gast.Call)) \
            and all(self._pure_root(n) for n in nodes if isinstance(n, gast.Attribute)) \
            and all(self._plain_operand(n) for n in nodes
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in funcs)

    def _plain_operand(self, name: gast.Name) -> bool:
        """A name whose object runs no code of the user's when an operator,
        a builtin or NumPy looks at it (no ``__float__``, ``__iter__`` or
        generator that eager would not reach after the exception)."""
        try:
            value = self.eval(name)
        except GraphBreak:
            return False
        return isinstance(value, (Value, types.ModuleType, np.ndarray, np.generic, jax.Array)) \
            or type(value) in (int, float, complex, bool, str, type(None), tuple, list, dict)

    def _pure_root(self, node: gast.Attribute) -> bool:
        root = node
        while isinstance(root, gast.Attribute):
            root = root.value
        if not isinstance(root, gast.Name):
            return False
        try:
            value = self.eval(root)
        except GraphBreak:
            return False
        return isinstance(value, (types.ModuleType, Value)) or type(value) in (int, float, complex, bool)

    def _pure_callee(self, func: Any) -> bool:
        if isinstance(func, gast.Attribute) and func.attr in _MUTATORS:
            return False
        if isinstance(func, gast.Attribute) and not isinstance(func.value, gast.Name):
            return self._pure_root(func) and self._pure_callee_value(func)
        if isinstance(func, gast.Attribute):
            try:
                receiver = self.eval(func.value)
            except GraphBreak:
                return False
            return isinstance(receiver, Value) or isinstance(receiver, types.ModuleType) and self._pure_callee_value(func)
        return isinstance(func, gast.Name) and self._pure_callee_value(func)

    def _pure_callee_value(self, func: Any) -> bool:
        try:
            value = self.eval(func)
        except GraphBreak:
            return False
        if any(value is b for b in _PURE_BUILTINS):
            return True
        module = getattr(value, "__module__", None) or ""
        return module.split(".")[0] in ("numpy", "jax", "jaxlib", "math") and not isinstance(value, type) \
            and not any(value is f for f in _CALLBACK_FUNCTIONS)

    def _static_handler(self, stmt: gast.Try, exc: BaseException) -> Any:
        """The handler of ``stmt`` that takes ``exc``, read at trace time; None
        when none does or a handler's classes are not known now."""
        bound = _binds(stmt.body)
        for handler in stmt.handlers:
            if handler.type is None:
                return handler
            if not _plain_type_expr(handler.type) or _loads([handler.type]) & bound:
                return None
            try:
                classes = _handler_classes(self.eval(handler.type))
            except GraphBreak:
                return None
            if classes is None:
                return None
            if isinstance(exc, classes):
                return handler
        return None

    def _handler_body(self, ctx: TryCtx, site: int, body: list | None = None) -> Callable[[], None]:
        """Running the handler of the raise the body took (``body``: only
        these statements of it): its name bound to the exception and unbound
        after it, as eager's."""
        handler, exc = ctx.caught[site]

        def run() -> None:
            if handler.name is not None:
                self.assign(handler.name, exc, handler)
            try:
                self.exec_block(handler.body if body is None else body)
            finally:   # (unbound on the way out by an exit too, as eager's: the paths then join without it)
                if handler.name is not None:
                    self.frame.env.pop(handler.name.id, None)

        return run

    def _handler_or_else(self, stmt: gast.Try, ctx: TryCtx, site: int, caught: Value) -> None:
        """``else:`` after a body whose only exit is a raise its handler
        takes: one branch, the handler where it raised, ``else:`` where not
        (a name both bind is bound after it on every path)."""
        handler, exc = ctx.caught[site]
        ssa = self.frame.unit.ssa
        assigned = ssa.assigned(handler.body) | ssa.assigned(stmt.orelse) | \
            ({handler.name.id} if handler.name is not None else set())
        names = sorted(assigned & (set(ssa.live_out(stmt)) | _loads(stmt.finalbody)))
        self.decide(stmt, "try", "lax.cond", f"{type(exc).__name__} raised under a traced condition, taken by its "
                    "handler: the handler runs where it was raised, else: where not")
        self.frame.env[ctx.sites[site]] = False   # (handled; before the branches: an exit in them ends the body)
        if self._raise_in_handler(stmt, ctx, site, caught):
            self.exec_block(stmt.orelse)   # (where the handler raised, nothing after is observable)
            return
        self._traced_branches(stmt, caught, [self._handler_body(ctx, site), lambda: self.exec_block(stmt.orelse)],
                              names, assigned)

    def _handler_in_flags(self, stmt: gast.Try, ctx: TryCtx, site: int, caught: Any) -> None:
        """The handler of a raise the body took, inside the ``try``'s exit
        flags: a ``return``/``break``/``continue`` in it (under the raise's
        condition, or one of its own) sets the flag as one in the body does,
        the rest of the handler running where it does not; ``finally:`` then
        runs once, and the exit is taken after it (``_reraise_exits``), as
        eager leaves a handler."""
        if not _handler_exits(ctx.caught[site][0]):
            self._run_handler(stmt, ctx, site, caught)
            return
        self.cont.append(ctx)
        try:
            self._run_handler(stmt, ctx, site, caught)
        except BodyEnd:   # (a traced exit: the flags are joined)
            pass
        except ReturnSignal as r:   # (a static exit: the handler always runs and exits)
            self.frame.env[ctx.ret], self.frame.env[ctx.retval] = True, r.value
        except BreakSignal:
            self.frame.env[ctx.brk] = True
        except ContinueSignal:
            self.frame.env[ctx.cnt] = True
        finally:
            self.cont.pop()

    def _run_handler(self, stmt: gast.Try, ctx: TryCtx, site: int, caught: Any) -> None:
        """The handler of the raise the body took under a traced condition,
        under its flag, before ``finally:``."""
        handler, exc = ctx.caught[site]
        run = self._handler_body(ctx, site)
        if caught is True:
            run()
            return
        if self._raise_in_handler(stmt, ctx, site, caught):
            return
        if not isinstance(caught, Value):
            raise self.graph_break(FallbackCode.EARLY_EXIT, stmt, "a raise flag of a `try` body that is neither "
                                   "static nor traced", "try")
        ssa = self.frame.unit.ssa
        assigned = ssa.assigned(handler.body) | ({handler.name.id} if handler.name is not None else set())
        names = sorted(assigned & (set(ssa.live_out(stmt)) | _loads(getattr(stmt, "finalbody", []))))
        self.decide(stmt, "try", "lax.cond", f"{type(exc).__name__} raised under a traced condition, taken by its "
                    "handler: the handler runs where the flag is set")
        self._traced_branches(stmt, caught, [run, lambda: None], names, assigned)

    def _raise_in_handler(self, stmt: gast.Try, ctx: TryCtx, site: Any, caught: Value) -> bool:
        """A handler that ends by raising (``_final_raise``), taken under the
        traced flag ``caught``: its statements before the ``raise`` run under
        the flag, then the ``raise`` is a run-time check on the flag that
        raises what eager raises, chained to (a new copy of) the exception
        the handler took as eager chains it (``arrays.Caused``: ``from e``,
        ``from None``, the context); a bare ``raise`` raises a copy of that
        exception. Where the check fires nothing after it is observable, so
        the code after the handler runs unconditionally. False (nothing
        emitted) where the ``raise``'s arguments read a name the statements
        before it bind, or it cannot be a check."""
        handler, exc = ctx.caught[site]
        last = _final_raise(handler)
        if last is None or not self.raise_checks_allowed():
            return False
        pre = handler.body[:-1]
        if _loads([last]) & (self.frame.unit.ssa.assigned(pre) if pre else set()):
            return False
        prints = pre if pre and all(_call_statement(s) for s in pre) else []
        start = len(self.region.ops)
        # (what a handler raises passes the try's handlers; its finally: still runs: checkscope rules 2-4)
        own = self.protectors[ctx.protectors - 1] if 0 < ctx.protectors == len(self.protectors) else None
        saved = own.catches if own is not None else None
        if own is not None and saved is not None:
            own.catches = ()
        try:
            # (its arguments read nothing `pre` binds)
            checked = self._handler_exception(handler, exc, last, prints)
            if checked is None and prints:   # (not all of them prints: run under the flag)
                del self.region.ops[start:]
                checked, prints = self._handler_exception(handler, exc, last), []
            if checked is None:
                del self.region.ops[start:]
                return False
            if pre and not prints:   # the statements before the raise, under the flag, as eager runs them
                assigned = self.frame.unit.ssa.assigned(pre) | ({handler.name.id} if handler.name is not None else set())
                names = sorted(assigned & (set(self.frame.unit.ssa.live_out(stmt)) | _loads(getattr(stmt, "finalbody", []))))
                self._traced_branches(stmt, caught, [self._handler_body(ctx, site, pre), lambda: None], names, assigned)
            self.emit_raise_check(caught, last, *checked[:3], "raise", before=checked[3])
        finally:
            if own is not None:
                own.catches = saved
        self.decide(stmt, "try", "checked", f"the handler of {type(exc).__name__} raises: a run-time check on the "
                    "flag, raising what eager raises (chained to the exception it took)"
                    f"{', printing first what the handler prints' if prints else ''}; the rest runs unconditionally")
        return True

    def _handler_exception(self, handler: Any, exc: BaseException, last: gast.Raise, prints: list = ()) -> tuple | None:
        """What the handler's final ``raise`` raises, for ``emit_raise_check``
        (the handler's name bound to ``exc`` while its arguments are
        evaluated), with the host calls of ``prints`` (statements before it,
        ``print("bad", e)``) it makes first (``raise_when``'s ``before``);
        None where it cannot be a check, or a statement of ``prints`` is not a
        host print."""
        if handler.name is not None:
            self.assign(handler.name, exc, handler)
        try:
            before = tuple(self._host_print_call(s.value) for s in prints)
            if None in before:
                return None
            if last.exc is None:   # a bare re-raise: the exception taken, a new copy per call
                return arrays.Remake(exc), (), {}, before
            checked = self.checked_exception(last.exc, len(self.region.ops))
            if checked is None or not isinstance(checked[0], type):
                return None
            cause = "" if last.cause is None else "None" if isinstance(last.cause, gast.Constant) else "e"
            return (arrays.Caused(checked[0], arrays.Remake(exc), cause), *checked[1:], before)
        except GraphBreak:
            return None
        finally:
            if handler.name is not None:
                self.frame.env.pop(handler.name.id, None)

    def _host_print_call(self, call: gast.Call) -> tuple | None:
        """``print(...)`` (a host printer) as ``(callee, args, kwargs)`` for
        ``raise_when``'s ``before``, checked as ``call`` checks a print
        (nothing it shows is a trace-time stand-in or has a pending write);
        None for another call."""
        from ..resolver import is_host_printer
        from .kinds import contains_standin

        callee = self.eval(call.func)
        if not is_host_printer(callee):
            return None
        args, kwargs = self._call_arguments(call)
        if self.nnx_in(args, kwargs) or contains_standin((args, kwargs), arrays_too=False):
            return None
        for arg in (*args, *kwargs.values()):
            self.check_no_effect(arg, call)
        return callee, args, kwargs

    def branches_ending_try(self, node: Any, pred: Any, branches: list, env0: dict, ctx: TryCtx, switch: bool) -> None:
        """Branches of a traced ``if`` in a ``try`` body, one of which exits:
        each runs to the end of the body; the exits become the flags."""
        outs = [self._run_branch(run, env0, node, rest=ctx) for run in branches]
        kinds = sorted({out[0] for _, _, out in outs})
        for _, env, (kind, node_, value) in outs:
            if kind == "break":
                env[ctx.brk] = True
            elif kind == "continue":
                env[ctx.cnt] = True
            elif kind == "return":
                env[ctx.ret], env[ctx.retval] = True, value
            elif kind == "raise":   # taken by the try's handler (``caught_raise``)
                env[ctx.sites[_caught_key(ctx, node_, value)]] = True
        self._unobserved_on_return(node, ctx, outs)
        self._same_list_lengths(node, [(r, env) for r, env, _ in outs])
        self.decide(node, "exit", "flag", f"{'/'.join(k for k in kinds if k != 'end')} under a traced condition inside "
                    "`try`/`finally` (or `with`): the rest of the body runs in the other branches, the exit after the finally")
        self.frame.env = dict(env0)
        self._join_and_emit(node, pred, [(r, env) for r, env, _ in outs], ctx.all_names, switch)
        raise BodyEnd(node)

    def _same_list_lengths(self, node: Any, outs: list) -> None:
        """The lists written in the branches of a ``try`` body that exits have
        one length on every path (their items are then joined one by one);
        another length on each path (a tail of data-dependent length, whose
        items' kinds the join does not keep apart: a NumPy scalar on one path,
        a Python float on another) falls back."""
        from .varlist import tail_of

        for name, obj in self.branch_containers(outs):
            values = [env[name] for _, env in outs]
            if type(obj) is list and (any(tail_of(v) is not None for v in values)
                                      or len({len(v) for v in values}) > 1):
                raise self.graph_break(FallbackCode.EARLY_EXIT, node, f"{self.container_label(obj)} of another "
                                       "length on each path out of a `try` body that exits under a traced condition",
                                       "try")

    def _unobserved_on_return(self, node: Any, ctx: TryCtx, outs: list) -> None:
        """A name the rest of the body binds, unbound on a path that returns:
        nothing reads it there after the join but a ``finally:`` on the way
        out (the function has returned), so where no ``finally:`` of this
        function around the exit reads it, zeros of its type stand there
        (never observed) and it stays bound on the paths that go on, instead
        of a may-be-unbound value whose read needs a run-time check."""
        readers = set().union(*(_loads(getattr(c.stmt, "finalbody", [])) for c in self.cont if isinstance(c, TryCtx)))
        for name in ctx.names:
            if name in readers:
                continue
            bound = [env[name] for _, env, _ in outs if env.get(name, UNBOUND) is not UNBOUND]
            returning = [(r, env) for r, env, out in outs if out[0] == "return" and env.get(name, UNBOUND) is UNBOUND]
            if bound and returning and not any(isinstance(b, MaybeBound) for b in bound):
                self._fill_placeholders(node, returning + [(None, {name: bound[0]})], [name])

    def _reraise_exits(self, stmt: Any, returned: Any, retval: Any, broke: Any, continued: Any) -> None:
        """After the finally: each exit the body took, under its flag (eager's
        order: one exit per path, so the flags exclude each other)."""
        exits = [(returned, lambda: ReturnSignal(stmt, retval)), (broke, lambda: BreakSignal(stmt)),
                 (continued, lambda: ContinueSignal(stmt))]
        self._reraise_from(stmt, [(f, make) for f, make in exits if f is not False])

    def _reraise_from(self, stmt: Any, exits: list) -> None:
        if not exits:
            return
        (flag, make), rest = exits[0], exits[1:]
        if flag is True:
            raise make()
        if not isinstance(flag, Value):
            raise self.graph_break(FallbackCode.EARLY_EXIT, stmt, "an exit flag of a `try` body that is neither static nor traced", "try")

        def take() -> None:
            raise make()

        self._traced_branches(stmt, flag, [take, lambda: self._reraise_from(stmt, rest)], [], set())

    def _suppress(self, stmt: Any, expr: Any) -> None:
        """``with contextlib.suppress(E): body``: a compiled graph raises no
        Python exception; one raised on a static path while tracing (eager
        raises it on every call) ends the block as eager's suppress does; a
        ``raise`` of an E under a traced condition ends the body where it is
        raised (a flag, as ``try: body except E: pass``)."""
        types = tuple(self.eval(a) for a in expr.args)
        depth = self.traced_depth
        self.decide(stmt, "with", "trace time", "contextlib.suppress: exceptions raised while tracing are suppressed as eager suppresses them")
        classes = types if all(isinstance(t, type) and issubclass(t, BaseException) for t in types) else None

        def body() -> None:
            try:
                self.exec_block(stmt.body)
            except GraphBreak as e:
                exc = getattr(e, "exc", None)
                if exc is None or getattr(e, "traced_depth", -1) != depth or not isinstance(exc, types):
                    raise

        with self.protected(Protector(classes)):   # a run-time check of another class passes it (checkscope)
            if classes is None or not _raises(stmt.body) and not _check_sites(stmt.body):
                body()
                return
            self.guarded_body(stmt, body, lambda: None, [],
                              lambda exc: _SUPPRESSED if isinstance(exc, classes) else None)

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
        self._with_items(stmt, 0)

    def _with_items(self, stmt: Any, k: int) -> None:
        """``with a, b: body`` is ``with a: with b: body``: item ``k`` around the rest."""
        if k == len(stmt.items):
            self.exec_block(stmt.body)
            return
        item = stmt.items[k]
        expr = item.context_expr
        rest = lambda: self._with_items(stmt, k + 1)  # noqa: E731
        callee = self.eval(expr.func) if isinstance(expr, gast.Call) else None
        if isinstance(expr, gast.Call) and any(callee is c for c in _TRACE_TIME_CONTEXTS):
            self._trace_time_context(stmt, item, callee, rest)
            return
        generator = contextmanager_function(callee)
        if generator is not None:
            args, kwargs = self._call_arguments(expr)
            self.generator_context(stmt, item, generator, args, kwargs, rest)
            return
        manager = self._user_manager(stmt, expr, callee)
        self.user_context(stmt, item, manager, rest)

    def _call_arguments(self, expr: Any) -> tuple[tuple, dict]:
        args: list = []
        for a in expr.args:
            if isinstance(a, gast.Starred):
                args.extend(self.iterate_static(self.eval(a.value), a))
            else:
                args.append(self.eval(a))
        kwargs: dict = {}
        for kw in expr.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        return tuple(args), kwargs

    def _user_manager(self, stmt: Any, expr: Any, callee: Any) -> Any:
        """The manager of ``with expr``, when its ``__enter__``/``__exit__``
        are the user's Python code (``contexts``); otherwise a fallback
        without evaluating ``expr`` (``open(...)`` runs in Python)."""
        def refuse() -> GraphBreak:
            return self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "`with` on a context manager whose __enter__/__exit__ must run on every call", "with",
                                    hint="keep the with-block outside the compiled function, or use a context manager that only affects tracing (jax.named_scope, ...)")

        if isinstance(expr, gast.Call):
            user_class = isinstance(callee, type) and user_manager_class(callee)
            if not user_class and not python_code(callee):
                raise refuse()
            manager = self.call(callee, *self._call_arguments(expr), expr)
        else:
            manager = self.eval(expr)
        if not user_manager_class(type(manager)):
            raise refuse()
        return manager

    def _trace_time_context(self, stmt: Any, item: Any, callee: Any, rest: Callable[[], None]) -> None:
        """A context manager that only affects tracing: entered and exited while tracing."""
        expr = item.context_expr
        args, kwargs = self._call_arguments(expr)
        if callee is warnings.catch_warnings and kwargs.get("record", args[0] if args else False) \
                and "warn" in np.geterr().values():
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "warnings.catch_warnings(record=True): "
                                   "eager's list holds NumPy's floating-point RuntimeWarnings (np.log(0), 0/0), "
                                   "which the graph's ops do not give", "with")
        manager = self.static_call(callee, args, kwargs, expr)
        if callee is warnings.catch_warnings:   # eager's enter and exit change the filters' version (calls.py)
            self.warning_filters_changed(stmt)
        value = manager.__enter__()
        if callee is np.errstate and not set(np.geterr().values()) <= {"ignore", "warn"}:
            manager.__exit__(None, None, None)   # (a graph op never raises FloatingPointError nor prints)
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "np.errstate with a mode that raises, prints "
                                   "or calls (eager's floating-point errors do that on every call)", "with")
        if item.optional_vars is not None:
            self.assign(item.optional_vars, value, item)
        if stmt.items[0] is item:
            self.decide(stmt, "with", "trace time", "context managers that only affect tracing, entered and exited while tracing")
        contexts = self.__dict__.setdefault("trace_time_contexts", [])   # (``warnings.warn`` looks: calls.py)
        contexts.append(manager)
        try:
            rest()
        finally:
            contexts.pop()
            manager.__exit__(None, None, None)
        if callee is warnings.catch_warnings:
            self.warning_filters_changed(stmt)


# what ``contextlib.suppress`` does with an exception it takes: nothing
_SUPPRESSED = gast.ExceptHandler(type=None, name=None, body=[])


class _AfterFinally:
    """A statement of the continuation of a ``finally:`` block (``_finally_then``):
    what the ``try`` does once its ``finally:`` fell through. At the ``try``'s place."""

    def __init__(self, stmt: Any, then: Callable[[], None]) -> None:
        self.then = then
        for name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            setattr(self, name, getattr(stmt, name, None))


def _reraise(exc: BaseException) -> None:
    raise exc


def _raise_nodes(body: list) -> list:
    """The ``raise`` statements of this function's own code in ``body``."""
    return [n for s in body for n in own_nodes(s) if isinstance(n, gast.Raise)]


def _raises(body: list) -> bool:
    return bool(_raise_nodes(body))


def _call_statement(stmt: Any) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)


def _final_raise(handler: Any) -> gast.Raise | None:
    """The handler's last statement, a ``raise`` that a run-time check can
    raise (``_raise_in_handler``): a bare re-raise, or ``raise E(...)``, maybe
    ``from`` the handler's exception or ``from None``; None otherwise."""
    last = handler.body[-1] if handler.body else None
    if not isinstance(last, gast.Raise):
        return None
    if last.exc is None:
        return last if last.cause is None else None
    name = handler.name.id if handler.name is not None else None
    cause = last.cause
    plain_cause = cause is None or isinstance(cause, gast.Constant) and cause.value is None \
        or isinstance(cause, gast.Name) and cause.id == name
    return last if isinstance(last.exc, gast.Call) and plain_cause else None


def _caught_key(ctx: TryCtx, node: Any, exc: Any) -> Any:
    """The flag's key of the exception ``exc`` that ``node`` raised: the
    node's own, or ``(id(node), k)`` for another exception of one statement
    (``_taken_forms``)."""
    for key, (_, caught) in ctx.caught.items():
        if caught is exc and (key == id(node) or type(key) is tuple and key[0] == id(node)):
            return key
    return id(node)


def _check_sites(body: list) -> list:
    """The statements of ``body`` itself whose run-time check a handler may
    take (``caught_check``): each gets a flag, as a ``raise`` does."""
    return [s for s in body if isinstance(s, _CHECK_STATEMENTS)]


_CHECK_STATEMENTS = (gast.Assign, gast.AugAssign, gast.Expr, gast.Assert, gast.Return)


def _in_body(stmts: list, body: list) -> bool:
    """``stmts`` is ``body`` or its tail (the rest of a ``try`` body run in
    the branch where an earlier check or raise did not fire:
    ``run_loop_continuation``)."""
    return stmts is body or 0 < len(stmts) <= len(body) and all(a is b for a, b in zip(stmts, body[len(body) - len(stmts):]))


def _bound_before_read(body: list) -> set[str]:
    """The names the first plain assignments of ``body`` bind before
    anything in ``body`` reads them (the scan stops at a compound statement)."""
    bound: set[str] = set()
    read: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, (gast.Assign, gast.Expr, gast.AugAssign)):
            break
        read |= {n.id for n in own_nodes(stmt) if isinstance(n, gast.Name)
                 and (not isinstance(n.ctx, gast.Store) or isinstance(stmt, gast.AugAssign))}
        if isinstance(stmt, gast.Assign):
            bound |= {t.id for t in stmt.targets if isinstance(t, gast.Name) and t.id not in read}
    return bound


def _target_names(stmt: Any) -> list[str]:
    targets = getattr(stmt, "targets", None) or ([stmt.target] if isinstance(stmt, gast.AugAssign) else [])
    return [t.id for t in targets]


_IMPURE = (gast.NamedExpr, gast.Lambda, gast.Yield, gast.YieldFrom, gast.Await, gast.ListComp, gast.SetComp,
           gast.DictComp, gast.GeneratorExp)
# methods that change their object (a list's, a dict's, a set's, an ndarray's own)
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                       "setdefault", "popitem", "add", "discard", "fill", "put", "resize", "itemset", "setfield",
                       "partition", "byteswap", "setflags", "send", "throw", "close"})
_PURE_BUILTINS = (float, int, abs, round, divmod, pow, bool, complex)
# NumPy functions that call a function of the caller's
_CALLBACK_FUNCTIONS = (np.apply_along_axis, np.apply_over_axes, np.vectorize, np.frompyfunc, np.piecewise)


# what a handler taking a raise under a traced condition may not hold: an exception of its own,
# a generator's exit, a try/with of its own (a return/break/continue is a flag of the try: _handler_in_flags)
_EXITS = (gast.Raise, gast.Yield, gast.YieldFrom, gast.Try, gast.With)
_FLAG_EXITS = (gast.Return, gast.Break, gast.Continue)


def _handler_exits(handler: Any) -> bool:
    return any(isinstance(n, _FLAG_EXITS) for s in handler.body for n in own_nodes(s))


def _plain_handler(handler: Any) -> bool:
    """A handler with no exception, ``try`` or ``with`` of its own (a
    ``return``, ``break`` or ``continue`` is an exit of the ``try``:
    ``_handler_in_flags``; a final ``raise``, maybe ``from`` its exception, a
    run-time check: ``_raise_in_handler``) that uses its exception object only for its text
    (``str(e)``, ``repr(e)``, an f-string, ``print(e)``), ``e.args`` or its
    class (``isinstance(e, C)``, ``type(e)``): the
    one object made at trace time then stands for eager's new one of every
    call."""
    nodes = [n for s in handler.body for n in own_nodes(s)]
    last = _final_raise(handler)
    if any(isinstance(n, _EXITS) and n is not last for n in nodes):
        return False
    if handler.name is None:
        return True
    name = handler.name.id
    fine: set[int] = set()
    if last is not None and isinstance(last.cause, gast.Name):   # ``raise E(..) from e``: chained as eager's
        fine.add(id(last.cause))
    for n in nodes:
        if isinstance(n, gast.FormattedValue):
            fine.add(id(n.value))
        elif isinstance(n, gast.Attribute) and n.attr == "args":
            fine.add(id(n.value))
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in ("str", "repr", "print"):
            fine.update(id(a) for a in n.args)
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in ("isinstance", "type") \
                and n.args:   # its class: the same object's on every call
            fine.add(id(n.args[0]))
    return all(id(n) in fine for n in nodes if isinstance(n, gast.Name) and n.id == name)
