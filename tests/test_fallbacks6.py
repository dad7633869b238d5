"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-6 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, with the case that must stay a
fallback checked for its code.

- ``x.tolist()`` of a traced array of static shape: eager's nested lists of
  Python numbers, each a traced Python number in the graph (the structure is
  the shape's, static; only the numbers are the graph's).
"""

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check

F32 = jnp.array([0.5, -1.25, 3.0])
F64 = np.array([0.5, -1.25, 3.0])
I64 = np.array([[1, -2], [3, 4]])
B = np.array([True, False, True])


def codes(explanation) -> list[str]:
    return [s.code.value[0] for s in explanation.fallback_sites]


# ------------------------------------------------------------ .tolist()
def p_tolist_append_back(x):
    lst = x.tolist()
    lst.append(10.0)
    arr = np.array(lst)
    return lst, arr, arr.dtype, type(lst[0]).__name__


def p_tolist_nested(m):
    rows = m.tolist()
    return rows, [max(r) for r in rows], rows[1][0] < 2, type(rows[0][1]).__name__


def p_tolist_zero_d(a):
    return a.tolist(), (a * 2).tolist() + 1


def p_tolist_bools(a, b):
    flags = np.isclose(a, b).tolist()
    return flags, all(flags), [not f for f in flags]


def p_tolist_in_loop(x):
    out = []
    for v in x.tolist():
        if v > 0:   # a traced Python float's test: a select
            out.append(v * 2)
        else:
            out.append(-v)
    return out


def p_tolist_zip(x):
    return list(zip(range(3), x.tolist())), dict(enumerate(x.tolist()))


def p_tolist_membership(x, v):
    return v in x.tolist(), len(x.tolist())


def p_tolist_empty(p):
    return p.argmax(axis=1).tolist() if len(p) else []


@pytest.mark.parametrize("fn,args", [
    (p_tolist_append_back, (F32,)),
    (p_tolist_append_back, (F64,)),
    (p_tolist_nested, (I64,)),
    (p_tolist_nested, (I64.astype(np.uint8),)),
    (p_tolist_zero_d, (np.array(3.5),)),
    (p_tolist_zero_d, (np.array(7, dtype=np.int32),)),
    (p_tolist_zero_d, (jnp.array(2.0),)),
    (p_tolist_bools, (F64, np.array([0.5, 1.0, 3.0]))),
    (p_tolist_in_loop, (F32,)),
    (p_tolist_in_loop, (F64,)),
    (p_tolist_zip, (F32,)),
    (p_tolist_membership, (F64, 3.0)),
    (p_tolist_empty, (np.array([[0.1, 0.9], [0.8, 0.2]]),)),
    (p_tolist_empty, (np.empty((0, 2)),)),
])
def test_tolist_is_graph(fn, args):
    check(fn, *args, full_graph=True)


def p_tolist_big(x):
    return x.tolist()


def p_tolist_complex(x):
    return (x * 1j).tolist()


def test_tolist_past_the_limit_falls_back():
    e = check(p_tolist_big, np.arange(300.0), full_graph=False)
    assert codes(e) == ["A2G003"]


def p_tolist_int64_doubled(m):
    return m.tolist()[0] * 2


def test_tolist_int64_arithmetic_keeps_its_exactness_rule():
    e = check(p_tolist_int64_doubled, np.array([2 ** 62, 1]), full_graph=False)
    assert codes(e) == ["A2G016"]   # eager's int is exact: the graph's int64 may not be


def test_tolist_of_complex_falls_back():
    e = check(p_tolist_complex, F64, full_graph=False)
    assert codes(e) == ["A2G003"]
