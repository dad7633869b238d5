"""64-bit exactness: which rules (JAX's with x64 off, NumPy's, Python's) each op follows.

Requires: ``ArrayType``/``Value`` (ir.core), the IR's helpers (``arrays``).
Produces: ``jax_semantics``: whether eager runs an op as a JAX op (32-bit
with JAX's x64 off, the default) or with NumPy's or Python's rules (64-bit
kept); ``numpy_dtypes``: the dtypes NumPy itself gives an op on operands of
given dtypes (probed on tiny arrays, cached); ``needs_x64`` (a graph holds a
64-bit value); ``int32_check`` and ``hoist_input_checks``: eager JAX's
OverflowError for a Python int beyond int32 given to a JAX op.
Invariants: nothing here narrows a value. A graph with a 64-bit value runs
under ``jax.enable_x64(True)``; its JAX ops run on operands narrowed to 32
bits with x64 off (``lowering``), so they compute what eager's JAX computes,
and its NumPy and Python ops at their own 64-bit precision.

Eager semantics, with JAX's x64 switch off:

* NumPy kind (an operand is an ndarray or NumPy scalar, the user called a
  ``np.*`` or SciPy function): NumPy's promotion (NEP 50: Python numbers are
  weak), int64/float64 kept; where JAX's promotion with x64 on differs from
  NumPy's (``int32 + float32`` is float64 in NumPy, float32 in JAX;
  ``np.sin`` of int32 is float64) the operands are first cast to NumPy's
  result dtype, as NumPy's loops do.
* Python kind (operators on Python numbers that became traced): ints exact
  in int64, floats float64 (weak, as JAX treats Python scalars).
* JAX kind (a jax.Array operand, a ``jnp.*``/``lax.*`` call): JAX's rules
  with x64 off: operands narrowed as ``jnp.asarray`` narrows them, results
  32-bit. NumPy defers to a jax.Array (``ndarray * jax_array`` is a jax.Array).
"""

from __future__ import annotations

import functools
import inspect
import operator
import warnings
from typing import Any

import jax
import numpy as np

from ..ir.core import Value, walk_ops
from ..graphlib import arrays
from .lattice import is_64bit


def _typed_helpers() -> frozenset:
    """The IR's own helpers whose result type is what the IR says (casts,
    selects, loop bookkeeping, run-time checks): they run at the graph's
    precision, never narrowed."""
    return frozenset({arrays.cast, arrays.select, arrays.truthy, arrays.logical_not, arrays.constant,
                      arrays.branch_index, arrays.not_and, arrays.trip_count, arrays.range_value, arrays.np_setitem})


_TYPED: list[frozenset] = []


def _is_typed_helper(fn: Any) -> bool:
    if not _TYPED:
        _TYPED.append(_typed_helpers())
    try:
        if fn in _TYPED[0]:
            return True
    except TypeError:   # an unhashable callable (an Equinox module)
        return False
    return bool(getattr(fn, "_a2g_effect", False) or getattr(fn, "_a2g_typed", False))


def _operator_like(fn: Any) -> bool:
    """Python's operators and the builtins that apply an operand's own operator
    method (``abs(x)`` is ``x.__abs__()``): the operands' kinds decide the rules."""
    module = getattr(fn, "__module__", "") or ""
    return module.startswith(("ast2graph.typeinfer", "ast2graph.graphlib")) or module in ("operator", "_operator") \
        or any(fn is f for f in (abs, pow, divmod))


def jax_kind(x: Any) -> bool:
    """A leaf whose eager value is (or, its kind depending on the path, may be) a jax.Array."""
    return isinstance(x, Value) and "jax" in x.type.kinds or isinstance(x, jax.Array)


