"""In-place writes into NumPy arrays, with alias analysis.

Requires: the interpreter's frames (``frame``, ``callers``), ``emit_call``,
``assign_name``, and the SSA's ``update`` events (a subscript store on a local
``x`` is a new version of ``x``, so loops carry it and branches join it).
Produces: ``MutationMixin``: ``mark_kinds`` (the eager kind of an op's
results: a NumPy ndarray or scalar, a Python number, a jax.Array, by rule
(``rule_kind``) or, for library code traced on tracers, by running it once on
data of eager's kinds (``probe_kinds``); only NumPy arrays can be written in
place, a jax.Array raises TypeError in eager), view tracking, and ``array_store`` which lowers
``x[idx] = v`` / ``x[idx] op= v`` to ``x = x.at[idx].set(...)`` (a boolean mask
to ``where``) when ``x`` is the only reference to the array, and writes a
mutated argument back into the caller's ndarray after the call.
Invariants: the functional update is taken only when no other name,
container, object attribute or view can observe the array (checked on the
abstract state at trace time); otherwise the statement falls back (A2G007)
and runs as eager Python, never a silent divergence.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
import types
import weakref
from typing import Any, Callable

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import KindedValue, Value
from ..graphlib import arrays
from ..graphlib.arrays import np_setitem, writeable
from .lattice import DATA_INT64, INT_BITS, INT_RANGE, WIDE_INTS
from .masked import MaskedSlice
from .state import UNBOUND, InPlaceArray
from .writeback import place_of_source
from .precision import (argument_path, comparison_dtype, inexact_uint64_comparison, numpy_int_check, numpy_int_range, index_leaves, int32_check, is_at_update, jax_kind,
                        jax_semantics, numpy_dtypes, python_int)
from ..graphlib.trees import tree_flatten

# NumPy functions and methods whose result may share memory with an argument.
VIEW_NAMES = frozenset({
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims",
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "diagonal", "asarray",
    "asanyarray", "ascontiguousarray", "real", "imag", "split", "array_split", "hsplit", "vsplit", "dsplit",
    "flip", "fliplr", "flipud", "rot90", "view", "T", "mT", "getitem",
})


_FRAME_READERS = frozenset({"locals", "vars", "eval", "exec", "globals", "dir"})


@functools.lru_cache(maxsize=512)
def _names_in(node: Any) -> frozenset | None:
    names = frozenset(n.id for n in gast.walk(node) if isinstance(n, gast.Name))
    return None if names & _FRAME_READERS else names


def _names_used(node: Any) -> frozenset | None:
    """The names a local function's ``def``/``lambda`` node mentions (in any
    context, nested functions included): the only names of its defining frame
    it can reach. None (any of them) where it reads its frame another way
    (``locals()``, ``eval``) or there is no node."""
    return None if node is None else _names_in(node)


def is_numpy_callable(fn: Any) -> bool:
    """A NumPy function, ufunc or ufunc method (``np.add.reduce``): its eager result is a NumPy array."""
    if isinstance(fn, np.ufunc) or isinstance(getattr(fn, "__self__", None), np.ufunc):
        return True
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def _has_ellipsis(tree: Any) -> bool:
    """Whether an index (or a list of index leaves) holds ``...``."""
    if tree is Ellipsis:
        return True
    return isinstance(tree, (tuple, list)) and any(_has_ellipsis(x) for x in tree)


def _basic_index(idx: Any) -> bool:
    """NumPy basic indexing (ints, slices, None, Ellipsis): the result is a view."""
    parts = idx if type(idx) is tuple else (idx,)
    return all(isinstance(p, (int, slice, type(None), type(Ellipsis), arrays.SliceSpec)) and not isinstance(p, bool)
               or _scalar_int_index(p) for p in parts)


def _scalar_int_index(p: Any) -> bool:
    """A traced integer scalar index: NumPy takes a Python int, a NumPy integer
    scalar or a 0-d jax.Array through ``__index__`` (basic indexing: a view);
    only a 0-d ndarray is an advanced index (a copy). Where the kind is not
    known, a view: the safe side (a later write falls back, never misses it)."""
    return isinstance(p, Value) and not p.type.shape and np.issubdtype(p.type.dtype, np.integer) \
        and p.type.kinds != {"array0"}


def _in_bounds(index: Value, n: int) -> bool:
    """Whether a traced integer index is known to lie within ``-n <= i < n``
    (``INT_RANGE``): no run-time bounds check needed."""
    low, high = INT_RANGE.get(index, (None, None))
    return low is not None and -n <= low and high < n


# Expressions whose evaluation calls no function the interpreter could have
# left holding a value (``correlate1d(input, [-1, 0, 1], axis, output,
# modes[axis], cval, 0)``): the argument's value is bound to a parameter, and
# nothing else it made outlives its evaluation.
_PLAIN_ARGUMENT_NODES = (gast.Name, gast.Constant, gast.List, gast.Tuple, gast.Subscript, gast.Attribute,
                         gast.UnaryOp, gast.BinOp, gast.Slice, gast.Load, gast.expr_context, gast.operator,
                         gast.unaryop)


# Builtins whose result is a number or a new sequence of what they were given
# (``filter_(input, int(size), axis, output, ...)``): nothing else outlives them.
_PLAIN_ARGUMENT_CALLS = frozenset({"int", "float", "bool", "len", "abs", "min", "max", "round", "tuple", "list"})


def _plain_argument(node: Any) -> bool:
    """Names, constants, and displays, subscripts, attributes and arithmetic
    of them, and calls of the builtins ``_PLAIN_ARGUMENT_CALLS`` by name: no
    other call, assignment expression, lambda or comprehension."""
    for n in gast.walk(node):
        if isinstance(n, gast.Call):
            if not (isinstance(n.func, gast.Name) and n.func.id in _PLAIN_ARGUMENT_CALLS and not n.keywords
                    and not any(isinstance(a, gast.Starred) for a in n.args)):
                return False
        elif not isinstance(n, _PLAIN_ARGUMENT_NODES):
            return False
    return True


def _holds_own_attribute(obj: Any, attr: str) -> bool:
    """Whether ``obj.attr = obj.attr`` changes nothing: ``obj`` holds the
    attribute itself (in its ``__dict__`` or a slot) and sets it the plain
    way. Not an attribute read from its class (``self.buf += x``, ``buf`` a
    class attribute: eager's set makes the instance hold the array) or a
    property (eager calls its setter, or raises)."""
    setter = type(obj).__setattr__
    if setter not in (object.__setattr__, type.__setattr__, types.ModuleType.__setattr__):
        return False
    try:
        if attr in vars(obj):
            return True
    except TypeError:   # (no __dict__: slots)
        pass
    slot = getattr(type(obj), attr, None)
    return isinstance(slot, types.MemberDescriptorType)


class _Permuted:
    """A view that is its base's axes permuted (``x.T``, ``np.moveaxis``,
    ``np.rollaxis``, ``np.swapaxes``, ``x.transpose(...)``): ``base.transpose(perm)``."""

    __slots__ = ("perm",)

    def __init__(self, perm: tuple):
        self.perm = perm

    def inverse(self) -> tuple:
        return tuple(int(k) for k in np.argsort(self.perm))


_PROBE_LIMIT = 1 << 16   # (elements: the probe a recipe is replayed on to find its permutation)


def _permutation_of(recipe: tuple) -> _Permuted | None:
    """``_Permuted`` when the view recipe (``view_recipes``) replayed on a
    probe of its base's shape (distinct values) gives a view of the probe
    that is exactly ``probe.transpose(perm)``, else None."""
    view, replay, treedef, leaves, base = recipe
    shape = tuple(base.type.shape)
    if len(shape) < 2 or tuple(view.type.shape) == () or int(np.prod(shape)) > _PROBE_LIMIT:
        return None
    probe = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        args, kwargs = jax.tree_util.tree_unflatten(treedef, [probe if x is base else x for x in leaves])
        out = replay(*args, **kwargs)
    except Exception:  # noqa: BLE001 - not replayable on an ndarray: not a permutation known here
        return None
    if type(out) is not np.ndarray or out.ndim != probe.ndim or not np.shares_memory(out, probe):
        return None
    perm: list[int] = []
    for axis in range(out.ndim):
        k = next((a for a in range(probe.ndim) if a not in perm and probe.strides[a] == out.strides[axis]
                  and probe.shape[a] == out.shape[axis]), None)
        if k is None:
            return None
        perm.append(k)
    if not np.array_equal(probe.transpose(perm), out) or tuple(view.type.shape) != out.shape:
        return None
    return _Permuted(tuple(perm))


class _Pick:
    """``fn``'s ``k``-th array (in flattening order) of what it returns."""

    def __init__(self, fn: Any, k: int):
        self.fn, self.k = fn, k

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return tree_flatten(self.fn(*args, **kwargs))[0][self.k]


def _replayer(fn: Any, eager_fn: Any) -> Any:
    """What makes, on an ndarray, the view ``fn`` made on a traced one: our
    own indexing, attribute and method helpers work on either; a NumPy
    function run as its JAX equivalent is replayed as the NumPy function."""
    if fn is arrays.getitem or fn is arrays.attribute:
        return fn
    if getattr(fn, "__module__", None) == arrays.__name__ and getattr(fn, "__name__", "").startswith("."):
        return fn   # arrays.method_caller: ``x.reshape(...)``, ``x.transpose()``
    if eager_fn is not None and is_numpy_callable(eager_fn):
        return eager_fn
    if is_numpy_callable(fn):
        return fn
    return None


def _same_kind(result: np.dtype, target: np.dtype) -> bool:
    return np.can_cast(result, target, casting="same_kind")


def _eager_operand(x: Any) -> bool:
    """An operand whose eager object may not be a jax.Array: a NumPy array or
    scalar, or a Python number (a function traced on tracers may treat it otherwise)."""
    if isinstance(x, Value):
        return x.type.kinds != {"jax"}
    return isinstance(x, (np.ndarray, np.generic))


# NumPy's conversions that hand back a jax.Array's own buffer (read-only) where
# they need no dtype, order or copy of their own
_CONVERTERS = frozenset({"asarray", "asanyarray", "ascontiguousarray"})


def _views_jax_buffer(leaves: list, results: list) -> bool:
    """``np.asarray(x, ...)`` of a jax.Array ``x`` views its buffer: no
    argument but the array, a dtype equal to its own, a copy that is not
    forced (``copy=None``/``False``, ``np._CopyMode.IF_NEEDED``/``NEVER``:
    array_api_compat's ``np.array(x, copy=IF_NEEDED)``), an order its
    row-major buffer satisfies (``"C"``, ``"K"``, ``"A"``; ``"F"`` where at
    most one axis is longer than 1) or ``device="cpu"`` (a dtype of another
    width, ``order="F"`` of a matrix, ``copy=True``: a new array, writeable)."""
    x = leaves[0]
    dtype = np.dtype(x.type.dtype) if isinstance(x, Value) else np.dtype(x.dtype) if isinstance(x, jax.Array) else None
    if dtype is None:
        return False
    shape = tuple(x.type.shape if isinstance(x, Value) else x.shape)
    orders = ("C", "K", "A", "cpu") + (("F",) if arrays.allocated_contiguity(shape) is not None else ())

    def keeps(y: Any) -> bool:
        if isinstance(y, (type, np.dtype)):
            return np.dtype(y) == dtype
        if isinstance(y, np._CopyMode):
            return y is not np._CopyMode.ALWAYS
        return y is False or type(y) is str and y in orders

    return all(keeps(y) for y in leaves[1:] if y is not None) and \
        all(isinstance(r, Value) and np.dtype(r.type.dtype) == dtype for r in results)


def _converts_numpy_dtype(leaves: list, results: list) -> bool:
    """``np.asarray(x, dtype)`` of a NumPy array ``x`` (a traced one) whose
    dtype differs from ``dtype``, given as a type or ``np.dtype`` and nothing
    else: NumPy copies into a new array."""
    x = leaves[0] if leaves else None
    if not (isinstance(x, Value) and x.type.kinds == {"numpy"} and x.type.shape):
        return False
    rest = [y for y in leaves[1:] if y is not None]
    return len(rest) == 1 and isinstance(rest[0], (type, np.dtype)) and np.dtype(rest[0]) != np.dtype(x.type.dtype) \
        and all(isinstance(r, Value) and np.dtype(r.type.dtype) == np.dtype(rest[0]) for r in results)


# NumPy's matrix products: a new C-ordered array of two ndarray operands (nothing else: no ``out=``)
_PRODUCTS = (np.dot, np.matmul, operator.matmul)


def _conversion_name(user: Any, treedef: Any, leaves: list) -> str:
    """``user``'s name, ``"asarray"`` for ``np.array(x, copy=...)`` with a copy
    that is not forced (``None``, ``False``, ``np._CopyMode.IF_NEEDED``/``NEVER``:
    array_api_compat's ``asarray``), no ``ndmin`` and no ``subok``: it converts
    as ``np.asarray`` does (a jax.Array's buffer, viewed read-only)."""
    name = getattr(user, "__name__", "")
    if user is not np.array:
        return name
    try:
        args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
    except Exception:  # noqa: BLE001 - not the (args, kwargs) of a call
        return name
    copy = kwargs.get("copy", True)
    forced = copy is True or copy is np._CopyMode.ALWAYS or not (copy is None or copy is False or isinstance(copy, np._CopyMode))
    if forced or len(args) > 2 or set(kwargs) - {"dtype", "copy", "order"} or kwargs.get("order", "K") not in ("K", "A", "C", "F"):
        return name
    return "asarray"


def _jax_operand(x: Any) -> bool:
    return isinstance(x, jax.Array) and not isinstance(x, np.ndarray) or isinstance(x, Value) and "jax" in x.type.kinds


def _is_jax_callable(fn: Any) -> bool:
    module = getattr(fn, "__module__", "") or ""
    return module == "jax" or module.startswith(("jax.", "jaxlib"))


def _is_ours(fn: Any) -> bool:
    """An op of ast2graph itself (an NNX op on module state): it marks its results' kinds."""
    owner = fn if isinstance(fn, (types.FunctionType, types.BuiltinFunctionType)) else type(fn)
    return (getattr(owner, "__module__", "") or "").split(".")[0] == "ast2graph"


