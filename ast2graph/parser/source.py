"""Reading and parsing the source file a function lives in.

Requires: a plain Python function whose ``__code__.co_filename`` names a file
on disk or an entry in ``linecache`` (Jupyter/IPython cells register theirs).
Produces: ``SourceFile`` -- the file's lines, text, each function's parsed
``gast`` node (its block parsed alone) and, on demand, the whole parsed
module -- via ``load_source``, plus ``describe_callable`` for error messages.
Invariants: one ``SourceFile`` per (filename, text); a file whose text changed
is read again. Nodes keep the positions of the file (a block is parsed at its
own line numbers and columns), so every ``lineno``/``col_offset`` is already a
coordinate in the user's file: this is the source map. Trees are shared:
callers must never mutate them.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import re
import tokenize
import types
from dataclasses import dataclass, field
from typing import Iterator

import gast

from ast2graph.diagnostics import ConversionError, Loc, NoSourceError


class StaleSourceError(NoSourceError):
    """The source read for a function (its file on disk, or ``linecache``)
    does not compile to the code the function runs: the file was edited
    after the module was loaded. The function runs as loaded, eagerly."""


@dataclass(eq=False)
class SourceFile:
    """One version of one file; shared by all its functions.

    A function's node comes from parsing only its own block (its lines, at
    their own line numbers and columns: ``parse_block``); the whole file is
    parsed only when asked for (``module``: the report, a lambda outside any
    parsed function, a block that does not parse alone). Every node found is
    indexed once: a nested function's node is the one in its enclosing
    function's tree when that was parsed first."""

    filename: str
    lines: tuple[str, ...]
    text: str
    _module: gast.Module | None = field(default=None, repr=False)
    _defs: dict[tuple[str, int], gast.AST] = field(default_factory=dict, repr=False)
    _lambdas: dict[int, list[gast.Lambda]] = field(default_factory=dict, repr=False)
    _blocks: set[int] = field(default_factory=set, repr=False)
    _imported: frozenset[str] | None = field(default=None, repr=False)

    @property
    def module(self) -> gast.Module:
        """The whole file, parsed (once)."""
        if self._module is None:
            self._module = _parse(self.text, self.filename)
            self._index(self._module)
        return self._module

    def defs(self) -> dict[tuple[str, int], gast.AST]:
        """(name, first line incl. decorators) -> (Async)FunctionDef node, of
        the whole file."""
        self.module
        return self._defs

    def function(self, name: str, line: int) -> gast.AST | None:
        """The def named ``name`` whose first line (incl. decorators) is ``line``."""
        node = self._defs.get((name, line))
        if node is None and self._module is None:
            self.parse_block(line)
            node = self._defs.get((name, line))
            if node is None:
                node = self.defs().get((name, line))
        return node

    def imported_names(self) -> frozenset[str]:
        """Names bound by the file's import statements (found line by line,
        without parsing the file; a guess: ``codecheck`` proves what it uses)."""
        if self._imported is None:
            self._imported = frozenset(_import_names(self.lines))
        return self._imported

    def lambdas(self, line: int) -> list[gast.Lambda]:
        """Every ``gast.Lambda`` starting on ``line``, in source order."""
        if line not in self._lambdas and self._module is None:
            self.module
        return self._lambdas.get(line, [])

    def parse_block(self, line: int) -> None:
        """Parse the block (a decorated def) starting on ``line`` alone, with
        the file's own positions, and index its nodes. A block that does not
        parse alone is left to the whole-file parse."""
        if line in self._blocks or not 0 < line <= len(self.lines):
            return
        self._blocks.add(line)
        try:
            block = inspect.getblock(list(self.lines[line - 1:]))
        except (SyntaxError, tokenize.TokenError, IndentationError):
            return
        first = block[0] if block else ""
        indented = first[:1] in (" ", "\t")
        # blank lines keep line numbers; `if 1:` lets an indented block parse
        # with its columns unchanged
        head = "\n" * (line - 2) + "if 1:\n" if indented and line > 1 else "\n" * (line - 1)
        try:
            tree = gast.parse(head + "".join(block), filename=self.filename)
        except (SyntaxError, ValueError):
            return
        self._index(tree)

    def _index(self, tree: gast.AST) -> None:
        lambdas: dict[int, list[gast.Lambda]] = {}
        for node in gast.walk(tree):
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                self._defs.setdefault((node.name, first_line(node)), node)
            elif isinstance(node, gast.Lambda):
                lambdas.setdefault(node.lineno, []).append(node)
        for line, group in lambdas.items():
            if line not in self._lambdas:   # every lambda of a line is in the same tree
                self._lambdas[line] = sorted(group, key=lambda n: n.col_offset)


