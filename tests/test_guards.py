"""Guards: every call equals eager, whatever the caller changed since the
last one (issue 14, observations 1, 2 and 12).

Each test runs a sequence of calls with the caller's state changed between
them, eagerly and converted, and compares every call (``check_sequence``).
"""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static
from fixtures import statemod
from helpers import check_sequence

X = jnp.arange(1.0, 4.0)

SCALES = [1.0, 2.0]
H: list = []
NESTED = {"a": [1.0, [2.0, 3.0]]}
ARRS = [np.ones(3)]


def test_global_list_append_and_setitem():
    def make():
        global SCALES
        SCALES = [1.0, 2.0]

        def f(x):
            for s in SCALES:
                x = x * s
            return x
        return f, None

    def append(f, _):
        SCALES.append(10.0)
        return f(X)

    def setitem(f, _):
        SCALES[0] = 3.0
        return f(X)

    def rebind(f, _):
        global SCALES
        SCALES = [0.5]
        return f(X)

    check_sequence(make, [lambda f, _: f(X), append, setitem, lambda f, _: f(X), rebind])


def test_nested_containers_and_builtins_over_them():
    def make():
        global NESTED
        NESTED = {"a": [1.0, [2.0, 3.0]]}

        def f(x):
            inner = NESTED["a"][1]
            return x * sum(inner) + len(NESTED["a"]) + max(inner), str(NESTED)
        return f, None

    def grow(f, _):
        NESTED["a"][1].append(4.0)
        return f(X)

    def new_key(f, _):
        NESTED["b"] = 1
        return f(X)

    check_sequence(make, [lambda f, _: f(X), grow, new_key, lambda f, _: f(X)], recompiles=2)


def test_history_list_read_at_trace_time():
    def make():
        global H
        H = []

        def step(x):
            lr = 0.1
            if len(H) >= 2 and H[-1] >= H[-2]:
                lr = 0.01
            return x * lr
        return step, None

    def call(v):
        def run(f, _):
            out = f(X)
            H.append(v)
            return out
        return run

    check_sequence(make, [call(v) for v in [3.0, 2.0, 2.5, 2.6, 1.0]])


class Model:
    def __init__(self):
        self.layers = [Layer(1.0), Layer(2.0)]
        self.cfg = {"scales": [1.0, 2.0], "act": "tanh"}

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        for s in self.cfg["scales"]:
            x = x + s
        if self.cfg["act"] == "tanh":
            x = jnp.tanh(x)
        return x


class Layer:
    def __init__(self, w):
        self.w = jnp.full(3, w)

    def __call__(self, x):
        return x * self.w


def test_model_layers_and_nested_config_mutated():
    def make():
        m = Model()
        return m.__call__, m

    def add_layer(f, m):
        m.layers.append(Layer(0.5))
        return f(X)

    def pop_layer(f, m):
        m.layers.pop(0)
        return f(X)

    def grow_cfg(f, m):
        m.cfg["scales"].append(3.0)
        return f(X)

    def switch(f, m):
        m.cfg["act"] = "none"
        return f(X)

    def new_weight(f, m):
        m.layers[0].w = jnp.full(3, 7.0)
        return f(X)

    check_sequence(make, [lambda f, m: f(X), add_layer, pop_layer, grow_cfg, switch, new_weight, lambda f, m: f(X)])


def test_closure_list_extended():
    def make():
        taps = [1.0]

        def f(x):
            for t in taps:
                x = x * t
            return x
        return f, taps

    def extend(f, taps):
        taps.extend([2.0, 3.0])
        return f(X)

    check_sequence(make, [lambda f, t: f(X), extend, lambda f, t: f(X)])


def test_numpy_array_in_a_global_list_written_in_place():
    def make():
        global ARRS
        ARRS = [np.ones(3)]

        def f(x):
            for a in ARRS:
                x = x + a.sum()
            return x
        return f, None

    def write(f, _):
        ARRS[0][1] = 5.0
        return f(X)

    check_sequence(make, [lambda f, _: f(X), write, lambda f, _: f(X)], full_graph=True)