def jax_semantics(fn: Any, leaves: list, numpy_fn: bool, host_fn: bool, user_x64: bool) -> bool:
    """Whether eager runs ``fn`` on ``leaves`` as a JAX op (with the user's
    x64 switch off: on 32-bit operands, to 32-bit results). False: NumPy's or
    Python's rules, at their own (64-bit) precision, or one of the IR's typed
    helpers. ``numpy_fn``: the user called a NumPy function whose result is
    a NumPy array; ``host_fn``: the user called a NumPy/SciPy function that
    the graph runs as its JAX counterpart."""
    if user_x64 or numpy_fn or host_fn or _is_typed_helper(fn):
        return False
    if not _operator_like(fn):
        return True   # jnp, lax, jax.nn, a transform, a function without source: JAX's rules
    if fn is arrays.getitem or is_at_update(fn):
        # x[i], x.at[i].set(v): x's dtype; an int64 index reads and writes what an int32 one does
        return False
    return any(jax_kind(x) for x in leaves)   # NumPy defers to a jax.Array operand


def is_at_update(fn: Any) -> bool:
    """``x.at[idx].set(v)`` (and ``.add``, ``.get``...): the result has ``x``'s dtype."""
    return getattr(fn, "__module__", None) == arrays.__name__ and getattr(fn, "__name__", "").startswith(".at[]")


def _index_arguments() -> dict:
    lax = jax.lax
    return {lax.dynamic_slice: (1,), lax.dynamic_update_slice: (2,), lax.dynamic_index_in_dim: (1,),
            lax.dynamic_slice_in_dim: (1,), lax.dynamic_update_index_in_dim: (2,),
            lax.dynamic_update_slice_in_dim: (2,)}


_INDEX_ARGUMENTS: list[dict] = []


def index_leaves(fn: Any, treedef: Any) -> set[int]:
    """The positions of the leaves of ``fn``'s arguments that are indices
    (``x[idx]``, ``x.at[idx]``, ``lax.dynamic_slice``'s start indices): a
    Python int there reads what eager reads (an index beyond int32 is out of
    bounds anyway), no int32 check."""
    if not _INDEX_ARGUMENTS:
        _INDEX_ARGUMENTS.append(_index_arguments())
    try:
        positions = (0, 1) if fn is arrays.getitem or is_at_update(fn) else _INDEX_ARGUMENTS[0].get(fn)
    except TypeError:   # an unhashable callable
        return set()
    if not positions:
        return set()
    try:
        args, _ = jax.tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))
    except Exception:  # noqa: BLE001
        return set()
    return set(jax.tree_util.tree_leaves([args[p] for p in positions if p < len(args)]))


# ------------------------------------------- Python ints in JAX operations
_INT32 = (-2**31, 2**31 - 1)


def python_int(x: Any) -> bool:
    """A traced Python int (int64 in the graph)."""
    return isinstance(x, Value) and x.type.python and x.type.dtype == np.dtype(np.int64)


def argument_path(fn: Any, treedef: Any, k: int) -> str | None:
    """The name JAX gives leaf ``k`` of ``fn``'s arguments in its overflow
    error (the parameter of the jitted ``jnp`` function), where known."""
    try:
        args, kwargs = jax.tree_util.tree_unflatten(treedef, list(range(treedef.num_leaves)))
    except Exception:  # noqa: BLE001
        return None
    if _operator_like(fn) and len(args) == 2:
        names = ("x1", "x2") if fn in (operator.truediv, operator.itruediv) else ("x", "y")
        return next((n for n, a in zip(names, args) if a == k), None)
    try:
        params = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    for name, a in zip(params, args):
        if a == k:
            return name
    return next((name for name, a in kwargs.items() if a == k), None)


def int32_check(value: Any, path: str | None) -> None:
    """At run time: the OverflowError eager JAX raises (x64 off) when a
    Python int beyond int32 meets a JAX operation."""
    from ..graphlib.bounded import raise_if   # the run-time check machinery

    raise_if((value < _INT32[0]) | (value > _INT32[1]), functools.partial(_raise_overflow, path), value)


int32_check._a2g_effect = True  # type: ignore[attr-defined]
# Not an ``_a2g_check``: a Python int beyond int32 meeting a JAX op (a counter
# past 2**31) is not worth giving up the graph of every segment that writes a
# counter back; the writes made before such an overflow are the known gap.


