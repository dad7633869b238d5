"""Safe attribute lookup for statically known values.

Requires: a root object already known at conversion time (a module global,
builtin or closure value).
Produces: ``resolve_attr_chain(root, attrs) -> (ok, value)``.
Invariants: attributes are only read through modules, classes and
functions, and on classes only when no user code can run (plain values,
functions, static/class methods, C descriptors; any enum member). A property
or an arbitrary descriptor is never triggered: the lookup answers
``(False, None)`` instead.
"""

from __future__ import annotations

import enum
import inspect
import types
from collections.abc import Sequence

_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType)
_SAFE_DESCRIPTORS = (
    types.FunctionType, staticmethod, classmethod, types.BuiltinFunctionType,
    types.MethodDescriptorType, types.ClassMethodDescriptorType,
    types.WrapperDescriptorType, types.GetSetDescriptorType,
    types.MemberDescriptorType,
)

NOT_STATIC: tuple[bool, object] = (False, None)


def resolve_attr_chain(root: object, attrs: Sequence[str]) -> tuple[bool, object]:
    """``(True, root.a.b...)`` when every step is a safe lookup, else ``(False, None)``."""
    value = root
    for name in attrs:
        ok, value = _get_attr(value, name)
        if not ok:
            return NOT_STATIC
    return True, value


def _get_attr(obj: object, name: str) -> tuple[bool, object]:
    if isinstance(obj, type):
        return _class_attr(obj, name)
    if not isinstance(obj, (types.ModuleType, *_FUNCTIONS)):
        return NOT_STATIC
    try:
        return True, getattr(obj, name)
    except Exception:  # a module __getattr__ may raise anything
        return NOT_STATIC


def _class_attr(cls: type, name: str) -> tuple[bool, object]:
    try:
        raw = inspect.getattr_static(cls, name)
    except AttributeError:
        return NOT_STATIC
    safe = isinstance(raw, _SAFE_DESCRIPTORS) or not hasattr(type(raw), "__get__")
    if not (safe or issubclass(cls, enum.Enum)):
        return NOT_STATIC
    try:
        return True, getattr(cls, name)
    except Exception:
        return NOT_STATIC
