"""``np.apply_along_axis`` of a traced NumPy array, as NumPy's loop runs it.

Requires: the interpreter's ``call`` (a call converted as the user's code
makes it), ``subscript`` and ``options.unroll_limit``.
Produces: ``apply_along_axis(interp, args, kwargs, node)``: the result of
``np.apply_along_axis(func1d, axis, arr, *args, **kwargs)``, ``func1d``
called once per 1-d slice (``arr`` with ``axis`` moved last, slices in
``np.ndindex`` order), each call converted like any call of the user's (a
lambda, ``np.convolve``, ``np.sin``, a print inside, in eager's order), the
results stacked into a new array and transposed as NumPy's buffer is; or
NotImplemented where the call is not of this form (JAX's namesake is tried,
which falls back when ``func1d`` needs values).
Invariants: the result is what NumPy returns (a new ndarray, 0-d for a 1-d
``arr`` and scalar results; the first result's dtype and shape): results of
differing shapes or dtypes (NumPy casts and broadcasts them into the first's
buffer) fall back, as do more slices than ``unroll_limit``.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import numpy as np

from ..fallback.sites import FallbackCode
from ..ir.core import Value
from .state import LocalFunction


_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def _as_array(interp: Any, value: Any, node: Any) -> Any:
    return interp.call(np.asanyarray, (value,), {}, node)


def _numpy_array(x: Any) -> bool:
    return isinstance(x, Value) and x.type.numpy and not x.type.python and not x.type.mixed and bool(x.type.shape)


def _bound(args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
    """``apply_along_axis(func1d, axis, arr, *args, **kwargs)``'s own
    parameters given by keyword (``axis=0, arr=x``, as SciPy calls it) moved
    into place; None where they cannot be (eager's TypeError: as before)."""
    args, kwargs = tuple(args), dict(kwargs)
    for k, name in enumerate(("func1d", "axis", "arr")):
        if name in kwargs:
            if len(args) != k:
                return None
            args += (kwargs.pop(name),)
    return args, kwargs


def apply_along_axis(interp: Any, args: tuple, kwargs: dict, node: Any) -> Any:
    bound = _bound(args, kwargs)
    if bound is None:
        return NotImplemented
    args, kwargs = bound
    if len(args) < 3 or not _numpy_array(args[2]) or type(args[1]) is not int:
        return NotImplemented
    func1d, axis, arr, *extra = args
    nd = len(arr.type.shape)
    if not -nd <= axis < nd:
        return NotImplemented          # eager's AxisError: as before
    axis %= nd
    dims = list(range(nd))
    view = interp.call(np.transpose, (arr, dims[:axis] + dims[axis + 1:] + [axis]), {}, node)
    outer = tuple(view.type.shape[:-1])
    indices = list(np.ndindex(outer))
    if not indices:
        return NotImplemented          # eager's ValueError (an iteration dimension of 0): as before
    if len(indices) > interp.options.unroll_limit:
        raise interp.graph_break(FallbackCode.CONCRETE_VALUE, node, f"np.apply_along_axis over {len(indices)} slices "
                                 f"(more than unroll_limit={interp.options.unroll_limit}, one call of func1d each)")
    results = []
    # a Python function's returns converted where each is made (``exec_Return``), as NumPy converts its
    # result: ``return np.full(n, nan)`` on one path and ``return (a, b)`` on another join as one array
    adapts = isinstance(func1d, types.FunctionType) and not func1d.__code__.co_flags & _GENERATOR_FLAGS \
        or isinstance(func1d, LocalFunction) and not getattr(func1d.unit, "generator", True)
    for index in indices:
        part = interp.subscript(view, index + (Ellipsis,), node)
        if adapts:
            interp.__dict__["_return_adapter"] = _as_array
        try:
            out = interp.call(func1d, (part, *extra), dict(kwargs), node)
        finally:
            interp.__dict__.pop("_return_adapter", None)
        results.append(interp.call(np.asanyarray, (out,), {}, node))
    first = results[0]
    if not all(isinstance(r, Value) and r.type.numpy and not r.type.mixed and r.type.shape == first.type.shape
               and r.type.dtype == first.type.dtype for r in results):
        raise interp.graph_break(FallbackCode.CONCRETE_VALUE, node, "np.apply_along_axis whose func1d results "
                                 "differ in shape or dtype (eager casts and broadcasts them into the first's)")
    stacked = interp.call(np.stack, (results,), {}, node)
    res_nd = len(first.type.shape)
    buff = interp.call(np.reshape, (stacked, outer + tuple(first.type.shape)), {}, node)
    buff_dims = list(range(len(outer) + res_nd))
    n = len(buff_dims)
    permute = buff_dims[:axis] + buff_dims[n - res_nd:] + buff_dims[axis:n - res_nd]
    return interp.call(np.transpose, (buff, permute), {}, node)
