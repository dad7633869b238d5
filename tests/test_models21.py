"""Realistic model and training programs (h-model21): state written before a
run-time check, parameters in dicts written in place, early stopping.

Each program is compared with eager on calls that change the caller's state
between them (``check_sequence``, ``full_graph=True``: any fallback fails).
"""

from __future__ import annotations

import dataclasses
import traceback
from typing import NamedTuple

import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check_calls, check_sequence

# --------------------------------------------- 1. writes of state before a check
LOG: list = []


def _validate(x):
    LOG.append("start")
    if x.min() < 0:
        raise ValueError(f"negative input: min={float(x.min()):.3f}")
    LOG.append("end")   # after the check: never made when it fires
    return x * 2


def test_global_list_appended_before_check():
    def make():
        LOG.clear()
        return _validate, None

    def call(x):
        return lambda fn, _: (fn(x), list(LOG))

    def bad(fn, _):
        try:
            fn(-np.ones(3))
        finally:
            snapshot.append(list(LOG))

    snapshot: list = []

    def tamper(fn, _):   # the caller changes the list between calls
        LOG[:] = ["old"]
        return fn(np.ones(2)), list(LOG)

    check_sequence(make, [call(np.ones(3)), bad, call(np.arange(3.0)), tamper, bad, call(np.ones(3))])
    assert snapshot[0] == snapshot[2] and snapshot[1] == snapshot[3]   # eager's and the converted run's


class _Trainer:
    def __init__(self):
        self.n, self.hist, self.w = 0, [], np.ones(3)
        self.last = None

    def step(self, x):
        self.n += 1
        loss = float((x * self.w).sum())
        self.hist.append({"step": self.n, "loss": loss})
        if not np.isfinite(loss):
            raise FloatingPointError(f"loss {loss} at step {self.n}")
        self.last = loss
        return loss


def _state(t):
    return t.n, [dict(h) for h in t.hist], t.last


def test_method_state_before_check_is_eagers_at_the_raise():
    def make():
        t = _Trainer()
        return t.step, t

    def call(x):
        def run(fn, t):
            try:
                return fn(x), _state(t)
            except FloatingPointError as e:
                return repr(e), _state(t)
        return run

    def reset(fn, t):   # the caller changes the counter and the history between calls
        t.n, t.hist = 10, [{"step": 0, "loss": -1.0}]
        return fn(np.ones(3)), _state(t)

    nan = np.array([1.0, np.nan, 2.0])
    check_sequence(make, [call(np.ones(3)), call(nan), call(np.ones(3) * 2), reset, call(nan), call(nan)],
                   recompiles=3)


def test_check_state_goes_to_the_called_object():
    """Objects passed by value: a plan may serve an equal object; the check's
    writes must reach the object of this call, not the traced one."""
    class Box:
        def __init__(self):
            self.count = 0

    def fn(box, x):
        box.count = box.count + 1
        if x.sum() > 10:
            raise RuntimeError("too big")
        return x + box.count

    def make():
        return fn, [Box(), Box()]

    def call(k, x):
        def run(f, boxes):
            try:
                out = f(boxes[k], x)
            except RuntimeError as e:
                out = repr(e)
            return out, [b.count for b in boxes]
        return run

    check_sequence(make, [call(0, np.ones(2)), call(1, np.ones(2) * 20), call(0, np.ones(2) * 20),
                          call(1, np.ones(2))])


def test_check_after_state_traceback_ends_at_the_raise():
    LOG.clear()
    g = to_static(_validate, full_graph=True)
    g(np.ones(2))
    with pytest.raises(ValueError) as info:
        g(-np.ones(2))
    assert str(info.value) == "negative input: min=-1.000"
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.name == "_validate" and "raise ValueError" in last.line
    assert LOG == ["start", "end", "start"]


