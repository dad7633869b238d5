"""Entry point of type inference: one segment, one call signature.

Requires: a ``Unit``, a statement list (the function body or the body of a
construct run as Python control flow), the index of its first statement, and the
runtime values of the variables live there.
Produces: ``Specialization``: the verified-able ``Graph``, where each graph
parameter comes from (an input leaf or a capture), the output template, the
guards and the decisions. Raises ``GraphBreak`` (with ``top_index``, the
statement of the list that contains the site) when a site cannot be graph.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import functools
import itertools
import os
import types
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from ..fallback.sites import Decision, FallbackCode, FallbackSite, GraphBreak
from ..ir.core import ArrayType, CallOp, Graph, IfOp, KindedValue, Region, SwitchOp, TreeVariant, Value, bounded, \
    walk_ops
from ..graphlib.arrays import DeferredStr, eager_kind, raise_when, to_eager_kind, writeable
from .calls import TransformedFn
from .guards import DICT_VIEWS, MUTABLE_BUILTINS, Snapshot, object_key
from .interpreter import Specializer
from . import hostwarnings
from .state import LocalFunction, contains_value
from .nnx import boundary_leaf, is_nnx
from .lattice import array_type_of, is_array, ndarray_subclass, subclass_cause, untrace_numbers
from .kinds import standin_types
from .listindex import PickedRow
from .masked import MaskedMethod, MaskedSlice
from .pathkinds import kinded_operand
from .writeback import Effect, written_key
from .varlist import lists_out
from .generators import TraceGenerator
from .localclass import escapes as local_class_escapes, read_by_other_scopes
from ..graphlib.trees import is_record, keyed, make_record, tree_flatten
from .boundary import InputRef, abstract_inputs, reaches, register_other_node, resolve, share_outputs
from .state import Capture, Frame, Guard, Options, ReturnSignal, Unit


@dataclass
class Specialization:
    graph: Graph
    arg_positions: list[int]
    captures: list[Capture]
    guards: list[Guard]
    out_treedef: Any
    out_template: list[Any]
    returns: bool
    end: int
    out_names: list[str] = field(default_factory=list)
    decisions: list[Decision] = field(default_factory=list)
    attr_writes: list[tuple] = field(default_factory=list)   # (object, attribute) set after each call
    input_writes: list[int] = field(default_factory=list)    # leaf indices of argument ndarrays written back
    # static object arguments specialised on by value (``guards.object_key``):
    # leaf index -> the object the graph was traced with; a call with another,
    # equal object uses the graph with that object in its place
    rebound: dict[int, Any] = field(default_factory=dict)
    pinned: dict[int, Any] = field(default_factory=dict)   # of those, the ones whose identity the graph used
    value_keys: dict[int, tuple] = field(default_factory=dict)   # their keys when traced (``object_key``)
    deleted: list[str] = field(default_factory=list)   # names a non-returning segment leaves unbound
    # guard keys of the outside values this graph writes back (``writeback.written_key``): a
    # Python int among them that changed since the trace is read traced at once (FunctionState.note_changed_statics)
    written_keys: frozenset = frozenset()
    # NumPy views among the outputs made again on eager's arrays after each call (``_view_program``)
    views: tuple | None = None
    # paths of the call's own input containers this segment wrote: their new contents come last in the outputs
    local_writes: list = field(default_factory=list)
    input_writes_at: int = 0   # the position among the outputs of the first written-back argument's version
    written_arguments: list = field(default_factory=list)   # leaf indices of the argument arrays written in place
    late_checks: bool = False   # a run-time check follows a write of state (``Specializer.late_checks``)
    # positions among the outputs of NumPy arrays that are read-only in eager (np.asarray of a jax.Array):
    # handed back read-only, so a later write raises as eager's does
    readonly_out: tuple = ()
    # outputs that may be another object (an argument's NumPy array, a global, another output: a
    # join of paths, identity.py): (output position, ((which, position of the bool that says it is), ...))
    maybe_same: tuple = ()
    # positions among the outputs of NumPy arrays that eager makes in Fortran order (a ufunc of
    # Fortran-ordered operands, a LAPACK wrapper's result: ``known_contiguity``): handed back so
    fortran_out: tuple = ()
    # what issues NumPy's RuntimeWarnings of each flags output (the outputs' last part), in
    # program order, after each call (``GraphPlan.run``; ``_warning_outputs``)
    warning_issuers: tuple = ()
    # NumPy arrays read from outside that the graph writes in place (``self.w -= g``: a
    # ``state.InPlaceArray`` among ``attr_writes``): (capture index, the position of its final version
    # among the outputs), copied into the array after each call; apart from every other array it
    # reads, checked per call
    inplace_captures: tuple = ()


def numpy_aliasing(leaves: list) -> tuple:
    """Pairs of NumPy argument arrays that share memory (a write to one shows in the other)."""
    found = [k for k, x in enumerate(leaves) if type(x) is np.ndarray]
    return tuple((a, b) for i, a in enumerate(found) for b in found[i + 1:]
                 if leaves[a] is leaves[b] or np.may_share_memory(leaves[a], leaves[b]))
    # (``is`` first: an empty array shares no memory, not even with itself)


def numpy_readonly(leaves: list) -> tuple:
    """The NumPy argument arrays that are read-only (a write into one raises)."""
    return tuple(k for k, x in enumerate(leaves) if type(x) is np.ndarray and not writeable(x))


def numpy_layout(leaves: list) -> tuple:
    """The C and F contiguity of the NumPy argument arrays (what ``x.flags``
    answers, and what a library reads before choosing a code path:
    ``scipy.linalg``'s ``a.flags.fortran``): in the plan key, so the trace
    may answer it (``Specializer.known_contiguity``)."""
    return tuple((k, x.flags.c_contiguous, x.flags.f_contiguous) for k, x in enumerate(leaves) if type(x) is np.ndarray)


class _Shared(Exception):
    pass


@jax.tree_util.register_pytree_node_class
class MadePerCall:
    """An object of a plain class the trace made (``o = Box(); return o``):
    rebuilt by every call from its attributes (graph values among them), as
    eager's call makes a new one. Static, it would be one object shared by all
    calls: a caller's change to one result would show in the next."""

    def __init__(self, cls: type, names: tuple, values: list):
        self.cls, self.names, self.values = cls, names, values   # (a name ("item", k): an item of a dict subclass)

    def tree_flatten(self):
        return keyed(self.values), (self.cls, self.names)   # a dict attribute keeps its order

    @classmethod
    def tree_unflatten(cls, aux, values):
        kind, names = aux
        if issubclass(kind, tuple):   # a named tuple with attributes too (``_record``): its fields, then its __dict__
            fields = [v for name, v in zip(names, values) if type(name) is tuple]
            obj = tuple.__new__(kind, fields)
            vars(obj).update((name, v) for name, v in zip(names, values) if type(name) is not tuple)
            return obj
        obj = dict.__new__(kind) if issubclass(kind, dict) else kind() if kind is types.SimpleNamespace \
            else object.__new__(kind)
        slots = _slot_names(kind)
        for name, value in zip(names, values):
            if type(name) is tuple:
                dict.__setitem__(obj, name[1], value)   # (scipy's OptimizeResult: a dict subclass)
            elif name in slots:
                object.__setattr__(obj, name, value)   # a slot (also of a frozen dataclass)
            else:
                vars(obj)[name] = value
        return obj


@jax.tree_util.register_pytree_node_class
class BoundPerCall:
    """A method bound to an object the trace made (``return Box(x).get``):
    rebuilt by every call on that call's object (a ``MadePerCall``), as
    eager's result is bound to its own new object. Left static, it would be
    bound to the trace's object, whose attributes hold stand-ins."""

    def __init__(self, func: Any, owner: Any):
        self.func, self.owner = func, owner

    def tree_flatten(self):
        return [self.owner], self.func

    @classmethod
    def tree_unflatten(cls, func, children):
        return types.MethodType(func, children[0])


@jax.tree_util.register_pytree_node_class
class PartialPerCall:
    """``functools.partial`` of a function rebuilt per call (a
    ``BoundPerCall``: ``partial(Box(x).get, 3)``); JAX flattens a partial's
    arguments but keeps its function static."""

    def __init__(self, func: Any, args: list, keywords: dict):
        self.func, self.args, self.keywords = func, args, keywords

    def tree_flatten(self):
        return keyed([self.func, self.args, self.keywords]), None

    @classmethod
    def tree_unflatten(cls, _, children):
        func, args, keywords = children
        return functools.partial(func, *args, **keywords)


@jax.tree_util.register_pytree_node_class
class FormattedPerCall:
    """A string formatted from traced values (``f"loss {loss:.3f}"``, a
    ``DeferredStr``) leaving the segment: its values are the graph's outputs,
    and every call formats them on the host into the ``str`` eager makes,
    each value first made the object eager formats (``kinds``: a Python
    number, a NumPy scalar or array, a jax.Array)."""

    def __init__(self, parts: tuple, kinds: tuple, values: list):
        self.parts, self.kinds, self.values = parts, kinds, values

    def tree_flatten(self):
        return keyed(self.values), (self.parts, self.kinds)

    @classmethod
    def tree_unflatten(cls, aux, values):
        parts, kinds = aux
        eager = []
        for value, kind in zip(values, kinds):
            if kind is None:   # a static value of the string
                eager.append(value)
                continue
            a = np.asarray(value)
            if a.dtype.itemsize == 8 and a.dtype.kind in "iuf" or a.dtype == np.complex128:
                with jax.enable_x64(True):   # 64-bit data formats as eager's, never narrowed
                    eager.append(to_eager_kind(a, kind))
            else:
                eager.append(to_eager_kind(a, kind))
        return str(DeferredStr(parts, tuple(eager)))


def _formatted_per_call(x: DeferredStr) -> Any:
    """``x`` as a ``FormattedPerCall`` node, or None where a value's eager
    kind depends on the path taken."""
    kinds = []
    for v in x.values:
        if isinstance(v, Value):
            kind = eager_kind(v.type)
            if kind == "mixed":
                return None
            kinds.append(kind)
        else:
            kinds.append(None)
    return FormattedPerCall(x.parts, tuple(kinds), list(x.values))


def _slot_names(cls: type) -> frozenset:
    """The slots of ``cls`` and its bases (not ``__dict__``/``__weakref__``)."""
    names: set[str] = set()
    for base in cls.__mro__:
        slots = vars(base).get("__slots__", ())
        names.update((slots,) if isinstance(slots, str) else slots)
    return frozenset(names - {"__dict__", "__weakref__"})


def _instance_state(x: Any) -> dict:
    """A plain instance's whole state: its ``__dict__`` and its set slots."""
    state = dict(getattr(x, "__dict__", {}))
    for name in sorted(_slot_names(type(x))):
        try:
            state[name] = object.__getattribute__(x, name)
        except AttributeError:
            continue   # an unset slot stays unset
    return state


register_other_node(MadePerCall)
register_other_node(FormattedPerCall)


_HEAPTYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class defined in Python


def _plain_instance(x: Any) -> bool:
    """An object whose whole state is its ``__dict__`` and its slots (what
    ``object.__new__`` and a converted ``__init__`` make): Python classes
    only, no own ``__new__``, and not a pytree JAX rebuilds itself."""
    cls = type(x)
    if isinstance(x, standin_types()) or (cls.__module__ or "").split(".")[0] == "ast2graph":
        return False   # ast2graph's own (a local function): the escape checks decide
    return ((isinstance(getattr(x, "__dict__", None), dict) or bool(_slot_names(cls))) and cls.__new__ is object.__new__
            and all(b is object or b.__flags__ & _HEAPTYPE for b in cls.__mro__)
            and jax.tree_util.all_leaves([x]))


def _record(x: Any) -> bool:
    """A named tuple whose instance also has a ``__dict__`` (a SciPy tuple
    bunch with extra fields, a subclass of one with its own ``__init__``):
    JAX would rebuild it as ``type(x)(*fields)``, which loses its attributes
    (or raises: ``PearsonRResult.__init__`` takes more arguments)."""
    cls = type(x)
    return isinstance(x, tuple) and hasattr(cls, "_fields") and type(getattr(x, "__dict__", None)) is dict \
        and all(b in (object, tuple) or b.__flags__ & _HEAPTYPE for b in cls.__mro__) and not _slot_names(cls)


def _plain_dict(x: Any) -> bool:
    """A dict of a Python subclass of ``dict`` whose whole state is its items
    and its ``__dict__`` (SciPy's ``OptimizeResult``): no own ``__new__``,
    keys that are strings or ints, not a pytree JAX rebuilds itself."""
    cls = type(x)
    return isinstance(x, dict) and cls is not dict and cls.__new__ is dict.__new__ \
        and all(b in (object, dict) or b.__flags__ & _HEAPTYPE for b in cls.__mro__) and not _slot_names(cls) \
        and all(type(k) in (str, int) for k in x) and jax.tree_util.all_leaves([x])


def _stateful_object(x: Any) -> bool:
    """An object with attributes a caller could change (a ``__dict__`` or
    slots) that JAX does not rebuild as a pytree: made by the trace, one
    static object would be shared by every call's result."""
    if isinstance(x, (type, types.FunctionType, types.MethodType, types.ModuleType, functools.partial)) \
            or isinstance(x, standin_types()) or is_array(x) or not type(x).__flags__ & _HEAPTYPE \
            or (type(x).__module__ or "").split(".")[0] in ("ast2graph", "jax", "jaxlib", "numpy"):
        return False
    return (hasattr(x, "__dict__") or bool(_slot_names(type(x)))) and jax.tree_util.all_leaves([x])


# A container's own methods (``d.get``, ``xs.append``, ``d.__getitem__``): bound, at trace time, to the
# trace's container (its stand-ins, not the caller's object nor the one eager's call makes)
_BOUND_BUILTINS = (types.BuiltinMethodType, types.MethodWrapperType)
_HELD_BY_METHODS = (list, dict, set, collections.deque, bytearray)


def remade_per_call(tree: Any, fresh: dict, outer_traced: bool = False) -> Any:
    """``tree`` with every object of a plain class the trace made replaced by
    a ``MadePerCall`` node (a method bound to one by a ``BoundPerCall``, a
    ``functools.partial`` of that by a ``PartialPerCall``), and every set it made by a copy (rebuilt per call
    as a pytree node); an object the trace made that appears twice, or another
    mutable kind (a bytearray, an iterator), raises ``_Shared``: eager's one
    object cannot be two graph outputs, nor one shared by all calls."""
    seen: set[int] = set()

    def walk(x: Any) -> Any:
        if type(x) is DeferredStr and not outer_traced:
            return _formatted_per_call(x) or x
        if type(x) in DICT_VIEWS:   # (the trace's dict: its stand-ins, not the caller's dict nor the call's own)
            raise _Shared(f"a view of a dict ({type(x).__name__}: d.keys(), d.values(), d.items()) would leave the "
                          "compiled segment (eager's is a live view of its dict)")
        if type(x) in _BOUND_BUILTINS and isinstance(getattr(x, "__self__", None), _HELD_BY_METHODS):
            raise _Shared(f"a method bound to a {type(x.__self__).__name__} ({x.__name__}) would leave the compiled "
                          "segment (eager's is bound to its own container: the caller's, or the call's new one)")
        if local_class_escapes(x):
            raise _Shared(f"a class defined in the function (or its {type(x).__name__}) would leave the compiled "
                          "segment (eager makes a new class on every call)")
        entry = fresh.get(id(x))
        if entry is not None and entry[1] is x and type(x) not in (list, dict, tuple) and not isinstance(x, np.ndarray):
            if id(x) in seen:
                raise _Shared(f"an object of class {type(x).__name__} made in the function would leave the compiled "
                              "segment twice (eager has one object)")
            seen.add(id(x))
            if isinstance(x, MUTABLE_BUILTINS):
                raise _Shared(f"a {type(x).__name__} made in the function would leave the compiled segment "
                              "(eager makes a new one per call)")
            if _record(x):   # SciPy's PearsonRResult: its tuple's fields, then its attributes
                names = tuple(("field", k) for k in range(len(x))) + tuple(vars(x))
                return MadePerCall(type(x), names, [walk(v) for v in (*x, *vars(x).values())])
            if _plain_instance(x) or type(x) is types.SimpleNamespace:   # (its state: its __dict__ too)
                state = _instance_state(x)
                return MadePerCall(type(x), tuple(state), [walk(v) for v in state.values()])
            if _plain_dict(x):   # its items, then its attributes: rebuilt per call as eager's call makes one
                names = tuple(("item", k) for k in x) + tuple(vars(x))
                return MadePerCall(type(x), names, [walk(v) for v in (*x.values(), *vars(x).values())])
            if _stateful_object(x):
                raise _Shared(f"an object of class {type(x).__name__} made in the function would leave the compiled "
                              "segment (eager makes a new one per call; the graph cannot rebuild this class)")
            return x
        if type(x) is types.MethodType and not isinstance(x.__self__, type):
            owner = walk(x.__self__)
            return x if owner is x.__self__ else BoundPerCall(x.__func__, owner)
        if type(x) is functools.partial:
            func, args, keywords = walk(x.func), [walk(v) for v in x.args], {k: walk(v) for k, v in x.keywords.items()}
            if func is not x.func:
                return PartialPerCall(func, args, keywords)
            if any(a is not b for a, b in zip(args, x.args)) or any(keywords[k] is not v for k, v in x.keywords.items()):
                return functools.partial(func, *args, **keywords)
            return x
        if type(x) in (list, tuple) or isinstance(x, tuple) and hasattr(type(x), "_fields"):
            items = [walk(v) for v in x]
            if is_record(x):   # (a named tuple with a __dict__: its attributes too)
                attrs = {k: walk(v) for k, v in vars(x).items()}
                if all(a is b for a, b in zip(items, x)) and all(attrs[k] is v for k, v in vars(x).items()):
                    return x
                return make_record(type(x), items, tuple(attrs), list(attrs.values()))
            if all(a is b for a, b in zip(items, x)):
                return x
            return type(x)(items) if type(x) in (list, tuple) else type(x)(*items)
        if type(x) is dict:
            if entry is not None and entry[1] is x and any(getattr(o, "__dict__", None) is x for _, o in fresh.values()):
                # ``vars(obj)`` of an object made here (``Interpreter.own_dict``): rebuilt apart from the object
                # per call, ``d is vars(obj)`` would no longer hold nor a write through it reach ``obj``
                raise _Shared("the attribute dict (vars) of an object made in the function would leave the compiled "
                              "segment (eager's is that object's own storage)")
            items = {k: walk(v) for k, v in x.items()}
            return x if all(items[k] is v for k, v in x.items()) else items
        return x

    return walk(tree)


def _escape_break(unit: Unit, stmts: list, start: int, end: int, code: FallbackCode, cause: str,
                  construct: str) -> GraphBreak:
    """A value that cannot leave the segment: end it before its last statement."""
    k = max(end - 1, start)
    err = GraphBreak(FallbackSite(code, unit.loc(stmts[k]), construct, cause))
    err.top_index = k  # type: ignore[attr-defined]
    return err


def flatten_inputs(env: dict[str, Any], names: list[str]):
    """Leaves of the live variables, in a fixed order."""
    return tree_flatten([env[n] for n in names])


def specialize(unit: Unit, stmts: list, start: int, stop: int, names: list[str], leaves: list, treedef: Any,
               options: Options, nested: bool = False, traced_statics: frozenset = frozenset(),
               cells: dict | None = None, by_identity: frozenset = frozenset(),
               structure: list | None = None) -> Specialization:
    """See ``_specialize``. A segment whose run-time checks may raise
    (``_a2g_check``: ``raise_when``, index, int(), store checks) after it
    wrote state back (attributes, argument arrays, views of them, the
    caller's lists and dicts: all applied after the call, which a raise would
    skip although eager made them before raising) is specialised again with
    every check kept in Python (the statement that needs one runs there); a
    check before every write (``np.add.at``'s index check) raises before eager
    writes anything, and stays. One with a ``raise_when`` that also prints is
    specialised again with its raises kept in Python.
    ``cells``: the call's cells (``interpreted.CELLS``), if it made them.
    ``structure``: the live values themselves (``names``' values, flattened
    to ``leaves``): their lists and dicts keep their identity across the
    segment (``boundary.py``), and are written in place, their new contents
    written into them after the call; only their structure is read, never a
    leaf."""
    spec = _specialize(unit, stmts, start, stop, names, leaves, treedef, options, nested, traced_statics, True, cells,
                       by_identity, structure)
    calls = [op.fn for op in walk_ops(spec.graph.body) if isinstance(op, CallOp)]
    checks = [fn for fn in calls if getattr(fn, "_a2g_check", False)]
    if spec.late_checks and (spec.attr_writes or spec.input_writes or spec.views and spec.views[2] or
                             spec.local_writes):
        mode: bool | str = False
    elif raise_when in checks and any(getattr(fn, "_a2g_host_print", False) for fn in calls) \
            and not _only_version_bumps(spec.graph.body):
        mode = "no raise"
    else:
        return spec
    return _specialize(unit, stmts, start, stop, names, leaves, treedef, options, nested, traced_statics, mode,
                       cells, by_identity, structure)


def _only_version_bumps(body: Region) -> bool:
    """The segment's only host effects are changes of the warning filters'
    version (``warnings.catch_warnings`` in its code, ``calls.warning_filters_changed``),
    one of them on every path before the first op holding a ``raise_when``,
    and each ``raise_when`` bumps the version itself when it fires. Then a
    check that fires is exact whichever of the bumps ran (their callbacks are
    not ordered with the check's): with no warning issued in the segment,
    every "once per location" registry was made before the call, at a
    version eager's bump and the check's both leave behind, so each is
    forgotten at its next use in both runs."""
    from .calls import _FILTERS_MUTATED

    ops = list(walk_ops(body))
    if _FILTERS_MUTATED is None or any(isinstance(op, CallOp) and getattr(op.fn, "_a2g_host_print", False)
                                       and op.fn is not _FILTERS_MUTATED for op in ops):
        return False
    for op in ops:
        if isinstance(op, CallOp) and op.fn is raise_when:
            _, kwargs = jax.tree_util.tree_unflatten(op.treedef, op.leaves)
            if kwargs.get("first") is None:
                return False
    for op in body.ops:
        if isinstance(op, CallOp) and op.fn is _FILTERS_MUTATED:
            return True
        if any(isinstance(o, CallOp) and o.fn is raise_when for o in walk_ops(Region(ops=[op]))):
            return False
    return True


def _specialize(unit: Unit, stmts: list, start: int, stop: int, names: list[str], leaves: list, treedef: Any,
                options: Options, nested: bool, traced_statics: frozenset, raise_checks: bool | str,
                cells: dict | None, by_identity: frozenset, structure: list | None = None) -> Specialization:
    """``stmts[start:stop]`` as one graph. ``nested``: ``stmts`` is the body of
    a construct that runs as Python control flow, not the function body (no
    continuation after an early exit; outputs are what the code after reads)."""
    sp = Specializer(options)
    try:
        return _specialize_in(sp, unit, stmts, start, stop, names, leaves, treedef, options, nested, traced_statics,
                              raise_checks, cells, by_identity, structure)
    finally:   # generator objects the trace left suspended: their rest never runs (generators.py)
        sp.close_generators()


def _specialize_in(sp: Specializer, unit: Unit, stmts: list, start: int, stop: int, names: list[str], leaves: list,
                   treedef: Any, options: Options, nested: bool, traced_statics: frozenset, raise_checks: bool | str,
                   cells: dict | None, by_identity: frozenset, structure: list | None = None) -> Specialization:
    sp.traced_statics = traced_statics
    sp.raise_checks = raise_checks
    sp.outer_traced = any(isinstance(leaf, jax.core.Tracer) for leaf in leaves)
    params: list[Value] = []
    positions: list[int] = []
    abstract = []
    paths = leaf_paths(names, treedef, len(leaves))
    sp.input_aliased = {k for pair in numpy_aliasing(leaves) for k in pair}
    for i, leaf in enumerate(leaves):
        if ndarray_subclass(leaf):   # the statement runs in Python (the next segment starts after it)
            raise _escape_break(unit, stmts, start, start + 1, FallbackCode.OPAQUE_CALL,
                                f"{paths[i]} is {subclass_cause(leaf)}", "name")
        if is_array(leaf):
            v = Value(array_type_of(leaf), paths[i])
            if type(leaf) is np.ndarray:
                v.type = dataclasses.replace(v.type, numpy=True)
                sp.input_of[id(v)] = (v, i)
                sp.identity_flags[id(v)] = (v, {i: True})   # the caller's object (identity.py)
                if not writeable(leaf):   # (in the plan key: numpy_readonly)
                    sp.readonly_arrays[id(v)] = v
                sp.input_layout[i] = (leaf.flags.c_contiguous, leaf.flags.f_contiguous)   # (numpy_layout)
            elif isinstance(leaf, jax.Array) and not isinstance(leaf, jax.core.Tracer):
                sp.jax_input_of[id(v)] = (v, i)   # np.asarray of it is a view of its buffer (_view_program)
            elif isinstance(leaf, np.generic):   # a NumPy scalar: NumPy kind, immutable
                v.type = dataclasses.replace(v.type, numpy=True)
            params.append(v)
            positions.append(i)
            abstract.append(v)
        else:
            abstract.append(leaf)
    all_by_value = _by_value(leaves)
    by_value = {k: ids for k, ids in all_by_value.items() if k not in by_identity}
    # objects an argument's value key covers: another equal object may come next call (writeback.py)
    sp.argument_ids = set().union(*(ids for ids, _ in all_by_value.values()))
    built = abstract_inputs(names, structure, abstract, boundary_leaf(), untrace_numbers, sp.input_originals) \
        if structure is not None else None
    # the input lists and dicts, written in place as the segment's own (abstract, path, contents before);
    # after the call their new contents are written into the caller's objects
    own: list[tuple] = []
    if built is not None:   # the caller's lists and dicts: one abstract container each, shared as eager's
        values, sp.input_containers = built
        own = [(sp.mark_fresh(obj), path, _contents(obj)) for obj, path in sp.input_containers.values()]
    else:
        values = untrace_numbers(keyed(jax.tree_util.tree_unflatten(treedef, abstract)))
    body = Region()
    sp.regions.append(body)
    sp.frame = sp.top_frame = Frame(unit, dict(zip(names, values)))
    kwarg = getattr(unit.tree.args, "kwarg", None)
    own_kwargs = kwarg.id if start == 0 and not nested and kwarg is not None and \
        type(sp.frame.env.get(kwarg.id)) is dict else None
    if own_kwargs is not None:   # ``**kwargs``: a dict eager makes anew for every call, the function's own
        sp.mark_fresh(sp.frame.env[own_kwargs])
    sp.own_cells = {id(cell): (cell, name) for name, cell in (cells or {}).items()}
    returns, out, end = False, None, stop
    for k in range(start, stop):
        # The rest of the function is a continuation only if this segment runs to its end.
        sp.cont = [(stmts, k)] if stop == len(stmts) and not nested else [None]
        sp.current_top = k
        try:
            sp.exec_stmt(stmts[k])
        except GraphBreak as e:
            e.top_index = k  # type: ignore[attr-defined]
            raise
        except ReturnSignal as r:
            returns, out, end = True, r.value, k + 1
            break
    out_names: list[str] = []
    deleted: list[str] = []
    if not returns:
        # (the **kwargs dict may have been changed in place: what the rest of the function sees)
        out_names = _segment_outputs(unit, stmts, start, end, sp.frame.env, nested, {own_kwargs} - {None})
        out = {n: sp.frame.env[n] for n in out_names}
        # names the segment deleted (``del t``) are unbound after it, whatever the caller's environment holds
        assigned = set(names).union(*(unit.ssa.assigned(s) for s in stmts[start:end]))
        deleted = sorted(n for n in assigned if n not in sp.frame.env and sp.frame.owns(n))
    writes = list(sp.attr_writes.values())
    input_writes = sorted(sp.input_writes.items())
    _check_captures_apart(sp, leaves, unit, stmts)
    top = {id(v) for op in body.ops for v in op.results}
    for _, v in input_writes:   # a version made inside a region would not reach the caller's array
        if id(v) not in top or sp.pending_inputs:
            raise _escape_break(unit, stmts, start, end, FallbackCode.MUTATION, "an argument's NumPy array written in "
                                "place inside a construct whose result does not carry it", "assignment")
    # the cell variables a returning segment assigned: their final values go
    # into the call's cells (a closure made earlier may be called later).
    # Only a nested def, lambda, class or generator can read a cell after the
    # call: a cell read by comprehensions alone (``[lr_at(s) for s in ...]``)
    # and a class's cell read only by its own methods need no value
    set_here = set().union(*(unit.ssa.assigned(s) for s in stmts[start:end])) if returns and unit.cellvars else ()
    # A segment that is the whole call (from the function's first statement to
    # its return) made every closure of this call: one that outlives the call
    # leaves as an output (and the segment ends before it, below), so a nested
    # function in a cell (``def f``, called by a sibling ``def step``) is read
    # by no one after the call
    whole = start == 0 and not nested
    cell_values = {n: sp.frame.env[n] for n in unit.cellvars if n in set_here and n in sp.frame.env
                   and read_by_other_scopes(unit.tree, n)
                   and not (whole and isinstance(sp.frame.env[n], LocalFunction))}
    # the input containers written here: their new contents, written back into them after the call
    rewritten = [(obj, path) for obj, path, before in own if not _same_contents(_contents(obj), before)]
    _check_unseen(sp, rewritten, dict(zip(names, structure or [])), unit, stmts)
    view_writes = list(sp.view_writes.values())   # views of arguments written in place: their last versions
    out = (out, [value for _, _, value in writes], [value for _, value in input_writes], cell_values,
           [list(obj) if type(obj) is list else dict(obj) for obj, _ in rewritten], [new for _, new in view_writes])
    # joined arrays that may be an argument's object: whether they are, per call (identity.py)
    same = [(x, m, flag) for x in tree_flatten(out, is_leaf=lambda x: type(x) is Value)[0] if type(x) is Value
            for m, flag in sp.identity_of(x).items() if isinstance(flag, Value)] if returns else []
    out = (*out, [flag for _, _, flag in same])
    warning_flags, warning_issuers = _warning_outputs(sp, body)
    out = (*out, warning_flags)
    for leaf in tree_flatten(out, is_leaf=lambda x: isinstance(x, TraceGenerator))[0]:
        if isinstance(leaf, TraceGenerator):   # the statements after the segment need eager's generator object
            raise _escape_break(unit, stmts, start, end, FallbackCode.GENERATOR, f"a generator object of "
                                f"{leaf.unit.qualname} would leave the compiled segment (a real generator is needed)",
                                "assignment")
    try:   # objects the trace made are made anew by every call, as eager makes them
        out = remade_per_call(out, sp.fresh, sp.outer_traced)
    except _Shared as e:
        raise _escape_break(unit, stmts, start, end, FallbackCode.MUTATION, str(e), "assignment") from None

    # dicts in eager's order; a real NNX object (not one made during tracing)
    # leaves as itself, not as a copy of its leaves; an outside or input
    # container as itself (an input one: the caller's object, ``InputRef``)
    if sp.outer_traced and any(isinstance(x, KindedValue) for x in tree_flatten(out, leaf_types=(Value,))[0]):
        raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a value whose kind (NumPy array, "
                            "Python number or jax.Array) depends on the path taken would leave the compiled segment "
                            "under an outer JAX transform", "assignment")

    # a value of path-dependent kind leaves as its tag and variants: the host picks eager's object (pathkinds)
    def kept(x: Any) -> bool:
        return isinstance(x, Value) and type(x) not in (KindedValue, TreeVariant) \
            or is_nnx(x) and id(x) not in sp.nnx_fresh and not contains_value(x) \
            or sp.outside_container(x) or sp.input_container(x) is not None or _argument_part(sp, x)

    try:   # a list whose length depends on the data leaves as eager's list, made after the call (varlist.py)
        out = lists_out(out, kept, sp.outer_traced)
    except ValueError as e:
        raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, f"{e} would leave the compiled "
                            "segment", "assignment") from None
    try:   # a container made here that leaves twice is one object per call (boundary.py)
        out = share_outputs(out, kept, lambda x: type(x) is Value and x.type.python)
    except ValueError as e:
        raise _escape_break(unit, stmts, start, end, FallbackCode.MUTATION, f"{e} would leave the compiled segment",
                            "assignment") from None
    out_leaves, out_treedef = tree_flatten(out, is_leaf=kept)
    # a NumPy array an outside container holds (``list(self.params)``, ``[p for p in G]``), read at trace
    # time: eager hands on that very object, not a new one per call (``fresh_numpy``): re-read, as a capture
    out_leaves = [_held_array(sp, x) if type(x) is np.ndarray and not sp._made_here(x) else x for x in out_leaves]
    if any(type(x) is np.ndarray and not sp._made_here(x) for x in out_leaves):   # (no graph value holds it)
        raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a NumPy array of strings, "
                            "dates or objects read from outside would leave the compiled segment (eager hands on "
                            "that very object, the graph a copy)", "assignment")
    # where each part of the outputs starts among their leaves (the written-back arguments' versions: part 2)
    starts = list(itertools.accumulate([0] + [len(tree_flatten(part, is_leaf=kept)[0]) for part in out]))
    out_leaves = [InputRef(sp.input_container(x)) if not isinstance(x, Value) and sp.input_container(x) is not None
                  else x for x in out_leaves]
    # Trace-time stand-ins cannot leave the segment: the statements after it
    # (Python, or the caller) must get eager's objects.
    escaping = tree_flatten(out, is_leaf=lambda x: isinstance(x, standin_types()))[0]
    for leaf in escaping:
        if type(leaf) in (map, filter) and isinstance(leaf.__reduce__()[1][0], LocalFunction):
            leaf = leaf.__reduce__()[1][0]   # a lazy map(lambda ...) calls the local function later
        if isinstance(leaf, functools.partial) and isinstance(leaf.func, LocalFunction):
            leaf = leaf.func
        if isinstance(leaf, TransformedFn):
            raise _escape_break(unit, stmts, start, end, FallbackCode.OPAQUE_CALL, "a transformed function (jax.vmap, "
                                "jax.grad, ...) closing over traced values escapes the compiled segment", "function")
        if isinstance(leaf, LocalFunction):
            raise _escape_break(unit, stmts, start, end, FallbackCode.OPAQUE_CALL, "a nested function escapes the "
                                "compiled segment", "function")
        if isinstance(leaf, DeferredStr):
            raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a string formatted from traced "
                                "values escapes the compiled segment", "function")
        if isinstance(leaf, (MaskedSlice, MaskedMethod)):
            raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a slice with a traced bound "
                                "or by a traced mask (`x[:n]`, `x[x > 0]`) escapes the compiled segment: its shape "
                                "depends on the data",
                                "assignment")
        if isinstance(leaf, PickedRow):
            raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a row picked from a Python "
                                "list by a traced index (`row = table[i]`) escapes the compiled segment: eager's row is "
                                "one of the row objects (only its items, its length and copies of it stay in the graph)",
                                "assignment")
        if isinstance(leaf, standin_types()) and not isinstance(leaf, Value):
            raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, f"ast2graph's trace-time stand-in "
                                f"{type(leaf).__name__} (a traced range, an array method) escapes the compiled segment", "assignment")
    if any(isinstance(x, Value) and x.type.mixed for x in out_leaves):
        raise _escape_break(unit, stmts, start, end, FallbackCode.CONCRETE_VALUE, "a value whose kind (NumPy array, "
                            "Python number or jax.Array) depends on the path taken would leave the compiled segment",
                            "assignment")
    views = _view_program(sp, out_leaves, returns, [(view, starts[5] + n) for n, (view, _) in enumerate(view_writes)])
    maybe_same = _maybe_same(out_leaves, same, starts)
    if isinstance(views, str):
        # A NumPy view (or an array that may be another) that cannot be made
        # again on eager's arrays would become a separate array: end the
        # segment before the statement that made it.
        raise _escape_break(unit, stmts, start, end, FallbackCode.MUTATION, views, "assignment")
    body.yields = [x for x in out_leaves if isinstance(x, Value)]
    misplaced = kinded_operand(body)
    if misplaced is not None:   # ast2graph's own bug: a computation that skipped the split per kind
        error = AssertionError(f"ast2graph internal error: a value of path-dependent kind is an operand of {misplaced}")
        if os.environ.get("AST2GRAPH_CHECKS", "") not in ("", "0"):
            raise error
        raise _escape_break(unit, stmts, start, end, FallbackCode.INTERNAL_ERROR, str(error), "assignment")
    rebound, pinned = _rebind(sp, {k: ids for k, (ids, _) in by_value.items()}, leaves, out_leaves, writes)
    capture_values = [c.value for c in sp.captures]
    graph = Graph(unit.qualname, params + capture_values, [v.hint for v in params] + [c.description for c in sp.captures],
                  body, unit.loc(unit.tree))
    return Specialization(graph, positions, sp.captures, sp.guards, out_treedef, out_leaves, returns, end,
                          out_names, list(sp.decisions.values()), [(obj, attr) for obj, attr, _ in writes],
                          [k for k, _ in input_writes], rebound, pinned, {k: key for k, (_, key) in by_value.items()},
                          deleted, frozenset(written_key(obj, attr) for obj, attr, _ in writes), views,
                          [path for _, path in rewritten], starts[2], sorted(written_arguments(sp)),
                          sp.late_checks, tuple(k for k, x in enumerate(out_leaves) if sp.known_readonly(x)),
                          maybe_same, tuple(k for k, x in enumerate(out_leaves)
                                            if isinstance(x, Value) and len(x.type.shape) > 1
                                            and sp.known_contiguity(x) == (False, True)), warning_issuers,
                          tuple((k, starts[1] + n) for n, (obj, _, _) in enumerate(writes)
                                for k, holder in sp.inplace_targets.items() if obj is holder))


