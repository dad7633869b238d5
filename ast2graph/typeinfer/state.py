"""Interpreter state: function units, frames, options, control signals.

Requires: ``parser``, ``resolver``, ``ssa``.
Produces: ``Unit`` (a function's tree with its scope and SSA info, cached per
code object or per nested def node), ``Frame`` (the environment of one
function activation during specialisation), ``Options`` and the control
signals ``ReturnSignal``/``BreakSignal``/``ContinueSignal``; ``LocalFunction``
(a ``def``/``lambda`` made by the program), ``contains_value`` and
``NO_DEFAULT``, which the interpreter's mixins use (they never import the
interpreter itself).
"""

from __future__ import annotations

import builtins
import math
import types
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

import gast

from ..diagnostics import Loc
from ..graphlib.trees import tree_flatten
from ..ir.core import Value
from ..ir.tracertext import suspended
from ..pipeline import Stages
from ..parser import ParsedFunction, parse_function
from ..resolver import NameKind, Scope, scope_of
from ..ssa import SSAInfo, analyze
from .guards import Snapshot, same_builtin_method

if TYPE_CHECKING:
    from .interpreter import Specializer


@dataclass(frozen=True)
class Options:
    full_graph: bool = False
    unroll_limit: int = 16          # static trip counts up to this unroll
    max_unroll: int = 512            # beyond this a loop that cannot roll falls back
    static_iteration_limit: int = 100_000
    max_inline_depth: int = 32
    # recursive calls inlined under traced branches (both sides of each traced
    # ``if`` are inlined, so such recursion doubles at every level)
    max_traced_recursion: int = 64
    static_values: int = 4           # distinct values of a Python number argument before it is traced
    max_iters: int | None = None     # traced while / traced-bound for: lax.scan of this many steps
    exact_rounding: bool = True      # no fused multiply-add, no division rewritten across ops (codegen)


@dataclass(frozen=True)
class TreeFacts:
    """Facts of a function's tree, found in one walk: a ``yield`` of its own
    body (one inside a nested ``def``, ``lambda``, class or generator
    expression makes that scope a generator, not this function), a
    zero-argument ``super()`` and ``nonlocal`` names (nested functions
    included)."""

    generator: bool
    zero_arg_super: bool
    nonlocals: frozenset

    @staticmethod
    def of(tree: Any) -> "TreeFacts":
        generator = zero_arg_super = False
        nonlocals: set[str] = set()
        generator = own_yield(tree) is not None
        for n in gast.walk(tree):
            kind = type(n)
            if kind is gast.Nonlocal:
                nonlocals.update(n.names)
            elif kind is gast.Call and not n.args and type(n.func) is gast.Name and n.func.id == "super":
                zero_arg_super = True
        return TreeFacts(generator, zero_arg_super, frozenset(nonlocals))


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.GeneratorExp,
           gast.ListComp, gast.SetComp, gast.DictComp)


def own_nodes(tree: Any):
    """The nodes of a function's own scope: its body, not the bodies of the
    functions, lambdas, classes and comprehensions nested in it (their
    decorators, defaults, bases and first iterable are evaluated in this scope)."""
    stack = list(tree.body) if isinstance(tree, (gast.FunctionDef, gast.AsyncFunctionDef)) else \
        [tree.body] if isinstance(tree, gast.Lambda) else [tree]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef)):
            outer = [*n.decorator_list, *n.args.defaults, *(d for d in n.args.kw_defaults if d is not None)]
        elif isinstance(n, gast.Lambda):
            outer = [*n.args.defaults, *(d for d in n.args.kw_defaults if d is not None)]
        elif isinstance(n, gast.ClassDef):
            outer = [*n.decorator_list, *n.bases, *n.keywords]
        elif isinstance(n, _SCOPES):   # a comprehension: its first iterable only
            outer = [n.generators[0].iter]
        else:
            outer = list(gast.iter_child_nodes(n))
        stack.extend(reversed(outer))


def own_yield(tree: Any) -> Any:
    """The first ``yield``/``yield from`` of the function's own body, or None."""
    return next((n for n in own_nodes(tree) if isinstance(n, (gast.Yield, gast.YieldFrom))), None)


