"""Resolver: what every name and call in a parsed function refers to.

Requires: ``ast2graph.parser.ParsedFunction`` (for ``resolve``); the other
helpers take plain objects or gast trees.
Produces: ``NameKind``/``Scope``/``scope_of`` (syntax-only scoping),
``CallKind``/``Resolution``/``resolve`` (live name and call resolution), and
the callee predicates ``classify_callee``, ``is_effectful``,
``is_pure_static_callable``, ``is_state_read``, ``resolve_attr_chain``, ``qualified_name``.
Invariants: resolution never calls user code or reads properties; it reads
the function's live globals and closure cells at the moment ``resolve`` runs.
"""

from __future__ import annotations

from ast2graph.resolver.callees import (
    CallKind, classify_callee, is_effectful, is_host_printer, is_pure_static_callable, is_state_read,
    qualified_name,
)
from ast2graph.resolver.resolution import Resolution, resolve
from ast2graph.resolver.scope import NameKind, Scope, scope_of
from ast2graph.resolver.static import resolve_attr_chain

__all__ = [
    "CallKind", "NameKind", "Resolution", "Scope", "classify_callee",
    "is_effectful", "is_host_printer", "is_pure_static_callable", "is_state_read", "qualified_name", "resolve",
    "resolve_attr_chain", "scope_of",
]
