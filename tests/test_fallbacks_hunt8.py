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

import numpy as np
import pytest

from ast2graph import to_static
from helpers import check

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
