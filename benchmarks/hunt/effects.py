"""Exceptions and printed output: which statement raised and what ran before
it (prints, appends, attribute writes), messages made from traced values,
try/except/else/finally ordering, with-blocks, generators, printing arrays and
NumPy scalars with format specs."""

from __future__ import annotations

import contextlib

import jax.numpy as jnp
import numpy as np

from .registry import program, stateful


@program("effects", (jnp.array([0.5, 1.0, 2.0]), []), (jnp.array([0.5, 9.0, 2.0]), ["old"]),
         (jnp.array([-1.0]), []))
def validate_then_log(x, log):
    log.append("start")
    if x.min() < 0:
        raise ValueError(f"negative input: min={float(x.min()):.3f}")
    for i, v in enumerate(x):
        if v > 5:
            log.append(f"clip {i}")
            raise OverflowError(f"value {float(v)} at {i} exceeds 5")
        log.append(i)
    return x.sum(), log


@program("effects", (jnp.array([1.0, 2.0]),), (jnp.array([0.0, 2.0]),), (jnp.array([3.0, 0.0]),))
def finally_return_overrides(x):
    events = []
    try:
        events.append("try")
        if x[0] == 0:
            raise ZeroDivisionError("first is zero")
        r = x[1] / x[0]
        if r == 0:
            return "zero", events
    except ZeroDivisionError as e:
        events.append(str(e))
        return "handled", events
    finally:
        events.append("finally")
        if x[1] == 0:
            return "finally wins", events
    return r, events


@program("effects", (jnp.array([1.0, 0.5, 0.25]),), (jnp.array([2.0, 1.0]),))
def training_log_prints(x):
    loss = jnp.float32(10.0)
    for step in range(3):
        loss = loss * x[step % x.shape[0]]
        print(f"step {step:02d}: loss={float(loss):.4f} {'down' if loss < 5 else 'up'}")
    print("final", loss)
    print("as array", x)
    print(f"{loss!r:>8}")
    return loss


@program("effects", (np.array([0.5, 1.25]),), (np.array([1e-8, 123456.789]),))
def print_numpy_scalars_and_arrays(x):
    s = x.sum()
    print(s, repr(s), f"{s:.2e}", f"{s:g}", str(x[0]))
    print(x, x.dtype, x.shape)
    print("mean={:.3f} max={}".format(x.mean(), x.max()))
    i = np.int64(len(x))
    print(i, repr(i), f"{i:04d}", i / 2)
    return s


def batches(x, size):
    for start in range(0, x.shape[0], size):
        yield start, x[start:start + size]


@program("effects", (jnp.arange(10.0), 3), (jnp.arange(4.0) - 2, 2), (jnp.arange(5.0), 10))
def generator_batches_early_break(x, size):
    total = 0.0
    seen = []
    for start, b in batches(x, size):
        seen.append(start)
        if b.sum() > 10:
            break
        total = total + b.sum()
    else:
        seen.append("exhausted")
    return total, seen


class Timer:
    def __init__(self, name, log):
        self.name, self.log = name, log

    def __enter__(self):
        self.log.append(f"enter {self.name}")
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append(f"exit {self.name} {exc_type.__name__ if exc_type else None}")
        return exc_type is KeyError


@program("effects", (jnp.array([1.0, 2.0]), "a"), (jnp.array([1.0, 2.0]), "b"), (jnp.array([-1.0, 2.0]), "a"))
def with_block_suppresses_keyerror(x, key):
    log = []
    table = {"a": 2.0}
    out = x
    with Timer("outer", log):
        out = out * 2
        with Timer("inner", log):
            if x[0] < 0:
                log.append("negative")
                out = -out
            out = out * table[key]
        log.append("after inner")
    return out, log


@program("effects", (jnp.array([[1.0, 2.0], [3.0, 4.0]]), 3.0), (jnp.array([[1.0, 2.0], [3.0, 4.0]]), 50.0),
         (jnp.array([[9.0, 0.0]]), 1.0))
def nested_loop_raise_after_appends(M, limit):
    acc = []
    for i in range(M.shape[0]):
        for j in range(M.shape[1]):
            acc.append((i, j))
            if M[i, j] > limit:
                print("over at", i, j)
                raise RuntimeError(f"M[{i},{j}]={float(M[i, j])} > {limit}")
    return acc


