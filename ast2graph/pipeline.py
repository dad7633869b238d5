"""The named stages of a conversion: their timings, and their output printed on request.

Requires: nothing of the compiler (the stages pass their own text).
Produces: ``STAGES`` (parse → resolve → ssa → typeinfer → verify → lower →
load → jit, in pipeline order; *load* is a graph's executable loaded from
ast2graph's cache, which then takes no *jit*), ``Stages`` (the seconds each stage took for one
function or segment; ``with stages.run(name, show):`` times a stage and,
after it succeeded, prints ``show()`` to stderr when ``AST2GRAPH_PRINT_AFTER``
names the stage) and ``printed_stages()``.
Invariants: timing and printing never change what a stage does; nothing is
printed unless ``AST2GRAPH_PRINT_AFTER`` is set (a comma list of stage names,
or ``all``); an unknown name there is a warning naming the stages, once.

The stages, and where they run::

    parse      source text → normalised gast tree       once per function (to_static)
    resolve    the names of its scope                   once per function
    ssa        CFG, SSA and liveness                    once per function
    typeinfer  abstract interpretation → graph IR       per segment and call signature
    verify     the IR's invariants (AST2GRAPH_CHECKS)   per segment
    lower      IR → a JAX function's Python source      per segment
    jit        JAX tracing and XLA compilation          per segment

As Numba's pass manager prints the IR after a named pass, so
``AST2GRAPH_PRINT_AFTER=typeinfer,lower python model.py`` prints each
segment's graph IR and its lowered JAX source as they are made.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from typing import Callable, Iterator

STAGES = ("parse", "resolve", "ssa", "typeinfer", "verify", "lower", "load", "jit")
PRINT_AFTER = "AST2GRAPH_PRINT_AFTER"
_warned: set[str] = set()


def printed_stages() -> frozenset[str]:
    """The stages ``AST2GRAPH_PRINT_AFTER`` names (read at each stage: a
    notebook may set it between calls)."""
    raw = os.environ.get(PRINT_AFTER, "")
    if not raw:
        return frozenset()
    names = {part.strip() for part in raw.split(",") if part.strip()}
    if "all" in names:
        return frozenset(STAGES)
    unknown = sorted(names - set(STAGES))
    if unknown and raw not in _warned:
        _warned.add(raw)
        warnings.warn(f"{PRINT_AFTER}={raw!r}: no stage named {', '.join(unknown)}; the stages are "
                      f"{', '.join(STAGES)} (or all)", stacklevel=4)
    return frozenset(names & set(STAGES))


class Stages:
    """The seconds each named stage took for one function (parse, resolve,
    ssa) or one segment (typeinfer .. jit); a stage run twice (a segment
    specialised again after a graph break) adds up."""

    def __init__(self, function: str) -> None:
        self.function = function
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def run(self, name: str, show: Callable[[], str] | None = None) -> Iterator[None]:
        assert name in STAGES, name
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - t0)
        if show is not None and name in printed_stages():
            text = show().rstrip("\n")
            sys.stderr.write(f"=== ast2graph: {self.function} after {name} ===\n{text}\n")

    def add(self, name: str, seconds: float) -> None:
        """Count ``seconds`` to ``name``, timed by the caller (a stage known to have
        happened only once it succeeded: a graph loaded from ast2graph's store)."""
        assert name in STAGES, name
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds

    def total(self) -> float:
        return sum(self.seconds.values())


def format_seconds(seconds: dict[str, float]) -> str:
    """``parse 1.2 ms, typeinfer 8.0 ms, ...`` in pipeline order."""
    return ", ".join(f"{name} {seconds[name] * 1e3:.1f} ms" for name in STAGES if name in seconds)
