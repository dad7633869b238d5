"""State outside the function written by it, lifted out of the graph.

Requires: the ``Specializer`` state (mixed in): ``attr_writes`` (the pending
writes, in eager's order), ``external`` (reads of outside values, guarded or
captured), ``origin`` (where an outside object was read from), the loop
machinery's ``carries_write`` (``control._solve_loop``).
Produces: pending writes in ``Specializer.attr_writes`` for

* ``global name; name = v`` (a ``GlobalsTarget`` stands for the module's
  globals: ``setattr(target, name, v)`` sets ``globals[name]``);
* ``obj.attr = v`` on an object from outside (also under a traced ``if``,
  joined like a variable, and in a rolled loop's body, carried by the loop);
* ``LOG.append(v)``, ``LOG.extend(items)`` and ``CACHE[k] = v`` on a list or
  dict read from outside (a global, a closure cell, an attribute), on a
  static path: an ``Effect`` each, replayed after the call in eager's order
  with the values that come out of the graph.

``GraphPlan.run`` and the fast path apply them after each call by ``setattr``
(``runtime/plans.py``, ``runtime/fastpath.py``); a segment that may raise through a run-time
check after making one is specialised with its raises in Python
(``specialize.specialize``), so a raise leaves eager's state.

Invariants: a read of a global or attribute written earlier in the graph sees
the pending value; a container with a pending effect is not read again by the
graph (any read of its contents raises ``GraphBreak``: the statement runs in
Python, after the effects), except ``CACHE[k]`` and the reads that only look
(``D.copy()``, ``D.get(k)``, ``len(D)``: ``shadow_of``), which see eager's
contents: the container's at the call (guarded) with the effects so far;
effects are lifted only on containers read from outside (through a global,
a cell, an attribute: ``self.history`` of a method's ``self`` too, whose
plan then serves that very object only: ``specialize._rebind`` pins an
argument holding a written container, as an equal object may come next call).
An outside list or dict's existing item (``box[k] = v``) is written through
one ``Effect`` per item, lifted like an attribute (``item_target``): joined
under a traced condition, carried by a rolled loop; other effects are made
on static paths only.
"""

from __future__ import annotations

import types
from typing import Any

from ..fallback.sites import FallbackCode
from .kinds import contains_standin
from .state import InPlaceArray
from .varlist import tail_of

_KEY_TYPES = (bool, int, float, str, bytes, type(None))


class GlobalsTarget:
    """The globals of a module, as the target of lifted writes:
    ``setattr(target, name, value)`` sets ``globals[name] = value``."""

    __slots__ = ("namespace",)

    def __init__(self, namespace: dict):
        object.__setattr__(self, "namespace", namespace)

    def __setattr__(self, name: str, value: Any) -> None:
        self.namespace[name] = value

    def __repr__(self) -> str:
        return f"<globals of {self.namespace.get('__name__', '?')}>"


_TARGETS: dict[int, GlobalsTarget] = {}


def globals_target(namespace: dict) -> GlobalsTarget:
    """The one target of ``namespace`` (its identity keys pending writes)."""
    target = _TARGETS.get(id(namespace))
    if target is None or target.namespace is not namespace:
        target = _TARGETS[id(namespace)] = GlobalsTarget(namespace)
    return target


class Effect:
    """One mutation of an outside container replayed after the call:
    ``setattr(effect, "value", v)`` runs ``container.append(v)`` (``extend``,
    ``container[key] = v``)."""

    __slots__ = ("container", "method", "key")

    def __init__(self, container: Any, method: str, key: Any = None):
        object.__setattr__(self, "container", container)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "key", key)

    def __setattr__(self, name: str, value: Any) -> None:
        if self.method == "__setitem__":
            self.container[self.key] = value
        else:
            getattr(self.container, self.method)(value)

    def __repr__(self) -> str:
        return f"<{type(self.container).__name__}.{self.method} after the call>"


def place_of(obj: Any, attr: str) -> tuple:
    """Where a lifted write ``obj.attr = v`` lands, as ``place_of_source`` names a capture's source."""
    if isinstance(obj, GlobalsTarget):
        return ("global", id(obj.namespace), attr)
    if isinstance(obj, types.CellType):
        return ("cell", id(obj), None)
    return ("attr", id(obj), attr)


