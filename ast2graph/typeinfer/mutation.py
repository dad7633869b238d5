"""In-place writes into NumPy arrays, with alias analysis.

Requires: the interpreter's frames (``frame``, ``callers``), ``emit_call``,
``assign_name``, and the SSA's ``update`` events (a subscript store on a local
``x`` is a new version of ``x``, so loops carry it and branches join it).
Produces: ``MutationMixin``: ``numpy_kind`` (whether an op's eager result is a
NumPy ndarray: only those can be written in place; a jax.Array raises
TypeError in eager), view tracking, and ``array_store`` which lowers
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
import types
from typing import Any

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import Value
from . import arrays
from .trees import tree_flatten

# NumPy functions and methods whose result may share memory with an argument.
VIEW_NAMES = frozenset({
    "reshape", "ravel", "transpose", "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims",
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to", "broadcast_arrays", "diagonal", "asarray",
    "asanyarray", "ascontiguousarray", "real", "imag", "split", "array_split", "hsplit", "vsplit", "dsplit",
    "flip", "fliplr", "flipud", "rot90", "view", "T", "mT", "getitem",
})


def is_numpy_callable(fn: Any) -> bool:
    """A NumPy function or ufunc: its eager result is a NumPy array."""
    if isinstance(fn, np.ufunc):
        return True
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def _basic_index(idx: Any) -> bool:
    """NumPy basic indexing (ints, slices, None, Ellipsis): the result is a view."""
    parts = idx if type(idx) is tuple else (idx,)
    return all(isinstance(p, (int, slice, type(None), type(Ellipsis), arrays.SliceSpec)) and not isinstance(p, bool)
               for p in parts)


def np_setitem(x: Any, idx: Any, v: Any) -> Any:
    """``x[idx] = v`` on a NumPy array, as a functional update (same dtype as ``x``)."""
    index = arrays._unspec(idx)
    if hasattr(index, "dtype") and index.dtype == jnp.bool_ and index.ndim == x.ndim:
        if jnp.ndim(v) and jnp.size(v) != 1:
            raise TypeError("a boolean-mask write with an array of values has a data-dependent shape")
        return jnp.where(index, jnp.reshape(v, ()) if jnp.ndim(v) else v, x).astype(x.dtype)
    return x.at[index].set(v)


np_setitem.__name__ = np_setitem.__qualname__ = "setitem"


def _same_kind(result: np.dtype, target: np.dtype) -> bool:
    return np.can_cast(result, target, casting="same_kind")


def numpy_gives_ndarray(fn: Any, leaves: list, treedef: Any) -> bool:
    """Whether the NumPy function ``fn`` returns NumPy arrays on these operands.
    A ufunc always does; other NumPy functions on a jax.Array often call its
    method (``np.sum(x)`` is ``x.sum()``: a jax.Array), so with a jax operand
    the function is probed once on zeros of the operands' kinds."""
    if not is_numpy_callable(fn):
        return False
    jax_operand = any(isinstance(x, (Value, jax.Array)) and not isinstance(x, np.ndarray)
                      and not (isinstance(x, Value) and (x.type.numpy or x.type.python)) for x in leaves)
    if isinstance(fn, np.ufunc) or not jax_operand:
        return True
    dummies = [_zeros_like_eager(x) if isinstance(x, Value) else x for x in leaves]
    try:
        args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
        out = tree_flatten(fn(*args, **kwargs))[0]
    except Exception:  # noqa: BLE001 - the probe proves nothing: NumPy's usual answer
        return True
    return bool(out) and isinstance(out[0], (np.ndarray, np.generic))


def _zeros_like_eager(v: Value) -> Any:
    t = v.type
    if t.python:
        return t.dtype.type(0).item()
    return np.zeros(t.shape, t.dtype) if t.numpy else jnp.zeros(t.shape, t.dtype)


def _operator_like(fn: Any) -> bool:
    """Python operators and our own array helpers: their eager result's kind
    (Python number, NumPy or jax array) follows their operands'."""
    module = getattr(fn, "__module__", "") or ""
    return module == arrays.__name__ or module in ("operator", "_operator") or module == __name__


