"""``with`` on the user's context managers, converted like calls.

Requires: the ``Specializer`` state (mixed into ``BlocksMixin``), its call
machinery (``call``, ``inline_user``: attribute writes lifted and written
back after every call), ``BlocksMixin.guarded_body`` (exits through a
``finally:``) and ``generators.GeneratorMixin`` (the yield hook).
Produces: ``ContextsMixin.user_context`` and ``generator_context``:

* a class with Python ``__enter__``/``__exit__`` (the user's, or a library's
  other than JAX's and NumPy's): eager's
  ``with`` is, per PEP 343::

      mgr = EXPR; value = type(mgr).__enter__(mgr)
      try:            VAR = value; BODY
      except:         if not type(mgr).__exit__(mgr, *sys.exc_info()): raise
      else/finally:   type(mgr).__exit__(mgr, None, None, None)   (once)

  ``__enter__`` and ``__exit__`` are inlined as calls (their Python state
  effects, ``self.n += 1``, are the graph's, replayed every call). An
  exception eager raises in the body on a static path reaches ``__exit__``
  as ``(type, value, None)`` at trace time; a true (static) result
  suppresses it. An ``__exit__`` that reads the traceback argument (eager
  passes one ast2graph cannot build), or whose result is traced, falls back;
* a ``@contextlib.contextmanager`` generator function (the user's or a
  library's: scikit-learn's ``config_context``): its body is inlined;
  the code before its ``yield`` is the enter, the yielded value is bound by
  ``as``, the ``with`` body runs at the ``yield`` (in the caller's frame),
  the code after it is the exit. An exception in the body is raised at the
  ``yield`` (its ``try``/``except``/``finally`` there apply, as
  ``gen.throw``); the generator ending after it suppresses it, as eager's
  ``_GeneratorContextManager.__exit__`` does. A second ``yield``, none, a
  ``yield`` under a traced condition fall back;
* a ``break``/``continue``/``return`` under a traced condition in the body
  sets a flag; the exit runs once after the body, then the exit is taken.

Anything else (a manager of C code, of JAX or NumPy, other than the
trace-time ones of ``blocks``; ``open()``) falls back as before (A2G001). I/O in an enter or
exit falls back where it stands (its own site); ``print`` is a host callback.
Invariants: ``__exit__`` (the code after the ``yield``) runs exactly once on
every path, after the body, as eager's.
"""

from __future__ import annotations

import contextlib
import inspect
import types
from dataclasses import dataclass
from typing import Any, Callable

import gast

from ..diagnostics import NoSourceError
from ..fallback.sites import FallbackCode, GraphBreak
from ..parser import StaleSourceError, unwrap_callable
from ..resolver import CallKind, classify_callee
from .checkscope import CheckScopeMixin, Protector, exit_reads_exception, generator_exits_exactly
from .exits import BodyEnd
from .state import ControlSignal, Frame, unit_of_function

_HELPER_CODE = contextlib.contextmanager(lambda: (yield)).__code__


def python_code(fn: Any) -> bool:
    """A Python function with source to convert: the user's, or a library's
    other than JAX's and NumPy's (scikit-learn's ``config_context``); its
    effects are then judged statement by statement, as a call's are."""
    if not isinstance(fn, types.FunctionType):
        return False
    kind = classify_callee(fn)
    return kind is CallKind.USER_FUNCTION or kind is CallKind.OPAQUE and fn.__code__.co_filename[:1] != "<"


def contextmanager_function(callee: Any) -> Any:
    """The generator function behind a ``@contextlib.contextmanager``
    function with Python source (``python_code``), or None."""
    if getattr(callee, "__code__", None) is not _HELPER_CODE:
        return None
    fn = getattr(callee, "__wrapped__", None)
    if not isinstance(fn, types.FunctionType) or not inspect.isgeneratorfunction(fn):
        return None
    return fn if python_code(fn) else None


def user_manager_class(cls: Any) -> bool:
    """A class whose ``__enter__`` and ``__exit__`` are Python code with
    source (``python_code``)."""
    for name in ("__enter__", "__exit__"):
        method = inspect.getattr_static(cls, name, None)
        if not python_code(method):
            return False
    return True


