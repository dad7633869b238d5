"""Names that may be unbound where they are live (forward may-dataflow).

Requires: a ``CFG`` with per-entry ``Effects`` (``kills``, ``gen_undefined``)
and its ``Liveness``.
Produces: ``maybe_unbound(cfg, liveness) -> MaybeUnbound`` with
``at(block, index)``: a set containing every name that is live just before
entry ``index`` and that some path from the entry leaves unbound there (it
may also hold names not live there: callers intersect with liveness).
Invariants: for live names, the same answer as the undefined definitions of
``reaching_definitions`` (every local but the parameters is unbound at the
entry; a certain binding kills; ``del`` and the implicit ``del e`` after
``except ... as e`` generate; a ``maybe`` binding neither kills nor
generates). Only blocks reachable from the entry are solved.

Why not reaching definitions: the lowering only asks which live names may be
unbound, and a name can be unbound at a point where it is live only if it is
live on the whole path that leaves it unbound (no binding on that path means
no kill of its liveness). So each block's set is kept within its live-in and
live-out sets. Full reaching-definition maps per block grow with the number
of blocks times the number of names: a generated 5,000-line function kept
~300 MiB of them; these sets are as small as the live sets.
"""

from __future__ import annotations

from .cfg import CFG
from .liveness import Liveness

Names = frozenset[str]


class MaybeUnbound:
    def __init__(self, cfg: CFG, unbound_in: dict[int, Names]) -> None:
        self.cfg = cfg
        self._in = unbound_in
        self._cursor: tuple[int, int, set[str]] | None = None

    def at(self, block: int, index: int) -> Names:
        """The names that may be unbound just before entry ``index`` of
        ``block``, walking on from the last point asked for when it is
        earlier in the same block (questions come in program order)."""
        cursor = self._cursor
        if cursor is None or cursor[0] != block or cursor[1] > index:
            cursor = (block, 0, set(self._in.get(block, ())))
        _, at, names = cursor
        _through(self.cfg, self.cfg.block(block).stmts[at:index], names)
        self._cursor = (block, index, names)
        return frozenset(names)


def _through(cfg: CFG, entries: list, names: set[str]) -> set[str]:
    """``names`` after ``entries``, in place: a certain binding removes a
    name, ``del`` adds it."""
    for entry in entries:
        eff = cfg.effect(entry)
        names.difference_update(eff.kills)
        names.update(eff.gen_undefined)
    return names


def maybe_unbound(cfg: CFG, liveness: Liveness) -> MaybeUnbound:
    graph, reach = cfg.graph, cfg.reachable
    live_in, live_out = liveness.live_in, liveness.live_out
    start = (cfg.locals - frozenset(cfg.params)) & live_in[cfg.entry]
    un_in: dict[int, Names] = {}
    un_out: dict[int, Names] = {b: frozenset() for b in reach}
    work = sorted(reach, reverse=True)  # pop() takes the entry side first
    pending = set(work)
    while work:
        b = work.pop()
        pending.discard(b)
        names: set[str] = set(start) if b == cfg.entry else set()
        for p in graph.predecessors(b):
            if p in reach:
                names.update(un_out[p])
        names &= live_in[b]
        un_in[b] = frozenset(names)
        new_out = frozenset(_through(cfg, cfg.block(b).stmts, names) & live_out[b])
        if new_out != un_out[b]:
            un_out[b] = new_out
            for s in graph.successors(b):
                if s not in pending and s in reach:
                    pending.add(s)
                    work.append(s)
    return MaybeUnbound(cfg, un_in)
