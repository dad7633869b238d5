"""The examples run, equal eager and make one graph (their main() checks both)."""

import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("name", ["newton_solver", "transformer_decoder"])
def test_example_main(name, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(EXAMPLES))
    module = runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="example")
    assert module["main"]() == 0
    out = capsys.readouterr().out
    assert "eager == to_static: True" in out and "graphs run: 1" in out