def _warning_outputs(sp: Specializer, body: Any) -> tuple[list, tuple]:
    """NumPy's RuntimeWarnings as outputs: where every host effect of the
    graph is a NumPy warning callback outside any loop (no print, no
    ``warnings.warn``, no run-time check; at the top level or in traced
    branches), those callbacks are dropped and their flags leave the graph,
    each with what issues its warnings after the call
    (``hostwarnings.fp_output_issuer``), in program order (a branch's flags
    leave it as results of the branch op, the other branches giving none
    set): JAX then dispatches the call without Python's ordered effects, and
    a graph placed on several devices needs none. Otherwise the callbacks
    stay (their order among the other effects, their count in a loop, are
    eager's)."""
    found = sp.__dict__.get("fp_outputs")
    if not found or sp.outer_traced:
        return [], ()
    mine = {id(op): (flags, issue) for flags, op, issue in found}
    loc = None
    for op in walk_ops(body):
        if (getattr(getattr(op, "fn", None), "_a2g_effect", False) or bounded(op)) and id(op) not in mine:
            return [], ()
        loc = op.loc if id(op) in mine else loc
    if loc is None or not _fires_outside_loops(body.ops, mine):
        return [], ()
    kept = _hoist_fires(body, mine)
    # one bool vector of all the flags: one transfer to the host per call
    parts = [flags for flags, _ in kept]
    joined = Value(ArrayType((sum(f.type.shape[0] for f in parts),), np.dtype(bool)), "RuntimeWarning flags")
    leaves, treedef = tree_flatten((tuple(parts), {}))
    body.ops.append(CallOp([joined], loc, hostwarnings.join_flags, treedef, leaves, "numpy RuntimeWarning flags"))
    return [joined], tuple((issue, f.type.shape[0]) for f, issue in kept)


