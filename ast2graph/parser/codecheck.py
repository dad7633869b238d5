"""Is the source ast2graph read the source the function was compiled from?

Requires: the ``SourceFile`` read for a function, the def/lambda node found
in it (``locate.find_node``) and the function's code object.
Produces: ``compiles_to(source, node, code) -> bool``: the text of the node,
compiled the way Python compiled the function (same file name, line and
column offsets, ``__future__`` flags, enclosing classes and functions), gives
a code object equal to ``code``.
Invariants: never a false match. Code-object equality (CPython's ``==``) is
the proof: name, argument counts, flags, first line, bytecode, constants
(nested code objects compared the same way, recursively), names, local, cell
and free variable names, the line table with columns, and the exception
table. Two texts that compile to equal code objects are the same function to
Python, so converting the parsed text equals running the loaded code.

Code compiled by an import hook that rewrites the tree: pytest's assertion
rewriting (a test module's ``assert`` statements) is applied to the
reference compile too, when the function's module was rewritten.

Why: a module edited on disk after it was imported still runs the code it
was loaded with; ``linecache`` and the file hold the new text. Converting the
new text would run code the user never loaded (``x + 1000`` where eager adds
1, a statement added to the file). A function whose text no longer compiles
to its code runs eagerly instead (``StaleSourceError``).

How (cheap first): the function's own lines are compiled inside a skeleton of
its enclosing scopes rebuilt from ``co_qualname`` (``class C:``/``def f():``
headers on the lines above it, its free variables bound in the innermost
function), which costs about as much as parsing the block. Where that cannot
be built (an enclosing lambda or comprehension, no room above the def, no
``co_qualname``) or does not match, the whole file is compiled once per file
version and every code object in it is compared (a function may legitimately
depend on context the skeleton does not rebuild). The result is cached per
code object by the caller (``parser._CODE_CACHE``).
"""

from __future__ import annotations

import __future__
import ast
import sys
import types
import weakref
from typing import Any, Callable, Iterator

import gast

from ast2graph.parser.source import SourceFile, first_line

__all__ = ["compiles_to", "future_flags", "whole_file_compiled"]

# The compile flags of the __future__ features that change compilation
# (nested_scopes and generators are always on: their flags are not compiler flags).
_FUTURE_MASK = 0
for _name in __future__.all_feature_names:
    _flag = getattr(__future__, _name).compiler_flag
    if _flag not in (0, 0x10):
        _FUTURE_MASK |= _flag


def future_flags(code: types.CodeType) -> int:
    """The ``__future__`` compile flags ``code`` was compiled under."""
    return code.co_flags & _FUTURE_MASK


def compiles_to(source: SourceFile, node: gast.AST, code: types.CodeType, globals_: dict | None = None) -> bool:
    """Whether ``node``'s text in ``source`` compiles to ``code`` (see module
    doc). ``globals_``: the function's, which say whether pytest rewrote the
    module's ``assert`` statements (then so does the reference compile)."""
    flags = future_flags(code)
    rewrite = _assert_rewriter(globals_)
    text = _skeleton(source, node, code)
    if text is not None and _contains(_compile(text, source.filename, flags, rewrite), code):
        return True
    return _contains(_whole_file(source, flags, rewrite), code)


def whole_file_compiled(source: SourceFile) -> bool:
    """Whether the whole file was compiled for a check (for tests)."""
    return bool(_WHOLE.get(source))


_WHOLE: "weakref.WeakKeyDictionary[SourceFile, dict]" = weakref.WeakKeyDictionary()


def _whole_file(source: SourceFile, flags: int, rewrite: Callable | None) -> types.CodeType | None:
    """The whole file compiled (once per file version, flags and rewriting)."""
    done = _WHOLE.setdefault(source, {})
    key = (flags, rewrite is not None)
    if key not in done:
        done[key] = _compile(source.text, source.filename, flags, rewrite)
    return done[key]


def _compile(text: str, filename: str, flags: int, rewrite: Callable | None = None) -> types.CodeType | None:
    try:
        if rewrite is None:
            return compile(text, filename, "exec", flags=flags, dont_inherit=True)
        tree = ast.parse(text, filename=filename)
        rewrite(tree, text.encode(), filename)
        return compile(tree, filename, "exec", flags=flags, dont_inherit=True)
    except Exception:  # noqa: BLE001 - SyntaxError, or a rewriter failing: no proof, no match
        return None


def _assert_rewriter(globals_: dict | None) -> Callable[[ast.Module, bytes, str], None] | None:
    """pytest's assertion rewriting, as pytest applied it to the module, when
    it did (its helper module is then a global of the function's module).
    ast2graph never imports pytest itself."""
    if not globals_ or "@pytest_ar" not in globals_:
        return None
    rewriting = sys.modules.get("_pytest.assertion.rewrite")
    rewrite_asserts = getattr(rewriting, "rewrite_asserts", None)
    if rewrite_asserts is None:
        return None
    config = next((getattr(hook, "config", None) for hook in sys.meta_path
                   if type(hook).__name__ == "AssertionRewritingHook"), None)

    def rewrite(tree: ast.Module, source: bytes, filename: str) -> Any:
        return rewrite_asserts(tree, source, filename, config)

    return rewrite


