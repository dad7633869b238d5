"""Run-time checks in batches (graphlib/bounded.py, lowering/codegen.py).

A function whose graph makes several run-time checks (a list indexed by a
traced int in an unrolled loop, asserts, raises under traced conditions)
emits them as one host callback per batch, not one per check: XLA compiled
each check apart (~50 ms each on a CPU). Eager raises the first failing
check in program order; so must the batch, also when several fail, when a
print or a branch stands between two checks, and under jax.vmap.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check_calls

TABLE = [0.5, 1.5, 2.5, 3.5]


def lookups(idx):
    out = []
    for k in range(6):   # unrolled: six index checks, one batch
        out.append(TABLE[int(idx[k])])
    return sum(out)


def mixed(x, idx):
    a = TABLE[int(idx[0])]
    if not x[0] > -5.0:   # (an ``assert`` in a test module is rewritten by pytest in eager only)
        raise ArithmeticError(f"x[0] too small: {float(x[0])}")
    b = TABLE[int(idx[1])]
    if x[1] > 100.0:
        raise ValueError("x[1] is too large")
    c = TABLE[int(idx[2])]
    return a + b + c + x.sum()


def print_between(idx):
    a = TABLE[int(idx[0])]
    b = TABLE[int(idx[1])]
    print("after two lookups")
    c = TABLE[int(idx[2])]
    d = TABLE[int(idx[3])]
    return a + b + c + d


def branch_between(x, idx):
    a = TABLE[int(idx[0])]
    b = TABLE[int(idx[1])]
    if x.sum() > 0:
        c = TABLE[int(idx[2])] * 2
        d = TABLE[int(idx[3])]
    else:
        c = -1.0
        d = TABLE[int(idx[4])]
    return a + b + c + d


I = lambda *v: np.array(v, dtype=np.int32)   # noqa: E731


def test_many_checks_are_one_callback_and_raise_the_first_failure():
    static = check_calls(lookups, [(I(0, 1, 2, 3, 0, 1),), (I(0, 9, 2, 3, 0, 1),), (I(0, 1, 2, 3, 7, -9),),
                                   (I(-1, -4, 3, 2, 1, 0),), (I(5, 6, 7, 8, 9, 10),), (I(0, 1, 2, 3, 0, 4),)],
                         full_graph=True)
    e = explain(to_static(lookups, full_graph=True))(I(0, 1, 2, 3, 0, 1))
    assert e.lowered_source.count("_checks_open()") == 1 and e.lowered_source.count("index_range_check") == 6
    hlo = e.record.compiled[0].jitted.lower(I(0, 1, 2, 3, 0, 1)).as_text()
    assert hlo.count("python_cpu_callback") == 1, hlo.count("python_cpu_callback")


def test_checks_of_different_kinds_in_one_batch_raise_in_program_order():
    x_ok, x_small, x_big = np.array([1.0, 2.0]), np.array([-9.0, 2.0]), np.array([1.0, 200.0])
    check_calls(mixed, [(x_ok, I(0, 1, 2)), (x_small, I(0, 1, 2)), (x_small, I(9, 1, 2)), (x_big, I(0, 8, 2)),
                        (x_big, I(0, 1, 2)), (x_ok, I(0, 1, 9)), (x_small, I(0, 9, 9)), (x_big, I(0, 1, -5))],
                full_graph=True)


def test_a_print_between_checks_is_where_eager_prints_it():
    check_calls(print_between, [(I(0, 1, 2, 3),), (I(0, 9, 2, 3),), (I(0, 1, 2, 9),), (I(8, 1, 2, 9),)],
                full_graph=True)


def test_checks_around_a_traced_branch():
    pos, neg = np.array([1.0, 2.0]), np.array([-1.0, -2.0])
    check_calls(branch_between, [(pos, I(0, 1, 2, 3, 0)), (neg, I(0, 1, 2, 3, 0)), (pos, I(0, 1, 9, 3, 0)),
                                 (neg, I(0, 1, 9, 3, 0)), (neg, I(0, 1, 2, 3, 9)), (pos, I(0, 1, 2, 3, 9)),
                                 (pos, I(0, 7, 2, 9, 0)), (neg, I(6, 1, 2, 3, 9))], full_graph=True)


def nonnegative_sum(x):
    total = 0.0
    for k in range(4):
        if x[k] < 0:
            raise ValueError(f"negative entry at {k}")
        total = total + x[k]
    return total


def test_a_batch_under_vmap_raises_for_the_element_that_fails():
    rows = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 5.0, 1.0, 2.0]], np.float32)
    check_calls(nonnegative_sum, [(r,) for r in rows] + [(np.array([1.0, -2.0, 3.0, -4.0], np.float32),)],
                full_graph=True)
    f = to_static(nonnegative_sum, full_graph=True)
    got = jax.vmap(f)(jnp.asarray(rows))
    assert np.allclose(np.asarray(got), [nonnegative_sum(r) for r in rows])
    bad = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, -3.0, -4.0]], np.float32)
    with pytest.raises(ValueError, match="negative entry at 2"):
        jax.block_until_ready(jax.vmap(f)(jnp.asarray(bad)))
