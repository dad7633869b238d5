"""In-place writes into NumPy arrays read from outside the function
(``self.w -= lr * g``, ``G[0] = v``, a closure's buffer): eager writes that
very array, so every other holder of it sees the write. The graph computes the
written version and copies it into the array after the call (``mutation.
_capture_store``, ``state.InPlaceArray``); where another array the graph reads
shares its memory, or the write is under a traced condition, the statement
runs in Python. Every test compares with eager, changing the state between
calls where there is state."""

from __future__ import annotations

import numpy as np
import pytest

import ast2graph
from tests.helpers import check_sequence


class Linear:
    def __init__(self, n: int, dtype: str = "float64"):
        self.w = (np.arange(n * n, dtype=dtype).reshape(n, n) % 5) * 0.1
        self.b = np.zeros(n, dtype=dtype)

    def step(self, x, lr):
        h = x @ self.w + self.b
        g = np.outer(x, h)
        self.w -= lr * g
        self.b -= lr * h
        return float((h ** 2).sum())


def _fallbacks(fn, *args):
    return ast2graph.explain(fn)(*args).fallback_sites


def test_attribute_arrays_written_in_place_are_one_graph():
    def make():
        m = Linear(3)
        return Linear.step, {"m": m, "held": m.w}

    def call(fn, world, x=np.array([1.0, -0.5, 0.25])):
        m = world["m"]
        loss = fn(m, x, 0.1)
        # the caller's other reference to the array sees the write; the attribute is that array
        return loss, m.w.copy(), m.b.copy(), world["held"] is m.w, world["held"].copy()

    def fresh_array(fn, world):   # a new array set on the attribute: the write reaches it, not the old one
        world["m"].w = np.ones((3, 3))
        return call(fn, world)

    def float32_data(fn, world):
        return call(fn, world, np.array([0.5, 0.5, 2.0], dtype=np.float32))

    check_sequence(make, [call, call, fresh_array, call, float32_data])
    m = Linear(3)
    assert _fallbacks(Linear.step, m, np.ones(3), 0.1) == []


def test_dtype_kept_by_in_place_write():
    """``w -= v`` keeps ``w``'s dtype (NumPy casts the result into it)."""
    def make():
        m = Linear(2, "float32")
        return Linear.step, m

    def call(fn, m):
        out = fn(m, np.array([1.0, 2.0]), 0.01)
        return out, m.w, m.w.dtype, m.b

    check_sequence(make, [call, call])


def test_integer_array_plus_float_raises_as_eager():
    class Counter:
        def __init__(self):
            self.counts = np.zeros(3, dtype=np.int64)

        def add(self, x):
            self.counts += x
            return self.counts.sum()

    def make():
        return Counter.add, Counter()

    def ints(fn, c):
        return fn(c, np.array([1, 2, 3])), c.counts

    def floats(fn, c):   # eager: UFuncTypeError (a TypeError) casting float64 into int64
        return fn(c, np.array([0.5, 0.5, 0.5])), c.counts

    check_sequence(make, [ints, ints, floats, ints], full_graph=False)


G = np.zeros(4)


def _write_global(x):
    G[1:3] = x[:2]
    return G.sum()


def _augment_global(x):
    global G
    G += x
    return G.sum() + G[0]


@pytest.mark.parametrize("fn", [_write_global, _augment_global])
def test_global_array_written_in_place(fn):
    def make():
        global G
        G = np.zeros(4)
        return fn, None

    def call(f, _):
        held = G
        return f(np.array([1.0, 2.0, 3.0, 4.0])), G.copy(), held is G

    def rebound(f, _):   # the global set to another array between calls
        global G
        G = np.full(4, 10.0)
        return call(f, _)

    check_sequence(make, [call, call, rebound, call])


def test_closure_buffer_written_in_place():
    def make():
        buf = np.zeros(3)

        def fill(x):
            buf[:] = x * 2
            buf[0] += 1
            return buf.sum(), buf

        return fill, buf

    def call(fn, buf):
        total, out = fn(np.array([1.0, 2.0, 3.0]))
        return total, out is buf, buf.copy()

    check_sequence(make, [call, call])


