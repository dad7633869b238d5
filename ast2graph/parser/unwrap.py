"""Reducing a callable to the plain Python function that holds its code.

Requires: any callable.
Produces: ``unwrap_callable(obj) -> (fn, bound_args, bound_kwargs)`` such that
calling ``obj(*a, **k)`` means ``fn(*bound_args, *a, **{**bound_kwargs, **k})``.
Invariants: ``functools.wraps`` wrappers are plain functions and are returned
as they are (``__wrapped__`` is never followed); a callable with no Python
function behind it (builtin, C extension) raises ``NoSourceError``. A NumPy
``__array_function__`` dispatcher (``np.polyval``) is reduced to the Python
function it dispatches to (``_implementation``): what NumPy itself calls when
no argument overrides ``__array_function__`` (``overrides_array_function``
tells the caller when one does, so that call goes through the dispatcher).
"""

from __future__ import annotations

import functools
import inspect
import types

from ast2graph.diagnostics import NoSourceError
from ast2graph.parser.source import describe_callable

Unwrapped = tuple[types.FunctionType, tuple, dict]

_MAX_DEPTH = 32


def unwrap_callable(obj: object) -> Unwrapped:
    """``(function, leading positional args, keyword args)`` behind ``obj``."""
    found = _unwrap(obj, 0)
    if found is None:
        raise NoSourceError(
            f"{describe_callable(obj)} is a builtin or C function: it has no "
            "Python source to convert"
        )
    return found


def _unwrap(obj: object, depth: int) -> Unwrapped | None:
    if depth > _MAX_DEPTH:
        return None
    if isinstance(obj, types.FunctionType):
        return obj, (), {}
    if isinstance(obj, types.MethodType):
        return _prepend(_unwrap(obj.__func__, depth + 1), (obj.__self__,), {})
    if isinstance(obj, functools.partial):
        return _prepend(_unwrap(obj.func, depth + 1), obj.args, obj.keywords)
    if isinstance(obj, (staticmethod, classmethod)):
        return _unwrap(obj.__func__, depth + 1)
    if _is_builtin(obj) or isinstance(obj, type):
        return None
    impl = array_function_implementation(obj)
    if impl is not None:
        return _unwrap(impl, depth + 1)
    return _unwrap_call_method(obj, depth)


def array_function_implementation(obj: object) -> types.FunctionType | None:
    """The Python implementation behind a NumPy ``__array_function__``
    dispatcher (``np.polyval._implementation``), None for anything else."""
    if type(obj).__name__ != "_ArrayFunctionDispatcher" or type(obj).__module__ != "numpy":
        return None
    impl = getattr(obj, "_implementation", None)
    return impl if isinstance(impl, types.FunctionType) else None


def overrides_array_function(tree: object, depth: int = 0) -> bool:
    """Whether an argument (or an element of a list, tuple or dict argument)
    is of a type overriding ``__array_function__`` (a dask or CuPy array, an
    ``ndarray`` subclass with its own protocol): NumPy's dispatcher would hand
    the call to that type instead of running the implementation."""
    if isinstance(tree, (list, tuple)):
        return depth < 4 and any(overrides_array_function(x, depth + 1) for x in tree)
    if isinstance(tree, dict):
        return depth < 4 and any(overrides_array_function(x, depth + 1) for x in tree.values())
    method = getattr(type(tree), "__array_function__", None)
    return method is not None and method is not _NDARRAY_ARRAY_FUNCTION


def _ndarray_array_function() -> object:
    import numpy as np

    return np.ndarray.__array_function__


_NDARRAY_ARRAY_FUNCTION = _ndarray_array_function()


def _prepend(found: Unwrapped | None, args: tuple, kwargs: dict) -> Unwrapped | None:
    if found is None:
        return None
    fn, inner_args, inner_kwargs = found
    return fn, inner_args + tuple(args), {**inner_kwargs, **kwargs}


def _is_builtin(obj: object) -> bool:
    return isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType,
                            types.WrapperDescriptorType, types.MethodWrapperType,
                            types.MethodDescriptorType, types.ClassMethodDescriptorType))


def _unwrap_call_method(obj: object, depth: int) -> Unwrapped | None:
    """A callable instance: bind ``type(obj).__call__`` the way Python does."""
    try:
        raw = inspect.getattr_static(type(obj), "__call__")
    except AttributeError:
        return None
    if not isinstance(raw, (types.FunctionType, staticmethod, classmethod)):
        return None
    return _unwrap(raw.__get__(obj, type(obj)), depth + 1)


def code_signature(fn: types.FunctionType) -> inspect.Signature:
    """The parameters ``fn``'s code binds, whatever ``fn.__signature__`` or
    ``__wrapped__`` claim (array-api-compat's ``get_xp`` wrapper declares its
    wrapped function's parameters over its own ``*args, **kwargs``)."""
    if "__signature__" not in getattr(fn, "__dict__", {}):
        return inspect.signature(fn, follow_wrapped=False)
    plain = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    plain.__kwdefaults__ = fn.__kwdefaults__
    return inspect.signature(plain, follow_wrapped=False)

