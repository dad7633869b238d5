"""The memory layout of NumPy's copies and order conversions, as eager makes them.

Requires: the (C, F) contiguity of the operand where the trace knows it
(``Specializer.known_contiguity``; a jax.Array's host buffer is row-major).
Produces: ``order_request(callee, args, kwargs, owner)``: for ``x.copy(order)``,
``np.copy(a, order)``, ``np.asfortranarray(a)`` and ``np.ascontiguousarray(a)``
(no dtype of their own), which conversion it is (``OrderRequest``: the order
asked for, whether it always copies), or None for any other call or argument;
``copy_layout(order, source, shape)``: the (C, F) contiguity of the new array
NumPy allocates; ``keeps_operand(request, source, shape)``: whether eager hands
back the operand itself (``np.asfortranarray`` of a Fortran-ordered array).
Invariants: an answer is NumPy's for every array of that contiguity and shape
(``order="K"``/``"A"`` follow the operand's layout, so they are answered only
where it is known and contiguous); None where it is not known.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..graphlib.arrays import allocated_contiguity

Layout = tuple  # (C-contiguous, F-contiguous)


@dataclass(frozen=True)
class OrderRequest:
    """A copy or conversion of ``operand`` to ``order`` ("C", "F", "A", "K");
    ``always``: a new array whatever the operand's layout (``.copy``,
    ``np.copy``), else the operand itself where its layout already fits."""

    operand: Any
    order: str
    always: bool


def _given(names: tuple, args: tuple, kwargs: dict) -> dict | None:
    if len(args) > len(names) or set(kwargs) - set(names):
        return None
    return {**dict(zip(names, args)), **kwargs}


def order_request(callee: Any, args: tuple, kwargs: dict, owner: Any = None) -> OrderRequest | None:
    """Which copy or order conversion the call is (``owner``: the array of a
    ``.copy`` method, ``callee`` then None); None for another call, a
    ``dtype``, ``subok=True`` or an order NumPy refuses (eager raises)."""
    if owner is not None:
        given = _given(("order",), args, kwargs)
        order = "C" if given is None else given.get("order", "C")
        return OrderRequest(owner, order, True) if given is not None and order in ("C", "F", "A", "K") else None
    if callee is np.copy:
        given = _given(("a", "order", "subok"), args, kwargs)
        if given is None or "a" not in given or given.get("subok", False) is not False:
            return None
        order = given.get("order", "K")
        return OrderRequest(given["a"], order, True) if order in ("C", "F", "A", "K") else None
    for fn, order in ((np.asfortranarray, "F"), (np.ascontiguousarray, "C")):
        if callee is fn:
            given = _given(("a", "dtype"), args, kwargs)
            if given is None or "a" not in given or given.get("dtype") is not None:
                return None
            return OrderRequest(given["a"], order, False)
    return None


def copy_layout(order: str, source: Layout | None, shape: tuple) -> Layout | None:
    """(C, F) contiguity of the array NumPy allocates for ``order`` from an
    operand of contiguity ``source`` (None: not known); None where it
    depends on what is not known."""
    both = allocated_contiguity(shape)
    if both is not None:   # at most one axis longer than 1: both orders
        return both
    if order == "C" or order == "A" and source is not None and source[0]:
        return (True, False)
    if order == "F" or order == "A" and source == (False, True):
        return (False, True)
    if order == "K" and source in ((True, False), (False, True)):
        return source
    return None


def keeps_operand(request: OrderRequest, source: Layout | None) -> bool | None:
    """Whether ``np.asfortranarray(a)``/``np.ascontiguousarray(a)`` is ``a``
    itself (its layout already fits), a new array (False), or not known (None)."""
    if request.always:
        return False
    if source is None:
        return None
    return bool(source[1] if request.order == "F" else source[0])
