"""The survey's model of an object of a class of the file: its ``__init__`` run abstractly (issue 17).

Requires: the ``ast.ClassDef`` of a class of the user's file, the
survey's synthetic module globals (known libraries, literal constants, the
file's rebuilt classes) and the attributes the class's bases (rebuilt
classes of the same file) already model.
Produces: ``init_attributes(node, bases, globals_, classes, known_roots, unknown) -> {attr: Attr}``:
what ``__init__`` assigns to ``self.NAME``, found by walking its body in
order over an abstract state: a parameter is unknown (but for a literal
default, taken as the value the call leaves it), a literal or an
arithmetic of known Python values is known, a known library function
called on known values is called (a numerical library's code only, never
one whose name says it acts on files, settings or seeds), a class of the file called is an object of
that class modelled the same way, anything else is unknown with a guessed
kind (the search's starting kind for the pseudo-parameter ``self.NAME``):
a Python int for a hyper-parameter (a parameter, an attribute of one, an
arithmetic of those), an array of the rank a constructor's call says.
Invariants: no statement of the user's runs (the model reads the AST; the
only code called is a known library's, on known values); an ``if`` on a
known value takes its branch, on an unknown one both, an attribute the two
branches assign differently is unknown; a branch that raises leaves nothing.
"""

from __future__ import annotations

import ast
import builtins
import operator
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

# an attribute's starting kind from the constructor it is assigned: the rank says the array's
# (survey.KINDS indices: 0 a (4, 4) jax array, 1 a (4,) one, 2 and 3 their NumPy kinds, 7 a 0-d one)
ARRAY_CALLS = {"zeros": 1, "ones": 1, "full": 1, "empty": 1, "arange": 1, "linspace": 1, "zeros_like": 0,
               "ones_like": 0, "array": 1, "asarray": 1, "eye": 0, "float32": 7, "float64": 7, "int32": 7}
_INT, _FLOAT, _ARRAY = 4, 5, 0
_PLAIN = (int, float, bool, str, complex, type(None))
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
_SAFE_BUILTINS = {"int", "float", "bool", "str", "len", "max", "min", "abs", "round", "tuple"}
# the libraries whose functions the model calls on known values (not os, sys, time, random, logging: their
# calls act on the report's process), and the words of a name that acts on files, settings or seeds
_PURE_ROOTS = frozenset({"numpy", "jax", "jaxlib", "flax", "optax", "equinox", "math", "cmath", "operator"})
_EFFECT_WORDS = ("save", "load", "seed", "file", "memmap", "config", "set", "print", "write", "open", "enable",
                 "disable", "clear", "update", "debug", "callback", "host", "device_put", "profil")
_MAX_STATEMENTS = 2000   # a bound on the walk (a huge generated __init__ is cut, the rest unknown)


@dataclass(frozen=True)
class Guess:
    """An unknown value, with the kind (a survey.KINDS index) the search starts from."""

    kind: int


@dataclass(frozen=True)
class Instance:
    """An object of a class of the file, modelled from its own ``__init__`` (``survey.RebuiltClass``)."""

    rebuilt: Any


Attr = tuple   # (True, value) known, (False, kind) searched, ("object", RebuiltClass) an object of the file


def init_attributes(node: ast.ClassDef, bases: list, globals_: dict, classes: dict,
                    known_roots: frozenset[str], unknown: type) -> dict[str, Attr]:
    """What ``__init__`` assigns to ``self.NAME`` (see the module docstring); the bases' first.
    ``known_roots``: the libraries whose code may run on known values; ``unknown``: the type of
    the synthetic globals' unknown names."""
    out: dict[str, Attr] = {}
    for base in bases:
        out.update(base.attributes)
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is None or not init.args.args:
        return out
    model = _InitModel(init, globals_, classes, known_roots, unknown)
    for attr, value in model.run().items():
        out[attr] = _as_attr(value)
    return out


