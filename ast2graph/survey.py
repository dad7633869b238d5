"""Survey mode: the report as the compiler's own abstract interpreter (issue 17).

Requires: a ``.py`` file (parsed, never imported: no decorator, default
expression, class body, ``__init__`` or module-level statement of the
user's runs); ``typeinfer.specialize`` (the same abstract interpreter
``to_static`` runs) and ``api.StaticFunction`` (only its conversion: unit,
whole-function reasons; it is never called). The caller (``report``) holds
``installed_libraries_only`` and a deep stack.
Produces: ``survey_function(path, qualname) -> list[ReportSite]`` and
``survey_file(path, qualname=None, text=None) -> list[FunctionReport]``
(every module-level function and method of a module-level class; a nested
``outer.<locals>.f`` when named): the sites where ``to_static`` falls back,
found by running typeinfer's ``specialize`` on abstract arguments segment by
segment as ``runtime.block.Block`` does at run time, recording each ``GraphBreak``
instead of running the statement, and going on with the statement's results
as placeholder values. Also the known-library import resolution
(``KNOWN_ROOTS``, ``import_bindings``, ``load_import``).
Invariants: the user's code is never executed. A function is rebuilt from
its own ``def`` with decorators, defaults and annotations stripped (a
"source-only function": compiling a ``def`` runs nothing); a class from its
methods compiled in a ``class C:`` skeleton, ``self`` an object whose
attributes are what ``__init__`` assigns, read from the source; all in a
synthetic globals namespace: known libraries, literal module constants, the
module's other functions and classes made the same way, and a placeholder
array for any other module-level name. The parameters' kinds are searched
(``_Search``: arrays first; a kind eager itself would raise under is refuted;
a parameter whose value a site needs is tried as a Python int, a count as a
traced 0-d array): a site of the kinds eager accepts is ``always``; one that
appears or vanishes under another assumption, or where eager raises, is
``depends`` (its cause names both assumptions). See docs/design-survey.md.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import importlib
import os
import re
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import gast
import jax
import jax.numpy as jnp
import numpy as np

from .fallback.control import escapes, splittable
from .fallback.sites import FallbackCode, FallbackSite, GraphBreak
from .findings import ALWAYS, DEPENDS, FunctionReport, ReportError, ReportSite, installed_libraries_only, on_deep_stack
from .survey_instances import init_attributes, module_value

STAGE = "report"   # the stage named by the report's sites (docs/fallback-codes.md: the JSON schema)
_PLACEHOLDER_SIDE = 4   # the placeholder shape's side: small, and not 1 (no accidental broadcasting of size 1)


# ================================================================ assumptions
@dataclass(frozen=True)
class Kind:
    """What an unannotated parameter without a literal default may be taken to be."""

    name: str          # said in a site's cause
    make: Callable[[], Any]
    array: bool = True


def _layer(*args: Any, **kwargs: Any) -> Any:
    """The stand-in of an object the survey cannot build that the function
    calls (``self.embed = nnx.Linear(d_in, d, rngs=rngs)``, its arguments
    unknown; a callable parameter ``fn(*args)``): a layer returning its
    first input (what it does runs in the user's run; the survey lists the
    sites of the function around it)."""
    return args[0] if args else None


def _array(shape: tuple, numpy: bool = False) -> Callable[[], Any]:
    return (lambda: np.ones(shape, np.float64)) if numpy else (lambda: jnp.ones(shape, jnp.float32))


_SQUARE = (_PLACEHOLDER_SIDE, _PLACEHOLDER_SIDE)
KINDS = (
    Kind("a float32 jax.Array of shape (4, 4)", _array(_SQUARE)),
    Kind("a float32 jax.Array of shape (4,)", _array((_PLACEHOLDER_SIDE,))),
    Kind("a float64 NumPy array of shape (4,)", _array((_PLACEHOLDER_SIDE,), numpy=True)),
    Kind("a float64 NumPy array of shape (4, 4)", _array(_SQUARE, numpy=True)),
    Kind("a Python int", lambda: 2, False),
    Kind("a Python float", lambda: 0.5, False),
    Kind("a jax.random key", lambda: jax.random.PRNGKey(0)),
    Kind("a float32 jax.Array of shape ()", _array(())),
    Kind("a dict of float32[4] jax.Arrays", lambda: {}, False),      # keys filled per function (_Search.make)
    Kind("a list of float32[4] jax.Arrays", lambda: [jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32)], False),
    Kind("a Python str", lambda: "s", False),                         # the literal compared with, per function
    Kind("an int32 jax.Array of shape (4,)", lambda: jnp.arange(_PLACEHOLDER_SIDE, dtype=jnp.int32)),
    Kind("an int32 jax.Array of shape ()", lambda: jnp.int32(3)),
    Kind("a context manager", contextlib.nullcontext, False),      # a parameter used as ``with p:``
    Kind("an int64 NumPy array of rows", lambda: np.ones((_PLACEHOLDER_SIDE, 2), np.int64)),   # width per function
    Kind("a layer (a callable object returning its input)", lambda: _layer, False),
    Kind("a list of layers", lambda: [_layer, _layer], False),
    # ``a, b, c = p``: as many float32 elements as the targets (per function: _Search.make)
    Kind("a float32 jax.Array of as many elements as it is unpacked into", _array((3,))),
    # the integer arrays of the float kinds (``_INTEGER_OF``): a site may hinge on the dtype
    Kind("an int32 jax.Array of shape (4, 4)", lambda: jnp.ones(_SQUARE, jnp.int32)),
    Kind("an int64 NumPy array of shape (4,)", lambda: np.ones((_PLACEHOLDER_SIDE,), np.int64)),
    Kind("an int64 NumPy array of shape (4, 4)", lambda: np.ones(_SQUARE, np.int64)),
    # the NumPy array of the 0-d kind (``_NUMPY_OF``): an in-place write may hinge on the array's library
    Kind("a float64 NumPy array of shape ()", lambda: np.ones((), np.float64)),
    # a parameter handed to jax.tree_util's functions (``_pytree_params``): a container of arrays
    Kind("a dict of jax.Arrays (a pytree)", lambda: {"a": jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32),
                                                     "b": jnp.ones(_SQUARE, jnp.float32)}, False),
)
_PYTREE = 22
_DICT, _LIST, _STR, _INT_ARRAY, _INT_SCALAR, _CM, _ROWS, _LAYER, _LAYERS, _UNPACKED = range(8, 18)
_ARRAY_KINDS = frozenset({0, 1, 2, 3, 7, 11, 17, 18, 19, 20, 21})
_INTEGER_OF = {0: 18, 1: 11, 7: 12, 2: 19, 3: 20}   # a float array kind -> the integer array of its shape
_NUMPY_OF = {0: 3, 1: 2, 7: 21, 11: 19, 18: 20}   # a jax.Array kind -> the NumPy array of its shape and kind
_DICT_ATTRS = frozenset({"items", "keys", "values", "get", "setdefault", "update", "pop"})
_LIST_ATTRS = frozenset({"append", "extend", "insert", "remove", "sort", "reverse", "index", "count"})
_INT, _FLOAT, _KEY, _SCALAR = 4, 5, 6, 7
_KEY_NAMES = ("key", "rng", "prng", "prng_key", "rng_key", "subkey")
# the next kinds to try for a parameter eager refuted: named in the statement that
# raised (any kind), or not named (an array of another shape or kind only)
_NEXT_NAMED = {0: 7, 7: 4, 4: 5, 5: 1, 1: 2, 2: 3, 6: 0, 11: 4}
_NEXT_UNNAMED = {0: 1, 1: 2, 2: 3}
_LOWER_RANK = {0: 1, 3: 2}
# a join's shape change hinging on the placeholders' shapes (``_Search.shapes``): one rank lower, or 0-d
_LOWER_SHAPE = {0: 1, 3: 2, 18: 11, 20: 19}
_TO_SCALAR = {0: 7, 1: 7, 2: 7, 3: 7, 18: 12, 11: 12}
_MAX_SHAPE_TRIES = 4   # parameters tried one by one (each try is a survey of the function)
_BROADCASTS = {0: 1, 3: 2, 1: 7, 2: 7}   # down in rank to a 0-d array, which broadcasts with any shape
_SHAPE_WORDS = re.compile(r"broadcast|[Ii]ncompatible shapes")
_AS_NUMPY = {0: 3, 1: 2}
_NUMPY_ONLY = ("immutable", "non-tuple sequence", "item assignment", "out= a jax.Array")
_TRACER_WORDS = ("racer", "oncrete", "bstract", "traced")
# a message naming the compiler's own stand-ins of traced values (an f-string of traced values, an IR value):
# the trace was refused, not eager's values
_STANDIN_TYPES = re.compile(r"'(DeferredStr|Value)' (object )?has no")
# a traced Python number named in a library's message (``integer_pow(~int64[], -1)``): eager's is a Python
# number, which that library function never sees
_PYTHON_NUMBER = re.compile(r"~(?:int|uint|float|complex|bool)\d*\[")
_INTEGER_WORDS = re.compile(r"indices must be of integer type|must be of integer dtype|integer type, got float")
_BAD_INDEX = ("Indexer must have integer", "only integers, slices", "indices must be integers")
MAX_ROUNDS = 12


class _Unknown:
    """A module-level name whose value the report cannot know without running the module."""


def _annotation_value(node: ast.AST | None, env: dict) -> tuple[bool, Any]:
    """A stand-in value for a parameter annotated ``node`` (False: no rule)."""
    if node is None:
        return False, None
    text = ast.unparse(node)
    head = text.split("[")[0].strip()
    base = head.rsplit(".", 1)[-1]
    scalars = {"int": 2, "float": 0.5, "bool": True, "str": "s", "complex": 0.5 + 0.5j}
    if head in scalars:
        return True, scalars[head]
    if base in ("ndarray", "NDArray"):
        return True, np.ones((_PLACEHOLDER_SIDE, _PLACEHOLDER_SIDE), np.float32)
    if base in ("Array", "ArrayLike", "Float", "Int", "Bool", "Shaped", "Num", "Real", "Inexact", "Integer"):
        return True, jnp.ones((_PLACEHOLDER_SIDE, _PLACEHOLDER_SIDE), jnp.int32 if base in ("Int", "Integer")
                              else jnp.bool_ if base == "Bool" else jnp.float32)
    return False, None


def _literal(node: ast.AST | None) -> tuple[bool, Any]:
    if node is None:
        return False, None
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


# ========================================================= synthetic globals
class SyntheticModule:
    """The file's module namespace as far as it is known without running it."""

    def __init__(self, path: str, tree: ast.Module, text: str | bytes | None = None):
        self.path = path
        self.tree = tree
        self.text = text   # the source ``tree`` was parsed from (the key of what is kept per file)
        self.globals: dict[str, Any] = {"__name__": "__a2g_survey__", "__file__": path, "__builtins__": builtins}
        self.defs: dict[str, ast.FunctionDef] = {}
        self.classes: dict[str, RebuiltClass] = {}
        self.methods: dict[str, RebuiltClass] = {}   # "C.m" -> its class
        self._bind(tree.body)

    def _bind(self, body: list) -> None:
        for stmt in _module_statements(body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for name, target in import_bindings(stmt).items():
                    ok, value = load_import(target)
                    self.globals[name] = value if ok else _Unknown()
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt in self.tree.body:
                self.defs[stmt.name] = stmt
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                ok, value = _literal(stmt.value)
                if not ok and stmt.value is not None and all(isinstance(t, ast.Name) for t in targets):
                    ok, value = module_value(stmt.value, self.globals, KNOWN_ROOTS, _Unknown)
                for t in targets:
                    if isinstance(t, ast.Name):
                        # a literal assigned once; a name assigned twice may hold either value: a placeholder
                        once = ok and t.id not in self.globals
                        self.globals[t.id] = value if once else jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32)
        for name, node in self.defs.items():
            self.globals[name] = self.source_only(node) if isinstance(node, ast.FunctionDef) else _Unknown()
        for stmt in self.tree.body:
            if isinstance(stmt, ast.ClassDef):
                self.rebuild_class(stmt)

    def rebuild_class(self, node: ast.ClassDef) -> None:
        """The class ``node`` rebuilt without running its body: its methods
        are source-only functions compiled inside a ``class C:`` skeleton (so
        ``co_qualname`` and the ``__class__`` cell are the real ones), its
        literal class attributes are values, its bases the rebuilt classes of
        the file it names (others are dropped). Instances are made by
        ``RebuiltClass.instance`` (``__init__`` never runs)."""
        methods = [s for s in node.body if isinstance(s, ast.FunctionDef)]
        for s in node.body:   # an async method is listed (to_static refuses it), never rebuilt
            if isinstance(s, ast.AsyncFunctionDef):
                self.defs[f"{node.name}.{s.name}"] = s
        skeleton = ast.ClassDef(node.name, [], [], [_stripped(m) for m in methods] or [ast.Pass()], [],
                                **({"type_params": []} if "type_params" in ast.ClassDef._fields else {}))
        ast.copy_location(skeleton, node)
        ast.fix_missing_locations(skeleton)
        imports = [s for s in _module_statements(self.tree.body) if isinstance(s, (ast.Import, ast.ImportFrom))]
        try:
            code = compile(ast.Module(imports + [skeleton], type_ignores=[]), self.path, "exec", dont_inherit=True)
        except SyntaxError:
            return
        body = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
        namespace: dict[str, Any] = {}
        for stmt in node.body:   # literal class attributes
            if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
                ok, value = _literal(stmt.value)
                for t in stmt.targets:
                    if ok:
                        namespace[t.id] = value
        class_cell = types.CellType()
        for m in methods:
            own = next((c for c in body.co_consts if isinstance(c, types.CodeType) and c.co_name == m.name
                        and c.co_firstlineno == _stripped(m).lineno), None)
            if own is None:
                continue
            cells = tuple(class_cell for _ in own.co_freevars) or None   # only ``__class__`` is free in a method
            fn = types.FunctionType(own, self.globals, m.name, None, cells)
            fn.__qualname__ = f"{node.name}.{m.name}"
            fn.__defaults__ = tuple(_default_value(d) for d in m.args.defaults) or None
            fn.__kwdefaults__ = {a.arg: _default_value(d) for a, d in zip(m.args.kwonlyargs, m.args.kw_defaults)
                                 if d is not None} or None
            wrapper = _method_wrapper(m)
            namespace[m.name] = wrapper(fn) if wrapper else fn
            self.defs[f"{node.name}.{m.name}"] = m
        bases = tuple(base for base in map(self.base_class, node.bases) if base is not None)
        namespace["__a2g_rebuilt__"] = True   # the survey may set attributes on its objects (``_write_back``)
        try:
            cls = type(node.name, bases, namespace)
        except TypeError:
            return
        class_cell.cell_contents = cls
        bases = [self.classes[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in self.classes]
        rebuilt = RebuiltClass(node, cls, init_attributes(node, bases, self.globals, self.classes,
                                                           KNOWN_ROOTS, _Unknown))
        self.classes[node.name] = rebuilt
        self.globals[node.name] = cls
        for m in methods:
            self.methods[f"{node.name}.{m.name}"] = rebuilt

    def filled_by_others(self, qualname: str) -> set[str]:
        """The module-level containers bound to a literal (``REGISTRY = {}``)
        that code other than ``qualname``'s own top-level def or class
        writes into (``REGISTRY[name] = fn`` in a decorator, a module-level
        ``.append``): their contents are not the literal's when the function
        runs, and the survey, which runs none of that code, cannot know them."""
        own = qualname.split(".")[0]
        return set().union(*(written for name, written in self._container_writes() if name != own))

    def _container_writes(self) -> list[tuple[str | None, frozenset[str]]]:
        """Per top-level statement, its name (a def's or class's) and the
        module-level literal containers it writes into (``filled_by_others``):
        a function of the file's text alone, computed once per text (the
        report surveys a file's functions one by one)."""
        key = (self.path, self.text)
        if self.text is not None and key in _CONTAINER_WRITES:
            return _CONTAINER_WRITES[key]
        containers = {t.id for stmt in self.tree.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
                      and isinstance(stmt.value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp))
                      for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                      if isinstance(t, ast.Name)}
        out = []
        for stmt in self.tree.body:
            local = set().union(*(_locals_of(f) for f in ast.walk(stmt)   # (a method's own locals too)
                                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))))
            out.append((getattr(stmt, "name", None), frozenset((_written_into(stmt) & containers) - local)))
        if self.text is not None:
            if len(_CONTAINER_WRITES) >= 16:
                _CONTAINER_WRITES.pop(next(iter(_CONTAINER_WRITES)))
            _CONTAINER_WRITES[key] = out
        return out

    def base_class(self, node: ast.expr) -> type | None:
        """The class a base of a class statement names, when the survey can
        have it without running anything: a rebuilt class of the file, or a
        builtin exception class (``class DataError(Exception)``: raising and
        catching it needs the real base; an exception class's creation runs
        no user code). Others are dropped."""
        if not isinstance(node, ast.Name):
            return None
        if node.id in self.classes:
            return self.classes[node.id].cls
        builtin = getattr(builtins, node.id, None)
        if node.id not in self.globals and isinstance(builtin, type) and issubclass(builtin, BaseException):
            return builtin
        return None

    def nested_def(self, qualname: str) -> ast.FunctionDef | None:
        """The ``def`` of ``outer.<locals>.name`` (``outer`` a module-level function or a method)."""
        outer, sep, name = qualname.rpartition(".<locals>.")
        node = self.defs.get(outer)
        if not sep or "." in name or not isinstance(node, ast.FunctionDef):
            return None
        return next((s for s in _own_statements(node.body) if isinstance(s, ast.FunctionDef) and s.name == name),
                    None)

    def nested_function(self, qualname: str, node: ast.FunctionDef) -> Any:
        """A nested function made from its code object in the enclosing
        source-only function, as the enclosing call would make it, without
        running the enclosing function: its free variables in cells holding
        the values the enclosing body assigns them as literals (a Python
        float otherwise); literal defaults; decorators not applied."""
        outer_name = qualname.rpartition(".<locals>.")[0]
        outer = self.function(outer_name)
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        code = next((c for c in outer.__code__.co_consts if isinstance(c, types.CodeType)
                     and c.co_name == node.name and c.co_firstlineno == first), None)
        if code is None:
            raise ReportError(f"{self.path}: {qualname!r}: its code was not found in the enclosing function")
        literals = _literal_locals(self.defs[outer_name])
        # an unknown free variable: a Python float (a hyper-parameter, most often; broadcasts with any shape)
        cells = tuple(types.CellType(literals.get(v, 0.5)) for v in code.co_freevars) or None
        fn = types.FunctionType(code, self.globals, node.name, None, cells)
        fn.__defaults__ = tuple(_default_value(d) for d in node.args.defaults) or None
        return fn

    def function(self, qualname: str) -> Any:
        """The source-only function of ``qualname`` (a method: the plain function in its rebuilt class)."""
        if ".<locals>." in qualname:
            return self.nested_function(qualname, self.nested_def(qualname))
        if qualname in self.methods:
            raw = self.methods[qualname].cls.__dict__[qualname.rsplit(".", 1)[1]]
            return getattr(raw, "__func__", getattr(raw, "fget", raw))
        return self.globals[qualname]

    def source_only(self, node: ast.FunctionDef) -> types.FunctionType:
        """The ``def`` compiled without decorators, annotations or non-literal
        defaults, and made into a function without running any code: the
        module compiled holds the file's imports (CPython compiles a method
        call on an imported module differently) and the stripped def; its
        code object is taken from the module's constants, the module code is
        never run. Its first line is the decorated def's (``co_firstlineno``),
        so ``parse_function`` finds and checks the real text."""
        stripped = _stripped(node)
        imports = [s for s in _module_statements(self.tree.body) if isinstance(s, (ast.Import, ast.ImportFrom))]
        code = compile(ast.Module(imports + [stripped], type_ignores=[]), self.path, "exec", dont_inherit=True)
        own = next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == node.name)
        fn = types.FunctionType(own, self.globals, node.name)
        fn.__defaults__ = tuple(_default_value(d) for d in node.args.defaults) or None
        fn.__kwdefaults__ = {a.arg: _default_value(d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults)
                             if d is not None} or None
        return self.decorated(fn, node)

    def decorated(self, fn: Any, node: ast.FunctionDef) -> Any:
        """``fn`` under its decorators when every one is a known library's
        object named plainly (``@contextlib.contextmanager``, ``@jax.jit``):
        applying those runs library code only. Otherwise undecorated."""
        found = [self.library_object(d) for d in node.decorator_list]
        if not found or any(d is None for d in found):
            return fn
        for decorator in reversed(found):
            try:
                fn = decorator(fn)
            except Exception:  # noqa: BLE001 - a library refusing the stand-in: keep it plain
                return fn
        return fn

    def library_object(self, node: ast.expr) -> Any:
        """The object a ``name`` or ``name.attr...`` decorator names, when it comes from a known library."""
        chain: list[str] = []
        while isinstance(node, ast.Attribute):
            chain.insert(0, node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.globals:
            return None
        obj = self.globals[node.id]
        for attr in chain:
            obj = getattr(obj, attr, None)
        module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
        return obj if callable(obj) and str(module).split(".")[0] in KNOWN_ROOTS else None


_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "pop", "popitem", "clear", "add",
                       "discard", "remove", "sort", "reverse", "__setitem__", "__delitem__"})


