"""Tests of the ``ast2graph`` command line (report / show / codes).

The report never imports the files it reads: tests/fixtures/report_sample.py
raises RuntimeError at import, and every report of it must still succeed.
What the report lists is what the run does: each function of the fixture is
run with ``explain`` on real inputs (its text compiled without that raise,
the lines kept) and the report's always sites are exactly the run's sites.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from report_helpers import assert_agrees, import_after_report, report_sites, run_sites

from ast2graph.cli import main
from ast2graph.fallback.sites import FallbackCode
from ast2graph.report import ALWAYS, DEPENDS, report_path

FIXTURE = str(Path(__file__).parent / "fixtures" / "report_sample.py")
FUNCTIONS = ["effects", "control", "mutation", "Model.step", "Model.forward", "clean", "gen", "sized"]
# the real inputs each function of the fixture is run on (Model.forward opens log.txt: run in a folder that has it)
CALLS = {
    "effects": (jnp.ones(3),),
    "control": (jnp.arange(4.0) - 1, 3),
    "mutation": (np.arange(3.0),),
    "Model.step": (jnp.ones(3),),
    "Model.forward": (jnp.ones(3),),
    "clean": (jnp.ones(3),),
    "gen": (3,),
    "sized": (jnp.ones(3), 4),
}
IGNORED_LINE = 45   # `with open(...)  # ast2graph: ignore`: a site of the run the report suppresses


def _fixture_run(tmp_path, monkeypatch) -> dict[str, set[tuple[str, int]]]:
    """The run's sites of each function of the fixture, on CALLS."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "log.txt").write_text("")
    text = Path(FIXTURE).read_text().replace('raise RuntimeError("imported")', "", 1)
    ns = import_after_report(FIXTURE, text)
    out = {}
    for qualname, args in CALLS.items():
        owner, _, method = qualname.partition(".")
        fn = getattr(ns[owner](), method) if method else ns[owner]
        out[qualname] = run_sites(fn, *args)
    return out


@pytest.fixture(scope="module")
def fixture_run(tmp_path_factory) -> dict[str, set[tuple[str, int]]]:
    mp = pytest.MonkeyPatch()
    try:
        return _fixture_run(tmp_path_factory.mktemp("fixture_run"), mp)
    finally:
        mp.undo()


def _always(fixture_run) -> list[tuple[str, int, str, str]]:
    """(qualname, line, code, kind) of the sites the report must list by default: the run's, in order."""
    return sorted(((q, line, code, ALWAYS) for q, sites in fixture_run.items() for code, line in sites
                   if line != IGNORED_LINE), key=lambda t: (FUNCTIONS.index(t[0]), t[1]))
SITE_KEYS = {"code", "title", "file", "line", "col", "construct", "cause", "effect",
             "stage", "loop_depth", "hint", "source", "kind"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def write(tmp_path: Path, name: str, src: str) -> str:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(src))
    return str(path)


def sites_of_report(path: str) -> list:
    return [s for r in report_path(path) for s in r.sites]


def sites_of(reports) -> list[tuple[str, int, str, str]]:
    return [(r.qualname, s.site.loc.line, s.site.code.code, s.kind) for r in reports for s in r.sites]


# ------------------------------------------------------------------ report API
def test_fixture_is_never_imported():
    assert 'raise RuntimeError("imported")' in Path(FIXTURE).read_text()
    reports = report_path(FIXTURE)
    assert "report_sample" not in sys.modules
    assert [r.qualname for r in reports] == FUNCTIONS


def test_report_lists_exact_sites(fixture_run):
    reports = report_path(FIXTURE)
    assert [t for t in sites_of(reports) if t[3] == ALWAYS] == _always(fixture_run)
    assert ("A2G002", 14) in fixture_run["effects"]   # the fixture still shows what the tests below read
    site = reports[0].sites[0].site
    assert site.stage == "report" and site.loc.line == 14 and site.loc.function == "effects"
    assert "numpy.random.normal" in site.cause
    assert [(s.site.loc.line, s.kind) for s in reports[-1].sites] == [(61, DEPENDS)]
    assert "`n` is a traced array" in reports[-1].sites[0].site.cause and not fixture_run["sized"]


