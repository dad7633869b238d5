"""h-warn: NumPy's RuntimeWarnings from graphs, cheap, complete, compared.

Where every host effect of a graph is one of NumPy's floating-point warnings at
its top level, the warning flags leave the graph as one bool output and the
warnings are issued after the call (no ordered host callback, no
``jax.effects_barrier``); a warning in a traced branch leaves the branch as a
result of it. Elsewhere (a print, a warning in a loop) the ordered callbacks
stay. A warning computed in a checked raise's message is issued by the check
when it fires; one after a check that a handler takes, only where the check
did not fire. ``+ - *`` of floats, ``np.sum``/``np.prod`` ("...
encountered in reduce", from NumPy's own line) and NumPy integer scalar
``+ - *`` wrapping around warn as eager does. The filter guard is on what the
filters do with the graph's warnings, not on the list's identity. Every test
compares the warnings (category, message, file, line) with eager's
(``helpers.check_warnings``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import _warned, check_warnings


def _eager_warns(fn, *args) -> list:
    """The warnings eager issues (each test's premise: there are some)."""
    return _warned(fn, args, {})[3]


def log_div(x, y):
    a = np.log(x)
    return a / y


def test_flags_are_outputs_without_host_effects():
    x, y = np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.0])
    assert _eager_warns(log_div, x, y)
    static = check_warnings(log_div, x, y, calls=3)
    plan = explain(static)(x, y).record.plans[0]
    assert not plan.has_effects and len(plan.warning_issuers) == 2   # no ordered callback in the graph
    check_warnings(log_div, np.ones(3), np.ones(3))   # no warning: none issued


def print_between(x):
    print("before")
    a = np.log(x)
    print("after", a[0])
    return np.sqrt(a)


def test_print_keeps_callbacks_in_order():
    x = np.array([0.0, 0.5])
    assert _eager_warns(print_between, x)
    static = check_warnings(print_between, x)
    assert explain(static)(x).record.plans[0].has_effects   # ordered with the prints


def in_branch(x):
    if x.sum() > 0:
        x = np.log(x)
    return x * 2.0


def test_warning_in_traced_branch():
    x = np.array([0.0, 1.0])
    assert _eager_warns(in_branch, x)
    static = check_warnings(in_branch, x)
    check_warnings(in_branch, -x)   # the branch not taken: no warning
    plan = explain(static)(x).record.plans[0]
    assert not plan.has_effects and plan.warning_issuers   # flags as outputs: no ordered effect (several devices)


def in_elif_chain(x, y):
    if x.sum() > 10:
        z = x / y
        if x[0] > 0:
            z = np.log(z)
    elif x.sum() > 0:
        z = x * 1e308
    else:
        z = np.sqrt(x)
    return z


def test_warnings_in_nested_branches_are_outputs():
    x, y = np.array([20.0, -1.0]), np.array([0.0, 1.0])
    static = check_warnings(in_elif_chain, x, y, calls=1)
    for args in [(np.array([5.0, 1.0]), y), (np.array([-4.0, 1.0]), y), (np.array([0.0, 20.0]), y), (x, y)]:
        assert _eager_warns(in_elif_chain, *args)
        check_warnings(in_elif_chain, *args, calls=1)
    plan = explain(static)(x, y).record.plans[0]
    assert not plan.has_effects and len(plan.warning_issuers) == 6   # (two sums, /, log, *, sqrt)


def raise_with_a_sum(x, lr):
    if lr < 0:
        raise ValueError(f"lr must be positive, got {lr} for a sum of {x.sum()}")
    return x * lr


def test_warning_of_a_checked_raise_message():
    big = np.array([1e308, 1e308])
    assert _eager_warns(raise_with_a_sum, big, -1.0)   # the message's sum overflows: eager warns, then raises
    static = check_warnings(raise_with_a_sum, big, -1.0)
    assert explain(static)(big, 1.0).graph_count == 1
    check_warnings(raise_with_a_sum, big, 1.0)   # no raise: the message is never computed, no reduce warning
    check_warnings(raise_with_a_sum, np.ones(2), -1.0)


def add_after_caught_solve(stack, b, total):
    for a in stack:
        try:
            total = total + np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            total = total - 1.0
    return total


def test_warning_after_a_check_that_a_handler_takes():
    stack = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])   # (the second one singular)
    b, total = np.array([1e308, 1.0]), np.array([1e308, 0.0])
    assert _eager_warns(add_after_caught_solve, stack, b, total)   # the + overflows where solve did not raise
    static = check_warnings(add_after_caught_solve, stack, b, total)
    check_warnings(add_after_caught_solve, stack[::-1], b, total, calls=1)
    # singular: the graph's solve gives [nan, 1e308], whose + overflows; eager raised before the +: no warning
    stack, b, total = np.array([[[0.0, 0.0], [0.0, 1.0]]]), np.array([0.0, 1e308]), np.array([0.0, 1e308])
    assert not _eager_warns(add_after_caught_solve, stack, b, total)
    check_warnings(add_after_caught_solve, stack, b, total, calls=1)
    assert explain(static)(stack, b, total).graph_count == 1