def _written_into(node: ast.AST) -> set[str]:
    """Names whose object ``node``'s code writes into: ``G[k] = v``, ``del
    G[k]``, ``G.append(v)`` (a mutating method), ``G += v``."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)) and isinstance(n.value, ast.Name):
            out.add(n.value.id)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS \
                and isinstance(n.func.value, ast.Name):
            out.add(n.func.value.id)
        elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
    return out


def _locals_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The names a function (and the functions nested in it) binds locally: not declared ``global``."""
    declared = {name for n in ast.walk(fn) if isinstance(n, ast.Global) for name in n.names}
    bound = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(fn) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for a in n.args.posonlyargs + n.args.args + n.args.kwonlyargs}
    return bound - declared


def _own_statements(body: list) -> Iterator[ast.stmt]:
    """The statements of a function body, not those of the functions or classes nested in it."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.stmt):
                    yield from _own_statements([child])
                elif isinstance(child, (ast.excepthandler, ast.match_case)):
                    yield from _own_statements(child.body)


def _literal_locals(fn: ast.FunctionDef) -> dict[str, Any]:
    """The local names a function assigns exactly once, a literal (``count = 0``)."""
    seen: dict[str, list] = {}
    for stmt in _own_statements(fn.body):
        for n in ast.walk(stmt) if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                seen.setdefault(n.id, []).append(stmt)
    out = {}
    for name, stmts in seen.items():
        stmt = stmts[0]
        if len(stmts) == 1 and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and \
                isinstance(stmt.targets[0], ast.Name):
            ok, value = _literal(stmt.value)
            if ok:
                out[name] = value
    return out


def _method_wrapper(node: ast.FunctionDef) -> Callable | None:
    """``staticmethod``/``classmethod``/``property`` when the method is decorated by that builtin alone."""
    names = [d.id for d in node.decorator_list if isinstance(d, ast.Name)]
    if len(names) == 1 == len(node.decorator_list) and names[0] in ("staticmethod", "classmethod", "property"):
        return getattr(builtins, names[0])
    return None


@dataclass
class RebuiltClass:
    """A class of the file rebuilt without running its body, and what its
    ``__init__`` assigns to ``self`` (``survey_instances``: its body run
    abstractly): an attribute name -> ``(True, value)`` for a known value,
    ``("object", RebuiltClass)`` for an object of a class of the file,
    ``(False, kind)`` for anything else, whose kind the search decides (a
    pseudo-parameter ``self.NAME``)."""

    node: ast.ClassDef
    cls: type
    attributes: dict[str, tuple[Any, Any]]

    def instance(self, make: Callable[[str, int], Any], kinds: dict[str, int], self_name: str,
                 depth: int = 0) -> Any:
        """An object of the class, ``__init__`` not run: its attributes set as the search assumes
        (an object of another class of the file made the same way, its kinds ``self.a.b``)."""
        obj = self.cls.__new__(self.cls) if issubclass(self.cls, BaseException) else object.__new__(self.cls)
        for attr, (known, value) in self.attributes.items():
            key = f"{self_name}.{attr}"
            if known == "object":
                if depth < _MAX_OBJECT_DEPTH:
                    obj.__dict__[attr] = value.instance(make, kinds, key, depth + 1)
            elif known:
                obj.__dict__[attr] = value
            else:
                kinds.setdefault(key, value)
                obj.__dict__[attr] = make(key, kinds[key])
        return obj


_MAX_OBJECT_DEPTH = 4   # objects holding objects of the file's classes (a class holding its own kind stops)


def _default_value(node: ast.expr) -> Any:
    ok, value = _literal(node)
    return value if ok else None


# ============================================================ known libraries
KNOWN_ROOTS = frozenset({
    "numpy", "jax", "math", "cmath", "time", "random", "logging", "os", "sys",
    "warnings", "operator", "functools", "itertools", "builtins", "contextlib", "flax", "optax", "equinox",
    # the standard library's containers and helpers (importing them runs no user code)
    "collections", "heapq", "bisect", "copy", "dataclasses", "typing", "enum", "statistics", "string", "re",
    "numbers", "abc", "fractions", "decimal",
})


def _module_statements(body: list) -> Iterator[ast.stmt]:
    """Top-level statements, including those nested in module-level if/try/with."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.stmt):
                    yield from _module_statements([child])
                elif isinstance(child, (ast.excepthandler, ast.match_case)):
                    yield from _module_statements(child.body)


