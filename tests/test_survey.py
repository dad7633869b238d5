"""The survey engine of the report (issue 17): typeinfer on abstract
arguments, reading the file without importing it, lists the run's sites.

Each case converts a function of tests/fixtures/survey_programs.py with
``explain`` on concrete inputs and checks that the survey of the same
function, read from the file, lists exactly the run's fallback sites (code
and line) as ``always`` sites.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain
from ast2graph.report import ALWAYS, DEPENDS, report_path
from ast2graph.survey import survey_function

FIXTURES = Path(__file__).parent / "fixtures"
PROGRAMS = str(FIXTURES / "survey_programs.py")
sys.path.insert(0, str(FIXTURES))
import survey_programs as P  # noqa: E402 - the file the survey reads, imported here to run it

CASES = [
    ("one_graph", (jnp.ones(3), jnp.ones(3))),
    ("shape_from_data", (jnp.ones(3),)),
    ("steps_loop", (jnp.ones(3), 4)),
    ("python_flag", (jnp.ones(3), True)),
    ("numpy_view_write", (np.arange(4.0),)),
    ("tolist_sum", (jnp.arange(3.0),)),
    ("calls_helper", (jnp.ones(3),)),
    ("traced_while", (jnp.ones(3),)),
    ("nested_closure", (jnp.ones(3), 2.0)),
    ("zeros_like_count", (jnp.ones(3), 3)),
    ("python_mode", (jnp.ones(3), 1)),
    ("cached_table", (jnp.ones(3), 2)),   # a module-level cache the function fills
    ("accept_until", (jnp.ones(3), 3)),   # while len(kept) < n: a bounded buffer when n is a Python int
    ("prefix_plus_range", (jnp.ones(5), 3)),   # operands that do not broadcast: x of lower rank, n an int
    ("timed_call", (jnp.tanh, jnp.ones(3))),   # a parameter called: a stand-in layer, the clock reads listed
    ("annotated_default", (jnp.ones(3),)),   # `s: float = -1.0`: the default's value, not the annotation's
]


def _run_sites(name: str, args: tuple) -> set[tuple[str, int]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(getattr(P, name))(*args)
    return {(s.code.code, s.loc.line) for s in e.fallback_sites}


def _survey_sites(name: str, kind: str = ALWAYS) -> set[tuple[str, int]]:
    return {(s.site.code.code, s.site.loc.line) for s in survey_function(PROGRAMS, name) if s.kind == kind}


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_survey_lists_the_runs_sites(name: str, args: tuple) -> None:
    assert _survey_sites(name) == _run_sites(name, args)


METHOD_CASES = [
    ("Scaler.__call__", lambda: P.Scaler(2.0), (jnp.ones(3),)),
    ("Scaler.sized", lambda: P.Scaler(2.0), (jnp.ones(3),)),
    ("Shifted.__call__", lambda: P.Shifted(0.5, 2), (jnp.ones(3),)),
    # self modelled from __init__ run abstractly: config fields and arithmetic of them Python ints, a literal
    # flag known (its branch pruned), an object of a class of the file built from its own __init__
    ("Head.__call__", lambda: P.Head(P.Config()), (jnp.ones(4),)),
]


@pytest.mark.parametrize("qualname,make,args", METHOD_CASES, ids=[c[0] for c in METHOD_CASES])
def test_survey_of_a_method_lists_the_runs_sites(qualname: str, make, args: tuple) -> None:
    # self: an object of the class rebuilt from its source (__init__'s assignments), never constructed
    method = getattr(make(), qualname.split(".")[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = {(s.code.code, s.loc.line) for s in explain(method)(*args).fallback_sites}
    assert _survey_sites(qualname) == run


@pytest.mark.parametrize("qualname,make,args", [
    ("make_counter.<locals>.step", lambda: P.make_counter(), (jnp.ones(3),)),
    ("make_sizer.<locals>.sized", lambda: P.make_sizer(2.0), (jnp.ones(3),)),
], ids=["counter", "sizer"])
def test_survey_of_a_named_closure_lists_the_runs_sites(qualname: str, make, args: tuple) -> None:
    # made from its code object in the enclosing source-only function, never by calling it
    assert _survey_sites(qualname) == {(s.code.code, s.loc.line) for s in
                                       explain(make())(*args).fallback_sites}
    assert qualname not in {r.qualname for r in report_path(PROGRAMS)}   # listed only when named


def test_a_value_needed_from_a_parameter_depends_on_it() -> None:
    # jnp.zeros(n): one graph when n is a Python int (the run's), a fallback if a traced array
    sites = survey_function(PROGRAMS, "zeros_like_count")
    assert [s.kind for s in sites] == [DEPENDS]
    assert "`n` is a traced array" in sites[0].site.cause
    assert _run_sites("zeros_like_count", (jnp.ones(3), 3)) == set()


@pytest.mark.parametrize("name,args,traced", [
    ("accept_until", (jnp.ones(3), 3), (jnp.ones(3), jnp.array(3))),
    ("prefix_plus_range", (jnp.ones(5), 3), None),
], ids=["length_bound", "lower_rank"])
def test_a_bound_or_size_depends_on_being_a_python_int(name: str, args: tuple, traced: tuple | None) -> None:
    # the run is one graph with a Python int n; the report lists its sites as depending on `n` only
    sites = survey_function(PROGRAMS, name)
    assert sites and all(s.kind == DEPENDS and "`n` is a traced array" in s.site.cause for s in sites)
    assert _run_sites(name, args) == set()
    if traced is not None:   # and with n a traced 0-d array the run falls back where the report says
        assert _run_sites(name, traced) == {(s.site.code.code, s.site.loc.line) for s in sites}


def test_a_raise_under_a_test_of_a_parameter_depends_on_it() -> None:
    # caught in the function: one graph for a Python number `limit` (the if decided at trace time), a
    # fallback for a traced one: depends on its kind
    sites = survey_function(PROGRAMS, "raise_below")
    assert [s.kind for s in sites] == [DEPENDS] and "`limit` is a traced array" in sites[0].site.cause
    assert _run_sites("raise_below", (jnp.ones(3), jnp.array(1.0))) == {(s.site.code.code, s.site.loc.line)
                                                                        for s in sites}
    assert _run_sites("raise_below", (jnp.ones(3), 1.0)) == _run_sites("raise_below", (jnp.ones(3), 10.0)) == set()
    # through a context manager that re-raises: a fallback for some values of a Python `limit` only
    sites = survey_function(PROGRAMS, "raise_below_in_manager")
    assert {s.kind for s in sites} == {DEPENDS} and all("depends on values" in s.site.cause or
                                                        "`limit` is a traced array" in s.site.cause for s in sites)
    run = _run_sites("raise_below_in_manager", (jnp.ones(3), 1.0))
    assert run and run <= {(s.site.code.code, s.site.loc.line) for s in sites}
    assert not _run_sites("raise_below_in_manager", (jnp.ones(3), 10.0))


def test_report_path_is_the_survey() -> None:
    reports = report_path(PROGRAMS, "shape_from_data")
    assert [r.qualname for r in reports] == ["shape_from_data"]
    assert reports[0].of_kind(ALWAYS)


def test_survey_runs_nothing_of_the_file() -> None:
    # the module body, the decorator, the default expression and the class body all raise if run
    # and a helper that writes os.environ, called with static arguments, is analysed, never called
    path = str(FIXTURES / "survey_no_execution.py")
    reports = report_path(path)
    assert {r.qualname for r in reports} == {"boom", "decorated", "annotated", "touches_environment",
                                             "calls_with_static_arguments", "Model.__init__", "Model.forward"}
    assert all(r.error is None for r in reports)
    assert "survey_no_execution" not in sys.modules
    assert "A2G_SURVEY_RAN" not in os.environ


def test_cli_report_is_the_survey(capsys) -> None:
    import json

    from ast2graph.cli import main

    rc = main(["report", f"{PROGRAMS}::shape_from_data", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    sites = [s for f in data["functions"] for s in f["sites"]]
    assert [(s["code"], s["line"], s["kind"]) for s in sites] == [("A2G003", 17, ALWAYS)]



def test_a_guess_eager_refuses_lists_no_site() -> None:
    """``for mod in self.layers: x = mod(x)``: the survey cannot know the
    attribute holds callables; under the kinds it tries (arrays) eager raises
    at the call, which says only that the guess was wrong, not that the
    function falls back: nothing listed, even as depends. The run agrees: one
    graph."""
    path = str(Path(__file__).resolve().parents[1] / "examples" / "transformer_decoder.py")
    reports = report_path(path, "TransformerDecoder.__call__")
    assert [r.qualname for r in reports] == ["TransformerDecoder.__call__"]
    assert not reports[0].of_kind(ALWAYS) and not reports[0].of_kind(DEPENDS)


LAYERS_SOURCE = '''\
import jax.numpy as jnp
from flax import nnx


class Tiny(nnx.Module):
    def __init__(self, d, depth, rngs):
        self.embed = nnx.Linear(d, d, rngs=rngs)
        self.blocks = nnx.List([nnx.Linear(d, d, rngs=rngs) for _ in range(depth)])
        self.count = nnx.Variable(jnp.array(0, jnp.int32))
        self.clip = 3.0

    def __call__(self, x):
        self.count[...] += 1
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return jnp.clip(x, -self.clip, self.clip)
'''


def test_survey_of_a_module_built_from_library_layers(tmp_path) -> None:
    # __init__ run abstractly: nnx.Variable of a literal array is built (flax is a known library), the
    # layers built from unknown sizes are stand-in layers once eager refuses to call an array: the
    # report lists what the run does (one graph: the counter's write is flax state written back)
    from flax import nnx

    from report_helpers import assert_agrees

    path = tmp_path / "tiny_module.py"
    path.write_text(LAYERS_SOURCE)
    assert_agrees(str(path), {"Tiny.__call__": (lambda ns: ns["Tiny"](4, 2, nnx.Rngs(0)).__call__,
                                                (jnp.ones((2, 4)),))})


def test_the_init_model_calls_no_effect(tmp_path) -> None:
    # __init__ is run abstractly: a known library's call that acts on files or settings is never made
    made, saved = tmp_path / "made", tmp_path / "saved.npy"
    path = tmp_path / "effects.py"
    path.write_text(f'''\\
import os

import jax
import numpy as np


class Effects:
    def __init__(self):
        self.made = os.makedirs({str(made)!r})
        self.saved = np.save({str(saved)!r}, np.zeros(2))
        self.x64 = jax.config.update("jax_enable_x64", True)
        self.width = np.zeros(3)

    def __call__(self, x):
        return x + self.width
''')
    # (the method only: surveying __init__ itself traces it, and typeinfer runs np.save on constants at trace
    # time, as to_static does: a separate problem)
    reports = report_path(str(path), "Effects.__call__")
    assert [r.qualname for r in reports] == ["Effects.__call__"] and reports[0].error is None
    assert not made.exists() and not saved.exists()
    assert not jax.config.jax_enable_x64