def float_ops(a, b):
    c = a - b      # inf - inf: invalid value encountered in subtract
    d = a * 10.0   # overflow encountered in multiply
    return c, d, a + b


def test_add_subtract_multiply():
    a = np.array([np.inf, 1e308, 1.0])
    assert len(_eager_warns(float_ops, a, a)) == 3
    check_warnings(float_ops, a, a)
    check_warnings(float_ops, np.ones(3), np.ones(3))


def scalar_float(a):
    return a * 10.0, a - np.float64(np.inf) + np.float64(np.inf)   # (a * 10 - inf: XLA's fused multiply-add)


def test_scalar_float_ops():
    assert _eager_warns(scalar_float, np.float64(1e308))
    check_warnings(scalar_float, np.float64(1e308))


def reductions(x):
    return np.sum(x), x.sum(axis=0), np.prod(x, keepdims=True)


def test_reduce_overflow_from_numpys_line():
    x = np.full((2, 2), 3e38, np.float32)
    assert {w[2] for w in _eager_warns(reductions, x)} != {__file__}   # eager names NumPy's own line
    check_warnings(reductions, x)
    check_warnings(reductions, np.ones((2, 2), np.float32))


def reduce_invalid(x):
    return np.sum(x)


def test_reduce_invalid():
    x = np.array([np.inf, -np.inf])
    assert _eager_warns(reduce_invalid, x)
    check_warnings(reduce_invalid, x)


def int_scalars(i, j):
    return i * 4, i + j, -i - j - 1


def test_integer_scalar_overflow():
    i, j = np.int64(2 ** 62), np.int64(2 ** 62)
    assert len(_eager_warns(int_scalars, i, j)) == 3
    check_warnings(int_scalars, i, j)
    check_warnings(int_scalars, np.int32(2 ** 30), np.int32(2 ** 30))
    check_warnings(int_scalars, np.int64(3), np.int64(-5))


def int_arrays(a):
    return a * 4   # arrays wrap silently


def test_integer_arrays_do_not_warn():
    check_warnings(int_arrays, np.array([2 ** 62]))


def warn_user(x):
    warnings.warn("careful")
    return x + 1


@pytest.mark.parametrize("fn", [log_div, warn_user], ids=["numpy", "warnings.warn"])
def test_caller_catch_warnings_each_call_keeps_the_graph(fn):
    x = np.array([0.0, 1.0])
    args = (x, x) if fn is log_div else (x,)
    static = to_static(fn, full_graph=True)
    seen_eager, seen_conv = [], []
    for k, action in enumerate(["default", "always", "default", "once", "always"]):
        for run, seen in ((fn, seen_eager), (static, seen_conv)):
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter(action)
                warnings.filterwarnings("ignore", category=DeprecationWarning)
                run(*args)
            seen.append([(w.category, str(w.message), w.filename, w.lineno) for w in got])
    assert seen_conv == seen_eager and seen_eager[0]
    assert static.recompiles == 0, static.recompile_reasons


def test_filters_changed_between_calls():
    x = np.array([0.0, 1.0])
    static = to_static(log_div, full_graph=False)
    results = []
    for action in ["ignore", "always", "error", "default"]:
        for run in (log_div, static):
            with warnings.catch_warnings(record=True) as got:
                warnings.simplefilter(action)
                try:
                    out = run(x, x)
                    outcome = ("returned", out.tolist())
                except RuntimeWarning as e:
                    outcome = ("raised", str(e))
            results.append((action, outcome, [(w.category, str(w.message), w.filename, w.lineno) for w in got]))
    eager, converted = results[0::2], results[1::2]
    assert [r[1][0] for r in eager] == ["returned", "returned", "raised", "returned"]
    assert converted == eager


def test_errstate_between_calls():
    x = np.array([0.0, 1.0])
    static = to_static(log_div, full_graph=True)
    for mode in ["warn", "ignore", "warn"]:
        outs = []
        for run in (log_div, static):
            with warnings.catch_warnings(record=True) as got, np.errstate(divide=mode, invalid=mode):
                warnings.simplefilter("always")
                run(x, x)
            outs.append([(w.category, str(w.message), w.filename, w.lineno) for w in got])
        assert outs[0] == outs[1]


def sums_from_an_initial(x):
    return np.sum(x, initial=1e308), x.sum(initial=-0.0), np.prod(x, initial=np.inf), x.sum(axis=0, initial=2.5)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([1e308, 1.0]), np.array([np.inf, -np.inf]),
                               np.array([np.nan, 0.0])])
def test_a_reduction_from_a_static_initial_warns_as_eager(x):
    # initial= is part of the reduction's data: 1e308 + 1e308 overflows, inf * 0 is invalid, a NaN stays quiet
    check_warnings(sums_from_an_initial, x, full_graph=True)
