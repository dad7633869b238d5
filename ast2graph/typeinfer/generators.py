"""Calls of generator functions, interpreted at trace time.

Requires: ``state`` (``Frame``, ``own_nodes``), ``jaxcallbacks.python_effect``; the
interpreter's ``_run_frame``, ``region``/``regions`` and ``mutations`` counter.
Produces: ``GeneratorMixin.inline_generator``: a call ``gen(...)`` of a
generator function (a nested ``def``, or a user or library function with
source) whose items are all known at trace time, as the list of its yielded
values (traced values allowed), the way a generator expression is held
(``eval_GeneratorExp``). It is taken only where eager could not tell the
difference:

* the call is consumed where it stands, by iteration only: the iterable of a
  ``for`` or of a comprehension, or an argument of ``list``, ``tuple``,
  ``sum``, ``min``, ``max``, ``any``, ``all``, ``sorted`` (without ``key``),
  or of a lazy wrapper (``zip``, ``enumerate``, ``itertools.chain``,
  ``islice``, ``accumulate``, ``product``) itself consumed so, given no
  function, lambda or Python iterable it would run between the items; or
  given to ``next(gen(...), default)`` where it is made: the body runs up to
  its first ``yield`` and stops there, as eager's (the generator is then
  dropped, never resumed). A generator object bound to a name, returned,
  ``.send()``-ed, ... is a ``TraceGenerator`` (below) or a real generator;
* the generator body has no Python side effect (``python_effect``, also
  through the local functions it calls), and a ``for`` or comprehension
  consuming it changes nothing the body reads (eager runs the body lazily,
  between the consumer's steps): it rebinds no name the body reads, calls
  nothing with an effect other than ``print``/``logging``, and uses no
  mutable object the body can reach (its arguments, the names it reads and
  what they hold); filling a list of its own, printing, are fine;
* every ``yield`` runs under static control flow (not in a traced ``if`` or
  a rolled loop), there is no ``yield from``, at most ``unroll_limit`` items;
* interpreting the body raises nothing (eager would raise when the consumer
  reaches that item, or not at all if it stops before).

Produces also ``TraceGenerator`` (``lazy_generator``): where eager's
generator is observably lazy (the object bound to a name, given to another
generator or to ``next``/``islice``/``zip``/..., a consumer that may stop
early, a body with a Python effect or a consumer changing what it reads),
the call gives a trace-time iterator whose body is interpreted item by item
as the consumer pulls, on a thread of its own strictly alternating with the
consumer's (the interpreter's per-position state swapped at each hand-over);
``send(v)`` is a pull whose ``yield`` expression gives ``v``. A real
generator's (or iterator's) own ``send``/``__next__``/... moves it natively:
only one made in this trace, never with a traced value (its body would run on
tracers at trace time).
Invariants: a pull runs where the generator was made (same region, same
traced depth) or falls back; a pull eager may not make (after a traced
``break``, ``any``/``all`` past a traced item) is made only when nobody can
observe it; the body's ops, prints and writes land between the consumer's,
in eager's order; a generator dropped part way never runs the rest of its
body (a ``yield`` inside ``try``/``with`` then falls back); the object is
never shown to code that would see it is not a generator (``isinstance``,
``type``, ``len``, leaving the segment: A2G013). ``close_generators`` ends
the bodies' threads when a specialisation ends.

Anything else falls back at the call (A2G013) with the cause.
"""

from __future__ import annotations

import collections
import collections.abc
import contextlib
import functools
import heapq
import itertools
import math
import threading
import types
import warnings
from typing import Any, Callable

import gast
import jax
import numpy as np

from ..fallback.sites import FallbackCode, FallbackSite, GraphBreak
from ..ir.core import Value
from ..resolver import is_host_printer
from . import jaxcallbacks
from .contexts import ContextYield
from .jaxcallbacks import MUTATING_METHODS
from .state import ControlSignal, Frame, own_nodes

_CONSUMERS = frozenset({"list", "tuple", "sum", "min", "max", "any", "all", "sorted"})
_WRAPPERS = frozenset({"zip", "enumerate", "chain", "islice", "accumulate", "product"})
_PARENTS: dict[int, tuple[Any, dict[int, Any]]] = {}
# callees that iterate a generator expression given to them once, from its start (as they iterate a list)
_GENEXP_TAKERS = (list, tuple, set, frozenset, dict, sum, min, max, any, all, sorted, enumerate, zip, map, filter, iter,
                  next, itertools.chain, itertools.chain.from_iterable, itertools.islice, itertools.accumulate,
                  itertools.product, itertools.starmap, itertools.zip_longest, itertools.groupby, itertools.compress,
                  itertools.takewhile, itertools.dropwhile, functools.reduce, math.prod, math.fsum,
                  collections.Counter, collections.deque, collections.OrderedDict, heapq.nlargest, heapq.nsmallest)
# callees that call a function of the caller's between the items they pull (``_interleaved``)
_INTERLEAVING = (map, filter, itertools.starmap, itertools.takewhile, itertools.dropwhile, itertools.filterfalse)
# where a generator expression is kept (and may be pulled later, or twice) rather than consumed where it stands
_KEEPERS = (gast.Assign, gast.AnnAssign, gast.AugAssign, gast.NamedExpr, gast.Return, gast.Yield, gast.List, gast.Tuple,
            gast.Set, gast.Dict, gast.Lambda)


def _next_statement(tree: Any, stmt: Any) -> Any:
    """The statement right after ``stmt`` in the body that holds it; None if last."""
    parent = _parents(tree).get(id(stmt))
    for field in ("body", "orelse", "finalbody"):
        body = getattr(parent, field, None)
        if isinstance(body, list):
            for k, s in enumerate(body):
                if s is stmt:
                    return body[k + 1] if k + 1 < len(body) else None
    return None


def _parents(tree: Any) -> dict[int, Any]:
    cached = _PARENTS.get(id(tree))
    if cached is None or cached[0] is not tree:
        parents = {id(c): n for n in gast.walk(tree) for c in gast.iter_child_nodes(n)}
        cached = (tree, parents)
        _PARENTS[id(tree)] = cached
    return cached[1]


def _stored_names(node: Any) -> set[str]:
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}


def _read_names(tree: Any) -> set[str]:
    """The names a function reads from outside itself (a closure's, a global)."""
    loads = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return loads - jaxcallbacks._bound_names(tree)


def _local() -> type:
    from .state import LocalFunction

    return LocalFunction


def _mutable(obj: Any) -> bool:
    """An object a loop could change in place (a container, an ndarray, an
    instance or class with attributes), not a module, function or array value."""
    if isinstance(obj, (list, dict, set, bytearray, np.ndarray, type, _local())):
        return True
    return hasattr(obj, "__dict__") and not isinstance(obj, (types.ModuleType, types.FunctionType, types.MethodType,
                                                             types.BuiltinFunctionType, Value, jax.Array, range))