def _raise_overflow(path: str | None, mask: Any, value: Any) -> None:
    if np.any(np.asarray(mask)):
        raise overflow_error(int(np.asarray(value).reshape(-1)[0]), path)


def numpy_int_range(fn: Any, treedef: Any, leaves: list) -> tuple[int, np.dtype] | None:
    """``(k, dtype)`` where leaf ``k`` of NumPy's ``fn`` is a traced Python
    int that NumPy converts to the integer ``dtype`` of the array operands
    and refuses beyond its range (``uint8_array + k``: OverflowError "Python
    integer 300 out of bounds for uint8", whatever the data; a graph would
    wrap it): probed with a static int just beyond each end. None otherwise."""
    ks = [k for k, x in enumerate(leaves) if python_int(x)]
    arrays = [x.type.dtype for x in leaves if isinstance(x, Value) and not x.type.python
              and x.type.dtype.kind in "iu"]
    if len(ks) != 1 or not arrays or fn in _SKIP_PROBE or _is_typed_helper(fn):
        return None
    try:
        dtype = np.dtype(np.result_type(*arrays))
    except Exception:  # noqa: BLE001
        return None
    if dtype.kind not in "iu" or dtype == np.dtype(np.int64):
        return None   # a traced Python int is an int64: it fits
    info = np.iinfo(dtype)
    for beyond in (int(info.min) - 1, int(info.max) + 1):
        probe = list(leaves)
        probe[ks[0]] = beyond
        try:
            _probe(fn, treedef, probe, True)
        except OverflowError as e:
            if _static_int_overflow(e):
                return ks[0], dtype
        except Exception:  # noqa: BLE001 - the probe proves nothing
            continue
    return None


def numpy_int_check(value: Any, dtype_name: str) -> None:
    """At run time: the OverflowError NumPy raises when a Python int beyond
    an integer array's dtype meets it in a ufunc (``numpy_int_range``)."""
    from ..graphlib.bounded import raise_if   # the run-time check machinery

    info = np.iinfo(np.dtype(dtype_name))
    raise_if((value < int(info.min)) | (value > int(info.max)), functools.partial(_raise_numpy_overflow, dtype_name),
             value)


numpy_int_check._a2g_effect = True  # type: ignore[attr-defined]
numpy_int_check._a2g_check = True  # type: ignore[attr-defined]
numpy_int_check._a2g_raises = (OverflowError,)  # type: ignore[attr-defined]


def _raise_numpy_overflow(dtype_name: str, mask: Any, value: Any) -> None:
    if np.any(np.asarray(mask)):
        raise OverflowError(f"Python integer {int(np.asarray(value).reshape(-1)[0])} out of bounds for {dtype_name}")


def overflow_error(v: int, path: str | None) -> OverflowError:
    """The error eager JAX raises for the Python int ``v`` given to a JAX op (x64 off)."""
    if path is None:
        return OverflowError(f"Python int {v} too large to convert to int32")
    return OverflowError("An overflow was encountered while parsing an argument to a jitted computation, "
                         f"whose argument path is {path}. Got <class 'int'> with value {v}")


def hoist_input_checks(graph: Any) -> list[tuple[int, str | None]]:
    """The int32 checks of the graph's straight-line body on its own inputs (a
    busy Python int argument used by a JAX op) taken out of the graph:
    ``(parameter index, argument path)`` each, for the caller to check before
    the call (a run-time check inside the graph is a host callback, which
    makes every call wait for the device)."""
    where = {id(p): k for k, p in enumerate(graph.params)}
    hoisted: dict[int, str | None] = {}
    kept = []
    for op in graph.body.ops:
        if getattr(op, "fn", None) is int32_check and id(op.leaves[0]) in where:
            (_, path), _ = jax.tree_util.tree_unflatten(op.treedef, op.leaves)   # a path of None is no leaf
            hoisted.setdefault(where[id(op.leaves[0])], path)
        else:
            kept.append(op)
    graph.body.ops[:] = kept
    return list(hoisted.items())


