"""``x[:n]``, ``x[i:j]``, ``x[n:]`` of an array with traced bounds, and
``x[m]`` with a traced boolean mask: a masked value.

Requires: the interpreter (``emit_call``, ``call``, ``binop``, ``convert``,
``graph_break``); the subscript, attribute, call, operator and loop sites of
the interpreter hand a ``MaskedSlice`` here.
Produces: ``MaskedSlice``: eager's slice along the first axis as the whole
array, the first kept position and the number kept (traced Python ints, by
eager's rules: a negative bound counts from the end, bounds clamp to the
length, the step is static). What eager code does with such a slice that the
graph expresses exactly stays in the graph:

* reductions over it: ``.sum()``, ``.mean()``, ``.max()``, ``.min()``,
  ``.prod()``, ``.any()``, ``.all()`` and ``np.``/``jnp.`` of them (over all
  elements or the first axis): the eager function applied to the whole array
  with the other positions set to the reduction's identity (``.mean()``: with
  ``where=``, so the count is the slice's); ``.max()``/``.min()`` of an empty
  slice raise eager's ``ValueError`` (a run-time check); ``np.mean`` of an
  empty slice warns as NumPy does (a host callback) and gives NaN;
* elementwise operators with a number, an array broadcast along the other
  axes, or a slice with the same bounds: a masked value again;
* ``a @ b``: two 1-D slices with the same bounds (the kept products summed),
  a 2-D slice times a matrix (a masked value);
* ``len(s)``: the count, a traced Python int; ``s.shape`` (the count, then
  the other axes) and ``s.size`` likewise;
* a write of it into a slice with a traced bound (``y[:k] = x[:k] * 2``,
  ``y[:k] += 1`` of a NumPy array, ``x.at[:k].set(x[:k] * 3)``): the kept rows
  in order, NumPy's broadcast error checked at run time where the counts may
  differ.

``x[m]`` of a traced boolean mask ``m`` (the shape of ``x``'s leading axes)
is the same value: the kept rows moved to the front (a stable argsort of the
mask, in eager's row-major order), a slice of them from 0 of ``m.sum()`` rows.

Any other use (returned, printed, handed to a function) falls back:
the statement runs in Python, where eager slices with the bound's value.
Invariants: positions outside the slice never reach a result (replaced by
the identity, or masked); the bounds are Python's ``slice.indices``.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from typing import Any

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import ArrayType, Value
from ..graphlib import arrays
from .lattice import INT_BITS, INT_RANGE
from .kinds import standin

_WHY = ("a slice with a traced bound or by a traced mask (`x[:n]`, `x[x > 0]`): the result's shape depends on the "
        "data")
_HINT = ("reduce it (x[:n].sum(), .mean(), .max()), combine it elementwise or with @, or keep the shape fixed: "
         "jnp.where(jnp.arange(len(x)) < n, x, 0)")


@standin
class MaskedSlice:
    """``base[start : start + count * step : step]`` along axis 0 (see the module docstring)."""

    __slots__ = ("base", "start", "count", "step")

    def __init__(self, base: Value, start: Any, count: Any, step: int):
        self.base, self.start, self.count, self.step = base, start, count, step

    @property
    def length(self) -> int:
        return self.base.type.shape[0]

    def same_bounds(self, other: "MaskedSlice") -> bool:
        return self.start is other.start and self.count is other.count and self.step == other.step \
            and self.length == other.length

    def __repr__(self) -> str:
        return f"<masked slice of {self.base.type}>"


@standin
class MaskedMethod:
    """``s.sum`` of a masked slice, before it is called."""

    __slots__ = ("slice", "name")

    def __init__(self, s: MaskedSlice, name: str):
        self.slice, self.name = s, name


# ------------------------------------------------------------ graph helpers
def _nonzero_name(callee: Any) -> str | None:
    for name in ("nonzero", "flatnonzero", "where"):
        if callee is getattr(np, name):
            return name
    return None


def slice_bounds(start: Any, stop: Any, step: int, n: int) -> tuple:
    """Python's ``slice(start, stop, step).indices(n)`` then the count: the
    first position and the number of positions (``None``: the default)."""
    def clamp(b: Any, default: int, low: int, high: int) -> Any:
        if b is None:
            return jnp.asarray(default, jnp.int64)
        b = jnp.asarray(b).astype(jnp.int64)
        return jnp.where(b < 0, jnp.maximum(b + n, low), jnp.minimum(b, high))

    if step > 0:
        lo = clamp(start, 0, 0, n)
        hi = clamp(stop, n, 0, n)
        count = jnp.maximum((hi - lo + step - 1) // step, 0)
    else:
        lo = clamp(start, n - 1, -1, n - 1)
        hi = clamp(stop, -1, -1, n - 1)
        count = jnp.maximum((lo - hi - step - 1) // (-step), 0)
    return lo, count


def slice_mask(start: Any, count: Any, step: int, shape: tuple) -> Any:
    """True at the positions of axis 0 the slice keeps, broadcast to ``shape``."""
    i = jnp.arange(shape[0], dtype=jnp.int64)
    k = (i - start) // step
    keep = ((i - start) % step == 0) & (k >= 0) & (k < count)
    return jnp.broadcast_to(keep.reshape((shape[0],) + (1,) * (len(shape) - 1)), shape)


def masked_fill(x: Any, start: Any, count: Any, step: int, fill: Any) -> Any:
    """``x`` with the positions the slice does not keep set to ``fill``."""
    return jnp.where(slice_mask(start, count, step, x.shape), x, jnp.asarray(fill, x.dtype))


def warn_empty_mean(count: Any, dtype: Any) -> None:
    """NumPy's warnings for the mean of an empty slice (on the host, when it is empty)."""
    import jax

    def warn(n: Any) -> None:
        if int(np.asarray(n)) == 0:
            np.mean(np.zeros(0, dtype))

    jax.debug.callback(warn, count, ordered=True)


