"""SSA construction: pruned phi placement and renaming.

Requires: a ``CFG`` (block ``defs`` = SSA definition sites) and its
``Liveness`` (block ``live_in``).
Produces: ``construct_ssa(cfg, liveness=None) -> SSAResult``: immediate
dominators and dominance frontiers of the reachable subgraph
(``digraph.immediate_dominators`` / ``dominance_frontiers``), the phi
functions per block with their incoming ``(pred, version)`` pairs and the
version each phi defines, and a version string for every local ``gast.Name``
node that the code evaluates (parameters ``'x.0'``, later definitions
``'x.1'``, ``'x.2'``, ...; a read with no reaching definition ``'x.undef'``).
Invariants: phi placement is Cytron et al. 1991 ("Efficiently computing static
single assignment form and the control dependence graph", TOPLAS 13(4)): the
iterated dominance frontier of the blocks defining a name, with the entry
block counted as defining every name (parameters, or the unbound value), kept
only where the name is live-in (pruned SSA, Choi, Cytron & Ferrante 1991).
Renaming walks the dominator tree from the entry, children in block-id order;
``del x`` pushes ``'x.undef'``; an ``AugAssign`` target maps to the version it
stores, the version it reads is in ``aug_loads``. Only reachable
predecessors contribute phi operands, listed in predecessor-id order. Names in
unreachable blocks are renamed block-locally (reads before any local
definition get ``'x.undef'``, parameters ``'x.0'``). Names
read inside nested functions/lambdas/classes are not versioned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import gast
from . import digraph as dg   # networkx's interface without importing networkx (digraph.py)

from . import names as nm
from .cfg import CFG
from .liveness import Liveness, compute_liveness

Phis = dict[int, dict[str, list[tuple[int, str]]]]


@dataclass
class SSAResult:
    idom: dict[int, int]
    frontiers: dict[int, set[int]]
    phis: Phis = field(default_factory=dict)
    phi_versions: dict[int, dict[str, str]] = field(default_factory=dict)
    versions: dict[object, str] = field(default_factory=dict)
    aug_loads: dict[object, str] = field(default_factory=dict)
    # entry -> (versions read, versions written), in evaluation order
    entry_versions: dict[object, tuple[tuple[str, ...], tuple[str, ...]]] = field(
        default_factory=dict)


def dominance(cfg: CFG) -> tuple[dict[int, int], dict[int, set[int]]]:
    """Immediate dominators (entry excluded) and frontiers, reachable part."""
    reach = cfg.reachable
    sub = dg.DiGraph()   # (a subgraph view filters every lookup: quadratic on long functions)
    sub.add_nodes_from(reach)
    sub.add_edges_from((u, v) for u, v in cfg.graph.edges if u in reach and v in reach)
    idom = dict(dg.immediate_dominators(sub, cfg.entry))
    idom.pop(cfg.entry, None)
    frontiers = {b: set(f) for b, f in dg.dominance_frontiers(sub, cfg.entry).items()}
    return idom, frontiers


def place_phis(cfg: CFG, frontiers: dict[int, set[int]], live_in: dict) -> dict[int, set[str]]:
    """Cytron's worklist over the iterated dominance frontier, pruned."""
    def_sites: dict[str, set[int]] = {v: {cfg.entry} for v in cfg.locals}
    for b in cfg.reachable:
        for v in cfg.block(b).defs:
            def_sites[v].add(b)
    placed: dict[int, set[str]] = {}
    for var in sorted(def_sites):
        work, seen = sorted(def_sites[var]), set(def_sites[var])
        has_phi: set[int] = set()
        while work:
            for y in sorted(frontiers.get(work.pop(), ())):
                if y in has_phi:
                    continue
                has_phi.add(y)
                if var in live_in[y]:
                    placed.setdefault(y, set()).add(var)
                if y not in seen:
                    seen.add(y)
                    work.append(y)
    return placed


