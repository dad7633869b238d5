"""A traced integer index into a Python list or tuple of numbers.

Requires: the interpreter (``emit_call``, ``as_value``, ``check_mutable``,
guards), ``arrays.pick_item``/``put_item``/``index_range_check``.
Produces: ``ListIndexMixin.pick_item`` (``xs[b]``) and ``store_item``
(``xs[b] = v``, ``xs[b] += 1``) for a traced int ``b`` (``int(...)`` of an
array, a loop counter): the element chosen in the graph by a select over
the elements, whose eager class is one for all of them (Python ints, or
floats, or jax scalars of one type); a store makes every element of the
list a traced value of that class.
Also ``table[i][j]`` (``nested_pick``) for a traced ``i`` into a list or
tuple of rows of one length (lists or tuples of numbers, or of arrays of one
shape): the items ``row[j]`` of every row, then the one of row ``i`` picked.
Invariants: eager's ``IndexError`` for an index out of range, through a
run-time check (the outer index's first, as eager raises it first); elements of different classes (an int and a float, where
eager's element at ``b`` would be of a class that depends on ``b``) fall
back, never joined into one class.
"""

from __future__ import annotations

from typing import Any

import gast
import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import KindedValue, Value
from ..graphlib import arrays
from .lattice import INT_BITS, WIDE_INTS, is_traceable_number, static_array_type
from .varlist import tail_of


def traced_index(idx: Any) -> bool:
    """``idx`` is a traced integer scalar (what eager indexes a list with, by ``__index__``)."""
    return isinstance(idx, Value) and not idx.type.shape and idx.type.dtype.kind in "iu" and not idx.type.mixed


def _element_class(x: Any) -> tuple | None:
    """What eager has for an element, as far as the graph tells: its kinds,
    shape, dtype and weak type (a static Python number: as a traced one)."""
    if isinstance(x, Value):
        t = x.type
        return None if t.mixed else (t.kinds, t.shape, t.dtype, t.weak_type)
    if type(x) in (bool, int, float) and is_traceable_number(x):
        t = static_array_type(x)
        return (t.kinds, t.shape, t.dtype, t.weak_type)
    return None


def _int_bits(x: Any) -> int:
    return INT_BITS.get(x, 63) if isinstance(x, Value) else abs(int(x)).bit_length()


