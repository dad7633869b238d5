"""Long work says so: one log line for a conversion or compile that takes long.

Requires: ``logging`` (the ``"ast2graph"`` logger), a segment's
``Specialization`` (its decisions and graph).
Produces: ``note_long_work(function, stage, seconds, spec)``: where
``seconds`` is at least ``LONG_WORK_SECONDS``, one ``WARNING`` line naming
the function, the stage (conversion: parse to lowered JAX function; XLA
compile: tracing and compiling the graph), the time and what makes the graph
big (its unrolled loops, largest first, and its op count).
Invariants: only ``logging``: silence it with
``logging.getLogger("ast2graph").setLevel(logging.ERROR)``; nothing is
printed otherwise, nothing else changes.
"""

from __future__ import annotations

import logging
import re
from typing import Any

LONG_WORK_SECONDS = 2.0   # the tests lower it

logger = logging.getLogger("ast2graph")


def note_long_work(function: str, stage: str, seconds: float, spec: Any) -> None:
    if seconds < LONG_WORK_SECONDS:
        return
    logger.warning("ast2graph: %s of %s took %.1f s: %s", stage, function, seconds, why_big(spec))


def why_big(spec: Any) -> str:
    """The graph's size in words: its largest unrolled loops and its ops."""
    from .ir.core import walk_ops

    ops = sum(1 for _ in walk_ops(spec.graph.body))
    loops = []
    for d in spec.decisions:
        if d.mode in ("unrolled", "peeled", "static") and d.construct in ("for", "while", "comprehension", "call"):
            numbers = [int(n) for n in re.findall(r"\d+", d.reason)]
            count = (numbers[0] if numbers else 1) * d.count
            times = f" (x{d.count})" if d.count > 1 else ""
            loops.append((count, f"{d.construct} at line {d.loc.line} {d.mode}{times}: {d.reason}"))
    loops.sort(key=lambda x: -x[0])
    parts = [text for _, text in loops[:2]]
    parts.append(f"{ops} ops in the graph")
    return "; ".join(parts)
