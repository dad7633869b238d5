"""What surrounds the conversions: JAX's persistent compilation cache in
ast2graph's folder (and its switches), the log line of long work, and the
warning on a JAX older than the declared bound."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jax.numpy as jnp
import pytest

from ast2graph import to_static
from ast2graph import api, cache, worklog

ROOT = Path(__file__).resolve().parent.parent

# A fresh process: one converted call; prints JAX's cache folder, the compiles that asked the
# persistent cache and those it answered, as JAX counted them.
_PROGRAM = textwrap.dedent("""
    import json, os, sys
    import jax, jax.numpy as jnp
    USER_JIT = bool(os.environ.get("A2G_TEST_USER_JIT"))   # a function of the user's in the graph: no key
    double = jax.jit(lambda v: v * 2)
    from jax._src import monitoring
    events = []
    monitoring.register_event_listener(lambda name, **kw: events.append(name))
    jnp.ones(3) + 1                      # JAX compiles something before ast2graph is imported
    from ast2graph import explain

    def f(x, n):
        for i in range(n):
            if x.sum() > i:
                x = x * 0.5
        if USER_JIT:
            x = double(x)
        return x

    e = explain(f)(jnp.arange(4.0), 3)
    out = e.result
    print(json.dumps({"dir": jax.config.jax_compilation_cache_dir, "out": out.tolist(),
                      "stages": sorted(e.stage_seconds),
                      "hits": events.count("/jax/compilation_cache/cache_hits"),
                      "requests": events.count("/jax/compilation_cache/compile_requests_use_cache")}))
""")


def _fresh(env: dict, folder: Path) -> dict:
    program = folder / "program.py"   # a file: the function needs its source
    program.write_text(_PROGRAM)
    base = {k: v for k, v in os.environ.items()
            if k not in ("AST2GRAPH_CACHE_DIR", "AST2GRAPH_NO_CACHE", "JAX_COMPILATION_CACHE_DIR", "XDG_CACHE_HOME")}
    done = subprocess.run([sys.executable, str(program)], env={**base, **env}, capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_second_process_reads_the_graph_from_the_cache(tmp_path):
    first = _fresh({"AST2GRAPH_CACHE_DIR": str(tmp_path)}, tmp_path)
    assert first["dir"] == str(tmp_path / "jax") and first["requests"] >= 1 and first["hits"] == 0
    graphs = {p.name for p in (tmp_path / "graphs").iterdir()}
    assert len(graphs) == 1   # ast2graph's own entry: the executable keyed by the lowered graph
    second = _fresh({"AST2GRAPH_CACHE_DIR": str(tmp_path)}, tmp_path)
    # the graph's executable is loaded from ast2graph's entry: JAX neither traces, lowers nor compiles it
    # (the other requests are small eager ops under JAX's own threshold: compiled in each process)
    assert "jit" in first["stages"] and "load" not in first["stages"]
    assert "load" in second["stages"] and "jit" not in second["stages"]
    assert second["hits"] == 0 and second["out"] == first["out"]
    assert {p.name for p in (tmp_path / "graphs").iterdir()} == graphs
    (tmp_path / "graphs" / next(iter(graphs))).unlink()
    # without it the graph compiles again (not from JAX's cache: XLA would write an executable
    # it loaded without its kernels), and the entry is written anew
    third = _fresh({"AST2GRAPH_CACHE_DIR": str(tmp_path)}, tmp_path)
    assert "jit" in third["stages"] and third["hits"] == 0 and third["out"] == first["out"]
    assert {p.name for p in (tmp_path / "graphs").iterdir()} == graphs


def test_a_graph_that_cannot_be_keyed_goes_to_jaxs_cache(tmp_path):
    """A graph calling a function of the user's (their ``jax.jit`` of a
    lambda) has no key: JAX's persistent cache serves its second process."""
    first = _fresh({"AST2GRAPH_CACHE_DIR": str(tmp_path), "A2G_TEST_USER_JIT": "1"}, tmp_path)
    assert not (tmp_path / "graphs").exists() and first["hits"] == 0
    second = _fresh({"AST2GRAPH_CACHE_DIR": str(tmp_path), "A2G_TEST_USER_JIT": "1"}, tmp_path)
    assert second["hits"] >= 1 and "jit" in second["stages"] and second["out"] == first["out"]


def test_default_folder_is_under_xdg_cache_home(tmp_path):
    assert _fresh({"XDG_CACHE_HOME": str(tmp_path)}, tmp_path)["dir"] == str(tmp_path / "ast2graph" / "jax")


def test_no_cache_switch(tmp_path):
    got = _fresh({"AST2GRAPH_NO_CACHE": "1", "XDG_CACHE_HOME": str(tmp_path)}, tmp_path)
    assert got["dir"] is None and not (tmp_path / "ast2graph").exists()


def test_users_own_jax_cache_is_left_alone(tmp_path):
    theirs = tmp_path / "theirs"
    got = _fresh({"JAX_COMPILATION_CACHE_DIR": str(theirs), "AST2GRAPH_CACHE_DIR": str(tmp_path / "ours")}, tmp_path)
    assert got["dir"] == str(theirs) and not (tmp_path / "ours").exists()


def test_this_test_run_uses_a_temporary_folder():
    """tests/conftest.py: the suite never writes into the user's home."""
    assert cache.jax_cache_dir() is not None
    assert not str(cache.jax_cache_dir()).startswith(os.path.expanduser("~/.cache"))


def unrolled(x):
    for i in range(40):
        x = x + i
    return x


def test_long_work_logs_one_line_per_stage(caplog, monkeypatch):
    monkeypatch.setattr(worklog, "LONG_WORK_SECONDS", 0.0)
    with caplog.at_level(logging.WARNING, logger="ast2graph"):
        to_static(unrolled, unroll_limit=64)(jnp.ones(3))
    lines = [r.getMessage() for r in caplog.records if r.name == "ast2graph"]
    assert len(lines) == 2, lines
    conversion, compile_ = lines
    assert conversion.startswith("ast2graph: conversion of unrolled took")
    assert compile_.startswith("ast2graph: trace and XLA compile of unrolled took")
    assert "for at line" in conversion and "unrolled" in conversion and "40 iterations" in conversion
    assert "ops in the graph" in conversion


def test_short_work_logs_nothing(caplog):
    with caplog.at_level(logging.WARNING, logger="ast2graph"):
        to_static(unrolled)(jnp.ones(3))
    assert not [r for r in caplog.records if r.name == "ast2graph"]


def test_old_jax_is_named_at_import():
    with pytest.warns(UserWarning, match=r"needs jax>=0\.8\.0, found jax 0\.7\.2"):
        api.check_jax_version("0.7.2")
    api.check_jax_version("0.8.0")
    api.check_jax_version("0.10.2")


def test_converting_imports_no_heavy_module():
    """``to_static``'s modules (``ast2graph.api``) import neither networkx
    (the CFG has its own small graph, ssa/digraph.py), nor the report, survey
    or HTML modules, nor jax.extend (which imports Pallas), and compile no XLA
    program: a fresh process's first call pays for none of them."""
    code = textwrap.dedent("""
        import json, sys
        import jax
        from jax._src import monitoring
        events = []
        monitoring.register_event_listener(lambda name, **kw: events.append(name))
        import ast2graph.api
        heavy = ("networkx", "ast2graph.report", "ast2graph.survey", "ast2graph.report_html", "ast2graph.cli",
                 "jax.extend")
        print(json.dumps({"imported": [m for m in heavy if m in sys.modules],
                          "compiles": sum("compil" in e for e in events)}))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"imported": [], "compiles": 0}
