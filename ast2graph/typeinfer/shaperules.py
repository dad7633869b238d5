"""Result types of common non-elementwise ops without tracing them.

Requires: ``ArrayType``/``Value`` (ir.core); ``arrays`` (the IR's own
helper functions: indexing, casts, selects, method calls).
Produces: ``RULES`` (function -> rule) and ``rule_type(fn, treedef,
leaves)``: the (output pytree, [Value]) of ``fn`` on Values and static
arguments, as ``Specializer._abstract_eval`` returns it, or None where the
general evaluation (tracing, ``tracing.output_types``) must decide.
Invariants: a rule gives exactly the type ``jax.eval_shape`` gives, or
declines; it never raises. Each rule declines every case it was not checked
for (weak types, integer inputs, errors): tests/unit/test_shape_rules.py
runs every rule on every operand kind it accepts and compares with
``jax.eval_shape``, and checks that it declines where JAX raises.

Which ops: the ones that reached tracing most often in the benchmark
programs after the elementwise rules (static indexing, ``jnp.asarray`` of a
number, ``@``, the IR's casts and selects, array creation, unary float
functions, reductions, ``astype``/``reshape``/``swapaxes``/``.T``). Each
traced op costs ~65 us; a rule ~5 us.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable

import jax
import numpy as np

from ..ir.core import ArrayType, Value, is_extended
from ..graphlib import arrays
from .elementwise import is_real_float

_SCALAR_TREE = jax.tree_util.tree_structure(0)


def _is_int(x: Any) -> bool:
    return type(x) is int or isinstance(x, np.integer)


def _plain(t: ArrayType, shape: tuple | None = None, dtype: Any = None, weak: bool | None = None) -> ArrayType:
    return ArrayType(tuple(t.shape if shape is None else shape), np.dtype(t.dtype if dtype is None else dtype),
                     t.weak_type if weak is None else weak)


def _strong_float(x: Any) -> bool:
    return type(x) is Value and is_real_float(x.type.dtype) and not x.type.weak_type


def _dtype_arg(d: Any) -> np.dtype | None:
    """A static dtype argument as JAX canonicalises it; None if not one."""
    if d is None or isinstance(d, Value):
        return None
    try:
        dtype = np.dtype(d)
    except TypeError:
        return None
    if dtype.kind not in "biuf" and dtype != jax.numpy.bfloat16:
        return None
    return np.dtype(jax.dtypes.canonicalize_dtype(dtype))


def _shape_arg(shape: Any) -> tuple | None:
    if _is_int(shape):
        shape = (shape,)
    if type(shape) not in (tuple, list) or not all(_is_int(d) and d >= 0 for d in shape):
        return None
    return tuple(int(d) for d in shape)


# ------------------------------------------------------------------ indexing
def _traced_int_scalar(p: Any) -> bool:
    return type(p) is Value and p.type.dtype.kind in "iu" and p.type.shape == ()


def _index_parts(idx: Any) -> tuple | None:
    """A basic index (ints, slices of ints, None, ``...``, traced integer
    scalars) as a tuple with each traced scalar standing as 0 (the result's
    shape does not depend on its value); None for anything else."""
    idx = arrays._unspec(idx)
    parts = idx if type(idx) is tuple else (idx,)
    out = []
    for p in parts:
        if p is None or p is Ellipsis or type(p) is int:
            out.append(p)
        elif _traced_int_scalar(p):
            out.append(0)
        elif type(p) is slice and all(v is None or type(v) is int for v in (p.start, p.stop, p.step)) and p.step != 0:
            out.append(p)
        else:
            return None
    return tuple(out)


def _indexed_shape(shape: tuple, idx: Any) -> tuple | None:
    """The shape of ``x[idx]`` for ``x`` of ``shape``, or None. A lone traced
    integer array ``i`` gives ``i.shape + shape[1:]``."""
    if type(idx) is Value and idx.type.shape:
        if idx.type.dtype.kind not in "iu" or not shape or shape[0] == 0:
            return None
        return tuple(idx.type.shape) + tuple(shape[1:])
    parts = _index_parts(idx)
    if parts is None or not shape:
        return None
    view = np.broadcast_to(np.empty((), np.bool_), shape)   # no memory: every stride is 0
    try:
        return view[parts].shape
    except IndexError:
        return None


def _getitem(x: Any, idx: Any) -> list | None:
    if type(x) is not Value:
        return None
    shape = _indexed_shape(x.type.shape, idx)
    return None if shape is None else [_plain(x.type, shape)]


def _at_update(x: Any, idx: Any, value: Any) -> list | None:
    """``x.at[idx].set(value)`` / ``.add(value)``: ``x``'s type, when ``value``
    fits ``x[idx]`` (a small number, or an array broadcasting to it)."""
    if type(x) is not Value or x.type.weak_type or x.type.dtype.kind not in "iuf" and not is_real_float(x.type.dtype):
        return None
    shape = _indexed_shape(x.type.shape, idx)
    if shape is None:
        return None
    if type(value) is Value:
        if value.type.dtype != x.type.dtype:
            return None
        try:
            if np.broadcast_shapes(value.type.shape, shape) != tuple(shape):
                return None
        except ValueError:
            return None
    elif not (type(value) is int and 0 <= value < 128 or type(value) is float and is_real_float(x.type.dtype)):
        return None
    return [_plain(x.type)]


# ------------------------------------------------------------ casts, select
def _cast(x: Any, dtype: Any, weak: Any = False) -> list | None:
    target = _dtype_arg(dtype)
    if type(x) is not Value or target is None or target != np.dtype(dtype) or type(weak) is not bool:
        return None
    return [_plain(x.type, dtype=target, weak=weak)]


def _select(pred: Any, a: Any, b: Any) -> list | None:
    if not all(type(v) is Value for v in (pred, a, b)):
        return None
    if pred.type.dtype != np.dtype(bool) or pred.type.shape not in ((), a.type.shape):
        return None
    if (a.type.shape, a.type.dtype, a.type.weak_type) != (b.type.shape, b.type.dtype, b.type.weak_type):
        return None
    return [_plain(a.type)]


def _truthy(x: Any) -> list | None:
    if type(x) is not Value or int(np.prod(x.type.shape, dtype=np.int64)) != 1:
        return None
    return [ArrayType((), np.dtype(bool))]


def _asarray(x: Any) -> list | None:
    if type(x) is Value:
        return [_plain(x.type)]
    x64 = bool(jax.config.jax_enable_x64)
    bits = 63 if x64 else 31
    if type(x) in (bool, float) or type(x) is int and -2**bits <= x < 2**bits:
        return [_number_type(type(x), x64)]   # the type of a Python number does not depend on its value
    return None   # an int beyond the default int: JAX raises OverflowError (the general evaluation)


@functools.lru_cache(maxsize=None)
def _number_type(kind: type, x64: bool) -> ArrayType:
    return ArrayType.of(jax.eval_shape(lambda: jax.numpy.asarray(kind(1))))


# --------------------------------------------------------------- creation
def _zeros(shape: Any, dtype: Any = None) -> list | None:
    shape = _shape_arg(shape)
    target = _dtype_arg(float if dtype is None else dtype)
    return None if shape is None or target is None else [ArrayType(shape, target)]


def _full(shape: Any, fill_value: Any, dtype: Any = None) -> list | None:
    if dtype is None or type(fill_value) not in (bool, int, float):
        return None   # the fill value decides the dtype: the general evaluation
    return _zeros(shape, dtype)


def _zeros_like(x: Any, dtype: Any = None) -> list | None:
    if type(x) is not Value:
        return None
    if dtype is None:
        return [_plain(x.type)] if not x.type.weak_type else None
    target = _dtype_arg(dtype)
    return None if target is None else [ArrayType(x.type.shape, target)]


def _full_like(x: Any, fill_value: Any, dtype: Any = None) -> list | None:
    if type(fill_value) not in (bool, int, float):
        return None
    return _zeros_like(x, dtype)


# ------------------------------------------------------ unary float functions
def _same_float(x: Any) -> list | None:
    return [_plain(x.type)] if _strong_float(x) else None


# --------------------------------------------------------------- matmul
def _matmul(a: Any, b: Any) -> list | None:
    if not (_strong_float(a) and _strong_float(b)) or a.type.dtype != b.type.dtype:
        return None
    sa, sb = a.type.shape, b.type.shape
    if not sa or not sb:
        return None
    a2 = (1,) + sa if len(sa) == 1 else sa
    b2 = sb + (1,) if len(sb) == 1 else sb
    if a2[-1] != b2[-2]:
        return None
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        return None
    shape = tuple(batch) + ((a2[-2],) if len(sa) > 1 else ()) + ((b2[-1],) if len(sb) > 1 else ())
    return [_plain(a.type, shape)]


# ------------------------------------------------------------- reductions
def _axes(ndim: int, axis: Any) -> tuple | None:
    if axis is None:
        return tuple(range(ndim))
    items = axis if type(axis) is tuple else (axis,)
    if not all(type(a) is int and -ndim <= a < ndim for a in items):
        return None
    out = tuple(a % ndim for a in items)
    return out if len(set(out)) == len(out) else None


def _reduced(x: Any, axis: Any, keepdims: Any, empty_ok: bool) -> tuple | None:
    if type(keepdims) is not bool:
        return None
    shape = x.type.shape
    axes = _axes(len(shape), axis)
    if axes is None or not empty_ok and any(shape[a] == 0 for a in axes):
        return None
    if keepdims:
        return tuple(1 if k in axes else d for k, d in enumerate(shape))
    return tuple(d for k, d in enumerate(shape) if k not in axes)


def _reduction(empty_ok: bool) -> Callable:
    def rule(x: Any, axis: Any = None, *, keepdims: Any = False) -> list | None:
        if not _strong_float(x):
            return None
        shape = _reduced(x, axis, keepdims, empty_ok)
        return None if shape is None else [_plain(x.type, shape)]
    return rule


def _bool_reduction(x: Any, axis: Any = None, *, keepdims: Any = False) -> list | None:
    """``any``/``all``: a bool of the reduced shape, for any input dtype."""
    if type(x) is not Value:
        return None
    shape = _reduced(x, axis, keepdims, True)
    return None if shape is None else [ArrayType(shape, np.dtype(bool))]


def _abs(x: Any) -> list | None:
    """``abs`` of a float keeps its type; of a complex, the real dtype of its precision."""
    if type(x) is Value and x.type.dtype.kind == "c" and not x.type.weak_type:
        return [_plain(x.type, dtype=np.dtype(np.float32 if x.type.dtype == np.complex64 else np.float64))]
    return _same_float(x)


def _arg_reduction(x: Any, axis: Any = None, *, keepdims: Any = False) -> list | None:
    if not _strong_float(x) or axis is not None and type(axis) is not int:
        return None
    shape = _reduced(x, axis, keepdims, False)
    if shape is None:
        return None
    return [ArrayType(shape, np.dtype(jax.dtypes.canonicalize_dtype(np.int64)))]


# ---------------------------------------------------------- shape methods
def _astype(x: Any, dtype: Any) -> list | None:
    target = _dtype_arg(dtype)
    if type(x) is not Value or target is None:
        return None
    return [_plain(x.type, dtype=target, weak=False)]


def _reshape(x: Any, *shape: Any) -> list | None:
    if type(x) is not Value:
        return None
    if len(shape) == 1 and type(shape[0]) in (tuple, list):
        shape = tuple(shape[0])
    if not all(type(d) is int and d >= -1 for d in shape) or list(shape).count(-1) > 1:
        return None
    size = int(np.prod(x.type.shape, dtype=np.int64))
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if -1 in shape:
        if known == 0 or size % known:
            return None
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        return None
    return [_plain(x.type, shape)]


def _swapaxes(x: Any, a: Any, b: Any) -> list | None:
    if type(x) is not Value or type(a) is not int or type(b) is not int:
        return None
    n = len(x.type.shape)
    if not (-n <= a < n and -n <= b < n):
        return None
    shape = list(x.type.shape)
    shape[a], shape[b] = shape[b], shape[a]
    return [_plain(x.type, tuple(shape))]


def _transpose_attr(x: Any, name: Any) -> list | None:
    if type(x) is not Value:
        return None
    if name == "T":
        return [_plain(x.type, x.type.shape[::-1])]
    if name == "mT" and len(x.type.shape) >= 2:
        return [_plain(x.type, x.type.shape[:-2] + x.type.shape[:-3:-1])]
    return None


def _rules() -> dict[Callable, Callable]:
    jnp = jax.numpy
    rules: dict[Callable, Callable] = {
        arrays.getitem: _getitem,
        arrays.cast: _cast, arrays.select: _select, arrays.truthy: _truthy, arrays.logical_not: _truthy,
        arrays.at_updater("set"): _at_update, arrays.at_updater("add"): _at_update,
        arrays.constant: _asarray, jnp.asarray: _asarray, jnp.array: _asarray,
        jnp.zeros: _zeros, jnp.ones: _zeros, jnp.empty: _zeros, jnp.full: _full,
        jnp.zeros_like: _zeros_like, jnp.ones_like: _zeros_like, jnp.full_like: _full_like,
        operator.matmul: _matmul, jnp.matmul: _matmul,
        jnp.sum: _reduction(True), jnp.mean: _reduction(False), jnp.max: _reduction(False),
        jnp.min: _reduction(False), jnp.argmax: _arg_reduction, jnp.argmin: _arg_reduction,
        arrays.method_caller("sum"): _reduction(True), arrays.method_caller("mean"): _reduction(False),
        arrays.method_caller("max"): _reduction(False), arrays.method_caller("min"): _reduction(False),
        arrays.method_caller("argmax"): _arg_reduction, arrays.method_caller("argmin"): _arg_reduction,
        arrays.method_caller("astype"): _astype, arrays.method_caller("reshape"): _reshape,
        arrays.method_caller("swapaxes"): _swapaxes, jnp.swapaxes: _swapaxes,
        arrays.attribute: _transpose_attr,
        operator.neg: _same_float, abs: _abs, operator.abs: _abs, jnp.abs: _abs, jnp.absolute: _abs,
        jnp.any: _bool_reduction, jnp.all: _bool_reduction,
        arrays.method_caller("any"): _bool_reduction, arrays.method_caller("all"): _bool_reduction,
    }
    for name in ("tanh", "sin", "cos", "tan", "exp", "log", "log1p", "expm1", "sqrt", "negative",
                 "sinh", "cosh", "arctan", "arcsin", "arccos", "arcsinh", "arctanh", "exp2", "log2",
                 "square", "floor", "ceil", "round", "sign", "reciprocal", "cbrt", "fabs"):
        rules[getattr(jnp, name)] = _same_float
    for name in ("relu", "sigmoid", "softplus", "silu", "tanh", "log_sigmoid"):
        rules[getattr(jax.nn, name)] = _same_float
    return rules


RULES = _rules()


def rule_type(fn: Callable, treedef: Any, leaves: list) -> tuple | None:
    """The result of ``fn`` by its rule, or None (no rule, or it declines)."""
    try:
        rule = RULES.get(fn)
    except TypeError:   # an unhashable callable
        return None
    if rule is None:
        return None
    if any(type(x) is Value and is_extended(x.type.dtype) for x in leaves):
        return None   # a PRNG key array (no NumPy dtype): JAX's abstract evaluation types it
    args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
    try:
        out = rule(*args, **kwargs)
    except TypeError:   # another signature (extra arguments): the general evaluation
        return None
    if out is None:
        return None
    return _SCALAR_TREE, [Value(t) for t in out]
