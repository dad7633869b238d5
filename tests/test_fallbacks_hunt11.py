"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-10 hunt, part 11).

1. Several run-time checks (a ``LinAlgError`` of ``np.linalg.solve``, the
   ``ZeroDivisionError`` of ``1 / float(s)``, a ``raise`` under a traced
   condition) in one ``try`` body, taken by its handlers: each is an exit of
   the body under its condition, the rest of the body running where it does
   not fire; a check after an earlier one sits in that rest (one graph; it
   fell back before). A handler that binds a different message on each path
   joins it as a string chosen at run time.
2. A ``try``/``finally`` whose body appends to a list and returns under a
   traced condition: the list is joined at the end of the body (as in a loop
   body), and a name the rest of the body binds is bound after the ``try``
   (unobserved zeros on the returning path, which never reads it).
3. Generator expressions bound to a name or given to a helper: a generator
   object pulled lazily, as eager's (its names read when pulled, one-shot).

4. ``jnp.searchsorted(c, x)`` and ``np.searchsorted(c, x)`` on one constant
   ``c`` made in the function (an internal error: the 64-bit constant handed
   to JAX's jitted function traced for its 32-bit aval); a constant indexed
   by a traced position (``edges[np.searchsorted(edges, v)]``).
5. An EMA tracker whose counter ``state["t"]`` is written back and feeds
   ``decay ** t``: the counter is guarded within [0, 2**62), so the power
   cannot overflow and needs no check (one graph); outside that range it
   specialises again with the check, raising eager's OverflowError.
6. Raising on bad data: messages from traced values, assert messages, a
   user's exception class with extra arguments, raises in helpers, methods
   and loops.

Each is user code compared with the eager run under ``full_graph=True`` on
inputs that take every path, then a second call with other data.
PYTEST_DONT_REWRITE: the ``assert`` of the user code must carry eager's own message.
"""

import math

import jax.numpy as jnp
import numpy as np

from ast2graph import explain, to_static
from helpers import check, check_calls, check_sequence

LinAlgError = np.linalg.LinAlgError
GOOD = np.array([[2.0, 1.0], [1.0, 3.0]])
SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])
B = np.array([1.0, 2.0])
f64 = np.float64


def _calls(fn, *argsets):
    """check_sequence's world and steps: ``fn`` called on each argument set in turn (one compiled function)."""
    return (lambda: (fn, None)), [lambda f, _w, a=a: f(*a) for a in argsets]


def _fallback_codes(fn, *args):
    e = explain(to_static(fn))(*args)
    return {site.code.value[0] for site in e.fallback_sites}


# ------------------------------------------------------------ 1. a second check in one try body
def p_two_checks_two_handlers(a, b, s):
    try:
        y = np.linalg.solve(a, b)
        r = 1 / float(s)
    except LinAlgError:
        return None
    except ZeroDivisionError:
        return b
    return y * r


def p_two_checks_fall_through(a, b, s):
    status = "ok"
    try:
        y = np.linalg.solve(a, b)
        r = 1 / float(s)
    except (LinAlgError, ZeroDivisionError) as e:
        status = f"bad {e}"
        y, r = b, 1.0
    return y * r, status


def p_two_raises(x):
    try:
        if x.min() < 0:
            raise ValueError("negative")
        if x.max() > 10:
            raise ValueError("too big")
        y = x * 2
    except ValueError:
        return x * 0.0
    return y


def p_raise_then_two_checks(x, s):
    try:
        if x.min() < 0:
            raise ValueError("negative")
        r = x / float(s)
        k = 1 / float(s)
    except ValueError:
        return None
    except ZeroDivisionError:
        return x
    return r * k


def p_check_then_raise_message(x, s):
    try:
        k = 1 / float(s)
        if x.min() < 0:
            raise ValueError("negative")
        y = x * k
    except (ValueError, ZeroDivisionError) as e:
        return str(e)
    return "fine"


def p_three_checks_in_a_loop(stack, b, s):
    out = np.zeros(2)
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
            r = 1 / float(s)
            m = math.sqrt(float(y[0]) ** 2)
        except LinAlgError:
            continue
        except (ZeroDivisionError, ValueError):
            break
        out = out + y * r + m
    return out


def _solve_scaled(a, b, s):
    try:
        y = np.linalg.solve(a, b)
        r = 1 / float(s)
    except (LinAlgError, ZeroDivisionError):
        y, r = b, 0.5
    return y * r


def p_checks_in_a_helper(a, b, s):
    return _solve_scaled(a, b, s) + _solve_scaled(a.T, b, s + 1)


def p_checks_with_else_and_finally(a, b, s):
    log = 0
    try:
        y = np.linalg.solve(a, b)
        r = 1 / float(s)
    except LinAlgError:
        y, r = b, 1.0
        log = 1
    except ZeroDivisionError:
        y, r = -b, 1.0
        log = 2
    else:
        log = 3
    finally:
        log = log * 10
    return y * r, log


def p_second_check_in_one_body(stack, b, s):
    out = np.zeros(2)
    for a in stack:
        try:
            y = np.linalg.solve(a, b)
            r = 1 / float(s)
        except LinAlgError:
            continue
        except ZeroDivisionError:
            return -out
        out = out + y * r
    return out


def test_a_second_check_in_one_try_body_is_one_graph():
    # one graph per function: each check fires on some calls and not on others
    calls = [(a, B, s) for a in (GOOD, SINGULAR) for s in (f64(2.0), f64(0.0))]
    for fn in (p_two_checks_two_handlers, p_two_checks_fall_through, p_checks_with_else_and_finally):
        check_calls(fn, calls, full_graph=True)
    check_calls(p_checks_in_a_helper, calls + [(GOOD, B, f64(-1.0))], full_graph=True)
    xs = (np.array([1.0, 2.0]), np.array([-1.0, 2.0]), np.array([1.0, 20.0]), np.array([-1.0, 20.0]))
    check_calls(p_two_raises, [(x,) for x in xs], full_graph=True)
    for fn in (p_raise_then_two_checks, p_check_then_raise_message):
        check_calls(fn, [(x, s) for x in xs for s in (f64(2.0), f64(0.0))], full_graph=True)
    big = np.stack([GOOD, SINGULAR] * 10)
    for stack in ((GOOD, SINGULAR, GOOD), (GOOD, SINGULAR), big):
        for fn in (p_three_checks_in_a_loop, p_second_check_in_one_body):
            check_calls(fn, [(stack, B, f64(2.0)), (stack, B, f64(0.0))], full_graph=True)


def test_a_second_check_on_calls_with_other_data():
    check_sequence(*_calls(p_two_checks_two_handlers, (GOOD, B, f64(0.0)), (SINGULAR, B, f64(2.0)),
                           (GOOD, B, f64(4.0)), (SINGULAR, -B, f64(0.0))))
    check_sequence(*_calls(p_two_checks_fall_through, (SINGULAR, B, f64(0.0)), (GOOD, B, f64(0.0)),
                           (GOOD, B, f64(3.0))))
    check_sequence(*_calls(p_check_then_raise_message, (np.array([1.0]), f64(0.0)), (np.array([-1.0]), f64(1.0)),
                           (np.array([1.0]), f64(1.0))))


def p_two_index_checks(v, i, j):
    try:
        a = v[i]
        b = v[j]
    except IndexError:
        return -1.0
    return a * b


def p_index_checks_in_a_loop(v, idx):
    total = 0.0
    skipped = 0
    for k in idx:
        try:
            a = v[k]
            b = v[k - 1]
        except IndexError:
            skipped += 1
            continue
        total = total + a * b
    return total, skipped


def p_index_error_text_read(v, i):
    try:
        a = v[i]
    except IndexError as e:
        return str(e)   # (NumPy's message names the index: not known in the graph)
    return str(a)


def test_two_bounds_checks_in_one_try_body_are_one_graph():
    v = np.arange(4.0)
    for i, j in ((1, 2), (7, 2), (1, -9), (-4, 3)):
        check(p_two_index_checks, v, np.int64(i), np.int64(j), full_graph=True)
    for idx in ((np.int64(1), np.int64(5), np.int64(2)), np.array([1, 5, 2, -4, 0, 3] * 3)):
        check(p_index_checks_in_a_loop, v, idx, full_graph=True)
    check_sequence(*_calls(p_two_index_checks, (v, np.int64(9), np.int64(0)), (v, np.int64(2), np.int64(3)),
                           (v, np.int64(0), np.int64(-5))))
    for i in (np.int64(1), np.int64(9)):
        check(p_index_error_text_read, v, i, full_graph=False)
    assert "A2G008" in _fallback_codes(p_index_error_text_read, v, np.int64(1))


def p_static_zero_after_a_check(a, b, s):
    try:
        y = np.linalg.solve(a, b)
        r = 1 / float(s)   # (s a Python 0.0: raises on every call, after a traced check)
    except LinAlgError:
        return None
    except ZeroDivisionError:
        return b
    return y * r


def test_a_static_exception_after_a_traced_check_still_falls_back():
    for a in (GOOD, SINGULAR):
        check(p_static_zero_after_a_check, a, B, 0.0, full_graph=False)
    assert _fallback_codes(p_static_zero_after_a_check, GOOD, B, 0.0) == {"A2G008"}


# ------------------------------------------------------------ 2. try/finally, a list, a traced return
def p_append_then_return(x, log):
    try:
        log.append("start")
        if x.sum() > 0:
            return x * 2
        y = x - 1
    finally:
        log.append("end")
    return y


def p_local_events(x):
    events = []
    try:
        events.append(1)
        if x.sum() > 0:
            return x * 2, events
        events.append(2)
    finally:
        events.append(3)
    return x, events


def p_append_in_the_returning_branch(x):
    out = []
    try:
        if x.sum() > 0:
            out.append(x)
            return x * 2, out
        out.append(-x)
    finally:
        out.append(x + 1)
    return x, out


LOG = []


def p_global_log(x):
    try:
        LOG.append(len(LOG))
        if x.max() > 3:
            return x.max()
        z = x.sum()
    finally:
        LOG.append(-1)
    return z * 2


def p_in_a_loop(xs):
    trace = []
    total = 0.0
    for x in xs:
        try:
            trace.append(1)
            if x.sum() > 5:
                return total, trace
            total = total + x.sum()
        finally:
            trace.append(2)
    return total, trace


def _normalised(x, log):
    try:
        log.append("in")
        if x.mean() > 0:
            return x / x.mean()
        y = -x
    finally:
        log.append("out")
    return y


def p_helper_with_a_log(x):
    log = []
    a = _normalised(x, log)
    b = _normalised(-x, log)
    return a + b, log


def p_finally_reads_the_name(x):
    seen = []
    y = x
    try:
        seen.append(0)
        if x.sum() > 0:
            return x, x, seen
        y = x * 3
    finally:
        seen.append(1)
        w = y + 1
    return y, w, seen


def test_try_finally_appending_and_returning_under_a_traced_condition_is_one_graph():
    pos, neg = np.array([1.0, 2.0]), np.array([-1.0, -2.0])
    for x in (pos, neg):
        check(p_append_then_return, x, [], full_graph=True)
        check(p_append_then_return, x, ["a"], full_graph=True)
        check(p_local_events, x, full_graph=False)   # (another length on each path: falls back, see below)
        check(p_append_in_the_returning_branch, x, full_graph=True)
        check(p_helper_with_a_log, x, full_graph=True)
        check(p_finally_reads_the_name, x, full_graph=True)
    for x in (pos, np.array([5.0, 2.0])):
        check(p_global_log, x, full_graph=True)
    for xs in ((pos, np.array([3.0, 4.0])), (pos, np.array([0.0, 1.0]))):
        check(p_in_a_loop, xs, full_graph=True)


def test_try_finally_appending_on_calls_with_other_data():
    del LOG[:]

    def world():
        del LOG[:]
        return p_global_log, None

    steps = [lambda f, _w, x=x: (f(x), list(LOG)) for x in (np.array([1.0]), np.array([9.0]), np.array([2.0, 2.0]))]
    check_sequence(world, steps)
    check_sequence(*_calls(p_local_events, (np.array([1.0]),), (np.array([-1.0]),), (np.array([2.0]),)),
                   full_graph=False)
    # a list of another length on each path out of the try: its items' kinds are not kept apart by the join
    # (a NumPy scalar on one path, a Python float on another), so it falls back
    assert _fallback_codes(p_local_events, np.array([1.0])) == {"A2G006"}


def p_unbound_read_in_finally(x):
    try:
        if x.sum() > 0:
            return x
        y = x * 3
    finally:
        z = y + 1   # (unbound on the returning path: eager's UnboundLocalError there)
    return z


def test_a_name_finally_reads_stays_checked():
    for x in (np.array([1.0]), np.array([-1.0])):
        check(p_unbound_read_in_finally, x, full_graph=False)


# ------------------------------------------------------------ 3. generator expressions kept
W = (np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.5, 0.5]))
X = (np.array([1.0, -2.0]), np.array([3.0, 1.0]), np.array([2.0, 2.0]))


