"""The warm-call fast path of one-graph functions (ast2graph/fastpath.py):
every way a warm call can differ from the call that compiled the graph
(shapes, dtypes, static arguments, guarded globals, arrays read from outside,
methods, run-time checks, outer transforms) gives eager's result."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import FullGraphError, explain, to_static
from tests.helpers import assert_same

X3 = jnp.arange(3.0)
X5 = jnp.arange(5.0) + 1


def scaled_sum(x, n):
    acc = x * 0
    for i in range(n):
        acc = acc + x * i
    return acc


def test_shapes_dtypes_and_static_arguments_change_between_warm_calls():
    f = to_static(scaled_sum, full_graph=True)
    calls = [(X3, 2), (X3, 2), (X5, 2), (X3, 2), (X5, 3), (jnp.arange(3), 2), (X3, True), (X3, np.int32(2)), (X5, 2)]
    for _ in range(3):
        for x, n in calls:
            assert_same(scaled_sum(x, n), f(x, n))
    assert f._state.fast_misses <= 3   # alternating shapes gives the fast path up rather than trace each call


FLAG = True
W = jnp.ones(3)


def reads_globals(x):
    acc = x * 0
    for i in range(W.shape[0]):   # unrolled by W's shape: a new shape must recompile
        acc = acc + W[i] * x
    if FLAG:
        return acc + 1
    return acc - 1


def test_guarded_global_and_replaced_weight_between_warm_calls():
    global FLAG, W
    f = to_static(reads_globals, full_graph=True)
    try:
        for flag, w in [(True, jnp.ones(3)), (True, jnp.ones(3)), (False, jnp.ones(3)),
                        (False, jnp.arange(5.0)), (False, jnp.arange(5.0)), (True, jnp.arange(4.0))]:
            FLAG, W = flag, w
            assert_same(reads_globals(X3), f(X3))
            assert_same(reads_globals(X3), f(X3))
    finally:
        FLAG, W = True, jnp.ones(3)


class Layer:
    def __init__(self, w, bias):
        self.w, self.bias = w, bias

    @to_static(full_graph=True)
    def __call__(self, x):
        y = x * self.w
        if self.bias:
            y = y + 1
        return y


def test_methods_of_two_instances_warm():
    a, b = Layer(jnp.ones(3) * 2, True), Layer(jnp.ones(3) * 3, False)
    for _ in range(3):
        for layer in (a, b):
            assert_same(Layer.__call__.__wrapped__(layer, X3), layer(X3))
    a.w = jnp.ones(3) * 5
    assert_same(Layer.__call__.__wrapped__(a, X3), a(X3))


def checked(x):
    assert jnp.all(x > 0), "inputs must be positive"
    return jnp.log(x)


def test_run_time_check_raises_on_a_warm_call():
    f = to_static(checked, full_graph=True)
    assert_same(checked(X5), f(X5))
    assert_same(checked(X5), f(X5))
    with pytest.raises(AssertionError, match="inputs must be positive"):
        checked(-X5)
    with pytest.raises(AssertionError, match="inputs must be positive"):
        f(-X5)
    assert_same(checked(X5), f(X5))


def poly(x):
    y = x
    if jnp.sum(y) < 100.0:
        y = y * 2
    return jnp.sum(y * x)


def test_outer_transforms_after_warm_calls_and_keyword_calls():
    f = to_static(poly, full_graph=True)
    assert_same(poly(X5), f(X5))
    assert_same(poly(X5), f(X5))
    assert_same(poly(x=X5), f(x=X5))
    assert_same(jax.grad(poly)(X5), jax.grad(f)(X5))
    rows = [X5, X5 * 30]   # the two branches (eager cannot be vmapped: it runs row by row)
    assert_same(jnp.stack([poly(r) for r in rows]), jax.vmap(f)(jnp.stack(rows)))
    assert_same(poly(X5), jax.jit(f)(X5))
    assert_same(poly(np.asarray(X5)), f(np.asarray(X5)))
    e = explain(f)(X5)   # explain after warm calls still sees the graph
    assert e.graph_count == 1
    assert_same(poly(X5), f(X5))


def fresh_buffer(x):
    out = np.zeros(3, dtype=np.float32)
    return out, x + 1


def test_numpy_array_made_by_the_trace_is_new_per_call():
    f = to_static(fresh_buffer, full_graph=True)
    first, _ = f(X3)
    first[0] = 7.0   # the caller writes into the array it got
    second = f(X3)
    assert_same(fresh_buffer(X3), second)
    assert second[0] is not first


def counted(a, tol=1e-3, max_iter=50):
    x = jnp.where(a > 1.0, a / 2.0, 1.0)
    it = 0
    while jnp.max(jnp.abs(x * x - a)) > tol and it < max_iter:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it, np.zeros(2), np.sum(np.ones(3))


def test_defaults_and_outputs_of_eager_kinds_on_warm_calls():
    f = to_static(counted, full_graph=True)
    for args in [(X5,), (X5,), (X5, 1e-2), (X5,), (X3 + 2, 1e-3, 3), (X5 * 100,), (X5 * 100,)]:
        want, got = counted(*args), f(*args)
        assert_same(want, got)
        assert type(got[1]) is int and type(got[2]) is np.ndarray and type(got[3]) is type(want[3])
    assert f._state.fast is not None   # defaults and converted outputs keep the fast path


SETTINGS = {"scale": 2.0, "weights": jnp.ones(3)}


class Block:
    """Weights and flags read from attributes, a dict, a global, a closure
    cell and a bound method: every kind of value the warm call re-reads."""

    def __init__(self):
        self.w = jnp.ones(3)
        self.use_bias = True
        self.count = 0

    def act(self, y):
        return jnp.tanh(y)

    def make(self):
        offset = jnp.full(3, 0.5)

        def run(x):
            y = x * self.w * SETTINGS["scale"] + SETTINGS["weights"] + offset
            if self.use_bias:
                y = y + self.count   # an int that keeps changing: traced, guarded on its type
            return self.act(y)

        return run, lambda v: run.__closure__[0].__setattr__("cell_contents", v)


def test_every_outside_value_is_re_read_on_warm_calls():
    """Each change to a guarded or captured value between warm calls gives
    eager's result (eager runs a twin object changed the same way)."""
    eager_block, static_block = Block(), Block()
    eager_run, _ = eager_block.make()
    run, _ = static_block.make()
    f = to_static(run, full_graph=True)

    def both(change):
        for b in (eager_block, static_block):
            change(b)
        assert_same(eager_run(X3), f(X3))
        assert_same(eager_run(X3), f(X3))
        assert f._state.fast is not None   # the second call took the fast path

    both(lambda b: None)
    both(lambda b: setattr(b, "w", jnp.arange(3.0)))                     # captured attribute
    both(lambda b: SETTINGS.__setitem__("scale", 3.0))                   # guarded item
    both(lambda b: SETTINGS.__setitem__("weights", jnp.full(3, 7.0)))    # captured item
    both(lambda b: setattr(b, "act", lambda y: y * 10))                  # bound method replaced
    for count in range(1, 7):
        both(lambda b: setattr(b, "count", count))                       # a Python int, then traced
    assert f._state.traced_statics   # the count is now a traced input guarded on its type
    both(lambda b: setattr(b, "count", 2.5))                             # its type changes
    both(lambda b: setattr(b, "use_bias", False))                        # guarded attribute
    try:
        both(lambda b: SETTINGS.pop("scale"))                            # a value that vanished
    except KeyError:
        pass
    else:
        raise AssertionError("eager raises KeyError")
    with pytest.raises(FullGraphError, match="KeyError: 'scale'"):   # the general path decides
        f(X3)
    SETTINGS["scale"] = 2.0
    both(lambda b: None)