@dataclass(eq=False)
class Unit:
    """A function body ready to specialise: syntax-level facts only."""

    tree: gast.FunctionDef
    ssa: SSAInfo
    scope: Scope
    filename: str
    qualname: str
    globals: dict
    closure: dict[str, types.CellType] = field(default_factory=dict)
    parsed: ParsedFunction | None = None
    facts: TreeFacts | None = None   # found when first asked (``tree_facts``)
    cellvars: tuple[str, ...] = ()   # variables its nested functions capture (``co_cellvars``): real cells per call
    outer_flags: int = 0   # a nested def's: the ``__future__`` flags of the function it is in

    def loc(self, node: Any) -> Loc:
        line = getattr(node, "lineno", None) or getattr(self.tree, "lineno", 0)
        return Loc(self.filename, line, getattr(node, "col_offset", 0) or 0, self.qualname)

    @property
    def future_flags(self) -> int:
        """The ``__future__`` compile flags the function was compiled under:
        a statement of it compiled again (run in Python, a closure for JAX) gets
        the user's flags, never ast2graph's own (``annotations``)."""
        from ..parser.codecheck import future_flags

        code = getattr(getattr(self.parsed, "fn", None), "__code__", None)
        return future_flags(code) if code is not None else self.outer_flags

    @property
    def generator(self) -> bool:
        """A ``yield`` in the function's own body (not in a nested scope)."""
        return self.tree_facts.generator

    @property
    def tree_facts(self) -> TreeFacts:
        if self.facts is None:
            self.facts = TreeFacts.of(self.tree)
        return self.facts


_NESTED_UNITS: dict[int, tuple[Any, Unit]] = {}


def unit_of_function(fn: types.FunctionType, stages: Stages | None = None) -> Unit:
    """The unit of ``fn``: parsed, its names resolved, in SSA form (each
    cached per code object; ``stages`` times the three stages, the cached ones
    as the lookups they are)."""
    stages = stages or Stages(getattr(fn, "__qualname__", "?"))
    with stages.run("parse", lambda: gast.unparse(parsed.tree)):
        parsed = parse_function(fn)
    key = id(parsed.tree)
    cached = _NESTED_UNITS.get(key)
    if cached is None or cached[0] is not parsed.tree:
        with stages.run("resolve", lambda: repr(scope)):
            scope = scope_of(parsed.tree, fn.__code__.co_freevars)
        with stages.run("ssa", lambda: ssa.dump()):
            ssa = analyze(parsed.tree)
        cached = (parsed.tree, Unit(parsed.tree, ssa, scope, parsed.filename, parsed.qualname, parsed.globals))
        _NESTED_UNITS[key] = cached
    base = cached[1]
    return Unit(base.tree, base.ssa, base.scope, base.filename, parsed.qualname, parsed.globals, parsed.closure, parsed,
                base.tree_facts, fn.__code__.co_cellvars)


def unit_of_nested(node: Any, outer: Unit) -> Unit:
    """A nested ``def`` or ``lambda`` (normalised to a def) inside ``outer``."""
    cached = _NESTED_UNITS.get(id(node))
    if cached is None or cached[0] is not node:
        tree = node
        if isinstance(node, gast.GeneratorExp):
            tree = genexp_function(node)
        elif isinstance(node, gast.Lambda):
            tree = gast.FunctionDef(name="<lambda>", args=node.args, body=[gast.Return(value=node.body)],
                                    decorator_list=[], returns=None, type_comment=None, type_params=[])
            gast.copy_location(tree, node)
            gast.copy_location(tree.body[0], node.body)
        unit = Unit(tree, analyze(tree), scope_of(tree), outer.filename,
                    f"{outer.qualname}.<locals>.{getattr(tree, 'name', '<lambda>')}", outer.globals,
                    outer_flags=outer.future_flags)
        cached = (node, unit)
        _NESTED_UNITS[id(node)] = cached
    return cached[1]


GENEXP_ITER = ".0"   # the argument of a generator expression's function: its first iterable (as CPython's)


