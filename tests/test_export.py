"""Export (``ast2graph.export``, ``StaticFunction.export``): a one-graph
converted function as a ``jax.export.Exported``, serialised, loaded and called
in another process that cannot import ast2graph, compared with eager; a
function that is not one self-contained graph is refused with its sites."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ast2graph
from ast2graph import ExportError, to_static
from helpers import assert_same

# The loading process: ast2graph cannot be imported there at all.
_LOADER = textwrap.dedent("""
    import pickle, sys

    class _NoAst2graph:
        def find_spec(self, name, path=None, target=None):
            if name == "ast2graph" or name.startswith("ast2graph."):
                raise ImportError("ast2graph must not be needed to call an exported function")

    sys.meta_path.insert(0, _NoAst2graph())
    import jax
    import numpy as np

    data, calls = pickle.load(open(sys.argv[1], "rb"))
    exported = jax.export.deserialize(bytearray(data))
    outs = [jax.tree_util.tree_map(np.asarray, exported.call(*args)) for args in calls]
    assert not any(m == "ast2graph" or m.startswith("ast2graph.") for m in sys.modules)
    pickle.dump(outs, open(sys.argv[2], "wb"))
""")


def _call_elsewhere(exported, calls, tmp_path):
    """The results of ``exported.call(*args)`` for each ``args`` of ``calls``,
    computed in a fresh process from the serialised export."""
    src, dst = tmp_path / "in.pkl", tmp_path / "out.pkl"
    numpy_calls = [jax.tree_util.tree_map(np.asarray, args) for args in calls]
    with open(src, "wb") as f:
        pickle.dump((bytes(exported.serialize()), numpy_calls), f)
    done = subprocess.run([sys.executable, "-c", _LOADER, str(src), str(dst)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with open(dst, "rb") as f:
        return pickle.load(f)


def loop_and_branch(x, n, scale=2.0):
    s = jnp.zeros(())
    for i in range(n):   # static n: fixed by the export
        if x[i] > 0:     # traced: lax.cond
            s = s + x[i] * scale
    while s > 10:        # traced: lax.while_loop
        s = s / 2
    return {"s": s, "y": x * scale}


def test_exported_function_runs_without_ast2graph(tmp_path):
    x = jnp.arange(6.0) - 2
    exported = ast2graph.export(loop_and_branch)(x, 4)
    assert [a.shape for a in exported.in_avals] == [(6,)]   # n is fixed, x is the input
    others = [(x,), (jnp.linspace(-3.0, 30.0, 6),), (-x,)]
    outs = _call_elsewhere(exported, others, tmp_path)
    for (arg,), out in zip(others, outs):
        assert_same(jax.tree_util.tree_map(np.asarray, loop_and_branch(arg, 4)), out)


def test_method_of_converted_function(tmp_path):
    """``f.export(*args)`` on a converted function; a keyword array is an input too."""
    f = to_static(loop_and_branch)
    x = jnp.linspace(-1.0, 4.0, 5)
    exported = f.export(x, 5, scale=jnp.float32(3.0))
    assert len(exported.in_avals) == 2
    out, = _call_elsewhere(exported, [(x, jnp.float32(0.5))], tmp_path)
    assert_same(jax.tree_util.tree_map(np.asarray, loop_and_branch(x, 5, scale=jnp.float32(0.5))), out)


def test_transformer_model_exports_with_weights_as_constants(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "examples"))
    try:
        import transformer_decoder as td
    finally:
        sys.path.pop(0)
    model = td.build(num_layers=2, d=16, d_ff=32)
    k1, k2 = jax.random.split(jax.random.PRNGKey(3))
    tgt, memory = jax.random.normal(k1, (4, 16)), jax.random.normal(k2, (6, 16))
    mask = jnp.tril(jnp.ones((4, 4), dtype=bool))
    exported = to_static(model).export(tgt, memory, mask)
    assert len(exported.in_avals) == 3   # the weights are not inputs
    out, = _call_elsewhere(exported, [(tgt * 2, memory, mask)], tmp_path)
    assert_same(np.asarray(model(tgt * 2, memory, mask)), out)


def needs_a_python_float(x):
    y = x * 2
    return float(y.sum()) + 1.0


def test_refuses_with_the_fallback_sites():
    with pytest.raises(ExportError) as info:
        ast2graph.export(needs_a_python_float)(jnp.ones(3))
    message = str(info.value)
    assert "A2G003" in message and "float(y.sum())" in message and "needs_a_python_float" in message


def prints(x):
    print("value", x)
    return x + 1


def test_refuses_a_host_effect():
    with pytest.raises(ExportError, match="host effects|A2G"):
        ast2graph.export(prints)(jnp.ones(3))


class Counter:
    def __init__(self):
        self.calls = 0
        self.w = jnp.ones(3)

    def __call__(self, x):
        self.calls += 1
        return x * self.w


def test_refuses_an_attribute_written_back():
    with pytest.raises(ExportError):
        to_static(Counter()).export(jnp.ones(3))
