"""What a callee object is: array op, builtin, user function, or opaque.

Requires: a callee object already resolved statically.
Produces: ``CallKind``, ``classify_callee``, ``is_effectful``,
``is_pure_static_callable``, ``is_state_read``, ``qualified_name`` and ``module_of``.
Invariants: pure inspection -- nothing here calls the callee, reads a
property, or imports a module (numpy/jax are looked up in ``sys.modules``).
"""

from __future__ import annotations

import builtins
import dataclasses
import enum
import functools
import os
import sys
import sysconfig
import types
import warnings
from pathlib import Path

ARRAY_MODULES = ("jax", "jaxlib", "numpy")
EFFECTFUL_MODULES = ("random", "time", "logging", "os", "posix", "nt", "sys", "numpy.random")
PURE_MODULES = frozenset({"math", "cmath", "operator", "_operator", "itertools"})

_EFFECTFUL_BUILTINS = ("print", "input", "open", "breakpoint", "exec", "eval", "__import__")
_PURE_BUILTINS = (
    "abs", "all", "any", "bool", "callable", "chr", "complex", "dict", "divmod",
    "enumerate", "filter", "float", "frozenset", "getattr", "hasattr", "hash", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next",
    "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted",
    "str", "sum", "tuple", "type", "zip", "format", "id",
)
_EFFECTFUL_IDS = frozenset(
    [id(getattr(builtins, n)) for n in _EFFECTFUL_BUILTINS]
    + [id(warnings.warn), id(warnings.warn_explicit)]
)
_PURE_IDS = frozenset(
    [id(getattr(builtins, n)) for n in _PURE_BUILTINS]
    + [id(functools.reduce), id(functools.partial), id(dataclasses.replace)]
)
# Private homes of public objects, for qualified_name.
_PUBLIC_HOMES = {
    "jax": ("jax.numpy", "jax.lax", "jax", "jax.nn", "jax.random", "jax.debug",
            "jax.scipy.special", "jax.tree_util"),
    "numpy": ("numpy", "numpy.linalg", "numpy.random", "numpy.fft"),
    "_operator": ("operator",), "_functools": ("functools",),
    "_warnings": ("warnings",), "posix": ("os",), "nt": ("os",),
}
_PUBLIC_HOMES["jaxlib"] = _PUBLIC_HOMES["jax"]


class CallKind(enum.Enum):
    ARRAY_OP = "array_op"
    BUILTIN = "builtin"
    USER_FUNCTION = "user_function"
    OPAQUE = "opaque"
    DYNAMIC = "dynamic"


def module_of(obj: object) -> str:
    """The module an object (or its class, or its receiver) comes from; '' if none."""
    mod = getattr(obj, "__module__", None)
    if isinstance(mod, str):
        return mod
    owner = getattr(obj, "__objclass__", None)  # method descriptors
    if owner is not None:
        return module_of(owner)
    receiver = getattr(obj, "__self__", None)  # builtin methods
    if isinstance(receiver, types.ModuleType):
        return receiver.__name__
    if receiver is not None:
        return module_of(type(receiver))
    return ""


def in_module(mod: str, roots: tuple[str, ...] | frozenset[str]) -> bool:
    """``mod`` is one of ``roots`` or a submodule of one."""
    return any(mod == r or mod.startswith(r + ".") for r in roots)


def classify_callee(obj: object) -> CallKind:
    """ARRAY_OP, BUILTIN, USER_FUNCTION or OPAQUE (never DYNAMIC)."""
    if isinstance(obj, types.MethodType):
        return classify_callee(obj.__func__)
    if isinstance(obj, functools.partial):
        return classify_callee(obj.func)
    if _inherited_builtin_method(obj):
        return CallKind.BUILTIN
    mod = module_of(obj)
    if _is_ufunc(obj) or in_module(mod, ARRAY_MODULES):
        return CallKind.ARRAY_OP
    if mod == "builtins":
        return CallKind.BUILTIN
    if isinstance(obj, types.FunctionType) and is_user_file(obj.__code__.co_filename):
        return CallKind.USER_FUNCTION
    return CallKind.OPAQUE


def _inherited_builtin_method(obj: object) -> bool:
    """``d.items()`` of a ``collections.defaultdict`` (an ``OrderedDict``, a
    ``Counter``): a C method the class inherits unchanged from ``dict``,
    ``list`` or ``set``, which computes what the builtin's does."""
    owner = getattr(obj, "__self__", None)
    if not isinstance(obj, types.BuiltinMethodType) or type(owner).__module__ != "collections":
        return False
    name = getattr(obj, "__name__", "")
    return any(isinstance(owner, base) and getattr(type(owner), name, None) is getattr(base, name, None) is not None
               for base in (dict, list, set))


def _is_ufunc(obj: object) -> bool:
    np = sys.modules.get("numpy")
    return np is not None and isinstance(obj, np.ufunc)


@functools.lru_cache(maxsize=4096)
def is_user_file(filename: str) -> bool:
    """Not in the stdlib, site-packages/dist-packages, or a frozen module."""
    if filename.startswith("<frozen"):
        return False
    if filename.startswith("<"):
        return True  # exec/REPL code written by the user
    path = os.path.realpath(filename)
    if {"site-packages", "dist-packages"} & set(Path(path).parts):
        return False
    return not any(path == lib or path.startswith(lib + os.sep) for lib in _stdlib_dirs())


