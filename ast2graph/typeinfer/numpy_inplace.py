"""NumPy's functions that write into an array argument, as functional updates.

Requires: nothing of the interpreter (the caller, ``calls.CallMixin``, writes
the new value into the array as ``x[...] = new``: ``array_store``, with its
alias checks and the write-back into a caller's array).
Produces: ``rule_for(callee, args, kwargs)``: ``(position, update)`` for a
call that writes into its argument ``args[position]`` (``np.copyto(dst,
src)``, ``np.fill_diagonal(a, v)``, ``np.put``, ``np.putmask``, ``np.place``,
``np.put_along_axis``, ``np.add.at``, ``a.fill(v)``, ``a.sort()``): ``update``
takes the call's arguments and returns the array's new value, computed with
JAX ops; ``WRITES``: why a call of one of these cannot be a functional
update (then it falls back).
Invariants: a rule computes what NumPy writes, the array's dtype and shape
unchanged; what NumPy decides from the data in a way a graph cannot (the
order of duplicate indices: the last write wins in NumPy, any in XLA;
out-of-bounds indices: NumPy raises) is a fallback, not a rule.
"""

from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..graphlib.casts import cast


def _as(x: Any, dtype: Any) -> Any:
    """``jnp.asarray(x).astype(dtype)``, NumPy's cast (float64 to float16 rounded once: ``casts.cast``)."""
    return cast(jnp.asarray(x), dtype)


def copyto(dst: Any, src: Any, casting: str = "same_kind", where: Any = True) -> Any:
    """``np.copyto``: ``src`` broadcast into ``dst`` where ``where`` holds (the casting checked by the caller)."""
    new = jnp.broadcast_to(_as(src, dst.dtype), dst.shape)
    return new if where is True else jnp.where(where, new, dst)


def fill_diagonal(a: Any, val: Any, wrap: bool = False) -> Any:
    """``np.fill_diagonal``: NumPy's strided write of ``val`` (cycled) along the diagonal."""
    a = jnp.asarray(a)
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
        end = None
    flat = a.ravel()
    positions = np.arange(flat.shape[0])[:end][::step]
    values = jnp.resize(_as(jnp.ravel(jnp.asarray(val)), a.dtype), positions.shape)
    return flat.at[positions].set(values).reshape(a.shape)


def putmask(a: Any, mask: Any, values: Any) -> Any:
    """``np.putmask``: ``a.flat[n] = values[n % len(values)]`` where ``mask`` holds."""
    a = jnp.asarray(a)
    repeated = jnp.resize(_as(jnp.ravel(jnp.asarray(values)), a.dtype), a.shape)
    return jnp.where(mask, repeated, a)


def place(arr: Any, mask: Any, vals: Any) -> Any:
    """``np.place``: the values of ``vals`` (cycled) in order into the positions where ``mask`` holds."""
    arr = jnp.asarray(arr)
    flat_mask = jnp.ravel(jnp.broadcast_to(mask, arr.shape))
    vals = _as(jnp.ravel(jnp.asarray(vals)), arr.dtype)
    order = jnp.cumsum(flat_mask) - 1
    picked = vals[jnp.mod(order, vals.shape[0])]
    return jnp.where(flat_mask, picked, arr.ravel()).reshape(arr.shape)


def _last_writes(a: Any, last: np.ndarray, values: Any) -> Any:
    """``a`` with each element whose ``last`` (flat, from NumPy's own write of
    the update numbers) is not -1 replaced by ``values[last]``: a gather, where
    a scatter would leave the order of repeated indices to XLA (any may win
    off the CPU; in NumPy the last one does)."""
    flat = jnp.ravel(a)
    if not np.any(last >= 0):
        return a
    picked = values[jnp.asarray(np.maximum(last, 0))]
    return jnp.where(jnp.asarray(last >= 0), picked, flat).reshape(a.shape)