class _Collector:
    def __init__(self, depth: int, limit: int, first: bool = False):
        self.depth, self.limit, self.first = depth, limit, first
        self.items: list = []
        self.marks: list[int] = []   # the number of ops in the region when each item was yielded


def _has_effect_op(ops: list, warnings: bool = True) -> bool:
    """Whether ``ops`` (or a region inside them) hold a run-time check or a
    host effect: what eager does only if it gets that far (``warnings=False``:
    NumPy's floating-point RuntimeWarnings do not count)."""
    from ..ir.core import bounded, walk_ops

    def every(ops: list):
        for op in ops:
            yield op
            for sub in op.regions():
                yield from walk_ops(sub)

    def effect(op: Any) -> bool:
        fn = getattr(op, "fn", None)
        if not warnings and getattr(fn, "_a2g_fp_warning", False):
            return False
        return getattr(fn, "_a2g_effect", False) or bounded(op)

    return any(effect(op) for op in every(ops))


def _exits(body: list) -> bool:
    """Whether the statements ``body`` (not nested functions) may leave the loop holding them early."""
    stack = list(body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Break, gast.Return, gast.Raise)):
            return True
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(n, (gast.For, gast.While)):
            stack.extend(n.orelse)   # a break in a nested loop leaves that loop only
            stack.extend(c for c in gast.walk(gast.Module(body=n.body, type_ignores=[]))
                         if isinstance(c, (gast.Return, gast.Raise)))
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


def _yield_enclosures(tree: Any):
    """(child, parent) for each statement enclosing a ``yield`` of ``tree``'s
    own body, innermost first (``child``: the parent's part holding it)."""
    parents = _parents(tree)
    for node in own_nodes(tree):
        if not isinstance(node, gast.Yield):
            continue
        child, parent = node, parents.get(id(node))
        while parent is not None and parent is not tree:
            yield child, parent
            child, parent = parent, parents.get(id(parent))


def _in_with(child: Any, parent: Any) -> bool:
    return isinstance(parent, (gast.With, gast.AsyncWith)) and any(child is s for s in parent.body)


def _in_handled_try(child: Any, parent: Any) -> bool:
    return isinstance(parent, gast.Try) and bool(parent.handlers) and any(child is s for s in parent.body)


def _first_item_cause(tree: Any) -> str | None:
    """Why stopping ``tree``'s body at its first ``yield`` (``_FirstItem``)
    would differ from eager dropping the suspended generator, which throws
    ``GeneratorExit`` in at the ``yield``: a handler that may catch it, or a
    ``with`` whose ``__exit__`` would see it, around a ``yield``. None if
    nothing differs (a ``finally:`` runs either way)."""
    for child, parent in _yield_enclosures(tree):
        if _in_with(child, parent):
            return "given to next(), it would be dropped at a yield inside `with` (eager's __exit__ sees GeneratorExit)"
        if _in_handled_try(child, parent):
            return "given to next(), it would be dropped at a yield inside `try` with handlers (eager throws " \
                   "GeneratorExit there)"
    return None


def _dropped_cause(tree: Any) -> str | None:
    """Why a generator object of ``tree`` dropped part way could differ
    from eager's, which throws ``GeneratorExit`` in at the suspended
    ``yield``: a ``try`` (its handlers or ``finally``) or a ``with`` around a
    ``yield`` runs then. None if nothing around a yield would run."""
    for child, parent in _yield_enclosures(tree):
        if _in_with(child, parent):
            return "a yield inside `with` (eager's __exit__ runs when a generator object is dropped part way)"
        if _in_handled_try(child, parent) or isinstance(parent, gast.Try) and parent.finalbody \
                and not any(child is s for s in parent.finalbody):
            return "a yield inside `try` (eager throws GeneratorExit there when a generator object is dropped " \
                   "part way)"
    return None


# builtins and itertools that only iterate an argument, pulling it as eager's would
_PULLERS = (next, iter, list, tuple, dict, set, frozenset, sum, min, max, any, all, sorted, zip, enumerate, map, filter,
            itertools.chain, itertools.islice, itertools.accumulate, itertools.product, itertools.starmap,
            itertools.zip_longest, itertools.chain.from_iterable)


# an iterator's own methods that move it (or end it)
_ADVANCERS = frozenset({"__next__", "send", "throw", "close"})


def _shallow(items: list, depth: int = 2) -> list:
    """``items`` with the lists and tuples among them opened, ``depth`` levels
    (at most 1000 items looked at: a call's arguments, not a data set)."""
    out: list = []
    for x in items:
        if len(out) >= 1000:
            break
        out.extend(_shallow(list(x)[:1000], depth - 1) if depth and isinstance(x, (list, tuple)) else [x])
    return out


def _compiled_library(callee: Any) -> bool:
    """A function of JAX or NumPy (their Python code is not converted: it would see the object)."""
    module = getattr(callee, "__module__", None) or ""
    return module.split(".")[0] in ("jax", "jaxlib", "numpy")


def generators_in(source: Any) -> list:
    """The generator objects (``TraceGenerator``) that pulling ``source``
    may advance: itself, or those inside the itertools/builtin iterators
    (zip, enumerate, islice, chain, map) wrapping it."""
    found: list = []
    stack, seen = [source], set()
    while stack and len(seen) < 1000:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, TraceGenerator):
            found.append(x)
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, collections.abc.Iterator) and type(x).__module__ in ("builtins", "itertools"):
            try:
                with warnings.catch_warnings():   # (itertools' pickling is deprecated: its state is still there)
                    warnings.simplefilter("ignore")
                    stack.extend(x.__reduce__()[1:3])
            except Exception:  # noqa: BLE001 - an iterator that cannot be reduced: nothing found in it
                continue
    return found


class _FirstItem(ControlSignal):
    """The first item of a generator given to ``next()`` is made: eager
    suspends the body there and never resumes it (the generator is dropped)."""


_FIRST = "first item"   # ``_generator_consumer``: the call is given to ``next()``
LAZY = "lazy"   # ``genexp_kept``: the generator expression is a generator object (``lazy_genexp``)
STOPPING = "stopping"   # ``genexp_kept``: held as a list, unless making its items checks or prints


