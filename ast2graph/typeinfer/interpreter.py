"""Type inference by abstract interpretation, emitting the graph IR.

Requires: a ``Unit`` (gast tree, scope, SSA info) and the abstract values of
one call's arguments (static Python values and IR ``Value`` leaves).
Produces: a ``Graph`` in SSA form with structured regions, every ``if``/loop
``Decision`` with its reason, the ``Guard``s on static values read from
outside, and the ``Capture``s of outside arrays (inputs re-read each call).
Invariants: static values are computed exactly as eager Python computes them
(they *are* eager Python, at trace time); every array value has the type
``jax.eval_shape`` gives its op; a site that cannot be graph raises
``GraphBreak`` naming its location, never a guess.

The lattice is in ``lattice``; control flow (``if``/``while``/``for``,
fixpoints of loop-carried values) in ``control``; calls in ``calls``. This
module holds the state, the emission of ops, expressions and statements.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Mapping
import contextlib
import dataclasses
import errno
import functools
import inspect
import itertools
import linecache
import math
import operator
import os
import sys
import types
import warnings
from typing import Any, Callable, Iterator

import gast
import jax
import numpy as np

from ..diagnostics import Loc
from ..fallback.sites import Decision, FallbackCode, FallbackSite, GraphBreak
from ..ir.core import ArrayType, CallOp, KindedValue, Region, StandinSeen, Value, walk_ops
from ..resolver import CallKind, NameKind, classify_callee, qualified_name
from .operators import NOT_USER, OperatorMixin, numpy_operands, python_method
from ..ssa.names import bound_names
from ..tracebacks import PendingSite, RaiseSite, UserLine
from ..graphlib import arrays, trees
from . import dunders, hostwarnings, lapack
from .blocks import BlocksMixin
from .matching import MatchMixin
from .calls import CallMixin
from .generators import LAZY, STOPPING, generators_in
from .containers import ContainerMixin
from .control import ControlMixin
from .identity import IdentityMixin
from .mutation import MutationMixin, PendingRows
from .pathkinds import KindTagMixin, kind_class, kinded_in
from .listindex import ListIndexMixin, PickedRow, traced_index
from .varlist import VarListMixin, tail_of
from .masked import MaskedMixin, MaskedSlice
from .nnx import NnxMixin, is_node, is_nnx, is_variable
from .writeback import WritebackMixin, NOT_PENDING, _static_key
from .elementwise import ELEMENTWISE, elementwise_type
from .kinds import (Unobservable, contains_standin, function_attribute, internal_failure, observe, same_object,
                    standin_types, standins_in, traced_as_eager, value_attribute_allowed)
from .closures import TracedClosure
from .shaperules import rule_type
from .tracing import output_types
from ..ir.tracertext import watching
from .lattice import (INT_BITS, INT_RANGE, TRACED_INT_BITS, int_range_of, WIDE_INTS, traced_int_ok, canonical_type, host_scalar, is_64bit, is_array, is_python_number, is_static_number,
                      is_traceable_number, ndarray_subclass, static_array_type, subclass_cause)
from .guards import Snapshot, TooLarge, viewed_dict, watched
from .state import (NO_DEFAULT, UNBOUND, MaybeBound, Capture, ContinueSignal, BreakSignal, Frame, Guard,  # noqa: F401
                    LocalFunction, Options, ReturnSignal, builtin_value, contains_value, unit_of_nested)

# Abstract evaluation (tracing an op once for its result types) is most of
# the conversion time where no typing rule applies, and the same op on the
# same input types recurs: a loop body is evaluated
# once per fixpoint pass, a Transformer layer once per layer. The result
# types of functions of JAX, NumPy, ``operator`` and ast2graph itself depend
# only on the input types and static arguments, so they are kept here, keyed
# by (function, argument structure, input types, static arguments); calls of
# user objects (whose behaviour may depend on their state) are never kept.
_EVAL_CACHE: dict[tuple, tuple] = {}
_EVAL_CACHE_SIZE = 4096
_MISSING = object()   # (an attribute a guard found missing: ``get_attribute``)
_PURE_MODULES = ("jax", "_operator", "operator", "numpy", "ast2graph", "math", "builtins")
_AUG_TEMP = "<aug>"   # the name an item written by `lst[k] op= v` is held under (``_aug_held_array``): no identifier
_AUG_SYMBOLS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**",
                "MatMult": "@", "LShift": "<<", "RShift": ">>", "BitOr": "|", "BitXor": "^", "BitAnd": "&"}
def _calls_in(target: Any) -> bool:
    """Whether evaluating the container or index of the target ``target``
    calls something (``d[key(v)]``, ``lst[next(it)]``): evaluated twice, it
    would run twice."""
    parts = [target.value] + ([target.slice] if isinstance(target, gast.Subscript) else [])
    return any(isinstance(n, (gast.Call, gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
               for part in parts for n in gast.walk(part))


_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None), np.dtype, type(Ellipsis))


_ARRAY_MODULES = ("jax", "jaxlib", "numpy", "ast2graph", "scipy")


def _home_module(fn: Any) -> str:
    """The top-level module ``fn`` comes from (its class's for a method of a
    builtin type: ``dict.fromkeys`` -> "builtins"); "" where unknown."""
    module = getattr(fn, "__module__", None)
    if not isinstance(module, str):
        owner = getattr(fn, "__self__", None)
        module = getattr(owner if isinstance(owner, type) else type(owner), "__module__", "") if owner is not None else ""
    return module.split(".")[0] if isinstance(module, str) else ""


def _positive_zero(x: Any) -> bool:
    """A static number that is 0 and not -0.0 (``x + 0`` of such is not
    always ``x``: -0.0 + 0 is +0.0)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and x == 0 and not np.signbit(x)



def _touches_host(fn: Any) -> bool:
    """``fn`` runs a host callback that may raise: a run-time check, a host
    effect (a print), a user or library function run on the host."""
    return bool(getattr(fn, "_a2g_check", False) or getattr(fn, "_a2g_effect", False)
                or getattr(fn, "_a2g_host", False))


def _flagged_errors() -> dict:
    """``np.errstate`` turning every floating-point error NumPy would report
    now (warn, print, call, log or raise) into FloatingPointError."""
    return {k: "ignore" if v == "ignore" else "raise" for k, v in np.geterr().items() if k != "all"}


def _raises_now(e: FloatingPointError) -> bool:
    """Whether the caller's ``np.geterr()`` itself raises the error ``e`` reports (then it is eager's)."""
    kind = next((k for k, word in (*hostwarnings.FP_MESSAGES, ("under", "underflow")) if word in str(e)), None)
    return kind is not None and np.geterr().get(kind) == "raise"


class PassedValue(Value):
    """A result of a traced call that is one of its array operands handed
    back unchanged (``OrderedDict(a=m)``, ``dict.fromkeys(ks, m)``,
    ``max(xs, key=...)`` with a static key): ``index`` is the operand's
    position among the call's flattened leaves. ``emit_call`` replaces it by
    that operand itself, which keeps eager's kind and precision (a float64
    NumPy scalar stays one: typing the call under JAX's rules would narrow it)."""

    __slots__ = ("index",)

    def __init__(self, type: ArrayType, index: int):
        super().__init__(type)
        self.index = index


@dataclasses.dataclass(frozen=True)
class _Passed:
    """``PassedValue`` as ``_EVAL_CACHE`` keeps it."""

    type: ArrayType
    index: int


def _eval_key(fn: Callable, treedef: Any, leaves: list) -> tuple | None:
    """The abstract-evaluation cache key of ``fn(*leaves)``, or None (not kept)."""
    module = getattr(fn, "__module__", None)
    if type(module) is not str or not module.startswith(_PURE_MODULES):
        return None
    parts = []
    for leaf in leaves:
        if type(leaf) is Value:
            t = leaf.type
            parts.append((Value, t.shape, t.dtype, t.weak_type))
        elif type(leaf) in (float, complex):
            parts.append((type(leaf), repr(leaf)))   # -0.0 is not 0.0 here
        else:
            parts.append((type(leaf), leaf))
    key = (fn, treedef, tuple(parts), jax.config.jax_enable_x64)   # x64 changes every dtype
    try:
        hash(key)
    except TypeError:   # an unhashable static argument (a NumPy array): not kept
        return None
    return key


_SAFE_STATIC = (bool, int, float, complex, str, bytes, type(None), slice, range,
                np.ndarray, np.generic, np.dtype, type, type(Ellipsis))


# Builtins that look at an object's type or identity only: no content guard.
_IDENTITY_READS = (isinstance, issubclass, type, callable, id)
# builtins that call no protocol method of their arguments' items (``dunders.IMPLICIT``)
_NO_PROTOCOL_CALLS = (*_IDENTITY_READS, len, iter, list, tuple, enumerate, zip, reversed, getattr, hasattr, setattr,
                      vars, dir, next)
_DIVISIONS = (operator.truediv, operator.floordiv, operator.mod, operator.itruediv, operator.ifloordiv, operator.imod)
# operators that make a new list or dict from their operands (never return one of them)
_JAX_ARRAY = arrays.ARRAY_IMPL
_NEW_CONTAINER = frozenset({operator.add, operator.mul, operator.or_})
# operators that compute on two Python bools as on ints (all but &, |, ^): JAX's bool arrays add with a
# logical or and refuse ``-``
_BOOL_TO_INT = frozenset({operator.add, operator.iadd, operator.mul, operator.imul, operator.sub, operator.isub,
                          operator.truediv, operator.itruediv, operator.floordiv, operator.ifloordiv, operator.mod,
                          operator.imod, operator.pow, operator.ipow, operator.lshift, operator.ilshift,
                          operator.rshift, operator.irshift})


# comparisons, and each one with its operands swapped
_MIRRORED = {operator.lt: operator.gt, operator.gt: operator.lt, operator.le: operator.ge, operator.ge: operator.le,
             operator.eq: operator.eq, operator.ne: operator.ne}


def _basic_index(idx: Any) -> bool:
    """Whether NumPy's ``x[idx]`` is a view of ``x`` whatever the values: integers
    (traced ones too), slices with static bounds, ``None`` and ``...``."""
    for p in idx if type(idx) is tuple else (idx,):
        if isinstance(p, Value):
            if p.type.shape or p.type.mixed or np.dtype(p.type.dtype).kind not in "iu":
                return False
        elif not (isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_))
                  or p is None or p is Ellipsis or type(p) is slice
                  and all(isinstance(b, (int, np.integer, type(None))) and not isinstance(b, (bool, np.bool_))
                          for b in (p.start, p.stop, p.step))):
            return False
    return True


def _python_kind(v: Any) -> str | None:
    """"i" for a Python int (traced, or static within int64), "f" for a Python float, else None."""
    if isinstance(v, Value):
        ok = type(v) is Value and v.type.python and not v.type.shape and not v.type.mixed
        return v.type.dtype.kind if ok and v.type.dtype.kind in "if" else None
    if type(v) is int:
        return "i" if -2**63 <= v < 2**63 else None
    return "f" if type(v) is float else None


def _python_int_and_float(left: Any, right: Any) -> bool:
    """A Python int and a Python float, one of them traced: Python compares them exactly."""
    return {_python_kind(left), _python_kind(right)} == {"i", "f"}


_FP_OPERATOR_FNS = frozenset({operator.truediv, operator.itruediv, operator.floordiv, operator.ifloordiv,
                              operator.mod, operator.imod, operator.pow, operator.ipow, operator.add, operator.iadd,
                              operator.sub, operator.isub, operator.mul, operator.imul, operator.neg, abs})


@contextlib.contextmanager
def _recorded_warnings(numeric: bool) -> Any:
    """The warnings a static call of NumPy numbers issues at trace time
    (``np.uint32(h) * 31``: "overflow encountered in scalar multiply"),
    recorded (every one, whatever the registry has seen), for the caller to
    issue as eager does on every call; nothing recorded where ``numeric`` is False."""
    if not numeric:
        yield []
        return
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield seen


def _numpy_warnings_may_raise() -> bool:
    """NumPy warns of floating-point errors, and a warning filter raises: the
    cheap test before ``Specializer._numpy_warning_errors``."""
    return any(f[0] == "error" for f in warnings.filters) and "warn" in np.geterr().values()


def _int_to_negative_power(base: Any, exponent: Any) -> bool:
    """A traced Python int (or bool) to a static negative int power: a float in eager."""
    return isinstance(base, Value) and type(base) is Value and base.type.python and not base.type.shape \
        and base.type.dtype.kind in "biu" and not base.type.mixed and type(exponent) is int \
        and -2 ** 53 < exponent < 0


def _python_bool(v: Any) -> bool:
    """A Python bool, or a traced one (not a NumPy or JAX bool)."""
    if isinstance(v, Value):
        return type(v) is Value and v.type.python and v.type.dtype == np.bool_ and not v.type.shape
    return type(v) is bool


def _references_of_new() -> int:
    """``sys.getrefcount`` of a new object in ``mark_made`` (the caller's
    variable, the parameter, getrefcount's argument), measured on this Python."""
    def probe(obj: Any) -> int:
        return sys.getrefcount(obj)

    result: list = []
    return probe(result)


_UNSHARED_REFS = _references_of_new()
_TYPE_READS = (isinstance, issubclass, type, callable)
# iterators a trace never makes without marking them fresh: one not fresh is the caller's (a generator object,
# ``iter(xs)``), and a call at trace time would advance it once for all calls
_PLAIN_ITERATORS = frozenset(type(it) for it in ((v for v in ()), iter([]), iter(()), iter(range(0)), iter(""),
                                                 iter({}), iter({}.values()), iter({}.items()), iter(set()), zip(),
                                                 enumerate(()), map(abs, ()), filter(None, ()), reversed([]),
                                                 itertools.chain(), itertools.islice((), 0),
                                                 itertools.accumulate(()), itertools.starmap(abs, ()),
                                                 itertools.zip_longest(), itertools.compress((), ()),
                                                 itertools.takewhile(bool, ()), itertools.dropwhile(bool, ())))
# operators whose NumPy ufunc has integer rules XLA's op lacks (division by zero, negative powers)
_NUMPY_OPERATORS = {operator.floordiv: np.floor_divide, operator.ifloordiv: np.floor_divide,
                    operator.mod: np.remainder, operator.imod: np.remainder,
                    operator.pow: np.power, operator.ipow: np.power}


def _assigns_in_rest(node: Any, cond: Any) -> bool:
    """Whether the comprehension ``node`` assigns a name (a walrus) in what
    runs after the filter ``cond``: its element or the clauses after it."""
    after, seen = [], False
    for gen in node.generators:
        for part in [gen.iter, gen.target, *gen.ifs]:
            if seen:
                after.append(part)
            seen = seen or part is cond
    after.append(node.elt)
    return any(isinstance(n, gast.NamedExpr) for part in after for n in gast.walk(part))


_ELEMENTWISE = frozenset({operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                          operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge})


def _static_numbers(x: Any) -> bool:
    if type(x) in (tuple, list):
        return all(_static_numbers(v) for v in x)
    return type(x) in (bool, int, float, complex) or isinstance(x, np.generic)


def _sequence_as_numpy(fn: Callable, left: Any, right: Any) -> tuple[Any, Any]:
    """``left, right`` with a tuple or list of static numbers beside a NumPy
    array (or scalar) of the graph made ``np.asarray`` of it: NumPy's
    operators take a sequence as the array it converts to (``a.shape[1:] !=
    nbin - 2`` compares elementwise), where JAX's refuse one. A jax.Array's
    operators refuse it in eager too: left as it is."""
    if fn not in _ELEMENTWISE:
        return left, right
    for seq, other in ((left, right), (right, left)):
        if type(seq) in (tuple, list) and isinstance(other, Value) and not other.type.mixed \
                and other.type.kinds and other.type.kinds <= {"numpy", "array0"} and _static_numbers(seq) \
                and not (fn is operator.mul and not other.type.shape and not other.type.array0):
            # (``[1, 2] * np.int64(2)`` of a NumPy scalar repeats the list; of a float one it raises)
            try:
                converted = np.asarray(seq)
            except ValueError:   # ragged: NumPy raises as eager does, from the op
                return left, right
            if converted.dtype == object:
                return left, right
            return (converted, right) if seq is left else (left, converted)
    return left, right


def _mask_times_inexact(left: Any, right: Any) -> bool:
    """``mask * x``: a traced bool operand, the other a float or complex, and
    no jax.Array (jnp.multiply is one XLA op in eager too, simplified alike):
    NumPy's or Python's product, where ``False * inf`` is NaN and ``False * -1.0`` is -0.0."""
    values = [x for x in (left, right) if isinstance(x, Value)]
    if any(v.type.mixed or "jax" in v.type.kinds for v in values):
        return False
    kinds = [x.type.dtype.kind if isinstance(x, Value) else np.asarray(x).dtype.kind for x in (left, right)]
    return any(v.type.dtype.kind == "b" for v in values) and any(k in "fc" for k in kinds)


_FAKE_TEST = __import__("re").compile(r"[F\s()]*(==|!=|<=|>=|<|>|in)[F\s()]*")
_SAFE_LEAVES = (bool, int, float, complex, str, bytes, type(None), types.ModuleType, types.FunctionType, type)


def _library_module(module: types.ModuleType) -> bool:
    """A module of the standard library or an installed package (not the
    user's own): its functions and classes are not monkeypatched between
    calls, so reads of them are not guarded (a user module's are). A module
    without a file is a library's only when the import system made it (a
    builtin such as ``math``, a frozen or namespace module); one the user
    made (``types.ModuleType("helpers")``, a notebook's scratch module) is
    the user's: its attributes are monkeypatched like a file module's."""
    from ..resolver.callees import is_user_file

    filename = getattr(module, "__file__", None)
    if filename is None:
        return module.__name__ in sys.builtin_module_names or getattr(module, "__spec__", None) is not None
    return not is_user_file(filename)


def _lookup_error(fn: Any, args: tuple, e: Exception) -> bool:
    """``xs[i]`` of a list or tuple, or ``d[k]`` of a dict, whose items are
    ast2graph's stand-ins (graph values) but whose length and keys are
    eager's, by a plain int or string: its IndexError/KeyError depends on
    those only, so it is eager's."""
    if fn is not operator.getitem or len(args) != 2 or type(args[1]) not in (int, str, bool):
        return False
    container = args[0]
    if type(container) in (list, tuple):
        return isinstance(e, IndexError) and type(args[1]) is not str
    return type(container) is dict and isinstance(e, KeyError) \
        and all(type(k) in (int, str, bool, float, type(None)) for k in container)


_HEAPTYPE = 1 << 9   # Py_TPFLAGS_HEAPTYPE: a class made by a ``class`` statement


def _plain_class_attribute(cls: type, attr: str) -> bool:
    """``cls.attr = v`` (``Counter.total += 1``, ``type(self).n += 1``) is a
    plain store into the class's ``__dict__``: a class of a ``class``
    statement with ``type`` as its metaclass, not a name ``type`` keeps
    itself (``__name__``, ``__doc__``, ...)."""
    return type(cls) is type and bool(cls.__flags__ & _HEAPTYPE) and not attr.startswith("__") \
        and not hasattr(getattr(type, attr, None), "__set__")


def _may_be_zero(divisor: Any) -> bool:
    """Whether a divisor may hold a zero: a traced one may; a static number or
    NumPy array is looked at."""
    if isinstance(divisor, (bool, int, float, np.ndarray, np.generic)):
        return bool(np.any(np.asarray(divisor) == 0))
    return True


def is_value(x: Any) -> bool:
    return isinstance(x, Value)


def tree_flatten(tree: Any):
    return trees.tree_flatten(tree, leaf_types=(Value,))


def _holds_tracer(leaf: Any) -> bool:
    """A static-looking result that holds a tracer (``slice(1, n)`` of a
    traced ``n``, an object array): it must not leave the trace."""
    if type(leaf) is slice:
        return any(isinstance(p, jax.core.Tracer) for p in (leaf.start, leaf.stop, leaf.step))
    return type(leaf) is np.ndarray and leaf.dtype == object


def _traced_number_among(leaves: list) -> str:
    """Text naming a traced Python number among an op's operands ("" if none)."""
    for x in leaves:
        if isinstance(x, Value) and x.type.python and not x.type.shape:
            kind = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}.get(x.type.dtype.kind, "number")
            return f"a traced Python {kind}"
    return ""


_POSITIONS = frozenset({"argmin", "argmax", "nanargmin", "nanargmax", ".argmin", ".argmax"})
_COUNTS = frozenset({"sum", ".sum", "count_nonzero"})


def _position_range(fn: Callable, args: tuple, kwargs: dict) -> tuple[int, int] | None:
    """The values ``np.argmin(x)``/``argmax`` (``jnp.``'s, ``x.argmax()``)
    can take: a position in ``x`` (flattened, or along ``axis``); those of
    a count of a boolean array's true items (``mask.sum()``,
    ``np.count_nonzero(mask)``, over the whole array): 0 to its size; None
    for any other call, or where it is not known."""
    if not args or not isinstance(args[0], Value) \
            or (getattr(fn, "__module__", None) or "").split(".")[0] not in ("numpy", "jax", __name__.split(".")[0]):
        return None
    if getattr(fn, "__name__", None) in _COUNTS:
        whole = len(args) == 1 and not kwargs or len(args) == 1 and set(kwargs) == {"axis"} and kwargs["axis"] is None
        return (0, int(np.prod(args[0].type.shape))) if whole and args[0].type.dtype == np.dtype(bool) else None
    if getattr(fn, "__name__", None) not in _POSITIONS:
        return None
    axis = kwargs.get("axis", args[1] if len(args) > 1 else None)
    shape = args[0].type.shape
    if axis is None:
        size = int(np.prod(shape))
    elif type(axis) is int and -len(shape) <= axis < len(shape):
        size = shape[axis]
    else:
        return None
    return (0, size - 1) if size > 0 else None


_COUNTER_RANGE = (0, 2 ** 62 - 1)


_KEYS_GUARDED = 4096   # a larger dict's membership test guards its whole contents


def _users_method(obj: Any, name: str) -> Any:
    """``python_method`` where it is the user's own code (a library's class
    keeps its protocol methods run as they were: natively)."""
    fn = python_method(obj, name)
    return fn if fn is not None and classify_callee(fn) is CallKind.USER_FUNCTION else None


def _missing_statically(obj: Any, attr: str) -> bool:
    """``obj.attr`` is found neither on the object nor on its class (Python
    would call the class's ``__getattr__``), looked up without running it."""
    try:
        inspect.getattr_static(obj, attr)
    except AttributeError:
        return True
    return False


def _lacks_attribute(obj: Any, name: str) -> bool:
    """``getattr(obj, name)`` raises AttributeError."""
    try:
        getattr(obj, name)
    except AttributeError:
        return True
    return False


def _lookup_fails(obj: Any, idx: Any) -> bool:
    """``obj[idx]`` raises KeyError or IndexError."""
    try:
        obj[idx]
    except LookupError:
        return True
    return False


def _plain_key(key: Any) -> bool:
    """A dict key whose hashing and comparison run no user code."""
    if type(key) is tuple:
        return all(_plain_key(k) for k in key)
    return type(key) in (bool, int, float, str, bytes, type(None))


def _counter_range(value: int) -> bool:
    """A traced Python int within ``_COUNTER_RANGE`` (its specialisation knows it)."""
    return _COUNTER_RANGE[0] <= value <= _COUNTER_RANGE[1]


_PARENTS: dict[int, tuple] = {}


def _truth_only(tree: Any, node: Any) -> bool:
    """Only the truth of ``node``'s value is read: it is the test of an
    ``if``, ``while``, ``assert`` or conditional expression, a comprehension's
    condition, or the operand of ``not``."""
    cached = _PARENTS.get(id(tree))
    if cached is None or cached[0] is not tree:
        if len(_PARENTS) > 256:
            _PARENTS.clear()
        cached = _PARENTS[id(tree)] = (tree, {id(c): n for n in gast.walk(tree) for c in gast.iter_child_nodes(n)})
    parent = cached[1].get(id(node))
    if isinstance(parent, (gast.If, gast.While, gast.IfExp, gast.Assert)):
        return parent.test is node
    if isinstance(parent, gast.comprehension):
        return any(c is node for c in parent.ifs)
    return isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not)


