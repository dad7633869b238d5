"""Fallbacks found on realistic programs (issue 16), hunt 14.

Each function is compared with its eager run on inputs that take every path,
under ``full_graph=True`` where it is one graph; where a site falls back by
design, the test asserts the site and eager's result without ``full_graph``.
Where a function reads state, the caller changes it between calls
(``check_sequence``).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import FullGraphError, to_static
from helpers import check, check_sequence

ROW0 = jnp.array([0.0, 1.0, 1.0])    # int(sum) % 2 == 0
ROW1 = jnp.arange(3.0)               # int(sum) % 2 == 1


def _pick(x):
    return int(x.sum()) % 2


# ------------------------------------------ 1. row = table[i] with a traced i, then row[j]
TABLE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]


def row_then_items(x):
    row = TABLE[_pick(x)]
    j = int(x[2]) % 3
    return row[1] * x + row[-1], row[j], len(row), sum(row), max(row), list(row)


def row_of_tuples_unpacked(x):
    pairs = [(1, 2.5), (3, 4.5)]
    scale, shift = pairs[_pick(x)]
    return scale * x + shift


def row_iterated_and_comprehended(x):
    row = TABLE[_pick(x)]
    total = 0.0
    for v in row:
        total = total + v * x
    return total, [2 * v for v in row], np.asarray(row)


def row_in_a_loop(x):
    t = [[1.0, 2.0], [3.0, 4.0]]
    acc = 0.0
    for k in range(3):
        row = t[(int(x.sum()) + k) % 2]
        acc = acc + row[0] * row[1]
    return acc * x


def row_index_out_of_range(x):
    row = TABLE[_pick(x) + 1]     # 2 is out of range: eager's IndexError at the pick
    return row[0] * x


def row_kept_after_table_rebound(x):
    t = [[1, 2], [3, 4]]
    row = t[_pick(x)]
    t[0] = [10, 20]           # eager's row is still the old row 0
    t[1][1] = 40              # ... and sees this write into row 1
    return row[1] * x, t


@pytest.mark.parametrize("fn", [row_then_items, row_of_tuples_unpacked, row_iterated_and_comprehended,
                                row_in_a_loop, row_index_out_of_range, row_kept_after_table_rebound])
def test_row_picked_by_traced_index(fn):
    for x in (ROW0, ROW1):
        check(fn, x)


ARRAY_ROWS = [jnp.arange(3.0), jnp.arange(3.0) * 2]


def array_row_picked(x):
    row = ARRAY_ROWS[_pick(x)]
    return row[1] * x + row


def _fresh_tables(fn):
    def make():
        global TABLE, ARRAY_ROWS
        TABLE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
        ARRAY_ROWS = [jnp.arange(3.0), jnp.arange(3.0) * 2]
        return fn, None
    return make


def _change_tables(fn, _, x):
    TABLE[1][2] = 60.0            # an item of a row
    TABLE[0] = [7.0, 8.0, 9.0]    # a row replaced
    ARRAY_ROWS[1] = ARRAY_ROWS[1] + 10.0
    return fn(x)


@pytest.mark.parametrize("fn", [row_then_items, array_row_picked])
def test_row_picked_reads_the_table_each_call(fn):
    """The table's rows (numbers, or jax.Arrays: graph inputs) change between calls."""
    steps = [lambda f, w, x=x: f(x) for x in (ROW0, ROW1)]
    steps += [lambda f, w, x=x: _change_tables(f, w, x) for x in (ROW0, ROW1)]
    steps += [lambda f, w, x=x: f(x) for x in (ROW0, ROW1)]
    check_sequence(_fresh_tables(fn), steps)


def row_returned(x):
    row = TABLE[_pick(x)]
    return row


def row_written(x):
    t = [[1, 2], [3, 4]]
    row = t[_pick(x)]
    row.append(9)
    return t


def row_identity(x):
    row = TABLE[_pick(x)]
    return row is TABLE[0], row in TABLE


@pytest.mark.parametrize("fn, why", [(row_returned, "escapes the compiled segment"),
                                     (row_written, "stand-in PickedRow"),
                                     (row_identity, "picked by a traced index is another object")])
def test_row_used_as_an_object_falls_back(fn, why):
    """Eager's row is one of the table's row objects: returned, written into
    or compared by identity, the statement that picks it runs in Python."""
    with pytest.raises(FullGraphError, match=why):
        to_static(fn, full_graph=True)(ROW1)
    for x in (ROW0, ROW1):
        check(fn, x, full_graph=False)


# ------------------------------------------ 2. a string formatted from traced values as a dict or set key
def formatted_keys(x):
    total = float(x.sum())
    return {str(total): 1}, {f"{total:.1f}"}, {(total, "k"): 2}, {f"{v}": 0 for v in x}, {str(v) for v in x}


def test_formatted_key_falls_back_with_eager_keys():
    """The key is eager's string (hashed by its value), never ast2graph's stand-in."""
    with pytest.raises(FullGraphError, match="as a dict key"):
        to_static(formatted_keys, full_graph=True)(np.ones(2))
    for x in (np.ones(2), np.arange(2.0)):
        check(formatted_keys, x, full_graph=False)


# ------------------------------------------ 3. a list rebound to a list of another length under a traced if
def rebound_longer(x):
    xs = [1, 2]
    if x.sum() > 0:
        xs = [1, 2, 3]
    xs.append(7)
    return x * len(xs), xs[-1], xs[1], sum(xs)


def rebound_in_both_branches(x):
    if x.sum() > 0:
        ys = [x[0], x[1] * 2, x[2]]
    else:
        ys = [x[1]]
    return ys, len(ys)


