"""Control-flow graph of one function, built from its gast tree.

Requires: a ``gast.FunctionDef`` (Python 3.11 syntax); ``names`` for the
name events of each piece of syntax.
Produces: ``build_cfg(tree) -> CFG``: basic blocks of *entries* in a
``digraph.DiGraph`` (networkx's interface; node = block id, attribute ``block`` = ``BasicBlock``),
a single entry block (id 0, no predecessors) and a single exit block (the
largest id, no statements). An entry is a simple statement node, or a
pseudo-entry standing for the header piece of a compound statement
(``IfTest``, ``LoopEntry``/``LoopTest``, ``ForIter``/``ForNext``/``ForTarget``,
``WithEnter``, ``TryEnter``, ``HandlerEnter``/``HandlerExit``,
``MatchSubject``/``MatchCase``). The ``CFG`` maps every statement (nested ones
too) to the location of its first entry, every compound statement to the
program point just after it, every ``if`` to its join block and every loop to
its header block.
Invariants:
  * A ``while`` header holds only ``LoopTest``; a ``for`` header holds only
    ``ForNext`` and the loop target is bound by ``ForTarget`` at the top of the
    body, so the exhaustion edge carries no binding of the target.
  * ``else:`` of a loop runs when the test is false / the iterator is
    exhausted; ``break`` jumps past it. ``while <truthy constant>`` has no
    false edge.
  * ``return``/``raise``/``break``/``continue`` end their block; the code after
    them starts a block with no predecessors (kept when it holds statements,
    dropped when empty).
  * Exceptions (approximated soundly): inside a ``try`` body every entry ends
    its block, and the end of the block before the try and of every entry in
    the body has an edge to each handler (and on to enclosing handlers unless
    one handler is a bare ``except:``/``BaseException``). A ``finally`` block is
    entered from the ends of body/else/handlers, from every ``return``/``break``
    /``continue``/exception routed through it, and its end continues to the
    statement after the try (when reached normally), to each routed jump's
    target, and to the enclosing handlers or the exit (re-raise). Only explicit
    ``raise`` and re-raises reach the exit; other implicit exceptions outside a
    ``try`` are not modelled (they end the function, which is sound for every
    analysis here). ``with`` bodies are sequential (``__exit__`` suppressing
    an exception is not modelled). A handler ``as e`` name is unbound by a
    ``HandlerExit`` entry, as Python does.
  * ``match``: each case is a test block (pattern reads, captures, guard) with
    an edge to its body and, unless irrefutable, to the next case / the after
    block; captures are treated as bound on the fall-through edge too.
  * Block ids follow the order in which the builder enters blocks (close to
    source order), the exit block last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

import gast
from . import digraph as dg   # networkx's interface without importing networkx (digraph.py)

from . import names as nm
from .effects import Effects, chain, summarize


# -- pseudo entries --------------------------------------------------------
@dataclass(frozen=True)
class _Pseudo:
    node: object

    label = "?"

    def events(self) -> list[nm.Event]:
        return []


@dataclass(frozen=True)
class IfTest(_Pseudo):
    label = "if-test"

    def events(self) -> list[nm.Event]:
        return nm.expr_events(self.node.test)


@dataclass(frozen=True)
class LoopEntry(_Pseudo):
    """End of the block before a ``while``: the point where the loop starts."""

    label = "while-entry"


@dataclass(frozen=True)
class LoopTest(_Pseudo):
    label = "while-test"

    def events(self) -> list[nm.Event]:
        return nm.expr_events(self.node.test)


@dataclass(frozen=True)
class ForIter(_Pseudo):
    """Evaluation of the iterable (once, before the loop header)."""

    label = "for-iter"

    def events(self) -> list[nm.Event]:
        return nm.expr_events(self.node.iter)


@dataclass(frozen=True)
class ForNext(_Pseudo):
    """The loop header: advance the iterator, leave on exhaustion."""

    label = "for-next"


@dataclass(frozen=True)
class ForTarget(_Pseudo):
    """Binding of the loop target to the next item (top of the body)."""

    label = "for-target"

    def events(self) -> list[nm.Event]:
        return nm.expr_events(self.node.target)


@dataclass(frozen=True)
class WithEnter(_Pseudo):
    label = "with"

    def events(self) -> list[nm.Event]:
        pieces: list = []
        for item in self.node.items:
            pieces += [item.context_expr, item.optional_vars]
        return nm.expr_events(pieces)


@dataclass(frozen=True)
class TryEnter(_Pseudo):
    label = "try"


@dataclass(frozen=True)
class HandlerEnter(_Pseudo):
    """``except T as e:``: evaluates ``T`` and binds ``e``."""

    label = "except"

    def events(self) -> list[nm.Event]:
        return nm.expr_events([self.node.type, self.node.name])


@dataclass(frozen=True)
class HandlerExit(_Pseudo):
    """The implicit ``del e`` at the end of ``except ... as e:``."""

    label = "except-exit"

    def events(self) -> list[nm.Event]:
        return [nm.Event(nm.DEL, self.node.name.id)]


@dataclass(frozen=True)
class MatchSubject(_Pseudo):
    label = "match"

    def events(self) -> list[nm.Event]:
        return nm.expr_events(self.node.subject)


@dataclass(frozen=True)
class MatchCase(_Pseudo):
    label = "case"

    def events(self) -> list[nm.Event]:
        return nm.pattern_events(self.node.pattern) + nm.expr_events(self.node.guard)


PSEUDO_ENTRIES = (
    IfTest, LoopEntry, LoopTest, ForIter, ForNext, ForTarget, WithEnter,
    TryEnter, HandlerEnter, HandlerExit, MatchSubject, MatchCase,
)
Entry = Union[gast.stmt, _Pseudo]
Point = tuple[int, int]  # (block id, index): just before entry ``index``


def entry_events(entry: Entry) -> list[nm.Event]:
    if isinstance(entry, _Pseudo):
        return entry.events()
    return nm.stmt_events(entry)


def is_pseudo(entry: object) -> bool:
    return isinstance(entry, _Pseudo)


# -- blocks and graph --------------------------------------------------------
@dataclass(eq=False)
class BasicBlock:
    id: int
    stmts: list = field(default_factory=list)
    uses: frozenset[str] = frozenset()  # upward-exposed uses
    defs: frozenset[str] = frozenset()  # names bound/unbound here (SSA def sites)
    kills: frozenset[str] = frozenset()  # names certainly rebound/unbound here

    def __repr__(self) -> str:
        return f"BasicBlock({self.id}, {len(self.stmts)} entries)"


class CFG:
    """Blocks, edges and the statement -> location maps of one function."""

    def __init__(self, tree: gast.FunctionDef, graph: dg.DiGraph, entry: int,
                 exit: int, locals_: frozenset[str]) -> None:
        self.tree = tree
        self.graph = graph
        self.entry = entry
        self.exit = exit
        self.locals = locals_
        self.params: tuple[str, ...] = nm.param_names(tree)
        self.stmt_loc: dict[object, Point] = {}
        self.after: dict[object, Point | None] = {}
        self.join: dict[object, int | None] = {}
        self.header: dict[object, int] = {}
        self.effects: dict[object, Effects] = {}
        # id(entry) -> the points after the ``with`` statements whose body holds
        # it: an exception there that ``__exit__`` swallows goes on at that
        # point, so what is live there is live before the entry. Not an edge:
        # which managers swallow is unknown here, and an edge would make every
        # name the body binds maybe-unbound after ``with np.errstate(...)``.
        self.suppressed: dict[int, list[Point]] = {}

    def block(self, i: int) -> BasicBlock:
        return self.graph.nodes[i]["block"]

    def block_ids(self) -> list[int]:
        return sorted(self.graph.nodes)

    def preds(self, i: int) -> list[int]:
        return sorted(self.graph.predecessors(i))

    def succs(self, i: int) -> list[int]:
        return sorted(self.graph.successors(i))

    @cached_property
    def reachable(self) -> frozenset[int]:
        return frozenset(dg.descendants(self.graph, self.entry) | {self.entry})

    def effect(self, entry: Entry) -> Effects:
        return self.effects[entry]

    def __repr__(self) -> str:
        return f"CFG({self.graph.number_of_nodes()} blocks, {self.graph.number_of_edges()} edges)"


# -- builder ---------------------------------------------------------------
@dataclass
class _Loop:
    header: int
    after: int | None = None


@dataclass
class _Handlers:
    blocks: list[int]
    catch_all: bool


@dataclass
class _Finally:
    entry: int
    pending: set[str] = field(default_factory=set)


_JUMP_ORDER = ("break", "continue", "return")


def _catches_all(handler: gast.ExceptHandler) -> bool:
    typ = handler.type
    return typ is None or (isinstance(typ, gast.Name) and typ.id == "BaseException")


def _truthy_constant(test: object) -> bool:
    return isinstance(test, gast.Constant) and bool(test.value)


def _irrefutable(case: gast.match_case) -> bool:
    pat = case.pattern
    while isinstance(pat, gast.MatchAs) and pat.pattern is not None:
        pat = pat.pattern
    return case.guard is None and isinstance(pat, gast.MatchAs) and pat.pattern is None


class _Builder:
    def __init__(self) -> None:
        self.graph = dg.DiGraph()
        self.stmts: dict[int, list] = {}
        self.seq: dict[int, int] = {}  # block -> order in which it was entered
        self.entry = self._new()
        self.exit = self._new()
        self.cur = self.entry
        self._enter(self.entry)
        self.frames: list = []
        self.loc: dict[object, Point] = {}
        self.after: dict[object, Point] = {}
        self.join: dict[object, int] = {}
        self.header: dict[object, int] = {}
        self.appended: list = []   # every entry, in the order appended
        self.with_bodies: list[tuple[object, list]] = []   # (a with statement, the entries of its body)

    # -- primitives
    def _new(self) -> int:
        i = len(self.stmts)
        self.stmts[i] = []
        self.graph.add_node(i)
        return i

    def _edge(self, a: int, b: int) -> None:
        self.graph.add_edge(a, b)

    def _protected(self) -> bool:
        return any(isinstance(f, (_Handlers, _Finally)) for f in self.frames)

    def _append(self, entry: Entry) -> Point:
        protected = self._protected()
        if protected and self.stmts[self.cur]:
            self._goto(self._new())
        self.stmts[self.cur].append(entry)
        self.appended.append(entry)
        if protected:
            self._jump("exc", self.cur, self.frames)
        return (self.cur, len(self.stmts[self.cur]) - 1)

    def _enter(self, block: int) -> None:
        """Make ``block`` current; ids follow the order blocks are entered."""
        self.seq.setdefault(block, len(self.seq))
        self.cur = block

    def _goto(self, block: int) -> None:
        """Fall through from the current block into ``block``."""
        self._edge(self.cur, block)
        self._enter(block)

    def _dead_end(self) -> None:
        self._enter(self._new())

    def _is_dead_fresh(self, b: int) -> bool:
        return b != self.entry and not self.stmts[b] and self.graph.in_degree(b) == 0

    def _reachable_now(self, b: int) -> bool:
        return b == self.entry or dg.has_path(self.graph, self.entry, b)

    def _loop_after(self, frame: _Loop) -> int:
        if frame.after is None:
            frame.after = self._new()
        return frame.after

    def _jump(self, kind: str, src: int, frames: list) -> None:
        """Edges for a break/continue/return/raise/implicit exception."""
        for frame in reversed(frames):
            if isinstance(frame, _Loop) and kind in ("break", "continue"):
                target = frame.header if kind == "continue" else self._loop_after(frame)
                self._edge(src, target)
                return
            if isinstance(frame, _Handlers) and kind in ("raise", "exc"):
                for handler in frame.blocks:
                    self._edge(src, handler)
                if frame.catch_all:
                    return
            if isinstance(frame, _Finally):
                self._edge(src, frame.entry)
                if kind in _JUMP_ORDER:
                    frame.pending.add(kind)
                return
        if kind in ("return", "raise"):
            self._edge(src, self.exit)

    # -- statements
    def body(self, stmts: list) -> None:
        for stmt in stmts:
            self.stmt(stmt)

    def stmt(self, node: gast.stmt) -> None:
        method = getattr(self, "_s_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.loc[node] = self._append(node)

    def _terminal(self, node: gast.stmt, kind: str) -> None:
        self.loc[node] = self._append(node)
        self._jump(kind, self.cur, self.frames)
        self._dead_end()

    def _s_Return(self, node: gast.Return) -> None:
        self._terminal(node, "return")

    def _s_Raise(self, node: gast.Raise) -> None:
        self._terminal(node, "raise")

    def _s_Break(self, node: gast.Break) -> None:
        self._terminal(node, "break")

    def _s_Continue(self, node: gast.Continue) -> None:
        self._terminal(node, "continue")

    def _s_If(self, node: gast.If) -> None:
        self.loc[node] = self._append(IfTest(node))
        test = self.cur
        self._goto(self._new())
        self.body(node.body)
        ends = [self.cur]
        if node.orelse:
            self._enter(test)
            self._goto(self._new())
            self.body(node.orelse)
            ends.append(self.cur)
        else:
            ends.append(test)
        join = self._new()
        for end in ends:
            self._edge(end, join)
        self._enter(join)
        self.join[node] = join
        self.after[node] = (join, 0)

    def _loop_body(self, node: object, header: int, frame: _Loop) -> None:
        self.frames.append(frame)
        self.body(node.body)
        self.frames.pop()
        self._edge(self.cur, header)

    def _loop_exit(self, node: object, header: int, frame: _Loop, falls: bool) -> None:
        if node.orelse:
            self._enter(self._new())
            if falls:
                self._edge(header, self.cur)
            self.body(node.orelse)
            self._edge(self.cur, self._loop_after(frame))
        elif falls:
            self._edge(header, self._loop_after(frame))
        self._enter(self._loop_after(frame))
        self.after[node] = (self.cur, 0)

    def _s_While(self, node: gast.While) -> None:
        self.loc[node] = self._append(LoopEntry(node))
        self._goto(self._new())
        header = self._append(LoopTest(node))[0]
        self.header[node] = header
        frame = _Loop(header)
        self._goto(self._new())
        self._loop_body(node, header, frame)
        self._loop_exit(node, header, frame, not _truthy_constant(node.test))

    def _s_For(self, node: gast.For) -> None:
        self.loc[node] = self._append(ForIter(node))
        self._goto(self._new())
        header = self._append(ForNext(node))[0]
        self.header[node] = header
        frame = _Loop(header)
        self._goto(self._new())
        self._append(ForTarget(node))
        self._loop_body(node, header, frame)
        self._loop_exit(node, header, frame, True)

    _s_AsyncFor = _s_For

    def _s_With(self, node: gast.With) -> None:
        self.loc[node] = self._append(WithEnter(node))
        first = len(self.appended)
        self.body(node.body)
        self.after[node] = (self.cur, len(self.stmts[self.cur]))
        # the context manager's __exit__ may swallow an exception raised by any
        # statement of the body: the code after the ``with`` runs from there
        # (liveness only: ``CFG.suppressed``)
        self.with_bodies.append((node, self.appended[first:]))

    _s_AsyncWith = _s_With

    def _s_Try(self, node: gast.Try) -> None:
        self.loc[node] = self._append(TryEnter(node))
        fin = _Finally(self._new()) if node.finalbody else None
        handlers = [self._new() for _ in node.handlers]
        if fin:
            self.frames.append(fin)
        if handlers:
            self.frames.append(_Handlers(handlers, any(map(_catches_all, node.handlers))))
        self._jump("exc", self.cur, self.frames)
        self._goto(self._new())
        self.body(node.body)
        if handlers:
            self.frames.pop()
        ends = [self._try_else(node)]
        for handler, block in zip(node.handlers, handlers):
            ends.append(self._handler(handler, block))
        if fin:
            self.frames.pop()
            self._finally(node, fin, ends)
        else:
            self._enter(self._new())
            for end in ends:
                self._edge(end, self.cur)
        self.after[node] = (self.cur, 0)

    _s_TryStar = _s_Try

    def _try_else(self, node: gast.Try) -> int:
        if node.orelse:
            # a fresh block: the body's last block carries the handler edges
            self._goto(self._new())
            self.body(node.orelse)
        return self.cur

    def _handler(self, handler: gast.ExceptHandler, block: int) -> int:
        self._enter(block)
        self.loc[handler] = self._append(HandlerEnter(handler))
        self.body(handler.body)
        if handler.name is not None and not self._is_dead_fresh(self.cur):
            self._append(HandlerExit(handler))
        return self.cur

    def _finally(self, node: gast.Try, fin: _Finally, ends: list[int]) -> None:
        normal = any(self._reachable_now(end) for end in ends)
        for end in ends:
            self._edge(end, fin.entry)
        self._enter(fin.entry)
        self.body(node.finalbody)
        last = self.cur
        after = self._new()
        if normal:
            self._edge(last, after)
        for kind in _JUMP_ORDER:
            if kind in fin.pending:
                self._jump(kind, last, self.frames)
        self._jump("raise", last, self.frames)
        self._enter(after)

    def _s_Match(self, node: gast.Match) -> None:
        self.loc[node] = self._append(MatchSubject(node))
        prev: int | None = self.cur
        ends = []
        for case in node.cases:
            self._enter(self._new())
            self._edge(prev, self.cur)
            self.loc[case] = self._append(MatchCase(case))
            prev = self.cur
            self._goto(self._new())
            self.body(case.body)
            ends.append(self.cur)
            if _irrefutable(case):
                prev = None
                break
        self._enter(self._new())
        for end in ends + ([prev] if prev is not None else []):
            self._edge(end, self.cur)
        self.after[node] = (self.cur, 0)


# -- finishing -------------------------------------------------------------
def _prune(b: _Builder) -> None:
    """Drop empty blocks that no path from the entry reaches."""
    reach = dg.descendants(b.graph, b.entry) | {b.entry}
    for i in list(b.graph.nodes):
        if i not in reach and not b.stmts[i] and i != b.exit:
            b.graph.remove_node(i)
            del b.stmts[i]


def _renumber(b: _Builder) -> dict[int, int]:
    never = len(b.stmts)
    kept = [i for i in b.stmts if i != b.exit]
    order = sorted(kept, key=lambda i: (b.seq.get(i, never), i)) + [b.exit]
    return {old: new for new, old in enumerate(order)}


def _remap_point(point: Point, ids: dict[int, int]) -> Point | None:
    return (ids[point[0]], point[1]) if point[0] in ids else None


def _finish(tree: gast.FunctionDef, b: _Builder) -> CFG:
    _prune(b)
    ids = _renumber(b)
    graph = dg.relabel_nodes(b.graph, ids)
    cfg = CFG(tree, graph, ids[b.entry], ids[b.exit], nm.local_names(tree))
    cfg.stmt_loc = {k: _remap_point(v, ids) for k, v in b.loc.items()}
    cfg.after = {k: _remap_point(v, ids) for k, v in b.after.items()}
    cfg.join = {k: ids.get(v) for k, v in b.join.items()}
    cfg.header = {k: ids[v] for k, v in b.header.items()}
    for node, entries in b.with_bodies:
        after = cfg.after.get(node)
        if after is not None:
            for entry in entries:
                cfg.suppressed.setdefault(id(entry), []).append(after)
    for old, new in ids.items():
        graph.nodes[new]["block"] = _make_block(cfg, new, b.stmts[old])
    return cfg


def _make_block(cfg: CFG, i: int, entries: list) -> BasicBlock:
    effects = []
    for entry in entries:
        eff = summarize(entry_events(entry), cfg.locals)
        cfg.effects[entry] = eff
        effects.append(eff)
    uses, kills, binds = chain(effects)
    return BasicBlock(i, list(entries), uses, binds, kills)


def build_cfg(tree: gast.FunctionDef) -> CFG:
    """Build the CFG of ``tree`` (a ``gast.FunctionDef``; not mutated)."""
    if not isinstance(tree, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise TypeError(f"build_cfg expects a gast.FunctionDef, got {type(tree).__name__}")
    builder = _Builder()
    builder.body(tree.body)
    builder._jump("return", builder.cur, [])  # falling off the end
    return _finish(tree, builder)
