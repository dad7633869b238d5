"""``analyze(tree) -> SSAInfo``: the per-statement answers the lowering needs.

Requires: a ``gast.FunctionDef`` (not mutated); ``build_cfg``,
``compute_liveness``, ``maybe_unbound`` and ``construct_ssa``.
Produces: ``SSAInfo`` answering, per statement node (nested ones included):
``live_in`` / ``live_out`` / ``maybe_undefined``; per ``if``: ``if_results``
(the names with a phi at its join block); per loop: ``loop_carried`` (the
names with a phi at its header, minus a ``for`` target); ``assigned`` names
of a statement or body; SSA ``versions`` and ``phis``; a golden-testable
``dump``.
Invariants: pure syntax. All name sets are restricted to the function's local
names (parameters and names bound anywhere in it, minus ``global`` /
``nonlocal`` declarations): globals and builtins never appear. A point that no
path from the entry reaches has empty ``live_in``/``live_out``/
``maybe_undefined`` and an ``if``/loop there has no results.
"""

from __future__ import annotations

import gast

from . import names as nm
from .cfg import CFG, Point, build_cfg
from .construct import SSAResult, construct_ssa
from .dump import dump_ssa
from .liveness import Liveness, compute_liveness
from .unbound import MaybeUnbound, maybe_unbound

Names = frozenset[str]
_EMPTY: Names = frozenset()


class SSAInfo:
    def __init__(self, cfg: CFG, liveness: Liveness, unbound: MaybeUnbound,
                 ssa: SSAResult) -> None:
        self.cfg = cfg
        self.liveness = liveness
        self.unbound = unbound
        self.ssa = ssa

    # -- locations
    def _loc(self, stmt: object) -> Point:
        try:
            return self.cfg.stmt_loc[stmt]
        except KeyError:
            raise KeyError(f"not a statement of this function: {stmt!r}") from None

    def _reached(self, point: Point | None) -> bool:
        return point is not None and point[0] in self.cfg.reachable

    def _live(self, point: Point | None) -> Names:
        return self.liveness.at(*point) if self._reached(point) else _EMPTY

    # -- per-statement queries
    def live_in(self, stmt: object) -> Names:
        """Names live just before ``stmt`` executes."""
        return self._live(self._loc(stmt))

    def live_out(self, stmt: object) -> Names:
        """Names live just after ``stmt`` (the whole of it) completes normally."""
        if stmt in self.cfg.after:
            return self._live(self.cfg.after[stmt])
        block, index = self._loc(stmt)
        return self._live((block, index + 1))

    def maybe_undefined(self, stmt: object) -> Names:
        """Names live before ``stmt`` that some path leaves unbound there."""
        point = self._loc(stmt)
        if not self._reached(point):
            return _EMPTY
        return self.liveness.at(*point) & self.unbound.at(*point)

    def if_results(self, node: gast.If) -> tuple[str, ...]:
        join = self.cfg.join[node]
        return tuple(sorted(self.ssa.phis.get(join, {}))) if join is not None else ()

    def loop_carried(self, node: gast.While | gast.For) -> tuple[str, ...]:
        header = self.cfg.header[node]
        carried = set(self.ssa.phis.get(header, {}))
        if isinstance(node, (gast.For, gast.AsyncFor)):
            carried -= nm.target_names(node.target)
        return tuple(sorted(carried))

    def assigned(self, node: object) -> Names:
        """Local names bound (or deleted) anywhere inside a statement/body."""
        return nm.bound_names(node) & self.cfg.locals

    # -- SSA
    def versions(self) -> dict:
        return dict(self.ssa.versions)

    def phis(self) -> dict[int, dict[str, list]]:
        return {b: {v: list(inc) for v, inc in table.items()}
                for b, table in self.ssa.phis.items()}

    def dump(self) -> str:
        return dump_ssa(self.cfg, self.liveness, self.ssa)


def analyze(tree: gast.FunctionDef) -> SSAInfo:
    cfg = build_cfg(tree)
    liveness = compute_liveness(cfg)
    return SSAInfo(cfg, liveness, maybe_unbound(cfg, liveness), construct_ssa(cfg, liveness))
