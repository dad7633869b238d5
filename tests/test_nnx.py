"""Flax NNX models decorated as they are (issue 14, observation 11).

Every test runs the same sequence of calls eagerly and converted, each from a
freshly built model with the same seeds (``check_sequence``), and compares
after every call the outputs AND the model's state: BatchNorm's running
statistics, ``nnx.Rngs`` counts and keys, custom counters in an
``nnx.Variable``. State written by library code (BatchNorm, Dropout's rng
stream) or by the converted code (``self.count[...] += 1``) comes out of the
graph and is set on the model after every call; state is read from the model
on every call (a weight changed between calls is seen); a changed structure
(``model.eval()``, a layer added) re-specialises.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

nnx = pytest.importorskip("flax.nnx")
# the NNX support walks graphs with flax.nnx.graphlib (flax >= 0.12.2; 0.12.0, the only flax
# pip gives the lowest declared JAX, lacks it: .ci/lowest-jax skips this file)
pytest.importorskip("flax.nnx.graphlib")

from ast2graph import explain, to_static  # noqa: E402
from helpers import assert_same, check_sequence  # noqa: E402

X = jnp.asarray(np.random.default_rng(0).normal(size=(4, 3)), jnp.float32)


def state_of(model):
    """The model's whole state as a plain dict of arrays (path -> value)."""
    flat = nnx.to_flat_state(nnx.state(model))
    return {"/".join(map(str, path)): np.asarray(jax.random.key_data(v.get_value())
                                                 if jnp.issubdtype(v.get_value().dtype, jax.dtypes.prng_key)
                                                 else v.get_value())
            for path, v in flat}


def call_and_state(*args):
    def step(fn, model):
        return fn(*args), state_of(model)
    return step


# ------------------------------------------------------------------ models
class MLP(nnx.Module):
    """Linear -> LayerNorm -> BatchNorm -> Dropout, and a call counter."""

    def __init__(self, rngs, rate=0.5):
        self.lin1 = nnx.Linear(3, 8, rngs=rngs)
        self.ln = nnx.LayerNorm(8, rngs=rngs)
        self.bn = nnx.BatchNorm(8, momentum=0.9, rngs=rngs)
        self.drop = nnx.Dropout(rate, rngs=rngs)
        self.lin2 = nnx.Linear(8, 2, rngs=rngs)
        self.count = nnx.Variable(jnp.array(0, jnp.int32))

    def __call__(self, x):
        self.count[...] += 1
        h = jax.nn.relu(self.ln(self.lin1(x)))
        h = self.drop(self.bn(h))
        return self.lin2(h)


def make_mlp(**kw):
    def make():
        model = MLP(nnx.Rngs(0, dropout=1), **kw)
        return model, model
    return make


def test_batchnorm_dropout_counter_train_mode_updates_state_every_call():
    """The observed bug: BatchNorm in training mode updated its running mean
    only in eager; Dropout with nnx.Rngs crashed on the key<fry> dtype."""
    static = check_sequence(make_mlp(), [call_and_state(X), call_and_state(X * 2), call_and_state(X - 1)],
                            recompiles=0)
    e = explain(static)(X)
    assert e.graph_count == 1 and not e.fallback_sites


def test_deterministic_dropout_and_running_average_arguments():
    class Net(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 4, rngs=rngs)
            self.bn = nnx.BatchNorm(4, rngs=rngs)
            self.drop = nnx.Dropout(0.3, rngs=rngs)

        def __call__(self, x, train):
            h = self.bn(self.lin(x), use_running_average=not train)
            return self.drop(h, deterministic=not train)

    def make():
        model = Net(nnx.Rngs(3))
        return model, model

    def step(train):
        return lambda fn, model: (fn(X, train), state_of(model))

    check_sequence(make, [step(True), step(False), step(True), step(False)])


def test_train_and_eval_modes_respecialise():
    """``model.eval()`` flips use_running_average and deterministic (static
    configuration inside the layers): the next call re-specialises and no
    longer updates the statistics nor advances the rng; ``model.train()``
    brings the first graph back."""
    def to_eval(fn, model):
        model.eval()
        return fn(X), state_of(model)

    def to_train(fn, model):
        model.train()
        return fn(X), state_of(model)

    static = check_sequence(make_mlp(), [call_and_state(X), to_eval, call_and_state(X + 1), to_train,
                                         call_and_state(X)])
    assert static.recompiles == 1   # eval compiled once; back in train mode the first graph's guards hold again