def import_bindings(stmt: ast.Import | ast.ImportFrom) -> dict[str, tuple[str, tuple[str, ...]]]:
    """name -> (module, attributes) each alias of an import binds (relative/star: none)."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    if isinstance(stmt, ast.Import):
        for a in stmt.names:
            top = a.name.split(".")[0]
            out[a.asname or top] = (a.name, ()) if a.asname else (top, ())
    elif not stmt.level and stmt.module:
        for a in stmt.names:
            if a.name != "*":
                out[a.asname or a.name] = (stmt.module, (a.name,))
    return out


def load_import(target: tuple[str, tuple[str, ...]]) -> tuple[bool, object]:
    """The object an import binds, for well-known library modules only (imported
    from the installed environment: the caller holds ``installed_libraries_only``)."""
    module, attrs = target
    if module.split(".")[0] not in KNOWN_ROOTS:
        return False, None
    try:
        obj = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - a broken optional library is just unknown
        return False, None
    if attrs:
        found = getattr(obj, attrs[0], _MISSING)
        if found is not _MISSING:
            return True, found
        try:
            return True, importlib.import_module(f"{module}.{attrs[0]}")
        except Exception:  # noqa: BLE001
            return False, None
    return True, obj


_MISSING = object()


def _stripped(node: ast.FunctionDef) -> ast.FunctionDef:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    new = ast.FunctionDef(node.name, _stripped_args(node.args), node.body, [], None, node.type_comment,
                          **({"type_params": []} if "type_params" in ast.FunctionDef._fields else {}))
    ast.copy_location(new, node)
    new.lineno = first
    return new


def _stripped_args(args: ast.arguments) -> ast.arguments:
    def plain(a: ast.arg) -> ast.arg:
        return ast.copy_location(ast.arg(a.arg, None, None), a)

    def default(d: ast.expr | None) -> ast.expr | None:
        if d is None:
            return None
        ok, _ = _literal(d)
        return d if ok else ast.copy_location(ast.Constant(None), d)

    return ast.arguments([plain(a) for a in args.posonlyargs], [plain(a) for a in args.args],
                         plain(args.vararg) if args.vararg else None, [plain(a) for a in args.kwonlyargs],
                         [default(d) for d in args.kw_defaults], plain(args.kwarg) if args.kwarg else None,
                         [default(d) for d in args.defaults])


# =============================================================== the survey
@dataclass
class _Found:
    sites: list[FallbackSite] = field(default_factory=list)

    def add(self, site: FallbackSite) -> None:
        if not any((s.code, s.loc.line, s.cause) == (site.code, site.loc.line, site.cause) for s in self.sites):
            self.sites.append(site)


def _arguments(node: ast.FunctionDef, kinds: dict[str, int], env: dict,
               make: Callable[[str, int], Any] | None = None, fixed: dict | None = None) -> dict[str, Any]:
    """Abstract arguments from the def's annotations and literal defaults,
    otherwise the assumption's placeholder (``fixed``: given, a method's ``self``)."""
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    out: dict[str, Any] = dict(fixed or {})
    for a, d in list(zip(positional, defaults)) + list(zip(args.kwonlyargs, args.kw_defaults)):
        if a.arg in out:
            continue
        ok, value = _annotation_value(a.annotation, env)
        given, default = _literal(d)
        if given and (not ok or type(default) is type(value) or type(value) is float and type(default) is int):
            ok, value = True, default   # ``s: float = -1.0``: the default a call without ``s`` gets, as unannotated
        if ok:
            out[a.arg] = value
        else:
            kinds.setdefault(a.arg, _KEY if a.arg.lower() in _KEY_NAMES or a.arg.endswith("_key") else 0)
            out[a.arg] = make(a.arg, kinds[a.arg]) if make is not None else KINDS[kinds[a.arg]].make()
    if args.vararg:
        out[args.vararg.arg] = ()
    if args.kwarg:
        out[args.kwarg.arg] = {}
    return out


def _may_raise(site: FallbackSite) -> bool:
    """An A2G008 site where eager only *may* raise (a check a ``try`` around
    it could catch, which the graph cannot raise): not evidence that eager
    raises on the kinds assumed, and a fallback whatever the data."""
    return site.code is FallbackCode.TRACE_ERROR and "(eager may raise" in site.cause


def _raises_eagerly(site: FallbackSite) -> bool:
    """Eager raises at ``site`` (A2G008) or a library raised on the placeholders (``_raised``); not
    where the compiler's own stand-in of a traced value was refused (eager's value is no such object)."""
    if _STANDIN_TYPES.search(site.cause):
        return False
    return site.code is FallbackCode.TRACE_ERROR and not _may_raise(site) or _raised(site) or \
        _converts_non_scalar(site) is not None


# ``float(x)``, ``int(x)``, ``math.floor(x)``, ``x.item()`` of an array of more than one element (typeinfer's
# ``python_number``: "float() of f32[4]: ...") raise in eager whatever the values (TypeError; ValueError for .item())
_CONVERSION = re.compile(r"^(int|float|complex|math\.\w+|\.item)\(\) of [a-z]+\d*\[([\d,]+)\]")


def _converts_non_scalar(site: FallbackSite) -> str | None:
    """The exception eager raises at a conversion to a Python number of an
    array of more than one element (its shape is the placeholders'); None for any other site."""
    m = _CONVERSION.match(site.cause)
    if m is None or int(np.prod([int(d) for d in m.group(2).split(",") if d])) == 1:
        return None
    return "ValueError" if m.group(1) == ".item" else "TypeError"


def _eager_raises(e: GraphBreak) -> bool:
    """Eager itself would raise at this break under the kinds assumed (so
    they are not how the function is called): its exception is known, it is
    an A2G008 site, or a library function raised on the placeholders."""
    if e.site.construct == "raise" or e.site.cause.startswith("raise ") or _may_raise(e.site):
        return False   # the user's own raise: evidence of a path taken, not against the kinds
    if _STANDIN_TYPES.search(e.site.cause):
        return False   # the compiler's own stand-in of a traced value refused: eager's value would not
    return getattr(e, "exc", None) is not None or _raises_eagerly(e.site)


def _raised(site: FallbackSite) -> bool:
    """A library function raised on the placeholders as it would in eager, or
    an attribute the placeholder lacks. (A function that raises on tracers
    only, "on traced arrays (eager passes it its values ...)", or on the
    compiler's own stand-ins of traced values, is a real site under these kinds.)"""
    if " raised " in site.cause and "eager passes it its values" in site.cause:
        # a library refusing tracers is a real site; one refusing the placeholders' shape or dtype
        # (no word of tracers or concreteness in its message) would refuse eager's values alike
        message = site.cause.split(" on traced arrays")[0]
        # an attribute the placeholder lacks, or calling it (eager's array is no more callable than a tracer)
        return "has no attribute" in message or "is not callable" in message or \
            not any(w in message for w in _TRACER_WORDS) and not _PYTHON_NUMBER.search(message)
    return " raised " in site.cause or "does not have it" in site.cause or \
        site.code is FallbackCode.INTERNAL_ERROR or re.search(r"range\(\) of a traced [fc]\d", site.cause) is not None


def _compared_strings(fn: ast.FunctionDef) -> dict[str, str]:
    """Parameters compared with a string literal (``mode == "tanh"``, ``match
    mode: case "relu"``) -> the first such literal: taken for a str."""
    params = {a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs}
    out: dict[str, str] = {}
    for n in ast.walk(fn):
        if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name) and n.left.id in params:
            lit = next((c.value for c in n.comparators
                        if isinstance(c, ast.Constant) and isinstance(c.value, str)), None)
            if lit is not None:
                out.setdefault(n.left.id, lit)
        elif isinstance(n, ast.Match) and isinstance(n.subject, ast.Name) and n.subject.id in params:
            lit = next((c.pattern.value.value for c in n.cases if isinstance(c.pattern, ast.MatchValue)
                        and isinstance(c.pattern.value, ast.Constant) and isinstance(c.pattern.value.value, str)), None)
            if lit is not None:
                out.setdefault(n.subject.id, lit)
    return out