def _fires_outside_loops(ops: list, mine: dict) -> bool:
    """Whether no warning callback of ``mine`` is inside a loop (only branches between it and the top)."""
    for op in ops:
        if isinstance(op, (IfOp, SwitchOp)):
            if not all(_fires_outside_loops(r.ops, mine) for r in op.regions()):
                return False
        elif op.regions() and any(id(inner) in mine for r in op.regions() for inner in walk_ops(r)):
            return False
    return True


def _hoist_fires(region: Region, mine: dict) -> list:
    """The warning callbacks of ``region`` (``mine``) dropped, their flags
    (graph values at its level: a branch op's results) with their issuers,
    in program order. A branch op whose branches issue warnings gets one
    result per flags vector of any branch: that branch's flags, none set in
    the others (one branch runs)."""
    kept: list = []
    ops: list = []
    for op in region.ops:
        if id(op) in mine:
            kept.append(mine[id(op)])
            continue
        ops.append(op)
        if not isinstance(op, (IfOp, SwitchOp)):
            continue
        inner = [_hoist_fires(r, mine) for r in op.regions()]
        if not any(inner):
            continue
        outs = []
        for k, r in enumerate(op.regions()):
            for j, items in enumerate(inner):
                for flags, issue in items:
                    if j == k:
                        r.yields.append(flags)
                    else:   # (this branch issues none of them)
                        none = Value(flags.type, "no RuntimeWarning flags")
                        leaves, treedef = tree_flatten(((flags.type.shape[0],), {}))
                        r.ops.append(CallOp([none], op.loc, hostwarnings.no_flags, treedef, leaves,
                                            "numpy RuntimeWarning flags"))
                        r.yields.append(none)
                    if k == 0:
                        outs.append((Value(flags.type, "RuntimeWarning flags"), issue))
        op.results.extend(v for v, _ in outs)
        kept.extend(outs)
    region.ops[:] = ops
    return kept