def genexp_function(node: gast.GeneratorExp) -> gast.FunctionDef:
    """The generator function a generator expression is: its first iterable,
    evaluated where the expression stands, is the argument ``.0``; the rest
    (later iterables, conditions, the element) runs in its own scope, item by
    item as it is pulled::

        (elt for t1 in it1 if c1 for t2 in it2)
        def <genexpr>(.0):
            for t1 in .0:
                if c1:
                    for t2 in it2:
                        yield elt
    """
    body: list = [gast.Expr(value=gast.Yield(value=node.elt))]
    gast.copy_location(body[0], node.elt)
    gast.copy_location(body[0].value, node.elt)
    for k in range(len(node.generators) - 1, -1, -1):
        comp = node.generators[k]
        for cond in reversed(comp.ifs):
            body = [gast.copy_location(gast.If(test=cond, body=body, orelse=[]), cond)]
        source = comp.iter if k else gast.copy_location(gast.Name(id=GENEXP_ITER, ctx=gast.Load(), annotation=None,
                                                                  type_comment=None), comp.iter)
        body = [gast.copy_location(gast.For(target=comp.target, iter=source, body=body, orelse=[], type_comment=None),
                                   comp.target)]
    param = gast.Name(id=GENEXP_ITER, ctx=gast.Param(), annotation=None, type_comment=None)
    args = gast.arguments(args=[param], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                          defaults=[])
    tree = gast.FunctionDef(name="<genexpr>", args=args, body=body, decorator_list=[], returns=None,
                            type_comment=None, type_params=[])
    gast.copy_location(tree, node)
    gast.copy_location(param, node)
    return tree


class Unbound:
    """Marker of a variable with no value on some path."""

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = Unbound()


class MaybeBound:
    """A variable bound on some paths only (assigned under a traced condition,
    or first inside a rolled loop): its value where bound (a placeholder of
    its type, zeros, on the other paths: never observed) and ``flag``, a
    traced bool, True where bound. A pytree node of the two, so branch joins
    and loop carries carry the flag with the value; a read checks the flag at
    run time and raises eager's ``UnboundLocalError`` (``lookup``)."""

    __slots__ = ("value", "flag")

    def __init__(self, value: Any, flag: Any):
        self.value, self.flag = value, flag

    def __repr__(self) -> str:
        return f"MaybeBound({self.value!r}, {self.flag!r})"


def _register_maybe_bound() -> None:
    import jax

    jax.tree_util.register_pytree_node(MaybeBound, lambda m: ((m.value, m.flag), None),
                                       lambda _, children: MaybeBound(*children))


_register_maybe_bound()


class Frame:
    """One function activation: its unit, environment, and lexical parent."""

    def __init__(self, unit: Unit, env: dict[str, Any], parent: "Frame | None" = None,
                 local_names: frozenset[str] | None = None):
        self.unit = unit
        self.env = env
        self.parent = parent
        # A comprehension frame owns only its targets; a nested def its params and locals.
        self.local_names = local_names if local_names is not None else (
            frozenset(unit.scope.params) | unit.scope.locals)

    def owns(self, name: str) -> bool:
        return name in self.local_names

    def kind(self, name: str) -> NameKind:
        return self.unit.scope.kind(name)


def builtin_value(name: str) -> tuple[bool, Any]:
    if hasattr(builtins, name):
        return True, getattr(builtins, name)
    return False, None


class ControlSignal(Exception):
    def __init__(self, node: Any):
        super().__init__()
        self.node = node


class ReturnSignal(ControlSignal):
    def __init__(self, node: Any, value: Any):
        super().__init__(node)
        self.value = value


class BreakSignal(ControlSignal):
    pass


class CaughtSignal(ControlSignal):
    """A ``raise`` under a traced condition that a handler of the enclosing
    ``try`` takes (``blocks.BlocksMixin.caught_raise``): an exit of the ``try``
    body, like ``break``; ``value`` is the exception."""

    def __init__(self, node: Any, value: Any):
        super().__init__(node)
        self.value = value


class ContinueSignal(ControlSignal):
    pass


