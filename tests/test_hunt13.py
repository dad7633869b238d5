"""Silent wrong results found by the session-12 hunt (h-hunt13) on the hunt
corpus's new programs (benchmarks/hunt: aliasing, dtypes, effects, objects),
each minimised and compared with the eager run of the same function."""

import numpy as np

from ast2graph import explain, to_static
from helpers import check

ROWS = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def _codes(fn, *args):
    return [s.code.code for s in explain(to_static(fn))(*args).fallback_sites]


# ------------------------------------------------ unpacking into subscripts of the array its values view
def swap_rows(A):
    A[0], A[1] = A[1], A[0]   # eager: A[1] is a view of A[0], read after A[0] was written: both rows old A[1]
    return A


def swap_columns(A):
    A[:, 0], A[:, 1] = A[:, 1], A[:, 0]
    return A


def swap_rows_one_copied(A):
    A[0], A[1] = A[1].copy(), A[0]   # the second value is still a view of the written row
    return A


def test_tuple_assignment_of_views_into_their_base_is_eager():
    """A tuple of views assigned item by item into the array they view: the
    values not yet assigned see each write (the graph read them all first)."""
    for fn in (swap_rows, swap_columns, swap_rows_one_copied):
        check(fn, ROWS.copy(), full_graph=False)
        check(fn, -ROWS[:2].copy(), full_graph=False)
        assert _codes(fn, ROWS.copy()) == ["A2G007"], fn.__name__


def swap_elements(x, i, j):
    x[i], x[j] = x[j], x[i]   # items of a 1-d array are copies (NumPy scalars): a real swap
    return x


def swap_copied_rows(A):
    A[0], A[1] = A[1].copy(), A[0].copy()
    return A


def swap_rows_of_own_array(n):
    A = np.arange(2.0 * n).reshape(n, 2)
    A[0], A[1] = A[1], A[0]
    return A


def test_swaps_without_a_pending_view_stay_one_graph():
    check(swap_elements, np.array([1.0, 2.0, 3.0]), 0, 2)
    check(swap_elements, np.array([4, 5, 6]), 1, 1)
    check(swap_copied_rows, ROWS.copy())
    check(swap_rows_of_own_array, 3)