_SHAPES = {k: tuple(np.shape(kind.make())) for k, kind in enumerate(KINDS) if kind.array}


def _of_shape(cause: str, params: set[str], kinds: dict[str, int]) -> set[str]:
    """The parameters among ``params`` whose placeholder (of ``kinds``) has
    the shape ``cause`` names ("an array of shape (4, 4)")."""
    m = re.search(r"of shape \(([\d, ]*)\)", cause)
    if m is None:
        return set()
    shape = tuple(int(d) for d in m.group(1).replace(" ", "").split(",") if d)
    return {p for p in params if _SHAPES.get(kinds[p]) == shape}


def _needs_value(site: FallbackSite) -> bool:
    """A site that needs a traced value as a Python value (a Python number there would be static)."""
    # (recursion too deep to unroll: its end is decided by a value, static when a Python number)
    if site.cause.startswith(_IDENTITY):   # ``y is x`` needs objects, not values: nothing says a number is meant
        return False
    return site.code in (FallbackCode.CONCRETE_VALUE, FallbackCode.RECURSION) or "needs its value" in site.cause or \
        "looks at a traced array" in site.cause


_IDENTITY = "whether two traced values are one object"   # (typeinfer.kinds: ``is`` of traced values)


def _counts(node: ast.FunctionDef) -> set[str]:
    """Names given directly to ``range()`` or compared with a ``len(...)``
    (``while len(xs) < n``: a length bound, which the compiler rolls into a
    bounded loop when ``n`` is a Python int): taken for Python ints first
    (``traced_counts`` then tries them as traced 0-d arrays: ``depends``)."""
    ranged = {a.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id == "range" for a in n.args if isinstance(a, ast.Name)}
    return ranged | {other.id for n in ast.walk(node) if isinstance(n, ast.Compare) and len(n.ops) == 1
                     for one, other in ((n.left, n.comparators[0]), (n.comparators[0], n.left))
                     if _is_len(one) and isinstance(other, ast.Name)}


def _counts_passed(node: ast.FunctionDef, helpers: dict[str, ast.FunctionDef]) -> set[str]:
    """Names ``node`` passes, as they are, to a parameter that a module-level
    function it calls takes for a count (``_counts`` of that function: ``for
    start in range(0, x.shape[0], size)`` in ``batches(x, size)``)."""
    out: set[str] = set()
    for call in ast.walk(node):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in helpers) \
                or helpers[call.func.id] is node:
            continue
        callee = helpers[call.func.id]
        counts = _counts(callee)
        params = [a.arg for a in callee.args.posonlyargs + callee.args.args]
        pairs = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg is not None]
        out |= {arg.id for param, arg in pairs if param in counts and isinstance(arg, ast.Name)}
    return out


_TREE_FUNCTIONS = {"tree_map": 1, "map": 1, "tree_leaves": 0, "leaves": 0, "tree_flatten": 0, "flatten": 0,
                   "tree_structure": 0, "structure": 0, "tree_reduce": 1, "reduce": 1}   # -> the first tree argument


def _pytree_params(node: ast.FunctionDef) -> set[str]:
    """Names ``node`` hands, as they are, to jax.tree_util's functions as a
    tree (``jax.tree_util.tree_map(f, grads)``, ``jax.tree.leaves(params)``):
    taken for a container of arrays first (an array is a tree too, but then
    nobody calls tree_map on it). Not one the function also hands to another
    call (``loss(params, x)``, which may read keys the survey cannot know)."""
    out: set[str] = set()
    elsewhere: set[str] = set()
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func, chain = call.func, []
        while isinstance(func, ast.Attribute):
            chain.insert(0, func.attr)
            func = func.value
        if isinstance(func, ast.Name):
            chain.insert(0, func.id)
        name = chain[-1] if chain else ""
        in_tree = len(chain) > 1 and chain[-2] in ("tree_util", "tree") or len(chain) == 1 and name.startswith("tree_")
        passed = {a.id for a in call.args if isinstance(a, ast.Name)}
        if in_tree and name in _TREE_FUNCTIONS:
            out |= {a.id for a in call.args[_TREE_FUNCTIONS[name]:] if isinstance(a, ast.Name)}
        else:
            elsewhere |= passed
    return out - elsewhere


def _is_len(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
        len(node.args) == 1 and not node.keywords


def _placeholder_of(leaf: Any, count: int = 2) -> Any:
    """A concrete stand-in of a segment's abstract output (a ``Value``) for
    the next segment, of the kind the run reads back: a Python number, a
    NumPy array or a jax.Array of the same shape and dtype."""
    from .ir.core import Value

    if not isinstance(leaf, Value):
        return leaf
    t = leaf.type
    if getattr(t, "python", False) and not t.shape:
        kind = t.dtype.kind
        return True if kind == "b" else count if kind in "iu" else 0.5 + 0.5j if kind == "c" else 0.5
    if getattr(t, "is_extended", False) or not isinstance(t.dtype, np.dtype):
        return jax.random.key(0)
    if getattr(t, "numpy", False):
        return np.ones(t.shape, t.dtype)
    return jnp.ones(t.shape, t.dtype)


def _loads(stmt: Any) -> set[str]:
    """The names a (gast) statement reads."""
    return {n.id for n in gast.walk(stmt) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _mutable_reads(stmt: Any, env: dict) -> set[str]:
    """The names ``stmt`` reads whose values it may change in place (a list,
    a dict, a NumPy array, an object): when the survey does not run it, their
    contents are no longer eager's."""
    immutable = (jax.Array, int, float, complex, bool, str, bytes, type(None), tuple, frozenset, type,
                 types.FunctionType, types.BuiltinFunctionType, types.ModuleType)
    return {x for x in _loads(stmt) if x in env and not isinstance(env[x], immutable)}


def _write_back(spec: Any, parts: tuple, env: dict) -> None:
    """What ``GraphPlan.run`` writes back after a segment, on the survey's own
    stand-ins (placeholders): the new contents of the input lists and dicts
    it wrote (a module-level cache filled by the function), and the attributes
    it set on objects of the file's rebuilt classes. Never on a library's
    objects (the report process must not change them)."""
    from .runtime.plans import write_back_local
    from .typeinfer.boundary import resolve

    try:
        targets = [resolve(env, path) for path in spec.local_writes]
    except Exception:  # noqa: BLE001 - a path the survey's env lacks: nothing to write back
        targets = []
    if targets and isinstance(parts[4], (list, tuple)):
        write_back_local([t for t in targets if type(t) in (list, dict)],
                          [c for t, c in zip(targets, parts[4]) if type(t) in (list, dict)])
    for (obj, attr), value in zip(spec.attr_writes, parts[1] or ()):
        if getattr(type(obj), "__a2g_rebuilt__", False) is True and hasattr(obj, "__dict__"):
            obj.__dict__[attr] = value


def _unknown_for(stmt: Any) -> Any:
    """A stand-in for what an interpreted statement assigns (the run has the real value)."""
    value = getattr(stmt, "value", None)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        kinds = {"int": 2, "len": 2, "round": 2, "float": 0.5, "bool": True, "str": "s"}
        if value.func.id in kinds:
            return kinds[value.func.id]
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "item":
        return 0.5
    return jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32)


class _Surveyor:
    """``runtime.block.Block`` without running anything: segments are specialised on
    abstract inputs; a statement that breaks is recorded and its results
    replaced by stand-ins; an ``if``/``for``/``while`` that breaks is run as
    the run's Python control flow would: each body surveyed as a nested block."""

    def __init__(self, fn: Any, options: Any, caught: Callable[[FallbackSite], bool] = lambda site: False):
        from .runtime.function import StaticFunction

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.static = StaticFunction(fn, options)
        self.unit = self.static._state.unit
        self.options = options
        self.found = _Found()
        self.refuted: list[FallbackSite] = []   # sites where eager itself raises: the assumption is not a real call
        self.caught = caught   # a raise the function's own ``try`` catches: what it expects, never a refutation
        # variables holding the survey's stand-ins (what a statement that broke assigns, a loop's targets, what
        # the bodies of a construct run as Python control flow assign) or values computed from them: a raise
        # that reads one says nothing of the parameters' kinds
        self.standins: set[str] = set()

    def run(self, env: dict[str, Any]) -> list[FallbackSite]:
        if self.static.eager_reason is not None:
            return [self.static.eager_reason]
        self.block(self.unit.tree.body, env, nested=False, depth=0)
        return self.found.sites

    def block(self, stmts: list, env: dict[str, Any], nested: bool, depth: int) -> bool:
        """Survey ``stmts`` from ``env`` (updated); True when every path returned."""
        barriers = [k for k, s in enumerate(stmts) if nested and escapes(s)]
        break_sites: dict[int, FallbackSite] = {}
        i, n = 0, len(stmts)
        while i < n:
            stmt = stmts[i]
            if i in barriers:
                if isinstance(stmt, (gast.Break, gast.Continue)):
                    return False
                self.control(stmt, None, env, depth)
                i += 1
                continue
            stop = next((k for k in barriers if k > i), n)
            outcome = self.segment(stmts, i, stop, env, nested, break_sites)
            if outcome == "return":
                return True
            if isinstance(outcome, int):
                i = outcome
                continue
            site = outcome
            if splittable(stmt):
                self.control(stmt, site, env, depth)
            else:
                self.found.add(site)
                self.standins |= self.unit.ssa.assigned(stmt) | _mutable_reads(stmt, env)
                for name in self.unit.ssa.assigned(stmt):
                    env[name] = self.nested_function(stmt, env) if isinstance(stmt, gast.FunctionDef) \
                        else _unknown_for(stmt)
                if isinstance(stmt, gast.Return):
                    return True
            i += 1
        return False

    def nested_function(self, stmt: Any, env: dict) -> Any:
        """What the run's interpreted ``def`` makes: the nested code object
        of the source-only function, its free variables in cells holding the
        stand-ins (no decorator or default of the user's runs: ``_stripped``
        removed them from the enclosing def's compile, nested defs keep
        theirs, so one with decorators or defaults stays a stand-in array)."""
        if stmt.decorator_list or stmt.args.defaults or any(d is not None for d in stmt.args.kw_defaults):
            return _unknown_for(stmt)
        code = next((c for c in self.static._state.unit.parsed.fn.__code__.co_consts if isinstance(c, types.CodeType)
                     and c.co_name == stmt.name and c.co_firstlineno == stmt.lineno), None)
        if code is None:
            return _unknown_for(stmt)
        cells = tuple(types.CellType(env.get(name, _unknown_for(stmt))) for name in code.co_freevars)
        return types.FunctionType(code, self.static._state.unit.globals, stmt.name, None, cells or None)

    def segment(self, stmts: list, i: int, stop: int, env: dict, nested: bool,
                break_sites: dict) -> Any:
        """Specialise ``stmts[i:stop]`` as the run would: the index the
        segment ended at (its outputs put in ``env``), ``"return"``, or the
        ``FallbackSite`` of statement ``i`` itself."""
        from .runtime.block import hidden_reads
        from .typeinfer.nnx import boundary_leaf
        from .typeinfer.specialize import specialize
        from .graphlib.trees import tree_flatten

        hidden = hidden_reads(self.unit) | set(self.unit.cellvars)
        # a statement whose recursion cut a segment before breaks there again: the segment stops before
        # it, and the statement itself is that site (inlining it again to the same limit takes seconds,
        # for a recursion that doubles under a traced `if`)
        recursed = [k for k, site in break_sites.items() if i <= k < stop and site.code is FallbackCode.RECURSION]
        if recursed and min(recursed) == i:
            return break_sites[i]
        stop = min(recursed, default=stop)
        while True:
            names = sorted(x for x in self.unit.ssa.live_in(stmts[i]) | hidden if x in env)
            values = [env[x] for x in names]
            leaves, treedef = tree_flatten(values, is_leaf=boundary_leaf())
            try:
                spec = specialize(self.unit, stmts, i, stop, names, leaves, treedef, self.options, nested=nested,
                                  structure=values)
                break
            except GraphBreak as e:
                k = e.top_index  # type: ignore[attr-defined]
                if _eager_raises(e) and not self.caught(e.site) and \
                        (not self.found.sites or not nested and self.clean(stmts, i, k)):
                    # (after a site, values may be the survey's stand-ins: a raise that reads one, or one in a
                    # body run as Python control flow, which eager may never reach, says nothing of the kinds)
                    self.refuted.append(e.site)
                if k <= i:
                    return break_sites.get(i, e.site)
                break_sites.setdefault(k, e.site)
                stop = k
        if i in break_sites:   # a split: the run lists the site that cut the segment before it
            self.found.add(break_sites[i])
        if spec.returns:
            return "return"
        # (result, attribute writes, argument writes, cells, input containers' contents, views): as GraphPlan.run
        try:
            parts = jax.tree_util.tree_unflatten(spec.out_treedef, [_placeholder_of(x) for x in spec.out_template])
        except IndexError:   # a list of traced length (``varlist``): its length must fit its buffer
            parts = jax.tree_util.tree_unflatten(spec.out_treedef, [_placeholder_of(x, 0) for x in spec.out_template])
        _write_back(spec, parts, env)
        if isinstance(parts[0], dict):
            env.update(parts[0])
            self.standins = self.standins - set(parts[0]) | self.tainted(stmts, i, spec.end) & set(parts[0])
        for name in spec.deleted:
            env.pop(name, None)
        return spec.end

    def tainted(self, stmts: list, i: int, k: int) -> set[str]:
        """The stand-in variables once ``stmts[i:k]`` have run: those before,
        and what a statement reading one assigns."""
        tainted = set(self.standins)
        for stmt in stmts[i:k]:
            if _loads(stmt) & tainted:
                tainted |= self.unit.ssa.assigned(stmt)
        return tainted

    def clean(self, stmts: list, i: int, k: int) -> bool:
        """Statement ``k`` of the segment starting at ``i`` reads no stand-in."""
        return k < len(stmts) and not _loads(stmts[k]) & self.tainted(stmts, i, k)

    def control(self, stmt: Any, site: FallbackSite | None, env: dict, depth: int) -> None:
        """The run's ``PythonControl``: the construct's head in Python, its bodies as blocks."""
        self.standins |= self.unit.ssa.assigned(stmt) | _mutable_reads(stmt, env)
        if site is not None:
            what = {gast.If: "if", gast.For: "for", gast.While: "while"}[type(stmt)]
            self.found.add(dataclasses.replace(site, loc=self.unit.loc(stmt), construct=what,
                                               cause=f"{site.cause} (line {site.loc.line})"))
        if depth > 8:
            return
        if isinstance(stmt, gast.For):
            iterable = stmt.iter
            counter = isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) and \
                iterable.func.id in ("range", "enumerate")
            for node in gast.walk(stmt.target):
                if isinstance(node, gast.Name):
                    env[node.id] = 2 if counter else jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32)
        bodies = [stmt.body, stmt.orelse] if isinstance(stmt, gast.If) else [stmt.body, stmt.orelse]
        for body in bodies:
            if body:
                self.block(body, env, nested=True, depth=depth + 1)