def _plain_index(node: Any) -> bool:
    """An index expression of names, constants and arithmetic (``j``, ``-1``,
    ``k % 3``): evaluated after the outer index is checked, as eager does."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.UnaryOp):
        return _plain_index(node.operand)
    return isinstance(node, gast.BinOp) and _plain_index(node.left) and _plain_index(node.right)


class ListIndexMixin:
    """``xs[b]`` and ``xs[b] = v`` with a traced int ``b`` (see the module docstring)."""

    @staticmethod
    def uniform_items(seq: Any, extra: tuple = ()) -> bool:
        """Every element (and ``extra``) a number of one class: ``pick_item``/``store_item``
        apply (else the container join of ``containers.py`` does, kinds joined as after a branch)."""
        classes = {_element_class(x) for x in (*seq, *extra)}
        return bool(seq) and None not in classes and len(classes) == 1

    def _uniform_items(self, seq: Any, node: Any, extra: tuple = ()) -> tuple:
        if not self.uniform_items(seq, extra):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"a traced index into a Python "
                                   f"{type(seq).__name__} whose elements are not numbers of one class (eager's "
                                   "element would be of a class that depends on the index)")
        return _element_class(seq[0])

    def _typed_result(self, out: Value, cls: tuple, sources: tuple) -> Value:
        out.type = out.type.with_kinds(cls[0])
        if "python" in cls[0] and cls[2].kind in "iu":
            bits = max(_int_bits(x) for x in sources)
            if bits < 63:
                INT_BITS[out] = bits
            if bits > 31 or any(isinstance(x, Value) and x in WIDE_INTS for x in sources):
                WIDE_INTS.add(out)
        return out

    def _check_index(self, idx: Value, node: Any) -> None:
        if self.outer_traced and "jax" in idx.type.kinds:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a traced index into a Python container under "
                                   "an outer JAX transform (eager's index is a JAX tracer)")

    def pick_item(self, seq: Any, idx: Value, node: Any) -> Any:
        """``seq[idx]`` of a list or tuple for a traced int ``idx``."""
        self._check_index(idx, node)
        cls = self._uniform_items(seq, node)
        if not self._is_fresh(seq):
            self._guard_contents(seq, node)   # the graph holds its elements: a change re-specialises
        self.emit_call(arrays.index_range_check, (idx, len(seq), f"{type(seq).__name__} index out of range"), {},
                       node, "index check", effect=True)
        items = tuple(self.as_value(x, node) for x in seq)
        out = self.emit_call(arrays.pick_item, (idx, *items), {}, node, "pick")
        self.decide(node, "subscript", "select", f"a traced index into a Python {type(seq).__name__} of "
                    f"{len(seq)} elements: selected in the graph")
        return self._typed_result(out, cls, tuple(seq))

    def nested_pick(self, node: Any) -> Any:
        """``table[i][j]`` with a traced int ``i`` and rows of one type and
        length: eager's ``table[i]`` is a row object, never made here (so it
        cannot be written into or compared by identity); only its item is.
        NotImplemented where this does not apply (``node.value`` is then
        not evaluated)."""
        inner = node.value
        if not isinstance(inner, gast.Subscript) or not _plain_index(node.slice):
            return NotImplemented
        table = self.eval(inner.value)
        i = self.eval_index(inner.slice)
        rows = list(table) if type(table) in (list, tuple) and traced_index(i) else ()
        if not rows or len({(type(r), len(r)) for r in rows if type(r) in (list, tuple)}) != 1 \
                or any(type(r) not in (list, tuple) or tail_of(r) is not None for r in rows) or tail_of(table) is not None:
            return self._split_subscript(self._split_subscript(table, i, inner), self.eval_index(node.slice), node)
        self._check_index(i, node)
        self.check_no_effect(table, node)
        if not self._is_fresh(table) and type(table) is not tuple:
            self._guard_contents(table, node)   # which rows it holds, and what they hold
        self._index_check(inner, i, len(rows), f"{type(table).__name__} index out of range")
        j = self.eval_index(node.slice)
        picks = self.mark_fresh([self.subscript(row, j, node) for row in rows])
        self.decide(node, "subscript", "select", f"a traced index into a Python {type(table).__name__} of "
                    f"{len(rows)} rows: the item of each row, one selected in the graph")
        return self.subscript(picks, i, node)

    def _split_subscript(self, obj: Any, idx: Any, node: Any) -> Any:
        """``obj[idx]`` as ``eval_Subscript`` makes it (by each path's kind)."""
        if type(obj) is KindedValue or type(idx) is KindedValue:
            return self.split_kinds((obj, idx), lambda oi: self.subscript(*oi, node), node)
        return self.subscript(obj, idx, node)

    def store_item(self, seq: list, idx: Value, value: Any, node: Any) -> None:
        """``seq[idx] = value`` on a list made in the function, for a traced int ``idx``."""
        self._check_index(idx, node)
        cls = self._uniform_items(seq, node, (value,))
        self.emit_call(arrays.index_range_check, (idx, len(seq), "list assignment index out of range"), {},
                       node, "index check", effect=True)
        items = tuple(self.as_value(x, node) for x in seq)
        new = self.emit_call(arrays.put_item, (idx, self.as_value(value, node), *items), {}, node, "put")
        self.decide(node, "subscript", "select", f"a traced index into a Python list of {len(seq)} elements: "
                    "each element selected in the graph")
        sources = (*seq, value)
        seq[:] = [self._typed_result(v, cls, sources) for v in new]