def test_module_attributes_reassigned():
    def make():
        statemod.reset()

        def f(x):
            return statemod.helper(x * statemod.SCALE) + statemod.W + statemod.TABLE["shift"][1]
        return f, None

    def scale(f, _):
        statemod.SCALE = 10.0
        return f(X)

    def weight(f, _):
        statemod.W = jnp.full(3, 5.0)
        return f(X)

    def patch(f, _):
        statemod.helper = lambda x: x - 100.0
        return f(X)

    def table(f, _):
        statemod.TABLE["shift"][1] = -1.0
        return f(X)

    try:
        check_sequence(make, [lambda f, _: f(X), scale, weight, patch, table, lambda f, _: f(X)])
    finally:
        statemod.reset()


def test_closure_passed_to_jax_reads_globals_per_call():
    def make():
        global SCALES
        statemod.reset()
        SCALES = [1.0, 2.0]

        def f(x):
            def step(c, _):
                return c * statemod.SCALE + SCALES[0], None
            return jax.lax.scan(step, x, None, length=3)[0]
        return f, None

    def scale(f, _):
        statemod.SCALE = 0.5
        SCALES[0] = 4.0
        return f(X)

    try:
        check_sequence(make, [lambda f, _: f(X), scale, lambda f, _: f(X)])
    finally:
        statemod.reset()


# ------------------------------------------------------------- fresh configs
@dataclasses.dataclass
class Config:
    scale: float = 2.0
    n: int = 3
    tags: list = dataclasses.field(default_factory=lambda: ["a"])


class Plain:
    def __init__(self, scale=2.0):
        self.scale = scale
        self.sub = SubConfig()


class SubConfig:
    depth = 2          # a class attribute: not part of an instance's state

    def __init__(self):
        self.bias = 0.5


def test_fresh_equal_config_reuses_the_graph():
    def make():
        def f(x, cfg):
            for _ in range(cfg.n):
                x = x * cfg.scale
            return x + len(cfg.tags)
        return f, None

    steps = [lambda f, _: f(X, Config()) for _ in range(6)]
    check_sequence(make, steps, recompiles=0)


def test_fresh_config_with_other_values_and_in_place_change():
    def make():
        cfg = Config()

        def f(x, c):
            return x * c.scale + c.n + len(c.tags)
        return f, cfg

    def mutate(f, cfg):
        cfg.scale = 5.0
        cfg.tags.append("b")
        return f(X, cfg)

    check_sequence(make, [lambda f, c: f(X, c), lambda f, c: f(X, Config(scale=3.0)), mutate,
                          lambda f, c: f(X, Config())], recompiles=3)


def test_fresh_plain_objects_nested_and_class_attributes():
    def make():
        SubConfig.depth = 2

        def f(x, cfg):
            return x * cfg.scale + cfg.sub.bias * cfg.sub.depth
        return f, None

    def class_attr(f, _):
        SubConfig.depth = 3
        return f(X, Plain())

    try:
        check_sequence(make, [lambda f, _: f(X, Plain()), lambda f, _: f(X, Plain()), class_attr,
                              lambda f, _: f(X, Plain(1.5))], recompiles=2)
    finally:
        SubConfig.depth = 2


def test_returned_and_written_config_is_the_callers_object():
    def make():
        def f(x, cfg):
            cfg.calls = getattr(cfg, "calls", 0) + 1
            return x * cfg.scale, cfg
        return f, None

    def call(f, _):
        cfg = Plain()
        y, back = f(X, cfg)
        return y, back is cfg, cfg.calls

    check_sequence(make, [call, call, call], full_graph=False)


DEFAULT = Plain()


def test_identity_of_a_config_is_kept():
    def make():
        def f(x, cfg):
            if cfg is DEFAULT:
                return x * 0.0
            return x * cfg.scale
        return f, None

    check_sequence(make, [lambda f, _: f(X, DEFAULT), lambda f, _: f(X, Plain()), lambda f, _: f(X, DEFAULT),
                          lambda f, _: f(X, Plain())])


def test_dict_of_the_enclosing_function_iterated():
    def make():
        d = {100: 0.5, 300: 0.2}

        def g(c):
            v = 1.0
            for t, s in d.items():
                v = v * jnp.where(c < t, 1.0, s)
            return v
        return g, d

    def change(g, d):
        d[200] = 0.1
        return g(jnp.asarray(250))

    check_sequence(make, [lambda g, d: g(jnp.asarray(v)) for v in [1, 5, 5, 5]], recompiles=0)
    check_sequence(make, [lambda g, d: g(jnp.asarray(1)), change, lambda g, d: g(jnp.asarray(400))])


