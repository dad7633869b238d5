"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-9 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, on inputs that take every path,
plus the edge cases that could make it wrong.

- A run-time check (``np.linalg.solve``/``inv``/``cholesky`` of a singular
  matrix, ``1 / float(s)`` of a zero, ``math.sqrt`` of a negative, an
  ``assert`` with a constant message) in a statement of a ``try`` body whose
  handler takes its exception (or in a ``contextlib.suppress`` block): one
  graph, the handler running where the check's condition holds, the rest of
  the body where it does not; the names the statement binds keep their
  values from before it on the handler's path. Where stopping the statement
  midway would differ (a print, a user function or a second check after the
  check in it; a statement nested in a loop or branch of the body; a handler
  that looks at its exception object otherwise than as text) it falls back
  as before.

- A class attribute written in the function (``Counter.total += 1``,
  ``type(self).n += 1``, under a traced ``if`` or in a rolled loop too) is one
  graph: the write is lifted out of the graph as an instance attribute's is
  (set on the class after each call), and reads of it in the call (through
  the class, a subclass or an instance without its own attribute) see the new
  value, as Python's lookup does. A class with a metaclass of its own still
  falls back.

- ``xs[i]`` of a list or tuple of traced values by a static index out of its
  range (``x.tolist()[5]``), and ``d[k]`` of a dict of traced values by a
  missing static key: the IndexError/KeyError depends on the length and the
  keys only, which are eager's, so a handler takes it at trace time (one
  graph) instead of a fallback.

