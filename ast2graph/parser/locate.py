"""Finding a function's node in its parsed file and normalising it.

Requires: a ``SourceFile`` (parser.source) and the function's code object.
Produces: ``find_node`` -- the (Async)FunctionDef or Lambda that compiled to
the code object -- and ``normalise`` -- a fresh ``gast.FunctionDef`` shell
(decorators dropped; a lambda becomes ``def <lambda>(args): return body``).
Invariants: the shell is new but its children (args, body statements) are
the shared nodes of the parsed file, with their file positions; callers may
annotate those nodes (e.g. key dicts by identity) but must not mutate them.
"""

from __future__ import annotations

import types
from typing import Iterator

import gast

from ast2graph.diagnostics import Loc
from ast2graph.parser.source import SourceFile, StaleSourceError, describe_callable

Position = tuple[int, int, int, int]


def find_node(source: SourceFile, fn: types.FunctionType) -> gast.AST:
    """The def/lambda node of ``fn`` in ``source``; StaleSourceError if absent."""
    code = fn.__code__
    if code.co_name == "<lambda>":
        node = _find_lambda(source, code)
    else:
        node = source.function(code.co_name, code.co_firstlineno)
    if node is None:
        raise StaleSourceError(
            f"cannot find the source of {describe_callable(fn)} in "
            f"{source.filename} at line {code.co_firstlineno}: the file was "
            "edited after the function was loaded; it runs as loaded",
            Loc(source.filename, code.co_firstlineno, 0, fn.__qualname__),
        )
    return node


def _find_lambda(source: SourceFile, code: types.CodeType) -> gast.Lambda | None:
    candidates = source.lambdas(code.co_firstlineno)
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    return _by_position(candidates, code) or _by_arg_names(candidates, code)


def _by_position(candidates: list[gast.Lambda], code: types.CodeType) -> gast.Lambda | None:
    """The innermost lambda whose body contains the code's first real position."""
    for pos in _positions(code):
        inside = [lam for lam in candidates if _contains(lam.body, pos)]
        if inside:
            return min(inside, key=_span_size)
    return None


def _positions(code: types.CodeType) -> Iterator[Position]:
    for line, end_line, col, end_col in code.co_positions():
        if None in (line, end_line, col, end_col):
            continue
        if (line, col) == (end_line, end_col):  # RESUME and friends: empty span
            continue
        yield line, col, end_line, end_col  # type: ignore[misc]


def _contains(node: gast.AST, pos: Position) -> bool:
    line, col, end_line, end_col = pos
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) and (end_line, end_col) <= end


def _span_size(node: gast.AST) -> tuple[int, int]:
    return node.end_lineno - node.lineno, node.end_col_offset - node.col_offset


def _by_arg_names(candidates: list[gast.Lambda], code: types.CodeType) -> gast.Lambda | None:
    wanted = _code_arg_names(code)
    for lam in candidates:
        if _lambda_arg_names(lam.args) == wanted:
            return lam
    return None


def _code_arg_names(code: types.CodeType) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kw
    return tuple(code.co_varnames[:count])


def _lambda_arg_names(args: gast.arguments) -> tuple[str, ...]:
    names = [a.id for a in args.posonlyargs + args.args]
    names += [a.id for a in args.kwonlyargs]
    names += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    return tuple(names)


def normalise(node: gast.AST) -> gast.FunctionDef:
    """A new FunctionDef shell around the node's shared children."""
    if isinstance(node, gast.Lambda):
        ret = gast.copy_location(gast.Return(value=node.body), node.body)
        shell = gast.FunctionDef(
            name="<lambda>", args=node.args, body=[ret], decorator_list=[],
            returns=None, type_comment=None, type_params=[],
        )
    else:
        shell = gast.FunctionDef(
            name=node.name, args=node.args, body=node.body, decorator_list=[],
            returns=node.returns, type_comment=node.type_comment,
            type_params=list(getattr(node, "type_params", None) or []),
        )
    return gast.copy_location(shell, node)
