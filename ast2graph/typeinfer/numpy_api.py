"""NumPy objects the trace made, handed out anew on every call.

Requires: NumPy arrays made at trace time (``np.zeros(3)``, ``v[:, ::-1]``),
static in a graph's outputs.
Produces: ``copy_keeping_views(arrays)``: fresh copies for one call, in which
arrays that shared memory at trace time (a base and its views, two views of one
base) share it again, with the same offsets and strides.
Invariants: a write through any copy shows in exactly the copies whose
originals it would have shown in, as eager's arrays (made anew by each call)
do; an array sharing memory with nothing is copied on its own.
"""

from __future__ import annotations

import numpy as np


def _root(a: np.ndarray) -> np.ndarray:
    """The array at the end of ``a``'s chain of bases (the one holding the memory)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def copy_keeping_views(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """A copy of each array (the same object once per distinct array), views
    rebuilt over one copy of their common base."""
    roots: dict[int, np.ndarray] = {}
    members: dict[int, list[int]] = {}
    for k, a in enumerate(arrays):
        r = _root(a)
        roots.setdefault(id(r), r)
        members.setdefault(id(r), []).append(k)
    out: list = [None] * len(arrays)
    for rid, ks in members.items():
        distinct = {id(arrays[k]) for k in ks}
        root = roots[rid]
        new_root = root.copy(order="K") if len(distinct) > 1 else None
        if new_root is None or new_root.strides != root.strides or not root.flags.forc:
            made: dict[int, np.ndarray] = {}
            for k in ks:   # nothing shared (or a layout we cannot rebuild): one copy each
                out[k] = made.setdefault(id(arrays[k]), arrays[k].copy())
            continue
        made = {}
        for k in ks:
            a = arrays[k]
            if id(a) not in made:
                made[id(a)] = new_root if a is root else np.ndarray(
                    a.shape, a.dtype, buffer=new_root, offset=_address(a) - _address(root), strides=a.strides)
            out[k] = made[id(a)]
    return out

