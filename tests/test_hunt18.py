"""h-hunt18: silent wrong results found by probing realistic programs
(short-circuiting consumers of generator expressions with effects, ...),
each compared with eager over calls whose data take every path."""

from __future__ import annotations

import numpy as np

from helpers import check_calls


# ------------------------------------------- any/all/next/for-break stop pulling a generator expression
def _checked(v):
    print("checking", v)
    return v < 0


def test_any_and_all_of_a_generator_expression_stop_where_eager_stops():
    def has_negative(x):
        return any(_checked(v) for v in x)

    def all_negative(x):
        vals = (_checked(v) for v in x)
        return all(vals)

    def logged(x):
        seen = []
        return any(seen.append(float(v)) or v > 1 for v in x), seen

    def first_negative(x):
        n = 0
        for flag in (_checked(v) for v in x):
            n += 1
            if flag:
                break
        return n

    def checked_index(x):
        return any([1, 2][int(v)] > 1 for v in x)   # eager never reaches the bad index once one is True

    calls = [(np.array([1.0, -1.0, 2.0]),), (np.array([1.0, 2.0]),), (np.array([-3.0, 2.0]),)]
    for fn in (has_negative, all_negative, logged, first_negative):
        check_calls(fn, calls, full_graph=False)
    check_calls(checked_index, [(np.array([1.0, 5.0]),), (np.array([0.0, 1.0]),)], full_graph=False)


def test_a_pure_generator_expression_under_any_and_all_stays_one_graph():
    def flags(x):
        return any(v > 0 for v in x), all(v > 0 for v in x), any(v > 0 for v in [1.0, x[0]])

    check_calls(flags, [(np.array([1.0, -1.0, 2.0]),), (np.array([-1.0, -2.0, -3.0]),)])
