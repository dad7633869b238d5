"""Multi-device checks, run by tests/test_multidevice.py in a subprocess with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` (the flag must be set
before JAX starts its backends; the rest of the suite runs with one device).

Every check compares the converted function with the eager run of the same
function (values) and with ``jax.jit`` of the same computation written with
``lax`` by hand (output sharding, donation). Prints ``PASS name`` or
``FAIL name: why`` per check and exits 1 if any failed.

XLA:CPU with 8 forced host devices (jax 0.10.2, 2 cores) deadlocks now and
then in a collective's rendezvous ("Expected 8 threads to join the
rendezvous, but only 7 of them arrived", then abort) when several programs
with collectives are in flight at once, e.g. a jitted ``x + tanh(x @ w)`` on
a column-sharded ``x`` and a committed replicated ``w`` called 50 times
without waiting -- and so eager op-by-op code on such arrays. Not ours:
plain ``jax.jit`` does it. So every call here is waited for (``ready``),
and the eager reference runs on single-device copies of the same values
(``eager``): the same function, the same values, no collectives.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("AST2GRAPH_CHECKS", "1")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

from ast2graph import explain, to_static  # noqa: E402
from helpers import assert_same  # noqa: E402

warnings.filterwarnings("ignore", message="Some donated buffers were not usable")

STEPS = 20   # above unroll_limit (16): the loop rolls to lax.fori_loop


# ------------------------------------------------------------ the programs
def step(x, w):
    """A traced `if` and a rolled loop on (possibly sharded) arrays."""
    if x.sum() > 0:
        x = x * 2.0
    else:
        x = -x
    for _ in range(STEPS):
        x = x + 0.1 * jnp.tanh(x @ w)
    return x


def step_by_hand(x, w):
    """``step`` written with lax: what jax.jit of the same code compiles."""
    x = lax.cond(x.sum() > 0, lambda v: v * 2.0, lambda v: -v, x)
    return lax.fori_loop(0, STEPS, lambda i, v: v + 0.1 * jnp.tanh(v @ w), x)


def split(x, w):
    """Two segments: the text of a traced value, parsed back, runs in Python between them."""
    n = int(str(jnp.sum(x > 0.5)))
    y = x @ w
    if y.sum() > 0:
        y = y * n
    return y + 1.0


def split_by_hand(x, w):
    n = jnp.sum(x > 0.5)
    y = x @ w
    return lax.cond(y.sum() > 0, lambda v: v * n.astype(v.dtype), lambda v: v, y) + 1.0


def keep_first(x, y):
    """Returns its first argument unchanged (the caller's own array)."""
    if y.sum() > 0:
        y = y * 2.0
    return x, y


class Model:
    """Weights read from ``self``: extra graph inputs (captures), not arguments."""

    def __init__(self, d):
        self.w = jnp.linspace(-1.0, 1.0, d * d).reshape(d, d) / d
        self.b = jnp.linspace(0.0, 1.0, d)

    def __call__(self, x):
        h = x @ self.w + self.b
        if h.mean() > 0:
            h = jnp.tanh(h)
        for _ in range(STEPS):
            h = h + 0.05 * (h @ self.w)
        return h


def model_by_hand(model, x):
    h = x @ model.w + model.b
    h = lax.cond(h.mean() > 0, jnp.tanh, lambda v: v, h)
    return lax.fori_loop(0, STEPS, lambda i, v: v + 0.05 * (v @ model.w), h)


def write_rows(x, k):
    """A NumPy argument written in place (written back into the caller's array)."""
    x[k] = 0.0
    return x * 2.0


# ------------------------------------------------------------------ checks
MESH = Mesh(np.array(jax.devices()), ("x",))
MESH2 = Mesh(np.array(jax.devices()).reshape(4, 2), ("data", "model"))
ROW = NamedSharding(MESH, P("x"))
COL = NamedSharding(MESH, P(None, "x"))
REP = NamedSharding(MESH, P())
DM = NamedSharding(MESH2, P("data", "model"))
D_ = NamedSharding(MESH2, P("data"))
REP2 = NamedSharding(MESH2, P())
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def ready(x):
    """Wait for a result before the next program starts (see the module note)."""
    return jax.block_until_ready(x)


def eager(fn, *args):
    """The eager run of ``fn`` on single-device copies of ``args`` (same values)."""
    return ready(fn(*jax.tree_util.tree_map(lambda a: jnp.asarray(np.asarray(a)) if isinstance(a, jax.Array) else a, args)))


def same_sharding(got, want):
    assert got.sharding.is_equivalent_to(want.sharding, got.ndim), f"sharding {got.sharding} vs jax.jit's {want.sharding}"


def data(sign=1.0, n=16, d=8):
    return sign * (jnp.arange(n * d, dtype=jnp.float32).reshape(n, d) / (n * d) - 0.25), jnp.eye(d) * 0.5


@check
def devices():
    assert len(jax.devices()) == 8, jax.devices()


@check
def sharded_inputs_pass_through_one_graph():
    """No options: sharded arguments, one graph (lax.cond + lax.fori_loop),
    the eager values and the output sharding jax.jit gives."""
    converted = to_static(step, full_graph=True)
    for sign in (1.0, -1.0):   # both branches of the traced `if`
        for xs, ws in ((ROW, REP), (COL, REP), (REP, REP), (DM, REP2), (D_, REP2)):
            x, w = data(sign)
            x, w = ready(jax.device_put(x, xs)), ready(jax.device_put(w, ws))
            e = explain(converted)(x, w)
            ready(e.result)
            assert e.graph_count == 1, str(e)
            assert sorted(d.mode for d in e.decisions) == ["lax.cond", "lax.fori_loop"], str(e)
            assert_same(eager(step, x, w), e.result, rtol=1e-5, atol=1e-5)
            same_sharding(e.result, ready(jax.jit(step_by_hand)(x, w)))


@check
def options_forwarded_to_the_one_graph():
    """in_shardings/out_shardings given: the graph's jax.jit takes them; the
    result is jax.jit's (values of eager, sharding of jax.jit with the same options)."""
    for ins, outs in (((ROW, REP), COL), ((COL, REP), ROW), (ROW, REP), ((DM, REP2), D_)):
        x, w = data()
        x = ready(jax.device_put(x, ins[0] if isinstance(ins, tuple) else ins))
        if isinstance(ins, tuple):
            w = ready(jax.device_put(w, ins[1]))
        converted = to_static(step, full_graph=True, in_shardings=ins, out_shardings=outs)
        e = explain(converted)(x, w)
        ready(e.result)
        assert e.graph_count == 1, str(e)
        assert_same(eager(step, x, w), e.result, rtol=1e-5, atol=1e-5)
        same_sharding(e.result, ready(jax.jit(step_by_hand, in_shardings=ins, out_shardings=outs)(x, w)))
        same_sharding(e.result, ready(jax.device_put(x, outs)))


@check
def in_shardings_place_host_and_uncommitted_inputs():
    """NumPy and uncommitted inputs: placed by in_shardings inside the graph's
    jax.jit, so the output sharding (propagated from the inputs) is jax.jit's."""
    x, w = data()
    for arg in (np.asarray(x), x):
        converted = to_static(step, full_graph=True, in_shardings=(ROW, REP))
        got = ready(converted(arg, w))
        assert_same(eager(step, jnp.asarray(arg), w), got, rtol=1e-5, atol=1e-5)
        same_sharding(got, ready(jax.jit(step_by_hand, in_shardings=(ROW, REP))(arg, w)))
        assert got.sharding.is_equivalent_to(ROW, 2), got.sharding


@check
def donation_as_jax_jit():
    """donate_argnums/donate_argnames: the donated input buffer is consumed as
    jax.jit consumes it; the result is eager's."""
    for kw in ({"donate_argnums": 0}, {"donate_argnames": "x"}, {"donate_argnums": (0,)}):
        x, w = data()
        want = eager(step, x, w)
        x_jit = ready(jax.device_put(x, ROW))
        jitted = ready(jax.jit(step_by_hand, in_shardings=(ROW, REP), out_shardings=ROW, **kw)(x_jit, w))
        x_conv = ready(jax.device_put(x, ROW))
        got = ready(to_static(step, full_graph=True, in_shardings=(ROW, REP), out_shardings=ROW, **kw)(x_conv, w))
        assert_same(want, got, rtol=1e-5, atol=1e-5)
        same_sharding(got, jitted)
        assert x_conv.is_deleted() == x_jit.is_deleted(), (kw, x_conv.is_deleted(), x_jit.is_deleted())
        assert not w.is_deleted()
    # without options nothing is donated
    x, w = data()
    ready(to_static(step)(x, w))
    assert not x.is_deleted()


@check
def returned_argument_is_never_donated():
    """An argument returned unchanged is the caller's own array in eager: it
    is not donated (donating it would hand back a deleted array)."""
    x, y = data()
    x = ready(jax.device_put(x, ROW))
    want = eager(keep_first, x, y)
    got = ready(to_static(keep_first, full_graph=True, donate_argnums=(0, 1))(x, y))
    assert_same(want, got)
    assert got[0] is x and not x.is_deleted()


@check
def several_segments_place_arguments_and_results():
    """A function that splits into two segments (an interpreted `int(str(v))`):
    arguments placed with device_put, the result with out_shardings,
    donation ignored; values of eager, sharding of jax.jit."""
    x, w = data()
    for ins, outs in (((ROW, REP), None), ((REP, REP), ROW), ((COL, REP), COL)):
        e = explain(to_static(split, in_shardings=ins, out_shardings=outs, donate_argnums=0))(x, w)
        ready(e.result)
        assert e.graph_count == 2 and len(e.fallback_sites) == 1, str(e)
        assert_same(eager(split, x, w), e.result, rtol=1e-5, atol=1e-5)
        ref = ready(jax.jit(split_by_hand, in_shardings=ins, out_shardings=outs)(x, w))
        if outs is not None:
            same_sharding(e.result, ref)
        else:   # propagated from the placed argument
            assert e.result.sharding.is_equivalent_to(ROW, 2), e.result.sharding
        assert not x.is_deleted()


@check
def captured_weights_stay_extra_inputs():
    """A model whose weights are read from self (captures): the argument's
    sharding is forwarded, the weights keep theirs; eager values, jax.jit's sharding."""
    model = Model(8)
    for sign in (1.0, -1.0):
        x, _ = data(sign)
        x = ready(jax.device_put(x, ROW))
        e = explain(to_static(model, full_graph=True, in_shardings=ROW, out_shardings=COL))(x)
        ready(e.result)
        assert e.graph_count == 1, str(e)
        assert_same(eager(model, x), e.result, rtol=1e-5, atol=1e-5)
        same_sharding(e.result, ready(jax.jit(lambda v: model_by_hand(model, v), in_shardings=ROW, out_shardings=COL)(x)))
        plain = ready(to_static(model, full_graph=True)(x))
        same_sharding(plain, ready(jax.jit(lambda v: model_by_hand(model, v))(x)))


@check
def under_an_outer_jit_and_grad():
    """Called inside jax.jit / jax.grad: shardings become constraints on the
    traced values; values of eager (grad: of the hand-written twin)."""
    x, w = data()
    x = ready(jax.device_put(x, ROW))
    converted = to_static(step, full_graph=True, in_shardings=(ROW, REP), out_shardings=COL)
    got = ready(jax.jit(converted)(x, w))
    assert_same(eager(step, x, w), got, rtol=1e-5, atol=1e-5)
    same_sharding(got, ready(jax.jit(step_by_hand, in_shardings=(ROW, REP), out_shardings=COL)(x, w)))
    g = ready(jax.grad(lambda v: converted(v, w).sum())(x))
    want = ready(jax.grad(lambda v: step_by_hand(v, w).sum())(jnp.asarray(np.asarray(x))))
    assert_same(want, g, rtol=1e-4, atol=1e-5)


@check
def numpy_argument_written_in_place():
    """A NumPy argument stays a NumPy array (in-place write visible to the
    caller, ndarray result) with in_shardings given."""
    x_eager = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    x_conv = x_eager.copy()
    want = write_rows(x_eager, 3)
    got = to_static(write_rows, full_graph=True, in_shardings=(ROW, None), out_shardings=REP)(x_conv, 3)
    assert type(got) is np.ndarray and type(x_conv) is np.ndarray
    assert_same(want, got)
    assert_same(x_eager, x_conv)


@check
def no_source_runs_eagerly_placed():
    """A function without Python source runs eagerly; its arguments and result are still placed."""
    x, _ = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        converted = to_static(jnp.tanh, in_shardings=ROW, out_shardings=COL)
    got = ready(converted(x))
    assert_same(eager(jnp.tanh, x), got)
    same_sharding(got, ready(jax.jit(jnp.tanh, in_shardings=ROW, out_shardings=COL)(x)))


def main() -> int:
    failed = 0
    for fn in CHECKS:
        try:
            fn()
            print(f"PASS {fn.__name__}", flush=True)
        except Exception as e:  # noqa: BLE001 - report every check
            failed += 1
            print(f"FAIL {fn.__name__}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc()
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
