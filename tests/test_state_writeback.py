"""State written by the converted function and written back after each call
(issue 16, item 2 and parts of item 6): globals, lists and dicts read from
outside, object attributes under traced branches and rolled loops.

Every test runs a sequence of calls, the caller changing the state between
them too, eagerly and converted, and compares every call and the state
after it (``check_sequence``, ``full_graph=True``: a fallback fails).
"""

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_sequence

X = jnp.arange(1.0, 4.0)

STEP = 0
TOTAL = 0.0
LAST = None
LOG: list = []
CACHE: dict = {}


# ------------------------------------------------------------------ globals
def test_global_counter_written_back_and_reset_by_the_caller():
    def make():
        global STEP
        STEP = 0

        def f(x):
            global STEP
            STEP += 1
            return x * STEP
        return f, None

    def reset(f, _):
        global STEP
        STEP = 10
        return f(X), STEP

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    static = check_sequence(make, [call, call, reset, call, call, call, call, call], recompiles=3)
    # a Python int that changes every call becomes a traced input: recompiles are bounded
    assert static.recompiles <= 3


def test_global_rebound_to_a_traced_value_and_read_back():
    def make():
        global LAST
        LAST = None

        def f(x):
            global LAST
            LAST = x.sum() * 2
            return LAST + 1
        return f, None

    call = lambda f, _: (f(X), LAST)  # noqa: E731
    check_sequence(make, [call, lambda f, _: (f(X + 1), LAST)])


def test_global_float_accumulating_arrays():
    def make():
        global TOTAL
        TOTAL = jnp.zeros(())

        def f(x):
            global TOTAL
            TOTAL = TOTAL + x.sum()
            return x / TOTAL
        return f, None

    def reset(f, _):
        global TOTAL
        TOTAL = jnp.ones(())
        return f(X), TOTAL

    call = lambda f, _: (f(X), TOTAL)  # noqa: E731
    check_sequence(make, [call, call, reset, call], recompiles=0)


def test_global_python_float_accumulating_an_array_becomes_the_array():
    def make():
        global TOTAL
        TOTAL = 0.0

        def f(x):
            global TOTAL
            TOTAL += x.sum()
            return TOTAL
        return f, None

    call = lambda f, _: (f(X), TOTAL)  # noqa: E731
    check_sequence(make, [call, call, call])


def test_global_python_float_accumulating_floats():
    def make():
        global TOTAL
        TOTAL = 0.0

        def f(x):
            global TOTAL
            TOTAL += 0.5
            return x * TOTAL
        return f, None

    def reset(f, _):
        global TOTAL
        TOTAL = 0.1
        return f(X), TOTAL

    call = lambda f, _: (f(X), TOTAL, type(TOTAL))  # noqa: E731
    # written back and changed: read traced (float64, exact) from the second call on
    check_sequence(make, [call, call, call, reset, call, call, call], recompiles=1)


def test_attribute_float_decayed_every_call_is_read_traced():
    class Opt:
        def __init__(self):
            self.lr = 0.1

        def step(self, x):
            self.lr = self.lr * 0.9
            return x - self.lr * x

    def make():
        o = Opt()
        return o.step, o

    call = lambda f, o: (f(X), o.lr, type(o.lr))  # noqa: E731
    # to_static of the bound method: self is specialised by value, then by identity, then lr read traced
    check_sequence(make, [call] * 8, recompiles=2, atol=0, rtol=1e-7)


def test_bound_method_counter_warm_calls_see_the_new_state():
    # the fast path of a bound method skipped the by-value key of its self (a stale graph ran)
    class Counter:
        def __init__(self):
            self.calls = 0

        def step(self, x):
            self.calls += 1
            return x * self.calls

    def make():
        c = Counter()
        return c.step, c

    def reset(f, c):
        c.calls = 100
        return f(X), c.calls

    call = lambda f, c: (f(X), c.calls)  # noqa: E731
    check_sequence(make, [call, call, call, reset, call, call], recompiles=3)


def helper_bumps_step():
    global STEP
    STEP = STEP + 2
    return STEP


def test_global_written_by_an_inlined_helper_and_a_method():
    class Model:
        def __call__(self, x):
            global STEP
            STEP += 1
            return x * helper_bumps_step()

    def make():
        global STEP
        STEP = 0
        return Model(), None

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    check_sequence(make, [call, call, call, call])