def test_check_state_kinds_and_graph_count():
    """Values written before the check reach the state as eager's kinds: a
    NumPy array, a Python int, a NumPy scalar, a tuple; one graph per call."""
    class Opt:
        def __init__(self):
            self.t, self.g, self.peak, self.pair = 0, None, None, None

    def step(opt, x):
        opt.t += 1
        opt.g = x * 2.0
        opt.peak = x.max()
        opt.pair = (opt.t, "seen")
        assert x.min() > -1, f"bad at {opt.t}"
        return opt.g.sum()

    o = Opt()
    g = to_static(step, full_graph=True)
    e = explain(g)(o, np.ones(3))
    assert e.graph_count == 1, str(e)
    o2 = Opt()
    step(o2, np.ones(3))
    with pytest.raises(AssertionError, match="bad at 2"):
        g(o, -np.ones(3) * 2)
    with pytest.raises(AssertionError, match="bad at 2"):
        step(o2, -np.ones(3) * 2)
    assert o.t == o2.t == 2 and type(o.t) is int and o.pair == o2.pair
    assert type(o.g) is np.ndarray and np.array_equal(o.g, o2.g) and o.g.dtype == o2.g.dtype
    assert type(o.peak) is type(o2.peak) and o.peak == o2.peak


# ------------------------------- 2. parameters in a dict, written in place
class _SGD:
    def __init__(self):
        self.params = {"w": np.ones((2, 3)), "b": np.zeros(3)}
        self.grads = {"w": np.full((2, 3), 0.5), "b": np.arange(3.0)}

    def step_items(self, lr):
        for k, p in self.params.items():
            p -= lr * self.grads[k]
        return self.params["w"].sum() + self.params["b"].sum()

    def step_values(self, lr):
        for p, g in zip(self.params.values(), self.grads.values()):
            p *= 1 - lr
            p -= lr * g
        return 0

    def step_list(self, lr):
        ps = list(self.params.values())
        for p in ps:
            p -= lr
        return ps[0].sum(), ps[1] is self.params["b"]


def _params(o):
    return {k: v.copy() for k, v in o.params.items()}


@pytest.mark.parametrize("method", ["step_items", "step_values", "step_list"])
def test_dict_of_parameters_written_in_place(method):
    def make():
        o = _SGD()
        return getattr(o, method), o

    def call(lr):
        return lambda fn, o: (fn(lr), _params(o))

    def caller_writes(fn, o):   # into a parameter: the graph reads it per call (no recompile)
        o.params["w"][0, 0] = 7.0
        return fn(0.1), _params(o)

    def caller_rebinds(fn, o):   # another array under a key, and its old one kept by the caller
        old = o.params["b"]
        o.params["b"] = np.full(3, 2.0)
        out = fn(0.1)
        return out, _params(o), old.copy()

    def caller_adds(fn, o):   # a new key: the keys are guarded
        o.params["c"] = np.ones(2)
        o.grads["c"] = np.ones(2)
        return fn(0.1), _params(o)

    static = check_sequence(make, [call(0.1), call(0.1), caller_writes, caller_rebinds, call(0.1), caller_adds,
                                   call(0.1)])
    assert static.recompiles <= 1, static.recompile_reasons


def test_dict_values_written_one_graph_held_array_identity():
    o = _SGD()
    w = o.params["w"]
    e = explain(o.step_items)(0.1)
    assert e.graph_count == 1 and not e.fallback_sites, str(e)
    assert o.params["w"] is w and np.allclose(w, 0.95)


def test_dict_of_parameters_sharing_one_array_matches_eager():
    def make():
        o = _SGD()
        o.params["v"] = o.params["w"]   # one array under two keys: written twice by eager
        o.grads["v"] = o.grads["w"]
        return o.step_items, o

    check_sequence(make, [lambda fn, o: (fn(0.1), _params(o))] * 2, full_graph=False)


def test_loop_body_adding_a_key_matches_eager():
    def make():
        d = {"a": np.ones(2), "b": np.zeros(2)}

        def f(x):
            for p in d.values():
                p += x
                d["c"] = x   # eager: RuntimeError, the dict changed size during iteration
            return d["a"]
        return f, d

    check_sequence(make, [lambda fn, d: (fn(np.ones(2)), dict(d))], full_graph=False)


