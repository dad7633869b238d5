"""Pytrees in eager's order: a dict keeps its insertion order.

Requires: jax.
Produces: ``keyed(tree)``: the same tree with every plain ``dict`` (and
``collections.defaultdict``) reachable through tuples, lists, namedtuples
and dicts replaced by an ``InOrder`` node, and ``tree_flatten``, which
flattens a tree that way.
Invariants: flattening a keyed tree lists a dict's leaves in insertion order
and its treedef records that order (two dicts with the same keys in another
order have different treedefs, so a cache keyed by treedef tells them apart;
a dict whose keys were inserted in sorted order stays a dict, which jax
flattens in that order);
``jax.tree_util.tree_unflatten`` of such a treedef builds real dicts of the
original type, keys in the original order. Everything else (custom pytree
nodes, leaves) is left as it is, so a tree without dicts is returned itself.

``jax.tree_util`` sorts a dict's keys when it flattens it and rebuilds it in
sorted order, so a value flattened and unflattened on its way through a
graph (a segment's inputs and outputs, a traced branch's results, a host
callback's arguments) would come back as ``{'a': .., 'b': ..}`` where eager
Python has ``{'b': .., 'a': ..}`` (and keys that do not sort, such as
``{1: .., 'a': ..}``, could not be flattened at all).
"""

from __future__ import annotations

import collections
import functools
from typing import Any, Callable

import jax


class InOrder:
    """A dict as a pytree node whose children are its values in insertion order."""

    __slots__ = ("kind", "keys", "values", "factory")

    def __init__(self, kind: type, keys: tuple, values: list, factory: Any):
        self.kind, self.keys, self.values, self.factory = kind, keys, values, factory


def _rebuild(aux: tuple, children: Any) -> dict:
    kind, keys, factory = aux
    if kind is collections.defaultdict:
        return collections.defaultdict(factory, zip(keys, children))
    return dict(zip(keys, children))


jax.tree_util.register_pytree_node(InOrder, lambda d: (d.values, (d.kind, d.keys, d.factory)), _rebuild)

def is_record(x: Any) -> bool:
    """A named tuple whose instance also has a ``__dict__`` (SciPy's tuple
    bunches: ``SignificanceResult``, ``PearsonRResult``; a namedtuple subclass
    without ``__slots__``): JAX would flatten only its fields and rebuild it
    as ``type(x)(*fields)``, losing its attributes (``res.correlation``) or
    raising where the class's constructor takes other arguments."""
    return isinstance(x, tuple) and hasattr(type(x), "_fields") and type(getattr(x, "__dict__", None)) is dict


def make_record(kind: type, items: Any, names: tuple, values: Any) -> Any:
    """A ``kind`` object holding ``items`` in its tuple and ``names``' ``values``
    in its ``__dict__``, as its ``__new__`` and ``__init__`` left eager's."""
    obj = tuple.__new__(kind, tuple(items))
    obj.__dict__.update(zip(names, values))
    return obj


class Record:
    """A record (``is_record``) as a pytree node: its fields, then its attributes."""

    __slots__ = ("kind", "items", "names", "values")

    def __init__(self, kind: type, items: list, names: tuple, values: list):
        self.kind, self.items, self.names, self.values = kind, items, names, values


jax.tree_util.register_pytree_node(
    Record, lambda r: ([*r.items, *r.values], (r.kind, len(r.items), r.names)),
    lambda aux, children: make_record(aux[0], list(children)[:aux[1]], aux[2], list(children)[aux[1]:]))


def keyed(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``tree`` with its dicts as ``InOrder`` nodes (see the module docstring).
    ``is_leaf``: containers it takes for leaves are left as they are (the
    object itself must come out of the flattening: an input dict handed on)."""
    kind = type(tree)
    if is_leaf is not None and kind in _CONTAINERS and is_leaf(tree):
        return tree
    if kind is dict or kind is collections.defaultdict:
        values = [keyed(v, is_leaf) for v in tree.values()]
        if kind is dict and _sorted_keys(tree) and all(a is b for a, b in zip(values, tree.values())):
            return tree   # jax's order is the insertion order already (``f(**kwargs)``'s {} most often)
        return InOrder(kind, tuple(tree), values, getattr(tree, "default_factory", None))
    if kind is not tuple and is_record(tree):
        return Record(kind, [keyed(v, is_leaf) for v in tree], tuple(vars(tree)),
                      [keyed(v, is_leaf) for v in vars(tree).values()])
    if kind is tuple or kind is list or isinstance(tree, tuple) and hasattr(kind, "_fields"):
        items = None   # a copy only where a dict was found below
        for k, v in enumerate(tree):
            if isinstance(v, (tuple, list, dict)):
                new = keyed(v, is_leaf)
                if new is not v:
                    items = items if items is not None else list(tree)
                    items[k] = new
        if items is None:
            return tree
        return kind(*items) if kind is not tuple and kind is not list else kind(items)
    return tree


_CONTAINERS = frozenset({dict, collections.defaultdict, list})


# Python's lazy iterators are leaves (JAX warns that it will refuse them).
ITERATORS = (zip, enumerate, reversed, map, filter, type(iter([])), type(iter(())), type(iter(range(0))))


def _sorted_keys(d: dict) -> bool:
    if len(d) < 2:
        return True
    keys = list(d)
    try:
        return keys == sorted(keys)
    except TypeError:   # keys jax could not sort either
        return False


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None,
                 leaf_types: tuple = ()) -> tuple[list, Any]:
    """``jax.tree_util.tree_flatten`` with dicts in insertion order (and
    Python's iterators as leaves). ``leaf_types``: objects of these types are
    leaves too (a faster ``is_leaf``)."""
    if is_leaf is None:
        return jax.tree_util.tree_flatten(keyed(tree), is_leaf=_leaf_test(leaf_types))
    return jax.tree_util.tree_flatten(keyed(tree, is_leaf), is_leaf=lambda x: isinstance(x, ITERATORS) or is_leaf(x))


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """``jax.tree_util.tree_leaves`` with dicts in insertion order (any keys)."""
    return tree_flatten(tree, is_leaf)[0]


@functools.lru_cache(maxsize=None)
def _leaf_test(leaf_types: tuple) -> Callable[[Any], bool]:
    kinds = leaf_types + ITERATORS
    return lambda x: isinstance(x, kinds)



def tree_map(fn: Callable[[Any], Any], tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``jax.tree_util.tree_map`` (one tree) with dicts in insertion order."""
    return jax.tree_util.tree_map(fn, keyed(tree, is_leaf), is_leaf=is_leaf)


def sorted_positions(tree: Any) -> list[int]:
    """For each leaf of ``tree`` in ``jax.tree_util``'s order (dict keys
    sorted), its position in insertion order (``tree_flatten``'s)."""
    leaves, treedef = tree_flatten(tree)
    try:
        return jax.tree_util.tree_leaves(jax.tree_util.tree_unflatten(treedef, list(range(len(leaves)))))
    except Exception:  # noqa: BLE001 - a custom node that refuses ints as children: no dict to reorder there
        return list(range(len(leaves)))
