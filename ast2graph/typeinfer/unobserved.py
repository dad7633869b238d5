"""Whether a variable's object identity can be seen by anything but its contents.

Requires: the function's ``gast`` tree and its globals (``Unit``).
Produces: ``identity_unobserved(tree, globals, name)``: True where every read
of ``name`` in the function hands it to a JAX pytree reader alone
(``jax.tree_util.tree_map(f, ..., name)``, ``tree_leaves(name)``, no keyword
nor positional ``is_leaf`` that would hand a subtree to user code, no
``tree_reduce`` initializer) or to a function
a JAX transformation made (``jax.value_and_grad(loss)(name, x)``: the
function gets a tree rebuilt from the leaves) and nothing else
touches it: no ``is``, no return, no store into a container or attribute, no
other name bound to it but one that is itself read so (``best_p = params``), no mutation (``name[k] = v``, ``name |= d``, a method
call), no ``del``, no ``global``/``nonlocal``, no nested function, lambda or
class reading it, no call of user code with it.
Invariants: where this holds, which dict or list object the variable holds
after a traced ``if`` cannot be seen by the caller or by the rest of the
function: only its contents are read, so a join by value (a new object on
every path) is exact even where one path keeps the caller's own object
(``if n > c: grads = tree_map(clip, grads)``). Over-approximate: any other
use answers False.
"""

from __future__ import annotations

import types
from typing import Any

import gast
import jax

_READERS = ("tree_map", "tree_leaves", "tree_flatten", "tree_structure", "tree_reduce", "tree_all")


def _pure_readers() -> set[int]:
    out = {id(getattr(jax.tree_util, n)) for n in _READERS if hasattr(jax.tree_util, n)}
    tree = getattr(jax, "tree", None)
    for n in ("map", "leaves", "flatten", "structure", "reduce", "all"):
        if hasattr(tree, n):
            out.add(id(getattr(tree, n)))
    return out


_TRANSFORMS = ("grad", "value_and_grad", "jit", "vmap", "jacfwd", "jacrev", "hessian")


def _transforms() -> set[int]:
    """JAX's transformations: ``jax.grad(f)(tree)`` flattens ``tree`` to its
    leaves and hands ``f`` a tree rebuilt from them, never the object itself."""
    return {id(getattr(jax, n)) for n in _TRANSFORMS if hasattr(jax, n)}


def _reads_leaves_only(call: Any, arg: Any, globals_: dict, local: set[str]) -> bool:
    """``call`` is ``tree_map(f, x, ...)``-like (no keywords) or
    ``jax.grad(f, ...)(..., x)``. ``tree_map(f, t, x)``: where ``t`` has a
    leaf where ``x`` has a subtree, ``f`` gets that subtree itself, so ``f``
    must be a lambda of arithmetic only (``_arithmetic``)."""
    if isinstance(call.func, gast.Call):
        return id(_resolve(call.func.func, globals_, local)) in _transforms()
    fn = _resolve(call.func, globals_, local)
    if call.keywords or id(fn) not in _pure_readers():
        return False
    at = next(i for i, a in enumerate(call.args) if a is arg)
    name = getattr(fn, "__name__", "")
    if name in ("tree_map", "map"):
        if at == 0:
            return False   # (called as the function)
        return at == 1 or _arithmetic(call.args[0], globals_, local)
    if name in ("tree_reduce", "reduce"):
        # ``tree_reduce(f, t, init, is_leaf)``: ``init`` is handed to ``f`` itself, ``is_leaf`` a subtree
        return at == 1 and len(call.args) <= 3
    # ``tree_leaves(t, is_leaf)``: a positional ``is_leaf`` hands subtrees (the dict itself) to user code
    return at == 0 and len(call.args) == 1