def test_local_alias_view_and_returned_array_see_the_write():
    class M:
        def __init__(self):
            self.w = np.arange(6.0).reshape(2, 3)

        def run(self, x):
            row = self.w[0]          # a view: sees the write, as eager's
            w = self.w
            w *= x
            self.w[1, 0] = -1.0
            return row.sum(), w, self.w

    def make():
        return M.run, M()

    def call(fn, m):
        s, w, again = fn(m, 2.0)
        return s, w is m.w, again is m.w, m.w.copy()

    check_sequence(make, [call, call])
    assert _fallbacks(M.run, M(), 2.0) == []


def test_unrolled_loop_writes_in_place():
    class SGD:
        def __init__(self):
            self.w = np.array([1.0, -2.0, 0.5])

        def fit(self, x, steps: int = 5):
            losses = []
            for _ in range(steps):
                g = 2 * (self.w - x)
                self.w -= 0.1 * g
                losses.append(float(((self.w - x) ** 2).sum()))
            return losses

    def make():
        return SGD.fit, SGD()

    def call(fn, m):
        return fn(m, np.array([0.0, 1.0, 2.0])), m.w.copy()

    check_sequence(make, [call, call])


def test_write_under_traced_condition_is_joined():
    class M:
        def __init__(self):
            self.w = np.ones(3)

        def maybe(self, x):
            if x.sum() > 0:
                self.w -= x
            else:
                self.w[0] = x[0]
            return self.w.sum(), self.w

    def make():
        return M.maybe, M()

    def pos(fn, m):
        s, w = fn(m, np.array([1.0, 2.0, 3.0]))
        return s, w is m.w, m.w.copy()

    def neg(fn, m):
        s, w = fn(m, np.array([-1.0, -2.0, -3.0]))
        return s, w is m.w, m.w.copy()

    check_sequence(make, [pos, neg, pos, neg])


def test_alias_held_across_a_traced_write_falls_back_and_equals_eager():
    class M:
        def __init__(self):
            self.w = np.ones(3)

        def run(self, x):
            w = self.w
            if x.sum() > 0:
                self.w -= x
            return w.sum()   # eager: the same array, written

    def make():
        return M.run, M()

    def call(fn, m, x=np.array([1.0, 2.0, 3.0])):
        return fn(m, x), m.w.copy()

    def neg(fn, m):
        return call(fn, m, -np.ones(3))

    check_sequence(make, [call, neg, call], full_graph=False)


def test_rolled_loops_carry_the_written_array():
    class Fit:
        def __init__(self):
            self.w = np.array([1.0, -2.0, 0.5])

        def steps(self, x, n):
            for _ in range(n):
                self.w -= 0.01 * 2 * (self.w - x)
            return self.w.sum()

        def until(self, x, tol):
            k = 0
            while ((self.w - x) ** 2).sum() > tol:
                self.w -= 0.1 * (self.w - x)
                k += 1
            return k

    def make():
        return Fit.steps, Fit()

    def call(fn, m):   # 300 trips: a rolled loop (it would unroll past the limit)
        return fn(m, np.array([0.0, 1.0, 2.0]), 300), m.w.copy()

    check_sequence(make, [call, call])

    def make_until():
        return Fit.until, Fit()

    def until(fn, m, tol=1e-3):
        return fn(m, np.array([0.0, 1.0, 2.0]), tol), m.w.copy()

    def looser(fn, m):
        m.w = np.array([5.0, 5.0, 5.0])
        return until(fn, m, 0.5)

    check_sequence(make_until, [until, until, looser])


def test_arrays_sharing_memory_are_not_written_apart():
    """``self.b`` a view of ``self.a`` that the function also reads: the
    graph's read of ``self.a`` would not see the write; that call runs in
    Python. The sharing is checked on every call: made between two calls,
    it re-specialises."""
    class M:
        def __init__(self, shared: bool):
            self.a = np.arange(4.0)
            self.b = self.a[:2] if shared else np.zeros(2)

        def run(self, x):
            self.b += x
            return self.a.sum(), self.b.sum()

    def make_apart():
        return M.run, M(False)

    def call(fn, m):
        return fn(m, np.array([1.0, 2.0])), m.a.copy(), m.b.copy()

    def share(fn, m):   # now the view: eager's a changes too
        m.b = m.a[:2]
        return call(fn, m)

    check_sequence(make_apart, [call, call, share, call], full_graph=False)
    assert _fallbacks(M.run, M(True), np.array([1.0, 2.0]))

    class Twice:
        def __init__(self):
            self.a = np.arange(3.0)
            self.b = self.a      # the same array under two attributes

        def run(self, x):
            self.a -= x
            return self.b.sum()

    def make_twice():
        return Twice.run, Twice()

    def call_twice(fn, m):
        return fn(m, np.ones(3)), m.a.copy(), m.b is m.a

    check_sequence(make_twice, [call_twice, call_twice], full_graph=False)
    assert _fallbacks(Twice.run, Twice(), np.ones(3))


