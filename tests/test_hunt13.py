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
    values not yet assigned see each write (the graph read them all first;
    since h-fb14 those views are made again of the written array: one graph)."""
    for fn in (swap_rows, swap_columns, swap_rows_one_copied):
        check(fn, ROWS.copy())
        check(fn, -ROWS[:2].copy())


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


# ------------------------------------------------ rows of a NumPy array pulled lazily while the loop writes it
def prefix_sum_in_place(x):
    for i, v in enumerate(x[:-1]):   # eager: v is read when pulled, after x[i] was written
        x[i + 1] += v
    return x


def add_all_into_last(x):
    for v in x:
        x[-1] += v   # the last item pulled is the written x[-1]
    return x


def pull_after_write(x):
    it = iter(x)
    first = next(it)
    x[1] = 100.0
    return first, next(it)


def add_all_into_last_own_array(n):
    x = np.arange(float(n))   # made at trace time: its rows were read all at once
    for v in x:
        x[-1] += v
    return x


def test_writes_into_rows_not_yet_pulled_are_eager():
    """The unrolled loop took every row before the body ran (and a rolled one
    scanned the rows of the array before the loop): a write into a row still
    to pull was not seen (in-place prefix sums gave x[i] + old x[i - 1])."""
    for fn in (prefix_sum_in_place, add_all_into_last, pull_after_write):
        check(fn, np.arange(1.0, 5.0), full_graph=False)
    for fn in (prefix_sum_in_place, add_all_into_last):   # rolled (40 rows > unroll_limit)
        check(fn, np.arange(40.0), full_graph=False)
    check(add_all_into_last_own_array, 4)
    check(add_all_into_last_own_array, 40)
    assert _codes(prefix_sum_in_place, np.arange(1.0, 5.0))[0] == "A2G007"


def double_each(x):
    for i, v in enumerate(x):
        x[i] = v * 2   # only the row already pulled is written
    return x


def running_total_after_loop(x):
    s = 0.0
    for v in x:
        s += v
    x[0] = s   # the loop is over: no row left to pull
    return x


def test_writes_into_pulled_rows_stay_one_graph():
    check(double_each, np.arange(1.0, 5.0))
    check(double_each, np.arange(40.0))
    check(running_total_after_loop, np.arange(1.0, 5.0))


# ------------------------------------------------ a failure of ast2graph's stand-ins is not reported as eager's error
class _Window:
    def __init__(self, data, size):
        self.data, self.size = data, size

    def __len__(self):
        return max(0, self.data.shape[0] - self.size + 1)

    def __getitem__(self, i):
        if i >= len(self):
            raise IndexError(i)
        return self.data[i:i + self.size]


def window_means(x, size):
    return [w.mean() for w in _Window(x, size)]


def test_user_sequence_over_traced_values_is_not_eagers_error():
    """Iterating a user's sequence class ran its __getitem__ natively on a
    traced stand-in, which raised AttributeError; the site said "Python
    raises here" (A2G008), which eager does not. Now A2G009, with the cause."""
    check(window_means, jnp.arange(5.0), 2, full_graph=False)
    sites = explain(to_static(window_means))(jnp.arange(5.0), 2).fallback_sites
    assert [s.code.code for s in sites] == ["A2G009"] and "natively on traced values" in sites[0].cause


# ------------------------------------------------ a loop over an iterator of a trace-time array, written with traced values
def prefix_sum_into_zeros(y):
    x = np.zeros(4)   # made at trace time; the traced write makes it a graph value, the iterator reads x itself
    for i, v in enumerate(x[:-1]):
        x[i + 1] += v + y[i]
    return x


def scaled_rows_zip(y):
    x = np.ones((3, 2))
    for r, w in zip(x[1:], y[:2]):
        x[0] += r * w
    return x


def double_pulled_rows(y):
    x = np.arange(4.0)
    for i, v in enumerate(x):
        x[i] = 2 * v + y[i]   # the row just pulled: the rows still to pull are untouched
    return x


def test_a_traced_write_into_the_array_a_running_loop_iterates_is_eager():
    """The loop's iterator (``enumerate(x[:-1])``, not a name) pulls each row
    of the trace-time array when eager pulls it; a write with a traced value
    into a row it has not pulled yet falls back (A2G007) instead of the
    graph reading the rows as they were (one graph gave [0, 1, 2, 3] where
    eager gives [0, 1, 3, 6]); a write into a row already pulled stays one
    graph."""
    y = jnp.arange(1.0, 6.0)
    check(prefix_sum_into_zeros, y, full_graph=False)
    assert "A2G007" in _codes(prefix_sum_into_zeros, y)
    check(scaled_rows_zip, y, full_graph=False)
    check(double_pulled_rows, y, graphs=1)