def test_state_is_read_every_call_never_baked():
    """Weights, statistics and rng keys changed from outside between calls
    are seen by the next call."""
    def change_weights(fn, model):
        model.lin1.kernel[...] = model.lin1.kernel[...] * 2
        model.bn.mean[...] = jnp.ones(8)
        return fn(X), state_of(model)

    def reseed(fn, model):
        model.drop.rngs.key[...] = jax.random.key(42)
        return fn(X), state_of(model)

    check_sequence(make_mlp(), [call_and_state(X), change_weights, reseed, call_and_state(X)], recompiles=0)


def test_layer_added_to_nnx_list_recompiles():
    class Stack(nnx.Module):
        def __init__(self, rngs):
            self.rngs = rngs
            self.layers = nnx.List([nnx.Linear(3, 3, rngs=rngs) for _ in range(2)])
            self.norms = nnx.List([nnx.BatchNorm(3, rngs=rngs) for _ in range(2)])

        def __call__(self, x):
            for layer, norm in zip(self.layers, self.norms):
                x = norm(jnp.tanh(layer(x)))
            return x

    def make():
        model = Stack(nnx.Rngs(1))
        return model, model

    def add_layer(fn, model):
        model.layers.append(nnx.Linear(3, 3, rngs=model.rngs))
        model.norms.append(nnx.BatchNorm(3, rngs=model.rngs))
        return fn(X), state_of(model)

    check_sequence(make, [call_and_state(X), call_and_state(X), add_layer, call_and_state(X)], recompiles=1)


def test_python_list_of_layers_and_static_loop():
    class Blocks(nnx.Module):
        def __init__(self, rngs, n=3):
            self.blocks = nnx.data([nnx.Linear(3, 3, rngs=rngs) for _ in range(n)])
            self.bn = nnx.BatchNorm(3, rngs=rngs)
            self.steps = nnx.Variable(jnp.array(0.0))

        def __call__(self, x):
            for i in range(2):
                for block in self.blocks:
                    x = x + jax.nn.gelu(block(x))
                    self.steps[...] += 0.5
            return self.bn(x)

    def make():
        model = Blocks(nnx.Rngs(2))
        return model, model

    check_sequence(make, [call_and_state(X), call_and_state(X * 0.5), call_and_state(X)], recompiles=0)


class Branchy(nnx.Module):
    """A traced branch choosing between stateful layers, and counters written
    in one branch only."""

    def __init__(self, rngs):
        self.up = nnx.Linear(3, 3, rngs=rngs)
        self.bn_pos = nnx.BatchNorm(3, rngs=rngs)
        self.bn_neg = nnx.BatchNorm(3, rngs=rngs)
        self.drop = nnx.Dropout(0.5, rngs=rngs)
        self.positive = nnx.Variable(jnp.array(0, jnp.int32))
        self.total = nnx.Variable(jnp.zeros(3))

    def __call__(self, x):
        h = self.up(x)
        if h.mean() > 0:
            h = self.bn_pos(h)
            self.positive[...] += 1
        else:
            h = self.drop(self.bn_neg(h))
        self.total[...] = self.total[...] + h.sum(axis=0)
        return h


def test_traced_branch_joins_state_written_in_either_branch():
    def make():
        model = Branchy(nnx.Rngs(5))
        return model, model

    steps = [call_and_state(X), call_and_state(-X - 3), call_and_state(X + 3), call_and_state(-X - 3)]
    static = check_sequence(make, steps, recompiles=0)
    e = explain(static)(X)
    assert e.graph_count == 1
    assert ("if", "lax.cond") in [(d.construct, d.mode) for d in e.decisions]