def _maybe_same(out_leaves: list, same: list, starts: list[int]) -> tuple:
    """``Specialization.maybe_same``: for each output that may be another
    object, (its position, ((what it may be, its flag's position), ...)),
    what it may be an argument's leaf index, ``("capture", i)``, ``("out", p)``
    (the object at output ``p``) or ``("group", g)`` (the same object as the
    other outputs of group ``g`` whose flag holds). Among the result, the
    attribute writes and the cells (parts 0, 1, 3 of the outputs); the
    written-back arguments' versions and the contents written into
    containers are values, copied into eager's objects."""
    flag_at = {id(flag): starts[6] + n for n, (_, _, flag) in enumerate(same)}
    handed = [(j, x) for j, x in enumerate(out_leaves[:starts[4]]) if not starts[2] <= j < starts[3]]
    positions: dict[int, int] = {}
    for j, x in handed:
        positions.setdefault(id(x), j)
    table = []
    for j, x in handed:
        choices = []
        for y, m, flag in same:
            if y is not x:
                continue
            if type(m) is tuple and m[0] == "value":
                p = positions.get(id(m[1]))
                m = ("out", p) if p is not None and p != j else ("group", id(m[1]))
            choices.append((m, flag_at[id(flag)]))
        table.append((j, choices))
    members: dict[tuple, set] = {}
    for j, choices in table:
        for m, _ in choices:
            members.setdefault(m, set()).add(j)
    # (a group of one output: no other output is that object, so nothing to do)
    out = [(j, tuple((m, at) for m, at in choices if type(m) is int or m[0] != "group" or len(members[m]) > 1)) for j, choices in table]
    return tuple((j, choices) for j, choices in out if choices)


