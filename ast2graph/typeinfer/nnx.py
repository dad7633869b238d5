"""Flax NNX objects in converted code: their state read as graph inputs every
call, their writes lifted out of the graph and set after each call.

Requires: the ``Specializer`` state (mixed in). Flax is never imported by
ast2graph itself: NNX objects are recognised by their classes once the
user's program has imported ``flax.nnx`` (``nnx_types``).
Produces:

* library code on NNX objects — calling a ``nnx.Linear``, ``nnx.BatchNorm``,
  ``nnx.Dropout``, an ``nnx.Rngs`` stream, ``nnx.state(model)``, and a
  Variable's own ``[...]``, ``.value``, ``.get_value()`` and operators — as
  one op (``NnxApply``). Its inputs are the current graph values of the
  state of every NNX object it receives (each Variable's raw value, each
  array attribute of a module); inside, ``nnx.graph.unflatten`` rebuilds
  copies of the objects from that state and the library code runs on them
  (what ``nnx.jit`` does around a whole function); it returns the call's
  result and the state the call changed (BatchNorm's running statistics,
  a stream's count);
* the changed state as pending writes in ``Specializer.attr_writes`` (a
  Variable's ``_raw_value``, a module's array attribute), which later ops
  and reads of the same graph see, and which ``GraphPlan.run`` sets on the
  real objects after each call, as it does for ``self.attr = v`` on any
  object from outside; writes under a traced condition are joined like
  variables (``control._join_and_emit``), writes in a rolled loop's body
  are carried by the loop (``control._solve_loop``);
* guards on the structure of every NNX object an op receives (its
  attributes, static configuration such as ``use_running_average`` and
  ``deterministic``, and which Variables it holds): ``model.eval()``, a
  layer added or a Variable replaced re-specialises.

Why an op per library call rather than inlining flax's Python code or
converting a split model: flax's internals (graph traversal, trace-state
checks, hooks on Variables, ``Rngs`` bookkeeping) run unchanged on real JAX
tracers, so every layer behaves as in eager, and only a call's inputs and
outputs cross into the graph IR. The real objects stay the ones the
converted code sees (identity, sharing and ``pytree=False`` objects keep
their meaning): an NNX module argument is one object, keyed by identity,
not a pytree flattened into a copy (``boundary_leaf``).

Invariants: a value of an outside Variable is never a constant of the graph
(a capture, re-read every call, or a pending write of this call); what an op
cannot carry (a call that changes an object's structure, such as
``model.eval()`` or ``self.sow``; an array in a plain container; a Variable
with refs or hijax; a configuration attribute the function set before the
op) raises ``GraphBreak``: that statement runs in Python, on the real objects.
Limits: an NNX module argument is keyed by identity (a new model object of
the same structure compiles again); a standalone Variable passed inside a
pytree argument (an ``nnx.State``) is read, and writing it runs in Python;
Variable metadata changed in place is not guarded.
"""

from __future__ import annotations

import functools
import inspect
import operator
import sys
import types
from typing import Any

import jax

from ..fallback.sites import FallbackCode, GraphBreak
from ..ir.core import Value
from ..resolver import qualified_name
from .lattice import is_array, is_python_number
from ..graphlib.trees import tree_leaves
from .nnxtypes import is_nnx, is_node, is_variable, nnx_types  # noqa: F401 - (re-exported)
from .state import Guard

_MISSING = object()


def nnx_transforms() -> tuple:
    """flax.nnx's transforms of functions of NNX objects (``nnx.grad(loss)``):
    the transformed function is applied in the graph where it is called."""
    mod = sys.modules.get("flax.nnx")
    if mod is None:
        return ()
    return tuple(t for t in (getattr(mod, n, None) for n in _TRANSFORM_NAMES) if t is not None)


_TRANSFORM_NAMES = ("grad", "value_and_grad", "jit", "vmap", "pmap", "scan", "remat", "checkpoint", "shard_map")