def test_rolled_loop_over_a_stateless_layer_and_unrolled_stateful_loop():
    class Loop(nnx.Module):
        def __init__(self, rngs):
            self.cell = nnx.Linear(3, 3, rngs=rngs)
            self.bn = nnx.BatchNorm(3, rngs=rngs)
            self.calls = nnx.Variable(jnp.array(0, jnp.int32))

        def __call__(self, x, n):
            for _ in range(n):               # n > unroll limit: rolled (fori_loop), Linear writes nothing
                x = jnp.tanh(self.cell(x))
            for _ in range(3):               # BatchNorm writes its statistics: unrolled
                x = self.bn(x)
            i = 0
            while x.std() > 0.5 and i < 4:   # traced condition, stateless body
                x = x * 0.5
                i += 1
            self.calls[...] += 1
            return x, i

    def make():
        model = Loop(nnx.Rngs(7))
        return model, model

    static = check_sequence(make, [call_and_state(X, 20), call_and_state(X * 3, 20), call_and_state(X, 20)],
                            recompiles=0)
    e = explain(static)(X, 20)
    modes = [(d.construct, d.mode) for d in e.decisions]
    assert ("for", "lax.fori_loop") in modes and ("while", "lax.while_loop") in modes


def test_state_written_in_rolled_loops_is_carried():
    """BatchNorm's statistics, a dropout stream, a counter and a cache
    written inside loops that roll (a long range: fori_loop; a traced
    condition: while_loop; an array's rows: scan) are carried by the loop."""
    class Deep(nnx.Module):
        def __init__(self, rngs):
            self.bn = nnx.BatchNorm(3, rngs=rngs)
            self.drop = nnx.Dropout(0.2, rngs=rngs)
            self.steps = nnx.Variable(jnp.array(0, jnp.int32))
            self.cache = nnx.Variable(jnp.zeros((20, 3)))

        def __call__(self, x, rows):
            for i in range(20):                     # above the unroll limit: lax.fori_loop
                x = self.bn(x) * 0.9
                self.cache[...] = self.cache[...].at[i].set(x[0])
            while jnp.abs(x).max() > 0.5:           # traced condition: lax.while_loop
                x = self.drop(x) * 0.5
                self.steps[...] += 1
            for row in rows:                        # 24 rows: lax.scan
                x = x + row
                self.steps[...] += 1
            return x

    def make():
        model = Deep(nnx.Rngs(0))
        return model, model

    rows = jnp.ones((24, 3)) * 0.01
    static = check_sequence(make, [call_and_state(X, rows), call_and_state(X + 1, rows), call_and_state(X, rows)],
                            recompiles=0)
    e = explain(static)(X, rows)
    modes = [(d.construct, d.mode) for d in e.decisions]
    assert e.graph_count == 1
    assert {("for", "lax.fori_loop"), ("while", "lax.while_loop"), ("for", "lax.scan")} <= set(modes)


def test_state_written_in_a_traced_branch_inside_a_rolled_loop():
    def make():
        model = Branchy(nnx.Rngs(5))

        def run(xs):
            total = jnp.zeros((4, 3))
            for x in xs:                # 18 batches: lax.scan, Branchy's traced if inside
                total = total + model(x)
            return total
        return run, model

    xs = jnp.stack([X * (-1) ** k + 0.1 * k for k in range(18)])
    check_sequence(make, [call_and_state(xs), call_and_state(-xs)], recompiles=0)


def test_model_as_argument_and_global_model():
    model_g = MLP(nnx.Rngs(0, dropout=1))

    def forward(model, x):
        return model(x) * 2

    def make_arg():
        model = MLP(nnx.Rngs(0, dropout=1))
        return (lambda x: forward(model, x)), model

    check_sequence(make_arg, [call_and_state(X), call_and_state(X)], recompiles=0)

    def make_global():
        fresh = MLP(nnx.Rngs(0, dropout=1))
        nnx.update(model_g, nnx.state(fresh))

        def run(x):
            return model_g(x) + 1
        return run, model_g

    check_sequence(make_global, [call_and_state(X), call_and_state(X * 2)], recompiles=0)

    def make_passed():
        model = MLP(nnx.Rngs(0, dropout=1))
        return forward, model

    def step(fn, model):
        return fn(model, X), state_of(model)

    check_sequence(make_passed, [step, step, step], recompiles=0)


def test_rngs_streams_and_value_accessors_in_converted_code():
    class Noisy(nnx.Module):
        def __init__(self, rngs):
            self.rngs = rngs
            self.scale = nnx.Param(jnp.full((3,), 0.5))
            self.seen = nnx.Variable(jnp.zeros(()))

        def __call__(self, x):
            noise = jax.random.normal(self.rngs.noise(), x.shape)
            self.seen.value = self.seen.value + x.mean()
            y = x * self.scale + noise * self.scale.get_value()
            y = y - self.scale.value.mean() + (-self.scale)
            return y, self.scale.shape, self.seen[...]

    def make():
        model = Noisy(nnx.Rngs(default=0, noise=1))
        return model, model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check_sequence(make, [call_and_state(X), call_and_state(X), call_and_state(X)], recompiles=0)