def put(a: Any, ind: Any, v: Any, mode: str = "raise") -> Any:
    """``np.put`` with indices known at trace time (wrapped, clipped, negative,
    repeated: the last write wins, as NumPy's own ``np.put`` of the update
    numbers says; out of bounds it raises, as eager's)."""
    a = jnp.asarray(a)
    ind = np.ravel(np.asarray(ind))
    last = np.full(a.size, -1, np.intp)
    np.put(last, ind, np.arange(ind.size), mode=mode)
    values = jnp.resize(_as(jnp.ravel(jnp.asarray(v)), a.dtype), ind.shape) if ind.size else None
    return _last_writes(a, last, values)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: Any) -> Any:
    """``np.put_along_axis``. Indices known at trace time: the last write of
    each element (NumPy's own ``put_along_axis`` of the update numbers, which
    also raises out of bounds); traced indices (``rule_for``: one value for
    every position, so the order of repeated ones cannot matter; the bounds
    checked at run time by the caller): JAX's scatter."""
    arr = jnp.asarray(arr)
    if isinstance(indices, jax.core.Tracer):
        return jnp.put_along_axis(arr, indices, _as(values, arr.dtype), axis, inplace=False)
    indices = np.asarray(indices)
    last = np.full(arr.shape, -1, np.intp)
    shape = np.take_along_axis(last, indices, axis).shape   # (the updates' shape: NumPy's fancy index)
    np.put_along_axis(last, indices, np.arange(int(np.prod(shape))).reshape(shape), axis)
    values = jnp.ravel(jnp.broadcast_to(_as(values, arr.dtype), shape))
    return _last_writes(arr, last.ravel(), values)


def index_check(callee: Any, args: tuple, kwargs: dict, shape: tuple) -> tuple | None:
    """``(shape, axes, indices)`` of the run-time bounds check
    (``arrays.numpy_index_check``) of ``np.put_along_axis`` with traced
    indices into an array of ``shape``; None for any other call."""
    from ..ir.core import Value

    if callee is not np.put_along_axis:
        return None
    indices = args[1] if len(args) > 1 else kwargs.get("indices")
    axis = args[3] if len(args) > 3 else kwargs.get("axis")
    if not isinstance(indices, Value):
        return None
    if axis is None:
        return (int(np.prod(shape)),), (0,), indices
    return tuple(shape), (axis % len(shape),), indices


def ufunc_at(ufunc: np.ufunc) -> Callable:
    """``ufunc.at(a, indices, b)``: unbuffered, every index applied (repeated ones too): JAX's ``ufunc.at``."""
    jax_ufunc = getattr(jnp, ufunc.__name__)

    def at(a: Any, indices: Any, b: Any = None) -> Any:
        a = jnp.asarray(a)
        if isinstance(indices, list):   # NumPy takes a list as an array of indices
            indices = jnp.asarray(indices)
        if b is None:
            return jax_ufunc.at(a, indices, inplace=False).astype(a.dtype)
        return jax_ufunc.at(a, indices, b, inplace=False).astype(a.dtype)

    at.__name__ = at.__qualname__ = f"{ufunc.__name__}.at"
    return at


def not_numpys(what: str) -> NotImplementedError:
    """The error a graph op with NumPy's semantics raises for arguments it
    does not model (``order=``, ``out=``): the call falls back (A2G003), as
    for a JAX op that rejects its arguments; not an internal error."""
    error = NotImplementedError(what)
    error._a2g_eager = True  # type: ignore[attr-defined]
    return error


def fill(a: Any, value: Any) -> Any:
    """``ndarray.fill``: every element ``value``, cast as NumPy casts it (unsafe)."""
    return jnp.full(jnp.shape(a), _as(value, a.dtype), a.dtype)