def written_arguments(sp: Specializer) -> set[int]:
    """The leaf indices of the argument arrays the segment writes in place
    (whole, or through a view: ``mutation._input_view``)."""
    out = set(sp.input_writes)
    for view, _ in sp.view_writes.values():
        v = view
        while True:
            recipe = sp.view_recipes.get(id(v))
            if recipe is None or recipe[0] is not v:
                break
            v = recipe[4]
        entry = sp.input_of.get(id(v))
        if entry is not None and entry[0] is v:
            out.add(entry[1])
    return out


def _check_captures_apart(sp: Specializer, leaves: list, unit: Unit, stmts: list) -> None:
    """An argument array written in place must not share memory with a NumPy
    array the graph reads from outside (``f(G)`` writing ``x`` and reading the
    global ``G``): that read would not see the write; nor may an array read
    from outside that the graph writes in place (``self.w -= g``) share memory
    with another array it reads (``self.w`` a view of the global ``G`` it
    reads too, or an argument's array). Checked again before every call
    (``runtime.plans.GraphPlan.guards_hold``)."""
    clash = inplace_apart(sp.captures, sp.guards, leaves, sp.inplace_targets)
    if clash is not None:
        top = sp.first_capture_writes.get(clash[0], sp.current_top)
        err = GraphBreak(FallbackSite(FallbackCode.MUTATION, unit.loc(stmts[top]), "assignment",
                                      f"the NumPy array {sp.captures[clash[0]].description}, read from outside and "
                                      f"written in place, shares memory with {clash[1]}, which this code also reads"))
        err.top_index = top  # type: ignore[attr-defined]
        raise err
    written = written_arguments(sp)
    if not written or not (sp.captures or sp.guards):
        return
    for description, value in outside_arrays(sp.captures, sp.guards):
        k = next((k for k in written if np.may_share_memory(value, leaves[k])), None)
        if k is not None:
            top = sp.first_input_writes.get(k, sp.current_top)
            err = GraphBreak(FallbackSite(FallbackCode.MUTATION, unit.loc(stmts[top]), "assignment",
                                          f"an argument's NumPy array written in place shares memory with "
                                          f"{description}, which this code also reads"))
            err.top_index = top  # type: ignore[attr-defined]
            raise err


