"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-7 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, on inputs that take every path.

- ``type(r)`` (and ``r.dtype``) of a value whose kind depends on the path
  taken (``r = 0.0`` or a NumPy scalar, by the data): a class or a builtin
  dtype is a constant variant of the kind tag, so ``type(r).__name__``,
  ``type(r) is float`` and ``np.asarray(r).dtype`` are one graph (hunt
  p_control.acc_changes_type_np, numpy_branch_scalar_kind,
  p_s4_prep.fill_nan_with_mean, p_s7_new.rebind_list_int, mask_float32_loop,
  p_s5_lib.emath_sqrt_kind).
"""

import contextlib

import jax.numpy as jnp
import numpy as np

from ast2graph import explain, to_static
from helpers import check, check_sequence

POS = np.array([1.0, -2.0, 3.0])
NEG = np.array([-1.0, -2.0])
EMPTY = np.array([], np.float64)
F32 = np.array([1.0, -2.0, 3.0], np.float32)


# ------------------------------------------- type() of a path-dependent kind
def p_type_name_after_loop(x):
    acc = 0
    for v in x:
        if v > 0:
            acc = acc + v
    return acc, type(acc).__name__


def p_type_after_if(x):
    s = x.sum()
    if s > 0:
        r = s
    else:
        r = 0.0
    return r, type(r), type(r) is float, isinstance(r, np.floating)


def p_type_called(x):
    s = x.sum()
    r = s if s > 0 else 0.5
    return type(r)(2), type(r) == np.float64


def p_type_printed(x):
    tot = 0.0
    for v in x:
        if v > 0:
            tot += v
    print(type(tot), type(tot).__name__)
    return tot


def p_masked_loop_kind(x):
    tot = 0.0
    for v in x[x > 0]:
        tot += v
    return tot, type(tot)


def p_dtype_after_if(x):
    r = np.emath.sqrt(x.sum())
    return r, np.asarray(r).dtype, np.asarray(r).dtype.name


def test_type_of_a_path_dependent_kind_is_one_graph():
    for a in (POS, NEG, EMPTY, F32):
        check(p_type_name_after_loop, a, full_graph=True)
        check(p_type_after_if, a, full_graph=True)
        check(p_type_called, a, full_graph=True)
        check(p_type_printed, a, full_graph=True)
    for a in (POS, NEG):
        check(p_dtype_after_if, a, full_graph=True)
        check(p_masked_loop_kind, a.astype(np.float32), full_graph=True)


def test_type_of_a_path_dependent_kind_follows_each_call():
    """One compiled graph, the data changing the path between calls."""
    def make():
        return p_type_name_after_loop, None

    steps = [lambda f, _, a=a: f(a) for a in (POS, -POS, 0 * POS, 2 * POS, -POS)]
    check_sequence(make, steps, full_graph=True, recompiles=0)


def p_two_classes_one_name(x, Big, Small):
    cls = Big if x.sum() > 0 else Small
    return cls, cls.__name__, cls.scale * x


def _classes():
    def make(scale):
        class Box:
            pass

        Box.scale = scale
        return Box

    return make(2.0), make(-3.0)


def test_classes_with_one_name_stay_apart():
    """Two classes of one name and repr are two variants: eager's own class on each path."""
    big, small = _classes()
    for a in (POS, NEG):
        check(p_two_classes_one_name, a, big, small, full_graph=True)


# ---------------------------- items of an outside list or dict, written anywhere
# ``box[k] = v`` of an item a closure's (a global's, an attribute's) list or
# dict holds already is a write lifted out of the graph like an attribute's:
# under a traced ``if`` joined, in a rolled loop carried, set after the call
# (hunt p_s6_struct.make_early_stop, p_s6_num.make_running_min)
def _steps(*inputs, poke=None):
    """Calls of ``f`` on each input, the state compared after each; ``poke``
    changes the state from outside before the third call."""
    def step(f, world, a, k):
        if poke is not None and k == 2:
            poke(world)
        return f(a), world
    return [lambda f, w, a=a, k=k: step(f, w, a, k) for k, a in enumerate(inputs)]


def make_running_max():
    box = {"hi": 0.0, "n": 0, "label": "none"}

    def update(x):
        s = x.sum()
        if s > box["hi"]:
            box["hi"] = s
        box["n"] += 1
        return box["hi"], box["n"], box["label"]
    return update, box


