"""``itertools.chain`` and ``itertools.accumulate`` over arrays' rows, lists and
tuples of traced values are made at trace time, in eager's order: one graph.

Each case is compared with the eager run of the same function.
"""

from __future__ import annotations

import itertools
import operator

import jax.numpy as jnp
import pytest

from helpers import check

XA = jnp.array([1.0, -2.0, 3.0, 0.5, 4.0, -1.0])


def chain_rows_and_lists(x):
    out = []
    for u, v in zip(itertools.chain(x[:3], [x[5], x[4]]), itertools.chain((x[0],), x[3:])):
        out.append(u * v)
    return jnp.stack(out), list(itertools.chain([1, 2], (x[0],)))


def running_sums(x):
    parts = list(itertools.accumulate(x[i] for i in range(x.shape[0])))
    prods = list(itertools.accumulate([x[0], x[1], x[2]], operator.mul))
    peaks = list(itertools.accumulate(x, max))
    return jnp.stack(parts), prods, peaks


def accumulate_with_initial_and_lambda(x):
    a = list(itertools.accumulate([x[0], x[1]], initial=10.0))
    b = tuple(itertools.accumulate([x[0], x[1], x[2]], lambda s, v: s * 0.5 + v))
    c = sum(itertools.accumulate([float(v) for v in x]))
    return a, b, c


@pytest.mark.parametrize("fn", [chain_rows_and_lists, running_sums, accumulate_with_initial_and_lambda])
def test_itertools_one_graph(fn):
    check(fn, XA, full_graph=True)
    check(fn, -XA[::-1], full_graph=True)


def test_accumulate_with_a_function_called_lazily_keeps_eager_order():
    def f(x):
        def step(s, v):
            print("step", float(v))
            return s + v

        out = []
        for s in itertools.accumulate([x[0], x[1], x[2]], step):
            print("got", float(s))
            out.append(s)
        return out

    check(f, XA, full_graph=False)   # printed output interleaved as eager's: compared by check
