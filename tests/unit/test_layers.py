"""The package's layers point down, and its modules import each other without cycles.

Read from the source (nothing is imported): every ``import`` of an ast2graph
module, at module level or inside a function (a lazy import still makes the
importing layer depend on the imported one), except under
``if TYPE_CHECKING:`` (annotations only).

- Each top-level package or module of ``ast2graph`` has a layer (``LAYERS``,
  bottom first); a module may import its own layer and the layers below it.
  The run-time library the generated graphs call (``graphlib``) sits below
  the compiler stages that emit calls to it (``typeinfer``, ``lowering``); the
  runtime of a call (``runtime``) above them; the public face (``api``) above
  that; the report's engine (``survey``) below its front (``report``).
- No cycle among module-level imports (what Python runs at import time).
- Lazy imports close no cycle either: the abstract interpreter's mixins
  (``typeinfer``) call each other through ``self``, never by importing one
  another's helpers; what several of them share lives in a module below
  them (``carried``, ``nnxtypes``, ``graphlib``), and a table filled from
  above is filled by registration (``kinds.standin``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import ast2graph

ROOT = Path(ast2graph.__file__).parent

# bottom first; names on one line share a layer
LAYERS = [
    ("diagnostics", "tracebacks"),
    ("parser",),
    ("resolver",),
    ("ssa",),
    ("ir",),
    ("worklog", "pipeline"),
    ("graphlib",),
    ("fallback",),
    ("settings", "findings"),
    ("typeinfer",),
    ("lowering",),
    ("cache",),
    ("runtime",),
    ("api",),
    ("exporting",),
    ("survey_instances",),
    ("survey",),
    ("report",),
    ("report_html",),
    ("cli",),
]
LAYER = {name: k for k, names in enumerate(LAYERS) for name in names}


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for path in ROOT.rglob("*.py"):
        parts = ("ast2graph",) + path.relative_to(ROOT).with_suffix("").parts
        package = parts[-1] == "__init__"
        out[".".join(parts[:-1] if package else parts)] = (path, package)
    return out


def _imports(modules: dict) -> list[tuple[str, str, bool, int]]:
    """(importer, imported module, at module level, line) for every import
    of an ast2graph module outside ``if TYPE_CHECKING:``."""
    edges = []
    for name, (path, package) in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        annotations_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                            and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        top = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if id(node) in annotations_only:
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if package else name.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                targets = [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in dict.fromkeys(targets):
                if target in modules and target != name:
                    edges.append((name, target, id(node) in top, node.lineno))
    return edges


MODULES = _modules()
EDGES = _imports(MODULES)


def _layer_name(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None   # None: the package root (lazy public names, __version__)


def test_every_part_of_the_package_has_a_layer():
    missing = sorted({n for n in map(_layer_name, MODULES) if n is not None and n not in LAYER} - {"__main__"})
    assert not missing, f"give these a layer in LAYERS: {missing}"


def test_imports_point_down():
    upward = []
    for importer, imported, _, line in EDGES:
        a, b = _layer_name(importer), _layer_name(imported)
        if a is None or b is None or a == b or a == "__main__":
            continue
        if LAYER[b] > LAYER[a]:
            upward.append(f"{importer}:{line} imports {imported} ({a} is below {b})")
    assert not upward, "\n".join(upward)


def test_no_cycle_at_import_time():
    graph = nx.DiGraph((a, b) for a, b, top, _ in EDGES if top)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, cycles


def test_no_cycle_even_through_lazy_imports():
    graph = nx.DiGraph((a, b) for a, b, _, _ in EDGES)
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, cycles


def test_the_reader_sees_relative_and_lazy_imports():
    """The checks above are not vacuous: the reader resolves relative imports
    (``from ..typeinfer import X``) and reads imports inside functions."""
    assert ("ast2graph.runtime.block", "ast2graph.typeinfer.specialize", True) in {e[:3] for e in EDGES}
    assert ("ast2graph.exporting", "ast2graph.api", False) in {e[:3] for e in EDGES}