@dataclass
class Capture:
    """An array read from outside the arguments: a graph input re-read per call."""

    value: Any
    getter: Callable[[], Any]
    description: str
    source: tuple | None = None   # what ``getter`` reads, as ``Guard.source``
    # the type ``getter`` must still return for the graph to apply (a global
    # array set to None, ``self.v`` from an array to None: the plan fails)
    kind: type | None = None

    def holds(self) -> bool:
        if self.kind is None:
            return True
        try:
            return type(self.getter()) is self.kind
        except Exception:  # noqa: BLE001 - a vanished value fails the plan
            return False


class InPlaceArray:
    """The NumPy array a capture reads from outside (``self.w``, a global),
    written in place by the function (``self.w -= lr * g``, ``G[0] = v``):
    the target of a lifted write (``Specializer.attr_writes``, so that it is
    ordered with the others), whose value, the graph's final version, is
    copied into the array the capture reads after each call
    (``Specialization.inplace_captures``; eager's ``ndarray.__isub__`` writes
    that very object: a new array set on the attribute would not reach its
    other holders)."""

    __slots__ = ("capture",)

    def __init__(self, capture: Capture):
        self.capture = capture


@dataclass
class Guard:
    """A static value the graph depends on: re-checked before every call."""

    getter: Callable[[], Any]
    expected: Any
    description: str
    key: Any = None   # where the value is read from (a global, a cell, an attribute)
    # what ``getter`` reads: ("cell", cell, None), ("global", globals, name),
    # ("attr", object, name) or ("item", container, index); None: only ``getter``
    source: tuple | None = None

    def holds(self) -> bool:
        try:
            now = self.getter()
        except Exception:  # noqa: BLE001 - a vanished value fails the guard
            return False
        return now is self.expected or guarded_equal(now, self.expected)


_SIMPLE = (bool, int, float, complex, str, bytes, type(None))


def guarded_equal(now: Any, expected: Any) -> bool:
    """A guarded value still holds though not identical: a bound method of
    the same function and object, or an equal number or string of the same
    type; a ``Snapshot`` (``guards.py``): the same object holding the same state."""
    kind = type(expected)
    if kind is Snapshot:
        return expected.matches(now)
    if kind is types.MethodType and type(now) is types.MethodType:
        return now.__func__ is expected.__func__ and now.__self__ is expected.__self__
    if kind is types.BuiltinMethodType:
        return same_builtin_method(now, expected)
    return type(now) is kind and isinstance(now, _SIMPLE) and same_scalar(now, expected)


def same_scalar(a: Any, b: Any) -> bool:
    """Two Python scalars of one type that behave alike: equal, and with the
    same signs of zero (-0.0 == 0.0, yet they print, divide and copysign
    differently), or both NaN."""
    if a != a:
        return b != b
    if a != b:
        return False
    if isinstance(a, complex):
        return same_scalar(a.real, b.real) and same_scalar(a.imag, b.imag)
    return not isinstance(a, float) or a != 0 or math.copysign(1.0, a) == math.copysign(1.0, b)


NO_DEFAULT = object()   # a parameter without a default (``LocalFunction.defaults``)


def contains_value(tree: Any) -> bool:
    return any(isinstance(x, Value) for x in tree_flatten(tree)[0])


class LocalFunction:
    """A ``def``/``lambda`` inside a converted function: inlined when called,
    also when Python code at trace time calls it (``sorted(xs, key=...)``,
    ``functools.reduce``); its attributes are a function's
    (``kinds.function_attribute``)."""

    def __init__(self, node: Any, unit: Unit, frame: Frame, defaults: list, kw_defaults: list,
                 interpreter: "Specializer | None" = None):
        self.node, self.unit, self.frame = node, unit, frame
        self.defaults, self.kw_defaults = defaults, kw_defaults
        self.interpreter = interpreter
        self.attributes: dict[str, Any] = {}   # set by the program (``f.calls = 0``)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.interpreter is None:
            raise TypeError(f"{self!r} called outside the specialisation that made it")
        with suspended():   # Python code at trace time calls it: ast2graph interprets it again
            return self.interpreter.inline_local(self, args, kwargs, self.node)

    def __repr__(self) -> str:
        return f"<local function {self.unit.qualname}>"