def test_loop_body_adding_a_key_on_the_last_item_matches_eager():
    def make():
        d = {"a": np.ones(2), "b": np.zeros(2)}

        def f(x):
            for k, p in d.items():
                p += x
                if k == "b":
                    d["c"] = x   # eager: RuntimeError at the pull after the last item
            return d["a"]
        return f, d

    check_sequence(make, [lambda fn, d: (fn(np.ones(2)), dict(d))], full_graph=False)


# ------------------------- 3. named tuple and dataclass states written through
class _Ema(NamedTuple):
    m: np.ndarray
    buf: np.ndarray
    t: int


@dataclasses.dataclass
class _DEma:
    m: np.ndarray
    buf: np.ndarray
    t: int = 0


def _ema_update(state, x):
    state.buf[:] = x
    state.m[...] *= 0.9
    state.m[:] = state.m + 0.1 * state.buf
    return state.m.sum(), state


def _ema_dataclass(state, x):
    state.buf[:] = x
    state.m *= 0.9
    state.m += 0.1 * state.buf
    state.t += 1
    return state.m.sum()


def _fields(s):
    return s.m.copy(), s.buf.copy(), s.t


def test_named_tuple_state_written_through_its_fields():
    def make():
        return _ema_update, {"s": _Ema(np.ones(3), np.zeros(3), 0)}

    def call(x):
        def run(fn, w):
            s = w["s"]
            total, out = fn(s, x)
            # (``out is s``: a named tuple argument handed back is a new tuple of the caller's arrays,
            # as before this change: reported)
            return total, _fields(s), out.m is s.m, out.buf is s.buf
        return run

    def caller_writes(fn, w):   # into the state's arrays between calls
        w["s"].m[1] = 5.0
        return call(np.ones(3))(fn, w)

    def fresh_state(fn, w):   # another state object, other arrays
        w["s"] = _Ema(np.full(3, 2.0), np.ones(3), 0)
        return call(np.arange(3.0))(fn, w)

    static = check_sequence(make, [call(np.arange(3.0)), call(np.ones(3)), caller_writes, fresh_state,
                                   call(np.zeros(3))])
    assert static.recompiles == 0, static.recompile_reasons


def test_named_tuple_state_with_one_array_in_two_fields_matches_eager():
    def make():
        a = np.ones(3)
        return _ema_update, _Ema(a, a, 0)

    check_sequence(make, [lambda fn, s: (fn(s, np.arange(3.0))[0], _fields(s))] * 2, full_graph=False)


def test_named_tuple_state_held_twice_matches_eager():
    def f(state, x):
        keep = [state]
        state.buf[:] = x
        return keep[0].buf.sum() + state.buf.sum()

    check_calls(f, [(_Ema(np.ones(3), np.zeros(3), 0), np.arange(3.0))], full_graph=False)


def test_named_tuple_attribute_augmented_raises_as_eager():
    def f(state, x):
        state.m *= 0.9   # eager: the array is scaled in place, then setattr raises AttributeError
        return x

    check_sequence(lambda: (f, _Ema(np.ones(3), np.zeros(3), 0)),
                   [lambda fn, s: (fn(s, np.ones(2)), _fields(s))], full_graph=False)


def test_dataclass_state_written_through_its_fields():
    def make():
        return _ema_dataclass, {"s": _DEma(np.ones(3), np.zeros(3))}

    def call(x):
        return lambda fn, w: (fn(w["s"], x), _fields(w["s"]))

    def caller_writes(fn, w):
        w["s"].buf[0] = 9.0
        w["s"].t = 10
        return call(np.ones(3))(fn, w)

    def fresh_state(fn, w):
        w["s"] = _DEma(np.full(3, 2.0), np.ones(3), 1)
        return call(np.arange(3.0))(fn, w)

    check_sequence(make, [call(np.arange(3.0)), call(np.ones(3)), caller_writes, fresh_state, call(np.zeros(3))])


# ------------------------------- 4. early stopping: a patience counter reset to 0
def _fit(w, X, y, lr, patience):
    best = np.inf
    wait = 0
    for epoch in range(120):
        g = X.T @ (X @ w - y) / len(y)
        w = w - lr * g
        loss = float(np.mean((X @ w - y) ** 2))
        if loss < best - 1e-3:
            best = loss
            wait = 0
        else:
            wait += 1
        if wait > patience:
            break
    return w, best, epoch, wait


