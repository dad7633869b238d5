"""The examples run, equal eager and make one graph (their main() checks both
and returns 0 only then); the new ones run at small sizes here. The report
agrees with these runs (issue 17: tests/test_report_agreement.py holds the
table and the floors): every ``explain`` the runs make is recorded."""

import runpy
from pathlib import Path

import pytest

from benchmarks.report_agreement import EXAMPLES as ALL_EXAMPLES
from benchmarks.report_agreement import example_rows, example_run_rows

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

SMALL = {
    "newton_solver": {},
    "transformer_decoder": dict(num_layers=2, d=16, d_ff=32, tgt_len=8, mem_len=8, repeat=3),
    "decision_transformer_attention": dict(batch=2, seq=8, past=4, hidden=32, heads=4, repeat=3),
    "rnn_early_stop": dict(T=60, n_in=4, hidden=8, n_out=2, repeat=3),
    "numpy_model": dict(steps=24, n_in=3, hidden=6, repeat=3),
    "equinox_model": dict(batch=8, d=16, d_ff=32, depth=2, n_out=4, repeat=3),
    "flax_nnx_model": dict(batch=8, d_in=4, d=8, d_ff=16, depth=2, n_out=3, calls=2, repeat=3),
}


RECORDED: dict = {}   # example -> its rows for the report's agreement (benchmarks/report_agreement.py)


@pytest.mark.parametrize("name", list(SMALL))
def test_example_main(name, monkeypatch, capsys):
    if name == "equinox_model":
        pytest.importorskip("equinox")
    if name == "flax_nnx_model":
        pytest.importorskip("flax.nnx")
    monkeypatch.syspath_prepend(str(EXAMPLES))
    module = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="example")
    status, RECORDED[name] = example_run_rows(name, lambda: module["main"](**SMALL[name]))
    assert status == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "eager == to_static: True" in out and "graphs run: 1" in out, out
    assert "eager == to_static: False" not in out, out
    if name != "newton_solver":
        assert "ast2graph report" in out and "always-fallback sites" in out, out


def test_report_agrees_with_the_examples_runs():
    """The default report lists an example's function exactly when it falls
    back in the runs above (an example they did not run here, under ``-k``,
    is run now)."""
    from test_report_agreement import (EXAMPLES_PRECISION_FLOOR, EXAMPLES_RECALL_FLOOR, EXAMPLES_WRONGLY_LISTED,
                                       check_agreement)

    assert set(SMALL) == set(ALL_EXAMPLES)
    rows = [r for name in ALL_EXAMPLES if name in RECORDED for r in RECORDED[name]]
    rows += example_rows([name for name in ALL_EXAMPLES if name not in RECORDED])
    assert {r.name.split(":")[0] for r in rows} == set(ALL_EXAMPLES)   # every script converts a function
    check_agreement(rows, EXAMPLES_RECALL_FLOOR, EXAMPLES_PRECISION_FLOOR, EXAMPLES_WRONGLY_LISTED)