class GeneratorMixin:
    def generator_yield(self, node: Any) -> Any:
        """``yield v`` in the body of a generator being interpreted: ``v`` is
        its next item; the ``yield`` expression is None (iteration sends nothing)."""
        stack = self.__dict__.get("_generators")
        if not stack or isinstance(node, gast.YieldFrom):
            raise self.graph_break(FallbackCode.GENERATOR, node, "yield")
        top = stack[-1]
        if isinstance(top, ContextYield):   # a @contextmanager's yield: the with body runs here (contexts.py)
            return self.context_yield(top, node)
        if isinstance(top, _LazyFrame):   # a generator object's body: the consumer takes the item now
            if self.traced_depth != top.gen.depth:
                raise self.graph_break(FallbackCode.GENERATOR, node, "a yield under a traced condition or in a rolled "
                                       "loop (whether or what it yields depends on data)")
            return top.gen.suspend(None if node.value is None else self.eval(node.value))
        if self.traced_depth != top.depth:
            raise self.graph_break(FallbackCode.GENERATOR, node, "a yield under a traced condition or in a rolled loop "
                                   "(whether or what it yields depends on data)")
        value = None if node.value is None else self.eval(node.value)
        if len(top.items) >= top.limit:
            raise self.graph_break(FallbackCode.GENERATOR, node, f"more than {top.limit} items (unroll_limit)")
        top.items.append(value)
        top.marks.append(len(self.region.ops))
        if top.first:
            raise _FirstItem(node)
        return None

    def inline_generator(self, unit: Any, frame: Frame, node: Any) -> Any:
        """``gen(...)`` whose body runs in ``frame``: its items as a fresh
        list, or a fallback at ``node`` (module docstring)."""
        name = unit.qualname

        def refuse(cause: str) -> GraphBreak:
            return self.graph_break(FallbackCode.GENERATOR, node, f"{name} is a generator function: {cause}",
                                    hint="return a list or an array instead of yielding")

        if any(isinstance(n, gast.YieldFrom) for n in own_nodes(unit.tree)):
            raise refuse("`yield from` needs a real generator")
        consumer = self._generator_consumer(node)
        first = consumer is _FIRST
        if first:
            consumer = None   # ``next(gen(...), default)``: the body runs to its first ``yield``, then stops
        elif isinstance(consumer, str):
            return self.lazy_generator(unit, frame, node)   # a generator object the function keeps

        if first:
            cause = _first_item_cause(unit.tree)
            if cause is not None:
                raise refuse(cause)
        # (given to next(), the body runs now up to its first yield, as in eager: its effects are judged as they run)
        effect = None if first else self._effect(unit.tree, self._resolver(frame, node), printers=False)
        # a for/comprehension: its steps run between the generator's items (none: nothing runs between)
        between = self._consumer_cause(*consumer, unit, frame, node) if consumer is not None else None
        if effect is not None or between is not None or not first and self._may_stop_early(node) \
                and _dropped_cause(unit.tree) is None:
            # eager interleaves the body with the consumer, or may stop before its end: the body
            # runs lazily, item by item, between the consumer's steps (a body with a yield inside
            # try/with, which a stop part way would see, is interpreted whole here as before)
            return self.lazy_generator(unit, frame, node)
        stack = self.__dict__.setdefault("_generators", [])
        collector = _Collector(self.traced_depth, self.options.unroll_limit, first)
        stack.append(collector)
        start = len(self.region.ops)
        try:
            self._run_frame(frame, node)
        except _FirstItem:
            pass
        except GraphBreak as e:
            del self.region.ops[start:]
            raise refuse(e.site.cause) from None
        except Exception as e:  # noqa: BLE001 - eager raises it when (if) the consumer reaches that item
            del self.region.ops[start:]
            raise refuse(f"its body raises {type(e).__name__} at trace time") from None
        finally:
            stack.pop()
        if between is not None and collector.items:
            del self.region.ops[start:]
            raise refuse(between)
        if not first and collector.marks and self._may_stop_early(node) \
                and _has_effect_op(self.region.ops[collector.marks[0]:]):
            # eager resumes the body only when the consumer asks for the next item: a check or
            # a print after the first yield may never run (``for v in gen(x): return v``)
            del self.region.ops[start:]
            raise refuse("its body has a run-time check or a host effect after a yield, and the consumer may stop "
                         "before eager resumes the body there")
        if first:
            self.decide(node, "call", "unrolled", f"generator {name} given to next(): its body interpreted up to "
                        "the first yield")
            return self.mark_fresh(iter(collector.items))
        self.decide(node, "call", "unrolled", f"generator {name}: {len(collector.items)} items interpreted at trace time")
        return self.mark_fresh(collector.items)

    def lazy_generator(self, unit: Any, frame: Frame, node: Any) -> "TraceGenerator":
        """``gen(...)`` as a generator object whose body is interpreted item by
        item as the consumer pulls them (``TraceGenerator``), or a fallback at
        ``node`` where dropping it part way would differ from eager."""
        cause = _dropped_cause(unit.tree)
        if cause is not None:
            raise self.graph_break(FallbackCode.GENERATOR, node, f"{unit.qualname} is a generator function: {cause}",
                                   hint="return a list or an array instead of yielding")
        gen = TraceGenerator(self, unit, frame, node, self.frame.unit)
        self.__dict__.setdefault("_lazy_generators", []).append(gen)
        self.decide(node, "call", "unrolled", f"generator object {unit.qualname}: its body interpreted item by item, "
                    "as the consumer pulls them")
        return self.mark_fresh(gen)

    def generator_items(self, source: Any, node: Any, stop_on: bool | None) -> list:
        """The items ``sum``/``min``/``max``/``sorted`` (``stop_on`` None: all
        of them) or ``any`` (True)/``all`` (False) pull from ``source``, an
        iterator over generator objects: up to the first static item whose
        truth is ``stop_on``, as eager's; after a traced item, whether they
        pull more depends on data (``speculative_pull``)."""
        items: list = []
        undecided = False
        it = iter(source)
        while True:
            try:
                item = self.speculative_pull(it, source, node) if undecided else next(it)
            except StopIteration:
                return self.mark_fresh(items)
            items.append(item)
            if stop_on is None:
                continue
            if item is None or type(item) in (bool, int, float):
                if bool(item) is stop_on:
                    return self.mark_fresh(items)   # eager's any/all stops here
            else:
                undecided = True

    def speculative_pull(self, it: Any, source: Any, node: Any) -> Any:
        """``next(it)`` where whether eager pulls it depends on data (after a
        traced ``break``, a traced item of ``any``): only a pull nobody can
        observe (no Python effect in the generators' bodies, no check, print
        or write traced, no exception) is made; the generators pulled are
        then at a data-dependent position: a later pull of them falls back."""
        gens = generators_in(source)
        for gen in gens:
            effect = self._effect(gen.unit.tree, self._resolver(gen.frame, gen.node), printers=False)
            if effect is not None:
                raise gen._break(f"whether eager pulls its next item depends on data, and its body has a Python side "
                                 f"effect, {effect[1]}")
        start, mutations, moves = len(self.region.ops), self.mutations, getattr(self, "generator_moves", 0)
        for gen in gens:
            gen.speculating = True
        try:
            item = next(it)
        except StopIteration:
            raise
        except GraphBreak as e:
            if getattr(e, "exc", None) is None:
                raise
            raise self.graph_break(FallbackCode.GENERATOR, node, "a generator whose next item eager may not pull "
                                   "(it depends on data) raises when pulled") from None
        finally:
            for gen in gens:
                gen.speculating = False
                gen.uncertain = True
        written = (self.mutations - mutations) - (getattr(self, "generator_moves", 0) - moves)
        if written or _has_effect_op(self.region.ops[start:]):
            raise self.graph_break(FallbackCode.GENERATOR, node, "a generator whose next item eager may not pull (it "
                                   "depends on data) checks, prints or writes something when pulled")
        return item

    def generator_object_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A call involving a generator object (``TraceGenerator``): its own
        methods (``g.__next__()``, ``g.send(v)``: a pull; ``throw``, ...: a fallback) run as
        they are; given to a builtin or a library's compiled code, only one
        that iterates it as eager does (``_PULLERS``) receives it, since any
        other would see ast2graph's object (``isinstance``, ``type``, ``len``'s
        message, ``print``). Python functions with source receive it (their
        code is converted, and its uses checked the same way).
        NotImplemented when nothing of this applies."""
        if isinstance(callee, types.MethodType) and isinstance(callee.__self__, TraceGenerator):
            if callee.__func__ is TraceGenerator.__next__ and not args and not kwargs:
                return self.call(next, (callee.__self__,), {}, node)
            if callee.__func__ is TraceGenerator.send and len(args) == 1 and not kwargs:
                return self._send(callee.__self__, args[0], node)
            return callee(*args, **kwargs)   # __iter__: itself; throw/close: a fallback
        owner = getattr(callee, "__self__", None)
        if isinstance(owner, collections.abc.Iterator) and getattr(callee, "__name__", None) in _ADVANCERS:
            # a real iterator's own method (``g.send(v)`` of a generator made in Python, ``it.__next__()``):
            # it moves the iterator, once at trace time but on every call in eager; a real generator's
            # body would run natively, on traced values
            self.check_consumable(owner, node)
            if any(isinstance(x, Value) for x in _shallow([*args, *kwargs.values()])):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{type(owner).__name__}."
                                       f"{callee.__name__}() of a traced value runs Python code on it")
            return NotImplemented
        held = [x for x in (*args, *kwargs.values()) if isinstance(x, (TraceGenerator, list, tuple))]
        if not held or not any(isinstance(x, TraceGenerator) for x in _shallow(held)):
            return NotImplemented
        if any(callee is f for f in _INTERLEAVING) and args and \
                not isinstance(args[0], (types.BuiltinFunctionType, types.BuiltinMethodType, type)):
            # map(f, gen(x)): made here, the map object would call f natively on the traced items
            gen = next(x for x in _shallow(held) if isinstance(x, TraceGenerator))
            raise self.graph_break(FallbackCode.GENERATOR, node, f"a generator object of {gen.unit.qualname} given to "
                                   f"{callee.__qualname__}() with a Python function, which eager calls between its "
                                   "items", hint="use a list comprehension")
        if isinstance(callee, (types.FunctionType, types.MethodType, _local())) and not _compiled_library(callee) \
                or any(callee is f for f in _PULLERS):
            return NotImplemented
        gen = next(x for x in _shallow(held) if isinstance(x, TraceGenerator))
        name = getattr(callee, "__qualname__", None) or type(callee).__name__
        raise self.graph_break(FallbackCode.GENERATOR, node, f"a generator object of {gen.unit.qualname} given to "
                               f"{name}(), which may use it other than by iterating it (a real generator is needed)")

    def _send(self, gen: "TraceGenerator", value: Any, node: Any) -> Any:
        """``gen.send(value)``: a pull, moving ``gen`` as ``next`` does; what
        it raises as eager would (StopIteration at the end, TypeError before
        the start) is eager's exception, which a handler may take at trace time."""
        self.check_consumable(gen, node)
        try:
            return gen.send(value)
        except GraphBreak:
            raise
        except Exception as e:  # noqa: BLE001 - eager's exception (``_eager``), else ast2graph's own failure
            if not getattr(e, "_a2g_eager", False):
                raise
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"generator send raised {type(e).__name__}",
                                   exc=e) from None

    def genexp_over_generators(self, node: Any) -> None:
        """A generator expression pulling generator objects is made as a
        list, where it stands: eager's is lazy. Only a builtin taking every
        item where it is made (``sum``, ``list``, ``max``, ...) pulls them in
        the same order, none earlier, none more; anything else falls back."""
        if self._generator_consumer(node) is not None or self._may_stop_early(node):
            raise self.graph_break(FallbackCode.GENERATOR, node, "a generator expression over a generator object, "
                                   "not consumed at once where it is made (eager pulls the generator lazily)",
                                   hint="use a list comprehension")

    def genexp_kept(self, node: Any) -> Any:
        """A generator expression is held as the list of its items, which is
        right only where it is consumed once where it stands. Bound to a name,
        returned or put in a container, eager's is a one-shot lazy iterator:
        a second ``list(g)`` or ``sum(g)`` is empty, a ``for`` that broke
        leaves the rest, ``len(g)``/``g[0]`` raise, its items read names as
        they are when pulled: a fallback (a list would differ silently).
        Unpacked where it stands (``a, b = (f(x) for x in xs)``), it is
        consumed at once: the unpacking target, for ``genexp_unpacked``.
        Bound to a name whose one use is the next statement's call of a
        builtin consumer (``vs = (..); return functools.reduce(operator.mul,
        vs)``: NumPy's ``polyutils._vander_nd``), it is consumed whole there
        before anything else runs: held as a list too (``_consumed_next``)."""
        parent = _parents(self.frame.unit.tree).get(id(node))
        if isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], (gast.Tuple, gast.List)):
            return parent.targets[0]
        if isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1 \
                and isinstance(parent.targets[0], gast.Name) and self._consumed_next(parent, parent.targets[0].id):
            return self._stopping(node) if self._consumed_next(parent, parent.targets[0].id, stops=True) else None
        if isinstance(parent, (gast.Assign, gast.AnnAssign)) and parent.value is node \
                and all(isinstance(t, gast.Name) for t in getattr(parent, "targets", [getattr(parent, "target", None)])):
            return LAZY   # bound to a name: a generator object (``lazy_genexp``)
        if isinstance(parent, gast.Call) and any(a is node for a in parent.args) and self._python_callee(parent.func):
            return LAZY   # given to a Python function, converted with it: its uses are checked there
        if isinstance(parent, _KEEPERS):
            raise self.graph_break(FallbackCode.GENERATOR, node, "a generator expression bound to a name, returned or "
                                   "put in a container: eager's is a lazy one-shot iterator (a real generator is "
                                   "needed)", hint="use a list comprehension")
        if isinstance(parent, gast.Call) and any(a is node for a in parent.args) and not self._genexp_taker(parent.func):
            name = getattr(self._static_callee(parent.func), "__qualname__", None) or "a call"
            raise self.graph_break(FallbackCode.GENERATOR, node, f"a generator expression given to {name}(), which "
                                   "may use it other than by iterating it once (a real generator is needed)",
                                   hint="use a list comprehension")
        if isinstance(parent, (gast.Call, gast.For)) and self._may_stop_early(node):
            # any/all/next/zip/islice, or a ``for`` that may leave early: eager evaluates the items only
            # as far as the consumer pulls (a print, a check, a write of an item past the deciding one
            # never happens): a generator object, pulled as eager pulls it (``generator_items``)
            return self._stopping(node)
        if self._interleaved(node, parent):
            return LAZY

    def _stopping(self, node: Any) -> Any:
        """A generator expression whose consumer may stop early: LAZY where its
        body has a Python effect; else ``STOPPING``, held as the list of its
        items unless making them checks or prints (``eval_GeneratorExp``)."""
        from .state import unit_of_nested

        unit = unit_of_nested(node, self.frame.unit)
        return LAZY if self._effect(unit.tree, self._resolver(self.frame, node), printers=False) is not None \
            else STOPPING

    def genexp_items_or_lazy(self, node: Any, make: Callable[[], list]) -> Any:
        """The items ``make()`` gives of the generator expression ``node``
        (``STOPPING``), or, where making them ran a check or a host effect
        (eager may stop before an item that raises or prints), its generator
        object (``lazy_genexp``), the ops of the list taken back."""
        start, mutations = len(self.region.ops), self.mutations
        try:
            items = make()
        except GraphBreak:   # (over a generator object: pulled lazily, or the lazy path's own fallback)
            if self.mutations != mutations:
                raise
            del self.region.ops[start:]
            return self.lazy_genexp(node)
        if self.mutations == mutations and not _has_effect_op(self.region.ops[start:], warnings=False):
            return items   # (NumPy's RuntimeWarnings of items eager never makes: as before, a list)
        del self.region.ops[start:]
        return self.lazy_genexp(node)

    def _interleaved(self, node: Any, parent: Any) -> bool:
        """Whether the generator expression ``node``, consumed where it stands
        by ``parent``, has a Python effect (a print, a write, ...) that eager
        interleaves with the consumer's own steps: a ``for`` body, another
        comprehension's element, the function ``map``/``filter`` call between
        items. Held as a list, every item (and its effect) would come first."""
        callee = None
        if isinstance(parent, gast.Call):
            callee = self._static_callee(parent.func)
            if not any(callee is f for f in _INTERLEAVING) or not any(a is node for a in parent.args):
                return False
        elif not isinstance(parent, (gast.For, gast.comprehension)):
            return False
        from .state import unit_of_nested

        unit = unit_of_nested(node, self.frame.unit)
        effect = self._effect(unit.tree, self._resolver(self.frame, node), printers=False)
        if effect is not None and callee is not None:   # (map's function would see ast2graph's generator object)
            raise self.graph_break(FallbackCode.GENERATOR, node, f"a generator expression with a Python effect, "
                                   f"{effect[1]}, given to {callee.__qualname__}(): eager runs it between the calls "
                                   "of the function", hint="use a list comprehension")
        return effect is not None

    def _python_callee(self, func: Any) -> bool:
        """``func`` names a Python function whose code is converted with the
        caller's (a local function, a user's or a library's with source, not
        JAX's or NumPy's)."""
        callee = self._static_callee(func)
        if isinstance(callee, types.MethodType):
            callee = callee.__func__
        return isinstance(callee, _local()) or isinstance(callee, types.FunctionType) and not _compiled_library(callee)

    def lazy_genexp(self, node: Any) -> "TraceGenerator":
        """A generator expression kept to be pulled later (bound to a name,
        given to a Python function): the generator object of the function it
        is (``state.genexp_function``), its first iterable evaluated here, as
        eager's, the rest of it interpreted item by item as it is pulled
        (``TraceGenerator``)."""
        from .state import GENEXP_ITER, unit_of_nested

        unit = unit_of_nested(node, self.frame.unit)
        first = self.eval(node.generators[0].iter)
        if isinstance(first, Value):   # (an array's rows, pulled by the body's ``for``)
            if not first.type.shape:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node.generators[0].iter, "a generator expression "
                                       "over a 0-d array (eager raises TypeError: iteration over a 0-d array)",
                                       exc=TypeError("iteration over a 0-d array"))
            return self.lazy_generator(unit, Frame(unit, {GENEXP_ITER: first}, parent=self.frame), node)
        try:
            iter(first)   # (eager's TypeError for what is not iterable comes where the expression stands)
        except TypeError as e:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node.generators[0].iter,
                                   f"a generator expression over {type(first).__name__}: {e}", exc=e) from None
        return self.lazy_generator(unit, Frame(unit, {GENEXP_ITER: first}, parent=self.frame), node)

    def _consumed_next(self, stmt: Any, name: str, stops: bool = False) -> bool:
        """Whether ``name`` (bound by ``stmt``) is read once in the function,
        as a positional argument of a builtin consumer (``_genexp_taker``)
        called by the statement right after ``stmt`` (its value, or a
        ``return``'s), whose other arguments are names, attributes or
        constants naming no Python function: nothing runs between the
        binding and the consumer taking every item, as for the expression
        written in the call itself."""
        tree = self.frame.unit.tree
        loads = [n for n in gast.walk(tree) if isinstance(n, gast.Name) and n.id == name
                 and not isinstance(n.ctx, gast.Store)]
        after = _next_statement(tree, stmt)
        call = getattr(after, "value", None) if isinstance(after, (gast.Return, gast.Assign, gast.Expr)) else None
        if len(loads) != 1 or not isinstance(call, gast.Call) or call.keywords or \
                not any(a is loads[0] for a in call.args) or not self._genexp_taker(call.func):
            return False
        if stops:   # ``stops``: whether that consumer may stop before the last item (any/all/next/zip/...)
            return getattr(self._static_callee(call.func), "__name__", None) in ("any", "all", "next", *_WRAPPERS)
        others = [a for a in call.args if a is not loads[0]]
        return all(isinstance(a, gast.Constant) or isinstance(a, (gast.Name, gast.Attribute)) and
                   not isinstance(self._static_callee(a), (types.FunctionType, types.MethodType, _local()))
                   and self._static_callee(a) is not None for a in others)

    def genexp_unpacked(self, node: Any, target: Any, items: Any) -> None:
        """``a, b = (genexpr)``: eager pulls every item (none between the
        stores, which follow), as unpacking the list of them does, when their
        number is what the target takes; otherwise eager's error differs from
        a list's ("too many values to unpack (expected 2)" has no "got 3"):
        a fallback, as for a number of items known only from the data."""
        from .varlist import tail_of

        starred = any(isinstance(t, gast.Starred) for t in target.elts)
        wanted = len(target.elts) - starred
        if type(items) is list and tail_of(items) is None and (len(items) == wanted or starred and len(items) >= wanted):
            return
        raise self.graph_break(FallbackCode.GENERATOR, node, "a generator expression unpacked into a number of names "
                               "its items do not match (or known only from the data): eager's error differs from a "
                               "list's", hint="use a list comprehension")

    def _genexp_taker(self, func: Any) -> bool:
        """Whether the callee ``func`` iterates a generator expression once, as
        the list of its items would be iterated (a builtin, ``sep.join``)."""
        if isinstance(func, gast.Attribute) and func.attr == "join" and isinstance(func.value, gast.Constant) \
                and isinstance(func.value.value, (str, bytes)):
            return True
        callee = self._static_callee(func)
        if isinstance(getattr(callee, "__self__", None), (str, bytes)) and getattr(callee, "__name__", "") == "join":
            return True
        return any(callee is f for f in _GENEXP_TAKERS)

    def close_generators(self) -> None:
        """End the bodies of the generator objects this trace left suspended
        (their rest never runs, as eager's dropped generators)."""
        for gen in reversed(self.__dict__.pop("_lazy_generators", [])):
            gen.drop()

    def _resolver(self, scope: Frame, node: Any):
        def resolve(n: str) -> Any:
            try:
                return self.lookup(n, node, scope)
            except GraphBreak:
                return None
        return resolve

    def _effect(self, tree: Any, resolve: Any, printers: bool, depth: int = 0) -> Any:
        """``python_effect`` of ``tree``, also through the local functions it
        calls; with ``printers`` a ``print``/``logging`` call is no effect
        (the consumer's output, in order, is the same either way)."""
        def filtered(n: str) -> Any:
            value = resolve(n)
            return None if printers and is_host_printer(value) else value

        found = jaxcallbacks.python_effect(tree, filtered)
        if found is not None or depth >= 3:
            return found
        for n in gast.walk(tree):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
                fn = resolve(n.func.id)
                if isinstance(fn, _local()):
                    inner = self._effect(fn.unit.tree, self._resolver(Frame(fn.unit, {}, fn.frame), n), printers,
                                         depth + 1)
                    if inner is not None:
                        return n, f"{inner[1]} in `{fn.unit.qualname}`"
        return None

    def _consumer_cause(self, loop: Any, source: Any, unit: Any, frame: Frame, node: Any) -> str | None:
        """Why the ``for``/comprehension ``loop`` (whose iterable ``source``
        holds the call) may change, between the generator's items, what its
        body reads (eager runs the body lazily, one item at a time); None if
        it cannot. A ``print`` is no obstacle; a write into an object the
        generator cannot reach (a list the loop fills) neither."""
        if isinstance(loop, gast.For):
            parts = [loop.target, *loop.body, *loop.orelse]
        else:
            parts = [getattr(loop, f) for f in ("elt", "key", "value") if hasattr(loop, f)]
            for comp in loop.generators:
                parts += [comp.target, *comp.ifs] + ([] if comp.iter is source else [comp.iter])
        body = gast.Module(body=[p if isinstance(p, gast.stmt) else gast.Expr(value=p) for p in parts], type_ignores=[])
        resolve = self._resolver(self.frame, node)

        def printing(n: str) -> Any:
            value = resolve(n)
            return None if is_host_printer(value) else value

        own = jaxcallbacks._bound_names(body)
        for n in gast.walk(body):
            if isinstance(n, (gast.Global, gast.Nonlocal)):
                return f"the loop consuming it has `{type(n).__name__.lower()} {', '.join(n.names)}`"
            bases = []
            if isinstance(n, (gast.Assign, gast.Delete)):
                bases = [t for t in n.targets if isinstance(t, (gast.Attribute, gast.Subscript))]
            elif isinstance(n, (gast.AugAssign, gast.AnnAssign)) and isinstance(n.target, (gast.Attribute, gast.Subscript)):
                bases = [n.target]
            elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in MUTATING_METHODS:
                bases = [n.func.value]
            elif isinstance(n, gast.Call):
                found = jaxcallbacks._call_effect(n, own, printing, 0)
                fn = resolve(n.func.id) if isinstance(n.func, gast.Name) and n.func.id not in own else None
                if found is None and isinstance(fn, _local()):
                    found = self._effect(fn.unit.tree, self._resolver(Frame(fn.unit, {}, fn.frame), n), True)
                if found is not None:
                    return f"the loop consuming it has a Python side effect, {found[1]}, which eager runs between its items"
            for target in bases:
                base = jaxcallbacks._base_name(target)
                if base is None or base not in own and (resolve(base) is None or
                                                        isinstance(resolve(base), types.ModuleType)):
                    return "the loop consuming it writes into an object the generator may read"
        shared = _read_names(unit.tree) & _stored_names(body)
        if shared:
            return f"the loop consuming it assigns {', '.join(sorted(shared))}, which the generator reads"
        reachable = self._reachable(unit, frame, node)
        for n in gast.walk(body):   # a mutable object the generator can reach, used (written, passed) by the loop
            if isinstance(n, gast.Name) and n.id not in own:
                value = resolve(n.id)
                if _mutable(value) and (reachable is None or id(value) in reachable):
                    return f"the loop consuming it uses `{n.id}`, which the generator may read"
        return None

    def _reachable(self, unit: Any, frame: Frame, node: Any) -> set[int] | None:
        """Ids of the objects the generator's body can reach (its arguments,
        the names it reads, what they hold); None: it may reach anything the
        caller can (it reads a local function, which sees the caller's frame)."""
        resolve = self._resolver(frame, node)
        stack = list(frame.env.values()) + [resolve(n) for n in _read_names(unit.tree)]
        seen: dict[int, Any] = {}
        while stack:
            obj = stack.pop()
            if id(obj) in seen:
                continue
            seen[id(obj)] = obj
            if len(seen) > 10_000 or isinstance(obj, _local()):
                return None
            if isinstance(obj, (list, tuple, set, frozenset)):
                stack.extend(obj)
            elif isinstance(obj, dict):
                stack.extend(obj.keys())
                stack.extend(obj.values())
            elif _mutable(obj) and not isinstance(obj, (type, np.ndarray)):
                stack.extend(vars(obj).values())
        return set(seen)

    def _generator_consumer(self, node: Any) -> Any:
        """Where the call ``node`` is consumed: None (a builtin taking all its
        items), ``(loop, iterable)`` for the ``for``/comprehension iterating
        it, or the cause of refusing (a string)."""
        parents = _parents(self.frame.unit.tree)
        child, parent = node, parents.get(id(node))
        while True:
            if isinstance(parent, gast.For) and parent.iter is child:
                return parent, child
            if isinstance(parent, gast.comprehension) and parent.iter is child:
                return parents.get(id(parent)), child
            if not isinstance(parent, gast.Call) or not any(a is child for a in parent.args):
                return "the generator object is used other than by iteration where it is made (bound to a name, " \
                       "returned, or given to send()): a real generator is needed"
            callee = self._static_callee(parent.func)
            name = getattr(callee, "__name__", None)
            module = getattr(callee, "__module__", None)
            if callee is next and parent.args[0] is child and child is node and len(parent.args) <= 2 \
                    and not parent.keywords:
                return _FIRST   # ``next(gen(...), default)``: eager runs the body to its first yield, then drops it
            if name in _CONSUMERS and module == "builtins":
                if parent.keywords and name in ("min", "max"):
                    return f"{name}() with a keyword argument"
                return None
            if name in _WRAPPERS and module in ("builtins", "itertools"):
                passed = self._callable_passed([a for a in (*parent.args, *parent.keywords) if a is not child])
                if passed is not None:   # zip(gen(), map(f, xs)), accumulate(gen(), f): f runs between the items
                    return f"{name}() also takes {passed}, which it calls between the generator's items"
                child, parent = parent, parents.get(id(parent))
                continue
            return f"the generator object is given to {name or 'a call'}(), which may use it other than by iterating"

    def _may_stop_early(self, node: Any) -> bool:
        """Whether what consumes the call ``node`` may stop pulling items before
        the generator ends: a ``for`` whose body may leave the loop, ``any``/
        ``all`` (they short-circuit), a lazy wrapper (``zip`` stops at the
        shortest, ``islice`` at its bound) or ``next``."""
        parents = _parents(self.frame.unit.tree)
        parent = parents.get(id(node))
        if isinstance(parent, gast.For):
            return _exits(parent.body)
        if isinstance(parent, gast.comprehension):
            return False
        if isinstance(parent, gast.Call):
            name = getattr(self._static_callee(parent.func), "__name__", None)
            return name in ("any", "all", "next") or name in _WRAPPERS
        return True

    def _callable_passed(self, nodes: list) -> str | None:
        """A lambda or a Python function passed as a value (not called) in
        ``nodes``, described; None if there is none."""
        called = set()
        for root in nodes:
            for n in gast.walk(root):
                if isinstance(n, gast.Call):
                    called.add(id(n.func))
                if isinstance(n, gast.Attribute):
                    called.add(id(n.value))   # ``self.layers``: the attribute's value, not ``self``
                if isinstance(n, gast.Lambda):
                    return "a lambda"
                if isinstance(n, (gast.Name, gast.Attribute)) and id(n) not in called:
                    value = self._static_callee(n)
                    if isinstance(value, (types.FunctionType, types.MethodType, _local())) or \
                            callable(value) and not isinstance(value, (type, types.BuiltinFunctionType)) and \
                            hasattr(value, "__dict__") and not isinstance(value, types.ModuleType):
                        unit = getattr(value, "unit", None) if isinstance(value, _local()) else None
                        return f"`{unit.qualname if unit else getattr(value, '__qualname__', type(value).__name__)}`"
                    if any(isinstance(getattr(type(value), m, None), types.FunctionType) for m in ("__iter__", "__next__")):
                        return f"a `{type(value).__name__}` (its Python `__iter__`/`__next__`)"
        return None

    def _static_callee(self, func: Any) -> Any:
        if isinstance(func, gast.Name):
            try:
                return self.lookup(func.id, func)
            except GraphBreak:
                return None
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            owner = self._static_callee(func.value)
            return getattr(owner, func.attr, None) if owner is not None else None
        return None


