"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-10 hunt): a handler that exits.

A run-time check (``np.linalg.solve`` of a singular matrix, ``1 / float(s)``
of a zero) or a ``raise`` under a traced condition, taken by the handler of
its own ``try``, was one graph only where the handler ran to its end
(tests/test_fallbacks_hunt9.py). A handler that leaves with ``return``,
``break`` or ``continue`` is one graph now: it runs under the check's
condition inside the ``try``'s exit flags, as a traced exit in the body does
(the exit is taken after ``finally:``), in a loop (rolled or unrolled) too.
Each capability is user code compared with the eager run under
``full_graph=True`` on inputs that take every path, then a second call with
other data. Where the exact graph is not reachable (a handler that keeps its
exception object, a print after the check in its statement, a handler that
raises) it still falls back, with its code.
"""

import numpy as np

from ast2graph import explain, to_static
from helpers import check, check_calls, check_sequence

LinAlgError = np.linalg.LinAlgError
GOOD = np.array([[2.0, 1.0], [1.0, 3.0]])
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
NAN_M = np.array([[np.nan, 1.0], [1.0, 2.0]])
B = np.array([1.0, 2.0])
STACK = np.stack([GOOD, SINGULAR, GOOD * 2.0, SINGULAR * 3.0])
ALL_GOOD = np.stack([GOOD, GOOD + 1.0, GOOD * 3.0])


def _fallback_codes(fn, *args):
    e = explain(to_static(fn))(*args)
    return {site.code.value[0] for site in e.fallback_sites}


# ------------------------------------------------------------ return from the handler
def p_solve_or_none(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return None
    return x * 2


def p_reciprocal_or_default(s, default):
    try:
        y = 1 / float(s)
    except ZeroDivisionError:
        return default
    return y + 1


def p_return_in_the_body_and_in_the_handler(a, b):
    try:
        x = np.linalg.solve(a, b)
        if x[0] > 0:
            return x
        x = -x
    except LinAlgError as e:
        return f"singular: {e}"
    return x + 1


def p_handler_binds_then_returns(a, b):
    n = 0
    try:
        x = np.linalg.solve(a, b)
        n = 1
    except LinAlgError:
        n = -1
        x = b
        if b[0] > 1.5:
            return x, n
    return x * 3, n


def p_return_after_finally(a, b):
    n = 1
    try:
        x = np.linalg.inv(a) @ b
    except LinAlgError:
        return 0.0, n
    finally:
        n = n + 1
    return float(x.sum()) * n, n


def p_traced_raise_handler_returns(x):
    try:
        if x.sum() > 3:
            raise ValueError("too big")
        y = x * 2
    except ValueError:
        return x * 0.0 - 1.0
    return y


def p_return_with_else(a, b):
    try:
        x = np.linalg.solve(a, b)
    except LinAlgError:
        return b
    else:
        x = x + 10
    return x


def test_a_handler_that_returns_is_one_graph():
    mats = (GOOD, SINGULAR, NAN_M)
    for fn in (p_solve_or_none, p_return_with_else, p_return_after_finally):
        check_calls(fn, [(a, B) for a in mats], full_graph=True)
    check_calls(p_return_in_the_body_and_in_the_handler, [(a, b) for a in mats for b in (B, -B)], full_graph=True)
    check_calls(p_handler_binds_then_returns, [(a, b) for a in mats for b in (B, B + 1.0)], full_graph=True)
    check_calls(p_reciprocal_or_default, [(s, 7.5) for s in (2.0, 0.0, np.float64(0.0), np.float64(-4.0))],
                full_graph=True)
    check_calls(p_traced_raise_handler_returns, [(np.array([1.0, 1.0]),), (np.array([3.0, 4.0]),)], full_graph=True)


def _calls(fn, *argsets):
    """check_sequence's world and steps: ``fn`` called on each argument set in turn (one compiled function)."""
    return (lambda: (fn, None)), [lambda f, _w, a=a: f(*a) for a in argsets]


def test_a_handler_that_returns_on_calls_with_other_data():
    check_sequence(*_calls(p_solve_or_none, (GOOD, B), (SINGULAR, B), (GOOD * 2, B), (SINGULAR, -B)))
    check_sequence(*_calls(p_reciprocal_or_default, (np.float64(0.0), 1.0), (np.float64(3.0), 1.0),
                           (np.float64(0.0), 2.0)))
    check_sequence(*_calls(p_return_in_the_body_and_in_the_handler, (GOOD, B), (SINGULAR, B), (GOOD, -B)))


