"""Run-time checks inside ``try`` and ``with``: when they are exact.

A run-time check (``arrays.raise_when``: ``if traced: raise E(msg)``, an
unbound read, a zero division) does not stop the graph: the graph runs to its
end, then the call raises the check's exception, and *none* of the state the
segment writes back after the call (``attr_writes``: attributes, globals,
cells, effects on outside containers; argument arrays; the caller's lists) is
applied. So when it fires, the state after the call is the state before the
segment, ``S0``. Eager raises at the check ``C`` with the state ``S_C`` (the
writes before ``C``), then unwinds: each enclosing ``finally:`` and context
manager exit runs (``U``), each handler that matches takes the exception.
The check is exact when eager's exception leaves the segment with
``U(S_C) == S0``. This module proves that, or makes the segment fall back.

Requires: the ``Specializer`` state (mixed in): ``attr_writes``,
``input_writes``, ``view_writes``, ``first_writes``, ``mutations``,
``guard_keys``, ``fresh``, ``mutated``, ``late_checks``; ``blocks``/``contexts`` call the hooks.
Produces: a stack of ``Protector`` (one per enclosing ``try``, ``with`` and
``contextlib.suppress`` of the segment) and the rule:

1. *Handlers.* A check raising class ``E`` may stand inside a ``try`` whose
   handlers provably cannot catch ``E``: each handler's type is a class (or a
   tuple of classes) read by name, and ``E`` is a subclass of none of them
   (``except InvalidParameterError`` lets a ``ValueError`` through; bare
   ``except``, ``except Exception``, ``except ValueError`` catch it). The same
   for ``contextlib.suppress(...)``. A ``finally:`` holding a ``return``,
   ``break`` or ``continue`` drops any exception: it catches them all. The
   other checks name what they may raise (``_a2g_raises``: an index check
   ``IndexError``, ...); one that names nothing stays refused inside any
   handler.
2. *Exits that run the same on both paths.* The unwinding code must be code
   the graph's normal path runs too, reading the same things: a ``finally:``
   that reads no name the ``try`` body binds; a class's ``__exit__`` that
   reads none of its exception arguments and returns a static false value
   (it cannot suppress); a ``@contextmanager`` generator whose ``yield`` is its
   last statement, or the last statement of a final ``try:`` with no handlers
   and no ``else:`` (``config_context``: ``try: yield finally:
   set_config(**old)``), which ``gen.throw`` unwinds exactly as ``next``
   resumes it. Any other manager is opaque: checks are refused inside it.
   An ``__exit__`` found to return a true value after a check was emitted
   inside makes the ``with`` fall back (``unwinding_failed``).
3. *Nothing in between.* From ``C`` to each unwinding code of the
   protectors around ``C``, and after the last of them to the end of the
   outermost one, the graph's normal path writes no state and mutates no
   container (``_Mark``): eager never runs that code when ``C`` fires, and the
   unwinding code then sees ``S_C`` (and the same objects) in both runs, so
   the graph's state at the end of the outermost protector is ``U(S_C)``.
4. *Neutral.* At the end of the outermost protector, every location the
   segment wrote holds again, by identity, the value it held before the
   segment (read and guarded by the trace, so a later call with another
   value re-specialises), and no argument array, view or caller's container
   was written: then ``U(S_C) == S0``.

Where 2-4 fail, the segment is specialised again with its checks kept in
Python (``late_checks``, ``specialize.specialize``), as before this module.
Invariants: a check refused by rule 1 is a ``GraphBreak`` at its site (the
statement falls back); with no protector around it nothing changes.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass, field
from typing import Any, Iterator
import contextlib

import gast

from ..diagnostics import IntRangeError
from ..fallback.sites import FallbackCode, GraphBreak
from .exits import BodyEnd
from .state import ControlSignal
from .writeback import Effect, GlobalsTarget

_MISSING = object()


@dataclass
class _Mark:
    """The state the segment has written so far, to tell whether anything was
    written since, or an object that existed here mutated (objects made later
    cannot be reached by unwinding code but through state or older objects)."""

    writes: tuple
    counts: tuple
    existing: frozenset   # ids of this trace's objects (``Specializer.fresh``)
    mutated: int   # how many mutations so far (``Specializer.mutated``)

    def same(self, other: "_Mark", mutated: list) -> bool:
        return self.counts == other.counts and len(self.writes) == len(other.writes) and \
            all(a[0] == b[0] and a[1] is b[1] for a, b in zip(self.writes, other.writes)) and \
            not any(i in self.existing for i in mutated[self.mutated:])


@dataclass
class Protector:
    """One ``try``/``with``/``suppress`` around the statements being traced.
    ``catches``: the exception classes its handlers take (None: unknown, so
    no check passes it); ``exact_exit``: its unwinding code runs as on the
    normal path (rule 2); ``pending``: the marks of the checks inside it not
    yet proven (one per check: the state after the last code eager also runs)."""

    catches: tuple | None
    exact_exit: bool = True
    pending: list = field(default_factory=list)
    suspended: bool = False   # its unwinding code runs (``begin_unwinding``)
    checked: bool = False   # a check was emitted inside it (``mark_checked``), proven or not

    def passes(self, exc_class: type | None) -> bool:
        if self.catches is None or exc_class is None:
            return False
        if issubclass(exc_class, IntRangeError):   # no exception of eager's: the segment then runs in Python
            return True   # on that call (``runtime.block``), its handlers too, whatever they catch
        try:
            return not any(issubclass(exc_class, c) for c in self.catches)
        except TypeError:
            return False


def _handler_classes(value: Any) -> tuple | None:
    """What ``except value`` catches, when it is a class or a tuple of classes."""
    items = value if type(value) is tuple else (value,)
    if all(isinstance(c, type) and issubclass(c, BaseException) for c in items):
        return items
    return None


def _plain_type_expr(node: Any) -> bool:
    """A handler's type expression that evaluates without effects: names,
    attributes of names, tuples of them."""
    if isinstance(node, gast.Tuple):
        return all(_plain_type_expr(e) for e in node.elts)
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)


def _loads(stmts: list) -> set:
    return {n.id for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _binds(stmts: list) -> set:
    return {n.id for s in stmts for n in gast.walk(s) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}


def _exits(stmts: list) -> bool:
    """A ``return``/``break``/``continue`` in ``stmts`` (anywhere: also one of
    a nested loop, which only makes the caller more careful). In a
    ``finally:`` it ends the unwinding and drops the exception being raised."""
    return any(isinstance(n, (gast.Return, gast.Break, gast.Continue)) for s in stmts for n in gast.walk(s))


def _is_bare_yield(stmt: Any) -> bool:
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Yield)


def generator_exits_exactly(tree: Any) -> bool:
    """Rule 2 for a ``@contextmanager`` generator function's tree: its
    ``yield`` is its last statement, or the last statement of a final
    ``try:`` without handlers or ``else:``."""
    body = getattr(tree, "body", [])
    if not body:
        return False
    last = body[-1]
    if _is_bare_yield(last):
        return True
    return isinstance(last, gast.Try) and not last.handlers and not last.orelse and bool(last.body) \
        and _is_bare_yield(last.body[-1])


def exit_reads_exception(fn: Any, tree: Any) -> bool:
    """``__exit__(self, type, value, tb)`` reads one of its exception
    arguments (or its ``*args``): it may act differently on the raising path."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return True
    names = [p.name for p in params if p.kind is p.VAR_POSITIONAL]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names += [p.name for p in positional[1:4]]
    return bool(_loads([tree]) & set(names)) or \
        any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id in ("locals", "vars")
            for n in gast.walk(tree))