@program("effects", (jnp.array([1.0, 2.0]),), (jnp.array([2.0, 1.0]),))
def assert_with_formatted_message(x):
    d = x[1] - x[0]
    assert d > 0, f"not increasing: {x[0]:.1f} then {x[1]:.1f}"
    return d


@program("effects", (jnp.array([0.0, 2.0]),), (jnp.array([0.0, 1.0]),))
def keyerror_message_from_traced_key(x):
    names = {0: "zero", 1: "one"}
    k = int(x.sum())
    try:
        return names[k]
    except KeyError as e:
        return f"missing {e!r} {e.args}"


@program("effects", (jnp.array([1.0, -2.0, 3.0]),), (jnp.array([-1.0, -2.0]),))
def zero_division_from_count(x):
    n = int((x > 0).sum())
    total = float(jnp.where(x > 0, x, 0).sum())
    return total / n


@program("effects", (jnp.array([0.2, 0.9]),), (jnp.array([0.9, 5.0]),))
def index_error_from_traced_index(x):
    classes = ["cat", "dog", "bird"]
    out = []
    for v in x:
        out.append(classes[int(v * 3)])
    return out


@program("effects", (jnp.array([1.0, 2.0]),), (jnp.array([0.0, 2.0]),), (jnp.array([1.0, -1.0]),))
def try_except_else_finally_order(x):
    print("begin")
    try:
        inv = 1.0 / float(x[0])
    except ZeroDivisionError:
        print("except")
        inv = 0.0
    else:
        print("else", inv)
        if x[1] < 0:
            print("negative second")
            raise ValueError("second negative")
    finally:
        print("finally")
    print("end")
    return inv


@program("effects", (jnp.array([1.0, 2.0]),), (jnp.array([jnp.nan, 2.0]),))
def raise_from_chain_message(x):
    try:
        try:
            if jnp.isnan(x).any():
                raise FloatingPointError("nan in input")
            return float(x.sum())
        except FloatingPointError as inner:
            raise ValueError("bad batch") from inner
    except ValueError as e:
        return f"{e} <- {e.__cause__!r}"


def take_positive(x):
    for v in x:
        if v > 0:
            yield v


@program("effects", (jnp.array([-1.0, 2.0, 3.0]),), (jnp.array([-1.0, -2.0]),))
def next_with_default_on_generator(x):
    g = take_positive(x)
    first = next(g, None)
    second = next(g, -1.0)
    rest = list(g)
    return first, second, len(rest)


class Stepper:
    def __init__(self):
        self.steps = 0
        self.last = None

    def __call__(self, x):
        self.steps += 1
        if x.max() > 10:
            raise ValueError(f"diverged at step {self.steps}")
        self.last = x.max()
        return x * 2


def _sp(x):
    def step(fn, obj):
        return fn(x), obj.steps, obj.last
    return step


@stateful("effects", [_sp(jnp.array([1.0, 2.0])), _sp(jnp.array([20.0, 2.0])), _sp(jnp.array([3.0, 2.0])),
                      _sp(jnp.array([30.0]))])
def make_attribute_write_before_raise():
    s = Stepper()
    return s.__call__, s


@program("effects", (jnp.array([3.0, 4.0]),), (jnp.array([-3.0, 4.0]),))
def suppress_and_redirect(x):
    import io
    buf = io.StringIO()
    out = None
    with contextlib.suppress(ValueError):
        with contextlib.redirect_stdout(buf):
            print("norm", float(jnp.linalg.norm(x)))
            if x[0] < 0:
                raise ValueError("neg")
        out = jnp.linalg.norm(x)
    return out, buf.getvalue()


@program("effects", (jnp.array([1.0, 2.0, 3.0]),), (jnp.array([4.0, -5.0]),))
def exception_args_and_type_returned(x):
    results = []
    for v in x:
        try:
            if v < 0:
                raise ArithmeticError("neg", float(v))
            results.append(float(jnp.sqrt(v)))
        except ArithmeticError as e:
            results.append((type(e).__name__, e.args))
    return results


def read_records(x):
    print("open")
    try:
        for i in range(x.shape[0]):
            yield i, x[i]
    finally:
        print("close")


@program("effects", (jnp.array([0.5, 2.0, 3.0]),), (jnp.array([1.0]),))
def peek_first_record_then_drop_reader(x):
    reader = read_records(x)
    i, v = next(reader)
    print("first record", i)
    return v * 2
