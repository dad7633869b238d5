"""``sorted()`` of traced scalars in the graph, as CPython's ``list.sort`` orders them.

Requires: the ``Specializer`` state (mixed in): ``iterate_static``, ``call``,
``emit_call``, ``graph_break``, ``decide``, ``mark_fresh``, ``guard_reads``.
Produces: ``SortMixin.traced_sorted(args, kwargs, node)``: the new list
``sorted(xs, key=..., reverse=...)`` returns when some keys are traced
scalars: its items (or each field of tuple items) picked by a traced
permutation; ``cpython_sort_order``,
the run-time function computing that permutation.
Invariants: the permutation is the one CPython 3.11/3.12 computes, comparison
for comparison, not merely *a* sorted order: for keys with a total order every
stable sort agrees, but with a NaN among floats (every comparison with it
false) the order is the algorithm's own. For fewer than 64 items
``list.sort`` is ``count_run`` (the leading non-descending or strictly
descending run, reversed if descending) then ``binarysort`` (binary insertion
of each later item: ``pivot < a[p]`` decides, the pivot goes after its equals),
with ``reverse=True`` reversing the list before and after (stability kept);
``cpython_sort_order`` makes exactly those comparisons' choices with
``jnp.where``. The keys compared are of one dtype and one eager kind (a
comparison of mixed kinds or dtypes promotes by rules the emulation does not
repeat), ints, floats or bools; anything else, 64 items or more, or another
Python version runs in Python (a fallback, never an approximation).
"""

from __future__ import annotations

import sys
from typing import Any

import jax.numpy as jnp
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import KindedValue, Value

# CPython's list.sort for n < MIN_MERGE is count_run + binarysort (Objects/listobject.c);
# 3.13 changed count_run (descending runs with equal items), which reorders NaN-holding lists.
MIN_MERGE = 64
EMULATED_VERSIONS = ((3, 11), (3, 12))


def cpython_sort_order(keys: tuple, reverse: bool) -> Any:
    """The permutation ``list.sort`` applies to ``keys`` (n < 64): ``order[j]``
    is the index of the item at position ``j`` of the sorted list."""
    n = len(keys)
    a = jnp.stack([jnp.asarray(k) for k in keys])
    if a.dtype == jnp.bool_:
        a = a.astype(jnp.int8)   # False < True, as Python's bools compare
    idx = jnp.arange(n)
    perm = idx[::-1] if reverse else idx
    a = a[::-1] if reverse else a
    if n >= 2:
        lt = a[1:] < a[:-1]                       # lt[k-1]: a[k] < a[k-1]
        descending = lt[0]
        extends = jnp.where(descending, lt, ~lt)  # extends[0] holds by definition
        run = 1 + jnp.sum(jnp.cumprod(extends.astype(jnp.int32)))
        src = jnp.where(descending & (idx < run), run - 1 - idx, idx)   # reverse_slice of a descending run
        a, perm = a[src], perm[src]
        for start in range(1, n):
            a, perm = _insert(a, perm, start, start >= run, idx)
    return perm[::-1] if reverse else perm


def _insert(a: Any, perm: Any, start: int, live_step: Any, idx: Any) -> tuple:
    """One step of binarysort: ``a[start]`` into the sorted ``a[:start]``
    (skipped while ``start`` is inside the initial run)."""
    pivot, pivot_at = a[start], perm[start]
    lo, hi = jnp.int32(0), jnp.int32(start)
    for _ in range(start.bit_length()):   # the interval at least halves: bit_length(start) probes at most
        live = lo < hi
        p = lo + ((hi - lo) >> 1)
        less = pivot < a[p]
        hi = jnp.where(live & less, p, hi)
        lo = jnp.where(live & ~less, p + 1, lo)
    shifted = (idx > lo) & (idx <= start)
    prev = jnp.maximum(idx - 1, 0)
    new_a = jnp.where(idx == lo, pivot, jnp.where(shifted, a[prev], a))
    new_perm = jnp.where(idx == lo, pivot_at, jnp.where(shifted, perm[prev], perm))
    return jnp.where(live_step, new_a, a), jnp.where(live_step, new_perm, perm)


def take_sorted(order: Any, items: tuple) -> tuple:
    """The items in ``order`` (all of one shape and dtype)."""
    stacked = jnp.stack([jnp.asarray(x) for x in items])
    return tuple(stacked[order[j]] for j in range(len(items)))


# run at the graph's precision: the keys and items keep their dtypes (a Python int's int64, a float's float64)
cpython_sort_order._a2g_typed = True
take_sorted._a2g_typed = True


