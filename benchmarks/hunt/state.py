"""State: globals, caches, closures and nonlocal, objects, default arguments, mutated arguments."""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

X = jnp.array([1.0, -2.0, 3.0])

CALLS = 0
SEEN_SHAPES: dict = {}
THRESHOLD = 0.0
MODE = "train"


def _reset():
    global CALLS, THRESHOLD, MODE
    CALLS = 0
    SEEN_SHAPES.clear()
    THRESHOLD = 0.0
    MODE = "train"


def counted_relu(x):
    global CALLS
    CALLS += 1
    key = tuple(x.shape)
    SEEN_SHAPES[key] = SEEN_SHAPES.get(key, 0) + 1
    return jnp.where(x > THRESHOLD, x, 0.0), CALLS


def _set_threshold(t, x):
    def step(fn, _):
        global THRESHOLD
        THRESHOLD = t
        return fn(x), CALLS, dict(SEEN_SHAPES)
    return step


@stateful("state", [_set_threshold(0.0, X), _set_threshold(0.0, X), _set_threshold(1.5, X),
                    _set_threshold(1.5, jnp.ones((2, 2)))])
def make_global_counter_and_threshold():
    _reset()
    return counted_relu, None


def dropout_by_mode(x):
    if MODE == "train":
        return x * 0.5, MODE
    return x, MODE


def _mode(m):
    def step(fn, _):
        global MODE
        MODE = m
        return fn(X)
    return step


@stateful("state", [_mode("train"), _mode("eval"), _mode("train")])
def make_global_mode_flag():
    _reset()
    return dropout_by_mode, None


def make_accumulator():
    total = 0.0
    n = 0

    def add(x):
        nonlocal total, n
        for v in x:
            if v > 0:
                total += v
                n += 1
        return total / max(n, 1), n
    return add


@stateful("state", [lambda f, _: f(X), lambda f, _: f(-X), lambda f, _: f(X * 2)])
def make_nonlocal_accumulator():
    return make_accumulator(), None


def scaled_sum(x, weights=[1.0, 1.0, 1.0], history=[]):
    history.append(len(history))
    return sum(w * v for w, v in zip(weights, x)), len(history)


@stateful("state", [lambda f, _: f(X), lambda f, _: f(X), lambda f, _: f(X, [0.5, 0.5, 2.0])])
def make_mutable_default_argument():
    scaled_sum.__defaults__[1].clear()
    return scaled_sum, None


@functools.lru_cache(maxsize=None)
def basis(n):
    return np.vander(np.linspace(0, 1, n), 3)


@program("state", (jnp.arange(4.0),), (jnp.arange(6.0),), (jnp.arange(4.0) * 2,))
def polyfit_with_cached_basis(y):
    B = basis(y.shape[0])
    coef, *_ = jnp.linalg.lstsq(B, y)
    return coef


class Counter:
    instances = 0

    def __init__(self, start=0):
        Counter.instances += 1
        self.value = start
        self.log = []

    def step(self, x):
        if x.sum() > 0:
            self.value += 1
            self.log.append("up")
        else:
            self.value -= 1
            self.log.append("down")
        return self.value


def _ctr(x):
    def step(fn, obj):
        return fn(x), obj.value, list(obj.log)
    return step


@stateful("state", [_ctr(X), _ctr(-X * 10), _ctr(X), _ctr(X)])
def make_counter_method_traced_branch():
    c = Counter(5)
    return c.step, c


def make_closures_in_loop():
    fns = [lambda x, k=k: x * k for k in range(3)]
    late = [lambda x: x * k for k in range(3)]

    def apply(x):
        return [f(x) for f in fns], [f(x) for f in late]
    return apply


@stateful("state", [lambda f, _: f(X), lambda f, _: f(X + 1)])
def make_closures_in_loop_late_binding():
    return make_closures_in_loop(), None


def normalize_rows_inplace(M, out):
    for i in range(M.shape[0]):
        s = M[i].sum()
        if s != 0:
            out[i] = M[i] / s
        else:
            out[i] = 0
    return out


@program("state", (np.array([[1.0, 3.0], [0.0, 0.0]]), np.full((2, 2), -1.0)),
         (np.array([[2.0, 2.0], [1.0, -1.0]]), np.zeros((2, 2))))
def write_into_output_argument(M, out):
    r = normalize_rows_inplace(M, out)
    return r is out, out.sum()


class Model:
    def __init__(self):
        self.w = jnp.ones(3)
        self.step = 0
        self.best = None

    def train_step(self, x, lr=0.1):
        loss = ((self.w * x) ** 2).sum()
        self.w = self.w - lr * 2 * self.w * x * x
        self.step += 1
        if self.best is None or loss < self.best:
            self.best = loss
        return loss


def _mstep(x, lr=0.1):
    def step(fn, m):
        return fn(x, lr), m.w, m.step, m.best
    return step


@stateful("state", [_mstep(X), _mstep(X), _mstep(X * 3, 1.0), _mstep(X * 0.01)])
def make_model_object_best_none_then_array():
    m = Model()
    return m.train_step, m


REGISTRY = {}


def register(name):
    def deco(fn):
        REGISTRY[name] = fn
        return fn
    return deco


@register("square")
def _square(x):
    return x * x


@register("abs")
def _abs(x):
    return jnp.abs(x)


def apply_registered(x, names):
    out = {}
    for n in names:
        out[n] = REGISTRY[n](x)
    return out


def _reg(names, patch=None):
    def step(fn, _):
        if patch:
            REGISTRY["square"] = patch
        return fn(X, names)
    return step


@stateful("state", [_reg(("square", "abs")), _reg(("abs", "square")), _reg(("square",), lambda x: x + 100)])
def make_global_function_registry():
    REGISTRY["square"] = _square
    return apply_registered, None


def track_extremes(x, stats):
    lo, hi = stats.get("min"), stats.get("max")
    m, M = x.min(), x.max()
    stats["min"] = m if lo is None else jnp.minimum(lo, m)
    stats["max"] = M if hi is None else jnp.maximum(hi, M)
    stats["calls"] = stats.get("calls", 0) + 1
    return stats["max"] - stats["min"]


def _ext(x):
    def step(fn, stats):
        return fn(x, stats), dict(stats)
    return step


@stateful("state", [_ext(X), _ext(X * 3), _ext(-X)])
def make_argument_dict_mutated():
    return track_extremes, {}


def run_with_namespace_state(x, steps):
    import types
    st = types.SimpleNamespace(step=0, best=None, losses=[])
    w = x
    for _ in range(steps):
        loss = (w ** 2).sum()
        st.losses.append(float(loss))
        if st.best is None or loss < st.best:
            st.best = loss
        w = w * 0.5
        st.step += 1
    return w, st


def _ns_step(x, steps):
    def step(fn, _):
        w, st = fn(x, steps)
        out = (w, st.step, st.best, list(st.losses))
        st.step = -1        # the caller keeps and changes its result
        st.losses.clear()
        return out
    return step


@stateful("state", [_ns_step(X, 3), _ns_step(X, 3), _ns_step(X * 2, 1)])
def make_simple_namespace_state():
    return run_with_namespace_state, None
