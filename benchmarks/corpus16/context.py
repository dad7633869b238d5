"""Issue 16 part 5: context managers (user classes, @contextlib.contextmanager, library ones)."""

import contextlib

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

XA = jnp.array([0.5, -1.0, 2.0])
XB = jnp.array([-0.5, -1.0, -2.0])


class Scaled:
    def __init__(self, factor):
        self.factor = factor

    def __enter__(self):
        return self.factor

    def __exit__(self, exc_type, exc, tb):
        return False


@program("context", (XA, 2.0), (XB, 0.5))
def user_cm_value(x, k):
    with Scaled(k) as s:
        y = x * s
    return y


@contextlib.contextmanager
def named_scope(name):
    print(f"enter {name}")
    yield name.upper()
    print(f"exit {name}")


@program("context", (XA,), (XB,))
def contextmanager_scope_prints(x):
    with named_scope("encoder") as tag:
        h = jnp.tanh(x)
    return h, tag


@program("context", (XA,), (XB,))
def user_cm_around_traced_if(x):
    with Scaled(3.0) as s:
        if x.sum() > 0:
            y = x * s
        else:
            y = x / s
    return y


class IgnoreErrors:
    def __init__(self, *types):
        self.types = types
        self.caught = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, self.types):
            self.caught = str(exc)
            return True
        return False


@program("context", (XA, True), (XA, False))
def suppressing_cm(x, strict):
    y = x * 2
    with IgnoreErrors(ValueError) as guard:
        if strict:
            raise ValueError("strict mode: values clipped")
        y = y + 1
    return y, guard.caught


@program("context", (XA, 0.0), (XA, 2.0))
def contextlib_suppress(x, d):
    scale = 1.0
    with contextlib.suppress(ZeroDivisionError):
        scale = 1.0 / d
    return x * scale


@program("context", (np.array([1.0, 0.0, -1.0]),), (np.array([2.0, 4.0, 8.0]),))
def numpy_errstate(a):
    with np.errstate(divide="ignore", invalid="ignore"):
        r = 1.0 / a
    r[~np.isfinite(r)] = 0.0
    return r


class Timer:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("start")
        return self

    def __exit__(self, *exc):
        self.log.append("stop")
        return False


def _timed_forward(x, log):
    with Timer(log):
        y = jnp.sin(x) ** 2
    return y


def _log_step(x):
    return lambda f, log: (f(x, log), list(log))


@stateful("context", [_log_step(XA), _log_step(XB), lambda f, log: (log.clear(), f(XA, log), list(log))[1:]])
def make_timer_cm_state():
    return _timed_forward, []


@contextlib.contextmanager
def config(**overrides):
    cfg = {"scale": 1.0, "shift": 0.0}
    cfg.update(overrides)
    yield cfg


@program("context", (XA,), (XB,))
def nested_with_config(x):
    with config(scale=2.0) as c1, Scaled(0.5) as s:
        with config(shift=1.0) as c2:
            y = x * c1["scale"] * s + c2["shift"]
    return y


@contextlib.contextmanager
def restore_on_error(state):
    saved = dict(state)
    try:
        yield state
    except FloatingPointError:
        state.clear()
        state.update(saved)
        raise


@program("context", (XA, 10.0), (XA, 1.0))
def contextmanager_with_try(x, limit):
    state = {"w": x}
    try:
        with restore_on_error(state) as st:
            st["w"] = st["w"] * 4
            if limit < 5:
                raise FloatingPointError("overflow")
    except FloatingPointError:
        pass
    return state["w"]
