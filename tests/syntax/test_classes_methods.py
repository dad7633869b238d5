"""Classes and methods: model objects with `__call__`, methods, properties,
static and class methods, inheritance with `super()`, operator overloading,
attribute reads and writes, and a class statement inside a converted function."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check

from .common import NEG, SIGN_IDS, SIGNS, X, codes, modes_of
from .coverage import covers


def _same_state(a, b) -> bool:
    if type(a) is not type(b) or vars(a).keys() != vars(b).keys():
        return False
    return all(np.allclose(np.asarray(u), np.asarray(v)) if isinstance(u, (jax.Array, np.ndarray, float, int))
               else u == v for u, v in zip(vars(a).values(), vars(b).values()))


class Module:
    """Compared by state, so ``check`` can compare arguments after the call."""

    def __eq__(self, other):
        return _same_state(self, other)

    __hash__ = None


class Linear(Module):
    def __init__(self, w, b, activation="relu"):
        self.w, self.b, self.activation = w, b, activation

    @property
    def out_features(self):
        return self.w.shape[0]

    @staticmethod
    def act(x, name):
        return jax.nn.relu(x) if name == "relu" else jnp.tanh(x)

    @classmethod
    def identity(cls, n):
        return cls(jnp.eye(n), jnp.zeros(n))

    def __call__(self, x):
        return self.act(self.w @ x + self.b, self.activation)


class Residual(Linear):
    def __call__(self, x):
        y = super(Residual, self).__call__(x)
        if y.shape == x.shape:
            y = y + x
        return y


class ZeroArgSuper(Linear):
    def __call__(self, x):
        return super().__call__(x) + x


class Stack(Module):
    def __init__(self, layers):
        self.layers = layers

    def __len__(self):
        return len(self.layers)

    def __getitem__(self, i):
        return self.layers[i]

    def __call__(self, x):
        for k in range(len(self)):
            x = self[k](x)
        return x, self[0].out_features


MODEL = Stack([Linear(jnp.eye(3) * 2, jnp.ones(3)), Residual(jnp.ones((3, 3)) / 3, -jnp.ones(3), "tanh")])


@covers("ClassDef", "one graph", "module-level model classes: `__call__`, property, staticmethod, inheritance, "
        "`super(Cls, self)`, `__len__`/`__getitem__` (to_static(model))")
@covers("Attribute", "trace time", "`self.layers`, `self.w.shape[0]`, a property, a static config string")
def test_model_object_one_graph():
    check(MODEL, X, graphs=1)


SUPER_LAYER = ZeroArgSuper(jnp.eye(3), jnp.zeros(3), "tanh")


def calls_zero_arg_super(x):
    return SUPER_LAYER(x) * 2


@covers("Call", "one graph", "zero-argument `super()` in a method reached from the converted function "
        "(`super(__class__, self)` from the method's `__class__` cell)")
def test_zero_arg_super_in_callee():
    check(calls_zero_arg_super, X, graphs=1)


@covers("Call", "one graph", "zero-argument `super()` in the converted method itself (`to_static(layer)`)")
def test_zero_arg_super_in_converted_method():
    check(SUPER_LAYER, X, graphs=1)


def uses_classmethod(x):
    return Linear.identity(3)(x)


@covers("ClassDef", "one graph", "an object constructed inside the converted function (classmethod factory): "
        "the user's `__init__` converted, also with traced arguments")
def test_object_built_inside_is_one_graph():
    check(uses_classmethod, X, graphs=1)


class Vec(Module):
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return Vec(self.v + other.v)

    def __mul__(self, k):
        return Vec(self.v * k)

    def norm(self):
        return jnp.sqrt((self.v ** 2).sum())


def vector_ops(a, b):
    c = a + b * 2.0
    return c.v, c.norm()


@covers("BinOp", "one graph", "`+`/`*` overloaded by a user class (`__add__`, `__mul__` build new objects)")
def test_operator_overloading_one_graph():
    check(vector_ops, Vec(X), Vec(NEG), graphs=1)


class Rows:
    def __init__(self, m):
        self.m = m

    def __getitem__(self, i):
        return self.m[i] * 2

    def __len__(self):
        return self.m.shape[0]

    def __add__(self, other):
        return Rows(self.m + (other.m if isinstance(other, Rows) else other))

    def __radd__(self, other):
        return Rows(other + self.m)


def rows_protocols(x):
    r = Rows(jnp.stack([x, x + 1]))
    total = sum([r, r])
    return [r[i] for i in range(len(r))], total.m


@covers("Subscript", "one graph", "`obj[i]`, `len(obj)`, `sum(objs)` of user objects holding traced arrays "
        "(`__getitem__`, `__len__`, `__add__`/`__radd__` converted as methods)")
def test_user_sequence_protocols_one_graph():
    check(rows_protocols, X, full_graph=True)


class Counter(Module):
    def __init__(self):
        self.calls = 0
        self.last = jnp.zeros(3)

    def step(self, x):
        self.calls += 1
        self.last = x * self.calls
        return self.last.sum()


def stateful(x, counter):
    return counter.step(x) + counter.step(x)


@covers("Attribute", "one graph", "`self.calls += 1`, `self.last = x` on an argument object (lifted out of the graph)")
def test_attribute_writes_lifted():
    check(stateful, X, Counter(), graphs=1)


def store_under_traced_if(x, counter):
    if x.sum() > 0:
        counter.last = x
    return x * 2


@covers("Attribute", "one graph", "`obj.attr = v` under a traced `if`: joined like a variable, written back after "
        "the call")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_attribute_store_under_traced_if(x):
    check(store_under_traced_if, x, Counter(), graphs=1)


def class_inside(x):
    class Scale:
        factor = 3.0

        def apply(self, v):
            return v * self.factor

    return Scale().apply(x)


@covers("ClassDef", "trace time", "a `class` statement inside the converted function (methods and constants): "
        "made while tracing, a new class per trace; it never leaves the graph")
def test_class_statement_inside_is_made_at_trace_time():
    e = check(class_inside, X, graphs=1)
    assert modes_of(e, "classdef") == ["trace time"]


def class_inside_escapes(x):
    class Scale:
        def __init__(self, v):
            self.v = v

    return Scale(x)


@covers("ClassDef", "interpreted", "a class defined in the function whose instance is returned", code="A2G007",
        caveat="eager makes a new class per call: the class statement runs in Python")
def test_class_statement_inside_escaping_runs_in_python():
    f = to_static(class_inside_escapes)
    a, b = f(X), f(X)
    assert type(a) is not type(b) and type(a).__qualname__ == "class_inside_escapes.<locals>.Scale"
    np.testing.assert_array_equal(a.v, X)
    assert codes(explain(f)(X)) == ["A2G007"]


class Model(Module):
    def __init__(self):
        self.w = jnp.eye(3) * 0.5
        self.training = True

    def __call__(self, x):
        if self.training:
            x = x * 0.9
        h = x @ self.w
        if h.sum() > 0:
            h = jnp.tanh(h)
        return h


@covers("Attribute", "pruned", "`if self.training:` on a static attribute; weights read as graph inputs")
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_method_with_static_attribute(x, training):
    m = Model()
    m.training = training
    e = check(m, x, graphs=1)
    assert modes_of(e, "if")[0] == "pruned" and modes_of(e, "if")[-1] == "lax.cond"
