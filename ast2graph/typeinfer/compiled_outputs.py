"""Compiled library functions that write their results into output arrays.

Requires: nothing of the interpreter (the callee and the positions of its
operands).
Produces: ``output_positions(callee)``: for a compiled function of a table
below (SciPy's ``scipy.ndimage._nd_image`` filters: ``correlate1d(input,
weights, axis, output, mode, cval, origin)``; ``_rank_filter_1d.rank_filter``),
the positions of its positional parameters that are output arrays, which the
C code writes and the caller reads afterwards; ``WritesOutputs``: the host-side call of such a function, on
copies of its output arrays, returning their new contents.
Invariants: a function is listed only where its C code writes nothing but
its output arrays (its inputs are converted read-only, ``NI_ObjectToInputArray``),
keeps no state between calls, calls no Python code given to it (a callable
operand is refused by the caller) and returns None or a Python int
(``RETURNS_INT``: ``binary_erosion``'s "changed"); every other
operand is only read. The caller (``calls._host_compiled``) checks that an
output is not another operand's memory unless it is that very operand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# name in scipy.ndimage._nd_image -> the positions of its output arrays (None: not given)
_ND_IMAGE = {
    "correlate1d": (3,), "correlate": (2,), "uniform_filter1d": (3,), "min_or_max_filter1d": (3,),
    "min_or_max_filter": (3,), "rank_filter": (3,), "fourier_filter": (4,), "fourier_shift": (4,),
    "spline_filter1d": (3,), "zoom_shift": (3,), "watershed_ift": (3,),
    # binary_erosion(input, structure, mask, output, border_value, origin, invert, center_is_true, mode):
    # mode 0 returns whether an element changed (a Python int), mode 1 a coordinate list (refused: ``RETURNS``)
    "binary_erosion": (3,),
    # geometric_transform(input, mapping, coordinates, matrix, offset, output, ...): a Python ``mapping``
    # is refused by the caller (a callable operand); affine_transform, rotate and map_coordinates pass None
    "geometric_transform": (5,),
    # distance_transform_bf(input, metric, sampling, distances, features)
    "distance_transform_bf": (3, 4),
}
# functions that return a Python int besides writing their outputs (the others return None)
RETURNS_INT = frozenset({"binary_erosion"})
# scipy.ndimage's 1-D rank filter (median_filter, rank_filter, percentile_filter of a vector):
# rank_filter(input, rank, size, output, mode, cval, origin)
_RANK_FILTER_1D = {"rank_filter": (3,)}
_MODULES = {"scipy.ndimage._nd_image": _ND_IMAGE, "scipy.ndimage._rank_filter_1d": _RANK_FILTER_1D}


def output_positions(callee: Any) -> tuple[int, ...] | None:
    """The positions of ``callee``'s output arrays, where it is listed."""
    table = _MODULES.get(getattr(callee, "__module__", None) or "")
    if table is None or type(callee).__name__ != "builtin_function_or_method":
        return None
    found = table.get(getattr(callee, "__name__", ""))
    if found is None:
        return None
    import sys
    module = sys.modules.get(callee.__module__)
    return found if module is not None and getattr(module, callee.__name__, None) is callee else None


@dataclass(frozen=True)
class WritesOutputs:
    """``callee(*args)`` on the host where its output arrays (``outputs``:
    their positions among the call's flattened ``(args, kwargs)`` leaves) are
    new writable copies, each given at every position in its group
    (``groups``: the positions holding that same array, as eager passes one
    object twice); returns their contents after the call, in order."""

    callee: Any
    outputs: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    returns_int: bool = False   # its own result, a Python int, follows the outputs (``RETURNS_INT``)

    def __call__(self, *args: Any, **kwargs: Any) -> tuple:
        import jax

        from ..graphlib.trees import tree_flatten

        leaves, treedef = tree_flatten((args, kwargs))
        written = []
        for k, group in zip(self.outputs, self.groups):
            copy = np.array(leaves[k], copy=True, order="C")
            for j in group:
                leaves[j] = copy
            written.append(copy)
        a, kw = jax.tree_util.tree_unflatten(treedef, leaves)
        result = self.callee(*a, **kw)
        if self.returns_int and type(result) is int:
            return (*written, np.int64(result))
        if result is not None or self.returns_int:   # (binary_erosion's mode 1: a coordinate list, refused)
            raise AssertionError(f"ast2graph internal error: {self.callee.__name__} returned {type(result).__name__}")
        return tuple(written)


def returns_int(callee: Any) -> bool:
    """``callee`` (listed) returns a Python int besides writing its outputs."""
    return getattr(callee, "__name__", "") in RETURNS_INT and callee.__module__ == "scipy.ndimage._nd_image"

    def __repr__(self) -> str:   # (the name of the host callback)
        return f"{self.callee.__module__}.{self.callee.__name__}"