def test_same_seed_dropout_gives_eager_masks():
    """The same seeds give the same dropout masks, call after call (values
    within float tolerance: XLA fuses the graph's arithmetic)."""
    class Drop(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 16, rngs=rngs)
            self.drop = nnx.Dropout(0.7, rngs=rngs)

        def __call__(self, x):
            return self.drop(self.lin(x))

    def make():
        model = Drop(nnx.Rngs(0, dropout=11))
        return model, model

    def step(fn, model):
        y = fn(X)
        return y, np.asarray(y) == 0, state_of(model)

    check_sequence(make, [step] * 4)


def test_module_made_inside_the_function_each_call():
    """An nnx.Rngs and a layer built inside the function are built anew by
    every eager call: so they are in the converted one (not a trace-time object)."""
    def fresh(x, seed):
        rngs = nnx.Rngs(seed)
        layer = nnx.Linear(3, 2, rngs=rngs)
        return layer(x) + jax.random.uniform(rngs(), (2,))

    def make():
        return fresh, None

    step = lambda fn, _: fn(X, 3)   # noqa: E731
    check_sequence(make, [step, step])


def test_eager_errors_are_kept():
    """``self.count += 1`` on a Variable raises NotImplementedError in flax;
    the converted call raises it too (the statement runs in Python)."""
    class Bad(nnx.Module):
        def __init__(self):
            self.count = nnx.Variable(jnp.array(0))

        def __call__(self, x):
            self.count += 1
            return x

    def make():
        model = Bad()
        return model, model

    check_sequence(make, [call_and_state(X)], full_graph=False)


def test_plain_array_attribute_written_by_converted_code():
    class Cache(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 3, rngs=rngs)
            self.last = jnp.zeros((4, 3))

        def __call__(self, x):
            y = self.lin(x) + self.last
            self.last = y
            return y

    def make():
        model = Cache(nnx.Rngs(0))
        return model, model

    def step(fn, model):
        return fn(X), np.asarray(model.last)

    check_sequence(make, [step, step, step], recompiles=0)


def test_no_flax_import_by_ast2graph():
    """ast2graph recognises NNX objects structurally: importing it does not import flax."""
    import subprocess
    import sys

    code = "import sys, ast2graph; print('flax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_output_same_object():
    """A module returned by the converted function is the model's own object."""
    class Holder(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 3, rngs=rngs)

        def __call__(self, x):
            return self.lin(x), self.lin

    model = Holder(nnx.Rngs(0))
    out, lin = to_static(model, full_graph=True)(X)
    assert lin is model.lin
    assert_same(model(X)[0], out)


def test_training_step_with_nnx_transform_and_optimizer_is_one_graph():
    """``nnx.value_and_grad`` of a loss closing over the batch, then an
    optax optimizer's update: the parameters, the optimizer's state, the
    BatchNorm statistics and the dropout rng all change every step."""
    optax = pytest.importorskip("optax")

    def train_step(model, opt, x, y):
        def loss_fn(m):
            return ((m(x) - y) ** 2).mean()
        loss, grads = nnx.value_and_grad(loss_fn)(model)
        opt.update(model, grads)
        return loss

    def make():
        model = MLP(nnx.Rngs(0, dropout=1))
        # (SGD: Adam's update of a parameter whose gradient is ~0 amplifies float rounding)
        opt = nnx.Optimizer(model, optax.sgd(0.05, momentum=0.9), wrt=nnx.Param)
        return (lambda x, y: train_step(model, opt, x, y)), (model, opt)

    def step(fn, world):
        model, opt = world
        return fn(X, jnp.ones((4, 2))), state_of(model), state_of(opt)

    static = check_sequence(make, [step] * 3, recompiles=0)
    e = explain(static)(X, jnp.ones((4, 2)))
    assert e.graph_count == 1 and not e.fallback_sites


