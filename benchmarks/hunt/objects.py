"""Objects and functions: properties, ``__call__``, class vs instance
attributes, dataclasses, NamedTuples, closures with nonlocal, recursion,
default arguments, while loops whose state changes type, early exits from
nested loops."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful


class Linear:
    def __init__(self, w):
        self.w = w
        self._norm = None
        self.training = True

    @property
    def norm(self):
        if self._norm is None:
            self._norm = jnp.linalg.norm(self.w)
        return self._norm

    def __call__(self, x):
        y = x @ self.w / self.norm
        if self.training:
            y = y * 0.5
        return y


def _lin(x, train=None, new_w=None):
    def step(fn, m):
        if train is not None:
            m.training = train
        if new_w is not None:
            m.w = new_w
        return fn(x), m._norm
    return step


@stateful("objects", [_lin(jnp.ones(2)), _lin(jnp.ones(2), train=False), _lin(jnp.ones(2), new_w=jnp.eye(2) * 3),
                      _lin(jnp.ones(2), train=True)])
def make_lazy_property_cached_norm():
    m = Linear(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    return m.__call__, m


class Particle:
    count = 0
    bounces = 0

    def __init__(self, pos):
        Particle.count += 1
        self.pos = pos

    def step(self, v):
        self.pos = self.pos + v
        if self.pos.min() < 0:
            self.bounces += 1
            self.pos = jnp.abs(self.pos)
        return self.pos


def _pt(v):
    def step(fn, p):
        return fn(v), p.bounces, Particle.bounces, "bounces" in vars(p)
    return step


@stateful("objects", [_pt(jnp.array([1.0, 1.0])), _pt(jnp.array([-5.0, 0.0])), _pt(jnp.array([-9.0, 0.0])),
                      _pt(jnp.array([0.0, 0.0]))])
def make_class_attribute_shadowed_by_iadd():
    Particle.bounces = 0
    p = Particle(jnp.array([1.0, 2.0]))
    return p.step, p


@dataclasses.dataclass
class OptState:
    lr: float
    step: int = 0
    history: list = dataclasses.field(default_factory=list)


def sgd_update(w, g, state):
    state.step += 1
    lr = state.lr / (1 + 0.1 * state.step)
    w = w - lr * g
    state.history.append(round(lr, 6))
    if jnp.abs(g).max() < 1e-3:
        state.lr = state.lr * 2
    return w, state.step


def _sgd(w, g):
    def step(fn, st):
        return fn(w, g, st), st.lr, list(st.history)
    return step


@stateful("objects", [_sgd(jnp.ones(2), jnp.array([0.5, 0.5])), _sgd(jnp.ones(2), jnp.array([1e-4, 0.0])),
                      _sgd(jnp.ones(2), jnp.array([0.5, -0.5]))])
def make_dataclass_state_mutated():
    return sgd_update, OptState(0.1)


class Carry(NamedTuple):
    h: jnp.ndarray
    steps: int
    done: bool


def rnn_until_small(x, W):
    c = Carry(x, 0, False)
    while not c.done and c.steps < 6:
        h = jnp.tanh(W @ c.h)
        c = c._replace(h=h, steps=c.steps + 1, done=bool(jnp.abs(h).max() < 0.1))
    return c, c.steps, type(c).__name__


@program("objects", (jnp.array([1.0, -1.0]), jnp.array([[0.5, 0.0], [0.0, 0.5]])),
         (jnp.array([1.0, 1.0]), jnp.array([[2.0, 0.0], [0.0, 2.0]])))
def namedtuple_carry_replace(x, W):
    return rnn_until_small(x, W)


@dataclasses.dataclass(frozen=True)
class Config:
    scale: float = 1.0
    clip: float | None = None


@program("objects", (jnp.array([1.0, 5.0]), 2.0, None), (jnp.array([1.0, 5.0]), 2.0, 3.0),
         (jnp.array([-4.0, 5.0]), 0.5, 1.0))
def frozen_dataclass_replace(x, scale, clip):
    cfg = Config(scale=scale, clip=clip)
    y = x * cfg.scale
    if cfg.clip is not None:
        y = jnp.clip(y, -cfg.clip, cfg.clip)
        cfg = dataclasses.replace(cfg, scale=cfg.scale * 2)
    try:
        cfg.scale = 0.0
    except dataclasses.FrozenInstanceError as e:
        msg = str(e)
    return y, cfg, msg, dataclasses.asdict(cfg)


def make_ema(decay):
    avg = None
    n = 0

    def update(x):
        nonlocal avg, n
        n += 1
        if avg is None:
            avg = x
        else:
            avg = decay * avg + (1 - decay) * x
        return avg, n
    return update


@stateful("objects", [lambda f, _: f(jnp.array([1.0, 2.0])), lambda f, _: f(jnp.array([3.0, 4.0])),
                      lambda f, _: f(jnp.array([0.0, 0.0])), lambda f, _: f(jnp.array([1.0, 1.0]))])
def make_closure_ema_none_then_array():
    return make_ema(0.9), None


def tree_sum(node):
    if isinstance(node, (list, tuple)):
        total = 0
        for child in node:
            total = total + tree_sum(child)
        return total
    if isinstance(node, dict):
        return sum(tree_sum(v) for v in node.values())
    return node.sum()


@program("objects", ([jnp.ones(2), (jnp.arange(3.0), {"a": jnp.array([5.0])})],), ([],), ({"x": [jnp.zeros(1)]},))
def recursive_tree_sum(tree):
    return tree_sum(tree)


def fast_pow(x, n):
    if n == 0:
        return jnp.ones_like(x)
    if n % 2:
        return x * fast_pow(x, n - 1)
    half = fast_pow(x, n // 2)
    return half * half


@program("objects", (jnp.array([2.0, -1.5]), 5), (jnp.array([2.0, -1.5]), 0), (jnp.array([1.1]), 12))
def recursive_power_static_n(x, n):
    return fast_pow(x, n)


def collect(x, out=[]):
    if x.sum() > 0:
        out.append(float(x.sum()))
    return len(out), list(out)


@stateful("objects", [lambda f, _: f(jnp.array([1.0])), lambda f, _: f(jnp.array([-1.0])),
                      lambda f, _: f(jnp.array([2.0])), lambda f, _: f(jnp.array([3.0]), [])])
def make_default_list_grows():
    collect.__defaults__[0].clear()
    return collect, None


@program("objects", (jnp.array([0.3, 0.3, 0.3]),), (jnp.array([5.0]),), (jnp.array([0.01, 0.02]),))
def while_state_int_to_float_to_array(x):
    t = 0
    it = 0
    while t < 1:
        t = t + x[it % x.shape[0]]
        it += 1
        if it > 50:
            break
    return t, it


@program("objects", (jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 7.0),
         (jnp.array([[1.0, 2.0], [3.0, 4.0]]), 100.0), (jnp.array([[5.0, 2.0]]), 7.0))
def pair_search_nested_early_return(M, target):
    flat = M.reshape(-1)
    n = flat.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if flat[i] + flat[j] == target:
                return i, j
    return None


@program("objects", (jnp.array([[1.0, -2.0], [3.0, 4.0]]),), (jnp.array([[1.0, 2.0], [3.0, 4.0]]),))
def nested_break_flag_for_else(M):
    found = None
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            if M[i, j] < 0:
                found = (i, j)
                break
        else:
            continue
        break
    else:
        found = "none negative"
    return found


class Base:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        return self.forward(x) * self.scale

    def forward(self, x):
        return x


class Residual(Base):
    def __init__(self, scale, inner):
        super().__init__(scale)
        self.inner = inner

    def forward(self, x):
        return x + super().forward(self.inner(x))


@program("objects", (jnp.array([1.0, 2.0]),), (jnp.array([-1.0]),))
def inheritance_super_call(x):
    m = Residual(2.0, Base(0.5))
    return m(x), isinstance(m, Base)


class Window:
    def __init__(self, data, size):
        self.data, self.size = data, size

    def __len__(self):
        return max(0, self.data.shape[0] - self.size + 1)

    def __getitem__(self, i):
        if i >= len(self):
            raise IndexError(i)
        return self.data[i:i + self.size]


@program("objects", (jnp.arange(5.0), 2), (jnp.arange(3.0), 3), (jnp.arange(2.0), 4))
def custom_sequence_iteration(x, size):
    w = Window(x, size)
    means = [win.mean() for win in w]
    return means, len(w)


class Scaler:
    registry = {}

    def __init__(self, factor):
        self.factor = factor

    @classmethod
    def named(cls, name):
        if name not in cls.registry:
            cls.registry[name] = cls({"double": 2.0, "half": 0.5}.get(name, 1.0))
        return cls.registry[name]

    @staticmethod
    def check(x):
        return bool((x >= 0).all())


def scale_by_name(x, name):
    s = Scaler.named(name)
    return x * s.factor, Scaler.check(x), len(Scaler.registry)


@stateful("objects", [lambda f, _: f(jnp.ones(2), "double"), lambda f, _: f(-jnp.ones(2), "half"),
                      lambda f, _: f(jnp.ones(2), "double"), lambda f, _: f(jnp.ones(2), "other")])
def make_classmethod_registry():
    Scaler.registry.clear()
    return scale_by_name, None


@program("objects", (jnp.array([1.0, 2.0]), None), (jnp.array([1.0, 2.0]), jnp.array([1.0, 2.0])))
def identity_checks(x, y):
    z = x
    same = z is x
    if y is None:
        y = x
    return same, y is x, x * 2 is x, y


@program("objects", (np.array([4.0, 1.0, 3.0]),), (np.array([1.0, 1.0]),))
def while_value_changes_kind(x):
    best = None
    i = 0
    while i < len(x):
        v = x[i]
        if best is None or v > best:
            best = v
        i += 1
    label = best if best > 2 else int(best)
    return best, label, i
