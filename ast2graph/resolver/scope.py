"""Python scoping rules for one function, from its syntax alone.

Requires: a ``gast.FunctionDef`` (the parser's tree, or a nested def in it).
Produces: ``Scope`` (params, locals, free, global/nonlocal declarations) from
``scope_of``, and ``NameKind`` with ``Scope.kind(name)``.
Invariants: ``locals`` follows CPython's compiler: a name bound anywhere in
the body (including by a walrus inside a comprehension) is local unless it
is a parameter or declared global/nonlocal; names bound only inside nested
defs, lambdas, class bodies or as comprehension targets are not. Nested
scopes' decorators, defaults, annotations and bases, and a comprehension's
first iterable, are evaluated in this scope and are walked.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import gast

COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)


class NameKind(enum.Enum):
    PARAM = "param"
    LOCAL = "local"
    FREE = "free"
    GLOBAL = "global"
    BUILTIN = "builtin"
    UNDEFINED = "undefined"


@dataclass(frozen=True)
class Scope:
    """The names of one function scope, by how Python resolves them."""

    params: tuple[str, ...]
    locals: frozenset[str]
    free: frozenset[str]
    declared_global: frozenset[str]
    declared_nonlocal: frozenset[str]
    # The function's globals when known (set by ``resolve``): a module global
    # named like a builtin (``from jax.numpy import sum``) is then GLOBAL.
    global_ns: Mapping[str, object] | None = field(default=None, compare=False, repr=False)

    def kind(self, name: str) -> NameKind:
        """PARAM, FREE, LOCAL, GLOBAL or BUILTIN; a name bound nowhere is GLOBAL.

        UNDEFINED is never returned here (Python looks any unbound name up in
        the globals at run time); later stages use it for unbound reads.
        """
        if name in self.params:
            return NameKind.PARAM
        if name in self.declared_nonlocal or name in self.free:
            return NameKind.FREE
        if name in self.locals:
            return NameKind.LOCAL
        if name in self.declared_global:
            return NameKind.GLOBAL
        if self.global_ns is not None and name in self.global_ns:
            return NameKind.GLOBAL
        if name in vars(builtins):
            return NameKind.BUILTIN
        return NameKind.GLOBAL


def scope_of(tree: gast.FunctionDef, freevars: Iterable[str] = ()) -> Scope:
    """The Scope of ``tree``'s body; ``freevars`` is the code's co_freevars."""
    params = param_names(tree.args)
    bound: set[str] = set()
    globals_: set[str] = set()
    nonlocals: set[str] = set()
    for stmt in tree.body:
        _bindings(stmt, bound, globals_, nonlocals, in_comp=False)
    local = frozenset(bound) - set(params) - globals_ - nonlocals
    return Scope(params, local, frozenset(freevars), frozenset(globals_), frozenset(nonlocals))


def param_names(args: gast.arguments) -> tuple[str, ...]:
    """Positional-only, positional, *vararg, keyword-only, **kwarg -- in order."""
    names = [a.id for a in args.posonlyargs + args.args]
    if args.vararg is not None:
        names.append(args.vararg.id)
    names += [a.id for a in args.kwonlyargs]
    if args.kwarg is not None:
        names.append(args.kwarg.id)
    return tuple(names)


def outer_parts(node: gast.AST) -> list[gast.AST]:
    """The parts of a nested def/lambda/class evaluated in the enclosing scope."""
    if isinstance(node, gast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    args = node.args
    parts = [*args.defaults, *[d for d in args.kw_defaults if d is not None]]
    if isinstance(node, gast.Lambda):
        return parts
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    notes = [a.annotation for a in every if a is not None and a.annotation is not None]
    returns = [node.returns] if node.returns is not None else []
    return [*node.decorator_list, *parts, *notes, *returns]


def comprehension_targets(node: gast.AST) -> set[str]:
    """Names bound by a comprehension's own ``for`` targets."""
    names: set[str] = set()
    for gen in node.generators:
        names.update(n.id for n in gast.walk(gen.target) if isinstance(n, gast.Name))
    return names


def comprehension_inner(node: gast.AST) -> list[gast.AST]:
    """Everything of a comprehension except its first iterable."""
    first, *rest = node.generators
    elts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    parts: list[gast.AST] = [first.target, *first.ifs]
    for gen in rest:
        parts += [gen.target, gen.iter, *gen.ifs]
    return parts + elts


def _bindings(node: gast.AST, bound: set[str], globals_: set[str],
              nonlocals: set[str], in_comp: bool) -> None:
    if isinstance(node, (*DEFS, gast.ClassDef)):
        bound.add(node.name)
        _recurse(outer_parts(node), bound, globals_, nonlocals, in_comp)
        return
    if isinstance(node, gast.Lambda):
        _recurse(outer_parts(node), bound, globals_, nonlocals, in_comp)
        return
    if isinstance(node, COMPREHENSIONS):
        _bindings(node.generators[0].iter, bound, globals_, nonlocals, in_comp)
        _recurse(comprehension_inner(node), bound, globals_, nonlocals, True)
        return
    if isinstance(node, gast.NamedExpr):
        bound.add(node.target.id)  # a walrus binds in the function, even in a comprehension
        _bindings(node.value, bound, globals_, nonlocals, in_comp)
        return
    _statement_bindings(node, bound, globals_, nonlocals, in_comp)
    _recurse(gast.iter_child_nodes(node), bound, globals_, nonlocals, in_comp)


def _statement_bindings(node: gast.AST, bound: set[str], globals_: set[str],
                        nonlocals: set[str], in_comp: bool) -> None:
    if isinstance(node, gast.Name):
        if not in_comp and isinstance(node.ctx, (gast.Store, gast.Del)):
            bound.add(node.id)
    elif isinstance(node, gast.Global):
        globals_.update(node.names)
    elif isinstance(node, gast.Nonlocal):
        nonlocals.update(node.names)
    elif isinstance(node, (gast.Import, gast.ImportFrom)):
        bound.update((a.asname or a.name.split(".")[0]) for a in node.names if a.name != "*")
    elif isinstance(node, gast.ExceptHandler) and isinstance(node.name, str):
        bound.add(node.name)
    elif isinstance(node, (gast.MatchAs, gast.MatchStar)) and node.name:
        bound.add(node.name)
    elif isinstance(node, gast.MatchMapping) and node.rest:
        bound.add(node.rest)


def _recurse(nodes: Iterable[gast.AST], bound: set[str], globals_: set[str],
             nonlocals: set[str], in_comp: bool) -> None:
    for child in nodes:
        _bindings(child, bound, globals_, nonlocals, in_comp)