def place_of_source(source: tuple | None) -> tuple | None:
    """The place a capture reads (``Capture.source``: (kind, holder, key))."""
    return None if source is None else (source[0], id(source[1]), source[2] if source[0] != "item" else repr(source[2]))


def written_key(obj: Any, attr: str) -> Any:
    """The guard key (``Specializer.external``'s) of the value a lifted write sets."""
    if isinstance(obj, GlobalsTarget):
        return ("global", id(obj.namespace), attr)
    if isinstance(obj, types.CellType):
        return ("cell", id(obj))
    if isinstance(obj, Effect):   # ``box[k] = v``: the key of the item's read
        return ("item", id(obj.container), repr(obj.key)) if obj.method == "__setitem__" else None
    if isinstance(obj, InPlaceArray):   # (an array's contents: no value guarded)
        return None
    return ("attr", id(obj), attr)


_NOT_STATE = (type, types.ModuleType, types.FunctionType, types.MethodType, types.BuiltinFunctionType)


def _user_state(x: Any) -> dict | None:
    """The attributes of an instance of a user's class (None for classes,
    modules, functions and objects without a ``__dict__``)."""
    state = getattr(x, "__dict__", None)
    return state if type(state) is dict and not isinstance(x, _NOT_STATE) else None


def _static_key(key: Any) -> bool:
    if type(key) is tuple:
        return all(_static_key(k) for k in key)
    return type(key) in _KEY_TYPES


_EFFECT_SEARCH = 10_000   # containers looked through for a pending effect's target


