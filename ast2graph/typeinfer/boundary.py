"""Containers crossing a compiled segment's boundary keep their identity.

Requires: the live values of a segment (``runtime.block.Block``: the caller's
objects), their flattened leaves (``trees.tree_flatten`` with
``nnx.boundary_leaf``), and the segment's output tree.
Produces:

* ``container_paths(names, values)``: where each list and dict among the
  inputs sits, and which of them are one object reached twice
  (``d["l"] is inner``): the second part is in the plan key;
* ``abstract_inputs``: the trace-time inputs rebuilt from the abstract leaves
  with the same sharing (one abstract list where eager has one list), each
  list and dict registered with its path;
* ``InputRef``: an output leaf standing for an input container, resolved to
  the caller's own object after each call (``runtime.plans.GraphPlan``);
* ``share_outputs``: an output tree in which a container made by the trace
  that leaves the segment more than once (``o.cache = xs; return xs``)
  unflattens to one object per call (``Shared`` nodes);
* ``reaches``: whether an object may be reachable from others (an input
  container a segment writes in place must not be one the trace also read
  from outside: ``specialize._check_unseen``).

Invariants: an input container the segment hands on is the caller's object,
never a copy; a container the segment makes is one new object per call
however many places it leaves through; the rebuilt inputs consume the leaves
in ``tree_flatten``'s order (checked: a mismatch keeps JAX's rebuild).
"""

from __future__ import annotations

import collections
import copy
import threading
import types
from typing import Any, Callable

import jax

from ..graphlib.trees import ITERATORS, is_record, tree_flatten

MUTABLE = (list, dict, collections.defaultdict)


def _namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x: Any) -> list | None:
    """(key, child) pairs of a container the walk descends into, in
    ``tree_flatten``'s order (a dict in insertion order); None for anything else."""
    kind = type(x)
    if kind is list or kind is tuple or (kind is not tuple and _namedtuple(x) and not is_record(x)):
        return list(enumerate(x))
    if kind is dict or kind is collections.defaultdict:
        return list(x.items())
    return None


def container_paths(names: list[str], values: list) -> tuple[dict[int, tuple], tuple]:
    """``(paths, aliases)``: id of each list and dict among ``values`` -> its
    first path ``(name, key, ...)``; and ``((first, again), ...)`` for every
    place a container already seen is reached again (a plan-key part)."""
    paths: dict[int, tuple] = {}
    aliases: list[tuple] = []
    stack = [((name,), v) for name, v in zip(reversed(names), reversed(values))]
    while stack:
        path, x = stack.pop()
        kind = type(x)
        if kind in MUTABLE:
            first = paths.get(id(x))
            if first is not None:
                aliases.append((first, path))
                continue
            paths[id(x)] = path
        items = _children(x)
        if items:
            stack.extend((path + (k,), v) for k, v in reversed(items))
    return paths, tuple(aliases)


def resolve(env: dict, path: tuple) -> Any:
    """The object at ``path`` of the live values ``env``."""
    x = env[path[0]]
    for k in path[1:]:
        x = x[k]
    return x


