"""ast2graph's store of compiled graphs (ast2graph/runtime/executables.py):
a graph compiled before, in this process or another, is loaded instead of
traced and compiled, and only ever for the identical program.

Each test points the store at its own folder; each conversion's result is
compared with the eager run, and whether it was loaded is read from
``explain``'s stages ("load" instead of "jit"). The test that a second
process loads it is tests/test_package.py.
"""

from __future__ import annotations

import importlib
import os
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ast2graph
from ast2graph import cache, explain, to_static
from ast2graph.runtime import executables
from tests.helpers import assert_same


@pytest.fixture
def store(tmp_path, monkeypatch):
    """The store in a folder of this test's (JAX's own cache is the suite's)."""
    jax_dir = tmp_path / "jax"
    jax_dir.mkdir()
    monkeypatch.setitem(cache._OWN, "dir", jax_dir)
    return tmp_path / "graphs"


def _run(fn, *args):
    """(result, loaded) of a fresh conversion's first call, compared with eager."""
    e = explain(to_static(fn))(*args)
    assert_same(e.result, fn(*args))
    stages = e.stage_seconds
    assert ("load" in stages) != ("jit" in stages), stages
    return e.result, "load" in stages


def _module(tmp_path, name, source):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        if name in sys.modules:
            del sys.modules[name]
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def damped(x, n):
    for i in range(n):
        if x.sum() > i:
            x = x * 0.5
    return jnp.tanh(x) @ jnp.ones((x.shape[0], 2))


def test_the_same_graph_converted_again_is_loaded(store):
    x = jnp.arange(4.0)
    _, loaded = _run(damped, x, 3)
    assert not loaded and len(list(store.iterdir())) == 1
    _, loaded = _run(damped, x, 3)
    assert loaded
    _, loaded = _run(damped, x, 2)    # another static argument: another graph
    assert not loaded and len(list(store.iterdir())) == 2


def test_a_source_edited_on_disk_is_never_served_the_old_graph(store, tmp_path):
    source = """
        import jax.numpy as jnp
        def f(x):
            if x.sum() > 0:
                return x * {k}
            return x - 1.0
    """
    m = _module(tmp_path, "a2g_store_edit", source.format(k=2.0))
    x = jnp.arange(3.0)
    out, loaded = _run(m.f, x)
    assert not loaded
    os.utime(tmp_path / "a2g_store_edit.py", ns=(1, 1))   # the edit keeps neither size nor time
    m = _module(tmp_path, "a2g_store_edit", source.format(k=3.0))
    out3, loaded = _run(m.f, x)
    assert not loaded and float(out3[1]) == 3.0 and float(out[1]) == 2.0
    m = _module(tmp_path, "a2g_store_edit", source.format(k=2.0))   # back to the first: that graph again
    out2, loaded = _run(m.f, x)
    assert loaded and float(out2[1]) == 2.0


SCALE = 2.0


def scaled(x):
    return x * SCALE + jnp.sin(x)


def test_a_global_changed_between_conversions_or_calls_is_not_served_the_old_graph(store):
    global SCALE
    x = jnp.arange(3.0)
    static = to_static(scaled)
    assert_same(static(x), scaled(x))
    try:
        SCALE = 5.0
        assert_same(static(x), scaled(x))   # the guard re-specialises: another graph, another key
        out, loaded = _run(scaled, x)
        assert loaded and float(out[1]) == pytest.approx(5.0 + np.sin(1.0))
        SCALE = 2.0
        _, loaded = _run(scaled, x)
        assert loaded
    finally:
        SCALE = 2.0


def test_another_version_of_ast2graph_or_jax_is_never_served(store, monkeypatch):
    x = jnp.arange(3.0)
    assert not _run(damped, x, 1)[1]
    assert _run(damped, x, 1)[1]
    for module, version in ((ast2graph, "0.0.0-other"), (jax, "0.0.1")):
        with monkeypatch.context() as m:
            m.setattr(module, "__version__", version)
            executables._environment.cache_clear()
            assert not _run(damped, x, 1)[1]
        executables._environment.cache_clear()
    assert _run(damped, x, 1)[1]


def test_a_loaded_graph_called_with_other_shapes_or_under_a_transform_is_as_eager(store):
    def f(x):
        if x.sum() > 0:
            return jnp.cumsum(x) * 2.0
        return -x

    x = jnp.arange(1.0, 4.0)
    _run(f, x)
    static = to_static(f)
    e = explain(static)(x)
    assert "load" in e.stage_seconds
    for arg in (jnp.arange(5.0), -jnp.arange(2.0), x.astype(jnp.float16)):
        assert_same(static(arg), f(arg))
    assert_same(jax.grad(lambda v: static(v).sum())(x), jax.grad(lambda v: f(v).sum())(x))
    assert_same(jax.jit(static)(x), f(x))
    assert_same(jax.vmap(static)(jnp.stack([x, -x])), jnp.stack([f(x), f(-x)]))