def needs_probe(fn: Any, leaves: list) -> bool:
    """Whether the eager kinds of ``fn``'s results must be found by running it
    (``probe_kinds``) rather than by rule: a NumPy function (other than a
    ufunc) given a jax.Array may call its method (``np.sum(x)`` is ``x.sum()``:
    a jax.Array); any other library function, traced on JAX tracers where
    eager gives it NumPy arrays or Python numbers, may return either. JAX's
    functions give jax.Arrays; operators and ufuncs follow their operands."""
    if _is_jax_callable(fn) or isinstance(fn, np.ufunc):
        return False
    if _array_method(fn) and any(isinstance(x, Value) and x.type.array0 for x in leaves):
        return True   # of a 0-d ndarray, x.copy() is one, x.sum() a NumPy scalar (x + 1 and x[()] too: the rules)
    if _operator_like(fn) or _is_ours(fn):
        return False
    if is_numpy_callable(fn):
        return any(_jax_operand(x) for x in leaves) or getattr(fn, "__name__", "") in _PYTHON_RESULTS
    return any(_eager_operand(x) for x in leaves)


# NumPy functions whose result is a Python object (np.allclose: a Python bool), not a NumPy scalar
_PYTHON_RESULTS = frozenset({"allclose", "array_equal", "array_equiv"})


def _array_method(fn: Any) -> bool:
    """A method or attribute of an array, as the IR calls it (``arrays.method_caller``, ``arrays.attribute``)."""
    return getattr(fn, "__module__", None) == arrays.__name__ and (
        fn is arrays.attribute or (getattr(fn, "__name__", "") or "").startswith(".") and
        not (getattr(fn, "__name__", "") or "").startswith(".at["))


_PROBE_SEED = 20141


def _exemplar(v: Value, rng: np.random.Generator, unit: bool = False) -> Any:
    """An object of ``v``'s eager kind with data that rarely hits a special
    case (floats in [0.5, 1.5): nonzero, positive, not integral; ints 0).
    ``unit``: floats ascending in [0.25, 0.75] instead (what a probability
    or a monotonic bin edge must be: ``np.quantile(a, q)``, ``np.digitize(x, bins)``)."""
    t = v.type
    data = np.zeros(t.shape, t.dtype)
    if t.dtype.kind in "fc":
        data = rng.uniform(0.5, 1.5, t.shape).astype(t.dtype)
        if unit:
            data = np.sort(rng.uniform(0.25, 0.75, max(data.size, 1)))[:data.size].reshape(t.shape).astype(t.dtype)
    if t.python:
        return data.item()
    if t.numpy:
        return data[()] if not t.shape and not t.array0 else data
    return jnp.asarray(data)


READONLY = "read-only"   # ``probe_kinds``: eager's result on the exemplars was a read-only ndarray


def _lists(x: Any) -> Any:
    """``x`` with its tuples as lists (nested): plain ones and named ones
    (NumPy's ``EighResult`` where JAX's namesake gives its own class)."""
    return [_lists(v) for v in x] if type(x) in (list, tuple) or isinstance(x, tuple) and hasattr(type(x), "_fields") \
        else x


def probe_kinds(fn: Any, treedef: Any, leaves: list, out_tree: Any, out_leaves: list,
                loose: bool = False) -> tuple[list, str]:
    """Run ``fn`` once on data of its operands' eager kinds and read the kinds
    of its results: for each ``Value`` of ``out_leaves`` (in order), ``(kind,
    shares)``: ``"numpy"``, ``"python"`` or ``"jax"``, and the positions in
    ``leaves`` of the NumPy operands the result shares memory with (a view),
    and ``READONLY`` where the result was a read-only ndarray.
    The second element is empty, or why the kinds are not known: the function
    raised, or returned another structure or other static values than it did
    on tracers (it took another path for eager's objects). ``loose``: a
    plain tuple of eager's may be a list of the graph's (the caller puts the
    graph's result in eager's containers: ``numpy_api.with_eager_containers``)."""
    import warnings

    failed = None
    for unit in (False, True):   # (then data a probability or a bin edge may be: ValueError on the first)
        rng = np.random.default_rng(_PROBE_SEED)
        dummies = [_exemplar(x, rng, unit) if isinstance(x, Value) else x for x in leaves]
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
                eager = fn(*args, **kwargs)
                got, got_tree = tree_flatten(eager)
            break
        except Exception as e:  # noqa: BLE001 - the kinds are not known: the caller falls back
            failed = failed or f"running it on data of eager's kinds raised {type(e).__name__}"
    else:
        return [], failed
    if loose and got_tree != out_tree and len(got) == len(out_leaves) and \
            tree_flatten(_lists(eager))[1] == tree_flatten(_lists(jax.tree_util.tree_unflatten(out_tree, out_leaves)))[1]:
        got_tree = out_tree
    if got_tree != out_tree:
        return [], "it returns another structure for eager's NumPy arrays or Python numbers than for traced values"
    kinds = []
    numpy_operands = [(k, d) for k, d in enumerate(dummies) if isinstance(d, np.ndarray)]
    for mine, theirs in zip(out_leaves, got):
        if not isinstance(mine, Value):
            if not _same_static(mine, theirs):
                return [], "it returns other Python values for eager's NumPy arrays or Python numbers than for traced values"
            continue
        if isinstance(theirs, (np.ndarray, np.generic)) and np.shape(theirs) == mine.type.shape:
            shares = [k for k, d in numpy_operands if isinstance(theirs, np.ndarray) and np.shares_memory(theirs, d)]
            if isinstance(theirs, np.ndarray) and not writeable(theirs):
                shares = shares + [READONLY]   # (read-only in eager: a jax.Array's buffer viewed)
            kinds.append(("array0" if isinstance(theirs, np.ndarray) and not theirs.ndim else "numpy", shares))
        elif type(theirs) in (bool, int, float, complex) and not mine.type.shape:
            kinds.append(("python", []))
        elif isinstance(theirs, jax.Array) and theirs.shape == mine.type.shape:
            kinds.append(("jax", []))
        else:
            return [], f"it returns a {type(theirs).__name__} for eager's objects where traced values give an array"
    return kinds, ""


def _same_static(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b)
    try:
        return a is b or type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - incomparable: not known to be the same
        return False


# Operators that make a new array of ndarray operands (not the in-place ones: they hand back their operand)
_NEW_ARRAY_OPERATORS = frozenset(map(id, {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
                                  operator.mod, operator.pow, operator.matmul, operator.neg, operator.pos,
                                  operator.invert, operator.and_, operator.or_, operator.xor, operator.lshift,
                                  operator.rshift, operator.lt, operator.le, operator.eq, operator.ne, operator.gt,
                                  operator.ge, abs}))
# Builtins that call their operands' own operator methods (``abs(x)`` is ``x.__abs__()``).
_OPERATOR_BUILTINS = frozenset(map(id, (abs, pow, divmod, sum, max, min)))


def numpy_gives_ndarray(fn: Any, leaves: list, treedef: Any) -> bool:
    """Whether the NumPy function ``fn`` returns NumPy arrays on these operands
    (so NumPy's 64-bit rules apply: ``precision``). A ufunc always does;
    other NumPy functions on a jax.Array often call its method (``np.sum(x)``
    is ``x.sum()``: a jax.Array), so with a jax operand the function is
    probed once on zeros of the operands' kinds."""
    if not is_numpy_callable(fn):
        return False
    jax_operand = any(_jax_operand(x) for x in leaves)
    if isinstance(fn, np.ufunc) or not jax_operand:
        return True
    dummies = [_zeros_like_eager(x) if isinstance(x, Value) else x for x in leaves]
    try:
        args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
        out = jax.tree_util.tree_leaves(fn(*args, **kwargs))
    except Exception:  # noqa: BLE001 - the probe proves nothing: NumPy's usual answer
        return True
    return bool(out) and isinstance(out[0], (np.ndarray, np.generic))


def _precision_kind(kinds: frozenset) -> str:
    """One kind for the rules a value computes with: a jax.Array on some path
    makes JAX's; else a NumPy array on some path NumPy's (a Python number
    computes at the same 64 bits)."""
    return "jax" if "jax" in kinds else "numpy" if "numpy" in kinds or "array0" in kinds else "python"


def _zeros_like_eager(v: Value) -> Any:
    t = v.type
    if t.python:
        return t.dtype.type(0).item()
    return np.zeros(t.shape, t.dtype) if t.numpy else jnp.zeros(t.shape, t.dtype)


def _operator_like(fn: Any) -> bool:
    """Python operators, the builtins that apply them, and our own array
    helpers: their eager result's kind (Python number, NumPy or jax array)
    follows their operands'."""
    module = getattr(fn, "__module__", "") or ""
    return module == arrays.__name__ or module in ("operator", "_operator") or module == __name__ \
        or id(fn) in _OPERATOR_BUILTINS


def _leaf_kind(x: Any) -> str | None:
    """The eager kind of a static operand that is an array (None: not an array)."""
    if isinstance(x, (np.ndarray, np.generic)):
        return "numpy"
    if isinstance(x, jax.Array):
        return "jax"
    return None


def rule_kind(fn: Any, leaves: list, value_kinds: list[str], numpy_fn: bool, scalar: bool) -> str:
    """The eager kind of a result of ``fn`` by rule, given the eager kind of
    each graph value among ``leaves`` (in order): a NumPy function's result is
    a NumPy array; JAX's functions give jax.Arrays; an operator follows its
    operands (a Python number defers to an array, NumPy defers to a jax.Array;
    ``x[i]`` is of ``x``'s kind) and gives a Python number where all its
    operands are Python numbers (``scalar``: the result is 0-d)."""
    if numpy_fn:
        return "numpy"
    if not _operator_like(fn):
        return "jax"   # jax.numpy, lax, ...: a jax.Array even on NumPy inputs
    it = iter(value_kinds)
    kinds = [next(it) if isinstance(x, Value) else _leaf_kind(x) for x in leaves]
    # a Python number of some type: the dtype decides the result's; a 0-d ndarray computes as NumPy's scalar
    kinds = [{"python?": "python", "array0": "numpy"}.get(k, k) for k in kinds]
    if fn is arrays.getitem and leaves:
        return "numpy" if kinds[0] == "numpy" else "jax"
    if scalar and "python" in kinds and all(k in ("python", None) for k in kinds):
        return "python"
    arrays_ = [k for k in kinds if k in ("numpy", "jax")]
    return "numpy" if arrays_ and all(k == "numpy" for k in arrays_) else "jax"


_MAX_KIND_COMBINATIONS = 64
# NumPy functions whose 0-d result is a 0-d array, not a NumPy scalar
_MAKES_ARRAYS = frozenset({"array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "copy", "zeros",
                           "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "reshape",
                           "squeeze", "transpose", "broadcast_to", "require",
                           # a 0-d ndarray too for 0-d operands: np.where(c, a, b) of scalars, a full contraction
                           "where", "select", "piecewise", "tensordot", "isin"})
# ndarray methods that give a 0-d ndarray (x[:1].reshape(()), x[:1].squeeze())
_METHODS_MAKE_ARRAYS = frozenset({".reshape", ".squeeze"})
def _method_array0(leaves: list) -> bool:
    """Whether ``self.reshape(..)``/``self.squeeze()`` gives a 0-d ndarray in
    eager: so on an ndarray of any rank (a view of it), where on a NumPy
    scalar it gives a NumPy scalar (and the kind of a value that may be
    either is not known: the caller falls back)."""
    if not leaves or not isinstance(leaves[0], Value):
        return False
    t = leaves[0].type
    return t.kinds == {"array0"} or t.kinds == {"numpy"} and bool(t.shape)


def _method_scalar(leaves: list) -> bool:
    """Whether ``self.reshape(())``/``self.squeeze()`` is of a NumPy scalar
    (``np.float64(1).squeeze()``): a NumPy scalar again, as the graph's is."""
    return bool(leaves) and isinstance(leaves[0], Value) and leaves[0].type.kinds == {"numpy"} \
        and not leaves[0].type.shape


# Python int operations that leave int64 on operands that fit it (k * k,
# k ** 3, k << 40): on a traced int that may be large (``WIDE_INTS``) they run
# in Python, where the int is exact; a sum would need operands near 2**62
_GROWS = {operator.add: "add", operator.iadd: "add", operator.sub: "add", operator.isub: "add",
          operator.mul: "mul", operator.imul: "mul", operator.pow: "pow", operator.ipow: "pow",
          operator.lshift: "shift", operator.ilshift: "shift"}


# traced Python ints computed from a large static int (bit length 61 or more): a sum with them is checked
_LARGE_INTS: "weakref.WeakSet[Value]" = weakref.WeakSet()


def _result_bits(fn: Any, leaves: list, bits: list) -> int:
    """Bits a Python int result of ``fn`` may need, from its operands' (None:
    not an int operand); 64 where it cannot be bounded."""
    known = [b for b in bits if b is not None]
    if len(leaves) != 2 or len(known) != len(bits):
        return max(known, default=64)   # negation, abs, an op of our own: no growth
    rule = _GROWS.get(fn)
    a, b = bits
    if rule == "add":
        return max(a, b) + 1
    if rule == "mul":
        return a + b
    if rule in ("pow", "shift"):
        e = leaves[1]
        if isinstance(e, Value) or not isinstance(e, (int, np.integer)) or e < 0:
            return 64
        return a * int(e) if rule == "pow" else a + int(e)
    return max(a, b)   # //, %, >>, &, |, ^, comparisons: no wider than an operand


def _dtype_list(dtypes: list) -> str:
    return ", ".join(str(d) for d in dtypes) or "nothing"


# Python's iterators over containers (their ``__reduce__`` gives what they pull from)
_BUILTIN_ITERATORS = frozenset({type(iter([])), type(iter(())), type(iter(np.zeros(1))), enumerate, zip, reversed,
                                map, filter, type(reversed([]))})


_NDARRAY_ITERATOR = type(iter(np.zeros(1)))


