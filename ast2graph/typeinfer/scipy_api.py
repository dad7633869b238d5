"""SciPy in the graph: its result classes, and JAX equivalents only where they compute what SciPy computes.

Requires: SciPy (imported lazily: never imported here when the user's code did not).
Produces: ``is_tuple_bunch``: SciPy's namedtuple-like result classes
(``SignificanceResult``, ``TheilslopesResult``), built from traced values as
they are, like a namedtuple.
Invariants: nothing here narrows a value or guesses one.
"""

from __future__ import annotations

import types
from typing import Any


def is_tuple_bunch(cls: Any) -> bool:
    """A class made by ``scipy._lib._bunch._make_tuple_bunch`` (a tuple of its
    fields; ``__new__`` packs them, ``__init__`` only checks and stores extra
    keyword fields): built from traced values, it holds them as they are,
    like a namedtuple (run as an op it was typed as a JAX op, at 32 bits)."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        return False
    new = cls.__dict__.get("__new__")
    extra = cls.__dict__.get("_extra_fields")
    if isinstance(new, staticmethod):
        new = new.__func__
    return isinstance(new, types.FunctionType) and new.__globals__.get("_tuple_new") is tuple.__new__ \
        and isinstance(extra, tuple) and new.__code__.co_filename == "<string>"