def test_static_resolution_through_imports_and_scopes(tmp_path):
    path = write(tmp_path, "m.py", """\
        import time as clock
        from numpy import random as npr
        import jax.numpy as jnp

        def f(x):
            t = clock.perf_counter()
            k = npr.uniform()
            return jnp.sin(x) + k

        def g(x):
            import random
            return x * random.random()
    """)
    assert_agrees(path, {"f": (lambda ns: ns["f"], (jnp.ones(3),)), "g": (lambda ns: ns["g"], (jnp.ones(3),))})
    assert report_sites(path, "f") == {("A2G002", 6), ("A2G002", 7)}   # the imports resolved to the libraries


def test_static_conditions_are_not_sites(tmp_path):
    path = write(tmp_path, "m.py", """\
        DEBUG = False

        def f(x, n):
            if DEBUG:
                x = x + 1
            if x is None or x.ndim == 2 or isinstance(x, int):
                return x
            while True:
                break
            return x
    """)
    assert report_path(path)[0].sites == []


# ------------------------------------------------------------------ text / json / sarif
def test_text_output(capsys, fixture_run):
    rc, out, _ = run(capsys, "report", FIXTURE)
    assert rc == 0
    assert f"{FIXTURE}:12: effects" in out
    assert f"{FIXTURE}:14:9: A2G002 [always] call with a Python side effect" in out
    assert "      y = np.random.normal(size=3)\n          ^\n" in out
    assert "hint: hoist the call" in out
    assert "[depends]" not in out  # input-dependent sites need --possible
    always = len(_always(fixture_run))
    assert out.rstrip().splitlines()[-1] == f"8 functions, {always} always-fallback sites, 1 input-dependent sites"


def test_text_include_depends(capsys):
    rc, out, _ = run(capsys, "report", FIXTURE, "--include-depends")
    assert rc == 0
    assert f"{FIXTURE}:61:22: A2G003 [depends]" in out


def test_json_output(capsys, fixture_run):
    rc, out, _ = run(capsys, "report", FIXTURE, "--format", "json", "--include-depends")
    data = json.loads(out)
    assert rc == 0 and data["version"] == 1
    assert data["summary"] == {"functions": 8, "always": len(_always(fixture_run)), "depends": 1, "errors": 0}
    fns = data["functions"]
    assert [f["qualname"] for f in fns] == FUNCTIONS
    assert all(set(f) == {"qualname", "file", "line", "sites"} for f in fns)
    sites = [(f["qualname"], s["line"], s["code"], s["kind"]) for f in fns for s in f["sites"]]
    assert [t for t in sites if t[3] == ALWAYS] == _always(fixture_run)
    first = fns[0]["sites"][0]
    assert set(first) == SITE_KEYS
    assert (first["col"], first["source"], first["stage"]) == (9, "y = np.random.normal(size=3)", "report")


def test_json_without_depends_lists_always_only(capsys):
    _, out, _ = run(capsys, "report", FIXTURE, "--format", "json")
    kinds = {s["kind"] for f in json.loads(out)["functions"] for s in f["sites"]}
    assert kinds == {"always"}


def test_sarif_output(capsys):
    rc, out, _ = run(capsys, "report", FIXTURE, "--format", "sarif", "--include-depends")
    log = json.loads(out)
    assert rc == 0 and log["version"] == "2.1.0" and "sarif" in log["$schema"]
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "ast2graph"
    assert [r["id"] for r in driver["rules"]] == [c.code for c in FallbackCode]
    assert all(r["shortDescription"]["text"] for r in driver["rules"])
    results = log["runs"][0]["results"]
    assert len(results) == len(sites_of(report_path(FIXTURE)))
    first = results[0]
    assert first["ruleId"] == "A2G002" and first["level"] == "warning"
    assert "side effect" in first["message"]["text"]
    phys = first["locations"][0]["physicalLocation"]
    assert phys["artifactLocation"]["uri"].endswith("tests/fixtures/report_sample.py")
    assert phys["region"] == {"startLine": 14, "startColumn": 9}
    levels = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r["level"] for r in results}
    assert levels[("A2G003", 61)] == "note" and levels[("A2G013", 56)] == "warning"


