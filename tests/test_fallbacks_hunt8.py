"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-8 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, on inputs that take every path,
plus the edge cases that could make it wrong.

- ``gen.send(v)`` of a generator object made in the function: the body resumes
  with ``v`` (a traced value too) as its ``yield``'s value, one graph. A real
  generator (made in Python, an argument) given a traced value falls back
  before its body runs: it once ran natively on tracers at trace time and the
  fallback then resumed a finished generator (StopIteration where eager
  returned).
"""

import contextlib

import numpy as np
import pytest

from ast2graph import to_static
from helpers import check, check_calls

POS = np.array([1.0, -2.0, 3.0])
NEG = np.array([-1.0, -2.0])
EMPTY = np.array([], np.float64)
F32 = np.array([1.0, -2.0, 3.0], np.float32)


# ------------------------------------------------------------ generator send
def p_running_total(x):
    def acc():
        tot = 0.0
        while True:
            v = yield tot
            tot = tot + v
    it = acc()
    next(it)
    r = 0.0
    for v in x:
        r = it.send(v)
    return r


def p_send_then_next(x):
    def g():
        seen = []
        while True:
            v = yield len(seen)
            if v is not None:
                seen.append(v * 2)
            else:
                yield sum(seen)
    it = g()
    a = next(it)
    b = it.send(x.sum())
    c = it.send(x.max() if x.size else 1.0)
    d = next(it)
    return a, b, c, d


def p_send_none_starts(x):
    def g():
        v = yield 1
        yield v
    it = g()
    return it.send(None), it.send(x * 2)


def p_send_to_new(x):
    def g():
        v = yield 1
        yield v
    it = g()
    return it.send(x)   # eager: TypeError, and the generator does not start


def p_send_after_end(x):
    def g():
        v = yield x.sum()
        return v
    it = g()
    first = next(it)
    try:
        it.send(x * 3)
    except StopIteration as e:
        return first, e.value
    return first, None


def p_send_prints(x):
    def g():
        while True:
            v = yield
            print("got", v.shape)
    it = g()
    next(it)
    for row in x:
        it.send(row)
    return x.sum()


def test_generator_send_is_one_graph():
    for a in (POS, NEG, EMPTY, F32):
        check(p_running_total, a, full_graph=True)
        check(p_send_none_starts, a, full_graph=True)
        check(p_send_after_end, a, full_graph=True)
    for a in (POS, NEG, F32):
        check(p_send_then_next, a, full_graph=True)
    check(p_send_prints, np.ones((3, 2)), full_graph=True)


def test_generator_send_to_a_new_generator_raises_as_eager():
    check(p_send_to_new, POS, full_graph=False)


def p_real_generator_send(x):
    def g():
        tot = 0
        while True:
            v = yield tot
            tot = tot + v
    it = g()
    print(type(it).__name__)   # the object itself is looked at: a real generator
    next(it)
    r = 0
    for v in x:
        r = it.send(v)
    return r


def p_callers_generator(gen, x):
    return gen.send(x.sum())


def _primed():
    def g():
        tot = 0.0
        while True:
            v = yield tot
            tot += v
    it = g()
    next(it)
    return it


def test_a_real_generator_never_runs_on_traced_values():
    check(p_real_generator_send, POS, full_graph=False)
    e = check(p_real_generator_send, NEG, full_graph=False)
    assert e.fallback_sites
    # the caller's generator moves on every call, as eager moves it
    eager, conv = _primed(), _primed()
    f = to_static(p_callers_generator)
    for a in (POS, NEG, POS):
        assert p_callers_generator(eager, a) == pytest.approx(float(f(conv, a)))


# ------------------------------------------- a value of path-dependent kind stored in a list
def p_append_kinded(x):
    out = []
    for row in x:
        s = row.sum()
        out.append(s if s > 0 else 0.0)
    return out


def p_append_masked_kinded(x):
    out = []
    for row in x:
        pos = row[row > 0]
        out.append(pos.sum() if len(pos) else 0.0)
    return out


def p_kinded_read_back(x):
    out = []
    for row in x:
        s = row.sum()
        r = s if s > 0 else 0
        out.append(r)
        out.insert(0, -r)
    out.extend([x.max() if x.size and x.max() > 1 else 1.5])
    kinds = [type(v).__name__ for v in out]
    return out, out[0] + out[-1], out[0] * 2, kinds, out[-1] + 1


def p_kinded_printed(x):
    xs = []
    s = x.sum()
    xs.append(s if s > 0 else None if s < -100 else 0.0)
    print(xs, type(xs[0]))
    xs[0] = 3
    return xs


def test_a_value_of_path_dependent_kind_appended_is_one_graph():
    m = np.array([[1.0, -2.0], [-3.0, 4.0], [-1.0, 0.0]])
    for a in (m, -m, np.zeros((0, 2)), m.astype(np.float32), np.array([[0.5, 0.25]])):
        check(p_append_kinded, a, full_graph=True)
        check(p_append_masked_kinded, a, full_graph=True)
        check(p_kinded_read_back, a, full_graph=True)
    for a in (POS, NEG, EMPTY, F32):
        check(p_kinded_printed, a, full_graph=False)


# ------------------------------------------- int() of a traced integer needs no run-time check
def p_raise_counts(x):
    if (x < 0).any():
        raise ValueError(f"negative values: {int((x < 0).sum())}")
    return np.sqrt(x)


def p_int_in_try(x):
    try:
        n = int((x > 0).sum())
        k = int(x.argmax()) if x.size else -1
    except ValueError:
        n, k = -1, -1
    return n, k, n - k


def p_int_in_and(x, flag):
    if flag and int((x > 0).sum()) >= 2:
        return x * 2
    return x


def p_int_of_float_still_checked(x):
    try:
        return int(x.sum())
    except (ValueError, OverflowError) as e:
        return str(e)


def test_int_of_a_traced_integer_is_one_graph_where_a_check_cannot_stand():
    for a in (POS, NEG, EMPTY, F32):
        check(p_raise_counts, a, full_graph=True)
        check(p_int_in_try, a, full_graph=True)
        check(p_int_in_and, a, True, full_graph=True)
        check(p_int_in_and, a, False, full_graph=True)
    for a in (POS, np.array([np.nan]), np.array([np.inf]), np.array([-np.inf, 1.0])):
        check(p_int_of_float_still_checked, a, full_graph=False)


# ------------------------------------------- a raise under a traced condition that the try's handler takes
def p_caught_simple(x):
    try:
        s = x.sum()
        if s < 0:
            raise ValueError("negative")
        r = s * 2
    except ValueError:
        r = -s
    return r


def p_caught_message_else_finally(x):
    n = 0
    try:
        m = x.max() if x.size else 0.0
        if m > 2:
            raise RuntimeError(f"too big at {x.shape[0]}")
        n = 1
    except (KeyError, RuntimeError) as e:
        msg = str(e)
        print("caught:", e)
        n = len(msg)
    else:
        n += 10
        msg = "fine"
    finally:
        n = n * 3
    return n, msg, x * n


def p_caught_nested_if(x, limit):
    out = x
    try:
        if x.sum() > 0:
            out = out + 1
            if x.sum() > limit:
                raise OverflowError("limit")
            out = out * 2
    except ArithmeticError as e:   # (OverflowError is one)
        out = out - 100
        print(e.args)
    return out


def p_caught_by_bare_except(x):
    flag = False
    try:
        if (x < 0).any():
            raise ValueError
    except:  # noqa: E722
        flag = True
    return flag, x


def p_caught_list_written(x):
    log = [0.0]
    try:
        if x.sum() < 0:
            raise ValueError("neg")
        log[0] = x.max() if x.size else 1.0
    except ValueError:
        log[0] = -1
    return log, x * 2


def p_return_after_list_written_in_try(x):
    log = []
    try:
        log.append(x.sum())
        if x.sum() < 0:
            return log, x
        log.append(x.max() if x.size else 0.0)
    finally:
        log.append(1.0)
    return log, x * 2


def test_raise_under_a_traced_condition_taken_by_the_handler_is_one_graph():
    arrays = [(a,) for a in (POS, NEG, EMPTY, F32, np.array([3.0, -1.0]))]
    for fn in (p_caught_simple, p_caught_message_else_finally, p_caught_by_bare_except, p_two_handlers,
               p_two_sites_one_handler):
        check_calls(fn, arrays, full_graph=True)
    check_calls(p_caught_nested_if, [(a, t) for (a,) in arrays for t in (2.0, 10.0)], full_graph=True)
    check_calls(p_caught_list_written, arrays, full_graph=False)


def p_two_handlers(x):
    try:
        if x.size > 1 and x[0] < 0:
            raise KeyError("a")
        if x.size > 1 and x[1] < 0:
            raise IndexError("b")
        r = x.sum()
    except KeyError:
        r = x[0]
    except IndexError:
        r = x[1] * 3
    return r


def p_two_sites_one_handler(x):
    try:
        if x.size and x[0] < 0:
            raise ValueError("first")
        r = x * 2
        if x.sum() > 1:
            raise ValueError("sum")
        r = r + 1
    except ValueError as e:
        r = x * 0 - len(str(e))
    else:
        r = r + 10
    return r


def p_handler_keeps_exception(x):
    errs = []
    try:
        if x.sum() < 0:
            raise ValueError("neg")
    except ValueError as e:
        errs.append(e)   # eager's object, a new one per call: stays in Python
    return len(errs), x


def p_uncaught_class(x):
    try:
        if x.sum() < 0:
            raise ValueError("neg")
    except KeyError:
        return "key"
    return "none"


def p_raise_in_a_loop_in_try(x):
    seen = 0
    try:
        for v in x:
            if v < 0:
                raise ValueError("neg")
            seen += 1
    except ValueError:
        seen = -seen
    return seen


def test_raises_a_handler_takes_where_it_is_not_exact_fall_back_correctly():
    for a in (POS, NEG, np.array([3.0, -1.0]), np.array([-3.0, 1.0])):
        check(p_handler_keeps_exception, a, full_graph=False)
        check(p_uncaught_class, a, full_graph=False)
        check(p_raise_in_a_loop_in_try, a, full_graph=False)
        check(p_return_after_list_written_in_try, a, full_graph=False)


def p_suppress_status(x):
    status = "start"
    with contextlib.suppress(ValueError):
        status = "checking"
        if x.size and x[0] < 0:
            raise ValueError("neg")
        status = "ok"
    return status, x


def p_suppress_two_raises(x):
    r = x
    with contextlib.suppress(KeyError, ValueError):
        r = r * 2
        if x.sum() < 0:
            raise KeyError("neg")
        r = r + 1
        if x.sum() > 5:
            raise ValueError("big")
        r = r * 10
    return r


def p_suppress_other_class(x):
    r = x
    with contextlib.suppress(KeyError):
        if x.sum() < 0:
            raise ValueError("neg")   # not suppressed: eager raises it
        r = r + 1
    return r


def test_raise_under_a_traced_condition_in_suppress_is_one_graph():
    for a in (POS, NEG, EMPTY, F32, np.array([4.0, 5.0])):
        check(p_suppress_status, a, full_graph=True)
        check(p_suppress_two_raises, a, full_graph=True)
        check(p_suppress_other_class, a, full_graph=False)


# ------------------------------------------- max/min with key= or default= of traced items
def p_argmax_by_key(x):
    best = max(range(len(x)), key=lambda i: float(x[i]))
    worst = min(range(len(x)), key=lambda i: x[i])
    return best, worst


def p_max_tuple_key(x):
    best = max(((x[i], i) for i in range(x.shape[0])), key=lambda t: float(t[0]))
    return best[1], best


def p_max_default(x):
    n = x.shape[0]
    return max((x[i] for i in range(n)), default=None), min(x, default=-1.0), max([], default=7)


def p_key_called_in_order(x):
    def key(v):
        print("key", v.shape)
        return -abs(v.sum())
    return min(list(x), key=key)


def test_max_min_with_key_or_default_of_traced_items_is_one_graph():
    for a in (np.array([1.0, 3.0, 3.0, 2.0]), np.array([5.0]), np.array([np.nan, 1.0]), np.array([1.0, np.nan]),
              F32, np.array([2, 7, 7], np.int64)):
        check(p_argmax_by_key, a, full_graph=True)
        check(p_max_tuple_key, a, full_graph=True)
        check(p_max_default, a, full_graph=True)
    check(p_max_default, EMPTY, full_graph=True)
    check(p_argmax_by_key, EMPTY, full_graph=False)   # eager: ValueError
    check(p_key_called_in_order, np.array([[1.0, -2.0], [3.0, -5.0], [0.5, 0.0]]), full_graph=True)


# ------------------------------------------- sorted() / list.sort of tuples by traced keys
def p_sort_pairs(x):
    pairs = list(zip(range(len(x)), x))
    pairs.sort(key=lambda p: float(p[1]), reverse=True)
    top = [i for i, _ in pairs[:2]]
    return top, pairs


def p_sorted_records(x):
    recs = sorted(((float(x[i]), i, x[i] * 2) for i in range(x.shape[0])), key=lambda t: t[0])
    return recs, [r[1] for r in recs]


def test_sorting_tuples_by_traced_keys_is_one_graph():
    for a in (np.array([1.0, 3.0, 3.0, 2.0]), np.array([5.0]), EMPTY, np.array([1.0, np.nan, 0.5]), F32,
              np.array([2, 7, 7, -1], np.int64)):
        check(p_sort_pairs, a, full_graph=True)
        check(p_sorted_records, a, full_graph=True)