def p_weighted_sum(ws, xs):
    g = (w * x for w, x in zip(ws, xs))
    total = sum(g)
    return total


def p_next_next(vs):
    it = (np.tanh(v) for v in vs)
    first = next(it)
    second = next(it)
    return first + second


def _accumulate(items):
    acc = 0.0
    for v in items:
        acc = acc + v
    return acc


def p_given_to_a_helper(vs):
    g = (v * 2 for v in vs)
    return _accumulate(g)


def p_written_in_the_call(vs):
    return _accumulate(v.sum() for v in vs)


def p_head_and_rest(vs):
    it = (v + 1 for v in vs)
    head = next(it)
    rest = list(it)
    return head, rest


def p_late_binding(xs):
    k = 1.0
    g = (x * k for x in xs)
    k = 10.0   # eager's items read k when pulled
    return sum(g)


def p_one_shot(xs):
    g = (x + 1 for x in xs)
    a = list(g)
    b = list(g)
    return a, b


def p_list_grown_after(x):
    lst = [x, x * 2]
    g = (v.sum() for v in lst)
    lst.append(x * 3)
    return list(g)


def p_next_then_for(xs):
    g = (x * 2 for x in xs)
    total = next(g)
    for v in g:
        total = total + v
    return total


def p_two_fors(xs, ys):
    g = (x * y for x in xs for y in ys if y.size)
    return sum(g)


