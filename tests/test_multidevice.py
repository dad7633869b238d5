"""Shardings and donation (issue 7, item 3).

With 8 simulated CPU devices: XLA_FLAGS must be set before JAX starts its
backends, and this pytest process already runs with one device, so the
checks run in a subprocess (``multidevice_script.py``, one ``PASS``/``FAIL``
line per check) and each test here asserts on its line. Sharded arguments
pass through converted functions (a traced ``if``, a rolled loop) with the
eager values and the output sharding ``jax.jit`` of the same code gives;
``to_static(in_shardings=, out_shardings=, donate_argnums=, donate_argnames=)``
behave as ``jax.jit``'s when the function is one graph, and place arguments
and results (donation ignored) when it is not.

In this process (one device): the options with a single-device sharding
change nothing of the values (``check`` against eager), donation as
``jax.jit``, argument errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.sharding import SingleDeviceSharding

from ast2graph import to_static
from helpers import assert_same, check

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "multidevice_script.py"
CHECKS = [
    "devices", "sharded_inputs_pass_through_one_graph", "options_forwarded_to_the_one_graph",
    "in_shardings_place_host_and_uncommitted_inputs", "donation_as_jax_jit", "returned_argument_is_never_donated",
    "several_segments_place_arguments_and_results", "captured_weights_stay_extra_inputs",
    "under_an_outer_jit_and_grad", "numpy_argument_written_in_place", "no_source_runs_eagerly_placed",
]


@pytest.fixture(scope="module")
def multidevice_run():
    env = {**os.environ, "XLA_FLAGS": (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip(),
           "JAX_PLATFORMS": "cpu", "AST2GRAPH_CHECKS": "1",
           "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=540)


@pytest.mark.parametrize("name", CHECKS)
def test_on_eight_devices(multidevice_run, name):
    lines = multidevice_run.stdout.splitlines()
    assert f"PASS {name}" in lines, "\n".join(lines) + "\n" + multidevice_run.stderr[-4000:]


def test_script_ran_every_check(multidevice_run):
    assert multidevice_run.returncode == 0, multidevice_run.stdout + multidevice_run.stderr[-4000:]
    assert [line.split()[1] for line in multidevice_run.stdout.splitlines() if line.startswith("PASS ")] == CHECKS


# ---------------------------------------------------------------- one device
def step(x, w):
    if x.sum() > 0:
        x = x * 2.0
    else:
        x = -x
    for _ in range(20):
        x = x + 0.1 * jnp.tanh(x @ w)
    return x, w.sum()


ONE = SingleDeviceSharding(jax.devices()[0])
X = jnp.linspace(-1.0, 2.0, 12).reshape(3, 4)
W = jnp.eye(4) * 0.5


@pytest.mark.parametrize("options", [
    {"in_shardings": ONE}, {"in_shardings": (ONE, None), "out_shardings": (ONE, ONE)},
    {"out_shardings": ONE}, {"in_shardings": (ONE, ONE), "out_shardings": ONE},
], ids=["in-all", "in-out-tuple", "out-all", "in-tuple-out-all"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_sharding_options_keep_eager_values(options, sign):
    check(step, X * sign, W, graphs=1, rtol=1e-5, atol=1e-5, **options)


def test_donation_as_jax_jit_on_one_device():
    want = step(X, W)
    x_jit, x_conv = jnp.array(X), jnp.array(X)
    jax.jit(lambda x, w: (x * 2.0, w.sum()), donate_argnums=0)(x_jit, W)
    got = to_static(step, full_graph=True, donate_argnums=0)(x_conv, W)
    assert_same(want, got)
    assert x_conv.is_deleted() == x_jit.is_deleted()
    assert not W.is_deleted()


@pytest.mark.filterwarnings("ignore:Some donated buffers were not usable")
def test_numpy_arguments_are_not_donated():
    x, w = np.asarray(X), jnp.array(W)   # w: donated (not usable: no output of its shape), as jax.jit
    got = to_static(step, full_graph=True, donate_argnums=(0, 1))(x, w)
    assert_same(step(X, W), got)
    assert type(x) is np.ndarray and np.array_equal(x, np.asarray(X))


def test_bad_donate_arguments():
    with pytest.raises(TypeError):
        to_static(step, donate_argnums="x")
    with pytest.raises(TypeError):
        to_static(step, donate_argnames=0)


def test_out_shardings_not_a_prefix_of_the_result_raises():
    with pytest.raises(ValueError):
        to_static(step, out_shardings=(ONE, ONE, ONE))(X, W)
    with pytest.raises(ValueError):   # jax.jit raises too
        jax.jit(lambda x, w: (x, w.sum()), out_shardings=(ONE, ONE, ONE))(X, W)