def check_int_inputs(checks: list, inputs: list) -> None:
    """``hoist_input_checks``' checks, on the graph's inputs of this call."""
    for k, path in checks:
        v = int(inputs[k])
        if not _INT32[0] <= v <= _INT32[1]:
            raise overflow_error(v, path)


# ------------------------------------------------------------- NumPy's dtypes
_SKIP_PROBE = {arrays.getitem, arrays.attribute}   # the result keeps the operand's dtype
_COMPARING = {operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge}
_PROBE_CACHE: dict[tuple, Any] = {}
_PROBE_CACHE_SIZE = 4096
_FAILED = object()


def _dummy(v: Value, shrink: bool) -> Any:
    t = v.type
    if t.python:
        return t.dtype.type(1).item()
    shape = tuple(min(d, 2) for d in t.shape) if shrink else t.shape
    if not shape and t.numpy:
        return np.ones((), t.dtype)[()]   # a NumPy scalar
    return np.ones(shape, t.dtype)


def _probe_key(fn: Any, treedef: Any, leaves: list) -> tuple | None:
    parts = []
    for x in leaves:
        if isinstance(x, Value):
            t = x.type
            parts.append((Value, t.shape, t.dtype, t.python, t.numpy))
        elif type(x) is np.ndarray:   # a static array: its dtype decides, not its values
            parts.append((np.ndarray, x.shape, x.dtype))
        elif type(x) in (float, complex):
            parts.append((type(x), repr(x)))
        else:
            parts.append((type(x), x))
    key = (fn, treedef, tuple(parts))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _result_dtypes(out: Any) -> list | None:
    dtypes = []
    for leaf in jax.tree_util.tree_leaves(out):
        if isinstance(leaf, (np.ndarray, np.generic)):
            dtypes.append(np.dtype(leaf.dtype))
        elif type(leaf) in (bool, int, float, complex):
            dtypes.append(np.dtype(np.result_type(leaf)) if type(leaf) is not int else np.dtype(np.int64))
        else:
            return None
    return dtypes


def _probe(fn: Any, treedef: Any, leaves: list, shrink: bool) -> list | None:
    def stand_in(x: Any) -> Any:
        if isinstance(x, Value):
            return _dummy(x, shrink)
        if shrink and type(x) is np.ndarray and x.dtype.kind in "biufc":
            return np.ones(tuple(min(d, 2) for d in x.shape), x.dtype)   # its dtype decides, not its values
        return x

    filled = [stand_in(x) for x in leaves]
    args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _result_dtypes(fn(*args, **kwargs))


def numpy_dtypes(fn: Any, treedef: Any, leaves: list) -> list | None:
    """The dtypes of the arrays NumPy's ``fn`` returns on operands of the
    leaves' dtypes (ones of each Value's dtype, shapes shrunk to at most 2
    per axis, then the real shapes if that failed and they are small), or
    None when the probe cannot tell (it raised, or returned objects)."""
    if fn in _SKIP_PROBE or _is_typed_helper(fn):
        return None
    key = _probe_key(fn, treedef, leaves)
    hit = _PROBE_CACHE.get(key, None) if key is not None else None
    if hit is not None:
        return None if hit is _FAILED else hit
    out = None
    for shrink in (True, False):
        if not shrink and sum(int(np.prod(x.type.shape)) if isinstance(x, Value) else x.size
                              for x in leaves if isinstance(x, (Value, np.ndarray))) > 1 << 16:
            break
        try:
            out = _probe(fn, treedef, leaves, shrink)
            break
        except OverflowError as e:
            if _static_int_overflow(e):
                raise   # a Python int beyond the dtype's range (NEP 50): eager raises whatever the data
            continue
        except Exception:  # noqa: BLE001 - the probe proves nothing: JAX's type stands
            continue
    if key is not None:
        if len(_PROBE_CACHE) >= _PROBE_CACHE_SIZE:
            _PROBE_CACHE.clear()
        _PROBE_CACHE[key] = _FAILED if out is None else out
    return out


def _static_int_overflow(e: OverflowError) -> bool:
    """NumPy's refusal of a Python int operand beyond an integer array's dtype
    (``uint8_array * 300``: "Python integer 300 out of bounds for uint8"),
    which depends on the static operand and the dtypes only."""
    return str(e).startswith("Python integer ") and " out of bounds for " in str(e)