def _copying_index(obj: np.ndarray, idx: Any) -> bool:
    """``obj[idx]`` is a copy in NumPy, never a view of ``obj``: an advanced
    index (an integer array, traced or not; a list), or an integer for every
    axis (an element)."""
    parts = idx if type(idx) is tuple else (idx,)
    for p in parts:
        if isinstance(p, Value) and p.type.shape and p.type.dtype.kind in "iu" or isinstance(p, (list, np.ndarray)):
            return True
    scalar = [p for p in parts if isinstance(p, (int, np.integer)) and not isinstance(p, bool)
              or isinstance(p, Value) and not p.type.shape and p.type.dtype.kind in "iu"]
    return len(scalar) == len(parts) == obj.ndim


def _contiguous_strides(shape: tuple, itemsize: int, order: str) -> tuple:
    """The strides of a whole C- or F-ordered array of ``shape``."""
    dims = list(shape) if order == "C" else list(reversed(shape))
    out, step = [], itemsize
    for n in reversed(dims):
        out.append(step)
        step *= max(n, 1)
    out.reverse()
    return tuple(out) if order == "C" else tuple(reversed(out))


_ITEMS_VIEW = type({}.items())
_VALUE_VIEWS = (type({}.values()), _ITEMS_VIEW)   # a dict's views whose items hold its values

