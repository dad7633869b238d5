"""Fallback sites and decisions as data.

Requires: ``diagnostics.Loc``.
Produces: ``FallbackCode`` (the stable codes, documented in
docs/fallback-codes.md), ``GraphBreak`` (raised by a stage that cannot put a
site in the graph), ``FallbackSite`` (what ``explain``, ``report`` and
``full_graph=True`` show) and ``Decision`` (what became of each ``if``/loop).
Invariants: a code never changes meaning; every site names a user location.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from ..diagnostics import Loc, loop_depth_at


class FallbackCode(Enum):
    """Stable codes of the reasons a site runs in Python. Value: (code, title, hint)."""

    UNSUPPORTED_SYNTAX = ("A2G001", "statement not supported in a graph", "move it out of the compiled function, or accept that this statement runs in Python")
    SIDE_EFFECT = ("A2G002", "call with a Python side effect", "hoist the call out of the compiled function or out of the loop/branch; use jax.debug.print for printing traced values")
    CONCRETE_VALUE = ("A2G003", "a traced value is needed as a Python value", "keep the value in the graph: compute with it (jnp.where / lax.cond, a fixed shape with a mask) rather than use it as a shape, key, format spec or .tobytes()")
    BRANCH_MISMATCH = ("A2G004", "branches of a traced `if` disagree on a variable", "assign the variable on every branch with the same shape and dtype")
    LOOP_CARRIED_CHANGE = ("A2G005", "a loop-carried variable changes shape or kind", "keep the variable's shape fixed across iterations (pre-allocate and update with .at[].set())")
    EARLY_EXIT = ("A2G006", "break/continue/return under a traced condition", "compute a flag and use it in the loop condition")
    MUTATION = ("A2G007", "mutation of an object the graph cannot track", "build a new value instead of mutating in place (x = x.at[i].set(v))")
    TRACE_ERROR = ("A2G008", "Python raises here at trace time", "this site raises in eager Python too; fix the error or guard it")
    OPAQUE_CALL = ("A2G009", "call to a function the graph cannot see into", "call a jax function, or a Python function with source")
    UNDEFINED_AFTER_LOOP = ("A2G010", "variable may be undefined after a loop with a traced trip count", "initialise the variable before the loop")
    RECURSION = ("A2G011", "recursion too deep to unroll", "bound the recursion by a static value")
    NO_SOURCE = ("A2G012", "function without Python source", "define the function in a file")
    GENERATOR = ("A2G013", "generator function", "return a list or an array instead of yielding")
    HOST_CALLBACK = ("A2G014", "host callback inside the graph", "fine for printing and logging; hoist it out of hot loops if the host transfer matters")
    INTERNAL_ERROR = ("A2G015", "internal error of ast2graph", "please report it with the function; the statement runs in Python meanwhile")
    PRECISION = ("A2G016", "the graph cannot compute eager's dtype exactly", "cast the operands to the dtype you want first (x.astype(np.float64))")

    @property
    def code(self) -> str:
        return self.value[0]

    @property
    def title(self) -> str:
        return self.value[1]

    @property
    def hint(self) -> str:
        return self.value[2]


@dataclass(frozen=True)
class FallbackSite:
    code: FallbackCode
    loc: Loc
    construct: str
    cause: str
    effect: str = "the enclosing statement runs in Python (an enclosing `if`/`for`/`while` as Python control flow around its compiled body); the statements around it stay compiled"
    stage: str = "typeinfer"
    loop_depth: int = 0
    hint: str = ""

    def __post_init__(self) -> None:
        # one meaning everywhere: the loops of the site's own function around
        # its line (diagnostics.loop_depth_at); what a stage passed stands
        # only where the source cannot be read
        depth = loop_depth_at(self.loc) if isinstance(self.loc, Loc) else None
        if depth is not None:
            object.__setattr__(self, "loop_depth", depth)

    def format(self) -> str:
        hint = self.hint or self.code.hint
        return (f"{self.code.code} {self.code.title}: {self.cause}\n{self.loc.strformat()}\n"
                f"  construct: {self.construct} (loop depth {self.loop_depth}); decided by {self.stage}\n"
                f"  effect: {self.effect}\n  hint: {hint}")

    def to_json(self) -> dict:
        return {
            "code": self.code.code, "title": self.code.title, "file": self.loc.file,
            "line": self.loc.line, "col": self.loc.col + 1, "construct": self.construct,
            "cause": self.cause, "effect": self.effect, "stage": self.stage,
            "loop_depth": self.loop_depth, "hint": self.hint or self.code.hint,
            "source": self.loc.source_line().strip(),
        }


class GraphBreak(Exception):
    """Raised during specialisation when a site cannot be graph."""

    def __init__(self, site: FallbackSite):
        super().__init__(site.format())
        self.site = site


@dataclass
class Decision:
    """What became of one ``if``, loop or boolean operator on this call."""

    loc: Loc
    construct: str
    mode: str
    reason: str
    count: int = field(default=1)

    def format(self) -> str:
        times = f" (x{self.count})" if self.count > 1 else ""
        return f"{self.loc}: {self.construct} -> {self.mode}{times}: {self.reason}"
