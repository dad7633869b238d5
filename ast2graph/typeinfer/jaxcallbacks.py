"""Python functions handed to JAX (``lax.scan(step, ...)``, ``jax.vmap(f)``,
``jax.grad(loss)``): may JAX run them as they are?

Requires: the function's syntax tree (``gast``) and a way to resolve the
names it reads to values (its frames, globals, builtins).
Produces: ``python_effect(tree, resolve)``: the first statement or call of
the function (or of a Python function it calls, a few levels deep) with a
Python side effect, as ``(node, what)``, or None.
Invariants: conservative — a write through a name the function did not
bind (``acc.append(v)``, ``obj.n += 1``, ``d[k] = v``), a ``global`` or
``nonlocal`` rebinding, a call of ``print``/``logging`` or of anything
``resolver.is_effectful`` names counts as an effect; JAX's own callbacks
(``jax.debug.print``) do not.

Why: eager JAX traces such a function on every call (``lax.scan`` traces its
body once per call), so its Python effects happen once per call; inside a
compiled graph JAX traces it once, when the graph is traced, and never
again. Such a call site falls back to Python instead.
"""

from __future__ import annotations

import types
from typing import Any, Callable

import gast

from ..resolver import is_effectful, is_host_printer

MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
    "update", "setdefault", "popitem", "add", "discard", "difference_update",
    "intersection_update", "symmetric_difference_update", "__setitem__", "__delitem__",
})
_DEPTH = 3


def _bound_names(tree: Any) -> set[str]:
    names = set()
    for n in gast.walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)):
            names.add(n.id)
        elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
            names.add(n.name)
    return names


def _binds_own_name(tree: gast.FunctionDef) -> bool:
    """Whether the body of ``tree`` binds the function's own name itself."""
    inner = [n for stmt in tree.body for n in gast.walk(stmt)]
    return any(isinstance(n, gast.Name) and n.id == tree.name and isinstance(n.ctx, (gast.Store, gast.Del))
               or isinstance(n, (gast.FunctionDef, gast.ClassDef)) and n.name == tree.name for n in inner)


def _base_name(node: Any) -> str | None:
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def python_effect(tree: Any, resolve: Callable[[str], Any], depth: int = 0) -> tuple[Any, str] | None:
    """The first Python side effect of the function ``tree``, or None."""
    own = _bound_names(tree)
    if isinstance(tree, gast.FunctionDef) and not _binds_own_name(tree):
        # the function's own name is bound where it is defined, not by it:
        # ``f_raise._function_calls += 1`` writes into an outside object (SciPy's _wrap_nan_raise)
        own.discard(tree.name)
    for n in gast.walk(tree):
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            return n, f"`{type(n).__name__.lower()} {', '.join(n.names)}`"
        targets = n.targets if isinstance(n, (gast.Assign, gast.Delete)) else \
            [n.target] if isinstance(n, (gast.AugAssign, gast.AnnAssign)) else []
        for t in targets:
            base = _base_name(t)
            if isinstance(t, (gast.Attribute, gast.Subscript)) and base not in own:
                return n, f"a write into `{base}`, which the function did not create"
        if isinstance(n, gast.Call):
            found = _call_effect(n, own, resolve, depth)
            if found is not None:
                return found
    return None


def _call_effect(call: gast.Call, own: set[str], resolve: Callable[[str], Any], depth: int) -> tuple[Any, str] | None:
    func = call.func
    if isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS:
        base = _base_name(func.value)
        if base is not None and base not in own:
            return call, f"`{base}.{func.attr}(...)` changes an object the function did not create"
    if not isinstance(func, (gast.Name, gast.Attribute)) or _base_name(func) in own:
        return None
    value = _resolve_chain(func, resolve)
    if value is None:
        return None
    if is_host_printer(value) or is_effectful(value):
        return call, f"a call of `{getattr(value, '__qualname__', value)}`"
    if depth < _DEPTH and isinstance(value, types.FunctionType) and not _jax_or_numpy(value):
        tree = _tree_of(value)
        if tree is None:
            return call, f"a call of `{value.__qualname__}`, whose source cannot be read (its effects are unknown)"
        if tree is not None:
            inner = python_effect(tree, _globals_resolver(value), depth + 1)
            if inner is not None:
                return call, f"{inner[1]} in `{value.__qualname__}` (line {getattr(inner[0], 'lineno', '?')})"
    return None


def _resolve_chain(node: Any, resolve: Callable[[str], Any]) -> Any:
    if isinstance(node, gast.Name):
        return resolve(node.id)
    if isinstance(node, gast.Attribute):
        owner = _resolve_chain(node.value, resolve)
        if isinstance(owner, types.ModuleType):
            return getattr(owner, node.attr, None)
    return None


def called_whole(fn: Any) -> bool:
    """A JAX library callable with no Python function of its own to convert
    (``jax.nn.sigmoid``, a jitted ``PjitFunction``; ``jax.nn.celu``, a
    ``custom_jvp``): ``to_static(fn)`` converts a call of it, which the graph
    makes one JAX op, as inside any user function."""
    module = getattr(fn, "__module__", "") or ""
    return callable(fn) and not isinstance(fn, (type, types.FunctionType)) and \
        (module == "jax" or module.startswith(("jax.", "jaxlib")))


def _jax_or_numpy(fn: Any) -> bool:
    module = getattr(fn, "__module__", "") or ""
    return module.split(".")[0] in ("jax", "jaxlib", "numpy", "ast2graph")


def _tree_of(fn: types.FunctionType) -> Any:
    from ..parser import parse_function

    try:
        return parse_function(fn).tree
    except Exception:  # noqa: BLE001 - no source: nothing to say
        return None


def _globals_resolver(fn: types.FunctionType) -> Callable[[str], Any]:
    import builtins

    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))

    def resolve(name: str) -> Any:
        if name in cells:
            try:
                return cells[name].cell_contents
            except ValueError:
                return None
        if name in fn.__globals__:
            return fn.__globals__[name]
        return getattr(builtins, name, None)

    return resolve