# ------------------------------------------------------------------ exit codes, suppression
def test_strict_exit_codes(capsys, tmp_path):
    assert run(capsys, "report", FIXTURE, "--strict")[0] == 1
    clean = write(tmp_path, "clean.py", """\
        import jax.numpy as jnp

        def f(x, n):
            if x.sum() > 0:
                x = x * 2
            return jnp.sin(x) + jnp.zeros(n)
    """)
    rc, out, _ = run(capsys, "report", clean, "--strict")
    assert rc == 0
    assert out.rstrip().splitlines()[-1] == "1 functions, 0 always-fallback sites, 1 input-dependent sites"
    assert_agrees(clean, {"f": (lambda ns: ns["f"], (jnp.ones(3), 3))})


def test_suppression_comments(capsys, tmp_path, fixture_run):
    reports = report_path(FIXTURE)
    lines = {s.site.loc.line for r in reports for s in r.sites}
    assert ("A2G001", IGNORED_LINE) in fixture_run["Model.forward"] and IGNORED_LINE not in lines  # a bare ignore
    path = write(tmp_path, "s.py", """\
        def f(x):
            a = x.tobytes()  # ast2graph: ignore[A2G007]
            b = x.tobytes()  # ast2graph: ignore[A2G007, A2G003]
            c = x.tobytes()  # ast2graph: ignore
            s = "# ast2graph: ignore"; d = x.tobytes()
            return a, b, c, d, s
    """)
    assert [s.site.loc.line for s in report_path(path)[0].sites] == [2, 5]
    assert {line for _, line in run_sites(import_after_report(path)["f"], jnp.ones(3))} == {2, 3, 4, 5}


def test_directory_mode(capsys, tmp_path):
    write(tmp_path, "pkg/a.py", "def a(x):\n    return x.tobytes()\n")
    write(tmp_path, "pkg/sub/b.py", "import numpy as np\n\ndef b(x, n):\n    return x + np.zeros(n)\n")
    write(tmp_path, "pkg/broken.py", "def oops(:\n")
    write(tmp_path, "pkg/.hidden/c.py", "def c(x):\n    return x.tobytes()\n")
    rc, out, err = run(capsys, "report", str(tmp_path / "pkg"), "--format", "json")
    data = json.loads(out)
    assert rc == 0
    assert [(Path(f["file"]).name, f["qualname"]) for f in data["functions"]] == [("a.py", "a"), ("b.py", "b")]
    assert [(Path(e["file"]).name, e["line"]) for e in data["errors"]] == [("broken.py", 1)]
    assert data["summary"] == {"functions": 2, "always": 1, "depends": 1, "errors": 1}
    assert "broken.py:1" in err
    assert run(capsys, "report", str(tmp_path / "pkg"), "--strict")[0] == 2  # a skipped file is an error


def test_qualname_selection(capsys, fixture_run):
    rc, out, _ = run(capsys, "report", f"{FIXTURE}::control", "--format", "json", "--include-depends")
    fns = json.loads(out)["functions"]
    assert rc == 0 and [f["qualname"] for f in fns] == ["control"]
    assert {(s["code"], s["line"]) for s in fns[0]["sites"]} == fixture_run["control"]
    _, out, _ = run(capsys, "report", f"{FIXTURE}::Model", "--format", "json")
    assert [f["qualname"] for f in json.loads(out)["functions"]] == ["Model.step", "Model.forward"]
    rc, out, err = run(capsys, "report", f"{FIXTURE}::nope")
    assert rc == 2 and "nope" in err and "Traceback" not in err