def test_closure_cell_and_global_re_read_on_warm_calls():
    global FLAG
    offset = jnp.ones(3)
    k = 2

    def g(x):
        if FLAG:
            return x * k + offset
        return x - offset

    f = to_static(g, full_graph=True)
    try:
        for flag, new_offset, new_k in [(True, offset, 2), (True, offset * 3, 2), (True, offset * 3, 5),
                                        (False, offset, 5), (True, jnp.arange(3.0), 2)]:
            FLAG, offset, k = flag, new_offset, new_k
            assert_same(g(X3), f(X3))
            assert_same(g(X3), f(X3))
            assert f._state.fast is not None
    finally:
        FLAG = True


class _Momentum:
    def __init__(self, lr=0.1, beta=0.9):
        self.lr, self.beta = lr, beta
        self.v = None

    def step(self, w, g):
        if self.v is None:
            self.v = jnp.zeros_like(g)
        self.v = self.beta * self.v + g
        return w - self.lr * self.v


class _Cfg:
    def __init__(self, scale):
        self.scale = scale


def _scaled(x, cfg=_Cfg(2.0)):
    return x * cfg.scale


def test_bound_self_and_default_objects_keyed_on_warm_calls():
    """``self`` of a bound method (and a default or partial-bound object) is
    keyed by its attribute values: a warm call after ``self.v`` went from
    None to an array (by the function itself, then by the caller) must not
    reuse the graph specialised on ``self.v is None`` (found by the issue-16
    corpus: every warm call returned the first call's result)."""
    import functools
    eager, conv = _Momentum(), _Momentum()
    f = to_static(conv.step, full_graph=True)
    for k in range(4):
        if k == 2:
            eager.lr = conv.lr = 0.5
        if k == 3:
            eager.v = conv.v = None
        assert_same(eager.step(X3, X3 * (k + 1)), f(X3, X3 * (k + 1)))
        assert_same(eager.v, conv.v)
    g = to_static(_scaled, full_graph=True)
    cfg = _scaled.__defaults__[0]
    for s in (2.0, 3.0, 3.0):
        cfg.scale = s
        assert_same(_scaled(X3), g(X3))
    cfg.scale = 2.0
    c = _Cfg(1.0)
    h = to_static(functools.partial(_scaled, cfg=c), full_graph=True)
    for s in (1.0, 4.0, 4.0):
        c.scale = s
        assert_same(_scaled(X3, cfg=c), h(X3))


W_OR_NONE = jnp.ones(3)


def _weighted(x):
    if W_OR_NONE is None:
        return x
    return x * W_OR_NONE


def test_outside_array_replaced_by_none_or_numpy_between_warm_calls():
    """An array read from outside (a graph input re-read per call) that
    becomes None, a NumPy array or a Python number fails the plan (it raised
    JAX's "not a valid JAX type" on warm and explained calls)."""
    global W_OR_NONE
    f = to_static(_weighted, full_graph=True)
    try:
        for w in (jnp.ones(3), jnp.ones(3) * 2, None, None, np.ones(3) * 3, 2.0, jnp.ones(3)):
            W_OR_NONE = w
            assert_same(_weighted(X3), f(X3))
            assert_same(_weighted(X3), explain(f)(X3).result)
    finally:
        W_OR_NONE = jnp.ones(3)