def make_running_min_none():
    box = {"lo": None}

    def update(x):
        v = float(x.min())
        if box["lo"] is None or v < box["lo"]:
            box["lo"] = v
        return str(box["lo"])
    return update, box


def make_two_ifs():
    st = {"n": 0}

    def update(x):
        st["n"] = st["n"] * 2        # a static-path write first: the ifs see it
        if x[0] > 0:
            st["n"] += 1
        if x[1] > 0:
            st["n"] += 10
        return st["n"]
    return update, st


def make_list_slot():
    box = [(1, None, 0), "tag"]

    def step(loss):
        patience, best, bad = box[0]
        if best is None or loss < best:
            box[0] = (patience, loss, 0)
        else:
            box[-2] = (patience, best, bad + 1)
        return box[0][2] > patience, box[1]
    return step, box


def test_outside_items_written_under_a_traced_if():
    a, b, c, d = (np.array(v) for v in ([1.0, 2.0], [-1.0, 0.5], [3.0, -4.0], [5.0, 5.0]))

    def poke(world):
        if "hi" in world:
            world["hi"] = 100.0
        elif "n" in world:
            world["n"] = -3

    for make in (make_running_max, make_running_min_none, make_two_ifs):
        check_sequence(make, _steps(a, b, c, d), full_graph=True)
        check_sequence(make, _steps(a, b, c, d, poke=poke), full_graph=True)
    losses = [jnp.array(v) for v in (1.0, 1.2, 1.3, 0.5, 0.6)]
    check_sequence(make_list_slot, _steps(*losses), full_graph=True)


def make_rolled_counts():
    st = {"s": jnp.zeros(()), "hi": jnp.zeros(()), "tag": "sums"}

    def update(batch):
        for x in batch:
            if x > 0:
                st["s"] = st["s"] + x
            st["hi"] = jnp.maximum(st["hi"], x)
        return st["s"], st["hi"], st["tag"]
    return update, st


def test_outside_items_carried_by_a_rolled_loop():
    rng = np.random.default_rng(0)
    batches = [jnp.asarray(rng.normal(size=300), jnp.float32) for _ in range(3)]
    static = check_sequence(make_rolled_counts, _steps(*batches), full_graph=True)
    e = explain(static)(batches[0])
    assert ("for", "lax.scan") in [(d.construct, d.mode) for d in e.decisions], str(e)


OUTSIDE = {"seen": 0.0, "other": 1.5}


def p_whole_dict_read(x):
    if x.sum() > 0:
        OUTSIDE["seen"] = x.sum()
    return OUTSIDE["other"], sorted(OUTSIDE)


def p_new_key(x):
    if x.sum() > 0:
        OUTSIDE["fresh"] = 1.0
    return OUTSIDE["other"]


def test_outside_items_that_stay_a_fallback():
    """A read of the whole dict after the write (eager's dict holds the new
    value only after the call) and a key the dict does not hold (its place in
    the key order would be the write's) still run in Python."""
    def maker(fn):
        def make():
            OUTSIDE.clear()
            OUTSIDE.update(seen=0.0, other=1.5)
            return fn, OUTSIDE
        return make

    for fn in (p_whole_dict_read, p_new_key):
        inputs = (np.array([1.0, 2.0]), np.array([-1.0, -2.0]), np.array([3.0, 2.0]))
        check_sequence(maker(fn), _steps(*inputs), full_graph=False)
        maker(fn)()
        e = explain(to_static(fn))(inputs[0])
        assert e.fallback_sites and all(s.code.name == "MUTATION" for s in e.fallback_sites), str(e)


# ------------------- lists and dicts held by a method's ``self`` (an argument)
# ``self.history.append(v)``, ``self.stats["neg"] += 1``: the containers of
# an argument keyed by its value are written like an outside object's; the
# plan then serves that very object only (its identity pinned), so a call
# with another, equal object traces its own (hunt p_more2.make_tracker,
# p_s8_real.make_acc_feed, make_monitor_try_finally)
class Tracker:
    def __init__(self):
        self.best = None
        self.step = 0
        self.ema = 0.0
        self.history = []
        self.stats = {"better": 0, "worse": 0}

    def update(self, loss):
        self.step += 1
        self.ema = 0.9 * self.ema + 0.1 * float(loss)
        if self.best is None or loss < self.best:
            self.best = loss
            self.stats["better"] += 1
        else:
            self.stats["worse"] += 1
        self.history.append(self.ema)
        return self.best, self.step


