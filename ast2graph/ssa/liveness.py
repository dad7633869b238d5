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
do not kill; ``del x`` kills ``x``; a name a nested function or lambda
captures and a later binding may rebind is live before every entry from the
capture on (``_captured_after``: the closure reads its cell when called). Unreachable blocks are analysed too (the
answers for them are meaningless but harmless). Only the function's local
names are tracked. Classic iterative round-robin/worklist solution
(Kildall 1973; Aho, Lam, Sethi & Ullman, *Compilers*, sec. 9.2.5).
"""

from __future__ import annotations

from . import digraph as dg
from .cfg import CFG
from .names import CAPTURE

Names = frozenset[str]


class Liveness:
    def __init__(self, cfg: CFG, live_in: dict[int, Names], live_out: dict[int, Names],
                 floor: dict[int, dict[str, int]] | None = None) -> None:
        self.cfg = cfg
        self.floor = floor or {}
        self.live_in = live_in
        self.live_out = live_out
        self._points: dict[int, list[Names]] = {}

    def points(self, block: int) -> list[Names]:
        """Live sets before each entry of ``block``, then its live-out."""
        if block not in self._points:
            self._points[block] = self._walk_back(block)
        return self._points[block]

    def _walk_back(self, block: int) -> list[Names]:
        out = _walk(self.cfg, block, self.live_out, floor=self.floor)
        out.reverse()
        return out

    def at(self, block: int, index: int) -> Names:
        return self.points(block)[index]


def _walk(cfg: CFG, block: int, live_out: dict[int, Names], start: int = 0,
          floor: dict[int, dict[str, int]] | None = None) -> list[Names]:
    """The live sets of ``block`` from its live-out back to before entry
    ``start`` (last first). Before an entry of a ``with`` body, what is live
    after that ``with`` is live too (``CFG.suppressed``)."""
    entries = cfg.block(block).stmts
    live = live_out[block]
    out = [live]
    for k in range(len(entries) - 1, start - 1, -1):
        entry = entries[k]
        eff = cfg.effect(entry)
        live = eff.uses | (live - eff.kills) | _floor_at(floor, block, k)
        for after in cfg.suppressed.get(id(entry), ()):
            live = live | _walk(cfg, after[0], live_out, after[1], floor)[-1]
        out.append(live)
    return out


def _captured_after(cfg: CFG) -> dict[int, dict[str, int]]:
    """Block -> the names a nested function or lambda captured on a path to
    the block's end and that a binding after the capture may rebind: the
    closure reads such a name's cell when it is called, anywhere later (``g =
    lambda y: y * s; if c: s = 3; g(x)`` reads the ``s`` the ``if`` left),
    so it stays live from the capture on: before each entry of those blocks
    (not after a block's last one: nothing calls the closure after a return)."""
    graph = cfg.graph
    captures: dict[str, list[tuple[int, int]]] = {}
    binds: dict[str, list[tuple[int, int]]] = {}
    for b in graph:
        for i, entry in enumerate(cfg.block(b).stmts):
            eff = cfg.effect(entry)
            for e in eff.events:
                if e.kind == CAPTURE:
                    captures.setdefault(e.name, []).append((b, i))
            for n in eff.binds:
                binds.setdefault(n, []).append((b, i))
    floor: dict[int, dict[str, int]] = {}   # block -> name -> the first entry it is live before
    for name, sites in captures.items():
        later = {b: dg.descendants(graph, b) for b, _ in sites}
        rebound = any(bb in later[b] or bb == b and j > i for b, i in sites for bb, j in binds.get(name, ()))
        if not rebound:
            continue   # never rebound after it is captured: its value is the captured one
        for b, i in sites:   # from the entry after the capture on
            start = floor.setdefault(b, {})
            start[name] = min(start.get(name, i + 1), i + 1)
        for b in set().union(*later.values()) - {cfg.exit}:
            floor.setdefault(b, {})[name] = 0
    return floor


def _floor_at(floor: dict | None, block: int, index: int) -> Names:
    """The captured names live before entry ``index`` of ``block`` (``_captured_after``)."""
    here = (floor or {}).get(block)
    return frozenset(n for n, k in here.items() if k <= index) if here else frozenset()


def compute_liveness(cfg: CFG) -> Liveness:
    graph = cfg.graph
    floor = _captured_after(cfg)
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
            new_in = _walk(cfg, b, live_out, floor=floor)[-1] if b in suppressing else \
                block.uses | (out - block.kills) | _floor_at(floor, b, 0)
            if new_in != live_in[b]:
                live_in[b] = new_in
                changed = bool(suppressing)
                for p in graph.predecessors(b):
                    if p not in pending:
                        pending.add(p)
                        work.append(p)
    return Liveness(cfg, live_in, live_out, floor)