class WritebackMixin:
    """Writes of outside state during specialisation."""

    @property
    def effect_targets(self) -> dict:
        """Outside containers with a pending effect: id -> container."""
        d = self.__dict__.get("_effect_targets")
        if d is None:
            d = self.__dict__["_effect_targets"] = {}
        return d

    def lift_write(self, obj: Any, attr: str, value: Any, node: Any, what: str) -> None:
        """``obj.attr = value`` after each call; in a rolled loop's body the
        loop must carry it (it is solved again carrying it)."""
        key = (id(obj), attr)
        if type(obj) is not InPlaceArray:
            # a place whose array is also written in place: the two writes are not joined with each other
            # (the write that is not made on a path would be taken from before the other)
            place = place_of(obj, attr)
            self.rebound_places.add(place)
            if place in self.inplace_places():
                raise self.graph_break(FallbackCode.MUTATION, node, f"{what} set to another array, where the "
                                       "function also writes its array in place", "attribute")
        if getattr(self, "rolled_depth", 0) and not self.carries_write(key):
            err = self.graph_break(FallbackCode.MUTATION, node, f"{what} written inside a rolled loop that does not "
                                   "carry it", "attribute")
            err.carry = (key, obj, attr)  # type: ignore[attr-defined]
            raise err
        self.attr_writes[key] = (obj, attr, value)

    def check_writeback(self) -> tuple | None:
        """A run-time check about to be emitted after this segment wrote
        outside state (``attr_writes``), none of it in a way only the call's
        end can apply: the host call (``arrays.write_state``, one of the
        check's ``before`` calls) that makes those writes, with their values
        as of the check, when it fires, so that the call raises with eager's
        state (the write-back after the call is then skipped, and the writes
        after the check with it); an array read from outside written in place
        (``self.w -= g``) gets its version as of the check copied into it (the
        array its capture reads, as after the call). None where a write
        cannot be made so: an argument's array, view or container (written into the caller's objects, which
        the host does not hold), appends under a traced condition not yet
        joined, a value of path-dependent kind, a list whose length depends
        on the data, an object this call made other than a list, dict or
        tuple (eager makes a new one per call), one object written twice."""
        if self.input_writes or self.view_writes or self.first_writes or self.__dict__.get("_pending_shadows") \
                or self.__dict__.get("_pending_inputs"):
            return None
        before = self.__dict__.pop("_writes_before_message", None)   # (``check_arguments``)
        if before is not None and (before.keys() != self.attr_writes.keys()
                                   or any(before[k] is not e for k, e in self.attr_writes.items())):
            return None   # the exception's arguments wrote state: eager writes it only when it raises
        from ..graphlib import arrays
        from ..graphlib.trees import tree_flatten
        from ..ir.core import Value

        seen: set[int] = set()

        def host_form(x: Any) -> Any:
            if type(x) is Value:
                if arrays.eager_kind(x.type) == "mixed" or not self._new_object(x):
                    raise _NoWriteback
                return x
            if isinstance(x, arrays.DeferredStr) or type(x) in _KEY_TYPES or type(x) is complex:
                return x
            kind = type(x)
            if kind in (list, dict, tuple) and (kind is tuple or self._is_fresh(x)):
                if tail_of(x) is not None or id(x) in seen:
                    raise _NoWriteback
                seen.add(id(x))
                if kind is dict:
                    if not all(_static_key(k) for k in x):
                        raise _NoWriteback
                    return {k: host_form(v) for k, v in x.items()}
                return kind(host_form(v) for v in x)
            if self._made_here(x) or contains_standin(x):
                raise _NoWriteback
            return arrays.Static(x)   # an object that exists before the call: that very object

        targets, values = [], []
        try:
            for obj, attr, value in self.attr_writes.values():
                if self._is_fresh(obj) or type(obj) is InPlaceArray and not isinstance(value, Value):
                    return None
                # an array read from outside, written in place (``p -= lr * g``): its version as of the
                # check copied into the array the capture reads on this call, as after the call
                target = _CopyInto(obj.capture.getter) if type(obj) is InPlaceArray else obj
                targets.append((arrays.Static(target), attr))
                if type(obj) is InPlaceArray:   # (its contents copied: no object of its own is set)
                    if type(value) is not Value or arrays.eager_kind(value.type) == "mixed":
                        return None
                    values.append(value)
                else:
                    values.append(host_form(value))
        except _NoWriteback:
            return None
        leaves, treedef = tree_flatten(values, leaf_types=(arrays.DeferredStr, arrays.Static))
        held = self.__dict__.setdefault("check_held", [])   # (specialize._rebind: these objects stay themselves)
        held.extend(obj for obj, _, _ in self.attr_writes.values())
        held.extend(t.value for t in leaves if isinstance(t, arrays.Static))
        # one graph value written to several places is one object there, as eager's
        first = {}
        places = tuple(first.setdefault(id(x), k) if type(x) is Value else k for k, x in enumerate(leaves))
        return arrays.write_state, (tuple(targets), leaves, places, arrays.Static(treedef)), {}

    def _new_object(self, v: Any) -> bool:
        """A graph value whose eager object the call makes anew (a Python
        number, an array it computed): not an argument's array or a version of
        it, an array read from outside, a view, or a value that may be one of
        these (a join): eager's write would set that very object."""
        if v.type.python:
            return True
        entry = self.input_of.get(id(v))
        return not (entry is not None and entry[0] is v) and self._captured_array(v) is None \
            and id(v) not in self.view_of and id(v) not in self.joined_from and not self.identity_of(v) \
            and id(v) not in self.__dict__.get("jax_buffers", {})

    @property
    def rebound_places(self) -> set:
        """The places (``place_of``) a lifted write of this trace set, on any path."""
        d = self.__dict__.get("_rebound_places")
        if d is None:
            d = self.__dict__["_rebound_places"] = set()
        return d

    def inplace_places(self) -> set:
        """The places whose array this trace writes in place (``mutation._capture_store``), on any path."""
        return {place_of_source(holder.capture.source) for holder in self.inplace_targets.values()}

    def assign_global(self, name: str, value: Any, node: Any) -> None:
        """``global name; name = value``: set in the module after each call."""
        namespace = self.frame.unit.globals
        self.lift_write(globals_target(namespace), name, value, node, f"global {name!r}")
        # other reads of the module's namespace (``vars(module)[name]``) would not see the pending value
        self.effect_targets[id(namespace)] = namespace

    def pending_global(self, namespace: dict, name: str) -> Any:
        """The pending value of a global this graph wrote, else ``NOT_PENDING``."""
        target = _TARGETS.get(id(namespace))
        if target is None or target.namespace is not namespace:
            return NOT_PENDING
        entry = self.attr_writes.get((id(target), name))
        return entry[2] if entry is not None and entry[0] is target else NOT_PENDING

    def state_read(self, obj: Any, attr: str, node: Any) -> Any:
        """The value at (obj, attr) before a write this graph may make: a
        global, a closure cell, an NNX object's state or a plain attribute,
        read from outside (captured or guarded) under the key its ordinary
        read uses."""
        if isinstance(obj, InPlaceArray):   # the array itself, as read before any write (``mutation._capture_store``)
            return obj.capture.value
        if isinstance(obj, GlobalsTarget):
            namespace = obj.namespace
            if attr not in namespace:
                raise self.graph_break(FallbackCode.MUTATION, node, f"global {attr!r} is assigned on some paths only "
                                       "and is not defined before", "name")
            return self.external(namespace[attr], lambda: namespace[attr], f"global {attr}",
                                 ("global", id(namespace), attr), ("global", namespace, attr))
        if isinstance(obj, types.CellType):
            try:
                value = obj.cell_contents
            except ValueError:
                raise self.graph_break(FallbackCode.MUTATION, node, "a closure variable assigned on some paths only "
                                       "and not bound before", "name") from None
            return self.external(value, lambda: obj.cell_contents, "closure variable", ("cell", id(obj)),
                                 ("cell", obj, None))
        if isinstance(obj, Effect) and self._is_item_target(obj):
            return self._target_read(obj, node)
        if isinstance(obj, Effect):
            raise self.graph_break(FallbackCode.MUTATION, node, "a container mutated under a traced condition or in a "
                                   "rolled loop", "call")
        from .nnx import is_nnx

        if is_nnx(obj):
            return self.nnx_read((obj, attr), node)
        if attr not in getattr(obj, "__dict__", {}):
            raise self.graph_break(FallbackCode.MUTATION, node, f"attribute {attr!r} set on some paths only (the "
                                   "object has no such attribute before)", "attribute")
        return self.get_attribute(obj, attr, node)

    # ------------------------------------------------------------- effects
    def _effect_allowed(self, container: Any) -> bool:
        """A list or dict from outside (read through a global, a cell, an
        attribute: ``origin``), on a static path."""
        if self.traced_depth or getattr(self, "rolled_depth", 0) or self._is_fresh(container):
            return False
        if type(container) not in (list, dict):
            return False
        entry = self.origin.get(id(container))
        return entry is not None and entry[0] is container

    def lift_method_effect(self, container: Any, method: str, args: tuple, kwargs: dict, node: Any) -> bool:
        """``LOG.append(v)`` / ``LOG.extend(items)`` on an outside list: an
        effect replayed after the call. False: not lifted."""
        if not kwargs and len(args) == 1 and method in ("append", "extend") and self._shadow_allowed(container):
            # under a traced condition or in a rolled loop: into this call's own list, the
            # outside list extended by it after the call (``_shadow``)
            self.call(getattr(self._shadow(container), method), args, kwargs, node)
            return True
        if kwargs or len(args) != 1 or not self._effect_allowed(container) or type(container) is not list:
            return False
        if method == "append":
            value = args[0]
        elif method == "extend" and type(args[0]) in (list, tuple):
            value = self.mark_fresh(list(args[0]))   # made anew per call, its items as the graph has them
        else:
            return False
        self._add_effect(container, method, None, value, node)
        return True

    def _shadow_allowed(self, container: Any) -> bool:
        """An outside list (as ``_effect_allowed``) written where a lifted effect
        cannot be: under a traced condition or in a rolled loop."""
        if not (self.traced_depth or getattr(self, "rolled_depth", 0)) or type(container) is not list \
                or self._is_fresh(container):
            return False
        entry = self.origin.get(id(container))
        return entry is not None and entry[0] is container

    def _shadow(self, container: Any) -> list:
        """This call's own list of the items appended to the outside list
        ``container`` inside a traced construct: made at the segment's top
        level (so branches join it and rolled loops carry it, its length
        depending on the data: ``varlist.py``); when the construct ends it
        becomes an effect ``container.extend(shadow)`` (``flush_shadows``), in
        eager's order among the other effects. The outside list is not read
        again by the graph (its reads run in Python, after the effects)."""
        shadows = self.__dict__.setdefault("_shadows", {})
        entry = shadows.get(id(container))
        if entry is None or entry[0] is not container:
            shadow: list = []
            self.fresh[id(shadow)] = (0, shadow)   # made where the outermost traced construct began
            entry = shadows[id(container)] = (container, shadow)
            self.__dict__.setdefault("_pending_shadows", []).append(entry)
            self.effect_targets[id(container)] = container   # read again: in Python (check_no_effect)
        return entry[1]

    def flush_shadows(self, node: Any) -> None:
        """At the top level again (after statement ``node``): each outside list
        written in the construct just traced is extended by its shadow after
        the call."""
        pending = self.__dict__.get("_pending_shadows")
        if not pending or self.traced_depth or getattr(self, "rolled_depth", 0):
            return
        for container, shadow in pending:
            self._add_effect(container, "extend", None, shadow, node)
            del self.__dict__["_shadows"][id(container)]
        pending.clear()

    def lift_item_write(self, container: Any, key: Any, value: Any, node: Any) -> bool:
        """``CACHE[k] = v`` on an outside dict with a static key; ``box[k] =
        v`` of an item an outside list or dict holds already, also under a
        traced condition or in a rolled loop (``item_target``)."""
        target = self.item_target(container, key)
        if target is not None and ((id(target), "value") in self.attr_writes or type(container) is list
                                   or not self._effect_allowed(container)):
            self.lift_write(target, "value", value, node, f"{self.named(container)}[{key!r}]")
            return True
        if type(container) is not dict or not _static_key(key) or not self._effect_allowed(container):
            return False
        self._add_effect(container, "__setitem__", key, value, node)
        return True

    def item_target(self, container: Any, key: Any) -> Effect | None:
        """The one write of ``container[key]`` this trace may lift like an
        attribute's (joined after a traced ``if``, carried by a rolled loop,
        set after the call): an outside list or dict (read through a global, a
        cell, an attribute), a static key it holds already
        (so no key is inserted: the order of its keys stays eager's), and no
        other pending change of a list (its positions stay the call's). None
        where there is no such write."""
        if type(container) not in (list, dict) or self._is_fresh(container) or not _static_key(key):
            return None
        entry = self.origin.get(id(container))
        if entry is None or entry[0] is not container:
            return None
        if type(container) is list:
            if type(key) is not int or not -len(container) <= key < len(container) or id(container) in self._shadows \
                    or any(e.container is container for e in self.__dict__.get("_effects", ())):
                return None
            key %= len(container)
        elif key not in container:
            return None
        targets = self.__dict__.setdefault("_item_targets", {})
        target = targets.get((id(container), key))
        if target is None or target.container is not container:
            target = targets[(id(container), key)] = Effect(container, "__setitem__", key)
            self.effect_targets[id(container)] = container   # its other reads: in Python (check_no_effect)
        return target

    def pending_target(self, container: Any, key: Any) -> Any:
        """The value this trace wrote into ``container[key]`` through its item
        target, else ``NOT_PENDING``."""
        targets = self.__dict__.get("_item_targets")
        if not targets or type(container) not in (list, dict) or not _static_key(key):
            return NOT_PENDING
        if type(container) is list and type(key) is int and container:
            key %= len(container)
        target = targets.get((id(container), key)) if type(key) is not float or key == key else None
        entry = self.attr_writes.get((id(target), "value")) if target is not None else None
        return entry[2] if entry is not None and entry[0] is target and target.container is container else NOT_PENDING

    def only_item_targets(self, container: Any) -> bool:
        """``container``'s pending changes are item-target writes only: a read
        of another item sees what it held at the call."""
        targets = self.__dict__.get("_item_targets")
        return bool(targets) and any(t.container is container for t in targets.values()) \
            and not any(e.container is container for e in self.__dict__.get("_effects", ())) \
            and id(container) not in self._shadows and id(container) not in _TARGETS

    def _target_read(self, target: Effect, node: Any) -> Any:
        """The value of an item target's item before a write this graph may
        make: a pending static-path write's, else the item as the caller's
        container holds it (read from outside, guarded or captured)."""
        container, key = target.container, target.key
        items = self.__dict__.get("_pending_items") or {}
        entry = items.get((id(container), key))
        if entry is not None and entry[0] is container:
            return entry[1]
        return self.external(container[key], lambda: container[key], f"{self.named(container)}[{key!r}]",
                             ("item", id(container), repr(key)), ("item", container, key))

    def _add_effect(self, container: Any, method: str, key: Any, value: Any, node: Any) -> None:
        effect = Effect(container, method, key)
        self.__dict__.setdefault("_effects", []).append(effect)   # alive while the trace runs: ids stay unique
        self.attr_writes[(id(effect), "value")] = (effect, "value", value)
        self.effect_targets[id(container)] = container
        if method == "__setitem__":
            self.__dict__.setdefault("_pending_items", {})[(id(container), key)] = (container, value)
        shadow = self._shadows.get(id(container))
        if shadow is not None and shadow[0] is container:
            self._replay(shadow[1], method, key, value, node)

    @property
    def _shadows(self) -> dict:
        return self.__dict__.setdefault("_shadow_map", {})

    def shadow_of(self, container: Any, node: Any) -> Any:
        """A trace-time copy of an outside list or dict with pending effects,
        holding what eager's container holds now: its contents at the call
        (guarded) with the effects so far applied, kept in step with later
        ones. Reads that only look (``D.copy()``, ``D.get(k)``, ``len(D)``)
        are served from it; the container itself stays as the caller has it
        until the effects are replayed. None where the container has no
        pending effects (or one not replayed here: a write to a module's
        globals)."""
        if id(container) in self._shadows and self._shadows[id(container)][0] is container:
            return self._shadows[id(container)][1]
        if type(container) not in (list, dict) or self.effect_targets.get(id(container)) is not container:
            return None
        effects = [e for e in self.__dict__.get("_effects", ()) if e.container is container]
        if not effects or id(container) in _TARGETS:
            return None
        traced = self._guard_entry_state(container)
        if traced is None:
            return None
        shadow = self.mark_fresh(type(container)(container))
        if traced:
            shadow.update(traced)   # (the items read as traced inputs: a dict's)
        for e in effects:
            self._replay(shadow, e.method, e.key, self.attr_writes[(id(e), "value")][2], node)
        self._shadows[id(container)] = (container, shadow)
        return shadow

    def _replay(self, shadow: Any, method: str, key: Any, value: Any, node: Any) -> None:
        """One effect (``Effect``) applied to a trace-time shadow. A list whose
        length depends on the data (a traced construct's appends) is joined
        row by row (``varlist.extend_rows``): appended as one item, its tail
        would stand in the middle of the list and ``len`` count it as one."""
        if method == "__setitem__":
            shadow[key] = value
            return
        rows = tail_of(shadow) is not None or (method == "extend" and tail_of(value) is not None)
        if not rows:
            getattr(shadow, method)(value)
            return
        if self.traced_depth or getattr(self, "rolled_depth", 0):   # rows made here would not outlive the region
            raise self.graph_break(FallbackCode.MUTATION, node, "a read of an outside list under a traced "
                                   "condition or in a rolled loop after items appended to it whose number "
                                   "depends on the data")
        if method == "extend":
            self.extend_rows(shadow, list(value), node)
        else:
            self.tail_append(shadow, value, node)

    def _guard_entry_state(self, container: Any) -> dict | None:
        """Guard what ``container`` holds at the call (the trace has not changed
        it: its effects are pending), as a read of its contents does; None
        where it is too large to guard cheaply. Returns the items of a dict
        read as traced inputs (a Python number the function writes back each
        call, ``FunctionState.traced_statics``): guarded on their type only,
        their values come into the graph (key -> value)."""
        from .guards import Snapshot, TooLarge
        from .state import Guard, Value

        traced = {}
        if type(container) is dict and self.traced_statics:
            for k, v in container.items():
                item = ("item", id(container), repr(k))
                if item in self.traced_statics and _static_key(k) and type(v) in (int, float):
                    read = self.external(v, lambda k=k: container[k], f"{self.named(container)}[{k!r}]", item,
                                         ("item", container, k))
                    if isinstance(read, Value):
                        traced[k] = read
        if ("contents", id(container)) in self.guard_keys:   # (all of it, values too)
            return traced
        key = ("entry", id(container)) if traced else ("contents", id(container))
        if key in self.guard_keys:
            return traced
        try:
            snapshot = Snapshot(container, loose=frozenset(traced))
        except TooLarge:
            return None
        self.guard_keys.add(key)
        self.guards.append(Guard(lambda: container, snapshot, f"the contents of {self.named(container, 'a ')}", key))
        self._note_guarded_nested(container)
        return traced

    def _is_item_target(self, obj: Effect) -> bool:
        target = self.__dict__.get("_item_targets", {}).get((id(obj.container), obj.key))
        return target is obj

    def pending_item(self, container: Any, key: Any) -> Any:
        """``CACHE[k]`` of a key this graph set: the pending value, else ``NOT_PENDING``."""
        pending = self.pending_target(container, key)
        if pending is not NOT_PENDING:
            return pending
        if type(container) is dict and type(key) is str and id(container) in _TARGETS:
            pending = self.pending_global(container, key)   # ``vars(module)[name]`` of a global written here
            if pending is not NOT_PENDING:
                return pending
        items = self.__dict__.get("_pending_items")
        if not items or not _static_key(key):
            return NOT_PENDING
        entry = items.get((id(container), key))
        if entry is not None and entry[0] is container:
            return entry[1]
        if type(container) is dict and key in container and self.effect_targets.get(id(container)) is container \
                and id(container) not in _TARGETS:
            # an item no pending effect sets (a dict's effects only set items): what the caller's dict holds,
            # read with its own guard, so that it may be read traced (``stats["total"] += v`` after
            # ``stats["calls"] += 1``) and a change of another item does not re-specialise
            return self.external(container[key], lambda: container[key], f"{self.named(container)}[{key!r}]",
                                 ("item", id(container), repr(key)), ("item", container, key))
        shadow = self.shadow_of(container, None) if type(container) is dict else None
        return shadow[key] if shadow is not None and key in shadow else NOT_PENDING

    def outside_get(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``D.get(k, default)`` of an outside dict and a static key: the item
        read as ``D[k]`` reads it, with its own guard (a written-back float
        then read traced, ``ema[k] = d * ema.get(k, v) + ...``), or the default
        while ``k`` stays missing (guarded so); NotImplemented otherwise (the
        whole dict is read at trace time and guarded)."""
        owner = getattr(callee, "__self__", None)
        if type(owner) is not dict or type(callee) is not types.BuiltinMethodType or callee.__name__ != "get" \
                or kwargs or not 1 <= len(args) <= 2 or not _static_key(args[0]) or self._is_fresh(owner):
            return NotImplemented
        key = args[0]
        if type(key) is float and key != key:   # a NaN key: found by identity only
            return NotImplemented
        pending = self.pending_item(owner, key)
        if pending is not NOT_PENDING:
            return pending
        if self.effect_targets.get(id(owner)) is owner:
            return NotImplemented   # (its shadow: the effects so far applied)
        if key in owner:
            return self.subscript(owner, key, node)
        guard_key = ("missing", id(owner), repr(key))
        if guard_key not in self.guard_keys:
            from .state import Guard

            self.guard_keys.add(guard_key)
            self.guards.append(Guard(lambda: key not in owner, True,
                                     f"the absence of key {key!r} from {self.named(owner)}", guard_key))
        return args[1] if len(args) == 2 else None

    def outside_container(self, x: Any) -> bool:
        """A list or dict read from outside (a global, a cell, an attribute;
        guarded by identity): it leaves the segment as itself, not as a copy
        of what it held when traced."""
        if type(x) not in (list, dict) or self._is_fresh(x):
            return False
        entry = self.origin.get(id(x))
        if entry is None or entry[0] is not x:   # inside a guarded outside container (``_note_guarded_nested``)
            entry = (self.__dict__.get("guarded_nested", {}).get(id(x)),)
        return entry[0] is x and id(x) not in getattr(self, "argument_ids", ())

    def check_no_effect_shallow(self, obj: Any, node: Any) -> None:
        """``check_no_effect`` of ``obj`` itself only, not of what it holds: a
        read that picks an item (``d[k]`` of a plain dict by a plain key)
        looks at no item's contents."""
        targets = self.__dict__.get("_effect_targets") or {}
        written = any(e[0] is obj for e in self.attr_writes.values())
        if targets.get(id(obj)) is obj or written:
            raise self.graph_break(FallbackCode.MUTATION, node, f"a read of {self.named(obj, 'a ')} after this "
                                   "function changed it (the change is made after the call)", "call")

    def check_no_effect(self, obj: Any, node: Any, objects: bool = True) -> None:
        """A read of a container this graph mutates after the call, or of one
        holding it (``print(d)`` after ``d[0].append(v)``): in Python.
        ``objects``: also what a user's object holds (its methods run natively
        may read it); False for a read that only looks an attribute up
        (``hasattr(obj, "config")``)."""
        targets = self.__dict__.get("_effect_targets") or {}
        # user objects whose attributes this graph sets after the call (``self.n += 1``): Python code run at
        # trace time or by a host callback (a __repr__, an __iter__) would read the old values
        written = {id(e[0]): e[0] for e in self.attr_writes.values() if _user_state(e[0]) is not None}
        if not targets and not written:
            return
        stack, seen = [obj], set()
        while stack and len(seen) < _EFFECT_SEARCH:
            x = stack.pop()
            if id(x) in seen:
                continue
            seen.add(id(x))
            if id(x) in targets and targets[id(x)] is x or id(x) in written and written[id(x)] is x:
                raise self.graph_break(FallbackCode.MUTATION, node, f"a read of {self.named(obj, 'a ')} after this "
                                       "function changed it (the change is made after the call)", "call")
            if isinstance(x, (list, tuple, set, frozenset)):
                stack.extend(x)
            elif isinstance(x, dict):
                stack.extend(x.values())
            elif objects and _user_state(x) is not None:   # a user's object: its methods (``__iter__``) run natively may read it
                stack.extend(_user_state(x).values())


    # ------------------------------------- argument arrays in traced regions
    @property
    def pending_inputs(self) -> dict:
        """In-place writes into an argument's NumPy array made inside a traced
        branch or rolled loop still being traced: leaf index -> (frame, name,
        node). The construct's result for ``name`` becomes the version written
        back (``rebase_input_writes``)."""
        d = self.__dict__.get("_pending_inputs")
        if d is None:
            d = self.__dict__["_pending_inputs"] = {}
        return d

    def note_region_input_write(self, k: int, name: str, node: Any) -> None:
        self.pending_inputs[k] = (self.frame, name, node)

    def input_write_names(self, names: list[str]) -> list[str]:
        """Names of this frame holding an argument array written in a
        construct being traced that a join must carry, beyond ``names``."""
        return [name for frame, name, _ in self.pending_inputs.values() if frame is self.frame and name not in names]

    def _input_version(self, v: Any, k: int) -> bool:
        from ..ir.core import Value

        entry = self.input_of.get(id(v))
        return isinstance(v, Value) and entry is not None and entry[0] is v and entry[1] == k

    def check_input_versions(self, envs: list[dict]) -> None:
        """Every path of a construct leaves each written argument's name
        holding a version of that argument (not a new array bound to it)."""
        for k, (frame, name, node) in self.pending_inputs.items():
            if frame is not self.frame or not all(self._input_version(env.get(name), k) for env in envs):
                raise self.graph_break(FallbackCode.MUTATION, node, f"'{name}', an argument's NumPy array written in "
                                       "place under a traced condition or in a rolled loop, is rebound to another "
                                       "array on some path")

    def rebase_input_writes(self, names: list[str]) -> None:
        """After a construct's results are bound: the written arguments'
        versions are its results (written back into the caller's arrays)."""
        from ..ir.core import Value

        pending = self.pending_inputs
        for k, (frame, name, node) in pending.items():
            v = self.frame.env.get(name)
            if frame is not self.frame or name not in names or not isinstance(v, Value):
                raise self.graph_break(FallbackCode.MUTATION, node, f"in-place write into the argument array '{name}' "
                                       "inside a traced branch or rolled loop that does not carry it")
            self.input_of[id(v)] = (v, k)
            self.input_writes[k] = v
        if len(self.regions) == 1:
            pending.clear()

    def inputs_snapshot(self) -> tuple:
        return dict(self.input_writes), dict(self.pending_inputs)

    def restore_inputs(self, snapshot: tuple) -> None:
        """Undo the argument writes of a discarded attempt (a roll that unrolls)."""
        self.input_writes = dict(snapshot[0])
        self.pending_inputs.clear()
        self.pending_inputs.update(snapshot[1])


class _CopyInto:
    """The target of an in-place write into an array read from outside
    (``state.InPlaceArray``) made by a run-time check when it fires:
    ``setattr(target, attr, v)`` copies ``v`` into the array ``getter`` reads
    now (the capture's, re-read as the call read it)."""

    __slots__ = ("getter",)

    def __init__(self, getter: Any):
        object.__setattr__(self, "getter", getter)

    def __setattr__(self, name: str, value: Any) -> None:
        import numpy as np

        np.copyto(self.getter(), value, casting="unsafe")


class _NoWriteback(Exception):
    """A pending write ``check_writeback`` cannot make on the host."""


class _None:
    def __repr__(self) -> str:
        return "<none>"


NOT_PENDING = _None()