def test_global_print_between_writes_sees_eager_values():
    def make():
        global STEP
        STEP = 0

        def f(x):
            global STEP
            STEP += 1
            print("step", STEP)
            STEP += 1
            return x + STEP
        return f, None

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    check_sequence(make, [call, call, call])


def test_global_written_then_a_raise_leaves_eager_state():
    def make():
        global STEP
        STEP = 0

        def f(x):
            global STEP
            STEP += 1
            if x.sum() > 10:
                raise ValueError("too big")
            STEP += 1
            return x * STEP
        return f, None

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    big = lambda f, _: (f(X * 10), STEP)  # noqa: E731
    after = lambda f, _: STEP  # noqa: E731
    # a raise after a write runs in Python (the writes are made before it, as eager's)
    check_sequence(make, [call, big, after, call, big, after], full_graph=False)


def test_global_written_under_a_traced_if():
    def make():
        global STEP
        STEP = 0

        def f(x):
            global STEP
            if x.sum() > 5:
                STEP = STEP + 1
            return x * 2
        return f, None

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    small = lambda f, _: (f(X - 3), STEP)  # noqa: E731
    check_sequence(make, [call, small, call, call, small, call])


def test_global_written_in_a_traced_while():
    def make():
        global TOTAL
        TOTAL = jnp.zeros(())

        def f(x):
            global TOTAL
            while x.sum() < 20:
                TOTAL = TOTAL + x.sum()
                x = x + 1
            return x
        return f, None

    call = lambda f, _: (f(X), TOTAL)  # noqa: E731
    check_sequence(make, [call, call, lambda f, _: (f(X + 100), TOTAL)])


# --------------------------------------------------- outside lists and dicts
def test_global_list_appended_with_arrays_and_cleared_by_the_caller():
    def make():
        global LOG
        LOG = []

        def f(x):
            loss = (x ** 2).mean()
            LOG.append(loss)
            LOG.append(x.mean())
            return x - loss
        return f, None

    def clear(f, _):
        LOG.clear()
        return f(X), list(LOG)

    call = lambda f, _: (f(X), list(LOG))  # noqa: E731
    check_sequence(make, [call, call, clear, call, lambda f, _: (f(X * 2), list(LOG))], recompiles=0)


def test_global_list_extended_and_returned():
    def make():
        global LOG
        LOG = [1.0]

        def f(x):
            LOG.extend([x.sum(), 2.0])
            return LOG
        return f, None

    def rebind(f, _):
        global LOG
        LOG = []
        return f(X), list(LOG)

    def call(f, _):
        out = f(X)
        return out is LOG, list(out), list(LOG)

    check_sequence(make, [call, call, rebind, call])


def test_outside_list_returned_is_the_list_itself():
    def make():
        global LOG
        LOG = [1.0]

        def f(x):
            return LOG, x + 1
        return f, None

    def append(f, _):
        LOG.append(2.0)
        out = f(X)
        return out[0] is LOG, out

    call = lambda f, _: (f(X)[0] is LOG, f(X))  # noqa: E731
    check_sequence(make, [call, append, call])


def test_global_list_read_after_append_runs_in_python():
    def make():
        global LOG
        LOG = []

        def f(x):
            LOG.append(x.sum())
            return len(LOG), x + 1
        return f, None

    call = lambda f, _: (f(X), list(LOG))  # noqa: E731
    check_sequence(make, [call, call, call], full_graph=False)


def test_global_dict_cache_keyed_by_static_values():
    def make():
        global CACHE
        CACHE = {}

        def f(x, k):
            if k not in CACHE:
                CACHE[k] = x * k
            return CACHE[k] + 1
        return f, None

    def clear(f, _):
        CACHE.clear()
        return f(X, 2), dict(CACHE)

    step = lambda k: lambda f, _: (f(X, k), dict(CACHE))  # noqa: E731
    check_sequence(make, [step(2), step(2), step(3), clear, step(3), step(2)])


