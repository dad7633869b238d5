"""Content guards: the state of an outside container or object a graph read.

Requires: nothing of the interpreter (plain Python values).
Produces: ``Snapshot(obj)``, a deep record of what ``obj`` holds now, and
``Snapshot.matches(now)``: whether ``now`` is the same object holding the same
state; ``watched(obj)``: whether a read of ``obj``'s contents needs such a
guard at all.
Invariants: ``matches`` is true only if every value reachable from the object
through lists, tuples, dicts, sets, ``__dict__``s of plain objects and NumPy
arrays is what it was (equal scalars of the same type, equal array contents,
the same other objects); it never runs user code (no user ``__eq__``,
``__len__`` or property is called).

Why: a graph specialised on a static value read at trace time (``for s in
SCALES``, ``len(H)``, ``sum(self.cfg["scales"])``) goes stale when the caller
mutates the container in place between calls. Identity guards cannot see
that (the list is the same object); TorchDynamo guards a list's length and
every element it read. Reads that the interpreter follows element by element
(``x[i]``, ``obj.attr``) have their own guards; a read it cannot follow (a
builtin iterating the list, a comparison, ``str()``) takes a snapshot of
everything the builtin could have seen.
"""

from __future__ import annotations

import array
import collections
import collections.abc
import dataclasses
import gc
import io
import math
import types
import weakref
from typing import Any

import numpy as np

from ..resolver.callees import CallKind, classify_callee
from .dunders import effectful_dunder

# Values whose identity is their whole state, or which cannot change.
_SCALARS = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), type(NotImplemented))
_OPAQUE_OK = (types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, type,
              types.CodeType, range, slice)
# Sequences recorded item by item: besides list and tuple, the standard
# library's mutable ones that keep their items in C, with no ``__dict__`` to
# look at (``win = deque(maxlen=3)`` appended to between calls).
_SEQUENCES = (list, tuple, collections.deque, bytearray, array.array)
_CONTAINERS = (*_SEQUENCES, dict, set, frozenset)
# Mutable objects of classes written in C, with no ``__dict__`` a graph could
# rebuild them from: one made at trace time and handed out by a segment would
# be the same object on every call (a ``deque()`` made in the function grew
# across calls), so such an object is this call's own (``mark_made``) and
# cannot leave a segment (``specialize.remade_per_call``).
MUTABLE_BUILTINS = (bytearray, set, collections.abc.Iterator, collections.deque, array.array, io.IOBase)
MAX_NODES = 100_000   # a state larger than this is not guarded: the read falls back to Python
# A dict's live views (``keys = d.keys()`` held outside the function): what they
# show is their dict's state, recorded through it; so is a read-only proxy's
# (``CONF = MappingProxyType(_conf)``).
DICT_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
_LIVE_VIEWS = (*DICT_VIEWS, types.MappingProxyType)


def viewed_dict(view: Any) -> Any:
    """The dict a view (``DICT_VIEWS``, a ``MappingProxyType``) shows:
    CPython's view object holds it as its one reference (``view.mapping`` is
    a read-only proxy of it); None where that is not a dict."""
    found = gc.get_referents(view)
    return found[0] if len(found) == 1 and isinstance(found[0], dict) else None


class TooLarge(Exception):
    """The state reachable from an object is too large to guard cheaply."""


def watched(obj: Any) -> bool:
    """Whether reading ``obj``'s contents needs a content guard (its state can
    change in place): containers, NumPy arrays and plain objects with a
    ``__dict__``; not scalars, functions, modules, classes or jax arrays."""
    if isinstance(obj, _SCALARS) or isinstance(obj, _OPAQUE_OK) or isinstance(obj, np.generic):
        return False
    if isinstance(obj, tuple):
        return any(watched(x) for x in obj)
    if isinstance(obj, (_CONTAINERS, np.ndarray)) or type(obj) in _LIVE_VIEWS:
        return True
    if _is_jax_array(obj):
        return False
    return isinstance(getattr(obj, "__dict__", None), dict)


def _is_jax_array(obj: Any) -> bool:
    import jax

    return isinstance(obj, jax.Array)


