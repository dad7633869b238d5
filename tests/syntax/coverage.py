"""Machine-readable coverage records of the syntax suite, and the generator of
docs/syntax-coverage.md.

Each test of ``tests/syntax`` carries one or more ``@covers(node, mode, ...)``
records: which Python 3.11 ``ast`` node type (statement or expression, or
one of the helper nodes ``ExceptHandler``, ``match_case``, ``withitem``) it
converts, in which form, what mode ast2graph gives it today (the test itself
asserts that mode against the eager run), and the caveat, if any. The table
is collected from the imported test modules, so it cannot name a test that
does not exist.

Regenerate the table (and check it is current) with::

    python -m tests.syntax.coverage            # writes docs/syntax-coverage.md
    python -m tests.syntax.coverage --check    # exit 1 when the file is stale

(from the repository root; ``python tests/syntax/coverage.py`` works too).

``tests/syntax/test_coverage_table.py`` fails when the committed table is
stale or when some Python 3.11 ``ast.stmt``/``ast.expr`` node type or helper
node type has no row.
"""

from __future__ import annotations

import _ast
import ast
import importlib
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

TESTS_DIR = Path(__file__).resolve().parent.parent
ROOT = TESTS_DIR.parent
DOC = ROOT / "docs" / "syntax-coverage.md"
COMMAND = "python -m tests.syntax.coverage"

# The modes a record may claim; each is asserted by its test (see MODE_MEANING).
MODE_MEANING = {
    "one graph": "the whole call is one compiled graph, no fallback (`graphs=1`, `full_graph=True`)",
    "trace time": "evaluated by Python while tracing (static values); the call is still one graph",
    "pruned": "`if`/conditional expression on a static condition: only the taken branch is traced",
    "lax.cond": "`if`/conditional expression on a traced condition",
    "lax.switch": "`if`/`elif` chain on traced conditions",
    "select": "`and`/`or` on traced operands: both computed, one selected",
    "unrolled": "loop over a static iterable (or static `while`) traced iteration by iteration",
    "lax.fori_loop": "`for` over `range` rolled (trip count above the unroll limit or traced)",
    "lax.scan": "`for` over array rows rolled",
    "lax.while_loop": "`while` on a traced condition",
    "flag": "`break`/`continue`/`return` under a traced condition: a carried flag",
    "joined": "`return` under a traced `if`: the rest of the function runs in the other branch",
    "host callback": "ordered host callback inside the graph (`print`, `logging`)",
    "interpreted": "the statement runs in Python (an interpreted node); the rest stays compiled",
    "python control": "the enclosing `if`/`for`/`while` runs as Python control flow around compiled bodies",
    "eager": "the whole function runs eagerly, with a warning",
    "refused": "`to_static` raises an error",
    "checked": "`raise`/`assert` under a traced condition: a run-time check inside the graph, raising what eager raises",
    "error as eager": "eager raises; the converted function raises the same exception",
    "bug": "the converted call differs from eager today (a known bug): the test is a strict xfail",
}

STMT_NODES = [c.__name__ for c in ast.stmt.__subclasses__() if getattr(_ast, c.__name__, None) is c]
EXPR_NODES = [c.__name__ for c in ast.expr.__subclasses__() if getattr(_ast, c.__name__, None) is c]


# Helper nodes that are neither statements nor expressions but carry
# semantics of their own (a handler's match and binding, a `case`, a
# context manager item): rows of their own, under their parent statement.
HELPER_NODES = ["ExceptHandler", "match_case", "withitem"]


def python311_nodes() -> list[str]:
    """Every concrete statement and expression node type of Python 3.11's ``ast``
    (the deprecated aliases ``Num``, ``Str``, ... are not node types)."""
    return STMT_NODES + EXPR_NODES


def covered_nodes() -> list[str]:
    """The node types with rows: every statement and expression, and the helper nodes."""
    return python311_nodes() + HELPER_NODES


def node_kind(node: str) -> str:
    return "stmt" if node in STMT_NODES else "expr" if node in EXPR_NODES else "helper"


@dataclass(frozen=True)
class Record:
    node: str         # ast node type name
    construct: str    # the form exercised, in words
    mode: str         # a key of MODE_MEANING
    code: str = ""    # fallback code, for interpreted / python control / eager
    caveat: str = ""
    test: str = ""    # tests/syntax/test_x.py::test_name

    def row(self) -> str:
        mode = f"{self.mode} ({self.code})" if self.code else self.mode
        cell = lambda s: s.replace("|", "\\|")  # noqa: E731
        return f"| {self.node} | {cell(self.construct)} | {mode} | {cell(self.caveat)} | `{self.test}` |"


