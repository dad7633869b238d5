"""Robustness of ``ast2graph report`` (issue 15, items 3 and 7).

The report never imports or executes the user's files, not even a module of
theirs that shadows a well-known library; it survives any input CPython
compiles; a file it cannot analyse is named in one line, never a traceback,
and every skipped file is said in each format and fails ``--strict``.

Most tests run the CLI in-process; the two import-isolation tests run it as
``python -m ast2graph.cli`` in a fresh interpreter, where ``sys.path[0]`` is
the working directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ast2graph.cli import main
from ast2graph.report import report_path

ROOT = Path(__file__).parents[1]

# A module that leaves a file IMPORTED_<name> next to itself when it runs.
MARKER_MODULE = ('import os\n'
                 'open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "IMPORTED_" + __name__), "w").close()\n')
# cmath: a well-known root not imported at start-up; numpy.f2py: a lazy
# submodule of numpy that imports `fileinput`, a stdlib module not loaded yet.
SHADOWED_TARGET = """\
import cmath
from numpy import f2py

def f(x):
    y = cmath.sqrt(x)
    print(y)
    return f2py.run_main(y)
"""
# RFC 3986 URI-reference characters: unreserved, reserved, percent-encoded.
URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-F]{2})*")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def write(path: Path, text: str) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def long_sum(n: int) -> str:
    return "def f(a):\n    x = " + " + ".join(["a"] * n) + "\n    return x.tobytes()\n"


def deep_list(n: int) -> str:
    return "def f(a):\n    x = " + "[" * n + "a" + "]" * n + "\n    return x\n"


def deep_unary(n: int) -> str:
    return "def f(a):\n    return " + "-" * n + "a\n"


def plant_markers(folder: Path) -> None:
    for name in ("cmath", "fileinput"):
        write(folder / f"{name}.py", MARKER_MODULE)


def markers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("IMPORTED_*"))


def cli_subprocess(args: list[str], cwd: Path, pythonpath: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *pythonpath])}
    return subprocess.run([sys.executable, "-m", "ast2graph.cli", "report", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def one_error_line(err: str, path: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"ast2graph: error: {path}: "), err
    return lines[0]


# ------------------------------------------------------------ import isolation
def test_module_in_working_directory_is_never_imported(tmp_path):
    plant_markers(tmp_path)
    write(tmp_path / "target.py", SHADOWED_TARGET)
    proc = cli_subprocess(["target.py", "--include-depends"], tmp_path, [])
    assert proc.returncode == 0, proc.stderr
    assert "target.py:5:9: A2G003" in proc.stdout  # the report ran: cmath.sqrt of a traced array is listed
    assert markers(tmp_path) == []


def test_module_in_target_folder_is_never_imported(tmp_path):
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    plant_markers(project)
    write(project / "target.py", SHADOWED_TARGET)
    elsewhere.mkdir()
    # the target's folder on sys.path (PYTHONPATH=. in a project, a script's folder)
    proc = cli_subprocess([str(project / "target.py")], elsewhere, [str(project)])
    assert proc.returncode == 0, proc.stderr
    assert markers(project) == []


def test_well_known_library_is_imported_from_the_installed_environment(tmp_path, monkeypatch):
    plant_markers(tmp_path)
    path = write(tmp_path / "target.py", "import cmath\n\ndef f(x):\n    return cmath.sqrt(x)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cmath", raising=False)
    assert [r.qualname for r in report_path(path)] == ["f"]
    assert markers(tmp_path) == []
    assert Path(sys.modules["cmath"].__file__).parent != tmp_path  # the stdlib's cmath was used
    assert sys.path[0] == str(tmp_path)  # sys.path is restored after the report


# ------------------------------------------------------------ deep input
def test_input_cpython_compiles_is_reported(capsys, tmp_path):
    sources = {"sum400.py": long_sum(400), "list180.py": deep_list(180), "sum2500.py": long_sum(2500),
               "unary2500.py": deep_unary(2500)}
    for name, src in sources.items():
        compile(src, name, "exec")
        rc, out, err = run(capsys, "report", write(tmp_path / name, src), "--format", "json")
        assert rc == 0 and "Traceback" not in err, (name, err)
        assert json.loads(out)["summary"]["functions"] == 1
    rc, out, err = run(capsys, "report", str(tmp_path / "sum400.py"), "--strict")
    assert rc == 1 and "sum400.py:3:" in out  # the sum's bytes (a value needed in Python): found, not skipped


def test_too_deep_single_file_is_one_line_error(capsys, tmp_path):
    for name, src in {"sum.py": long_sum(8000), "unary.py": deep_unary(8000)}.items():
        path = write(tmp_path / name, src)
        for argv in (["report", path], ["report", path, "--strict", "--format", "sarif"], ["show", path + "::f"]):
            rc, out, err = run(capsys, *argv)
            assert rc == 2 and out == "", (argv, out)
            assert "nested too deeply" in one_error_line(err, path)


def test_too_deep_file_in_directory_is_skipped_and_listed(capsys, tmp_path):
    write(tmp_path / "a_good.py", "def good(x):\n    print(x)\n    return x\n")
    write(tmp_path / "b_deep.py", long_sum(8000))
    write(tmp_path / "c_good.py", "def other(x):\n    return x\n")
    rc, out, err = run(capsys, "report", str(tmp_path), "--format", "json")
    data = json.loads(out)
    assert rc == 0 and "Traceback" not in err
    assert [f["qualname"] for f in data["functions"]] == ["good", "other"]
    assert [Path(e["file"]).name for e in data["errors"]] == ["b_deep.py"]
    assert "nested too deeply" in data["errors"][0]["message"]
    assert f"ast2graph: warning: skipped {tmp_path / 'b_deep.py'}: " in err
    rc, out, _ = run(capsys, "report", str(tmp_path))
    assert rc == 0 and f"error: {tmp_path / 'b_deep.py'}: " in out and "1 file(s) skipped" in out


# ------------------------------------------------------------ skipped files fail --strict
def test_skipped_files_fail_strict_and_sarif(capsys, tmp_path):
    write(tmp_path / "broken.py", "def oops(:\n")
    write(tmp_path / "sub" / "nul.py", "x = 1\0\n")
    rc, out, err = run(capsys, "report", str(tmp_path), "--strict", "--format", "sarif")
    assert rc == 2 and "Traceback" not in err
    invocation = json.loads(out)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    notes = invocation["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["error", "error"]
    uris = [n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for n in notes]
    assert uris == [(tmp_path / "broken.py").as_uri(), (tmp_path / "sub" / "nul.py").as_uri()]
    assert "syntax error" in notes[0]["message"]["text"]
    assert run(capsys, "report", str(tmp_path))[0] == 0  # without --strict: listed, exit 0
    # sites found and a file skipped: the error (2) wins over the sites (1)
    write(tmp_path / "sites.py", "def f(x):\n    return x.tobytes()\n")
    assert run(capsys, "report", str(tmp_path), "--strict")[0] == 2
    rc, out, _ = run(capsys, "report", str(tmp_path / "sites.py"), "--format", "sarif")
    assert rc == 0 and json.loads(out)["runs"][0]["invocations"][0]["executionSuccessful"] is True


# ------------------------------------------------------------ SARIF URIs
def test_sarif_uris_are_rfc3986_references(capsys, tmp_path, monkeypatch):
    write(tmp_path / "dir x" / "my file é.py", "def f(x):\n    return x.tobytes()\n")
    write(tmp_path / "dir x" / "a:b#c%.py", "def g(x):\n    return x.tobytes()\n")
    monkeypatch.chdir(tmp_path)
    rc, out, _ = run(capsys, "report", "dir x", "--format", "sarif", "--include-depends")
    results = json.loads(out)["runs"][0]["results"]
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results]
    assert rc == 0 and uris == ["dir%20x/a%3Ab%23c%25.py", "dir%20x/my%20file%20%C3%A9.py"]
    rc, out, _ = run(capsys, "report", str(tmp_path / "dir x" / "my file é.py"), "--format", "sarif",
                      "--include-depends")
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and uri.endswith("/dir%20x/my%20file%20%C3%A9.py")
    for u in uris + [uri]:
        assert URI_CHARS.fullmatch(u), u


# ------------------------------------------------------------ file size limit
def test_file_over_size_limit_is_skipped_with_clear_message(capsys, tmp_path):
    big = write(tmp_path / "big.py", "def f(x):\n    print(x)\n" + "# padding\n" * 200)
    size = os.path.getsize(big)
    rc, out, err = run(capsys, "report", big, "--max-file-size", "1000")
    line = one_error_line(err, big)
    assert rc == 2 and out == ""
    assert f"{size:,} bytes" in line and "1,000" in line and "--max-file-size" in line
    assert run(capsys, "report", big, "--max-file-size", "1kB")[0] == 2
    assert run(capsys, "report", big, "--max-file-size", str(size))[0] == 0
    assert run(capsys, "report", big, "--max-file-size", "0")[0] == 0  # 0: no limit
    write(tmp_path / "small.py", "def g(x):\n    print(x)\n")
    rc, out, err = run(capsys, "report", str(tmp_path), "--max-file-size", "1k", "--format", "json")
    data = json.loads(out)
    assert rc == 0 and [f["qualname"] for f in data["functions"]] == ["g"]
    assert [Path(e["file"]).name for e in data["errors"]] == ["big.py"]
    assert run(capsys, "report", str(tmp_path), "--max-file-size", "1k", "--strict")[0] == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["report", big, "--max-file-size", "lots"])
    assert exit_info.value.code == 2 and "--max-file-size" in capsys.readouterr().err


def test_default_size_limit_is_10_mb(capsys, tmp_path):
    path = tmp_path / "huge.py"
    with open(path, "w") as fh:
        fh.write("def f(x):\n    return x\n")
        fh.write(("#" * 99 + "\n") * 100_000)
    rc, _, err = run(capsys, "report", str(path))
    assert rc == 2 and "10,000,000" in one_error_line(err, str(path))


def test_a_file_edited_between_reports_is_read_again(tmp_path):
    """The report keeps a file's parse and its per-file analysis by the
    file's text (it reads a file once per function): an edit on disk between
    two reports, even to a file of the same size, is what the second one sees."""
    f = tmp_path / "mod.py"
    head = "import jax.numpy as jnp\nREGISTRY = {}\n\n\ndef g(x):\n    return REGISTRY.get('a', x)\n\n\n"
    f.write_text(head + "def f(x):\n    y = x + 1\n    return y\n")
    assert [r.sites for r in report_path(str(f), "f")] == [[]]
    f.write_text(head + "def f(x):\n    y = x + 1  # type-ish\n    return y, [int(x)] * int(x.sum())\n")
    assert [s.site.code.code for r in report_path(str(f), "f") for s in r.sites] != []
    # a statement added elsewhere that fills the registry: the survey knows g's read is not the literal's
    from ast2graph.survey import synthetic_module

    assert synthetic_module(str(f)).filled_by_others("g") == set()
    f.write_text(f.read_text() + "\nREGISTRY['a'] = 1\n")
    assert synthetic_module(str(f)).filled_by_others("g") == {"REGISTRY"}
    f.write_text(head + "def f(x):\n    y = x + 1\n    return y\n")
    assert [r.sites for r in report_path(str(f), "f")] == [[]]