def test_early_stopping_with_a_reset_patience_counter_rolls():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    y = X @ np.array([1.0, 2.0, 3.0])
    calls = [(np.zeros(3), X, y, 0.1, 3), (np.zeros(3), X, y + 0.5, 0.1, 3), (np.zeros(3), X, y, 1e-4, 3),
             (np.ones(3), X, y, 0.1, 3)]
    static = check_calls(_fit, calls)
    e = explain(static)(*calls[0])
    assert "rolled" in str(e) and e.graph_count == 1, str(e)   # (it unrolled 120 times: minutes of XLA compile)
    check_calls(_fit, [(np.zeros(3), X, y, 0.1, 0), (np.zeros(3), X, y, 0.1, 7)])   # another patience


def test_counter_reset_to_another_constant_and_stepped_down():
    def f(x):
        n = 2
        total = 0.0
        for v in x:
            if v > 0:
                n -= 1
            else:
                n = 5
            total += float(v) * n
        return n, total

    check_calls(f, [(np.array([1.0, -2.0, 3.0] * 10),), (np.ones(30),), (-np.ones(30),)])


# ------------------------------- a model with an optimizer: all of the above together
class _Adam:
    def __init__(self, params, lr=1e-2, b1=0.9, b2=0.999):
        self.params, self.lr, self.b1, self.b2 = params, lr, b1, b2
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads):
        self.t += 1
        for k, p in self.params.items():
            g = grads[k]
            self.m[k] = self.b1 * self.m[k] + (1 - self.b1) * g
            self.v[k] = self.b2 * self.v[k] + (1 - self.b2) * g * g
            mh = self.m[k] / (1 - self.b1 ** self.t)
            vh = self.v[k] / (1 - self.b2 ** self.t)
            p -= self.lr * mh / (np.sqrt(vh) + 1e-8)


class _Model:
    def __init__(self):
        rng = np.random.default_rng(1)
        self.params = {"W": rng.normal(size=(3, 4)) * 0.1, "b": np.zeros(4), "V": rng.normal(size=(4, 1)) * 0.1}
        self.opt = _Adam(self.params)
        self.history = []

    def train_step(self, X, y):
        h = np.tanh(X @ self.params["W"] + self.params["b"])
        err = (h @ self.params["V"])[:, 0] - y
        loss = float(np.mean(err ** 2))
        d_out = (2 * err / len(y))[:, None]
        dh = d_out @ self.params["V"].T * (1 - h ** 2)
        self.opt.step({"W": X.T @ dh, "b": dh.sum(0), "V": h.T @ d_out})
        self.history.append(loss)
        if not np.isfinite(loss):
            raise FloatingPointError(f"diverged at step {self.opt.t}")
        return loss


def test_model_with_adam_and_a_divergence_check():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(16, 3))
    y = X.sum(1)
    bad = X.copy()
    bad[0, 0] = np.nan

    def make():
        m = _Model()
        return m.train_step, m

    def state(m):
        return ({k: v.copy() for k, v in m.params.items()}, {k: v.copy() for k, v in m.opt.m.items()},
                list(m.history), m.opt.t)

    def call(data):
        def run(fn, m):
            try:
                return fn(data, y), state(m)
            except FloatingPointError as e:   # the state as eager left it when it raised
                return repr(e), state(m)
        return run

    def caller_resets(fn, m):   # the caller zeroes a parameter and the moments between calls
        m.params["b"][:] = 0.0
        m.opt.m["W"] = np.zeros((3, 4))
        return call(X)(fn, m)

    check_sequence(make, [call(X), call(X), caller_resets, call(bad), call(X)], rtol=1e-6, atol=1e-9,
                   recompiles=3)


class _Tape:
    def __init__(self):
        self.g, self.gs, self.x, self.msg = None, [], None, []


def _record(t, x, w):
    g = x * w
    t.g = g
    t.gs.append(g)   # one array in two places: one object in eager
    t.msg.append(float(np.abs(g).sum()))
    if g.max() > 5:
        raise ValueError("big")
    return g


