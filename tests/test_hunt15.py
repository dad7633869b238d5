"""h-hunt15: silent wrong results found by probing realistic programs (random
state, formatting, containers, generators, control flow, in-place NumPy
writes), each compared with eager over calls whose data differ."""

from __future__ import annotations

import numpy as np

from helpers import check, check_sequence


def _calls(fn, *inputs):
    """``fn(np.array(x))`` against eager for each ``x`` in turn (one converted function)."""
    def make():
        return fn, None
    return check_sequence(make, [lambda f, w, x=x: f(np.array(x)) for x in inputs])


# ------------------------------------------- an exit under a traced condition in `finally:`
def first_big_logged(x):
    log = []
    for v in x:
        try:
            if v > 1.5:
                break
        finally:
            log.append(v)
            if v == 2.0:
                continue   # (discards the pending break only where it runs)
    return log


def retry_until(x):
    n = 0
    for v in x:
        try:
            n += 1
            if v > 1:
                return n
        finally:
            if v > 2:
                break   # (discards the pending return only where it runs)
    return -n


def settle(x):
    try:
        if x[0] > 0:
            return 1
        y = 2
    finally:
        if x[1] > 0:
            return 3
    return y


def test_a_traced_exit_in_finally_keeps_the_pending_break_where_it_is_not_taken():
    # the break of the body was dropped on every path once `finally:` held a traced `continue`
    _calls(first_big_logged, [1.0, 2.0, 3.0], [0.0, 3.0, 1.0], [2.0, 5.0, 1.0])


def test_a_traced_exit_in_finally_keeps_the_pending_return_where_it_is_not_taken():
    _calls(retry_until, [-1.0, 1.5, 3.0], [0.5, 3.0, 1.0], [3.0, 2.0, 0.0])
    _calls(settle, [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0])
    check(settle, np.array([1.0, -1.0]), full_graph=True, graphs=1)
