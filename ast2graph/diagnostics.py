"""Source locations and the error classes every stage raises.

Requires: nothing (imported by every stage).
Produces: ``Loc`` (a frozen file/line/column triple that can print the user's
source line with a caret) and the ``Ast2GraphError`` hierarchy.
Invariants: every error that reaches a user names a ``Loc`` in the user's own
file, never a line of generated code.
"""

from __future__ import annotations

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
    graph (whose Python ints are int64) cannot hold, so the call fails
    instead of returning a wrapped value."""


class LoopBoundError(Ast2GraphError, RuntimeError):
    """A loop compiled with ``max_iters=N`` still wanted to iterate after N
    iterations: eager Python would go on, so the call fails instead of
    returning a truncated result."""