def _record_argument(t, x, w):
    t.x = x   # the caller's array itself: no copy may stand for it
    return _record(t, x, w)


@pytest.mark.parametrize("fn", [_record, _record_argument])
def test_check_writes_keep_eagers_objects(fn):
    def make():
        return fn, {"t": _Tape(), "x": np.ones(2)}

    def call(w):
        def run(f, world):
            t, x = world["t"], world["x"]
            try:
                out = f(t, x, w)
            except ValueError as e:
                out = repr(e)
            return out, t.g is t.gs[-1], t.x is x, list(t.msg), [g.copy() for g in t.gs]
        return run

    check_sequence(make, [call(np.ones(2)), call(np.full(2, 9.0)), call(np.full(2, 2.0))],
                   full_graph=fn is _record)


# ------------------------------- a scheduler and a global metrics logger
METRICS: dict = {"loss": [], "lr": []}


class _Cosine:
    def __init__(self, base, total):
        self.base, self.total, self.step_n = base, total, 0

    def __call__(self):
        lr = 0.5 * self.base * (1 + np.cos(np.pi * self.step_n / self.total))
        self.step_n += 1
        return lr


class _Linear:
    def __init__(self):
        self.w, self.b = np.zeros(3), 0.0
        self.sched = _Cosine(0.1, 50)

    def epoch(self, X, y, bs):
        total = 0.0
        for i in range(0, len(X), bs):
            xb, yb = X[i:i + bs], y[i:i + bs]
            err = xb @ self.w + self.b - yb
            lr = self.sched()
            self.w -= lr * xb.T @ err / len(yb)
            self.b -= lr * float(err.mean())
            total += float((err ** 2).sum())
        METRICS["loss"].append(total / len(X))   # then another list of the same dict: one graph
        METRICS["lr"].append(lr)
        return total / len(X), len(METRICS["loss"])


def test_scheduler_and_global_metrics_logger():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(32, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.3

    def make():
        METRICS["loss"], METRICS["lr"] = [], []
        m = _Linear()
        return m.epoch, m

    def call(fn, m):
        return fn(X, y, 8), m.w.copy(), m.b, m.sched.step_n, list(METRICS["loss"]), list(METRICS["lr"])

    def change(fn, m):   # the caller changes the schedule and starts a new log
        m.sched.base = 0.05
        METRICS["lr"] = ["restart"]
        return call(fn, m)

    check_sequence(make, [call, call, change, call], recompiles=3)


class _Logger:
    def __init__(self):
        self.lines = []

    def log(self, step, x):
        self.lines.append(f"step {step}: loss={float(x.sum()):.3f}")
        self.lines.extend([f"{v:.1f}" for v in x[:2]])
        return len(self.lines)


def test_formatted_strings_appended_to_an_objects_list():
    def make():
        lg = _Logger()
        return lg.log, lg

    def call(step, x):
        def run(fn, lg):
            out = fn(step, x)
            assert all(type(s) is str for s in lg.lines)
            return out, list(lg.lines)
        return run

    def cleared(fn, lg):   # the caller empties the log between calls
        lg.lines.clear()
        return call(3, np.full(3, 0.5))(fn, lg)

    check_sequence(make, [call(1, np.ones(3)), call(2, np.arange(3.0)), cleared, call(4, np.full(3, 2.0))],
                   recompiles=4)


def test_formatted_strings_appended_under_traced_conditions_match_eager():
    class Lines:
        def __init__(self):
            self.lines = []

        def log(self, step, x):
            self.lines.append(f"step {step}")
            if x.max() > 1:   # under a traced condition: the rows of a list of data-dependent length
                self.lines.append(f"  max {float(x.max()):.2f}")
            for v in x:
                if v > 0.5:
                    self.lines.append(f"{float(v):.1f}")
            return len(self.lines)

    def make():
        lines = Lines()
        return lines.log, lines

    def call(step, x):
        return lambda fn, lines: (fn(step, x), list(lines.lines), [type(t) for t in lines.lines])

    check_sequence(make, [call(1, np.ones(3)), call(2, np.arange(3.0)), call(1, np.ones(3))], full_graph=False)
