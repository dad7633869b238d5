"""Silent wrong results found by the session-12 hunt (h-hunt13) on the hunt
corpus's new programs (benchmarks/hunt: aliasing, dtypes, effects, objects),
each minimised and compared with the eager run of the same function."""

import jax.numpy as jnp
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


# ------------------------------------------------ a generator's finally: runs when eager drops it
def _numbers(x):
    try:
        for v in x:
            yield v
    finally:
        print("generator closed")


def first_of_generator(x):
    it = _numbers(x)
    a = next(it)
    print("got first")
    return a   # eager: `it` goes with the frame, its finally: prints before the caller resumes


def test_generator_finally_runs_at_return_not_when_the_cache_lets_go():
    """The plan cache's identity key of the generator (a segment's input)
    kept it alive: its finally: printed at some later collection, not at
    return; the key holds it weakly now."""
    check(first_of_generator, jnp.array([0.5, 2.0]), full_graph=False)
    check(first_of_generator, jnp.array([3.0]), full_graph=False)


def test_identity_key_of_a_gone_object_matches_no_later_one():
    from ast2graph.typeinfer.guards import Identity

    class Obj:
        pass

    a = Obj()
    key = Identity(a)
    assert key == Identity(a) and hash(key) == hash(Identity(a))
    del a
    assert key.obj is None
    later = [Obj() for _ in range(50)]
    assert all(Identity(b) != key for b in later)
    assert Identity(None) == Identity(None) and Identity(3) != Identity(4)