def inplace_apart(captures: list, guards: list, leaves: list, written: Any) -> tuple[int, str] | None:
    """For the arrays read from outside that a graph writes in place (the
    capture indices ``written``): (the first one, what it shares memory with)
    where another array the graph reads (another capture, one inside a
    guarded container, an argument's array among ``leaves``) shares its
    memory, whose read would not see the write; None when all are apart."""
    for k in written:
        try:
            array = captures[k].getter()
        except Exception:  # noqa: BLE001 - a vanished value: the capture's own check fails the plan
            continue
        others = [c for j, c in enumerate(captures) if j != k]
        for description, other in outside_arrays(others, []):
            if other is array or np.may_share_memory(other, array):
                return k, description
        for description, other in outside_arrays([], guards):
            if other is array and not any(_snapshots_values(g.expected, array) for g in guards):
                continue   # (a container holding this very array, whose values no guard read: ``params['w']``)
            if other is array or np.may_share_memory(other, array):
                return k, description
        if any(type(x) is np.ndarray and (x is array or np.may_share_memory(x, array)) for x in leaves):
            return k, "an argument's NumPy array"
    return None


def _held_array(sp: Specializer, array: np.ndarray) -> Value:
    """An outside NumPy array that leaves the segment (read from a container
    whose contents are guarded, so it is the one the container holds on every
    call the graph runs): a capture that hands that very object back
    (``GraphPlan.captured_out``)."""
    return sp.external(array, lambda: array, "a NumPy array held by an outside container", ("held", id(array)))