def _reads_traceback(fn: Any) -> bool:
    """``__exit__(self, type, value, tb)`` reads ``tb`` (or its ``*args``, or
    an exception's ``__traceback__``): eager's traceback is not the trace's."""
    try:
        params = list(inspect.signature(fn).parameters.values())
        tree = unit_of_function(fn).tree
    except Exception:  # noqa: BLE001 - unknown: assume it does
        return True
    names = [p.name for p in params if p.kind is p.VAR_POSITIONAL]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 4:
        names.append(positional[3].name)
    return any(isinstance(n, gast.Name) and n.id in names and isinstance(n.ctx, gast.Load) or
               isinstance(n, gast.Attribute) and n.attr == "__traceback__" for n in gast.walk(tree))


@dataclass
class ContextYield:
    """The state of a ``@contextmanager`` generator being inlined: where the
    ``with`` is, what its body is, and what happened at the ``yield``."""

    stmt: Any
    item: Any
    body: Callable[[], None]
    depth: int
    caller: tuple
    yielded: bool = False
    pending: ControlSignal | None = None
    flags: tuple | None = None
    protector: Any = None   # around the body and the code after the yield (checkscope)


class ContextsMixin(CheckScopeMixin):
    # ------------------------------------------------------------ classes
    def user_context(self, stmt: Any, item: Any, manager: Any, rest: Callable[[], None]) -> None:
        cls = type(manager)
        enter, exit_ = self._special_method(manager, "__enter__"), self._special_method(manager, "__exit__")
        self.decide(stmt, "with", "converted", f"{cls.__qualname__}.__enter__/__exit__ converted like calls: "
                    "their effects run on every call")
        value = self.call(enter, (manager,), {}, item.context_expr)
        if item.optional_vars is not None:
            self.assign(item.optional_vars, value, item)
        depth = self.traced_depth
        exited = [False]

        def body() -> None:
            try:
                rest()
            except GraphBreak as e:
                exc = getattr(e, "exc", None)
                if exc is None or getattr(e, "traced_depth", -1) != depth:
                    raise
                exited[0] = True
                if self._exit_suppresses(stmt, exit_, manager, exc, e):
                    self.decide(stmt, "with", "trace time", f"{type(exc).__name__} raised on a static path, "
                                "suppressed by __exit__ as eager's")
                    return
                raise

        def final() -> None:
            if not exited[0]:
                exited[0] = True
                with self.unwinding(protector):
                    result = self.call(exit_, (manager, None, None, None), {}, stmt)
                if not (result is None or result is False):   # it might suppress a check's exception (checkscope)
                    self.unwinding_failed(protector, stmt)

        protector = Protector((), not self._exit_reads_exception(exit_))
        with self.protected(protector):
            self.guarded_body(stmt, body, final, [])

    def _exit_reads_exception(self, exit_: Any) -> bool:
        try:
            tree = unit_of_function(exit_).tree
        except Exception:  # noqa: BLE001 - unknown: assume it does
            return True
        return exit_reads_exception(exit_, tree)

    def _special_method(self, manager: Any, name: str) -> Any:
        """``type(manager).<name>`` as eager's ``with`` looks it up, guarded: a
        method replaced on the class (or the object's class changed) between
        calls re-specialises. A manager made in this call has the class its
        (guarded) constructor gave it."""
        cls = type(manager)
        method = getattr(cls, name)
        if self._is_fresh(manager):
            return self.external(method, lambda: getattr(cls, name), f"{cls.__qualname__}.{name}",
                                 ("attr", id(cls), name), ("attr", cls, name))
        return self.external(method, lambda: getattr(type(manager), name), f"type({self.named(manager)}).{name}",
                             ("with", id(manager), name))

    def _exit_suppresses(self, stmt: Any, exit_: Any, manager: Any, exc: BaseException, error: GraphBreak) -> bool:
        if _reads_traceback(exit_):
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"{type(manager).__qualname__}.__exit__ reads "
                                   "the traceback of the exception raised in the `with` body", "with") from None
        result = self.call(exit_, (manager, type(exc), exc, None), {}, stmt)
        if result is None or isinstance(result, (bool, int)):
            return bool(result)
        raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"{type(manager).__qualname__}.__exit__ decides "
                               "from traced values whether to suppress the exception", "with") from None

    # ------------------------------------------------------ @contextmanager
    def generator_context(self, stmt: Any, item: Any, fn: Any, args: tuple, kwargs: dict,
                          rest: Callable[[], None]) -> None:
        name = fn.__qualname__

        def refuse(cause: str) -> GraphBreak:
            return self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"`with {name}(...)`: {cause}", "with",
                                    hint="keep the with-block outside the compiled function")

        try:
            target, bound_args, bound_kwargs = unwrap_callable(fn)
            unit = unit_of_function(target)
            bound = inspect.signature(target, follow_wrapped=False).bind(*bound_args, *args, **{**bound_kwargs, **kwargs})
        except (StaleSourceError, NoSourceError) as e:
            raise refuse(str(e)) from None
        except TypeError as e:
            raise self.graph_break(FallbackCode.TRACE_ERROR, stmt, f"calling {name}: {e} (eager raises TypeError)") from None
        if any(isinstance(n, gast.YieldFrom) for n in gast.walk(unit.tree)):
            raise refuse("`yield from` needs a real generator")
        bound.apply_defaults()
        self._fresh_varargs(bound)
        self.decide(stmt, "with", "converted", f"@contextmanager {name} inlined: before its yield the enter, after it the exit")
        state = ContextYield(stmt, item, rest, self.traced_depth, self._call_state(),
                             protector=Protector((), generator_exits_exactly(unit.tree)))
        stack = self.__dict__.setdefault("_generators", [])
        stack.append(state)
        ok = False
        try:
            self._run_frame(Frame(unit, dict(bound.arguments)), stmt)
            ok = True
        finally:
            stack.remove(state)
            if state.yielded:   # the body and the code after the yield ran inside it (checkscope)
                if ok:
                    self.end_unwinding(state.protector)
                self.close_protector(state.protector, ok)
        if not state.yielded:
            raise refuse("the generator did not yield (eager raises RuntimeError)")
        if state.pending is not None:
            raise state.pending
        if state.flags is not None:
            self._reraise_exits(stmt, *state.flags)

    def _call_state(self) -> tuple:
        return (self.frame, self.cont, len(self.callers), len(self.call_nodes), self.inline_depth, self.loop_depth)

    def context_yield(self, state: ContextYield, node: Any) -> None:
        """The ``yield`` of a ``@contextmanager`` generator: the ``with`` body
        runs here, in the caller's frame; an exception from it is raised here."""
        if state.yielded:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, node, "a @contextmanager generator that yields "
                                   "more than once (eager raises RuntimeError)", "with")
        if self.traced_depth != state.depth:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, node, "a @contextmanager yield under a traced "
                                   "condition or in a rolled loop", "with")
        value = None if node.value is None else self.eval(node.value)
        state.yielded = True
        inner = self._call_state()
        callers, call_nodes = self.callers[state.caller[2]:], self.call_nodes[state.caller[3]:]
        stack = self._generators
        self.frame, self.cont, _, _, self.inline_depth, self.loop_depth = state.caller
        del self.callers[state.caller[2]:], self.call_nodes[state.caller[3]:]
        stack.remove(state)
        try:
            self._context_body(state, value)
        finally:
            stack.append(state)
            self.callers.extend(callers)
            self.call_nodes.extend(call_nodes)
            self.frame, self.cont, _, _, self.inline_depth, self.loop_depth = inner

    def _context_body(self, state: ContextYield, value: Any) -> None:
        stmt, item = state.stmt, state.item
        if item.optional_vars is not None:
            self.assign(item.optional_vars, value, item)
        ctx = self._new_try(stmt, [])
        self.cont.append(ctx)
        self.open_protector(state.protector)
        try:
            state.body()
        except BodyEnd:
            pass
        except ControlSignal as signal:   # eager: __exit__(None, None, None) runs the rest of the generator
            state.pending = signal
        finally:
            self.cont.pop()
            flags = self._drop_flags(ctx)
        self.begin_unwinding(state.protector)   # the rest of the generator is its exit
        if any(f is not False for f in (flags[0], flags[2], flags[3])):
            state.flags = flags