def test_state_and_update_inside_converted_code():
    class Halve(nnx.Module):
        def __init__(self, rngs):
            self.lin = nnx.Linear(3, 3, rngs=rngs)
            self.bn = nnx.BatchNorm(3, rngs=rngs)

        def __call__(self, x):
            y = self.bn(self.lin(x))
            stats = nnx.state(self, nnx.BatchStat)
            nnx.update(self, jax.tree.map(lambda v: v * 0.5, stats))
            return y, stats

    def make():
        model = Halve(nnx.Rngs(0))
        return model, model

    check_sequence(make, [call_and_state(X)] * 3, recompiles=0)


def test_shared_variables_and_pytree_false_modules():
    class Tied(nnx.Module, pytree=False):
        def __init__(self, rngs):
            self.a = nnx.Linear(3, 3, rngs=rngs)
            self.b = nnx.Linear(3, 3, rngs=rngs)
            self.b.kernel = self.a.kernel   # one Variable, two places
            self.layers = [nnx.Linear(3, 3, rngs=rngs), nnx.BatchNorm(3, rngs=rngs)]
            self.c = nnx.Variable(jnp.zeros(3))
            self.d = self.c

        def __call__(self, x):
            self.c[...] += 1
            y = self.b(self.a(x)) + self.d[...]
            for layer in self.layers:
                y = layer(y)
            self.d[...] += 1
            return y

    def make():
        model = Tied(nnx.Rngs(0))
        return model, model

    check_sequence(make, [call_and_state(X)] * 3, recompiles=0)


def test_python_numbers_in_variables_and_attributes_stay_python_numbers():
    class Count(nnx.Module):
        def __init__(self):
            self.n = nnx.Variable(0)
            self.calls = 0

        def __call__(self, x):
            self.n.value += 1
            self.calls += 1
            return x * self.n.value, self.n.value, self.calls

    def make():
        model = Count()
        return model, model

    def step(fn, model):
        return fn(X), model.n.get_value(), model.calls

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        static = check_sequence(make, [step] * 8)
    assert static.recompiles <= 5   # read traced once they kept changing (static_values=4)


def test_printing_a_variable_and_mode_switch_inside_run_in_python():
    class Loud(nnx.Module):
        def __init__(self, rngs):
            self.c = nnx.Variable(jnp.zeros(()))
            self.bn = nnx.BatchNorm(3, rngs=rngs)

        def __call__(self, x, train):
            self.c[...] += 1
            print(self.c)
            print("count", self.c[...])
            if train:
                self.train()
            else:
                self.eval()
            return self.bn(x)

    def make():
        model = Loud(nnx.Rngs(0))
        return model, model

    def step(train):
        return lambda fn, model: (fn(X, train), state_of(model))

    check_sequence(make, [step(True), step(False), step(True)], full_graph=False)


def test_subclassed_layer_super_call_and_rngs_argument():
    class Twice(nnx.Linear):
        def __call__(self, x):
            return super().__call__(x) * 2

    class WithRngs(nnx.Module):
        def __init__(self, rngs):
            self.lin = Twice(3, 3, rngs=rngs)
            self.drop = nnx.Dropout(0.5)

        def __call__(self, x, rngs):
            return self.drop(self.lin(x), rngs=rngs)

    def make():
        model, rngs = WithRngs(nnx.Rngs(0)), nnx.Rngs(dropout=4)
        return model, (model, rngs)

    def step(fn, world):
        model, rngs = world
        return fn(X, rngs), state_of(model), state_of(rngs)

    check_sequence(make, [step] * 3, recompiles=0)


def test_prng_key_arrays_are_graph_values():
    """Typed keys (``jax.random.key``, dtype key<fry>) as arguments, outside
    values, results and loop-carried values, as eager gives them."""
    from helpers import check

    base = jax.random.key(7)

    def sample(key, x, n):
        noise = jnp.zeros_like(x)
        for _ in range(n):                  # n = 20: a rolled loop carrying the key
            key, sub = jax.random.split(key)
            noise = noise + jax.random.normal(sub, x.shape)
        other = jax.random.fold_in(base, 3)
        return x + noise / n, key, jax.random.key_data(other), jax.random.uniform(other, ())

    def as_data(data, x, n):   # the test helper compares arrays through NumPy: keys in and out as their data
        y, key, data, u = sample(jax.random.wrap_key_data(data), x, n)
        return y, jax.random.key_data(key), data, u

    e = check(as_data, jax.random.key_data(jax.random.key(0)), X, 20)
    assert ("for", "lax.fori_loop") in [(d.construct, d.mode) for d in e.decisions]
    check(as_data, jax.random.key_data(jax.random.key(1)), X, 3)
    got, want = to_static(sample, full_graph=True)(jax.random.key(0), X, 20)[1], sample(jax.random.key(0), X, 20)[1]
    assert got.dtype == want.dtype and isinstance(got, jax.Array)   # a typed key comes back as one
    assert np.array_equal(jax.random.key_data(got), jax.random.key_data(want))