# ------------------------------------------------------------ continue/break from the handler, in a loop
def p_solve_each_continue(mats, b):
    out = []
    for a in mats:   # a tuple of matrices: unrolled
        try:
            y = np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            continue
        out.append(y)
    return out


def p_sum_solutions_continue(stack, b):
    total = np.zeros(2)
    skipped = 0
    for a in stack:   # an array of matrices: rolled
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            skipped += 1
            continue
        total = total + y
    return total, skipped


def p_first_singular_break(stack, b):
    total = np.zeros(2)
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            break
        total = total + y
    return total


def p_return_from_a_loop(stack, b):
    total = np.zeros(2)
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            return None
        total = total + y
    return total


def p_reciprocals_continue(xs):
    acc = 0.0
    for s in xs:
        try:
            r = 1 / float(s)
        except ZeroDivisionError:
            continue
        acc += r
    return acc


# more rows than the unrolling limit (16): a rolled loop
BIG = np.stack([GOOD * (k + 1) if k % 3 else SINGULAR * (k + 1) for k in range(20)])
BIG_GOOD = np.stack([GOOD + k for k in range(20)])
BIG_LATE = np.concatenate([BIG_GOOD[:17], SINGULAR[None], BIG_GOOD[:2]])


def test_a_handler_that_continues_or_breaks_in_an_unrolled_loop_is_one_graph():
    calls = [(mats, B) for mats in ((GOOD, SINGULAR, GOOD * 2), (GOOD,), (SINGULAR, NAN_M), tuple(STACK))]
    check_calls(p_solve_each_continue, calls, full_graph=False)
    for fn in (p_sum_solutions_continue, p_first_singular_break, p_return_from_a_loop):
        check_calls(fn, calls, full_graph=True)
    check_calls(p_reciprocals_continue, [(tuple(np.float64(x) for x in xs),) for xs in ((1.0, 0.0, 4.0), (0.0,),
                                                                                         (2.0, 5.0))], full_graph=True)


def test_a_handler_that_continues_or_breaks_in_a_rolled_loop_is_one_graph():
    for f in (p_first_singular_break, p_return_from_a_loop):
        assert "for -> lax.scan" in str(explain(to_static(f))(BIG, B))
    for fn in (p_sum_solutions_continue, p_first_singular_break, p_return_from_a_loop):
        check_calls(fn, [(stack, B) for stack in (BIG, BIG_GOOD, BIG_LATE)], full_graph=True)
    xs = np.array([1.0, 0.0, 4.0] * 7)
    assert "for -> lax.scan" in str(explain(to_static(p_reciprocals_continue))(xs))
    check(p_reciprocals_continue, xs, full_graph=True)
    check_sequence(*_calls(p_reciprocals_continue, (xs,), (xs[::-1] + 1.0,), (np.zeros(18),)))
    check_sequence(*_calls(p_sum_solutions_continue, (BIG, B), (BIG_GOOD, B), (BIG_LATE, -B)))
    check_sequence(*_calls(p_first_singular_break, (BIG_GOOD, B), (BIG, B), (BIG_LATE, B)))
    check_sequence(*_calls(p_return_from_a_loop, (BIG_LATE, B), (BIG_GOOD, B), (BIG, B)))


def test_a_list_appended_after_the_handler_continues_falls_back():
    # the list's length depends on the data: no graph holds it (a mutation fallback, as before)
    assert _fallback_codes(p_solve_each_continue, (GOOD, SINGULAR), B) == {"A2G007"}


def p_finally_counts_each_try(stack, b):
    total = np.zeros(2)
    tries = 0
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            continue   # (finally: runs before the next iteration)
        finally:
            tries += 1
        total = total + y
    return total, tries


def p_while_until_singular(stack, b):
    i = 0
    total = np.zeros(2)
    while i < stack.shape[0]:
        try:
            total = total + np.linalg.solve(stack[i], b)
        except LinAlgError:
            break
        i += 1
    return total, i