class PendingRows(list):
    """The rows of a NumPy array (``source``) taken at trace time, all at
    once, by an iteration that eager makes lazily (``for v in x``,
    ``enumerate(x)``, ``iter(x)``): iterating this list counts the rows
    ``pulled``; a write into ``source`` must show through the others
    (``MutationMixin._pending_rows``)."""

    def __init__(self, source: Any, rows: list):
        super().__init__(rows)
        self.source, self.taken, self._iterators = source, 0, []

    def __iter__(self):
        # a plain list iterator (the type the rest of typeinfer knows), kept to read its position
        it = list.__iter__(self)
        self._iterators.append(it)
        return it

    @property
    def pulled(self) -> int:
        """How many rows an iteration has pulled (the furthest one)."""
        n = self.taken
        for it in self._iterators:
            state = it.__reduce__()
            n = max(n, state[2] if len(state) > 2 else len(self))   # (an exhausted iterator: all of them)
        return n


# ``a op= b`` of NumPy arrays: the result is cast to ``a``'s dtype (``out=a``)
_INPLACE_OPERATORS = frozenset({operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
                                operator.imod, operator.ipow})


class MutationMixin:
    # -------------------------------------------------------- precision
    def precise_eval(self, fn: Any, treedef: Any, leaves: list, node: Any, numpy_fn: bool, eager_fn: Any) -> tuple:
        """``(leaves, x32, (out_tree, out_leaves), fn)``: the abstract result of
        ``fn`` under the rules eager follows (``precision``). A JAX op (``x32``)
        is typed with x64 off; a NumPy op with x64 on, its operands first cast
        to the dtype NumPy computes in where JAX's promotion differs (the
        returned ``leaves``), its integer results widened where NumPy's are
        wider (``np.digitize``'s int64 indices where JAX gives int32: the
        returned ``fn`` casts them, an exact cast); where that cannot make
        the graph compute NumPy's dtypes the site falls back (A2G016), never
        narrowed."""
        host = eager_fn is not None and (numpy_fn or not any(jax_kind(x) for x in leaves))
        x32 = jax_semantics(fn, leaves, numpy_fn, host, self.user_x64)
        if x32 or is_at_update(fn) and not self.user_x64 and leaves and jax_kind(leaves[0]):
            self._check_python_ints(fn, treedef, leaves, node)
            return leaves, x32, self._abstract_eval(fn, treedef, leaves, node, x32), fn
        if not (numpy_fn or host or self.numpy_kind(fn, leaves, False)):
            out = self._abstract_eval(fn, treedef, leaves, node, x32)
            self._python_int_bits(fn, leaves, out[1], node)
            return leaves, x32, out, fn
        source = eager_fn if eager_fn is not None else fn
        bounded = numpy_int_range(source, treedef, leaves)
        if bounded is not None:   # NumPy raises OverflowError for a Python int beyond the array's dtype
            k, dtype = bounded
            self.emit_call(numpy_int_check, (leaves[k], dtype.name), {}, node, "int range check", effect=True)
        if inexact_uint64_comparison(source, leaves):
            raise self.graph_break(FallbackCode.PRECISION, node, "a uint64 array compared with a traced Python int: "
                                   "NumPy compares them exactly, no dtype of the graph holds both", "call")
        common = comparison_dtype(source, leaves)
        if common is not None:
            leaves = self._cast_operands(leaves, common, node)
        out = self._abstract_eval(fn, treedef, leaves, node)
        try:
            expected = numpy_dtypes(source, treedef, leaves)
        except OverflowError as e:   # a Python int beyond the array's dtype: NumPy raises on any data
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{e} (eager raises OverflowError)", exc=e) from None
        got = [x.type.dtype for x in out[1] if isinstance(x, Value)]
        if expected is None or len(expected) != len(got) or expected == got:
            return leaves, False, out, fn
        targets = {e for e, g in zip(expected, got) if e != g}
        if fn in _INPLACE_OPERATORS and all(e == g or e.kind == g.kind and e.kind in "iufc" and e.itemsize < g.itemsize
                                            for e, g in zip(expected, got)):
            # ``y += x`` of a float16/float32 (int32) NumPy array and float64 (int64) data: NumPy's loop
            # computes at the operands' common dtype and casts the result to y's once; the operand cast
            # first rounded twice (float16 1 + (2**-11 + 2**-40) is 1.0009765625, not 1.0)
            from .numpy_api import results_cast

            narrowed = results_cast(fn, expected)
            return leaves, False, self._abstract_eval(narrowed, treedef, leaves, node), narrowed
        if len(targets) == 1 and all(x.type.dtype.kind in "biu" for x in leaves if isinstance(x, Value)):
            # integer operands: computed at NumPy's width (``np.cumsum`` of int32 accumulates in int64,
            # where JAX's int32 would wrap), an exact widening of the operands whatever the result is
            cast = self._cast_operands(leaves, next(iter(targets)), node)
            if cast is not leaves:
                again = self._abstract_eval(fn, treedef, cast, node)
                if [x.type.dtype for x in again[1] if isinstance(x, Value)] == expected:
                    return cast, False, again, fn
        if eager_fn is not None and all(e == g or e.kind == g.kind == "i" and e.itemsize > g.itemsize
                                        for e, g in zip(expected, got)):
            # float operands, int32 indices where NumPy's are int64 (``np.digitize``): widened after, exactly
            from .numpy_api import widen_ints

            wider = widen_ints(fn, expected)
            return leaves, False, self._abstract_eval(wider, treedef, leaves, node), wider
        if len(targets) == 1:
            cast = self._cast_operands(leaves, next(iter(targets)), node)
            if cast is not leaves:
                again = self._abstract_eval(fn, treedef, cast, node)
                if [x.type.dtype for x in again[1] if isinstance(x, Value)] == expected:
                    return cast, False, again, fn
        raise self.graph_break(FallbackCode.PRECISION, node, f"NumPy computes {_dtype_list(expected)} here, where the "
                               f"graph would compute {_dtype_list(got)}")

    def _stored_number(self, value: KindedValue, dtype: np.dtype, node: Any) -> Any:
        """A value of path-dependent kind (a Python float on one path, a 0-d
        jax.Array on another) written into a float NumPy array: what NumPy
        stores does not depend on the kind, only on each path's number, cast
        to the array's dtype; that cast per kind, one value picked by the tag.
        Other kinds (None, an int array's rules) stay refused."""
        from .pathkinds import placeholder_key

        if dtype.kind != "f" or any(placeholder_key(k) for k in value.keys) or any(
                v.type.dtype.kind not in "biuf" for v in value.variants):
            return value

        def cast(v: Any) -> Any:
            out = self.emit_call(arrays.cast, (v, dtype, False), {}, node, "convert")
            out.type = dataclasses.replace(out.type, numpy=True, python=False, mixed=frozenset())
            return out

        return self.split_kinds(value, cast, node)

    def numpy_kind(self, fn: Any, leaves: list, numpy_fn: bool) -> bool:
        """Whether ``fn``'s eager result is a NumPy array (so NumPy's rules
        apply); a value whose kind depends on the path counts as a jax.Array
        (it never leaves the graph: ``kinds``)."""
        kinds = [_precision_kind(x.type.kinds) for x in leaves if isinstance(x, Value)]
        return rule_kind(fn, leaves, kinds, numpy_fn, False) == "numpy"

    def _python_int_bits(self, fn: Any, leaves: list, results: list, node: Any) -> None:
        """Python int arithmetic in the graph is int64; eager's is exact. The
        bits each traced Python int may need are tracked (``lattice.INT_BITS``)
        and an operation whose result may leave int64 (``k * k * k`` of an
        int passed in, ``i ** 9`` of a loop counter) falls back to Python,
        where the int is exact; ints that may be large for a JAX op
        (``WIDE_INTS``) stay marked so."""
        values = [x for x in leaves if isinstance(x, Value)]
        if not values or not all(python_int(x) for x in values):
            return
        ints = [r for r in results if isinstance(r, Value) and r.type.dtype.kind in "iu"]
        if not ints:
            return
        bits = [INT_BITS.get(x, 63) if isinstance(x, Value) else abs(int(x)).bit_length() if isinstance(x, (int, np.integer))
                else None for x in leaves]
        need = _result_bits(fn, leaves, bits)
        if need > 62 and _GROWS.get(fn) in ("mul", "pow", "shift"):   # (a sum needs operands near 2**62 to leave int64)
            raise self.graph_break(FallbackCode.PRECISION, node, "a Python int computed here may leave int64 (the graph's "
                                   "integers), where eager's int is exact")
        large = any(type(x) is int and x.bit_length() >= 61 or isinstance(x, Value) and x in _LARGE_INTS
                    for x in leaves) or any(x in DATA_INT64 for x in values)
        # every operand's bits known, and their sum may need more than int64 has (``n = n + n`` 63 times)
        grown = all(x in INT_BITS for x in values)
        if (large or grown) and need > 63 and _GROWS.get(fn) == "add" and len(leaves) == 2 and len(ints) == 1:
            # ``n + int(v)`` with ``n`` near 2**62 (a large static int, or computed from one), an int of
            # int64 data (``int(v[0]) + int(v[1])``), or a sum whose operands' known bits may reach
            # 2**63: the int64 sum may wrap where eager's int is exact; a run-time check raises
            # IntRangeError then (a fallback where a check cannot raise). A counter of unknown size (a
            # loop's ``count += 1``) is not checked.
            self.__dict__["_overflow_check"] = (tuple(leaves), ints[0], fn in (operator.sub, operator.isub))
            _LARGE_INTS.update(ints)
        if large and fn in (operator.neg, abs) and len(leaves) == 1 and len(ints) == 1:
            # ``-i`` / ``abs(i)`` of an int of int64 data: -2**63 has no int64 negation (it wraps to itself)
            # where eager's int is 2**63; checked as ``0 - i`` wraps (``arrays.int_add_overflow_check``)
            self.__dict__["_overflow_check"] = ((0, leaves[0]), ints[0], True)
            _LARGE_INTS.update(ints)
        if large and fn in (operator.floordiv, operator.ifloordiv, divmod) and len(leaves) == 2:
            # ``i // j`` of ints of int64 data: -2**63 // -1 wraps to -2**63 where eager's int is 2**63
            self.emit_call(arrays.int_floordiv_overflow_check, (*leaves, str(self.loc(node))), {}, node,
                           "int64 overflow check", effect=True)
            _LARGE_INTS.update(ints)
        for r in ints:
            INT_BITS[r] = min(need, 63)
        if any(x in WIDE_INTS for x in values):
            WIDE_INTS.update(ints)

    def _check_python_ints(self, fn: Any, treedef: Any, leaves: list, node: Any) -> None:
        """A traced Python int given to a JAX op runs as eager JAX takes it
        (x64 off): as an int32, and eager raises OverflowError beyond int32;
        so does the graph, at run time, for the ints that may be that large
        (``lattice.WIDE_INTS``: passed in from outside, or computed from one)."""
        indices = index_leaves(fn, treedef)
        for k, x in enumerate(leaves):
            if python_int(x) and x in WIDE_INTS and k not in indices:
                self.emit_call(int32_check, (x, argument_path(fn, treedef, k)), {}, node, "int32 check", effect=True)

    def _cast_operands(self, leaves: list, target: np.dtype, node: Any) -> list:
        """The leaves with each numeric Value of another dtype cast to ``target``
        (as NumPy casts the operands of a ufunc to its loop's dtype); the
        same list if none is."""
        if target.kind not in "iufc":
            return leaves
        out, changed = [], False
        for x in leaves:
            if isinstance(x, Value) and x.type.dtype != target and x.type.dtype.kind in "biufc" \
                    and np.can_cast(x.type.dtype, target, casting="same_kind"):
                cast = self.emit_call(arrays.cast, (x, target, x.type.weak_type), {}, node, "convert")
                cast.type = dataclasses.replace(cast.type, numpy=x.type.numpy, python=x.type.python)
                out.append(cast)
                changed = True
            else:
                out.append(x)
        return out if changed else leaves

    # ------------------------------------------------------------ kinds
    def mark_kinds(self, fn: Any, label: str, treedef: Any, leaves: list, out_tree: Any, out_leaves: list,
                   node: Any, callee: Any = None) -> None:
        self._mark_kinds(fn, label, treedef, leaves, out_tree, out_leaves, node, callee)
        user = fn if callee is None else callee
        if any(user is f for f in _PRODUCTS) and [isinstance(x, Value) for x in leaves if x is not None] == [True, True]:
            for r in out_leaves:   # np.dot(a, b), a @ b of ndarrays: a new C-ordered array, whatever the operands'
                if isinstance(r, Value) and r.type.kinds == {"numpy"} and r.type.shape and id(r) not in self.view_of:
                    self.writeable_arrays[id(r)] = (r, id(r))
                    self.__dict__.setdefault("known_layouts", {})[id(r)] = (
                        r, arrays.allocated_contiguity(r.type.shape) or (True, False))

    def _mark_kinds(self, fn: Any, label: str, treedef: Any, leaves: list, out_tree: Any, out_leaves: list,
                    node: Any, callee: Any = None) -> None:
        """Each result's eager kind (``ArrayType.numpy``/``.python``/``.mixed``;
        otherwise a jax.Array), and which results are views of NumPy operands.
        ``callee``: the function the user called, when ``fn`` is what the graph
        runs for it (``jnp.sum`` for ``np.sum``). Where the kinds cannot be
        known, the call falls back rather than hand on a value of another kind."""
        from ..resolver import qualified_name

        results = [x for x in out_leaves if isinstance(x, Value)]
        user = fn if callee is None else callee
        if not results:
            return
        values = [x for x in leaves if isinstance(x, Value)]
        if self._numpy_result_kinds(user, treedef, leaves, out_leaves, node):
            self._mark_views(fn, label, leaves, results, node)
            return
        if needs_probe(user, leaves):
            if any(x.type.mixed for x in values):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(user)} is given a value whose "
                                       "kind (NumPy array, Python number or jax.Array) depends on the path taken")
            # (np.broadcast_arrays' tuple where jnp's is a list: the caller puts the result in eager's containers)
            loose = fn is not user and is_numpy_callable(user)
            kinds, why = probe_kinds(user, treedef, leaves, out_tree, out_leaves, loose)
            if why:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"the kind of object eager's "
                                       f"{qualified_name(user)} returns is not known: {why}")
            for r, (kind, shares) in zip(results, kinds):
                r.type = r.type.with_kinds((kind,))
                bases = [leaves[k] for k in shares if k is not READONLY and isinstance(leaves[k], Value)]
                if bases and r.type.shape:
                    self.view_of[id(r)] = (r, bases)
                if READONLY in shares:   # (``x.flags.writeable`` False, a write raises: as eager's)
                    self.readonly_arrays[id(r)] = r
            self._mark_readonly(_conversion_name(user, treedef, leaves), leaves, results)
            return
        numpy_fn = is_numpy_callable(user)
        if not any(x.type.mixed for x in values):   # the usual case: one kind per operand
            combinations: Any = [[next(iter(x.type.kinds)) for x in values]]
        else:
            options = [sorted(x.type.kinds) for x in values]
            if len(list(itertools.islice(itertools.product(*options), _MAX_KIND_COMBINATIONS + 1))) > _MAX_KIND_COMBINATIONS:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "too many operands whose kind depends on the path taken")
            combinations = [list(c) for c in itertools.product(*options)]
        for r in results:
            kinds = {rule_kind(fn, leaves, c, numpy_fn, not r.type.shape) for c in combinations}
            if kinds != {"jax"}:   # a new result is a jax.Array until told otherwise
                r.type = r.type.with_kinds(kinds)
            if not r.type.shape and label in _METHODS_MAKE_ARRAYS and _method_array0(leaves):
                r.type = r.type.with_kinds(("array0",))   # x.reshape(()), x.squeeze() of an ndarray: a 0-d ndarray
                continue
            if not r.type.shape and "numpy" in kinds and (numpy_fn and getattr(user, "__name__", "") in _MAKES_ARRAYS
                                                          or label in _METHODS_MAKE_ARRAYS and not _method_scalar(leaves)):
                # np.asarray(c), np.array(x.sum()): a 0-d ndarray in eager, where
                # the graph's 0-d NumPy results are NumPy scalars (np.sum(x), a[i])
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(user)} makes a 0-d NumPy "
                                       "array, which the graph cannot tell from a NumPy scalar")
        self._mark_views(fn, label, leaves, results, node)
        if isinstance(user, np.ufunc) or id(fn) in _NEW_ARRAY_OPERATORS:
            elementwise = fn is not operator.matmul and not (isinstance(user, np.ufunc) and user.signature)
            self._note_new_arrays(leaves, results, elementwise)

    def _note_new_arrays(self, leaves: list, results: list, elementwise: bool = False) -> None:
        """The results of a ufunc (its ``out=`` is handled apart: ``calls._ufunc_out``)
        or of an operator on NumPy arrays and numbers: NumPy makes each a new,
        writeable ndarray (``writeable_arrays``)."""
        if any(isinstance(x, Value) and not x.type.kinds <= {"numpy", "array0", "python"} or _jax_operand(x)
               for x in leaves):
            return   # (a jax.Array operand: eager's result is JAX's, read-only once converted)
        for r in results:
            if r.type.kinds == {"numpy"} and r.type.shape and id(r) not in self.view_of:
                self.writeable_arrays[id(r)] = (r, id(r))
                self.allocated_arrays[id(r)] = r   # allocated whole by NumPy: contiguous in some order
                layout = self._operands_layout(leaves, r.type.shape) if elementwise else None
                if layout is not None:   # x * 2.0 of a Fortran-ordered x: Fortran-ordered, as NumPy's order="K"
                    self.__dict__.setdefault("known_layouts", {})[id(r)] = (r, layout)

    def _operands_layout(self, leaves: list, shape: tuple) -> tuple[bool, bool] | None:
        """The (C, F) contiguity of a ufunc's new result of ``shape`` where
        NumPy's ``order="K"`` makes it plain: every array operand has the
        result's shape (none broadcast) and one known layout, C and not F, or
        F and not C (the result's axis order is theirs); None otherwise."""
        found = set()
        for x in leaves:
            if type(x) is str:   # ``order="C"``, ``casting=...``: NumPy's allocation may follow it
                return None
            if isinstance(x, Value) and x.type.shape or type(x) is np.ndarray and x.ndim:
                if tuple(x.type.shape if isinstance(x, Value) else x.shape) != tuple(shape):
                    return None
                known = self.known_contiguity(x) if isinstance(x, Value) else \
                    (bool(x.flags.c_contiguous), bool(x.flags.f_contiguous))
                if known not in ((True, False), (False, True)):
                    return None
                found.add(known)
        return found.pop() if len(found) == 1 else None

    def _numpy_result_kinds(self, user: Any, treedef: Any, leaves: list, out_leaves: list, node: Any) -> bool:
        """The kinds of the results of the NumPy function ``user`` on NumPy
        operands and Python numbers, as eager NumPy gives them on exemplar data
        (``numpy_probe``): a Python bool (``np.allclose``), a NumPy scalar
        (``np.sum``), a 0-d ndarray (``np.cov`` of a vector, ``np.tensordot``
        over every axis), an ndarray; results sharing memory with an operand
        are its views. False where not probed (a ufunc, a jax.Array operand, a
        kind that depends on the path, eager raised on the exemplars): the rules
        decide. A result unlike eager's (another number of results, another
        rank, an object) falls back: the graph's op is not NumPy's."""
        from ..resolver import qualified_name
        from .numpy_probe import eager_probe, leaf_kind

        if not is_numpy_callable(user) or isinstance(user, np.ufunc) or _is_ours(user) \
                or any(isinstance(x, Value) and (x.type.mixed or "jax" in x.type.kinds) or _jax_operand(x) for x in leaves):
            return False
        probe = eager_probe(user, treedef, leaves)
        if probe is None:
            return False
        if len(probe.leaves) != len(out_leaves):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(user)} gives {len(probe.leaves)} "
                                   f"results in eager, its graph op {len(out_leaves)}")
        kinds = []
        for mine, theirs in zip(out_leaves, probe.leaves):
            if not isinstance(mine, Value):
                continue
            kind, shape = leaf_kind(theirs), mine.type.shape
            same_rank = np.ndim(theirs) == len(shape) and (probe.shrunk or np.shape(theirs) == shape)
            if kind is None or not same_rank:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(user)} gives "
                                       f"{type(theirs).__name__} {np.shape(theirs)} in eager where its graph op gives "
                                       f"{mine.type}")
            kinds.append((mine, kind))
        theirs = [t for m, t in zip(out_leaves, probe.leaves) if isinstance(m, Value)]
        for (mine, kind), shares, eager in zip(kinds, [s for m, s in zip(out_leaves, probe.shares) if isinstance(m, Value)],
                                               theirs):
            mine.type = mine.type.with_kinds((kind,))
            if not shares and isinstance(eager, np.ndarray) and eager.ndim and writeable(eager):
                self.writeable_arrays[id(mine)] = (mine, id(mine))   # a new array, writeable in eager (``x.flags.writeable``)
            elif not shares and isinstance(eager, np.ndarray) and writeable(eager) and kind == "array0":
                # a new 0-d array (np.asarray(s, copy=True) of a NumPy scalar): its ``.flags.writeable`` is True
                self.new_arrays0[id(mine)] = mine
            bases = [leaves[k] for k in shares if isinstance(leaves[k], Value)]
            if bases and (mine.type.shape or mine.type.array0):
                self.view_of[id(mine)] = (mine, bases)
        return True

    def _mark_views(self, fn: Any, label: str, leaves: list, results: list, node: Any = None) -> None:
        """NumPy results of a function that may return a view of a NumPy operand."""
        name = (label or getattr(fn, "__name__", "")).lstrip(".")
        if name == "getitem" and _has_ellipsis(leaves[1:]) and \
                any("numpy" in r.type.kinds and not r.type.shape for r in results):
            # x[..., 0] of a 1-d array is a 0-d array viewing x (x[0] is a scalar): a
            # 0-d ndarray (``array0``), marked below as a view of x (a write through it falls back)
            if not all(r.type.kinds == {"numpy"} for r in results if not r.type.shape):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "indexing with `...` makes a 0-d NumPy "
                                       "array (a view), which the graph cannot tell from a NumPy scalar here")
            for r in results:
                if not r.type.shape:
                    r.type = r.type.with_kinds(("array0",))
        view = name in VIEW_NAMES
        if view and name == "getitem":
            view = _basic_index(leaves[1]) if len(leaves) > 1 else True
        if view and name in _CONVERTERS and _converts_numpy_dtype(leaves, results):
            # np.asarray(x, dtype=np.float32) of a float64 ndarray: a new array NumPy allocates
            # (C order for asarray's default order="K" of a C or F one: not recorded), never x's memory
            for r in results:
                if r.type.kinds == {"numpy"} and r.type.shape and r is not leaves[0]:
                    self.writeable_arrays[id(r)] = (r, id(r))
                    self.allocated_arrays[id(r)] = r
            return
        if view:
            self._mark_readonly(name, leaves, results)
        if not view:
            return
        bases = [x for x in leaves if isinstance(x, Value) and ("numpy" in x.type.kinds and x.type.shape or
                                                                 "array0" in x.type.kinds)]   # (a NumPy scalar is no base)
        if not bases:
            return
        for r in results:
            if "numpy" in r.type.kinds and r.type.shape or r.type.array0:   # a NumPy scalar is no view
                self.view_of[id(r)] = (r, bases)
        if name in ("T", "transpose") and all(y == "T" for y in leaves[1:]) and isinstance(leaves[0], Value) \
                and len(results) == 1 and results[0].type.kinds == {"numpy"}:
            known = self.known_contiguity(leaves[0])   # x.T of a C-ordered x: Fortran-ordered (and back)
            if known is not None and results[0].type.shape == tuple(reversed(leaves[0].type.shape)):
                self.__dict__.setdefault("known_layouts", {})[id(results[0])] = (results[0], (known[1], known[0]))

    # ------------------------------------------------------- view recipes
    @property
    def view_recipes(self) -> dict:
        """NumPy views the graph can make again on eager's arrays after the
        call: id(view) -> (view, replay, treedef, leaves, base), where
        ``replay(*args, **kwargs)`` of the operands (``base`` among the
        ``leaves`` replaced by an ndarray) makes eager's view of it."""
        d = self.__dict__.get("_view_recipes")
        if d is None:
            d = self.__dict__["_view_recipes"] = {}
        return d

    def getitem_recipe(self, view: Any) -> tuple | None:
        """(base, index) when ``view`` was made as ``base[index]`` (``view_recipes``), else None."""
        recipe = self.view_recipes.get(id(view))
        if recipe is None or recipe[0] is not view or not isinstance(recipe[1], _Pick) \
                or recipe[1].fn is not arrays.getitem or recipe[1].k != 0:
            return None
        args, kwargs = jax.tree_util.tree_unflatten(recipe[2], recipe[3])
        if kwargs or len(args) != 2 or args[0] is not recipe[4]:
            return None
        return recipe[4], args[1]

    def note_view_recipes(self, fn: Any, treedef: Any, leaves: list, results: list, eager_fn: Any,
                          n_out: int) -> None:
        """After ``mark_kinds``: a view made from one NumPy operand and static
        operands (``x[1:]``, ``x.T``, ``x.reshape(2, 3)``, ``np.transpose(x)``)
        by a function that does on an ndarray what eager does."""
        operands = [x for x in leaves if isinstance(x, Value)]
        if len(operands) != 1 or len(results) != n_out:   # (arrays only: the k-th result is the k-th leaf)
            return
        replay = _replayer(fn, eager_fn)
        if replay is None:
            return
        base = operands[0]
        buffers = self.__dict__.get("jax_buffers", {})
        for k, r in enumerate(results):
            entry = self.view_of.get(id(r))
            if base.type.kinds == {"jax"} and buffers.get(id(r)) is r:
                # np.asarray of a jax.Array: a read-only view of its buffer, made again on the caller's array
                # (a view of it leaving the segment keeps eager's layout: x[:, ::2] is not C-contiguous)
                self.view_recipes[id(r)] = (r, _Pick(replay, k), treedef, list(leaves), base)
            elif entry is not None and entry[0] is r and len(entry[1]) == 1 and entry[1][0] is base:
                # the replay picks the k-th array of what it makes (np.split's list, broadcast_arrays' tuple)
                self.view_recipes[id(r)] = (r, _Pick(replay, k), treedef, list(leaves), base)

    # ------------------------------------------------------------ stores
    def functional_store(self, obj: np.ndarray, idx: Any, value: Any) -> bool:
        """A write into a NumPy array known at trace time that must become a graph
        update: a traced index or value, or a write under a traced condition or
        in a rolled loop (the array's contents then depend on the path)."""
        from .state import contains_value

        entry = self.fresh.get(id(obj))
        return contains_value((idx, value)) or (entry is not None and entry[1] is obj and entry[0] != self.traced_depth)

    def _mark_readonly(self, name: str, leaves: list, results: list) -> None:
        """``np.asarray`` of a jax.Array is a read-only view of its buffer;
        ``np.broadcast_to``'s result and the views of a read-only array are
        read-only too (``readonly_arrays``)."""
        if name not in VIEW_NAMES or not (name == "broadcast_to" or any(
                _jax_operand(x) or self.known_readonly(x) for x in leaves)):
            return
        converts = name in _CONVERTERS and leaves and _jax_operand(leaves[0])
        if converts and not _views_jax_buffer(leaves, results):
            # a dtype of its own: a new array, writeable, C-ordered as the buffer it converts
            # (order= or copy=: not known here, nothing recorded)
            if all(isinstance(y, (type, np.dtype)) for y in leaves[1:] if y is not None):
                for r in results:
                    if isinstance(r, Value) and r is not leaves[0] and r.type.kinds == {"numpy"} and r.type.shape:
                        self.writeable_arrays[id(r)] = (r, id(r))
                        self.__dict__.setdefault("known_layouts", {})[id(r)] = (
                            r, arrays.allocated_contiguity(r.type.shape) or (True, False))
            return
        for r in results:
            if "numpy" in r.type.kinds or r.type.array0:
                self.readonly_arrays[id(r)] = r
                self.writeable_arrays.pop(id(r), None)
                self.allocated_arrays.pop(id(r), None)
                if converts and isinstance(leaves[0], Value) and leaves[0].type.kinds == {"jax"} and r.type.shape:
                    # the jax.Array's buffer, row-major: C-contiguous (F too where at most one axis is longer than 1)
                    layout = arrays.allocated_contiguity(r.type.shape) or (True, False)
                    self.__dict__.setdefault("known_layouts", {})[id(r)] = (r, layout)
                    # memory JAX holds: no NumPy array this call made shares it (``calls._shares_memory``)
                    self.__dict__.setdefault("jax_buffers", {})[id(r)] = r

    def check_not_readonly(self, obj: Any, node: Any) -> None:
        """A write into a NumPy array that is read-only in eager raises there
        (ValueError): the statement runs in Python, where it does."""
        if self.known_readonly(obj):
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "a write into a read-only NumPy array (np.asarray "
                                   "of a jax.Array, np.broadcast_to, or a view of one; eager raises ValueError)")

    def array_store(self, target: gast.Subscript, obj: Any, idx: Any, value: Any, op: Any = None) -> None:
        """``x[idx] = value`` (or ``x[idx] op= value``) on an array."""
        if isinstance(obj, Value) and obj.type.mixed:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, target, "item assignment on a value that is a NumPy "
                                   "array on one path and not on another (eager writes it or raises)")
        if isinstance(obj, Value) and not obj.type.numpy:
            raise self.graph_break(FallbackCode.TRACE_ERROR, target, "item assignment on a jax.Array (eager raises TypeError: "
                                   "JAX arrays are immutable)", hint="write x = x.at[i].set(v)")
        if isinstance(obj, Value) and obj.type.numpy and not obj.type.shape and not obj.type.array0:
            # (``x * 2`` of a 0-d ndarray is a NumPy scalar: eager's ``y[...] = v`` raises)
            raise self.graph_break(FallbackCode.TRACE_ERROR, target, "item assignment on a NumPy scalar (eager raises "
                                   "TypeError: NumPy scalars are immutable)")
        self.check_not_readonly(obj, target)
        k = self._written_capture(obj, target)
        if k is not None:
            self._capture_store(k, target, obj, idx, value, op)
            return
        if self._tuple_field_store(target, obj, idx, value, op):
            return
        if not isinstance(target.value, gast.Name) or not self.frame.owns(target.value.id):
            raise self.graph_break(FallbackCode.MUTATION, target, "in-place write into an array reached through an "
                                   "expression or a non-local name", hint="bind the array to a local name first, or use x = x.at[i].set(v)")
        name = target.value.id
        if any(c.value is obj for c in self.captures):
            raise self.graph_break(FallbackCode.MUTATION, target, f"in-place write into a NumPy array read from outside "
                                   f"(a global, a closure variable, an attribute) through '{name}'")
        pulled_from = [rows for rows in self.iterated if rows.source is obj]
        self.storing = (obj, idx)
        redirect = self._view_base_store(obj, name)
        try:   # (``aliases``: other local names holding this very array, rebound to the written version)
            obj, view, aliases = (obj, None, []) if redirect is not None else self._store_target(obj, name, target)
        finally:
            self.storing = None
        if id(obj) in self.input_of and len(self.regions) > 1:
            # the write-back into the caller's array follows the version of the
            # argument at the segment's end: the construct's result for this
            # name (carried by the loop, joined by the branch: writeback.py)
            self.note_region_input_write(self.input_of[id(obj)][1], name, target)
        new = self._written(target, obj, idx, value, op)
        if self.known_writeable(obj):   # the same array, written: still a new writeable one, the same object
            self.writeable_arrays[id(new)] = (new, self.writeable_arrays[id(obj)][1])
        if self.allocated_arrays.get(id(obj)) is obj:   # (its layout too)
            self.allocated_arrays[id(new)] = new
        known = self.__dict__.get("known_layouts", {}).get(id(obj))
        if known is not None and known[0] is obj:   # (the same memory, written: the same layout)
            self.known_layouts[id(new)] = (new, known[1])
        entry = self.input_of.get(id(obj))
        if entry is not None:   # an argument: write it back into the caller's array
            self.input_of[id(new)] = (new, entry[1])
            self.same_identity(new, obj)
            self.input_writes[entry[1]] = new
            self.first_input_writes.setdefault(entry[1], self.current_top)
        if view is not None:   # a view of an argument: written back into that view (specialize._view_program)
            self.view_versions[id(new)] = (new, view)
            self.view_writes[id(view)] = (view, new)
            root = self._roots(view)[0]
            self.first_input_writes.setdefault(self.input_of[id(root)][1], self.current_top)
        if redirect is not None:   # a write through a view: the base written, the view (and others) made again of it
            self._store_into_base(redirect, new, target)
            return
        self.assign_name(name, new, target)
        self._rebind_aliases(aliases, new, target)
        for rows in pulled_from:   # (a write into rows already pulled: the array the rest are pulled from)
            rows.source = new

    def _tuple_field_store(self, target: gast.Subscript, obj: Any, idx: Any, value: Any, op: Any) -> bool:
        """``state.buf[:] = x``, ``state.m[...] *= 0.9`` where ``state`` is a
        local name bound to a named tuple (an argument's ``NamedTuple`` of
        NumPy arrays, one this call made) that only that name holds, on a
        straight path: the array is written as through a name of its own (an
        argument's written back into the caller's array; the same checks of
        other holders), and ``state`` is bound to the named tuple made again
        with the written version in the field's places (eager's tuple holds
        that one array, written in place). False where this does not apply."""
        node = target.value
        if not (isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name)
                and self.frame.owns(node.value.id) and isinstance(obj, Value)) \
                or len(self.regions) != 1 or self.traced_depth or getattr(self, "rolled_depth", 0):
            return False
        name = node.value.id
        holder = self.frame.env.get(name)
        kind = type(holder)
        if not (isinstance(holder, tuple) and kind is not tuple and isinstance(getattr(kind, "_fields", None), tuple)
                and callable(getattr(kind, "_make", None)) and "__dict__" not in dir(holder)) \
                or getattr(holder, node.attr, None) is not obj or kind.__new__ is not _namedtuple_new(kind):
            return False
        if next(self._references(holder, name), None) is not None:   # (another name or container holds the tuple)
            return False
        temp = f"<field {name}.{node.attr}>"
        store = gast.copy_location(gast.Subscript(value=gast.copy_location(gast.Name(id=temp, ctx=gast.Load(),
                                                                                      annotation=None,
                                                                                      type_comment=None), node),
                                                  slice=target.slice, ctx=target.ctx), target)
        frame = self.frame
        names, frame.local_names = frame.local_names, frame.local_names | {temp}
        frame.env[temp] = obj
        self.__dict__["_field_holder"] = (frame, name, holder)   # (not another holder of the array: ``_references``)
        try:
            self.array_store(store, obj, idx, value, op)
            new = frame.env[temp]
        finally:
            frame.env.pop(temp, None)
            frame.local_names = names
            self.__dict__.pop("_field_holder", None)
        frame.env[name] = kind._make(new if x is obj else x for x in holder)
        return True

    # ------------------------------------------------- arrays read from outside
    def _written_capture(self, obj: Any, target: Any) -> int | None:
        """The capture whose array ``obj`` is (``self.w``, a global, a
        closure's array, read from outside; or its version written earlier in
        this trace), when a write into it can be made in place after the call
        (``_capture_store``); None for any other array; a graph break where
        the write cannot reach eager's array exactly."""
        k = self._captured_array(obj)
        if k is None:
            return None
        capture = self.captures[k]
        where = capture.description
        reason = None
        if capture.kind is not np.ndarray or capture.source is None:
            reason = "it is not a plain NumPy array read from a place the write-back can find again"
        elif self.outer_traced:   # (the graph's results are tracers there: nothing to copy into eager's array)
            reason = "under an outer JAX transform (jax.jit, jax.grad of the converted function) eager writes it as it runs"
        else:
            array = capture.getter()
            if not array.flags.writeable:
                raise self.graph_break(FallbackCode.TRACE_ERROR, target, f"a write into the read-only NumPy array "
                                       f"{where} (eager raises ValueError)")
        if reason is not None:
            raise self.graph_break(FallbackCode.MUTATION, target, f"in-place write into the NumPy array {where}, read "
                                   f"from outside the function: {reason}")
        return k

    def _capture_store(self, k: int, target: Any, obj: Value, idx: Any, value: Any, op: Any) -> None:
        """``obj[idx] = value`` (``op=``) into the array capture ``k`` reads
        from outside: the graph computes the written version, a lifted write
        (``state.InPlaceArray``: joined after a traced ``if``, carried by a
        rolled loop, applied in eager's order with the attribute writes), so
        later reads of that place (``read_capture``) and the local names
        holding the array see it; the final version is copied into eager's
        array after the call."""
        owned = isinstance(target.value, gast.Name) and self.frame.owns(target.value.id)
        name = target.value.id if owned else "<outside>"
        aliases = self._check_unaliased(obj, name, target, rebind=True)
        if place_of_source(self.captures[k].source) in self.rebound_places:
            raise self.graph_break(FallbackCode.MUTATION, target, f"in-place write into the NumPy array "
                                   f"{self.captures[k].description}, read from outside, which the function also "
                                   "sets to another array", "subscript")
        holder = self.inplace_targets.get(k)
        if holder is None:   # (no other array the graph reads may share its memory: ``specialize._check_captures_apart``)
            holder = self.inplace_targets[k] = InPlaceArray(self.captures[k])
            self.first_capture_writes[k] = self.current_top
        if getattr(self, "rolled_depth", 0) and not self.carries_write((id(holder), "contents")):
            self.lift_write(holder, "contents", obj, target, f"the NumPy array {self.captures[k].description}")  # (raises: carry it)
        new = self._written(target, obj, idx, value, op)
        self.same_identity(new, obj)   # (handed back as eager's object: ``return self.w``)
        self.captured_versions[id(new)] = (new, k)
        self.lift_write(holder, "contents", new, target, f"the NumPy array {self.captures[k].description}")
        if owned:
            self.assign_name(name, new, target)
        self._rebind_aliases(aliases, new, target)

    def _rebind_aliases(self, aliases: list, new: Value, target: Any) -> None:
        """Eager's other names see a write (``_check_unaliased``'s ``aliases``):
        each bound to the written version ``new``, or to that view of it."""
        made: dict[int, Any] = {}
        for frame, key, *view_idx in aliases:
            if not view_idx:
                frame.env[key] = new
                continue
            # (a name, or a value an unpacking has still to assign; one view held twice: one view of the written array)
            holder = frame if type(frame) is list else frame.env
            old = holder[key]
            if id(old) not in made:
                made[id(old)] = self.remake_view(new, view_idx[0], target)
            holder[key] = made[id(old)]

    def _captured_array(self, x: Any) -> int | None:
        """The index of the capture whose array ``x`` is (as read from
        outside, or a version of it written in place), else None."""
        k = self.capture_index.get(id(x))
        if k is not None and self.captures[k].value is x:
            return k
        entry = self.captured_versions.get(id(x))
        return entry[1] if entry is not None and entry[0] is x else None

    def read_capture(self, v: Value) -> Value:
        """What a read of the array captured as ``v`` gives: its version
        written in place earlier in this trace (the pending ``InPlaceArray``
        write, as this path has it: joined after a traced ``if``, the carried
        value in a rolled loop's body), else ``v`` itself."""
        k = self.capture_index.get(id(v))
        holder = self.inplace_targets.get(k) if k is not None else None
        if holder is None:
            return v
        entry = self.attr_writes.get((id(holder), "contents"))
        if entry is None or entry[0] is not holder:
            return v
        value = entry[2]
        if isinstance(value, Value):   # (a joined or carried one is a version too)
            self.captured_versions[id(value)] = (value, k)
        return value

    def stores_captured_array(self, obj: Any, attr: str, value: Any, node: Any) -> bool:
        """``obj.attr = value`` where ``value`` is the array read from
        ``obj.attr`` itself, written in place (``self.w -= g`` stores the very
        array back): nothing to set, the array is written in place. A graph
        break where ``obj.attr`` was set to another array earlier in the call."""
        entry = self.captured_versions.get(id(value))
        if entry is None or entry[0] is not value:
            return False
        source = self.captures[entry[1]].source
        if not (source[0] == "attr" and source[1] is obj and source[2] == attr):
            return False
        if (id(obj), attr) in self.attr_writes:
            raise self.graph_break(FallbackCode.MUTATION, node, f"attribute {attr!r} set to the array it held before "
                                   "the call, written in place, after another array was set on it")
        if not _holds_own_attribute(obj, attr):
            raise self.graph_break(FallbackCode.MUTATION, node, f"attribute {attr!r} read from elsewhere (its class, a "
                                   "property) and set on the object by the in-place operator: eager's set makes the "
                                   "object hold it from then on")
        return True

    def row_store(self, target: gast.Subscript, row: tuple, view: Any, idx: Any, value: Any, op: Any = None) -> None:
        """``F[k][idx] = value`` (``op=``: ``F[k][idx] op= value``), ``F`` a local
        NumPy array and ``k`` a basic index (``row``: (F's name, F, k)), ``view``
        the row ``F[k]`` evaluated: NumPy's row is a view, so eager's write lands
        in ``F``. Reference semantics::

            r = F[k]; r[idx] = value      # F changes, r is F[k] again

        The row's written version is stored back through ``F``'s name
        (``F[k] = r'``: ``array_store``'s alias checks, write-back into a
        caller's array, views of ``F`` made again); a row that is no array
        (a NumPy scalar: eager raises) goes to ``array_store`` as before."""
        name, base, k = row
        if isinstance(view, np.ndarray):   # a row of an array made at trace time: its current values
            view = self.as_value(view.copy(), target)
            view.type = dataclasses.replace(view.type, numpy=True)
        if not (isinstance(view, Value) and view.type.numpy and not view.type.mixed and view.type.shape):
            self.array_store(target, view, idx, value, op)
            return
        self.check_not_readonly(base, target)
        new = self._written(target, view, idx, value, op)
        outer = gast.Subscript(value=gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None),
                               slice=target.value.slice, ctx=gast.Store())
        gast.copy_location(outer, target)
        gast.copy_location(outer.value, target)
        self.array_store(outer, base, k, new)

    def _written(self, target: Any, obj: Value, idx: Any, value: Any, op: Any) -> Value:
        """The version of the NumPy array ``obj`` after ``obj[idx] = value`` (or
        ``obj[idx] op= value``), with NumPy's checks (bounds, casts, scalar
        stores); no name is bound and no alias is looked at (``array_store``)."""
        # x[[k, p]] = v: NumPy writes a repeated index's last value, XLA's scatter in no set order:
        # a list of rows (traced, or repeated) is written one row after the other; in a tuple, distinct only
        lists = [k for k, p in enumerate(idx if type(idx) is tuple else (idx,)) if type(p) is list]
        idx = self.numpy_list_index(obj, idx, target)
        converted = [(idx if type(idx) is tuple else (idx,))[k] for k in lists]
        rows = type(idx) is not tuple and lists and not isinstance(idx, list) and \
            (isinstance(idx, Value) or idx.dtype != bool and len(set(idx.tolist())) < len(idx))
        if type(idx) is tuple and any(isinstance(p, Value) or p.dtype != bool and len(set(p.tolist())) < len(p)
                                      for p in converted if not isinstance(p, list)):
            raise self.graph_break(FallbackCode.MUTATION, target, "a write through a list index that may repeat an "
                                   "element, with other indices (NumPy writes the last value; the graph's order is "
                                   "unspecified)")
        masked = type(idx) is arrays.SliceSpec and any(isinstance(b, Value) for b in (idx.start, idx.stop, idx.step))
        if op is not None:
            if masked:   # ``y[:k] += v``: the slice read masked (masked.py), written back below
                current = self.masked_slice(obj, idx, target)
            elif self.is_bool_mask(obj, idx):   # ``y[m] += v``: eager's kept rows (masked.py), written back below
                current = self.bool_masked(obj, idx, target)
            else:
                current = self.emit_call(arrays.getitem, (obj, idx), {}, target, "getitem")
            value = self.binop(op, current, value, target)
            rtype = value.base.type.dtype if isinstance(value, MaskedSlice) else \
                value.type.dtype if isinstance(value, Value) else np.result_type(value)
            if not _same_kind(np.dtype(rtype), obj.type.dtype):
                raise self.graph_break(FallbackCode.MUTATION, target, f"in-place update casts {np.dtype(rtype)} into a "
                                       f"{obj.type.dtype} array (NumPy's casting rules decide it at run time)")
        if type(value) is KindedValue:   # ``out[i] = x[i] ** 2 if x[i] > 0 else 0.0``: the number NumPy stores
            value = self._stored_number(value, obj.type.dtype, target)
        self._check_bounds(obj, idx, target)
        self._check_scalar_store(obj.type.dtype, value, target)
        if masked and isinstance(value, MaskedSlice):   # ``y[:k] = x[:k] * 2``: the kept rows in order
            new = self.masked_store(obj, idx, value, "set", target, numpy=True)
        elif isinstance(value, MaskedSlice) and self.is_bool_mask(obj, idx):   # ``y[m] = 1 - a[m] / b[m]``
            new = self.mask_store(obj, idx, value, target)
        elif isinstance(value, MaskedSlice) and self.is_scalar_mask(obj, idx):   # ``out[ia] = a[ia]``, ia 0-d
            new = self.scalar_mask_store(obj, idx, value, target)
        elif rows:
            new = self.emit_call(arrays.setitem_rows, (obj, idx, value), {}, target, "setitem")
        else:
            new = self.emit_call(np_setitem, (obj, idx, value), {}, target, "setitem")
        new.type = dataclasses.replace(new.type, numpy=True, array0=obj.type.array0)
        return new

    def _store_target(self, obj: Any, name: str, target: Any) -> tuple:
        """The array ``array_store`` writes (a NumPy array made at trace time
        becomes a value), the argument's view it is written back into (or
        None), and the other names to rebind to the written version; falls
        back where eager's other holders would see the write."""
        view = None
        aliases: list = []
        if isinstance(obj, np.ndarray):
            if not self._is_fresh(obj):
                raise self.graph_break(FallbackCode.MUTATION, target, "in-place write of a traced value into a NumPy array "
                                       "created outside this compiled segment")
            aliases = self._check_unaliased(obj, name, target, rebind=True)
            writeable = obj.flags.writeable and obj.base is None   # a new array this call made (np.zeros(n))
            contiguous = obj.flags.c_contiguous or obj.flags.f_contiguous
            made = obj
            obj = self.as_value(obj, target)
            obj.type = dataclasses.replace(obj.type, numpy=True, array0=made.ndim == 0)   # np.empty(()): a 0-d array
            if writeable:   # its versions are that one object, new and writeable in eager
                self.writeable_arrays[id(obj)] = (obj, id(obj))
                self.from_trace_time[id(obj)] = made   # (its memory: the trace-time array's, not new)
                if contiguous:   # its own data, allocated whole (np.zeros(n)): its layout on every call
                    self.allocated_arrays[id(obj)] = obj
        else:
            if any(c.value is obj for c in self.captures):
                raise self.graph_break(FallbackCode.MUTATION, target, f"in-place write into the NumPy array '{name}' "
                                       "read from outside the function (a global, closure or attribute): the write "
                                       "must reach that array")
            view = self._input_view(obj) if len(self.regions) == 1 and not self.traced_depth else None
            if view is None:
                aliases = self._check_unaliased(obj, name, target, rebind=True)
            else:   # a view of an argument nothing else sees: written back into that view of the caller's array
                self._check_unaliased(view, name, target, views_ok=True)
        return obj, view, aliases

    def check_numpy_index(self, obj: Any, idx: Any, node: Any) -> None:
        """Traced integer indices into a NumPy array: NumPy raises IndexError
        when one is out of bounds, XLA would clamp (read) or drop (write), so
        the graph checks them at run time (a host callback only on failure)."""
        numpy = isinstance(obj, np.ndarray) or isinstance(obj, Value) and obj.type.numpy
        shape = obj.shape if isinstance(obj, np.ndarray) else obj.type.shape if isinstance(obj, Value) else None
        if isinstance(obj, Value) and obj.type.mixed and "numpy" in obj.type.kinds and arrays.traced_int_parts(tuple(shape), idx):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a traced index into a value that is a NumPy "
                                   "array (bounds-checked) on one path and a jax.Array (clamped) on another")
        if not numpy:
            return
        self._check_static_index(tuple(shape), idx, node)
        parts = [(a, i) for a, i in arrays.traced_int_parts(tuple(shape), idx) if not _in_bounds(i, shape[a])]
        if parts:
            axes, indices = zip(*parts)
            self.emit_call(arrays.numpy_index_check, (tuple(shape), axes, *indices), {}, node, "index check",
                           effect=True)

    def numpy_list_index(self, obj: Any, idx: Any, node: Any) -> Any:
        """A list in the index of a NumPy array (``x[[k, p]]``, ``x[[0, 2], 1]``):
        NumPy's fancy index, the integer array (a list of bools: the mask)
        NumPy makes of it; JAX refuses lists. A list of other items is left
        as it is (the statement runs in Python, as before)."""
        numpy = isinstance(obj, np.ndarray) or isinstance(obj, Value) and obj.type.numpy and not obj.type.mixed
        parts = idx if type(idx) is tuple else (idx,)
        if not numpy or not any(type(p) is list for p in parts):
            return idx

        def integer(e: Any) -> bool:
            if isinstance(e, Value):
                return not e.type.shape and not e.type.mixed and e.type.dtype.kind in "iu"
            return isinstance(e, (int, np.integer)) and not isinstance(e, (bool, np.bool_))

        out = []
        for p in parts:
            if type(p) is not list:
                out.append(p)
            elif not p:
                out.append(np.zeros(0, np.intp))
            elif all(type(e) is bool for e in p):
                out.append(np.asarray(p))
            elif all(integer(e) and not isinstance(e, Value) for e in p):
                out.append(np.asarray(p, np.intp))
            elif all(integer(e) for e in p):
                out.append(self.emit_call(arrays.index_list, tuple(p), {}, node, "index list"))
            else:
                return idx
        return tuple(out) if type(idx) is tuple else out[0]
    def _check_scalar_store(self, dtype: np.dtype, value: Any, node: Any) -> None:
        """NumPy stores a scalar (a Python number, a NumPy scalar) into an
        integer array as ``int()`` converts it: NaN raises ValueError, an
        infinity or a number beyond the dtype's range OverflowError (an array
        value is cast without a check, as XLA casts). A static scalar is
        stored into a NumPy stand-in now; a traced one gets a run-time check
        (the exact error made on the host when it fires)."""
        if np.dtype(dtype).kind not in "iu":
            return
        if not isinstance(value, Value):
            if isinstance(value, (int, float, complex, np.number)) and not isinstance(value, bool):
                try:
                    np.zeros((), dtype)[()] = value
                except (ValueError, OverflowError, TypeError) as e:
                    raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"storing {value!r} into a {np.dtype(dtype)} "
                                           f"array (eager raises {type(e).__name__}: {e})", exc=e) from None
            return
        t = value.type
        if t.shape or t.mixed or not (t.python or t.numpy) or t.dtype.kind == "b":
            return   # an array (or a jax.Array) is cast unchecked, as XLA casts
        if t.dtype.kind in "iu" and np.can_cast(t.dtype, dtype):
            return
        if t.dtype.kind not in "iuf" or not self.raise_checks_allowed():
            raise self.graph_break(FallbackCode.MUTATION, node, f"a traced {t.dtype} scalar stored into a "
                                   f"{np.dtype(dtype)} array: NumPy raises when it is NaN, infinite or out of range")
        kind = "python" if t.python else "numpy"
        self.emit_call(arrays.int_store_check, (value, np.dtype(dtype), kind), {}, node, "store check", effect=True)

    def _check_static_index(self, shape: tuple, idx: Any, node: Any) -> None:
        """NumPy's IndexError for an index known at trace time to be out of
        bounds (``x[10]``, ``x[1, 7]``, ``x[[0, 9]]`` on a NumPy array of 4
        rows), where XLA would clamp: the index is tried on a stand-in of the
        array's shape (no data: every stride 0), traced integer parts as
        zeros of their shape; eager's exception makes the statement run in
        Python (a handler on a static path takes it at trace time)."""
        parts = idx if type(idx) is tuple else (idx,)
        probe = []
        for p in parts:
            if isinstance(p, Value):
                if np.dtype(p.type.dtype).kind not in "iu":
                    return   # a traced mask or float index: not decided here
                p = np.zeros(p.type.shape, p.type.dtype)
            elif not isinstance(p, (int, np.integer, slice, type(None), type(Ellipsis), list, np.ndarray)):
                return
            probe.append(p)
        stand_in = np.lib.stride_tricks.as_strided(np.zeros(1, bool), shape, (0,) * len(shape))
        try:
            stand_in[tuple(probe) if type(idx) is tuple else probe[0]]
        except IndexError as e:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{e} (eager raises IndexError)", exc=e) from None
        except Exception:  # noqa: BLE001 - another index error is left to the operation itself
            return

    def _check_bounds(self, obj: Value, idx: Any, node: Any) -> None:
        self.check_numpy_index(obj, idx, node)
        parts = idx if type(idx) is tuple else (idx,)
        for axis, p in enumerate(parts):
            if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and axis < len(obj.type.shape):
                n = obj.type.shape[axis]
                if not -n <= p < n:
                    raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"index {p} is out of bounds for axis {axis} "
                                           f"with size {n} (eager raises IndexError)")

    def _check_unaliased(self, obj: Any, name: str, node: Any, views_ok: bool = False,
                         rebind: bool = False) -> list:
        """Fall back unless the local ``name`` is the only way to observe ``obj``
        (``views_ok``: ``obj`` is a view ``_input_view`` accepted). ``rebind``:
        other plain local names holding that very array (this function's, its
        inlined callers'; also of a NumPy array made at trace time, bound to
        its first traced version) are allowed where ``_rebindable`` says so: returned
        as (frame, name), for the caller to bind to the written version."""
        if isinstance(obj, Value) and not views_ok:
            entry = self.input_of.get(id(obj))
            if entry is not None and entry[1] in self.input_aliased:
                raise self.graph_break(FallbackCode.MUTATION, node, f"argument array '{name}' shares memory with another argument")
            held = self._base_observable(obj)
            if held and id(obj) in self.view_of:
                raise self.graph_break(FallbackCode.MUTATION, node, f"'{name}' may be a view of another NumPy array "
                                       f"(a write through it changes the base, {held})",
                                       hint="take a copy first: y = x[...].copy()")
            if held:
                raise self.graph_break(FallbackCode.MUTATION, node, f"'{name}' may be {held} (the result of a traced "
                                       "branch or a rolled loop is one of the arrays it joins)",
                                       hint="take a copy first: y = y.copy()")
        plain: list | None = [] if rebind and self._rebindable(obj) else None
        views: list | None = [] if rebind and self._views_rebindable(obj) else None
        holder = next(self._references(obj, name, plain=plain, views=views), None)
        if holder is None and plain and not self._callers_hold_no_temporaries(obj):
            holder = f"'{plain[0][1]}' (in a caller whose statement holds values evaluated before the call)"
        if holder is not None:
            raise self.graph_break(FallbackCode.MUTATION, node, f"the array in '{name}' is also reachable as {holder}: "
                                   "a write must show through every alias", hint="take a copy (y = x.copy()) or write through one name")
        return (plain or []) + (views or [])

    def _view_base_store(self, obj: Any, name: str) -> tuple | None:
        """``v[i] = x`` where ``v`` is ``base[idx]`` (a static index) of a NumPy
        array one local name of this frame holds, on a straight path
        (``_views_rebindable``), when no mechanism of its own applies (an
        argument's view nothing else sees: ``_input_view``): (the base's name,
        the base, idx). The write is then made into the base (``base[idx] =
        v's written content``), and ``v`` with every other such view of it is
        made again of the written base."""
        if not isinstance(obj, Value) or self.frame.env.get(name) is not obj:
            return None
        found = self.getitem_recipe(obj) or self._permuted_recipe(obj)
        if found is None or self._static_view_index(obj, found[0]) is None or not self._views_rebindable(found[0]):
            return None
        base = found[0]
        if len(self.regions) == 1 and not self.traced_depth and self._input_view(obj) is not None:
            return None
        names = [k for k, v in self.frame.env.items() if v is base and not k.startswith("<")]
        if len(names) != 1 or not self.frame.owns(names[0]):
            return None
        return names[0], base, found[1]

    def _store_into_base(self, redirect: tuple, content: Value, node: Any) -> None:
        """``base[idx] = content`` through the base's name (``array_store``: its alias
        checks, write-back; the views of it rebound to the written version)."""
        base_name, base, idx = redirect
        if type(idx) is _Permuted:   # the written view's axes put back in the base's order: the base written whole
            content = self.emit_call(arrays.method_caller("transpose"), (content, idx.inverse()), {}, node, ".transpose")
            idx = Ellipsis
        target = gast.Subscript(value=gast.Name(id=base_name, ctx=gast.Load(), annotation=None, type_comment=None),
                                slice=gast.Constant(value=None, kind=None), ctx=gast.Store())
        gast.copy_location(target, node)
        gast.copy_location(target.value, node)
        self.array_store(target, base, idx, content)

    def _views_rebindable(self, obj: Any) -> bool:
        """Whether local names holding views ``obj[idx]`` (a static basic index) may
        be bound, after a write into ``obj``, to that view of the written version:
        a NumPy array value written on a straight path (as ``_rebindable``; an
        argument too: its write-back follows its own name, and a view of it
        leaves as that view of the caller's array, ``specialize._view_program``)."""
        return isinstance(obj, Value) and len(self.regions) == 1 and not self.traced_depth \
            and self._loops_apart(obj) and id(obj) not in self.view_of and id(obj) not in self.joined_from

    def _permuted_recipe(self, view: Any) -> tuple | None:
        """(base, ``_Permuted``) when ``view`` was made as its base's axes permuted
        (``view_recipes``: ``x.T``, ``np.moveaxis(x, 0, -1)``, ...), else None."""
        recipe = self.view_recipes.get(id(view))
        if recipe is None or recipe[0] is not view or not isinstance(recipe[4], Value):
            return None
        perm = _permutation_of(recipe)
        return (recipe[4], perm) if perm is not None else None

    def remake_view(self, written: Any, spec: Any, node: Any) -> Any:
        """The view ``spec`` (an index, or ``_Permuted``) of the written version of its base."""
        if type(spec) is _Permuted:
            return self.emit_call(arrays.method_caller("transpose"), (written, spec.perm), {}, node, ".transpose")
        return self.emit_call(arrays.getitem, (written, spec), {}, node, "getitem")

    def _static_view_index(self, v: Any, base: Any) -> Any:
        """``idx`` when ``v`` is ``base[idx]`` (made by indexing, a static index, not written
        through since), ``_Permuted`` when it is ``base`` with its axes permuted, else None."""
        if not isinstance(v, Value) or id(v) in self.view_versions:
            return None
        found = self.getitem_recipe(v) or self._permuted_recipe(v)
        if found is None or found[0] is not base or any(isinstance(x, Value) for x in tree_flatten(found[1])[0]):
            return None
        return found[1]

    def _made_at(self, obj: Value) -> int | None:
        """The position in this segment's top region of the op that made
        ``obj``, or None (made elsewhere: a constant, an input)."""
        ops = self.region.ops
        for k in range(len(ops) - 1, -1, -1):
            if any(r is obj for r in ops[k].results):
                return k
        return None

    def _own_attributes_holding(self, holder: Any, obj: Any, walk: Callable[[Any, int], bool]) -> list | None:
        """The attributes (``__dict__`` entries or ``__slots__``) of ``holder``,
        an object of a plain Python class this call made, that hold ``obj``
        itself, where none of its other attributes reaches ``obj``: each may be
        bound to the written version as a local name is. None otherwise."""
        if isinstance(holder, (Value, np.ndarray, list, tuple, dict, set, frozenset, str, bytes, int, float, type,
                               types.ModuleType, types.FunctionType)) or not self._is_fresh(holder) \
                or hasattr(holder, "frame"):
            return None
        attrs = getattr(holder, "__dict__", None)
        names = [*(attrs if type(attrs) is dict else ()), *_slot_names(type(holder))]
        values = {n: getattr(holder, n, None) for n in names}
        direct = [n for n, v in values.items() if v is obj]
        if not direct or any(v is not obj and walk(v, 1) for v in values.values()):
            return None
        return direct

    def _rebindable(self, obj: Any) -> bool:
        """Whether the other names holding ``obj`` may simply be bound to its
        written version: a NumPy array this call computed (no argument, whose
        write-back follows one name; no view or join of others, whose bases
        would miss the write), written on a straight path (no traced branch
        or rolled loop, whose joins and carried values were solved without
        these names; no loop at all, whose iterator may hold the array)."""
        if type(obj) is np.ndarray:   # made at trace time, its own memory (``output = np.zeros(shape)``)
            return self._is_fresh(obj) and obj.base is None and len(self.regions) == 1 and not self.traced_depth \
                and self._loops_apart(obj)
        return isinstance(obj, Value) and len(self.regions) == 1 and not self.traced_depth \
            and self._loops_apart(obj) and id(obj) not in self.input_of and id(obj) not in self.view_of \
            and id(obj) not in self.joined_from

    def _loops_apart(self, obj: Any) -> bool:
        """No loop, or only unrolled ``for`` loops over static containers and
        ranges that do not hold ``obj`` (their later items are what they hold
        now: ``for axis in axes: f(input, axis, output); input = output``,
        scipy.ndimage's separable filters)."""
        if not self.loop_depth:
            return True
        if getattr(self, "rolled_depth", 0) or len(self.loops_held) != self.loop_depth:
            return False
        return all(self._holds_not(held, obj, 0) or self._own_list_of(held, obj) for held in self.loops_held)

    def _own_list_of(self, x: Any, obj: Any) -> bool:
        """``x`` is a list this call made that holds ``obj`` itself (``ps =
        list(self.params.values())``, ``for p in ps: p -= lr``) and no view
        or join of it in another item: its places holding ``obj`` are set to
        the written version (``_references``' ``plain``), so the list and a
        loop iterating it live see the write, as eager's list holds the one
        array written in place."""
        return type(x) is list and self._is_fresh(x) and any(y is obj for y in x) \
            and all(y is obj or self._holds_not(y, obj, 1) for y in x)

    def _holds_not(self, x: Any, obj: Any, depth: int) -> bool:
        """Whether ``x`` (an iterable of a loop) certainly holds no view of ``obj``."""
        if x is obj:
            return False
        if isinstance(x, (range, str, bytes, int, float, complex, bool, type(None))):
            return True
        if isinstance(x, Value):
            return not isinstance(obj, Value) or not (self.may_share(x, obj) or self.may_share(obj, x))
        if isinstance(x, np.ndarray):
            return not isinstance(obj, np.ndarray) or not np.may_share_memory(x, obj)
        if depth < 4 and type(x) in (list, tuple, set, frozenset):
            return all(self._holds_not(y, obj, depth + 1) for y in x)
        if depth < 4 and type(x) is dict:
            return all(self._holds_not(k, obj, depth + 1) and self._holds_not(v, obj, depth + 1) for k, v in x.items())
        return False

    def _callers_hold_no_temporaries(self, obj: Value) -> bool:
        """Whether no inlined caller holds ``obj`` in a value it evaluated
        before its call and has not bound to a name (``h(n, g(n))``: h's
        first argument). A call that began before ``obj`` was made holds
        none; another must be the whole value of its statement (``x = f(a,
        k=b)``, ``f(a)``, ``return f(a)``), name the function it runs (a
        name or a module's attribute) and pass names and constants only,
        each bound to a parameter of that function."""
        frames = [*self.callers[1:], self.frame]
        made = self._made_at(obj)
        token = self.object_token(obj)
        array = obj if type(obj) is np.ndarray else \
            self.from_trace_time.get(token[1]) if token is not None and token[0] == "new" else None
        born = self.fresh_born.get(id(array)) if array is not None else None
        born = born[0] if born is not None and born[1] is array else None   # (a trace-time array: when it was made)
        for caller, node, callee in zip(self.callers, self.call_nodes, frames):
            started = getattr(callee, "started", None)
            if made is not None and started is not None and (started[0] is not self.region or made >= started[1]):
                continue   # made during the call (in this segment, after it began): not among its temporaries
            if born is not None and started is not None and born >= started[2]:
                continue   # made at trace time during the call (``np.zeros(shape)`` of _get_output): the same
            if not isinstance(node, gast.Call) or _statement_value(caller.unit, node) is None:
                return False
            func = node.func
            while isinstance(func, gast.Attribute):
                func = func.value
            if isinstance(func, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.value is func:
                # ``at(x, i).set(v)``: a method of an object made by the statement, of plain arguments; that
                # object is the callee's ``self`` (its names and attributes are rebound), consumed by the call
                if func.keywords or not all(_plain_argument(a) for a in func.args):
                    return False
                func = func.func
                while isinstance(func, gast.Attribute):
                    func = func.value
            if not isinstance(func, gast.Name):
                return False
            called = node.func.attr if isinstance(node.func, gast.Attribute) else node.func.id
            short = callee.unit.qualname.rsplit(".", 1)[-1]
            held = caller.env.get(called) if isinstance(node.func, gast.Name) else None
            if short != called and getattr(held, "__name__", None) != short:   # (``filter_ = maximum_filter1d``)
                return False
            # (``*extra_arguments``, ``**extra_keywords`` of names: unpacked into the callee's parameters)
            args = [a.value if isinstance(a, gast.Starred) and isinstance(a.value, gast.Name) else a for a in node.args]
            args += [k.value for k in node.keywords if k.arg is not None or isinstance(k.value, gast.Name)]
            if len(args) != len(node.args) + len(node.keywords) or not all(_plain_argument(a) for a in args):
                return False
        return True

    # ------------------------------------------------------------ joins
    @property
    def joined_from(self) -> dict:
        """NumPy arrays joined from others (a traced branch's result, a rolled
        loop's carried value): id -> (value, the arrays it may be)."""
        d = self.__dict__.get("_joined_from")
        if d is None:
            d = self.__dict__["_joined_from"] = {}
        return d

    def join_views(self, results: list, sources: list[list]) -> None:
        """``results[k]`` is, in eager, one of ``source[k]`` for the sources
        (each path of a branch; a loop's initial and carried values): a NumPy
        array among them may be that same object (``y = a if c else b``),
        so a write through either must show in the other."""
        def ndarray(v: Any) -> bool:   # (a 0-d ndarray's kind is "array0": ``x if c else -x`` of one is ``x`` too)
            return isinstance(v, Value) and bool(v.type.kinds & {"numpy", "array0"})

        for k, r in enumerate(results):
            if not ndarray(r) or not (r.type.shape or "array0" in r.type.kinds):
                continue
            bases = [src[k] for src in sources if k < len(src) and ndarray(src[k]) and src[k] is not r]
            if bases:
                self.joined_from[id(r)] = (r, bases)

    def _bases_of(self, x: Any) -> list:
        """The arrays ``x`` may view or be (one step)."""
        out = []
        for table in (self.view_of, self.__dict__.get("_joined_from") or {}):
            entry = table.get(id(x))
            if entry is not None and entry[0] is x:
                out.extend(entry[1])
        return out

    def may_share(self, x: Any, obj: Any, depth: int = 0, seen: set | None = None) -> bool:
        """Whether ``x`` is ``obj``, or a view of it or joined from it, through any chain."""
        if x is obj:
            return True
        if depth > 32:
            return True   # a chain this long: assume it does
        # each array explored once: arrays joined in a loop's branches share
        # their bases, and the paths through them grow exponentially
        seen = set() if seen is None else seen
        if id(x) in seen:
            return False   # explored already, without reaching ``obj`` (a cycle adds nothing)
        seen.add(id(x))
        return any(self.may_share(b, obj, depth + 1, seen) for b in self._bases_of(x))

    @property
    def view_versions(self) -> dict:
        """Arrays written through a view of an argument: id(version) -> (version, the view it is written into)."""
        d = self.__dict__.get("_view_versions")
        if d is None:
            d = self.__dict__["_view_versions"] = {}
        return d

    @property
    def view_writes(self) -> dict:
        """Views of arguments written in place: id(view) -> (view, its latest version), written back after the call."""
        d = self.__dict__.get("_view_writes")
        if d is None:
            d = self.__dict__["_view_writes"] = {}
        return d

    def _input_view(self, obj: Value) -> Value | None:
        """The view of an argument's array that ``obj`` is (or a version
        written through it), when a write through it can be written back into
        that view of the caller's array after the call: the view is made by
        indexing, ``.T``, a method or a NumPy function from the whole
        argument (``view_recipes``), and neither the argument nor any view on
        the way is seen by anything but ``obj`` (``x = np.moveaxis(x, 0, -1);
        x[..., 1:] *= 2``). None otherwise."""
        version = self.view_versions.get(id(obj))
        view = version[1] if version is not None and version[0] is obj else obj
        chain, v = [], view
        while True:
            recipe = self.view_recipes.get(id(v))
            if recipe is None or recipe[0] is not v or len(chain) > 64:
                break
            v = recipe[4]
            chain.append(v)
        entry = self.input_of.get(id(v))
        if not chain or entry is None or entry[0] is not v:
            return None
        if entry[1] in self.input_aliased or entry[1] in self.input_writes or self.pending_inputs:
            return None
        seen = chain + ([view] if view is not obj else [])
        if any(next(self._references(b, "", skip=obj), None) is not None for b in seen):
            return None
        return view

    def _roots(self, x: Any, depth: int = 0, memo: dict | None = None) -> list:
        """The arrays ``x`` views or may be, through any chain, that view or join
        nothing (each once: ``memo`` keeps each array's, as the paths through
        arrays joined in a loop's branches grow exponentially)."""
        bases = self._bases_of(x)
        if not bases or depth > 64:
            return [x]
        memo = {} if memo is None else memo
        if id(x) in memo:
            return memo[id(x)]
        memo[id(x)] = [x]   # while it is explored: a cycle back to it takes it for a root
        out: dict[int, Any] = {}
        for b in bases:
            for r in self._roots(b, depth + 1, memo):
                out.setdefault(id(r), r)
        memo[id(x)] = list(out.values())
        return memo[id(x)]

    def _base_observable(self, obj: Value) -> str:
        """For a view or an array joined from others: how an array it may
        share memory with can still be seen other than through ``obj`` (a
        name, a container, another view, an argument, an array read from
        outside), or '': a write through ``obj`` then changes nothing else
        anyone can see (``moveaxis(fft(x))[..., 1:] *= 2``)."""
        if not self._bases_of(obj):
            return ""
        mine = self.input_of.get(id(obj))
        mine = mine[1] if mine is not None and mine[0] is obj else None
        captured = self.captured_versions.get(id(obj))
        captured = captured[1] if captured is not None and captured[0] is obj else None
        for r in self._roots(obj):
            if r is obj:
                continue
            if captured is not None and (self.capture_index.get(id(r)) == captured or
                                         self.captured_versions.get(id(r), (None, None))[1] == captured):
                continue   # a version of the same array read from outside (written in place: ``_capture_store``)
            other = self.input_of.get(id(r))
            if other is not None and other[0] is r:
                if mine is not None and other[1] == mine:
                    continue   # a version of the same argument array (written back: writeback.py)
                return "an argument's array"
            if not isinstance(r, Value) or any(c.value is r for c in self.captures):
                return "an array from outside the segment"
            holder = next(self._references(r, "", skip=obj), None)
            if holder is not None:
                return f"which is also reachable as {holder}"
        return ""

    def _into_pulled_rows(self, rows: PendingRows) -> bool:
        """Whether the write being checked (``storing``: its array and index)
        goes into ``rows.source`` itself at a static first index among the
        rows already pulled (``for i, v in enumerate(x): x[i] = 2 * v``):
        the rows still to pull are untouched."""
        storing = self.storing
        if storing is None or storing[0] is not rows.source:
            return False
        idx = storing[1]
        first = idx[0] if type(idx) is tuple and idx else idx
        if not isinstance(first, (int, np.integer)) or isinstance(first, (bool, np.bool_)):
            return False
        n = len(rows)
        k = int(first) + n if first < 0 else int(first)
        return 0 <= k < rows.pulled

    def _into_pulled_items(self, source: Any) -> bool:
        """``_into_pulled_rows`` for a loop's iterator over a NumPy array made
        at trace time (``for i, v in enumerate(x): x[i] = 2 * v + y[i]``):
        the write goes into that array itself at a row the iterator has
        pulled already."""
        try:
            while type(source) is enumerate:
                source = source.__reduce__()[1][0]
            if type(source) is not _NDARRAY_ITERATOR:
                return False
            _, (base,), *state = source.__reduce__()
        except Exception:  # noqa: BLE001 - not the iterator it looks like: unknown
            return False
        if type(base) is not np.ndarray or not base.ndim:
            return False
        rows = PendingRows(base, [None] * len(base))
        rows.taken = int(state[0]) if state else len(base)   # (exhausted: all of them)
        return self._into_pulled_rows(rows)

    def _frames(self) -> list:
        out, seen = [], set()
        for start in [self.frame, *self.callers]:
            f = start
            while f is not None and id(f) not in seen:
                seen.add(id(f))
                out.append(f)
                f = f.parent
        return out

    def _references(self, obj: Any, name: str, skip: Any = None, plain: list | None = None,
                    views: list | None = None):
        """Where else ``obj`` (or a view of it, or an array joined from it) can
        be seen from: names, containers, attributes (``skip``: not that one;
        ``plain``: a local name of this frame or an inlined caller's bound to
        ``obj`` itself is appended to it as (frame, name) instead; ``views``: a
        local name of this frame bound to a view ``obj[idx]`` with a static
        index, as (frame, name, idx), and such a view an unpacking assignment
        has still to assign, as (its values, position, idx))."""
        seen: set[int] = set()
        own = [self.frame, *self.callers]
        is_value = isinstance(obj, Value)
        field_holder = self.__dict__.get("_field_holder")   # (a named tuple whose field is being written:
        # made again with the written version, ``_tuple_field_store``)
        argument = self.input_of.get(id(obj)) if is_value else None
        argument = argument[1] if argument is not None and argument[0] is obj else None

        def hits(x: Any) -> bool:
            if x is skip:
                return False
            if x is obj:
                return True
            if argument is not None and isinstance(x, Value):
                # another version of the same argument array (held before a
                # loop or a call that writes it): the same array in eager
                other = self.input_of.get(id(x))
                if other is not None and other[0] is x and other[1] == argument:
                    return True
            if is_value and isinstance(x, Value):
                return self.may_share(x, obj)
            if not is_value and isinstance(x, np.ndarray):
                return np.may_share_memory(x, obj)
            return False

        def walk(x: Any, depth: int) -> bool:
            if hits(x):
                return True
            if id(x) in seen or depth > 4 or isinstance(x, (Value, np.ndarray, str, bytes, int, float, type,
                                                             types.ModuleType, types.FunctionType)):
                return False
            seen.add(id(x))
            if isinstance(x, PendingRows):   # (read by index: iterating it counts as pulling its rows)
                return any(walk(list.__getitem__(x, k), depth + 1) for k in range(len(x)))
            if isinstance(x, (list, tuple, set, frozenset)):
                return any(walk(y, depth + 1) for y in x)
            if type(x) in _BUILTIN_ITERATORS:   # what it will pull from (its reduced state: eager's containers)
                try:
                    state = x.__reduce__()
                except Exception:  # noqa: BLE001
                    return True
                return any(walk(y, depth + 1) for y in state[1])
            if isinstance(x, dict):
                return any(walk(y, depth + 1) for y in x.values())
            frame = getattr(x, "frame", None)   # local functions see their defining frame
            if frame is not None and hasattr(frame, "env"):
                held = [*getattr(x, "defaults", ()), *getattr(x, "kw_defaults", ()),
                        *getattr(x, "attributes", {}).values()]
                if any(walk(y, depth + 1) for y in held):
                    return True
                if plain is not None and any(frame is f for f in own):
                    return False   # its names are read from that frame, whose names are rebound
                names = _names_used(getattr(x, "node", None))   # (None: any name of that frame)
                return any(walk(y, depth + 1) for k, y in frame.env.items() if names is None or k in names)
            attrs = getattr(x, "__dict__", None)
            if isinstance(attrs, dict) and any(walk(y, depth + 1) for y in attrs.values()):
                return True
            # an object of a class with __slots__ (array-api-extra's ``at(x)``) holds it there
            return any(walk(getattr(x, n, None), depth + 1) for n in _slot_names(type(x)))

        for frame in self._frames():
            for key, v in frame.env.items():
                if frame is self.frame and key == name and v is obj:
                    continue
                if field_holder is not None and frame is field_holder[0] and key == field_holder[1] \
                        and v is field_holder[2]:
                    continue
                if key.startswith("<write ") and type(self.__dict__.get("_carried_names", {}).get(key, (0, 0))[1]) \
                        is InPlaceArray:
                    continue   # a rolled loop's carried version of an array written in place: that array itself
                if key.startswith("<retval ") and not key.startswith("<retval try "):
                    # a loop's return value (exits.py): seen only on the path that returned, where
                    # the rest of the loop (and any write it makes) does not run; an enclosing
                    # ``finally:`` that runs after it sees it as its own ``<retval try ...>``
                    continue
                if plain is not None and v is obj and any(frame is f for f in own) and frame.owns(key):
                    plain.append((frame, key))
                    continue
                if plain is not None and type(v) is tuple and any(frame is f for f in own) and frame.owns(key) \
                        and any(y is obj for y in v) and not any(walk(y, 1) for y in v if y is not obj):
                    # a local tuple holding the array itself (``func(*args, out=out)``: the array in ``args``
                    # and ``out``): made again with the written version in its places, as a name is rebound
                    plain.append((_TupleItems(frame, obj), key))
                    continue
                if plain is not None and any(frame is f for f in own) and frame.owns(key) and self._own_list_of(v, obj):
                    plain.append((_ListItems(v, obj), key))   # (its places set to the written version)
                    continue
                held = self._own_attributes_holding(v, obj, walk) if plain is not None else None
                if held:   # ``self._x`` of array-api-extra's ``at(x)`` made in this call: rebound as a name is
                    plain += [(_Attributes(v), attr) for attr in held]
                    continue
                if views is not None and frame is self.frame and frame.owns(key) and not key.startswith("<"):
                    idx = self._static_view_index(v, obj)
                    if idx is not None:
                        views.append((frame, key, idx))
                        continue
                if walk(v, 0):
                    where = "" if frame is self.frame else f" in {getattr(frame.unit, 'qualname', 'an enclosing function')}"
                    yield f"'{key}'{where}"
                    return
        if plain is not None:   # an unrolled loop's own list that holds it (``for p in list(d.values())``)
            plain += [(_ListItems(h, obj), None) for h in self.loops_held if self._own_list_of(h, obj)]
        for held in self.attr_writes.values():
            if type(held[0]) is InPlaceArray and held[2] is obj:   # (the array's own written contents)
                continue
            if walk(held[2], 0):
                yield f"attribute '{held[1]}'"
                return
        for items, start in self.pending:
            for j in range(start, len(items)):
                idx = self._static_view_index(items[j], obj) if views is not None and type(items) is list else None
                if idx is not None:   # ``A[0], A[1] = A[1], A[0]``: the second value, eager's view, sees the first write
                    views.append((items, j, idx))
                elif walk(items[j], 0):
                    yield "a value an unpacking assignment has not assigned yet"
                    return
        for held in self.held_returns:
            if held is not UNBOUND and walk(held, 0):
                yield "the value a `return` returns once the `finally:` block that writes it ends"
                return
        for source in getattr(self, "loop_sources", ()):
            # ``for i, v in enumerate(x[:-1]): x[i + 1] += ...``: the iterator reads its rows as the loop pulls them
            if not self._into_pulled_items(source) and walk(source, 0):
                yield "the iterator a running loop pulls from (eager reads each item when it is pulled)"
                return
        for rows in self.iterated:
            if rows.pulled >= len(rows) or self._into_pulled_rows(rows):
                continue
            if hits(rows.source) or is_value and isinstance(rows.source, Value) and self.may_share(obj, rows.source):
                yield "the rows a loop or an iterator over it has not pulled yet (eager reads each row when it is pulled)"
                return


class _Attributes:
    """An object's attributes seen as a frame's names (``env[attr] = new``
    sets the attribute), for the rebinding of ``array_store``'s aliases."""

    def __init__(self, obj: Any):
        self.env = _AttributeEnv(obj)


class _TupleItems:
    """A local name bound to a tuple that holds an array (a function's
    ``*args``) seen as a frame's name: ``env[name] = new`` binds the name to
    the tuple made again with ``new`` in the array's places, for the
    rebinding of ``array_store``'s aliases (nothing else holds the tuple:
    ``_references`` finds the array through any other holder)."""

    def __init__(self, frame: Any, obj: Any):
        self.env = _TupleItemsEnv(frame.env, obj)


def _namedtuple_new(kind: type) -> Any:
    """The ``__new__`` ``collections.namedtuple`` made for ``kind`` (or a
    base of it): its fields, nothing else (a subclass's own ``__new__`` would
    be another constructor)."""
    for base in kind.__mro__:
        if "_make" in vars(base):
            return base.__new__ if "__new__" in vars(base) else None
    return None


class _ListItems:
    """A list this call made holding an array itself, seen as a frame's name:
    ``env[key] = new`` sets each of its places holding the array to ``new``,
    in place (the list keeps its identity, as eager's list holding the one
    array written in place), for the rebinding of ``array_store``'s aliases."""

    def __init__(self, items: list, obj: Any):
        self.env = _ListItemsEnv(items, obj)


class _ListItemsEnv:
    def __init__(self, items: list, obj: Any):
        self.items, self.obj = items, obj

    def __getitem__(self, key: Any) -> Any:
        return self.items

    def __setitem__(self, key: Any, new: Any) -> None:
        for k, x in enumerate(self.items):
            if x is self.obj:
                self.items[k] = new


class _TupleItemsEnv:
    def __init__(self, env: Any, obj: Any):
        self.names, self.obj = env, obj

    def __getitem__(self, name: str) -> Any:
        return self.names[name]

    def __setitem__(self, name: str, new: Any) -> None:
        self.names[name] = tuple(new if x is self.obj else x for x in self.names[name])


class _AttributeEnv:
    def __init__(self, obj: Any):
        self.obj = obj

    def __getitem__(self, attr: str) -> Any:
        return getattr(self.obj, attr)

    def __setitem__(self, attr: str, value: Any) -> None:
        object.__setattr__(self.obj, attr, value)


def _slot_names(cls: type) -> list[str]:
    """The ``__slots__`` attributes of ``cls`` and its bases (not ``__dict__``/``__weakref__``)."""
    names = []
    for c in cls.__mro__:
        slots = c.__dict__.get("__slots__", ())
        names += [n for n in ((slots,) if isinstance(slots, str) else slots) if n not in ("__dict__", "__weakref__")]
    return names


_STATEMENT_VALUES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _statement_value(unit: Any, call: Any) -> Any:
    """The statement of ``unit`` whose whole value is ``call`` (``x = call``,
    ``call`` alone, ``return call``), or None: nothing of that statement
    was evaluated before the call."""
    values = _STATEMENT_VALUES.get(unit.tree)
    if values is None:
        values = {id(n.value): n for n in gast.walk(unit.tree)
                  if isinstance(n, (gast.Assign, gast.Expr, gast.Return)) and n.value is not None}
        _STATEMENT_VALUES[unit.tree] = values
    return values.get(id(call))