def _contains(module: types.CodeType | None, code: types.CodeType) -> bool:
    """Whether a code object nested in ``module`` equals ``code``."""
    if module is None:
        return False
    return any(c == code for c in _code_objects(module)
               if c.co_firstlineno == code.co_firstlineno and c.co_name == code.co_name)


def _code_objects(code: types.CodeType) -> Iterator[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield const
            yield from _code_objects(const)


# ------------------------------------------------------------ the skeleton
def _scopes(code: types.CodeType) -> list[tuple[str, str]] | None:
    """The enclosing scopes, outermost first, as ('class'|'def', name), from
    ``co_qualname``; None where one is not a plain class or function."""
    qualname = getattr(code, "co_qualname", None)
    if not qualname:
        return None
    parts = qualname.split(".")[:-1]
    scopes: list[tuple[str, str]] = []
    for part in parts:
        if part == "<locals>":
            if not scopes or scopes[-1][0] != "class":
                return None
            scopes[-1] = ("def", scopes[-1][1])
        elif part.isidentifier():
            scopes.append(("class", part))
        else:
            return None   # <lambda>, <listcomp>, ... : left to the whole-file compile
    return scopes


def _skeleton(source: SourceFile, node: gast.AST, code: types.CodeType) -> str | None:
    """The module text: blank lines, the enclosing scopes' headers just above
    the function's own lines (at their own line numbers and columns), and
    its free variables bound in the innermost enclosing function."""
    scopes = _scopes(code)
    if scopes is None:
        return None
    free = [n for n in code.co_freevars if n != "__class__"]
    inner_def = max((i for i, (kind, _) in enumerate(scopes) if kind == "def"), default=None)
    if free and inner_def is None:
        return None
    lam = isinstance(node, gast.Lambda)
    built = _lambda_lines(source, node, len(scopes)) if lam else _def_lines(source, node, len(scopes))
    if built is None:
        return None
    line, indent, body = built
    headers = [f"{indent[:i]}{kind} {name}{'()' if kind == 'def' else ''}:\n" for i, (kind, name) in enumerate(scopes)]
    if lam:
        headers.append(f"{indent}_ = (\n")
    elif not scopes and indent:
        headers.append("if 1:\n")   # a def indented under an if/try/with at module level
    imports = _imports_read(source, code)
    if imports:   # Python 3.11+ compiles `mod.f(x)` differently when `mod` was imported
        headers.insert(0, f"import {', '.join(imports)}\n")
    if line - 1 < len(headers):
        return None
    pad = "\n" * (line - 1 - len(headers))
    tail = ""
    if free:   # the innermost function's body: the next header's indentation, or the function's own
        at = indent if inner_def + 1 >= len(scopes) else indent[:inner_def + 1]
        tail = f"{at}{' = '.join(free)} = None\n"
    return pad + "".join(headers) + body + tail


def _imports_read(source: SourceFile, code: types.CodeType) -> list[str]:
    """The names imported at module level that the code (or code nested in
    it) uses, as a global or as a local (the compiler asks the module)."""
    imported = source.imported_names()
    if not imported:
        return []
    names: set[str] = set()
    for c in (code, *_code_objects(code)):
        names.update(c.co_names, c.co_varnames, c.co_cellvars, c.co_freevars)
    return sorted(names & imported)


def _def_lines(source: SourceFile, node: gast.AST, depth: int) -> tuple[int, str, str] | None:
    first, last = first_line(node), getattr(node, "end_lineno", None)
    if last is None or not 0 < first <= last <= len(source.lines):
        return None
    lines = source.lines[first - 1:last]
    head = lines[0]
    indent = head[:len(head) - len(head.lstrip(" \t"))]
    if len(indent) < depth:
        return None
    body = "".join(lines)
    if not body.endswith("\n"):
        body += "\n"
    return first, indent, body


def _lambda_lines(source: SourceFile, node: gast.Lambda, depth: int) -> tuple[int, str, str] | None:
    """``lambda ...`` alone on its own lines, at its own columns (the text
    before it on its first line blanked), inside ``_ = (`` ... ``)``."""
    span = [getattr(node, a, None) for a in ("lineno", "end_lineno", "col_offset", "end_col_offset")]
    if None in span or not 0 < span[0] <= span[1] <= len(source.lines):
        return None
    first, last, start, end = span
    lines = source.lines[first - 1:last]
    head = lines[0].encode()
    if len(lines) == 1:
        text = b" " * start + head[start:end]
    else:
        text = b" " * start + head[start:] + "".join(lines[1:-1]).encode() + lines[-1].encode()[:end]
    try:
        body = text.decode()
    except UnicodeDecodeError:
        return None
    return first, " " * depth, body + "\n)\n"