def test_argument_sharing_memory_with_written_attribute():
    class M:
        def __init__(self):
            self.w = np.arange(4.0)

        def run(self, x):
            self.w *= 2
            return x.sum()

    def make():
        return M.run, M()

    def apart(fn, m):
        return fn(m, np.ones(4)), m.w.copy()

    def aliased(fn, m):   # the argument is the attribute's array: eager's x.sum() sees the doubling
        return fn(m, m.w), m.w.copy()

    check_sequence(make, [apart, aliased, apart], full_graph=False)


def test_read_only_array_raises_as_eager():
    class M:
        def __init__(self):
            self.w = np.ones(3)

        def run(self, x):
            self.w += x
            return self.w.sum()

    def make():
        return M.run, M()

    def call(fn, m):
        return fn(m, np.ones(3)), m.w.copy()

    def frozen(fn, m):   # eager: ValueError: output array is read-only
        m.w.flags.writeable = False
        return call(fn, m)

    check_sequence(make, [call, frozen, call], full_graph=False)


def test_attribute_rebound_after_in_place_write():
    """``self.w -= g`` then ``self.w = other``: the old array written in
    place, then the attribute set to the other one, as eager (the statements
    run in Python: a place both written in place and rebound is not joined)."""
    class M:
        def __init__(self):
            self.w = np.ones(2)

        def run(self, x):
            self.w -= x
            old = self.w
            self.w = old * 10
            return old

    def make():
        m = M()
        return M.run, {"m": m, "first": m.w}

    def call(fn, world):
        m = world["m"]
        old = fn(m, np.array([0.5, 0.25]))
        return old, old is world["first"], m.w.copy(), world["first"].copy()

    check_sequence(make, [call, call], full_graph=False)


class Shift:
    def __init__(self):
        self.w = np.ones(2)

    def run(self, x):
        self.w -= x
        return self.w * 2


def test_export_refuses_in_place_write_naming_the_array():
    converted = ast2graph.to_static(Shift.run)
    m = Shift()
    assert _fallbacks(Shift.run, Shift(), np.ones(2)) == []
    with pytest.raises(ast2graph.ExportError, match="writes attributes or globals back"):
        converted.export(m, np.ones(2))


def test_in_place_write_and_rebinding_on_other_paths_fall_back_and_equal_eager():
    """``self.w -= x`` on one path, ``self.w = np.zeros(3)`` on the other:
    the two writes of one place are not joined with each other (the path
    without the in-place write would take the array from before it); the
    statement runs in Python, as eager's, in either order of the branches."""
    class M:
        def __init__(self):
            self.w = np.ones(3)

        def first(self, x):
            if x.sum() > 0:
                self.w -= x
            else:
                self.w = np.zeros(3)
            return self.w.sum()

        def second(self, x):
            if x.sum() <= 0:
                self.w = np.zeros(3)
            else:
                self.w -= x
            return self.w.sum()

    for fn in (M.first, M.second):
        def make(fn=fn):
            m = M()
            return fn, {"m": m, "w": m.w}

        def call(f, world, x=np.array([1.0, 2.0, 3.0])):
            m = world["m"]
            return f(m, x), m.w.copy(), m.w is world["w"], world["w"].copy()

        def neg(f, world):
            return call(f, world, -np.ones(3))

        check_sequence(make, [call, neg, call], full_graph=False)
        assert _fallbacks(fn, M(), np.ones(3))


def test_out_argument_and_copyto_into_outside_arrays():
    class M:
        def __init__(self):
            self.w = np.ones(3)
            self.v = np.zeros(3, dtype=np.float32)

        def run(self, x):
            r = np.add(self.w, x, out=self.w)
            np.multiply(self.w, 2, out=self.w)
            np.copyto(self.v, x)
            return r, self.w.sum(), self.v

    def make():
        m = M()
        return M.run, m

    def call(fn, m):
        r, s, v = fn(m, np.array([1.0, 2.0, 3.0]))
        return r is m.w, s, v is m.v, m.w.copy(), m.v.copy(), m.v.dtype

    check_sequence(make, [call, call])