@pytest.mark.parametrize("value", [float("nan"), -0.0])
def test_special_float_globals(value):
    def make():
        global EPS
        EPS = value

        def f(x):
            return x + EPS
        return f, None

    check_sequence(make, [lambda f, _: f(X)] * 3, recompiles=0)


EPS = 0.0


class Holder:
    """Holds an array: specialised on by identity."""

    def __init__(self):
        self.w = jnp.ones(3)


def test_recompiling_warns_once_naming_what_changes():
    import warnings

    from ast2graph import RecompileWarning

    def f(x, h):
        return x * h.w

    def make():
        return f, None

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        static = check_sequence(make, [lambda f, _: f(X, Holder()) for _ in range(10)])
    messages = [str(w.message) for w in caught if issubclass(w.category, RecompileWarning)]
    assert len(messages) == 1, messages
    assert "h: a different Holder object" in messages[0] and "f has recompiled 8 times" in messages[0]
    assert static.recompiles == 9


def test_recompile_reason_names_the_changed_state():
    def make():
        global SCALES
        SCALES = [1.0, 2.0]

        def f(x):
            return x * sum(SCALES)
        return f, None

    def grow(f, _):
        SCALES.append(3.0)
        return f(X)

    static = check_sequence(make, [lambda f, _: f(X), grow])
    assert static.recompile_reasons == [f"line {f_line(static)}: the contents of global SCALES changed"]


def f_line(static) -> int:
    return static._state.unit.tree.body[0].lineno


@pytest.mark.parametrize("name", ["piecewise", "exponential", "warmup_cosine"])
def test_optax_schedules_do_not_recompile(name):
    optax = pytest.importorskip("optax")
    make_schedule = {
        "piecewise": lambda: optax.piecewise_constant_schedule(0.1, {100: 0.5, 300: 0.2}),
        "exponential": lambda: optax.exponential_decay(0.1, 100, 0.5),
        # its inner schedule rebinds a nonlocal (int -> float) on its first call: one recompile
        "warmup_cosine": lambda: optax.warmup_cosine_decay_schedule(0.0, 1.0, 10, 100),
    }[name]

    def make():
        return make_schedule(), None

    steps = [lambda f, _, v=v: f(jnp.asarray(v)) for v in [1, 5, 5, 150, 400, 5, 7]]
    check_sequence(make, steps, recompiles=1 if name == "warmup_cosine" else 0)


class Later:
    def __init__(self):
        self.scale = 2.0


def test_class_that_gains_a_property_between_calls():
    def make():
        global SCALES
        SCALES = [1.0, 2.0]
        if "scale2" in Later.__dict__:
            del Later.scale2

        def f(x, obj):
            return x * obj.scale + getattr(obj, "scale2", 0.0)
        return f, None

    def add_property(f, _):
        Later.scale2 = property(lambda self: SCALES[0] * 10.0)
        return f(X, Later())

    def change_global(f, _):
        SCALES[0] = 7.0
        return f(X, Later())

    try:
        check_sequence(make, [lambda f, _: f(X, Later()), add_property, change_global, lambda f, _: f(X, Later())],
                       full_graph=False)
    finally:
        if "scale2" in Later.__dict__:
            del Later.scale2


def test_same_config_object_mutated_in_place_between_calls():
    def make():
        cfg = Config()

        def f(x, c):
            return x * c.scale + len(c.tags)
        return f, cfg

    def mutate(f, cfg):
        cfg.scale += 1.0
        cfg.tags.append("x")
        return f(X, cfg)

    check_sequence(make, [lambda f, c: f(X, c), lambda f, c: f(X, c), mutate, mutate, lambda f, c: f(X, c)])


class Counter:
    def __init__(self):
        self.calls = 0


def test_counter_attribute_of_a_plain_object_argument():
    def make():
        c = Counter()

        def f(x, counter):
            counter.calls += 1
            return x * 2.0 + counter.calls
        return f, c

    static = check_sequence(make, [lambda f, c: (f(X, c), c.calls)] * 10, full_graph=False)
    assert static.recompiles <= 6, static.recompile_reasons   # read traced once it took static_values values


# ------------------------------------------- attributes of a converted model, through the converted object
# ``f = to_static(model)`` is used as the model: ``f.cfg = ...``, ``f.training = False``, ``del f.cache``
# write the model's attributes, as eager's writes do, and reads see the model's current ones (a copy of its
# __dict__ taken at conversion went stale: the calls kept the first config, silently).
@dataclasses.dataclass
class _Cfg:
    scale: float = 2.0
    mode: str = "relu"
    clip: float | None = None