def boundary_leaf() -> Any:
    """``is_leaf`` for flattening a segment's live values: an NNX graph node
    stays one object (keyed by identity), so the converted code works on the
    caller's module, not on a copy rebuilt from its leaves; None while flax
    is not imported."""
    return is_node if nnx_types() is not None else None


def _graphlib() -> Any:
    from flax.nnx import graphlib

    return graphlib


class NnxUnsupported(Exception):
    """Library code did something an op cannot carry (changed an object's structure)."""

    _a2g_signal = True   # ast2graph's own signal to its caller, not a failure (interpreter._jax_eval)


class _Slot:
    """An NNX object among an op's arguments, by position (rebuilt inside)."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self) -> str:
        return f"<nnx object {self.k}>"


class _Method:
    """A bound method of an NNX object among an op's arguments."""

    __slots__ = ("k", "func")

    def __init__(self, k: int, func: Any):
        self.k, self.func = k, func

    def __repr__(self) -> str:
        return f"<nnx method {getattr(self.func, '__qualname__', self.func)} of object {self.k}>"


class _Ref:
    """An NNX object an op returns that is one of its inputs (or inside one):
    its path from the op's objects; a pytree without leaves."""

    __slots__ = ("path",)

    def __init__(self, path: tuple):
        self.path = path


jax.tree_util.register_pytree_node(_Ref, lambda r: ((), r.path), lambda path, _: _Ref(path))


def _masked(x: Any) -> bool:
    return type(x) is _Slot or type(x) is _Method


class NnxApply:
    """``fn(*args, **kwargs)`` on NNX objects rebuilt from their state.

    ``graphdef``/``paths``: ``nnx.graph.flatten`` of the op's objects at
    trace time; ``values``: the raw value at each path. Returns ``(result,
    changed, new)``: the positions of the state that the call replaced and
    their new values, and ``same``: (result array, state array) pairs where
    the result is the state array itself (``v.value``, ``v[...]``); an NNX
    object in the result that is (inside) one of the inputs comes back as a
    ``_Ref`` to it."""

    def __init__(self, graphdef: Any, paths: tuple, label: str):
        self.graphdef, self.paths = graphdef, paths
        self.__name__ = self.__qualname__ = label
        # not a module ast2graph's type cache trusts: the result types of a
        # library call on objects are found again by each conversion
        self.__module__ = "<nnx op>"

    def __call__(self, fn: Any, args: tuple, kwargs: dict, values: list) -> Any:
        gl = _graphlib()
        objs = gl.unflatten(self.graphdef, gl.FlatState.from_sorted_keys_values(self.paths, list(values)))

        def fill(x: Any) -> Any:
            if type(x) is _Slot:
                return objs[x.k]
            if type(x) is _Method:
                return types.MethodType(x.func, objs[x.k])
            return x

        args, kwargs = jax.tree_util.tree_map(fill, (args, kwargs), is_leaf=_masked)
        out = fill(fn)(*args, **kwargs)
        graphdef, new = gl.flatten(objs, with_paths=False)
        if graphdef != self.graphdef:
            raise NnxUnsupported(f"{self.__name__} changed the structure of an NNX object (an attribute set, a "
                                 "layer added, a Variable replaced or its metadata changed)")
        changed = tuple(i for i, (a, b) in enumerate(zip(values, new)) if a is not b)
        inside = {id(node): path for path, node in gl.iter_graph(objs) if is_nnx(node)}
        out = jax.tree_util.tree_map(lambda x: _Ref(inside[id(x)]) if is_nnx(x) and id(x) in inside else x, out,
                                     is_leaf=is_nnx)
        given = {id(x): i for i, x in enumerate(a for a in tree_leaves(values) if isinstance(a, jax.Array))}
        results = [a for a in tree_leaves(out) if isinstance(a, jax.Array)]
        same = tuple((j, given[id(a)]) for j, a in enumerate(results) if id(a) in given)
        return out, changed, [new[i] for i in changed], same


