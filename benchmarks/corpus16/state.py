"""Issue 16 part 2: state written by the function (globals, module lists and dicts,
attributes in loops, NumPy arguments written in place), compared call by call."""

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

X = jnp.array([1.0, -2.0, 3.0])

step = 0
history: list = []
CACHE: dict = {}
DEBUG = False
SCALES = [1.0, 2.0]


def _reset() -> None:
    global step, DEBUG, SCALES
    step = 0
    history.clear()
    CACHE.clear()
    DEBUG = False
    SCALES = [1.0, 2.0]


def train_step(w):
    global step
    step += 1
    return w * 0.9 + step * 0.01


def _call(x):
    return lambda f, _: f(x)


def _call_and_globals(x):
    return lambda f, _: (f(x), step, list(history), sorted(CACHE))


@stateful("state", [_call_and_globals(X), _call_and_globals(X), _call_and_globals(X * 2)])
def make_global_step_counter():
    _reset()
    return train_step, None


def log_loss(w, x):
    loss = jnp.mean((w * x) ** 2)
    history.append(float(loss))
    return w - 0.1 * loss, len(history)


@stateful("state", [lambda f, _: (f(X, X), list(history)), lambda f, _: (f(X * 0.5, X), list(history)),
                    lambda f, _: (history.clear(), f(X, X), list(history))])
def make_global_loss_history():
    _reset()
    return log_loss, None


def positional_table(n, x):
    if n not in CACHE:
        CACHE[n] = jnp.arange(n) / n
    return x[:n] + CACHE[n]


@stateful("state", [lambda f, _: f(2, X), lambda f, _: f(2, X * 2), lambda f, _: f(3, X),
                    lambda f, _: (CACHE.__setitem__(2, jnp.ones(2)), f(2, X))[1]])
def make_module_cache_dict():
    _reset()
    return positional_table, None


def debug_forward(x):
    y = jnp.tanh(x)
    if DEBUG:
        print("debug: y =", y)
    return y * len(SCALES) * SCALES[-1]


def _set_debug(f, _):
    global DEBUG
    DEBUG = True
    return f(X)


def _append_scale(f, _):
    SCALES.append(0.5)
    return f(X)


@stateful("state", [_call(X), _set_debug, _append_scale, _call(X)])
def make_global_flag_and_list():
    _reset()
    return debug_forward, None


class Counter:
    def __init__(self):
        self.calls = 0
        self.total = jnp.float32(0.0)

    def __call__(self, x):
        self.calls += 1
        for v in x:
            self.total += v
        return x * self.calls


@stateful("state", [lambda f, c: (f(X), c.calls, c.total), lambda f, c: (f(X * 2), c.calls, c.total),
                    lambda f, c: (setattr(c, "calls", 10), f(X), c.calls, c.total)[1:]])
def make_attribute_counter_loop():
    c = Counter()
    return c.__call__, c


class RunningMean:
    def __init__(self):
        self.total = 0.0
        self.count = 0

    def update(self, ys):
        i = 0
        while i < ys.shape[0] and ys[i] >= 0:
            self.total += ys[i]
            self.count += 1
            i += 1
        return self.total / max(self.count, 1)


@stateful("state", [lambda f, m: (f(X), m.total, m.count), lambda f, m: (f(jnp.abs(X)), m.total, m.count),
                    lambda f, m: (f(-X), m.total, m.count)])
def make_attribute_in_traced_while():
    m = RunningMean()
    return m.update, m


class SGDMomentum:
    def __init__(self, lr=0.1, beta=0.9):
        self.lr, self.beta = lr, beta
        self.v = None

    def step(self, w, g):
        if self.v is None:
            self.v = jnp.zeros_like(g)
        self.v = self.beta * self.v + g
        return w - self.lr * self.v


def _opt_step(scale):
    return lambda f, o: (f(X, X * scale), o.v)


@stateful("state", [_opt_step(1.0), _opt_step(1.0), _opt_step(-2.0),
                    lambda f, o: (setattr(o, "lr", 0.5), f(X, X), o.v)[1:]])
def make_optimizer_object():
    o = SGDMomentum()
    return o.step, o


class BatchNorm:
    def __init__(self, n):
        self.mean = jnp.zeros(n)
        self.var = jnp.ones(n)
        self.momentum = 0.1
        self.training = True

    def __call__(self, x):
        if self.training:
            m, v = x.mean(0), x.var(0)
            self.mean = (1 - self.momentum) * self.mean + self.momentum * m
            self.var = (1 - self.momentum) * self.var + self.momentum * v
        else:
            m, v = self.mean, self.var
        return (x - m) / jnp.sqrt(v + 1e-5)


XB = jnp.arange(12.0).reshape(4, 3)


@stateful("state", [lambda f, b: (f(XB), b.mean), lambda f, b: (f(XB * 2), b.var),
                    lambda f, b: (setattr(b, "training", False), f(XB), b.mean)[1:]])
def make_batchnorm_running_stats():
    b = BatchNorm(3)
    return b.__call__, b


def _closure_counter():
    count = 0

    def f(x):
        nonlocal count
        count += 1
        return x * count
    return f


@stateful("state", [_call(X), _call(X), _call(X * 3)])
def make_nonlocal_counter():
    return _closure_counter(), None


@program("state", (np.array([1.0, 2.0, 4.0]),), (np.array([5.0, 5.0, 6.0]),))
def normalize_inplace(a):
    a -= a.mean()
    a /= a.std() + 1e-8
    return None


@program("state", (np.array([1.0, -2.0, 3.0]), np.zeros(3)), (np.array([0.0, 0.0, -1.0]), np.ones(3)))
def square_into_out(x, out):
    for i in range(x.shape[0]):
        out[i] = x[i] ** 2 if x[i] > 0 else 0.0
    return out.sum()


@program("state", (X, np.zeros(2)), (-X, np.zeros(2)))
def write_flag_buffer_under_traced_if(x, buf):
    y = jnp.sin(x)
    if y.sum() > 0:
        buf[0] = 1.0
    else:
        buf[1] = 1.0
    return y


@program("state", (np.arange(6.0), 20), (np.arange(6.0)[::-1].copy(), 5))
def numpy_relax_inplace_rolled(u, iters):
    for _ in range(iters):
        for i in range(1, u.shape[0] - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
    return u[1:-1].sum()


@program("state", ([1.0, 2.0], X), ([], X))
def append_to_argument_list(log, x):
    for k in range(3):
        log.append(float(x[k]) * 2)
    return sum(log)