def _arithmetic(fn: Any, globals_: dict, local: set[str]) -> bool:
    """A lambda whose body is arithmetic on names and literals and calls of
    JAX or NumPy functions: it neither keeps, returns nor compares by
    identity what it is given (a dict there raises TypeError, as in eager)."""
    if not isinstance(fn, gast.Lambda) or isinstance(fn.body, gast.Name):
        return False
    local = local | {a.id for a in fn.args.args if isinstance(a, gast.Name)}   # (its own names resolve to nothing)
    for node in gast.walk(fn.body):
        if isinstance(node, gast.Call):
            target = _resolve(node.func, globals_, local)
            if not (getattr(target, "__module__", "") or "").startswith(("jax", "numpy")) or node.keywords:
                return False
        elif not isinstance(node, (gast.BinOp, gast.UnaryOp, gast.Name, gast.Constant, gast.Attribute, gast.Load,
                                   gast.operator, gast.unaryop)):
            return False
    return True


def _resolve(func: Any, globals_: dict, local: set[str]) -> Any:
    """The object a dotted chain of module attributes names (``jax.tree_util.tree_map``),
    else None: a local name, or an attribute of anything but a module."""
    chain = []
    while isinstance(func, gast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in local or func.id not in globals_:
        return None
    obj = globals_[func.id]
    for attr in reversed(chain):
        if not isinstance(obj, types.ModuleType):
            return None
        obj = getattr(obj, attr, None)
    return obj


def _parents(tree: Any) -> dict[int, Any]:
    parents: dict[int, Any] = {}
    for node in gast.walk(tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _bound_to(node: Any, parents: dict[int, Any]) -> list[str] | None:
    """The names a read ``node`` is bound to by an assignment of it alone
    (``a = node``; ``a, b = node, x``: ``a``), else None."""
    parent = parents.get(id(node))
    if isinstance(parent, gast.Assign) and parent.value is node:
        if all(isinstance(t, gast.Name) for t in parent.targets):
            return [t.id for t in parent.targets]
        return None
    if isinstance(parent, gast.Tuple) and isinstance(parent.ctx, gast.Load):
        stmt = parents.get(id(parent))
        if isinstance(stmt, gast.Assign) and stmt.value is parent and all(
                isinstance(t, gast.Tuple) and len(t.elts) == len(parent.elts) for t in stmt.targets):
            at = next(i for i, e in enumerate(parent.elts) if e is node)
            targets = [t.elts[at] for t in stmt.targets]
            if all(isinstance(t, gast.Name) for t in targets):
                return [t.id for t in targets]
    return None


def identity_unobserved(tree: Any, globals_: dict, name: str, _seen: set | None = None) -> bool:
    """See the module docstring: every read of ``name`` in function ``tree``
    is an argument of a JAX pytree reader (no keywords), and the name is never
    deleted, declared global/nonlocal, mutated by augmented assignment or read
    by a nested scope."""
    from ..ssa.names import local_names

    local = set(local_names(tree))
    parents = _parents(tree)
    for node in gast.walk(tree):
        if isinstance(node, gast.Name) and node.id in ("locals", "vars", "eval", "exec") and node.id not in local:
            return False   # (they read every variable)
        if isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return False
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)) and node is not tree \
                and any(isinstance(n, gast.Name) and n.id == name for n in gast.walk(node)):
            return False
        if not isinstance(node, gast.Name) or node.id != name:
            continue
        if isinstance(node.ctx, gast.Del):
            return False
        parent = parents.get(id(node))
        if isinstance(node.ctx, (gast.Store, gast.Param)):
            if isinstance(parent, gast.AugAssign):
                return False
            continue
        bound = _bound_to(node, parents)
        if bound is not None:   # ``best_p = params``: that name's reads too
            seen = _seen if _seen is not None else {name}
            if all(b in seen or (seen.add(b) or identity_unobserved(tree, globals_, b, seen)) for b in bound):
                continue
            return False
        if not isinstance(parent, gast.Call) or node not in parent.args \
                or any(isinstance(a, gast.Starred) for a in parent.args) \
                or not _reads_leaves_only(parent, node, globals_, local):
            return False
    return True
