"""Parser: a Python function -> its ``gast`` def node, with a source map.

Requires: a Python function (or anything ``unwrap_callable`` reduces to one)
whose source file is on disk or in ``linecache``.
Produces: ``ParsedFunction`` (the normalised ``gast.FunctionDef`` plus the
function's live globals, closure cells and location helpers) from
``parse_function``; ``unwrap_callable`` for methods, partials and callable
objects.
Invariants: the whole file is parsed, so node positions are file positions;
the tree is cached per code object and shared between calls and between
closures of one def -- annotate it (identity-keyed side tables) but never
mutate it. ``globals``/``closure`` always belong to the function passed in.
The source is used only when it still compiles to the function's code
object (``codecheck.compiles_to``): a file edited after its module was loaded
holds text the function does not run.
Errors: ``NoSourceError`` (no Python source), ``StaleSourceError`` (a
``NoSourceError``: the file, or ``linecache``, no longer holds the source the
function was compiled from, or no longer parses), ``UnsupportedSyntaxError``
(``async def``).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass, field

import gast

from ast2graph.diagnostics import ConversionError, Loc, UnsupportedSyntaxError
from ast2graph.parser.codecheck import compiles_to
from ast2graph.parser.locate import find_node, normalise
from ast2graph.parser.mangle import enclosing_class, mangle, without_asserts
from ast2graph.parser.source import SourceFile, StaleSourceError, load_source
from ast2graph.parser.unwrap import unwrap_callable

__all__ = ["ParsedFunction", "StaleSourceError", "parse_function", "unwrap_callable"]

_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


@dataclass
class ParsedFunction:
    """A function's normalised def node plus everything needed to resolve it."""

    fn: types.FunctionType
    tree: gast.FunctionDef
    filename: str
    qualname: str
    globals: dict
    closure: dict[str, types.CellType]
    is_lambda: bool
    _source: SourceFile | None = field(default=None, repr=False, compare=False)

    def loc(self, node: gast.AST | None) -> Loc:
        """The node's file position; the def's for nodes without one."""
        line = getattr(node, "lineno", None)
        if line is None:
            node = self.tree
            line = self.tree.lineno
        return Loc(self.filename, line, getattr(node, "col_offset", 0) or 0,
                   function=self.qualname)

    def source_segment(self, node: gast.AST) -> str:
        """The exact source text of ``node`` ('' if it has no end position)."""
        if self._source is None:
            return ""
        return _segment(self._source.lines, node)


@dataclass(frozen=True)
class _Entry:
    tree: gast.FunctionDef
    source: SourceFile


_CODE_CACHE: dict[tuple[types.CodeType, str], _Entry] = {}


def parse_function(fn: object) -> ParsedFunction:
    """Parse ``fn`` (a function; other callables go through unwrap_callable)."""
    if not isinstance(fn, types.FunctionType):
        fn = unwrap_callable(fn)[0]
    code = fn.__code__
    key = (code, code.co_filename)
    entry = _CODE_CACHE.get(key)
    if entry is None:
        entry = _build_entry(fn)
        _CODE_CACHE[key] = entry
    return ParsedFunction(
        fn=fn, tree=entry.tree, filename=code.co_filename, qualname=fn.__qualname__,
        globals=fn.__globals__, closure=_closure_of(fn),
        is_lambda=code.co_name == "<lambda>", _source=entry.source,
    )


def _build_entry(fn: types.FunctionType) -> _Entry:
    source = load_source(fn)
    try:
        node = find_node(source, fn)
    except StaleSourceError:
        raise
    except ConversionError as e:   # the file does not parse: it is not the text fn was compiled from
        raise StaleSourceError(f"{e.message}; {_stale_message(fn, source)}", e.loc) from e
    if isinstance(node, gast.AsyncFunctionDef) or fn.__code__.co_flags & _ASYNC_FLAGS:
        raise UnsupportedSyntaxError(
            f"async def {fn.__qualname__} is not supported by to_static: "
            "coroutines and async generators cannot be traced into one graph; "
            "call it without to_static",
            Loc(source.filename, node.lineno, node.col_offset, fn.__qualname__),
        )
    if not compiles_to(source, node, fn.__code__, fn.__globals__):
        raise StaleSourceError(_stale_message(fn, source),
                               Loc(source.filename, fn.__code__.co_firstlineno, 0, fn.__qualname__))
    tree = mangle(normalise(node), enclosing_class(fn.__code__.co_qualname))
    return _Entry(without_asserts(tree), source)


def _stale_message(fn: types.FunctionType, source: SourceFile) -> str:
    return (f"the source of {fn.__qualname__!r} in {source.filename} (line {fn.__code__.co_firstlineno}) "
            "is not the code it runs: the file was edited after it was loaded; "
            "it runs as loaded (reload the module to convert the new text)")


def _closure_of(fn: types.FunctionType) -> dict[str, types.CellType]:
    return dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))


def _segment(lines: tuple[str, ...], node: gast.AST) -> str:
    """``ast.get_source_segment`` over pre-split lines (columns are UTF-8 bytes)."""
    span = [getattr(node, a, None) for a in ("lineno", "end_lineno", "col_offset", "end_col_offset")]
    if None in span:
        return ""
    first, last, start, end = span[0] - 1, span[1] - 1, span[2], span[3]
    if first < 0 or last >= len(lines):
        return ""
    if first == last:
        return lines[first].encode()[start:end].decode()
    head = lines[first].encode()[start:].decode()
    tail = lines[last].encode()[:end].decode()
    return head + "".join(lines[first + 1:last]) + tail