def sort(a: Any, axis: int = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
    """``ndarray.sort``: the sorted values (they do not depend on the algorithm)."""
    if order is not None:
        raise not_numpys("ndarray.sort with order= (structured arrays)")
    return jnp.sort(a, axis=axis)


# NumPy functions that write into an argument: (its position, its keyword, the rule)
_FUNCTIONS: dict = {}


def _functions() -> dict:
    return {id(np.copyto): (0, "dst", copyto), id(np.fill_diagonal): (0, "a", fill_diagonal),
            id(np.putmask): (0, "a", putmask), id(np.place): (0, "arr", place), id(np.put): (0, "a", put),
            id(np.put_along_axis): (0, "arr", put_along_axis)}


METHODS = {"fill": fill, "sort": sort}   # and "partition", NumPy's own on the host: added by numpy_api
# Arguments that must be known at trace time (indices: NumPy writes repeated ones in order, raises out of bounds)
_STATIC = {id(np.put): ("ind", 1), id(np.put_along_axis): ("indices", 1)}


def writes_argument(callee: Any) -> bool:
    """Whether ``callee`` is one of NumPy's functions that write into an argument (a rule here or not)."""
    if not _FUNCTIONS:
        _FUNCTIONS.update(_functions())
    return id(callee) in _FUNCTIONS or is_ufunc_at(callee)


def is_ufunc_at(callee: Any) -> bool:
    return isinstance(getattr(callee, "__self__", None), np.ufunc) and getattr(callee, "__name__", "") == "at"


def rule_for(callee: Any, args: tuple, kwargs: dict) -> tuple[Any, Callable, str] | None:
    """``(target, update, why)`` for a call of a NumPy function that writes
    into its argument ``target``: ``update(*args, **kwargs)`` is the new
    value; ``why`` is not empty where the call cannot be a functional
    update (then ``update`` is None). None: ``callee`` writes into no argument."""
    if not writes_argument(callee):
        return None
    if is_ufunc_at(callee):
        if not args:
            return None, None, "ufunc.at without its array"
        ufunc = callee.__self__
        if not hasattr(jnp, ufunc.__name__) or ufunc.nin + ufunc.nout > 3:
            return args[0], None, f"JAX has no {ufunc.__name__}.at"
        return args[0], ufunc_at(ufunc), ""
    position, keyword, update = _FUNCTIONS[id(callee)]
    target = args[position] if len(args) > position else kwargs.get(keyword)
    static = _STATIC.get(id(callee))
    if static is not None:
        name, at = static
        indices = args[at] if len(args) > at else kwargs.get(name)
        why = _static_indices_problem(indices)
        if why and callee is np.put_along_axis and _one_value(args[2] if len(args) > 2 else kwargs.get("values")) \
                and _integer_value(indices):
            why = ""   # traced indices, one value: repeated ones write the same (bounds: ``index_check``)
        if why:
            return target, None, why
    return target, update, ""


def _one_value(values: Any) -> bool:
    """A value of one element (``np.put_along_axis(a, i, 0.0, axis=1)``): every position gets it."""
    from ..ir.core import Value

    if isinstance(values, Value):
        return not values.type.mixed and int(np.prod(values.type.shape)) == 1
    return isinstance(values, (int, float, bool, np.number, np.bool_)) or \
        isinstance(values, np.ndarray) and values.size == 1


def _integer_value(indices: Any) -> bool:
    from ..ir.core import Value

    return isinstance(indices, Value) and not indices.type.mixed and indices.type.dtype.kind in "iu"


def _static_indices_problem(indices: Any) -> str:
    from ..ir.core import Value
    from ..graphlib.trees import tree_leaves

    if any(isinstance(x, Value) for x in tree_leaves(indices)):
        return "its indices are traced (NumPy writes repeated indices in order and raises out of bounds)"
    try:
        flat = np.asarray(indices)
    except Exception:  # noqa: BLE001 - not indices NumPy takes: eager's error
        return "its indices are not an array"
    if flat.dtype.kind not in "iu":
        return "its indices are not integers"
    return ""