class NnxMixin:
    """Reads, calls and writes of NNX objects during specialisation."""

    rolled_depth = 0   # rolled loop bodies being solved (``control._solve_loop``)

    @property
    def nnx_fresh(self) -> dict:
        """NNX objects made during tracing (id -> object): their state is
        trace-time state (eager makes them anew every call)."""
        d = self.__dict__.get("_nnx_fresh")
        if d is None:
            d = self.__dict__["_nnx_fresh"] = {}
            self.__dict__["_nnx_guarded"] = {}
        return d

    # ------------------------------------------------------------ detection
    def nnx_in(self, *trees: Any) -> bool:
        """Whether NNX objects (or bound methods of them) are among ``trees``."""
        if nnx_types() is None:
            return False
        stop = lambda x: isinstance(x, Value) or is_nnx(x)  # noqa: E731
        for tree in trees:
            for x in tree_leaves(tree, is_leaf=stop):
                if is_nnx(x) or type(x) is types.MethodType and is_nnx(x.__self__):
                    return True
        return False

    def nnx_class(self, callee: Any) -> bool:
        t = nnx_types()
        return t is not None and isinstance(callee, type) and issubclass(callee, t)

    # ------------------------------------------------------------ the op
    def nnx_call(self, fn: Any, args: tuple, kwargs: dict, node: Any, label: str | None = None) -> Any:
        """``fn(*args, **kwargs)``, library code on NNX objects, as one op."""
        from .state import LocalFunction, contains_value

        gl = _graphlib()
        label = label or _label(fn)
        objs: list = []
        index: dict[int, int] = {}

        def slot(x: Any) -> int:
            k = index.get(id(x))
            if k is None:
                k = index[id(x)] = len(objs)
                objs.append(x)
            return k

        def mask(x: Any) -> Any:
            if is_nnx(x):
                return _Slot(slot(x))
            if type(x) is types.MethodType and is_nnx(x.__self__):
                return _Method(slot(x.__self__), x.__func__)
            return x

        masked_fn = mask(fn)
        # local functions first: the NNX objects they close over are masked too (a TracedClosure is a pytree)
        args, kwargs = self._closures_for_jax((args, kwargs), node)
        args, kwargs = jax.tree_util.tree_map(mask, (args, kwargs), is_leaf=lambda x: isinstance(x, Value) or is_nnx(x))
        try:
            graphdef, flat = gl.flatten(tuple(objs), with_paths=True, graph=True)
        except Exception as e:  # noqa: BLE001 - flax refuses these objects: Python runs the call
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{label}: nnx.graph.flatten raised "
                                   f"{type(e).__name__}: {e}", "call") from None
        paths, slots, values = [], [], []
        for path, leaf in flat:
            where = self._nnx_slot(objs, path, leaf, node, label)
            paths.append(path)
            slots.append(where)
            values.append(self.nnx_read(where, node, _describe(objs, path)))
        self._pending_elsewhere(objs, {(id(o), a) for o, a in slots}, node, label)
        self.nnx_guard(objs)
        self.decide(node, "call", "nnx", f"{label} on NNX objects: one op; their state is read as inputs and the "
                    "state it changes is written back after each call")
        op = NnxApply(graphdef, tuple(paths), label)
        try:
            out, changed, new, same = self.emit_call(op, (masked_fn, args, kwargs, values), {}, node, label)
        except GraphBreak as e:
            exc = getattr(e, "exc", None)
            if isinstance(exc, NnxUnsupported):
                raise self.graph_break(FallbackCode.MUTATION, node, str(exc), "call") from None
            raise
        for i, value in zip(changed, new):
            self.nnx_write(slots[i], value, values[i], node)
        if same:   # a Python number held by a Variable, read as it is (``v.value``): a Python number
            given = [x for x in tree_leaves(values, is_leaf=_is_value) if isinstance(x, Value)]
            results = [x for x in tree_leaves(out, is_leaf=_is_value) if isinstance(x, Value)]
            for j, i in same:
                if given[i].type.python and not results[j].type.shape:
                    results[j].type = _replace(results[j].type, python=True)
        return self._nnx_result(out, objs)

    def _nnx_slot(self, objs: list, path: tuple, leaf: Any, node: Any, label: str) -> tuple:
        """Where the state at ``path`` lives: (object, attribute)."""
        if is_variable(leaf):
            if leaf.get_metadata().get("hijax") or leaf.get_metadata().get("ref"):
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{label}: a Variable with hijax=True or "
                                       "ref=True (its value is a mutable reference)", "call")
            return leaf, "_raw_value"
        owner: Any = objs
        for key in path[:-1]:
            owner = _child(owner, key)
        key = path[-1]
        if is_node(owner):
            return owner, key if isinstance(key, str) else str(key)
        raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{label}: an array held in a plain "
                               f"{type(owner).__name__} inside an NNX object ({_describe(objs, path)})", "call")

    def _pending_elsewhere(self, objs: list, slots: set, node: Any, label: str) -> None:
        """A write of this graph not yet on the real objects that the op could
        not see: a static attribute (``bn.use_running_average = True``) or a
        new one set earlier in the function on an object the op receives."""
        if not self.attr_writes:
            return
        nodes = {id(n) for _, n in _graphlib().iter_graph(tuple(objs)) if is_node(n)}
        for key, (obj, attr, _) in self.attr_writes.items():
            if key[0] in nodes and key not in slots:
                raise self.graph_break(FallbackCode.MUTATION, node, f"{label} reads {type(obj).__name__}, whose "
                                       f"attribute {attr!r} this function set before (not an array the op takes as "
                                       "input)", "call")

    def _nnx_result(self, out: Any, objs: list) -> Any:
        """The op's result: its ``_Ref``s are the real objects; NNX objects
        it made are fresh (trace-time objects)."""
        real: dict = {}

        def back(x: Any) -> Any:
            if type(x) is _Ref:
                if not real:
                    real.update((p, n) for p, n in _graphlib().iter_graph(tuple(objs)) if is_nnx(n))
                return real[x.path]
            if is_nnx(x):
                self.nnx_made(x)
            return x

        return jax.tree_util.tree_map(back, out, is_leaf=lambda x: type(x) is _Ref or isinstance(x, Value) or is_nnx(x))

    def nnx_made(self, obj: Any) -> Any:
        """Register an NNX object made during tracing (and everything in it)."""
        for _, x in _graphlib().iter_graph(obj):
            if is_nnx(x):
                self.nnx_fresh[id(x)] = x
                self.mark_fresh(x)
        return obj

    # ------------------------------------------------------- state values
    def nnx_read(self, where: tuple, node: Any, description: str = "") -> Any:
        """The current value of the state at ``where`` (object, attribute):
        this graph's pending write, else the object's value, an input re-read
        every call (``external``: an array is captured, a static value guarded)."""
        from .state import contains_value

        obj, attr = where
        pending = self.attr_writes.get((id(obj), attr))
        if pending is not None and pending[0] is obj:
            return pending[2]
        value = obj.get_raw_value() if attr == "_raw_value" else vars(obj)[attr]
        if id(obj) in self.nnx_fresh or contains_value(value):
            return value   # a trace-time object (or a copy made from an argument's leaves)
        if not is_array(value) and any(is_array(x) for x in tree_leaves(value)):
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{description or type(obj).__name__} holds a "
                                   f"{type(value).__name__} of arrays (a Variable's value must be one array or a "
                                   "Python value here)", "call")
        getter = obj.get_raw_value if attr == "_raw_value" else functools.partial(getattr, obj, attr)
        return self.external(value, getter, description or f"{type(obj).__name__}.{attr}", ("attr", id(obj), attr),
                             ("attr", obj, attr))

    def nnx_write(self, where: tuple, value: Any, old: Any, node: Any) -> None:
        """Set the state at ``where`` for the rest of this graph and, for an
        object from outside, on the real object after each call."""
        obj, attr = where
        if id(obj) in self.nnx_fresh:
            if self.traced_depth:
                raise self.graph_break(FallbackCode.MUTATION, node, f"an NNX object made in this function "
                                       f"({type(obj).__name__}) changed under a traced condition or in a rolled loop")
            object.__setattr__(obj, attr, value)
            return
        from .state import contains_value

        if attr == "_raw_value" and contains_value(obj.get_raw_value()):
            raise self.graph_break(FallbackCode.MUTATION, node, f"a write into a {type(obj).__name__} passed inside a "
                                   "pytree argument (the graph sees a copy of it)")
        self._rolled_write_check(obj, attr, node)
        if isinstance(value, Value) and value.type.shape == () and \
                (is_python_number(old) or isinstance(old, Value) and old.type.python):
            # a Python number held by a Variable (a counter) stays one
            value.type = _replace(value.type, python=True)
        self.attr_writes[(id(obj), attr)] = (obj, attr, value)

    # --------------------------------------------------------------- guards
    def nnx_guard(self, roots: list) -> None:
        """Guard the structure of NNX objects and of everything in them: the
        identity of each attribute's value (sub-modules, Variables, static
        configuration) and the number of attributes; arrays are not guarded
        (they are inputs where used)."""
        self.nnx_fresh
        guarded = self.__dict__["_nnx_guarded"]
        stack = list(roots)
        while stack:
            x = stack.pop()
            if id(x) in guarded or id(x) in self.nnx_fresh:
                continue
            if is_node(x):
                guarded[id(x)] = x
                d = vars(x)
                name = type(x).__name__
                self.guards.append(Guard(lambda d=d, n=len(d): len(d) == n, True, f"the attributes of {name}"))
                for k, v in d.items():
                    if is_array(v):
                        continue
                    self.guards.append(Guard(functools.partial(getattr, x, k), v, f"{name}.{k}", None, ("attr", x, k)))
                    if is_node(v) or isinstance(v, (list, tuple, dict)):
                        stack.append(v)
            elif isinstance(x, (list, dict)):
                guarded[id(x)] = x
                self.guards.append(Guard(lambda x=x, n=len(x): len(x) == n, True, f"the length of a {type(x).__name__}"))
                for k, v in (x.items() if isinstance(x, dict) else enumerate(x)):
                    if is_array(v):
                        continue
                    self.guards.append(Guard(functools.partial(operator.getitem, x, k), v, f"{type(x).__name__}[{k!r}]",
                                             None, ("item", x, k)))
                    if is_node(v) or isinstance(v, (list, tuple, dict)):
                        stack.append(v)
            elif isinstance(x, tuple):
                stack.extend(v for v in x if is_node(v) or isinstance(v, (list, tuple, dict)))

    # ------------------------------------------------- converted-code hooks
    def nnx_attribute(self, var: Any, attr: str, node: Any) -> Any:
        """``var.attr`` on a Variable in converted code."""
        static = inspect.getattr_static(var, attr, _MISSING)
        if isinstance(static, (types.FunctionType, classmethod, staticmethod)):
            return getattr(var, attr)   # a method, bound to the real Variable: calling it is an op
        if static is _MISSING:
            metadata = object.__getattribute__(var, "_var_metadata")
            if attr in metadata:
                return metadata[attr]
            # forwarded to the raw value (Variable.__getattr__): ``.T``, ``.sum``, ``.dtype``
            return self.get_attribute(self.nnx_read((var, "_raw_value"), node), attr, node)
        return self.nnx_call(getattr, (var, attr), {}, node, f"nnx {type(var).__name__}.{attr}")

    def nnx_set_attribute(self, obj: Any, attr: str, value: Any, node: Any) -> None:
        """``obj.attr = value`` on an NNX object in converted code."""
        from .state import contains_value

        if is_variable(obj):
            self.nnx_call(setattr, (obj, attr, value), {}, node, f"nnx {type(obj).__name__}.{attr} =")
            return
        traced = contains_value(value)
        if id(obj) in self.nnx_fresh and not traced and not self.traced_depth:
            self.static_call(setattr, (obj, attr, value), {}, node)
            return
        current = vars(obj).get(attr, _MISSING)
        pending = self.attr_writes.get((id(obj), attr))
        if pending is not None and pending[0] is obj:
            current = pending[2]
        if id(obj) in self.nnx_fresh:
            plain = False   # a trace-time object under a traced condition, or given a traced value
        elif isinstance(value, Value) and value.type.python:
            # a Python number read traced (``self.calls += 1``, once it kept changing): one again after the call
            plain = is_python_number(current) or isinstance(current, Value) and current.type.python
        elif isinstance(value, Value) or is_array(value):
            # an array into an array attribute (or a new one): data, as eager's Pytree.__setattr__ makes it
            plain = current is _MISSING or is_array(current) or isinstance(current, Value)
        else:
            # a static value (a flag, a number) into a static attribute, on a static path
            plain = not traced and not self.traced_depth and not self.nnx_in(value) and not is_array(current) \
                and not isinstance(current, Value) and not is_nnx(current) and not isinstance(value, (list, dict, set))
        if not plain:
            raise self.graph_break(FallbackCode.MUTATION, node, f"setting attribute {attr!r} of {type(obj).__name__} "
                                   "(an NNX object) to this value runs in Python", "attribute")
        self._rolled_write_check(obj, attr, node)
        self.attr_writes[(id(obj), attr)] = (obj, attr, value)

    def _rolled_write_check(self, obj: Any, attr: str, node: Any) -> None:
        """A write inside a rolled loop's body: the loop must carry it
        (``control._solve_loop`` solves the loop again carrying it)."""
        if self.rolled_depth and not self.carries_write((id(obj), attr)):
            err = self.graph_break(FallbackCode.MUTATION, node, f"{type(obj).__name__}.{attr.lstrip('_')} written inside "
                                   "a rolled loop that does not carry it", "attribute")
            err.carry = ((id(obj), attr), obj, attr)  # type: ignore[attr-defined]
            raise err

    def nnx_operator(self, fn: Any, operands: tuple, node: Any) -> Any:
        """An operator (``+``, ``-x``, ``[i]``, ``bool()``, ...) with an NNX operand."""
        return self.nnx_call(fn, operands, {}, node, f"nnx {getattr(fn, '__name__', fn)}")


def _label(fn: Any) -> str:
    if is_nnx(fn):
        return f"nnx {type(fn).__name__}"
    if type(fn) is types.MethodType and is_nnx(fn.__self__):
        return f"nnx {type(fn.__self__).__name__}.{fn.__name__}"
    if isinstance(fn, type):
        return f"nnx new {fn.__name__}"
    return f"nnx {qualified_name(fn)}"


def _is_value(x: Any) -> bool:
    return isinstance(x, Value)


def _child(obj: Any, key: Any) -> Any:
    if is_node(obj):
        return vars(obj)[key if isinstance(key, str) else str(key)]
    return obj[key]


def _describe(objs: list, path: tuple) -> str:
    if not path:
        return "NNX objects"
    head = objs[path[0]] if isinstance(path[0], int) and path[0] < len(objs) else None
    return ".".join([type(head).__name__] + [str(p) for p in path[1:]])


def _replace(t: Any, **changes: Any) -> Any:
    import dataclasses

    return dataclasses.replace(t, **changes)
