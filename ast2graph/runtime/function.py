"""The converted function object: ``StaticFunction``.

Requires: every stage (through ``block.Block``); ``state.FunctionState``.
Produces: ``StaticFunction(fn, options, jit_options)``: calls run the
function body's ``Block`` (or the fast call of a one-graph function, or the
function itself where it runs eagerly); attributes of a converted callable
object read and write through to the object; ``explain``/``export`` record one
call (``explanation.Explanation``, ``export.export_static``).
Invariants: ``StaticFunction(f)(*a)`` equals ``f(*a)``; the function is
converted again when its ``__code__`` or the function behind a callable
object or partial changed since (``_rebound``); a function that cannot be
converted runs eagerly with a warning unless ``full_graph=True``; the call
machinery's state is the ``FunctionState`` (``_state``), never read through
this object's attributes by the other modules.
"""

from __future__ import annotations

import functools
import time
import types
import warnings
from typing import Any, Callable

import numpy as np

from ..diagnostics import ConversionError, FullGraphError, NoSourceError, UnsupportedSyntaxError
from ..fallback.control import RETURN
from ..fallback.interpreted import CELLS, call_cells
from ..fallback.sites import FallbackCode, FallbackSite
from ..parser import unwrap_callable
from ..pipeline import Stages
from ..parser.unwrap import array_function_implementation, overrides_array_function
from ..tracebacks import hide_frames
from ..typeinfer import Options, numpy_api, scipy_api, unit_of_function
from ..typeinfer.jaxcallbacks import called_whole
from .block import Block, EagerCall, RunEagerly, checks_enabled, gc_paused
from .fastpath import MISS, make_fast_call
from .jit_options import JitOptions
from .explanation import Explanation
from .plans import CallRecord
from .state import Binding, FunctionState


def _frame_introspection_call(unit: Any) -> str | None:
    """The name of a builtin the function's own body calls that looks at the
    calling frame (``locals()``, ``vars()``/``dir()`` without an object,
    ``eval``/``exec`` without namespaces), or None. Nested functions and
    lambdas have frames of their own and are not looked into."""
    import builtins

    import gast

    from ..typeinfer.calls import frame_introspection

    stack = list(unit.tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id not in unit.globals:
            fn = getattr(builtins, node.func.id, None)
            if fn is not None and frame_introspection(fn, tuple(node.args), {k.arg: k.value for k in node.keywords if k.arg}):
                return node.func.id
        stack.extend(gast.iter_child_nodes(node))
    return None


_UNWRAP = object()


def _rebinding(fn: Any, replaced: bool) -> Any:
    """What ``StaticFunction._rebound`` re-checks per call: None for a
    function or a method of one (their ``__code__`` is checked), the class's
    ``__call__`` function for a model, ``_UNWRAP`` (unwrap again) otherwise."""
    if replaced or type(fn) is types.FunctionType or \
            type(fn) is types.MethodType and type(fn.__func__) is types.FunctionType:
        return None
    call = getattr(type(fn), "__call__", None)
    return call if type(call) is types.FunctionType else _UNWRAP


def _qualname(fn: Any) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)


def _forwards_attributes(fn: Any) -> bool:
    """``fn`` is an object called through its class's ``__call__`` (a model
    instance), not a function: its attributes are the state its calls read."""
    return not isinstance(fn, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial,
                               type, np.ufunc)) and hasattr(fn, "__dict__")