class Snapshot:
    """What ``obj`` holds, deeply, at the time of the read. ``keys_only``:
    of a dict, its keys only (in order), for a read that looks at nothing
    else (``k in d``): a value changed in place, which the reads of the items
    guard one by one, does not fail it. ``loose``: keys of a dict whose
    values are recorded by their type only (items the graph reads as traced
    inputs, each guarded on its type by its own read)."""

    __slots__ = ("obj", "state")

    def __init__(self, obj: Any, keys_only: bool = False, loose: frozenset = frozenset()):
        self.obj = obj
        budget = [MAX_NODES]
        if keys_only and type(obj) is dict:
            self.state = ("k", obj, dict, [_record(k, budget, set(), False) for k in obj])
        elif loose and type(obj) is dict:
            seen = {id(obj)}
            self.state = ("d", obj, dict, [(_record(k, budget, seen, False),
                                            ("t", type(v)) if k in loose else _record(v, budget, seen, False))
                                           for k, v in obj.items()])
        else:
            self.state = _record(obj, budget, set(), True)

    def matches(self, now: Any) -> bool:
        return now is self.obj and _same(now, self.state, set())

    def __repr__(self) -> str:
        return f"<contents of {type(self.obj).__name__} at {id(self.obj):#x}>"


def _record(x: Any, budget: list, seen: set, root: bool) -> tuple:
    budget[0] -= 1
    if budget[0] < 0:
        raise TooLarge
    kind = type(x)
    if isinstance(x, _SCALARS) or isinstance(x, np.generic):
        return ("v", kind, x)
    if isinstance(x, np.ndarray):
        budget[0] -= x.size // 64
        if budget[0] < 0:
            raise TooLarge
        return ("a", x, x.copy())
    if id(x) in seen:
        return ("i", x)
    if isinstance(x, _SEQUENCES):
        seen.add(id(x))
        return ("l", x, kind, len(x), [_record(y, budget, seen, False) for y in x])
    if isinstance(x, dict):
        seen.add(id(x))
        return ("d", x, kind, [(_record(k, budget, seen, False), _record(v, budget, seen, False)) for k, v in x.items()])
    if isinstance(x, (set, frozenset)):
        seen.add(id(x))
        budget[0] -= len(x)
        return ("s", x, kind, frozenset(x))
    if kind in _LIVE_VIEWS and viewed_dict(x) is not None:
        seen.add(id(x))
        return ("m", x, kind, _record(viewed_dict(x), budget, seen, False))
    if root and not isinstance(x, _OPAQUE_OK) and isinstance(getattr(x, "__dict__", None), dict):
        # an object a builtin read as a whole (``vars(obj)``, ``str(obj)``):
        # its attributes, one level (objects inside are compared by identity;
        # reads through them have their own guards)
        seen.add(id(x))
        attrs = x.__dict__
        return ("o", x, kind, [(k, _record(v, budget, seen, False)) for k, v in attrs.items()])
    return ("i", x)


def _same(x: Any, state: tuple, seen: set) -> bool:
    tag = state[0]
    if tag == "v":
        if type(x) is not state[1]:
            return False
        y = state[2]
        return x is y or x == y or (x != x and y != y)
    if tag == "i":
        return x is state[1]
    if tag == "t":
        return type(x) is state[1]
    if tag == "a":
        old = state[2]
        return x is state[1] and x.shape == old.shape and x.dtype == old.dtype and \
            bool(np.array_equal(x, old, equal_nan=old.dtype.kind in "fc"))
    if x is not state[1]:
        return False
    if id(x) in seen:
        return True
    seen.add(id(x))
    if tag == "l":
        _, _, kind, n, items = state
        return type(x) is kind and len(x) == n and all(_same(a, s, seen) for a, s in zip(x, items))
    if tag == "d":
        items = state[3]
        if type(x) is not state[2] or len(x) != len(items):
            return False
        for (k, v), (ks, vs) in zip(x.items(), items):
            if not (_same(k, ks, seen) and _same(v, vs, seen)):
                return False
        return True
    if tag == "s":
        return type(x) is state[2] and x == state[3]
    if tag == "m":   # a dict's view: its dict, the same object holding the same state
        shown = viewed_dict(x)
        return shown is not None and _same(shown, state[3], seen)
    if tag == "k":
        keys = state[3]
        return type(x) is state[2] and len(x) == len(keys) and all(_same(k, ks, seen) for k, ks in zip(x, keys))
    if tag == "o":
        attrs = getattr(x, "__dict__", None)
        items = state[3]
        if type(x) is not state[2] or not isinstance(attrs, dict) or len(attrs) != len(items):
            return False
        for (k, v), (ks, vs) in zip(attrs.items(), items):
            if k != ks or not _same(v, vs, seen):
                return False
        return True
    return False