def _snapshots_values(expected: Any, array: np.ndarray) -> bool:
    """Whether a guard's ``Snapshot`` (``guards.py``) records ``array``'s
    values (read at trace time: ``[h.sum() for h in d.values()]`` folds
    them), not only its identity or type (``d['w']`` read as a graph input)."""
    if type(expected) is not Snapshot:
        return False
    stack = [expected.state]
    while stack:
        x = stack.pop()
        if type(x) is tuple and len(x) == 3 and x[0] == "a" and x[1] is array:
            return True
        if type(x) in (tuple, list):
            stack.extend(y for y in x if type(y) in (tuple, list))
    return False


def outside_arrays(captures: list, guards: list):
    """The NumPy arrays a plan reads from outside, now, as (description,
    array): the captured arrays, the arrays a captured element is read from
    (``c[0]`` of an array ``c`` of a global list), and the arrays inside the
    guarded static containers (``for c in G: c.sum()`` folds each ``c`` at
    trace time): a write into an argument sharing memory with one of them
    would not show in what the graph read."""
    for c in captures:
        try:
            value = c.getter()
        except Exception:  # noqa: BLE001 - a vanished value: the plan's own check fails it
            continue
        if isinstance(value, np.ndarray):
            yield c.description, value
        if c.source is not None and isinstance(c.source[1], np.ndarray):
            yield c.description, c.source[1]
    for g in guards:
        try:
            stack, seen = [g.getter()], set()
        except Exception:  # noqa: BLE001 - a vanished value: the guard fails the plan
            continue
        while stack:
            x = stack.pop()
            if isinstance(x, np.ndarray):
                yield g.description, x
            elif type(x) in (list, tuple, dict) and id(x) not in seen:
                seen.add(id(x))
                stack.extend(x.values() if type(x) is dict else x)


def _check_unseen(sp: Specializer, rewritten: list, real: dict, unit: Unit, stmts: list) -> None:
    """An input list or dict the segment wrote in place (its new contents
    written into the caller's object after the call) must not be one the
    trace also saw from outside (a global, an attribute, an object
    argument): that read would not see the write. Held anywhere else
    (Python code kept it, the caller holds it), it sees the new contents
    after the call, as in eager."""
    # what the trace read from outside: every outside value it looked at (attributes, globals, cells,
    # items of outside containers: ``origin``) and every object whose whole contents it read (guarded)
    roots = [v for v, _ in sp.origin.values()] + [g.getter() for g in sp.guards if type(g.key) is tuple
                                                  and g.key[:1] == ("contents",)]
    for obj, path in rewritten:
        if not reaches(roots, resolve(real, path)):
            continue
        k = sp.first_writes.get(id(obj), sp.current_top)
        err = GraphBreak(FallbackSite(FallbackCode.MUTATION, unit.loc(stmts[k]), "assignment",
                                      f"a write into the {type(obj).__name__} '{'/'.join(map(str, path))}', which "
                                      "this code also reads from outside (a global, an attribute, an object argument)"))
        err.top_index = k  # type: ignore[attr-defined]
        raise err


def _contents(obj: Any) -> tuple:
    """What a list or dict holds: its keys (a dict's) and its items."""
    return (tuple(obj), list(obj.values())) if isinstance(obj, dict) else ((), list(obj))


def _same_contents(a: tuple, b: tuple) -> bool:
    """The same keys and the same items, by identity."""
    return a[0] == b[0] and len(a[1]) == len(b[1]) and all(x is y for x, y in zip(a[1], b[1]))