def test_local_functions_closing_over_the_model_passed_to_jax():
    """``lax.scan``/``jax.vmap`` of a local function (or a lambda on a global
    model) that calls the model's layers: the layers' state is the op's
    input (a weight changed between calls is seen), not a constant."""
    class Scan(nnx.Module):
        def __init__(self, rngs):
            self.cell = nnx.Linear(3, 3, rngs=rngs)
            self.bn = nnx.BatchNorm(3, rngs=rngs)

        def __call__(self, x):
            def body(c, _):
                return jnp.tanh(self.cell(c)), c.sum()
            y, sums = jax.lax.scan(body, x, None, length=5)
            z = jax.vmap(lambda r: self.cell(r))(x)
            return self.bn(y + z), sums

    def make():
        model = Scan(nnx.Rngs(0))
        return model, model

    def bump(fn, model):
        model.cell.kernel[...] = model.cell.kernel[...] * 1.5
        return fn(X), state_of(model)

    check_sequence(make, [call_and_state(X), bump, bump], recompiles=0)
    global GLOBAL_MODEL
    GLOBAL_MODEL = Scan(nnx.Rngs(1))

    def on_global(x):
        return jax.vmap(lambda r: GLOBAL_MODEL.cell(r) * 2)(x)

    def make_global():
        nnx.update(GLOBAL_MODEL, nnx.state(Scan(nnx.Rngs(1))))
        return on_global, GLOBAL_MODEL

    check_sequence(make_global, [call_and_state(X), bump, bump], recompiles=0)


def test_configuration_set_in_the_function_is_seen_by_the_layer():
    """``self.bn.use_running_average = ...`` then ``self.bn(x)``: the layer
    sees the new setting, as in eager (that statement runs in Python)."""
    class Toggle(nnx.Module):
        def __init__(self, rngs):
            self.bn = nnx.BatchNorm(3, rngs=rngs)
            self.calls = 0

        def __call__(self, x, frozen):
            self.calls += 1
            self.bn.use_running_average = frozen
            return self.bn(x) * self.calls

    def make():
        model = Toggle(nnx.Rngs(0))
        return model, model

    def step(frozen):
        return lambda fn, model: (fn(X, frozen), state_of(model), model.calls, model.bn.use_running_average)

    check_sequence(make, [step(False), step(True), step(False), step(True)], full_graph=False)


def test_functional_merge_and_split_of_a_state_argument():
    """The functional style: a graphdef and an ``nnx.State`` in, the model
    merged inside, the new state split out (the model is made anew by every
    eager call, so its writes stay inside the graph)."""
    def forward(graphdef, state, x):
        model = nnx.merge(graphdef, state)
        y = model(x)
        _, state = nnx.split(model)
        return y, state

    def make():
        graphdef, state = nnx.split(MLP(nnx.Rngs(0, dropout=1)))
        return forward, {"graphdef": graphdef, "state": state}

    def step(fn, world):
        y, world["state"] = fn(world["graphdef"], world["state"], X)
        return y, state_of(nnx.merge(world["graphdef"], world["state"]))

    check_sequence(make, [step] * 3, recompiles=0)


def test_static_while_past_the_unroll_limit_rolls_with_its_writes():
    """A ``while`` on a Python counter runs at trace time up to the unroll
    limit, then is rolled: the writes of the iterations it had unrolled are
    dropped with them (not left pending on values of discarded ops)."""
    class Counted(nnx.Module):
        def __init__(self, rngs):
            self.bn = nnx.BatchNorm(3, rngs=rngs)
            self.count = nnx.Variable(jnp.array(0))

        def __call__(self, x):
            i = 0
            while i < 20:
                self.count[...] += 1
                x = self.bn(x) * 0.9
                i += 1
            return x, i

    def make():
        model = Counted(nnx.Rngs(0))
        return model, model

    check_sequence(make, [call_and_state(X)] * 3, recompiles=0)
