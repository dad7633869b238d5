"""Name and call resolution for one parsed function.

Requires: a ``ParsedFunction`` (parser) -- its tree, live globals and cells.
Produces: ``Resolution`` -- the function's ``Scope`` (globals-aware), the
``CallKind`` of every call in its body, ``static_value`` for names and
attribute chains -- from ``resolve``.
Invariants: values are read at resolve time from the live globals/cells and
never through user objects (see resolver.static). ``calls`` holds every Call
of the body keyed by node identity, including calls in comprehensions and
in nested defs' decorators/defaults, but none inside nested def, lambda or
class bodies. A name that a comprehension rebinds is never static inside it.
"""

from __future__ import annotations

import builtins
import types
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import gast

from ast2graph.resolver.callees import CallKind, classify_callee
from ast2graph.resolver.scope import (
    COMPREHENSIONS, DEFS, NameKind, Scope, comprehension_inner,
    comprehension_targets, outer_parts, scope_of,
)
from ast2graph.resolver.static import NOT_STATIC, resolve_attr_chain

if TYPE_CHECKING:
    from ast2graph.parser import ParsedFunction


@dataclass
class Resolution:
    """How each name and call of one function resolves."""

    scope: Scope
    calls: dict[gast.Call, CallKind]
    _parsed: ParsedFunction | None = field(default=None, repr=False, compare=False)
    _shadowed: set[gast.Name] = field(default_factory=set, repr=False, compare=False)

    def static_value(self, node: gast.expr) -> tuple[bool, object]:
        """``(True, value)`` for constants, global/builtin/free names and safe
        attribute chains on them; ``(False, None)`` otherwise."""
        if isinstance(node, gast.Constant):
            return True, node.value
        if isinstance(node, gast.Name):
            return self._name_value(node)
        if isinstance(node, gast.Attribute):
            ok, base = self.static_value(node.value)
            return resolve_attr_chain(base, (node.attr,)) if ok else NOT_STATIC
        return NOT_STATIC

    def call_kind(self, node: gast.Call) -> CallKind:
        """The callee's kind; DYNAMIC when the callee is not statically known."""
        known = self.calls.get(node)
        if known is not None:
            return known
        ok, callee = self.static_value(node.func)
        return classify_callee(callee) if ok else CallKind.DYNAMIC

    def _name_value(self, node: gast.Name) -> tuple[bool, object]:
        if node in self._shadowed or self._parsed is None:
            return NOT_STATIC
        kind = self.scope.kind(node.id)
        if kind is NameKind.FREE:
            return _cell_value(self._parsed.closure.get(node.id))
        if kind is NameKind.GLOBAL and node.id in self._parsed.globals:
            return True, self._parsed.globals[node.id]
        if kind in (NameKind.GLOBAL, NameKind.BUILTIN):
            space = _builtins_of(self._parsed.globals)
            return (True, space[node.id]) if node.id in space else NOT_STATIC
        return NOT_STATIC


def resolve(parsed: ParsedFunction) -> Resolution:
    """Resolve every name and call of ``parsed`` against its live namespaces."""
    scope = scope_of(parsed.tree, parsed.fn.__code__.co_freevars)
    scope = replace(scope, global_ns=parsed.globals)
    calls: list[gast.Call] = []
    shadowed: set[gast.Name] = set()
    for stmt in parsed.tree.body:
        _collect(stmt, frozenset(), calls, shadowed)
    res = Resolution(scope, {}, _parsed=parsed, _shadowed=shadowed)
    for call in calls:
        res.calls[call] = res.call_kind(call)
    return res


def _collect(node: gast.AST, hidden: frozenset[str], calls: list[gast.Call],
             shadowed: set[gast.Name]) -> None:
    """Gather Calls in this scope and Name loads a comprehension rebinds."""
    if isinstance(node, gast.Call):
        calls.append(node)
    elif isinstance(node, gast.Name) and node.id in hidden:
        shadowed.add(node)
    if isinstance(node, (*DEFS, gast.ClassDef, gast.Lambda)):
        children, inner = outer_parts(node), hidden
    elif isinstance(node, COMPREHENSIONS):
        _collect(node.generators[0].iter, hidden, calls, shadowed)
        children, inner = comprehension_inner(node), hidden | comprehension_targets(node)
    else:
        children, inner = list(gast.iter_child_nodes(node)), hidden
    for child in children:
        _collect(child, inner, calls, shadowed)


def _cell_value(cell: types.CellType | None) -> tuple[bool, object]:
    if cell is None:
        return NOT_STATIC
    try:
        return True, cell.cell_contents
    except ValueError:  # empty cell: the variable is not assigned yet
        return NOT_STATIC


def _builtins_of(globals_: dict) -> dict:
    space = globals_.get("__builtins__", builtins)
    return vars(space) if isinstance(space, types.ModuleType) else space