def p_enumerated(vs):
    g = ((k, v) for k, v in enumerate(vs))
    out = []
    for k, v in g:
        out.append(v * k)
    return out


def p_printing_items(xs):
    g = (print("item", i) or x for i, x in enumerate(xs))
    print("made")
    return [v * 2 for v in g]


def p_zipped_later(ws, xs):
    g = (w.sum() for w in ws)
    return [a * b for a, b in zip(g, xs)]


def test_a_generator_expression_kept_is_one_graph():
    check(p_weighted_sum, W, X, full_graph=True)
    for f in (p_next_next, p_given_to_a_helper, p_written_in_the_call, p_head_and_rest, p_late_binding, p_one_shot,
              p_next_then_for, p_enumerated, p_printing_items):
        check(f, W, full_graph=True)
        check(f, X, full_graph=True)
    check(p_list_grown_after, np.array([1.0, 2.0]), full_graph=True)
    check(p_two_fors, W, X, full_graph=True)
    check(p_zipped_later, W, (1.0, 2.0), full_graph=True)
    check_sequence(*_calls(p_next_next, (W,), (X,), (W[::-1],)))


def p_len_of_it(xs):
    g = (x for x in xs)
    return len(g)


def p_returned(xs):
    g = (x for x in xs)
    return g


def p_exhausted(xs):
    g = (x for x in xs)
    next(g), next(g), next(g)
    return next(g)