def test_numpy_float64_graphs_are_kept_and_loaded_with_their_precision(store):
    def f(a, b):
        s = 0.0
        for i in range(a.shape[0]):
            s += a[i] * b[i] / 3.0
        return np.sqrt(np.abs(a)) + s

    a, b = np.linspace(-1.0, 1.0, 5), np.arange(5.0) / 7.0
    out1, loaded = _run(f, a, b)
    assert not loaded and out1.dtype == np.float64
    out2, loaded = _run(f, a, b)
    assert loaded
    np.testing.assert_array_equal(out1, out2)


def test_an_entry_that_cannot_be_loaded_or_run_is_compiled_again(store, monkeypatch):
    x = jnp.arange(4.0)
    _run(damped, x, 2)
    (entry,) = store.iterdir()
    entry.write_bytes(b"not an executable")
    _, loaded = _run(damped, x, 2)   # unreadable: compiled, and the entry written anew
    assert not loaded and entry.read_bytes() != b"not an executable"

    class Failing:   # an executable XLA cannot run (its kernels missing): nothing ran
        def __init__(self, compiled):
            self.out_info = compiled.out_info

        def __call__(self, *args):
            raise jax.errors.JaxRuntimeError("NOT_FOUND: Function wrapped_divide not found")

    real = executables.load

    def load_failing(*args, **kwargs):
        loaded = real(*args, **kwargs)
        loaded.compiled = Failing(loaded.compiled)
        return loaded

    monkeypatch.setattr(executables, "load", load_failing)
    static = to_static(damped)
    assert_same(static(x, 2), damped(x, 2))
    assert not entry.exists()   # dropped: the next conversion compiles and keeps a good one
    assert_same(static(x + 1, 2), damped(x + 1, 2))


def test_an_entry_in_a_folder_others_can_write_is_not_loaded(store):
    x = jnp.arange(4.0)
    _run(damped, x, 4)
    store.chmod(0o777)
    try:
        assert not _run(damped, x, 4)[1]
    finally:
        store.chmod(0o700)
    assert _run(damped, x, 4)[1]


def test_nothing_is_kept_when_ast2graphs_cache_is_off(tmp_path, monkeypatch):
    monkeypatch.setitem(cache._OWN, "dir", None)   # AST2GRAPH_NO_CACHE, or the user's own JAX cache
    assert not executables.persistable()
    _run(damped, jnp.arange(4.0), 5)
    assert not _run(damped, jnp.arange(4.0), 5)[1]


def test_graphs_calling_the_users_functions_are_not_kept(store):
    helper = jax.jit(lambda v: v * 2.0)

    def f(x):
        if x.sum() > 0:
            x = helper(x)
        return x + 1.0

    x = jnp.arange(3.0)
    _run(f, x)
    assert not _run(f, x)[1] and not store.exists()


def user_function(x):
    return x


@pytest.mark.parametrize("value, keyable", [
    (jnp.sin, True), (np.add, True), (jax.nn.relu, True), (np.float32, True), (np.dtype("float16"), True),
    ((1, -0.0, "a", None, slice(1, None)), True), (np.arange(3.0), True),
    (user_function, False), (lambda x: x, False), (object(), False), (np.array([object()]), False),
])
def test_fingerprints_name_library_functions_and_refuse_the_users(value, keyable):
    libraries: set = set()
    if keyable:
        assert executables.fingerprint(value, libraries) == executables.fingerprint(value, set())
    else:
        with pytest.raises(executables._Unkeyable):
            executables.fingerprint(value, libraries)


def test_fingerprints_tell_values_apart(monkeypatch):
    def fp(v):
        return executables.fingerprint(v, set())

    assert fp(0.0) != fp(-0.0) and fp(1) != fp(1.0) and fp(True) != fp(1)
    assert fp(np.arange(3.0)) != fp(np.arange(3.0) + 1e-300) and fp(np.arange(3.0)) != fp(np.arange(3))
    assert fp(np.float32(1)) != fp(np.float64(1))
    monkeypatch.setattr(jnp, "sin", user_function)   # a library name patched: the object is the user's
    with pytest.raises(executables._Unkeyable):
        fp(jnp.sin)


def test_jax_options_and_xla_flags_are_in_the_key(store, monkeypatch):
    x = jnp.arange(3.0)
    assert not _run(damped, x, 6)[1]
    with jax.default_matmul_precision("highest"):
        assert not _run(damped, x, 6)[1]
    monkeypatch.setenv("XLA_FLAGS", "--xla_cpu_enable_fast_math=false")
    assert not _run(damped, x, 6)[1]
    monkeypatch.delenv("XLA_FLAGS")
    assert _run(damped, x, 6)[1]