def _state(obj):
    return {k: list(v) if type(v) is list else dict(v) if type(v) is dict else v for k, v in vars(obj).items()}


def test_containers_of_self_written_by_a_method():
    def make():
        t = Tracker()
        return t.update, t

    losses = [jnp.float32(v) for v in (3.0, 2.0, 2.5, 1.0, 1.5)]
    check_sequence(make, [lambda f, t, a=a: (f(a), _state(t)) for a in losses], full_graph=True)


class Log:
    def __init__(self):
        self.items = []
        self.counts = {"pos": 0}


def p_log_into(obj, x):
    if x.sum() > 0:
        obj.counts["pos"] += 1
    obj.items.append(x.sum())
    return x * 2


def test_containers_of_equal_argument_objects_stay_apart():
    """Two equal objects alternated: each call writes into its own."""
    def make():
        return p_log_into, (Log(), Log())

    def call(f, world, k, v):
        return f(world[k], jnp.array([v, 1.0])), [_state(o) for o in world]

    seq = [(0, 1.0), (1, 2.0), (0, -3.0), (1, 3.0), (1, -2.0), (0, 5.0)]
    check_sequence(make, [lambda f, w, k=k, v=v: call(f, w, k, v) for k, v in seq], full_graph=True)


# ------------------------------------------------ a raise on a static path
# ``raise E(...)`` that this call reaches on a static path of the function
# itself is a run-time check that always fires, after the graph of what came
# before: one graph whose call raises eager's exception (as ``if c: raise``
# on a traced ``c`` already was); hunt p_control.dispatch_by_int,
# p_s5_lib.validate_then_norm, p_training.validated_lr
def p_dispatch(x, mode):
    y = x * 2
    if mode == 0:
        return y.sum()
    elif mode == 1:
        return y.max()
    raise ValueError("unknown mode %d" % mode)


def p_validate(x, lr):
    if lr <= 0:
        raise ValueError(f"learning rate must be positive, got {lr} for a sum of {x.sum()}")
    return x * lr


ERR = KeyError("missing")


def p_raise_object(x, flag):
    if flag:
        raise ERR
    return x + 1


def p_loop_then_raise(x, n):
    total = x.sum()
    for k in range(3):
        if k == n:
            raise IndexError(k)
        total = total + k
    return total


def test_static_raise_is_one_graph():
    x = np.array([1.0, 2.0, 3.0])
    for mode in (0, 1, 7):
        check(p_dispatch, x, mode, full_graph=True)
    for lr in (0.1, -1.0):
        check(p_validate, x, lr, full_graph=True)
    for flag in (False, True):
        check(p_raise_object, x, flag, full_graph=True)
    for n in (1, 5):
        check(p_loop_then_raise, x, n, full_graph=True)


def p_printed_then_raise(x, mode):
    print("mode", mode)
    if mode:
        raise ValueError("bad")
    return x


def p_caught(x, mode):
    try:
        if mode:
            raise ValueError("bad")
        y = x * 2
    except ValueError:
        y = -x
    return y


def _helper_raises(mode):
    if mode:
        raise ValueError("bad")


def p_in_helper(x, mode):
    _helper_raises(mode)
    return x


def p_finally_returns(x, mode):
    try:
        if mode:
            raise ValueError("bad")
        y = x * 2
    finally:
        return x + 1


def p_finally_continues(x, mode):
    for k in range(3):
        try:
            if mode == k:
                raise ValueError("bad")
        finally:
            continue
    return x


def p_suppressed(x, mode):
    with contextlib.suppress(ValueError):
        if mode:
            raise ValueError("bad")
    return x


def test_static_raise_taken_by_a_finally_or_a_manager():
    """A ``finally:`` that returns or continues swallows eager's exception, as
    a manager that suppresses it does: the raise is no check that fires."""
    x = np.array([1.0, -2.0])
    for mode in (0, 1):
        check(p_finally_returns, x, mode, full_graph=True)
        check(p_finally_continues, x, mode, full_graph=True)
        check(p_suppressed, x, mode, full_graph=True)


def test_static_raise_elsewhere_unchanged():
    """A raise a handler of the function catches stays a static jump into the
    handler (one graph); one after a print, or in a helper, still raises
    from Python, as eager does."""
    x = np.array([1.0, -2.0])
    for mode in (0, 1):
        check(p_caught, x, mode, full_graph=True)
        check(p_printed_then_raise, x, mode, full_graph=False)
        check(p_in_helper, x, mode, full_graph=False)