_UPDATES = {"set": lambda x, v: v, "add": jnp.add, "multiply": jnp.multiply, "mul": jnp.multiply,
            "min": jnp.minimum, "max": jnp.maximum}


def masked_write(x: Any, start: Any, count: Any, step: int, v: Any, vstart: Any, vcount: Any, vstep: int,
                 name: str) -> Any:
    """``x[slice] = v[vslice]`` (or ``x.at[slice].name(v[vslice])``) along
    axis 0: the k-th kept position of ``x`` takes the k-th kept row of ``v``
    (its only one when it keeps one: eager's broadcast), converted to ``x``'s
    dtype first as a scatter converts its updates."""
    i = jnp.arange(x.shape[0], dtype=jnp.int64)
    k = jnp.where(vcount == 1, 0, (i - start) // step)
    rows = jnp.take(v, jnp.clip(vstart + k * vstep, 0, v.shape[0] - 1), axis=0)
    rows = jnp.broadcast_to(rows, x.shape).astype(x.dtype)
    return jnp.where(slice_mask(start, count, step, x.shape), _UPDATES[name](x, rows).astype(x.dtype), x)


def check_write_counts(count: Any, vcount: Any, shape: tuple, vshape: tuple, dtype: Any, vdtype: Any) -> None:
    """At run time: NumPy's ValueError when ``vcount`` rows do not broadcast
    into ``count`` (neither equal nor one); its message made by NumPy itself."""
    from ..graphlib.bounded import raise_if

    raise_if((vcount != count) & (vcount != 1), functools.partial(_raise_write, shape, vshape, dtype, vdtype),
             count, vcount)


def _raise_write(shape: tuple, vshape: tuple, dtype: Any, vdtype: Any, mask: Any, count: Any, vcount: Any) -> None:
    if np.any(np.asarray(mask)):
        target = np.zeros((int(np.asarray(count)),) + shape, dtype)
        target[:] = np.zeros((int(np.asarray(vcount)),) + vshape, vdtype)   # raises eager's ValueError


def mask_write(x: Any, keep: Any, v: Any, vstart: Any, vcount: Any, vstep: int) -> Any:
    """``x[keep] = v[vslice]`` for a boolean mask ``keep`` over ``x``'s
    leading axes: the k-th position the mask keeps (row-major order) takes
    the k-th kept row of ``v`` (its only one when it keeps one: eager's
    broadcast), converted to ``x``'s dtype as NumPy's write converts it."""
    flat = jnp.reshape(keep, (-1,))
    rank = jnp.cumsum(flat.astype(jnp.int64)) - 1
    k = jnp.where(vcount == 1, 0, rank)
    rows = jnp.take(v, jnp.clip(vstart + k * vstep, 0, v.shape[0] - 1), axis=0)
    body = jnp.reshape(x, (-1,) + x.shape[keep.ndim:])
    rows = jnp.broadcast_to(rows, body.shape).astype(x.dtype)
    sel = jnp.reshape(flat, (-1,) + (1,) * (body.ndim - 1))
    return jnp.reshape(jnp.where(sel, rows, body), x.shape)


def check_mask_write(count: Any, vcount: Any, rest: tuple, vrest: tuple, dtype: Any, vdtype: Any) -> None:
    """At run time: NumPy's ValueError when ``vcount`` rows do not broadcast
    into the ``count`` positions a mask keeps; its message made by NumPy itself."""
    from ..graphlib.bounded import raise_if

    raise_if((vcount != count) & (vcount != 1), functools.partial(_raise_mask_write, rest, vrest, dtype, vdtype),
             count, vcount)


def _raise_mask_write(rest: tuple, vrest: tuple, dtype: Any, vdtype: Any, mask: Any, count: Any, vcount: Any) -> None:
    if np.any(np.asarray(mask)):
        n = int(np.asarray(count))
        target = np.zeros((n,) + rest, dtype)
        target[np.ones(n, bool)] = np.zeros((int(np.asarray(vcount)),) + vrest, vdtype)   # raises eager's ValueError


def kept_order(keep: Any) -> tuple:
    """For ``x[keep]`` with a boolean mask: the positions of the flattened
    mask, the kept ones first in eager's (row-major) order, and how many are
    kept. ``x[keep]`` is the first ``count`` rows of ``take_kept(x, order)``."""
    flat = jnp.reshape(keep, (-1,))
    return jnp.argsort(jnp.logical_not(flat), stable=True), jnp.sum(flat).astype(jnp.int64)


def _leading_axis(x: Any) -> Any:
    """``x[None]``: a new leading axis of length 1, x's dtype."""
    return jnp.expand_dims(x, 0)


def _first_row(x: Any) -> Any:
    """``x[0]`` of an array with a leading axis of length 1."""
    return x[0]


def take_kept(x: Any, order: Any, ndim: int) -> Any:
    """``x``'s rows over its first ``ndim`` axes (flattened) in ``order``."""
    return jnp.take(jnp.reshape(x, (-1,) + x.shape[ndim:]), order, axis=0)


for _fn in (slice_bounds, slice_mask, masked_fill, masked_write, mask_write, kept_order, take_kept):
    _fn._a2g_typed = True  # type: ignore[attr-defined]
warn_empty_mean._a2g_effect = True  # type: ignore[attr-defined]
check_write_counts._a2g_effect = True  # type: ignore[attr-defined]
check_write_counts._a2g_check = True  # type: ignore[attr-defined]   # a run-time check (``_check_site``)
check_write_counts._a2g_raises = (ValueError,)  # type: ignore[attr-defined]
check_mask_write._a2g_effect = True  # type: ignore[attr-defined]
check_mask_write._a2g_check = True  # type: ignore[attr-defined]
check_mask_write._a2g_raises = (ValueError,)  # type: ignore[attr-defined]

_REDUCTIONS = ("sum", "mean", "max", "min", "prod", "any", "all")


def _identity(name: str, dtype: np.dtype) -> Any:
    """What the positions outside the slice become for reduction ``name``."""
    if name in ("sum", "mean", "any"):
        return False if dtype.kind == "b" else 0
    if name in ("prod", "all"):
        return True if dtype.kind == "b" else 1
    if dtype.kind == "b":
        return name == "min"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if name == "max" else info.max
    return -np.inf if name == "max" else np.inf


def masked_index_check(count: Any, i: int, numpy: bool, rest: tuple) -> None:
    """At run time: eager's ``IndexError`` for ``s[i]`` of a slice of ``count``
    rows (NumPy: ``i`` outside ``-count..count-1``; JAX clamps a non-empty
    array's index and raises on an empty one), raised by indexing an empty
    array of the slice's shape as eager would."""
    from ..graphlib.bounded import raise_if   # the run-time check machinery

    bad = ((i >= count) | (i < -count)) if numpy else (count == 0)
    raise_if(bad, functools.partial(_raise_eager_index, i, numpy, rest), count)


masked_index_check._a2g_effect = True  # type: ignore[attr-defined]
masked_index_check._a2g_check = True  # type: ignore[attr-defined]


def _raise_eager_index(i: int, numpy: bool, rest: tuple, mask: Any, count: Any) -> None:
    if np.any(np.asarray(mask)):
        shape = (int(np.asarray(count)), *rest)
        (np.empty(shape) if numpy else jnp.zeros(shape))[i]   # raises eager's IndexError
        raise IndexError(f"index {i} is out of bounds for axis 0 with size {shape[0]}")


def masked_position(count: Any, i: int, numpy: bool) -> Any:
    """The row of ``s[i]`` within the slice: ``i`` from the end when
    negative; JAX clamps it into the slice."""
    pos = i if i >= 0 else count + i
    return pos if numpy else jnp.clip(pos, 0, jnp.maximum(count - 1, 0))


class MaskedMixin:
    """Slices with traced bounds (see the module docstring)."""

    def masked_slice(self, obj: Value, spec: Any, node: Any) -> MaskedSlice:
        """``obj[spec]`` for a ``SliceSpec`` with a traced bound on axis 0."""
        step = 1 if spec.step is None else spec.step
        if type(obj) is not Value or not obj.type.shape or isinstance(step, Value) or type(step) is not int or step == 0 \
                or any(isinstance(b, Value) and (b.type.shape or b.type.dtype.kind not in "iu" or b.type.mixed)
                       for b in (spec.start, spec.stop)) \
                or any(b is not None and not isinstance(b, Value) and type(b) is not int for b in (spec.start, spec.stop)):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, _WHY, "subscript", hint=_HINT)
        cache = self.__dict__.setdefault("_slice_bounds", {})
        key = (id(self.region), id(spec.start), id(spec.stop), step, obj.type.shape[0])
        entry = cache.get(key)
        if entry is None or entry[0] is not spec.start or entry[1] is not spec.stop or entry[4] is not self.region:
            # (the entry holds what its key names by id: a key reused by new objects is not a hit)
            start, count = self.emit_call(slice_bounds, (spec.start, spec.stop, step, obj.type.shape[0]), {}, node,
                                          "slice bounds")
            for v in (start, count):
                v.type = v.type.with_kinds(("python",))
                INT_BITS[v] = max(obj.type.shape[0], 1).bit_length() + 1
            entry = cache[key] = (spec.start, spec.stop, start, count, self.region)
        self.decide(node, "subscript", "masked", "a slice with a traced bound: the whole array, the positions kept "
                    "marked (reductions and elementwise operations stay in the graph)")
        return MaskedSlice(obj, entry[2], entry[3], step)

    def fixed_length_slice(self, obj: Any, idx: Any, node: Any) -> Any:
        """``x[i:i + k]`` (``x[i:i + k, j]``; ``x[i * k:(i + 1) * k]``) of a
        jax.Array, ``k`` a non-negative int literal or a local holding a static
        int and ``i`` the same pure expression on both sides (``_offset_of``),
        the start a traced int whose known range (``INT_RANGE``: a rolled loop's index)
        keeps ``0 <= i`` and ``i + k <= len(x)``: eager's slice has ``k``
        rows from ``i`` on every call, so it is
        ``lax.dynamic_slice_in_dim(x, i, k)`` (then the static rest of the
        index), a value of fixed shape any consumer may take (``jax.grad(f)(p,
        x[i:i + 2])``). None where that is not proven (the masked slice then)."""
        parts = idx if type(idx) is tuple else (idx,)
        sub = getattr(node, "slice", None)
        lower = sub.elts[0] if type(idx) is tuple and isinstance(sub, gast.Tuple) and sub.elts else sub
        if type(obj) is not Value or obj.type.kinds != frozenset({"jax"}) or not obj.type.shape \
                or not isinstance(lower, gast.Slice) or type(parts[0]) is not arrays.SliceSpec \
                or parts[0].step is not None or lower.step is not None:
            return None
        if any(isinstance(p, (Value, arrays.SliceSpec)) or p is Ellipsis or p is None for p in parts[1:]) \
                or any(isinstance(p, Value) for p in jax.tree_util.tree_leaves(parts[1:])):
            return None
        k = _offset_of(lower.lower, lower.upper, self._static_local_int)
        start = parts[0].start
        known = INT_RANGE.get(start) if type(start) is Value else None
        if k is None or known is None or start.type.shape or start.type.dtype.kind not in "iu" or start.type.mixed \
                or known[0] < 0 or known[1] + k > obj.type.shape[0]:
            return None
        out = self.emit_call(jax.lax.dynamic_slice_in_dim, (obj, start, k), {"axis": 0}, node, "dynamic_slice")
        if len(parts) > 1:
            out = self.emit_call(arrays.getitem, (out, (slice(None), *parts[1:])), {}, node, "getitem")
        self.decide(node, "subscript", "dynamic_slice", f"a slice of {k} rows from a traced start kept in range")
        return out

    def _static_local_int(self, node: Any) -> int | None:
        """The static Python int a local variable holds (``bs`` of ``x[s:s + bs]``), else None."""
        if isinstance(node, gast.Name) and self.frame.owns(node.id):
            v = self.frame.env.get(node.id)
            return v if type(v) is int else None
        return None

    @staticmethod
    def is_bool_mask(obj: Any, idx: Any) -> bool:
        """``obj[idx]`` indexes an array by a traced boolean mask of its leading axes' shape."""
        return type(obj) is Value and type(idx) is Value and idx.type.dtype == np.bool_ and bool(idx.type.shape) \
            and not obj.type.mixed and not idx.type.mixed and obj.type.shape[:len(idx.type.shape)] == idx.type.shape

    @staticmethod
    def is_scalar_mask(obj: Any, idx: Any) -> bool:
        """``obj[m]`` of an array by a traced 0-d boolean: NumPy's ``obj[None][m[None]]``
        (a new axis of length 1, kept or not: ``out[ia] = a[ia]`` of a 0-d result)."""
        return type(obj) is Value and type(idx) is Value and idx.type.dtype == np.bool_ and not idx.type.shape \
            and not obj.type.mixed and not idx.type.mixed

    def lifted_mask(self, mask: Value, node: Any) -> Value:
        """``m[None]`` of a 0-d mask, one per mask and region (a read and a
        write through the same ``m`` count the same kept rows)."""
        cache = self.__dict__.setdefault("_lifted_masks", {})
        entry = cache.get((id(self.region), id(mask)))
        if entry is None or entry[0] is not mask:
            lifted = self.emit_call(_leading_axis, (mask,), {}, node, "reshape")
            lifted.type = dataclasses.replace(mask.type, shape=(1,))
            entry = cache[(id(self.region), id(mask))] = (mask, lifted)
        return entry[1]

    def _lifted(self, obj: Value, node: Any) -> Value:
        """``obj[None]``, of ``obj``'s dtype and kinds."""
        lifted = self.emit_call(_leading_axis, (obj,), {}, node, "expand_dims")
        lifted.type = dataclasses.replace(obj.type, shape=(1, *obj.type.shape))
        return lifted

    def scalar_masked(self, obj: Value, mask: Value, node: Any) -> MaskedSlice:
        """``obj[m]``, ``m`` a traced 0-d boolean: ``obj[None]`` masked by ``m[None]``."""
        return self.bool_masked(self._lifted(obj, node), self.lifted_mask(mask, node), node)

    def scalar_mask_store(self, obj: Value, mask: Value, v: "MaskedSlice", node: Any) -> Value:
        """``obj[m] = v`` of a NumPy array, ``m`` a traced 0-d boolean and ``v`` a masked value."""
        out = self.mask_store(self._lifted(obj, node), self.lifted_mask(mask, node), v, node)
        back = self.emit_call(_first_row, (out,), {}, node, "reshape")
        back.type = dataclasses.replace(out.type, shape=obj.type.shape)
        return back

    def bool_masked(self, obj: Value, mask: Value, node: Any) -> MaskedSlice:
        """``obj[mask]``: eager's kept rows (of the axes the mask covers,
        flattened in row-major order), moved to the front of an array of the
        full length, as a slice of it from 0 of ``mask.sum()`` rows: every use
        of a slice with a traced bound (reductions, elementwise operations,
        ``len``, a loop over it) then sees exactly eager's rows."""
        entry = self._kept_order(mask, node)
        packed = self.emit_call(take_kept, (obj, entry[1], len(mask.type.shape)), {}, node, "masked rows")
        packed.type = dataclasses.replace(packed.type, weak_type=obj.type.weak_type).with_kinds(obj.type.kinds)
        self.decide(node, "subscript", "masked", "an index by a traced boolean mask: the kept rows first in the whole "
                    "array's length, their number traced (reductions and elementwise operations stay in the graph)")
        return MaskedSlice(packed, 0, entry[2], 1)

    def _kept_order(self, mask: Value, node: Any) -> tuple:
        """``(mask, order, count)`` of ``kept_order(mask)``, emitted once per mask and region."""
        cache = self.__dict__.setdefault("_kept_orders", {})
        entry = cache.get((id(self.region), id(mask)))
        if entry is None or entry[0] is not mask:   # (keyed by id: a reused id is not a hit)
            order, count = self.emit_call(kept_order, (mask,), {}, node, "mask order")
            count.type = count.type.with_kinds(("python",))
            INT_BITS[count] = max(int(np.prod(mask.type.shape)), 1).bit_length() + 1
            entry = cache[(id(self.region), id(mask))] = (mask, order, count)
        return entry

    def nonzero_masked(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``np.nonzero(c)``, ``np.where(c)`` (one argument) and
        ``np.flatnonzero(c)`` of a traced array: eager's positions of the
        nonzero elements (NumPy int64) are ``arange(n)[c != 0]``, a masked
        value like ``x[m]`` (``len``, ``idx[0]``, reductions, a loop over them
        stay in the graph). ``nonzero``/``where`` only of a 1-D array (a tuple
        of one), ``nonzero`` only of a NumPy array (of a jax.Array, NumPy calls
        its ``.nonzero()``: JAX's int32 positions); NotImplemented otherwise."""
        name = _nonzero_name(callee)
        if name is None or kwargs or len(args) != 1 or type(args[0]) is not Value or args[0].type.mixed:
            return NotImplemented
        c = args[0]
        if name == "nonzero" and not c.type.numpy:   # NumPy calls the array's own method: a jax.Array's gives int32
            return NotImplemented
        if name == "flatnonzero":
            c = self.call(jnp.ravel, (c,), {}, node) if len(c.type.shape) != 1 else c
        elif len(c.type.shape) != 1:
            return NotImplemented
        mask = c if c.type.dtype == np.bool_ else self.binop(operator.ne, c, 0, node)
        positions = self.as_value(np.arange(c.type.shape[0], dtype=np.intp), node)
        positions.type = positions.type.with_kinds(("numpy",))
        found = self.bool_masked(positions, mask, node)
        return found if name == "flatnonzero" else (found,)

    def masked_getitem(self, s: MaskedSlice, idx: Any, node: Any) -> Any:
        """``s[i]`` with a static int ``i``: the row ``start + pos * step`` of
        the whole array, eager's IndexError checked at run time."""
        if type(idx) is not int:
            raise self._masked_break(node, "an index into a slice other than an int")
        if not self.raise_checks_allowed():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "an index into a slice with a traced bound (eager "
                                   "may raise IndexError) where a run-time check cannot raise it")
        numpy = "numpy" in s.base.type.kinds
        if s.base.type.mixed:
            raise self._masked_break(node, "an index into a slice of an array whose kind depends on the path taken")
        self.emit_call(masked_index_check, (s.count, idx, numpy, s.base.type.shape[1:]), {}, node, "index check",
                       effect=True)
        pos = self.emit_call(masked_position, (s.count, idx, numpy), {}, node, "index")
        row = self.binop(operator.add, s.start, self.binop(operator.mul, pos, s.step, node), node)
        return self.subscript(s.base, row, node)

    def _masked_break(self, node: Any, what: str) -> Any:
        return self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what}: {_WHY}", hint=_HINT)

    def filled(self, s: MaskedSlice, fill: Any, node: Any) -> Value:
        out = self.emit_call(masked_fill, (s.base, s.start, s.count, s.step, fill), {}, node, "masked fill")
        out.type = dataclasses.replace(out.type, weak_type=s.base.type.weak_type).with_kinds(s.base.type.kinds)
        return out

    # ---------------------------------------------------------- attributes
    def masked_attribute(self, s: MaskedSlice, attr: str, node: Any) -> Any:
        if attr in _REDUCTIONS:
            return MaskedMethod(s, attr)
        if attr in ("dtype", "ndim"):
            return self.attribute_of(s.base, attr, node)
        if attr == "T" and len(s.base.type.shape) == 1:
            return s
        if attr == "shape":   # eager's ints: the count (a traced Python int, as ``len``), the other axes static
            return (s.count, *s.base.type.shape[1:])
        if attr == "size":
            rest = int(np.prod(s.base.type.shape[1:], dtype=np.int64))
            return s.count if rest == 1 else self.binop(operator.mul, s.count, rest, node)
        raise self._masked_break(node, f"attribute {attr!r} of a slice")

    # --------------------------------------------------------------- calls
    def masked_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A call that involves a masked slice: handled, or NotImplemented
        (the caller converts a user function; anything else falls back)."""
        if isinstance(callee, MaskedMethod):
            return self._reduce(callee.name, callee.slice, None, args, kwargs, node)
        if not any(isinstance(a, MaskedSlice) for a in (*args, *kwargs.values())):
            return NotImplemented
        if callee is len and len(args) == 1 and not kwargs:
            return args[0].count
        name = getattr(callee, "__name__", "")
        module = (getattr(callee, "__module__", "") or "").split(".")[0]
        if name in _REDUCTIONS and module in ("numpy", "jax") and args and isinstance(args[0], MaskedSlice) \
                and not any(isinstance(a, MaskedSlice) for a in (*args[1:], *kwargs.values())):
            return self._reduce(name, args[0], callee, args[1:], kwargs, node)
        if isinstance(callee, (np.ufunc, jnp.ufunc)) and callee.nout == 1 and len(args) == callee.nin and not kwargs \
                or module == "jax" and len(args) == 1 and not kwargs and name in _UNARY:
            return self._masked_elementwise(callee, args, node)
        if name in ("dot", "matmul") and module in ("numpy", "jax") and len(args) == 2 and not kwargs:
            return self.masked_binop(operator.matmul, args[0], args[1], node, callee)
        return NotImplemented

    def _masked_elementwise(self, callee: Any, args: tuple, node: Any) -> Any:
        """``np.nextafter(r[m], r[m] + 1)``: an elementwise function of slices
        with the same bounds and of values broadcast along their other axes,
        applied to the whole arrays: a masked value again."""
        slices = [a for a in args if isinstance(a, MaskedSlice)]
        s = slices[0]
        if not all(s.same_bounds(t) for t in slices[1:]):
            raise self._masked_break(node, "an elementwise function of slices with other bounds")
        if not all(isinstance(a, MaskedSlice) or self._broadcasts_along(a, s) for a in args):
            raise self._masked_break(node, "an elementwise function of a slice and an array of its length")
        out = self.call(callee, tuple(a.base if isinstance(a, MaskedSlice) else a for a in args), {}, node)
        if not isinstance(out, Value) or not out.type.shape or out.type.shape[0] != s.length:
            raise self._masked_break(node, "an elementwise function of a slice")
        return MaskedSlice(out, s.start, s.count, s.step)

    def _reduce(self, name: str, s: MaskedSlice, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``s.name(*args, **kwargs)`` (``callee``: ``np.name``/``jnp.name`` of ``s``)."""
        axis = kwargs.get("axis", args[0] if args else None)
        if len(args) > 1 or set(kwargs) - {"axis"} or not (axis is None or type(axis) is int):
            raise self._masked_break(node, f".{name}() with these arguments of a slice")
        ndim = len(s.base.type.shape)
        if axis is not None and not -ndim <= axis < ndim:
            raise self._masked_break(node, f".{name}() over axis {axis} of a slice")
        if axis is not None and axis % ndim != 0:   # over another axis: one result per kept row
            base = self._call_reduction(name, s.base, callee, {"axis": axis}, node)
            return MaskedSlice(base, s.start, s.count, s.step)
        dtype = s.base.type.dtype
        if name in ("max", "min"):
            self._empty_check(name, s, callee, node)
        if name == "mean":
            if "numpy" in s.base.type.kinds or "array0" in s.base.type.kinds:
                self.emit_call(warn_empty_mean, (s.count, dtype), {}, node, "mean warning", effect=True)
            mask = self.emit_call(slice_mask, (s.start, s.count, s.step, s.base.type.shape), {}, node, "mask")
            mask.type = mask.type.with_kinds(s.base.type.kinds)
            out = self._call_reduction(name, s.base, callee, {"axis": axis, "where": mask}, node)
        else:
            out = self._call_reduction(name, self.filled(s, _identity(name, dtype), node), callee, {"axis": axis}, node)
        self.decide(node, "call", "masked", f".{name}() of a slice with a traced bound: over the whole array, the "
                    "other positions masked")
        return out

    def _call_reduction(self, name: str, x: Value, callee: Any, kwargs: dict, node: Any) -> Any:
        kwargs = {k: v for k, v in kwargs.items() if not (k == "axis" and v is None)}
        if callee is None:
            return self.call(self.attribute_of(x, name, node), (), kwargs, node)
        return self.call(callee, (x,), kwargs, node)

    def _empty_check(self, name: str, s: MaskedSlice, callee: Any, node: Any) -> None:
        """Eager's ValueError for the max/min of an empty slice (its message, computed by eager's function)."""
        from .varlist import raise_if_empty

        numpy = bool(s.base.type.kinds & {"numpy", "array0"})
        fn = callee or getattr(np if numpy else jnp, "max" if name == "max" else "min")
        try:
            fn((np if numpy else jnp).zeros((0,) + s.base.type.shape[1:], s.base.type.dtype))
        except ValueError as e:
            message = str(e)
        else:   # pragma: no cover - every eager max/min of nothing raises
            return
        if not self.raise_checks_allowed():
            raise self._masked_break(node, f".{name}() of a slice that may be empty, where a run-time check cannot "
                                     "raise eager's ValueError")
        self.emit_call(raise_if_empty, (s.count, message), {}, node, "empty check", effect=True)

    # -------------------------------------------------------------- writes
    def masked_store(self, obj: Value, idx: Any, v: "MaskedSlice", name: str, node: Any, numpy: bool) -> Value:
        """``obj[idx] = v`` (``numpy``: NumPy's in-place write) or
        ``obj.at[idx].name(v)`` where ``idx`` is a slice with a traced bound
        and ``v`` a slice with traced bounds: its kept rows, in order, go to the
        positions ``idx`` keeps. Slices with the same bounds of arrays of one
        length keep as many rows; otherwise NumPy's broadcast is checked at run
        time (JAX's other rules for a scatter fall back)."""
        if type(idx) is not arrays.SliceSpec or name not in _UPDATES:
            raise self._masked_break(node, f"a write ({name}) of a slice into this index")
        t = self.masked_slice(obj, idx, node)   # the target's bounds, by eager's slice.indices
        shape, vshape = obj.type.shape, v.base.type.shape
        if len(vshape) != len(shape) or not vshape[0] or np.broadcast_shapes(vshape[1:], shape[1:]) != shape[1:]:
            raise self._masked_break(node, "a write of a slice whose rows do not broadcast to the target's rows")
        if not np.can_cast(v.base.type.dtype, obj.type.dtype, "same_kind"):
            raise self._masked_break(node, f"a write casting {v.base.type.dtype} into {obj.type.dtype}")
        if not t.same_bounds(v):
            if not numpy:
                raise self._masked_break(node, "`.at[]` with a slice of other bounds (JAX's broadcast rules)")
            if not self.raise_checks_allowed():
                raise self._masked_break(node, "a write of a slice whose length may differ, where a run-time check "
                                         "cannot raise eager's ValueError")
            self.emit_call(check_write_counts, (t.count, v.count, shape[1:], vshape[1:], obj.type.dtype,
                                                v.base.type.dtype), {}, node, "write check", effect=True)
        out = self.emit_call(masked_write, (obj, t.start, t.count, t.step, v.base, v.start, v.count, v.step, name), {},
                             node, "masked write")
        out.type = dataclasses.replace(out.type, weak_type=obj.type.weak_type).with_kinds(obj.type.kinds)
        self.decide(node, "subscript", "masked", "a write of a slice with traced bounds into a slice with a traced "
                    "bound: the rows taken in order, the other positions kept")
        return out

    def mask_store(self, obj: Value, mask: Value, v: "MaskedSlice", node: Any) -> Value:
        """``obj[mask] = v`` of a NumPy array, ``mask`` a traced boolean mask
        of its leading axes and ``v`` a masked value (``out[m] = 1 - a[m] /
        b[m]``): its kept rows, in order, go to the positions the mask keeps.
        The rows of a value read through the same mask are as many; otherwise
        NumPy's broadcast is checked at run time."""
        rest, vshape = obj.type.shape[len(mask.type.shape):], v.base.type.shape
        if len(vshape) != len(rest) + 1 or not vshape[0] or np.broadcast_shapes(vshape[1:], rest) != rest:
            raise self._masked_break(node, "a write of a slice whose rows do not broadcast to the target's rows")
        if not np.can_cast(v.base.type.dtype, obj.type.dtype, "same_kind"):
            raise self._masked_break(node, f"a write casting {v.base.type.dtype} into {obj.type.dtype}")
        count = self._kept_order(mask, node)[2]
        if v.count is not count:
            if not self.raise_checks_allowed():
                raise self._masked_break(node, "a write of a slice whose length may differ from the mask's count, "
                                         "where a run-time check cannot raise eager's ValueError")
            self.emit_call(check_mask_write, (count, v.count, rest, vshape[1:], obj.type.dtype, v.base.type.dtype),
                           {}, node, "write check", effect=True)
        out = self.emit_call(mask_write, (obj, mask, v.base, v.start, v.count, v.step), {}, node, "masked write")
        out.type = dataclasses.replace(out.type, weak_type=obj.type.weak_type).with_kinds(obj.type.kinds)
        self.decide(node, "subscript", "masked", "a write of a masked value through a traced boolean mask: the rows "
                    "taken in order, the other positions kept")
        return out

    # ----------------------------------------------------------- operators
    def masked_binop(self, fn: Any, left: Any, right: Any, node: Any, callee: Any = None) -> Any:
        """``left <op> right`` with a masked slice on a side."""
        if fn is operator.matmul:
            return self._masked_matmul(left, right, node, callee)
        ls, rs = isinstance(left, MaskedSlice), isinstance(right, MaskedSlice)
        if ls and rs and not left.same_bounds(right):
            raise self._masked_break(node, "an operation on two slices with other bounds")
        s = left if ls else right
        other = right if ls else left
        if not rs or not ls:
            if not self._broadcasts_along(other, s):
                raise self._masked_break(node, "an operation on a slice and an array of its length")
        out = self.binop(fn, left.base if ls else left, right.base if rs else right, node)
        if not isinstance(out, Value) or not out.type.shape or out.type.shape[0] != s.length:
            raise self._masked_break(node, "an operation on a slice")
        return MaskedSlice(out, s.start, s.count, s.step)

    @staticmethod
    def _broadcasts_along(other: Any, s: MaskedSlice) -> bool:
        """``other`` leaves axis 0 of the slice alone (a number, fewer axes, or length 1 there)."""
        if not isinstance(other, Value):
            return isinstance(other, (bool, int, float, complex, np.generic))
        nd, bd = len(other.type.shape), len(s.base.type.shape)
        return nd < bd or nd == bd and other.type.shape[0] == 1

    def _masked_matmul(self, left: Any, right: Any, node: Any, callee: Any) -> Any:
        ls, rs = isinstance(left, MaskedSlice), isinstance(right, MaskedSlice)
        fn = callee if callee is not None else operator.matmul

        def apply(a: Any, b: Any) -> Any:
            return self.call(fn, (a, b), {}, node) if callee is not None else self.binop(operator.matmul, a, b, node)

        if ls and rs and left.same_bounds(right) and len(left.base.type.shape) == 1:
            # the contraction runs over the slice: the positions it does not keep add zeros
            return apply(self.filled(left, 0, node), self.filled(right, 0, node))
        if ls and not rs and isinstance(right, Value) and len(left.base.type.shape) == 2 and right.type.shape:
            return MaskedSlice(apply(left.base, right), left.start, left.count, left.step)
        raise self._masked_break(node, "a matrix product with a slice")


