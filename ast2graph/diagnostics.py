"""Source locations and the error classes every stage raises.

Requires: nothing (imported by every stage).
Produces: ``Loc`` (a frozen file/line/column triple that can print the user's
source line with a caret) and the ``Ast2GraphError`` hierarchy.
Invariants: every error that reaches a user names a ``Loc`` in the user's own
file, never a line of generated code.
"""

from __future__ import annotations

import ast
import functools
import linecache
from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in the user's source: 1-based line, 0-based column."""

    file: str
    line: int
    col: int = 0
    function: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"

    def source_line(self) -> str:
        return linecache.getline(self.file, self.line).rstrip("\n")

    def strformat(self) -> str:
        """``File "f.py", line 3, col 5, in g`` then the line and a caret."""
        where = f'  File "{self.file}", line {self.line}, col {self.col + 1}'
        if self.function:
            where += f", in {self.function}"
        text = self.source_line()
        if not text:
            return where
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        caret = " " * max(self.col - indent, 0) + "^"
        return f"{where}\n    {stripped}\n    {caret}"


UNKNOWN_LOC = Loc("<unknown>", 0, 0)

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _span(node: ast.AST) -> tuple:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


@functools.lru_cache(maxsize=64)
def _loop_index(text: str) -> tuple[tuple, tuple]:
    """A module's loops, each as its span and the span of the innermost
    function, lambda or class around it (None at module level), and the spans
    of all its functions, lambdas and classes."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return (), ()
    loops: list = []
    scopes: list = []

    def walk(node: ast.AST, scope: tuple | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _LOOPS):
                loops.append((_span(child), scope))
            if isinstance(child, _SCOPES):
                scopes.append(_span(child))
            walk(child, _span(child) if isinstance(child, _SCOPES) else scope)

    walk(tree, None)
    return tuple(loops), tuple(scopes)


def loop_depth_at(loc: Loc) -> int | None:
    """The one meaning of a site's ``loop depth``, in ``explain``, the report
    and JSON alike: how many ``for``/``while`` loops of the site's own
    function (the innermost ``def``, ``lambda`` or class around it) enclose
    its position in the source. A loop's own header (a site at the ``for``
    itself) is not inside it; loops of a caller a helper is inlined into do
    not count (the site names the helper's line). None where the file cannot
    be read or parsed."""
    text = "".join(linecache.getlines(loc.file)) if loc.line > 0 else ""
    if not text:
        return None
    loops, scopes = _loop_index(text)
    pos = (loc.line, loc.col)
    # nested scopes do not overlap partially: the latest-starting one around pos is the innermost
    own = max((span for span in scopes if span[0] <= pos < span[1]), default=None)
    return sum(1 for span, scope in loops if span[0] < pos < span[1] and scope == own)


class Ast2GraphError(Exception):
    """Base class of every error ast2graph raises on its own account."""

    def __init__(self, message: str, loc: Loc | None = None):
        self.message = message
        self.loc = loc
        super().__init__(self._render())

    def _render(self) -> str:
        if self.loc is None or self.loc is UNKNOWN_LOC:
            return self.message
        return f"{self.message}\n{self.loc.strformat()}"


class ConversionError(Ast2GraphError):
    """The function cannot be converted (as a whole)."""


class NoSourceError(ConversionError):
    """The callable has no Python source: a builtin, REPL or ``exec`` code."""


class UnsupportedSyntaxError(ConversionError):
    """A construct that ast2graph refuses outright (e.g. ``async def``)."""


class FullGraphError(Ast2GraphError):
    """``full_graph=True`` was asked for and a site would fall back to Python."""


class VerificationError(Ast2GraphError):
    """The graph IR broke one of its invariants (a bug in ast2graph)."""


class IntRangeError(Ast2GraphError, OverflowError):
    """``int()`` (``math.floor``, ``round``, ``.item()``...) of a traced value
    beyond int64: eager Python gives an exact int of any size, which the
    graph (whose Python ints are int64) cannot hold. The graph's run-time
    check raises it; where nothing of the segment has happened yet the
    segment's statements then run in Python on that call (``runtime.block``),
    so a user sees it only where the segment printed or ran another host
    effect first: the call fails instead of returning a wrapped value."""


class LoopBoundError(Ast2GraphError, RuntimeError):
    """A loop compiled with ``max_iters=N`` still wanted to iterate after N
    iterations: eager Python would go on, so the call fails instead of
    returning a truncated result."""