def p_two_checks_two_exits(stack, b, s):
    out = np.zeros(2)
    for a in stack:
        try:
            r = 1 / float(s)
        except ZeroDivisionError:
            return -out
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            continue
        out = out + y * r
    return out


def p_else_and_handler_exit(stack, b):
    out = np.zeros(2)
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
        except LinAlgError:
            continue
        else:
            if y[0] > 10:
                break
        out = out + y
    return out


def p_finally_overrides_the_handlers_return(x):
    try:
        if x.min() < 0:
            raise ValueError("neg")
        return "ok", x.sum()
    except ValueError:
        return "err", None
    finally:
        if x.size == 1:
            return "finally", x.size  # noqa: B012


def test_a_handler_that_exits_with_finally_else_and_other_handlers():
    stacks = ((GOOD, SINGULAR, GOOD * 2), (SINGULAR,), tuple(ALL_GOOD))
    check_calls(p_finally_counts_each_try, [(mats, B) for mats in stacks], full_graph=True)
    check_calls(p_two_checks_two_exits, [(mats, B, np.float64(s)) for mats in stacks for s in (2.0, 0.0)],
                full_graph=True)
    check_calls(p_else_and_handler_exit, [(mats, b) for mats in stacks for b in (B, B * 40.0)], full_graph=True)
    check_calls(p_while_until_singular, [(stack, B) for stack in (STACK, ALL_GOOD, np.stack([SINGULAR, GOOD]))],
                full_graph=True)
    check_calls(p_finally_overrides_the_handlers_return, [(np.array(x),) for x in ([1.0, 2.0], [1.0, -2.0], [-1.0],
                                                                                   [3.0])], full_graph=True)
    check_sequence(*_calls(p_two_checks_two_exits, (STACK, B, np.float64(0.0)), (STACK, B, np.float64(4.0)),
                           (ALL_GOOD, -B, np.float64(0.5))))


def _safe_solve(a, b):
    try:
        x = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        return np.zeros_like(b)
    return x + 1


def p_helper_that_returns_from_its_handler(mats, b):
    out = np.zeros(2)
    for a in mats:
        out = out + _safe_solve(a, b) * 2
    return out


def test_a_handler_that_returns_in_a_helper_is_one_graph():
    check_calls(p_helper_that_returns_from_its_handler, [(mats, B) for mats in ((GOOD, SINGULAR, GOOD), BIG, BIG_GOOD)],
                full_graph=True)


# ------------------------------------------------------------ where it fell back (the first two: one graph now)
def p_handler_returns_its_exception(a, b):
    try:
        x = np.linalg.solve(a, b)
    except LinAlgError as e:
        return type(e).__name__, e.args   # (the object itself looked at, not its text)
    return x


def p_print_after_the_check_then_return(s):
    try:
        print("r", 1 / float(s))
    except ZeroDivisionError:
        return None
    return s


def p_handler_raises_another(a, b):
    try:
        x = np.linalg.solve(a, b)
    except LinAlgError:
        raise ValueError("singular system")
    return x


def p_check_in_a_loop_of_the_body_handler_returns(stack, b):
    try:
        total = np.zeros(2)
        for a in stack:
            total = total + np.linalg.solve(a, b)
    except LinAlgError:
        return None
    return total


def test_a_handler_that_looks_at_its_exception_or_raises_another_is_one_graph():
    # they fell back (A2G008) until a check handed its handler a new copy of eager's exception
    # (type(e), e.args) and a handler's last raise became a check of its own (h-fb12)
    for a in (GOOD, SINGULAR):
        check(p_handler_returns_its_exception, a, B, full_graph=True)
        check(p_handler_raises_another, a, B, full_graph=True)


def test_a_handler_that_exits_where_it_cannot_be_exact_falls_back():
    for a in (GOOD, SINGULAR):
        check(p_check_in_a_loop_of_the_body_handler_returns, np.stack([GOOD, a]), B, full_graph=False)
    for s in (np.float64(2.0), np.float64(0.0)):
        check(p_print_after_the_check_then_return, s, full_graph=False)
    assert "A2G008" in _fallback_codes(p_print_after_the_check_then_return, np.float64(2.0))
    assert "A2G008" in _fallback_codes(p_check_in_a_loop_of_the_body_handler_returns, np.stack([GOOD, SINGULAR]), B)
