"""Reaching definitions (forward may-dataflow to a fixpoint).

Requires: a ``CFG`` with per-entry ``Effects`` (``kills``, ``gen_defined``,
``gen_undefined``).
Produces: ``reaching_definitions(cfg) -> ReachingDefs`` with block-level
``rd_in`` / ``rd_out`` sets of ``Definition`` and ``at(block, index)`` (the
definitions reaching the point just before entry ``index``), plus
``undefined_at(block, index)``: the names that may be unbound there.
Invariants: at the entry every parameter has a ``Definition(name, 'param')``
and every other local name an *undefined* ``Definition(name, 'entry',
undefined=True)``; ``del x`` (and the implicit ``del e`` after ``except ... as
e``) kills ``x`` and generates an undefined definition sited at that entry;
``maybe`` bindings generate without killing. Only blocks reachable from the
entry are solved; every other block has empty sets (no path from the entry
reaches it). Classic iterative solution (Aho, Lam, Sethi & Ullman,
*Compilers*, sec. 9.2.4).
"""

from __future__ import annotations

from dataclasses import dataclass

from .cfg import CFG
from .effects import Effects


@dataclass(frozen=True)
class Definition:
    """``name`` bound at ``site`` (an entry, or ``'param'``/``'entry'``)."""

    name: str
    site: object
    undefined: bool = False


Defs = frozenset[Definition]


# The solver works on maps name -> definitions of that name: a statement
# changes only the entries of the names it binds, so the cost of a transfer
# is the names it binds, not all names (a function of n lines has O(n) names:
# with whole sets, conversion time grew with n^2).
DefMap = dict[str, frozenset[Definition]]


def _apply(defs: DefMap, site: object, eff: Effects, undefined: set[str] | None = None) -> None:
    """``defs`` (and the set of names that may be unbound) after ``site``, in place."""
    for n in eff.kills:
        defs.pop(n, None)
        if undefined is not None:
            undefined.discard(n)
    for n in eff.gen_defined:
        defs[n] = defs.get(n, frozenset()) | {Definition(n, site)}
    for n in eff.gen_undefined:
        defs[n] = defs.get(n, frozenset()) | {Definition(n, site, True)}
        if undefined is not None:
            undefined.add(n)


def _flat(defs: DefMap) -> Defs:
    return frozenset().union(*defs.values())


class ReachingDefs:
    def __init__(self, cfg: CFG, in_maps: dict[int, DefMap], out_maps: dict[int, DefMap]) -> None:
        self.cfg = cfg
        self._in = in_maps
        self._out = out_maps
        self._cursor: tuple[int, int, DefMap, set[str]] | None = None

    @property
    def rd_in(self) -> dict[int, Defs]:
        return {b: _flat(m) for b, m in self._in.items()}

    @property
    def rd_out(self) -> dict[int, Defs]:
        return {b: _flat(m) for b, m in self._out.items()}

    def _advance(self, block: int, index: int) -> tuple[DefMap, set[str]]:
        """The definitions just before entry ``index`` of ``block`` (and the names
        that may be unbound there), from the last point asked for when it is
        earlier in the same block (questions come in program order)."""
        cursor = self._cursor
        if cursor is None or cursor[0] != block or cursor[1] > index:
            defs = dict(self._in[block])
            cursor = (block, 0, defs, {n for n, ds in defs.items() if any(d.undefined for d in ds)})
        _, at, defs, undefined = cursor
        for entry in self.cfg.block(block).stmts[at:index]:
            _apply(defs, entry, self.cfg.effect(entry), undefined)
        self._cursor = (block, index, defs, undefined)
        return defs, undefined

    def at(self, block: int, index: int) -> Defs:
        return _flat(self._advance(block, index)[0])

    def undefined_at(self, block: int, index: int) -> frozenset[str]:
        return frozenset(self._advance(block, index)[1])


def entry_definitions(cfg: CFG) -> Defs:
    params = set(cfg.params)
    defs = {Definition(p, "param") for p in params if p in cfg.locals}
    defs |= {Definition(n, "entry", True) for n in cfg.locals - params}
    return frozenset(defs)


def _join(maps: list[DefMap]) -> DefMap:
    if not maps:
        return {}
    out = dict(maps[0])
    for m in maps[1:]:
        for n, ds in m.items():
            cur = out.get(n)
            if cur is None:
                out[n] = ds
            elif cur is not ds:
                out[n] = cur | ds
    return out


def reaching_definitions(cfg: CFG) -> ReachingDefs:
    graph, reach = cfg.graph, cfg.reachable
    rd_in: dict[int, DefMap] = {b: {} for b in graph}
    rd_out: dict[int, DefMap] = {b: {} for b in graph}
    start: DefMap = {}
    for d in entry_definitions(cfg):
        start[d.name] = start.get(d.name, frozenset()) | {d}
    work = sorted(reach, reverse=True)  # pop() takes the entry side first
    pending = set(work)
    while work:
        b = work.pop()
        pending.discard(b)
        preds = [rd_out[p] for p in graph.predecessors(b) if p in reach]
        new_in = _join(preds + [start] if b == cfg.entry else preds)
        rd_in[b] = new_in
        new_out = dict(new_in)
        for entry in cfg.block(b).stmts:
            _apply(new_out, entry, cfg.effect(entry))
        if new_out != rd_out[b]:
            rd_out[b] = new_out
            for s in graph.successors(b):
                if s not in pending:
                    pending.add(s)
                    work.append(s)
    return ReachingDefs(cfg, rd_in, rd_out)
