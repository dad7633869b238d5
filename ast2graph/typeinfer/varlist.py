"""Lists whose length depends on the data: a static prefix and a traced tail.

Requires: the interpreter (``emit_call``, ``convert``, ``binop``, ``truth``,
``graph_break``, ``in_region``), the branch join of ``control`` (which calls
``join_list_structure`` for every list a traced branch wrote) and the rolled
loops' fixpoint (which calls ``grow_carried`` after each pass and
``finish_grown`` after the loop).
Produces: ``VarTail``, the last element of a trace-time list whose items
after its first ``p`` (the prefix, ordinary items) are known only at run
time: one buffer per traced leaf of the items (``cap`` rows, the items'
common tree), the traced number of rows in use (``count``, a Python int of
the graph) and a static upper bound on it (``bound``). It appears where
eager's length depends on the data:

* after a traced ``if`` whose branches leave a list of other lengths
  (``if c: out.append(v)``, a traced ``break`` after an append in an
  unrolled loop): each branch's items beyond the common prefix are moved
  into a tail, the tails padded to one capacity and joined elementwise;
* in a rolled loop with a static maximum trip count ``M`` that appends
  ``d`` items per iteration at most: the tail gets ``M * d`` rows more,
  reserved (``room``: appends in one pass that do not grow it), and is
  carried by the loop like any value.

Reads that the graph expresses exactly stay in it: ``len`` (prefix + count),
``xs[i]`` and ``xs[-1]`` (a run-time ``IndexError`` check, then a dynamic
index), ``sum``/``max``/``min`` (a fold over the rows in use, in eager's
order; ``max`` of an empty list raises eager's ``ValueError``), the truth of
the list. An append writes the next row. Anything else that would look at
the list (an iteration, ``sorted``, ``str``, a slice, an operator, a call of
a library) falls back with the reason (``check_no_varlist``: the statement
runs in Python, where the list is eager's). The list leaves a compiled
segment as ``VarListOut``: a pytree node of the prefix, the buffers and the
count, which builds eager's list on the host (``count`` items of eager's
kinds) after the call.

Invariants: a ``VarTail`` is only ever the last element of a list, and the
list is this trace's own (made in it); ``count <= bound <= cap``; rows at and
beyond ``count`` are never read; the items of a tail are of one tree, each
leaf of one type (shape, dtype, weak type; eager's kinds joined, a kind that
differs between items is path-dependent as after any traced branch).
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import types
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..fallback.sites import FallbackCode
from ..ir.core import ArrayType, ForOp, Region, Value
from ..graphlib import arrays
from .carried import Traced as _Traced
from .kinds import standin
from .lattice import INT_BITS, WIDE_INTS, abstract_type, describe, is_static_number, join_types, same_dtype
from ..graphlib.casts import to_python_number

# the count of a tail: a Python int in eager (exact, int64 in the graph, weak as a Python scalar)
COUNT_TYPE = ArrayType((), np.dtype("int64"), True, python=True)
# a tail holds at most this many bytes (its buffers): beyond it the list stays unrolled or falls back
MAX_TAIL_BYTES = 64 << 20


@standin
@jax.tree_util.register_pytree_node_class
class VarTail:
    """The items of a list after its prefix, as buffers (see the module docstring)."""

    __slots__ = ("buffers", "count", "cap", "bound", "room", "tree", "types")

    def __init__(self, buffers: list, count: Any, cap: int, bound: int, room: int, tree: Any, types: tuple):
        self.buffers, self.count = list(buffers), count
        self.cap, self.bound, self.room = cap, bound, room
        self.tree, self.types = tree, types   # the items' treedef; each leaf's ArrayType (eager's kinds)

    def tree_flatten(self):
        return (*self.buffers, self.count), (self.cap, self.bound, self.room, self.tree, self.types)

    @classmethod
    def tree_unflatten(cls, aux, children):
        cap, bound, room, tree, types = aux
        *buffers, count = children
        return cls(buffers, count, cap, bound, room, tree, types)

    def replace(self, **kw: Any) -> "VarTail":
        fields = {k: getattr(self, k) for k in self.__slots__}
        fields.update(kw)
        return VarTail(**fields)

    def __repr__(self) -> str:
        return f"<{self.cap} rows of {jax.tree_util.tree_unflatten(self.tree, [str(t) for t in self.types])}>"


def tail_of(obj: Any) -> VarTail | None:
    """The tail of a list whose length depends on the data, else None."""
    if type(obj) is list and obj and type(obj[-1]) is VarTail:
        return obj[-1]
    return None


def holds_tail(tree: Any, limit: int = 10_000) -> bool:
    """A ``VarTail`` anywhere in ``tree`` (through lists, tuples, dicts and object attributes)."""
    stack, seen = [tree], set()
    while stack and len(seen) < limit:
        x = stack.pop()
        if type(x) is VarTail:
            return True
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return False


# ------------------------------------------------------- graph helpers
def tail_put(buf: Any, i: Any, v: Any) -> Any:
    """``buf[i] = v`` (a row), ``i`` below the capacity (the bound says so)."""
    return lax.dynamic_update_index_in_dim(buf, jnp.asarray(v, buf.dtype), i, 0)


def tail_get(buf: Any, i: Any) -> Any:
    """Row ``i`` (checked before to be in use)."""
    return lax.dynamic_index_in_dim(buf, i, 0, keepdims=False)


def tail_pad(buf: Any, extra: int) -> Any:
    return jnp.concatenate([buf, jnp.zeros((extra,) + buf.shape[1:], buf.dtype)])


def tail_zeros(shape: tuple, dtype: Any) -> Any:
    return jnp.zeros(shape, dtype)


def tail_stack(*rows: Any) -> Any:
    return jnp.stack(rows)


def tail_concat(a: Any, b: Any) -> Any:
    return jnp.concatenate([a, b])


def tail_splice(a: Any, b: Any, count: Any) -> Any:
    """The first ``count`` rows of ``a``, then the rows of ``b``: ``a`` (padded by
    ``b``'s capacity) with ``b`` written from row ``count`` (``count`` is at most
    ``a``'s capacity, so the rows fit)."""
    grown = jnp.concatenate([a, jnp.zeros_like(b)])
    return lax.dynamic_update_slice_in_dim(grown, b, count, 0)


def count_plus(count: Any, k: int) -> Any:
    return count + k


def shift_rows(buf: Any, k: int, count: Any, rows: Any) -> Any:
    """``rows`` (``k`` of them) before the first ``count`` rows of ``buf``: the
    new first ``k + count`` rows (the buffer grows by ``k``)."""
    return jnp.concatenate([rows, buf])


def raise_if_outside(i: Any, n: Any, message: str) -> None:
    """At run time: eager's ``IndexError(message)`` unless ``0 <= i < n``."""
    from ..graphlib.bounded import raise_if

    raise_if((i < 0) | (i >= n), functools.partial(_raise_index, message), i)


def _raise_index(message: str, mask: Any, i: Any) -> None:
    if np.any(np.asarray(mask)):
        raise IndexError(message)


def raise_if_empty(n: Any, message: str) -> None:
    """At run time: eager's ``ValueError(message)`` when ``n == 0`` (``max([])``)."""
    from ..graphlib.bounded import raise_if

    raise_if(n == 0, functools.partial(_raise_empty, message), n)


def _raise_empty(message: str, mask: Any, n: Any) -> None:
    if np.any(np.asarray(mask)):
        raise ValueError(message)


for _fn in (tail_put, tail_get, tail_pad, tail_zeros, tail_stack, tail_concat, tail_splice, count_plus, shift_rows):
    _fn._a2g_typed = True  # type: ignore[attr-defined]
raise_if_outside._a2g_effect = True  # type: ignore[attr-defined]
raise_if_empty._a2g_effect = True  # type: ignore[attr-defined]
# run-time checks (``Specializer._check_site``): refused inside a handler that may catch them, and
# kept in Python where they follow a write of state the graph applies after the call (``late_checks``)
raise_if_outside._a2g_check = True  # type: ignore[attr-defined]
raise_if_outside._a2g_raises = (IndexError,)  # type: ignore[attr-defined]
raise_if_empty._a2g_check = True  # type: ignore[attr-defined]
raise_if_empty._a2g_raises = (ValueError,)  # type: ignore[attr-defined]


# ------------------------------------------------------ leaving the graph
@jax.tree_util.register_pytree_node_class
class VarListOut:
    """A list with a tail leaving a compiled segment: unflattens (on the host,
    after the call) to eager's list: the prefix, then ``count`` items made
    from the buffers' rows, each leaf of eager's kind."""

    def __init__(self, prefix: list, tail: VarTail):
        self.prefix, self.tail = prefix, tail

    def tree_flatten(self):
        t = self.tail
        return (self.prefix, *t.buffers, t.count), (t.tree, t.types)

    @classmethod
    def tree_unflatten(cls, aux, children):
        tree, types = aux
        prefix, *buffers, count = children
        if any(isinstance(x, jax.core.Tracer) for x in (*buffers, count)) or isinstance(count, Value) \
                or any(isinstance(x, Value) for x in buffers):
            out = cls.__new__(cls)   # (JAX's own unflattening of the template: no list yet)
            out.prefix, out.tail = prefix, VarTail(buffers, count, 0, 0, 0, tree, types)
            return out
        from ..graphlib.arrays import eager_kind

        n = int(count) if not isinstance(count, (int, np.integer)) else count
        host = [np.asarray(b) for b in buffers]
        kinds = [eager_kind(t) for t in types]
        items = []
        for k in range(n):
            leaves = [_row(b[k], kind, t) for b, kind, t in zip(host, kinds, types)]
            items.append(jax.tree_util.tree_unflatten(tree, leaves))
        return list(prefix) + items


def _row(x: np.ndarray, kind: str, t: ArrayType) -> Any:
    """One leaf of one item, as eager has it."""
    if kind == "python":
        return to_python_number(x)
    if kind == "numpy":
        return np.array(x)[()] if x.ndim == 0 else np.array(x)
    if kind == "array0":
        return np.array(x)
    out = jnp.asarray(x)
    if t.weak_type and not out.weak_type:
        from jax._src.lax.lax import _convert_element_type

        out = _convert_element_type(out, out.dtype, weak_type=True)
    return out


def lists_out(tree: Any, kept: Any, outer_traced: bool = False) -> Any:
    """``tree`` (a segment's outputs) with every list holding a tail as a
    ``VarListOut`` (lists ``kept`` leave as themselves). Raises ``ValueError``
    for such a list reached twice (eager's one object would become two), or
    at all under an outer JAX transform (its length would be a tracer)."""
    seen: set[int] = set()

    def walk(x: Any) -> Any:
        if kept(x):
            return x
        kind = type(x)
        if kind is list and tail_of(x) is not None:
            if id(x) in seen or outer_traced:
                raise ValueError("a list whose length depends on the data" + (", reached twice," if id(x) in seen
                                                                               else " (under an outer JAX transform)"))
            seen.add(id(x))
            return VarListOut([walk(v) for v in x[:-1]], x[-1])
        if kind in (list, tuple) or isinstance(x, tuple) and hasattr(kind, "_fields"):
            items = [walk(v) for v in x]
            if all(a is b for a, b in zip(items, x)):
                return x
            return kind(items) if kind in (list, tuple) else kind(*items)
        if kind is dict:
            items = {k: walk(v) for k, v in x.items()}
            return x if all(items[k] is v for k, v in x.items()) else items
        values = getattr(x, "values", None)   # specialize.MadePerCall
        if type(values) is list and hasattr(x, "names"):
            x.values = [walk(v) for v in values]
        return x

    return walk(tree)


# ------------------------------------------------------------- the mixin
class VarListMixin:
    """Lists with a traced length (see the module docstring)."""

    # ---------------------------------------------------------- making
    def _item_leaves(self, item: Any, node: Any) -> tuple[list, Any] | None:
        """An item's leaves (graph values or numbers) and tree; None if some
        leaf cannot be a row of a buffer."""
        leaves, tree = jax.tree_util.tree_flatten(item)
        if type(item) in (list, dict, set) or any(type(x) in (list, dict, set) for x in _containers(item)):
            return None   # a mutable item keeps its identity in eager: not rebuilt from rows
        out = []
        for x in leaves:
            if isinstance(x, Value):
                if x.type.mixed and "python?" in x.type.mixed:
                    return None
                if self.identity_of(x):   # the caller's NumPy array: eager's list holds it, a row is a copy
                    return None
                out.append(x)
            elif is_static_number(x) and abstract_type(x) is not None:
                out.append(x)
            else:
                return None
        return out, tree

    def _leaf_type(self, x: Any) -> ArrayType:
        return x.type if isinstance(x, Value) else abstract_type(x)

    def _join_item_types(self, node: Any, tree: Any, types: list[tuple], what: str) -> tuple:
        """One type per leaf for items of ``types`` (each a tuple of leaf types):
        the same shapes and dtypes, eager's kinds joined."""
        out = []
        for leaf_types in zip(*types):
            joined = leaf_types[0]
            for t in leaf_types[1:]:
                if not same_dtype(joined, t) or joined.shape != t.shape:
                    raise self._no_tail(node, what, f"its items are of other types ({joined} vs {t})")
                j = join_types(joined, t)
                if j is None:
                    raise self._no_tail(node, what, f"its items are of other types ({joined} vs {t})")
                kinds = joined.kinds | t.kinds
                joined = dataclasses.replace(j, weak_type=joined.weak_type and t.weak_type).with_kinds(kinds)
            if joined.dtype != leaf_types[0].dtype:
                raise self._no_tail(node, what, "its items are of other dtypes")
            out.append(joined)
        return tuple(out)

    def _no_tail(self, node: Any, what: str, why: str) -> Any:
        return self.graph_break(FallbackCode.MUTATION, node, f"{what} has another length on each path (eager's "
                                f"length depends on the data) and {why}", "if",
                                hint="append items of one type, or preallocate an array and write x[i] = v")

    def _row_value(self, x: Any, t: ArrayType, node: Any) -> Value:
        """A leaf as a row of type ``t`` (dtype and weak type; eager's kinds are the tail's)."""
        return self.convert(x, dataclasses.replace(t, numpy=False, python=False, mixed=frozenset(), array0=False), node)

    def _buffer_type(self, t: ArrayType, cap: int) -> ArrayType:
        return ArrayType((cap,) + t.shape, t.dtype, False)

    def _emit(self, fn: Any, args: tuple, node: Any) -> Value:
        """A buffer made by ``fn``: of NumPy kind, so that joins keep its dtype
        (a jax.Array's would be narrowed to 32 bits; no user code sees it)."""
        out = self.emit_call(fn, args, {}, node, fn.__name__)
        out.type = out.type.with_kinds(("numpy",))
        return out

    def _count_value(self, x: Any, node: Any) -> Value:
        v = self.convert(x, COUNT_TYPE, node) if not (isinstance(x, Value) and x.type == COUNT_TYPE) else x
        v.type = v.type.with_kinds(("python",))
        INT_BITS[v] = 40
        return v

    def make_tail(self, node: Any, items: list, what: str, cap: int | None = None) -> VarTail:
        """A tail holding ``items`` (at least one), in the current region."""
        parts = [self._item_leaves(x, node) for x in items]
        if any(p is None for p in parts):
            raise self._no_tail(node, what, "an item is not a number or an array (a tuple of them), or is an "
                                "argument's NumPy array (eager's list holds that object; a row would be a copy)")
        tree = parts[0][1]
        if any(p[1] != tree for p in parts[1:]):
            raise self._no_tail(node, what, "its items are of other structures")
        types = self._join_item_types(node, tree, [tuple(self._leaf_type(x) for x in p[0]) for p in parts], what)
        cap = len(items) if cap is None else cap
        self._check_size(node, types, cap, what)
        buffers = []
        for j, t in enumerate(types):
            rows = [self._row_value(p[0][j], t, node) for p in parts]
            buf = self._emit(tail_stack, tuple(rows), node)
            if cap > len(items):
                buf = self._emit(tail_pad, (buf, cap - len(items)), node)
            buffers.append(buf)
        count = self._count_value(len(items), node)
        return VarTail(buffers, count, cap, len(items), 0, tree, types)

    def _check_size(self, node: Any, types: tuple, cap: int, what: str) -> None:
        size = sum(int(np.prod(t.shape)) * t.dtype.itemsize for t in types) * cap
        if size > MAX_TAIL_BYTES:
            raise self._no_tail(node, what, f"its buffers would hold {size} bytes")

    def empty_tail(self, node: Any, like: VarTail, cap: int) -> VarTail:
        """No items, room for ``cap``, of ``like``'s item type."""
        buffers = [self._emit(tail_zeros, ((cap,) + t.shape, t.dtype), node) for t in like.types]
        count = self._count_value(0, node)
        self.__dict__.setdefault("_zero_counts", {})[id(count)] = count   # a count known to be 0
        return VarTail(buffers, count, cap, 0, 0, like.tree, like.types)

    def pad_tail(self, node: Any, tail: VarTail, cap: int) -> VarTail:
        if cap == tail.cap:
            return tail
        buffers = [self._emit(tail_pad, (b, cap - tail.cap), node) for b in tail.buffers]
        return tail.replace(buffers=buffers, cap=cap)

    def retype_tail(self, node: Any, tail: VarTail, types: tuple) -> VarTail:
        """The same rows, typed with ``types`` (the same dtypes; kinds joined)."""
        return tail.replace(types=types)

    def prepend_rows(self, node: Any, items: list, tail: VarTail | None, what: str) -> VarTail:
        """The tail of ``items`` followed by ``tail``'s items."""
        if tail is None:
            return self.make_tail(node, items, what)
        if not items:
            return tail
        head = self.make_tail(node, items, what)
        types = self._join_item_types(node, tail.tree, [head.types, tail.types], what)
        if head.tree != tail.tree:
            raise self._no_tail(node, what, "its items are of other structures")
        k = len(items)
        # the head's rows, then the tail's first ``count`` rows: the tail's rows move by k
        buffers = [self._emit(tail_concat, (h, b), node) for h, b in zip(head.buffers, tail.buffers)]
        count = self.binop(operator.add, tail.count, k, node)
        return VarTail(buffers, self._count_value(count, node), tail.cap + k, tail.bound + k, 0, tail.tree, types)

    # ---------------------------------------------------------- append
    def tail_append(self, obj: list, value: Any, node: Any) -> None:
        """``obj.append(value)`` on a list with a tail: the next row written."""
        tail = obj[-1]
        what = self.container_label(obj)
        part = self._item_leaves(value, node)
        if part is None or part[1] != tail.tree:
            raise self._no_tail(node, what, "the item appended is not of its items' structure, or is an argument's "
                                "NumPy array (eager's list holds that object; a row would be a copy)")
        types = self._join_item_types(node, tail.tree, [tail.types, tuple(self._leaf_type(x) for x in part[0])], what)
        if tail.room > 0:   # in a rolled loop: a row reserved for this iteration
            tail = tail.replace(room=tail.room - 1)
        elif tail.bound >= tail.cap:
            tail = self.pad_tail(node, tail, tail.cap + 1)
        index = tail.count
        buffers = [self._emit(tail_put, (b, index, self._row_value(x, t, node)), node)
                   for b, x, t in zip(tail.buffers, part[0], types)]
        count = self._count_value(self.binop(operator.add, index, 1, node), node)
        steps = self.__dict__.setdefault("_count_steps", {})   # count -> (the count it adds to, appends): a chain
        base, k = steps.get(id(index), (index, 0))
        steps[id(count)] = (base, k + 1)
        self.__dict__.setdefault("_count_keep", []).append(count)   # (ids stay unique while tracing)
        self.decide(node, "call", "buffer", f"append to {what}, whose length depends on the data: the next row of "
                    "its buffer")
        obj[-1] = VarTail(buffers, count, tail.cap, min(tail.bound + 1, tail.cap), tail.room, tail.tree, types)

    # ---------------------------------------------------------- extend
    def extend_rows(self, obj: list, items: list, node: Any) -> None:
        """``obj.extend(items)`` at trace time where either list may have a tail
        (an outside list's pending effects replayed onto its shadow: each
        traced construct's appends are one list, ``writeback._shadow``): the
        static items become rows once ``obj`` has a tail, and two tails one
        (``obj``'s rows in use, then ``items``'), so that a tail stays the last
        element and ``len`` counts every row in use."""
        extra = tail_of(items)
        for x in (items[:-1] if extra is not None else items):
            if tail_of(obj) is not None:
                self.tail_append(obj, x, node)
            else:
                obj.append(x)
        if extra is None:
            return
        if tail_of(obj) is None:
            obj.append(extra)
            return
        obj[-1] = self.concat_tails(node, obj[-1], extra, self.container_label(obj))

    def concat_tails(self, node: Any, a: VarTail, b: VarTail, what: str) -> VarTail:
        """The rows in use of ``a``, then those of ``b``: one tail of both capacities."""
        if a.tree != b.tree:
            raise self._no_tail(node, what, "its items are of other structures")
        types = self._join_item_types(node, a.tree, [a.types, b.types], what)
        self._check_size(node, types, a.cap + b.cap, what)
        buffers = [self._emit(tail_splice, (x, y, a.count), node) for x, y in zip(a.buffers, b.buffers)]
        count = self._count_value(self.binop(operator.add, a.count, b.count, node), node)
        return VarTail(buffers, count, a.cap + b.cap, a.bound + b.bound, 0, a.tree, types)

    # ------------------------------------------------------------ joins
    def join_list_structure(self, node: Any, obj: Any, name: str, outs: list) -> bool:
        """The contents of list ``obj`` after each branch (``env[name]`` of
        each of ``outs``, the branch's region and environment) made one
        structure: the common prefix, then one tail of one capacity. False:
        the structure is one already (the plain join applies)."""
        values = [env[name] for _, env in outs]
        if type(obj) is not list or (all(len(v) == len(values[0]) for v in values)
                                     and not any(_has_tail(v) for v in values)):
            return False
        what = self.container_label(obj)
        p = min(len(v) - _has_tail(v) for v in values)
        tails: list = []
        for (region, env), v in zip(outs, values):
            items = [self._unshield(x) for x in v[p:len(v) - _has_tail(v)]]
            old = v[-1] if _has_tail(v) else None
            with self.in_region(region):
                tails.append(self.prepend_rows(node, items, old, what) if items or old is not None else None)
        made = [t for t in tails if t is not None]
        tree = made[0].tree
        if any(t.tree != tree for t in made[1:]):
            raise self._no_tail(node, what, "its items are of other structures")
        types = self._join_item_types(node, tree, [t.types for t in made], what)
        cap, bound = max(t.cap for t in made), max(t.bound for t in made)
        room = min(t.room for t in made) if len(made) == len(tails) else 0
        steps = self.__dict__.setdefault("_count_steps", {})
        chains = {steps.get(id(t.count)) if t is not None else None for t in tails}
        if len(chains) == 1 and None not in chains:   # every branch appended as many: the join is that count too
            self.__dict__.setdefault("_join_chains", {})[id(obj)] = chains.pop()
        for (region, env), v, t in zip(outs, values, tails):
            with self.in_region(region):
                t = self.empty_tail(node, made[0], cap) if t is None else self.pad_tail(node, t, cap)
            env[name] = list(v[:p]) + [t.replace(types=types, bound=bound, room=room)]
        self.decide(node, "if", "buffer", f"{what} has another length after each branch: its items after the "
                    f"first {p} are a buffer of {cap} rows and a traced count")
        return True

    # ------------------------------------------------------------ reads
    def tail_len(self, obj: list, node: Any) -> Value:
        tail = obj[-1]
        n = len(obj) - 1
        return self._count_value(self.binop(operator.add, tail.count, n, node) if n else tail.count, node)

    def tail_truth(self, obj: list, node: Any) -> Any:
        if len(obj) > 1:
            return True
        return self.emit_call(operator.gt, (obj[-1].count, 0), {}, node, "gt")

    def tail_getitem(self, obj: list, idx: Any, node: Any) -> Any:
        """``obj[idx]`` for an int (static or traced): eager's IndexError checked at run time."""
        tail, p = obj[-1], len(obj) - 1
        if type(idx) is bool or not (type(idx) is int or isinstance(idx, Value) and not idx.type.shape
                                     and idx.type.dtype.kind in "iu" and not idx.type.mixed):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{self.container_label(obj)}[...] with a "
                                   "slice or another kind of index: its length depends on the data")
        if type(idx) is int and 0 <= idx < p:
            return obj[idx]
        if not self.raise_checks_allowed():
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "an index into a list whose length depends on the "
                                   "data (eager may raise IndexError) where a run-time check cannot raise it")
        n = self.tail_len(obj, node)
        # eager's position: idx, or len + idx for a negative one
        if type(idx) is int:
            pos = idx if idx >= 0 else self.binop(operator.add, n, idx, node)
        else:
            neg = self.emit_call(operator.lt, (idx, 0), {}, node, "lt")
            pos = self.emit_call(arrays.select, (neg, self.binop(operator.add, n, idx, node),
                                              self.convert(idx, n.type, node)), {}, node, "select")
        self.emit_call(raise_if_outside, (pos, n, "list index out of range"), {}, node, "index check", effect=True)
        if p:
            if not all(self._item_leaves(x, node) is not None for x in obj[:-1]):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"an index into {self.container_label(obj)} "
                                       "that may fall in its first items, which are not numbers or arrays")
            whole = self.prepend_rows(node, list(obj[:-1]), tail, self.container_label(obj))
            tail, row = whole, pos
        else:
            row = pos
        self.decide(node, "subscript", "dynamic index", f"an item of {self.container_label(obj)}, whose length "
                    "depends on the data: a row of its buffer")
        return self._item_at(tail, row, node)

    def _item_at(self, tail: VarTail, row: Any, node: Any) -> Any:
        leaves = []
        for b, t in zip(tail.buffers, tail.types):
            v = self.emit_call(tail_get, (b, row), {}, node, "row")
            if v.type.weak_type != t.weak_type:
                v = self.convert(v, dataclasses.replace(v.type, weak_type=t.weak_type), node)
            v.type = dataclasses.replace(v.type, weak_type=t.weak_type).with_kinds(t.kinds)
            if "python" in t.kinds and t.dtype.kind in "iu":
                INT_BITS[v] = 63
                WIDE_INTS.add(v)   # any int64 (a row may hold 2**40): a JAX op checks it fits int32, as eager JAX does
            leaves.append(v)
        return jax.tree_util.tree_unflatten(tail.tree, leaves)

    def _fold(self, node: Any, tail: VarTail, init: Any, step: Any) -> Any:
        """``acc = init; for k in range(count): acc = step(acc, item k)`` as a
        loop over the tail's capacity (static, reverse-differentiable), each
        step kept only while ``k < count``. ``init`` and the step's result
        must be of one type (the caller checks)."""
        init_v = [x for x in jax.tree_util.tree_leaves(init)]
        tree = jax.tree_util.tree_structure(init)
        body = Region()
        k = Value(ArrayType((), np.dtype("int64"), True, python=True), "k")
        INT_BITS[k] = max(tail.cap, 1).bit_length()
        body.args.append(k)
        args = [Value(x.type, "acc") for x in init_v]
        body.args.extend(args)
        with self.in_region(body):
            acc = jax.tree_util.tree_unflatten(tree, args)
            item = self._item_at(tail, k, node)
            new = jax.tree_util.tree_leaves(step(acc, item))
            live = self.emit_call(operator.lt, (k, tail.count), {}, node, "lt")
            out = []
            for a, b in zip(args, new):
                b = self.convert(b, a.type, node)
                v = self.emit_call(arrays.select, (live, b, a), {}, node, "select")
                v.type = a.type
                out.append(v)
            body.yields = out
        results = [Value(x.type) for x in init_v]
        self.region.ops.append(ForOp(results, self.loc(node), 0, tail.cap, list(init_v), body))
        return jax.tree_util.tree_unflatten(tree, results)

    def tail_sum(self, obj: list, start: Any, node: Any) -> Any:
        """``sum(obj, start)``: ``start + x0 + x1 ...`` in eager's order."""
        acc = self._left_sum(list(obj[:-1]), start, node)
        tail = obj[-1]
        with self.in_region(Region()):   # the type of one more ``+``
            probe = self.binop(operator.add, acc, self._item_at(tail, 0, node), node)
        before = acc.type if isinstance(acc, Value) else abstract_type(acc)
        if not isinstance(probe, Value) or probe.type.mixed or before is None or before.kinds != probe.type.kinds \
                or before.dtype != probe.type.dtype or before.shape != probe.type.shape:
            # the tail may be empty: the result is then ``acc`` as it is, of another type or kind
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"sum() of {self.container_label(obj)}, whose "
                                   "length depends on the data: when its last items are none, eager's result is "
                                   f"{describe(acc)}, of another type or kind than with them ({probe.type})",
                                   hint=f"give sum() a start of the items' type: sum(xs, {_zero_of(probe.type)})")
        acc_v = self.convert(acc, probe.type, node)
        acc_v.type = probe.type
        self.decide(node, "call", "fold", f"sum() of {self.container_label(obj)}, whose length depends on the data: "
                    "a loop over its buffer, in eager's order")
        return self._fold(node, tail, acc_v, lambda a, x: self.binop(operator.add, a, x, node))

    def tail_extreme(self, obj: list, is_max: bool, node: Any) -> Any:
        """``max(obj)``/``min(obj)``: Python's choice of item (a later one
        wins only when strictly greater), eager's ValueError when empty."""
        tail, name = obj[-1], "max" if is_max else "min"
        if any(t.shape for t in tail.types) or len(tail.types) != 1:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name}() of {self.container_label(obj)}, "
                                   "whose items are not scalars")
        if len(obj) == 1:
            if not self.raise_checks_allowed():
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{name}() of a list that may be empty where a "
                                       "run-time check cannot raise eager's ValueError")
            self.emit_call(raise_if_empty, (tail.count, _empty_message(max if is_max else min)), {}, node,
                           "empty check", effect=True)
        else:   # the first items too, as rows before the tail's (their types joined with its items')
            if not all(self._item_leaves(x, node) is not None for x in obj[:-1]):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name}() of {self.container_label(obj)}: "
                                       "its first items are not numbers")
            tail = self.prepend_rows(node, list(obj[:-1]), tail, self.container_label(obj))
        first = self._item_at(tail, 0, node)   # (folded again from row 0: x > x never holds)
        rest = tail
        t = tail.types[0]
        acc = self.convert(first, dataclasses.replace(t, mixed=frozenset()), node)
        acc.type = t
        cmp = operator.gt if is_max else operator.lt

        def step(a: Any, x: Any) -> Any:
            better = self.truth(self.binop(cmp, x, a, node), node)
            out = self.emit_call(arrays.select, (better, x, a), {}, node, "select")
            out.type = t
            return out

        self.decide(node, "call", "fold", f"{name}() of {self.container_label(obj)}, whose length depends on the "
                    "data: a loop over its buffer")
        return self._fold(node, rest, acc, step)

    # ------------------------------------------------------ rolled loops
    def grow_carried(self, stmt: Any, names: list[str], state: dict, env: dict, env0: dict) -> bool:
        """After a pass of a rolled loop: a list the loop carries (its contents
        ``<container ...>`` in ``names``) that grew by appends is carried from
        now on as its prefix and a tail with room for ``M * d`` more items (the
        loop's static maximum trip count ``M``, at most ``d`` appends per
        iteration); ``state`` (the carried templates), ``env`` (this pass's
        contents, abstract) and ``env0`` (the entry, in the enclosing region)
        are rewritten. True: solve again (this pass had another structure)."""
        loop = self.container_loops[-1]
        again = False
        for n in names:
            if not n.startswith("<container ") or type(self._container_object(n)) is not list:
                continue
            old, new = state.get(n), env.get(n)
            if type(old) is not list or type(new) is not list:
                continue
            again |= self._grow_one(stmt, n, old, new, state, env, env0, loop)
        return again

    def _grow_one(self, stmt: Any, n: str, old: list, new: list, state: dict, env: dict, env0: dict, loop: Any) -> bool:

        old_tail, new_tail = (old[-1] if _has_tail(old) else None), (new[-1] if _has_tail(new) else None)
        p_old, p_new = len(old) - _has_tail(old), len(new) - _has_tail(new)
        limit = loop.len_bounds.get(id(self._container_object(n)))
        if (old_tail is None and new_tail is None and p_new == p_old) or p_new < p_old or \
                loop.max_trips is None and limit is None:
            return False
        if new_tail is not None and old_tail is not None and (p_new != p_old or new_tail.tree != old_tail.tree):
            return False
        reserved = loop.growth.get(n)
        if reserved is not None:
            d, cap = reserved[:2]
            used = d - new_tail.room + (new_tail.cap - cap)
            if used <= d and p_new == p_old:   # within the rows reserved: the template's form again
                # every iteration appends d items (no traced condition): the count after the loop is known
                start = self.__dict__.get("_pass_counts", {}).get(n)
                chain = self.__dict__.get("_count_steps", {}).get(id(new_tail.count))
                loop.growth[n] = (d, cap, chain is not None and start is not None and chain[0] is start
                                  and chain[1] == d)
                env[n] = new[:p_old] + [new_tail.replace(room=d, bound=cap, cap=cap)]
                return False
        else:
            used = (p_new - p_old) + ((new_tail.bound - (old_tail.bound if old_tail else 0)) if new_tail else 0)
            d = 0
        d = max(d, used)
        obj = self._container_object(n)
        what = self.container_label(obj)
        entry = env0[n]
        entry_tail = entry[-1] if _has_tail(entry) else None
        parts = [x for x in new[p_old:p_new]]
        templates = [(t.tree, t.types) for t in (entry_tail, new_tail) if t is not None]
        for x in parts:
            leaves = self._item_leaves(self._unshield(x), stmt)
            if leaves is None:
                raise self._no_tail(stmt, what, "an item appended in the loop is not a number or an array, or is an "
                                    "argument's NumPy array (eager's list holds that object; a row would be a copy)")
            templates.append((leaves[1], tuple(self._leaf_type(v) if not isinstance(v, _Traced) else v.type
                                               for v in leaves[0])))
        tree = templates[0][0]
        if any(t[0] != tree for t in templates[1:]):
            raise self._no_tail(stmt, what, "its items are of other structures")
        types = self._join_item_types(stmt, tree, [t[1] for t in templates], what)
        start = entry_tail.bound if entry_tail is not None else 0
        if loop.max_trips is not None:
            cap = max(entry_tail.cap if entry_tail is not None else 0, start + loop.max_trips * d)
        else:   # ``while len(xs) < n``: fewer than n items when an iteration starts, d more in it at most
            cap = max(entry_tail.cap if entry_tail is not None else 0, start, limit - 1 + d - p_old)
        self._check_size(stmt, types, cap, what)
        tail_t = VarTail([_Traced(self._buffer_type(t, cap).with_kinds(("numpy",))) for t in types],
                         _Traced(COUNT_TYPE), cap, cap, d, tree, types)
        state[n] = old[:p_old] + [tail_t]
        env[n] = new[:p_old] + [tail_t]
        if entry_tail is None:
            like = VarTail([], None, 0, 0, 0, tree, types)
            entry_tail = self.empty_tail(stmt, like, cap)
        else:
            entry_tail = self.pad_tail(stmt, entry_tail, cap)
        env0[n] = list(entry[:p_old]) + [entry_tail.replace(bound=cap, room=d, types=types)]
        loop.before[id(obj)] = env0[n]
        loop.growth[n] = (d, cap, False)
        self.decide(stmt, "loop", "buffer", f"{what} grows by up to {d} item(s) an iteration: carried as a buffer of "
                    f"{cap} rows and a traced count")
        return True

    def note_joined(self, obj: Any) -> None:
        """The joined contents are in ``obj``: a count every branch chained
        alike from one before the ``if`` is that chain after it too."""
        chain = self.__dict__.get("_join_chains", {}).pop(id(obj), None)
        if chain is not None and tail_of(obj) is not None:
            self.__dict__["_count_steps"][id(obj[-1].count)] = chain
            self.__dict__.setdefault("_count_keep", []).append(obj[-1].count)

    def note_pass_entry(self, name: str, contents: Any) -> None:
        """A pass of a rolled loop begins with ``contents`` in a carried list:
        the count its tail has then (appends chain from it)."""
        if _has_tail(contents):
            self.__dict__.setdefault("_pass_counts", {})[name] = contents[-1].count

    def finish_grown(self, node: Any, name: str, obj: Any, loop: Any) -> None:
        """After a rolled loop: its tail takes no reserved rows any more; where
        every iteration appended (a static trip count, no traced condition)
        and the count before was known, the list is eager's list of known
        length again, its items the buffer's rows."""
        tail = tail_of(obj)
        if tail is None:
            return
        tail = tail.replace(room=0, bound=tail.cap)
        obj[-1] = tail
        grown = loop.growth.get(name)
        entry = loop.before.get(id(obj))
        limit = loop.len_bounds.get(id(obj))
        if limit is not None and loop.len_exit and grown is not None and grown[0] == 1 and _has_tail(entry):
            # ``while len(xs) < n`` and nothing else ends it, one append an
            # iteration at most, from fewer than n + 1 items: n items after it
            prefix = len(entry) - 1
            if prefix + entry[-1].bound <= limit and limit - prefix <= min(tail.cap, self.options.max_unroll):
                obj[-1:] = [self._item_at(tail, k, node) for k in range(limit - prefix)]
            return
        if grown is None or not grown[2] or not loop.trips_static or not _has_tail(entry) \
                or type(entry[-1].count) is not int and not self._known_zero(entry[-1].count):
            return
        count = (entry[-1].count if type(entry[-1].count) is int else 0) + loop.max_trips * grown[0]
        if count > min(tail.cap, self.options.max_unroll):
            return
        obj[-1:] = [self._item_at(tail, k, node) for k in range(count)]

    def _known_zero(self, count: Any) -> bool:
        return isinstance(count, Value) and id(count) in self.__dict__.get("_zero_counts", {})

    # ----------------------------------------------------------- guards
    def check_no_varlist(self, fn: Any, args: tuple, kwargs: dict, node: Any) -> None:
        """A Python call at trace time must not see a tail (it would take it
        for one item): it falls back, except a store that only moves the list."""
        owner = getattr(fn, "__self__", None)
        name = getattr(fn, "__name__", "")
        moving = (fn is operator.setitem and len(args) == 3 and not holds_tail(args[:2])) or \
            (type(owner) in (list, dict) and name in ("append", "insert", "__setitem__", "setdefault")
             and not holds_tail(owner) and not holds_tail(args[:-1]))
        if moving or not holds_tail((owner, args, kwargs)):
            return
        raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{getattr(fn, '__qualname__', name) or fn} of a "
                               "list whose length depends on the data (it needs the list itself)",
                               hint="read it with len(), xs[i], sum(), max() or min(), or return it")

    def varlist_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A builtin on a list with a tail that stays in the graph, else NotImplemented."""
        if not args or tail_of(args[0]) is None:
            return NotImplemented
        obj = args[0]
        if callee is len and len(args) == 1 and not kwargs:
            return self.tail_len(obj, node)
        if callee is bool and len(args) == 1 and not kwargs:
            t = self.tail_truth(obj, node)
            if isinstance(t, Value):
                t = self.emit_call(operator.ne, (t, False), {}, node, "bool")
                t.type = t.type.with_kinds(("python",))
            return t
        if callee is sum and len(args) + len(kwargs) <= 2 and set(kwargs) <= {"start"}:
            return self.tail_sum(obj, (*args[1:], *kwargs.values(), 0)[0], node)
        if callee in (max, min) and len(args) == 1 and not kwargs:
            return self.tail_extreme(obj, callee is max, node)
        if callee is list and len(args) == 1 and not kwargs:
            return self.mark_fresh(list(obj))   # a copy: the same items, the same tail
        if isinstance(callee, (types.BuiltinFunctionType, type)):   # sorted, tuple, str, ...: the list itself
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{getattr(callee, '__name__', callee)}() of "
                                   f"{self.container_label(obj)}, whose length depends on the data (it needs the "
                                   "list itself)", hint="read it with len(), xs[i], sum(), max() or min(), or return it")
        return NotImplemented

    def check_varlist_iteration(self, value: Any, node: Any) -> None:
        if tail_of(value) is not None:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"iteration over {self.container_label(value)}, "
                                   "whose length depends on the data", hint="iterate over range(len(xs)) and read xs[i]")


def _empty_message(fn: Any) -> str:
    """What this Python's ``max([])``/``min([])`` says."""
    try:
        fn([])
    except ValueError as e:
        return str(e)
    return f"{fn.__name__}() arg is an empty sequence"


def _zero_of(t: ArrayType) -> str:
    """A start for ``sum`` of items of type ``t``, as the user would write it."""
    if t.shape:
        return f"np.zeros({t.shape}, np.{t.dtype.name})" if t.numpy else f"jnp.zeros({t.shape}, jnp.{t.dtype.name})"
    if t.python:
        return "0.0" if t.dtype.kind == "f" else "0"
    return f"np.{t.dtype.name}(0)" if t.numpy else f"jnp.zeros((), jnp.{t.dtype.name})"


def _has_tail(contents: Any) -> int:
    return int(type(contents) is list and bool(contents) and type(contents[-1]) is VarTail)


def _containers(tree: Any) -> list:
    out = []
    stack = [tree]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            out.append(x)
            stack.extend(x)
        elif isinstance(x, dict):
            out.append(x)
            stack.extend(x.values())
    return out[1:] if out and out[0] is tree else out
