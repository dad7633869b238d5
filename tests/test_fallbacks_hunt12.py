"""Fallbacks found on realistic programs (issue 16), hunt 12: one graph now.

Each function is compared with its eager run on inputs that take every path,
under ``full_graph=True``.
"""

from __future__ import annotations

import jax.numpy as jnp
import pytest

from helpers import check

FLOATS = [jnp.array(2.7), jnp.array(-3.5), jnp.array(jnp.nan), jnp.array(jnp.inf), jnp.array(-jnp.inf)]


# ----------------------------------------------- int(x) in a try: two exceptions of one statement
def int_or_minus_one(x):
    try:
        n = int(x)
    except (ValueError, OverflowError):
        n = -1
    return n


def int_kind_of_error(x):
    try:
        n = int(x * 2)
    except (ValueError, OverflowError) as e:
        return (0 if isinstance(e, ValueError) else 1), x
    return n, x + 1


def int_return_in_try_except_exception(x):
    try:
        return int(x * 2) + 1
    except Exception:
        return 0


def int_handlers_apart(x):
    try:
        n = int(x)
        m = n % 7
    except ValueError:
        m = -1
    except OverflowError:
        m = -2
    else:
        m = m + 100
    return m


def int_then_array_math(x, y):
    try:
        k = int(x)
        out = y * k
    except (ValueError, OverflowError):
        out = y * 0.5
    return out


@pytest.mark.parametrize("fn", [int_or_minus_one, int_kind_of_error, int_return_in_try_except_exception,
                                int_handlers_apart])
@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_two_exceptions(fn, x):
    check(fn, x, full_graph=True)


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_then_array_math(x):
    check(int_then_array_math, x, jnp.arange(3.0), full_graph=True)


def int_only_value_error(x):
    try:
        n = int(x)
    except ValueError:
        n = -1
    return n


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_int_in_try_one_exception_taken_the_other_raised(x):
    """NaN's ValueError is taken by the handler; an infinity's OverflowError
    leaves the try: eager's exception and message (a check of its own)."""
    check(int_only_value_error, x, full_graph=True)


def int_in_loop_try(xs):
    total = 0
    for i in range(3):
        try:
            total += int(xs[i])
        except (ValueError, OverflowError):
            total -= 100
    return total


@pytest.mark.parametrize("xs", [jnp.array([1.5, 2.5, 3.5]), jnp.array([jnp.nan, 2.0, jnp.inf]),
                                jnp.array([-jnp.inf, jnp.nan, 7.9])])
def test_int_in_try_inside_a_loop(xs):
    check(int_in_loop_try, xs, full_graph=True)


def int_beyond_int64_in_try(x):
    try:
        n = int(x)
    except (ValueError, OverflowError):
        n = -1
    return n


def test_int_beyond_int64_in_try_is_eagers_exact_int():
    """A finite float beyond int64: eager's int is exact, and the handler is
    not run; that call runs in Python (the graph's int64 cannot hold it)."""
    check(int_beyond_int64_in_try, jnp.array(2.7), full_graph=True)
    check(int_beyond_int64_in_try, jnp.array(3e19, dtype=jnp.float32), full_graph=False)


# ----------------------------------------------- a handler of a traced raise that raises again
X_POS = jnp.array([1.0, 2.0, 3.0])
X_NEG = jnp.array([-1.0, 2.0, 3.0])