def comparison_dtype(fn: Any, leaves: list) -> np.dtype | None:
    """For a comparison of NumPy operands: the dtype NumPy compares in, where
    JAX (x64 on) would compare in another (``int64 < float32``: NumPy in
    float64, JAX in float32); None where they agree."""
    if not any(fn is c for c in _COMPARING) and getattr(fn, "__name__", None) not in (
            "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        return None
    values = [x for x in leaves if isinstance(x, Value)]
    if len(leaves) != 2 or not values:
        return None
    reps_np, reps_jax = [], []
    for x in leaves:
        if isinstance(x, Value):
            reps_np.append(x.type.dtype.type(0).item() if x.type.python else x.type.dtype)
            reps_jax.append(jax.ShapeDtypeStruct((), x.type.dtype, weak_type=x.type.weak_type))
        elif type(x) in (bool, int, float, complex) or isinstance(x, (np.generic, np.ndarray)):
            reps_np.append(x)
            reps_jax.append(x)
        else:
            return None
    wide = _exact_int_comparison(leaves)
    if wide is not None:
        return wide
    try:
        numpy_common = np.dtype(np.result_type(*reps_np))
        with jax.enable_x64(True):
            jax_common = np.dtype(jax.numpy.result_type(*reps_jax))
    except Exception:  # noqa: BLE001
        return None
    return None if numpy_common == jax_common else numpy_common


def inexact_uint64_comparison(fn: Any, leaves: list) -> bool:
    """A comparison of a uint64 array with a traced Python int: NumPy compares
    them exactly, but no dtype the graph has holds both (int64 lacks the top
    half of uint64, float64 rounds near 2**64, a cast of -1 to uint64 is its
    maximum), so the site cannot be exact graph."""
    if not any(fn is c for c in _COMPARING) and getattr(fn, "__name__", None) not in (
            "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
        return False
    values = [x for x in leaves if isinstance(x, Value)]
    return len(leaves) == 2 and any(not x.type.python and x.type.dtype == np.dtype(np.uint64) for x in values) \
        and any(x.type.python and x.type.dtype.kind in "iu" for x in values)


def _exact_int_comparison(leaves: list) -> np.dtype | None:
    """int64 where NumPy compares an integer array with a Python int its dtype
    cannot hold (``uint8_array == -1``: False everywhere; NumPy compares
    exactly, a cast of -1 to uint8 would make it 255), or with a traced Python
    int (any value may come): int64 holds both exactly; float64 for a uint64
    array and a negative int (the signs tell them apart). None otherwise."""
    arrays = [x for x in leaves if isinstance(x, Value) and not x.type.python and x.type.dtype.kind in "iu"]
    ints = [x for x in leaves if type(x) is int
            or isinstance(x, Value) and x.type.python and x.type.dtype.kind in "iu"]
    if len(arrays) != 1 or len(ints) != 1:
        return None
    n, info = ints[0], np.iinfo(arrays[0].type.dtype)
    if arrays[0].type.dtype == np.dtype(np.uint64) and type(n) is int and n < 0:
        return np.dtype(np.float64)   # exact here: every uint64 is >= 0.0, the int <= -1.0
    if arrays[0].type.dtype.itemsize >= 8:
        return None
    if isinstance(n, Value) or not info.min <= n <= info.max and -2 ** 63 <= n < 2 ** 63:
        return np.dtype(np.int64)
    return None


def needs_x64(graph: Any) -> bool:
    """Whether a graph holds a 64-bit value (then it runs under ``jax.enable_x64``)."""
    for p in graph.params:
        if is_64bit(p.type.dtype):
            return True
    for op in walk_ops(graph.body):
        for v in op.results:
            if is_64bit(v.type.dtype):
                return True
        regions = getattr(op, "regions", None)
        for region in regions() if regions is not None else ():
            if any(is_64bit(a.type.dtype) for a in region.args):
                return True
    return False
