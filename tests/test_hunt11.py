"""Differences and hangs the hunt corpus (benchmarks/hunt) found, minimised; each compared with eager."""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, check_sequence


def test_while_true_mutating_a_list_with_a_traced_break_falls_back_after_max_unroll():
    # a bubble sort: `while True:` whose only exit is a traced `break`, swapping list items; it
    # never tried to roll (it mutates the list), so it unrolled up to static_iteration_limit
    # (100 000) iterations, each nested under the last one's traced exit: conversion did not finish
    def bubble_sort(x):
        a = [float(v) for v in x]
        swaps = 0
        while True:
            swapped = False
            for i in range(len(a) - 1):
                if a[i] > a[i + 1]:
                    a[i], a[i + 1] = a[i + 1], a[i]
                    swapped = True
                    swaps += 1
            if not swapped:
                break
        return a, swaps

    for x in (jnp.array([3.0, 1.0, 2.0]), jnp.array([1.0, 2.0, 3.0])):
        e = check(bubble_sort, x, full_graph=False, max_unroll=16)
        assert [s.code.code for s in e.fallback_sites] == ["A2G007"], e.fallback_sites


def _made_per_call_cases():
    import array
    import collections

    return [(collections.deque, lambda c: c.append(1)), (lambda: array.array("d"), lambda c: c.append(1.0)),
            (collections.deque, lambda c: c.extend([1, 2]))]


def test_a_deque_made_in_the_function_is_a_new_one_on_every_call():
    # `dq = collections.deque()` ran once at trace time and the segment handed that one object
    # out on every call: it grew across calls (a sliding-window maximum read x[dq[0]] of the
    # first call's deque on warm calls); the same for array.array
    for factory, mutate in _made_per_call_cases():
        def f(x):
            c = factory()
            y = x + 1
            mutate(c)
            return len(c), y

        x = jnp.ones(2)
        check(f, x, full_graph=False)
        check(f, x, full_graph=False)


def test_sliding_window_maximum_with_a_deque_on_warm_calls():
    import collections

    def sliding_max(x, k):
        dq = collections.deque()
        out = []
        for i, v in enumerate(x):
            while dq and x[dq[-1]] <= v:
                dq.pop()
            dq.append(i)
            if dq[0] <= i - k:
                dq.popleft()
            if i >= k - 1:
                out.append(x[dq[0]])
        return jnp.stack(out), list(dq)

    check(sliding_max, jnp.array([1.0, 5.0, 2.0, 8.0, 3.0]), 2, full_graph=False)


def test_a_simple_namespace_made_in_the_function_is_a_new_one_on_every_call():
    # types.SimpleNamespace (a class written in C) made at trace time was one object shared by
    # every call: `st.count += 1` counted calls (1, 2, 3 where eager gives 1 each time), and a
    # caller's change to one result showed in the next
    import types

    def counted(x):
        st = types.SimpleNamespace(count=0, hist=[])
        y = x + 1
        st.count += 1
        st.hist.append(st.count)
        return st, y

    def step(f, _):
        st, y = f(jnp.ones(2))
        out = (vars(st).copy(), y)
        st.count = 100   # the caller changes its result
        st.hist.append(-1)
        return out

    check(counted, jnp.ones(2))
    check_sequence(lambda: (counted, None), [step, step, step])


def test_a_simple_namespace_made_before_a_fallback_is_rebuilt_per_call():
    import time
    import types

    def f(x):
        cfg = types.SimpleNamespace(scale=2.0, calls=0)
        cfg.calls += 1
        t = time.perf_counter()   # a statement that runs in Python
        cfg.calls += 1
        return x * cfg.scale, cfg.calls, t > 0

    check(f, jnp.ones(2), full_graph=False)
    check(f, jnp.ones(2), full_graph=False)


def test_math_isnan_isinf_isfinite_of_traced_python_numbers_are_one_graph():
    # math.isnan(float(v)) of a traced value fell back (A2G003, "needs the value of a traced
    # Python float"); it is eager's Python bool, computed in the graph at the float's own
    # precision (a float64 1e308 is finite: not narrowed to float32, where it is an infinity)
    import math

    import numpy as np

    def ratios(x):
        flags = []
        for v in x:
            v = float(v)
            flags.append((math.isnan(v), math.isinf(v), math.isfinite(v)))
        t = float(x.sum())
        if math.isnan(t) or math.isinf(t):
            return flags, None
        return flags, t

    for x in (jnp.array([1.0, jnp.nan, jnp.inf, -jnp.inf]), jnp.array([1.0, 2.0]), np.array([1e308, 1e308]),
              np.array([1e308, -1e308])):
        check(ratios, x, full_graph=True)

    def of_items(x):
        return math.isnan(x[0]), math.isinf(x.sum()), math.isfinite(int(x[1]))

    for x in (jnp.array([1, 2]), jnp.array([np.nan, 2.0]), np.array([np.inf, 2.0])):
        check(of_items, x, full_graph=True)


# ------------------------------------------------ trace-time NumPy arrays written after an op read them
def _op_then_write(x):
    c = np.zeros(3)
    v = c + x          # eager's op reads c now
    c[:] = 7           # a later write into c does not reach v
    return v, c


def test_an_op_reads_a_trace_time_array_as_it_was_then():
    # the op held the array object itself, and the later trace-time write reached it: 7 + x (h-fb11)
    check(_op_then_write, np.array([1.0, 5.0, 2.0]), full_graph=True)


def _row_view_then_write_base(x):
    c = np.zeros((3, 2))
    row = c[x.argmax()]   # a view in eager
    c[:] = 7
    return row


def _row_view_then_write_row(x):
    c = np.zeros((3, 2))
    row = c[x.argmax()]
    row[0] = 5
    return c


def _arg_row_view_then_write_base(x, c):
    row = c[int(np.argmax(x)) % 2]   # a traced Python int: basic indexing, a view in eager
    c[:] = 7.0
    return row + x


def _arg_row_view_then_write_row(x, c):
    row = c[x.argmax() % 2]   # a NumPy integer scalar index: a view too
    row[0] = 100.0
    return c.sum() + x


def _arg_row_by_array0_is_a_copy(x, c):
    row = c[np.asarray(x.argmax() % 2)]   # a 0-d ndarray index: advanced indexing, a copy
    c[:] = 7.0
    return row + x


@pytest.mark.parametrize("fn", [_row_view_then_write_base, _row_view_then_write_row])
def test_a_view_by_a_traced_index_shares_memory_with_its_base(fn):
    # the view ran in Python (A2G003) and the next segment's write did not reach the other name
    check(fn, np.array([1.0, 5.0, 2.0]), full_graph=False)


@pytest.mark.parametrize("fn", [_arg_row_view_then_write_base, _arg_row_view_then_write_row,
                                _arg_row_by_array0_is_a_copy])
def test_a_row_of_an_argument_by_a_traced_index_is_a_view(fn):
    # one graph, and wrong before: the row was a gather, the later write into c did not reach it
    for x in (np.array([1.0, 5.0, 2.0]), np.array([9.0, 5.0, 2.0])):
        check(fn, x, np.arange(6.0).reshape(2, 3), full_graph=False)