def p_over_a_number(x):
    g = (v for v in 3)
    return x


def test_a_generator_expression_kept_where_eager_differs_falls_back():
    for f in (p_len_of_it, p_exhausted):
        check(f, W, full_graph=False)
    check(p_over_a_number, 1.0, full_graph=False)
    assert "A2G013" in _fallback_codes(p_returned, W)
    assert list(to_static(p_returned)(W))[1] is W[1]


# ------------------------------------------------------------ 4. jnp and np searchsorted on one constant
def p_both_searches(x):
    c = np.linspace(0.0, 4.0, 5)   # made at trace time: a 64-bit constant of the graph
    i = np.searchsorted(c, x)
    j = jnp.searchsorted(c, x)     # eager JAX narrows c to float32
    return i, j


def p_both_searches_jnp_first(x):
    c = np.cumsum(np.ones(4))
    return jnp.searchsorted(c, x) + np.searchsorted(c, x)


def p_bin_edges(x):
    edges = np.linspace(0.0, 4.0, 5)
    k = np.searchsorted(edges, x)
    return edges[k], jnp.searchsorted(edges, x)


def p_constant_element(x):
    table = np.arange(6).reshape(2, 3)
    return table[x.argmax() % 2, 2], table[[0, 1], x.argmin()]


def p_read_then_write(x):
    c = np.zeros(3)
    v = c[x.argmax()]            # an element: NumPy's copy, taken before the write
    w = c[np.array([0, 1]) + x.argmin()]
    c[:] = 7.0
    return v, w, c


