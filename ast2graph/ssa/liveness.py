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
        out = _walk(self.cfg, block, self.live_out)
        out.reverse()
        return out

    def at(self, block: int, index: int) -> Names:
        return self.points(block)[index]


def _walk(cfg: CFG, block: int, live_out: dict[int, Names], start: int = 0) -> list[Names]:
    """The live sets of ``block`` from its live-out back to before entry
    ``start`` (last first). Before an entry of a ``with`` body, what is live
    after that ``with`` is live too (``CFG.suppressed``)."""
    entries = cfg.block(block).stmts
    live = live_out[block]
    out = [live]
    for entry in reversed(entries[start:]):
        eff = cfg.effect(entry)
        live = eff.uses | (live - eff.kills)
        for after in cfg.suppressed.get(id(entry), ()):
            live = live | _walk(cfg, after[0], live_out, after[1])[-1]
        out.append(live)
    return out


def compute_liveness(cfg: CFG) -> Liveness:
    graph = cfg.graph
    live_in: dict[int, Names] = {b: frozenset() for b in graph}
    live_out: dict[int, Names] = {b: frozenset() for b in graph}
    # blocks holding part of a ``with`` body: their live-in depends on the
    # live-out of the block after the ``with`` as well, so solve again until
    # a whole pass changes nothing
    suppressing = {b for b in graph if any(id(e) in cfg.suppressed for e in cfg.block(b).stmts)}
    changed = True
    while changed:
        changed = False
        work = sorted(graph)  # pop() takes the exit side first
        pending = set(work)
        while work:
            b = work.pop()
            pending.discard(b)
            out = frozenset().union(*(live_in[s] for s in graph.successors(b)))
            block = cfg.block(b)
            live_out[b] = out
            new_in = _walk(cfg, b, live_out)[-1] if b in suppressing else block.uses | (out - block.kills)
            if new_in != live_in[b]:
                live_in[b] = new_in
                changed = bool(suppressing)
                for p in graph.predecessors(b):
                    if p not in pending:
                        pending.add(p)
                        work.append(p)
    return Liveness(cfg, live_in, live_out)
