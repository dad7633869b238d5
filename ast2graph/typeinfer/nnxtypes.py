"""flax.nnx's classes, recognised without importing flax.

Requires: nothing of ast2graph (the lattice and the NNX rules above both use it).
Produces: ``nnx_types()`` (NNX's base classes once the program imported
``flax.nnx``, else None); ``is_nnx``, ``is_node``, ``is_variable``.
"""

from __future__ import annotations

import sys
from typing import Any

_TYPES: list = []   # (Pytree, Variable) once flax.nnx is imported


def nnx_types() -> tuple | None:
    """flax.nnx's base classes, or None while the program has not imported it."""
    if _TYPES:
        return _TYPES[0]
    mod = sys.modules.get("flax.nnx")
    node = getattr(mod, "Pytree", None) or getattr(mod, "Object", None)
    var = getattr(mod, "Variable", None)
    if node is None or var is None:
        return None
    _TYPES.append((node, var))
    return _TYPES[0]


def is_nnx(x: Any) -> bool:
    """An NNX object: a graph node (Module, Rngs, List, any nnx.Pytree) or a Variable."""
    t = _TYPES[0] if _TYPES else nnx_types()
    return t is not None and isinstance(x, t)


def is_node(x: Any) -> bool:
    t = _TYPES[0] if _TYPES else nnx_types()
    return t is not None and isinstance(x, t[0])


def is_variable(x: Any) -> bool:
    t = _TYPES[0] if _TYPES else nnx_types()
    return t is not None and isinstance(x, t[1])