_UNARY = frozenset({"exp", "log", "sin", "cos", "tanh", "abs", "sqrt", "square", "negative", "sign", "log1p", "expm1",
                    "absolute", "floor", "ceil", "isnan", "isfinite"})


def _pure(node: Any) -> bool:
    """An expression of names, int literals and arithmetic only: evaluated
    twice it gives the same value (no call, no walrus, no attribute)."""
    return all(isinstance(n, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Load, gast.operator,
                              gast.unaryop)) for n in gast.walk(node))


def _same(a: Any, b: Any) -> bool:
    return _pure(a) and gast.dump(a) == gast.dump(b)


def _offset_of(lower: Any, upper: Any, static_int: Any = lambda node: None) -> int | None:
    """``k`` where the slice reads ``e:e + k`` (or ``k + e``) or
    ``e * k:(e + 1) * k`` (or ``k * e:k * (e + 1)``), ``e`` one pure
    expression (the same value on both sides), ``k`` a non-negative int
    literal or ``static_int`` of it (a local variable holding a static
    int), else None."""
    def k_of(node: Any) -> int | None:
        v = node.value if isinstance(node, gast.Constant) and type(node.value) is int else static_int(node)
        return v if type(v) is int and v >= 0 else None

    if lower is None or not isinstance(upper, gast.BinOp):
        return None
    if isinstance(upper.op, gast.Add):
        for a, b in ((upper.left, upper.right), (upper.right, upper.left)):
            if _same(a, lower) and k_of(b) is not None:
                return k_of(b)
    if isinstance(upper.op, gast.Mult) and isinstance(lower, gast.BinOp) and isinstance(lower.op, gast.Mult):
        for e, k in ((lower.left, lower.right), (lower.right, lower.left)):
            for inc, k2 in ((upper.left, upper.right), (upper.right, upper.left)):
                if isinstance(inc, gast.BinOp) and isinstance(inc.op, gast.Add) and _same(k, k2) and k_of(k) is not None \
                        and any(_same(x, e) and isinstance(y, gast.Constant) and y.value == 1 and type(y.value) is int
                                for x, y in ((inc.left, inc.right), (inc.right, inc.left))):
                    return k_of(k)
    return None