def test_attribute_list_appended_in_a_method():
    class Trainer:
        def __init__(self):
            self.history = []
            self.steps = 0

        def step(self, x):
            loss = (x ** 2).sum()
            self.history.append(loss)
            self.steps += 1
            return x - 0.1 * loss

    def make():
        return Trainer(), None

    def call(f, _):
        return f.step(X), list(f.history), f.steps

    def make_static():
        t = Trainer()
        t.step = to_static(t.step, full_graph=True)
        return t

    eager, conv = Trainer(), make_static()
    for k in range(4):
        if k == 2:
            eager.history.clear()
            conv.history.clear()
        e, c = call(eager, None), call(conv, None)
        assert jnp.allclose(e[0], c[0]) and e[2] == c[2]
        assert len(e[1]) == len(c[1]) and all(jnp.allclose(a, b) for a, b in zip(e[1], c[1]))
        assert all(type(a) is type(b) for a, b in zip(e[1], c[1]))


# ------------------------------------ attributes under traced control flow
class Acc:
    def __init__(self, total=None):
        self.total = jnp.zeros(()) if total is None else total

    def run(self, x):
        while x.sum() < 10:
            self.total += x.sum()
            x = x + 1
        return x


def test_attribute_updated_in_a_traced_while():
    def make():
        acc = Acc()
        return acc.run, acc

    def reset(f, acc):
        acc.total = jnp.ones(())
        return f(X), acc.total

    call = lambda f, acc: (f(X), acc.total)  # noqa: E731
    check_sequence(make, [call, call, reset, lambda f, acc: (f(X + 20), acc.total), call])


def test_attribute_starting_as_a_python_float_in_a_traced_while():
    # eager's kind after the loop depends on whether it ran (float or jax.Array): correct, not one graph
    def make():
        acc = Acc(0.0)
        return acc.run, acc

    call = lambda f, acc: (f(X), acc.total)  # noqa: E731
    check_sequence(make, [call, call, call], full_graph=False)


class Gate:
    def __init__(self):
        self.hits = jnp.zeros((), jnp.int32)
        self.last = jnp.zeros(3)

    def __call__(self, x):
        if x.sum() > 4:
            self.hits = self.hits + 1
            self.last = x
        else:
            self.last = -x
        return x * 2


def test_attributes_written_under_a_traced_if():
    def make():
        g = Gate()
        return g, g

    call = lambda k: lambda f, g: (f(X * k), g.hits, g.last)  # noqa: E731
    check_sequence(make, [call(1), call(0), call(1), call(2)])


class Scan:
    def __init__(self):
        self.acc = jnp.zeros(())

    def run(self, x, n):
        for i in range(n):
            self.acc = self.acc * 0.5 + x[i % 3]
        return self.acc


def test_attribute_carried_in_a_rolled_for():
    def make():
        s = Scan()
        return s.run, s

    def check_rolled(f, s):
        e = explain(f)(X, 200)
        return e.result, s.acc

    static = check_sequence(make, [lambda f, s: (f(X, 200), s.acc), check_rolled, lambda f, s: (f(X, 200), s.acc)],
                            unroll_limit=16)
    e = explain(static)(X, 200)
    assert e.graph_count == 1 and any(d.mode == "lax.fori_loop" for d in e.decisions)


def test_attribute_in_a_rolled_for_inside_a_helper_function():
    def bump(obj, v):
        if v > 1.5:
            obj.acc = obj.acc + v

    def make():
        s = Scan()

        def f(x):
            for i in range(100):
                bump(s, x[i % 3])
            return s.acc
        return f, s

    call = lambda f, s: (f(X), s.acc)  # noqa: E731
    check_sequence(make, [call, call], unroll_limit=16)


def test_attribute_and_global_written_in_a_rolled_loop_then_raise():
    def make():
        global STEP
        STEP = 0
        s = Scan()

        def f(x):
            global STEP
            for i in range(50):
                s.acc = s.acc + x[i % 3]
            STEP += 1
            if s.acc > 150:
                raise ValueError("overflow")
            return s.acc
        return f, s

    call = lambda f, s: (f(X), s.acc, STEP)  # noqa: E731
    after = lambda f, s: (s.acc, STEP)  # noqa: E731
    check_sequence(make, [call, call, after, call, after], unroll_limit=16, full_graph=False)


@pytest.mark.parametrize("start", [jnp.zeros(()), np.float64(0.0)])
def test_attribute_write_kinds_kept(start):
    def make():
        s = Scan()
        s.acc = start

        def f(x):
            if x.sum() > 0:
                s.acc = s.acc + 1.0
            return x
        return f, s

    call = lambda f, s: (f(X), s.acc, type(s.acc))  # noqa: E731
    check_sequence(make, [call, call], full_graph=False)