def abstract_inputs(names: list[str], values: list, leaves: list, is_leaf: Callable[[Any], bool] | None,
                    rebuild_other: Callable[[Any], Any],
                    originals: dict[int, Any] | None = None) -> tuple[list, dict[int, tuple]] | None:
    """The trace-time values of ``names``: ``values``' structure with the
    abstract ``leaves`` in place of the caller's leaves, one abstract
    container per container of the caller's (shared where the caller's is),
    and ``{id(abstract): (abstract, path)}`` for its lists and dicts. None
    where the leaves do not line up with the walk (JAX's rebuild is used).
    ``rebuild_other(sub)`` finishes a subtree that is neither a container
    walked here nor a leaf (a custom pytree node, a ``TracedNumber``).
    ``originals``, when given, gets ``{id(abstract): the caller's container}``."""
    it = iter(leaves)
    made: dict[int, Any] = {}
    registered: dict[int, tuple] = {}

    def leaf_of(x: Any) -> bool:
        return isinstance(x, ITERATORS) or (is_leaf is not None and is_leaf(x))

    def build(x: Any, path: tuple) -> Any:
        if leaf_of(x):
            return next(it)
        if x is None:
            return None
        kind = type(x)
        if kind in MUTABLE:
            same = made.get(id(x))
            if same is not None:   # flattened again there: its leaves are skipped
                for _ in range(len(tree_flatten(x, is_leaf=is_leaf)[0])):
                    next(it)
                return same
        items = _children(x)
        if items is None:
            sub, treedef = tree_flatten(x, is_leaf=is_leaf)
            if treedef.num_nodes == 1 and treedef.num_leaves == 1:
                return next(it)
            return rebuild_other(jax.tree_util.tree_unflatten(treedef, [next(it) for _ in sub]))
        if kind is list:
            out: Any = []
            made[id(x)] = out
            registered[id(out)] = (out, path)
            if originals is not None:
                originals[id(out)] = x
            out.extend(build(v, path + (k,)) for k, v in items)
            return out
        if kind is dict or kind is collections.defaultdict:
            out = dict() if kind is dict else collections.defaultdict(x.default_factory)
            made[id(x)] = out
            registered[id(out)] = (out, path)
            if originals is not None:
                originals[id(out)] = x
            for k, v in items:
                out[k] = build(v, path + (k,))
            return out
        built = [build(v, path + (k,)) for k, v in items]
        return tuple(built) if kind is tuple else kind(*built)

    try:
        out = [build(v, (name,)) for name, v in zip(names, values)]
    except StopIteration:
        return None
    if next(it, it) is not it:
        return None
    return out, registered


class InputRef:
    """An output that is an input container: the caller's object at ``path``."""

    __slots__ = ("path",)

    def __init__(self, path: tuple):
        self.path = path

    def __repr__(self) -> str:
        return f"<input container {'/'.join(map(str, self.path))}>"


class _Memo(threading.local):
    """The containers one unflattening made, by key (per thread)."""

    def __init__(self) -> None:
        self.made: dict[int, Any] = {}


class Shared:
    """One occurrence of a container made by the trace that leaves the
    segment several times: the first occurrence (in flattening order) holds
    the items and makes the container; the others unflatten to that object."""

    def __init__(self, kind: type, keys: tuple | None, items: list, key: int, first: bool, memo: _Memo,
                 factory: Any = None):
        self.kind, self.keys, self.items, self.key, self.first, self.memo = kind, keys, items, key, first, memo
        self.factory = factory


def _flatten_shared(s: Shared) -> tuple:
    return (s.items if s.first else []), (s.kind, s.keys, s.key, s.first, s.memo, s.factory)


def _unflatten_shared(aux: tuple, children: Any) -> Any:
    kind, keys, key, first, memo, factory = aux
    if not first:
        return memo.made[key]
    children = list(children)
    if kind is list:
        out: Any = children
    elif kind is dict:
        out = dict(zip(keys, children))
    else:
        out = collections.defaultdict(factory, zip(keys, children))
    memo.made[key] = out
    return out


jax.tree_util.register_pytree_node(Shared, _flatten_shared, _unflatten_shared)


class SharedLeaf:
    """One occurrence of a leaf that leaves the segment several times and
    is made anew from the graph's result (a Python number: ``v = lst[0]``
    of ``lst = x.tolist()``): the first occurrence holds the leaf, the others
    unflatten to the object it became, so that ``v is lst[0]`` holds after
    the segment as in eager."""

    def __init__(self, leaf: Any, key: int, first: bool, memo: _Memo):
        self.leaf, self.key, self.first, self.memo = leaf, key, first, memo


def _flatten_shared_leaf(s: SharedLeaf) -> tuple:
    return ([s.leaf] if s.first else []), (s.key, s.first, s.memo)


def _unflatten_shared_leaf(aux: tuple, children: Any) -> Any:
    key, first, memo = aux
    if not first:
        return memo.made[key]
    memo.made[key] = out = list(children)[0]
    return out