class CheckScopeMixin:
    """The protectors around the statement being traced (rules 1-4 above)."""

    @property
    def protectors(self) -> list:
        stack = self.__dict__.get("_protectors")
        if stack is None:
            stack = self.__dict__["_protectors"] = []
        return stack

    def checks_may_pass(self) -> bool:
        """Whether a check of some class could pass every protector (the
        class itself is tested where the check is emitted)."""
        return all(p.catches is not None and p.exact_exit for p in self.protectors)

    def check_passes(self, exc_class: type | None) -> bool:
        """Rule 1 (and rule 2's opaque managers) for a check raising ``exc_class``."""
        return all(p.passes(exc_class) and p.exact_exit for p in self.protectors)

    def handler_protector(self, stmt: Any) -> Protector:
        """The protector of ``try`` ``stmt``: its handlers' classes (read at
        trace time when they are plain names), and whether its ``finally:``
        reads a name the body binds (rule 2)."""
        catches: tuple | None = ()
        bound = _binds(stmt.body)
        for handler in stmt.handlers:
            # (a name the body binds is evaluated by eager after it: unknown now)
            if handler.type is None or not _plain_type_expr(handler.type) or _loads([handler.type]) & bound:
                catches = None
                break
            try:
                classes = _handler_classes(self.eval(handler.type))
            except GraphBreak:
                classes = None
            if classes is None:
                catches = None
                break
            catches += classes
        if _exits(stmt.finalbody):   # `finally: return ...` swallows every exception: it catches them all
            catches = None
        exact = not (_loads(stmt.finalbody) & _binds(stmt.body + stmt.orelse + [h for h in stmt.handlers]))
        return Protector(catches, exact)

    @contextlib.contextmanager
    def protected(self, protector: Protector) -> Iterator[Protector]:
        """``protector`` around the block run inside (``open_protector``,
        ``close_protector``)."""
        self.open_protector(protector)
        ok = False
        try:
            yield protector
            ok = True
        except (ControlSignal, BodyEnd):   # a return/break/continue (or one under a traced condition): a graph path
            ok = True
            raise
        finally:
            self.close_protector(protector, ok)

    def open_protector(self, protector: Protector) -> None:
        self.protectors.append(protector)

    def close_protector(self, protector: Protector, ok: bool) -> None:
        """``protector`` ends (``ok``: on a path of the graph, not by a
        fallback): its pending checks move to the protector around it, or
        (outermost) are proven by rules 3-4."""
        if protector in self.protectors:
            del self.protectors[len(self.protectors) - 1 - self.protectors[::-1].index(protector)]
        self._close(protector, ok)

    def _close(self, protector: Protector, ok: bool) -> None:
        if not protector.pending:
            return
        if not ok:   # ended by a fallback or an exception eager raised while tracing: no proof
            self.late_checks = True
        elif self.protectors:
            self.protectors[-1].pending.extend(protector.pending)
        elif not all(mark.same(self._mark(), self.mutated) for mark in protector.pending) or not self._neutral():
            self.late_checks = True

    def mark_checked(self) -> None:
        """A check emitted inside the protectors on the stack (rolled or not)."""
        for protector in self.protectors:
            protector.checked = True

    def note_protected_check(self) -> None:
        """A check emitted inside protectors: proven when they end (or not)."""
        if self.protectors:
            self.protectors[-1].pending.append(self._mark())

    @contextlib.contextmanager
    def unwinding(self, protector: Protector) -> Iterator[None]:
        """The unwinding code of ``protector`` runs inside (``begin_unwinding``, ``end_unwinding``)."""
        self.begin_unwinding(protector)
        yield
        self.end_unwinding(protector)

    def begin_unwinding(self, protector: Protector) -> None:
        """Rule 3: nothing written since each pending check, and rule 2.
        The unwinding code is outside ``protector`` (an exception raised there
        passes its handlers and its own exit): it leaves the stack until
        ``end_unwinding``, so a check in it belongs to the protectors around."""
        now = self._mark()
        if protector.pending and (not protector.exact_exit or not all(m.same(now, self.mutated) for m in protector.pending)):
            self.late_checks = True
            protector.pending.clear()
        if self.protectors and self.protectors[-1] is protector:
            self.protectors.pop()
            protector.suspended = True
        else:   # (not innermost: no proof for the checks around it)
            self.late_checks = True

    def end_unwinding(self, protector: Protector) -> None:
        """After the unwinding code: back on the stack; the checks' marks move past it."""
        if protector.suspended:
            protector.suspended = False
            self.protectors.append(protector)
        if protector.pending:
            protector.pending[:] = [self._mark()]

    def unwinding_failed(self, protector: Protector, node: Any) -> None:
        """Rule 2 found false after the unwinding code ran: ``__exit__``
        returned a true value, so it would suppress the exception of a check
        inside, which the graph raises anyway after the call (no proof of
        state helps that): the ``with`` at ``node`` falls back."""
        if protector.checked:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "`__exit__` returned a true value: it suppresses "
                                   "the exception a run-time check inside the `with` may raise (eager goes on)", "with")
        if protector.pending:
            self.late_checks = True
            protector.pending.clear()

    def _mark(self) -> _Mark:
        return _Mark(tuple(self.attr_writes.items()),
                     (len(self.input_writes), len(self.view_writes), len(self.first_writes),
                      len(self.__dict__.get("_pending_shadows") or ())), frozenset(self.fresh), len(self.mutated))

    def _neutral(self) -> bool:
        """Rule 4: the segment's writes so far leave every location as it was
        before the segment (identity), each such value read and guarded."""
        if self.input_writes or self.view_writes or self.first_writes or self.__dict__.get("_pending_shadows"):
            return False
        last: dict = {}
        for obj, attr, value in self.attr_writes.values():
            if isinstance(obj, Effect):
                if obj.method != "__setitem__" or type(obj.container) is not dict:
                    return False
                last[("item", id(obj.container), obj.key)] = (obj.container, obj.key, value)
            else:
                last[("attr", id(obj), attr)] = (obj, attr, value)
        return all(self._unchanged(kind, target, name, value) for (kind, _, _), (target, name, value) in last.items())

    def _unchanged(self, kind: str, target: Any, name: Any, value: Any) -> bool:
        if kind == "item":
            before = target.get(name, _MISSING)
            key: Any = ("contents", id(target))
        elif isinstance(target, GlobalsTarget):
            before, key = target.namespace.get(name, _MISSING), ("global", id(target.namespace), name)
        elif isinstance(target, types.CellType):
            try:
                before = target.cell_contents
            except ValueError:
                return False
            key = ("cell", id(target))
        else:
            before, key = getattr(target, "__dict__", {}).get(name, _MISSING), ("attr", id(target), name)
        # read and guarded by value (one read as a traced number has no guard: a later call may hold another)
        return before is not _MISSING and before is value and key in self.guard_keys \
            and key not in self.traced_statics and key not in self.traced_static_values