_FILES: dict[str, SourceFile] = {}
_IMPORT_LINE = re.compile(r"[ \t]*(?:import|from)[ \t]")
_TOP_BLOCK = re.compile(r"(?:if|elif|else|try|except|finally|with)\b")


def _module_level(lines: tuple[str, ...], i: int) -> bool:
    """Line ``i`` is at module level: at column 0, or under a top-level
    ``if``/``try``/``with`` (the nearest line above at column 0)."""
    if not lines[i][:1].isspace():
        return True
    for line in reversed(lines[max(0, i - 200):i]):
        if line[:1] and not line[:1].isspace() and not line.startswith("#"):
            return bool(_TOP_BLOCK.match(line))
    return False


def _import_names(lines: tuple[str, ...]) -> Iterator[str]:
    """The names module-level import statements bind: each line that starts
    one (at column 0, or in a block of a top-level ``if``/``try``/``with``),
    joined with its continuation lines, parsed alone."""
    for i, line in enumerate(lines):
        if not _IMPORT_LINE.match(line) or not _module_level(lines, i):
            continue
        text = line.strip()
        for extra in lines[i + 1:i + 64]:
            if not (text.endswith("\\") or text.count("(") > text.count(")")):
                break
            text = text.rstrip("\\") + " " + extra.strip()
        try:
            stmts = ast.parse(text).body
        except (SyntaxError, ValueError):
            continue
        for stmt in stmts:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    if alias.name != "*":
                        yield alias.asname or alias.name.split(".")[0]


def first_line(node: gast.AST) -> int:
    """The line a def's code object starts on: its first decorator, or ``def``."""
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno] + [d.lineno for d in decorators])


def describe_callable(obj: object) -> str:
    """``<function f at 0x..> (Outer.f)`` -- repr and qualname, for messages."""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{obj!r} ({qualname})"


def load_source(fn: types.FunctionType) -> SourceFile:
    """The parsed file that defines ``fn``; raises NoSourceError/ConversionError."""
    filename = fn.__code__.co_filename
    lines = _read_lines(fn, filename)
    text = "".join(lines)
    cached = _FILES.get(filename)
    if cached is not None and cached.text == text:
        return cached
    source = SourceFile(filename, tuple(lines), text)
    _FILES[filename] = source
    return source


def _read_lines(fn: types.FunctionType, filename: str) -> list[str]:
    linecache.checkcache(filename)
    globs = fn.__globals__
    # The loader fallback in linecache reads the *module's* source whatever
    # the filename; only offer it when the module really is that file.
    module_globals = globs if globs.get("__file__") == filename else None
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        lines = _lines_via_inspect(fn, filename)
    if not lines:
        raise NoSourceError(_no_source_message(fn, filename))
    return lines


def _lines_via_inspect(fn: types.FunctionType, filename: str) -> list[str]:
    try:
        alt = inspect.getsourcefile(fn)
    except TypeError:
        return []
    if not alt or alt == filename:
        return []
    linecache.checkcache(alt)
    return linecache.getlines(alt)


def _no_source_message(fn: types.FunctionType, filename: str) -> str:
    name = describe_callable(fn)
    if filename.startswith("<") and filename.endswith(">"):
        return f"{name} has no Python source: it was defined in {filename} (exec/REPL)"
    return f"{name} has no Python source: its file {filename!r} cannot be read"


def _parse(text: str, filename: str) -> gast.Module:
    try:
        return gast.parse(text, filename=filename)
    except SyntaxError as err:
        line = err.lineno or 0
        msg = f"cannot parse {filename}: {err.msg} at {filename}:{line}"
        raise ConversionError(msg, Loc(filename, line, max((err.offset or 1) - 1, 0))) from err
    except ValueError as err:  # e.g. null bytes in the file
        raise ConversionError(f"cannot parse {filename}: {err}") from err