def raise_from_e(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise RuntimeError("bad input") from e
    return y


def raise_from_none(x):
    try:
        if x[0] < 0:
            raise KeyError("k")
        y = x + 1
    except KeyError:
        raise ValueError("no key") from None
    return y.sum()


def raise_in_handler_no_from(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise TypeError(f"wrapped: {e}")
    return y


def bare_reraise(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError:
        raise
    return y


def reraise_after_computing(x):
    try:
        if x.sum() < 2:
            raise ArithmeticError("too small")
        y = jnp.sqrt(x)
    except ArithmeticError as e:
        note = x * 0
        raise RuntimeError(str(e)) from e
    return y


def reraise_with_else(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
    except ValueError as e:
        raise RuntimeError("bad") from e
    else:
        x = x * 3
    return x


def raise_from_int_check(x):
    try:
        n = int(x)
    except (ValueError, OverflowError) as e:
        raise RuntimeError(f"not a count: {e}") from e
    return n + 1


def _chain(fn, *args):
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        c = e.__cause__
        return (type(e), str(e), type(c), str(c) if c is not None else None, e.__suppress_context__,
                type(e.__context__), str(e.__context__) if e.__context__ is not None else None)
    return None


@pytest.mark.parametrize("fn", [raise_from_e, raise_from_none, raise_in_handler_no_from, bare_reraise,
                                reraise_after_computing, reraise_with_else])
@pytest.mark.parametrize("x", [X_POS, X_NEG], ids=["pass", "raise"])
def test_raise_in_the_handler_of_a_traced_raise(fn, x):
    from ast2graph import to_static

    check(fn, x, full_graph=True)
    assert _chain(to_static(fn, full_graph=True), x) == _chain(fn, x)


@pytest.mark.parametrize("x", FLOATS, ids=["finite", "negative", "nan", "inf", "-inf"])
def test_raise_from_in_the_handler_of_int(x):
    from ast2graph import to_static

    check(raise_from_int_check, x, full_graph=True)
    assert _chain(to_static(raise_from_int_check, full_graph=True), x) == _chain(raise_from_int_check, x)


def raise_from_with_finally(x):
    out = []
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        raise RuntimeError("bad") from e
    finally:
        out.append(1)
    return y, out


def raise_from_in_a_loop(x):
    acc = x * 0
    for i in range(3):
        try:
            if x[i] < 0:
                raise ValueError(f"negative at {i}")
            acc = acc + x[i]
        except ValueError as e:
            raise RuntimeError("stop") from e
    return acc


def raise_from_under_except_exception(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except Exception as e:
        raise RuntimeError("bad") from e
    return y


@pytest.mark.parametrize("fn", [raise_from_with_finally, raise_from_in_a_loop, raise_from_under_except_exception])
@pytest.mark.parametrize("x", [X_POS, X_NEG, jnp.array([1.0, -2.0, 3.0])], ids=["pass", "raise", "raise-later"])
def test_raise_from_with_finally_loops_and_broad_handlers(fn, x):
    from ast2graph import to_static

    check(fn, x, full_graph=True)
    assert _chain(to_static(fn, full_graph=True), x) == _chain(fn, x)


def reraise_after_print(x):
    try:
        if x[0] < 0:
            raise ValueError("negative first")
        y = x * 2
    except ValueError as e:
        print("logging:", e)
        raise
    return y


def reraise_into_an_outer_handler(x):
    try:
        try:
            if x[0] < 0:
                raise ValueError("neg")
            y = x * 2
        except ValueError as e:
            raise KeyError("inner") from e
    except KeyError:
        y = x * 0
    return y


@pytest.mark.parametrize("fn", [reraise_after_print, reraise_into_an_outer_handler])
@pytest.mark.parametrize("x", [X_POS, X_NEG], ids=["pass", "raise"])
def test_handler_raise_that_stays_in_python_is_still_eagers(fn, x):
    """A print before the re-raise (a check is not ordered with the print's
    callback) and a re-raise an outer handler takes still run in Python:
    eager's output, result and exception."""
    check(fn, x, full_graph=False)


# ----------------------------------------------- itertools that choose positions, over traced items
import itertools  # noqa: E402

XS = [jnp.array([1.0, -2.0, 3.0, 0.5]), jnp.array([-1.0, 2.0, -3.0, -0.5])]


def pairwise_products(x):
    vals = [x[0], x[1], x[2]]
    return [a * b for a, b in itertools.combinations(vals, 2)]


def ordered_differences(x):
    vals = [x[0], x[1], x[2]]
    return sum(a - b for a, b in itertools.permutations(vals, 2))


def all_orders_of_rows(x):
    return [jnp.stack(p) for p in itertools.permutations(x[:3])]


def with_replacement_and_ints(x):
    vals = [int(v) for v in x]
    pairs = list(itertools.combinations_with_replacement(vals[:3], 2))
    triples = list(itertools.combinations(vals, 3))
    return pairs, triples, [a + b for a, b in pairs]


def best_pair_in_a_loop(x):
    best = x[0] * x[1]
    for a, b in itertools.combinations([x[0], x[1], x[2], x[3]], 2):
        if a * b > best:
            best = a * b
    return best


def combinations_r_keyword_and_tuple(x):
    return list(itertools.combinations(iterable=(x[0], x[1], 7), r=2))


@pytest.mark.parametrize("fn", [pairwise_products, ordered_differences, all_orders_of_rows, with_replacement_and_ints,
                                best_pair_in_a_loop, combinations_r_keyword_and_tuple])
@pytest.mark.parametrize("x", XS, ids=["mixed", "negated"])
def test_combinations_and_permutations_of_traced_items(fn, x):
    check(fn, x, full_graph=True)


def combinations_negative_r(x):
    return list(itertools.combinations([x[0], x[1]], -1))


def test_combinations_negative_r_raises_eagers_error():
    check(combinations_negative_r, XS[0], full_graph=False)


# ----------------------------------------------- collections.deque and heapq: trace-time structure, traced items
import collections  # noqa: E402
import heapq  # noqa: E402

from ast2graph import explain, to_static  # noqa: E402


def window_of_last_three(x):
    dq = collections.deque(maxlen=3)
    for v in x:
        dq.append(v * 2)
    first = dq.popleft()
    return first, list(dq), len(dq)


def deque_both_ends(x):
    dq = collections.deque([x[0]])
    dq.append(x[1])
    dq.appendleft(x[2])
    dq.extend([x[3], x[0] + 1])
    dq.rotate(2)
    a = dq.popleft()
    b = dq.pop()
    return a, b, tuple(dq), dq[0] + dq[-1]


def bfs_order(x):
    # a queue of (node, value) pairs, the graph's structure static, the values traced
    children = {0: [1, 2], 1: [3], 2: [], 3: []}
    q = collections.deque([(0, x[0])])
    total = x[0] * 0
    order = []
    while q:
        node, val = q.popleft()
        order.append(node)
        total = total + val
        for c in children[node]:
            q.append((c, val + x[c]))
    return order, total


def deque_in_a_helper(x):
    def push_all(dq, vals):
        for v in vals:
            dq.append(v)
        return dq
    dq = push_all(collections.deque(), [x[0], x[1]])
    return sum(dq)


def heap_with_static_priorities(x):
    heap = []
    for i in range(4):
        heapq.heappush(heap, (3 - i, i, x[i]))
    out = []
    while heap:
        _, i, v = heapq.heappop(heap)
        out.append(v * i)
    return out


def heapify_static_keys(x):
    items = [(2, "b", x[0]), (1, "a", x[1]), (3, "c", x[2])]
    heapq.heapify(items)
    top = heapq.heappop(items)
    return top[1], top[2], [k for k, _, _ in items]


@pytest.mark.parametrize("fn", [window_of_last_three, deque_both_ends, bfs_order, deque_in_a_helper,
                                heap_with_static_priorities, heapify_static_keys])
@pytest.mark.parametrize("x", XS, ids=["mixed", "negated"])
def test_deque_and_heap_of_traced_items(fn, x):
    check(fn, x, full_graph=True)


def heap_of_traced_values(x):
    heap = []
    for i in range(4):
        heapq.heappush(heap, x[i])
    return heapq.heappop(heap)


def heap_ties_reach_the_items(x):
    heap = []
    for i in range(3):
        heapq.heappush(heap, (1, x[i]))
    return heapq.heappop(heap)[1]


def deque_written_under_a_traced_if(x):
    dq = collections.deque([x[0]])
    if x[1] > 0:
        dq.append(x[1])
    else:
        dq.appendleft(x[2])
    return dq[0]


def deque_popped_under_a_traced_if(x):
    dq = collections.deque([x[0], x[1]])
    if x[2] > 0:
        dq.popleft()
    return dq[0]


def deque_returned(x):
    dq = collections.deque([x[0], x[1]])
    dq.append(x[2])
    return dq


def deque_in_a_rolled_loop(x):
    dq = collections.deque([x[0]], maxlen=2)
    for i in range(40):
        dq.append(dq[-1] * 0.5 + x[i % 4])
    return dq[0] + dq[1]


@pytest.mark.parametrize("fn", [heap_of_traced_values, heap_ties_reach_the_items, deque_written_under_a_traced_if,
                                deque_popped_under_a_traced_if, deque_returned, deque_in_a_rolled_loop])
@pytest.mark.parametrize("x", XS, ids=["mixed", "negated"])
def test_deque_and_heap_where_the_data_decides_stay_eagers(fn, x):
    """A heap whose order needs the items' values, a deque written under a
    traced condition, a deque leaving the function: eager's results (in
    Python where the graph cannot have them)."""
    check(fn, x, full_graph=False)


def test_heap_comparing_traced_items_names_its_site():
    e = explain(to_static(heap_of_traced_values))(XS[0])
    causes = [s.cause for s in e.fallback_sites]
    assert any("heappush" in c and "traced" in c for c in causes), causes


# ----------------------------------------------- a dict's key chosen by a traced condition among its keys
def counts_by_label(x):
    counts = {"pos": 0, "neg": 0}
    for v in x:
        key = "pos" if v > 0 else "neg"
        counts[key] = counts.get(key, 0) + 1
    return counts


def sums_by_bucket_augassign(x):
    sums = {"low": 0.0, "mid": 0.0, "high": 0.0}
    for v in x:
        if v > 1:
            b = "high"
        elif v > -1:
            b = "mid"
        else:
            b = "low"
        sums[b] += float(v)
    return sums, list(sums)


def chosen_key_in_a_rolled_loop(x):
    acc = {"even": x[0] * 0, "odd": x[0] * 0}
    for i in range(40):
        k = "even" if x[i % 4] * i > 0 else "odd"
        acc[k] = acc[k] + x[i % 4]
    return acc


def chosen_key_read_only(x):
    table = {"a": x[0], "b": x[1] * 2}
    k = "a" if x[2] > 0 else "b"
    return table[k], table.get(k)


@pytest.mark.parametrize("fn", [counts_by_label, sums_by_bucket_augassign, chosen_key_in_a_rolled_loop,
                                chosen_key_read_only])
@pytest.mark.parametrize("x", XS, ids=["mixed", "negated"])
def test_dict_item_at_a_key_chosen_by_a_traced_condition(fn, x):
    check(fn, x, full_graph=True)


def chosen_key_missing_on_one_path(x):
    counts = {"pos": 0}
    for v in x:
        key = "pos" if v > 0 else "neg"
        counts[key] = counts.get(key, 0) + 1
    return counts


def chosen_key_into_an_outside_dict(x, counts):
    key = "pos" if x[0] > 0 else "neg"
    counts[key] = counts[key] + 1
    return counts[key]


@pytest.mark.parametrize("x", XS, ids=["mixed", "negated"])
def test_dict_key_chosen_by_data_where_the_keys_change_stays_eagers(x):
    """A key the dict lacks on one path (eager's keys depend on the data) and
    a dict from outside: eager's results, in Python."""
    check(chosen_key_missing_on_one_path, x, full_graph=False)
    check(chosen_key_into_an_outside_dict, x, {"pos": 0, "neg": 0}, full_graph=False)