def _view_program(sp: Specializer, out_leaves: list, returns: bool, view_writes: list) -> tuple | None | str:
    """How the NumPy views among the outputs are made again after each call,
    on eager's arrays (``Specialization.views``): ``(steps, assigns)``, each
    step making one array from the call's (``("leaf", k)``: an argument;
    ``("capture", n)``: an array read from outside; ``("out", j)``: the array
    handed out at output ``j``; ``("replay", step, fn, treedef, leaves,
    base)``: ``fn`` of the operands with the array of ``step`` as ``base``),
    ``(j, step)``: output ``j`` is that array, and ``(step, j)``: output ``j``
    (the last version of a view of an argument written in place:
    ``mutation._input_view``) is written into that array. A string: why a view
    cannot leave (its base is seen otherwise but the view cannot be made
    again); a NumPy array the graph may have joined from another (a traced
    branch's result, a loop's carried value) cannot leave a segment the
    function goes on after when that other one is seen otherwise."""
    captures = {id(c.value): n for n, c in enumerate(sp.captures)}
    positions: dict[int, int] = {}
    for j, x in enumerate(out_leaves):
        if isinstance(x, Value):
            positions.setdefault(id(x), j)
    steps: list[tuple] = []
    slot_of: dict[int, int] = {}

    def source(v: Value, depth: int = 0) -> int | None:
        version = sp.view_versions.get(id(v))
        if version is not None and version[0] is v:   # written through: still that view of the argument
            return source(version[1], depth + 1)
        if id(v) in slot_of:
            return slot_of[id(v)]
        entry = sp.input_of.get(id(v))
        if entry is None or entry[0] is not v:
            entry = sp.jax_input_of.get(id(v))   # a jax.Array argument (the base of np.asarray's view)
        recipe = sp.view_recipes.get(id(v))
        if entry is not None and entry[0] is v:
            step: tuple = ("leaf", entry[1])
        elif id(v) in captures:
            step = ("capture", captures[id(v)])
        elif recipe is not None and recipe[0] is v and depth < 64:
            base = source(recipe[4], depth + 1)
            if base is None:
                return None
            step = ("replay", base, *recipe[1:])
        elif id(v) in positions:
            step = ("out", positions[id(v)])
        else:
            return None
        steps.append(step)
        slot_of[id(v)] = len(steps) - 1
        return slot_of[id(v)]

    outs = [(j, x) for j, x in enumerate(out_leaves) if isinstance(x, Value) and x.type.numpy
            and (x.type.shape or x.type.array0)]   # (a 0-d ndarray view: x[:1].reshape(()))
    assigns: list[tuple[int, int]] = []
    shared: dict[int, set] = {}
    for j, x in outs:
        for r in sp._roots(x):
            shared.setdefault(id(r), set()).add(id(x))
    writes = []
    for view, j in view_writes:
        slot = source(view)
        if slot is None or steps[slot][0] != "replay":
            return "a view of an argument written in place cannot be made again on the caller's array"
        writes.append((slot, j))
    for j, x in outs:
        view = sp.view_of.get(id(x), (None,))[0] is x or sp.view_versions.get(id(x), (None,))[0] is x
        if not view and (returns or not sp._bases_of(x)):
            continue   # not a view (a joined result handed back: eager's object or a copy, equal)
        slot = source(x) if view else None
        if slot is not None and steps[slot][0] == "replay":
            assigns.append((j, slot))
            continue
        mine = sp.input_of.get(id(x), (None, None))
        mine = mine[1] if mine[0] is x else None
        for r in sp._roots(x):
            entry = sp.input_of.get(id(r))
            if entry is not None and entry[0] is r and entry[1] == mine:
                continue   # a version of the same argument array, written back into it
            if entry is not None and entry[0] is r or id(r) in captures or \
                    id(r) in positions and r is not x or len(shared[id(r)]) > 1:
                return ("a view of a NumPy array would leave the compiled segment (writes through it must reach the "
                        "base)") if view else ("a NumPy array that may be another one (a traced branch's result, a "
                                               "loop's carried value) would leave the compiled segment")
    return (steps, assigns, writes) if assigns or writes else None


def _argument_part(sp: Specializer, x: Any) -> bool:
    """A list or dict inside a static object argument (``getattr(cfg, "items")``):
    it leaves as itself (the plan then serves that argument only: ``_rebind``)."""
    return type(x) in (list, dict) and id(x) in sp.argument_ids and not sp._is_fresh(x)


def _by_value(leaves: list) -> dict[int, tuple[set[int], tuple]]:
    """Static object arguments keyed by their value (``object_key`` "V"):
    leaf index -> (the ids of the objects and containers the key covers, the key)."""
    out: dict[int, tuple[set[int], tuple]] = {}
    for i, leaf in enumerate(leaves):
        if is_array(leaf) or isinstance(leaf, (bool, int, float, complex, str, bytes, type(None))):
            continue
        covered: set[int] = set()
        key = object_key(leaf, covered)
        if key[0] == "V":
            out[i] = (covered, key)
    return out


def _rebind(sp: Specializer, by_value: dict[int, set[int]], leaves: list, out_leaves: list,
            writes: list) -> tuple[dict[int, Any], dict[int, Any]]:
    """The by-value arguments of the segment and, of those, the ones it
    depends on by identity. Their state is in the plan key, so guards on what
    was read from them are dropped; the graph may run with another, equal
    object in their place unless it compared, hashed or formatted the object,
    handed it to a callable, or returns or writes an object nested in it
    (the argument itself is put back in place: ``GraphPlan``)."""
    if not by_value:
        return {}, {}
    covered = set().union(*by_value.values())
    sp.guards = [g for g in sp.guards if not _covered_read(g, covered)]
    captured = {key[1] for key in sp.capture_keys if type(key) is tuple and len(key) > 1}
    held = [x for x in out_leaves if not isinstance(x, Value)] + [obj for obj, _, _ in writes] + \
        [v for _, _, v in writes] + [obj.container for obj, _, _ in writes if isinstance(obj, Effect)]   # (its list or dict)
    # what a run-time check writes when it fires (``writeback.check_writeback``): the traced objects themselves
    checked = sp.__dict__.get("check_held", ())
    rebound, pinned = {}, {}
    for k, ids in by_value.items():
        rebound[k] = leaves[k]
        nested = any(id(x) in ids and x is not leaves[k] for x in held) or any(id(x) in ids for x in checked)
        if nested or ids & sp.identity_used or ids & captured:
            pinned[k] = leaves[k]
    return rebound, pinned


def _covered_read(guard: Any, covered: set[int]) -> bool:
    """A guard on state that a by-value key already holds: an item of a
    covered container, an instance attribute of a covered object (not a
    class attribute, which the key does not hold), a content guard."""
    key = guard.key
    if type(key) is not tuple or len(key) < 2 or key[1] not in covered:
        return False
    if key[0] == "attr":
        holder = guard.source[1] if guard.source is not None else None
        return key[2] in getattr(holder, "__dict__", ())
    return key[0] in ("item", "contents")


def _segment_outputs(unit: Unit, stmts: list, start: int, end: int, env: dict, nested: bool,
                     changed: set[str] = frozenset()) -> list[str]:
    """The names the code after the segment reads that it binds (or, in
    ``changed``, may have changed in place)."""
    if end >= len(stmts) and not nested:
        return []
    assigned: set[str] = set(changed)
    for s in stmts[start:end]:
        assigned |= unit.ssa.assigned(s)
    live = unit.ssa.live_out(stmts[end - 1]) | set(unit.cellvars)   # a closure may read a cell variable any time
    return sorted(n for n in assigned & live if n in env)


def leaf_paths(names: list[str], treedef: Any, n: int) -> list[str]:
    try:
        dummy = jax.tree_util.tree_unflatten(treedef, list(range(n)))
        paths = [""] * n
        for name, sub in zip(names, dummy):
            for path, idx in jax.tree_util.tree_flatten_with_path(sub)[0]:
                paths[idx] = name + "".join(str(p) for p in path)
        return paths
    except Exception:  # noqa: BLE001 - names are only for printing
        return [f"arg{i}" for i in range(n)]