class Box:
    def __init__(self, v):
        self.v = v


def test_attribute_of_a_new_argument_object_each_call_under_a_traced_if():
    def f(x, box):
        if x.sum() > 0:
            box.v = box.v + x.sum()
        return x * 2

    def make():
        return f, []

    def call(v, sign):
        def step(f, boxes):
            b = Box(v)
            boxes.append(b)
            out = f(X * sign, b)
            return out, b.v, [o.v for o in boxes]
        return step

    check_sequence(make, [call(jnp.zeros(()), 1), call(jnp.ones(()), 1), call(jnp.ones(()), -1),
                          call(jnp.full((), 5.0), 1)])


# ------------------------------- argument NumPy arrays written in place
def _np_world(f):
    def make():
        return f, {"a": np.zeros(3), "x": np.array([1.0, -1.0, 2.0])}
    return make


def _np_call(k=1.0):
    def step(f, w):
        a = w["a"]
        out = f(a, jnp.asarray(w["x"] * k))
        return out is a, a.copy(), a.dtype, out
    return step


def _np_reset(f, w):
    w["a"] = np.full(3, 5.0)
    return _np_call(-1.0)(f, w)


def p_np_inplace(a, x):
    for i in range(10):
        if x[i % 3] > 0:
            a[i % 3] += 1.0
    return a


def test_numpy_argument_written_under_a_traced_if_in_an_unrolled_loop():
    check_sequence(_np_world(p_np_inplace), [_np_call(), _np_call(), _np_reset, _np_call(-1.0), _np_call()])


def np_rolled(a, x):
    for i in range(100):
        if x[i % 3] > 0:
            a[i % 3] += x[i % 3]
        else:
            a[0] -= 0.5
    return a


def test_numpy_argument_written_in_a_rolled_loop_keeps_float64():
    static = check_sequence(_np_world(np_rolled), [_np_call(), _np_call(), _np_reset, _np_call(2.0)], unroll_limit=8)
    e = explain(static)(np.zeros(3), X)
    assert e.graph_count == 1 and any(d.mode == "lax.fori_loop" for d in e.decisions)


def np_while(a, x):
    while a.sum() < 10:
        a[1] += x.sum()
    return x


def test_numpy_argument_written_in_a_traced_while():
    def call(f, w):
        a = w["a"]
        out = f(a, jnp.asarray(w["x"]))
        return a.copy(), out

    check_sequence(_np_world(np_while), [call, call, _np_reset, call])


def np_not_live_after(a, x):
    if x.sum() > 1:
        a[2] = 7.0
    return x * 2


def test_numpy_argument_written_in_a_branch_and_not_read_after():
    def call(k):
        def step(f, w):
            a = w["a"]
            out = f(a, jnp.asarray(w["x"] * k))
            return a.copy(), out
        return step

    check_sequence(_np_world(np_not_live_after), [call(1.0), call(-1.0), call(1.0)])


def np_rebound_on_a_path(a, x):
    if x.sum() > 1:
        a[0] = 3.0
    else:
        a = np.ones(3)
    return a


def test_numpy_argument_rebound_on_one_path_runs_in_python():
    check_sequence(_np_world(np_rebound_on_a_path), [_np_call(), _np_call(-1.0), _np_call()], full_graph=False)


def np_int_counts(counts, x):
    for i in range(40):
        if x[i % 3] > 0:
            counts[i % 3] += 1
    return counts


def test_numpy_int_argument_counts_in_a_rolled_loop_inside_a_method():
    # (through a helper whose caller still holds the array it runs in Python: test below)
    class Hist:
        def fill(self, counts, x):
            for i in range(40):
                if x[i % 3] > 0:
                    counts[i % 3] += 1
            return counts

    def make():
        return Hist().fill, {"a": np.zeros(3, np.int64), "x": np.array([1.0, -1.0, 2.0])}

    check_sequence(make, [_np_call(), _np_call(), _np_call(-1.0)], unroll_limit=8)


def fill_then_read(counts, x):
    np_int_counts(counts, x)
    return counts.sum(), counts


def alias_before_loop(a, x):
    b = a
    for i in range(30):
        a[i % 3] += x[i % 3]
    return b.sum(), a