class Specializer(OperatorMixin, CallMixin, ControlMixin, BlocksMixin, MatchMixin, MutationMixin, NnxMixin, WritebackMixin,
                  ContainerMixin, ListIndexMixin, VarListMixin, MaskedMixin, KindTagMixin, IdentityMixin):
    """Abstract interpreter for one call signature of one segment."""

    def __init__(self, options: Options):
        self.options = options
        self.regions: list[Region] = []
        self.frame: Frame | None = None
        self.traced_depth = 0
        self.loop_depth = 0
        self.loops_held: list = []   # each loop body running: what its ``for`` iterates (``LoopCtx.held``)
        self.loop_sources: list = []   # each unrolled ``for`` running over an iterator: that iterator (what it still pulls)
        self.inline_depth = 0
        self.traced_recursions = 0   # recursive calls inlined under a traced branch (``CallMixin._run_frame``)
        self.fresh: dict[int, tuple[int, Any]] = {}
        self.mutations = 0
        self.mutated: list[int] = []   # ids of this trace's objects mutated, in order (``check_mutable``)
        self.decisions: dict[tuple, Decision] = {}
        self.guards: list[Guard] = []
        self.guard_keys: set = set()
        self.numpy_errors_at_entry = np.geterr()   # the caller's modes (``calls.numpy_fp_warnings`` guards them)
        # ids of static objects whose identity the trace observed (``is``,
        # ``id()``, handed to a callable): a graph specialised on an object by
        # value (``guards.object_key``) then serves that object only
        self.identity_used: set[int] = set()
        self.origin: dict[int, tuple] = {}
        # the cells of the converted function's call (interpreted.CELLS): id -> (cell, variable)
        self.own_cells: dict[int, tuple] = {}
        self.top_frame: Frame | None = None
        self.properties: dict[tuple, Any] = {}   # (class, attribute) -> a user property's getter, or None   # id -> (object, where it was read from), for guard descriptions
        self.captures: list[Capture] = []
        self.capture_keys: dict = {}
        # The statements still to run in the current function, innermost
        # block last: (block, index of the running statement); None marks a
        # loop body, past which "the rest of the function" is not a sequence.
        self.cont: list[Any] = []
        # Attribute writes on outside objects, lifted out of the graph:
        # (id(obj), attr) -> (obj, attr, value), applied after each call.
        self.attr_writes: dict[tuple, tuple] = {}
        # Values a statement holds while its targets run, innermost last:
        # those of an unpacking assignment not yet assigned (``A[0], A[1] =
        # A[1], A[0]``: while A[0] is written, the view A[0] waits to be
        # assigned to A[1]). A write must show through them.
        self.pending: list[tuple[list, int]] = []
        # The values a ``return`` in a ``try`` body returns, held while its
        # ``finally:`` runs (``blocks._finally_then``): eager returns that very
        # object, after the ``finally:`` (a write must show through them).
        self.held_returns: list = []
        # NumPy arrays whose rows an iteration took at trace time (all at
        # once: ``iterate_static``) while eager takes each when it is pulled
        # (``for v in x[:-1]: x[i + 1] += v`` reads the written x): a write
        # into one must show through the rows not yet pulled.
        self.iterated: list[PendingRows] = []
        self.storing: tuple | None = None   # (array, index) of the write being checked (mutation.py)
        # NumPy arrays written in place (mutation.py): views (id -> (value,
        # bases)); arguments (id -> (value, leaf index)) and their final
        # versions to write back; leaf indices sharing memory with another
        # argument; the frames of the callers of inlined functions.
        self.view_of: dict[int, tuple] = {}
        # NumPy arrays made in this segment by a NumPy function that eager
        # gives as a new writeable array (no view, no operand handed back:
        # mutation._numpy_result_kinds): id -> (value, the id of its first
        # version: one object in eager); ``x.flags.writeable`` is True
        self.writeable_arrays: dict[int, tuple] = {}
        # NumPy arrays eager allocates whole (a ufunc's or an operator's
        # result, a trace-time array of its own data written in place, their
        # written versions): id -> value; contiguous in some axis order, which
        # answers ``x.flags.c_contiguous`` where at most one axis is longer than 1
        self.allocated_arrays: dict[int, Any] = {}
        # the first versions (``writeable_arrays``' ids) of NumPy arrays made at
        # trace time and then written with traced values -> that trace-time
        # array: eager's object (its views share its memory)
        self.from_trace_time: dict[int, np.ndarray] = {}
        # NumPy arrays that are read-only in eager: ``np.asarray`` of a
        # jax.Array (a view of its host buffer), ``np.broadcast_to``, views of
        # them (mutation._mark_views): a write raises eager's ValueError
        self.readonly_arrays: dict[int, Value] = {}
        self.input_of: dict[int, tuple] = {}
        self.jax_input_of: dict[int, tuple] = {}   # id -> (Value, leaf index) of the jax.Array arguments
        self.input_layout: dict[int, tuple[bool, bool]] = {}   # argument leaf -> (C, F) contiguity (in the plan key)
        self.input_writes: dict[int, Value] = {}
        self.input_aliased: set[int] = set()
        # the caller's lists and dicts among the inputs, rebuilt at trace time
        # (boundary.abstract_inputs): id -> (the abstract container, its path)
        self.input_containers: dict[int, tuple] = {}
        # the caller's list or dict each of them stands for (by id of the abstract one): an object's
        # ``__dict__`` passed as well as the object (``_storage_write``)
        self.input_originals: dict[int, Any] = {}
        self.first_writes: dict[int, int] = {}   # id(input container) -> the segment's statement that first wrote it
        self.current_top = 0   # the segment's statement being traced
        self.first_input_writes: dict[int, int] = {}   # argument leaf -> the statement that first wrote it
        # NumPy arrays read from outside written in place (mutation._capture_store): capture index ->
        # its write-back target; id(version) -> (version, capture index); capture -> its first writer
        self.inplace_targets: dict[int, Any] = {}
        self.capture_index: dict[int, int] = {}   # id(capture's value) -> its index in ``captures``
        self.captured_versions: dict[int, tuple] = {}
        self.first_capture_writes: dict[int, int] = {}
        self.callers: list[Frame] = []
        self.call_nodes: list[Any] = []   # the nodes that called them (for a check's traceback)
        # Keys of outside Python numbers to read traced (they kept changing).
        self.traced_statics: frozenset = frozenset()
        self.traced_static_values: dict = {}   # key -> the graph input a traced outside number was read as
        # run-time checks allowed: True (all), "no raise" (not a `raise` or
        # `assert`: the segment prints), False (none: it writes state back)
        self.raise_checks: bool | str = True
        # a run-time check was emitted after a write of state the segment
        # applies after the call (or in a rolled loop's body, where a later
        # iteration's check follows the earlier one's writes): a raise there
        # would drop writes eager made (``specialize.specialize``)
        self.late_checks = False
        # The user's JAX x64 switch (off by default): JAX ops follow it (precision.py).
        self.user_x64 = bool(jax.config.jax_enable_x64)
        # the caller runs the converted function under a JAX transform: its
        # jax.Array values are JAX tracers in eager (``kinds.array_exemplars``)
        self.outer_traced = False

    # ----------------------------------------------------------- diagnostics
    def loc(self, node: Any) -> Loc:
        return self.frame.unit.loc(node)

    def graph_break(self, code: FallbackCode, node: Any, cause: str, construct: str | None = None,
                    hint: str = "", exc: BaseException | None = None) -> GraphBreak:
        """``exc``: the exception eager Python raises here, when it is known at
        trace time (a ``try`` on the same path may then handle it statically)."""
        construct = construct or type(node).__name__.lower()
        if isinstance(exc, Unobservable):
            exc = None   # ast2graph's own: eager raises nothing here
        err = GraphBreak(FallbackSite(code, self.loc(node), construct, cause, loop_depth=self.loop_depth, hint=hint))
        err.exc, err.traced_depth = exc, self.traced_depth  # type: ignore[attr-defined]
        if exc is not None:
            with contextlib.suppress(AttributeError, TypeError):
                exc._a2g_eager = True   # eager's own: never taken for a failure of ast2graph (kinds.internal_failure)
        return err

    def internal_error(self, node: Any, error: BaseException, context: str) -> GraphBreak:
        """A failure of ast2graph's own machinery while it traced ``node``
        (not the user's code raising as it does in eager): the site falls back
        as an internal error (A2G015) naming it; with ``AST2GRAPH_CHECKS=1``
        (tests) the failure itself propagates, so a test fails on it."""
        if os.environ.get("AST2GRAPH_CHECKS", "") not in ("", "0"):
            raise error
        first = str(error).splitlines()[0] if str(error) else ""
        return self.graph_break(FallbackCode.INTERNAL_ERROR, node, f"{context}: {type(error).__name__}: {first}")

    def decide(self, node: Any, construct: str, mode: str, reason: str) -> None:
        key = (self.loc(node), construct, mode, reason)
        if key in self.decisions:
            self.decisions[key].count += 1
        else:
            self.decisions[key] = Decision(self.loc(node), construct, mode, reason)

    # ------------------------------------------------------------- emission
    @property
    def region(self) -> Region:
        return self.regions[-1]

    @contextlib.contextmanager
    def in_region(self, region: Region, traced: bool = True) -> Iterator[None]:
        self.regions.append(region)
        self.traced_depth += traced
        try:
            yield
        finally:
            self.regions.pop()
            self.traced_depth -= traced

    def emit_call(self, fn: Callable, args: tuple, kwargs: dict, node: Any, name: str = "",
                  effect: bool = False, numpy_fn: bool = False, eager_fn: Any = None, callee: Any = None) -> Any:
        """Emit ``fn(*args, **kwargs)``; its type comes from a typing rule
        (``elementwise``, ``shaperules``), the cache, or tracing it once
        (``tracing.output_types``, what ``jax.eval_shape`` gives), under the
        rules eager follows (``precision``: JAX's with x64 off, or NumPy's and
        Python's at 64 bits).
        An op with no array result is dropped unless it has an ``effect``.
        ``numpy_fn``: the user called a NumPy function (its eager result is an ndarray).
        ``eager_fn``: what the user called, when ``fn`` stands for it (``np.sin`` run as ``jnp.sin``).
        ``callee``: the function the user called, when ``fn`` stands for it
        (``jnp.sum`` for ``np.sum``): it decides the results' eager kinds."""
        if getattr(fn, "_a2g_check", False):
            if self._check_site(fn, args, kwargs, node, name):
                return None   # taken by a handler around it: its condition ends the body (blocks.caught_check)
            writes = self.__dict__.pop("_check_writes", None)
            if writes is not None:   # (``_check_site``): made first when it fires, then the check's own calls
                a, k = (args[2] if len(args) > 2 else ()), (args[3] if len(args) > 3 else {})
                before = (writes, *kwargs.get("before", ()))
                kwargs = {**kwargs, "before": before, "kinds": self.value_kinds((a, k, before), node)}
            if fn is arrays.raise_when and self.__dict__.get("filters_bumped"):
                # eager changed the warning filters' version before this check (specialize._only_version_bumps)
                kwargs = {**kwargs, "first": hostwarnings.filters_mutated}
        self._guard_operands(args, kwargs, node)
        leaves, treedef = tree_flatten((args, kwargs))
        if any(type(x) is KindedValue for x in leaves):   # computed per kind where its callers split (pathkinds)
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name or qualified_name(fn)} is given a value "
                                   "whose kind (NumPy array, Python number or jax.Array) depends on the path taken")
        if not effect and _numpy_warnings_may_raise() and any(
                isinstance(x, Value) and x.type.kinds & {"numpy", "array0"} and x.type.dtype.kind in "fciu" for x in leaves):
            self._numpy_warning_errors(node, name or qualified_name(fn))
        if not effect and not numpy_fn and eager_fn is None and self.folded_operands(leaves):
            folded = self.fold_constant(fn, args, kwargs)   # calls.py: made at trace time, as eager makes it
            if folded is not None:
                return folded
        asked = fn   # the operator the user's code applies (``abs``: ``precise_eval`` may compute it by another op)
        leaves, x32, (out_tree, out_leaves), fn = self.precise_eval(fn, treedef, leaves, node, numpy_fn, eager_fn)
        if any(type(leaf) is PassedValue for leaf in out_leaves):
            out_leaves = self._passed_through(fn, name, leaves, out_leaves, node, effect)
            if not effect and not any(isinstance(leaf, Value) and not any(leaf is x for x in leaves)
                                      for leaf in out_leaves):
                return jax.tree_util.tree_unflatten(out_tree, out_leaves)   # nothing computed: no op
        results = [leaf for leaf in out_leaves if isinstance(leaf, Value)]
        if len(results) == 1 and getattr(results[0].type.dtype, "kind", None) in ("i", "u"):   # (a PRNG key's dtype has no kind)
            known = _position_range(fn, args, kwargs)
            if known is not None:   # ``x[int(np.argmin(x))]`` needs no bounds check
                INT_RANGE[results[0]] = known
        self.mark_kinds(fn, name, treedef, leaves, out_tree, out_leaves, node, callee)
        if results and (self.view_of or self.__dict__.get("jax_buffers")):
            self.note_view_recipes(fn, treedef, leaves, results, eager_fn, len(out_leaves))   # mutation.py
        for leaf in out_leaves:
            if type(leaf) is np.ndarray and leaf.base is None and not any(leaf is x for x in leaves):
                self.mark_fresh(leaf)   # a new NumPy array computed at trace time (np.zeros(n))
        if results or effect:
            label = name or qualified_name(fn)
            site = self.host_site(node) if _touches_host(fn) else None
            # a NumPy array made at trace time is an operand as it is now: a later trace-time write
            # into it (``c[:] = 7`` after ``v = c + x``) must not reach this op, as eager's op ran before it
            operands = [x.copy() if type(x) is np.ndarray and arrays.writeable(x) else x for x in leaves]
            self.region.ops.append(CallOp(results, self.loc(node), fn, treedef, operands, label, x32, site))
            if results and not effect and (numpy_fn or fn in _FP_OPERATOR_FNS or asked in _FP_OPERATOR_FNS):
                # NumPy's RuntimeWarnings (calls.py)
                self.numpy_fp_warnings(asked if asked in _FP_OPERATOR_FNS and fn not in _FP_OPERATOR_FNS else fn,
                                       args, kwargs, results, node,
                                       eager_fn if isinstance(eager_fn, np.ufunc) else callee)
        pending = self.__dict__.pop("_overflow_check", None)
        if pending is not None and any(pending[1] is r for r in results):   # (mutation._python_int_bits)
            operands, result, subtract = pending
            self.emit_call(arrays.int_add_overflow_check, (*operands, result, subtract, str(self.loc(node))), {},
                           node, "int64 overflow check", effect=True)
        return self._made_by_op(jax.tree_util.tree_unflatten(out_tree, out_leaves))

    def _made_by_op(self, out: Any) -> Any:
        """An op's result structure: its lists and dicts are new (``tree_unflatten``
        made them, as eager's call makes its own: ``jax.tree_util.tree_map(f,
        params)``), this trace's to read and write. Taken for outside
        containers, a read (``new["layer"]``) guarded one, and it left the
        segment as the trace-time object with traced values inside."""
        stack = [out]
        while stack:
            x = stack.pop()
            if type(x) in (list, dict):
                self.mark_fresh(x)
            if type(x) in (list, dict, tuple):
                stack.extend(x.values() if type(x) is dict else x)
        return out

    def _passed_through(self, fn: Callable, name: str, leaves: list, out_leaves: list, node: Any, effect: bool) -> list:
        """``out_leaves`` with each operand the call handed back unchanged
        (``PassedValue``) resolved. A JAX or NumPy function's is a result like
        any other (``jnp.asarray(x)`` hands back its tracer where eager makes a
        jax.Array). Python code's (a standard-library container made of the
        arguments: ``OrderedDict``, ``dict.fromkeys``, ``max(..., key=)``; a
        library's getter beside values it computes: an NNX ``Variable.value``)
        is the operand itself, exactly: typed as a result of the op it would
        be narrowed or re-kinded under JAX's rules, where eager hands on the
        object unchanged. Where every result is such an operand and the call
        has no effect, no op is emitted."""
        home = _home_module(fn)
        if home.startswith(_ARRAY_MODULES):   # ``jnp.asarray(x)`` hands back its tracer, eager makes a jax.Array
            return [Value(x.type) if type(x) is PassedValue else x for x in out_leaves]
        # Python code that hands back an operand unchanged (a stdlib container of the arguments, a
        # library's getter beside values it computes): that operand itself, exactly, with eager's kind
        # and precision (typed as a result of the op it would be narrowed under JAX's rules); the op
        # computes the other results
        return [leaves[x.index] if type(x) is PassedValue else x for x in out_leaves]

    def _abstract_eval(self, fn: Callable, treedef: Any, leaves: list, node: Any, x32: bool = False):
        """The result of ``fn`` on ``leaves``: under JAX's rules with x64 off
        (``x32``: on the operands narrowed as ``jnp.asarray`` narrows them), or
        with x64 on (NumPy's, Python's and the IR's own ops)."""
        if x32:
            leaves = [Value(canonical_type(x.type)) if type(x) is Value and is_64bit(x.type.dtype) else x
                      for x in leaves]
        x64 = not x32
        if bool(jax.config.jax_enable_x64) != x64:
            with jax.enable_x64(x64):
                return self._abstract_eval_here(fn, treedef, leaves, node)
        return self._abstract_eval_here(fn, treedef, leaves, node)

    def _abstract_eval_here(self, fn: Callable, treedef: Any, leaves: list, node: Any):
        if fn in ELEMENTWISE and len(leaves) in ELEMENTWISE[fn]:
            out = elementwise_type(fn, treedef, leaves, _EVAL_CACHE)
            if out is not None:
                return out
        out = rule_type(fn, treedef, leaves)
        if out is not None:
            return out
        key = _eval_key(fn, treedef, leaves)
        hit = _EVAL_CACHE.get(key) if key is not None else None
        if hit is not None:
            out_tree, template = hit
            return out_tree, [Value(x) if type(x) is ArrayType else PassedValue(x.type, x.index) if type(x) is _Passed
                              else x for x in template]
        out_tree, out = self._jax_eval(fn, treedef, leaves, node)
        if key is not None and all(isinstance(x, Value) or type(x) in _IMMUTABLE for x in out):
            if len(_EVAL_CACHE) >= _EVAL_CACHE_SIZE:
                _EVAL_CACHE.clear()
            _EVAL_CACHE[key] = (out_tree, [_Passed(x.type, x.index) if type(x) is PassedValue else
                                           x.type if isinstance(x, Value) else x for x in out])
        return out_tree, out

    def _jax_eval(self, fn: Callable, treedef: Any, leaves: list, node: Any):
        positions = [i for i, leaf in enumerate(leaves) if isinstance(leaf, Value)]
        box: dict[str, Any] = {}

        def run(*arrays_in):
            filled = list(leaves)
            for i, a in zip(positions, arrays_in):
                filled[i] = a
            args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
            # NumPy computing on values known now (a Python float argument): a floating-point error it
            # flags would be one warning at trace time, from here, where eager warns on every call
            with watching() as watch, np.errstate(**_flagged_errors()):
                try:
                    result = fn(*args, **kwargs)
                except Exception as e:
                    box["error"] = e
                    raise
                finally:
                    box["tripped"] = watch.tripped
            out_leaves, out_tree = trees.tree_flatten(result)
            box["tree"], box["leaves"] = out_tree, out_leaves
            # which results are operands handed back unchanged (their leaf positions)
            box["passed"] = {id(x): positions[k] for k, x in enumerate(arrays_in)
                             if any(x is y for y in out_leaves)}
            return [x for x in out_leaves if isinstance(x, jax.Array)]

        name = getattr(fn, "__qualname__", "") if getattr(fn, "__module__", "") == arrays.__name__ else ""
        what = f"`{name}()`" if name.startswith(".") else qualified_name(fn)
        try:
            types = output_types(run, [leaves[i].type for i in positions])
        except GraphBreak:
            raise
        except Exception as e:  # noqa: BLE001 - classified below: eager's, a traced value's, or ours
            number = _traced_number_among(leaves)
            if number and (box.get("tripped") or isinstance(e, (StandinSeen, jax.errors.JAXTypeError))):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} needs the value of {number} as a "
                                       "shape, size or static argument (eager has the number itself)") from None
            if box.get("tripped") or isinstance(e, StandinSeen):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} looks at a traced array at trace "
                                       "time (its text or truth; eager has its value)") from None
            if isinstance(e, jax.errors.JAXTypeError):  # concretisation, tracer-to-bool, ...
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} of a traced array needs its value on the host "
                                       f"({type(e).__name__})") from None
            if isinstance(e, FloatingPointError) and box.get("error") is e and not _raises_now(e):
                raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{what} on values known at trace time "
                                       f"issues NumPy's RuntimeWarning ({e}) on every call", "call") from None
            if getattr(e, "_a2g_signal", False):   # an op's own signal (nnx.NnxUnsupported): its caller decides
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{what}: {e}", exc=e) from None
            if box.get("error") is not e or internal_failure(e, below=run.__code__):
                raise self.internal_error(node, e, f"tracing {what}")
            message = f"{what} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if traced_as_eager(fn, leaves, e):
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, message, exc=e) from None
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{message} on traced arrays (eager passes "
                                   "it its values, of eager's kinds)") from None
        if box.get("tripped"):   # the function caught the exception and went on
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} looks at a traced array at trace "
                                   "time (its text or truth; eager has its value)")
        types = iter(types)
        out = []
        passed = box.get("passed", {})
        for leaf in box["leaves"]:
            if isinstance(leaf, jax.Array):
                t = next(types)
                out.append(PassedValue(t, passed[id(leaf)]) if id(leaf) in passed else Value(t))
            elif positions and (not isinstance(leaf, _SAFE_STATIC) or _holds_tracer(leaf)):
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(fn)} returned a Python object ({type(leaf).__name__}) built from traced values")
            else:
                out.append(leaf)
        return box["tree"], out

    def as_value(self, x: Any, node: Any) -> Value:
        """A static number as a graph constant; a Value as itself."""
        if isinstance(x, Value):
            return x
        v = self.emit_call(arrays.constant, (x,), {}, node, "asarray")
        if not isinstance(v, Value):   # a small jax.Array folded at trace time (``jnp.arange(3)``): a graph constant
            v = Value(ArrayType.of(x))
            self.region.ops.append(CallOp([v], self.loc(node), arrays.constant,
                                          jax.tree_util.tree_structure(((0,), {})), [x], "asarray"))
        if is_python_number(x):
            v.type = dataclasses.replace(v.type, python=True)
        return v

    def convert(self, x: Any, target: ArrayType, node: Any) -> Value:
        v = self.as_value(x, node)
        if v.type == target:
            return v
        if v.type.shape != target.shape:
            raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, node, f"shape {v.type} cannot become {target}")
        out = self.emit_call(arrays.cast, (v, target.dtype, target.weak_type), {}, node, "convert")
        out.type = out.type.with_kinds(target.kinds)
        return out

    # ---------------------------------------------------------------- names
    def lookup(self, name: str, node: Any, frame: Frame | None = None) -> Any:
        frame = frame or self.frame
        if frame.owns(name):
            value = frame.env.get(name, UNBOUND)
            if value is UNBOUND:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"local variable '{name}' is not bound here (eager raises UnboundLocalError)", "name")
            if isinstance(value, MaybeBound):
                return self.check_bound(name, value, node, local=frame is self.frame)
            return value
        if frame.parent is not None:
            return self.lookup(name, node, frame.parent)
        return self._outer_lookup(name, node, frame)

    def check_bound(self, name: str, value: MaybeBound, node: Any, local: bool = True) -> Any:
        """A read of a variable bound on some paths only: a run-time check that
        raises eager's error where it is unbound, then its value."""
        if local:
            exc, msg = UnboundLocalError, f"cannot access local variable '{name}' where it is not associated with a value"
        else:
            exc, msg = NameError, f"cannot access free variable '{name}' where it is not associated with a value in enclosing scope"
        flag = value.flag
        if flag is True:
            return value.value
        if flag is False:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{msg} (eager raises {exc.__name__})", "name")
        if not self.raise_checks_allowed() or not self.check_passes(exc):
            raise self.graph_break(FallbackCode.BRANCH_MISMATCH, node, f"variable '{name}' is assigned under a traced "
                                   "condition and may be unbound here; the run-time check that raises eager's "
                                   f"{exc.__name__} is not allowed here (inside try/except or a printing segment)", "name")
        unbound = self.emit_call(arrays.logical_not, (flag,), {}, node, "not")
        self.emit_call(arrays.raise_when, (unbound, exc, (msg,), {}), {"site": self.raise_site(node), "kinds": ()},
                       node, "name", effect=True)
        return value.value

    def _outer_lookup(self, name: str, node: Any, frame: Frame) -> Any:
        unit = frame.unit
        if name in unit.closure:
            cell = unit.closure[name]
            pending = self.attr_writes.get((id(cell), "cell_contents"))
            if pending is not None and pending[0] is cell:
                return pending[2]
            own = self.own_cells.get(id(cell))
            if own is not None and own[0] is cell:
                # a cell of this very call of the converted function (a function
                # defined by an interpreted statement): its variable's value here
                return self.lookup(own[1], node, self.top_frame)
            try:
                value = cell.cell_contents
            except ValueError:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"free variable '{name}' is not bound (eager raises NameError)", "name")
            return self.external(value, lambda: cell.cell_contents, f"closure variable {name}", ("cell", id(cell)),
                                 ("cell", cell, None))
        globs = unit.globals
        pending = self.pending_global(globs, name)
        if pending is not NOT_PENDING:   # written earlier in this graph (writeback.py)
            return pending
        if name in globs:
            return self.external(globs[name], lambda: globs[name], f"global {name}", ("global", id(globs), name),
                                 ("global", globs, name))
        ok, value = builtin_value(name)
        if ok:
            return value
        raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"name '{name}' is not defined (eager raises NameError)", "name")

    def external(self, value: Any, getter: Callable[[], Any], description: str, key: Any,
                 source: tuple | None = None) -> Any:
        """A value read from outside the arguments: arrays become inputs, the rest is guarded.
        ``source``: what ``getter`` reads (``Guard.source``)."""
        if is_array(value):
            if ndarray_subclass(value):   # (the statement reading it runs in Python)
                raise self.graph_break(FallbackCode.OPAQUE_CALL, self.__dict__["_stmt"], subclass_cause(value), "name")
            if key not in self.capture_keys:
                from .lattice import array_type_of

                v = Value(array_type_of(value), description)
                if isinstance(value, (np.ndarray, np.generic)):   # eager reads a NumPy array or scalar
                    v.type = dataclasses.replace(v.type, numpy=True)
                self.capture_keys[key] = v
                if type(value) is np.ndarray:   # eager's read is that very object (identity.py)
                    self.identity_flags[id(v)] = (v, {("capture", len(self.captures)): True})
                self.capture_index[id(v)] = len(self.captures)
                self.captures.append(Capture(v, getter, description, source, type(value)))
            return self.read_capture(self.capture_keys[key])
        if key in self.traced_static_values:   # read traced (it kept changing): the same graph value each read
            return self.traced_static_values[key]
        if key in self.guard_keys:
            return value
        if not isinstance(value, types.ModuleType):   # (a module is named by its name: ``named``)
            self.origin[id(value)] = (value, description)
        self.guard_keys.add(key)
        if key in self.traced_statics and type(value) in (int, float) and is_traceable_number(value) and traced_int_ok(value):
            return self._traced_static(value, getter, description, key)
        self.guards.append(Guard(getter, value, description, key, source))
        return value

    def guard_reads(self, tree: Any, node: Any, objects: bool = True) -> None:
        """Guard the contents of every outside container or object in ``tree``
        (a value, or a tuple/list/dict of values created here): a builtin or a
        Python-level read at trace time may look at any part of it, and the
        caller may change it in place before the next call (``guards.py``)."""
        stack, seen = [tree], set()
        while stack:
            x = stack.pop()
            if isinstance(x, _SAFE_LEAVES) or isinstance(x, Value) or id(x) in seen:
                continue
            seen.add(id(x))
            self.check_no_effect(x, node, objects)
            if type(x) in _VALUE_VIEWS and type(viewed_dict(x)) is dict:   # what it shows: its dict's contents
                stack.append(viewed_dict(x))
            elif self._is_fresh(x) or type(x) is tuple:
                stack.extend(x.values() if isinstance(x, dict) else x if isinstance(x, (list, tuple, set)) else ())
            elif watched(x):
                self._guard_contents(x, node, objects)

    def _guard_operands(self, args: tuple, kwargs: dict, node: Any) -> None:
        """Outside lists, dicts and sets among an op's operands become static
        arguments of the op: their contents are guarded; other objects there
        are used by identity."""
        stack = [*args, *kwargs.values()]
        while stack:
            x = stack.pop()
            kind = type(x)
            if kind is Value or isinstance(x, _SAFE_LEAVES):
                continue
            if isinstance(x, (list, dict, set)) and not self._is_fresh(x):   # a defaultdict, a Counter too
                self.guard_reads(x, node)
            elif isinstance(x, (list, tuple, dict, set)):
                stack.extend(x.values() if isinstance(x, dict) else x)
            elif not is_array(x):
                self.identity_used.add(id(x))

    def named(self, obj: Any, article: str = "") -> str:
        """Where an outside object was read from (``global SCALES``,
        ``Model.cfg``), else its type's name."""
        if isinstance(obj, types.ModuleType):
            return obj.__name__
        entry = self.origin.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else article + type(obj).__name__

    def note_identity(self, tree: Any) -> None:
        """The trace depends on the identity of the objects in ``tree``."""
        stack, seen = [tree], set()
        while stack:   # not jax.tree_util: a dict whose keys do not sort (``re``'s cache) is fine
            x = stack.pop()
            if isinstance(x, (list, tuple, dict)):
                if id(x) not in seen:
                    seen.add(id(x))
                    stack.extend(x.values() if isinstance(x, dict) else x)
            elif x is not None and not isinstance(x, _SAFE_LEAVES):
                self.identity_used.add(id(x))

    def _guard_contents(self, tree: Any, node: Any, objects: bool = True) -> None:
        self.check_no_effect(tree, node, objects)
        key = ("contents", id(tree))
        if key in self.guard_keys:
            return
        try:
            snapshot = Snapshot(tree)
        except TooLarge:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"a read of a large outside {type(tree).__name__} "
                                   "whose contents cannot be guarded cheaply (it could change before the next call)")
        self.guard_keys.add(key)
        self.guards.append(Guard(lambda: tree, snapshot, f"the contents of {self.named(tree, 'a ')}", key))
        self._note_guarded_nested(tree)

    def _note_guarded_nested(self, tree: Any) -> None:
        """The lists and dicts inside an outside container whose contents are
        guarded (``Snapshot`` holds each by identity): each is the caller's
        object on every call, so one that leaves the segment (``dict(state)``
        hands on ``state["history"]``) leaves as itself (``outside_container``),
        never as a copy of what it held when traced."""
        nested = self.__dict__.setdefault("guarded_nested", {})
        stack, seen = [tree], set()
        while stack:
            x = stack.pop()
            if id(x) in seen or not isinstance(x, (list, tuple, dict)):
                continue
            seen.add(id(x))
            if x is not tree and type(x) in (list, dict):
                nested[id(x)] = x
            stack.extend(x.values() if isinstance(x, dict) else x)

    def _traced_static(self, value: Any, getter: Callable[[], Any], description: str, key: Any) -> Value:
        """A Python int read from outside that keeps changing between calls
        (``self.calls += 1``), or a Python float the function itself writes
        back (``global total; total += 0.5``): a traced input of its Python
        type (int64, float64: exact, the graph runs with x64 on), guarded on
        that type only, so a new value does not recompile."""
        v = Value(static_array_type(value), description)
        kind = type(value)
        self.captures.append(Capture(v, lambda: host_scalar(getter()), description))   # int64/float64: exact
        if kind is int:
            WIDE_INTS.add(v)   # any int64: a JAX op checks it fits int32, as eager JAX does
            INT_BITS[v] = TRACED_INT_BITS
        if kind is int and _counter_range(value):
            # a counter (``state["t"] += 1``, ``self.step``): guarded within [0, 2**62), a range the
            # graph then knows (``decay ** t`` cannot overflow, ``t + 1`` cannot wrap); a value outside
            # it specialises again, without the range
            INT_RANGE[v] = _COUNTER_RANGE
            self.guards.append(Guard(lambda: type(now := getter()) is int and _counter_range(now), True,
                                     f"{description} is an int in [0, 2**62)", key))
        else:
            self.guards.append(Guard(lambda: type(now := getter()) is kind and is_traceable_number(now)
                                     and traced_int_ok(now) and not (kind is int and _counter_range(now)), True,
                                     f"{description} is a {kind.__name__}", key))
        self.traced_static_values[key] = v
        return v

    def nonlocal_depth(self, frame: Any, name: str) -> int:
        """The region depth at which an inlined nested function's write to
        the enclosing activation's ``name`` is on that activation's straight
        path: 1 (no traced branch or rolled loop open), or one more than where
        the owner's innermost rolled loop began when that loop carries
        ``name`` (``exits.new_loop``: the names nested functions rebind) and
        the owner is inside it (its body region is the innermost one)."""
        owner = frame.parent
        while owner is not None and not owner.owns(name):
            owner = owner.parent
        rolled = self.__dict__.get("rolled_bodies") or []
        if owner is None or not rolled:
            return 1
        loop_frame, depth, names = rolled[-1]
        return depth if loop_frame is owner and name in names else 1

    def assign_name(self, name: str, value: Any, node: Any) -> None:
        frame = self.frame
        mirror = self.__dict__.get("_nonlocal_mirrors", {}).get((id(frame), name))
        if mirror and mirror[-1][1] == len(self.regions) and frame.owns(name):
            # joined by the traced ``if`` around it (control._mirror_nonlocals)
            frame.env[name] = mirror[-1][0].env[name] = value
            return
        if name in frame.unit.scope.declared_nonlocal and frame.parent is not None \
                and len(self.regions) == self.nonlocal_depth(frame, name):
            # An inlined local function on a straight path (no traced branch or
            # rolled loop, whose carried values the enclosing function's own
            # analysis computed without this write): its enclosing activation
            # is right here.
            owner = frame.parent
            while owner is not None and not owner.owns(name):
                owner = owner.parent
            if owner is not None:
                owner.env[name] = value
                return
        cell = frame.unit.closure.get(name) if name in frame.unit.scope.declared_nonlocal else None
        if cell is not None and self.own_cells.get(id(cell)) is None:
            # a closure rebinding its enclosing function's variable (optax's
            # ``nonlocal decay_steps``, a converted counter closure): lifted out
            # of the graph like an attribute write, into the cell (joined
            # under a traced if, carried by a rolled loop: writeback.py)
            self.lift_write(cell, "cell_contents", value, node, f"nonlocal {name!r}")
            return
        if name in frame.unit.scope.declared_global:   # set in the module after each call (writeback.py)
            self.assign_global(name, value, node)
            return
        if name in frame.unit.scope.declared_nonlocal:
            raise self.graph_break(FallbackCode.MUTATION, node, f"assignment to nonlocal variable '{name}' (in an "
                                   "inlined nested function, under a traced condition or in a rolled loop)")
        frame.env[name] = value

    # ---------------------------------------------------------- expressions
    def eval(self, node: Any) -> Any:
        method = getattr(self, "eval_" + type(node).__name__, None)
        if method is None:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, node, f"expression {type(node).__name__} is not supported in a graph")
        return method(node)

    def eval_Constant(self, node: gast.Constant) -> Any:
        return node.value

    def eval_Name(self, node: gast.Name) -> Any:
        return self.lookup(node.id, node)

    def eval_Tuple(self, node: gast.Tuple) -> Any:
        return tuple(self._elements(node.elts))

    def eval_List(self, node: gast.List) -> Any:
        return self.mark_fresh(list(self._elements(node.elts)))

    def check_effectful_dunders(self, objects: tuple, what: str, node: Any, names: tuple = dunders.IMPLICIT) -> None:
        """Falls back before ``what`` (a builtin run at trace time) would run
        a protocol method of the user's that may have an effect (``__lt__``
        that prints, ``__hash__`` that counts): eager runs it on every call,
        the trace only once (``dunders.py``)."""
        found = dunders.effectful_dunder(objects, names)
        if found is not None:
            obj, name = found
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{what} runs {type(obj).__name__}.{name}, which "
                                   "may have an effect (a print, a write) that eager makes on every call", "call")

    def eval_Set(self, node: gast.Set) -> Any:
        items = list(self._elements(node.elts))
        self.check_effectful_dunders(tuple(items), "a set display", node, dunders.COMPARING)
        if _hashed_standins(items):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a set of traced values needs their hashes "
                                   "(eager hashes their values)")
        return self.mark_fresh(set(items))

    def eval_Dict(self, node: gast.Dict) -> Any:
        out: dict = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                mapping = self.eval(v)
                self.guard_reads(mapping, v)
                out.update(mapping)
            else:
                key = self.eval(k)
                if _hashed_standins([key]):   # (a string formatted from traced values too)
                    raise self.graph_break(FallbackCode.CONCRETE_VALUE, k, "a traced value as a dict key (eager "
                                           "hashes its value)")
                self.check_effectful_dunders((key, *out), "a dict display", k, dunders.COMPARING)
                out[key] = self.eval(v)
        return self.mark_fresh(out)

    def _elements(self, elts: list) -> Iterator[Any]:
        for e in elts:
            if isinstance(e, gast.Starred):
                yield from self.iterate_static(self.eval(e.value), e)
            else:
                yield self.eval(e)

    def iterate_static(self, value: Any, node: Any) -> list:
        """The items of an iterable known at trace time (array rows included)."""
        self.check_varlist_iteration(value, node)   # a list whose length depends on the data (varlist.py)
        if type(value) is KindedValue:   # the rows of each kind's object (a NumPy array's or a jax.Array's)
            # (plain lists: a NumPy kind's PendingRows and a jax.Array's list join as one structure;
            # its rows then count as never pulled, so a write into that array falls back)
            return self.split_kinds(value, lambda v: list(self.iterate_static(v, node)), node)
        if isinstance(value, Value):
            if not value.type.shape:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, "iteration over a 0-d array")
            n = value.type.shape[0]
            if n > self.options.max_unroll:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"unpacking {n} rows of an array")
            rows = [self.emit_call(arrays.getitem, (value, k), {}, node, "getitem") for k in range(n)]
            if value.type.numpy and n > 1:
                rows = PendingRows(value, rows)
                self.iterated.append(rows)
            return rows
        if isinstance(value, PickedRow):   # ``[*row]``, ``a, b = row`` of ``row = table[i]`` (listindex.py)
            return self.row_items(value, node)
        if isinstance(value, arrays.TracedRange):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a range with a traced bound used outside a for loop")
        if is_variable(value):   # an NNX Variable: the rows of its value
            return self.iterate_static(self.nnx_operator(list, (value,), node), node)
        if is_node(value):       # an nnx.List: its length and items are guarded
            self.nnx_guard([value])
        self.check_consumable(value, node)
        held = self.held_arrays(value, node)
        if held is not None:   # ``for p in self.params``: each item read as ``self.params[k]`` reads it
            return held
        if not self._is_fresh(value) and watched(value) and type(value) is dict:
            self.check_no_effect(value, node, True)
            self.guard_keys_of(value, node)   # ``for k in d``: its keys (``d[k]`` guards or captures each value it reads)
        elif type(value) in _VALUE_VIEWS and type(viewed_dict(value)) is dict:
            self.guard_reads(viewed_dict(value), node)   # a dict's values or items: its contents
        elif not self._is_fresh(value) and watched(value) and type(value) is not tuple:
            self._guard_contents(value, node)   # the items read are the ones it holds now
        method = None if isinstance(value, (list, tuple, dict, type)) else _users_method(value, "__iter__")
        if method is not None and not isinstance(value, collections.abc.Iterator):
            # a user class's own __iter__ (a generator method, ``iter(self.items)``): converted like a call, its
            # effects the graph's (run natively, they would happen once, at trace time, on every path)
            return self.iterate_static(self.call(method, (value,), {}, node), node)
        if not isinstance(value, (list, tuple, dict)):
            # a user's __iter__ runs natively here: it must not read a container whose writes are made after the call
            self.check_no_effect(value, node)
        if type(value) is np.ndarray and value.ndim and len(value) > 1:
            rows = PendingRows(value, list(value))   # (a NumPy array made at trace time: its rows, read now)
            self.iterated.append(rows)
            return rows
        try:
            return list(value)
        except Exception as e:  # noqa: BLE001
            state = getattr(value, "__dict__", None)
            if isinstance(state, dict) and contains_standin(list(state.values())):
                # (a user's __iter__/__getitem__ run natively on ast2graph's stand-ins: not eager's error)
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"iterating a {type(value).__name__} runs its "
                                       f"__iter__ or __getitem__ natively on traced values (which raised "
                                       f"{type(e).__name__}: {e}; eager's do not)") from None
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"iteration raised {type(e).__name__}: {e}", exc=e)

    def check_consumable(self, value: Any, node: Any) -> None:
        """Advancing an iterator the caller made (an argument, a global) is a
        Python effect eager performs on every call: it cannot happen once, at
        trace time."""
        if isinstance(value, collections.abc.Iterator) and not self._is_fresh(value):
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"advancing a {type(value).__name__} made outside the "
                                   "converted function (eager advances it on every call)", hint="pass a list, or "
                                   "call next() outside the converted function")
        if isinstance(value, collections.abc.Iterator) and self.fresh[id(value)][0] < self.traced_depth:
            # made outside a traced branch or a rolled loop, advanced inside it: how far it ran would
            # depend on data (a rolled body is traced once for every iteration)
            raise self.graph_break(FallbackCode.MUTATION, node, f"advancing a {type(value).__name__} made "
                                   "outside a traced branch or a rolled loop, from inside it")

    def mark_fresh(self, obj: Any) -> Any:
        """Objects created during tracing may be mutated at trace time."""
        self.fresh[id(obj)] = (self.traced_depth, obj)
        born = self.fresh_born
        if born.get(id(obj), (0, None))[1] is not obj:   # (the first time: when it was made)
            born[id(obj)] = (len(born), obj)
        return obj

    @property
    def new_arrays0(self) -> dict:
        """id -> a 0-d NumPy array a NumPy function made new (its eager result
        on exemplars was a writeable 0-d array sharing no operand's memory):
        ``.flags.writeable`` True (``known_flags_writeable``)."""
        return self.__dict__.setdefault("_new_arrays0", {})

    @property
    def fresh_born(self) -> dict:
        """id -> (the order in which ``mark_fresh`` first saw it, the object):
        whether a trace-time array was made after an inlined call began
        (``mutation._callers_hold_no_temporaries``)."""
        return self.__dict__.setdefault("_fresh_born", {})

    def own_dict(self, obj: Any) -> dict | None:
        """``vars(obj)`` / ``obj.__dict__`` of an object this call made: its
        attribute storage, this call's own as ``obj`` is (fresh at ``obj``'s
        depth), so ``vars(obj)[k] = v`` is made at trace time, as eager makes
        it, and ``obj.k`` then reads it; None for any other object."""
        entry = self.fresh.get(id(obj))
        storage = getattr(obj, "__dict__", None) if entry is not None and entry[1] is obj else None
        if type(storage) is not dict:
            return None
        self.fresh[id(storage)] = (entry[0], storage)
        return storage

    def mark_made(self, obj: Any) -> Any:
        """``obj``, the result of a call run at trace time, marked fresh when
        the call made it: nothing but the caller's variable holds it. A call
        may hand back an object that exists already (``max(lists)``,
        ``d.get(k)``, ``next(iter(xs))``, ``vars(o)``): a write into it must
        reach its other holders, so it is never fresh. The count of
        references tells the two apart whatever the callee (a new object has
        only the caller's, this call's argument and ``getrefcount``'s own)."""
        if sys.getrefcount(obj) <= _UNSHARED_REFS:
            self.fresh[id(obj)] = (self.traced_depth, obj)
        return obj

    def check_mutable(self, obj: Any, node: Any, what: str) -> None:
        self._storage_write(obj, node)
        owner = obj
        if not self._is_fresh(obj) and type(obj) is np.ndarray and isinstance(obj.base, np.ndarray):
            owner = obj.base   # a view of a NumPy array made in this trace (``for row in np.ones((n, m))``):
            # writes reach that array, this trace's own as well
        entry = self.fresh.get(id(owner))
        hint = ("grow lists only in loops with a static trip count (they unroll), or preallocate an array "
                "and write rows with x = x.at[i].set(v)") if isinstance(obj, (list, dict, set)) else ""
        if entry is None or entry[1] is not owner:
            raise self.graph_break(FallbackCode.MUTATION, node, f"{what} mutates an object created outside this compiled segment (an argument, a global, or a value of an earlier segment)", hint=hint)
        if entry[0] != self.traced_depth and not (entry[0] < self.traced_depth and self.log_container_write(obj, entry[0], node)):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{what} mutates a container created outside a traced branch or a rolled loop, from inside it", hint=hint)
        if id(obj) in self.input_containers:   # the statement that first wrote an input container (specialize._check_unseen)
            self.first_writes.setdefault(id(obj), self.current_top)
        self.mutations += 1
        self.mutated.append(id(obj))   # (checkscope: was it made before a run-time check?)

    def eval_BinOp(self, node: gast.BinOp) -> Any:
        return self.binop(arrays.OPERATORS[type(node.op).__name__], self.eval(node.left), self.eval(node.right), node)

    def binop(self, fn: Callable, left: Any, right: Any, node: Any) -> Any:
        if isinstance(left, MaskedSlice) or isinstance(right, MaskedSlice):   # ``x[:n] ** 2`` (masked.py)
            return self.masked_binop(fn, left, right, node)
        if type(left) is KindedValue or type(right) is KindedValue or \
                tuple in (type(left), type(right)) and kinded_in((left, right)):   # eager's operator on each path's objects
            return self.split_kinds((left, right), lambda lr: self.binop(fn, *lr, node), node)
        if is_nnx(left) or is_nnx(right):   # a Variable's operators read its current value
            return self.nnx_operator(fn, (left, right), node)
        out = self.user_operator(fn, (left, right), node)   # a class's own __add__ (operators.py)
        if out is not NOT_USER:
            return out
        if fn is operator.mod and type(left) is str and contains_value(right):
            return self.deferred_percent(left, right, node)
        if isinstance(left, Value) or isinstance(right, Value):
            left, right = _sequence_as_numpy(fn, left, right)   # ``x.shape[1:] != nbin - 2`` of a NumPy array
            left, right = (self._narrow_python_float(v, right if v is left else left, node) for v in (left, right))
            ufunc = _NUMPY_OPERATORS.get(fn)
            if ufunc is not None and numpy_operands(left, right):
                # ``a // 0``, ``a ** b`` of NumPy integers: ndarray's operators are NumPy's ufuncs,
                # with their integer rules (0 for a division by zero, ValueError for a negative power)
                return self.call(ufunc, (left, right), {}, node)
            if fn in _BOOL_TO_INT and _python_bool(left) and _python_bool(right):
                # ``flag_a + flag_b`` of Python bools is an int (2), where the arrays' add is a logical or
                left, right = (self.python_number(v, int, "trunc", "int()", node) if isinstance(v, Value) else int(v)
                               for v in (left, right))
            if fn in (operator.mul, operator.imul) and _mask_times_inexact(left, right):
                return self.emit_call(arrays.mask_product, (left, right), {}, node, fn.__name__)
            if fn in (operator.pow, operator.ipow) and _int_to_negative_power(left, right):
                # ``k ** -1`` of a traced Python int: int.__pow__ with a negative exponent computes in floats
                left, right = self.python_number(left, float, "", "float()", node), float(right)
            if fn in (operator.pow, operator.ipow):
                self._python_power(left, right, node)
            if fn in _MIRRORED and _python_int_and_float(left, right):
                return self._int_float_compare(fn, left, right, node)
            out = self._traced_division(fn, left, right, node) if fn in _DIVISIONS else \
                self.emit_call(fn, (left, right), {}, node, fn.__name__)
            if fn in (operator.pow, operator.ipow) and isinstance(out, Value) and type(out) is Value \
                    and out.type.python and out.type.dtype.kind == "f" and not out.type.shape:
                self._python_power_overflow(left, right, out, node)
            if fn in (operator.add, operator.iadd) and isinstance(out, Value) and out.type.dtype.kind == "f" \
                    and any(_positive_zero(v) for v in (left, right)):
                fixed = self.emit_call(arrays.plus_zero, (out,), {}, node, "add")   # ``sum(xs)`` starts at 0
                fixed.type = out.type
                out = fixed
            if isinstance(out, Value) and out.type.dtype.kind in "iu" and not out.type.shape:
                known = int_range_of(fn, left, right)
                info = np.iinfo(out.type.dtype)
                if known is not None and info.min <= known[0] and known[1] <= info.max:   # no wrap-around
                    INT_RANGE[out] = known
            return out
        if fn is operator.add and type(left) is list and type(right) is list \
                and (tail_of(left) is not None or tail_of(right) is not None):
            out = self.mark_fresh(list(left))   # ``kept + extra`` of lists whose length depends on the data
            self.extend_rows(out, list(right), node)
            return out
        if not (type(left) in _IMMUTABLE and type(right) in _IMMUTABLE) and contains_standin((left, right)):
            out = self.standin_operator(fn, left, right, node)
        else:
            out = self.static_call(fn, (left, right), {}, node)
        if type(out) in (list, dict, set) and out is not left and out is not right and fn in _NEW_CONTAINER:
            self.mark_fresh(out)   # ``[True] * n``, ``xs + ys``, ``d | e``: a new container on every call
        return out

    def _int_float_compare(self, fn: Callable, left: Any, right: Any, node: Any) -> Any:
        """A comparison of a Python int with a Python float (one traced):
        Python's exact one (``arrays.int_float_compare``), a Python bool."""
        if _python_kind(left) == "f":
            fn, left, right = _MIRRORED[fn], right, left
        out = self.emit_call(arrays.int_float_compare, (fn, left, right), {}, node, fn.__name__)
        out.type = out.type.with_kinds(("python",))
        return out

    def _traced_division(self, fn: Callable, left: Any, right: Any, node: Any) -> Any:
        """``left / right`` (``//``, ``%``) with a traced operand, zero divisors
        included as eager has them: Python numbers raise ZeroDivisionError (a
        run-time check, eager's message, for a traced divisor; at trace time
        for a static zero), NumPy integers give 0; JAX's arrays give what XLA
        gives, as in eager."""
        python = all(isinstance(v, Value) and v.type.python or is_python_number(v) for v in (left, right))
        if python:
            self._python_zero_division(fn, left, right, node)
        out = self.emit_call(fn, (left, right), {}, node, fn.__name__)
        if fn not in (operator.truediv, operator.itruediv) and isinstance(out, Value) and out.type.dtype.kind == "f" \
                and not out.type.mixed and "jax" not in out.type.kinds:   # a zero's sign, as NumPy's and Python's
            fixed = self.emit_call(arrays.python_zero_signs, (out, left, right, fn in (operator.floordiv, operator.ifloordiv)),
                                   {}, node, "where")
            fixed.type = out.type
            out = fixed
        if not python and isinstance(out, Value) and out.type.dtype.kind in "iu" and "numpy" in out.type.kinds \
                and _may_be_zero(right):
            fixed = self.emit_call(arrays.numpy_int_division, (out, right), {}, node, "where")
            fixed.type = out.type
            out = fixed
        return out

    def _python_power(self, base: Any, exponent: Any, node: Any) -> None:
        """``base ** exponent`` of Python numbers, one traced, as eager has it:
        a negative base to a fractional power is a complex number (its kind
        depends on the data: the statement runs in Python); zero to a negative
        power raises ZeroDivisionError (a run-time check)."""
        python = lambda v: isinstance(v, Value) and v.type.python or is_python_number(v)  # noqa: E731
        if not (python(base) and python(exponent)):
            return
        if isinstance(base, Value) and base.type.dtype.kind == "c" or type(base) is complex \
                or isinstance(exponent, Value) and exponent.type.dtype.kind == "c" or type(exponent) is complex:
            return   # complex arithmetic: no kind change, 0 ** -1 raises the same way below
        integral = exponent.type.dtype.kind in "biu" if isinstance(exponent, Value) else float(exponent).is_integer()
        if not integral and not (not isinstance(base, Value) and base >= 0):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a Python number raised to a power that may be "
                                   "fractional: eager's result is a complex number when the base is negative "
                                   "(its kind depends on the data)", "binop")
        if not isinstance(exponent, Value) and exponent >= 0 or not isinstance(base, Value) and base != 0:
            return
        if not self.raise_checks_allowed() and not self.check_may_be_caught():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "0 ** a negative power raises ZeroDivisionError "
                                   "in eager, where a run-time check cannot raise it", "binop")
        zero = self.emit_call(operator.eq, (base, 0), {}, node, "eq")
        if isinstance(exponent, Value):
            zero = self.emit_call(operator.and_, (zero, self.emit_call(operator.lt, (exponent, 0), {}, node, "lt")),
                                  {}, node, "and")
        self.emit_call(arrays.raise_when, (self.truth(zero, node), ZeroDivisionError,
                                          ("0.0 cannot be raised to a negative power",)), {}, node,
                       "zero power check", effect=True)

    def _python_power_overflow(self, base: Any, exponent: Any, out: Value, node: Any) -> None:
        """Eager's OverflowError for a Python float power of finite operands
        whose result overflows (``10.0 ** 400``, where ``1e300 * 1e300`` is
        inf): a run-time check. An exponent known within [0, 1] cannot
        overflow."""
        if not isinstance(exponent, Value) and 0 <= exponent <= 1:
            return
        if self._power_bounded(base, exponent):
            return
        if not self.raise_checks_allowed() and not self.check_may_be_caught():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "a Python float power may overflow, which raises "
                                   "OverflowError in eager, where a run-time check cannot raise it", "binop")
        over = self.emit_call(arrays.power_overflowed, (base, exponent, out), {}, node, "power overflow")
        self.emit_call(arrays.raise_when, (self.truth(over, node), OverflowError,
                                          (errno.ERANGE, os.strerror(errno.ERANGE))), {}, node,
                       "power overflow check", effect=True)

    @staticmethod
    def _power_bounded(base: Any, exponent: Any) -> bool:
        """Whether ``base ** exponent`` of a static base and a traced int
        exponent whose range is known (``INT_RANGE``: a loop index, a
        counter from a static start) stays finite: ``|base| ** t`` is monotone
        in ``t``, so its largest magnitude is at an end of the range
        (``beta ** t`` for ``t`` in ``range(1, 100)``). An unknown range is
        checked: ``0.9 ** t`` overflows in eager for ``t`` below about -6700."""
        if isinstance(base, Value) or not isinstance(exponent, Value) or exponent.type.dtype.kind not in "iu" \
                or type(base) is complex:
            return False
        known = INT_RANGE.get(exponent)
        if known is None:
            return False
        try:
            return all(math.isfinite(abs(float(base)) ** t) for t in known if not (base == 0 and t < 0))
        except (OverflowError, ZeroDivisionError):
            return False

    def _python_zero_division(self, fn: Callable, left: Any, right: Any, node: Any) -> None:
        """Eager's ZeroDivisionError for a division of Python numbers (one of
        them traced) by zero: a static zero raises it here, a traced divisor
        gets a run-time check."""
        kind = lambda v: {"b": bool, "i": int, "u": int}.get(v.type.dtype.kind, float) if isinstance(v, Value) \
            else type(v)  # noqa: E731
        divisor = right if not isinstance(right, Value) else kind(right)(0)
        if divisor != 0:
            return
        known = INT_RANGE.get(right) if isinstance(right, Value) else None
        if known is not None and (known[0] > 0 or known[1] < 0):   # ``x / max(n, 1)``: never a zero divisor
            return
        try:
            fn(kind(left)(1), divisor)
        except ZeroDivisionError as e:
            if not isinstance(right, Value):
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"division by zero (eager raises "
                                       f"ZeroDivisionError: {e})", "binop", exc=e) from None
            message = str(e)
        else:
            return
        if not self.raise_checks_allowed() and not self.check_may_be_caught():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "a division by a traced Python number that "
                                   "may be zero (eager raises ZeroDivisionError) where a run-time check cannot "
                                   "raise it", "binop")
        zero = self.emit_call(operator.eq, (right, 0), {}, node, "eq")
        self.emit_call(arrays.raise_when, (self.truth(zero, node), ZeroDivisionError, (message,)), {}, node,
                       "zero division check", effect=True)

    def static_call(self, fn: Callable, args: tuple, kwargs: dict, node: Any, reads: bool = True) -> Any:
        """Eager Python at trace time; an exception is eager's, so it falls back
        (and a handler may take it at trace time), unless the callee was
        looking at a trace-time stand-in: eager would not raise that one.
        ``reads``: ``fn`` may read the contents of its arguments (and of the
        object a builtin method is bound to), which are then guarded; False
        for a read the caller guards itself (``x[i]``) and for writes."""
        self.check_no_varlist(fn, args, kwargs, node)   # a list whose length depends on the data (varlist.py)
        if not any(fn is f for f in (*_IDENTITY_READS, iter, len, repr, str)):
            for arg in (*args, *kwargs.values()):   # ``min(g, key=f)`` of the caller's generator or list iterator
                if type(arg) in _PLAIN_ITERATORS:
                    self.check_consumable(arg, node)
        if not any(fn is f for f in _TYPE_READS):
            self.note_identity((*args, *kwargs.values()))
        if not any(fn is f for f in _NO_PROTOCOL_CALLS):
            self.check_effectful_dunders((*args, *kwargs.values()), qualified_name(fn), node)
        if reads and fn is len and len(args) == 1 and not kwargs and type(args[0]) in (dict, list) \
                and not self._is_fresh(args[0]):   # ``len(d)``, ``len(xs)``: its keys, its length only
            self.check_no_effect(args[0], node, True)
            self.guard_length_of(args[0], node)
        elif reads and not any(fn is f for f in _IDENTITY_READS):
            # hasattr/getattr look an attribute up: what the object's attributes hold is not read
            self.guard_reads((*args, *kwargs.values()), node, objects=fn is not hasattr and fn is not getattr)
            owner = getattr(fn, "__self__", None)
            if type(owner) is dict and fn.__name__ in ("values", "items") and not args and not kwargs \
                    and self.holds_arrays(getattr(owner, fn.__name__)()):
                # ``self.params.items()`` of NumPy arrays: the view shows the dict as it is when read (each
                # array then read as ``d[key]``: ``held_arrays``, or its contents guarded: ``guard_reads``)
                self.check_no_effect(owner, node, True)
                self.guard_keys_of(owner, node)
            elif owner is not None and type(fn) is types.BuiltinMethodType:
                self.guard_reads(owner, node)
        numeric = any(isinstance(a, (np.generic, np.ndarray)) for a in (*args, *kwargs.values()))
        try:
            with _recorded_warnings(numeric) as warned, watching() as watch:
                out = fn(*args, **kwargs)
        except GraphBreak:
            raise
        except Exception as e:  # noqa: BLE001 - eager's exception, a stand-in's or ours (below)
            message = f"{qualified_name(fn)} raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if watch.tripped or isinstance(e, StandinSeen):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(fn)} looks at a traced "
                                       "array at trace time (its text or truth; eager has its value)") from None
            if contains_standin((fn, getattr(fn, "__self__", None), args, kwargs)) and not _lookup_error(fn, args, e):
                # it saw ast2graph's stand-in, not eager's object: eager need not raise
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{message} on ast2graph's trace-time "
                                       "stand-in (eager passes its own object)") from None
            if internal_failure(e, below=sys._getframe(0).f_code):
                raise self.internal_error(node, e, f"running {qualified_name(fn)} at trace time") from None
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, message, exc=e)
        if watch.tripped:   # it caught the exception and went on
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(fn)} looks at a traced array "
                                   "at trace time (its text or truth; eager has its value)")
        for w in warned:   # np.uint32(h) * 31 of static numbers: NumPy's RuntimeWarning, eager's on every call
            if w.filename != __file__:   # from NumPy's own Python (its frame and line): eager runs it
                raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{qualified_name(fn)} issues "
                                       f"{w.category.__name__} ({w.message}) from {w.filename}:{w.lineno}", "call")
            self._warn((str(w.message), w.category), {}, node)   # from the user's line, as eager's C code issues it
        if isinstance(out, collections.abc.Iterator) or type(out) is np.ndarray and out.base is None:
            # an iterator made at trace time (iter(xs), zip(..)): this trace's to
            # advance; a new NumPy array (not a view): may be written in place
            self.mark_made(out)
        if type(out) is _JAX_ARRAY and self.folded_operands(tree_flatten((args, kwargs))[0]):
            self.mark_fresh(out)   # ``c[0]`` of a folded constant: one too (calls.fold_constant)
        if isinstance(out, type) and (out.__module__ or "").split(".")[0] == "ast2graph" \
                and (getattr(fn, "__module__", None) or "").split(".")[0] != "ast2graph":
            # ``type("O", (), {})``, ``namedtuple("P", "x y")`` take ``__module__`` from their caller's
            # frame, which here is ast2graph's: eager's class is the user's module's
            out.__module__ = self.frame.unit.globals.get("__name__", "<string>")
        return out

    def _narrow_python_float(self, v: Any, other: Any, node: Any) -> Any:
        """A Python float operand of a NumPy float16/float32 array or scalar
        (NumPy's weak scalar, cast to the array's dtype) beyond that dtype's
        range: NumPy casts it to an infinity and warns "overflow encountered in
        cast" from this line (as ``np.geterr()``, guarded, has it), then
        computes with the infinity (no warning of the op's own). That
        infinity, of the array's dtype, is the operand here (JAX's own cast of
        the float warned at trace time, from JAX's frame)."""
        if type(v) is not float or not math.isfinite(v) or not isinstance(other, Value) or type(other) is not Value \
                or other.type.mixed or not other.type.kinds <= {"numpy", "array0"} \
                or getattr(other.type.dtype, "kind", "") != "f" or other.type.dtype.itemsize >= 8:
            return v
        with np.errstate(over="ignore"):
            narrowed = np.asarray(v).astype(other.type.dtype)[()]
        if math.isfinite(narrowed):
            return v
        mode = np.geterr()["over"]
        self._guard_numpy_errors()
        if mode == "warn":
            self._warn(("overflow encountered in cast", RuntimeWarning), {}, node)
        elif mode != "ignore":
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"NumPy's cast of {v!r} to {other.type.dtype} where "
                                   f"np.geterr() makes its overflow {mode}", "call")
        return narrowed

    def eval_UnaryOp(self, node: gast.UnaryOp) -> Any:
        operand = self.eval(node.operand)
        if isinstance(node.op, gast.Not):
            truth = self.truth(operand, node)
            if isinstance(truth, Value):
                out = self.emit_call(arrays.logical_not, (truth,), {}, node, "not")
                out.type = out.type.with_kinds(("python",))   # `not` gives a Python bool, whatever its operand
                return out
            return not truth
        fn = arrays.UNARY[type(node.op).__name__]
        if isinstance(operand, MaskedSlice):   # ``-x[:n]`` (masked.py)
            return MaskedSlice(self.emit_call(fn, (operand.base,), {}, node, fn.__name__), operand.start, operand.count,
                               operand.step)
        if type(operand) is KindedValue:
            return self.split_kinds(operand, lambda x: self.emit_call(fn, (x,), {}, node, fn.__name__), node)
        if is_nnx(operand):
            return self.nnx_operator(fn, (operand,), node)
        out = self.user_operator(fn, (operand,), node)
        if out is not NOT_USER:
            return out
        if isinstance(operand, Value):
            return self.emit_call(fn, (operand,), {}, node, fn.__name__)
        return self.static_call(fn, (operand,), {}, node)

    def truth(self, value: Any, node: Any) -> Any:
        """``bool(value)``: a Python bool, or a traced scalar bool ``Value``."""
        known = self.__dict__.get("_known_truths", {}).get(id(value)) if isinstance(value, Value) else None
        if known is not None and known[0] is value:   # ``a and False`` (eval_BoolOp), of one kind or kinded
            return known[1]
        if type(value) is KindedValue:   # each kind's truth, as one traced bool whatever the kind
            return self.split_kinds(value, lambda x: self._plain_truth(x, node), node)
        if isinstance(value, Value):
            if int(np.prod(value.type.shape)) != 1:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"the truth value of an array of shape {value.type.shape} is ambiguous (eager raises ValueError)")
            if value.type.shape == () and value.type.dtype == np.dtype(bool):
                return value
            return self.emit_call(arrays.truthy, (value,), {}, node, "truthy")
        if is_variable(value):
            return self.truth(self.nnx_operator(bool, (value,), node), node)
        if tail_of(value) is not None:   # a list whose length depends on the data (varlist.py)
            return self.tail_truth(value, node)
        if isinstance(value, (LocalFunction,)) or contains_value(value) and not isinstance(value, (tuple, list, dict)):
            return True
        return self.static_call(bool, (value,), {}, node)

    def _plain_truth(self, value: Any, node: Any) -> Any:
        truth = self.truth(value, node)
        if not isinstance(truth, Value):
            return truth
        out = self.emit_call(arrays.cast, (truth, np.dtype(bool), False), {}, node, "bool")
        out.type = out.type.with_kinds(("jax",))
        return out

    def eval_BoolOp(self, node: gast.BoolOp) -> Any:
        is_and = isinstance(node.op, gast.And)
        result = self.eval(node.values[0])
        for i, operand in enumerate(node.values[1:]):
            truth = self.truth(result, node.values[i])
            if not isinstance(truth, Value):
                if truth != is_and:
                    self.decide(node, "boolop", "static", "left operand known at trace time")
                    return result
                result = self.eval(operand)
                continue
            start = len(self.region.ops)
            # ``n is None or n < m``: the right operand runs (for eager) where n is not None
            narrowing = self.none_narrowing(node.values[i]) if i == 0 else None
            saved = self.frame.env.get(narrowing[0]) if narrowing else None
            try:
                other = self.narrowed(narrowing, is_and, lambda: self.eval(operand))()
            finally:
                if narrowing:
                    self.frame.env[narrowing[0]] = saved
            effects = [op for op in walk_ops(Region(ops=self.region.ops[start:]))
                       if getattr(getattr(op, "fn", None), "_a2g_effect", False)]
            if effects and self._checked_operand(node, operand, start, truth, other, is_and, effects):
                other = self.region.ops[-1].results[0]
            elif effects:
                raise self.graph_break(FallbackCode.SIDE_EFFECT, operand, "the right operand of a traced "
                                       f"`{'and' if is_and else 'or'}` has a side effect (a print, a host call) that eager "
                                       "runs only when the left operand does not decide", "boolop",
                                       hint="write an `if` around the call")
            if type(other) in (bool, int, float, str, bytes, type(None)) and _truth_only(self.frame.unit.tree, node):
                # ``if info > 0 and positive:`` (scipy.linalg's _check_info): only the truth is read, which is
                # the left operand's where the static right one does not decide, else the right one's
                result = truth if bool(other) == is_and else bool(other)
                self.decide(node, "boolop", "select", "traced left operand of a test: its truth and the static right one's")
                continue
            result = self._select_operand(node, truth, other, result, is_and)
            if type(other) in (bool, int, float, str, type(None)) and bool(other) != is_and:
                # ``a and False`` is falsy, ``a or True`` truthy, whatever the traced ``a`` holds: an ``if``
                # on it is static (scipy's ``if any(contains_nan) and nan_policy == 'omit':``)
                self.__dict__.setdefault("_known_truths", {})[id(result)] = (result, bool(other))
        return result

    def _checked_operand(self, node: Any, operand: Any, start: int, truth: Value, other: Any, is_and: bool,
                         effects: list) -> bool:
        """The right operand of a traced ``and``/``or`` whose only effects
        are run-time checks (``len(h) > 1 and h[-2] - h[-1] < tol``: the index
        check of ``h[-2]``) and NumPy's floating-point warnings (``dist[u] +
        w < dist[v]``: "overflow encountered in add", issued as eager issues
        it only where it evaluates the operand; masked by the branch as a
        check is, ``hostwarnings.fp_fire_effect``): its ops (from ``start``) become the branch of an
        ``IfOp`` taken where the left operand does not decide, so its checks
        fire only where eager evaluates it; the other branch yields zeros.
        Only for an operand of one graph value that binds no name."""
        from ..ir.core import IfOp

        if not isinstance(other, Value) or type(other) is not Value or \
                not all(getattr(op.fn, "_a2g_check", False) or hasattr(op.fn, "_a2g_fp_issuer") for op in effects) or \
                any(isinstance(n, gast.NamedExpr) for n in gast.walk(operand)):
            return False
        ops = self.region.ops[start:]
        if any(other in op.results for op in ops) is False:
            return False
        taken, skipped = Region(ops=ops), Region()
        del self.region.ops[start:]
        taken.yields = [other]
        with self.in_region(skipped):
            skipped.yields = [self._zeros(other.type, operand)]
        result = Value(other.type, "and/or operand")
        if other in INT_BITS:
            INT_BITS[result] = INT_BITS[other]
        pred = truth if is_and else self.emit_call(arrays.logical_not, (truth,), {}, node, "not")
        self.region.ops.append(IfOp([result], self.loc(node), pred, taken, skipped))
        self.decide(node, "boolop", "lax.cond", "the right operand has run-time checks: it runs where the left "
                    "operand does not decide, as eager evaluates it")
        return True

    def _select_operand(self, node: Any, truth: Value, other: Any, current: Any, is_and: bool) -> Value:
        """``current and other`` / ``current or other`` with a traced truth value."""
        from .lattice import abstract_type, join_types, same_dtype

        ta, tb = abstract_type(other), abstract_type(current)
        if KindedValue in (type(other), type(current)) or ta and tb and kind_class(ta) != kind_class(tb):
            # eager's result is one operand or the other, of its own kind: a run-time kind tag says which
            picked = (other, current) if is_and else (current, other)
            self.decide(node, "boolop", "select", "traced left operand: both operands computed, one selected")
            return self.select_join(node, truth, *picked)
        joined = join_types(ta, tb) if ta and tb else None
        if joined is None or not same_dtype(ta, tb):
            raise self.graph_break(FallbackCode.BRANCH_MISMATCH, node, "operands of a traced and/or differ in kind, shape or dtype; the result would not be one of them")
        self.decide(node, "boolop", "select", "traced left operand: both operands computed, one selected")
        a, b = self.convert(other, joined, node), self.convert(current, joined, node)
        picked = (a, b) if is_and else (b, a)
        out = self.emit_call(arrays.select, (truth, *picked), {}, node, "select")
        out.type = out.type.with_kinds(ta.kinds | tb.kinds)   # eager hands back one operand or the other
        return out

    def eval_Compare(self, node: gast.Compare) -> Any:
        left = self.eval(node.left)
        result: Any = True
        for k, (op, comparator) in enumerate(zip(node.ops, node.comparators)):
            right = self.eval(comparator)
            fn = arrays.COMPARE[type(op).__name__]
            if isinstance(op, (gast.Is, gast.IsNot)):
                self.note_identity((left, right))
                if KindedValue in (type(left), type(right)):   # ``best is None``: by the kind on each path
                    part = self.split_kinds((left, right), lambda lr, op=op: self._identity(*lr, op, node), node)
                else:
                    part = self._identity(left, right, op, node)
            else:
                part = self._contains(left, right, isinstance(op, gast.NotIn), node) \
                    if isinstance(op, (gast.In, gast.NotIn)) else NotImplemented
                if part is NotImplemented:
                    part = self.binop(fn, left, right, node)
            if result is True:
                result = part
            else:
                result = self._and_values(result, part, node)
            if k + 1 < len(node.ops) and not isinstance(result, Value) and not self.truth(result, node):
                return result   # (Python asks the truth only before a next comparison: ``a < b < c``)
            left = right
        return result

    def _identity(self, left: Any, right: Any, op: Any, node: Any) -> bool:
        a, b = self.object_token(left), self.object_token(right)
        if a is not None and b is not None:   # two arrays the trace knows: ``Y is X`` of two arguments
            return (a == b) is isinstance(op, gast.Is)
        self._input_identity(left, right, node)
        try:
            return same_object(left, right) is isinstance(op, gast.Is)
        except Unobservable as e:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, str(e)) from None

    def _input_identity(self, left: Any, right: Any, node: Any) -> None:
        """A list or dict given by the caller is held here as a copy standing for it: whether
        it is another container (``row is TABLE[0]``, ``row in TABLE``) is the caller's object's answer."""
        def container(x: Any) -> bool:
            return isinstance(x, (list, dict, set, bytearray))

        if left is not right and container(left) and container(right) \
                and (self.input_container(left) is not None or self.input_container(right) is not None):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "whether a list or dict the caller gave is "
                                   "another container (the trace holds a copy standing for it)")

    def _contains(self, left: Any, right: Any, negate: bool, node: Any) -> Any:
        """``left in right`` of a static key and an outside dict (``if name in
        ema``): eager looks at the dict's keys only, so only they are guarded
        (an item's value changing between calls, ``ema[name] = ...`` written
        back each call, does not re-specialise); else ``_traced_contains``."""
        if type(right) is dict and _plain_key(left) and not self._is_fresh(right) \
                and self.effect_targets.get(id(right)) is not right and len(right) <= _KEYS_GUARDED \
                and all(_plain_key(k) for k in right):   # (no user __eq__ runs)
            self.check_no_effect(right, node)
            self.guard_keys_of(right, node)
            return (left in right) is not negate
        method = None if isinstance(right, Value) else _users_method(right, "__contains__")
        if method is not None:   # a user class's own __contains__, converted (its effects the graph's, not the trace's)
            truth = self.truth(self.call(method, (right, left), {}, node), node)
            if not isinstance(truth, Value):
                return bool(truth) is not negate
            out = self.emit_call(arrays.logical_not if negate else arrays.truthy, (truth,), {}, node,
                                 "not in" if negate else "in")
            out.type = out.type.with_kinds(("python",))
            return out
        if type(right) in (list, tuple) and not isinstance(left, Value) and any(
                _users_method(x, "__eq__") is not None for x in (left, *right) if not isinstance(x, Value)):
            return self._user_eq_contains(left, right, negate, node)
        return self._traced_contains(left, right, negate, node)

    def _user_eq_contains(self, left: Any, right: Any, negate: bool, node: Any) -> Any:
        """``left in items`` where a user class's ``__eq__`` answers: Python's
        protocol item by item (identity, then ``item == left`` converted like
        a call, then its truth), stopping at the first true one as eager
        does; a truth that depends on the data falls back."""
        for item in right:
            if item is left:
                return not negate
            truth = self.truth(self.binop(operator.eq, item, left, node), node)
            if isinstance(truth, Value):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "`in` whose user __eq__ depends on traced "
                                       "values (eager stops at the first equal item)")
            if truth:
                return not negate
        return negate

    def held_arrays(self, seq: Any, node: Any) -> list | None:
        """The items of an outside list of NumPy arrays (``self.params``), or
        of an outside dict's ``.values()``/``.items()`` view whose values are
        NumPy arrays, each array read as ``seq[k]`` (``d[key]``) reads it (a
        capture: re-read per call, written in place as eager writes it), in a
        list of this call's own, the list's length (the dict's keys) guarded;
        None for any other iterable."""
        if not self.holds_arrays(seq):
            return None
        if type(seq) is list:
            self.check_no_effect(seq, node, True)
            self.guard_length_of(seq, node)
            return self.mark_fresh([self.subscript(seq, k, node) for k in range(len(seq))])
        return self.mark_fresh(list(self.live_held_arrays(seq, node)))

    def holds_arrays(self, seq: Any) -> bool:
        """An outside list of NumPy arrays, or the ``.values()``/``.items()``
        view of an outside dict of NumPy arrays, short enough to unroll
        (``held_arrays``)."""
        if type(seq) in _VALUE_VIEWS:
            d = viewed_dict(seq)
            return type(d) is dict and bool(d) and len(d) <= self.options.max_unroll and not self._made_here(d) \
                and all(type(x) is np.ndarray for x in d.values())
        return type(seq) is list and bool(seq) and len(seq) <= self.options.max_unroll and not self._made_here(seq) \
            and all(type(x) is np.ndarray for x in seq)

    def live_held_arrays(self, seq: Any, node: Any) -> Iterator[Any]:
        """Iterating an outside list of NumPy arrays lazily, as a list
        iterator does (by index, seeing what the loop body appends): each
        array read as ``seq[k]`` reads it (``held_arrays``), the list's
        length guarded when the iterator is made. A dict's view: by its keys
        at the start (guarded), each value read as ``d[key]``; a body that
        changes the dict's size makes eager's iterator raise: it runs in
        Python."""
        if type(seq) in _VALUE_VIEWS:
            return self.mark_fresh(self._live_view_items(seq, node))
        self.check_no_effect(seq, node, True)
        self.guard_length_of(seq, node)

        def items() -> Iterator[Any]:
            k = 0
            while k < len(seq):
                item = seq[k]
                yield self.subscript(seq, k, node) if type(item) is np.ndarray else item
                k += 1
        return self.mark_fresh(items())

    def _live_view_items(self, view: Any, node: Any) -> Iterator[Any]:
        d = viewed_dict(view)
        self.check_no_effect(d, node, True)
        self.guard_keys_of(d, node)
        pairs = type(view) is _ITEMS_VIEW
        keys = list(d)
        for n in range(len(keys) + 1):
            if self.effect_targets.get(id(d)) is d:   # (a key set or added by the body: pending, after the call;
                # eager's iterator raises at its next pull, the last one too, where the size changed)
                raise self.graph_break(FallbackCode.MUTATION, node, f"{self.named(d)} changed while a loop "
                                       "iterates its view")
            if n == len(keys):
                return
            key = keys[n]
            value = self.subscript(d, key, node)
            yield (key, value) if pairs else value

    def guard_length_of(self, seq: Any, node: Any) -> None:
        """Guard what ``len`` reads of an outside dict (its keys: ``guard_keys_of``)
        or list (its length), not the values it holds."""
        if type(seq) is dict:
            self.guard_keys_of(seq, node)
            return
        key = ("length", id(seq))
        if key in self.guard_keys or ("contents", id(seq)) in self.guard_keys:
            return
        self.guard_keys.add(key)
        self.guards.append(Guard(lambda: len(seq), len(seq), f"the length of {self.named(seq, 'a ')}", key))

    def guard_keys_of(self, d: dict, node: Any) -> None:
        """Guard the keys of an outside dict (in order), not its values."""
        key = ("keys", id(d))
        if key in self.guard_keys or ("contents", id(d)) in self.guard_keys or ("entry", id(d)) in self.guard_keys:
            return
        try:
            snapshot = Snapshot(d, keys_only=True)
        except TooLarge:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"a read of a large outside dict whose keys "
                                   "cannot be guarded cheaply (they could change before the next call)")
        self.guard_keys.add(key)
        self.guards.append(Guard(lambda: d, snapshot, f"the keys of {self.named(d, 'a ')}", key))

    def _traced_contains(self, left: Any, right: Any, negate: bool, node: Any) -> Any:
        """``left in right`` / ``not in`` with ``right`` a tuple or list of
        numbers and traced scalars, ``left`` or an item traced: Python's
        protocol, item by item (identity, then ``item == left``, then the
        truth of that), a traced Python bool. NotImplemented where this does
        not apply (the generic path decides)."""
        numbers = (bool, int, float, complex, np.generic)
        if type(right) not in (tuple, list) or not (isinstance(left, Value) or contains_value(right)) \
                or not isinstance(left, (Value, *numbers)) or not all(isinstance(x, (Value, *numbers)) for x in right):
            return NotImplemented
        acc = None
        for item in right:
            if item is left:   # identity first: eager asks nothing of the value
                return not negate
            self._input_identity(item, left, node)
            if (not isinstance(item, Value) and item != item and (isinstance(left, Value) or left != left)) or \
                    (isinstance(item, Value) and not isinstance(left, Value) and left != left):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "`in` with a NaN item: eager's identity "
                                       "test decides, which depends on the objects")
            if isinstance(item, Value) and isinstance(left, Value):
                try:
                    same = same_object(item, left)
                except Unobservable:   # identity implies == unless NaN or an array whose truth is ambiguous
                    same = False
                    if any(x.type.dtype.kind in "fc" or int(np.prod(x.type.shape)) != 1 for x in (item, left)):
                        raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "`in` of traced values that may be "
                                               "one object (eager's identity test decides)") from None
                if same:
                    return not negate
            truth = self.truth(self.binop(operator.eq, item, left, node), node)
            if not isinstance(truth, Value):
                if truth:
                    return not negate
                continue
            acc = truth if acc is None else self.emit_call(jax.numpy.logical_or, (acc, truth), {}, node, "in")
        if acc is None:
            return negate
        out = self.emit_call(arrays.logical_not if negate else arrays.truthy, (acc,), {}, node,
                             "not in" if negate else "in")
        out.type = out.type.with_kinds(("python",))
        return out

    def _and_values(self, a: Any, b: Any, node: Any) -> Any:
        ta, tb = self.truth(a, node), self.truth(b, node)
        if not isinstance(ta, Value):
            return b if ta else a
        kinds = [x.type.kinds if isinstance(x, Value) else frozenset({"python"}) for x in (a, b)]
        if kinds[0] != kinds[1] or KindedValue in (type(a), type(b)) or not all(
                isinstance(x, Value) and x.type.shape == () and x.type.dtype == np.bool_ for x in (a, b)):
            # eager's result is a or b, by the data, of its own kind and shape (``a < b < c`` of 1-element
            # arrays is the array ``b < c`` or ``a < b``, not their truth)
            return self.select_join(node, ta, b, a)
        out = self.emit_call(jax.numpy.logical_and, (ta, tb), {}, node, "and")
        out.type = out.type.with_kinds(kinds[0])   # a or b: both of this kind (a Python bool for ``0 < a < 2``)
        return out

    def eval_IfExp(self, node: gast.IfExp) -> Any:
        truth = self.truth(self.eval(node.test), node.test)
        if not isinstance(truth, Value):
            self.decide(node, "ifexp", "pruned", f"condition is {truth} at trace time")
            return self.eval(node.body if truth else node.orelse)
        return self.traced_ifexp(node, truth)

    def eval_Attribute(self, node: gast.Attribute) -> Any:
        if node.attr == "writeable" and isinstance(node.value, gast.Attribute) and node.value.attr == "flags":
            array = self.eval(node.value.value)   # ``x.flags.writeable`` (the flags object itself is not modelled)
            known = self.known_flags_writeable(array)
            if known is not None:
                return known
            return self.attribute_of(self.attribute_of(array, "flags", node.value), node.attr, node)
        obj = self.eval(node.value)
        return self.attribute_of(obj, node.attr, node)

    def known_readonly(self, x: Any) -> bool:
        """``x`` is a NumPy array that is read-only in eager (``readonly_arrays``)."""
        return isinstance(x, Value) and self.readonly_arrays.get(id(x)) is x

    def known_writeable(self, x: Any) -> bool:
        """``x`` is a NumPy array this segment made, new and writeable in eager
        (``writeable_arrays``): its ``.flags.writeable`` is True on every call."""
        entry = self.writeable_arrays.get(id(x)) if isinstance(x, Value) else None
        return entry is not None and entry[0] is x

    def known_flags_writeable(self, x: Any) -> bool | None:
        """``x.flags.writeable`` where the trace knows it on every call: a new
        array this segment made (True), one read-only in eager (False), or an
        argument's NumPy array, whose writeability is in the plan key
        (``specialize.numpy_readonly``); None otherwise."""
        if self.known_writeable(x) or isinstance(x, Value) and self.new_arrays0.get(id(x)) is x:
            return True
        if self.known_readonly(x):
            return False
        entry = self.input_of.get(id(x)) if isinstance(x, Value) else None
        if entry is not None and entry[0] is x and x.type.kinds == {"numpy"}:
            return True   # (a read-only argument is in ``readonly_arrays``, answered above)
        return None

    def object_token(self, x: Any) -> tuple | None:
        """Which eager object the NumPy array ``x`` is, where the trace knows
        it: a new array this segment made (``writeable_arrays``; its versions
        after in-place writes are the same object), or an argument array
        sharing memory with no other argument (``input_aliased``: in the
        plan key). None where it may be another value's object (a view, an
        operand handed back, a join of paths)."""
        if not isinstance(x, Value):
            return None
        entry = self.writeable_arrays.get(id(x))
        if entry is not None and entry[0] is x:
            return ("new", entry[1])
        entry = self.input_of.get(id(x))
        if entry is not None and entry[0] is x and x.type.kinds == {"numpy"} and x.type.shape \
                and entry[1] not in self.input_aliased:
            return ("argument", entry[1])
        return None

    def known_contiguity(self, x: Any) -> tuple[bool, bool] | None:
        """(C, F) contiguity of the NumPy array ``x`` where eager's is known on
        every call: an array eager allocates whole (``allocated_arrays``) with
        at most one axis longer than 1, a LAPACK wrapper's new result
        (``known_layouts``: f2py allocates it in the order its exemplar
        result had), a ufunc's result whose operands all have one known
        order (``mutation._operands_layout``), or an argument's array (its versions
        after in-place writes too: the same memory), whose layout is in the
        plan key (``specialize.numpy_layout``); a 0-d ndarray (both, as every
        array of at most one element is); None otherwise."""
        if isinstance(x, Value) and x.type.kinds == {"array0"} and not x.type.shape:
            return (True, True)
        if not isinstance(x, Value) or x.type.kinds != {"numpy"}:
            return None
        entry = self.input_of.get(id(x))
        if entry is not None and entry[0] is x:
            return self.input_layout.get(entry[1])
        known = self.__dict__.get("known_layouts", {}).get(id(x))
        if known is not None and known[0] is x:   # a LAPACK wrapper's (calls._host_lapack), a ufunc's of one order
            return known[1]
        token = self.object_token(x)
        made = self.from_trace_time.get(token[1]) if token is not None and token[0] == "new" else None
        if type(made) is np.ndarray:   # an array made at trace time (``np.empty((m, m))``), then written: its layout
            return (bool(made.flags.c_contiguous), bool(made.flags.f_contiguous))
        if self.allocated_arrays.get(id(x)) is not x:
            return self._view_contiguity(x)
        return arrays.allocated_contiguity(x.type.shape)

    def _view_contiguity(self, x: Value, depth: int = 0) -> tuple[bool, bool] | None:
        """(C, F) contiguity of ``base[index]`` with a static basic index
        (ints, slices, ``None``, ``...``) of a base whose layout is known: NumPy's
        own answer on a stand-in with the base's strides over no memory."""
        picked = self.getitem_recipe(x)
        if depth > 16:
            return None
        if picked is None:
            return self._replayed_contiguity(x, depth)
        base, index = picked
        parts = index if type(index) is tuple else (index,)
        if not all(type(p) in (int, slice, type(None)) or isinstance(p, np.integer) or p is Ellipsis for p in parts) \
                or any(type(p) is slice and not all(b is None or type(b) is int or isinstance(b, np.integer)
                                                    for b in (p.start, p.stop, p.step)) for p in parts):
            return None   # (slice(bp[m], bp[m + 1]) of np.int64 bounds: scipy.signal.detrend)
        layout = self.known_contiguity(base) if depth == 0 else (self.known_contiguity(base)
                                                                 or self._view_contiguity(base, depth + 1))
        if layout is None or not (layout[0] or layout[1]) or not isinstance(base.type.dtype, np.dtype):
            return None
        shape, itemsize = base.type.shape, base.type.dtype.itemsize
        order = "C" if layout[0] else "F"
        strides = _contiguous_strides(shape, itemsize, order)
        try:
            stand_in = np.lib.stride_tricks.as_strided(np.empty((1,), base.type.dtype), shape=shape, strides=strides)
            view = stand_in[index]
        except (IndexError, TypeError, ValueError):
            return None
        if tuple(view.shape) != tuple(x.type.shape):
            return None
        return bool(view.flags.c_contiguous), bool(view.flags.f_contiguous)

    def _replayed_contiguity(self, x: Value, depth: int) -> tuple[bool, bool] | None:
        """(C, F) contiguity of a view other than an index (``view_recipes``:
        ``base.reshape(7, -1)``, ``np.swapaxes(base, 0, 1)``, ``base.T``) of a
        base whose layout is known: NumPy's own answer, the recipe replayed
        on a small array laid out as the base is. None where the base's layout
        is not known, it is large, or the recipe needs other graph values."""
        view = self._layout_stand_in(x, depth)
        return None if view is None else (bool(view.flags.c_contiguous), bool(view.flags.f_contiguous))

    def _layout_stand_in(self, x: Value, depth: int) -> np.ndarray | None:
        """A small ndarray laid out as eager's ``x`` is: zeros in its order
        where its layout is known contiguous, else its view recipe
        (``view_recipes``: an index, a reshape, a transpose) replayed on its
        base's stand-in. None where that is not known."""
        recipe = self.view_recipes.get(id(x))
        if depth > 16 or not isinstance(x.type.dtype, np.dtype) or int(np.prod(x.type.shape)) > 1 << 16:
            return None
        if recipe is None or recipe[0] is not x:
            layout = self.known_contiguity(x) if depth else None
            if layout is None or not (layout[0] or layout[1]):
                return None
            return np.zeros(x.type.shape, x.type.dtype, order="C" if layout[0] else "F")
        _, pick, treedef, leaves, base = recipe
        if int(np.prod(base.type.shape)) > 1 << 16:
            return None
        stand_in = self._layout_stand_in(base, depth + 1)
        filled = [stand_in if leaf is base else leaf for leaf in leaves]
        if stand_in is None or any(isinstance(leaf, Value) for leaf in filled):
            return None
        args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
        try:
            view = pick(*args, **kwargs)
        except Exception:  # noqa: BLE001 - the replay does not take a stand-in: not known
            return None
        if type(view) is not np.ndarray or tuple(view.shape) != tuple(x.type.shape):
            return None
        return view

    def attribute_of(self, obj: Any, attr: str, node: Any) -> Any:
        """``obj.attr``; a local function answers as a function does."""
        if isinstance(obj, arrays.KnownFlags):
            known = obj.answer(attr) if attr.islower() else None
            if known is not None:
                return known
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"`.flags.{attr}` of a NumPy array computed in "
                                   "the graph: eager's answer depends on its memory layout, which the graph does not model")
        if type(obj) is KindedValue:   # each kind's attribute (``x.shape``: one answer)
            return self.split_kinds(obj, lambda x: self.attribute_of(x, attr, node), node)
        if attr == "__class__" and isinstance(obj, standin_types()):   # type(obj), as eager has it
            try:
                return observe(type, (obj,), {}, self.outer_traced, None)
            except Unobservable as e:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, str(e)) from None
        if isinstance(obj, LocalFunction):
            try:
                return function_attribute(obj, attr)
            except AttributeError as e:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, str(e), exc=e) from None
            except Unobservable as e:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, str(e)) from None
        if isinstance(obj, Value):
            try:
                value_attribute_allowed(obj, attr, self.outer_traced)
            except Unobservable as e:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, str(e)) from None
        if isinstance(obj, MaskedSlice):   # ``x[:n].sum`` (masked.py)
            return self.masked_attribute(obj, attr, node)
        if isinstance(obj, arrays.TracedRange) and attr in ("start", "stop", "step"):
            return getattr(obj, attr)
        if isinstance(obj, standin_types()) and not isinstance(obj, (Value, arrays.AtIndexed)):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"attribute {attr!r} of ast2graph's trace-time "
                                   f"stand-in {type(obj).__name__} (eager has another object)")
        return self.get_attribute(obj, attr, node)

    # ------------------------------------------- an outside object's attributes and its __dict__, one storage
    def _outside_storage(self, obj: Any) -> dict | None:
        """The ``__dict__`` of an object from outside (not this call's, not a
        module or class, whose storage has its own rules): its attributes are
        that dict's items, so a write through one is a write of the other."""
        if isinstance(obj, (types.ModuleType, type)) or isinstance(obj, standin_types()) or self._is_fresh(obj):
            return None
        storage = getattr(obj, "__dict__", None)
        return storage if type(storage) is dict else None

    def _storage_note(self, storage: dict) -> list:
        """This trace's note of an outside ``__dict__`` or dict: [the dict,
        read as a dict, its attributes read, written]."""
        notes = self.__dict__.setdefault("_storage_notes", {})
        note = notes.get(id(storage))
        if note is None or note[0] is not storage:
            note = notes[id(storage)] = [storage, False, False, False]
        return note

    def _attribute_storage_read(self, obj: Any, attr: str, node: Any) -> None:
        """``obj.__dict__`` / ``obj.attr`` of an object from outside, noted.
        The graph lifts writes of attributes and of outside dicts out of the
        call and reads both as they were before it, each on its own: where
        this function reads an attribute whose ``__dict__`` it wrote through
        (``d = vars(b); d["v"] = 2; b.v``; also ``_storage_write``,
        ``_attribute_write_of_held_storage``), the statement runs in Python."""
        storage = self._outside_storage(obj)
        if storage is None:
            return
        note = self._storage_note(storage)
        if attr == "__dict__":
            note[1] = True
            return
        if note[3]:
            raise self.graph_break(FallbackCode.MUTATION, node, f"attribute {attr!r} of an object whose __dict__ this "
                                   "function wrote (the graph makes the write after the call)")
        note[2] = True

    def _storage_write(self, container: Any, node: Any) -> None:
        """A write into the dict ``container`` (an item, ``update``, ``pop``):
        where it is the ``__dict__`` of an object whose attributes this
        function read, the statement runs in Python; else noted."""
        if type(container) is not dict:
            return
        entry = self.input_containers.get(id(container))
        if entry is not None and entry[0] is container:   # the caller's dict, its abstract stand-in here
            container = self.input_originals.get(id(container), container)
        note = self._storage_note(container)
        if note[2]:
            raise self.graph_break(FallbackCode.MUTATION, node, "a write into the __dict__ of an object whose "
                                   "attributes this function reads (the graph reads them before the call and makes "
                                   "the write after it)")
        note[3] = True

    def _attribute_write_of_held_storage(self, obj: Any, attr: str, node: Any) -> None:
        """``obj.attr = v`` lifted out of the graph where this function holds
        ``obj.__dict__`` (``vars(obj)``, or the same dict as an argument): a
        read through the dict would not see the write; the statement runs in Python."""
        storage = self._outside_storage(obj)
        if storage is None:
            return
        note = self.__dict__.get("_storage_notes", {}).get(id(storage))
        if note is not None and note[0] is storage and note[1] or any(o is storage for o in self.input_originals.values()):
            raise self.graph_break(FallbackCode.MUTATION, node, f"attribute {attr!r} of an object whose __dict__ this "
                                   "function holds (a read through it would not see the write, made after the call)")

    def _can_lift_attribute_write(self, obj: Any, attr: str) -> bool:
        """``obj.attr = v`` on an object from outside, on a static path, with
        plain attribute semantics: the write is lifted out of the graph (the
        new value is an output, set on the object after every call)."""
        if isinstance(obj, type):
            return _plain_class_attribute(obj, attr)
        if isinstance(obj, (types.ModuleType, Value)):
            return False
        cls = type(obj)
        if cls.__setattr__ is not object.__setattr__ or not hasattr(obj, "__dict__"):
            return False
        descriptor = getattr(cls, attr, None)
        return not hasattr(descriptor, "__set__")

    def _pending_class_attribute(self, obj: Any, attr: str) -> tuple | None:
        """The lifted write of a class attribute that ``obj.attr`` reads
        (``obj`` an instance without its own ``attr``, or a subclass): the
        first class of the MRO that writes or holds ``attr`` decides, as
        Python's lookup does."""
        if isinstance(obj, type):
            mro = obj.__mro__ if type(obj) is type else ()
        elif isinstance(obj, (types.ModuleType, Value)) or attr in getattr(obj, "__dict__", ()) \
                or type(obj).__getattribute__ is not object.__getattribute__:
            return None
        else:
            mro = type(obj).__mro__   # (a slot of the instance is a descriptor in its class: the walk stops there)
        for cls in mro:
            entry = self.attr_writes.get((id(cls), attr))
            if entry is not None and entry[0] is cls:
                return entry
            if attr in cls.__dict__:
                return None
        return None

    def get_attribute(self, obj: Any, attr: str, node: Any) -> Any:
        if isinstance(obj, arrays.KnownFlags):
            return self.attribute_of(obj, attr, node)
        if isinstance(obj, Value):
            return self._array_attribute(obj, attr, node)
        if is_variable(obj):   # an NNX Variable (nnx.py)
            return self.nnx_attribute(obj, attr, node)
        pending = self.attr_writes.get((id(obj), attr))
        if pending is not None and pending[0] is obj:
            return pending[2]
        if self.attr_writes:
            pending = self._pending_class_attribute(obj, attr)
            if pending is not None:
                return pending[2]
        if isinstance(obj, types.ModuleType):
            pending = self.pending_global(vars(obj), attr)   # a global this graph wrote (writeback.py)
            if pending is not NOT_PENDING:
                return pending
        if isinstance(obj, arrays.AtIndexed):
            return arrays.AtMethod(obj.value, obj.index, attr)
        if attr == "__dict__" and self._pending_attributes(obj):
            raise self.graph_break(FallbackCode.MUTATION, node, "__dict__ of an object this function set an attribute "
                                   "of (the write is made after the call)")
        storage = self.own_dict(obj) if attr == "__dict__" else None
        if storage is not None:
            return storage
        self._attribute_storage_read(obj, attr, node)
        getter = self._user_property(obj, attr)
        if getter is not None:   # converted like a call: its effects are the graph's, not the trace's
            return self.call(getter, (obj,), {}, node)
        cached = self._check_cached_property(obj, attr, node)
        if cached is not None:   # its first read: the function converted like a call, its value stored as eager stores it
            name = cached.attrname or attr
            if not self._made_here(obj):   # (stored after a call, the next call reads it: guarded)
                self.external(False, lambda: name in vars(obj), f"{self.named(obj)}.{name} cached",
                              ("cached", id(obj), name))
            value = self.call(cached.func, (obj,), {}, node)
            self.store_attribute(obj, name, value, node)
            return value
        fallback = self._user_getattr(obj, attr)
        if fallback is not None:   # a user class's __getattr__ answers: converted like a call, as __getitem__ is
            if not self._made_here(obj):   # (until the caller gives the object or its class the attribute: guarded)
                self.external(True, lambda: _missing_statically(obj, attr), f"{self.named(obj)}.{attr} missing",
                              ("getattr-missing", id(obj), attr))
            return self.call(fallback, (obj, attr), {}, node)
        try:
            value = getattr(obj, attr)
        except Exception as e:  # noqa: BLE001
            if isinstance(e, AttributeError) and not self._made_here(obj):
                # missing, until the caller sets it: guarded (a handler, a getattr default, may take it here)
                self.external(True, lambda: _lacks_attribute(obj, attr), f"{self.named(obj)}.{attr} missing",
                              ("attr-missing", id(obj), attr))
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"attribute {attr!r} raised {type(e).__name__}: {e}", exc=e)
        if self._made_here(obj) or callable(value) and not is_array(value) and isinstance(obj, type):
            return value
        if isinstance(obj, np.generic) and not isinstance(value, np.ndarray):
            # ``work[0].real`` of a NumPy scalar the trace holds (a LAPACK workspace query's): immutable, its
            # attributes a function of its value, which the trace already has (guarded where it was read)
            return value
        if isinstance(obj, types.ModuleType) and _library_module(obj) and (
                isinstance(value, types.ModuleType) or callable(value) and not is_array(value)):
            return value   # a library's submodules, functions and classes: fixed for the process
        if is_array(value) or self._user_getattr_method(obj) is None:
            return self.external(value, lambda: getattr(obj, attr), f"{self.named(obj)}.{attr}", ("attr", id(obj), attr),
                                 ("attr", obj, attr))
        # (a class with the user's __getattr__: the guard reads the attribute without running it)
        return self.external(value, lambda: _MISSING if _missing_statically(obj, attr) else getattr(obj, attr),
                             f"{self.named(obj)}.{attr}", ("attr", id(obj), attr))

    def _user_getattr(self, obj: Any, attr: str) -> Callable | None:
        """The user's ``__getattr__`` of ``obj``'s class where Python calls it
        for ``obj.attr`` (no such attribute on the object or its class, no
        ``__getattribute__`` of the user's), else None."""
        method = self._user_getattr_method(obj)
        return method if method is not None and _missing_statically(obj, attr) else None

    def _user_getattr_method(self, obj: Any) -> Callable | None:
        """The user's ``__getattr__`` of ``obj``'s class (no ``__getattribute__``
        of the user's), else None."""
        if isinstance(obj, (type, types.ModuleType)):
            return None
        known = self.__dict__.setdefault("_user_getattrs", {})   # (per class: attribute reads are many)
        cls = type(obj)
        if cls not in known:
            known[cls] = None if python_method(obj, "__getattribute__") is not None else _users_method(obj, "__getattr__")
        return known[cls]

    def _check_cached_property(self, obj: Any, attr: str, node: Any) -> functools.cached_property | None:
        """The first read of a ``functools.cached_property`` stores its value
        in ``obj.__dict__``: the property, where its function is the user's
        (converted like a call, the store an attribute write: ``get_attribute``);
        None otherwise. A library's runs at trace time, a write made by the
        read: under a traced condition or in a rolled loop the object was not
        made in (eager stores it only on the paths where the read runs), it
        falls back."""
        if isinstance(obj, (type, types.ModuleType)):
            return None
        known = self.__dict__.setdefault("_cached_properties", {})   # (per class and name: attribute reads are many)
        key = (type(obj), attr)
        if key not in known:
            try:
                found = inspect.getattr_static(type(obj), attr)
            except AttributeError:
                found = None
            known[key] = found if isinstance(found, functools.cached_property) else None
        raw = known[key]
        storage = getattr(obj, "__dict__", None) if raw is not None else None
        if not isinstance(storage, dict) or (raw.attrname or attr) in storage:
            return None
        if isinstance(raw.func, types.FunctionType) and classify_callee(raw.func) is CallKind.USER_FUNCTION:
            return raw
        entry = self.fresh.get(id(obj))
        made_at = entry[0] if entry is not None and entry[1] is obj else 0
        if self.traced_depth > made_at:
            raise self.graph_break(FallbackCode.MUTATION, node, f"the first read of {type(obj).__name__}.{attr} (a "
                                   "functools.cached_property) stores its value in the object: under a traced "
                                   "condition eager stores it only on the paths where the read runs")
        return None

    def _user_property(self, obj: Any, attr: str) -> Callable | None:
        """The getter of a ``property`` of the user's class (Python code that
        eager runs on every read): None for anything else."""
        if isinstance(obj, (type, types.ModuleType)) or type(obj).__module__ == "builtins":
            return None
        key = (type(obj), attr)
        if key not in self.properties:
            try:
                raw = inspect.getattr_static(type(obj), attr)
            except AttributeError:
                raw = None
            fget = getattr(raw, "fget", None) if type(raw) is property else None
            user = isinstance(fget, types.FunctionType) and classify_callee(fget) is CallKind.USER_FUNCTION
            self.properties[key] = fget if user else None
        return self.properties[key]

    def input_container(self, obj: Any) -> tuple | None:
        """The path of ``obj`` among the segment's inputs when it stands for
        one of the caller's lists or dicts (it leaves as that object), else None."""
        entry = self.input_containers.get(id(obj))
        return entry[1] if entry is not None and entry[0] is obj else None

    def _is_fresh(self, obj: Any) -> bool:
        entry = self.fresh.get(id(obj))
        return entry is not None and entry[1] is obj

    def _made_here(self, obj: Any) -> bool:
        """Fresh, or a NumPy view of an array this trace made (``m.reshape(-1)``,
        made at trace time from ``m = np.zeros(..)``): what is read from it
        (``m.reshape(-1)[1:]``, ``.T``) is this call's own too, a view of the
        same memory, never an array read from outside (whose read is an input
        of the graph: a copy, which a write through it would miss)."""
        if self._is_fresh(obj):
            return True
        base = obj.base if type(obj) is np.ndarray else None
        while type(base) is np.ndarray:
            if self._is_fresh(base):
                return True
            base = base.base
        return False

    def _array_attribute(self, value: Value, attr: str, node: Any) -> Any:
        t = value.type
        if attr in arrays.STATIC_ARRAY_ATTRS:
            return {"shape": t.shape, "dtype": t.dtype, "ndim": len(t.shape), "size": int(np.prod(t.shape))}[attr]
        ndarray = bool(t.kinds & {"numpy", "array0"})   # (a 0-d ndarray has ``.flags`` too)
        known = self.known_flags_writeable(value) if attr == "flags" and ndarray else None
        layout = self.known_contiguity(value) if attr == "flags" and ndarray else None
        if known is not None or layout is not None:   # (``writeable`` unknown: reading it falls back)
            return arrays.KnownFlags(value, known, layout)   # (``getattr(x, "flags")``, then a field)
        if attr in arrays.LAYOUT_ATTRS and ndarray:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"`.{attr}` of a NumPy array computed in the graph: "
                                   "eager's answer depends on its memory layout (C or Fortran order, a view's base), "
                                   "which the graph does not model")
        if attr == "at":
            if t.numpy:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, "a NumPy array has no attribute 'at' (eager raises AttributeError)")
            return arrays.AtHelper(value)
        if callable(getattr(jax.Array, attr, None)) or attr in arrays.HOST_METHODS or t.numpy and attr in ("fill", "partition"):
            return arrays.ArrayMethod(value, attr)   # (ndarray.fill, .partition: in place, calls._numpy_write)
        return self.emit_call(arrays.attribute, (value, attr), {}, node, f".{attr}")

    def eval_Subscript(self, node: gast.Subscript) -> Any:
        if isinstance(node.value, gast.Attribute) and node.value.attr == "flags" and \
                isinstance(node.slice, gast.Constant) and node.slice.value in ("WRITEABLE", "W"):
            array = self.eval(node.value.value)   # ``x.flags["WRITEABLE"]``: as ``x.flags.writeable``
            known = self.known_flags_writeable(array)
            if known is not None:
                return known
            return self.subscript(self.attribute_of(array, "flags", node.value), node.slice.value, node)
        picked = self.nested_pick(node)   # ``table[i][j]`` with a traced ``i`` (listindex.py)
        if picked is not NotImplemented:
            return picked
        obj = self.eval(node.value)
        idx = self.eval_index(node.slice)
        if type(obj) is KindedValue or type(idx) is KindedValue:
            return self.split_kinds((obj, idx), lambda oi: self.subscript(*oi, node), node)
        return self.subscript(obj, idx, node)

    def subscript(self, obj: Any, idx: Any, node: Any) -> Any:
        """``obj[idx]`` of evaluated operands."""
        if isinstance(obj, arrays.AtHelper):
            return arrays.AtIndexed(obj.value, idx)
        if isinstance(obj, arrays.KnownFlags) and type(idx) is str and idx.isupper():   # ``x.flags["C_CONTIGUOUS"]``
            known = obj.answer(idx)
            if known is not None:
                return known
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"`.flags[{idx!r}]` of a NumPy array computed in "
                                   "the graph: eager's answer depends on its memory layout, which the graph does not model")
        if is_variable(obj):   # ``v[...]`` on an NNX Variable (nnx.py)
            return self.nnx_operator(operator.getitem, (obj, idx), node)
        if tail_of(obj) is not None:   # a list whose length depends on the data (varlist.py)
            return self.tail_getitem(obj, idx, node)
        if isinstance(obj, MaskedSlice):   # ``x[n:][0]`` (masked.py)
            return self.masked_getitem(obj, idx, node)
        if isinstance(obj, PickedRow):   # ``row[j]`` of ``row = table[i]``, a traced ``i`` (listindex.py)
            return self.row_item(obj, idx, node)
        if type(obj) in (list, tuple) and self.traced_int_index(idx):
            row = self.picked_row(obj, idx, node)   # ``table[i]`` of rows of one length (listindex.py)
            if row is not NotImplemented:
                return row
            arrays_in = self.outside_arrays(obj, node)   # (of jax.Arrays read from outside: inputs, picked)
            if arrays_in is not None:
                return self.traced_list_load(node, arrays_in, idx)
            if traced_index(idx) and self.uniform_items(obj):   # numbers of one class (listindex.py)
                return self.pick_item(obj, idx, node)
            if not self._is_fresh(obj) and type(obj) is not tuple:
                self._guard_contents(obj, node)   # the items read are the ones it holds now
            return self.traced_list_load(node, obj, idx)   # containers.py: items of joined kinds, by selects
        options = self.chosen_keys(obj, idx)
        if options is not None:   # ``counts[key]``, ``key`` one of the dict's keys chosen by a traced ``if``
            return self.subscript(self.mark_fresh([obj[o] for o in options]), idx.values[0], node)
        if isinstance(obj, Mapping) and not isinstance(obj, Value) and contains_value(idx):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"a traced value as a key into a "
                                   f"{type(obj).__name__} (eager hashes its value)", "subscript")
        if obj is np.r_ and contains_value(idx):
            joined = self._r_concatenate(idx, node)   # ``np.r_[a, x0]`` of arrays and numbers
            if joined is not NotImplemented:
                return joined
        method = None if isinstance(obj, Value) else python_method(obj, "__getitem__")
        if method is not None:   # a user class's own ``__getitem__`` (of a traced index too): converted like any of its methods
            return self.call(method, (obj, idx), {}, node)
        if type(obj) is np.ndarray and obj.dtype != object and type(idx) is Value and idx.type.dtype == np.bool_ \
                and idx.type.shape and obj.shape[:len(idx.type.shape)] == idx.type.shape and not idx.type.mixed:
            # ``positions[vals == vals.min()]`` of an array made at trace time (np.arange(n)): its values, a constant
            obj = self.as_value(obj, node)
            obj.type = dataclasses.replace(obj.type, numpy=True)
        elif type(obj) is np.ndarray and obj.dtype != object and contains_value(idx) and _copying_index(obj, idx):
            # ``edges[np.searchsorted(edges, v)]``, ``c[i]`` of an array made at trace time (np.linspace(..)):
            # NumPy's result is a copy of its values as they are now (a later write into the array is not
            # seen), a constant of them; NumPy's bounds are checked as for any array
            obj = self.as_value(obj.copy(), node)
            obj.type = dataclasses.replace(obj.type, numpy=True)
        if type(obj) is np.ndarray and obj.dtype != object and type(idx) is Value and idx.type.dtype == np.bool_ \
                and not idx.type.shape and not idx.type.mixed:
            obj = self.as_value(obj.copy(), node)   # ``a[ia]`` of an array made at trace time, ``ia`` a 0-d mask
            obj.type = dataclasses.replace(obj.type, numpy=True)
        if any(tail_of(p) is not None for p in (idx if type(idx) is tuple else (idx,))):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "an index by a list whose length depends on "
                                   "the data (`x[peaks]`, peaks appended to under a traced condition): the result's "
                                   "shape is its length", "subscript")
        if self.is_bool_mask(obj, idx):   # ``x[x > 0]``: eager's kept rows, a masked value (masked.py)
            return self.bool_masked(obj, idx, node)
        if self.is_scalar_mask(obj, idx):   # ``a[ia]`` of a 0-d mask: a[None][ia[None]] (masked.py)
            return self.scalar_masked(obj, idx, node)
        if isinstance(obj, Value) or contains_value(idx):
            idx = self.numpy_list_index(obj, idx, node)   # x[[k, p]] of a NumPy array: NumPy's fancy index
            parts = idx if type(idx) is tuple else (idx,)
            if isinstance(obj, Value) and any(isinstance(p, arrays.SliceSpec) for p in parts):
                fixed = self.fixed_length_slice(obj, idx, node)
                if fixed is not None:   # ``x[i:i + 2]`` of an in-range loop index: k rows (masked.py)
                    return fixed
                if type(idx) is arrays.SliceSpec:   # ``x[:n]``: the whole array, the positions kept masked (masked.py)
                    return self.masked_slice(obj, idx, node)
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a slice with a traced bound (`x[:n]`): the "
                                       "result's shape depends on the bound's value", "subscript",
                                       hint="keep the shape fixed: jnp.where(jnp.arange(len(x)) < n, x, 0), or "
                                       "lax.dynamic_slice with a static size")
            self.check_numpy_index(obj, idx, node)
            return self.emit_call(arrays.getitem, (obj, idx), {}, node, "getitem")
        pending = self.pending_item(obj, idx)
        if pending is not NOT_PENDING:   # ``CACHE[k]`` of a key set earlier in this graph (writeback.py)
            return pending
        if type(obj) in (list, tuple, dict) and _static_key(idx):
            # an item of a plain container by a plain key: only the container's own pending change
            # is seen (``METRICS["lr"]`` after ``METRICS["loss"].append(v)``: that list is read later, if at all)
            if not self.only_item_targets(obj):
                self.check_no_effect_shallow(obj, node)
        elif not self.only_item_targets(obj):   # (another item of a container written item by item: as at the call)
            self.check_no_effect(obj, node)
        inserted = self._check_missing_insert(obj, idx, node)
        try:
            value = self.static_call(operator.getitem, (obj, idx), {}, node, reads=False)
        except GraphBreak as e:
            if isinstance(getattr(e, "exc", None), LookupError) and not self._made_here(obj):
                # a missing key or index, until the caller adds it: guarded (a handler may take it here)
                self.external(True, lambda: _lookup_fails(obj, idx), f"{self.named(obj)}[{idx!r}] missing",
                              ("item-missing", id(obj), repr(idx)))
            raise
        if inserted and type(value) in (list, dict, set):
            self.mark_fresh(value)   # ``d[k].append(v)`` on a defaultdict made here: the new list is this call's
        if type(idx) is slice and type(value) is type(obj) and type(obj) in (list, bytearray):
            # a copy made per call (``schedules[1:]``, ``args[:n]``): this call's own, to
            # write into; of an outside list what it holds is guarded, not its identity
            if not self._is_fresh(obj):
                self._guard_contents(obj, node)
            return self.mark_fresh(value)
        if self._made_here(obj) or isinstance(obj, (tuple, str, range)) and (
                not is_array(value) or type(value) is np.ndarray and self._made_here(value)):
            return value   # (``(c,)[0]`` of an array this call made: that array, its layout and writes its own)
        return self.external(value, lambda: obj[idx], f"{self.named(obj)}[{idx!r}]", ("item", id(obj), repr(idx)),
                             ("item", obj, idx))

    def _r_concatenate(self, idx: Any, node: Any) -> Any:
        """``np.r_[a, b, x]`` of arrays and numbers only (no slice, string
        directive or list; a jax.Array is NumPy's array of it), as NumPy's
        ``AxisConcatenator`` computes it: each
        item ``np.array(item, ndmin=1, dtype=final)``, ``final`` the
        ``np.result_type`` of all items where one is a scalar (a Python or
        NumPy number: it does not up-cast), then ``np.concatenate``.
        NotImplemented for any other index (NumPy's own ``__getitem__``)."""
        items = idx if type(idx) is tuple else (idx,)
        for x in items:
            if isinstance(x, Value):
                if x.type.mixed:
                    return NotImplemented
            elif type(x) not in (bool, int, float, complex) and not (isinstance(x, np.generic) and x.dtype.kind in "biufc") \
                    and not (type(x) is np.ndarray and x.dtype.kind in "biufc"):
                return NotImplemented
        scalar = any(isinstance(x, Value) and x.type.python or isinstance(x, Value) and x.type.numpy and not x.type.shape
                     and not x.type.array0 or type(x) in (bool, int, float, complex) or isinstance(x, np.generic)
                     for x in items)
        final = self.call(np.result_type, items, {}, node) if scalar else None
        kw = {} if final is None else {"dtype": final}
        parts = [self.call(np.atleast_1d, (self.call(np.asarray, (x,), kw, node),), {}, node) for x in items]
        return self.call(np.concatenate, (parts,), {}, node)

    def _check_missing_insert(self, obj: Any, idx: Any, node: Any) -> bool:
        """``d[k]`` of a missing key on a mapping whose ``__missing__`` inserts
        it (a ``defaultdict``) is a write: on an object from outside this
        segment it would happen once, at trace time, not on every call.
        Returns whether the read inserts (into an object made here)."""
        if not isinstance(obj, dict) or type(obj) is dict or getattr(type(obj), "__missing__", None) is None \
                or isinstance(obj, collections.Counter):
            return False
        try:
            missing = idx not in obj
        except TypeError:   # an unhashable key: getitem raises eager's TypeError itself
            return False
        if missing and not self._is_fresh(obj):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{type(obj).__name__}[{idx!r}] of a missing key "
                                   "inserts it (its __missing__) into an object made outside this segment")
        if missing:   # a write as ``d[k] = v`` is: under a traced condition only where the dict was made (or logged)
            self.check_mutable(obj, node, f"{type(obj).__name__}[{idx!r}] of a missing key (its __missing__ inserts it)")
        return missing

    def eval_index(self, node: Any) -> Any:
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.eval(p) for p in (node.lower, node.upper, node.step)]
            if any(isinstance(p, Value) for p in parts):
                return arrays.SliceSpec(*parts)
            return slice(*parts)
        if isinstance(node, gast.Tuple):
            return tuple(self.eval_index(e) for e in node.elts)
        return self.eval(node)

    def eval_Slice(self, node: gast.Slice) -> Any:
        return self.eval_index(node)

    def eval_Starred(self, node: gast.Starred) -> Any:
        raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, node, "starred expression outside a call or display")

    def eval_NamedExpr(self, node: gast.NamedExpr) -> Any:
        """``(name := value)``; inside a comprehension it binds in the enclosing
        function's scope (PEP 572), not the comprehension's."""
        value = self.eval(node.value)
        inner = target = self.frame
        while target.parent is not None and target.unit is target.parent.unit:   # a comprehension's scope
            target = target.parent
        self.frame = target
        try:
            self.assign(node.target, value, node)
        finally:
            self.frame = inner
        return value

    def eval_JoinedStr(self, node: gast.JoinedStr) -> Any:
        """An f-string, each field evaluated once, in eager's order (its value,
        then its format spec, then formatted): static fields are formatted
        as they come; from the first traced one on, the rest is a
        ``DeferredStr`` formatted on the host where its text is needed (the
        fields before it keep the text they were given)."""
        parts: list = []
        values: list = []
        deferred = False
        for v in node.values:
            if isinstance(v, gast.Constant):
                parts.append(str(v.value))
                continue
            value = self.eval(v.value)
            spec = self.eval(v.format_spec) if v.format_spec is not None else ""
            if contains_value(spec) or isinstance(spec, arrays.DeferredStr):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, v, "a format spec computed from traced values")
            if deferred or contains_value(value):
                deferred = True
                parts.append(({115: "s", 114: "r", 97: "a"}.get(v.conversion, ""), str(spec)))
                values.append(value)
                continue
            conv = {-1: lambda x: x, 115: str, 114: repr, 97: ascii}[v.conversion]
            self.check_effectful_dunders((value,), "an f-string", v, dunders.FORMATTING)
            self.guard_reads(value, v)
            parts.append(self.static_call(format, (conv(value), spec), {}, v))
        if not deferred:
            return "".join(parts)
        return arrays.DeferredStr(tuple(parts), tuple(values))

    def eval_Lambda(self, node: gast.Lambda) -> Any:
        return self.make_local_function(node)

    def make_local_function(self, node: Any) -> LocalFunction:
        args = node.args
        defaults = [self.eval(d) for d in args.defaults]
        kw_defaults = [NO_DEFAULT if d is None else self.eval(d) for d in args.kw_defaults]
        return self.mark_fresh(LocalFunction(node, unit_of_nested(node, self.frame.unit), self.frame, defaults,
                                             kw_defaults, self))

    def eval_ListComp(self, node: Any) -> Any:
        return self.mark_fresh(self.comprehension(node, lambda f: [f(node.elt)]))

    def eval_GeneratorExp(self, node: Any) -> Any:
        unpacked = self.genexp_kept(node)   # held as a list: only where it is consumed once (generators.py)
        if unpacked is LAZY:   # kept to be pulled later: a generator object
            return self.lazy_genexp(node)
        if unpacked is STOPPING:   # a consumer that may stop early: a list unless its items check or print
            return self.genexp_items_or_lazy(
                node, lambda: self.mark_fresh(self.comprehension(node, lambda f: [f(node.elt)])))
        items = self.mark_fresh(self.comprehension(node, lambda f: [f(node.elt)]))
        if unpacked is not None:
            self.genexp_unpacked(node, unpacked, items)
        return items

    def eval_SetComp(self, node: Any) -> Any:
        items = self.comprehension(node, lambda f: [f(node.elt)])
        if _hashed_standins(items):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a set of traced values needs their hashes "
                                   "(eager hashes their values)")
        return self.mark_fresh(set(items))

    def eval_DictComp(self, node: Any) -> Any:
        pairs = self.comprehension(node, lambda f: [(f(node.key), f(node.value))])
        if _hashed_standins([k for k, _ in pairs]):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a traced value as a dict key (eager hashes "
                                   "its value)")
        return self.mark_fresh(dict(pairs))

    def comprehension(self, node: Any, produce: Callable) -> list:
        """Unrolled evaluation over static iterables, in the comprehension's own scope."""
        targets: set[str] = set()
        for gen in node.generators:
            targets |= {n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name)}
        outer = self.frame
        inner = Frame(outer.unit, {}, outer, frozenset(targets))
        out: list = self.mark_fresh([])   # this call's own: a traced filter appends to it

        filtered = [False]   # inside a traced filter: appends are the branch's writes (varlist joins them)

        def loop(i: int) -> None:
            if i == len(node.generators):
                items = produce(self.eval)
                if filtered[0]:
                    for item in items:
                        self.call(out.append, (item,), {}, node)
                else:
                    out.extend(items)
                return
            gen = node.generators[i]
            iterable = self.eval(gen.iter)
            if isinstance(node, gast.GeneratorExp) and generators_in(iterable):
                self.genexp_over_generators(node)   # made now, it must not pull earlier than eager (generators.py)
            if isinstance(iterable, collections.abc.Iterator):
                # pulled one item per element, as eager pulls it: an item may
                # be valid only until the next is pulled (itertools.groupby's groups)
                self.check_consumable(iterable, gen.iter)
                items: Any = self._live_items(iterable, gen.iter, self.options.max_unroll)
            else:
                items = self.iterate_static(iterable, gen.iter)
            for item in items:
                self.assign(gen.target, item, gen)
                self._comprehension_filter(node, gen.ifs, 0, lambda: loop(i + 1), filtered)

        self.frame = inner
        try:
            self.decide(node, "comprehension", "unrolled", "comprehension over a static iterable")
            loop(0)
        finally:
            self.frame = outer
        return out

    def _comprehension_filter(self, node: Any, conds: list, k: int, rest: Callable[[], None], filtered: list) -> None:
        """The filters ``conds[k:]`` of one item, then ``rest``. A traced
        filter of a list comprehension or generator expression runs the rest
        as the branch of a traced ``if`` that appends (the list's length then
        depends on the data: a tail, varlist.py), as ``for``/``if``/``append``
        would; where the rest assigns a name (a walrus), or of a set or dict
        comprehension, the comprehension runs in Python."""
        if k == len(conds):
            rest()
            return
        cond = conds[k]
        truth = self.truth(self.eval(cond), cond)
        if not isinstance(truth, Value):
            if truth:
                self._comprehension_filter(node, conds, k + 1, rest, filtered)
            return
        if not isinstance(node, (gast.ListComp, gast.GeneratorExp)) or _assigns_in_rest(node, cond):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, cond, "a comprehension filter on a traced value (the "
                                   "result length would depend on data)")
        self.decide(cond, "comprehension", "lax.cond", "filter on a traced value: the item appended on one branch")
        was = filtered[0]
        filtered[0] = True
        try:
            self._traced_branches(cond, truth, [lambda: self._comprehension_filter(node, conds, k + 1, rest, filtered),
                                                lambda: None], [], set())
        finally:
            filtered[0] = was

    def eval_Yield(self, node: Any) -> Any:
        return self.generator_yield(node)   # generators.py

    eval_YieldFrom = eval_Yield

    # -------------------------------------------------------------- targets
    def assign(self, target: Any, value: Any, node: Any) -> None:
        if isinstance(target, gast.Name):
            self.assign_name(target.id, value, target)
        elif isinstance(target, (gast.Tuple, gast.List)):
            self._unpack(target, value)
        elif isinstance(target, gast.Subscript):
            self._store_subscript(target, value)
        elif isinstance(target, gast.Attribute):
            self.store_attribute(self.eval(target.value), target.attr, value, target)
        elif isinstance(target, gast.Starred):
            self.assign(target.value, value, node)
        else:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, target, f"assignment to {type(target).__name__}")

    def store_attribute(self, obj: Any, attr: str, value: Any, node: Any) -> None:
        """``obj.attr = value`` (also ``setattr(obj, "attr", value)``)."""
        if lapack.labels(obj, attr, value):   # get_lapack_funcs labelling a LAPACK wrapper: made now, as eager's
            setattr(obj, attr, value)
            return
        if is_nnx(obj):   # an NNX Variable or module (nnx.py): lifted out of the graph
            self.nnx_set_attribute(obj, attr, value, node)
            return
        if self.stores_captured_array(obj, attr, value, node):   # ``self.w -= g``: the same array, written
            return
        if not self._is_fresh(obj) and self._can_lift_attribute_write(obj, attr):
            # under a traced `if` joined, in a rolled loop carried (control.py)
            self._attribute_write_of_held_storage(obj, attr, node)
            self.lift_write(obj, attr, value, node, f"attribute {attr!r}")
            return
        if self._joined_attribute_write(obj, attr, value, node):
            return
        self.check_mutable(obj, node, f"setting attribute {attr!r}")
        if isinstance(obj, LocalFunction):   # a function attribute (f.calls = 0): the function's own
            obj.attributes[attr] = value
            return
        self.static_call(setattr, (obj, attr, value), {}, node, reads=False)

    def _joined_attribute_write(self, obj: Any, attr: str, value: Any, node: Any) -> bool:
        """``st.best = loss`` under a traced ``if`` (or in a rolled loop) on a
        plain object made in the function before it (a ``SimpleNamespace``, an
        instance whose ``attr`` is stored in its ``__dict__``): a write into
        its ``__dict__``, joined after the branch (carried by the loop) as a
        dict's items are (``containers.log_container_write``). False where
        this does not apply (``check_mutable`` decides)."""
        entry = self.fresh.get(id(obj))
        if entry is None or entry[1] is not obj or entry[0] >= self.traced_depth or isinstance(obj, LocalFunction):
            return False
        if type(obj) is not types.SimpleNamespace and not (self._can_lift_attribute_write(obj, attr)
                                                           and type(obj).__getattribute__ is object.__getattribute__):
            return False   # (a property or slot of its own for ``attr``, a custom ``__setattr__``: not a write
            # into ``__dict__``; a property for another attribute leaves this one plain)
        storage = obj.__dict__
        if type(storage) is not dict or not self.log_container_write(storage, entry[0], node):
            return False
        self.mutations += 1
        self.mutated.append(id(obj))
        storage[attr] = value
        return True

    def _unpack(self, target: Any, value: Any) -> None:
        items = self.iterate_static(value, target)
        elts = target.elts
        star = [i for i, e in enumerate(elts) if isinstance(e, gast.Starred)]
        if star:
            s = star[0]
            after = len(elts) - s - 1
            if len(items) < len(elts) - 1:
                raise self.graph_break(FallbackCode.TRACE_ERROR, target, "not enough values to unpack (eager raises ValueError)")
            middle = self.mark_fresh(list(items[s:len(items) - after]))
            items = items[:s] + [middle] + items[len(items) - after:]
        elif len(items) != len(elts):
            raise self.graph_break(FallbackCode.TRACE_ERROR, target, f"cannot unpack {len(items)} values into {len(elts)} targets (eager raises ValueError)")
        for k, (e, item) in enumerate(zip(elts, items)):
            self.pending.append((items, k + 1))   # (the values still to assign: ``mutation._references``)
            try:
                self.assign(e, item, target)
            finally:
                self.pending.pop()

    def _store_subscript(self, target: gast.Subscript, value: Any) -> None:
        obj, row = self._subscript_target(target.value)
        idx = self.eval_index(target.slice)
        self._store_subscript_at(target, obj, idx, value, row)

    def _store_subscript_at(self, target: gast.Subscript, obj: Any, idx: Any, value: Any,
                            row: tuple | None = None) -> None:
        """``obj[idx] = value`` of the evaluated container and index of
        ``target`` (``row``: where ``obj`` is a row of a local NumPy array,
        ``_subscript_target``'s)."""
        if is_variable(obj):   # ``v[...] = x`` on an NNX Variable: an op; the write is lifted (nnx.py)
            self.nnx_operator(operator.setitem, (obj, idx, value), target)
            return
        if isinstance(obj, Value) or isinstance(obj, np.ndarray) and (
                self.functional_store(obj, idx, value) or row is not None and self.functional_store(row[1], row[2], value)):
            if row is not None:   # ``F[i][j] = v``: written through the row, a view of ``F``
                self.row_store(target, row, obj, idx, value)
                return
            self.array_store(target, obj, idx, value)
            return
        self.store_item_into(obj, idx, value, target)

    def _subscript_target(self, node: Any) -> tuple[Any, tuple | None]:
        """The object a subscript store writes into (``node``, evaluated once),
        and, where it is a row of a local NumPy array, ``F[k]`` with ``k`` a
        basic index (integers, static slices, ``None``, ``...``: NumPy's result
        is a view, so a write into it is a write into ``F``), (F's name, F,
        k) for ``row_store``; else None."""
        if not (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
                and self.frame.owns(node.value.id)):
            return self.eval(node), None
        base = self.eval(node.value)
        numpy = isinstance(base, Value) and base.type.numpy and not base.type.mixed and bool(base.type.shape) \
            or type(base) is np.ndarray and base.dtype != object and base.ndim > 0
        if not numpy:
            return self.eval(node), None
        k = self.eval_index(node.slice)
        if type(k) is KindedValue:
            return self.split_kinds((base, k), lambda oi: self.subscript(*oi, node), node), None
        row = self.subscript(base, k, node)
        return row, ((node.value.id, base, k) if _basic_index(k) else None)

    def chosen_keys(self, obj: Any, key: Any) -> tuple | None:
        """The keys ``key`` may be, where it is a str chosen by a traced
        condition (``key = "pos" if v > 0 else "neg"``: ``control._chosen_strings``)
        and ``obj`` a plain dict made in this trace holding every one of them:
        ``obj[key]`` is then the item at a traced index into its items at those
        keys, whatever the data (eager's dict keeps its keys and their order;
        only the items change). None otherwise."""
        if type(obj) not in (dict, collections.defaultdict) or type(key) is not arrays.DeferredStr \
                or len(key.parts) != 1 or isinstance(key.parts[0], str) or key.parts[0][0] != arrays.CHOICE \
                or not self._is_fresh(obj):
            return None
        options = key.parts[0][1]
        return options if all(type(o) is str and o in obj for o in options) else None

    def store_item_into(self, obj: Any, idx: Any, value: Any, target: Any) -> None:
        """``obj[idx] = value`` (also ``operator.setitem``) on a Python container."""
        self._storage_write(obj, target)
        if not self._is_fresh(obj) and self.lift_item_write(obj, idx, value, target):
            return   # ``CACHE[k] = v`` on an outside dict: replayed after the call (writeback.py)
        self.check_mutable(obj, target, "item assignment")
        options = self.chosen_keys(obj, idx)
        if options is not None:   # ``counts[key] = ..``: each key's item selected, as a list's at a traced index
            items = self.mark_fresh([obj[o] for o in options])
            self.store_item_into(items, idx.values[0], value, target)
            for o, item in zip(options, items):
                self.static_call(operator.setitem, (obj, o, item), {}, target, reads=False)
            return
        if type(obj) is list and self.traced_int_index(idx):
            if traced_index(idx) and self.uniform_items(obj, (value,)):   # listindex.py
                self.store_item(obj, idx, value, target)
            else:
                self.traced_list_store(target, obj, idx, value)   # containers.py: each item selected
            return
        if contains_value(idx):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, target, "a traced index into a Python container")
        self.static_call(operator.setitem, (obj, idx, value), {}, target, reads=False)

    # ----------------------------------------------------------- statements
    def exec_block(self, stmts: list) -> None:
        for i, stmt in enumerate(stmts):
            self.cont.append((stmts, i))
            try:
                try:
                    self.exec_stmt(stmt)
                except ReturnSignal as signal:   # ``return f(x)`` whose check a handler takes: returns where it passes
                    pending = self.__dict__.get("_caught_check")
                    if pending is not None and pending[0] is stmt and signal.node is stmt:
                        self.raise_caught_check(stmt, signal)
                    raise
                pending = self.__dict__.get("_caught_check")
                if pending is not None and pending[0] is stmt:   # a check a handler takes (blocks.caught_check)
                    self.raise_caught_check(stmt)
            finally:
                self.cont.pop()
                pending = self.__dict__.get("_caught_check")
                if pending is not None and pending[0] is stmt:
                    del self.__dict__["_caught_check"]

    def exec_stmt(self, stmt: Any) -> None:
        method = getattr(self, "exec_" + type(stmt).__name__, None)
        if method is None:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"`{type(stmt).__name__.lower()}` statement")
        outer, self.__dict__["_stmt"] = self.__dict__.get("_stmt"), stmt   # (where a read from outside is made)
        try:
            method(stmt)
        finally:
            self.__dict__["_stmt"] = outer
            if "_pending_shadows" in self.__dict__:   # outside lists appended to in a traced construct (writeback.py)
                self.flush_shadows(stmt)

    def exec_Expr(self, stmt: gast.Expr) -> None:
        self.eval(stmt.value)

    def exec_Pass(self, stmt: Any) -> None:
        pass

    def exec_Assign(self, stmt: gast.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value, stmt)

    def exec_AnnAssign(self, stmt: gast.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value), stmt)

    def exec_AugAssign(self, stmt: gast.AugAssign) -> None:
        target = stmt.target
        name = type(stmt.op).__name__
        if isinstance(target, gast.Name):
            current = self.lookup(target.id, target)
            right = self.eval(stmt.value)
            # (a 0-d ndarray, ``array0``, is written in place; a NumPy scalar is not)
            if self._numpy_in_place(current, right, stmt, name):
                # `x -= v` on a NumPy array is in place (ndarray.__isub__): every
                # alias, the caller's array included, sees it, as after `x[...] -= v`
                # (with a jax.Array operand NumPy defers: `x` is rebound to a jax.Array)
                whole = gast.Subscript(value=gast.Name(id=target.id, ctx=gast.Load(), annotation=None, type_comment=None),
                                       slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
                gast.copy_location(whole, target)
                gast.copy_location(whole.value, target)
                self._aug_subscript(whole, current, stmt, name, right)
                return
            if isinstance(current, (list, dict, set)):
                self.check_mutable(current, stmt, f"`{name}=` on a container")
            fn = arrays.INPLACE_OPERATORS[name]
            self.assign_name(target.id, self.binop(fn, current, right, stmt), target)
            return
        if isinstance(target, gast.Subscript):
            obj, row = self._subscript_target(target.value)
            if isinstance(obj, (Value, np.ndarray)):   # evaluated once, as Python does
                self._aug_subscript(target, obj, stmt, name, row=row)
                return
        load = gast.Subscript(value=target.value, slice=target.slice, ctx=gast.Load()) if isinstance(target, gast.Subscript) \
            else gast.Attribute(value=target.value, attr=target.attr, ctx=gast.Load())
        gast.copy_location(load, target)
        if isinstance(target, gast.Attribute) or _calls_in(target):
            # ``d[key(v)] += 1``, ``get().n += 1``: the container and the key evaluated once, as Python does
            self._aug_once(target, obj if isinstance(target, gast.Subscript) else self.eval(target.value), stmt, load)
            return
        current = self.eval(load)
        right = self.eval(stmt.value)
        if self._numpy_in_place(current, right, stmt, name):
            self._aug_held_array(target, current, right, stmt)
            return
        new = self.binop(arrays.INPLACE_OPERATORS[name], current, right, stmt)
        self.assign(target, new, stmt)

    def _aug_once(self, target: Any, obj: Any, stmt: gast.AugAssign, load: Any) -> None:
        """``obj[idx] op= v`` / ``obj.attr op= v`` with ``obj`` evaluated (and
        the index evaluated here, once): read, combined, stored back."""
        name = type(stmt.op).__name__
        if isinstance(target, gast.Subscript):
            idx = self.eval_index(target.slice)
            if type(obj) is KindedValue or type(idx) is KindedValue:
                current = self.split_kinds((obj, idx), lambda oi: self.subscript(*oi, load), load)
            else:
                current = self.subscript(obj, idx, load)
        else:
            current = self.attribute_of(obj, target.attr, load)
        right = self.eval(stmt.value)
        if self._numpy_in_place(current, right, stmt, name):
            if _calls_in(target):
                raise self.graph_break(FallbackCode.MUTATION, stmt, f"`{_AUG_SYMBOLS.get(name, '')}=` writing a "
                                       "NumPy array in place, reached through a call")
            self._aug_held_array(target, current, right, stmt)
            return
        new = self.binop(arrays.INPLACE_OPERATORS[name], current, right, stmt)
        if isinstance(target, gast.Subscript):
            self._store_subscript_at(target, obj, idx, new)
        else:
            self.store_attribute(obj, target.attr, new, target)

    def _numpy_in_place(self, current: Any, right: Any, stmt: gast.AugAssign, name: str) -> bool:
        """Whether ``current op= right`` is NumPy's in-place operator
        (``ndarray.__iadd__``: the very array is written, every alias sees it):
        ``current`` a NumPy array (a 0-d ndarray too, not a NumPy scalar),
        ``right`` holding no jax.Array (NumPy then defers: a new jax.Array)."""
        numpy = isinstance(current, np.ndarray) or isinstance(current, Value) and current.type.numpy and (
            current.type.shape or current.type.array0 or id(current) in self.input_of)
        jax_operand = any(isinstance(x, jax.Array) or isinstance(x, Value) and "jax" in x.type.kinds
                          for x in tree_flatten(right)[0])
        if any(isinstance(x, Value) and x.type.mixed and x.type.shape for x in (current, *tree_flatten(right)[0])):
            # in place on a NumPy array, a new object otherwise: eager's choice depends on the path
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, stmt, f"`{name}=` on a value whose kind (NumPy "
                                   "array or not) depends on the path taken")
        return numpy and not jax_operand

    def _aug_held_array(self, target: Any, current: Any, right: Any, stmt: gast.AugAssign) -> None:
        """``lst[k] op= v`` / ``obj.w op= v`` where the item is a NumPy array:
        as Python runs it, ``tmp = lst[k]; tmp op= v; lst[k] = tmp``: the
        array itself is written in place (an alias of it, the caller's array
        included, sees the write, as after ``a = lst[k]; a += v``), then
        stored back into its place (the same object)."""
        tmp = f"{_AUG_TEMP}{len(self.frame.env)}"
        frame, owned = self.frame, self.frame.local_names
        frame.local_names = owned | {tmp}
        frame.env[tmp] = current
        slot = self._own_slot(target, current)   # (eager stores the written array back there: not another alias)
        try:
            name_node = gast.Name(id=tmp, ctx=gast.Store(), annotation=None, type_comment=None)
            gast.copy_location(name_node, target)
            aug = gast.AugAssign(target=name_node, op=stmt.op, value=stmt.value)
            gast.copy_location(aug, stmt)
            whole = gast.Subscript(value=gast.Name(id=tmp, ctx=gast.Load(), annotation=None, type_comment=None),
                                   slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
            gast.copy_location(whole, target)
            gast.copy_location(whole.value, target)
            if slot is not None:
                slot[1](None)
            self._aug_subscript(whole, current, stmt, type(stmt.op).__name__, right)
            written = frame.env[tmp]
        except GraphBreak as e:
            if f"'{tmp}'" not in e.site.cause:
                raise
            what = f"the attribute {target.attr!r}" if isinstance(target, gast.Attribute) else "the item"
            symbol = _AUG_SYMBOLS.get(type(stmt.op).__name__, "")
            raise self.graph_break(e.site.code, stmt, e.site.cause.replace(f"'{tmp}'", f"{what} (`{symbol}=` writes "
                                   "that array in place)"), hint=e.site.hint) from None
        finally:
            if slot is not None:   # (back as it was: the store below is the write, joined or lifted as any other)
                slot[1](current)
            frame.env.pop(tmp, None)
            frame.local_names = owned
        self.assign(target, written, stmt)

    def _own_slot(self, target: Any, current: Any) -> tuple | None:
        """The place ``target`` (``lst[k]``, ``d[key]``, ``obj.attr``) names
        in a container or object this call made (``_is_fresh``), holding
        ``current``: (the container, a setter of that place); None elsewhere
        (the caller's containers: their other holders are the alias checks')."""
        if isinstance(target, gast.Attribute):
            obj = self.eval(target.value)
            if not self._is_fresh(obj) or type(obj).__setattr__ is not object.__setattr__ \
                    or vars(obj).get(target.attr) is not current:
                return None
            return obj, lambda v: vars(obj).__setitem__(target.attr, v)
        obj = self.eval(target.value)
        if type(obj) not in (list, dict) or not self._is_fresh(obj):
            return None
        key = self.eval_index(target.slice)
        try:
            if obj[key] is not current:
                return None
        except (TypeError, KeyError, IndexError):
            return None
        return obj, lambda v: obj.__setitem__(key, v)

    def _aug_subscript(self, target: gast.Subscript, obj: Any, stmt: gast.AugAssign, name: str,
                       right: Any = NO_DEFAULT, row: tuple | None = None) -> None:
        """``x[i] op= v`` on an array (``obj`` is ``x``, already evaluated;
        ``row``: ``_subscript_target``'s, where ``x`` is a row ``F[k]``)."""
        idx, fn = self.eval_index(target.slice), arrays.INPLACE_OPERATORS[name]
        right = self.eval(stmt.value) if right is NO_DEFAULT else right
        if isinstance(obj, Value) or self.functional_store(obj, idx, right) or \
                row is not None and self.functional_store(row[1], row[2], right):
            if row is not None:   # ``A[i][k:] -= f * A[k][k:]``: written through the row, a view of ``A``
                self.row_store(target, row, obj, idx, right, fn)
                return
            self.array_store(target, obj, idx, right, fn)
            return
        current = self.static_call(operator.getitem, (obj, idx), {}, target)
        self.check_mutable(obj, target, "item assignment")
        self.static_call(operator.setitem, (obj, idx, self.binop(fn, current, right, stmt)), {}, target, reads=False)

    def exec_Return(self, stmt: gast.Return) -> None:
        value = None if stmt.value is None else self.eval(stmt.value)
        adapter = getattr(self.frame, "return_adapter", None)
        if adapter is not None and stmt.value is not None:
            # the caller converts whatever this call returns (``apply_along``: np.asanyarray), done on each
            # path before the paths join: an array on one and a tuple of scalars on another join as one array
            value = adapter(self, value, stmt)
        raise ReturnSignal(stmt, value)

    def exec_Break(self, stmt: Any) -> None:
        raise BreakSignal(stmt)

    def exec_Continue(self, stmt: Any) -> None:
        raise ContinueSignal(stmt)

    def exec_Assert(self, stmt: gast.Assert) -> None:
        truth = self.truth(self.eval(stmt.test), stmt.test)
        if isinstance(truth, Value):
            start = len(self.region.ops)
            args = None if not self.raise_checks_allowed() and not self.check_may_be_caught() else \
                ((), {}) if stmt.msg is None else \
                self.check_arguments([stmt.msg], [], start)
            if args is None:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, stmt, "assert on a traced value whose message "
                                       "cannot be made only when the check fails")
            failed = self.emit_call(arrays.logical_not, (truth,), {}, stmt, "not")
            self.emit_raise_check(failed, stmt, AssertionError, args[0], {}, "assert")
            self.decide(stmt, "assert", "checked", "assert on a traced value: a run-time check, the call raises "
                        "AssertionError as eager does")
            return
        if not truth:
            self._static_assert_check(stmt)
            raise self.graph_break(FallbackCode.TRACE_ERROR, stmt, "assertion fails (eager raises AssertionError)")

    def _static_assert_check(self, stmt: gast.Assert) -> None:
        """An ``assert`` that fails on a static path of the converted function
        itself (``assert lo < hi`` of static arguments): as a ``raise
        AssertionError(msg)`` there (``_static_raise_check``), a run-time check
        that always fires after the graph of what came before; the call ends
        here. Returns where that cannot be (the assert then falls back)."""
        if self.frame is not getattr(self, "top_frame", None) or self.callers or self.traced_depth \
                or getattr(self, "rolled_depth", 0) or self.protectors or not self.raise_checks_allowed():
            return
        start = len(self.region.ops)
        try:
            args = ((), {}) if stmt.msg is None else self.check_arguments([stmt.msg], [], start)
            if args is not None:
                self.emit_raise_check(self.as_value(True, stmt), stmt, AssertionError, args[0], {}, "assert")
        except GraphBreak:
            args = None
        if args is None:
            del self.region.ops[start:]
            return
        self.decide(stmt, "assert", "checked", "assert failing on a static path: a run-time check that fires after "
                    "the graph, the call raises AssertionError as eager does")
        raise ReturnSignal(stmt, None)

    def exec_FunctionDef(self, stmt: gast.FunctionDef) -> None:
        if stmt.decorator_list:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "decorated nested function")
        self.assign_name(stmt.name, self.make_local_function(stmt), stmt)

    def exec_ClassDef(self, stmt: gast.ClassDef) -> None:
        """A class defined in the function: made at trace time when making it
        has no effect (``localclass``); a new class on every trace, as eager
        makes one per call, and it never leaves the graph."""
        from .localclass import base_problem, local_class_problem, make_local_class

        def is_local(name: str) -> bool:
            frame = self.frame
            while frame is not None:
                if frame.owns(name):
                    return True
                frame = frame.parent
            return False

        problem = local_class_problem(stmt, is_local)
        bases = [self.eval(b) for b in stmt.bases] if problem is None else []
        problem = problem or base_problem(bases)
        if problem is not None:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"a class defined in the function: {problem}",
                                   "classdef", hint="define the class at module level")
        unit = self.frame.unit
        cls = make_local_class(stmt, bases, unit.filename, unit.globals, unit.qualname, unit.future_flags)
        self.decide(stmt, "classdef", "trace time", "a class of methods and constants, made while tracing")
        self.assign_name(stmt.name, self.mark_fresh(cls), stmt)

    def exec_Global(self, stmt: Any) -> None:
        pass

    def exec_Nonlocal(self, stmt: Any) -> None:
        pass

    def exec_Import(self, stmt: Any) -> None:
        import importlib

        for alias in stmt.names:
            module = self.static_call(importlib.import_module, (alias.name,), {}, stmt)
            if alias.asname:
                self.assign_name(alias.asname, module, stmt)
            else:
                top = alias.name.split(".")[0]
                self.assign_name(top, importlib.import_module(top), stmt)

    def exec_ImportFrom(self, stmt: Any) -> None:
        import importlib

        if any(a.name == "*" for a in stmt.names):
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "star import inside a function")
        if stmt.level:   # ``from ._x import y``: pure where the modules are imported already
            self._relative_import(stmt)
            return
        module = self.static_call(importlib.import_module, (stmt.module,), {}, stmt)
        for alias in stmt.names:
            self.assign_name(alias.asname or alias.name, self.static_call(getattr, (module, alias.name), {}, stmt), stmt)

    def _relative_import(self, stmt: Any) -> None:
        """``from .mod import name`` in a library's function: resolved against
        the function's package (its globals' ``__package__``, as eager's import
        resolves it). Eager finds an imported module in ``sys.modules`` and reads
        its attribute (or the submodule ``pkg.mod.name``): nothing happens but
        the read. Importing a module not imported yet runs its code: in Python."""
        import importlib.util

        globs = self.frame.unit.globals
        package = globs.get("__package__")
        if package is None:
            name = globs.get("__name__", "")
            package = name if "__path__" in globs else name.rpartition(".")[0]
        try:
            target = importlib.util.resolve_name("." * stmt.level + (stmt.module or ""), package)
        except (ImportError, ValueError) as e:
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, f"relative import: {e}") from None
        module = sys.modules.get(target)
        for alias in stmt.names:
            found = module is not None and alias.name in vars(module)
            value = self.get_attribute(module, alias.name, stmt) if found else sys.modules.get(f"{target}.{alias.name}")
            if value is None:
                raise self.graph_break(FallbackCode.SIDE_EFFECT, stmt, f"`from {'.' * stmt.level}{stmt.module or ''} "
                                       f"import {alias.name}` imports a module not imported yet (its code runs)", "import")
            self.assign_name(alias.asname or alias.name, value, stmt)

    def exec_Delete(self, stmt: Any) -> None:
        for target in stmt.targets:
            if isinstance(target, gast.Name) and self.frame.owns(target.id) and target.id in self.frame.env:
                if isinstance(self.frame.env[target.id], MaybeBound):   # eager raises where it is unbound
                    self.check_bound(target.id, self.frame.env[target.id], target)
                del self.frame.env[target.id]
            elif isinstance(target, gast.Subscript):
                self._delete_item(target, stmt)
            else:
                raise self.graph_break(FallbackCode.MUTATION, stmt, "`del` of something other than a bound local "
                                       "or an item of a list or dict")

    def _delete_item(self, target: Any, stmt: Any) -> None:
        """``del d[k]`` of a dict and ``del xs[i]``/``del xs[a:b]`` of a list,
        static keys and indices: the container's own ``pop`` calls (which the
        write-back machinery records as it records a call of them), an item
        at a time, the highest index first. Where eager raises (a missing key,
        an index out of range), the statement runs in Python and raises it."""
        obj = self.eval(target.value)
        idx = self.eval_index(target.slice)
        if contains_value(idx) or contains_standin(idx) or type(obj) not in (list, dict) \
                and not isinstance(obj, (collections.OrderedDict, collections.defaultdict)):
            raise self.graph_break(FallbackCode.MUTATION, stmt, f"`del` of an item of a {type(obj).__name__} by "
                                   f"{'a traced' if contains_value(idx) else 'a'} {type(idx).__name__}")
        if isinstance(obj, dict):
            try:
                present = idx in obj
            except TypeError:   # unhashable: eager raises TypeError
                present = False
            keys = [idx] if present else None
        elif isinstance(idx, slice) and all(p is None or type(p) is int for p in (idx.start, idx.stop, idx.step)):
            keys = sorted(range(len(obj))[idx], reverse=True)
        elif type(idx) is int:
            keys = [idx] if -len(obj) <= idx < len(obj) else None
        else:
            keys = None
        if keys is None:
            raise self.graph_break(FallbackCode.TRACE_ERROR, stmt, "`del` of a missing key or an index out of range "
                                   "(eager raises)")
        pop = self.get_attribute(obj, "pop", target)
        for k in keys:
            self.call(pop, (k,), {}, target)

    def state_written(self) -> bool:
        """Whether the segment has so far written state it applies after the
        call: attributes and outside containers (``attr_writes``), argument
        arrays and views of them, the caller's lists and dicts."""
        return bool(self.attr_writes or self.input_writes or self.view_writes or self.first_writes)

    def raise_checks_allowed(self) -> bool:
        """A ``raise`` may become a run-time check unless a try/except or a
        context manager around it may take it or act differently when it
        raises (``checkscope``: the class itself is tested where the check is
        emitted), or the segment prints (``specialize`` then runs again
        without checks): a check's callback is not ordered with the prints'
        callbacks, and eager prints exactly up to the raise."""
        return self.raise_checks is True and self.checks_may_pass()

    def _numpy_warning_errors(self, node: Any, name: str) -> None:
        """A NumPy op while the warning filters may turn a RuntimeWarning
        into an exception (``simplefilter("error")``): NumPy's floating-point
        warnings (``np.log(0)``, ``0 / 0``) raise in eager, which a graph op
        never does; the statement runs in Python."""
        module = self.frame.unit.globals.get("__name__", "<string>")
        actions = hostwarnings.filter_actions(RuntimeWarning, None, module if isinstance(module, str) else "<string>",
                                              getattr(node, "lineno", 0))
        if "error" in actions:
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{name} of NumPy values where the warning filters "
                                   "turn NumPy's RuntimeWarnings into exceptions (eager raises for np.log(0), 0/0, ...)")

    def _check_site(self, fn: Callable, args: tuple, kwargs: dict, node: Any, name: str) -> bool:
        """A run-time check about to be emitted: refused where a handler
        around it may catch its exception or a manager around it is opaque
        (``checkscope`` rule 1), or where checks are off, unless the handler
        of the ``try`` around it takes it in the graph (``caught_check``:
        True, no check emitted); otherwise noted for ``specialize`` (a check
        after writes of state)."""
        exc = args[1] if fn is arrays.raise_when and len(args) > 1 else None
        exc = exc.ctor if isinstance(exc, arrays.Caused) else exc.cls if isinstance(exc, arrays.Remake) else exc
        exc_class = exc if isinstance(exc, type) else type(exc) if isinstance(exc, BaseException) else None
        classes = (exc_class,) if fn is arrays.raise_when else getattr(fn, "_a2g_raises", (None,))   # what it may raise
        if self.__dict__.get("_caught_check") is not None and self.caught_check(fn, args, kwargs, node):
            return True   # a later check of a statement whose earlier one a handler takes: where that did not fire
        if self.raise_checks is False or not all(self.check_passes(c) for c in classes):
            if self.caught_check(fn, args, kwargs, node):
                return True
            # a run-time check raises out of the graph: past a handler of the
            # user's, and skipping the writes and prints the segment applies
            # after the call, which eager made before raising
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"a {name or qualified_name(fn)} (eager may raise "
                                   "here) where a run-time check cannot raise: inside a try/except that may catch it "
                                   "or a context manager whose exit ast2graph cannot prove the same on the raising "
                                   "path, or in a segment that writes state or prints")
        self.mark_checked()
        # (writes that each location holds again by identity, read and guarded, as before the segment,
        # ``with config_context(...)`` exited before the check, are none: eager's state when it raises is
        # the caller's, and the graph applies none: checkscope rule 4 with no protector around it)
        unproven = not self.protectors and self.state_written() and not self._neutral()
        if self.rolled_depth and not unproven:
            # on every trip the state its mark saw: proven where the rolled loops end, the body writing
            # nothing carried and nothing after it (``control._prove_rolled_checks``); then the protectors'
            # rules 3-4 from there
            self.__dict__.setdefault("rolled_check_marks", []).append(self._mark())
            if self.protectors:
                self.note_protected_check()
        elif self.protectors and not self.rolled_depth:
            self.note_protected_check()   # proven when the protectors end (checkscope rules 3-4), or late
        elif unproven and not self.rolled_depth and fn is arrays.raise_when and \
                (writes := self.check_writeback()) is not None:
            # the check, when it fires, makes the writes so far itself before it raises (eager's state at
            # the raise); the call then raises before the write-back of the segment's end
            self.__dict__["_check_writes"] = writes
        elif unproven or self.rolled_depth:
            self.late_checks = True
        return False

    # ---------------------------------------------- raise and assert as run-time checks
    def emit_raise_check(self, pred: Value, stmt: Any, exc: Any, args: tuple, kwargs: dict, construct: str,
                         before: tuple = ()) -> None:
        """``if pred: raise`` what ``stmt`` raises (``arrays.raise_when``):
        ``exc`` an instance raised itself, or a constructor called with
        ``args``/``kwargs`` (``Static`` objects and graph values) on the host
        when the check fires; the traceback ends at ``stmt``. ``before``:
        host calls ``(fn, args, kwargs)`` made first when it fires."""
        region, folded = self.__dict__.pop("_fp_folded", (None, ()))
        defined = {id(r) for op in self.region.ops for r in op.results} if folded else set()
        if region is self.region and all(id(flags) in defined for _, (flags,), _ in folded):
            before = (*before, *folded)   # the warnings of the message's computation (``_fold_fp_warnings``)
        kinds = self.value_kinds((args, kwargs, before), stmt)
        extra = {"before": before} if before else {}
        self.emit_call(arrays.raise_when, (pred, exc, args, kwargs), {"site": self.raise_site(stmt), "kinds": kinds,
                                                                      **extra}, stmt, construct, effect=True)

    def raise_site(self, stmt: Any) -> RaiseSite:
        """``stmt`` (a ``raise`` or an ``assert``)'s place in the user's
        source, for the traceback, after the calls of the inlined functions
        that led to it."""
        if isinstance(stmt, gast.Assert):
            form, part = "assert-msg" if stmt.msg is not None else "assert", stmt.test
        elif not isinstance(stmt, gast.Raise):   # a read of a variable that may be unbound (``check_bound``):
            form, part = "raise-call", stmt   # ``raise _()`` (the name's span has no room for it: tracebacks._compact)
        else:
            form, part = ("raise-call", stmt.exc) if isinstance(stmt.exc, gast.Call) else ("raise", None)
        calls = [self._user_line(f.unit, node) for f, node in zip(self.callers, self.call_nodes)
                 if getattr(node, "lineno", None) is not None]
        return RaiseSite((*calls, self._user_line(self.frame.unit, stmt, form, part)))

    def host_site(self, node: Any) -> PendingSite:
        """Where an op that runs a host callback is in the user's source (the
        calls of inlined functions that led there, then ``node``'s statement):
        an exception the callback raises is raised from there."""
        frames = list(zip(self.callers, self.call_nodes))
        unit = self.frame.unit
        if getattr(node, "lineno", None) is None:
            node = self.__dict__.get("_stmt", node)

        def make() -> RaiseSite:
            calls = [self._user_line(f.unit, n) for f, n in frames if getattr(n, "lineno", None) is not None]
            last = [self._user_line(unit, node)] if getattr(node, "lineno", None) is not None else []
            return RaiseSite((*calls, *last))
        return PendingSite(make)

    def _span(self, unit: Any, node: Any) -> tuple:
        """``node``'s (line, col, end line, end col) in its file."""
        line, col = node.lineno, node.col_offset
        end_line = getattr(node, "end_lineno", None) or line
        end_col = getattr(node, "end_col_offset", None)
        end_col = len(linecache.getline(unit.filename, end_line).rstrip()) if end_col is None else end_col
        return line, col, end_line, end_col

    def _user_line(self, unit: Any, node: Any, form: str = "call", part: Any = None) -> UserLine:
        """``node`` (a call of an inlined function, or a ``raise``/``assert``
        statement doing ``form``, ``part`` its call or test) in ``unit``'s
        function, as the function's code object names it."""
        tree, fn = unit.tree, getattr(unit.parsed, "fn", None)
        code = getattr(fn, "__code__", None)
        if code is not None and code.co_filename == unit.filename:
            name, qualname, first = code.co_name, getattr(code, "co_qualname", unit.qualname), code.co_firstlineno
        else:
            name, qualname = getattr(tree, "name", "<lambda>"), unit.qualname
            first = min([tree.lineno] + [d.lineno for d in getattr(tree, "decorator_list", [])])
        test = self._fake_test(unit, part) if form.startswith("assert") else None
        return UserLine(unit.filename, self._span(unit, node), None if part is None else self._span(unit, part), form,
                        name, qualname, first, unit.globals, test)

    def _fake_test(self, unit: Any, test: Any) -> str | None:
        """An assert's test of one comparison, its operands replaced by runs of
        ``F`` (``tracebacks.UserLine``): eager's traceback marks such a test.
        None for other tests (eager marks the statement)."""
        if not (isinstance(test, gast.Compare) and len(test.ops) == 1) \
                or isinstance(test.ops[0], (gast.Is, gast.IsNot, gast.NotIn)):   # true of two equal stand-ins
            return None
        spans = [self._span(unit, n) for n in (test, test.left, test.comparators[0])]
        if any(s[0] != s[2] or s[0] != spans[0][0] for s in spans):
            return None
        text = bytearray(linecache.getline(unit.filename, spans[0][0]).encode())
        for _, c0, _, c1 in spans[1:]:
            text[c0:c1] = b"F" * (c1 - c0)
        fake = text[spans[0][1]:spans[0][3]].decode()
        # only ast2graph's runs of F, brackets, blanks and the operator reach the fake code
        return fake if _FAKE_TEST.fullmatch(fake) else None

    def checked_exception(self, node: Any, start: int) -> tuple | None:
        """``raise <node>`` as a run-time check: ``(exc, args, kwargs)`` for
        ``emit_raise_check``, or None where the check could not raise what
        eager raises (the statement then runs in Python). ``raise Cls(...)``
        calls the constructor as written each time; ``raise Cls`` calls
        ``Cls()``; ``raise ERR`` of an exception that exists before the call
        (a global, an attribute of an argument) raises that very object, of
        one made in the call (``err = E(..)``, made once while tracing)
        raises an equal new one per call, as eager makes one per call."""
        if isinstance(node, gast.Call):
            if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                return None
            ctor = self.eval(node.func)
            if not (isinstance(ctor, type) and issubclass(ctor, BaseException)):
                return None
            checked = self.check_arguments(node.args, node.keywords, start)
            return None if checked is None else (ctor, *checked)
        value = self.eval(node)
        if isinstance(value, type) and issubclass(value, BaseException):
            return value, (), {}
        if isinstance(value, BaseException) and self._preexisting(node, value):
            return value, (), {}
        if isinstance(value, BaseException) and value.__traceback__ is None and value.__context__ is None \
                and value.__cause__ is None and not contains_standin((value.args, vars(value))):
            return arrays.Remake(value), (), {}   # made in the call: a new one per call, as eager's
        return None

    def check_arguments(self, args: list, keywords: list, start: int) -> tuple[tuple, dict] | None:
        """The arguments of a checked raise's constructor (or an assert's
        message), evaluated now but used only when the check fires: graph
        values and f-strings of them, objects that cannot change
        (``Static``), objects that exist before the call; None for anything
        else (a fresh mutable object eager makes anew on each call) or when
        evaluating them emitted an effect (eager runs it only when raising)."""
        # (the writes before the message: a write its evaluation makes is made on every call in the
        # graph, only when raising in eager; such a check is kept in Python: ``check_writeback``)
        self.__dict__["_writes_before_message"] = dict(self.attr_writes)
        def one(node: Any) -> Any:
            value = self.eval(node)
            if contains_standin(value, arrays_too=False):   # a local function, a range...: not eager's object
                return NO_DEFAULT
            if isinstance(value, (Value, arrays.DeferredStr)):
                return value
            if contains_standin(value):   # a container of graph values: left to Python
                return NO_DEFAULT
            return arrays.Static(value) if self._immutable(value) or self._preexisting(node, value) else NO_DEFAULT

        values = [one(a) for a in args]
        named = {k.arg: one(k.value) for k in keywords}
        if any(v is NO_DEFAULT for v in (*values, *named.values())):
            return None
        if any(getattr(op, "fn", None) is not None and getattr(op.fn, "_a2g_effect", False)
               and not (op in self.region.ops and getattr(op.fn, "_a2g_fp_issuer", None) is not None)
               for op in walk_ops(Region(ops=self.region.ops[start:]))):
            return None
        if not self._fold_fp_warnings(start):
            return None
        return tuple(values), named

    def _fold_fp_warnings(self, start: int) -> bool:
        """NumPy's RuntimeWarnings of the arguments just evaluated (``x.sum()``
        in a raise's message: ``calls._emit_fp_flags``), which eager issues
        only when it raises: their callbacks leave the graph, and the check
        made next (``emit_raise_check``) issues them when it fires, before it
        raises (``raise_when``'s ``before``), as eager does. False where
        one cannot be (nothing changed)."""
        self.__dict__.pop("_fp_folded", None)
        fires = [op for op in self.region.ops[start:] if getattr(getattr(op, "fn", None), "_a2g_fp_issuer", None)]
        found = self.__dict__.get("fp_outputs", [])
        folded = []
        entries = [next((e for e in found if e[1] is op), None) for op in fires]
        if None in entries:   # (not one of ``_emit_fp_flags``'s: the raise is no check)
            return False
        for op, entry in zip(fires, entries):
            found.remove(entry)
            self.region.ops.remove(op)
            folded.append((entry[2], (entry[0],), {}))
        self.__dict__["_fp_folded"] = (self.region, tuple(folded))
        return True

    @staticmethod
    def _immutable(value: Any) -> bool:
        """An object no one can change (so one made at trace time serves every call)."""
        if type(value) in (tuple, frozenset):
            return all(Specializer._immutable(v) for v in value)
        return type(value) in (str, bytes, int, float, complex, bool, type(None), type(Ellipsis), range) \
            or isinstance(value, (np.generic, type))

    def _preexisting(self, node: Any, value: Any) -> bool:
        """``node`` (a name or an attribute chain) reads an object that exists
        before the call: rooted at a global, closure or parameter name, every
        attribute a plain one (no property that makes a new object)."""
        chain = node
        while isinstance(chain, gast.Attribute):
            chain = chain.value
        if not isinstance(chain, gast.Name) or self.frame.kind(chain.id) in (NameKind.LOCAL, NameKind.UNDEFINED):
            return False
        if self.frame.kind(chain.id) is NameKind.PARAM \
                and any(chain.id in bound_names(s) for s in self.frame.unit.tree.body):
            return False   # a parameter the function rebinds
        if isinstance(node, gast.Attribute):
            owner = self.eval(node.value)
            try:
                return inspect.getattr_static(owner, node.attr) is value
            except AttributeError:
                return False
        return True

    def static_exception(self, node: Any, stmt: Any) -> BaseException | None:
        """The exception ``raise <node>`` raises, when it is known at trace time."""
        value = self.eval(node)
        if isinstance(value, type) and issubclass(value, BaseException):
            value = self.static_call(value, (), {}, stmt)
        formatted = any(isinstance(a, arrays.DeferredStr) for a in getattr(value, "args", ()))
        return value if isinstance(value, BaseException) and not contains_value(value.args) and not formatted else None

    def exec_Raise(self, stmt: Any) -> None:
        exc = None
        if stmt.exc is not None and stmt.cause is None:
            self._static_raise_check(stmt)
            caught = self.caught_raise(stmt)   # under a traced condition, taken by a handler (blocks.py)
            if caught is not None:
                raise caught
            exc = self.static_exception(stmt.exc, stmt)
        raise self.graph_break(FallbackCode.TRACE_ERROR, stmt, "raise (eager raises here)", "raise", exc=exc)

    def _static_raise_check(self, stmt: gast.Raise) -> None:
        """A ``raise`` this call reaches on a static path of the converted
        function itself (not a callee inlined into it, a traced branch or a
        rolled loop): a run-time check that always fires, after the graph of
        what came before, raising what eager raises (as ``if c: raise`` on a
        traced ``c`` does); the call ends here, as a ``return`` would (its
        value never seen). Not inside a ``try`` or ``with`` (``protectors``):
        a handler, a manager or a ``finally:`` that returns, breaks or
        continues may take it, and the ``raise`` breaks the graph as before
        (``exc`` for a static handler); nothing kept where the check cannot
        raise it."""
        if self.frame is not getattr(self, "top_frame", None) or self.callers or self.traced_depth \
                or getattr(self, "rolled_depth", 0) or self.protectors or not self.raise_checks_allowed():
            return
        start = len(self.region.ops)
        try:
            checked = self.checked_exception(stmt.exc, start)
            if checked is not None:
                self.emit_raise_check(self.as_value(True, stmt), stmt, *checked, "raise")
        except GraphBreak:
            checked = None
        if checked is None:
            del self.region.ops[start:]
            return
        exc = checked[0]
        self.decide(stmt, "raise", "checked", f"`raise {(exc if isinstance(exc, type) else type(exc)).__name__}` on a "
                    "static path: a run-time check that fires after the graph, the call raises as eager does")
        raise ReturnSignal(stmt, None)


def _hashed_standins(keys: list) -> bool:
    """Some key (or a part of a tuple key) is a trace-time stand-in that Python would
    hash by identity where eager hashes a value (a traced number, a formatted string):
    local functions are hashed by identity in eager too."""
    return any(not isinstance(x, (LocalFunction, TracedClosure)) for x in standins_in(keys))