class _Renamer:
    def __init__(self, cfg: CFG, result: SSAResult) -> None:
        self.cfg = cfg
        self.res = result
        self.counter: dict[str, int] = {}
        self.stacks: dict[str, list[str]] = {}

    def fresh(self, var: str) -> str:
        n = self.counter.get(var, 0) + 1
        self.counter[var] = n
        return f"{var}.{n}"

    def top(self, var: str) -> str:
        stack = self.stacks.get(var)
        return stack[-1] if stack else f"{var}.undef"

    def push(self, var: str, version: str, pushed: list[str]) -> None:
        self.stacks.setdefault(var, []).append(version)
        pushed.append(var)

    def block(self, b: int, pushed: list[str]) -> None:
        for var in sorted(self.res.phis.get(b, {})):
            version = self.fresh(var)
            self.res.phi_versions.setdefault(b, {})[var] = version
            self.push(var, version, pushed)
        for entry in self.cfg.block(b).stmts:
            reads: list[str] = []
            writes: list[str] = []
            for event in self.cfg.effect(entry).events:
                self.event(event, pushed, reads, writes)
            self.res.entry_versions[entry] = (tuple(reads), tuple(writes))

    def event(self, event: nm.Event, pushed: list[str], reads: list[str],
              writes: list[str]) -> None:
        var, node = event.name, event.node
        if event.kind in nm.READ_KINDS:
            version = self.top(var)
            reads.append(version)
            if node is None:
                return
            if isinstance(getattr(node, "ctx", None), gast.Store):
                self.res.aug_loads[node] = version
            else:
                self.res.versions[node] = version
            return
        version = f"{var}.undef" if event.kind == nm.DEL else self.fresh(var)
        self.push(var, version, pushed)
        writes.append(version)
        if node is not None and event.kind not in (nm.DEL, nm.UPDATE):  # an update's node is the read
            self.res.versions[node] = version

    def fill_successor_phis(self, b: int) -> None:
        for s in self.cfg.succs(b):
            for var, incoming in self.res.phis.get(s, {}).items():
                incoming.append((b, self.top(var)))

    def walk(self, children: dict[int, list[int]]) -> None:
        stack: list[tuple[int, list[str] | None]] = [(self.cfg.entry, None)]
        while stack:
            b, pushed = stack.pop()
            if pushed is not None:  # leaving b: pop what it pushed
                for var in pushed:
                    self.stacks[var].pop()
                continue
            pushed = []
            self.block(b, pushed)
            self.fill_successor_phis(b)
            stack.append((b, pushed))
            for child in reversed(children.get(b, [])):
                stack.append((child, None))

    def unreachable(self) -> None:
        for b in self.cfg.block_ids():
            if b not in self.cfg.reachable:
                saved = self.stacks
                self.stacks = {p: [f"{p}.0"] for p in self.cfg.params if p in self.cfg.locals}
                self.block(b, [])
                self.stacks = saved


def _param_versions(cfg: CFG, renamer: _Renamer) -> None:
    for param in nm.param_nodes(cfg.tree):
        if param.id in cfg.locals:
            renamer.stacks[param.id] = [f"{param.id}.0"]
            renamer.res.versions[param] = f"{param.id}.0"


def construct_ssa(cfg: CFG, liveness: Liveness | None = None) -> SSAResult:
    liveness = liveness or compute_liveness(cfg)
    idom, frontiers = dominance(cfg)
    result = SSAResult(idom, frontiers)
    placed = place_phis(cfg, frontiers, liveness.live_in)
    result.phis = {b: {v: [] for v in sorted(vs)} for b, vs in sorted(placed.items())}
    children: dict[int, list[int]] = {}
    for b, parent in sorted(idom.items()):
        children.setdefault(parent, []).append(b)
    renamer = _Renamer(cfg, result)
    _param_versions(cfg, renamer)
    renamer.walk(children)
    renamer.unreachable()
    for table in result.phis.values():
        for incoming in table.values():
            incoming.sort()
    return result