class MutationMixin:
    # ------------------------------------------------------------ kinds
    def numpy_kind(self, fn: Any, leaves: list, numpy_fn: bool) -> bool:
        """Whether ``fn``'s eager result is a NumPy array (not a jax.Array)."""
        if numpy_fn:
            return True
        if not _operator_like(fn):
            return False   # jax.numpy, lax, ...: a jax.Array even on NumPy inputs
        if fn is arrays.getitem and leaves:   # x[i]: the indexed array decides, whatever indexes it
            first = leaves[0]
            return isinstance(first, np.ndarray) or isinstance(first, Value) and first.type.numpy
        kinds = []
        for leaf in leaves:
            if isinstance(leaf, Value):
                if not leaf.type.python:   # a Python number defers to a NumPy operand
                    kinds.append(leaf.type.numpy)
            elif isinstance(leaf, np.ndarray):
                kinds.append(True)
            elif isinstance(leaf, jax.Array):
                kinds.append(False)
        return bool(kinds) and all(kinds)   # NumPy defers to a jax.Array operand

    def mark_python(self, fn: Any, leaves: list, results: list) -> None:
        """An operator on Python numbers only (``i + 1``, ``i < n``, ``not done``)
        gives a Python number in eager: so do its results here."""
        values = [x for x in leaves if isinstance(x, Value)]
        if results and values and all(v.type.python for v in values) and _operator_like(fn):
            for r in results:
                if r.type.shape == ():
                    r.type = dataclasses.replace(r.type, python=True)

    def mark_numpy(self, fn: Any, label: str, leaves: list, results: list, numpy_fn: bool) -> None:
        if not results or not self.numpy_kind(fn, leaves, numpy_fn):
            return
        name = (label or getattr(fn, "__name__", "")).lstrip(".")
        view = name in VIEW_NAMES
        if view and name == "getitem":
            view = _basic_index(leaves[1]) if len(leaves) > 1 else True
        bases = [x for x in leaves if isinstance(x, Value) and x.type.numpy]
        for r in results:
            r.type = dataclasses.replace(r.type, numpy=True)
            if view and bases and r.type.shape:   # a 0-d result is a NumPy scalar, not a view
                self.view_of[id(r)] = (r, bases)

    # ------------------------------------------------------------ stores
    def functional_store(self, obj: np.ndarray, idx: Any, value: Any) -> bool:
        """A write into a NumPy array known at trace time that must become a graph
        update: a traced index or value, or a write under a traced condition or
        in a rolled loop (the array's contents then depend on the path)."""
        from .interpreter import contains_value   # the interpreter imports this module

        entry = self.fresh.get(id(obj))
        return contains_value((idx, value)) or (entry is not None and entry[1] is obj and entry[0] != self.traced_depth)

    def array_store(self, target: gast.Subscript, obj: Any, idx: Any, value: Any, op: Any = None) -> None:
        """``x[idx] = value`` (or ``x[idx] op= value``) on an array."""
        if isinstance(obj, Value) and not obj.type.numpy:
            raise self.graph_break(FallbackCode.TRACE_ERROR, target, "item assignment on a jax.Array (eager raises TypeError: "
                                   "JAX arrays are immutable)", hint="write x = x.at[i].set(v)")
        if not isinstance(target.value, gast.Name) or not self.frame.owns(target.value.id):
            raise self.graph_break(FallbackCode.MUTATION, target, "in-place write into an array reached through an "
                                   "expression or a non-local name", hint="bind the array to a local name first, or use x = x.at[i].set(v)")
        name = target.value.id
        if isinstance(obj, np.ndarray):
            if not self._is_fresh(obj):
                raise self.graph_break(FallbackCode.MUTATION, target, "in-place write of a traced value into a NumPy array "
                                       "created outside this compiled segment")
            self._check_unaliased(obj, name, target)
            obj = self.as_value(obj, target)
            obj.type = dataclasses.replace(obj.type, numpy=True)
        else:
            self._check_unaliased(obj, name, target)
        if id(obj) in self.input_of and len(self.regions) > 1:
            # the write-back into the caller's array follows the version of the
            # argument at the segment's end, which a loop's or branch's result
            # is not: run such a loop unrolled, or the construct in Python
            raise self.graph_break(FallbackCode.MUTATION, target, "in-place write into an argument's NumPy array inside a "
                                   "rolled loop or a traced branch")
        if op is not None:
            current = self.emit_call(arrays.getitem, (obj, idx), {}, target, "getitem")
            value = self.binop(op, current, value, target)
            rtype = value.type.dtype if isinstance(value, Value) else np.result_type(value)
            if not _same_kind(np.dtype(rtype), obj.type.dtype):
                raise self.graph_break(FallbackCode.MUTATION, target, f"in-place update casts {np.dtype(rtype)} into a "
                                       f"{obj.type.dtype} array (NumPy's casting rules decide it at run time)")
        self._check_bounds(obj, idx, target)
        new = self.emit_call(np_setitem, (obj, idx, value), {}, target, "setitem")
        new.type = dataclasses.replace(new.type, numpy=True)
        entry = self.input_of.get(id(obj))
        if entry is not None:   # an argument: write it back into the caller's array
            self.input_of[id(new)] = (new, entry[1])
            self.input_writes[entry[1]] = new
        self.assign_name(name, new, target)

    def check_numpy_index(self, obj: Any, idx: Any, node: Any) -> None:
        """Traced integer indices into a NumPy array: NumPy raises IndexError
        when one is out of bounds, XLA would clamp (read) or drop (write), so
        the graph checks them at run time (a host callback only on failure)."""
        numpy = isinstance(obj, np.ndarray) or isinstance(obj, Value) and obj.type.numpy
        shape = obj.shape if isinstance(obj, np.ndarray) else obj.type.shape if isinstance(obj, Value) else None
        if not numpy:
            return
        parts = arrays.traced_int_parts(tuple(shape), idx)
        if parts:
            axes, indices = zip(*parts)
            self.emit_call(arrays.numpy_index_check, (tuple(shape), axes, *indices), {}, node, "index check",
                           effect=True)

    def _check_bounds(self, obj: Value, idx: Any, node: Any) -> None:
        self.check_numpy_index(obj, idx, node)
        parts = idx if type(idx) is tuple else (idx,)
        for axis, p in enumerate(parts):
            if isinstance(p, (int, np.integer)) and not isinstance(p, bool) and axis < len(obj.type.shape):
                n = obj.type.shape[axis]
                if not -n <= p < n:
                    raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"index {p} is out of bounds for axis {axis} "
                                           f"with size {n} (eager raises IndexError)")

    def _check_unaliased(self, obj: Any, name: str, node: Any) -> None:
        """Fall back unless the local ``name`` is the only way to observe ``obj``."""
        if isinstance(obj, Value):
            if id(obj) in self.view_of:
                raise self.graph_break(FallbackCode.MUTATION, node, f"'{name}' may be a view of another NumPy array "
                                       "(a write through it changes the base)", hint="take a copy first: y = x[...].copy()")
            entry = self.input_of.get(id(obj))
            if entry is not None and entry[1] in self.input_aliased:
                raise self.graph_break(FallbackCode.MUTATION, node, f"argument array '{name}' shares memory with another argument")
        holder = next(self._references(obj, name), None)
        if holder is not None:
            raise self.graph_break(FallbackCode.MUTATION, node, f"the array in '{name}' is also reachable as {holder}: "
                                   "a write must show through every alias", hint="take a copy (y = x.copy()) or write through one name")

    def _frames(self) -> list:
        out, seen = [], set()
        for start in [self.frame, *self.callers]:
            f = start
            while f is not None and id(f) not in seen:
                seen.add(id(f))
                out.append(f)
                f = f.parent
        return out

    def _references(self, obj: Any, name: str):
        """Where else ``obj`` (or a view of it) can be seen from: names, containers, attributes."""
        seen: set[int] = set()
        is_value = isinstance(obj, Value)

        def hits(x: Any) -> bool:
            if x is obj:
                return True
            if is_value and isinstance(x, Value):
                entry = self.view_of.get(id(x))
                return entry is not None and entry[0] is x and any(b is obj for b in entry[1])
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
            if isinstance(x, (list, tuple, set, frozenset)):
                return any(walk(y, depth + 1) for y in x)
            if isinstance(x, dict):
                return any(walk(y, depth + 1) for y in x.values())
            frame = getattr(x, "frame", None)   # local functions see their defining frame
            if frame is not None and hasattr(frame, "env"):
                return any(walk(y, depth + 1) for y in frame.env.values())
            attrs = getattr(x, "__dict__", None)
            if isinstance(attrs, dict):
                return any(walk(y, depth + 1) for y in attrs.values())
            return False

        for frame in self._frames():
            for key, v in frame.env.items():
                if frame is self.frame and key == name and v is obj:
                    continue
                if walk(v, 0):
                    yield f"'{key}'"
                    return
        for held in self.attr_writes.values():
            if walk(held[2], 0):
                yield f"attribute '{held[1]}'"
                return

