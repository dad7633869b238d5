"""The examples run, equal eager and make one graph (their main() checks both
and returns 0 only then); the new ones run at small sizes here."""

import runpy
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("name", list(SMALL))
def test_example_main(name, monkeypatch, capsys):
    if name == "equinox_model":
        pytest.importorskip("equinox")
    if name == "flax_nnx_model":
        pytest.importorskip("flax.nnx")
    monkeypatch.syspath_prepend(str(EXAMPLES))
    module = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="example")
    assert module["main"](**SMALL[name]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "eager == to_static: True" in out and "graphs run: 1" in out, out
    assert "eager == to_static: False" not in out, out
    if name != "newton_solver":
        assert "ast2graph report" in out and "always-fallback sites" in out, out