def same_builtin_method(now: Any, expected: Any) -> bool:
    """``d.items`` read twice gives two method objects: equal when bound to
    the same object and naming the same method."""
    return type(now) is types.BuiltinMethodType and type(expected) is types.BuiltinMethodType and \
        now.__self__ is expected.__self__ and now.__name__ == expected.__name__


# ------------------------------------------------------------------ value keys
_KEY_NODES = 256   # a plain object with a larger state is specialised on by identity


def value_key(obj: Any, covered: set[int] | None = None) -> tuple | None:
    """A hashable key of a plain object's whole state — its class and its
    attributes, deeply (scalars, strings, tuples, lists, dicts, sets, nested
    plain objects, and functions, classes and modules by identity) — or None
    where the state holds something else (an array, an object with
    ``__slots__``, properties or a custom ``__getattribute__``), or is large.

    Two objects with the same key are interchangeable for a graph that reads
    their attributes: a fresh but equal config (``Config()`` built per call)
    reuses the graph specialised on the first one. ``covered`` receives the
    ids of every object and container the key stands for."""
    if not plain_class(type(obj)):
        return None
    budget = [_KEY_NODES]
    try:
        return _freeze(obj, budget, set(), covered)
    except TooLarge:
        return None


def _freeze(x: Any, budget: list, stack: set, covered: set | None) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise TooLarge
    kind = type(x)
    if kind in (bool, int, str, bytes, type(None)):
        return (kind, x)
    if kind in (float, complex):
        return (kind, repr(x))   # -0.0 is not 0.0; nan is nan
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType)) or \
            isinstance(getattr(type(x), "__members__", None), types.MappingProxyType):   # an enum member
        return ("id", x)
    if id(x) in stack:
        raise TooLarge   # a cycle
    stack.add(id(x))
    if covered is not None:
        covered.add(id(x))
    try:
        if kind in (list, tuple):
            return (kind, tuple(_freeze(y, budget, stack, covered) for y in x))
        if kind is dict:
            return (kind, tuple((_freeze(k, budget, stack, covered), _freeze(v, budget, stack, covered))
                                for k, v in x.items()))
        if kind in (set, frozenset):
            return (kind, frozenset(_freeze(y, budget, stack, covered) for y in x))
        if plain_class(kind):
            return ("obj", kind, tuple((k, _freeze(v, budget, stack, covered)) for k, v in x.__dict__.items()))
    finally:
        stack.discard(id(x))
    raise TooLarge


_PLAIN: dict[type, tuple[tuple, bool]] = {}


def plain_class(cls: type) -> bool:
    """Instances keep their whole state in ``__dict__``: no slots, no data
    descriptors other than properties of the user's functions (``head_dim``
    computed from ``d_model`` and ``n_heads``: a function of that state, run
    by the compiler where it is read, as a method is), no custom attribute
    access, and identity equality or a dataclass's generated ``__eq__``.
    (Kept per class while no class of its MRO gains or loses an attribute.)"""
    shape = tuple(len(c.__dict__) for c in cls.__mro__)
    known = _PLAIN.get(cls)
    if known is not None and known[0] == shape:
        return known[1]
    ok = False
    if cls.__module__ != "builtins" and cls.__getattribute__ is object.__getattribute__ and \
            not hasattr(cls, "__getattr__") and "__dict__" in dir(cls) and not hasattr(cls, "__slots__"):
        ok = (cls.__eq__ is object.__eq__ or _generated_dataclass_eq(cls)) and not any(
            (hasattr(type(v), "__set__") or hasattr(type(v), "__delete__")) and not _python_property(v)
            for k in dir(cls) if not k.startswith("__") for v in [getattr(cls, k, None)])
    _PLAIN[cls] = (shape, ok)
    return ok


