"""Private name mangling, as CPython's compiler does it.

Requires: gast.
Produces: ``enclosing_class(qualname)``: the innermost class a function is
defined in (from its ``co_qualname``), or None; ``mangle(tree, cls)``: the
tree with every ``__name`` identifier (not ending in ``__``) written
``_Cls__name``, in place, as Python compiles a class body and the functions
nested in it (names, attributes, parameters, keywords, defs, imports).
``without_asserts(tree)``: under ``python -O`` (``sys.flags.optimize``) every
``assert`` replaced by ``pass``, as the compiler strips them.
Invariants: idempotent (a mangled name no longer starts with ``__``); a
class name made only of underscores mangles nothing (CPython's rule); the
tree then reads the names the function's code object reads, so a statement
compiled again outside the class (run in Python) and every attribute lookup
at trace time use them.
"""

from __future__ import annotations

import gast


def enclosing_class(qualname: str) -> str | None:
    """``'Outer.Cls.method.<locals>.inner'`` -> ``'Cls'``: the last component
    that is followed by another one other than ``<locals>`` (a class)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i + 1] != "<locals>" and parts[i] != "<locals>":
            return parts[i]
    return None


def mangled(name: str, cls: str) -> str:
    if not name.startswith("__") or name.endswith("__") or "." in name:
        return name
    stripped = cls.lstrip("_")
    return f"_{stripped}{name}" if stripped else name


def mangle(tree: gast.AST, cls: str | None) -> gast.AST:
    """In place; a class nested in the tree mangles its own body with its
    own name (its ``def`` name with the enclosing one)."""
    if not cls:
        return tree

    def visit(node: gast.AST, cls: str) -> None:
        if isinstance(node, gast.Name):
            node.id = mangled(node.id, cls)
        elif isinstance(node, gast.Attribute):
            node.attr = mangled(node.attr, cls)
        elif isinstance(node, gast.keyword) and node.arg is not None:
            node.arg = mangled(node.arg, cls)
        elif isinstance(node, gast.alias) and node.asname is not None:
            node.asname = mangled(node.asname, cls)
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            node.names = [mangled(n, cls) for n in node.names]
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and node is not tree:
            node.name = mangled(node.name, cls)
        elif isinstance(node, gast.ClassDef):
            node.name = mangled(node.name, cls)
            for child in node.bases + node.keywords + node.decorator_list:
                visit(child, cls)
            for child in node.body:
                visit(child, node.name)
            return
        for child in gast.iter_child_nodes(node):
            visit(child, cls)

    visit(tree, cls)
    return tree


def without_asserts(tree: gast.AST) -> gast.AST:
    """In place, under ``python -O``: eager's code object has no ``assert``."""
    import sys

    if not sys.flags.optimize:
        return tree
    for node in gast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list):
                for i, s in enumerate(stmts):
                    if isinstance(s, gast.Assert):
                        stmts[i] = gast.copy_location(gast.Pass(), s)
        for handler in getattr(node, "handlers", []) or []:
            for i, s in enumerate(handler.body):
                if isinstance(s, gast.Assert):
                    handler.body[i] = gast.copy_location(gast.Pass(), s)
    return tree
