"""docs/syntax-coverage.md is generated from the @covers records of this suite
(`python -m tests.syntax.coverage`): fail when it is stale, when some Python
3.11 statement or expression node type has no row, or when a record is malformed."""

import ast
import subprocess
import sys

import pytest

from . import coverage
from .coverage import DOC, HELPER_NODES, ROOT, Record, collect, python311_nodes, render


def test_every_python311_node_type_has_a_row():
    covered = {r.node for r in collect()}
    missing = [n for n in python311_nodes() + HELPER_NODES if n not in covered]
    assert not missing, f"ast node types with no test in tests/syntax: {missing}"


def test_helper_nodes_are_ast_node_types():
    assert all(isinstance(getattr(ast, n, None), type) and issubclass(getattr(ast, n), ast.AST) for n in HELPER_NODES)
    assert "| withitem | helper |" in render([])


def test_node_enumeration_is_the_ast_module():
    nodes = set(python311_nodes())
    concrete = {c.__name__ for base in (ast.stmt, ast.expr) for c in base.__subclasses__()
                if c.__module__ == "ast" and c._fields is not None and c.__name__ not in
                ("Num", "Str", "Bytes", "NameConstant", "Ellipsis")}
    assert concrete <= nodes
    if sys.version_info[:2] == (3, 11):
        assert len(nodes) == 27 + 27, sorted(nodes)   # 27 statement and 27 expression node types


def test_committed_table_is_current():
    text = render(collect())
    assert DOC.exists(), f"{DOC} is missing; run `{coverage.COMMAND}`"
    assert DOC.read_text() == text, f"{DOC.relative_to(ROOT)} is stale; run `{coverage.COMMAND}`"


def test_every_record_names_a_collected_test():
    records = collect()
    assert records and all(r.test.startswith("tests/syntax/test_") and "::test_" in r.test for r in records)
    for r in records:
        path, name = r.test.split("::")
        assert f"def {name}(" in (ROOT / path).read_text()


def test_covers_rejects_unknown_nodes_and_modes():
    with pytest.raises(ValueError):
        coverage.covers("Print", "one graph")
    with pytest.raises(ValueError):
        coverage.covers("If", "magic")
    with pytest.raises(ValueError):
        coverage.covers("If", "interpreted")      # needs the fallback code


def test_command_checks_the_table():
    out = subprocess.run([sys.executable, "-m", "tests.syntax.coverage", "--check"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_render_marks_an_uncovered_node():
    text = render([Record("If", "if", "pruned", test="tests/syntax/test_x.py::test_y")])
    assert "| While | stmt | **not covered** |" in text