@pytest.mark.parametrize("f", [fill_then_read, alias_before_loop])
def test_numpy_argument_version_held_elsewhere_stays_eager(f):
    def make():
        return f, {"a": np.zeros(3, np.int64 if f is fill_then_read else np.float64), "x": np.array([1.0, -1.0, 2.0])}

    check_sequence(make, [_np_call(), _np_call()], unroll_limit=8, full_graph=False)


# ------------------------------------------------------- nonlocal writes
def p_nonlocal(x):
    tot = 0.0

    def add(v):
        nonlocal tot
        tot = tot + v
    add(x.sum())
    add(x.max())
    return tot


def test_nonlocal_written_by_an_inlined_nested_function():
    e = check(p_nonlocal, X, graphs=1)
    assert e.graph_count == 1
    check_sequence(lambda: (p_nonlocal, None), [lambda f, _: f(X), lambda f, _: f(X * 3)])


def nonlocal_in_a_rolled_loop(x):
    tot = jnp.zeros(())

    def add(v):
        nonlocal tot
        tot = tot + v
    while x.sum() < 30:
        add(x[0])
        x = x + 1
    return tot, x


def nonlocal_under_a_traced_if(x):
    tot = 0.0

    def add(v):
        nonlocal tot
        if v > 1:
            tot = tot + v
    add(x.sum())
    return tot


def nonlocal_and_a_fallback(x):
    tot = 1.0

    def scale(v):
        nonlocal tot
        tot = tot * v
    scale(2.0)
    print(x.tobytes())   # A2G003: a bytes object made from the values, runs in Python
    scale(x.sum())
    return tot


def test_nonlocal_written_under_a_traced_if_of_an_inlined_nested_function_is_one_graph():
    # (h-model19: the `if` joins the enclosing function's variable with its own)
    check(nonlocal_under_a_traced_if, X, graphs=1)
    check(nonlocal_under_a_traced_if, -X, graphs=1)


def test_nonlocal_write_in_a_rolled_loop_is_carried_by_the_loop():
    # (h-model20: the loop carries the enclosing function's variable the helper rebinds; it ran eagerly before)
    check(nonlocal_in_a_rolled_loop, X, graphs=1, unroll_limit=16)
    check(nonlocal_in_a_rolled_loop, -X, graphs=1, unroll_limit=16)


@pytest.mark.parametrize("f", [nonlocal_and_a_fallback])
def test_nonlocal_write_the_graph_cannot_hold_runs_the_call_eagerly(f):
    e = check(f, X, full_graph=False, unroll_limit=16)
    check(f, -X, full_graph=False, unroll_limit=16)
    assert e.graph_count == 0 and "assigns nonlocal variables" in e.fallback_sites[0].cause
    # the cause named is the break that kept the call from one graph (the write under a traced `if`, the
    # tobytes()), not the statement ending the graph early so that the closure stays in it
    assert "is not in the graph" not in e.fallback_sites[0].cause
    if f is nonlocal_and_a_fallback:
        assert "A2G003" in e.fallback_sites[0].cause


def test_nonlocal_write_in_an_unrolled_loop_is_one_graph():
    def f(x):
        tot = jnp.zeros(())

        def add(v):
            nonlocal tot
            tot = tot + v
        for i in range(20):
            add(x[i % 3])
        return tot

    check(f, X, graphs=1)


def make_closure_counter():
    count = 0

    def step(x):
        nonlocal count
        if x.sum() > 0:
            count += 1
        return x * count

    def read():
        return count
    return step, read


def test_closure_counter_written_under_a_traced_if():
    def make():
        return make_closure_counter()

    step = lambda k: lambda f, read: (f(X * k), read())  # noqa: E731
    check_sequence(make, [step(1), step(-1), step(1), step(1), step(1), step(1), step(-1), step(1)], recompiles=2)


def test_global_written_then_read_through_the_module():
    import sys

    def make():
        global STEP
        STEP = 0

        def f(x):
            global STEP
            STEP = STEP + 5
            mod = sys.modules[__name__]
            return x + mod.STEP, x + vars(mod)["STEP"]
        return f, None

    call = lambda f, _: (f(X), STEP)  # noqa: E731
    check_sequence(make, [call, call], full_graph=False)
    check_sequence(make, [call, call])