def test_syntax_error_exits_2(capsys, tmp_path):
    path = write(tmp_path, "bad.py", "x = 1\n\ndef f(:\n    pass\n")
    rc, out, err = run(capsys, "report", path)
    assert rc == 2 and out == ""
    assert f"{path}:3" in err and "Traceback" not in err
    rc, _, err = run(capsys, "report", str(tmp_path / "missing.py"))
    assert rc == 2 and "missing.py" in err


# ------------------------------------------------------------------ show / codes
def test_show_prints_cfg_and_phis(capsys):
    rc, out, _ = run(capsys, "show", f"{FIXTURE}::control", "--ssa")
    assert rc == 0
    assert out.startswith("# control (")
    assert "x.3 = phi(" in out and "live-in:" in out
    rc, out, _ = run(capsys, "show", f"{FIXTURE}::control")
    assert rc == 0 and "succs" in out and "phi(" not in out
    assert "L20: if x.sum() > 0:" in out
    rc, _, err = run(capsys, "show", f"{FIXTURE}::missing")
    assert rc == 2 and "missing" in err


def test_codes_table(capsys):
    rc, out, _ = run(capsys, "codes")
    assert rc == 0
    for code in FallbackCode:
        assert code.code in out and code.title in out and code.hint in out


# ------------------------------------------------------------------ console script
def test_console_script_runs_report():
    script = Path(sys.executable).parent / "ast2graph"
    assert script.exists(), f"console script not installed next to {sys.executable}"
    proc = subprocess.run([str(script), "report", FIXTURE, "--strict", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["summary"]["always"] == sum(s.kind == ALWAYS for s in sites_of_report(FIXTURE))
    assert "RuntimeError" not in proc.stderr


def test_docs_list_every_code():
    doc = (Path(__file__).parents[1] / "docs" / "fallback-codes.md").read_text()
    for code in FallbackCode:
        assert f"### {code.code} — {code.title}" in doc
        assert f"| {code.code} | {code.title} | {code.hint} |" in doc


def test_local_containers_and_function_level_sites(tmp_path):
    path = write(tmp_path, "m.py", """\
        def f(x, n):
            d = {}
            d["a"] = x
            out = []
            for i in range(n):
                out.append(x[i])
            return out, d

        async def g(x):
            return x
    """)
    assert_agrees(path, {"f": (lambda ns: ns["f"], (np.arange(4.0), 3))})
    got = [(r.qualname, s.site.loc.line, s.site.code.code, s.kind) for r in report_path(path) for s in r.sites]
    # the list grows by a traced count when n is a traced array (one graph with a Python int);
    # to_static refuses an async def (UnsupportedSyntaxError)
    assert got == [("f", 5, "A2G005", DEPENDS), ("g", 9, "A2G001", ALWAYS)]
    assert ("A2G005", 5) in run_sites(import_after_report(path)["f"], np.arange(4.0), jnp.array(3))


# ------------------------------------------------------------------ explain (opt-in import mode)
def test_explain_imports_and_reports_a_real_call(capsys, tmp_path):
    path = write(tmp_path, "mod_explain.py", """\
        import jax.numpy as jnp

        def f(x, n):
            for i in range(n):
                if x.sum() > 3:
                    x = x / 2
            return x
    """)
    rc, out, _ = run(capsys, "explain", f"{path}::f", "--args", "jnp.ones(4), 3", "--ir", "--lowered")
    assert rc == 0
    assert "graphs run: 1" in out and "if -> lax.cond" in out and "for -> unrolled" in out
    assert "graph f(" in out and "lax.cond" in out
    rc, out, _ = run(capsys, "explain", f"{path}::f", "--args", "jnp.ones(4), 40", "--format", "json")
    data = json.loads(out)
    assert data["graphs"] == 1 and data["fallback_sites"] == []
    assert {d["mode"] for d in data["decisions"]} >= {"lax.cond", "lax.fori_loop"}
    assert {"typeinfer", "lower", "jit"} <= set(data["stage_seconds"])   # seconds per named stage (pipeline.py)


def test_explain_bad_input_is_one_line_error(capsys, tmp_path):
    path = write(tmp_path, "mod_explain2.py", "def f(x):\n    return x\n")
    rc, _, err = run(capsys, "explain", f"{path}::g", "--args", "1")
    assert rc == 2 and "no attribute 'g'" in err
    rc, _, err = run(capsys, "explain", f"{path}::f", "--args", "1 +")
    assert rc == 2 and "--args" in err


def test_nested_generator_and_contextlib_suppress(tmp_path):
    """A function that merely contains a nested generator is not a generator
    function (it is converted, the generator inlined where it is consumed);
    contextlib.suppress resolves statically and stays in the graph (issue 16
    parts 4 and 5): the report says what the run does."""
    path = write(tmp_path, "m.py", """\
        import contextlib

        def f(x):
            def batches(x):
                for i in range(0, x.shape[0], 2):
                    yield x[i:i + 2]
            t = 0.0
            for b in batches(x):
                t = t + b.sum()
            return t

        def g(x, d):
            scale = 1.0
            with contextlib.suppress(ZeroDivisionError):
                scale = 1.0 / d
            return x * scale

        def h(n):
            yield n
    """)
    got = [(r.qualname, s.site.loc.line, s.site.code.code, s.kind) for r in report_path(path) for s in r.sites]
    assert got == [("h", 18, "A2G013", "always")]
    assert_agrees(path, {"f": (lambda ns: ns["f"], (jnp.arange(6.0),)), "g": (lambda ns: ns["g"], (jnp.ones(3), 0.0)),
                         "h": (lambda ns: ns["h"], (3,))})


def test_report_agrees_with_the_run_on_nested_generators_and_suppress():
    """What the report says for these two is what the run does: one graph."""
    import contextlib

    import jax.numpy as jnp
    from helpers import check

    def f(x):
        def batches(x):
            for i in range(0, x.shape[0], 2):
                yield x[i:i + 2]
        t = 0.0
        for b in batches(x):
            t = t + b.sum()
        return t

    def g(x, d):
        scale = 1.0
        with contextlib.suppress(ZeroDivisionError):
            scale = 1.0 / d
        return x * scale

    check(f, jnp.arange(6.0), graphs=1)
    check(g, jnp.arange(3.0), 0.0, graphs=1)
    check(g, jnp.arange(3.0), 2.0, graphs=1)


def test_raise_under_a_condition_that_may_be_traced_is_not_listed(tmp_path):
    """`raise` under an `if` whose condition may be traced is a run-time check
    in the graph (one graph, eager's exception when the path is taken): not a
    site; nor is a raise reached on a static path of the function itself: a
    run-time check that always fires after the graph of what came before."""
    from helpers import check

    path = write(tmp_path, "m.py", """\
        def f(x, lo, hi):
            if x.sum() * lo > hi:
                raise ValueError("root not bracketed")
            return x * 2

        def g(x):
            raise ValueError("always")
    """)
    got = [(r.qualname, s.site.loc.line, s.site.code.code, s.kind) for r in report_path(path) for s in r.sites]
    assert got == []

    def f(x, lo, hi):
        if x.sum() * lo > hi:
            raise ValueError("root not bracketed")
        return x * 2

    check(f, jnp.arange(3.0), 1.0, 10.0, graphs=1)
    check(f, jnp.arange(3.0), 1.0, 0.0, graphs=1)

    def g(x):
        raise ValueError("always")

    check(g, jnp.arange(3.0))   # full_graph: eager's ValueError, no FullGraphError


def test_help_and_import_do_not_import_jax():
    """``ast2graph --help`` and ``import ast2graph`` stay light: JAX is
    imported only by the commands and names that need it (issue 18)."""
    code = textwrap.dedent("""
        import sys
        import ast2graph
        assert "jax" not in sys.modules, "import ast2graph imported jax"
        from ast2graph.cli import main
        try:
            main(["--help"])
        except SystemExit as e:
            assert e.code == 0
        assert "jax" not in sys.modules, "ast2graph --help imported jax"
        from ast2graph import to_static
        assert "jax" in sys.modules and callable(to_static)
        # the class of jax.Array values is found without making one (jax.device_put
        # imports jax.experimental.multihost_utils, ~55 ms of a process's first to_static)
        assert "jax.experimental.multihost_utils" not in sys.modules
        from ast2graph.graphlib.arrays import ARRAY_IMPL
        import jax.numpy as jnp
        assert type(jnp.zeros(2)) is ARRAY_IMPL
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_cli_default_file_size_is_reports():
    from ast2graph import cli, report

    assert cli.MAX_FILE_SIZE == report.MAX_FILE_SIZE


def test_several_paths_in_one_report(capsys, tmp_path):
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def f(x):\n    print(x)\n    return x\n")
    b.write_text("def g(x):\n    open('log').write('x')\n    return x\n")
    rc, out, _ = run(capsys, "report", str(a), f"{b}::g", "--format", "json", "--possible")
    assert rc == 0
    names = [(f["file"], f["qualname"]) for f in json.loads(out)["functions"]]
    assert names == [(str(a), "f"), (str(b), "g")]


def _project(tmp_path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n\n" + table)
    src = tmp_path / "pkg"
    src.mkdir(exist_ok=True)
    (src / "m.py").write_text("def f(x):\n    open('log').write('x')\n    return x\n")
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "tests" / "t.py").write_text("def g(x):\n    open('log').write('x')\n    return x\n")
    return tmp_path


def _codes(out: str) -> dict[str, list[str]]:
    return {f["qualname"]: [s["code"] for s in f["sites"]] for f in json.loads(out)["functions"]}


def test_pyproject_settings_strict_ignore_and_per_file_ignores(capsys, tmp_path):
    root = _project(tmp_path, "")
    rc, out, _ = run(capsys, "report", str(root / "pkg"), str(root / "tests"), "--format", "json")
    baseline = _codes(out)
    assert rc == 0 and baseline["f"] and baseline["g"]
    code = baseline["f"][0]
    _project(tmp_path, f'[tool.ast2graph]\nstrict = true\n\n[tool.ast2graph.per-file-ignores]\n"tests/*" = ["{code}"]\n')
    rc, out, _ = run(capsys, "report", str(root / "pkg"), str(root / "tests"), "--format", "json")
    assert _codes(out)["g"] == [c for c in baseline["g"] if c != code]
    assert _codes(out)["f"] == baseline["f"]
    assert rc == 1   # strict from pyproject.toml: an always site remains
    rc, _, _ = run(capsys, "report", str(root / "pkg"), "--no-config")
    assert rc == 0
    _project(tmp_path, f'[tool.ast2graph]\nignore = ["{code}"]\n')
    rc, out, _ = run(capsys, "report", str(root / "pkg"), "--format", "json")
    assert code not in _codes(out)["f"]


@pytest.mark.parametrize("table, message", [
    ("[tool.ast2graph]\nstrickt = true\n", "unknown key 'strickt'"),
    ("[tool.ast2graph]\nignore = ['A2G999']\n", "unknown fallback code(s) A2G999"),
    ("[tool.ast2graph]\nstrict = 'yes'\n", "strict: 'yes' is not a valid value"),
    ("[tool.ast2graph\n", "not valid TOML"),
])
def test_bad_settings_are_an_error_naming_the_file(capsys, tmp_path, table, message):
    root = _project(tmp_path, table)
    rc, _, err = run(capsys, "report", str(root / "pkg"))
    assert rc == 2 and "pyproject.toml" in err and message in err