PYTEST_DONT_REWRITE: the ``assert`` of the user code must carry eager's own message.
"""

import contextlib
import math

import numpy as np

from ast2graph import explain, to_static
from helpers import check, check_calls, check_sequence

LinAlgError = np.linalg.LinAlgError
GOOD = np.array([[2.0, 1.0], [1.0, 3.0]])
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NOT_PD = np.array([[1.0, 2.0], [2.0, 1.0]])
NAN_M = np.array([[np.nan, 1.0], [1.0, 2.0]])
F32 = GOOD.astype(np.float32)
ZERO_FIRST = np.array([0.0, 2.0])
POS = np.array([2.0, 3.0])
NEG = np.array([-1.0, -3.0])
MATRICES = (GOOD, SINGULAR, NAN_M, F32)


def _fallback_codes(fn, *args):
    e = explain(to_static(fn))(*args)
    return {site.code.value[0] for site in e.fallback_sites}


# ------------------------------------------------------------ a check a handler takes
def p_solve_or_pinv(a):
    b = np.ones(a.shape[0])
    try:
        x = np.linalg.solve(a, b)
        how = "solve"
    except np.linalg.LinAlgError as e:
        x = np.linalg.pinv(a) @ b
        how = f"pinv ({e})"
    return x, how


def p_inv_or_message(m):
    try:
        inv = np.linalg.inv(m)
    except LinAlgError as e:
        inv = str(e)
    return inv


def p_cholesky_or_eye(a):
    try:
        L = np.linalg.cholesky(a)
        ok = True
    except LinAlgError as e:
        L = np.eye(a.shape[0])
        ok = str(e)
    return L, ok


def p_suppress_division(x):
    y = x * 2
    with contextlib.suppress(ZeroDivisionError):
        y = y + 1
        r = 1 / float(x[0])
        y = y * r
    return y


def p_sqrt_else_finally(x):
    v = float(x[0])
    try:
        r = math.sqrt(v)
        tag = "ok"
    except ValueError as e:
        r = float("nan")
        tag = repr(e)
    else:
        tag = tag + "!"
    finally:
        v = v + 1
    return r, tag, v


def p_keeps_the_old_binding(m):
    x = m
    try:
        x = np.linalg.inv(x)
    except LinAlgError:
        pass
    return x


def p_unbound_after_the_handler(m):
    try:
        x = np.linalg.inv(m)
    except LinAlgError:
        pass
    return x   # eager: UnboundLocalError where inv raised


def p_augmented(x):
    y = float(x[1])
    try:
        y += 1 / float(x[0])
    except ZeroDivisionError:
        y = -y
    return y


def p_assert_constant_message(x):
    try:
        assert x.sum() > 0, "not positive"
        r = np.log(x.sum())
    except AssertionError as e:
        r = str(e)
    return r


def p_superclass_handler(x):
    try:
        r = 1.0 / float(x[0])
    except ArithmeticError as e:
        r = repr(e)
    return r


def p_in_an_unrolled_loop(x):
    out = []
    for i in range(3):
        try:
            r = 1.0 / float(x[i])
        except ZeroDivisionError:
            r = 0.0
        out.append(r)
    return out


def p_after_a_traced_branch(x):
    try:
        if x[1] > 0:
            y = x[1] * 2
        else:
            y = x[1]
        r = 1.0 / float(x[0])
        y = y + r
    except ZeroDivisionError:
        r = None
    return y, r


def test_a_check_the_handler_takes_is_one_graph():
    for fn in (p_solve_or_pinv, p_inv_or_message, p_keeps_the_old_binding):
        check_calls(fn, [(m,) for m in MATRICES], full_graph=True, graphs=1)
    check_calls(p_cholesky_or_eye, [(m,) for m in (GOOD, NOT_PD, F32)], full_graph=True, graphs=1)
    for fn in (p_suppress_division, p_sqrt_else_finally, p_augmented, p_assert_constant_message, p_superclass_handler):
        check_calls(fn, [(x,) for x in (POS, ZERO_FIRST, NEG)], full_graph=True, graphs=1)
    check_calls(p_after_a_traced_branch, [(x,) for x in (POS, ZERO_FIRST, NEG, np.array([0.0, -1.0]))],
                full_graph=True, graphs=1)
    check_calls(p_in_an_unrolled_loop, [(np.array(x),) for x in ([1.0, 0.0, 4.0], [1.0, 2.0, 4.0], [0.0, 0.0, 0.0])],
                full_graph=True, graphs=1)


def test_a_check_the_handler_takes_with_the_name_unbound_after_it():
    for m in (GOOD, SINGULAR):
        check(p_unbound_after_the_handler, m, full_graph=False)


def test_a_check_the_handler_takes_on_calls_with_other_data():
    f = to_static(p_solve_or_pinv, full_graph=True)
    for m in (GOOD, SINGULAR, GOOD * 3, SINGULAR * 2, NAN_M):
        got, want = f(m), p_solve_or_pinv(m)
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
        assert got[1] == want[1]


# ------------------------------------------------------------ where it is not exact: as before
def p_print_after_the_check(x):
    try:
        r = print(1.0 / float(x[0]))
    except ZeroDivisionError:
        r = "zero"
    return r


def p_user_function_after_the_check(x):
    seen = []

    def keep(v):
        seen.append(v)
        return v
    try:
        r = keep(1.0 / float(x[0]))
    except ZeroDivisionError:
        r = "zero"
    return r, seen


def p_two_checks_in_one_statement(x):
    try:
        r = 1.0 / float(x[0]) + 1.0 / float(x[1])
    except ZeroDivisionError:
        r = -1.0
    return r


def p_check_in_an_inner_handler(x):
    try:
        try:
            r = 1.0 / float(x[0])
        except ZeroDivisionError:
            r = math.sqrt(float(x[1]))
    except ValueError:
        r = -2.0
    return r


def p_handler_of_another_class(x):
    try:
        r = 1.0 / float(x[0])
    except KeyError:
        r = 0.0
    return r


def p_handler_keeps_the_exception(m):
    try:
        inv = np.linalg.inv(m)
    except LinAlgError as e:
        inv = e
    return type(inv).__name__


def test_a_check_where_the_handler_cannot_be_exact_falls_back():
    for x in (POS, ZERO_FIRST, np.array([1.0, 0.0]), np.array([0.0, -1.0])):
        check(p_print_after_the_check, x, full_graph=False)
        check(p_user_function_after_the_check, x, full_graph=False)
        check(p_two_checks_in_one_statement, x, full_graph=False)
        check(p_check_in_an_inner_handler, x, full_graph=False)
    # (p_two_checks_in_one_statement: one graph since two checks in one statement may be taken by a handler, h-fb13)
    for f in (p_print_after_the_check, p_user_function_after_the_check):
        assert "A2G008" in _fallback_codes(f, ZERO_FIRST)
    for m in (GOOD, SINGULAR):
        check(p_handler_keeps_the_exception, m, full_graph=False)


def test_a_check_no_handler_takes_still_raises():
    for x in (POS, ZERO_FIRST):
        check(p_handler_of_another_class, x, full_graph=True)


# ------------------------------------------------------------ class attributes written
X2 = np.array([1.0, 2.0])


class _Meta(type):
    pass


def _world(make_fn):
    def make():
        class Counter:
            total = 0

            def __init__(self):
                self.mine = 0

            def hit(self, x):
                Counter.total += 1
                self.mine += int(x.sum() > 0)
                return self.mine, Counter.total, self.total

        return make_fn(Counter), Counter
    return make


def _hit(Counter):
    return Counter().hit


def _hit_twice_same_object(Counter):
    c = Counter()

    def f(x):
        return c.hit(x), c.hit(x * 2)
    return f


def _under_a_traced_if(Counter):
    def f(x):
        if x.sum() > 0:
            Counter.total += 1
        return x * Counter.total
    return f


def _in_a_rolled_loop(Counter):
    def f(x):
        i = 0
        while i < x.sum():
            Counter.total += 1
            i += 1
        return Counter.total
    return f


def _instance_attribute_shadows(Counter):
    c = Counter()

    def f(x):
        c.total = x.sum()
        Counter.total += 1
        return c.total, Counter.total
    return f


def _subclass_and_type_self(Counter):
    class Sub(Counter):
        def __init__(self):
            type(self).total += 1
            self.id = type(self).total

    def f(x):
        s = Sub()
        if x.sum() > 0:
            Counter.total += 5
        return s.total, Counter.total, Sub.total, x * s.id
    return f


def _raise_after_the_write(Counter):
    def f(x):
        Counter.total += 1
        if x.sum() < 0:
            raise ValueError("neg")
        return x * Counter.total
    return f


def _metaclass_of_its_own(Counter):
    class K(metaclass=_Meta):
        n = 0

    def f(x):
        K.n += 1
        return x * K.n
    return f


_STEPS = [lambda f, C: (f(X2), C.total), lambda f, C: (f(-X2), C.total),
          lambda f, C: (setattr(C, "total", 10), f(X2), C.total)[1:], lambda f, C: (f(X2 * 3), C.total)]


def test_a_class_attribute_written_is_one_graph():
    for make_fn in (_hit, _hit_twice_same_object, _under_a_traced_if, _in_a_rolled_loop, _instance_attribute_shadows,
                    _subclass_and_type_self):
        check_sequence(_world(make_fn), _STEPS, full_graph=True)


def test_a_class_attribute_written_where_it_cannot_be_lifted_falls_back():
    for make_fn in (_raise_after_the_write, _metaclass_of_its_own):
        check_sequence(_world(make_fn), _STEPS, full_graph=False)


# ------------------------------------------------------------ a check a handler takes, in a segment that writes state
TOTAL = 0.0


def p_global_written_around_the_check(x):
    global TOTAL
    try:
        if x[0] > 0:
            TOTAL += 1
        r = 1 / float(x[1])
    except ZeroDivisionError:
        TOTAL -= 100
        r = None
    finally:
        TOTAL += 0.25
    return r


def p_handler_reads_the_name_first(x):
    global TOTAL
    r = 7.0
    try:
        TOTAL += 1
        r = 1 / float(x[1])
    except ZeroDivisionError:
        r += 1   # eager: r from before the statement
        r = r * 2
    return r


def _total_world(fn):
    def make():
        global TOTAL
        TOTAL = 0.0
        return fn, None
    return make


def test_a_check_the_handler_takes_in_a_segment_that_writes_state():
    steps = [lambda f, _: (f(np.array([1.0, 2.0])), TOTAL), lambda f, _: (f(np.array([1.0, 0.0])), TOTAL),
             lambda f, _: (f(np.array([-1.0, 0.0])), TOTAL), lambda f, _: (f(np.array([-1.0, 4.0])), TOTAL)]
    for fn in (p_global_written_around_the_check, p_handler_reads_the_name_first):
        check_sequence(_total_world(fn), steps, full_graph=True)


# ------------------------------------------------------------ a lookup error of a container of traced values
def p_list_index_default(x, i):
    try:
        v = x.tolist()[i]
    except IndexError:
        v = None
    return v if v is not None else "oob"


def p_list_index_message(x, i):
    try:
        v = x.tolist()[i]
    except IndexError as e:
        return None, type(e).__name__, str(e)
    return v, "ok", ""


def p_tuple_and_dict_lookups(x, i, k):
    t = tuple(x[j] * 2 for j in range(x.shape[0]))
    d = {"a": x.sum(), "b": x.max()}
    try:
        a = t[i]
    except IndexError as e:
        a = str(e)
    try:
        b = d[k]
    except KeyError as e:
        b = repr(e)
    return a, b


def test_a_lookup_error_of_a_container_of_traced_values_is_handled_at_trace_time():
    x = np.array([1.0, 2.0, 3.0])
    for i in (0, 2, -3, 3, -4, 10):
        check(p_list_index_default, x, i, full_graph=True, graphs=1)
        check(p_list_index_message, x, i, full_graph=True, graphs=1)
        for k in ("a", "b", "c"):
            check(p_tuple_and_dict_lookups, x, i, k, full_graph=True, graphs=1)
    check(p_list_index_default, np.array([], np.float64), 0, full_graph=True)


# ------------------------------------------------------------ return f(x) whose check a handler takes
def p_return_solve_else_pinv(a, b):
    try:
        return np.linalg.solve(a, b)
    except LinAlgError:
        pass
    return np.linalg.pinv(a) @ b


def p_return_through_finally(x):
    log = 0.0
    try:
        return 1.0 / float(x[0]), log
    except ZeroDivisionError as e:
        log = str(e)
    finally:
        log = 5
    return None, log


def p_return_in_a_loop(x):
    out = 0.0
    for i in range(3):
        try:
            return math.sqrt(float(x[i]))
        except ValueError:
            out = out + 1
    return out


def test_a_return_whose_check_the_handler_takes_is_one_graph():
    b = np.array([1.0, 2.0])
    for m in (GOOD, SINGULAR, NAN_M):
        check(p_return_solve_else_pinv, m, b, full_graph=True, graphs=1)
    for x in (POS, ZERO_FIRST, NEG):
        check(p_return_through_finally, x, full_graph=True, graphs=1)
    for x in (np.array([4.0, 1.0, 1.0]), np.array([-1.0, -4.0, 9.0]), np.array([-1.0, -4.0, -9.0])):
        check(p_return_in_a_loop, x, full_graph=True, graphs=1)


def p_augmented_list(x):
    xs = [1.0]
    try:
        xs += [1.0 / float(x[0])]
    except ZeroDivisionError:
        xs.append(-1.0)
    return xs


def test_an_augmented_list_whose_check_the_handler_takes_falls_back():
    for x in (POS, ZERO_FIRST):
        check(p_augmented_list, x, full_graph=False)
    assert "A2G008" in _fallback_codes(p_augmented_list, ZERO_FIRST)


def _subclass_with_its_own(Counter):
    class Own(Counter):
        total = 100

    class Slotted(Counter):
        __slots__ = ("v",)

    def f(x):
        Counter.total += 1
        s = Slotted.__new__(Slotted)
        return Own.total, Slotted.total, s.total, x * Counter.total
    return f


def test_a_class_attribute_read_through_a_subclass_with_its_own_or_a_slotted_instance():
    check_sequence(_world(_subclass_with_its_own), _STEPS, full_graph=True)