# -------------------------------------------- writes under successive traced ifs
# A branch that does not write yields the value pending from before the ``if``
# (a write in an earlier traced ``if`` or statement), not the one from before
# the call: ``if a: N += 1`` then ``if b: N += 1`` counted 1 for (True, False).
SIGNS = [jnp.array([1.0, 1.0, 1.0]), jnp.array([1.0, -1.0, 1.0]), jnp.array([-1.0, 1.0, -1.0]),
         jnp.array([-1.0, -1.0, 1.0])]


class Counter:
    def __init__(self):
        self.n = 0
        self.total = 0.0


def _global_two_ifs():
    global STEP
    STEP = 3

    def f(x):
        global STEP
        if x[0] > 0:
            STEP += 1
        if x[1] > 0:
            STEP += 1
        return STEP
    return f, None


def _global_unrolled_loop():
    global STEP
    STEP = 0

    def f(x):
        global STEP
        for i in range(3):
            if x[i] > 0:
                STEP += 1
        return STEP * x[0]
    return f, None


def _global_written_before_then_else_only():
    global TOTAL
    TOTAL = 1.0

    def f(x):
        global TOTAL
        TOTAL = TOTAL + x[2]
        if x[0] > 0:
            pass
        else:
            TOTAL = TOTAL * 2
        if x[1] > 0:
            TOTAL = -TOTAL
        return TOTAL
    return f, None


def _attribute_counters():
    c = Counter()

    def f(x):
        for i in range(3):
            if x[i] > 0:
                c.n += 1
                c.total = c.total + x[i]
            elif x[i] < -0.5:
                c.total = c.total - 1.0
        return c.n, c.total
    return f, c


def _closure_cell_two_ifs():
    n = 0

    def f(x):
        nonlocal n
        if x[0] > 0:
            n += 2
        if x[1] > 0:
            n += 1
        return n
    return f, None


def _state(world):
    if world is None:
        return STEP, TOTAL
    return vars(world).copy()


@pytest.mark.parametrize("make", [_global_two_ifs, _global_unrolled_loop, _global_written_before_then_else_only,
                                  _attribute_counters, _closure_cell_two_ifs])
def test_writes_under_successive_traced_ifs(make):
    steps = [lambda f, w, x=x: (f(x), _state(w)) for x in SIGNS + SIGNS[::-1]]
    check_sequence(make, steps, full_graph=True)


# ------------------------------------------------------------ del of list and dict items
def test_del_of_items_of_the_callers_list_and_dict():
    def make():
        history, cache = [1.0, 2.0, 3.0], {"a": 1.0, "b": 2.0}

        def f(x):
            history.append(x.sum())
            del history[-1]            # the item this call appended
            del history[0]
            cache["new"] = x
            del cache["a"]
            del cache["new"]
            cache["z"] = len(history)
            return x * 2
        return f, (history, cache)

    def step(f, world):
        return f(jnp.ones(2)), list(world[0]), dict(world[1])

    def refill(f, world):   # the caller puts back what the calls deleted
        world[0][:] = [4.0, 5.0, 6.0, 7.0]
        world[1]["a"] = 0.5
        return step(f, world)

    # the second step finds no "a": eager raises KeyError after the writes before it, and so does the converted
    check_sequence(make, [step, step, refill, step], full_graph=False)


def test_del_of_slices_and_items_of_local_containers_is_one_graph():
    def f(x):
        parts = [x, x + 1, x + 2, x + 3, x + 4]
        del parts[::2]
        del parts[-1:]
        options = {"scale": 2.0, "shift": x, "unused": 0}
        del options["unused"]
        return parts, options

    check(f, jnp.ones(2))


def test_del_in_an_unrolled_loop_keeps_a_window_of_the_callers_list():
    def make():
        def f(x, window):
            for i in range(3):
                window.append(x * i)
                if len(window) > 2:
                    del window[0]
            return len(window), window[-1]
        return f, [0.0]

    check_sequence(make, [lambda f, w: (f(jnp.ones(2), w), len(w))] * 2)


@pytest.mark.parametrize("target", ["missing_key", "index_out_of_range"])
def test_del_of_what_is_not_there_raises_eagers_error(target):
    def missing_key(d, xs):
        del d["missing"]

    def index_out_of_range(d, xs):
        del xs[5]

    check({"missing_key": missing_key, "index_out_of_range": index_out_of_range}[target], {"a": 1}, [1, 2],
          full_graph=False)