# ------------------------------------------------------------------ lazy generator objects
# A generator object the function keeps (bound to a name, given to another
# generator, islice'd, zipped) is a trace-time iterator whose body is
# interpreted item by item, when the consumer pulls the next item, as eager
# runs it: the body's statements are traced into the graph at the point of
# the pull, between the consumer's own. The body's interpretation is
# suspended at each ``yield``: it runs on a thread of its own (the
# interpreter is recursive Python code, which only a thread can suspend),
# strictly alternating with the consumer's thread (one runs at a time), and
# the interpreter's per-position state (frame, regions, depths, ...) is
# swapped at each hand-over.

_SWAPPED = ("frame", "cont", "callers", "call_nodes", "inline_depth", "loop_depth", "loops_held", "traced_depth",
            "_protectors", "regions", "_generators")
_STACK_BYTES = 256 << 20   # as report.on_deep_stack: the interpreter recurses deeply (virtual memory)
_THREAD_LOCK = threading.Lock()


_SETTINGS = (("jax_enable_x64", "enable_x64"), ("jax_numpy_rank_promotion", "numpy_rank_promotion"),
             ("jax_numpy_dtype_promotion", "numpy_dtype_promotion"),
             ("jax_default_matmul_precision", "default_matmul_precision"))


def _jax_context() -> tuple:
    """The thread-local JAX settings the interpreter reads (a ``with
    jax.enable_x64()`` on the consumer's thread is not the body's thread's)."""
    return tuple(getattr(jax.config, n, None) for n, _ in _SETTINGS)