# ================================================================= the entry
def survey_function(path: str, qualname: str, module: SyntheticModule | None = None) -> list[ReportSite]:
    """The sites of the module-level function or method ``qualname`` of ``path``.

    ReportError when ``qualname`` is neither (nested functions are surveyed
    only as the run meets them, inside their enclosing function)."""
    return on_deep_stack(_survey_isolated, path, qualname, module)


def _survey_isolated(path: str, qualname: str, module: SyntheticModule | None) -> list[ReportSite]:
    with installed_libraries_only(os.path.dirname(os.path.abspath(path))):
        return _survey(path, qualname, module)


def _survey(path: str, qualname: str, module: SyntheticModule | None) -> list[ReportSite]:
    if module is None:
        module = synthetic_module(path)
    node = module.defs.get(qualname) or module.nested_def(qualname)
    if node is None:
        raise ReportError(f"{path}: {qualname!r} is not a module-level function or a method of a module-level "
                          "class (the survey reads only those yet)")
    if isinstance(node, ast.AsyncFunctionDef):   # to_static refuses it (UnsupportedSyntaxError)
        site = FallbackSite(FallbackCode.UNSUPPORTED_SYNTAX, _loc(path, qualname, node), "async def",
                            "async def is refused by to_static: a coroutine cannot be traced into one graph",
                            "to_static refuses the function (UnsupportedSyntaxError); call it without to_static")
        return _classified([site], [])
    search = _Search(module.function(qualname), node, module.globals, path, qualname, module.methods.get(qualname))
    search.filled = module.filled_by_others(qualname)
    search.helpers = {name: d for name, d in module.defs.items() if "." not in name and isinstance(d, ast.FunctionDef)}
    return search.run()


@dataclass
class _Run:
    kinds: dict[str, int]
    sites: list[FallbackSite]
    refuted: list[FallbackSite]


