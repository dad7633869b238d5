"""Per-entry dataflow effects: the gen/kill summary of one CFG entry.

Requires: ``names.Event`` sequences in evaluation order and the set of the
function's local names.
Produces: ``Effects`` (events restricted to locals; upward-exposed uses; the
names a liveness pass kills; the names an SSA pass must version; the
reaching-definitions gen/kill sets) and ``summarize(events, locals)``.
Invariants: a use preceded by a certain binding in the same entry is not
upward-exposed; ``maybe`` bindings never kill; ``del`` kills and generates an
"undefined" definition; names outside ``locals`` (globals, builtins, names
declared ``global``/``nonlocal``) are dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from .names import BINDING_KINDS, DEF, DEL, MAYBE, READ_KINDS, UPDATE, Event


@dataclass(frozen=True)
class Effects:
    events: tuple[Event, ...]
    uses: frozenset[str]  # upward-exposed reads
    kills: frozenset[str]  # certainly (re)bound or unbound: kills liveness
    binds: frozenset[str]  # any def / maybe / del: an SSA definition site
    gen_defined: frozenset[str]  # reaching defs: a defined value leaves here
    gen_undefined: frozenset[str]  # reaching defs: an unbound name leaves here


EMPTY = Effects((), frozenset(), frozenset(), frozenset(), frozenset(), frozenset())


def summarize(events: Iterable[Event], locals_: frozenset[str]) -> Effects:
    kept = tuple(e for e in events if e.name in locals_ and e.kind in BINDING_KINDS | READ_KINDS | {UPDATE})
    uses: set[str] = set()
    last: dict[str, str] = {}  # name -> last certain event kind (def/del)
    maybe_after: set[str] = set()  # maybe-bound after the last certain event
    for event in kept:
        if event.kind == UPDATE:  # read, then a new version
            if event.name not in last:
                uses.add(event.name)
            last[event.name] = DEF
            maybe_after.discard(event.name)
        elif event.kind in READ_KINDS:
            if event.name not in last:
                uses.add(event.name)
        elif event.kind == MAYBE:
            maybe_after.add(event.name)
        else:
            last[event.name] = event.kind
            maybe_after.discard(event.name)
    kills = frozenset(last)
    gen_def = {n for n, k in last.items() if k == DEF} | maybe_after
    gen_undef = {n for n, k in last.items() if k == DEL}
    binds = frozenset(e.name for e in kept if e.kind in BINDING_KINDS or e.kind == UPDATE)
    return Effects(kept, frozenset(uses), kills, binds, frozenset(gen_def), frozenset(gen_undef))


def chain(effects: list[Effects]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """Block summary of a sequence: (upward-exposed uses, kills, binds)."""
    uses: set[str] = set()
    kills: set[str] = set()
    binds: set[str] = set()
    for eff in effects:
        uses |= eff.uses - kills
        kills |= eff.kills
        binds |= eff.binds
    return frozenset(uses), frozenset(kills), frozenset(binds)