def _jax_settings(values: tuple) -> contextlib.ExitStack:
    """On the body's thread: the consumer's thread-local JAX settings."""
    stack = contextlib.ExitStack()
    for (option, manager), value in zip(_SETTINGS, values):
        if getattr(jax.config, option, None) != value and hasattr(jax, manager):
            stack.enter_context(getattr(jax, manager)(value))
    return stack


def _eager(error: BaseException) -> BaseException:
    """``error`` as eager's own exception (``kinds.internal_failure``)."""
    error._a2g_eager = True  # type: ignore[attr-defined]
    return error


class _Close(BaseException):
    """Thrown into a suspended body to end its thread (the generator is dropped)."""


class _LazyFrame:
    """The top of ``_generators`` while a lazy generator's body runs."""

    def __init__(self, gen: "TraceGenerator"):
        self.gen = gen


class _Channel:
    """Strict alternation between the consumer's thread and the body's."""

    def __init__(self) -> None:
        self._go, self._back = threading.Semaphore(0), threading.Semaphore(0)
        self.inbox: Any = None
        self.outbox: Any = None

    def send(self, message: Any) -> Any:          # consumer: run the body until it answers
        self.inbox = message
        self._go.release()
        self._back.acquire()
        return self.outbox

    def answer(self, message: Any) -> Any:        # body: hand back, wait for the next request
        self.outbox = message
        self._back.release()
        self._go.acquire()
        return self.inbox

    def finish(self, message: Any) -> None:       # body: its last answer
        self.outbox = message
        self._back.release()

    def first(self) -> Any:
        self._go.acquire()
        return self.inbox