class StaticFunction:
    """A function converted by ``to_static``.

    Of a callable object (``to_static(model)``), any attribute that is not the
    converted function's own is the object's, read and written through:
    ``f.training = False`` sets the model's, as on the model itself (a copy of
    its ``__dict__`` taken at conversion, as ``functools.wraps`` makes, would
    go stale: a write into it never reached the calls)."""

    # the converted function's own attributes (any other is the wrapped object's, when it forwards)
    _OWN = frozenset({"_fn", "_forwards", "_state", "eager_reason", "_dispatcher", "_code", "_rebinds"})

    @property
    def _a2g_inline(self) -> Callable:
        """What a converted caller converts in this object's place: the user's
        function itself (``typeinfer.calls`` reads it from the class, so it
        never imports this module)."""
        return self._fn

    def __init__(self, fn: Callable, options: Options, jit_options: JitOptions | None = None):
        object.__setattr__(self, "_forwards", _forwards_attributes(fn))
        object.__setattr__(self, "_fn", fn)
        functools.update_wrapper(self, fn, updated=() if self._forwards else functools.WRAPPER_UPDATES)
        self._state = state = FunctionState(_qualname(fn), options, jit_options)
        self.eager_reason: FallbackSite | None = None
        self._code = None
        self._rebinds: Any = None
        # np.polyval & co. convert their Python implementation; a call with an argument
        # overriding __array_function__ goes through NumPy's dispatcher, as eager's does
        self._dispatcher = array_function_implementation(fn) is not None
        try:
            # one with a JAX equivalent (np.polyval, a ufunc such as np.exp; scipy.linalg.solve or
            # scipy.special.expit where validated for the call) is converted as a user's call of it
            replaced = (self._dispatcher or numpy_api.is_numpy(fn)) and numpy_api.has_graph_equivalent(fn) \
                or scipy_api.replaceable(fn) or called_whole(fn)
            target, bound_args, bound_kwargs = unwrap_callable(numpy_api.calling(fn) if replaced else fn)
            self._code = getattr(target, "__code__", None)
            self._rebinds = _rebinding(fn, replaced)
            state.binding = Binding(target, bound_args, bound_kwargs)
            conversion = Stages(state.name)   # parse, resolve, ssa: timed once per function
            state.stages = conversion.seconds
            with gc_paused():
                unit = state.unit = unit_of_function(target, conversion)
        except NoSourceError as e:
            self._eager(FallbackCode.NO_SOURCE, e, fn)
            return
        except UnsupportedSyntaxError:
            raise
        except Exception as e:  # noqa: BLE001 - an analysis bug must not break the user's program
            if checks_enabled():
                raise
            self._eager(FallbackCode.INTERNAL_ERROR, e, fn)
            return
        state.name = unit.qualname
        rebound = unit.scope.declared_nonlocal or set(unit.tree_facts.nonlocals)
        # An interpreted statement cannot rebind the enclosing function's
        # cell, nor can a nested function run by Python rebind a variable
        # the compiled segments keep: such a function runs as one graph (its
        # nested functions inlined) or, call by call, eagerly (Block._check_whole).
        if rebound:
            state.whole_only = FallbackSite(
                FallbackCode.MUTATION, unit.loc(unit.tree), "function",
                f"{unit.qualname} (or a function nested in it) assigns nonlocal variables {sorted(rebound)}",
                "the whole call runs eagerly", "api")
        # what in_shardings/donate_argnums index
        state.caller_params = state.binding.params[len(state.binding.args):]
        state.top = Block(state, unit.tree.body, nested=False)
        if unit.generator:
            self._eager(FallbackCode.GENERATOR, ConversionError(f"{unit.qualname} is a generator function",
                                                                unit.loc(unit.tree)), fn)
            return
        frame_call = _frame_introspection_call(unit)
        if frame_call is not None:   # only the function's own frame answers locals(), eval("y + 1")
            self._eager(FallbackCode.OPAQUE_CALL, ConversionError(f"{unit.qualname} calls {frame_call}(), which "
                                                                  "looks at its own frame", unit.loc(unit.tree)), fn)

    @property
    def recompiles(self) -> int:
        """How many times a statement was compiled again for new inputs."""
        return self._state.recompiles

    @property
    def recompile_reasons(self) -> list[str]:
        """Why, in words, each recompilation happened (the latest last)."""
        return self._state.recompile_reasons

    def _rebound(self) -> bool:
        """Whether the function behind a callable object or partial is
        another now: its class's ``__call__`` reassigned, its ``__class__``
        changed, a partial's keywords changed in place (eager looks them up
        on every call; identity only, no user ``__eq__``)."""
        if self._rebinds is not _UNWRAP:   # the common case, a model: one class attribute read
            return type(self._fn).__call__ is not self._rebinds
        try:
            target, args, kwargs = unwrap_callable(self._fn)
        except Exception:  # noqa: BLE001 - no longer convertible: the general path decides
            return True
        binding = self._state.binding
        old_args, old_kwargs = binding.args, binding.kwargs
        return target is not binding.target or len(args) != len(old_args) \
            or any(a is not b for a, b in zip(args, old_args)) or list(kwargs) != list(old_kwargs) \
            or any(v is not old_kwargs[k] for k, v in kwargs.items())

    def _reconvert(self) -> None:
        """The function's ``__code__`` was replaced since it was converted
        (IPython's autoreload does so when its file is edited; the function
        object stays), or the function behind a callable object is another
        (``_rebound``): convert it again, as eager now runs the new code."""
        old = self._state
        StaticFunction.__init__(self, self._fn, old.options, old.jit)
        self._state.recompiles, self._state.recompile_reasons = old.recompiles, old.recompile_reasons
        self._state.note_recompile(f"the code of {self.name} was replaced")

    def _eager(self, code: FallbackCode, error: Exception, fn: Callable) -> None:
        from ..diagnostics import UNKNOWN_LOC

        loc = getattr(error, "loc", None) or UNKNOWN_LOC
        self.eager_reason = FallbackSite(code, loc, "function", str(error).splitlines()[0], "the whole function runs eagerly", "parser")
        self._state.unit, self._state.name = None, _qualname(fn)
        if self._state.options.full_graph:
            raise FullGraphError(f"full_graph=True but {getattr(fn, '__qualname__', fn)!r} cannot be converted: {error}", getattr(error, "loc", None))
        warnings.warn(f"ast2graph: {getattr(fn, '__qualname__', fn)!r} runs eagerly: {error}", stacklevel=3)

    def __getattr__(self, name: str) -> Any:   # only where the ordinary lookup failed
        own = self.__dict__
        if own.get("_forwards") and not name.startswith("__") and name not in self._OWN:
            return getattr(own["_fn"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_forwards") and not name.startswith("__") and name not in self._OWN \
                and not hasattr(type(self), name):
            setattr(self._fn, name, value)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_forwards") and not name.startswith("__") and name not in self._OWN \
                and not hasattr(type(self), name):
            delattr(self._fn, name)
        else:
            object.__delattr__(self, name)

    @property
    def name(self) -> str:
        return self._state.name

    def __repr__(self) -> str:
        """``<to_static f at model.py:12, 0 recompiles>``: what a notebook
        shows for the converted function (``explain(f)(*args)`` says more)."""
        unit = self._state.unit
        loc = unit.loc(unit.tree) if unit is not None else None
        where = f" at {loc.file}:{loc.line}" if loc is not None else ""
        state = f"runs eagerly: {self.eager_reason.code.code}" if self.eager_reason is not None \
            else f"{self.recompiles} recompiles"
        options = ", full_graph=True" if self._state.options.full_graph else ""
        return f"<to_static {self.name}{where}, {state}{options}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:   # IPython
        printer.text(repr(self))

    # ----------------------------------------------------------------- calls
    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._dispatcher and overrides_array_function((args, kwargs)):
            return self._fn(*args, **kwargs)
        state = self._state
        if state.binding is not None and getattr(state.binding.target, "__code__", None) is not self._code \
                or self._rebinds is not None and self._rebound():
            self._reconvert()
            state = self._state
        try:
            fast = state.fast
            if fast is not None and not kwargs:
                value = fast(args)
                if value is not MISS:
                    return value
            if state.jit is not None:
                return self._call_placed(args, kwargs)
            if state.unit is None:
                return self._fn(*args, **kwargs)
            env = state.binding.bind(args, kwargs)
            if env is None:   # arguments the function does not take: Python's own TypeError, before its body
                return self._fn(*args, **kwargs)
            state.note_busy_scalars(env)
            state.single = None
            try:
                kind, value = state.top(env)
            except RunEagerly as e:
                return self._run_eagerly(e, args, kwargs)
            if CELLS in env:   # closures made by interpreted statements see the variables' final values
                call_cells(env, state.unit.cellvars)
            if state.single is not None:
                if not kwargs and state.record is None:
                    state.fast = make_fast_call(state, state.single[0], args, *state.single[1:])
                state.single = None
            else:
                state.fast = None
            return value if kind == RETURN else None
        except BaseException as e:
            hide_frames(e)   # a graph's exception: its traceback goes from the caller to the user's line
            raise

    def _call_placed(self, args: tuple, kwargs: dict) -> Any:
        """A call with in_shardings/out_shardings: arguments and result placed
        (a no-op where the whole-function graph's jax.jit already placed them)."""
        state, jit = self._state, self._state.jit
        if state.unit is None:
            return jit.place_result(self._fn(*jit.place_args(args), **kwargs))
        env = state.binding.bind(args, kwargs)
        if env is None:
            return self._fn(*args, **kwargs)
        jit.place_inputs(env, state.caller_params)
        state.note_busy_scalars(env)
        try:
            kind, value = state.top(env)
        except RunEagerly as e:
            return jit.place_result(self._run_eagerly(e, jit.place_args(args), kwargs))
        if CELLS in env:   # closures made by interpreted statements see the variables' final values
            call_cells(env, state.unit.cellvars)
        return jit.place_result(value if kind == RETURN else None)

    def _run_eagerly(self, e: RunEagerly, args: tuple, kwargs: dict) -> Any:
        state = self._state
        if state.options.full_graph:
            raise FullGraphError(f"full_graph=True but {self.name!r} is not one graph: {e.site.cause}", e.site.loc)
        if state.record is not None:
            state.record.plans.append(EagerCall(e.site))
        state.fast = None
        return self._fn(*args, **kwargs)

    # --------------------------------------------------------------- explain
    def recorded(self, *args: Any, **kwargs: Any) -> tuple[Any, CallRecord]:
        """Call with every plan recorded (``explain``, ``export``): the
        result and the ``CallRecord``; the fast call is not taken."""
        state = self._state
        state.record, state.fast = CallRecord(), None
        try:
            result = self(*args, **kwargs)
        finally:
            record, state.record = state.record, None
        return result, record

    def explain(self, *args: Any, **kwargs: Any) -> "Explanation":
        t0 = time.perf_counter()
        result, record = self.recorded(*args, **kwargs)
        return Explanation(self, record, result, time.perf_counter() - t0)

    def export(self, *args: Any, **kwargs: Any) -> Any:
        """A ``jax.export.Exported`` of this function's graph for these
        arguments (``runtime.export``); ``ExportError`` listing the
        fallback sites where it is not one graph."""
        from .export import export_static

        return export_static(self, args, kwargs, None)