class _Net:
    def __init__(self):
        self.cfg = _Cfg()
        self.w = jnp.ones(3)
        self.training = True

    def __call__(self, x):
        y = x * self.w * self.cfg.scale
        y = jnp.maximum(y, 0) if self.cfg.mode == "relu" else jnp.tanh(y)
        if self.cfg.clip is not None:
            y = jnp.clip(y, -self.cfg.clip, self.cfg.clip)
        return y * 0.5 if self.training else y


def test_attributes_written_through_the_converted_model():
    def make():
        net = _Net()
        return net, None

    def set_(attr, value):
        def run(f, _):
            setattr(f, attr, value)
            return f(X), f.cfg, f.training
        return run

    def mode(f, _):
        f.cfg.mode = "tanh"
        return f(X)

    steps = [lambda f, _: f(X), mode, set_("cfg", _Cfg(scale=3.0, clip=1.5)), set_("training", False),
             set_("w", np.full(3, 2.0, np.float32)), lambda f, _: (f(X), f.w)]
    check_sequence(make, steps)


def test_model_attributes_set_on_the_model_are_read_through_the_converted_one():
    net = _Net()
    f = to_static(net, full_graph=True)
    f(X)
    net.cfg = _Cfg(mode="tanh")
    assert f.cfg is net.cfg and f.training is True
    assert np.allclose(f(X), net(X))
    f.extra = 1
    assert net.extra == 1
    del f.extra
    assert not hasattr(net, "extra")
    assert f.recompiles >= 1 and "recompiles" not in vars(net)   # the converted function's own stay its own
    from ast2graph import explain

    explain(f)(X)   # every internal field the calls and explain set (StaticFunction._OWN) stays on f
    assert set(vars(net)) == {"cfg", "w", "training"}, sorted(vars(net))


# ------------------------------------------------------------ code replaced in place
# IPython's autoreload applies an edited file by assigning each function's
# ``__code__`` (and a class's methods): the function object stays, so a guard on
# the name that reads it still holds; what the trace inlined must be re-checked.

def _doubled(x):
    return x * 2.0


def _shifted(x, k=1.0):
    return x + k


def test_code_of_the_converted_function_replaced_between_calls():
    def make():
        def f(x):
            return _doubled(x)
        return f, None

    def replace(f, _):
        getattr(f, "__wrapped__", f).__code__ = _shifted.__code__   # the converted one: the function it wraps
        return f(X)

    check_sequence(make, [lambda f, _: f(X), replace, lambda f, _: f(X)])


def test_code_of_a_helper_replaced_between_calls():
    def make():
        def helper(x):
            return x * 2.0

        def f(x):
            return helper(x) + 1.0
        return f, helper

    def replace(f, helper):
        helper.__code__ = _shifted.__code__
        helper.__defaults__ = (5.0,)
        return f(X)

    def new_default(f, helper):
        helper.__defaults__ = (7.0,)
        return f(X)

    check_sequence(make, [lambda f, _: f(X), replace, new_default, lambda f, _: f(X)])


def test_method_code_and_model_call_replaced_between_calls():
    def make():
        class Model:
            def __init__(self):
                self.w = 2.0

            def __call__(self, x):
                return self.forward(x)

            def forward(self, x):
                return x * self.w

        class Other(Model):
            def __call__(self, x):
                return x - self.w
        return Model(), (Model, Other)

    def new_forward(model, classes):
        classes[0].forward.__code__ = (lambda self, x: x + self.w).__code__
        return model(X)

    def new_call(model, classes):
        classes[0].__call__ = lambda self, x: x / self.w
        return model(X)

    def new_class(model, classes):
        getattr(model, "__wrapped__", model).__class__ = classes[1]
        return model(X)

    check_sequence(make, [lambda m, _: m(X), new_forward, new_call, new_class, lambda m, _: m(X)])


def test_partial_keywords_changed_in_place_between_calls():
    import functools

    def make():
        p = functools.partial(_shifted, k=1.0)
        return p, p

    def rekey(p, world):
        world.keywords["k"] = 4.0
        return p(X)

    check_sequence(make, [lambda p, _: p(X), rekey, lambda p, _: p(X)])
