"""The named-pass pipeline (``ast2graph/pipeline.py``): seconds per stage in
``explain``, and ``AST2GRAPH_PRINT_AFTER`` printing a stage's output.

Every conversion is also compared with the eager run (``check``): timing and
printing must not change what the function computes."""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import ast2graph
from ast2graph.pipeline import PRINT_AFTER, STAGES
from tests.helpers import assert_same, check


def clipped_steps(x, n):
    total = jnp.zeros(())
    for i in range(n):
        if x[i] > 0:
            total = total + x[i]
    return total


def test_explain_gives_seconds_per_stage_in_pipeline_order():
    ast2graph.clear_caches()   # parse, resolve and ssa run again (they are cached per code object)

    def fresh(x):
        if x.sum() > 0:
            return x * 2.0
        return x - 1.0

    e = check(fresh, jnp.arange(3.0), full_graph=True)   # the first call, explained: it converted and compiled
    stages = e.stage_seconds
    assert list(stages) == [s for s in STAGES if s in stages]   # pipeline order
    assert {"parse", "resolve", "ssa", "typeinfer", "lower", "jit"} <= set(stages)
    assert all(isinstance(v, float) and v >= 0.0 for v in stages.values())
    assert "stages: parse" in str(e) and "stages: parse" in e._repr_html_()
    assert e.graph_count == 1


def test_a_warm_call_compiles_nothing_and_reports_only_the_conversion():
    f = ast2graph.to_static(clipped_steps)
    x = jnp.array([1.0, -2.0, 3.0])
    assert_same(clipped_steps(x, 3), f(x, 3))
    e = f.explain(x, 3)
    assert_same(clipped_steps(x, 3), e.result)   # the warm call is still eager's result
    stages = e.stage_seconds
    # nothing was compiled by this call: only the function's own stages remain
    assert not {"typeinfer", "lower", "jit"} & set(stages)


def test_print_after_named_stages(monkeypatch, capsys):
    monkeypatch.setenv(PRINT_AFTER, "typeinfer, lower")

    def printed(x, n):
        return clipped_steps(x, n) + 1.0

    check(printed, jnp.array([1.0, -2.0, 3.0]), 3, full_graph=True)
    err = capsys.readouterr().err
    assert "after typeinfer ===" in err and "graph " in err
    assert "after lower ===" in err and "def lowered_" in err
    assert "after jit ===" not in err and "after parse ===" not in err


def test_print_after_all(monkeypatch, capsys):
    ast2graph.clear_caches()
    monkeypatch.setenv(PRINT_AFTER, "all")

    def every_stage(x):
        y = np.float32(2.0) * x
        return y.max()

    check(every_stage, jnp.arange(4.0), full_graph=True)
    err = capsys.readouterr().err
    for stage in ("parse", "resolve", "ssa", "typeinfer", "lower", "jit"):
        assert f"after {stage} ===" in err, stage
    assert "stablehlo" in err or "func.func" in err   # jit: the lowered StableHLO text


def test_nothing_is_printed_without_the_switch(monkeypatch, capsys):
    monkeypatch.delenv(PRINT_AFTER, raising=False)

    def quiet(x):
        return x + 1

    check(quiet, jnp.ones(2), full_graph=True)
    assert "ast2graph:" not in capsys.readouterr().err


def test_an_unknown_stage_name_warns_with_the_stage_names(monkeypatch):
    monkeypatch.setenv(PRINT_AFTER, "typeinfer,lowering")

    def named(x):
        return x * 3

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check(named, jnp.ones(2), full_graph=True)
    messages = [str(w.message) for w in caught if PRINT_AFTER in str(w.message)]
    assert messages and "lowering" in messages[0] and "typeinfer, verify, lower, load, jit" in messages[0]


@pytest.mark.parametrize("setting", ["", "all", "typeinfer"])
def test_printing_does_not_change_results_or_fallbacks(monkeypatch, capsys, setting):
    monkeypatch.setenv(PRINT_AFTER, setting)

    def with_fallback(x):
        n = int(x.sum())          # a shape that depends on the data: this site falls back
        return jnp.ones(n) * x[0]

    e = check(with_fallback, jnp.array([2.0, 1.0]), full_graph=False)
    assert [s.code.code for s in e.fallback_sites]
    capsys.readouterr()
