"""A class defined inside a converted function (``class A: ...`` in its body).

Requires: the ``ClassDef`` node of the function's tree, the interpreter's
frames (which names are the function's locals) and ``closures.factory_for``.
Produces: the class object, made at trace time by the user's own statement
compiled with the user's file name, line numbers and qualified names
(``f.<locals>.A``): its methods are then converted like those of a class
defined at module level when the function calls them.
Invariants: only a class whose creation has no effect and reads nothing that
can change between calls is made at trace time: no class decorators, no
keywords (``metaclass=``), bases of metaclass ``type`` without
``__init_subclass__``, a body of methods (decorated by ``staticmethod``,
``classmethod`` or ``property`` only, constant defaults), constant class
attributes and docstrings, and no method reading a local variable of the
function other than the class itself. Eager makes a new class object on
every call: the class, its methods and its instances never leave a compiled
segment (``escapes``), so no caller sees one class shared by all calls.
"""

from __future__ import annotations

import builtins
import types
import weakref
from typing import Any

import gast

from ..ssa.names import free_names
from .closures import factory_for

_DECORATORS = (staticmethod, classmethod, property)
_LOCAL = weakref.WeakSet()   # the classes made at trace time and their functions
_NODES: dict[int, tuple] = {}   # id(ClassDef) -> (it, the class statement compiled for it)


def local_class_problem(stmt: gast.ClassDef, is_local: Any) -> str | None:
    """Why ``stmt`` cannot be made at trace time, or None. ``is_local(name)``:
    whether ``name`` is a local variable of an enclosing converted function."""
    if stmt.decorator_list:
        return "a decorated class"
    if stmt.keywords:
        return "a class with keywords (metaclass=...)"
    for item in stmt.body:
        problem = _member_problem(item)
        if problem is not None:
            return problem
    read = sorted(n for n in free_names(stmt) if n != stmt.name and is_local(n))
    if read:
        return f"its methods read the function's local variable '{read[0]}'"
    return None


def _member_problem(item: Any) -> str | None:
    if isinstance(item, gast.Pass) or isinstance(item, gast.Expr) and isinstance(item.value, gast.Constant):
        return None
    if isinstance(item, (gast.Assign, gast.AnnAssign)) and _constant(item.value) \
            and all(isinstance(t, gast.Name) for t in (item.targets if isinstance(item, gast.Assign) else [item.target])):
        return None
    if isinstance(item, gast.FunctionDef):
        args = item.args
        if not all(_constant(d) for d in list(args.defaults) + [d for d in args.kw_defaults if d is not None]):
            return f"method {item.name} has a default that is not a constant"
        if not all(isinstance(d, gast.Name) and getattr(builtins, d.id, None) in _DECORATORS for d in item.decorator_list):
            return f"method {item.name} has a decorator other than staticmethod, classmethod or property"
        return None
    return f"a class body with a `{type(item).__name__}` statement"


def _constant(node: Any) -> bool:
    if isinstance(node, gast.Constant):
        return True
    return isinstance(node, gast.Tuple) and all(_constant(e) for e in node.elts)


def base_problem(bases: list) -> str | None:
    for base in bases:
        if not isinstance(base, type) or type(base) is not type:
            return f"a base that is not a plain class ({base!r})"
        if any("__init_subclass__" in vars(b) for b in base.__mro__ if b is not object):
            return f"a base with __init_subclass__ ({base.__qualname__})"
    return None


def make_local_class(stmt: gast.ClassDef, bases: list, filename: str, globals_: dict, qualname: str,
                     flags: int) -> type:
    """The class ``stmt`` makes, with ``bases`` (evaluated by the interpreter)."""
    names = tuple(f"__ast2graph_base{k}" for k in range(len(bases)))
    entry = _NODES.get(id(stmt))
    if entry is None or entry[0] is not stmt or len(entry[1].bases) != len(names):
        node = gast.ClassDef(name=stmt.name, bases=[gast.Name(n, gast.Load(), None, None) for n in names], keywords=[],
                             body=stmt.body, decorator_list=[], type_params=[])
        gast.copy_location(node, stmt)
        for name in node.bases:
            gast.copy_location(name, stmt)
        entry = _NODES[id(stmt)] = (stmt, node)
    node = entry[1]
    cls = factory_for(node, names, filename, globals_, qualname, flags)(*bases)
    _LOCAL.add(cls)
    for value in vars(cls).values():
        fn = value.fget if isinstance(value, property) else getattr(value, "__func__", value)
        if isinstance(fn, types.FunctionType):
            _LOCAL.add(fn)
    return cls


def read_by_other_scopes(tree: Any, name: str) -> bool:
    """Whether a nested function, lambda, class or generator expression of
    ``tree`` other than the class or function ``name`` itself reads ``name``
    from the function (its cell): what may read the cell after the call
    returns. (A list, set or dict comprehension reads it only while it runs;
    a recursive nested ``def`` reads its own cell only when called, and a
    function that leaves the call is refused where it leaves.)"""
    def visit(node: Any) -> bool:
        for child in gast.iter_child_nodes(node):
            if isinstance(child, (gast.ClassDef, gast.FunctionDef, gast.AsyncFunctionDef)) and child.name == name:
                continue
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)) \
                    and name in free_names(child):
                return True
            if isinstance(child, gast.GeneratorExp) and any(   # (every name it reads: an over-approximation)
                    isinstance(n, gast.Name) and n.id == name for n in gast.walk(child)):
                return True
            if visit(child):
                return True
        return False

    return visit(tree)


def escapes(x: Any) -> bool:
    """``x`` is a class made at trace time, one of its functions, a method
    bound to them, or an instance of it: eager makes them anew per call."""
    if isinstance(x, types.MethodType):
        return escapes(x.__func__) or escapes(x.__self__)
    try:
        if isinstance(x, (type, types.FunctionType)) and x in _LOCAL:
            return True
    except TypeError:
        return False
    return type(x) in _LOCAL
