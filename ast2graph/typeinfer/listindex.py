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
Also ``row = table[i]`` then ``row[j]``, ``len(row)``, ``sum(row)``,
``list(row)``, ``np.asarray(row)`` (``PickedRow``): eager's row is one of the
row objects, itself; the stand-in holds the row objects ``table`` held when
it was indexed and the traced ``i``, and each read of it picks, from what
the rows hold at that moment, the item of row ``i``. Any other use (a write
into it, returned, compared by identity, handed to a function) falls back:
the statement that made it runs in Python, with eager's row.
And ``xs[i]`` of an outside list or tuple of ``jax.Array``s of one shape and
dtype (each one an input of the graph, then one picked by selects).
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
from .kinds import standin
from .lattice import INT_BITS, WIDE_INTS, is_array, is_traceable_number, static_array_type
from .varlist import tail_of

# callables that only read the items of a row and make a new object of them (or a number):
# given the picked items as a list of this call's own, they compute eager's result
_READS_ITEMS = (len, sum, min, max, any, all, list, tuple, sorted, np.array, np.asarray)


@standin
class PickedRow:
    """``table[i]`` for a traced ``i``: one of ``rows`` (the row objects the
    table held when it was indexed; lists or tuples of one length)."""

    __slots__ = ("rows", "index")
    stands_for_several = True   # ``kinds.same_object``: its identity depends on the data

    def __init__(self, rows: list, index: Value):
        self.rows, self.index = rows, index

    def __repr__(self) -> str:
        return f"<row picked by a traced index from {len(self.rows)} rows>"


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
            if bits < 63 or all(x in INT_BITS for x in sources if isinstance(x, Value)):
                INT_BITS[out] = bits   # (63 known: a sum of it is checked for leaving int64)
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

    @staticmethod
    def _rows_of(table: Any) -> list | None:
        """The rows of ``table`` when it is a list or tuple of lists or tuples of one type and length."""
        rows = list(table) if type(table) in (list, tuple) and tail_of(table) is None else ()
        if not rows or len({(type(r), len(r)) for r in rows if type(r) in (list, tuple)}) != 1 \
                or any(type(r) not in (list, tuple) or tail_of(r) is not None for r in rows):
            return None
        return rows

    def picked_row(self, table: Any, i: Value, node: Any) -> Any:
        """``table[i]`` of rows of one type and length: a ``PickedRow``; NotImplemented where it does not apply."""
        rows = self._rows_of(table)
        if rows is None or not traced_index(i):
            return NotImplemented
        self._check_index(i, node)
        self.check_no_effect(table, node)
        if not self._is_fresh(table) and type(table) is not tuple:
            self._guard_contents(table, node)   # which rows it holds, and what they hold
        self._index_check(node, i, len(rows), f"{type(table).__name__} index out of range")
        self.decide(node, "subscript", "select", f"a traced index into a Python {type(table).__name__} of "
                    f"{len(rows)} rows: the row stands for all of them, its items picked in the graph when read")
        return PickedRow(rows, i)

    def row_item(self, row: PickedRow, j: Any, node: Any) -> Any:
        """``row[j]`` of a picked row: the item ``j`` of every row, the one of row ``row.index`` picked."""
        for r in row.rows:
            self.check_no_effect(r, node)
        picks = self.mark_fresh([self.subscript(r, j, node) for r in row.rows])
        return self.subscript(picks, row.index, node)

    def row_items(self, row: PickedRow, node: Any) -> list:
        """The items of a picked row, each picked in the graph: a list of this call's own."""
        return self.mark_fresh([self.row_item(row, k, node) for k in range(len(row.rows[0]))])

    def live_row_items(self, row: PickedRow, node: Any) -> Any:
        """``for v in row``: item ``k`` picked when the loop pulls it, as eager's list iterator reads it;
        a row whose length the body changed falls back (eager's iteration then depends on the row)."""
        n = len(row.rows[0])
        for k in range(n):
            if any(len(r) != n for r in row.rows):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "iteration over a row picked by a traced "
                                       "index whose rows the loop made of other lengths (eager's iteration depends "
                                       "on which row it is)")
            yield self.row_item(row, k, node)

    def picked_row_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``len(row)``, ``sum(row)``, ``list(row)``, ... of picked rows; NotImplemented for any other call."""
        if not any(callee is f for f in _READS_ITEMS) or any(isinstance(v, PickedRow) for v in kwargs.values()):
            return NotImplemented
        if callee is len and len(args) == 1 and not kwargs:
            return len(args[0].rows[0])
        args = tuple(self.row_items(a, node) if isinstance(a, PickedRow) else a for a in args)
        return self.call(callee, args, kwargs, node)

    def outside_arrays(self, seq: Any, node: Any) -> list | None:
        """The items of an outside list or tuple of ``jax.Array``s of one shape and dtype,
        each read as ``seq[k]`` reads it (an input of the graph); None otherwise."""
        if self._made_here(seq) or not seq or not all(is_array(x) and not isinstance(x, (np.ndarray, np.generic))
                                                      for x in seq):
            return None
        if len({(x.shape, x.dtype, getattr(x, "weak_type", False)) for x in seq}) != 1:
            return None
        return self.mark_fresh([self.subscript(seq, k, node) for k in range(len(seq))])

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