class TraceGenerator(collections.abc.Iterator):
    """``gen(...)`` of a generator function, held at trace time: each
    ``next()`` interprets the body up to its next ``yield`` (module comment
    above). Eager's states: not started, suspended, running (``next`` from
    its own body raises ValueError), finished (``StopIteration``, with the
    ``return`` value the first time). A body that fell back (a GraphBreak)
    leaves the generator broken: every later use falls back the same way
    (a construct that retries after a fallback must not see it finished)."""

    def __init__(self, interp: Any, unit: Any, frame: Frame, node: Any, site_unit: Any):
        self.interp, self.unit, self.frame, self.node, self.site_unit = interp, unit, frame, node, site_unit
        self.region, self.depth = interp.region, interp.traced_depth
        self.state = "new"
        self.broken: GraphBreak | None = None
        self.uncertain = self.speculating = False   # pulled where eager may not have (``speculative_pull``)
        self.pulled = 0
        self.snapshot: dict = {}
        self.channel = _Channel()
        self.thread: threading.Thread | None = None
        self.context = _jax_context()
        interp.__dict__.setdefault("_generators", [])
        interp.__dict__.setdefault("_protectors", [])   # (checkscope's stack)
        # where the call stands: the body starts there, with lists of its own
        self.made = {k: list(v) if type(v) is list else v for k, v in ((k, interp.__dict__[k]) for k in _SWAPPED)}

    def __repr__(self) -> str:
        return f"<generator object {self.unit.qualname} (trace time)>"

    def __iter__(self) -> "TraceGenerator":
        return self

    def _break(self, cause: str) -> GraphBreak:
        prefix = f"{self.unit.qualname} is a generator function: "
        return GraphBreak(FallbackSite(FallbackCode.GENERATOR, self.site_unit.loc(self.node), "call",
                                       cause if cause.startswith(prefix) else prefix + cause,
                                       hint="return a list or an array instead of yielding"))

    def __next__(self) -> Any:
        return self._advance("next")

    def send(self, value: Any) -> Any:
        """``gen.send(value)``: the body resumes with ``value`` as its
        suspended ``yield`` expression's value (a traced value too: the body
        runs in the consumer's region), and runs to its next ``yield``.
        ``send(None)`` is ``next``; a non-None value to a generator not
        started raises eager's TypeError, and it does not start."""
        if value is None:
            return self._advance("next")
        if self.state == "new" and self.broken is None:
            raise _eager(TypeError("can't send non-None value to a just-started generator"))
        return self._advance(("send", value))

    def _advance(self, message: Any) -> Any:
        if self.broken is not None:
            raise self.broken
        if self.uncertain and not self.speculating:
            self.broken = self._break("a consumer may have stopped pulling it at a traced condition (how far it ran "
                                      "depends on data)")
            raise self.broken
        if self.state == "done":
            raise _eager(StopIteration())
        if self.state == "running":
            raise _eager(ValueError("generator already executing"))
        interp = self.interp
        if interp.regions[-1] is not self.region or interp.traced_depth != self.depth:
            # which items it gave would depend on the data (a traced branch, a rolled loop); it has not
            # moved: a retry elsewhere (the loop unrolled instead) may pull it
            raise self._break("advanced under a traced condition or in a rolled loop, where it was not made (how far "
                              "it ran would depend on data)")
        if _jax_context() != self.context:
            raise self._break("advanced under other JAX settings than where it was made")
        self.pulled += 1
        if self.pulled > interp.options.max_unroll:
            self.broken = self._break(f"more than {interp.options.max_unroll} items pulled at trace time (max_unroll)")
            raise self.broken
        return self._resume(message)

    def _resume(self, message: Any) -> Any:
        interp = self.interp
        interp.__dict__.setdefault("_generators", [])
        interp.__dict__.setdefault("_protectors", [])
        # the consumer's own objects, restored as they are (its code holds some of its lists by reference)
        outer = {k: interp.__dict__[k] for k in _SWAPPED}
        if self.thread is None:
            self.snapshot = self.made
            self._start()
        self.state = "running"
        try:
            kind, value = self.channel.send((message, list(outer["_protectors"])))
        finally:
            for k, v in outer.items():
                setattr(interp, k, v)
            # moving a generator is a Python state change no rewind undoes: a static ``while`` that
            # unrolled some iterations then must not restart to roll (``control.exec_While``)
            interp.mutations += 1
            interp.generator_moves = getattr(interp, "generator_moves", 0) + 1
        if kind == "yield":
            self.state = "suspended"
            return value
        self.state = "done"
        if kind == "return":
            raise _eager(StopIteration(*(() if value is None else (value,))))
        if kind == "closed":
            return None
        if isinstance(value, GraphBreak) and (getattr(value, "exc", None) is None or
                                              isinstance(value.exc, StopIteration)):
            # (a StopIteration raised in the body is eager's RuntimeError, PEP 479: it runs in Python)
            self.broken = self._break(value.site.cause)   # the body fell back: so does every use of it
            raise self.broken from None
        raise value   # eager's exception, raised by the body (a handler may take it at trace time)

    def _start(self) -> None:
        with _THREAD_LOCK:
            old = threading.stack_size(_STACK_BYTES)
            try:
                self.thread = threading.Thread(target=self._body, name=f"ast2graph-{self.unit.qualname}", daemon=True)
                self.thread.start()
            finally:
                threading.stack_size(old)

    def _install(self, protectors: list) -> None:
        interp, snap = self.interp, self.snapshot
        for k in _SWAPPED:
            setattr(interp, k, snap[k])
        # a run-time check in the body raises into the consumer's try/with as they stand now
        # (checkscope), inside the body's own that are still open
        interp.__dict__["_protectors"] = list(protectors) + list(snap.get("_own_protectors", []))
        snap["_consumer_protectors"] = len(protectors)

    def _body(self) -> None:
        message, handlers = self.channel.first()
        if message == "close":
            self.channel.finish(("closed", None))
            return
        interp = self.interp
        self.snapshot["_generators"] = [_LazyFrame(self)]
        self._install(handlers)
        try:
            with _jax_settings(self.context):   # the same at every pull (``__next__``)
                if _jax_context() != self.context:
                    raise self._break("made under JAX settings its body cannot be traced with")
                value = interp._run_frame(self.frame, self.node)
        except _Close:
            self.channel.finish(("closed", None))
            return
        except BaseException as e:  # noqa: BLE001 - handed to the consumer's thread, as eager's next() raises it
            self.channel.finish(("raise", e))
            return
        self.channel.finish(("return", value))

    def suspend(self, value: Any) -> Any:
        """On the body's thread, at a ``yield``: hand ``value`` to the consumer
        and wait until it pulls the next item (or drops the generator); the
        ``yield`` expression's value: what ``send`` gave, else None."""
        interp = self.interp
        snap = {k: interp.__dict__.get(k) for k in _SWAPPED}
        snap["_own_protectors"] = interp.protectors[self.snapshot.get("_consumer_protectors", 0):]
        self.snapshot = snap
        message, handlers = self.channel.answer(("yield", value))
        self._install(handlers)
        if message == "close":
            raise _Close
        return message[1] if type(message) is tuple else None

    def throw(self, *args: Any) -> Any:
        raise self._break("throw() on it needs a real generator")

    def close(self) -> None:
        raise self._break("close() on it needs a real generator (eager runs its body's GeneratorExit handling)")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("gi_") or name in ("__name__", "__qualname__"):   # introspection of a real generator
            raise self._break(f"its attribute {name} needs a real generator")
        raise AttributeError(name)

    def drop(self) -> None:
        """End the body's thread, its rest never run (eager drops the
        generator: its body raises GeneratorExit at the ``yield``, which no
        handler or ``with`` around a yield sees: ``lazy_generator``)."""
        if self.thread is not None and self.state == "suspended":
            self._resume("close")
        elif self.thread is None:
            self.state = "done"