class _Search:
    """The parameters' kinds, searched: start from arrays (or a key), move a
    parameter to another kind when eager itself would raise under the
    current ones (``refuted``), and try a Python number for an array
    parameter named where a site needs a value (A2G003): a site that then
    vanishes is ``depends`` on that parameter, the sites of the last run
    eager accepts are ``always``."""

    def __init__(self, fn: Any, node: ast.FunctionDef, globals_: dict, path: str, qualname: str,
                 owner: RebuiltClass | None = None):
        self.fn, self.node, self.globals, self.path, self.qualname = fn, node, globals_, path, qualname
        self.owner = owner if owner is not None and node.args.args and _method_wrapper(node) is not staticmethod \
            else None
        self.self_name = node.args.args[0].arg if self.owner is not None else None
        self.first_store: dict[str, int] = {}   # variable (or ``self.attr``) -> the first line that assigns it
        for n in ast.walk(node):
            if isinstance(getattr(n, "ctx", None), ast.Store) and _ref(n) is not None:
                self.first_store[_ref(n)] = min(n.lineno, self.first_store.get(_ref(n), n.lineno))
        self.depends: list[ReportSite] = []
        self.filled: set[str] = set()   # module-level containers other code fills (``filled_by_others``)
        self.helpers: dict[str, Any] = {}   # the module's functions by name (``_counts_passed``)
        self.reads = _assignment_reads(node)
        self.keys = sorted({n.slice.value for n in ast.walk(node) if isinstance(n, ast.Subscript)
                            and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)})
        self.strings = _compared_strings(node)
        self.unpacked = {n.value.id: len(n.targets[0].elts) for n in ast.walk(node) if isinstance(n, ast.Assign)
                         and len(n.targets) == 1 and isinstance(n.targets[0], (ast.Tuple, ast.List))
                         and isinstance(n.value, ast.Name)
                         and not any(isinstance(e, ast.Starred) for e in n.targets[0].elts)}
        self.row_width = {n.iter.id: len(n.target.elts) for n in ast.walk(node) if isinstance(n, ast.For)
                          and isinstance(n.iter, ast.Name) and isinstance(n.target, ast.Tuple)}

    def caught(self, site: FallbackSite) -> bool:
        """Eager raises at ``site`` inside a ``try`` of this function whose
        handler catches that exception (``try: if x > 1: ... except
        ValueError``): the function expects the raise for some inputs, so it
        refutes nothing; the graph cannot raise it there, so it is a site."""
        return _caught(self.node, site)

    def raises(self, site: FallbackSite) -> bool:
        """``_raises_eagerly``, but for a raise the function catches itself (``caught``)."""
        return _raises_eagerly(site) and not self.caught(site)

    def make(self, param: str, kind: int) -> Any:
        """The stand-in of ``param`` of ``kind``: a dict has the string keys the
        function subscripts with, a str is a literal the function compares it with."""
        if kind == _DICT:
            return {k: jnp.ones((_PLACEHOLDER_SIDE,), jnp.float32) for k in self.keys}
        if kind == _STR:
            return self.strings.get(param, "s")
        if kind == _ROWS:   # rows as wide as the targets a ``for a, b in p`` unpacks them into
            return np.zeros((_PLACEHOLDER_SIDE, self.row_width.get(param, 2)), np.int64)
        if kind == _UNPACKED:
            return jnp.ones((self.unpacked.get(param, 3),), jnp.float32)
        return KINDS[kind].make()

    def survey(self, kinds: dict[str, int]) -> _Run:
        from .typeinfer.state import Options

        kinds = dict(kinds)
        fixed = {}
        if self.owner is not None:   # ``self``: an object of the rebuilt class (``cls``: the class)
            fixed[self.self_name] = self.owner.cls if _method_wrapper(self.node) is classmethod \
                else self.owner.instance(self.make, kinds, self.self_name)
        env = _arguments(self.node, kinds, self.globals, self.make, fixed)
        with warnings.catch_warnings(), _internal_errors_as_sites():
            warnings.simplefilter("ignore")
            surveyor = _Surveyor(self.fn, Options(), self.caught)
            try:
                sites = surveyor.run(env)
            except Exception as e:  # noqa: BLE001 - an analysis failure is a site of its own, never a crash
                site = FallbackSite(FallbackCode.INTERNAL_ERROR, _loc(self.path, self.qualname, self.node),
                                    "function", f"the survey failed: {type(e).__name__}: {str(e)[:200]}")
                return _Run(kinds, [site], [site])   # (the kinds guessed broke the analysis: refuted)
        return _Run(kinds, sites, surveyor.refuted)

    def named(self, line: int, kinds: dict[str, int]) -> set[str]:
        """Parameters named on ``line`` that still hold their argument (never rebound)."""
        return self.holding(self.on_line(line), line, kinds)

    def on_line(self, line: int) -> set[str]:
        """The names (and ``name.attr`` references) on ``line``."""
        return {_ref(n) for n in ast.walk(self.node) if getattr(n, "lineno", 0) == line and _ref(n) is not None}

    def named_in_order(self, line: int) -> list[str]:
        """The names (and ``name.attr`` references) on ``line``, in source order."""
        found = [n for n in ast.walk(self.node) if getattr(n, "lineno", 0) == line and _ref(n) is not None]
        return list(dict.fromkeys(_ref(n) for n in sorted(found, key=lambda n: n.col_offset)))

    def holding(self, names: set[str], line: int, kinds: dict[str, int]) -> set[str]:
        """The parameters among ``names`` not assigned above ``line`` (still the argument there)."""
        return {p for p in names & set(kinds) if self.first_store.get(p, line) >= line}

    def flowing_to_site(self, site: FallbackSite, kinds: dict[str, int]) -> set[str]:
        """``flowing`` to the site's line; a site in a function this one calls
        (a helper's recursion, a helper's ``int(x)``): to every line of this
        function that calls a function by name (what the helper is handed)."""
        line = site.loc.line
        if site.loc.file == self.path and self.node.lineno <= line <= (self.node.end_lineno or line):
            return self.flowing(line, kinds)
        calls = {n.lineno for n in ast.walk(self.node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
        return set().union(*(self.flowing(at, kinds) for at in sorted(calls)))

    def flowing(self, line: int, kinds: dict[str, int], on: set[str] | None = None) -> set[str]:
        """Parameters named on ``line`` or flowing into a variable named
        there (through the assignments of the function, by name): each
        counted where it is read, if still the argument there."""
        on = self.on_line(line) if on is None else on
        found = self.holding(on, line, kinds)
        seen, todo = set(on), list(on)
        while todo:
            for at, names in self.reads.get(todo.pop(), ()):
                found |= self.holding(names, at, kinds)
                for name in names - seen:
                    seen.add(name)
                    todo.append(name)
        return found

    def run(self) -> list[ReportSite]:
        kinds: dict[str, int] = {p: _INT for p in _counts(self.node) | _counts_passed(self.node, self.helpers)
                                 if self.first_store.get(p, 1 << 30) > self.node.lineno}
        kinds.update({p: _PYTREE for p in _pytree_params(self.node) if p not in kinds
                      and self.first_store.get(p, 1 << 30) > self.node.lineno})
        kinds.update({p: _STR for p in self.strings})
        params = {a.arg for a in self.node.args.posonlyargs + self.node.args.args + self.node.args.kwonlyargs}
        kinds.update({item.context_expr.id: _CM for n in ast.walk(self.node) if isinstance(n, ast.With)
                      for item in n.items if isinstance(item.context_expr, ast.Name)
                      and item.context_expr.id in params})   # ``with t:``: t is a context manager
        best: _Run | None = None
        settled: set[str] = set()   # array parameters a Python number was refuted for
        switched: set[str] = set()
        last = None
        for _ in range(MAX_ROUNDS):
            last = self.survey(kinds)
            kinds = dict(last.kinds)
            if switched and best is not None and not last.refuted:
                # a switch that makes eager raise anywhere, even after a site, was wrong
                before = {(s.code, s.loc.line) for s in best.sites}
                last.refuted = [s for s in last.sites if self.raises(s)
                                and (s.code, s.loc.line) not in before]
            if last.refuted:
                if switched and best is not None:
                    site = last.refuted[0]
                    wrong = switched & self.flowing(site.loc.line, kinds, self.index_refs(site))
                    # refuted elsewhere, or on shapes: the other parameters' kinds move first, the switch kept
                    if (not wrong or _SHAPE_WORDS.search(site.cause) or _converts_non_scalar(site)) and \
                            self.refine(kinds, site, keep=switched):
                        continue
                    wrong = wrong or switched   # a Python number was wrong: that parameter back to the array
                    settled |= wrong
                    for p in wrong:
                        kinds[p] = best.kinds[p]
                    switched -= wrong
                    if not switched:   # then an array of lower rank, or another parameter
                        if not self.switch(best, kinds, settled):
                            break
                        switched = {p for p in kinds if kinds[p] != best.kinds.get(p)}
                elif not self.refine(kinds, last.refuted[0]):
                    break
                continue
            if best is not None and switched:
                self.note_depends(best, last, switched)
            best = last
            if not self.switch(best, kinds, settled):
                break
            switched = {p for p in kinds if kinds[p] != best.kinds.get(p)}
        if best is None and last is not None:   # no kinds eager accepts: nothing is certain
            # (and a site where eager raises under those kinds says only that the report's guess
            # was wrong, e.g. ``for mod in self.layers: mod(x)`` with ``self.layers`` taken for an
            # array: not listed)
            return [self.assumed(r, last.kinds, accepted=False)
                    for r in _classified([], [ReportSite(s, DEPENDS) for s in last.sites if not self.raises(s)],
                                     self.caught)]
        if best is not None:
            best = self.scalars(best)
            best = self.shapes(best)
            best = self.integers(best)
            best = self.python_tests(best)
            self.traced_counts(best)
            self.integer_data(best)
            self.numpy_data(best)
        return [self.assumed(self.filled_condition(self.value_condition(r, best.kinds if best else {})),
                             best.kinds if best else {})
                for r in _classified(best.sites if best else [], self.depends, self.caught)]

    def assumed(self, reported: ReportSite, kinds: dict[str, int], accepted: bool = True) -> ReportSite:
        """A ``depends`` site whose cause does not yet say on what: it names the
        parameters flowing into its line and the kinds the report assumed for
        them (eager raises there under those kinds, or the site follows an
        earlier fallback whose results the report cannot know)."""
        site = reported.site
        if reported.kind != DEPENDS or "falls back if" in site.cause or "depends on" in site.cause:
            return reported
        params = sorted(p for p in self.flowing(site.loc.line, kinds) if p in kinds)
        if params:
            assumed = ", ".join(f"`{p}` {KINDS[kinds[p]].name}" for p in params)
            why = "no kinds of the parameters were found that eager accepts" if not accepted else \
                "eager raises here under the kinds assumed"
            cause = f"{site.cause}; {why} ({assumed}): depends on what the caller passes"
        else:
            cause = f"{site.cause}; depends on values the report cannot know (what an earlier fallback computes)"
        return ReportSite(dataclasses.replace(site, cause=cause), DEPENDS)

    def filled_condition(self, reported: ReportSite) -> ReportSite:
        """An ``always`` site on a line that reads a module-level container
        other code fills (``REGISTRY[name](x)``, the registry filled by a
        decorator): the survey saw the literal, not what the run sees, so the
        site is ``depends`` on those contents; its cause names the container."""
        site = reported.site
        if reported.kind != ALWAYS or not self.filled:
            return reported
        lines = {site.loc.line} | {int(m) for m in re.findall(r"\(line (\d+)\)", site.cause)}
        read = sorted({r for line in lines for r in self.on_line(line)} & self.filled)
        if not read:
            return reported
        names = ", ".join(f"`{g}`" for g in read)
        cause = (f"{site.cause}; depends on the contents of {names}, which code of the module fills when it "
                 "runs (the report does not run it)")
        return ReportSite(dataclasses.replace(site, cause=cause), DEPENDS)

    def python_tests(self, best: _Run) -> _Run:
        """Array parameters tested by an ``if`` above the user's own ``raise``
        (``if limit < 5: raise ...``) tried as Python floats: a raise that then
        vanishes (its ``if`` decided at trace time, the exception caught in the
        graph) is ``depends`` on the parameter being a traced array."""
        params = {p for s in best.sites if s.construct == "raise" for t in self.tests_above(s.loc.line)
                  for p in {_ref(x) for x in ast.walk(t)} & set(best.kinds) if best.kinds[p] in _ARRAY_KINDS}
        if not params:
            return best
        run = self.survey(dict(best.kinds, **{p: _FLOAT for p in params}))
        if run.refuted:
            return best
        self.note_depends(best, run, params)
        return run

    def tests_above(self, line: int) -> list[ast.expr]:
        """The tests of the ``if``/``while`` statements whose body holds ``line``, outermost first."""
        return [n.test for n in ast.walk(self.node) if isinstance(n, (ast.If, ast.While))
                and n.lineno < line <= max(getattr(b, "end_lineno", 0) or 0 for b in n.body)]

    def value_condition(self, reported: ReportSite, kinds: dict[str, int]) -> ReportSite:
        """A ``depends`` site of the user's own ``raise`` under an ``if`` on
        parameters (``if limit < 5: raise ...``): reached for some of their
        values only, which the report cannot know; its cause says which. But
        under an ``if`` whose test reads an array parameter (``if x[1] < 0:
        raise``, the kinds accepted), the compiler met the raise on a traced
        path: the run splits there on every call, whichever way the test
        goes, so the site is ``always``."""
        site = reported.site
        if reported.kind != DEPENDS or site.construct != "raise" or "falls back if" in site.cause:
            return reported
        traced = [t for t in self.tests_above(site.loc.line)
                  if any(kinds[p] in _ARRAY_KINDS for p in self.flowing(t.lineno, kinds))]
        raised = {n.id for r in ast.walk(self.node) if isinstance(r, ast.Raise) and r.lineno == site.loc.line
                  for n in ast.walk(r) if isinstance(n, ast.Name)}
        if traced and not any(isinstance(self.globals.get(n), (jax.Array, _Unknown)) for n in raised):
            # (a raise of a module-level name the survey holds a stand-in for raises that stand-in: not the run's)
            cause = f"{site.cause}; under `{ast.unparse(traced[-1])}`, a traced test: the run splits there " \
                    "whichever way it goes"
            return ReportSite(dataclasses.replace(site, cause=cause), ALWAYS)
        params = {a.arg for a in self.node.args.posonlyargs + self.node.args.args + self.node.args.kwonlyargs}
        named = [t for t in self.tests_above(site.loc.line) if {_ref(x) for x in ast.walk(t)} & params]
        if not named:   # (a raise in a function it calls, a context manager's re-raise: the test is elsewhere)
            cause = f"{site.cause}; eager's own raise, a fallback where it is reached: depends on values the " \
                    "report cannot know"
            return ReportSite(dataclasses.replace(site, cause=cause), DEPENDS)
        which = sorted({_ref(x) for t in named for x in ast.walk(t)} & params)
        cause = (f"{site.cause}; reached only when `{ast.unparse(named[-1])}`: depends on the value of "
                 f"{', '.join(f'`{p}`' for p in which)}, which the report cannot know")
        return ReportSite(dataclasses.replace(site, cause=cause), DEPENDS)

    def traced_counts(self, best: _Run) -> None:
        """Python-int parameters (a count given to ``range()``, one a site
        needed) tried as traced 0-d int arrays, as a caller passing
        ``jnp.array(3)`` would: the sites that appear, eager accepting, are
        ``depends`` on it (one graph if a Python int)."""
        params = {p for p, k in best.kinds.items() if k == _INT and "." not in p}
        if not params:
            return
        run = self.survey(dict(best.kinds, **{p: _INT_SCALAR for p in params}))
        before = {(s.code, s.loc.line) for s in best.sites}
        if run.refuted or any(self.raises(s) and (s.code, s.loc.line) not in before
                              for s in run.sites):
            return
        self.note_depends(run, best, params)

    def scalars(self, best: _Run, tries: int = 2) -> _Run:
        """Array parameters flowing into a site of ``best`` tried as 0-d arrays
        (the run's scalars: ``jnp.array(48)``): a site that vanishes, eager
        accepting, is ``depends``, its cause naming both assumptions."""
        for site in [s for s in best.sites if not self.caught(s)][:tries]:   # (a raise the function expects stays)
            params = {p for p in self.flowing(site.loc.line, best.kinds) if best.kinds[p] in (0, 1)}
            if not params:
                continue
            kinds = dict(best.kinds, **{p: _SCALAR for p in params})
            run = self.survey(kinds)
            before = {(s.code, s.loc.line) for s in best.sites}
            if run.refuted or any(self.raises(s) and
                                  (s.code, s.loc.line) not in before for s in run.sites):
                continue
            self.note_depends(best, run, params)
            return run
        return best

    def shapes(self, best: _Run) -> _Run:
        """A site of ``best`` where a join refuses a shape change (``if``
        branches returning ``f32[4,4]`` and a Python float; ``argmax`` of a
        2-d placeholder against a sampled vector): the shape is the
        placeholder's, not one the source says. Every array parameter of the
        function is tried one rank lower, then as a 0-d array (the run's
        scalars): a site that vanishes, eager accepting, is ``depends`` on the
        shapes, its cause naming both assumptions."""
        if not any("shape changes" in s.cause for s in best.sites):
            return best
        for lower in (_LOWER_SHAPE, _TO_SCALAR):
            params = sorted(p for p, k in best.kinds.items() if k in lower and "." not in p)
            # all of them at once, then each alone (``X`` indexed by its second axis keeps its rank)
            for tried in [params] + ([[p] for p in params[:_MAX_SHAPE_TRIES]] if len(params) > 1 else []):
                run = self.survey(dict(best.kinds, **{p: lower[best.kinds[p]] for p in tried}))
                if self.accepted(best, run) and len(run.sites) < len(best.sites):
                    self.note_depends(best, run, set(tried), "an array of more dimensions")
                    return run
        return best

    def integers(self, best: _Run) -> _Run:
        """Float array parameters flowing into an A2G016 site of ``best`` (a
        Python int from ``int()`` of a float, which may leave int64) tried as
        integer arrays of the same shape: a site that vanishes, eager
        accepting, is ``depends`` on the dtype, its cause naming both."""
        sites = [s for s in best.sites if s.code is FallbackCode.PRECISION]
        params = {p for s in sites for p in self.flowing(s.loc.line, best.kinds) if best.kinds[p] in _INTEGER_OF}
        if not params:
            return best
        run = self.survey(dict(best.kinds, **{p: _INTEGER_OF[best.kinds[p]] for p in params}))
        if self.accepted(best, run):
            self.note_depends(best, run, params, "a float array")
            return run
        return best

    def integer_data(self, best: _Run) -> None:
        """Float array parameters whose values become Python numbers
        (``int(x[0])``, ``x.sum().item()``) tried as integer arrays of the same
        shape: the sites that appear, eager accepting, are ``depends`` on the
        dtype (one graph if a float array). The default assumption stays float."""
        lines = {n.lineno for n in ast.walk(self.node) if isinstance(n, ast.Call)
                 and (isinstance(n.func, ast.Name) and n.func.id in ("int", "bool", "divmod")
                      or isinstance(n.func, ast.Attribute) and n.func.attr in ("item", "tolist"))}
        params = {p for line in lines for p in self.flowing(line, best.kinds) if best.kinds[p] in _INTEGER_OF}
        if not params:
            return
        run = self.survey(dict(best.kinds, **{p: _INTEGER_OF[best.kinds[p]] for p in params}))
        if self.accepted(best, run):
            self.note_depends(run, best, params, "an integer array")

    def numpy_data(self, best: _Run) -> None:
        """In a function that writes in place (``self.w -= x``, ``out[i] =
        v``, ``x += 1``), jax.Array parameters tried as NumPy arrays of the
        same shape: NumPy's in-place writes reach the caller's (or the
        object's) array, and whether the graph can make them depends on the
        library (``typeinfer.mutation``: a write into a captured NumPy array,
        its attribute rebound on another path, falls back). The sites that
        appear, eager accepting, are ``depends`` on it (one graph if a
        jax.Array); the default assumption stays a jax.Array."""
        if not any(isinstance(n, ast.AugAssign) or isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                   for n in ast.walk(self.node)):
            return
        params = {p for p, k in best.kinds.items() if k in _NUMPY_OF and "." not in p}
        if not params:
            return
        run = self.survey(dict(best.kinds, **{p: _NUMPY_OF[best.kinds[p]] for p in params}))
        if self.accepted(best, run):
            self.note_depends(run, best, params, "a NumPy array")

    def accepted(self, best: _Run, run: _Run) -> bool:
        """Eager accepts ``run``'s kinds as far as the survey can tell: nothing refuted, no new eager raise."""
        before = {(s.code, s.loc.line) for s in best.sites}
        return not run.refuted and not any(self.raises(s) and (s.code, s.loc.line) not in before
                                           for s in run.sites)

    def switch(self, run: _Run, kinds: dict[str, int], settled: set[str]) -> bool:
        """Array parameters named where ``run`` needs a value become Python ints."""
        rank: dict[str, tuple] = {}   # the first site's own names first, then what flows there
        for k, s in enumerate(run.sites):
            if _needs_value(s) and not self.caught(s):   # (a raise the function expects is no call to avoid)
                for p in self.flowing_to_site(s, kinds):
                    if kinds[p] < _INT or kinds[p] == _SCALAR:
                        rank.setdefault(p, (k, p not in self.named(s.loc.line, kinds)))
        for p in sorted(rank, key=lambda p: (p in settled, rank[p], p)):   # one at a time: a refutation names it
            # a Python int first; one refuted: an array of lower rank (its rows are scalars)
            nxt = _INT if p not in settled else _LOWER_RANK.get(kinds[p])
            if nxt is not None:
                kinds[p] = nxt
                return True
        return False

    def written_into(self, line: int) -> set[str]:
        """The names whose item or attribute ``line`` assigns (``out[i] = v``: ``out``)."""
        return {_ref(n.value) for n in ast.walk(self.node) if isinstance(n, (ast.Subscript, ast.Attribute))
                and isinstance(n.ctx, ast.Store) and n.lineno == line and _ref(n.value) is not None}

    def indexed(self) -> set[str]:
        """The names the function subscripts (``table[tok]``: ``table``)."""
        return {_ref(n.value) for n in ast.walk(self.node) if isinstance(n, ast.Subscript)
                and _ref(n.value) is not None}

    def index_refs(self, site: FallbackSite) -> set[str] | None:
        """The names read by the subscripts' indices on the line of a site
        refusing an index (None for any other site: then the whole line)."""
        if not any(m in site.cause for m in _BAD_INDEX):
            return None
        return {r for n in ast.walk(self.node) if isinstance(n, ast.Subscript) and n.lineno == site.loc.line
                for r in map(_ref, ast.walk(n.slice)) if r is not None}

    def refine(self, kinds: dict[str, int], site: FallbackSite, keep: set[str] = frozenset()) -> bool:
        """Eager raises at ``site`` under these kinds: the next kinds of the
        parameters named on its line (of every array parameter if none is
        named). False when there is nothing left to try."""
        line = site.loc.line
        if "cannot unpack" in site.cause:   # ``for a, b in p``: p's rows have as many items as the targets
            rows = {p for p in self.on_line(line) & set(self.row_width) & set(kinds) - keep if kinds[p] != _ROWS}
            for p in rows:
                kinds[p] = _ROWS
            if rows:
                return True
            # ``a, b, c = p``: p has as many elements as the targets
            unpacked = {p for p in self.holding(self.on_line(line) & set(self.unpacked), line, kinds) - keep
                        if kinds[p] != _UNPACKED}
            for p in unpacked:
                kinds[p] = _UNPACKED
            if unpacked:
                return True
        for attrs, container in ((_DICT_ATTRS, _DICT), (_LIST_ATTRS, _LIST)):
            # ``p.items()`` on the line, eager's object lacking it: ``p`` is a dict (a list)
            receivers = {_ref(n.value) for n in ast.walk(self.node) if isinstance(n, ast.Attribute)
                         and n.attr in attrs and _ref(n.value) is not None and n.lineno == line}
            receivers = {p for p in self.holding(receivers, line, kinds) - keep if kinds[p] != container}
            if receivers and any(f"'{a}'" in site.cause or f" {a} " in site.cause for a in attrs):
                for p in receivers:
                    kinds[p] = container
                return True
        if self.to_layers(kinds, site, keep):
            return True
        if _converts_non_scalar(site):   # ``int(v)`` of a row of the placeholder: what flows there is of lower rank
            lower = {p for p in self.flowing(line, kinds) - keep if kinds[p] in _BROADCASTS}
            for p in lower:
                kinds[p] = _BROADCASTS[kinds[p]]
            if lower:
                return True
        index = self.index_refs(site)
        if index is not None:   # the index is wrong, not the array: what flows into it
            # an array index: an int array; a Python float: an int
            movable = {p for p in self.flowing(line, kinds, index) - keep if kinds[p] in (_ARRAY_KINDS - {_INT_ARRAY})
                       or kinds[p] == 5}
            if movable:
                for p in movable:
                    kinds[p] = _INT if kinds[p] in (5, _SCALAR) else _INT_ARRAY
                return True
        if _INTEGER_WORDS.search(site.cause):   # ``take_along_axis(logp, labels[:, None])`` of a float array:
            # the last float array named on the line (the indices follow the array indexed) is an int array
            floats = [p for p in self.named_in_order(line) if p in kinds and p not in keep
                      and kinds[p] in _ARRAY_KINDS - {_INT_ARRAY, _INT_SCALAR}]
            if floats:
                kinds[floats[-1]] = _INT_ARRAY
                return True
        # a parameter named on the line (even rebound: ``x = x * 2`` still derives from it) first
        named = (self.on_line(line) & set(kinds)) - keep or self.flowing(line, kinds) - keep
        # a parameter taken for a random key by its name moves last: another one flowing there first
        others = {p for p in named if kinds[p] != _KEY} or \
            {p for p in self.flowing(line, kinds) - keep if kinds[p] != _KEY}
        named = others or named
        if any(m in site.cause for m in _NUMPY_ONLY):   # NumPy's indexing or in-place writes on a jax kind
            jax_kinds = {p for p in named if kinds[p] in _AS_NUMPY}
            for p in jax_kinds:
                kinds[p] = _AS_NUMPY[kinds[p]]
            if jax_kinds:
                return True
        # an array written into (``out[i] = ...``) is not what a failing read refused: the others first
        named = named - self.written_into(line) or named
        # a parameter used as is (a scalar the line may refuse) before one the function indexes (an array)
        named = named - self.indexed() or named
        # the array of the shape the message names ("the truth value of an array of shape (4, 4)"), anywhere
        shaped = _of_shape(site.cause, named, kinds) or _of_shape(site.cause, set(kinds) - keep, kinds)
        if shaped:
            named = shaped
        if _SHAPE_WORDS.search(site.cause):   # operands that do not broadcast: an array of lower rank first
            lower = {p for p in named if kinds[p] in _BROADCASTS}
            for p in lower:
                kinds[p] = _BROADCASTS[kinds[p]]
            if lower:
                return True
        table = _NEXT_NAMED if named else _NEXT_UNNAMED
        changed = False
        for p in (named or set(kinds) - keep):
            nxt = table.get(kinds[p])
            if nxt is not None:
                kinds[p], changed = nxt, True
        if not changed and named:   # the parameters named there are exhausted: the others (a value reaching
            for p in set(kinds) - named - keep:   # the line through a nested function's parameters)
                nxt = _NEXT_NAMED.get(kinds[p])
                if nxt is not None:
                    kinds[p], changed = nxt, True
        return changed

    def to_layers(self, kinds: dict[str, int], site: FallbackSite, keep: set[str]) -> bool:
        """Eager refused to call (or iterate to call) a stand-in: what the line
        calls is a layer (``self.embed(x)``), what it iterates over and calls
        the items of is a list of layers (``for block in self.blocks: x = block(x)``)."""
        line = site.loc.line
        if "calling an array" in site.cause or "not callable" in site.cause:
            called = {_ref(n.func) for n in ast.walk(self.node) if isinstance(n, ast.Call) and n.lineno == line}
            moved = {p for p in called & set(kinds) - keep if kinds[p] != _LAYER}
            for p in moved:
                kinds[p] = _LAYER
            return bool(moved)
        if "iteration over" in site.cause:
            loops = [n for n in ast.walk(self.node) if isinstance(n, ast.For) and n.lineno == line
                     and isinstance(n.target, ast.Name) and _ref(n.iter) in set(kinds) - keep]
            moved = {_ref(n.iter) for n in loops if kinds[_ref(n.iter)] != _LAYERS and any(
                isinstance(c, ast.Call) and _ref(c.func) == n.target.id for b in n.body for c in ast.walk(b))}
            for p in moved:
                kinds[p] = _LAYERS
            return bool(moved)
        return False

    def note_depends(self, before: _Run, after: _Run, switched: set[str], what: str = "a traced array") -> None:
        """Sites of ``before`` gone once ``switched`` took the kinds of ``after``
        (a Python number, a 0-d array): ``depends``, naming both assumptions."""
        def key(s: FallbackSite) -> tuple:
            return (s.code, s.loc.line)

        def kinds_of(run: _Run) -> str:
            return " and ".join(sorted({KINDS[run.kinds[p]].name for p in switched}))

        now = {key(s) for s in after.sites} | {key(r.site) for r in self.depends}
        which = ", ".join(f"`{p}`" for p in sorted(switched))
        for s in before.sites:
            if key(s) not in now:
                self.depends.append(ReportSite(dataclasses.replace(
                    s, cause=f"{s.cause}; falls back if {which} is {what} ({kinds_of(before)}), "
                             f"one graph if {kinds_of(after)}"), DEPENDS))


def _assignment_reads(fn: ast.FunctionDef) -> dict[str, list[tuple[int, set[str]]]]:
    """Variable -> (line, the names read) of each statement that assigns it
    (``for`` targets: the iterable; a nested def: what its body reads)."""
    out: dict[str, list[tuple[int, set[str]]]] = {}
    for stmt in ast.walk(fn):
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            source = stmt.value
        elif isinstance(stmt, (ast.For, ast.comprehension)):
            targets, source = [stmt.target], stmt.iter
        elif isinstance(stmt, (ast.FunctionDef, ast.Lambda)) and stmt is not fn:   # a closure: what it reads
            targets, source = [ast.Name(getattr(stmt, "name", "<lambda>"), ast.Store())], stmt
        else:
            continue
        if source is None:
            continue
        read = {_ref(n) for n in ast.walk(source)} - {None}
        if isinstance(stmt, ast.FunctionDef) and stmt is not fn:   # its parameters: the arguments of its calls
            _parameter_reads(fn, stmt, out)
        for t in targets:
            for n in ast.walk(t):
                if _ref(n) is not None:
                    out.setdefault(_ref(n), []).append((getattr(stmt, "lineno", None) or source.lineno, read))
    return out


def _parameter_reads(fn: ast.FunctionDef, nested: ast.FunctionDef,
                     out: dict[str, list[tuple[int, set[str]]]]) -> None:
    """A nested function's parameters read what its calls in ``fn`` pass them
    (``refine(x, depth)``: ``d`` reads ``depth``), by position and keyword."""
    params = [a.arg for a in nested.args.posonlyargs + nested.args.args]
    for call in ast.walk(fn):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == nested.name):
            continue
        pairs = list(zip(params, call.args)) + [(k.arg, k.value) for k in call.keywords if k.arg is not None]
        for param, arg in pairs:
            if isinstance(arg, ast.Starred):
                break
            out.setdefault(param, []).append((call.lineno, {_ref(n) for n in ast.walk(arg)} - {None}))


@contextlib.contextmanager
def _internal_errors_as_sites() -> Iterator[None]:
    """``AST2GRAPH_CHECKS`` off while a survey runs: a failure of the
    analysis on the placeholder kinds is an A2G015 site (a kind the search
    refutes), as in a user's run, not an exception (the tests set it on)."""
    saved = os.environ.pop("AST2GRAPH_CHECKS", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["AST2GRAPH_CHECKS"] = saved


_RAISED = re.compile(r"eager raises (\w+)| raised (\w+)\b")


def _caught(fn: ast.FunctionDef, site: FallbackSite) -> bool:
    """The exception eager raises at ``site`` (named in its cause) is caught
    by a handler of a ``try`` of ``fn`` whose body holds the site's line (or
    a line its cause names): a bare ``except``, or one naming that builtin
    exception class or a base of it."""
    m = _RAISED.search(site.cause)
    exc = getattr(builtins, (m.group(1) or m.group(2)) if m else _converts_non_scalar(site) or "", None)
    if not (isinstance(exc, type) and issubclass(exc, BaseException)):
        return False
    lines = {site.loc.line} | {int(n) for n in re.findall(r"\(line (\d+)\)", site.cause)}
    for t in ast.walk(fn):
        if isinstance(t, ast.Try) and any(t.body[0].lineno <= line <= (t.body[-1].end_lineno or 0) for line in lines) \
                and any(_catches(h.type, exc) for h in t.handlers):
            return True
    return False


def _catches(node: ast.expr | None, exc: type) -> bool:
    """An ``except node:`` catches the builtin exception ``exc``."""
    if node is None:
        return True
    names = node.elts if isinstance(node, ast.Tuple) else [node]
    for n in names:
        base = getattr(builtins, n.id, None) if isinstance(n, ast.Name) else None
        if isinstance(base, type) and issubclass(exc, base):
            return True
    return False


def _ref(n: ast.AST) -> str | None:
    """A name, or ``name.attr`` (an attribute of a parameter the search may assume a kind for)."""
    if isinstance(n, ast.Name):
        return n.id
    if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
        return f"{n.value.id}.{n.attr}"
    return None


def _loc(path: str, qualname: str, node: ast.AST) -> Any:
    from .diagnostics import Loc

    return Loc(path, node.lineno, node.col_offset, qualname)


def _classified(sites: list[FallbackSite], depends: list[ReportSite],
                caught: Callable[[FallbackSite], bool] = lambda site: False) -> list[ReportSite]:
    """``always``: the sites of the accepted run, but where eager itself
    raises (A2G008: the kinds guessed may be wrong) and the function does
    not catch it (``caught``); ``depends``: those and the sites that
    vanished when a parameter became a Python number."""
    out = [ReportSite(s, DEPENDS if _raises_eagerly(s) and not caught(s)
                      else ALWAYS) for s in sites]
    seen = {(r.site.code, r.site.loc.line) for r in out}
    out += [r for r in depends if (r.site.code, r.site.loc.line) not in seen]
    out = [ReportSite(dataclasses.replace(r.site, stage=STAGE), r.kind) for r in out]
    return sorted(out, key=lambda r: (r.site.loc.line, r.site.loc.col))


def synthetic_module(path: str, text: str | None = None) -> SyntheticModule:
    """The module namespace of ``path`` as far as it is known without running it."""
    if text is None:
        with open(path, "rb") as fh:
            text = fh.read()
    return SyntheticModule(path, ast.parse(text, filename=path), text)


# ``SyntheticModule._container_writes`` per (path, source text): a few files, the latest kept
_CONTAINER_WRITES: dict[tuple, list] = {}


def survey_file(path: str, qualname: str | None = None, text: str | None = None) -> list[FunctionReport]:
    """The reports of every module-level function and method of a module-level
    class of ``path`` (``qualname``: that one, or a class's methods), in
    source order. The caller holds ``installed_libraries_only`` and a deep stack."""
    module = synthetic_module(path, text)
    out = []
    for name, node in module.defs.items():
        if qualname is None or name == qualname or name.startswith(qualname + "."):
            out.append(FunctionReport(name, path, node.lineno, _survey(path, name, module)))
    nested = module.nested_def(qualname) if qualname else None
    if nested is not None:   # a nested function, named: surveyed as a closure of literal or placeholder values
        out.append(FunctionReport(qualname, path, nested.lineno, _survey(path, qualname, module)))
    return sorted(out, key=lambda r: r.line)