def p_constant_item(i):
    c = np.linspace(0.0, 4.0, 5)
    return c[i]


def test_jnp_and_np_searchsorted_on_one_constant_is_one_graph():
    xs = [(jnp.array([0.5, 3.0], jnp.float32),), (np.array([0.5, 3.0]),), (np.float32(1.5),), (1.5,),
          (np.float64(2.5),), (2,)]
    check_calls(p_both_searches, xs, full_graph=True)
    check_calls(p_both_searches_jnp_first, xs, full_graph=True)
    check_calls(p_bin_edges, [(np.array([0.5, 3.0]),), (np.float64(3.5),), (np.array([0.2, 1.0, 3.9]),),
                              (np.array([9.0, 1.0]),)], full_graph=True)   # (9: IndexError)
    check(p_constant_element, np.array([1.0, 3.0, 2.0]), full_graph=True)
    check(p_read_then_write, np.array([1.0, 3.0, 0.0]), full_graph=True)
    check_calls(p_constant_item, [(np.int64(2),), (np.int64(7),), (np.int64(-5),), (np.int32(1),)], full_graph=True)
    check_sequence(*_calls(p_both_searches, (np.array([0.5, 3.0]),), (np.array([3.5, 0.0]),), (np.array([9.0, -1.0]),)))


# ------------------------------------------------------------ 5. an EMA tracker: a counter and a power
def make_ema(decay):
    state = {"v": None, "t": 0}

    def update(x):
        state["t"] += 1
        if state["v"] is None:
            state["v"] = x
        else:
            state["v"] = decay * state["v"] + (1 - decay) * x
        return state["v"] / (1 - decay ** state["t"])   # (bias correction)

    return update, state


def make_warmup(base):
    state = {"step": 0}

    def lr(scale):
        state["step"] += 1
        return scale * base ** state["step"], state["step"]

    return lr, state


def _ema_world(decay):
    def world():
        update, state = make_ema(decay)
        return update, state
    return world


def test_an_ema_tracker_with_a_traced_counter_is_one_graph():
    xs = [np.array([1.0, 2.0]) * k for k in range(6)]
    steps = [lambda f, s, x=x: (f(x), s["t"], np.asarray(s["v"])) for x in xs]
    check_sequence(_ema_world(0.9), steps, full_graph=False)   # (the first calls specialise on t = 1, 2)
    update, _ = make_ema(0.9)
    static = to_static(update)
    for x in xs[:4]:
        static(x)
    e = explain(static)(xs[4])   # t is traced by now: one graph, no fallback, no recompile for a new t
    assert e.graph_count == 1 and not e.fallback_sites, str(e)
    assert "power overflow" not in str(e)


def test_a_counter_outside_its_guarded_range_specialises_again_and_raises_as_eager():
    def set_t(value):
        def step(f, s):
            s["t"] = value
            return f(np.array([1.0, 2.0])), s["t"]
        return step

    plain = lambda f, s: (f(np.array([1.0, 2.0])), s["t"])  # noqa: E731
    # t = -20000: 0.9 ** -19999 overflows in eager (OverflowError after both writes)
    steps = [plain, plain, plain, plain, set_t(-20000), plain, set_t(5), plain]
    check_sequence(_ema_world(0.9), steps, full_graph=False)

    def warmup_world():
        lr, state = make_warmup(1.5)
        return lr, state

    big = lambda f, s: (s.__setitem__("step", 2000), f(2.0))[1]  # noqa: E731   (1.5 ** 2001 overflows)
    check_sequence(warmup_world, [lambda f, s: f(2.0)] * 4 + [big, lambda f, s: (f(2.0), s["step"])],
                   full_graph=False)


