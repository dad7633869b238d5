"""Objects made in the function whose attributes are written under a traced
``if`` or in a rolled loop: a write into the instance's ``__dict__`` is joined
(carried) like a dict's items, whatever else the class defines (a property for
another attribute, a ``__repr__``, an ``__eq__``); a property or a custom
``__setattr__`` that takes the write itself runs as eager runs it."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check_calls


class Meter:
    def __init__(self):
        self.total = 0.0
        self.n = 0

    def update(self, v, k=1):
        self.total += float(v) * k
        self.n += k

    @property
    def avg(self):
        return self.total / max(self.n, 1)

    def __eq__(self, other):   # (a user __eq__: no bearing on where a write goes)
        return isinstance(other, Meter) and self.total == other.total


def meter_until_high(x):
    m = Meter()
    for row in x:
        m.update(row.mean())
        if m.avg > 1.0:
            print(f"avg high: {m.avg:.3f} after {m.n}")
            break
    return m.avg, m.n


def meter_in_a_branch(x):
    m = Meter()
    if x.sum() > 1:
        m.update(x.mean(), k=2)
        seen = m.avg   # the property reads the branch's own writes
    else:
        seen = -1.0
    return m.total, m.n, seen, m.avg


class Clamped:
    """``value`` is a property with a setter: ``c.value = v`` runs the setter."""

    def __init__(self):
        self._v = 0.0
        self.sets = 0

    @property
    def value(self):
        return self._v

    @value.setter
    def value(self, v):
        self.sets += 1
        self._v = min(v, 1.0)


def clamped_in_a_branch(x):
    c = Clamped()
    if x.sum() > 0:
        c.value = float(x.max())
    return c.value, c.sets


_ROWS = [(jnp.array([[0.5, 0.5], [3.0, 3.0], [0.1, 0.1]]),), (jnp.zeros((3, 2)),),
         (np.array([[2.0, 4.0], [0.0, 1.0], [5.0, 5.0]], np.float32),)]


def test_an_object_of_a_class_with_a_property_is_written_in_a_loop_with_a_traced_break():
    check_calls(meter_until_high, _ROWS)


@pytest.mark.parametrize("x", [jnp.array([1.0, 3.0]), jnp.array([-1.0, 0.5]), np.array([0.25, 2.0])])
def test_an_object_of_a_class_with_a_property_is_written_under_a_traced_if(x):
    check_calls(meter_in_a_branch, [(x,)])


def test_a_property_setter_under_a_traced_if_runs_as_eagers():
    check_calls(clamped_in_a_branch, [(jnp.array([0.5, 3.0]),), (jnp.array([-1.0, -2.0]),),
                                      (jnp.array([0.25, 0.5]),)], full_graph=False)


# ------------------------------------------------ a fresh config with a property, per call
import dataclasses   # noqa: E402

from helpers import check_sequence   # noqa: E402

SCALE = 2.0


@dataclasses.dataclass
class AttnConfig:
    d_model: int = 4
    n_heads: int = 2
    extra: list = dataclasses.field(default_factory=list)

    @property
    def head_dim(self):
        return self.d_model // self.n_heads

    @property
    def scaled(self):   # reads a module global and a list the object holds
        return SCALE * (len(self.extra) + 1)


def split_heads(x, cfg):
    return x.reshape(-1, cfg.head_dim).sum(0) * cfg.scaled


def test_a_fresh_equal_config_with_properties_reuses_the_graph_and_a_changed_one_does_not():
    """Its class's properties are functions of its state: a config built per
    call with the same values is the same key (no recompile); a changed
    attribute, a list it holds appended to, a global its property reads
    reassigned are each seen."""
    global SCALE

    def make():
        global SCALE
        SCALE = 2.0
        return split_heads, {"x": jnp.arange(8.0)}

    def call(**kw):
        def step(fn, world):
            global SCALE
            args = dict(kw)
            if "scale" in args:
                SCALE = args.pop("scale")
            return fn(world["x"], AttnConfig(**{**args, "extra": list(args.get("extra", []))}))
        return step

    def appended(fn, world):   # the same object, its list appended to between calls
        cfg = world.setdefault("cfg", AttnConfig())
        out = fn(world["x"], cfg)
        cfg.extra.append(1)
        return out, fn(world["x"], cfg)

    static = check_sequence(make, [call(), call(), call(), call(n_heads=4), call(extra=[1, 2]), call(scale=3.0),
                                   appended], recompiles=5)
    assert static.recompiles >= 4, static.recompile_reasons
    SCALE = 2.0


# ------------------------------------------------ classes made by a call in the function
def _made_by_type(x):
    o = type("O", (), {})()
    o.w = np.zeros(2)
    np.add(o.w, x, out=o.w)   # runs in Python (out= into an attribute's array)
    return o.w, type(o).__module__


def _namedtuple_made_here(x):
    import collections

    P = collections.namedtuple("P", "a b")
    p = P(x.sum(), 2)
    return p.a * p.b, type(p).__module__, P.__module__


def test_a_class_made_by_type_in_the_function_is_the_users_and_its_objects_are_new_per_call():
    """``type("O", (), {})`` and ``namedtuple`` take ``__module__`` from the
    calling frame: at trace time ast2graph's, which also made the object look
    like ast2graph's own, handed out as the same object on every call (a
    write into its array carried over to the next call)."""
    check_calls(_made_by_type, [(np.array([1.0, 2.0]),), (np.array([-1.0, 2.0]),), (np.array([5.0, 5.0]),)],
                full_graph=False)
    check_calls(_namedtuple_made_here, [(jnp.array([1.0, 2.0]),), (jnp.array([3.0, -2.0]),)], full_graph=False)