def covers(node: str, mode: str, construct: str = "", *, code: str = "", caveat: str = "") -> Callable:
    """Record that the decorated test converts ``node`` in ``mode`` (asserted by the test)."""
    if node not in covered_nodes():
        raise ValueError(f"{node!r} is not a Python 3.11 ast statement, expression or helper node type")
    if mode not in MODE_MEANING:
        raise ValueError(f"unknown mode {mode!r}; one of {sorted(MODE_MEANING)}")
    if mode in ("interpreted", "python control", "eager") and not code:
        raise ValueError(f"mode {mode!r} needs the fallback code")

    def deco(fn: Callable) -> Callable:
        records = list(getattr(fn, "__syntax_coverage__", ()))
        records.insert(0, Record(node, construct or node, mode, code, caveat))  # decorators apply bottom-up
        fn.__syntax_coverage__ = records
        return fn

    return deco


def _test_modules() -> list[str]:
    pkg = TESTS_DIR / "syntax"
    return sorted(m.name for m in pkgutil.iter_modules([str(pkg)]) if m.name.startswith("test_"))


def collect() -> list[Record]:
    """Every record of every test in tests/syntax, with the test that proves it."""
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    records: list[Record] = []
    for name in _test_modules():
        module = importlib.import_module(f"syntax.{name}")
        tests = [(k, v) for k, v in vars(module).items() if k.startswith("test_") and callable(v)]
        tests.sort(key=lambda kv: kv[1].__code__.co_firstlineno)
        for test_name, fn in tests:
            for r in getattr(fn, "__syntax_coverage__", ()):
                records.append(Record(r.node, r.construct, r.mode, r.code, r.caveat,
                                      f"tests/syntax/{name}.py::{test_name}"))
    return records


def render(records: list[Record]) -> str:
    order = {n: k for k, n in enumerate(covered_nodes())}
    rows = sorted(records, key=lambda r: order[r.node])   # stable: suite order within a node type
    lines = [
        "# Python syntax coverage",
        "",
        f"<!-- generated by `{COMMAND}` from the records of tests/syntax; do not edit by hand -->",
        "",
        "Every statement and expression node type of Python 3.11's `ast` module (and the helper",
        "nodes `ExceptHandler`, `match_case`, `withitem`), converted by",
        "`to_static` in at least one test of `tests/syntax/`, each compared with the eager run",
        "of the same function (`tests/helpers.py::check`: values, structure, printed output,",
        "exceptions, argument mutation). *Mode* is what ast2graph does with the construct",
        "today, asserted by the test (fallback codes: docs/fallback-codes.md). The nesting",
        "matrix (`tests/syntax/test_nesting_matrix.py`) adds generated programs with `if`,",
        "`while` and `for` nested up to three deep, static and traced conditions, and",
        "`break`/`continue`/`return` at every depth.",
        "",
        f"Regenerate with `{COMMAND}`; `tests/syntax/test_coverage_table.py` fails when this",
        "file is stale or a node type has no row.",
        "",
        "## Modes",
        "",
        "| mode | meaning |",
        "|---|---|",
    ]
    lines += [f"| {m} | {text} |" for m, text in MODE_MEANING.items()]
    lines += ["", "## Summary by node type", "", "| node type | kind | modes |", "|---|---|---|"]
    for node in covered_nodes():
        seen: list[str] = []
        for r in rows:
            m = f"{r.mode} ({r.code})" if r.code else r.mode
            if r.node == node and m not in seen:
                seen.append(m)
        kind = node_kind(node)
        lines.append(f"| {node} | {kind} | {', '.join(seen) if seen else '**not covered**'} |")
    lines += ["", "## Rows", "", "| node type | construct | mode | caveat | test |", "|---|---|---|---|---|"]
    lines += [r.row() for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    records = collect()
    text = render(records)
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text() != text:
            print(f"{DOC.relative_to(ROOT)} is stale; run `{COMMAND}`", file=sys.stderr)
            return 1
        print(f"{DOC.relative_to(ROOT)} is current")
        return 0
    DOC.write_text(text)
    print(f"wrote {DOC.relative_to(ROOT)}: {len(records)} rows, {len({r.node for r in records})} node types")
    return 0


if __name__ == "__main__":
    if str(TESTS_DIR) not in sys.path:
        sys.path.insert(0, str(TESTS_DIR))
    from syntax.coverage import main as _main   # one copy of this module: the one the tests import

    sys.exit(_main())
