"""Live-variable analysis (backward may-dataflow to a fixpoint).

Requires: a ``CFG`` whose blocks carry ``uses`` (upward-exposed) and
``kills`` (names certainly rebound or unbound in the block), and per-entry
``Effects``.
Produces: ``compute_liveness(cfg) -> Liveness`` with block-level ``live_in``
/ ``live_out`` and ``at(block, index)``: the names live just before entry
``index`` of ``block`` (``index == len(stmts)`` gives the block's live-out).
Invariants: ``live_out(b) = U live_in(s)`` over successors ``s``;
``live_in(b) = uses(b) | (live_out(b) - kills(b))``; the exit block has
nothing live; ``maybe`` bindings (walrus in a comprehension or short-circuit)
do not kill; ``del x`` kills ``x``. Unreachable blocks are analysed too (the
answers for them are meaningless but harmless). Only the function's local
names are tracked. Classic iterative round-robin/worklist solution
(Kildall 1973; Aho, Lam, Sethi & Ullman, *Compilers*, sec. 9.2.5).
"""

from __future__ import annotations

from .cfg import CFG

Names = frozenset[str]


class Liveness:
    def __init__(self, cfg: CFG, live_in: dict[int, Names], live_out: dict[int, Names]) -> None:
        self.cfg = cfg
        self.live_in = live_in
        self.live_out = live_out
        self._points: dict[int, list[Names]] = {}

    def points(self, block: int) -> list[Names]:
        """Live sets before each entry of ``block``, then its live-out."""
        if block not in self._points:
            self._points[block] = self._walk_back(block)
        return self._points[block]

    def _walk_back(self, block: int) -> list[Names]:
        entries = self.cfg.block(block).stmts
        live = self.live_out[block]
        out = [live]
        for entry in reversed(entries):
            eff = self.cfg.effect(entry)
            live = eff.uses | (live - eff.kills)
            out.append(live)
        out.reverse()
        return out

    def at(self, block: int, index: int) -> Names:
        return self.points(block)[index]


def compute_liveness(cfg: CFG) -> Liveness:
    graph = cfg.graph
    live_in: dict[int, Names] = {b: frozenset() for b in graph}
    live_out: dict[int, Names] = {b: frozenset() for b in graph}
    work = sorted(graph)  # pop() takes the exit side first
    pending = set(work)
    while work:
        b = work.pop()
        pending.discard(b)
        out = frozenset().union(*(live_in[s] for s in graph.successors(b)))
        block = cfg.block(b)
        new_in = block.uses | (out - block.kills)
        live_out[b] = out
        if new_in != live_in[b]:
            live_in[b] = new_in
            for p in graph.predecessors(b):
                if p not in pending:
                    pending.add(p)
                    work.append(p)
    return Liveness(cfg, live_in, live_out)
