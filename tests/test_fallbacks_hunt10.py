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
from helpers import check, check_sequence

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
    for a in (GOOD, SINGULAR, NAN_M):
        check(p_solve_or_none, a, B, full_graph=True)
        check(p_return_in_the_body_and_in_the_handler, a, B, full_graph=True)
        check(p_return_in_the_body_and_in_the_handler, a, -B, full_graph=True)
        check(p_handler_binds_then_returns, a, B, full_graph=True)
        check(p_handler_binds_then_returns, a, B + 1.0, full_graph=True)
        check(p_return_with_else, a, B, full_graph=True)
        check(p_return_after_finally, a, B, full_graph=True)
    for s in (2.0, 0.0, np.float64(0.0), np.float64(-4.0)):
        check(p_reciprocal_or_default, s, 7.5, full_graph=True)
    for x in (np.array([1.0, 1.0]), np.array([3.0, 4.0])):
        check(p_traced_raise_handler_returns, x, full_graph=True)


def _calls(fn, *argsets):
    """check_sequence's world and steps: ``fn`` called on each argument set in turn (one compiled function)."""
    return (lambda: (fn, None)), [lambda f, _w, a=a: f(*a) for a in argsets]


def test_a_handler_that_returns_on_calls_with_other_data():
    check_sequence(*_calls(p_solve_or_none, (GOOD, B), (SINGULAR, B), (GOOD * 2, B), (SINGULAR, -B)))
    check_sequence(*_calls(p_reciprocal_or_default, (np.float64(0.0), 1.0), (np.float64(3.0), 1.0),
                           (np.float64(0.0), 2.0)))
    check_sequence(*_calls(p_return_in_the_body_and_in_the_handler, (GOOD, B), (SINGULAR, B), (GOOD, -B)))
