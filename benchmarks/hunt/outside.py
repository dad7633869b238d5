"""State read from outside and changed by the caller between calls: NumPy
arrays in globals, closures and attributes written in place, lists and dicts
whose items change, class attributes, replaced defaults, random generators
and print options."""

from __future__ import annotations

import random

import jax.numpy as jnp
import numpy as np

from .registry import stateful

TABLE = np.array([1.0, 2.0, 3.0])
WEIGHTS = [1.0, 0.5]
OPTIONS = {"scale": 2.0, "bias": 0.0}
RNG = np.random.default_rng(0)


def lookup_scaled(i, x):
    return TABLE[i] * x + OPTIONS["bias"], WEIGHTS[0] * x.sum()


def _lk(i, x, change=None):
    def step(fn, _):
        if change:
            change()
        return fn(i, x)
    return step


def _set_table():
    TABLE[1] = -5.0


def _set_weights():
    WEIGHTS[0] = 3.0


def _set_bias():
    OPTIONS["bias"] = 1.5


def _replace_table():
    global TABLE
    TABLE = np.array([10.0, 20.0, 30.0])


@stateful("state", [_lk(1, jnp.ones(2)), _lk(1, jnp.ones(2), _set_table), _lk(1, jnp.ones(2), _set_weights),
                    _lk(1, jnp.ones(2), _set_bias), _lk(2, jnp.ones(2), _replace_table)])
def make_global_array_written_in_place_between_calls():
    global TABLE
    TABLE = np.array([1.0, 2.0, 3.0])
    WEIGHTS[:] = [1.0, 0.5]
    OPTIONS.clear()
    OPTIONS.update({"scale": 2.0, "bias": 0.0})
    return lookup_scaled, None


class Norm:
    eps = 1e-5

    def __init__(self):
        self.gamma = np.ones(2)

    def __call__(self, x):
        mu = x.mean()
        return (x - mu) / np.sqrt(x.var() + self.eps) * self.gamma


def _nm(x, change=None):
    def step(fn, m):
        if change:
            change(m)
        return fn(x)
    return step


def _g(m):
    m.gamma[0] = 2.0


def _eps(m):
    Norm.eps = 1.0


def _inst_eps(m):
    m.eps = 4.0


@stateful("state", [_nm(np.array([1.0, 3.0])), _nm(np.array([1.0, 3.0]), _g), _nm(np.array([1.0, 3.0]), _eps),
                    _nm(np.array([1.0, 3.0]), _inst_eps), _nm(np.array([2.0, 2.0]))])
def make_attribute_array_and_class_attribute_changed():
    Norm.eps = 1e-5
    m = Norm()
    return m.__call__, m


def make_closure_over_array():
    kernel = np.array([0.25, 0.5, 0.25])

    def smooth(x):
        return np.convolve(x, kernel, mode="same")

    def set_kernel(k):
        kernel[:] = k
    return smooth, set_kernel


def _sm(x, k=None):
    def step(fn, setter):
        if k is not None:
            setter(k)
        return fn(x)
    return step


@stateful("state", [_sm(np.array([1.0, 2.0, 3.0, 4.0])), _sm(np.array([1.0, 2.0, 3.0, 4.0]), [0.0, 1.0, 0.0]),
                    _sm(np.array([0.0, 4.0, 0.0, 4.0]))])
def make_closure_array_written_by_setter():
    return make_closure_over_array()


def noisy_step(x, sigma=0.1):
    noise = RNG.normal(size=x.shape)
    jitter = random.random()
    return x + sigma * noise, jitter


def _ns(x, reseed=None):
    def step(fn, _):
        global RNG
        if reseed is not None:
            RNG = np.random.default_rng(reseed)
            random.seed(reseed)
        return fn(x)
    return step


@stateful("state", [_ns(np.zeros(3), 0), _ns(np.zeros(3)), _ns(np.ones(2)), _ns(np.zeros(3), 0)])
def make_global_rng_advances_each_call():
    global RNG
    RNG = np.random.default_rng(0)
    random.seed(0)
    return noisy_step, None


def report_weights(w):
    print("weights:", w)
    print(f"norm {np.linalg.norm(w)}")
    return w.sum()


def _po(w, precision=None):
    def step(fn, _):
        if precision is not None:
            np.set_printoptions(precision=precision)
        try:
            return fn(w)
        finally:
            np.set_printoptions(precision=8)
    return step


@stateful("state", [_po(np.array([1 / 3, 2 / 3])), _po(np.array([1 / 3, 2 / 3]), 2), _po(np.array([1 / 3, 2 / 3]))])
def make_print_options_changed_between_calls():
    return report_weights, None


def scale_with_default(x, factor=2.0):
    return x * factor


def _sd(x, defaults=None):
    def step(fn, _):
        if defaults is not None:
            scale_with_default.__defaults__ = defaults
        return fn(x)
    return step


@stateful("state", [_sd(jnp.ones(2)), _sd(jnp.ones(2), (5.0,)), _sd(jnp.ones(2))])
def make_defaults_replaced_between_calls():
    scale_with_default.__defaults__ = (2.0,)
    return scale_with_default, None


def weighted(xs, ws):
    total = 0.0
    for x, w in zip(xs, ws):
        total = total + w * x
    return total


def _wt(change=None):
    def step(fn, world):
        xs, ws = world
        if change:
            change(xs, ws)
        return fn(xs, ws)
    return step


def _edit_lists(xs, ws):
    ws[1] = 10.0
    xs[0] = xs[0] * 3


def _grow_lists(xs, ws):
    xs.append(jnp.array([1.0, 1.0]))
    ws.append(0.5)


@stateful("state", [_wt(), _wt(_edit_lists), _wt(_grow_lists), _wt()])
def make_argument_lists_edited_by_caller():
    xs = [jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])]
    ws = [0.5, 0.25]
    return weighted, (xs, ws)