# ------------------------------------------------------------ 6. raising on bad data
class DataError(ValueError):
    def __init__(self, msg, index, value):
        super().__init__(msg)
        self.index, self.value = index, value


class RangeError(Exception):
    pass


def p_negative_value_message(x):
    if x.min() < 0:
        raise ValueError(f"negative value {x.min()}")
    return np.sqrt(x)


def p_assert_with_a_count(x):
    assert np.all(np.isfinite(x)), f"non-finite input: {np.sum(~np.isfinite(x))} bad entries"
    return x * 2


def p_custom_class_with_extra_args(x):
    i = int(np.argmin(x))
    if x[i] < 0:   # (i is a position of x: no bounds check, the message's float(x[i]) is pure)
        raise DataError(f"bad entry at {i}", i, float(x[i]))
    return x.sum()


def _validate(w):
    if np.abs(w).max() > 1e3:
        raise RangeError("weights exploded: max |w| = %.3g" % np.abs(w).max())
    return w


def p_raise_in_a_helper(w, g):
    return _validate(w - 0.1 * g)


class Scaler:
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        if x.max() > self.scale:
            raise ValueError(f"input {x.max():.2f} exceeds scale {self.scale}")
        return x / self.scale


def p_raise_in_a_method(x):
    return Scaler(4.0).apply(x)


def p_raise_in_a_loop(xs):
    total = 0.0
    for k, x in enumerate(xs):
        if x.sum() < 0:
            raise ValueError(f"batch {k} has negative sum {x.sum()}")
        total = total + x.sum()
    return total


def p_interval_check(x, lo, hi):
    assert lo < hi, "empty interval"
    if not (x.min() >= lo and x.max() <= hi):
        raise ValueError(f"values outside [{lo}, {hi}]: min={x.min()}, max={x.max()}")
    return (x - lo) / (hi - lo)


def p_count_then_raise(x):
    n = int((x > 0).sum())
    if n == 0:
        raise RuntimeError("no positive entries")
    return x.sum() / n


def p_index_error_of_a_position(x):
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise IndexError(i)
    return x


def p_value_in_the_args(x):
    if x.sum() > 10:
        raise ValueError("too big", x.sum())
    return x


def test_raising_on_bad_data_is_one_graph():
    good, bad = np.array([1.0, 4.0]), np.array([1.0, -4.0])
    for fn in (p_negative_value_message, p_custom_class_with_extra_args, p_index_error_of_a_position):
        check_calls(fn, [(good,), (bad,)], full_graph=True)
    check_calls(p_raise_in_a_loop, [((good, good),), ((good, bad),)], full_graph=True)
    check_calls(p_count_then_raise, [(good,), (-good,), (bad,), (-bad,)], full_graph=True)
    check_calls(p_assert_with_a_count, [(good,), (np.array([np.nan, 1.0]),), (np.array([np.inf, -np.inf]),)],
                full_graph=True)
    check_calls(p_raise_in_a_helper, [(good, good), (good, -good * 1e5)], full_graph=True)
    for fn in (p_raise_in_a_method, p_value_in_the_args):
        check_calls(fn, [(good,), (good * 3,)], full_graph=True)
    check_calls(p_interval_check, [(good, lo, hi) for lo, hi in ((0.0, 5.0), (2.0, 5.0), (5.0, 1.0))], full_graph=True)


def test_a_custom_exception_keeps_its_fields():
    bad = np.array([3.0, -2.5, 1.0])
    try:
        to_static(p_custom_class_with_extra_args, full_graph=True)(bad)
    except DataError as e:
        assert (str(e), e.index, e.value) == ("bad entry at 1", 1, -2.5)
        assert type(e.index) is int and type(e.value) is float
    else:
        raise AssertionError("no DataError")
    check_sequence(*_calls(p_custom_class_with_extra_args, (bad,), (np.abs(bad),), (-np.abs(bad),)))
