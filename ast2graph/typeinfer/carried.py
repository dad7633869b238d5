"""What branches and loops carry: their leaves, as joins and carried states see them.

Requires: the IR's values and the trace-time markers (``UNBOUND``, NNX objects).
Produces: ``Traced`` (a carried leaf known only at run time, of one type);
``flatten_carried`` (a value's leaves as regions yield and carry them: an NNX
object one leaf, a value of path-dependent kind its tag and variants);
``flatten_joined`` (the same with a ``KindedValue`` and ``None`` as leaves:
what joins compare).
Invariants: used by the control-flow mixins and by the helpers below them
(``varlist``, ``pathkinds``), which must not import ``control``.
"""

from __future__ import annotations

from typing import Any

from ..graphlib.trees import tree_flatten
from ..ir.core import ArrayType, KindedValue, TreeVariant, Value
from .nnx import is_nnx
from .state import UNBOUND


class Traced:
    """A carried leaf whose value is known only at run time, of one type."""

    def __init__(self, type: ArrayType):
        self.type = type

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Traced) and other.type == self.type and other.type.kinds == self.type.kinds

    def __repr__(self) -> str:
        return str(self.type)


def flatten_carried(x: Any):
    # an NNX object is one leaf, the same object on every path (its state is in attr_writes);
    # a value of path-dependent kind is its tag and variants (what regions yield and carry)
    return tree_flatten(x, is_leaf=lambda v: isinstance(v, Value) and type(v) not in (KindedValue, TreeVariant)
                        or v is UNBOUND or is_nnx(v))


def flatten_joined(x: Any):
    """``flatten_carried`` with a ``KindedValue`` as one leaf, and ``None`` (what
    joins compare: None on one path and an array on another is a kind)."""
    return tree_flatten(x, is_leaf=lambda v: v is None or isinstance(v, Value) or v is UNBOUND or is_nnx(v))
