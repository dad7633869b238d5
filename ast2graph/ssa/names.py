"""Name events: which names a piece of syntax reads, binds or unbinds, in order.

Requires: gast 0.7 nodes (``gast.Name`` with a ``ctx``; parameters are
``gast.Name`` with ``gast.Param`` ctx).
Produces: ``Event`` (kind, name, node) sequences in Python 3.11 evaluation
order for expressions, assignment targets, match patterns and statements;
``free_names`` of a nested scope (function, lambda, class); ``local_names`` and
``param_names`` of a function; ``bound_names`` of a statement or body.
Invariants: pure syntax, the tree is never mutated. Nested scopes are not
descended into except to compute their free names, which are reported as
``capture`` events (node ``None``) at the point where the scope is created.
Comprehension targets are local to the comprehension; a walrus inside a
comprehension, or inside a conditionally evaluated operand (``and``/``or``
right operands, ``x if c else y`` arms), is a ``maybe`` binding in the
enclosing function scope.

Event kinds:
    use      a read of the name (node: the Load ``gast.Name``, or the Store
             target of an ``AugAssign``, which is read before it is written)
    capture  a read from inside a nested scope (closure capture), node None
    def      a binding that certainly happens when the piece runs
    maybe    a binding that may or may not happen (walrus in a comprehension
             or in a short-circuited operand)
    del      an unbinding (``del x``, the implicit ``del e`` ending a handler)
    local    the name is local but not bound here (``x: int`` with no value)
    global / nonlocal   a declaration
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import gast

USE, CAPTURE, DEF, MAYBE, DEL = "use", "capture", "def", "maybe", "del"
# x[i] = v / x[i] += v on a local x: a read of x and a new version of it (an
# array written in place is rebound to its functional update), but not a
# binding that makes x local (a global x stays global)
UPDATE = "update"
LOCAL, GLOBAL, NONLOCAL = "local", "global", "nonlocal"
BINDING_KINDS = frozenset({DEF, MAYBE, DEL})
READ_KINDS = frozenset({USE, CAPTURE})

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)
_COMPS = (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)


@dataclass(frozen=True)
class Event:
    """One read/binding of ``name``; ``node`` is the ``gast.Name`` if any."""

    kind: str
    name: str
    node: object = None


class _Scanner:
    """Collects events for one scope, in evaluation order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.cond = 0  # > 0 while inside conditionally evaluated code
        self.inner: frozenset[str] = frozenset()  # comprehension-local names

    def emit(self, kind: str, name: str, node: object = None) -> None:
        if kind in (USE, DEF, MAYBE, DEL) and name in self.inner:
            return
        if kind == DEF and self.cond:
            kind = MAYBE
        self.events.append(Event(kind, name, node))

    # -- expressions -----------------------------------------------------
    def expr(self, node: object) -> None:
        if node is None:
            return
        if isinstance(node, list):
            for item in node:
                self.expr(item)
            return
        method = getattr(self, "_x_" + type(node).__name__, None)
        if method is not None:
            method(node)
        elif isinstance(node, gast.AST):
            for field in node._fields:
                self.expr(getattr(node, field, None))

    def _x_Name(self, node: gast.Name) -> None:
        if isinstance(node.ctx, gast.Load):
            self.emit(USE, node.id, node)
        elif isinstance(node.ctx, gast.Store):
            self.emit(DEF, node.id, node)
        elif isinstance(node.ctx, gast.Del):   # `del x` reads x (it raises where x is unbound), then unbinds it
            self.emit(USE, node.id, node)
            self.emit(DEL, node.id, node)

    def _x_Subscript(self, node: gast.Subscript) -> None:
        self.expr(node.value)
        self.expr(node.slice)
        if isinstance(node.ctx, gast.Store):
            root = node.value
            while isinstance(root, gast.Subscript):
                root = root.value
            if isinstance(root, gast.Name) and root.id not in self.inner:
                self.events.append(Event(UPDATE, root.id, root))

    def _x_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.expr(node.value)
        name = node.target
        kind = MAYBE if self.cond else DEF
        # the walrus target always binds in the enclosing function scope
        self.events.append(Event(kind, name.id, name))

    def _x_BoolOp(self, node: gast.BoolOp) -> None:
        self.expr(node.values[0])
        self._conditional(node.values[1:])

    def _x_IfExp(self, node: gast.IfExp) -> None:
        self.expr(node.test)
        self._conditional([node.body, node.orelse])

    def _conditional(self, nodes: list) -> None:
        self.cond += 1
        try:
            self.expr(nodes)
        finally:
            self.cond -= 1

    def _x_Lambda(self, node: gast.Lambda) -> None:
        self.expr(node.args.defaults)
        self.expr(node.args.kw_defaults)
        self._capture(node)

    def _capture(self, scope: object) -> None:
        for name in sorted(free_names(scope) - self.inner):
            self.events.append(Event(CAPTURE, name))

    def _comprehension(self, node: object, elts: list) -> None:
        gens = node.generators
        self.expr(gens[0].iter)  # evaluated in the enclosing scope
        saved = self.inner
        self.inner = saved | _comp_targets(gens)
        self.cond += 1
        try:
            for i, gen in enumerate(gens):
                if i:
                    self.expr(gen.iter)
                self.expr(gen.target)
                self.expr(gen.ifs)
            self.expr(elts)
        finally:
            self.inner = saved
            self.cond -= 1

    def _x_ListComp(self, node: gast.ListComp) -> None:
        self._comprehension(node, [node.elt])

    _x_SetComp = _x_ListComp
    _x_GeneratorExp = _x_ListComp

    def _x_DictComp(self, node: gast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    # -- match patterns --------------------------------------------------
    def pattern(self, node: object) -> None:
        if node is None:
            return
        if isinstance(node, gast.MatchValue):
            self.expr(node.value)
        elif isinstance(node, gast.MatchSequence):
            for sub in node.patterns:
                self.pattern(sub)
        elif isinstance(node, gast.MatchOr):
            self._match_or(node)
        elif isinstance(node, gast.MatchMapping):
            self.expr(node.keys)
            for sub in node.patterns:
                self.pattern(sub)
            if node.rest:
                self.emit(DEF, node.rest)
        elif isinstance(node, gast.MatchClass):
            self.expr(node.cls)
            for sub in list(node.patterns) + list(node.kwd_patterns):
                self.pattern(sub)
        elif isinstance(node, gast.MatchStar):
            if node.name:
                self.emit(DEF, node.name)
        elif isinstance(node, gast.MatchAs):
            self.pattern(node.pattern)
            if node.name:
                self.emit(DEF, node.name)

    def _match_or(self, node: gast.MatchOr) -> None:
        # every alternative binds the same names: bind each once, at the end
        captured: list[str] = []
        for sub in node.patterns:
            for event in pattern_events(sub):
                if event.kind == DEF:
                    captured.append(event.name)
                else:
                    self.emit(event.kind, event.name, event.node)
        for name in dict.fromkeys(captured):
            self.emit(DEF, name)

    # -- statements --------------------------------------------------------
    def stmts(self, body: Iterable) -> None:
        for stmt in body:
            self.stmt(stmt)

    def stmt(self, node: object) -> None:
        """Events of ``node``; compound statements are scanned recursively."""
        method = getattr(self, "_s_" + type(node).__name__, None)
        if method is not None:
            method(node)
        else:
            self.expr(node)

    def _s_Assign(self, node: gast.Assign) -> None:
        self.expr(node.value)
        self.expr(node.targets)

    def _s_AugAssign(self, node: gast.AugAssign) -> None:
        target = node.target
        if isinstance(target, gast.Name):
            self.emit(USE, target.id, target)
            self.expr(node.value)
            self.emit(DEF, target.id, target)
        else:
            self.expr(target)  # a subscript/attribute store reads its base
            self.expr(node.value)

    def _s_AnnAssign(self, node: gast.AnnAssign) -> None:
        # local-variable annotations are not evaluated inside a function
        if node.value is not None:
            self.expr(node.value)
            self.expr(node.target)
        elif isinstance(node.target, gast.Name):
            self.emit(LOCAL, node.target.id, node.target)
        else:
            self.expr(node.target)

    def _s_FunctionDef(self, node: gast.FunctionDef) -> None:
        self.expr(node.decorator_list)
        args = node.args
        self.expr(args.defaults)
        self.expr(args.kw_defaults)
        for param in _params(args):
            self.expr(param.annotation)
        self.expr(node.returns)
        self._capture(node)
        self.emit(DEF, node.name)

    _s_AsyncFunctionDef = _s_FunctionDef

    def _s_ClassDef(self, node: gast.ClassDef) -> None:
        self.expr(node.decorator_list)
        self.expr(node.bases)
        self.expr(node.keywords)
        self._capture(node)
        self.emit(DEF, node.name)

    def _s_Import(self, node: gast.Import) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.emit(DEF, alias.asname or alias.name.split(".")[0])

    _s_ImportFrom = _s_Import

    def _s_Global(self, node: gast.Global) -> None:
        for name in node.names:
            self.events.append(Event(GLOBAL, name))

    def _s_Nonlocal(self, node: gast.Nonlocal) -> None:
        for name in node.names:
            self.events.append(Event(NONLOCAL, name))

    def _s_If(self, node: gast.If) -> None:
        self.expr(node.test)
        self.stmts(node.body)
        self.stmts(node.orelse)

    _s_While = _s_If

    def _s_For(self, node: gast.For) -> None:
        self.expr(node.iter)
        self.expr(node.target)
        self.stmts(node.body)
        self.stmts(node.orelse)

    _s_AsyncFor = _s_For

    def _s_With(self, node: gast.With) -> None:
        for item in node.items:
            self.expr(item.context_expr)
            self.expr(item.optional_vars)
        self.stmts(node.body)

    _s_AsyncWith = _s_With

    def _s_Try(self, node: gast.Try) -> None:
        self.stmts(node.body)
        for handler in node.handlers:
            self.expr(handler.type)
            self.expr(handler.name)
            self.stmts(handler.body)
        self.stmts(node.orelse)
        self.stmts(node.finalbody)

    _s_TryStar = _s_Try

    def _s_Match(self, node: gast.Match) -> None:
        self.expr(node.subject)
        for case in node.cases:
            self.pattern(case.pattern)
            self.expr(case.guard)
            self.stmts(case.body)


def _comp_targets(gens: list) -> frozenset[str]:
    names: set[str] = set()
    for gen in gens:
        names |= target_names(gen.target)
    return frozenset(names)


def _params(args: gast.arguments) -> list:
    found = list(args.posonlyargs) + list(args.args) + list(args.kwonlyargs)
    found += [p for p in (args.vararg, args.kwarg) if p is not None]
    return found


def param_nodes(tree: object) -> list:
    """The parameter ``gast.Name`` nodes of a function or lambda."""
    return _params(tree.args)


def param_names(tree: object) -> tuple[str, ...]:
    return tuple(p.id for p in param_nodes(tree))


def target_names(target: object) -> frozenset[str]:
    """Names bound by an assignment target (Name, Tuple/List, Starred)."""
    if isinstance(target, gast.Name):
        return frozenset({target.id})
    if isinstance(target, (gast.Tuple, gast.List)):
        out: frozenset[str] = frozenset()
        for elt in target.elts:
            out |= target_names(elt)
        return out
    if isinstance(target, gast.Starred):
        return target_names(target.value)
    return frozenset()


def expr_events(node: object) -> list[Event]:
    scanner = _Scanner()
    scanner.expr(node)
    return scanner.events


def pattern_events(node: object) -> list[Event]:
    scanner = _Scanner()
    scanner.pattern(node)
    return scanner.events


def stmt_events(node: object) -> list[Event]:
    """Events of one statement or a list of statements (recursively)."""
    scanner = _Scanner()
    scanner.stmts(node if isinstance(node, list) else [node])
    return scanner.events


def _declared(events: Iterable[Event], kind: str) -> frozenset[str]:
    return frozenset(e.name for e in events if e.kind == kind)


def _scope_body(scope: object) -> list:
    return [scope.body] if isinstance(scope, gast.Lambda) else list(scope.body)


def _scope_events(scope: object) -> list[Event]:
    if isinstance(scope, gast.Lambda):
        return expr_events(scope.body)
    return stmt_events(_scope_body(scope))


def free_names(scope: object) -> frozenset[str]:
    """Names a nested function/lambda/class reads from enclosing scopes."""
    events = _scope_events(scope)
    glob = _declared(events, GLOBAL)
    nonloc = _declared(events, NONLOCAL)
    bound = {e.name for e in events if e.kind in BINDING_KINDS | {LOCAL}}
    reads = {e.name for e in events if e.kind == USE}
    captures = {e.name for e in events if e.kind == CAPTURE}
    if isinstance(scope, gast.ClassDef):
        # class-level bindings are not visible to the methods it contains
        free = (reads - bound) | captures
    else:
        bound |= set(param_names(scope))
        free = (reads | captures) - bound
    return frozenset((free - glob) | nonloc)


def local_names(tree: object) -> frozenset[str]:
    """Names local to function ``tree``: params and every name bound in it."""
    events = _scope_events(tree)
    excluded = _declared(events, GLOBAL) | _declared(events, NONLOCAL)
    bound = {e.name for e in events if e.kind in BINDING_KINDS | {LOCAL}}
    return frozenset((bound | set(param_names(tree))) - excluded)


def bound_names(node: object) -> frozenset[str]:
    """Names bound (def, maybe, del) anywhere inside a statement or body."""
    return frozenset(e.name for e in stmt_events(node) if e.kind in BINDING_KINDS or e.kind == UPDATE)