def rebound_of_other_kinds(x):
    xs = [1.0, 2.0]
    if x.sum() > 0:
        xs = [1, 2, 3]
    return xs


@pytest.mark.parametrize("fn", [rebound_longer, rebound_in_both_branches, rebound_of_other_kinds])
def test_list_rebound_to_another_length(fn):
    """The variable alone holds the lists: one list whose length depends on the data."""
    for x in (ROW1, -ROW1):
        check(fn, x)


def rebound_while_aliased(x):
    xs = [1.0, 2.0]
    ys = xs
    if x.sum() > 0:
        xs = [1.0, 2.0, 3.0]
    xs.append(4.0)
    return xs is ys, ys, len(xs)


OUTSIDE = [1.0, 2.0]


def rebound_from_outside(x):
    xs = OUTSIDE
    if x.sum() > 0:
        xs = [1.0, 2.0, 3.0]
    return len(xs) * x, xs


@pytest.mark.parametrize("fn", [rebound_while_aliased, rebound_from_outside])
def test_list_rebound_while_held_elsewhere_falls_back(fn):
    """The old list is also held elsewhere: which object eager has depends on the data."""
    with pytest.raises(FullGraphError, match="also held elsewhere"):
        to_static(fn, full_graph=True)(ROW1)
    for x in (ROW1, -ROW1):
        check(fn, x, full_graph=False)


# ------------------------------------------ 4. a ufunc's out= a slice of a local array
def ufunc_out_into_slice(a, buf):
    np.multiply(a, 2.0, out=buf[1:len(a) + 1])
    np.add(buf, 1.0, out=buf)
    s = np.sqrt(a, out=buf[-len(a):], where=a > 1.5)
    return buf, s


def test_ufunc_out_slice_of_a_local_array():
    """``out=buf[i:j]``, a temporary view: written as ``buf[i:j] = r``; the
    returned view is a view of the caller's array, as in eager."""
    for a, buf in ((np.array([3.0, 1.0, 2.0]), np.zeros(4)), (np.array([1.0]), np.ones(2, np.float32))):
        check(ufunc_out_into_slice, a, buf)
    a, buf = np.array([3.0, 1.0, 2.0]), np.zeros(4)
    out, s = to_static(ufunc_out_into_slice, full_graph=True)(a, buf)
    assert out is buf and np.shares_memory(s, buf)


def ufunc_out_held_view(a, buf):
    v = buf[1:len(a) + 1]
    np.multiply(a, 2.0, out=v)
    return buf, v


def test_ufunc_out_view_held_by_a_name_falls_back():
    with pytest.raises(FullGraphError, match="out="):
        to_static(ufunc_out_held_view, full_graph=True)(np.ones(2), np.zeros(4))
    check(ufunc_out_held_view, np.ones(2), np.zeros(4), full_graph=False)


# ------------------------------------------ 5. views by a static index and writes into their base (or through them)
A3 = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])


def row_bound_then_base_scaled(M):
    first = M[0]
    total_before = first.sum()
    M *= 2.0
    M[1:] -= M[0]
    return first.sum() - total_before, first, M


def views_of_a_local_array(x):
    M = np.zeros((3, 2)) + x[:, None]
    col, top = M[:, 1], M[:2]
    also = col
    M[0, 1] = 9.0
    M += 1.0
    return col.sum(), top * 1.0, also.copy(), col is also


def write_through_a_column(M):
    col = M[:, 1]
    col *= -1
    row = M[2]
    row[1] = 0.5          # seen by col too
    for k in range(2):
        row[k] += 1       # an unrolled loop of writes through the view
    return M, col, row


@pytest.mark.parametrize("fn, args", [(row_bound_then_base_scaled, (A3,)), (row_bound_then_base_scaled, (np.eye(3),)),
                                      (views_of_a_local_array, (np.arange(3.0),)), (write_through_a_column, (A3,)),
                                      (write_through_a_column, (np.arange(9, dtype=np.int64).reshape(3, 3),))])
def test_views_follow_writes(fn, args):
    """A view bound to a local name is made again of the written array (and a
    write through it is a write into its base); returned, it is a view of
    the caller's array, as eager's is."""
    check(fn, *args)


def test_returned_views_share_the_callers_memory():
    M = A3.copy()
    delta, first, out = to_static(row_bound_then_base_scaled, full_graph=True)(M)
    assert out is M and np.shares_memory(first, M)
    M = A3.copy()
    out, col, row = to_static(write_through_a_column, full_graph=True)(M)
    assert out is M and np.shares_memory(col, M) and np.shares_memory(row, M)


def view_written_under_traced_if(M):
    r = M[0]
    if M.sum() > 0:
        r[0] = 0.0
    return M


def view_in_a_list(M):
    rows = [M[0], M[1]]
    M += 1
    return rows


def view_of_a_view(M):
    r = M[0]
    e = r[1:]
    M[0, 2] = 11.0
    return e, r


@pytest.mark.parametrize("fn", [view_written_under_traced_if, view_in_a_list, view_of_a_view])
def test_views_the_graph_does_not_follow_fall_back(fn):
    with pytest.raises(FullGraphError, match="view|reachable"):
        to_static(fn, full_graph=True)(A3.copy())
    check(fn, A3, full_graph=False)


def swap_rows_by_unpacking(A):
    A[0], A[1] = A[1], A[0]    # eager's second value is a view of row 0, written by the first store
    a, b = A[0], A[1]
    A[0] = 5.0
    return A, a, b


def test_views_an_unpacking_has_still_to_assign_follow_writes():
    for A in (np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[5.0, 6.0], [7.0, 8.0], [9.0, 0.0]])):
        check(swap_rows_by_unpacking, A)