def _python_property(v: Any) -> bool:
    """A ``property`` of the user's Python functions: the compiler runs its
    getter where it is read, guarding what it reads (a library's getter, run
    as one call, may read state no guard sees)."""
    return type(v) is property and all(f is None or type(f) is types.FunctionType
                                       and classify_callee(f) is CallKind.USER_FUNCTION for f in (v.fget, v.fset, v.fdel))


def _generated_dataclass_eq(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.eq and "__eq__" in cls.__dict__ and \
        cls.__dict__["__eq__"].__code__.co_filename.startswith("<")


def changed_attributes(old: tuple, new: tuple) -> list[str]:
    """The attribute names whose values differ between two ``value_key``s."""
    if old[0] != "obj" or new[0] != "obj" or old[1] is not new[1]:
        return []
    a, b = dict(old[2]), dict(new[2])
    return [k for k in {**a, **b} if a.get(k) != b.get(k)]


class Identity:
    """Hashes an object by identity: a plan key part. The object is held
    weakly where it allows it (a generator, a user object): a cache key must
    not keep an object alive past the last reference eager holds (a
    generator's ``finally:`` runs when its last reference goes, printing or
    releasing there). A dead object equals nothing (its id may be reused);
    one that cannot be weakly referenced is kept alive, as before."""

    __slots__ = ("_ref", "_weak", "_id")

    def __init__(self, obj: Any):
        self._id = id(obj)
        try:
            self._ref, self._weak = weakref.ref(obj), True
        except TypeError:
            self._ref, self._weak = obj, False

    @property
    def obj(self) -> Any:
        """The object, or None once it is gone."""
        return self._ref() if self._weak else self._ref

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity) or other._id != self._id or other._weak != self._weak:
            return False
        if not self._weak:
            return other._ref is self._ref
        mine = self._ref()
        return mine is not None and other._ref() is mine

    def __repr__(self) -> str:
        obj = self.obj
        if obj is None:
            return f"an object at {self._id:#x}, gone"
        return f"the {type(obj).__name__} object at {self._id:#x}"


def _negative_zeros(obj: Any, depth: int = 0) -> tuple:
    """Which float fields of a value-equal object (a frozen dataclass, a
    namedtuple) are -0.0: ``FC(-0.0) == FC(0.0)`` and they hash alike, yet
    print and divide differently."""
    if isinstance(obj, float):
        return (obj == 0 and math.copysign(1.0, obj) < 0,)
    if depth > 3:
        return ()
    if isinstance(obj, tuple):
        items: Any = obj
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        items = [getattr(obj, f.name, None) for f in dataclasses.fields(obj)]
    else:
        return ()
    return tuple(sign for item in items for sign in _negative_zeros(item, depth + 1))


def object_key(obj: Any, covered: set[int] | None = None) -> tuple:
    """The plan-key part of a static object argument: a hashable object with
    value equality by that equality (``("H", ...)``: frozen dataclasses,
    namedtuples, enums); a plain object by its class and whole state
    (``("V", ...)``, ``value_key``); anything else by identity."""
    try:   # (a user's __hash__/__eq__ that may have an effect is not run here: eager runs it only where it asks)
        hashable = type(obj).__eq__ is not object.__eq__ and effectful_dunder((obj,), ("__hash__", "__eq__")) is None
        if hashable:
            hash(obj)
    except TypeError:
        hashable = False
    if hashable:
        return ("H", type(obj), obj, _negative_zeros(obj))
    key = value_key(obj, covered)
    if key is not None:
        return ("V", key)
    return ("O", Identity(obj))