@functools.lru_cache(maxsize=1)
def _stdlib_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple({os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib") if k in paths})


def is_effectful(obj: object) -> bool:
    """Calling ``obj`` does I/O, reads a clock/RNG, or touches process state."""
    if id(obj) in _EFFECTFUL_IDS or _is_jax_debug(obj):
        return True
    if is_state_read(obj):
        return False   # a read, guarded where it is made
    if obj is getattr(sys.modules.get("logging"), "getLogger", None):
        return False   # looks a logger up; its methods are host printers
    if isinstance(obj, types.MethodType):
        return is_effectful(obj.__func__) or in_module(module_of(obj.__self__), EFFECTFUL_MODULES)
    return in_module(module_of(obj), EFFECTFUL_MODULES)


# Reads of interpreter state that change nothing: called at trace time, their
# result guarded (re-read before every call; a ``sys.setrecursionlimit`` or a
# call from another thread re-specialises).
_STATE_READS = ("getrecursionlimit", "getdefaultencoding", "getfilesystemencoding", "getfilesystemencodeerrors",
                "getswitchinterval", "is_finalizing", "get_int_max_str_digits")


@functools.lru_cache(maxsize=1)
def _state_read_ids() -> frozenset:
    import _thread
    import threading

    found = [getattr(sys, n) for n in _STATE_READS if hasattr(sys, n)]
    found += [_thread.get_ident, threading.get_ident, threading.current_thread, threading.main_thread, os.getpid]
    return frozenset(id(f) for f in found)


def is_state_read(obj: object) -> bool:
    """``obj()`` only reads interpreter state (``sys.getrecursionlimit()``,
    ``threading.get_ident()``, ``ContextVar.get`` of a context variable): its
    value is a static value of the call, to be guarded like a global's."""
    if id(obj) in _state_read_ids():
        return True
    import contextvars

    owner = getattr(obj, "__self__", None)
    return isinstance(owner, contextvars.ContextVar) and getattr(obj, "__name__", "") == "get"


def _is_jax_debug(obj: object) -> bool:
    debug = getattr(sys.modules.get("jax"), "debug", None)
    effects = ("print", "callback", "breakpoint")
    return debug is not None and any(getattr(debug, n, None) is obj for n in effects)


def is_pure_static_callable(obj: object) -> bool:
    """Safe to call at trace time on static (non-array) arguments."""
    if id(obj) in _PURE_IDS or obj is getattr(sys.modules.get("logging"), "getLogger", None):
        return True
    if isinstance(obj, types.MethodType) or not callable(obj):
        return False
    return module_of(obj) in PURE_MODULES


# Names of library functions (their modules' namespaces are searched, ~600
# entries for jax.numpy): kept per object, which libraries keep alive anyway.
_LIBRARY_NAMES: dict[int, tuple[object, str]] = {}
_LIBRARY_ROOTS = ("jax", "jaxlib", "numpy", "operator", "_operator", "builtins", "math", "ast2graph")


def qualified_name(obj: object) -> str:
    """Best-effort dotted public name: 'jax.numpy.sum', 'builtins.len', ..."""
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    mod = module_of(obj)
    library = mod.split(".")[0] in _LIBRARY_ROOTS and not isinstance(obj, types.MethodType)
    if library:
        hit = _LIBRARY_NAMES.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
    name = _qualified_name(obj, mod)
    if library and len(_LIBRARY_NAMES) < 4096:
        _LIBRARY_NAMES[id(obj)] = (obj, name)
    return name


def _qualified_name(obj: object, mod: str) -> str:
    home = _public_home(mod, obj)
    if home:
        return home
    if isinstance(obj, types.MethodType):
        return qualified_name(obj.__func__)
    name = _name_of(obj)
    if _is_ufunc(obj) and not mod:
        mod = "numpy"
    return f"{mod}.{name}" if mod else name


def _name_of(obj: object) -> str:
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    return name if isinstance(name, str) else type(obj).__qualname__


def _public_home(mod: str, obj: object) -> str:
    """'pkg.name' where ``mod`` itself or a public module of its package exports ``obj``."""
    preferred = getattr(obj, "__name__", None)
    public = bool(mod) and not any(part.startswith("_") for part in mod.split("."))
    homes = ((mod,) if public else ()) + _PUBLIC_HOMES.get(mod.split(".")[0], ())
    for home in homes:
        found = _exported_as(sys.modules.get(home), obj, preferred)
        if found:
            return f"{home}.{found}"
    return ""


def _exported_as(module: types.ModuleType | None, obj: object, preferred: object) -> str:
    if module is None:
        return ""
    space = vars(module)
    if isinstance(preferred, str) and space.get(preferred) is obj:
        return preferred
    return next((k for k, v in list(space.items()) if v is obj and not k.startswith("_")), "")


_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}


def is_host_printer(callee: Any) -> bool:
    """Effects whose only result is text: ``print`` and ``logging`` calls."""
    import builtins
    import logging

    if callee is builtins.print:
        return True
    name = getattr(callee, "__name__", "")
    owner = getattr(callee, "__self__", None)
    if name in _LOG_METHODS and isinstance(owner, (logging.Logger, logging.LoggerAdapter)):
        return True
    return name in _LOG_METHODS and getattr(callee, "__module__", "") == "logging"
