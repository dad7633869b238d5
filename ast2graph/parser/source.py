"""Reading and parsing the whole source file a function lives in.

Requires: a plain Python function whose ``__code__.co_filename`` names a file
on disk or an entry in ``linecache`` (Jupyter/IPython cells register theirs).
Produces: ``SourceFile`` -- the file's lines, text and its parsed ``gast``
module -- via ``load_source``, plus ``describe_callable`` for error messages.
Invariants: one parsed module per (filename, text); a file whose text changed
is parsed again. Nodes keep the positions ``ast.parse`` gave them, so every
``lineno``/``col_offset`` is already a coordinate in the user's file: this is
the source map. The module tree is shared: callers must never mutate it.
"""

from __future__ import annotations

import inspect
import linecache
import types
from dataclasses import dataclass, field

import gast

from ast2graph.diagnostics import ConversionError, Loc, NoSourceError


@dataclass(eq=False)
class SourceFile:
    """One version of one file, parsed once; shared by all its functions."""

    filename: str
    lines: tuple[str, ...]
    text: str
    module: gast.Module
    _defs: dict[tuple[str, int], gast.AST] | None = field(default=None, repr=False)
    _lambdas: dict[int, list[gast.Lambda]] | None = field(default=None, repr=False)

    def defs(self) -> dict[tuple[str, int], gast.AST]:
        """(name, first line incl. decorators) -> (Async)FunctionDef node."""
        if self._defs is None:
            self._index()
        return self._defs  # type: ignore[return-value]

    def lambdas(self, line: int) -> list[gast.Lambda]:
        """Every ``gast.Lambda`` starting on ``line``, in source order."""
        if self._lambdas is None:
            self._index()
        return self._lambdas.get(line, [])  # type: ignore[union-attr]

    def _index(self) -> None:
        defs: dict[tuple[str, int], gast.AST] = {}
        lambdas: dict[int, list[gast.Lambda]] = {}
        for node in gast.walk(self.module):
            if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
                defs[(node.name, first_line(node))] = node
            elif isinstance(node, gast.Lambda):
                lambdas.setdefault(node.lineno, []).append(node)
        for group in lambdas.values():
            group.sort(key=lambda n: n.col_offset)
        self._defs, self._lambdas = defs, lambdas


_FILES: dict[str, SourceFile] = {}


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
    module = _parse(text, filename)
    source = SourceFile(filename, tuple(lines), text, module)
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