def _python_kind(x: Any) -> type | None:
    return type(x) if type(x) in (bool, int, float) else None


class SortMixin:
    """``sorted()`` of a static-length sequence whose keys are traced scalars."""

    def traced_sorted(self, args: tuple, kwargs: dict, node: Any) -> Any:
        if len(args) != 1 or set(kwargs) - {"key", "reverse"}:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "sorted() takes one positional argument and "
                                   "key=/reverse= (eager raises TypeError otherwise): it runs in Python")
        reverse, key = kwargs.get("reverse", False), kwargs.get("key")
        if isinstance(reverse, (Value, KindedValue)) or type(reverse) not in (bool, int):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "sorted(..., reverse=) needs a Python bool")
        items = list(self.iterate_static(args[0], node))
        keys = items if key is None else [self.call(key, (item,), {}, node) for item in items]
        from .state import contains_value

        if not contains_value(keys):   # every comparison decided now, as eager's
            order = sorted(range(len(items)), key=keys.__getitem__, reverse=bool(reverse))
            return self.mark_fresh([items[i] for i in order])
        why = self._unsortable(keys, items)
        if why:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"sorted() of traced values: {why}")
        self.decide(node, "call", "graph", f"sorted() of {len(items)} traced keys: CPython's list.sort "
                    "(count_run + binarysort) computed in the graph")
        keys = self._of_one_type(keys, node)
        order = self.emit_call(cpython_sort_order, (tuple(keys), bool(reverse)), {}, node, "sorted")
        if _records(items):   # tuples of one length (``(i, x[i])``): each field picked by the same order
            fields = [self._picked(order, list(column), node) for column in zip(*items)]
            return self.mark_fresh([tuple(f[j] for f in fields) for j in range(len(items))])
        return self.mark_fresh(self._picked(order, items, node))

    def _picked(self, order: Value, items: list, node: Any) -> list:
        """``items`` (of one type) in the traced ``order``."""
        items = self._of_one_type(items, node)
        picked = self.emit_call(take_sorted, (order, tuple(items)), {}, node, "sorted items")
        for v in picked:
            v.type = v.type.with_kinds(items[0].type.kinds)
        return list(picked)

    def _of_one_type(self, seq: list, node: Any) -> list:
        """The values as graph values of the traced ones' type (static Python
        numbers converted to it; all static: each a Python number's value)."""
        traced = next((x.type for x in seq if isinstance(x, Value)), None)
        values = [x if isinstance(x, Value) else self.as_value(x, node) for x in seq]
        return values if traced is None else [self.convert(v, traced, node) for v in values]

    @staticmethod
    def _unsortable(keys: list, items: list) -> str:
        """Why the emulation cannot sort these keys and items ('' when it can)."""
        if sys.version_info[:2] not in EMULATED_VERSIONS:
            return f"CPython {sys.version_info[0]}.{sys.version_info[1]}'s list.sort is not emulated"
        if len(keys) >= MIN_MERGE:
            return f"{len(keys)} items (timsort merges runs from {MIN_MERGE} on; only binarysort is emulated)"
        columns = [list(c) for c in zip(*items)] if _records(items) else [items]
        for what, seq in (("keys", keys), *(("items", c) for c in columns)):
            if not _homogeneous(seq, scalar=what == "keys"):
                return (f"the {what} are not all scalars of one dtype and one kind (eager compares mixed kinds "
                        "by its own promotion rules)" if what == "keys" else
                        "the items are not all arrays of one shape, dtype and kind")
        return ""


def _records(items: list) -> bool:
    """Plain tuples of one length, at least one field (sorted field by field)."""
    return bool(items) and all(type(x) is tuple for x in items) and len({len(x) for x in items}) == 1 \
        and len(items[0]) > 0


def _homogeneous(seq: list, scalar: bool) -> bool:
    """All traced values of one type and eager kind (static Python numbers of
    the matching Python type allowed beside traced Python numbers)."""
    traced = [x for x in seq if isinstance(x, (Value, KindedValue))]
    if any(type(x) is KindedValue or x.type.mixed for x in traced):
        return False
    t = traced[0].type if traced else None
    if t is None:
        return all(_python_kind(x) is not None for x in seq) and len({type(x) for x in seq}) == 1
    if scalar and (t.shape or t.dtype.kind not in "biuf"):
        return False
    if any(x.type != t or x.type.kinds != t.kinds for x in traced):
        return False
    statics = [x for x in seq if not isinstance(x, Value)]
    want = {"b": bool, "i": int, "u": int, "f": float}.get(t.dtype.kind)
    return not statics or (t.kinds == frozenset({"python"}) and all(type(x) is want for x in statics))
