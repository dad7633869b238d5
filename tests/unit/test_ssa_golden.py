"""Golden tests: exact text of SSAInfo.dump() for small functions."""

from __future__ import annotations

import textwrap

import gast

from ast2graph.ssa import analyze


def dump_of(src: str) -> str:
    return analyze(gast.parse(textwrap.dedent(src)).body[0]).dump()


def test_golden_diamond():
    src = """
        def f(c, a):
            if c:
                y = a + 1
            else:
                y = 2
            return y
    """
    expected = """\
b0: (entry)
  live-in: {a, c}
  L3: if c:  [c.0]
  live-out: {a}
b1: preds b0
  live-in: {a}
  L4: y = a + 1  [a.0 => y.1]
  live-out: {y}
b2: preds b0
  live-in: {}
  L6: y = 2  [=> y.2]
  live-out: {y}
b3: preds b1 b2
  y.3 = phi(b1: y.1, b2: y.2)
  live-in: {y}
  L7: return y  [y.3]
  live-out: {}
b4: (exit) preds b3
  live-in: {}
  live-out: {}
"""
    assert dump_of(src) == expected


def test_golden_for_accumulate():
    src = """
        def f(x, n):
            acc = 0
            for i in range(n):
                acc = acc + x[i]
            return acc
    """
    expected = """\
b0: (entry)
  live-in: {n, x}
  L3: acc = 0  [=> acc.1]
  L4: <for-iter> range(n)  [n.0]
  live-out: {acc, x}
b1: preds b0 b2
  acc.2 = phi(b0: acc.1, b2: acc.3)
  live-in: {acc, x}
  L4: <for-next>
  live-out: {acc, x}
b2: preds b1
  live-in: {acc, x}
  L4: <for-target> i  [=> i.1]
  L5: acc = acc + x[i]  [acc.2 x.0 i.1 => acc.3]
  live-out: {acc, x}
b3: preds b1
  live-in: {acc}
  L6: return acc  [acc.2]
  live-out: {}
b4: (exit) preds b3
  live-in: {}
  live-out: {}
"""
    assert dump_of(src) == expected


def test_golden_while_try_break():
    src = """
        def f(xs, limit):
            total = 0
            while total < limit:
                try:
                    v = next(xs)
                except StopIteration:
                    break
                total += v
            return total
    """
    expected = """\
b0: (entry)
  live-in: {limit, xs}
  L3: total = 0  [=> total.1]
  L4: <while-entry>
  live-out: {limit, total, xs}
b1: preds b0 b5
  total.2 = phi(b0: total.1, b5: total.3)
  live-in: {limit, total, xs}
  L4: while total < limit:  [total.2 limit.0]
  live-out: {limit, total, xs}
b2: preds b1
  live-in: {limit, total, xs}
  L5: try:
  live-out: {limit, total, xs}
b3: preds b2
  live-in: {limit, total, xs}
  L6: v = next(xs)  [xs.0 => v.1]
  live-out: {limit, total, v, xs}
b4: preds b2 b3
  live-in: {total}
  L7: except StopIteration:
  L8: break
  live-out: {total}
b5: preds b3
  live-in: {limit, total, v, xs}
  L9: total += v  [total.2 v.1 => total.3]
  live-out: {limit, total, xs}
b6: preds b1 b4
  live-in: {total}
  L10: return total  [total.2]
  live-out: {}
b7: (exit) preds b6
  live-in: {}
  live-out: {}
"""
    assert dump_of(src) == expected
