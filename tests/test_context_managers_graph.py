"""Context managers and ``try``/``finally`` in one graph (issue 16, item 5 and
the try/finally exits of item 6).

``break``/``continue``/``return`` under a traced condition inside a ``try``
with ``finally:`` set a flag: the rest of the body runs in the other
branches, the ``finally:`` runs once on every path, then the exit is taken
under its flag. User context managers (classes with ``__enter__``/``__exit__``,
``@contextlib.contextmanager`` generators) are converted like calls, their
state effects written back on every call. Every case is compared with eager.
"""

import contextlib

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, check_sequence

X = jnp.arange(3.0)


# ------------------------------------------------------------ try/finally exits
def break_in_try(x):
    for i in range(4):
        try:
            if x.sum() > 3:
                break
            x = x + 1
        finally:
            x = x * 1.0
    return x


def continue_in_try(x):
    total = x * 0
    for i in range(5):
        try:
            if x[i % 3] > 1:
                continue
            total = total + x
        finally:
            total = total * 2
        total = total - 1
    return total


def return_in_try(x):
    try:
        if x.sum() > 3:
            return x * 10
        x = x + 1
    finally:
        print("finally")
    return x - 1


def return_in_try_in_loop(x):
    for i in range(3):
        try:
            if x.sum() > 6:
                return x, i
            x = x + 2
        finally:
            x = x * 1.5
    return x, -1


def nested_try_break(x):
    for i in range(3):
        try:
            try:
                if x.max() > 2.5:
                    break
                x = x + 1
            finally:
                x = x - 0.5
        finally:
            x = x * 2
    return x


def break_in_try_rolled(x):
    for i in range(40):
        try:
            if x.sum() > 50:
                break
            x = x + 1
        finally:
            x = x * 1.01
    return x


def helper_with_finally(x, log_scale):
    for i in range(4):
        try:
            if x.sum() > log_scale:
                return x
            x = x + 1
        finally:
            x = x * 0.5 + 1
    return -x


def calls_helper(x):
    return helper_with_finally(x, 5.0) + 1


def try_in_traced_branch(x):
    if x.sum() > 1:
        for i in range(3):
            try:
                if x[0] > 2:
                    break
                x = x + 1
            finally:
                x = x + 0.25
    return x


@pytest.mark.parametrize("fn", [break_in_try, continue_in_try, return_in_try, return_in_try_in_loop, nested_try_break,
                                break_in_try_rolled, calls_helper, try_in_traced_branch])
@pytest.mark.parametrize("scale", [0.0, 1.0, 3.0])
def test_exit_through_finally_one_graph(fn, scale):
    check(fn, X * scale, graphs=1)


def try_else_after_exit(x):
    for i in range(3):
        try:
            if x.sum() > 3:
                break
        finally:
            x = x + 1
    else:
        x = x * 0
    return x


def test_loop_else_after_break_through_finally():
    for scale in (0.0, 1.0, 5.0):
        check(try_else_after_exit, X * scale, graphs=1)


def try_else_clause(x):
    for i in range(3):
        try:
            if x.sum() > 3:
                break
            x = x + 1
        except ValueError:
            pass
        else:
            x = x * 2
        finally:
            x = x - 1
    return x


def test_try_else_after_traced_exit_falls_back():
    e = check(try_else_clause, X, full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G006"]


def try_except_else(x):
    for i in range(3):
        try:
            if x.sum() > 3:
                break
            x = x + 1
        except ValueError:
            pass
        else:
            x = x * 2
    return x


def test_try_except_else_around_traced_break_is_never_wrong():
    # the else: clause used to be dropped on the path that did not break (a wrong value)
    for scale in (0.0, 1.0, 5.0):
        e = check(try_except_else, X * scale, full_graph=False)
        assert [s.code.code for s in e.fallback_sites] == ["A2G006"]


def prints_in_finally(x):
    for i in range(4):
        try:
            if x.sum() > 4:
                continue
            x = x + 1
            print("body", i)
        finally:
            print("finally", i)
    return x


def test_prints_in_finally_on_every_path():
    for scale in (0.0, 1.0, 3.0):
        check(prints_in_finally, X * scale, graphs=1)


def finally_before_outer_handler(x, key):
    try:
        try:
            y = x + {"a": 1.0}[key]
        finally:
            print("finally runs")
            x = x * 2
    except KeyError:
        y = x - 1
    return y


@pytest.mark.parametrize("key", ["a", "b"])
def test_finally_runs_before_an_outer_handler(key):
    # the finally: was skipped when an outer handler caught the exception at trace time
    check(finally_before_outer_handler, X, key, graphs=1)