jax.tree_util.register_pytree_node(SharedLeaf, _flatten_shared_leaf, _unflatten_shared_leaf)


def share_outputs(tree: Any, is_leaf: Callable[[Any], bool], made_anew: Callable[[Any], bool] = lambda x: False) -> Any:
    """``tree`` with each list or dict that occurs more than once in it (not
    a leaf by ``is_leaf``) as ``Shared`` nodes, and each leaf that
    ``made_anew`` (an object made from the graph's result after each call)
    and occurs more than once as ``SharedLeaf`` nodes. Raises ``ValueError``
    for a container that holds itself (eager's cycle cannot be a tree)."""
    counts: dict[int, int] = {}
    on_path: set[int] = set()

    def count(x: Any) -> None:
        if is_leaf(x):
            if made_anew(x):
                counts[id(x)] = counts.get(id(x), 0) + 1
            return
        if type(x) in MUTABLE:
            if id(x) in on_path:
                raise ValueError("a container that holds itself")
            counts[id(x)] = counts.get(id(x), 0) + 1
            if counts[id(x)] > 1:
                return
        items = _children(x) if not isinstance(x, _OTHER_NODES) else list(enumerate(_other_children(x)))
        if not items:
            return
        on_path.add(id(x))
        for _, v in items:
            count(v)
        on_path.discard(id(x))

    count(tree)
    if all(n == 1 for n in counts.values()):
        return tree
    memo = _Memo()
    seen: set[int] = set()

    def wrap(x: Any) -> Any:
        if is_leaf(x):
            if counts.get(id(x), 0) > 1 and made_anew(x):
                first = id(x) not in seen
                seen.add(id(x))
                return SharedLeaf(x, id(x), first, memo)
            return x
        kind = type(x)
        if kind in MUTABLE and counts.get(id(x), 0) > 1:
            if id(x) in seen:
                return Shared(kind, None, [], id(x), False, memo)
            seen.add(id(x))
            if kind is list:
                return Shared(list, None, [wrap(v) for v in x], id(x), True, memo)
            return Shared(kind, tuple(x), [wrap(v) for v in x.values()], id(x), True, memo,
                          getattr(x, "default_factory", None))
        if isinstance(x, _OTHER_NODES):
            return _rewrap_other(x, [wrap(v) for v in _other_children(x)])
        items = _children(x)
        if not items:
            return x
        new = [wrap(v) for _, v in items]
        if all(a is b for a, (_, b) in zip(new, items)):
            return x
        if kind is list:
            return new
        if kind is dict or kind is collections.defaultdict:
            out = dict(zip(x, new)) if kind is dict else collections.defaultdict(x.default_factory, zip(x, new))
            return out
        return tuple(new) if kind is tuple else kind(*new)

    return wrap(tree)


# Nodes of our own whose children the walks above descend into.
_OTHER_NODES: tuple = ()


def _other_children(x: Any) -> list:
    return list(x.values)


def _rewrap_other(x: Any, values: list) -> Any:
    new = copy.copy(x)   # the same node with other children (not what it unflattens to)
    new.values = values
    return new


def register_other_node(kind: type) -> None:
    """A pytree node class whose children are its ``values`` list
    (``specialize.MadePerCall``): walked into."""
    global _OTHER_NODES
    _OTHER_NODES = _OTHER_NODES + (kind,)


def reaches(roots: list, target: Any, limit: int = 20_000) -> bool:
    """Whether ``target`` may be reachable from ``roots`` through containers
    and object attributes (True too where the walk gives up: too large)."""
    stack, seen = list(roots), set()
    while stack:
        x = stack.pop()
        if x is target:
            return True
        if id(x) in seen or isinstance(x, (str, bytes, int, float, complex, bool, type(None), type,
                                           types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(x))
        if len(seen) > limit:
            return True
        if isinstance(x, (list, tuple, set, frozenset)):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(getattr(x, "__dict__", None), dict):
            stack.extend(vars(x).values())
    return False