def module_value(node: ast.expr, globals_: dict, known_roots: frozenset[str], unknown: type) -> tuple[bool, Any]:
    """A module-level assignment's value, when the model knows it: a literal,
    or a known numerical library's code called on known values (``RNG =
    np.random.default_rng(0)``, ``EPS = np.finfo(np.float32).eps``), as an
    ``__init__``'s values are found; (False, None) otherwise."""
    if _large(node):
        return False, None
    model = _InitModel(_NO_INIT, globals_, {}, known_roots, unknown)
    try:
        value = model.eval(node)
    except Exception:  # noqa: BLE001 - an expression the model cannot evaluate is unknown
        return False, None
    if not _known(value) or isinstance(value, (types.ModuleType, type)) or callable(value) and \
            not hasattr(value, "__dict__"):
        return False, None
    return True, value


_NO_INIT = ast.parse("def __init__(self): pass").body[0]   # the model's frame for a module-level expression
_MAX_ELEMENTS = 1_000_000   # a module-level array the report makes itself stays small (a dataset is not read)


def _large(node: ast.expr) -> bool:
    """An expression naming a size over ``_MAX_ELEMENTS`` (``np.ones((50000, 50000))``, ``np.arange(10**9)``):
    not evaluated, whatever its call (the report must not allocate the user's data)."""
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and abs(n.value) > _MAX_ELEMENTS:
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Pow, ast.Mult, ast.LShift)):
            return True   # (a computed size: not read)
        if isinstance(n, ast.Tuple):
            sizes = [e.value for e in n.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
            if len(sizes) == len(n.elts) and sizes and int(np.prod(sizes, dtype=object)) > _MAX_ELEMENTS:
                return True
    return False


def _as_attr(value: Any) -> Attr:
    if isinstance(value, Guess):
        return False, value.kind
    if isinstance(value, Instance):
        return "object", value.rebuilt
    return True, value


def _same(a: Any, b: Any) -> bool:
    """Two abstract values the same (no array comparison: identity for anything but plain values)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (Guess, Instance)) or isinstance(a, _PLAIN):
        return a == b
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return False


class _Dead(Exception):
    """The path raised or returned: what it assigned after is not the object's."""


class _InitModel:
    def __init__(self, init: ast.FunctionDef, globals_: dict, classes: dict, known_roots: frozenset[str],
                 unknown: type):
        self.init, self.globals, self.classes = init, globals_, classes
        self.known_roots, self.unknown_type = known_roots, unknown
        self.me = init.args.args[0].arg
        self.steps = 0
        args = init.args
        params = args.posonlyargs + args.args
        defaults = dict(zip([a.arg for a in params][len(params) - len(args.defaults):], args.defaults))
        defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
        self.locals: dict[str, Any] = {}
        for a in params[1:] + args.kwonlyargs:
            self.locals[a.arg] = self.default(defaults.get(a.arg))
        for a in (args.vararg, args.kwarg):
            if a is not None:
                self.locals[a.arg] = Guess(_ARRAY)
        self.attrs: dict[str, Any] = {}

    @staticmethod
    def default(node: ast.expr | None) -> Any:
        """A parameter: its literal default (the value the call leaves it), else a hyper-parameter (an int)."""
        if node is not None:
            try:
                return ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
        return Guess(_INT)

    def run(self) -> dict[str, Any]:
        try:
            self.body(self.init.body)
        except _Dead:
            pass
        return self.attrs

    # ------------------------------------------------------------ statements
    def body(self, stmts: list) -> None:
        for stmt in stmts:
            self.steps += 1
            if self.steps > _MAX_STATEMENTS:
                raise _Dead
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value)
            for target in stmt.targets:
                self.assign(target, value, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value), stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            self.assign(stmt.target, self.binary(stmt.op, self.eval(stmt.target), self.eval(stmt.value)), None)
        elif isinstance(stmt, (ast.Raise, ast.Return)):
            raise _Dead
        elif isinstance(stmt, ast.If):
            self.branch(stmt)
        elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
            self.unknown_block(stmt)

    def assign(self, target: ast.expr, value: Any, source: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            self.locals[target.id] = value
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.me:
            self.attrs[target.attr] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = list(source.elts) if isinstance(source, (ast.Tuple, ast.List)) and \
                len(source.elts) == len(target.elts) else None
            known = value if isinstance(value, (tuple, list)) and len(value) == len(target.elts) else None
            for k, t in enumerate(target.elts):
                if known is not None:
                    self.assign(t, known[k], None)
                else:
                    self.assign(t, self.eval(items[k]) if items else Guess(_ARRAY), items[k] if items else None)

    def branch(self, stmt: ast.If) -> None:
        test = self.eval(stmt.test)
        if not isinstance(test, (Guess, Instance)) and isinstance(test, _PLAIN + (tuple, list)):
            self.body(stmt.body if test else stmt.orelse)
            return
        saved = (dict(self.locals), dict(self.attrs))
        ends = []
        for body in (stmt.body, stmt.orelse):
            self.locals, self.attrs = dict(saved[0]), dict(saved[1])
            try:
                self.body(body)
                ends.append((self.locals, self.attrs))
            except _Dead:
                pass
        if not ends:
            raise _Dead
        self.locals, self.attrs = self.merged([e[0] for e in ends]), self.merged([e[1] for e in ends])

    @staticmethod
    def merged(states: list[dict]) -> dict:
        """The state after branches: a name both assign the same keeps it, assigned differently it is unknown."""
        out = dict(states[0])
        for other in states[1:]:
            for name, value in other.items():
                if name not in out:
                    out[name] = value
                elif not _same(out[name], value):
                    kinds = {v.kind if isinstance(v, Guess) else _kind_of(v) for v in (out[name], value)}
                    out[name] = Guess(kinds.pop() if len(kinds) == 1 else _FLOAT)
        return out

    def unknown_block(self, stmt: ast.stmt) -> None:
        """A loop, ``with`` or ``try``: what its statements assign is unknown (its kind guessed)."""
        for n in ast.walk(stmt):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value is not None:
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                    guess = Guess(_kind_of(self.eval(n.value)) if isinstance(n, ast.Assign) else _ARRAY)
                    for name in ast.walk(t):
                        if isinstance(name, (ast.Name, ast.Attribute)) and isinstance(name.ctx, ast.Store):
                            self.assign(name, guess, None)

    # ----------------------------------------------------------- expressions
    def eval(self, node: ast.expr) -> Any:
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        method = getattr(self, f"eval_{type(node).__name__}", None)
        return method(node) if method is not None else Guess(_ARRAY)

    def eval_Name(self, node: ast.Name) -> Any:
        if node.id in self.locals:
            return self.locals[node.id]
        if node.id in self.globals and not isinstance(self.globals[node.id], self.unknown_type):
            return self.globals[node.id]
        if node.id in _SAFE_BUILTINS or _builtin_exception(getattr(builtins, node.id, None)):
            return getattr(builtins, node.id)
        return Guess(_ARRAY)

    def eval_Attribute(self, node: ast.Attribute) -> Any:
        if isinstance(node.value, ast.Name) and node.value.id == self.me:
            return self.attrs.get(node.attr, Guess(_ARRAY))
        base = self.eval(node.value)
        if isinstance(base, (types.ModuleType, type)) and self.library(base):
            return getattr(base, node.attr, Guess(_ARRAY))
        if isinstance(base, Guess) and base.kind in (_INT, _FLOAT):   # a field of a config object: a hyper-parameter
            return Guess(_INT)
        return Guess(_ARRAY)

    def eval_BinOp(self, node: ast.BinOp) -> Any:
        return self.binary(node.op, self.eval(node.left), self.eval(node.right))

    def binary(self, op: ast.operator, left: Any, right: Any) -> Any:
        if isinstance(left, _PLAIN) and isinstance(right, _PLAIN) and type(op) in _BINARY:
            try:
                return _BINARY[type(op)](left, right)
            except Exception:  # noqa: BLE001 - eager would raise too: the value is unknown here
                return Guess(_FLOAT)
        kinds = {_kind_of(v) for v in (left, right)}
        if kinds <= {_INT}:
            return Guess(_FLOAT if isinstance(op, ast.Div) else _INT)
        if kinds <= {_INT, _FLOAT}:
            return Guess(_FLOAT)
        return Guess(min(k for k in kinds if k not in (_INT, _FLOAT)))

    def eval_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.eval(node.operand)
        if isinstance(value, _PLAIN):
            ops = {ast.Not: operator.not_, ast.USub: operator.neg, ast.UAdd: operator.pos}
            if type(node.op) in ops:
                return ops[type(node.op)](value)
        return value if isinstance(value, Guess) else Guess(_ARRAY)

    def eval_Compare(self, node: ast.Compare) -> Any:
        values = [self.eval(node.left)] + [self.eval(c) for c in node.comparators]
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE and all(isinstance(v, _PLAIN) for v in values):
            return _COMPARE[type(node.ops[0])](*values)
        return Guess(_ARRAY)

    def eval_BoolOp(self, node: ast.BoolOp) -> Any:
        values = [self.eval(v) for v in node.values]
        if all(isinstance(v, _PLAIN) for v in values):
            pick = all if isinstance(node.op, ast.And) else any
            return pick(values) if all(isinstance(v, bool) for v in values) else Guess(_INT)
        return Guess(_ARRAY)

    def eval_Tuple(self, node: ast.Tuple) -> Any:
        values = [self.eval(e) for e in node.elts]
        return tuple(values) if all(_known(v) for v in values) else Guess(_ARRAY)

    def eval_Call(self, node: ast.Call) -> Any:
        func = self.eval(node.func)
        for rebuilt in self.classes.values():   # a class of the file: an object modelled from its __init__
            if func is rebuilt.cls:
                return Instance(rebuilt)
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords if k.arg is not None}
        callable_known = callable(func) and (self.pure(func) or _builtin_exception(func)
                                             or any(func is getattr(builtins, b) for b in _SAFE_BUILTINS))
        if callable_known and len(kwargs) == len(node.keywords) and \
                all(_known(v) for v in args + list(kwargs.values())) and not any(isinstance(a, ast.Starred)
                                                                                 for a in node.args):
            try:
                return func(*args, **kwargs)   # a known library's (or a plain builtin's) code on known values
            except Exception:  # noqa: BLE001 - refused: unknown, its kind guessed below
                pass
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in ("int", "len", "round"):
            return Guess(_INT)
        if name == "float":
            return Guess(_FLOAT)
        if name in ARRAY_CALLS:
            kind = ARRAY_CALLS[name]
            if kind == 1 and node.args and isinstance(node.args[0], ast.Tuple) and len(node.args[0].elts) == 2:
                kind = 0
            numpy = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                node.func.value.id in ("np", "numpy")
            return Guess({0: 3, 1: 2}.get(kind, kind) if numpy else kind)
        return Guess(_ARRAY)

    def library(self, obj: Any) -> bool:
        """``obj`` comes from a known library (its attributes may be read)."""
        return _module_of(obj).split(".")[0] in self.known_roots

    @staticmethod
    def pure(func: Any) -> bool:
        """``func`` may be called on known values in the report's process: a
        numerical library's function or class whose name says no effect on
        files, the environment, global settings or random seeds."""
        module = _module_of(func)
        name = f"{module}.{getattr(func, '__qualname__', getattr(func, '__name__', ''))}".lower()
        return module.split(".")[0] in _PURE_ROOTS and not any(w in name for w in _EFFECT_WORDS)


def _builtin_exception(func: Any) -> bool:
    """A builtin exception class (``ValueError("prebuilt")``: making one runs no user code)."""
    return isinstance(func, type) and issubclass(func, BaseException) and \
        getattr(builtins, func.__name__, None) is func


def _module_of(obj: Any) -> str:
    return str(obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or "")


def _known(value: Any) -> bool:
    return not isinstance(value, (Guess, Instance)) and \
        (not isinstance(value, (tuple, list)) or all(_known(v) for v in value))


def _kind_of(value: Any) -> int:
    """The search's kind for a value assigned in two ways (or in a loop)."""
    if isinstance(value, Guess):
        return value.kind
    if isinstance(value, int):   # (a bool too)
        return _INT
    return _FLOAT if isinstance(value, float) else _ARRAY
