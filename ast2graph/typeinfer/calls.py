"""Calls during specialisation: array ops, builtins, user functions (inlined).

Requires: the ``Specializer`` state (mixed in).
Produces: the value of a call site; array work becomes ``CallOp``s; user
functions and libraries' Python functions with source are converted
recursively (inlined, with a depth guard), their effects judged statement by
statement; ``print``/``logging`` and ``warnings.warn`` become ordered host
effects (``hostwarnings``); reads of interpreter state
(``sys.getrecursionlimit()``) are guarded static values; ``inspect``'s
signature functions run at trace time (``kinds.introspection``), guarded on
what they read; a read of an outside list or dict the graph changed sees its
shadow (``writeback.shadow_of``); effectful callees (``np.random``, C code
without source) raise ``GraphBreak``.
Invariants: a callee is never run at trace time unless it is pure
(``resolver.is_pure_static_callable``), a read of interpreter state or an
``inspect`` signature function (guarded), a jax/numpy array op, a container
method on an object created during tracing, or a user function converted
by this very interpreter.
"""

from __future__ import annotations

import bisect
import collections.abc
import contextlib
import copy
import functools
import heapq
import inspect
import itertools
import math
import numbers
import operator
import sys
import types
import warnings
from typing import Any

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..diagnostics import NoSourceError
from ..fallback.sites import FallbackCode, GraphBreak
from ..ir.core import CallOp, KindedValue, Value, is_extended
from ..parser import StaleSourceError, unwrap_callable
from ..parser.unwrap import code_signature
from ..resolver import (CallKind, classify_callee, is_effectful, is_host_printer, is_pure_static_callable, is_state_read,
                        qualified_name)
from ..graphlib import arrays, casts
from . import apply_along, hostwarnings, jaxcallbacks, layouts
from .generators import GeneratorMixin, generators_in
from .guards import MUTABLE_BUILTINS
from .sorting import SortMixin
from .closures import TracedClosure, factory_for, free_names, hoisted_closure, python_arithmetic
from . import compiled_outputs, lapack, numpy_api, numpy_inplace, scipy_api
from .numpy_api import numpy_to_jnp as _numpy_to_jnp
from .mutation import is_numpy_callable, numpy_gives_ndarray
from .operators import numpy_operands
from .nnx import is_nnx, is_variable, nnx_transforms
from .varlist import tail_of
from .listindex import PickedRow
from .masked import MaskedMethod, MaskedSlice
from .kinds import (standin, CALLS_ARGUMENTS, INSPECTORS, MOVES_ARGUMENTS, Unobservable, contains_standin, introspection, observe,
                    same_inputs, signature_inputs, standin_types, standins_in)
from .lattice import DATA_INT64, INT_BITS, INT_RANGE, WIDE_INTS, describe, is_array
from ..graphlib.trees import tree_flatten, tree_leaves
from .pathkinds import MAX_COMBINATIONS, kinded_in
from .state import Frame, Guard, ReturnSignal, contains_value, unit_of_function

_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
                arrays.COMPARE["In"], arrays.COMPARE["NotIn"])

_MUTATING_METHODS = jaxcallbacks.MUTATING_METHODS
def _track_int_bits(out: Value, x: Value) -> None:
    """The bits the Python int ``out = int(x)`` may need (``lattice.INT_BITS``)
    and whether a JAX op must check it fits int32 (``WIDE_INTS``)."""
    dtype = x.type.dtype
    if dtype.kind in "iu" and x in INT_RANGE:   # int() of an integer keeps its value: its known range too
        INT_RANGE[out] = INT_RANGE[x]
    elif dtype.kind == "b" and not x.type.shape and out.type.dtype.kind in "iu":   # int(x > 0): 0 or 1
        INT_RANGE[out] = (0, 1)
    if x.type.python and dtype.kind in "iu":   # int() of a Python int: the same int
        if x in INT_BITS:
            INT_BITS[out] = INT_BITS[x]
        if x in WIDE_INTS:
            WIDE_INTS.add(out)
    elif dtype.kind in "biu" and dtype.itemsize < 8:
        INT_BITS[out] = 1 if dtype.kind == "b" else dtype.itemsize * 8 - (dtype.kind == "i")
        if INT_BITS[out] > 31:
            WIDE_INTS.add(out)
    else:   # any int64 (a float's value, an int64 or uint64 array's)
        WIDE_INTS.add(out)
        if dtype.kind in "iu":   # (a float's is at most 2**63 - 1024: a small static int added fits)
            DATA_INT64.add(out)


# ``x.item()``: the Python number of the dtype's kind (bfloat16 and the like: kind "V", a float)
def _is_str_join(callee: Any) -> bool:
    return type(callee) is types.BuiltinMethodType and type(getattr(callee, "__self__", None)) is str \
        and callee.__name__ == "join"


def _join_formatted(callee: Any, args: tuple, kwargs: dict) -> Any:
    """``sep.join(items)`` of a list or tuple of strings, some formatted from
    traced values (``DeferredStr``): one deferred string, formatted on the host
    as eager joins the texts; None where that is not the call."""
    if not _is_str_join(callee) or kwargs or len(args) != 1 or type(args[0]) not in (list, tuple):
        return None
    owner = callee.__self__
    items = args[0]
    if not any(isinstance(i, arrays.DeferredStr) for i in items) \
            or not all(type(i) is str or isinstance(i, arrays.DeferredStr) for i in items):
        return None
    out = items[0]
    for item in items[1:]:
        out = out + owner + item
    return out


# ``x.tolist()`` in the graph makes one traced Python number per element: past
# this many it is cheaper (and as exact) to let Python make the list.
TOLIST_LIMIT = 256
_ITEM_KINDS = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
# math's functions that give a Python int of a number, by the rounding each does
_MATH_ROUNDINGS = ((math.floor, "floor"), (math.ceil, "ceil"), (math.trunc, "trunc"))
# NumPy's linear algebra that raises LinAlgError where jnp.linalg's returns inf/NaN
_LINALG_ERRORS = ((np.linalg.inv, "Singular matrix"), (np.linalg.solve, "Singular matrix"),
                  (np.linalg.cholesky, "Matrix is not positive definite"))
# JAX creation functions folded at trace time from static Python data (``fold_constant``)
def _atleast_is_self(callee: Any, x: Any) -> bool:
    """Whether eager's ``np.atleast_Nd(x)`` is ``x`` itself: a NumPy array
    (not a NumPy scalar) of at least N dimensions."""
    n = next((k for k, f in ((1, np.atleast_1d), (2, np.atleast_2d), (3, np.atleast_3d)) if callee is f), None)
    return n is not None and isinstance(x, Value) and x.type.kinds == {"numpy"} and not x.type.mixed \
        and len(x.type.shape) >= n


def _owns_memory(a: np.ndarray) -> bool:
    """The NumPy array ``a``'s memory is NumPy's own: the end of its chain of
    bases allocated it (no other object's buffer, such as a jax.Array's)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a.base is None


def _astype_is_self(x: Value, args: tuple, kwargs: dict) -> bool:
    """Whether eager's ``x.astype(dtype, copy=False)`` of the NumPy array
    ``x`` is ``x`` itself: the same dtype, and an order any layout satisfies."""
    names = ("dtype", "order", "casting", "subok", "copy")
    if len(args) > len(names) or set(kwargs) - set(names):
        return False
    given = {**dict(zip(names, args)), **kwargs}
    if not (x.type.numpy and not x.type.python and (x.type.shape or x.type.array0)) or given.get("copy", True) is not False:
        return False
    try:
        same = "dtype" in given and np.dtype(given["dtype"]) == x.type.dtype
    except TypeError:
        return False
    return same and given.get("order", "K") == "K" and given.get("subok", True) is True


def _jax_astype_is_self(x: Value, args: tuple, kwargs: dict) -> bool:
    """Whether eager's ``x.astype(dtype)`` of the jax.Array ``x`` is ``x``
    itself: the same dtype, ``x`` not weakly typed, no ``copy=True``."""
    if not isinstance(x, Value) or x.type.kinds != {"jax"} or x.type.weak_type or len(args) > 2 \
            or set(kwargs) - {"dtype", "copy"}:
        return False
    given = {**dict(zip(("dtype", "copy"), args)), **kwargs}
    try:
        return "dtype" in given and np.dtype(given["dtype"]) == x.type.dtype and not given.get("copy", False)
    except TypeError:
        return False


def _jax_asarray_is_self(callee: Any, args: tuple, kwargs: dict) -> bool:
    """Whether eager's ``jnp.asarray(x[, dtype])`` (``jnp.array(x,
    copy=False)``) of the jax.Array ``x`` is ``x`` itself: no dtype, or the
    same one of an ``x`` not weakly typed, and no copy asked for."""
    if callee is jnp.asarray:
        copy = kwargs.get("copy")
    elif callee is jnp.array:
        copy = kwargs.get("copy", True)
    else:
        return False
    if not args or len(args) > 2 or set(kwargs) - {"dtype", "copy"} or copy:
        return False
    x, dtype = args[0], args[1] if len(args) == 2 else kwargs.get("dtype")
    if not isinstance(x, Value) or x.type.kinds != {"jax"}:
        return False
    try:
        return dtype is None or not x.type.weak_type and np.dtype(dtype) == x.type.dtype
    except TypeError:
        return False


def _astype_layout_decides(x: Value, args: tuple, kwargs: dict) -> bool:
    """Whether eager's ``x.astype(x.dtype, order=o, copy=False)`` with ``o``
    other than "K" is ``x`` itself or a copy depending on ``x``'s memory
    layout (a non-contiguous argument, ``a[::2]``, is copied for "A" and "C"),
    which the graph does not model."""
    names = ("dtype", "order", "casting", "subok", "copy")
    given = {**dict(zip(names, args)), **kwargs}
    if len(args) > len(names) or set(kwargs) - set(names) or given.get("copy", True) is not False \
            or given.get("order", "K") == "K" or not (x.type.numpy and not x.type.python):
        return False
    try:
        return "dtype" in given and np.dtype(given["dtype"]) == x.type.dtype
    except TypeError:
        return False


@functools.lru_cache(maxsize=1)
def _library_effects() -> dict[int, str]:
    """NumPy functions that read or write files or change NumPy's global
    settings: id -> what they do. NumPy is otherwise free of effects, so a
    call of it on static values runs once, at trace time."""
    table = {"save": "writes a file", "savez": "writes a file", "savez_compressed": "writes a file",
             "savetxt": "writes a file", "load": "reads a file", "loadtxt": "reads a file",
             "genfromtxt": "reads a file", "fromfile": "reads a file", "fromregex": "reads a file",
             "memmap": "maps a file", "set_printoptions": "changes NumPy's settings",
             "seterr": "changes NumPy's settings", "seterrcall": "changes NumPy's settings",
             "setbufsize": "changes NumPy's settings"}
    out = {}
    for name, what in table.items():
        fn = getattr(np, name, None)
        if fn is not None:
            out[id(fn)] = what
    return out


def _library_effect(callee: Any) -> str | None:
    """What a library call does besides computing a value, where it does
    (``_library_effects``; ``ndarray.tofile``/``dump`` write a file)."""
    try:
        what = _library_effects().get(id(callee))
    except TypeError:
        return None
    if what is not None:
        return what
    owner = getattr(callee, "__self__", None)
    if isinstance(owner, np.ndarray) and getattr(callee, "__name__", "") in ("tofile", "dump"):
        return "writes a file"
    return None


_FOLDABLE = (jnp.asarray, jnp.array, jnp.full, jnp.zeros, jnp.ones, jnp.arange)
_FOLD_LEAVES = (bool, int, str, type(None), np.dtype, type)
_FOLD_SIZE = 8   # shapes, indices, bounds (a longer array iterated by a loop stays a graph value: lax.scan)


def _leaves_or_none(tree: Any) -> list | None:
    """The leaves of ``tree`` (dicts in their order), or None where it cannot be flattened."""
    try:
        return tree_leaves(tree)
    except Exception:  # noqa: BLE001 - unsortable keys and the like: not a folding candidate
        return None
_JAX_ARRAY = arrays.ARRAY_IMPL
# callables that only hold or hand on their arguments: a value of path-dependent kind passes as it is
# (``str(s)``, ``repr(s)``: a string formatted on the host from eager's object, ``strformat``)
_KIND_MOVERS = frozenset(map(id, (list, tuple, dict, set, frozenset, zip, enumerate, iter, reversed, functools.partial,
                                  str, repr, ascii)))
def _has_trunc(t: Any) -> bool:
    """Whether eager's operand of this type defines ``__trunc__``: a Python
    number, or an ``np.float64`` scalar (a subclass of float); NumPy's other
    scalars, 0-d arrays and jax.Arrays make ``math.trunc`` raise TypeError."""
    return t.python or t.numpy and not t.array0 and not t.shape and t.dtype == np.float64


def _numpy_real_operands(args: tuple) -> bool:
    """Integer or float operands of NumPy's (NumPy arrays or scalars of NumPy
    kind, Python numbers), one at least a traced NumPy value, no jax.Array."""
    def ok(x: Any) -> bool:
        if isinstance(x, Value):
            return type(x) is Value and not x.type.mixed and x.type.kinds <= {"numpy", "array0", "python"} \
                and getattr(x.type.dtype, "kind", "") in "iuf"
        return type(x) in (bool, int, float) or isinstance(x, (np.integer, np.floating))
    return all(ok(x) for x in args) and any(isinstance(x, Value) and x.type.kinds & {"numpy", "array0"} for x in args)


def _real_python_number(x: Any) -> bool:
    """A Python int, float or bool, or a traced one (not complex, not a NumPy or JAX value)."""
    if isinstance(x, Value):
        return x.type.python and x.type.dtype.kind != "c" and not x.type.shape and type(x) is Value
    return type(x) in (bool, int, float)


_MATH_FLOATS = ((math.sqrt, "sqrt"), (math.fabs, "fabs"))   # exact in the graph; the others: arrays.HOST_MATH
# math's float predicates: exact in the graph, a Python bool of the operand converted as float() does
_MATH_PREDICATES = ((math.isnan, "isnan"), (math.isinf, "isinf"), (math.isfinite, "isfinite"))


def _complex_in_graph(args: tuple, kwargs: dict, outer_traced: bool) -> bool:
    """``complex(z)`` of one traced scalar, ``complex(re, im)`` of two real
    ones (traced or Python numbers): the parts' values, no arithmetic."""
    if kwargs or not 1 <= len(args) <= 2:
        return False
    for a in args:
        if isinstance(a, Value):
            t = a.type
            if type(a) is not Value or t.shape or t.mixed or is_extended(t.dtype) or t.dtype.kind not in "biufc" \
                    or t.dtype.kind == "c" and (len(args) == 2 or outer_traced and "jax" in t.kinds):
                return False
        elif type(a) not in (int, float, bool):
            return False
    return True


def _isclose_in_graph(args: tuple, kwargs: dict) -> bool:
    """``math.isclose(a, b)`` of traced real scalars (or Python numbers) with
    static non-negative tolerances (a negative one raises ValueError in eager)."""
    if len(args) != 2 or set(kwargs) - {"rel_tol", "abs_tol"} or not any(isinstance(a, Value) for a in args):
        return False
    if not all(not a.type.shape and a.type.dtype.kind in "biuf" if isinstance(a, Value) else
               type(a) in (int, float, bool) for a in args):
        return False
    return all(type(t) in (int, float) and t >= 0 for t in kwargs.values())


def _host_math(callee: Any) -> str | None:
    """The name of a ``math`` function of ``arrays.HOST_MATH`` that ``callee`` is."""
    name = getattr(callee, "__name__", None)
    return name if name in arrays.HOST_MATH and getattr(math, name, None) is callee else None


class CallMixin(GeneratorMixin, SortMixin):
    def eval_Call(self, node: gast.Call) -> Any:
        if isinstance(node.func, gast.Attribute):
            owner = self.eval(node.func.value)
            if type(owner) is KindedValue:   # ``s.item()`` of a value of path-dependent kind: each kind's method
                args, kwargs = self._call_arguments(node)
                method = node.func.attr
                return self.split_kinds((owner, args, kwargs), lambda t: self.call(
                    self.attribute_of(t[0], method, node.func), t[1], t[2], node), node)
            callee = self.attribute_of(owner, node.func.attr, node.func)
        else:
            callee = self.eval(node.func)
        if self.__dict__.get("_str_format_only") and not (type(getattr(callee, "__self__", None)) is str
                                                          and getattr(callee, "__name__", "") == "format"):
            # a message block run before eager would run it (control.py): only str.format may be called
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, "a call other than str.format in the statements "
                                   "computing a raise's message under a traced condition", "call")
        args, kwargs = self._call_arguments(node)
        return self.call(callee, args, kwargs, node)

    @contextlib.contextmanager
    def str_format_only(self):
        """While a message block runs speculatively (control.py's checked
        raises): the only call allowed is ``str.format`` (the block was
        accepted by its syntax, ``<expr>.format(...)``; ``<expr>`` is checked here)."""
        before = self.__dict__.get("_str_format_only", False)
        self._str_format_only = True
        try:
            yield
        finally:
            self._str_format_only = before

    def _call_arguments(self, node: gast.Call) -> tuple[tuple, dict]:
        args: list = []
        for a in node.args:
            if isinstance(a, gast.Starred):
                args.extend(self.iterate_static(self.eval(a.value), a))
            else:
                args.append(self.eval(a))
        kwargs: dict = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.eval(kw.value))
            else:
                kwargs[kw.arg] = self.eval(kw.value)
        return tuple(args), kwargs

    def call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        from .state import LocalFunction, contains_value

        if isinstance(getattr(type(callee), "_a2g_inline", None), property):  # nested to_static: the function itself
            return self.call(callee._a2g_inline, args, kwargs, node)
        if type(callee) is KindedValue:   # ``type(r)(2)``, the class by the path taken: each path's callee
            return self.split_kinds((callee, args, kwargs), lambda t: self.call(*t, node), node)
        if callee is np.apply_along_axis:   # func1d converted once per slice, as NumPy's loop calls it
            applied = apply_along.apply_along_axis(self, args, kwargs, node)
            if applied is not NotImplemented:
                return applied
        numpy_method = _numpy_python_method(callee)
        if numpy_method is not None and (not isinstance(callee, types.MethodType) or contains_value((args, kwargs))):
            # ``Polynomial(c)(x)``, ``Polynomial.fit(x, y, 2)``, ``np.poly1d(p).deriv()`` on traced values:
            # NumPy's own Python, converted with its receiver as the first argument (as an ``np.*`` function's)
            if not contains_value((numpy_method[1], args, kwargs)):
                return self.inline_user(numpy_method[0], (numpy_method[1], *args), kwargs, node)
            return self.call(numpy_method[0], (numpy_method[1], *args), kwargs, node)
        effect = _library_effect(callee)
        if effect is not None:   # never run at trace time only: eager does it on every call
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{qualified_name(callee)} {effect}: eager does it "
                                   "on every call", "call")
        handled = self.generator_object_call(callee, args, kwargs, node)   # generators.py
        if handled is not NotImplemented:
            return handled
        if type(callee) is functools.partial:   # what it wraps decides (a user function, print, jnp.sum)
            if not self._is_fresh(callee):   # its keywords are a dict a caller may change in place
                self.guard_reads((callee.args, callee.keywords), node)
            return self.call(callee.func, (*callee.args, *args), {**callee.keywords, **kwargs}, node)
        if generated_record_method(callee):   # ``super().__init__(statistic, pvalue)`` of a SciPy result class
            owner = getattr(callee, "__self__", None) if hasattr(callee, "__func__") else (args[0] if args else None)
            if self._is_fresh(owner):   # stores into this call's new object only: as eager, at trace time
                return self.static_call(callee, args, kwargs, node)
        if kinded_in((args, kwargs)) and self._splits_kinds(callee) and not self._stores_kinded(callee, args, kwargs):
            # an argument of path-dependent kind: the call as eager makes it with each kind's object
            if self.kind_combinations((args, kwargs)) > MAX_COMBINATIONS and _is_jax_function(callee):
                out = self.collapsed_jax_call(callee, args, kwargs, node)
                if out is not NotImplemented:
                    return out
            return self.split_kinds((args, kwargs), lambda t: self.call(callee, t[0], t[1], node), node)

        if isinstance(callee, TransformedFn) and _local_functions_in((callee.args, callee.kwargs)):
            # ``g = jax.grad(lambda p: ...)``, called now: its closure made from what its free names hold now
            targs, tkwargs = self._closures_for_jax((callee.args, callee.kwargs), node)
            if self.nnx_in(targs, tkwargs) or contains_value((targs, tkwargs)):
                callee = TransformedFn(callee.transform, targs, tkwargs)
            else:   # static closures: the transformed function itself, as a call of it always was
                callee = self.call(callee.transform, targs, tkwargs, node)
            return self.call(callee, args, kwargs, node)
        if isinstance(callee, TransformedFn):   # jax.vmap(f)(x) with f closing over traced values
            if self.nnx_in(callee.args, callee.kwargs, args, kwargs):   # nnx.value_and_grad(loss)(model): on its state
                # (the transform bound into the op: flax's own code is not a function "handed to JAX")
                return self.nnx_call(functools.partial(_apply_transform, callee.transform),
                                     (callee.args, callee.kwargs, *args), kwargs, node,
                                     f"nnx {qualified_name(callee.transform)}(...)")
            return self.emit_call(_apply_transform, (callee.transform, callee.args, callee.kwargs, *args), kwargs, node,
                                  qualified_name(callee.transform))
        got = self.outside_get(callee, args, kwargs, node)   # ``D.get(k, v)``: the item's own guard (writeback.py)
        if got is not NotImplemented:
            return got
        callee, args = self._shadowed(callee, args, node)
        if (callee is np.may_share_memory or callee is np.shares_memory) and len(args) == 2 and not kwargs:
            known = self._shares_memory(*args)
            if known is not None:   # sklearn's check_array: copy only where the input may be shared
                return known
        owner = getattr(callee, "__self__", None)   # ``c.prod()`` of a folded constant
        creation = any(callee is f for f in _FOLDABLE)
        operands = _leaves_or_none((args, kwargs)) if creation or type(owner) is _JAX_ARRAY else None
        if operands is not None and (creation and self.folded_operands(operands, need_one=False) or
                                     type(owner) is _JAX_ARRAY and self.folded_operands([owner, *operands])):
            folded = self.fold_constant(callee, args, kwargs)
            if folded is not None:
                return folded
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "item" and not args and not kwargs:
            kind = _ITEM_KINDS.get(callee.value.type.dtype.kind, float)
            return self.python_number(callee.value, kind, "trunc", ".item()", node)
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "tolist" and not args and not kwargs:
            return self.tolist(callee.value, node)
        if isinstance(callee, arrays.ArrayMethod) and callee.name in arrays.HOST_METHODS:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f".{callee.name}() of a traced array needs its "
                                   "values on the host (a Python object made from them)")
        if isinstance(callee, arrays.ArrayMethod) and callee.name in numpy_inplace.METHODS \
                and callee.value.type.kinds & {"numpy", "array0"}:
            return self._numpy_write(arrays.method_caller(callee.name), (callee.value, *args), kwargs, node,
                                     numpy_inplace.METHODS[callee.name])   # a.sort(), a.fill(v): in place
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "astype" and _astype_is_self(callee.value, args, kwargs):
            return callee.value   # x.astype(x.dtype, copy=False) of an ndarray: x itself
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "astype" and _jax_astype_is_self(callee.value, args, kwargs):
            return callee.value   # x.astype(x.dtype) of a jax.Array: x itself
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "astype" and _astype_layout_decides(callee.value, args, kwargs):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "x.astype(x.dtype, order=..., copy=False): "
                                   "eager hands back x itself or a copy by x's memory layout (contiguous or not)")
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "astype" and _complex_to_real(callee, args, kwargs):
            # NumPy's cast warns whatever the data: issued on the host, in order, from this line
            self._warn(("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning),
                       {}, node)
            # (of its real part: JAX's own complex-to-real cast warns a DeprecationWarning of its own)
            real = self.emit_call(jnp.real, (callee.value,), {}, node, "real")
            real.type = real.type.with_kinds(callee.value.type.kinds)
            callee = arrays.ArrayMethod(real, "astype")
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "astype":
            # a NumPy float cast to ints or narrowed: NumPy's cast, with its RuntimeWarnings
            for applies, cast, warning in ((self._numpy_float_to_int, numpy_api.float_to_int, "cast"),
                                           (self._numpy_float_narrowing, numpy_api.float_narrow, "narrow")):
                if applies(callee, args, kwargs):
                    out = self.emit_call(cast, (callee.value, np.dtype(args[0] if args else kwargs["dtype"])),
                                         {}, node, ".astype")
                    out.type = out.type.with_kinds(callee.value.type.kinds)
                    self.numpy_fp_warnings(cast, (callee.value,), {}, [out], node, warning)
                    return out
        if isinstance(callee, arrays.ArrayMethod) and callee.name in numpy_api.INITIAL_METHODS \
                and kwargs.get("initial") is not None and callee.value.type.kinds <= {"numpy", "array0"}:
            # x.sum(initial=v) of an ndarray: np.sum(x, initial=v) (NumPy's cast of v; jax.Array.sum drops it)
            return self.call(getattr(np, callee.name), (callee.value, *args), kwargs, node)
        if isinstance(callee, arrays.ArrayMethod) and callee.name in numpy_api.METHOD_FUNCTIONS \
                and callee.value.type.kinds <= {"numpy", "array0"}:   # x.argsort() of an ndarray: np.argsort(x)
            args, kwargs = numpy_api.method_arguments(callee.name, args, kwargs)
            return self.call(numpy_api.METHOD_FUNCTIONS[callee.name], (callee.value, *args), kwargs, node)
        if isinstance(callee, arrays.ArrayMethod) and callee.name == "copy" and callee.value.type.kinds == {"numpy"}:
            request = layouts.order_request(None, args, kwargs, callee.value)   # x.copy(order="F"): eager's layout
            copied = NotImplemented if request is None else self._layout_copy(request, node, ".copy")
            if copied is not NotImplemented:
                return copied
        if isinstance(callee, arrays.ArrayMethod) and callee.name in ("ravel", "flatten") \
                and callee.value.type.kinds <= {"numpy", "array0"}:   # x.ravel(order="K"): in x's memory order
            args, kwargs = self._memory_order(callee.value, args, kwargs)
        if isinstance(callee, arrays.ArrayMethod) and callee.name in _OPERATOR_DUNDERS and len(args) == 1 \
                and not kwargs and callee.value.type.kinds <= {"numpy", "array0"}:
            # ``x.__floordiv__(y)`` of an ndarray is ``x // y`` (NumPy's ufunc: its integer rules), not jax.Array's
            fn, reflected = _OPERATOR_DUNDERS[callee.name]
            operands = (args[0], callee.value) if reflected else (callee.value, args[0])
            return self.call(divmod, operands, {}, node) if fn is divmod else self.binop(fn, *operands, node)
        if isinstance(callee, arrays.ArrayMethod):
            return self.emit_call(arrays.method_caller(callee.name), (callee.value, *args), kwargs, node, f".{callee.name}")
        if isinstance(callee, arrays.AtMethod) and len(args) == 1 and not kwargs and isinstance(args[0], MaskedSlice):
            # ``x.at[:k].set(x[:k] * 3)``: the kept rows in order (masked.py)
            return self.masked_store(callee.value, callee.index, args[0], callee.name, node, numpy=False)
        if isinstance(callee, arrays.AtMethod):
            return self.emit_call(arrays.at_updater(callee.name), (callee.value, callee.index, *args), kwargs, node, f".at[].{callee.name}")
        if isinstance(callee, LocalFunction):
            return self.inline_local(callee, args, kwargs, node)
        if isinstance(callee, Value):
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "calling an array (eager raises TypeError)")
        if is_host_printer(callee):
            if self.nnx_in(args, kwargs):
                raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{qualified_name(callee)} of an NNX object (its "
                                       "text shows its state as it is when the statement runs)", "call")
            if contains_standin((args, kwargs), arrays_too=False):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} would print ast2graph's "
                                       "trace-time stand-in (a local function, a traced range, ...) instead of eager's object")
            args = self._printed_objects(callee, args, kwargs, node)
            # (it prints when the graph runs: before the writes made after the call, which eager has made)
            for arg in (*args, *kwargs.values()):
                self.check_no_effect(arg, node)
            self.decide(node, "call", "host callback", f"{qualified_name(callee)} runs on the host, in order, on every call")
            effect = arrays.host_effect(callee, self.value_kinds((args, kwargs), node), printer=True)
            return self.emit_call(effect, args, kwargs, node, f"host {qualified_name(callee)}", effect=True)
        if callee is warnings.warn:
            return self._warn(args, kwargs, node)
        if any(callee is f for f in _FILTER_SETTERS) and self._in_catch_warnings():
            # ``warnings.simplefilter("error", W)`` inside ``with warnings.catch_warnings():`` entered at
            # trace time: the filters it changes are that block's, restored at its exit
            self._no_standins(callee, standins_in((args, kwargs)), node)
            result = self.static_call(callee, args, kwargs, node)
            self.warning_filters_changed(node)
            return result
        if callee is jax.debug.print or callee is jax.debug.callback:
            self.decide(node, "call", "host callback", f"{qualified_name(callee)} stays in the graph (JAX's own callback)")
            return self.emit_call(_debug_effect(callee), args, kwargs, node, qualified_name(callee), effect=True)
        if is_state_read(callee) and not args and not kwargs:   # sys.getrecursionlimit(): a guarded read
            owner = getattr(callee, "__self__", None)   # (a bound method is made anew by each read: keyed by its owner)
            key = ("state", id(callee)) if owner is None or isinstance(owner, types.ModuleType) else \
                ("state", id(owner), callee.__name__)
            return self.external(callee(), callee, f"{qualified_name(callee)}()", key)
        found = introspection(callee)
        if found is not None:   # inspect.signature(f), sig.bind(*args): run at trace time, guarded
            return self._introspect(callee, found[1], args, kwargs, node)
        if is_effectful(callee) and not _python_with_source(callee):
            # (a Python function of such a module, os.getenv, random.shuffle, is converted: what it calls decides)
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{qualified_name(callee)} has a Python side effect that must run on every call", "call")
        if args and type(args[0]) is Value and (callee is np.nonzero or callee is np.flatnonzero or callee is np.where):
            handled = self.nonzero_masked(callee, args, kwargs, node)   # np.where(c)[0]: positions, masked (masked.py)
            if handled is not NotImplemented:
                return handled
        if isinstance(callee, MaskedMethod) or any(isinstance(a, MaskedSlice) for a in (*args, *kwargs.values())):
            handled = self.masked_call(callee, args, kwargs, node)   # ``x[:n].sum()``, ``np.sum(x[:n])`` (masked.py)
            if handled is not NotImplemented:
                return handled
        if any(isinstance(a, PickedRow) for a in (*args, *kwargs.values())):
            handled = self.picked_row_call(callee, args, kwargs, node)   # ``sum(row)`` of ``row = table[i]`` (listindex.py)
            if handled is not NotImplemented:
                return handled
        owner = getattr(callee, "__self__", None)
        if type(owner) is list and getattr(callee, "__name__", "") == "extend" and len(args) == 1 and not kwargs \
                and type(args[0]) is list and args[0] is not owner and self._is_fresh(owner) \
                and (tail_of(owner) is not None or tail_of(args[0]) is not None):
            self.check_mutable(owner, node, "list.extend")   # ys.extend(xs), a length depending on the data
            return self.extend_rows(owner, list(args[0]), node)   # rows after rows (varlist.py)
        standins = standins_in((args, kwargs))   # graph values, local functions, ...: one walk
        if args and tail_of(args[0]) is not None:   # len(xs), sum(xs) of a list whose length depends on the data
            handled = self.varlist_call(callee, args, kwargs, node)
            if handled is not NotImplemented:
                return handled
        traced = any(isinstance(x, Value) or contains_value(x) for x in standins)
        if _is_str_join(callee) and len(args) == 1 and isinstance(args[0], collections.abc.Iterator) \
                and generators_in(args[0]):   # ", ".join(f"{v}" for v in xs): the items pulled as eager pulls them
            return self.call(callee, (self.generator_items(args[0], node, None),), kwargs, node)
        args = self._no_traced_keys(callee, args, kwargs, node)
        joined = _join_formatted(callee, args, kwargs)
        if joined is not None:   # ", ".join(parts) of strings formatted from traced values
            return joined
        if self._stores_only(callee, args):   # a formatted string kept in a list made here (as a list display keeps it)
            standins = [x for x in standins if not isinstance(x, (arrays.DeferredStr, KindedValue))]
        special = self._special_builtin(callee, args, kwargs, node, traced)
        if special is not NotImplemented:
            return special
        if id(callee) not in MOVES_ARGUMENTS and any(not isinstance(x, Value) for x in standins) \
                and not (classify_callee(callee) is CallKind.USER_FUNCTION or self._is_user_callable_object(callee)):
            self._no_standins(callee, standins, node)
        owner = getattr(callee, "__self__", None)
        if type(callee) is types.BuiltinMethodType and type(owner) in (list, tuple) \
                and callee.__name__ in ("count", "index", "remove") and len(args) == 1 and not kwargs \
                and any(_user_method(x, "__eq__") is not None for x in (*owner, args[0]) if not isinstance(x, Value)):
            return self._user_eq_search(owner, callee.__name__, args[0], node)
        if type(callee) is types.BuiltinMethodType and isinstance(owner, (list, tuple)) \
                and callee.__name__ in _COMPARING_METHODS and (contains_value(owner) or traced):
            # ``[s, t].count(u)``, ``xs.index(v)``, ``xs.remove(v)`` compare
            # elements with ``==``: eager asks an array's truth there
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} compares traced "
                                   "values with == (eager needs their values)")
        if isinstance(owner, (list, dict, set)) and getattr(callee, "__name__", "") in _MUTATING_METHODS:
            if not self._is_fresh(owner) and self.lift_method_effect(owner, callee.__name__, args, kwargs, node):
                return None   # ``LOG.append(v)`` on an outside list: replayed after the call (writeback.py)
            self.check_mutable(owner, node, f"{type(owner).__name__}.{callee.__name__}")
            if tail_of(owner) is not None and callee.__name__ == "append" and len(args) == 1 and not kwargs:
                return self.tail_append(owner, args[0], node)   # the next row of its buffer (varlist.py)
            if callee.__name__ == "sort" and type(owner) is list and tail_of(owner) is None and not args \
                    and (contains_value(owner) or kwargs.get("key") is not None):   # xs.sort(): sorted()'s order
                return self.static_call(owner.__setitem__, (slice(None), self.traced_sorted((list(owner),), kwargs,
                                                                                            node)), {}, node)
            return self.static_call(callee, args, kwargs, node)
        if traced and scipy_api.public_name(callee) is not None:   # scipy.linalg.solve: JAX's, where validated
            result = self._scipy_call(callee, args, kwargs, node)
            if result is not NotImplemented:
                return result
        if traced and isinstance(callee, np.ufunc) and getattr(np, callee.__name__, None) is not callee:
            result = self._host_ufunc(callee, args, kwargs, node)   # scipy.special's compiled ufuncs
            if result is not NotImplemented:
                return result
        if traced and lapack.wrapper(callee) is not None:   # scipy.linalg's LAPACK routines (get_lapack_funcs)
            result = self._host_lapack(callee, args, kwargs, node)
            if result is not NotImplemented:
                return result
        if traced and compiled_outputs.output_positions(callee) is not None:   # scipy.ndimage's C filters
            result = self._host_compiled(callee, args, kwargs, node)
            if result is not NotImplemented:
                return result
        if scipy_api.packs_arguments(callee):   # a scipy.stats distribution's generated _parse_args
            return self.static_call(callee, args, kwargs, node)
        if not traced and scipy_api.makes_distribution(callee):   # rv_frozen's fresh norm_gen(**static params)
            return self.static_call(callee, args, kwargs, node)
        form = scipy_api.graph_form(callee, args, kwargs) if traced else None
        if form is not None:   # apply_where, norm.pdf: written with where for what masks the data
            return self.inline_user(form[0], form[1], kwargs, node)
        kind = classify_callee(callee)
        # library code on NNX objects (flax's own layers, nnx.state, nnx.grad) runs as it is, in one op (nnx.py)
        nnx = self.nnx_in(callee, args, kwargs) or self.nnx_class(callee) or any(callee is t for t in nnx_transforms())
        if kind is CallKind.USER_FUNCTION or self._is_user_callable_object(callee) or \
                _library_python(callee, traced) and not contains_value(callee) and not nnx:
            start = len(self.region.ops)
            try:
                return self.inline_user(callee, args, kwargs, node)
            except GraphBreak:
                declared = arrays.parse_returns_annotation(self.loc(node).source_line()) if traced else None
                if declared is None:
                    raise
                del self.region.ops[start:]
                return self._host_call(callee, args, kwargs, declared, node)
        if nnx and any(callee is t for t in nnx_transforms()):   # nnx.grad(f), nnx.jit(f): applied where called
            if _local_functions_in((args, kwargs)):   # its closure made where it is applied (eager's late binding)
                self.decide(node, "call", "transform", f"{qualified_name(callee)} of a local function: applied in "
                            "the graph where it is called, its closure read then")
                return TransformedFn(callee, args, kwargs)
            args, kwargs = self._closures_for_jax((args, kwargs), node)
            self.decide(node, "call", "transform", f"{qualified_name(callee)}: applied in the graph where it is called")
            return TransformedFn(callee, args, kwargs)
        if nnx:
            return self._nnx_library_call(callee, args, kwargs, node)
        if (id(callee) in CALLS_ARGUMENTS or id(callee) in _tree_reducers()) and \
                any(isinstance(a, LocalFunction) for a in args):
            # functools.reduce(lambda a, b: ..., xs), map(lambda ...): Python calls the
            # local function, which is inlined; traced values pass through untouched
            return self.static_call(callee, args, kwargs, node)
        if any(callee is w for w in _FUNCTION_WRAPPERS) and \
                any(isinstance(a, LocalFunction) for a in (*args, *kwargs.values())):
            # ``staticmethod(lambda: x.sum())``: the wrapper would hold the trace's stand-in, which a later call
            # (``s()``, ``s.__func__``, the wrapper leaving the graph) runs at trace time or hands out
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{callee.__name__}() of a function defined in "
                                   "the converted function would hold ast2graph's trace-time stand-in, where eager's "
                                   "holds the function", "call")
        if traced and numpy_api.returns_operand(callee, args, kwargs):
            return args[0]   # np.asarray(x) of a NumPy array is x itself
        if traced and not kwargs and len(args) == 1 and _atleast_is_self(callee, args[0]):
            return args[0]   # np.atleast_2d(a) of a 2-D ndarray is a itself (its layout, its flags)
        if traced and callee is np.ravel and args and isinstance(args[0], Value):   # np.ravel(a, order="K")
            rest, kwargs = self._memory_order(args[0], args[1:], kwargs)
            args = (args[0], *rest)
        request = layouts.order_request(callee, args, kwargs) if traced else None
        if request is not None:   # np.copy(a, order="F"), np.asfortranarray(a): eager's layout
            copied = self._layout_copy(request, node, qualified_name(callee))
            if copied is not NotImplemented:
                return copied
        if traced and _jax_asarray_is_self(callee, args, kwargs):
            return args[0]   # jnp.asarray(x) of a jax.Array is x itself
        if traced and isinstance(callee, np.ufunc) and callee.nin < len(args) <= callee.nin + callee.nout \
                and not kwargs:   # np.logical_not(r, r): NumPy's positional outputs are its out= (casting=: not here)
            outs = args[callee.nin:]
            args, kwargs = args[:callee.nin], {**kwargs, "out": outs if callee.nout > 1 else outs[0]}
        if traced and args and type(args[0]) in (list, tuple) and _numbers_only(args[0]) \
                and not isinstance(callee, np.ufunc) and _refuses_sequences(numpy_api.numpy_to_jnp(callee)):
            # np.mean([p0, p1]) of traced numbers: NumPy's array of them (jnp.mean refuses a list)
            args = (self.call(np.asarray, (args[0],), {}, node), *args[1:])
        if traced and numpy_api.is_numpy(callee):
            kwargs = numpy_api.without_out_none(callee, kwargs, args)   # np.trunc(x, out=None): a new array
            kwargs = self._numpy_initial(callee, args, kwargs, node)   # np.max(x, initial=-np.inf)
            special = self._numpy_call(callee, args, kwargs, node, kind)
            if special is not NotImplemented:
                return special
        if traced and isinstance(callee, np.ufunc) and kwargs.get("out", None) is not None:
            return self._ufunc_out(callee, args, kwargs, node)
        if _record_with_state(callee):
            # SciPy's PearsonRResult(statistic=r, pvalue=p, n=n, x=x, ...), a tuple bunch with extra
            # fields: its __new__ packs the fields into the tuple, its __init__ stores the rest as attributes;
            # the object leaves the graph rebuilt per call with both (specialize.remade_per_call)
            return self._make_record(callee, args, kwargs, node)
        if traced and (callee is jax.device_get or callee is jax.block_until_ready) and len(args) == 1 \
                and not kwargs and all(type(x) is Value for x in standins_in(args)):
            return self._on_host(callee, args[0], node)
        if traced and _moves_leaves(callee, args, kwargs):
            # jax.tree_util's flatten/unflatten/leaves/structure move leaves without looking at them: eager's
            # NumPy arrays and Python numbers come out as they went in, not as (32-bit) jax.Arrays
            return self.static_call(callee, args, kwargs, node)
        if traced and (_is_namedtuple_class(callee) or scipy_api.is_tuple_bunch(callee)):
            # P(x.sum(), y), SciPy's SignificanceResult(stat, p): a tuple holding the values, as they are
            if getattr(callee, "_extra_fields", ()):   # attributes outside the tuple: lost on the way out
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} holds traced values "
                                       f"in attributes outside its tuple ({', '.join(callee._extra_fields)})")
            return self.static_call(callee, args, kwargs, node)
        numpy_python = numpy_api.python_code(callee) if traced and kind is CallKind.ARRAY_OP else None
        if numpy_python is not None:   # np.asarray_chkfinite, np.real_if_close: NumPy's own Python, converted
            start = len(self.region.ops)
            try:
                return self.inline_user(numpy_python, args, kwargs, node)
            except GraphBreak:
                del self.region.ops[start:]   # as before: run on the traced values (NumPy's code is pure)
        holds_arrays = contains_value(callee)   # a pytree callable (an Equinox module) holding traced arrays
        if traced and isinstance(callee, type) and not holds_arrays and _user_init(callee):
            # a plain class of the user's made from traced values: its __init__ converted, the object
            # made while tracing (it leaves the graph only as eager's object, ``remade_per_call``)
            obj = self.mark_fresh(object.__new__(callee))
            self.call(callee.__init__, (obj, *args), kwargs, node)
            return obj
        if kind is CallKind.ARRAY_OP or traced or holds_arrays:
            self._no_stale_cells(callee, node)
            # np.asanyarray(x, order='C'), np.array(x, copy=None): NumPy's conversions; else np.sin -> jnp.sin
            fn = numpy_api.graph_function(callee, args, kwargs) if traced else callee
            if _python_leaf_map(callee, args, kwargs):
                # jax.tree.map runs its function in Python on the leaves: on NumPy arrays and numbers eager's
                # results are NumPy's and Python's (optax.incremental_update), JAX's trace of it gives jax.Arrays
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} of NumPy arrays or "
                                       "Python numbers: eager runs the function on them in Python (NumPy's results), "
                                       "the graph would trace it with JAX (jax.Arrays)", "call")
            if any(callee is t for t in (*_transforms(), jax.jit)) and _local_functions_in((args, kwargs)):
                # ``g = jax.grad(lambda p: loss(p, x))``: eager's lambda reads ``x`` when ``g`` is called
                # (JAX traces it then), which a later ``x = ...`` rebinds: the closure is made from the
                # values its free names hold where the transformed function is applied, not here
                self.decide(node, "call", "transform", f"{qualified_name(callee)} of a local function: applied in "
                            "the graph where it is called, its closure read then")
                return TransformedFn(callee, args, kwargs)
            args, kwargs = self._closures_for_jax((args, kwargs), node)
            # a local function closing over NNX objects (``lax.scan(lambda c, x: self.cell(c, x), ...)``)
            closes_over_nnx = self.nnx_in(args, kwargs)
            if any(callee is t for t in _transforms()) and (closes_over_nnx or contains_value((args, kwargs))):
                # the transformed function closes over traced values: it is applied
                # in the graph when called, not returned as an object from it
                self.decide(node, "call", "transform", f"{qualified_name(callee)} of a function closing over traced values")
                return TransformedFn(callee, args, kwargs)
            if closes_over_nnx:   # the objects' state is the op's input, their writes lifted (nnx.py)
                return self.nnx_call(fn, args, kwargs, node)
            if holds_arrays:   # its arrays are inputs of the op, not constants
                fn, args = _apply_callable, (callee, *args)
            if traced and fn is not callee and numpy_api.conversion(callee, args, kwargs) is fn:
                args, kwargs = self._real_part_converted(args, kwargs, node)
            try:
                leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
                result = self._numpy_emit(fn, callee, args, kwargs, node, numpy_gives_ndarray(callee, leaves, treedef),
                                          holds_arrays)
                if fn is not callee and is_numpy_callable(callee):   # np.meshgrid's tuple, not jnp's list
                    result = numpy_api.with_eager_containers(callee, args, kwargs, result)
                message = next((m for f, m in _LINALG_ERRORS if callee is f), None)
                if message is not None and fn is not callee and isinstance(result, Value) and not kwargs:
                    # NumPy raises LinAlgError where jnp.linalg gives inf/NaN: a run-time check
                    self.emit_call(arrays.linalg_error_check, (result, message, *args), {}, node,
                                   f"{qualified_name(callee)} check", effect=True)
                return result
            except GraphBreak:
                declared = arrays.parse_returns_annotation(self.loc(node).source_line()) if traced else None
                if declared is None:
                    raise
                return self._host_call(callee, args, kwargs, declared, node)
        init = _python_init(callee)
        if init is not None:   # a class of the user's or a library's: __init__ converted, not run at trace time
            obj = self.mark_fresh(object.__new__(callee))
            self.call(init, (obj, *args), kwargs, node)
            return obj
        if isinstance(callee, functools._lru_cache_wrapper) and not traced:
            # a memoised function of static (hashable) values: called as eager
            # calls it, the first time a graph is traced for these values; eager's
            # later calls take the cached result, which the graph holds
            self.decide(node, "call", "trace time", f"{qualified_name(callee)} is memoised (functools.lru_cache): "
                        "its result for these static arguments is computed once")
            result = self.static_call(callee, args, kwargs, node)
            self._guard_cache(callee)
            return result
        if is_pure_static_callable(callee) or kind is CallKind.BUILTIN or isinstance(callee, type) \
                or not traced and (scipy_api.pure_compiled(callee) or self._writes_own_outputs(callee, args, kwargs)
                                   or _pure_lapack(callee, args, kwargs)):
            if traced and id(callee) in INSPECTORS:   # not modelled by _special_builtin: eager looks at the object
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} of a traced value "
                                       "looks at eager's object itself")
            result = self.static_call(callee, args, kwargs, node)
            made = isinstance(callee, type) and type(result) is callee and (
                callee.__new__ is object.__new__ or isinstance(result, (*MUTABLE_BUILTINS, types.SimpleNamespace))) or \
                callee is object.__new__ and args and isinstance(args[0], type) and type(result) is args[0]
            # a new container, or a new object of a plain class (``Obj()``, ``cls.__new__(cls)``), of a
            # mutable builtin one (``collections.deque()``, ``array.array("d")``) or of any Python class
            # that keeps attributes (one with its own ``__new__``: networkx's ``nx.Graph()``; one a library
            # function made: ``dataclasses.replace(cfg, lr=..)``): this call's own where nothing else
            # holds it (``mark_made``: not one its __init__ registered; a singleton a ``__new__`` or a
            # cache hands out is held elsewhere). Fresh, it never leaves a segment as the one trace-time
            # object every call would share (``specialize.remade_per_call``).
            fresh = isinstance(result, (list, dict, set)) or made or _keeps_attributes(result)
            if not traced and lapack.wrapper(callee) is not None and type(result) in (tuple, np.ndarray):
                # a pure LAPACK call's arrays are f2py's new ones (an operand it copied, a result it allocated):
                # this call's own, to write into (``x -= y/dy`` of eigvals_banded's roots), as eager's are
                operands = [id(a) for a in (*args, *kwargs.values())]
                for r in result if type(result) is tuple else (result,):
                    if type(r) is np.ndarray and id(r) not in operands and r.base is None:
                        self.mark_fresh(r)
            return self.mark_made(result) if fresh else result
        raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} is not known to be free of side effects", "call")

    def _numpy_call(self, callee: Any, args: tuple, kwargs: dict, node: Any, kind: CallKind) -> Any:
        """A NumPy function on traced values, where its graph op needs more
        than the op (``NotImplemented`` otherwise: the caller emits the op):
        a write into an argument (``np.copyto(y, x)``, ``np.add.at``), ``out=``
        of a function other than a ufunc, NumPy's own Python or a fallback
        where the op would compute otherwise (``_numpy_inexact``); run-time
        checks for NumPy's errors (an all-NaN slice, an index out of bounds)
        emitted before the op."""
        if numpy_api.decided_by_kinds(callee):   # np.result_type(x, y): NumPy's answer for the operands' kinds
            return self._numpy_by_kinds(callee, args, kwargs, node)
        if numpy_inplace.writes_argument(callee):   # np.copyto(y, x), np.add.at(a, i, b)
            return self._numpy_write(callee, args, kwargs, node)
        if not isinstance(callee, np.ufunc) and kwargs.get("out", None) is not None:   # np.cumsum(x, out=y)
            return self._numpy_out(callee, args, kwargs, node)
        if kind is not CallKind.ARRAY_OP:
            return NotImplemented
        refused = _ufunc_refuses(callee, args, kwargs)
        if refused:   # np.positive of bools, np.deg2rad of complex data: NumPy has no loop, eager raises
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} has no loop for these "
                                   f"operands' dtypes in NumPy, which raises ({refused}); JAX's op would compute",
                                   "call")
        inexact = self._numpy_inexact(callee, args, kwargs, node)
        if inexact is not NotImplemented:
            return inexact
        self._numpy_raise_check(callee, args, kwargs, node)
        check = numpy_api.take_index_check(callee, args, kwargs)
        if check is not None:   # np.take(x, i): NumPy raises IndexError out of bounds, XLA fills
            shape, axis, indices = check
            self.emit_call(arrays.numpy_index_check, (shape, (axis,), indices), {}, node, "index check", effect=True)
        return NotImplemented

    def _numpy_write(self, callee: Any, args: tuple, kwargs: dict, node: Any, update: Any = None) -> None:
        """A NumPy call that writes into its array argument (``np.copyto(y, x)``,
        ``np.fill_diagonal(a, v)``, ``np.add.at(a, i, b)``, ``a.sort()``): the
        array's new value computed by a functional rule (``numpy_inplace``),
        checked once against NumPy on exemplar data, then written into the
        array as ``a[...] = new`` (``_write_into``). Where there is no exact
        rule, or the array cannot be written here, the call falls back: never
        a dropped write. Returns None, as eager's calls do."""
        from .numpy_probe import write_differs

        name = qualified_name(callee) if update is None else f"ndarray.{callee.__name__.lstrip('.')}"
        if update is None:
            target, update, why = numpy_inplace.rule_for(callee, args, kwargs)
        else:
            target, why = args[0], ""
        numpy_target = isinstance(target, np.ndarray) or isinstance(target, Value) and target.type.kinds <= {"numpy"} \
            and target.type.shape
        if not why and not numpy_target:
            why = "the array written is not a NumPy array of the graph (eager writes it, or raises)"
        leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
        if not why:
            position = next((k for k, x in enumerate(leaves) if x is target), None)
            why = "its array is not among its arguments" if position is None else \
                write_differs(callee, update, treedef, leaves, position)
        if why:
            raise self.graph_break(FallbackCode.MUTATION, node, f"{name} writes into its argument, which the graph "
                                   f"cannot do here: {why}", "call")
        if numpy_inplace.is_ufunc_at(callee) and len(args) > 1:   # traced indices: NumPy's IndexError out of bounds
            self.check_numpy_index(target, args[1], node)
        check = numpy_inplace.index_check(callee, args, kwargs, np.shape(target) if isinstance(target, np.ndarray)
                                          else target.type.shape)
        if check is not None:   # np.put_along_axis(a, i, v, axis) with traced i: as NumPy's IndexError
            self.emit_call(arrays.numpy_index_check, check, {}, node, "index check", effect=True)
        new = self.emit_call(update, args, kwargs, node, name)
        self._write_into(target, new, node, name)
        return None

    def _numpy_out(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``np.cumsum(x, out=y)`` (a NumPy function other than a ufunc):
        the result computed as without ``out`` and written into ``y`` where
        it has ``y``'s shape and dtype exactly; otherwise a fallback (NumPy's
        casting and broadcasting into ``out`` differ from function to
        function). Eager returns ``y``."""
        kwargs = dict(kwargs)
        out = kwargs.pop("out")
        numpy_out = isinstance(out, np.ndarray) or isinstance(out, Value) and out.type.kinds <= {"numpy"} \
            and out.type.shape
        result = self.call(callee, args, kwargs, node) if numpy_out else None
        if not isinstance(result, Value) or result.type.shape != tuple(np.shape(out) if isinstance(out, np.ndarray)
                                                                       else out.type.shape) \
                or result.type.dtype != (out.dtype if isinstance(out, np.ndarray) else out.type.dtype):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{qualified_name(callee)} writes into out=, which "
                                   "the graph does only for a NumPy array of the result's shape and dtype", "call")
        return self._write_into(out, result, node, f"{qualified_name(callee)} (out=)")

    def _numpy_initial(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> dict:
        """``kwargs`` of ``np.max(x, initial=v)`` of a traced NumPy array with
        ``v`` as NumPy casts it to the result's dtype: as Python's int() or
        float() would (int(2.7) is 2; -inf, NaN or an int beyond the dtype's
        range raise), where JAX promotes or saturates. The cast is read from
        NumPy's own reduction of an empty array of the operand's dtype; where
        that raises, eager raises: the statement falls back and raises it.
        A traced ``v``, or an operand that may be a jax.Array (whose ``sum``
        method drops ``initial``), falls back."""
        from .state import contains_value

        initial = kwargs.get("initial")
        if initial is None or not args or not isinstance(args[0], Value) or not numpy_api.takes_initial(callee):
            return kwargs
        x = args[0]
        name = qualified_name(callee)
        if contains_value(initial) or not x.type.kinds <= {"numpy", "array0"}:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name} with a traced initial= or of an operand "
                                   "that may be a jax.Array (whose sum method drops initial=)", "call")
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                cast = callee(np.empty(0, x.type.dtype), initial=initial,
                              **{k: kwargs[k] for k in ("dtype",) if kwargs.get(k) is not None})
        except Exception as e:  # noqa: BLE001 - eager's own error for this initial
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{name} raises {type(e).__name__} for "
                                   f"initial={initial!r} (eager raises here)", "call") from None
        return {**kwargs, "initial": cast}

    def _numpy_by_kinds(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``np.result_type(x, 1.0)`` of traced values: NumPy's own result on
        exemplars of the operands' dtypes and eager kinds, exact because it
        depends on nothing else (``numpy_api.decided_by_kinds``); a fallback
        where an operand's kind depends on the path or NumPy raises for them."""
        from .numpy_probe import eager_probe

        leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
        probe = None
        if not any(isinstance(x, Value) and x.type.mixed for x in leaves):
            probe = eager_probe(callee, treedef, leaves)
        if probe is None:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} of traced values "
                                   "whose eager kind depends on the path, or for which NumPy raises", "call")
        return probe.result

    def _numpy_raise_check(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> None:
        """NumPy's exception for data its JAX namesake takes silently
        (``np.nanargmax`` of an all-NaN slice): a run-time check before the
        op (``numpy_api.raise_check``); a fallback where no check may raise."""
        check = numpy_api.raise_check(callee, args, kwargs)
        if check is None:
            return
        predicate, exc, message = check
        if not self.raise_checks_allowed():
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} raises "
                                   f"{exc.__name__} for some data, where a run-time check cannot raise it", "call")
        pred = self.emit_call(predicate, args, kwargs, node, f"{qualified_name(callee)} check")
        if callable(message):   # NumPy formats values into it: the exception is made from them on the host
            message = tuple(self.emit_call(message, args, kwargs, node, f"{qualified_name(callee)} message"))
        else:
            message = (message,)
        self.emit_call(arrays.raise_when, (pred, exc, message), {}, node, f"{qualified_name(callee)} check",
                       effect=True)

    def _numpy_inexact(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """Where the graph's op for the NumPy function ``callee`` would not
        compute NumPy's result on these arguments (``numpy_api.data_dependent``;
        ``numpy_probe.differs`` on exemplar data): NumPy's own Python,
        converted, where it is known to compute it, else a fallback.
        ``NotImplemented``: the graph's op computes NumPy's result (the caller emits it)."""
        from .numpy_probe import differs, differs_at_width, differs_wrapping, eager_raises

        why, python = numpy_api.data_dependent(callee, args, kwargs)
        if not why and not isinstance(callee, np.ufunc) and numpy_api.conversion(callee, args, kwargs) is None:
            leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
            fn = numpy_api.graph_function(callee, args, kwargs)
            if fn is not callee and numpy_api.narrow_steps(callee, leaves) and \
                    (numpy_api.interpolates_narrow(callee) or differs_at_width(callee, fn, treedef, leaves)):
                # np.percentile(x32, [5, 95]): NumPy's lerp subtracts in float32 before its float64 weights
                why, python = "NumPy's own Python computes some steps at its narrower operand's float width", True
            elif fn is not callee and numpy_api.half_steps(callee, leaves):
                # np.i0(x16): NumPy's series rounds at float16 after every step, JAX's op at float32 then once
                why, python = "NumPy's own Python rounds each step at float16", True
            elif fn is not callee and numpy_api.narrow_ints(leaves):
                # np.trapezoid(y_uint8): NumPy adds y[1:] + y[:-1] in uint8 (it wraps), jnp widens first
                why = "NumPy's _lerp subtracts neighbouring order statistics at the data's integer width, where " \
                    "it wraps" if numpy_api.interpolates_narrow(callee) and numpy_api.narrow_ints(leaves, True) \
                    else differs_wrapping(callee, fn, treedef, leaves)
                python = bool(why)
        if not why and not isinstance(callee, np.ufunc) and numpy_api.conversion(callee, args, kwargs) is None:
            fn = numpy_api.graph_function(callee, args, kwargs)
            leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
            eager_kinds = all(not (x.type.mixed or "jax" in x.type.kinds) for x in leaves if isinstance(x, Value))
            if fn is not callee and eager_kinds and not any(isinstance(x, jax.Array) for x in leaves):
                checked = numpy_api.raise_check(callee, args, kwargs) is not None
                # (a vetted op: only whether NumPy raises for these arguments, np.percentile(x, 150))
                why = eager_raises(callee, treedef, leaves, checked) if numpy_api.vetted(callee, kwargs) else \
                    differs(callee, fn, treedef, leaves, raises_checked=checked)
                python = bool(why)
        if not why:
            return NotImplemented
        source = numpy_api.numpy_source(callee) if python else None
        if source is not None:
            start = len(self.region.ops)
            try:
                return self.inline_user(source, args, kwargs, node)
            except GraphBreak:
                del self.region.ops[start:]
        raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} has no graph op that "
                               f"computes what NumPy computes here: {why}", "call")
    def _warn(self, args: tuple, kwargs: dict, node: Any) -> None:
        """``warnings.warn(message, category, stacklevel)``: an ordered host
        effect issuing eager's warning (``hostwarnings``): its category, the
        file and line of the frame ``stacklevel`` names (a converted function's
        own: the library's line, or its caller's), that module's registry. It
        runs in Python where the filters (guarded) make it an exception, where
        the frame is outside the converted code, or inside a
        ``catch_warnings(record=True)`` entered at trace time; in another
        ``catch_warnings`` block it is issued under that block's filters."""
        def refuse(cause: str) -> GraphBreak:
            return self.graph_break(FallbackCode.SIDE_EFFECT, node, f"warnings.warn {cause}", "call")

        try:
            bound = _WARN_SIGNATURE.bind(*args, **kwargs)
        except TypeError:
            raise refuse("called with arguments it refuses (eager raises TypeError)") from None
        message, category, stacklevel, source = (bound.arguments.get(k, d) for k, d in _WARN_DEFAULTS)
        if contains_standin((category, stacklevel, source)) or source is not None or type(stacklevel) is not int \
                or contains_standin(message) and not isinstance(message, arrays.DeferredStr):
            raise refuse("of traced values, a source object or a traced stacklevel")
        category = type(message) if isinstance(message, Warning) else UserWarning if category is None else category
        if not (isinstance(category, type) and issubclass(category, Warning)):
            raise refuse(f"with category {category!r} (eager raises TypeError)")
        blocks = self._catch_warnings_blocks()
        if any(b._record or b._module is not warnings for b in blocks):
            raise refuse("inside a warnings.catch_warnings(record=True) block (eager records it in that block's list)")
        unit, lineno = self._warning_frame(stacklevel, node, refuse)
        module = None if unit is None else unit.globals.get("__name__", "<string>")
        text = None if isinstance(message, arrays.DeferredStr) else str(message)
        # the filters the caller has (guarded): in a block, those it had when the outermost block was entered
        actions = hostwarnings.filter_actions(category, text, None if unit is None else
                                              module if isinstance(module, str) else "<string>", lineno)
        if "error" in actions:
            raise refuse("where the warning filters may turn the warning into an exception (eager raises it here)")
        if blocks:   # the block's filters are made from the caller's: guarded by their entries
            self._guard_filters_by_value(blocks[0]._filters)
        else:   # issued under the filters as they are: guarded on what they do with this warning
            self._guard_warning_action(category, text, None if unit is None else
                                       module if isinstance(module, str) else "<string>", lineno)
        where = f"{unit.filename}:{lineno}" if unit is not None else \
            f"the frame {lineno + 1} above the converted function (found when it runs)"
        self.decide(node, "call", "host callback", f"warnings.warn issues {category.__name__} on the host, in order, on "
                    f"every call, from {where}")
        # in a catch_warnings block entered at trace time, the warning is issued under that block's filters
        # (the caller's, as guarded, changed as the block changes them: the same list of filters as now)
        inside = tuple(warnings.filters) if blocks else None
        if unit is None:
            effect = hostwarnings.outside_warning_effect(category, lineno, self.value_kinds(message, node), inside)
        else:
            effect = hostwarnings.warning_effect(category, _code_filename(unit), lineno, unit.globals,
                                                 self.value_kinds(message, node), inside)
        self.emit_call(effect, (message,), {}, node, "host warnings.warn", effect=True)
        return None

    def numpy_fp_warnings(self, fn: Any, args: tuple, kwargs: dict, results: list, node: Any, ufunc: Any) -> None:
        """After a graph op computing a NumPy ufunc (``ufunc``, or ``fn`` an
        operator on NumPy values): the RuntimeWarnings NumPy issues where it
        divides by zero, overflows or computes an invalid value
        (``hostwarnings.fp_warning_effect``: the flags computed in the graph,
        the warnings issued on the host, in program order, from this line),
        as ``np.geterr()`` (guarded) and the warning filters (guarded) have
        them. Where NumPy's mode raises, prints or calls, or underflows warn,
        the statement runs in Python."""
        replayed = getattr(ufunc, "__name__", None)
        if replayed in hostwarnings.REDUCERS and getattr(np, replayed, None) is ufunc:
            self._numpy_reduce_warnings(ufunc, args, kwargs, results, node)
            return
        if replayed in hostwarnings.REPLAYED | hostwarnings.REPLAYED_BY_SHAPE and getattr(np, replayed, None) is ufunc:
            if replayed in hostwarnings.REPLAYED or hostwarnings.warns_on_exemplar(ufunc, args, kwargs):
                self._numpy_replay(ufunc, args, kwargs, results, node)
            return
        if ufunc in _CONVERTERS and "dtype" in kwargs and len(args) == 1:
            args, kwargs = (*args, kwargs["dtype"]), {k: v for k, v in kwargs.items() if k != "dtype"}
        if _narrowing_cast(ufunc, args):   # np.float32(x) of float64 data: "overflow encountered in cast"
            ufunc, args = "narrow", args[:1]
        name, scalar = ("cast", False) if ufunc in ("cast", "narrow") else \
            _fp_ufunc_name(fn, args, ufunc, isinstance(node, (gast.BinOp, gast.AugAssign))
                           or bool(self.__dict__.get("_fp_scalar_call")))
        rule = "narrow" if ufunc == "narrow" else hostwarnings.FP_POLES.get(name) if name else None
        if name in _FP_UNARY_WRAPS:   # only NumPy's integer scalars warn (-x, abs(x) of an array never do)
            rule = "" if scalar and results and getattr(results[0].type.dtype, "kind", "") in "iu" else None
        if rule is None or len(results) != (2 if name == "divmod" else 1) \
                or not all(r.type.kinds <= {"numpy", "array0"} for r in results):
            return
        dtype = results[0].type.dtype
        wraps = getattr(dtype, "kind", "") in "iu" and scalar and name in _FP_INT_WRAPS
        integer = getattr(dtype, "kind", "") in "iu" and (name in hostwarnings.FP_INT_DIVISIONS or name == "cast"
                                                          or wraps)
        if not (integer or getattr(dtype, "kind", "") == "f" or rule == "narrow") or set(kwargs) - {"where", "out", "dtype"}:
            return
        if wraps:   # np.int64(2**62) * 4: "overflow encountered in scalar multiply"
            rule = f"wrap {name}"
        modes = np.geterr()
        signed_floor = name in ("floor_divide", "divmod") and getattr(dtype, "kind", "") == "i"   # min // -1 overflows
        kinds = ("over",) if rule == "narrow" else ("invalid",) if name == "cast" else ("over",) if wraps else \
            ("divide", "over") if integer and signed_floor else ("divide",) if integer else \
            tuple(k for k, _ in hostwarnings.FP_MESSAGES if not (k == "divide" and rule == "")
                  and name not in hostwarnings.NEVER.get(k, ()))
        if any(modes[k] not in ("ignore", "warn") for k in kinds) or not integer and modes["under"] != "ignore":
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"NumPy's {name} where np.geterr() makes its "
                                   f"floating-point errors raise, print, call or warn of underflow ({modes})", "call")
        self._guard_numpy_errors()
        unit, lineno = self._warning_frame(1, node, lambda cause: self.graph_break(
            FallbackCode.SIDE_EFFECT, node, f"NumPy's RuntimeWarning {cause}", "call"))
        if unit is None:
            return
        module = unit.globals.get("__name__", "<string>")
        module = module if isinstance(module, str) else "<string>"
        texts = {k: f"{what} encountered in {'scalar ' if scalar else ''}{name}" for k, what in hostwarnings.FP_MESSAGES}
        kinds = tuple(k for k in kinds if modes[k] == "warn"
                      and hostwarnings.filter_actions(RuntimeWarning, texts[k], module, lineno) != {"ignore"})
        blocks = self._catch_warnings_blocks()
        if blocks:   # the block's filters are made from the caller's: guarded by their entries
            self._guard_filters_by_value(blocks[0]._filters)
        else:   # issued under the filters as they are: guarded on what they do with each warning
            for k in modes:
                if k in texts and modes[k] == "warn":
                    self._guard_warning_action(RuntimeWarning, texts[k], module, lineno)
        if not kinds:
            return
        nin = 1 if name in _FP_UNARY_WRAPS or rule in ("zero", "minus one", "unit", "", "cast", "narrow") \
            and name not in (*hostwarnings.FP_BINARY, *_FP_INT_WRAPS) else 2
        operands = tuple(args[:nin])
        if len(operands) != nin or any(not isinstance(x, (Value, int, float, np.ndarray, np.generic)) for x in operands):
            return
        mask = self.__dict__.pop("_fp_where", kwargs.get("where", True))
        if mask is False:
            return
        where = {} if mask is True else {"where": mask}
        result = tuple(results) if name == "divmod" else results[0]   # (the quotient and the remainder)
        self._emit_fp_flags(hostwarnings.fp_flags_op(rule, kinds, name), (result, *operands), where, node,
                            tuple(texts[k] for k in kinds), _code_filename(unit), lineno, unit.globals, blocks)

    def _emit_fp_flags(self, flags_op: Any, operands: tuple, kwargs: dict, node: Any, texts: tuple, filename: str,
                       lineno: int, namespace: dict, blocks: list) -> None:
        """The flags of NumPy's floating-point warnings ``texts``
        (``flags_op(*operands, **kwargs)``, a graph value), and the host
        callback issuing the warnings of those set, from ``filename:lineno``
        of the module whose globals are ``namespace``, which ``specialize``
        replaces by an output of the flags where the graph has no other host
        effect (``_warning_outputs``)."""
        inside = tuple(warnings.filters) if blocks else None
        flags = self.emit_call(flags_op, operands, kwargs, node, "numpy RuntimeWarning flags")
        issued = (texts, filename, lineno, hostwarnings.namespace_holder(namespace), inside)
        fire = hostwarnings.fp_fire_effect(*issued)
        self.emit_call(fire, (flags,), {}, node, "host numpy RuntimeWarning", effect=True)
        op = next(op for op in reversed(self.region.ops) if getattr(op, "fn", None) is fire)
        self.__dict__.setdefault("fp_outputs", []).append((flags, op, hostwarnings.fp_output_issuer(*issued)))

    def _numpy_reduce_warnings(self, callee: Any, args: tuple, kwargs: dict, results: list, node: Any) -> None:
        """``np.sum``/``np.prod`` (``x.sum()``) of floats: NumPy's "overflow
        encountered in reduce" (an infinity from finite data) and "invalid
        value encountered in reduce" (a NaN from data without one), issued
        from NumPy's own line as eager's are (``hostwarnings.reduce_site``,
        found by running NumPy once); the flags are computed in the graph."""
        self.__dict__.pop("_fp_where", None)
        x = args[0] if args else kwargs.get("a")
        if len(results) != 1 or not results[0].type.kinds <= {"numpy", "array0"} or not isinstance(x, Value) \
                or getattr(results[0].type.dtype, "kind", "") != "f" or getattr(x.type.dtype, "kind", "") != "f":
            return
        modes = np.geterr()
        if modes["over"] == "ignore" and modes["invalid"] == "ignore":
            return
        def refuse(cause: str) -> GraphBreak:
            return self.graph_break(FallbackCode.SIDE_EFFECT, node, f"NumPy's {callee.__name__} {cause}", "call")

        if any(modes[k] not in ("ignore", "warn") for k in ("over", "invalid")) or modes["under"] != "ignore":
            raise refuse(f"where np.geterr() makes its floating-point errors raise, print, call or warn of "
                         f"underflow ({modes})")
        self._guard_numpy_errors()
        try:
            bound = inspect.signature(callee).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            return
        axis, keepdims = bound.get("axis"), bound.get("keepdims", False)
        initial = bound.get("initial", 0.0)   # a static number starts the reduction: it is part of its data
        where = bound.get("where", True)   # the elements reduced: a static or traced mask
        mask = where is True or isinstance(where, Value) and where.type.dtype == np.bool_ and not where.type.mixed \
            or isinstance(where, np.ndarray) and where.dtype == np.bool_
        if set(bound) - {"a", "axis", "dtype", "keepdims", "initial", "where"} or not (axis is None or type(axis) is int or (
                type(axis) is tuple and all(type(k) is int for k in axis))) or type(keepdims) is not bool \
                or not isinstance(initial, (int, float, np.integer, np.floating, np.bool_)) or not mask:
            raise refuse("with out=, a where= other than a bool mask, initial= other than a number or a traced "
                         "axis: its overflow warning is not computed in the graph")
        func = getattr(node, "func", None)
        method = isinstance(func, gast.Attribute) and not (isinstance(func.value, gast.Name) and isinstance(
            self.frame.unit.globals.get(func.value.id), types.ModuleType))
        site = hostwarnings.reduce_site(callee.__name__, method, x.type.dtype.str)
        if site is None:
            raise refuse("where running NumPy once did not show where its overflow warning comes from")
        filename, lineno, module = site
        texts = {"over": "overflow encountered in reduce", "invalid": "invalid value encountered in reduce"}
        blocks = self._catch_warnings_blocks()
        if blocks:
            self._guard_filters_by_value(blocks[0]._filters)
        else:
            for k in texts:
                if modes[k] == "warn":
                    self._guard_warning_action(RuntimeWarning, texts[k], module, lineno)
        kinds = tuple(k for k in texts if modes[k] == "warn"
                      and hostwarnings.filter_actions(RuntimeWarning, texts[k], module, lineno) != {"ignore"})
        if kinds:
            flags = hostwarnings.reduce_flags_op(kinds, axis, keepdims, bool(math.isfinite(initial)),
                                                 bool(initial != initial))
            self._emit_fp_flags(flags, (results[0], x) + (() if where is True else (where,)), {}, node,
                                tuple(texts[k] for k in kinds), filename, lineno, sys.modules[module].__dict__, blocks)

    def _numpy_replay(self, callee: Any, args: tuple, kwargs: dict, results: list, node: Any) -> None:
        """``np.nanmean``, ``np.corrcoef``, ...: where the result is not
        finite, NumPy's function runs again on the host from the user's line
        and issues its warnings (``hostwarnings.replay_effect``)."""
        if len(results) != 1 or not results[0].type.kinds <= {"numpy", "array0"}:
            return
        try:
            inspect.signature(callee).bind(*args, **kwargs)
        except (TypeError, ValueError):
            return
        unit, lineno = self._warning_frame(1, node, lambda cause: self.graph_break(
            FallbackCode.SIDE_EFFECT, node, f"NumPy's warnings {cause}", "call"))
        if unit is None:
            return
        self._guard_numpy_errors()
        blocks = self._catch_warnings_blocks()
        self._guard_filters_by_value(blocks[0]._filters if blocks else warnings.filters)
        effect = hostwarnings.replay_effect(callee, _code_filename(unit), lineno, unit.globals,
                                            self.value_kinds((args, kwargs), node))
        self.emit_call(effect, (results[0], *args), kwargs, node, f"host numpy {callee.__name__} warnings", effect=True)

    def _guard_warning_action(self, category: type, text: str | None, module: str | None, lineno: int) -> None:
        """A guard on what the warning filters do with one warning the graph
        may issue (``hostwarnings.action_summary``): raise it, drop it, or
        issue it as ``warn_explicit`` decides when it runs. A caller's
        ``catch_warnings()`` around each call, or a filter for other
        warnings, keeps the graph."""
        key = ("warning actions",)
        guard = self.__dict__.get("_action_guard")
        if guard is None:
            guard = self.__dict__["_action_guard"] = hostwarnings.ActionGuard()
            self.guard_keys.add(key)
            self.guards.append(Guard(guard, True, "the warning filters' action on a warning the graph issues", key))
        guard.add(category, text, module, lineno)

    def _guard_filters_by_value(self, filters: list) -> None:
        """A guard on the warning filters the caller has, by their entries
        (not the list's identity: a caller's ``catch_warnings()`` around each
        call copies the list, and must not recompile the graph each time)."""
        key = ("warning filters by value",)
        if key not in self.guard_keys:
            self.guard_keys.add(key)
            entries, default = list(filters), warnings.defaultaction
            self.guards.append(Guard(lambda: warnings.filters == entries and warnings.defaultaction == default, True,
                                     "the warning filters", key))

    def _guard_numpy_errors(self) -> None:
        """A guard on ``np.geterr()`` as the caller has it (the graph's
        RuntimeWarnings follow it): the modes when this trace began."""
        key = ("numpy errstate",)
        if key not in self.guard_keys:
            self.guard_keys.add(key)
            entry = self.__dict__.get("numpy_errors_at_entry") or np.geterr()
            self.guards.append(Guard(lambda: np.geterr() == entry, True, "NumPy's floating-point error modes "
                                     "(np.seterr, np.errstate)", key))

    def _catch_warnings_blocks(self) -> list:
        """The ``warnings.catch_warnings`` managers entered at trace time around
        the statement being traced, outermost first (``blocks._trace_time_context``)."""
        return [m for m in self.__dict__.get("trace_time_contexts", ()) if isinstance(m, warnings.catch_warnings)]

    def _in_catch_warnings(self) -> bool:
        return bool(self._catch_warnings_blocks())

    def warning_filters_changed(self, node: Any) -> None:
        """Eager changed the warning filters here (``catch_warnings``'s enter
        and exit, ``simplefilter`` in its block; at trace time in the graph):
        the filters' version changes on every call, as eager's does, so that
        the "once per location" registries are forgotten as eager forgets
        them. One effect where the previous op already made the change."""
        ops = self.region.ops
        if not (self.traced_depth or getattr(self, "rolled_depth", 0)):
            self.filters_bumped = True   # on every path: a check after it bumps too when it fires (specialize)
        if ops and getattr(ops[-1], "fn", None) is _FILTERS_MUTATED:
            return
        if hostwarnings.filters_mutated is None:
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, "a change of the warning filters (this Python "
                                   "has no warnings._filters_mutated)", "call")
        self.emit_call(_FILTERS_MUTATED, (), {}, node, "host warnings._filters_mutated", effect=True)

    def _warning_frame(self, stacklevel: int, node: Any, refuse: Any) -> tuple:
        """The unit and line eager's ``warnings.warn`` takes from the frame
        ``stacklevel`` names: this function's (1), or the converted function
        calling it (2), ...; frames skipped must be plain calls (a generator's
        caller is whoever resumes it, a ``@contextmanager``'s is contextlib).
        A frame above the converted function: ``(None, k)``, ``k`` frames above
        its caller (``hostwarnings.outside_warning_effect``)."""
        chain = [(self.frame.unit, node)]
        chain += [(f.unit, n) for f, n in zip(reversed(self.callers), reversed(self.call_nodes))]
        level = max(stacklevel, 1) - 1
        if any(unit.generator for unit, _ in chain[:level]):
            raise refuse(f"with stacklevel={stacklevel} names the frame of whoever resumes a generator")
        if level >= len(chain):   # the caller's (or above): (None, how many frames above the converted function)
            return None, level - len(chain)
        unit, at = chain[level]
        return unit, _call_line(unit, at)

    def _shadowed(self, callee: Any, args: tuple, node: Any) -> tuple[Any, tuple]:
        """A read that only looks at an outside list or dict this graph has
        changed (``CONFIG.copy()``, ``len(LOG)``) reads its trace-time shadow,
        which holds eager's contents now (``writeback.shadow_of``)."""
        targets = self.__dict__.get("_effect_targets")
        if not targets:
            return callee, args
        owner = getattr(callee, "__self__", None)
        if type(callee) is types.BuiltinMethodType and type(owner) in (list, dict) \
                and callee.__name__ in _LOOKING_METHODS and targets.get(id(owner)) is owner:
            shadow = self.shadow_of(owner, node)
            return (callee, args) if shadow is None else (getattr(shadow, callee.__name__), args)
        if any(callee is f for f in _LOOKING_BUILTINS):
            shadows = [self.shadow_of(a, node) if id(a) in targets and targets[id(a)] is a else None for a in args]
            return callee, tuple(a if s is None else s for a, s in zip(args, shadows))
        return callee, args

    def _introspect(self, callee: Any, moves: bool, args: tuple, kwargs: dict, node: Any) -> Any:
        """``inspect.signature(f)``, ``Signature.bind(*args, **kwargs)``,
        ``BoundArguments.apply_defaults()``, ``Parameter(...)``: run at trace
        time as eager runs them (``kinds.introspection``). A signature is
        guarded on what it is made from (``kinds.signature_inputs``); the
        objects made are this trace's (a ``BoundArguments`` holds the graph
        values it was given, as eager's holds the arrays)."""
        owner = callee.__self__ if isinstance(callee, types.MethodType) else None
        subjects = self._subjects(callee, args, kwargs)
        # a stand-in may only be among what bind() stores, never what a function looks at
        looked_at = (owner, *subjects) if moves else (owner, args, kwargs)
        if contains_standin(looked_at):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} of ast2graph's "
                                   "trace-time stand-in (eager looks at its own object)")
        if isinstance(owner, inspect.BoundArguments):
            self.check_mutable(owner, node, f"{qualified_name(callee)}")
        # the signature's own guard covers what inspect.signature reads; bind only stores its arguments;
        # Signature(params), Parameter(...), replace(...) read theirs (an outside list of parameters)
        result = self.static_call(callee, args, kwargs, node, reads=not (moves or subjects))
        for subject in subjects:
            self._guard_signature(callee, subject, args, kwargs, result)
        if isinstance(result, inspect.BoundArguments):
            self.mark_fresh(result)
            self.mark_fresh(result.arguments)
        if isinstance(result, inspect.Signature):
            for made in (result, *result.parameters.values()):
                self.mark_fresh(made)   # immutable: read without guards (the signature's guard covers them)
        return result

    @staticmethod
    def _subjects(callee: Any, args: tuple, kwargs: dict) -> tuple:
        """The function whose signature ``callee`` reads (``inspect.signature(f)``,
        ``Signature.from_callable(f)``, ``unwrap``, ``getfullargspec``); none for the rest."""
        target = callee.__func__ if isinstance(callee, types.MethodType) else callee
        if target in (inspect.signature, inspect.Signature.from_callable.__func__, inspect.unwrap,
                      inspect.getfullargspec):
            subject = args[0] if args else kwargs.get("obj", kwargs.get("func"))
            return (subject,)
        return ()

    def _guard_signature(self, callee: Any, subject: Any, args: tuple, kwargs: dict, result: Any) -> None:
        """The graph holds ``result``, read from ``subject``'s signature: valid
        while the objects it was made from are the same ones (a function's
        ``__defaults__`` replaced, a ``__signature__`` set re-specialise); for
        a subject whose inputs are not known, while ``callee`` gives an equal result."""
        key = ("signature", id(subject), id(callee))
        if key in self.guard_keys:
            return
        self.guard_keys.add(key)
        inputs = signature_inputs(subject)
        what = f"what {qualified_name(callee)} reads of {self.named(subject)}"
        if inputs is not None:
            self.guards.append(Guard(lambda: same_inputs(signature_inputs(subject), inputs), True, what, key))
            return

        def same() -> bool:
            now = callee(*args, **kwargs)
            return now is result or bool(now == result)

        self.guards.append(Guard(same, True, what, key))

    def _ufunc_out(self, ufunc: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``np.exp(x, out=x)``, ``np.divide(a, b, out=np.zeros_like(a), where=b != 0)``:
        the result (``where`` it holds; ``out``'s elements elsewhere) cast to
        ``out``'s dtype as NumPy's ``same_kind`` rule allows, written into ``out``
        as ``out[...] = r`` when one local name holds it (the write's alias checks
        apply), handed on as it is when nothing else can see ``out``. Eager
        returns ``out`` itself."""
        kwargs = dict(kwargs)
        out, where = kwargs.pop("out"), kwargs.pop("where", True)
        if type(out) is tuple and len(out) == 1:
            out = out[0]
        if isinstance(out, Value) and out.type.kinds == {"jax"}:   # (NumPy writes into its own arrays only)
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{qualified_name(ufunc)} with out= a jax.Array "
                                   "(eager raises TypeError: return arrays must be of ArrayType)")
        sliced = self._out_slice(out) if isinstance(out, Value) and ufunc.nout == 1 else None
        if sliced is not None:   # ``out=buf[1:n]``: a temporary view of a local array, written as ``buf[1:n] = r``
            out = sliced[2]
        if out is Ellipsis or not isinstance(out, Value) or not out.type.numpy or out.type.python \
                or not out.type.shape or ufunc.nout != 1 or id(out) in self.view_of and sliced is None:
            raise self.graph_break(FallbackCode.MUTATION, node, f"{qualified_name(ufunc)} writes its result into an "
                                   "array the graph cannot update in place here (out=)")
        self.__dict__["_fp_where"] = where   # NumPy's RuntimeWarnings only where it computes (numpy_fp_warnings)
        try:
            result = self.call(ufunc, args, kwargs, node)
        finally:
            self.__dict__.pop("_fp_where", None)
        if not isinstance(result, Value) or not np.can_cast(result.type.dtype, out.type.dtype, casting="same_kind") \
                or np.broadcast_shapes(result.type.shape, out.type.shape) != out.type.shape:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{qualified_name(ufunc)}'s result cannot be cast "
                                   "or broadcast into out= (eager raises)")
        if where is not True:
            result = self.call(np.where, (where, result, out), {}, node)
        if sliced is not None:
            return self._write_into_slice(sliced, result, node)
        return self._write_into(out, result, node, f"{qualified_name(ufunc)} (out=)")

    def _out_slice(self, out: Value) -> tuple | None:
        """``out`` is a view ``base[idx]`` (a recipe of ``arrays.getitem``) of an
        array one local name holds, and nothing but the call holds the view (a
        temporary: ``np.multiply(a, 2, out=buf[1:4])``): (name, base, view, idx)."""
        found = self.getitem_recipe(out)
        if found is None or id(found[0]) in self.view_of:
            return None
        base, idx = found
        names = [k for k, v in self.frame.env.items() if v is base]
        if len(names) != 1 or any(v is out for v in self.frame.env.values()) \
                or next(self._references(out, ""), None) is not None:
            return None
        return names[0], base, out, idx

    def _write_into_slice(self, sliced: tuple, result: Value, node: Any) -> Any:
        """``base[idx] = result`` through the local name holding ``base`` (``array_store``:
        its alias checks, the write-back into a caller's array); eager returns the view
        ``out``: the same view of the written array."""
        name, base, _, idx = sliced
        target = gast.Subscript(value=gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None),
                                slice=gast.Constant(value=None, kind=None), ctx=gast.Store())
        gast.copy_location(target, node)
        gast.copy_location(target.value, node)
        self.array_store(target, base, idx, result)
        return self.subscript(self.frame.env[name], idx, node)

    def _write_into(self, out: Any, result: Any, node: Any, what: str) -> Any:
        """``out[...] = result`` for a NumPy call that writes its result into
        the array ``out`` (``np.exp(x, out=y)``, ``np.copyto(y, x)``): through
        the one local name that holds it (``array_store``: its alias checks,
        the write-back into a caller's array); a new value where nothing else
        can see ``out``. Returns ``out``'s new value (eager returns ``out``)."""
        if id(out) in self.view_of:
            raise self.graph_break(FallbackCode.MUTATION, node, f"{what} writes into an array that may be a view of "
                                   "another (the write changes the base)", "call")
        names = [k for k, v in self.frame.env.items() if v is out]
        if names:   # (the other names holding it: ``array_store``'s aliases, rebound where it may)
            target = gast.Subscript(value=gast.Name(id=names[0], ctx=gast.Load(), annotation=None, type_comment=None),
                                    slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
            gast.copy_location(target, node)
            gast.copy_location(target.value, node)
            self.array_store(target, out, Ellipsis, result)
            return self.frame.env[names[0]]
        k = self._captured_array(out)
        if k is not None:   # ``np.add(self.w, g, out=self.w)``: written in place (``mutation._capture_store``)
            target = gast.Subscript(value=gast.Name(id="<outside>", ctx=gast.Load(), annotation=None, type_comment=None),
                                    slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
            gast.copy_location(target, node)
            gast.copy_location(target.value, node)
            self.array_store(target, out, Ellipsis, result)
            return self.read_capture(self.captures[k].value)
        holder = next(self._references(out, ""), None) or self._outside_holder(out)
        if names or holder is not None or id(out) in self.input_of or not isinstance(out, Value):
            seen = f"also reachable as {holder or names}" if holder or names else "not held by one local name"
            raise self.graph_break(FallbackCode.MUTATION, node, f"{what} writes into an array {seen}", "call")
        return self.call(np.asarray, (result, out.type.dtype), {}, node) if result.type.dtype != out.type.dtype \
            else result

    def _outside_holder(self, out: Any) -> str | None:
        """Where the array ``out`` (no local name holds it) is still seen by
        eager in a way ``_references`` does not find: an array read from
        outside (``o.w`` of an argument object, a global's: the graph's copy
        of it), or a NumPy array made at trace time that something holds (an
        attribute of an object made in the call, ``o.w = np.zeros(2)``), whose
        graph value is a constant of it. None for a temporary of this call."""
        if any(c.value is out for c in self.captures):
            return "an array read from outside the function"
        for region in self.regions:
            for op in region.ops:
                if isinstance(op, CallOp) and op.fn is arrays.constant and any(r is out for r in op.results):
                    made = next((x for x in op.leaves if isinstance(x, np.ndarray)), None)
                    held = None if made is None else next(self._references(made, ""), None)
                    return None if held is None else f"{held} (an array made at trace time)"
        return None

    def _guard_cache(self, callee: Any) -> None:
        """The graph holds results of the memoised ``callee``: valid while its
        cache is as the trace left it (a ``cache_clear()`` or an eviction makes
        eager call it again, with its effects: the graph re-specialises)."""
        def state() -> tuple:
            info = callee.cache_info()
            return info.misses, info.currsize

        boxes = self.__dict__.setdefault("_cache_states", {})
        box = boxes.get(id(callee))
        if box is None:   # one guard per function, holding the state after its last call in the trace
            box = boxes[id(callee)] = [None]
            self.guards.append(Guard(lambda: state() == box[0], True, f"the cache of {qualified_name(callee)}"))
        box[0] = state()

    def _nnx_library_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A call that is not converted (library code, a builtin) with NNX
        objects among its arguments, a method of one, or an NNX class: one op
        on their state (``nnx.NnxMixin.nnx_call``), except builtins that only
        look at an object's identity or structure."""
        if callee is getattr and len(args) == 2 and not kwargs and type(args[1]) is str:
            return self.get_attribute(args[0], args[1], node)
        try:
            static = callee in _IDENTITY_BUILTINS or callee in _STRUCTURE_BUILTINS and not any(
                is_variable(x) for x in tree_leaves((args, kwargs), is_leaf=is_nnx))
        except TypeError:   # an unhashable callable
            static = False
        if static:
            self.nnx_guard([x for x in tree_leaves((args, kwargs), is_leaf=is_nnx) if is_nnx(x)])
            result = self.static_call(callee, args, kwargs, node)
            return self.mark_made(result) if isinstance(result, (list, dict, set)) else result
        result = self.nnx_call(callee, args, kwargs, node)
        if self.nnx_class(callee) and is_nnx(result):
            self.nnx_made(result)   # made anew by every eager call
        return result

    def standin_operator(self, fn: Any, left: Any, right: Any, node: Any) -> Any:
        """``left <op> right`` where a stand-in is an operand or inside one:
        containers holding graph values are moved as they are (``[x] + [y]``)
        but compared element by element, as traced values (``[x] == [y]``); a
        local function compares by identity, as a function does; a string
        formatted from traced values concatenates with strings; anything else
        would see ast2graph's object instead of eager's and runs in Python."""
        from .state import LocalFunction

        if fn in (operator.eq, operator.ne) and _other_kinds(left, right):
            return (fn is operator.ne) ^ (left is right)   # ``t == None`` of a tuple: its identity, as Python falls back to
        if fn in _COMPARISONS:
            seen = standins_in((left, right))
            if any(not isinstance(x, (Value, LocalFunction)) for x in seen):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "comparing ast2graph's trace-time stand-ins "
                                       "(a formatted string, a range, a method) needs eager's objects")
            if any(isinstance(x, Value) for x in seen):
                return self.emit_call(fn, (left, right), {}, node, fn.__name__)
            return self.static_call(fn, (left, right), {}, node)
        strings = [x for x in (left, right) if isinstance(x, arrays.DeferredStr)]
        if strings and fn in (operator.add, operator.iadd) and all(isinstance(x, (str, arrays.DeferredStr)) for x in (left, right)):
            return self.static_call(operator.add, (left, right), {}, node)
        if not contains_standin((left, right), arrays_too=False):
            return self.static_call(fn, (left, right), {}, node)   # containers of graph values: moved, not looked at
        raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{getattr(fn, '__name__', fn)} on ast2graph's trace-time "
                               "stand-in (a local function, a formatted string, a range) needs eager's objects")

    def _string_checks(self) -> dict:
        """What ``strformat`` asks of the values: a graph value; a stand-in
        (or one inside a container); objects of the value's eager class (none
        where that class depends on the path, or eager has a tracer: under an
        outer ``jax.jit`` eager formats the tracer itself)."""
        from .kinds import array_exemplars

        def exemplars(v: Value) -> tuple:
            if isinstance(v, KindedValue) and not self.outer_traced:   # formatted on the host from eager's object
                return self.kinded_exemplars(v)
            return () if self.outer_traced or v.type.mixed else array_exemplars(v.type, False)

        return {"traced": lambda x: isinstance(x, Value), "opaque": contains_standin, "exemplars": exemplars}

    def deferred_percent(self, template: str, operand: Any, node: Any) -> Any:
        """``template % operand`` with traced values: a string formatted on the
        host as eager formats it (``strformat.percent_parts``); what cannot be
        so runs in Python."""
        from .strformat import percent_parts

        found = percent_parts(template, operand, static=lambda d, x: self.static_call(operator.mod, (d, (x,)), {}, node),
                              **self._string_checks())
        if found is None:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "`%` formatting of traced values that ast2graph "
                                   "cannot format on the host as eager does")
        return arrays.DeferredStr(*found)

    def deferred_format(self, template: str, args: tuple, kwargs: dict, node: Any) -> Any:
        """``template.format(...)`` with traced values, as ``deferred_percent``."""
        from .strformat import format_parts

        def static(spec: str, x: Any, converter: Any) -> str:
            if converter is not None:
                x = self.static_call(converter, (x,), {}, node)
            return self.static_call(format, (x, spec), {}, node)

        found = format_parts(template, args, kwargs, static=static, **self._string_checks())
        if found is None:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "str.format of traced values that ast2graph "
                                   "cannot format on the host as eager does")
        return arrays.DeferredStr(*found)

    def value_kinds(self, tree: Any, node: Any) -> tuple:
        """``arrays.eager_kind`` of each graph value in ``tree``, in flattening
        order, for a host callback that hands them to Python code."""
        from ..graphlib.trees import tree_flatten

        kinds = tuple(arrays.eager_kind(x.type) for x in tree_flatten(tree)[0] if isinstance(x, Value))
        if "mixed" in kinds:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "a host callback would get a value whose kind "
                                   "(NumPy array, Python number or jax.Array) depends on the path taken")
        return kinds

    def _no_traced_keys(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> tuple:
        """``dict(pairs)``, ``dict.fromkeys(ks)``, ``d.update(pairs)``,
        ``d.setdefault(k)``, ``s.add(k)``, ``s.update(ks)`` hash their keys:
        eager hashes a traced number's value (an array's: TypeError), a
        stand-in would be hashed by identity. Such a call runs in Python.
        Returns ``args``, an iterator among them read into a list (the keys
        are looked at before the call, which then reads the same items)."""
        owner = getattr(callee, "__self__", None)
        name = getattr(callee, "__name__", "")
        hashing = callee is dict or owner is dict and name == "fromkeys" \
            or type(owner) is dict and name in ("update", "setdefault") or type(owner) is set and name in ("add", "update")
        if not hashing or not args:
            return args
        first = args[0]
        if isinstance(first, collections.abc.Iterator) and not generators_in(first):
            first = list(first)   # (zip, map of lists: what eager's call pulls, pulled once)
            args = (first, *args[1:])
        if name == "setdefault" or name == "add":
            keys: Any = [first]
        elif isinstance(first, collections.abc.Mapping) or callee is not dict and name != "update" \
                or type(owner) is set or type(first) not in (list, tuple):
            keys = list(first) if type(first) in (list, tuple, dict) else []
        else:   # pairs
            keys = [p[0] for p in first if type(p) in (list, tuple) and p]
        if contains_standin(keys) or contains_standin(list(kwargs)):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} with traced keys "
                                   "(eager hashes their values)")
        return args

    def _stores_only(self, callee: Any, args: tuple) -> bool:
        """``callee`` is ``xs.append``/``insert``/``extend`` of a list made in
        this call: it stores its argument and never looks at it, so a string
        formatted from traced values (``DeferredStr``) may go in, formatted on
        the host where eager's text is needed (printed, returned), as it is in
        a list display; whatever looks at its text (``==``, ``len``) still
        runs in Python. (``extend`` of a list or tuple of them only: eager
        extends by the characters of a string.)"""
        owner = getattr(callee, "__self__", None)
        name = getattr(callee, "__name__", "")
        # (or an outside list whose append or extend is replayed after the call, on a static path:
        # ``self.log.append(f"...")``: the effect's value leaves the graph as eager's str)
        lifted = name in ("append", "extend") and len(args) == 1 and type(owner) is list and not self._is_fresh(owner) \
            and self._effect_allowed(owner)   # (on a static path: not into a shadow, whose rows are values)
        return type(callee) is types.BuiltinMethodType and type(owner) is list and (self._is_fresh(owner) or lifted) \
            and (name in ("append", "insert") or name == "extend" and len(args) == 1 and type(args[0]) in (list, tuple))

    def _stores_kinded(self, callee: Any, args: tuple, kwargs: dict) -> bool:
        """``xs.append(v)`` of a value of path-dependent kind (``s if s > 0
        else 0.0``) into a list made here: the list holds the value itself,
        as a list display does (it is eager's object of the path's kind when
        it leaves the graph). Split per kind, each kind's append would run
        under a traced branch. Only the stored argument may be kinded."""
        stored = args[1:] if getattr(callee, "__name__", "") == "insert" else args
        return not kwargs and self._stores_only(callee, args) and not kinded_in(args[:len(args) - len(stored)])

    def _no_standins(self, callee: Any, standins: list, node: Any) -> None:
        """``callee`` is about to receive these stand-ins: it must not see one
        where eager has a function, a range, a string, a method. (A local
        function handed to JAX becomes a real closure first.)"""
        from .state import LocalFunction

        for x in standins:
            if not isinstance(x, (Value, LocalFunction, TracedClosure, TransformedFn)):   # (the last three: closures)
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} would receive "
                                       f"ast2graph's trace-time stand-in {type(x).__name__} instead of eager's object")

    def _host_call(self, callee: Any, args: tuple, kwargs: dict, declared: list, node: Any) -> Any:
        """A call that needs concrete values, with result types written by the
        user (``# ast2graph: returns f32[3]``): a ``jax.pure_callback``."""
        self.decide(node, "call", "host callback", f"{qualified_name(callee)} runs on the host with the declared result types {declared}")
        single = len(declared) == 1
        fn = arrays.host_function(callee, single, self.value_kinds((args, kwargs), node), may_raise=True, exact=True)
        result = self.emit_call(fn, (tuple(declared), *args), kwargs, node, f"host {qualified_name(callee)}")
        for r in (result,) if single else result:
            r.type = r.type.with_kinds(("numpy",))   # an ndarray, a NumPy scalar where 0-d (``declared_results``)
        return result

    def _closures_for_jax(self, tree: Any, node: Any) -> Any:
        """Local functions passed to JAX become plain Python closures."""
        from .state import LocalFunction
        leaves, treedef = tree_flatten(tree, is_leaf=lambda x: isinstance(x, (Value, LocalFunction)) or is_nnx(x))
        for x in leaves:
            if isinstance(x, types.FunctionType) and not jaxcallbacks._jax_or_numpy(x):
                self._no_python_effect(jaxcallbacks._tree_of(x), jaxcallbacks._globals_resolver(x),
                                       getattr(x, "__qualname__", "?"), node)
        if not any(isinstance(x, LocalFunction) for x in leaves):
            return tree
        converted = [self.traced_closure(x, node) if isinstance(x, LocalFunction) else x for x in leaves]
        return jax.tree_util.tree_unflatten(treedef, converted)

    def _no_stale_cells(self, callee: Any, node: Any) -> None:
        """``callee`` (``jax.grad(f)`` of a function an interpreted statement
        made) closes over a cell of this very call whose variable this graph
        has rebound: JAX would trace ``f`` on the cell's old contents (the new
        value reaches the cell only after the segment), where eager's ``f``
        reads the new one. It runs in Python instead."""
        seen, stack = set(), [callee]
        while stack:
            fn = stack.pop()
            if fn is None or id(fn) in seen or len(seen) > 16:
                continue
            seen.add(id(fn))
            stack += [getattr(fn, "__wrapped__", None), getattr(fn, "func", None) if isinstance(fn, functools.partial)
                      else None]
            for cell in getattr(fn, "__closure__", None) or ():
                own = self.own_cells.get(id(cell))
                if own is None or own[0] is not cell:
                    inner = getattr(cell, "cell_contents", None) if _cell_set(cell) else None
                    if isinstance(inner, (types.FunctionType, functools.partial)):
                        stack.append(inner)   # (``jax.grad``'s grad_f closes over the function it differentiates)
                    continue
                try:
                    old = cell.cell_contents
                except ValueError:
                    old = _UNSET
                if self.top_frame.env.get(own[1], old) is not old:
                    raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} closes over "
                                           f"'{own[1]}', rebound in this graph: JAX would read the variable's old "
                                           "value", "call")

    def _no_python_effect(self, tree: Any, resolve: Any, name: str, node: Any) -> None:
        """A function JAX will trace once for all calls must have no Python effect."""
        if tree is None:   # no source (exec'd, edited since import): its effects cannot be known
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{name}, handed to JAX, has no Python source to "
                                   "read: a Python effect in it would run once in a graph, on every call in eager", "call")
        found = jaxcallbacks.python_effect(tree, resolve)
        if found is not None:
            raise self.graph_break(FallbackCode.SIDE_EFFECT, node, f"{name}, handed to JAX, has a Python side effect "
                                   f"({found[1]}, line {getattr(found[0], 'lineno', '?')}) that eager runs each time "
                                   "JAX traces it, on every call; in a graph it would run once", "call",
                                   hint="use jax.debug.print / jax.debug.callback inside functions handed to JAX, "
                                        "or move the effect out of the function")

    def traced_closure(self, fn: Any, node: Any) -> TracedClosure:
        """``fn``, a local function handed to JAX, as a Python closure of the
        values its free names hold now (a local function among them, itself
        one). A local function that reaches itself through its free names
        (``def g(n): ... g(n - 1)``) cannot be built from such values: the
        call falls back."""
        converting = self.__dict__.setdefault("_closures_converting", set())
        if id(fn) in converting:
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{fn.unit.qualname}, handed to JAX, calls itself "
                                   "through a free variable (a recursive local function)", "call")
        converting.add(id(fn))
        try:
            return self._traced_closure(fn, node)
        finally:
            converting.discard(id(fn))

    def _traced_closure(self, fn: Any, node: Any) -> TracedClosure:
        from .state import LocalFunction

        self._no_python_effect(fn.node, lambda name: self._closure_value(fn, name), fn.unit.qualname, node)

        own = set(fn.unit.scope.params) | set(fn.unit.scope.locals)
        names, values = [], []
        for name in free_names(fn.node, own):
            frame = fn.frame
            while frame is not None and not frame.owns(name):
                frame = frame.parent
            if frame is None or name not in frame.env:
                # a global or a cell of the converted function: read (guarded,
                # an array as a graph input) now, not when JAX traces the closure
                root = fn.frame
                while root.parent is not None:
                    root = root.parent
                if name not in root.unit.closure and name not in root.unit.globals:
                    continue   # a builtin
                value = self._outer_lookup(name, node, root)
                if isinstance(value, types.ModuleType):
                    continue
            else:
                value = frame.env[name]
            names.append(name)
            if isinstance(value, TransformedFn):   # ``g = jax.grad(lambda ...)`` it calls: made a closure now
                value = self._closures_for_jax(value, node)
            elif callable(value):   # one an interpreted statement made, closing over a variable rebound here
                self._no_stale_cells(value, node)
            values.append(self.traced_closure(value, node) if isinstance(value, LocalFunction) else value)
        numbers = {n: v.type.dtype.kind in "fc" for n, v in zip(names, values) if _python_number(v)}
        tuples = {n: tuple(x.type.dtype.kind in "fc" if _python_number(x) else
                           "const" if type(x) in (int, float) else None for x in v)
                  for n, v in zip(names, values) if type(v) is tuple and any(_python_number(x) for x in v)}
        found = python_arithmetic(fn.node, numbers, tuples) if numbers or tuples else None
        if found is not None and found[1] is not None:   # (in a rolled loop: it unrolls, the number static in each iteration)
            raise self.graph_break(FallbackCode.PRECISION, node, f"{fn.unit.qualname}, handed to JAX, computes with "
                                   f"the Python number '{found[1]}' (line {getattr(found[0], 'lineno', '?')}), traced "
                                   "here: eager computes a float from it in Python's 64 bits, JAX would in 32", "call",
                                   hint="compute the Python number outside the function handed to JAX")
        tree = fn.node
        if found is not None:   # ``1 - 0.999 ** t``: computed here, as eager's Python does, handed in as a number
            tree, exprs = hoisted_closure(fn.node, numbers, tuples)
            hoisted = self._hoisted_numbers(fn, names, values, exprs)
            if hoisted is None:   # (a run-time check in it: eager raises only if the closure computes it)
                raise self.graph_break(FallbackCode.PRECISION, node, f"{fn.unit.qualname}, handed to JAX, computes "
                                       f"with a traced Python number (line {getattr(exprs[0][1], 'lineno', '?')}) "
                                       "what may raise: eager computes it in Python's 64 bits, only where the "
                                       "function runs", "call",
                                       hint="compute the Python number outside the function handed to JAX")
            names, values = hoisted
        self.note_identity(values)
        self.guard_reads(tuple(values), node)
        enclosing = fn.unit.qualname.rpartition(".<locals>.")[0]
        factory = factory_for(tree, tuple(names), fn.unit.filename, fn.unit.globals, enclosing,
                              fn.unit.future_flags)
        self.decide(node, "call", "closure", f"{fn.unit.qualname} passed to JAX as a Python closure")
        return TracedClosure(factory, tuple(names), tuple(values))

    def _hoisted_numbers(self, fn: Any, names: list, values: list, exprs: list) -> tuple[list, list] | None:
        """``names``/``values`` of a closure, with each hoisted expression
        (``closures.hoisted_closure``) evaluated on the values it closes over,
        as eager's Python evaluates it inside the function; None (nothing
        emitted) where evaluating one emits a run-time check."""
        from .state import Frame

        env = dict(zip(names, values))
        outer, self.frame = self.frame, Frame(fn.unit, env, parent=None, local_names=frozenset(env))
        start = len(self.region.ops)
        try:
            numbers = [self.eval(e) for _, e in exprs]
        finally:
            self.frame = outer
        if any(not isinstance(op, CallOp) or not op.results or op.site is not None for op in self.region.ops[start:]):
            # a run-time check (a division by a number that may be 0), a host callback that may raise
            # (``math.exp(t)``: OverflowError): it would raise on every call, where eager raises only
            # when JAX calls the function (a tree with leaves)
            del self.region.ops[start:]
            return None
        return names + [n for n, _ in exprs], values + numbers

    def _closure_value(self, fn: Any, name: str) -> Any:
        """What ``name`` denotes inside the local function ``fn`` (for the effect scan); None if unknown."""
        import builtins

        frame = fn.frame
        while frame is not None:
            if frame.owns(name):
                return frame.env.get(name)
            frame = frame.parent
        unit = fn.unit
        if name in unit.globals:
            return unit.globals[name]
        return getattr(builtins, name, None)

    def _is_user_callable_object(self, callee: Any) -> bool:
        if isinstance(callee, (types.FunctionType, types.BuiltinFunctionType, type)):
            return False
        call = getattr(type(callee), "__call__", None)
        return isinstance(call, types.FunctionType) and classify_callee(call) is CallKind.USER_FUNCTION

    def _splits_kinds(self, callee: Any) -> bool:
        """A call that looks at its arguments' kinds (a builtin, an array op, a
        printer): made once per kind of an argument of path-dependent kind. A
        function converted inline (the user's, a library's Python) or one that
        only moves its arguments (``list``, ``zip``) gets the value itself."""
        from .state import LocalFunction

        if isinstance(callee, LocalFunction) or id(callee) in _KIND_MOVERS:
            return False
        if classify_callee(callee) is CallKind.USER_FUNCTION or self._is_user_callable_object(callee) \
                or _library_python(callee):
            return False
        return not (isinstance(callee, type) and (_python_init(callee) is not None or _is_namedtuple_class(callee)))
    def _pending_attributes(self, obj: Any) -> bool:
        """Whether this graph set an attribute of ``obj`` that is written to it
        only after the call (a lifted write: ``writeback.py``)."""
        return any(key[0] == id(obj) and entry[0] is obj for key, entry in self.attr_writes.items())

    def _storing_builtin(self, callee: Any, args: tuple, kwargs: dict, node: Any, traced: bool) -> Any:
        """``setattr(o, "a", v)`` and ``operator.setitem(d, k, v)``: stores, as
        ``o.a = v`` and ``d[k] = v``; ``getattr(o, "a"[, default])`` reads as
        ``o.a``; another builtin that stores an argument
        into an object (``deque.append``, ``heapq.heappush``) with a traced
        one runs in Python (JAX would trace it: it would store a tracer)."""
        if callee is setattr and len(args) == 3 and not kwargs and type(args[1]) is str:
            self.store_attribute(*args, node)
            return None
        if (callee is getattr and len(args) in (2, 3) or callee is hasattr and len(args) == 2) and not kwargs \
                and type(args[1]) is str \
                and (not isinstance(args[0], standin_types()) or isinstance(args[0], arrays.KnownFlags)):
            # as ``obj.name``: an attribute this graph wrote (pending), a property converted; its value guarded
            # (``hasattr``: whether it is there, the class's attributes too)
            try:
                found = self.get_attribute(args[0], args[1], node)
                return True if callee is hasattr else found
            except GraphBreak as e:
                if (len(args) == 3 or callee is hasattr) and isinstance(getattr(e, "exc", None), AttributeError):
                    return False if callee is hasattr else args[2]   # (guarded where it was found missing)
                raise
        if callee is operator.setitem and len(args) == 3 and not kwargs and not is_array(args[0]) \
                and not isinstance(args[0], Value) and not self.traced_int_index(args[1]):
            self.store_item_into(*args, node)
            return None
        stored = self._trace_time_structure(callee, args, kwargs, node) \
            if traced or type(getattr(callee, "__self__", None)) is collections.deque else NotImplemented
        if stored is not NotImplemented:
            return stored
        if traced and _stores_arguments(callee):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{qualified_name(callee)} would store a traced value "
                                   "into a Python object", "call")
        return NotImplemented

    def _trace_time_structure(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A ``collections.deque`` or a ``heapq`` heap (a list) made in this
        trace, holding traced values: a Python structure at trace time, as a
        list of them is (its length and order static, its items graph
        values). ``deque.append``/``appendleft``/``insert`` and ``extend``/
        ``extendleft`` of a list or tuple store the items; ``heapq``'s
        functions run at trace time on the list: where they compare two
        traced items (eager asks their values), ``static_call`` falls back
        with that site; keys that decide the order statically (``(priority,
        i, v)`` with distinct static ``priority, i``) never reach the items.
        Written only where it was made (``check_mutable``: not from inside a
        traced branch or a rolled loop around it). NotImplemented otherwise."""
        if callee is collections.deque and (not args or type(args[0]) in (list, tuple)):
            return self.mark_made(self.static_call(callee, args, kwargs, node))   # deque([x, y], maxlen=3)
        owner = getattr(callee, "__self__", None)
        if type(owner) is collections.deque and type(callee) is types.BuiltinMethodType and self._is_fresh(owner):
            name = callee.__name__
            if name in ("append", "appendleft", "insert") \
                    or name in ("extend", "extendleft") and len(args) == 1 and type(args[0]) in (list, tuple) \
                    or name in _DEQUE_MOVING and not contains_value((args, kwargs)):   # pop, rotate: no item compared
                self.check_mutable(owner, node, f"deque.{name}")
                return self.static_call(callee, args, kwargs, node)
            if name == "copy" and not args and not kwargs:
                return self.mark_made(self.static_call(callee, args, kwargs, node))
        if any(callee is f for f in _HEAP_FUNCTIONS) and args and type(args[0]) is list and self._is_fresh(args[0]) \
                and not kwargs:
            self.check_mutable(args[0], node, qualified_name(callee))
            return self.static_call(callee, args, kwargs, node)
        return NotImplemented

    def _operator_in_place(self, op_name: str, args: tuple, node: Any) -> Any:
        """``operator.iadd(a, v)`` of a NumPy array: ``a += v``, the array
        written in place (every alias sees it) and returned, through the local
        name the call's first argument is (``array_store``'s alias checks and
        write-back); anything else falls back."""
        first = node.args[0] if isinstance(node, gast.Call) and len(node.args) == 2 else None
        if not isinstance(first, gast.Name) or not self.frame.owns(first.id) or self.frame.env.get(first.id) is not args[0]:
            raise self.graph_break(FallbackCode.MUTATION, node, f"operator.{arrays.INPLACE_OPERATORS[op_name].__name__} "
                                   "writes a NumPy array in place, given here other than by a local name")
        whole = gast.Subscript(value=gast.Name(id=first.id, ctx=gast.Load(), annotation=None, type_comment=None),
                               slice=gast.Constant(value=Ellipsis, kind=None), ctx=gast.Store())
        gast.copy_location(whole, node)
        gast.copy_location(whole.value, node)
        self._aug_subscript(whole, args[0], node, op_name, args[1])
        return self.frame.env[first.id]

    def _printed_objects(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> tuple:
        """The arguments of a host printer, where one is an object of the
        user's (not a container, an array or a number: a leaf JAX does not
        open) holding traced values in its attributes: printed from the graph,
        its ``__str__`` would read ast2graph's stand-ins. A positional
        argument of ``print`` is its text made here (``str(obj)``, the user's
        ``__str__``/``__repr__`` traced at this point of the program, as eager
        makes it); elsewhere (in a container, a logging argument) a fallback."""
        def holder(x: Any) -> bool:
            return not isinstance(x, (Value, arrays.DeferredStr, np.ndarray, np.generic, jax.Array, str, bytes,
                                      numbers.Number, type, types.ModuleType, types.FunctionType)) \
                and x is not None and _holds_values(x)

        if not any(holder(x) for x in tree_flatten((args, kwargs))[0]):
            return args
        if callee is not print or any(holder(x) for x in tree_flatten(kwargs)[0]) \
                or any(holder(x) for a in args if not holder(a) for x in tree_flatten(a)[0]):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{qualified_name(callee)} of an object holding "
                                   "traced values in its attributes (in a container, or not a positional argument of "
                                   "print): its text would be made from ast2graph's stand-ins")
        return tuple(self._user_text(a, node) if holder(a) else a for a in args)

    def _user_text(self, obj: Any, node: Any) -> Any:
        """``str(obj)`` of an object of the user's: its class's Python
        ``__str__`` (else ``__repr__``) converted and run here, on the traced
        values it holds (a string formatted from them); ``str`` itself where
        neither is Python code (it then decides: a fallback if it would look
        at a traced value)."""
        klass = type(obj)
        method = klass.__str__ if klass.__str__ is not object.__str__ else klass.__repr__
        if isinstance(method, types.FunctionType) and method is not object.__repr__:
            text = self.call(method, (obj,), {}, node)
            if type(text) is not str and not isinstance(text, arrays.DeferredStr):   # (eager raises TypeError)
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{klass.__qualname__}.{method.__name__} "
                                       "of an object holding traced values returned no string")
            return text
        return self.call(str, (obj,), {}, node)

    def _special_builtin(self, callee: Any, args: tuple, kwargs: dict, node: Any, traced: bool) -> Any:
        op_name = next((n for n, f in arrays.INPLACE_OPERATORS.items() if callee is f), None)
        if op_name is not None and len(args) == 2 and not kwargs and self._numpy_in_place(args[0], args[1], node,
                                                                                           op_name):
            return self._operator_in_place(op_name, args, node)
        owner = getattr(callee, "__self__", None)
        if getattr(callee, "__name__", "") == "get" and type(callee) is types.BuiltinMethodType and args \
                and len(args) <= 2 and not kwargs and self.chosen_keys(owner, args[0]) is not None:
            return self.subscript(owner, args[0], node)   # ``d.get(key, 0)`` of a key d holds, whichever is chosen
        if any(callee is f for f in (sum, min, max, any, all, sorted)) and args \
                and type(args[0]) is collections.deque and self._is_fresh(args[0]) and contains_value(list(args[0])):
            # over a deque of traced values: its items in order, as over a list of them
            args = (list(args[0]), *args[1:])
            out = self._special_builtin(callee, args, kwargs, node, True)
            return out if out is not NotImplemented else self.static_call(callee, args, kwargs, node)
        if any(callee is f for f in (sum, min, max, any, all, sorted)) and args \
                and isinstance(args[0], collections.abc.Iterator) and generators_in(args[0]):
            # generator objects pulled as eager's builtin pulls them (any/all: up to the deciding item)
            stop_on = True if callee is any else False if callee is all else None
            items = self.generator_items(args[0], node, stop_on)
            args = (items, *args[1:])
            out = self._special_builtin(callee, args, kwargs, node, traced or any(isinstance(v, Value) for v in items))
            return out if out is not NotImplemented else self.static_call(callee, args, kwargs, node)
        if callee is sum and args and type(args[0]) is _LIST_ITERATOR:
            # an iterator made at trace time (itertools.chain/accumulate): taken once, here, as eager's sum takes it
            self.check_consumable(args[0], node)   # (the caller's: eager advances it on every call)
            args = (list(args[0]), *args[1:])
            # (its items from now on: the iterator is spent, so the static sum below must not be given it)
            out = self._special_builtin(callee, args, kwargs, node, traced or any(isinstance(v, Value) for v in args[0]))
            return out if out is not NotImplemented else self.static_call(callee, args, kwargs, node)
        if callee in (zip, enumerate) and any(isinstance(a, (arrays.TracedRange, arrays.TracedZip)) for a in args):
            zipped = self._traced_zip(callee, args, kwargs)
            if zipped is not None:
                return zipped
        if callee is len and len(args) == 1 and not kwargs and isinstance(args[0], arrays.TracedRange):
            rng = args[0]   # eager's len(range(a, b, s)): max(0, ceil((b - a) / s)), a Python int
            out = self.emit_call(arrays.trip_count, (rng.start, rng.stop, rng.step), {}, node, "len")
            out.type = out.type.with_kinds(("python",))
            return out
        if callee is getattr and len(args) in (2, 3) and not kwargs and isinstance(args[0], arrays.KnownFlags) \
                and type(args[1]) is str and args[1].islower() and args[0].answer(args[1]) is not None:
            return args[0].answer(args[1])   # ``getattr(flags, "writeable", True)`` (sklearn's check_array)
        try:   # isinstance, type, callable, hasattr, repr, ... of a trace-time value: eager's answer
            seen = observe(callee, args, kwargs, self.outer_traced, lambda obj, name: self.attribute_of(obj, name, node))
        except Unobservable as e:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, str(e)) from None
        if seen is not NotImplemented:
            return seen
        if callee is super and not args and not kwargs:
            return self._zero_argument_super(node)
        if callee is globals and not args and not kwargs:
            return self.frame.unit.globals   # the function's module, not ast2graph's
        if callee in (vars, dir) and len(args) == 1 and not kwargs and self._pending_attributes(args[0]):
            raise self.graph_break(FallbackCode.MUTATION, node, f"{callee.__name__}() of an object this function set "
                                   "an attribute of (the write is made after the call)", "call")
        if callee is vars and len(args) == 1 and not kwargs and type(getattr(args[0], "__dict__", None)) is dict \
                and (self._is_fresh(args[0]) or self._outside_storage(args[0]) is not None):
            return self.get_attribute(args[0], "__dict__", node)   # the object's own dict, as ``obj.__dict__``
        if callee in (hasattr, getattr) and len(args) in (2, 3) and type(args[1]) is str and not kwargs:
            self._attribute_storage_read(args[0], args[1], node)   # after a write through its __dict__: in Python
        if frame_introspection(callee, args, kwargs):
            # run by Python inside a converted call it would see ast2graph's frame
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)}() looks at the "
                                   "calling function's frame", "call")
        stored = self._storing_builtin(callee, args, kwargs, node, traced)
        if stored is not NotImplemented:
            return stored
        if traced and type(callee) is types.BuiltinMethodType and type(getattr(callee, "__self__", None)) is str \
                and callee.__name__ == "format":
            return self.deferred_format(callee.__self__, args, kwargs, node)
        if callee is len and len(args) == 1 and not kwargs and _user_method(args[0], "__len__") is not None:
            n = self.call(_user_method(args[0], "__len__"), args, {}, node)   # a user class's own __len__, converted
            if type(n) is not int or n < 0:   # eager's len() checks what it returns: let Python say so
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "len() of an object whose __len__ returns "
                                       "a traced or non-int value (eager checks it)")
            return n
        if callee is len and args and isinstance(args[0], Value):
            shape = args[0].type.shape
            if not shape:
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, "len() of a 0-d array (eager raises TypeError)")
            return shape[0]
        if callee is range and traced:
            return self._traced_range(args, node)
        if callee is slice and traced and not kwargs and 1 <= len(args) <= 3 and not any(
                isinstance(a, Value) and a.type.shape for a in args):
            return arrays.SliceSpec(*((None, args[0], None) if len(args) == 1 else (args + (None,))[:3]))
        if callee in (max, min) and traced and len(args) >= 2 and not kwargs:
            return self._select_extreme(callee is max, args, node)
        if callee in (max, min) and len(args) == 1 and kwargs and set(kwargs) <= {"key", "default"} \
                and (type(args[0]) in (list, tuple, range) or isinstance(args[0], Value)):
            return self._extreme_by_key(callee is max, self.iterate_static(args[0], node), kwargs, node)
        if callee in (max, min, any, all) and traced and len(args) == 1 and not kwargs:
            # of a traced array too: eager iterates its rows (Python's fold, NaN handling included)
            return self._reduce_items(callee, self.iterate_static(args[0], node), node)
        if callee is sum and args and (isinstance(args[0], Value) or type(args[0]) in (list, tuple) and (
                traced or _user_added((*args[0], *args[1:], *kwargs.values())))) \
                and len(args) + len(kwargs) <= 2 and set(kwargs) <= {"start"}:
            # a list of traced values too: each ``+`` of eager's kinds (float64 NumPy scalars stay float64)
            return self._left_sum(self.iterate_static(args[0], node), (*args[1:], *kwargs.values(), 0)[0], node)
        if callee is math.prod and len(args) == 1 and set(kwargs) <= {"start"} and (isinstance(args[0], Value) or
                                                                               type(args[0]) in (list, tuple) and traced):
            # ``start * xs[0] * xs[1] ...``, left to right, each ``*`` of eager's kinds (as ``sum``'s ``+``)
            acc = kwargs.get("start", 1)
            for item in self.iterate_static(args[0], node):
                acc = self.binop(operator.mul, acc, item, node)
            return acc
        if any(callee is c for c in (int, float, bool)) and len(args) == 1 and not kwargs and isinstance(args[0], Value):
            return self.python_number(args[0], callee, "trunc", f"{callee.__name__}()", node)
        rounding = next((r for f, r in _MATH_ROUNDINGS if callee is f), None)   # (a user's callable may be unhashable)
        if rounding is not None and len(args) == 1 and not kwargs and isinstance(args[0], Value):
            return self.python_number(args[0], int, rounding, f"math.{callee.__name__}()", node)
        name = next((n for f, n in _MATH_FLOATS if callee is f), None)
        if name is not None and len(args) == 1 and not kwargs and isinstance(args[0], Value) and not args[0].type.shape:
            # a Python float in the graph (the operand converted as float() does), eager's math errors checked
            f = self.python_number(args[0], float, "trunc", f"math.{name}()", node)
            self.emit_call(arrays.math_domain_check, (f, name), {}, node, f"math.{name} check", effect=True)
            out = self.emit_call(arrays.python_math, (f, name), {}, node, f"math.{name}")
            out.type = out.type.with_kinds(("python",))
            return out
        predicate = next((p for f, p in _MATH_PREDICATES if callee is f), None)
        if predicate is not None and len(args) == 1 and not kwargs and isinstance(args[0], Value) \
                and not args[0].type.shape and args[0].type.dtype.kind in "biuf":
            # ``math.isnan(float(v))`` of a traced number: eager's bool, computed in the graph
            f = self.python_number(args[0], float, "trunc", f"math.{callee.__name__}()", node)
            out = self.emit_call(arrays.python_float_predicate, (f, predicate), {}, node, f"math.{predicate}")
            out.type = out.type.with_kinds(("python",))
            return out
        if callee is math.isclose and _isclose_in_graph(args, kwargs):
            # math.isclose(err, 0.0, abs_tol=1e-9) of traced numbers: CPython's test on their float() values
            a, b = (self.python_number(v, float, "trunc", "math.isclose()", node) if isinstance(v, Value) else float(v)
                    for v in args)
            tolerances = (float(kwargs.get("rel_tol", 1e-09)), float(kwargs.get("abs_tol", 0.0)))
            out = self.emit_call(arrays.python_isclose, (a, b, *tolerances), {}, node, "math.isclose")
            out.type = out.type.with_kinds(("python",))
            return out
        host = _host_math(callee)
        if host is not None and args and not kwargs and any(isinstance(a, Value) for a in args) \
                and all(not a.type.shape if isinstance(a, Value) else type(a) in (int, float, bool) for a in args):
            # math.cos(step / total * math.pi) of traced Python numbers: Python's math on the host
            floats = tuple(self.python_number(a, float, "trunc", f"math.{host}()", node) if isinstance(a, Value)
                           else float(a) for a in args)
            if host not in arrays.MATH_NEVER_RAISES and self.check_may_be_caught():
                # in a try whose handler may take eager's math error: the value, then a check of its own
                out = self.emit_call(arrays.python_math_host_total, (host, *floats), {}, node, f"math.{host}",
                                     effect=True)
                self.emit_call(arrays.python_math_check, (host, *floats), {}, node, f"math.{host} check", effect=True)
                out.type = out.type.with_kinds(("python",))
                return out
            fn = arrays.python_math_host_total if host in arrays.MATH_NEVER_RAISES else arrays.python_math_host
            out = self.emit_call(fn, (host, *floats), {}, node, f"math.{host}", effect=True)
            out.type = out.type.with_kinds(("python",))
            return out
        if callee is round and args and isinstance(args[0], Value):
            return self._round(args[0], args[1:] + tuple(kwargs.values()), node)
        if (callee is divmod or callee is pow) and traced and len(args) == 2 and not kwargs \
                and all(_real_python_number(a) for a in args):
            return self._python_divmod_pow(callee, args, node)
        if callee is divmod and traced and len(args) == 2 and not kwargs and (
                numpy_operands(*args) or _numpy_real_operands(args)):
            # ``divmod(a, b)`` of NumPy values is ``np.divmod`` (a zero divisor gives 0, 0; XLA's another number),
            # its RuntimeWarnings NumPy's scalar ones where both are scalars ("... in scalar divmod")
            self.__dict__["_fp_scalar_call"] = True
            try:
                return self.call(np.divmod, args, {}, node)
            finally:
                self.__dict__.pop("_fp_scalar_call", None)
        if callee is complex and traced and _complex_in_graph(args, kwargs, self.outer_traced):
            # complex(float(re), float(im)), complex(z[0]) of traced scalars: a Python complex in the graph
            parts = tuple(a if isinstance(a, Value) and a.type.dtype.kind == "c" else
                          self.python_number(a, float, "trunc", "complex()", node) if isinstance(a, Value) else float(a)
                          for a in args)
            out = self.emit_call(arrays.python_complex_of, parts, {}, node, "complex")
            out.type = out.type.with_kinds(("python",))
            return out
        if callee in (int, float, bool, complex) and traced:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{callee.__name__}() of a traced array needs its value on the host")
        if callee is iter and len(args) == 1 and not kwargs and isinstance(args[0], Value):
            return self._iter_value(args[0], node)
        if callee is iter and traced and len(args) == 1 and not kwargs and tail_of(args[0]) is None and \
                (type(args[0]) is tuple or type(args[0]) is list and self._is_fresh(args[0])):
            # ``it = iter(args); x0 = next(it)`` of this call's own list (or a tuple) of traced values
            # (NumPy's polyutils._valnd): eager's iterator over that very object, pulled at trace time
            return self.mark_fresh(iter(args[0]))
        if callee is next and args:
            self.check_consumable(args[0], node)
        if callee is map and traced and len(args) >= 2 and not kwargs:
            # each call converted like any other (a traced map object cannot be
            # built), made when the item is pulled, as eager's lazy map makes it
            from ..ir.tracertext import suspended

            seqs = [self.iterate_static(a, node) for a in args[1:]]
            consumer = self._generator_consumer(node)
            python_code = not isinstance(args[0], (types.BuiltinFunctionType, types.BuiltinMethodType, type))
            if consumer is None:   # a builtin taking every item at once (list, sum, ...): made now, held
                # as a list (the consumer cannot tell; sum/min/max of traced values read a list)
                return self.mark_fresh([self.call(args[0], tuple(items), {}, node) for items in zip(*seqs)])
            if isinstance(consumer, str) and not python_code:   # a builtin (``map(kwds.pop, ...)``): as before
                return self.mark_fresh(iter([self.call(args[0], tuple(items), {}, node) for items in zip(*seqs)]))
            if isinstance(consumer, str) and _consumed_at_once(self.frame.unit.tree, node, min(map(len, seqs))):
                # ``b, a = map(np.atleast_1d, (b, a))``, ``f(*map(g, xs))``: eager pulls every item
                # there and then, in order, as making them now does
                return self.mark_fresh(iter([self.call(args[0], tuple(items), {}, node) for items in zip(*seqs)]))
            if isinstance(consumer, str):
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, "a lazy map() of traced values used other than "
                                       "by iteration where it is made (eager calls the function when an item is pulled)")

            def item(*items: Any) -> Any:
                with suspended():   # ast2graph interprets the call when the loop pulls the item
                    return self.call(args[0], items, {}, node)

            return self.mark_fresh(map(item, *seqs))
        if any(callee is f for f in (itertools.chain, itertools.accumulate, *_CHOOSING)) and traced:
            made = self._itertools_made(callee, args, kwargs, node)
            if made is not NotImplemented:
                return made
        if callee is dict and traced and all(type(a) in (list, tuple, dict) for a in args):
            # dict(d), dict(pairs), dict(a=x) of traced values: a new dict, this call's own
            self.guard_reads((args, kwargs), node)
            return self.mark_fresh(dict(*args, **kwargs))
        if callee is copy.copy and traced and len(args) == 1 and not kwargs and type(args[0]) in (list, dict):
            # copy.copy(xs): a new list holding the same items (the arrays themselves), this call's own
            self.guard_reads(args, node)
            return self.mark_fresh(copy.copy(args[0]))
        if callee in (set, frozenset) and traced and len(args) == 1 and not kwargs:
            # ``set(d)`` of a dict holding traced values: its keys, static; a set of traced values
            # hashes them (their values, or eager's TypeError for an array): in Python
            items = self.iterate_static(args[0], node)
            if contains_standin(items):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{callee.__name__}() of traced values "
                                       "(eager hashes their values)")
            return self.mark_fresh(set(items)) if callee is set else frozenset(items)
        if callee is functools.reduce and traced and 2 <= len(args) <= 3 and not kwargs:
            return self._reduce_call(args, node)
        if callee is sorted and (traced or kwargs.get("key") is not None):   # a key function may give traced keys
            return self.traced_sorted(args, kwargs, node)
        if callee in (enumerate, zip, reversed, list, tuple) and traced:
            seqs = [self.iterate_static(a, node) if isinstance(a, Value) else a for a in args]
            for seq in seqs:
                self.check_consumable(seq, node)
            result = callee(*seqs, **kwargs)
            return self.mark_fresh(list(result)) if callee is list else (tuple(result) if callee is tuple else
                                                                         self.mark_fresh(result))
        if callee in (list, tuple) and len(args) == 1 and not kwargs and self.holds_arrays(args[0]):
            items = self.held_arrays(args[0], node)   # ``ps = list(self.params)``: each array read as ``ps[k]``
            return items if callee is list else tuple(items)
        if callee in (enumerate, zip) and not kwargs and args and all(self.holds_arrays(a) for a in args[:1 if
                                                                      callee is enumerate else None]) \
                and (callee is zip or len(args) == 1 or len(args) == 2 and type(args[1]) is int):
            # ``zip(self.params, self.grads)``: each array read as ``self.params[k]`` reads it (a capture,
            # written in place as eager writes it), lazily, as eager's iterators pull the lists' items
            seqs = [self.live_held_arrays(a, node) for a in args[:1 if callee is enumerate else None]]
            return self.mark_fresh(callee(*seqs, *args[len(seqs):]))
        return NotImplemented

    def _user_eq_search(self, items: list | tuple, name: str, target: Any, node: Any) -> Any:
        """``items.count(v)`` / ``items.index(v)`` where a user class's
        ``__eq__`` answers: Python's protocol item by item (identity, then
        ``item == v`` converted like a call, then its truth), as
        ``_user_eq_contains``; a truth that depends on the data, a missing
        item and ``remove`` (a write) fall back, never run on the trace's
        stand-ins."""
        if name == "remove" or type(items) is list and not self._is_fresh(items):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{type(items).__name__}.{name} whose items "
                                   "compare with a user __eq__ (eager calls it item by item)", "call")
        found = 0
        for k, item in enumerate(items):
            same = True if item is target else self.truth(self.binop(operator.eq, item, target, node), node)
            if isinstance(same, Value):
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{type(items).__name__}.{name} whose user "
                                       "__eq__ depends on traced values (eager stops at the first equal item)", "call")
            if same and name == "index":
                return k
            found += bool(same)
        if name == "index":
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{type(items).__name__}.index of an item "
                                   "that no user __eq__ matched (eager raises ValueError)", "call")
        return found

    def _python_divmod_pow(self, callee: Any, args: tuple, node: Any) -> Any:
        """``divmod(a, b)`` and ``pow(a, b)`` of Python numbers, one traced, as
        the operators ``(a // b, a % b)`` and ``a ** b`` (Python defines them so
        for int, float and bool), eager's errors included: a zero divisor raises
        divmod's own ZeroDivisionError (its message differs from ``//``'s), a
        negative base to a fractional power gives a complex number."""
        left, right = args
        if callee is pow:
            return self.binop(operator.pow, left, right, node)
        self._python_zero_division(divmod, left, right, node)   # first: eager's message is divmod's
        return (self.binop(operator.floordiv, left, right, node), self.binop(operator.mod, left, right, node))

    def _itertools_made(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``itertools.chain(a, b)`` / ``itertools.accumulate(xs, f)`` over
        arrays' rows, lists and tuples (iterating them has no effect): an
        iterator over the items made now, in eager's order. ``accumulate``'s
        function is called now, as eager calls it when the items are pulled:
        only where that cannot be told apart (no function, a builtin one, or
        every item taken at once where it is made); else NotImplemented."""
        if any(callee is f for f in _CHOOSING):
            return self._chosen(callee, args, kwargs, node)
        sources = args if callee is itertools.chain else args[:1]
        if kwargs and callee is itertools.chain or not sources or \
                not all(isinstance(a, Value) or type(a) in (list, tuple) for a in sources):
            return NotImplemented
        if callee is itertools.chain:
            return self.mark_fresh(iter([item for a in args for item in self.iterate_static(a, node)]))
        if len(args) > 2 or set(kwargs) - {"func", "initial"} or len(args) == 2 and "func" in kwargs:
            return NotImplemented
        func = args[1] if len(args) == 2 else kwargs.get("func")
        if func is not None and not isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)) \
                and self._generator_consumer(node) is not None:
            return NotImplemented   # a Python function: eager calls it as each item is pulled
        items = list(self.iterate_static(args[0], node))
        out = [kwargs["initial"]] if kwargs.get("initial") is not None else []
        for item in items:
            if not out:
                out.append(item)
            elif func is None:
                out.append(self.binop(operator.add, out[-1], item, node))
            else:
                out.append(self.call(func, (out[-1], item), {}, node))
        return self.mark_fresh(iter(out))

    def _chosen(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """``itertools.combinations(xs, r)``, ``permutations(xs[, r])``,
        ``combinations_with_replacement(xs, r)`` of a list, tuple or array of
        traced values with a static ``r``: which positions go together never
        depends on the items' values (these never compare them), so the
        tuples are made now, in eager's order, each holding the items
        themselves; an iterator over them, as eager's object is one."""
        try:
            bound = inspect.signature(lambda iterable, r=None: None).bind(*args, **kwargs)
        except TypeError:
            return NotImplemented   # (eager's TypeError: the call as it is)
        r, source = bound.arguments.get("r"), bound.arguments["iterable"]
        if not (isinstance(source, Value) or type(source) in (list, tuple)):
            return NotImplemented   # (an iterator, a generator: pulled as eager pulls it, elsewhere)
        if r is not None and type(r) is not int or r is None and callee is not itertools.permutations:
            return NotImplemented   # (a traced r: how many tuples depends on the data)
        items = list(self.iterate_static(source, node))
        try:
            positions = list(callee(range(len(items)), r) if r is not None else callee(range(len(items))))
        except ValueError:   # (r < 0: eager's error, from the call as it is)
            return NotImplemented
        return self.mark_fresh(iter([tuple(items[i] for i in chosen) for chosen in positions]))

    def _iter_value(self, x: Value, node: Any) -> Any:
        """``iter(x)`` of a traced array: an iterator over its rows, as the for
        loop takes them; of a 0-d one (or a number), eager's TypeError
        (``np.iterable(x)`` catches it)."""
        t = x.type
        if t.shape:
            return self.mark_fresh(iter(self.iterate_static(x, node)))
        if t.mixed:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "iter() of a value whose kind depends on the path")
        if t.python:
            message = f"'{_ITEM_KINDS.get(t.dtype.kind, float).__name__}' object is not iterable"
        elif t.numpy:   # a 0-d NumPy value is a NumPy scalar
            message = f"'numpy.{t.dtype.type.__name__}' object is not iterable"
        else:
            message = "iteration over a 0-d array"
        error = TypeError(message)
        raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"iter() of a 0-d value (eager raises TypeError: {message})",
                               exc=error)

    @staticmethod
    def _numpy_float_to_int(method: Any, args: tuple, kwargs: dict) -> bool:
        """``a.astype(int_dtype)`` of a NumPy float array (``numpy_api.float_to_int``):
        the plain form only (other keywords keep the generic method)."""
        t = method.value.type
        if not t.kinds <= {"numpy", "array0"} or t.dtype.kind != "f" or set(kwargs) - {"dtype"} \
                or len(args) + len(kwargs) != 1:
            return False
        target = args[0] if args else kwargs["dtype"]
        if isinstance(target, Value):
            return False
        try:
            return np.dtype(target).kind in "iu"
        except TypeError:
            return False

    @staticmethod
    def _numpy_float_narrowing(method: Any, args: tuple, kwargs: dict) -> bool:
        """``a.astype(np.float32)`` of a NumPy float64 array (a float or complex
        dtype of a smaller range; ``numpy_api.float_narrow``): the plain form only."""
        t = method.value.type
        if not t.kinds <= {"numpy", "array0"} or set(kwargs) - {"dtype"} or len(args) + len(kwargs) != 1:
            return False
        target = args[0] if args else kwargs["dtype"]
        if isinstance(target, Value):
            return False
        try:
            return _narrower(np.dtype(t.dtype), np.dtype(target))
        except TypeError:
            return False

    def _on_host(self, callee: Any, tree: Any, node: Any) -> Any:
        """``jax.block_until_ready(x)``: ``x`` itself. ``jax.device_get(x)``
        (JAX's tree map, dicts rebuilt in JAX's order), each leaf's
        ``__array__()``: a NumPy array itself, a NumPy scalar's 0-d array, a
        jax.Array's read-only NumPy array; a Python number as it is."""
        if callee is jax.block_until_ready:
            return tree

        def leaf(x: Any) -> Any:
            if type(x) is not Value:
                return callee(x)
            kinds = x.type.kinds
            if len(kinds) != 1:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "jax.device_get of a value whose kind "
                                       "(NumPy array, Python number or jax.Array) depends on the path taken")
            if kinds <= {"python", "array0"} or "numpy" in kinds and x.type.shape:
                return x
            return self.call(np.asarray, (x,), {}, node)

        return jax.tree_util.tree_map(leaf, tree)

    def _make_record(self, cls: type, args: tuple, kwargs: dict, node: Any) -> Any:
        """``cls(*args, **kwargs)`` of a named tuple holding attributes too
        (``_record_with_state``), as eager makes it: ``cls.__new__`` packs the
        fields (run at trace time: the values as they are), then
        ``cls.__init__``: the bunch's generated one run at trace time (it
        stores the extra fields in the new object's ``__dict__``), a Python
        one converted (``super().__init__(...)`` reaching the bunch's)."""
        obj = self.mark_fresh(self.static_call(cls.__new__, (cls, *args), kwargs, node))
        self.own_dict(obj)   # its attribute storage is this call's too
        init = cls.__init__
        if init is object.__init__:
            return obj
        if generated_record_method(init):
            self.static_call(init, (obj, *args), kwargs, node)
        else:
            self.call(init, (obj, *args), kwargs, node)
        return obj

    def _memory_order(self, x: Value, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """The ``order`` argument of ``ravel``/``flatten`` (``args``: those after
        the operand) with "K" and "A" made the "C" or "F" in which NumPy reads
        ``x`` (JAX implements neither), by ``x``'s known layout (a jax.Array's
        host buffer is row-major); unchanged where it is not known (JAX then
        refuses, and the call runs in Python)."""
        order = args[0] if args else kwargs.get("order", "C")
        if order not in ("K", "A") or len(args) > 1:
            return args, kwargs
        source = (True, False) if x.type.kinds == {"jax"} else self.known_contiguity(x)
        if source is None or order == "K" and not (source[0] or source[1]):
            return args, kwargs   # (K of a strided view: the order of its strides)
        resolved = "C" if source[0] or order == "A" and not source[1] else "F"
        return ((resolved,), kwargs) if args else ((), {**kwargs, "order": resolved})

    def _layout_copy(self, request: layouts.OrderRequest, node: Any, label: str) -> Any:
        """``x.copy(order)``, ``np.copy(a, order)``, ``np.asfortranarray(a)``,
        ``np.ascontiguousarray(a)`` of a NumPy array or a jax.Array (its host
        buffer is row-major): the operand itself where eager hands it back
        (its layout already fits: a jax.Array's buffer viewed read-only, as
        ``np.asarray`` does), else a new writeable ndarray whose (C, F)
        contiguity is NumPy's (``layouts.copy_layout``), so ``.flags`` answers
        as eager's. NotImplemented where the operand's layout decides and is
        not known (the operand's, or the copy's: ``order="K"`` of a view)."""
        x = request.operand
        if not (isinstance(x, Value) and x.type.shape and not x.type.mixed and x.type.kinds in ({"numpy"}, {"jax"})):
            return NotImplemented
        numpy = x.type.kinds == {"numpy"}
        source = self.known_contiguity(x) if numpy else arrays.allocated_contiguity(x.type.shape) or (True, False)
        keeps = layouts.keeps_operand(request, source)
        if keeps is None:
            return NotImplemented
        if keeps:   # np.asfortranarray(a) of a Fortran-ordered a: a itself; of a jax.Array: its buffer
            return x if numpy else self.call(np.asarray, (x,), {}, node)
        layout = layouts.copy_layout(request.order, source, x.type.shape)
        if layout is None:   # (a graph value of unknown layout would leave the segment C-ordered)
            return NotImplemented
        out = self.emit_call(arrays.method_caller("copy"), (x,), {}, node, label)
        out.type = out.type.with_kinds(("numpy",))
        self.writeable_arrays[id(out)] = (out, id(out))   # new, writeable: eager's ``.flags``
        self.allocated_arrays[id(out)] = out
        self.__dict__.setdefault("known_layouts", {})[id(out)] = (out, layout)
        return out

    def _real_part_converted(self, args: tuple, kwargs: dict, node: Any) -> tuple[tuple, dict]:
        """``np.asarray(z, dtype=float)`` (``np.array``, ``np.asanyarray``,
        ``np.ascontiguousarray``) of a complex array: NumPy's cast warns
        (ComplexWarning) on every call, issued on the host as ``z.astype(float)``'s;
        the operand becomes its real part (JAX's own cast would warn once, at trace
        time, even in a branch eager never takes)."""
        a, dtype = (args[0] if args else kwargs.get("a")), (args[1] if len(args) > 1 else kwargs.get("dtype"))
        if not isinstance(a, Value) or getattr(a.type.dtype, "kind", "") != "c" or a.type.mixed \
                or not a.type.kinds <= {"numpy", "array0", "jax"} or dtype is None or isinstance(dtype, Value):
            return args, kwargs
        try:
            if np.dtype(dtype).kind not in "biuf":
                return args, kwargs
        except TypeError:
            return args, kwargs
        self._warn(("Casting complex values to real discards the imaginary part", np.exceptions.ComplexWarning), {}, node)
        real = self.emit_call(jnp.real, (a,), {}, node, "real")
        real.type = real.type.with_kinds(a.type.kinds)
        return ((real, *args[1:]), kwargs) if args else (args, {**kwargs, "a": real})

    def _numpy_emit(self, fn: Any, callee: Any, args: tuple, kwargs: dict, node: Any, numpy_fn: bool,
                    holds_arrays: bool) -> Any:
        """``fn(*args, **kwargs)`` as the op for the user's ``callee``. Where
        ``fn`` is JAX's namesake of a NumPy function and refuses a Python list
        or tuple of numbers that NumPy takes as an array (``np.percentile(x,
        [5, 95])``, ``np.polyval([3, 0, 1], x)``, ``np.isin(i, [1, 2])``:
        jax.numpy's "requires ndarray or scalar arguments"), that operand is
        NumPy's array of it (``np.asarray``, as NumPy's own conversion makes
        it) and the op is tried again; a refusal of anything else stands."""
        start = len(self.region.ops)
        for _ in range(len(args) + len(kwargs) + 1):
            try:
                return self.emit_call(fn, args, kwargs, node, numpy_fn=numpy_fn,
                                      eager_fn=callee if fn is not callee else None,
                                      callee=None if holds_arrays else callee)
            except GraphBreak as e:
                where = numpy_api.refused_sequence(fn, callee, args, kwargs, e.site.cause)
                if where is None:
                    del self.region.ops[start:]
                    own = self._numpy_own_python(fn, callee, args, kwargs, node) \
                        if "raised NotImplementedError" in e.site.cause else NotImplemented
                    if own is not NotImplemented:
                        return own
                    raise
                if isinstance(where, int):
                    args = (*args[:where], self.call(np.asarray, (args[where],), {}, node), *args[where + 1:])
                else:
                    kwargs = {**kwargs, where: self.call(np.asarray, (kwargs[where],), {}, node)}
                # the array may make the operands' widths mixed (an int64 q beside float32 data): NumPy's Python
                inexact = self._numpy_inexact(callee, args, kwargs, node)
                if inexact is not NotImplemented:
                    return inexact
        raise AssertionError("unreachable: each retry converts one more operand")

    def _numpy_own_python(self, fn: Any, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """Where JAX's namesake ``fn`` of the NumPy function ``callee`` cannot
        be the op for these arguments (an option it does not implement:
        ``np.gradient(y, edge_order=2)``), NumPy's own Python, converted (it
        computes what eager computes, or falls back where it cannot);
        ``NotImplemented`` where there is none or it does not convert."""
        # (JAX's own namesake only: a replacement of ours refuses on purpose, its call falls back)
        jax_own = numpy_api.is_numpy(callee) and fn is not callee and fn is numpy_api.numpy_to_jnp(callee)
        source = numpy_api.numpy_source(callee) if jax_own else None
        active = self.__dict__.setdefault("_own_python_active", set())
        if source is None or id(source) in active:   # (NumPy's Python calling the same function: not again)
            return NotImplemented
        start = len(self.region.ops)
        active.add(id(source))
        try:
            result = self.inline_user(source, args, kwargs, node)
        except GraphBreak:
            del self.region.ops[start:]
            return NotImplemented
        finally:
            active.discard(id(source))
        self.decide(node, "call", "inlined", f"{qualified_name(callee)}: NumPy's own Python, converted (its JAX "
                    "namesake does not compute it for these arguments)")
        return result

    def _scipy_call(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """A public SciPy function on traced values as its JAX equivalent where
        ``scipy_api.equivalent`` found that it computes what SciPy computes for
        this signature (SciPy's own call on the host where an input or a result
        is not finite, if it may raise or differ there); NotImplemented
        otherwise (its Python is converted, or the call falls back)."""
        from .state import contains_value

        leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
        if contains_value(callee) or any(contains_value(x) for x in leaves if not isinstance(x, Value)):
            return NotImplemented
        found = scipy_api.equivalent(callee, leaves, treedef)
        name = scipy_api.public_name(callee)
        if isinstance(found, str):   # SciPy's Python is converted; its compiled code cannot see traced values
            if isinstance(callee, types.FunctionType):
                return NotImplemented
            if isinstance(callee, np.ufunc):
                result = self._host_ufunc(callee, args, kwargs, node)
                if result is not NotImplemented:
                    return result
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name} is compiled code that needs its "
                                   f"operands' values on the host, and no JAX function computes what it computes "
                                   f"here: {found}")
        self.decide(node, "call", "graph op", f"{name} runs as {qualified_name(found.fn)} (the same results on "
                    "exemplar data of this signature" + ("; SciPy's own on the host where an input or a result is "
                                                          "not finite)" if found.guard else ")"))
        spec, traced = scipy_api.guarded_operands(callee, found, leaves, treedef)
        result = self.emit_call(scipy_api.guarded_call, (spec, *traced), {}, node, name, numpy_fn=True)
        outputs = [x for x in tree_leaves(result) if isinstance(x, Value)]
        if len(outputs) != len(found.kinds):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{name}'s results are not known to be eager's")
        for r, kind in zip(outputs, found.kinds):   # SciPy's results: NumPy arrays and scalars, Python numbers
            r.type = r.type.with_kinds((kind,))
        operands = [x for x in leaves if isinstance(x, Value) and x.type.shape]
        contiguity = [self.known_contiguity(x) if x.type.numpy else scipy_api.exemplar_contiguity(x.type.shape)
                      for x in operands]   # (a jax.Array: converted by SciPy from its row-major buffer, as its exemplar)
        layouts = found.layouts if all(c == scipy_api.exemplar_contiguity(x.type.shape)
                                       for c, x in zip(contiguity, operands)) else \
            scipy_api.laid_out_layouts(callee, leaves, treedef, contiguity)
        if len(layouts) == len(outputs):
            # SciPy's results on exemplars laid out as the operands are (``lu_factor``'s Fortran-ordered lu,
            # read by ``lu_solve``'s get_lapack_funcs), the same on every exemplar: eager's
            for r, layout in zip(outputs, layouts):
                if layout is not None and r.type.shape and any(layout):
                    self.__dict__.setdefault("known_layouts", {})[id(r)] = (r, layout)
        return numpy_api._restructure(found.example, result)

    def _shares_memory(self, a: Any, b: Any) -> bool | None:
        """``np.may_share_memory(a, b)`` / ``np.shares_memory`` of two NumPy
        arrays where the graph knows the answer: the same array (True unless
        it is empty), or a new array this segment made (a ufunc's, an
        operator's: ``writeable_arrays``) against one that is neither it nor
        a view of or joined from it (False). None otherwise: eager's answer
        depends on memory the graph does not model. Also an argument's array
        or a new one the graph made (``object_token``; one made at trace time
        and written: that array's memory) against an array this call made at
        trace time or a view of one (``_made_here``: ``out = np.zeros(n)``,
        scipy.ndimage's ``output``): memory of their own (False); so has
        ``np.asarray`` of a jax.Array (``jax_buffers``: JAX's memory) against
        an array this call made at trace time."""
        for x, y in ((a, b), (b, a)):
            if type(x) is Value and type(y) is np.ndarray and self._made_here(y) and _owns_memory(y) and \
                    self.__dict__.get("jax_buffers", {}).get(id(x)) is x:
                return False   # np.asarray of a jax.Array (JAX's memory) and an array this call made
            if type(x) is Value and type(y) is np.ndarray and x.type.kinds == {"numpy"} and self._made_here(y):
                token = self.object_token(x)
                made = self.from_trace_time.get(token[1]) if token is not None and token[0] == "new" else None
                apart = token is not None and (made is None or not np.may_share_memory(made, y))
                return False if apart else None
        if not (type(a) is Value and type(b) is Value and a.type.kinds == {"numpy"} and b.type.kinds == {"numpy"}):
            return None
        if a is b:
            return bool(np.prod(a.type.shape) > 0)
        ta, tb = self.object_token(a), self.object_token(b)
        if ta is not None and tb is not None and ta != tb and "new" in (ta[0], tb[0]):
            return False   # a new array this call made (no view: its own memory) and another object
        def new(x: Value) -> bool:
            entry = self.writeable_arrays.get(id(x))
            return entry is not None and entry[0] is x and entry[1] == id(x) and id(x) not in self.view_of

        if (new(a) or new(b)) and not self.may_share(a, b) and not self.may_share(b, a):
            return False
        return None

    def _writes_own_outputs(self, callee: Any, args: tuple, kwargs: dict) -> bool:
        """A compiled function of ``compiled_outputs`` on static operands
        whose output arrays this call made at trace time (``np.zeros`` in
        scipy.ndimage's ``_get_output``): run at trace time, as a pure
        function, its writes land in this call's own new arrays."""
        positions = compiled_outputs.output_positions(callee)
        if positions is None or kwargs or any(p >= len(args) for p in positions):
            return False
        outs = [args[p] for p in positions if args[p] is not None]
        return all(type(o) is np.ndarray and self._is_fresh(o) and o.base is None for o in outs)

    def _host_compiled(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> None:
        """A compiled library function that writes its results into output
        arrays (``compiled_outputs``: ``_nd_image.correlate1d(input, weights,
        axis, output, mode, cval, origin)``) on traced operands: the function
        itself on the host inside the graph (a pure callback), on eager's
        values and on copies of the output arrays, whose new contents are
        written into them as ``output[...] = new`` (``_write_into``: through
        the local names holding each, this function's and its inlined
        callers', as eager's write shows; trace-time arrays are handed to the
        op as they are at the call). Returns None, as eager's call does (a Python int where
        eager's does: ``compiled_outputs.RETURNS_INT``);
        NotImplemented where an operand is of another sort (a callable, a
        traced number, a value of path-dependent kind, keywords), an output
        is not a NumPy array this call holds, or it may share memory with
        another operand it is not, or eager's call raises on exemplar data."""
        from ..graphlib.trees import tree_flatten as flatten_leaves

        positions = compiled_outputs.output_positions(callee)
        if kwargs or any(p >= len(args) for p in positions):
            return NotImplemented
        leaves, treedef = flatten_leaves((args, kwargs))
        for x in leaves:
            if callable(x) or isinstance(x, Value) and (type(x) is not Value or x.type.mixed) \
                    or not isinstance(x, (Value, np.ndarray, np.generic, bool, int, float, complex, str)):
                return NotImplemented
        outputs = [args[p] for p in positions if args[p] is not None]
        for out in outputs:
            if isinstance(out, Value):
                if out.type.kinds != {"numpy"} or not out.type.shape:
                    return NotImplemented
            elif not (type(out) is np.ndarray and self._is_fresh(out) and out.base is None and arrays.writeable(out)):
                return NotImplemented
            for x in leaves:   # another operand: the output itself (one object, as eager passes it), or apart
                if x is not out and isinstance(x, (Value, np.ndarray)) and self._shares_memory(x, out) is not False \
                        and not (type(x) is np.ndarray and type(out) is np.ndarray and not np.may_share_memory(x, out)):
                    return NotImplemented
        at = [next(k for k, x in enumerate(leaves) if x is out) for out in outputs]
        groups = tuple(tuple(j for j, x in enumerate(leaves) if x is out) for out in outputs)
        exemplars = [np.zeros(x.type.shape, x.type.dtype) if isinstance(x, Value) and x.type.kinds == {"numpy"}
                     else x.copy() if type(x) is np.ndarray else x for x in leaves]
        if any(isinstance(x, Value) for x in exemplars):   # (a traced number: its eager kind is not an array)
            return NotImplemented
        number = compiled_outputs.returns_int(callee)
        call = compiled_outputs.WritesOutputs(callee, tuple(at), groups, number)
        try:   # eager's own call on exemplar data: None (or an int), or eager raises on these operands' sort
            a, kw = jax.tree_util.tree_unflatten(treedef, exemplars)
            call(*a, **kw)
        except Exception:  # noqa: BLE001 - eager raises, or the operands are of another sort: it runs in Python
            return NotImplemented
        declared = tuple(jax.ShapeDtypeStruct(tuple(np.shape(o) if type(o) is np.ndarray else o.type.shape),
                                              o.dtype if type(o) is np.ndarray else o.type.dtype) for o in outputs)
        declared += (jax.ShapeDtypeStruct((), np.dtype("int64")),) * number
        name = qualified_name(callee)
        self.decide(node, "call", "host callback", f"{name} is compiled code that writes its output arrays: it runs "
                    "on the host inside the graph, on eager's values, and its outputs' new contents are written back")
        fn = arrays.host_function(call, False, self.value_kinds((args, kwargs), node), True)
        snapshots: dict[int, np.ndarray] = {}   # trace-time arrays as they are now (later trace-time writes unseen)
        frozen = [snapshots.setdefault(id(x), x.copy()) if type(x) is np.ndarray else x for x in leaves]
        args = jax.tree_util.tree_unflatten(treedef, frozen)[0]
        results = self.emit_call(fn, (declared, *args), {}, node, f"host {name}")
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        for out, new in zip(outputs, results):
            new.type = new.type.with_kinds(("numpy",))
            self._write_into(out, new, node, name)
        if number:   # eager's Python int (binary_erosion's "changed"): weakly typed, as Python's ints are in the graph
            result = self.emit_call(casts.cast, (results[-1], np.dtype("int64")), {"weak": True}, node, f"{name} number")
            result.type = result.type.with_kinds(("python",))
            return result
        return None

    def _lapack_layout(self, x: Any) -> tuple[bool, bool] | None:
        """(C, F) contiguity of a LAPACK operand: a NumPy array made at trace
        time (``c = np.zeros((2, n))`` in scipy.special's ``_gen_roots_and_weights``)
        has its own, as it is at the call; a traced one ``known_contiguity``'s."""
        return _own_layout(x) if type(x) is np.ndarray else self.known_contiguity(x)

    def _host_lapack(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        """One of SciPy's LAPACK/BLAS wrappers (``lapack``: ``dgetrf(a)``, as
        ``get_lapack_funcs`` hands it out) on traced operands: the routine on
        the host inside the graph (a pure callback) on eager's values, each
        array a private copy; its results' types are those of eager's own
        call on exemplar operands of the same shapes and dtypes (f2py's result
        shapes follow the operands' shapes and integer parameters only): an
        array a NumPy array, ``info`` and the like Python numbers.
        NotImplemented where the call writes into an operand (an
        ``overwrite_X`` that is not a static false, a routine writing an
        operand in place), calls Python code (a call-back), is given a traced
        integer (a result's bounds may follow it) or a value of another sort,
        or eager's call raises on the exemplars."""
        sig = lapack.wrapper(callee)
        bound = lapack.bind(sig, args, kwargs)
        if bound is None or not lapack.pure(sig, bound, self._lapack_layout):
            return NotImplemented
        if any(sig.sorts.get(p) == "callback" for p in bound):   # never called (sort_t=0): a stand-in of ours
            args = tuple(lapack.never_called if sig.sorts.get(p) == "callback" else a for p, a in zip(sig.params, args))
            kwargs = {k: lapack.never_called if sig.sorts.get(k) == "callback" else v for k, v in kwargs.items()}
        leaves, treedef = tree_flatten((args, kwargs))
        exemplars = []
        for x in leaves:
            if isinstance(x, Value):
                t = x.type
                if type(x) is not Value or t.mixed or is_extended(t.dtype) or t.dtype.kind not in "fc" + "iub" * bool(
                        t.shape) or t.python and t.dtype.kind not in "fc":
                    return NotImplemented   # (a traced int: a result's bounds may depend on it)
                exemplars.append(_PYTHON_NUMBER[t.dtype.kind](0) if t.python else np.zeros(t.shape, t.dtype)[()]
                                 if not t.shape and not t.array0 else np.zeros(t.shape, t.dtype))
            elif x is lapack.never_called:
                exemplars.append(x)
            elif callable(x) or not isinstance(x, (np.ndarray, np.generic, bool, int, float, complex, str, bytes)) \
                    or type(x) is np.ndarray and x.dtype.kind not in "biufc":
                return NotImplemented
            else:
                exemplars.append(x.copy() if type(x) is np.ndarray else x)
        call = lapack.LapackCall(callee, sig.name)
        try:   # eager's own call on exemplar data: its results' types, or eager raises on these operands' sort
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a, kw = jax.tree_util.tree_unflatten(treedef, exemplars)
                outs = call(*a, **kw)
        except Exception:  # noqa: BLE001 - eager raises, or the operands are of another sort: it runs in Python
            return NotImplemented
        query = lapack.workspace_query(sig, bound)
        if query == "all":   # ``dgelsd_lwork(m, n, nrhs, cond)``: sizes from the shapes alone, as eager finds them
            self.decide(node, "call", "trace time", f"{sig.name} is a LAPACK workspace query: its results follow "
                        "the operands' shapes only")
            outs = self.mark_fresh(tuple(self.mark_fresh(o) if type(o) is np.ndarray else o for o in outs))
            return outs if len(outs) > 1 else outs[0]
        declared, kinds, layouts = [], [], []
        for o in outs:
            layouts.append((bool(o.flags.c_contiguous), bool(o.flags.f_contiguous)) if type(o) is np.ndarray else None)
            if type(o) is np.ndarray and o.dtype.kind in "biufc":
                declared.append(jax.ShapeDtypeStruct(o.shape, o.dtype))
                kinds.append("array0" if o.ndim == 0 else "numpy")
            elif type(o) in (int, float, complex):
                declared.append(jax.ShapeDtypeStruct((), _PYTHON_DTYPE[type(o)]))
                kinds.append("python")
            else:
                return NotImplemented
        name = sig.name
        self.decide(node, "call", "host callback", f"{name} is SciPy's LAPACK/BLAS wrapper: it runs on the host "
                    "inside the graph, on eager's values (its operands copied, none written)")
        fn = arrays.host_function(call, False, self.value_kinds((args, kwargs), node))
        snapshots: dict[int, np.ndarray] = {}   # trace-time arrays as they are now (later trace-time writes unseen)
        frozen = [snapshots.setdefault(id(x), x.copy()) if type(x) is np.ndarray else x for x in leaves]
        args, kwargs = jax.tree_util.tree_unflatten(treedef, frozen)
        results = self.emit_call(fn, (tuple(declared), *args), kwargs, node, f"host {name}")
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        for k, kind in enumerate(kinds):
            if kind == "python":   # a Python number: weakly typed, as Python's numbers are in the graph
                results[k] = self.emit_call(casts.cast, (results[k], results[k].type.dtype), {"weak": True}, node,
                                            f"{name} number")
            results[k].type = results[k].type.with_kinds((kind,))
            if layouts[k] is not None and any(layouts[k]):   # f2py's own new array: its order is the exemplar's
                self.__dict__.setdefault("known_layouts", {})[id(results[k])] = (results[k], layouts[k])
                self.writeable_arrays[id(results[k])] = (results[k], id(results[k]))   # new (no overwrite_X)
        if query:   # ``lwork=-1``: the workspace sizes and info follow the shapes only; the other results are eager's
            # (a size array is this call's own new array, as eager's call makes one: read at trace time)
            results = [self.mark_fresh(outs[k]) if r in lapack.QUERY_RESULTS and type(outs[k]) is np.ndarray else
                       outs[k] if r in lapack.QUERY_RESULTS else x for k, (r, x) in enumerate(zip(sig.results, results))]
        return self.mark_fresh(tuple(results)) if len(results) > 1 else results[0]   # (this call's own tuple)

    def _host_ufunc(self, callee: np.ufunc, args: tuple, kwargs: dict, node: Any) -> Any:
        """A compiled NumPy ufunc that is not NumPy's own (``scipy.special.chdtrc``,
        ``jv``, the ``_zeta`` SciPy's Python calls) on traced operands, with
        no JAX function that computes what it computes: the ufunc itself on
        the host (a pure callback), on eager's objects, its results' dtypes
        found as NumPy resolves them for the operands' classes and dtypes
        (a Python number weak, an array strong), their shape the broadcast
        one, NumPy scalars where every operand is 0-d. NotImplemented where
        an operand or a keyword is of another sort."""
        if not _NEP50:   # (NumPy 1's value-based casting: a result dtype may depend on a traced number's value)
            return NotImplemented
        if kwargs.get("out", None) is None:   # ``out=None``, or a None out operand after the inputs
            kwargs = {k: v for k, v in kwargs.items() if k != "out"}
            if len(args) > callee.nin and all(a is None for a in args[callee.nin:]):
                args = args[:callee.nin]
        if kwargs or len(args) != callee.nin:
            return NotImplemented
        exemplars, shapes = [], []
        for a in args:
            if isinstance(a, Value):
                t = a.type
                if type(a) is not Value or t.mixed or is_extended(t.dtype) or t.dtype.kind not in "biufc":
                    return NotImplemented
                exemplars.append(_PYTHON_NUMBER[t.dtype.kind](1) if t.python else np.ones(t.shape and (1,), t.dtype))
                shapes.append(t.shape)
            elif type(a) in (bool, int, float, complex) or isinstance(a, np.generic):
                exemplars.append(a)
                shapes.append(())
            elif type(a) is np.ndarray and a.dtype.kind in "biufc":   # a static array (``np.asarray(2)``)
                exemplars.append(a.copy())
                shapes.append(a.shape)
            else:
                return NotImplemented
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = callee(*exemplars)
            shape = np.broadcast_shapes(*shapes)
        except Exception:  # noqa: BLE001 - eager raises or NumPy has no loop: the call runs in Python
            return NotImplemented
        outs = out if callee.nout > 1 else (out,)
        if any(np.asarray(o).dtype.kind not in "biufc" for o in outs):
            return NotImplemented
        declared = [jax.ShapeDtypeStruct(shape, np.asarray(o).dtype) for o in outs]
        self.decide(node, "call", "host callback", f"{qualified_name(callee)} is a compiled ufunc no JAX function "
                    "computes exactly: it runs on the host inside the graph, on eager's values")
        fn = arrays.host_function(callee, len(declared) == 1, self.value_kinds(args, node))
        result = self.emit_call(fn, (tuple(declared), *args), {}, node, f"host {qualified_name(callee)}")
        for r in (result if callee.nout > 1 else (result,)):
            r.type = r.type.with_kinds(("numpy",))   # an ndarray, a NumPy scalar where 0-d
        return result

    def _reduce_call(self, args: tuple, node: Any) -> Any:
        """``functools.reduce(f, items[, initial])`` of traced values: Python's
        left fold, each ``f(acc, item)`` converted like any call (``np.multiply``
        with NumPy's rules; run whole as an op, reduce was typed as a JAX op and
        narrowed 64-bit items to 32 bits)."""
        items = list(self.iterate_static(args[1], node))
        if len(args) == 3:
            acc = args[2]
        elif items:
            acc = items.pop(0)
        else:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "reduce() of an empty iterable with no initial "
                                   "value (eager raises TypeError)")
        for item in items:
            acc = self.call(args[0], (acc, item), {}, node)
        return acc

    def folded_operands(self, leaves: list, need_one: bool = True) -> bool:
        """Every leaf static Python data or a folded constant (``need_one``: at least one of those)."""
        some = not need_one
        for leaf in leaves:
            if type(leaf) is _JAX_ARRAY:
                entry = self.fresh.get(id(leaf))
                if entry is None or entry[1] is not leaf:
                    return False
                some = True
            elif type(leaf) not in _FOLD_LEAVES:
                return False
        return some

    def fold_constant(self, callee: Any, args: tuple, kwargs: dict) -> Any:
        """``jnp.asarray(x.shape)``, ``jnp.full([], 3)``, and JAX ops on such
        arrays: a small integer or bool jax array computed only from static
        Python data is made at trace time, as eager makes it (a concrete
        ``jax.Array``, a constant of the graph whose value is known where a
        Python value is needed: a shape, a ``range``, an index). None where
        it is not such a value.

        Requires the result to be exact and small: integer/bool dtypes
        (no float rounding of fused kernels), at most ``_FOLD_SIZE`` elements."""
        try:
            shape_dtype = jax.eval_shape(lambda: callee(*args, **kwargs))
        except Exception:  # noqa: BLE001 - eager's error: the usual path raises it
            return None
        if not isinstance(shape_dtype, jax.ShapeDtypeStruct) or shape_dtype.dtype.kind not in "biu" \
                or int(np.prod(shape_dtype.shape)) > _FOLD_SIZE:
            return None
        out = callee(*args, **kwargs)
        return self.mark_fresh(out) if type(out) is _JAX_ARRAY else None   # this call's own: never an input

    def python_number(self, x: Value, kind: type, rounding: str, what: str, node: Any) -> Any:
        """``int(x)``, ``float(x)``, ``bool(x)``, ``math.floor(x)``, ``x.item()``
        of a traced scalar: a traced Python number (``ArrayType.python``) of
        eager's type, in the graph. ``int`` truncates toward zero (floor, ceil
        or half-to-even for ``rounding``); a NaN or an infinity raises eager's
        error through a run-time check, and a value beyond int64 raises
        ``IntRangeError`` (eager's int is exact). An operand eager refuses
        (a jax.Array of rank > 0, a complex, ``math.trunc`` of a jax.Array)
        runs in Python, where eager raises."""
        t = x.type
        item = what == ".item()"
        if self.outer_traced and "jax" in t.kinds:   # eager's operand is a JAX tracer: it raises
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} of a traced value under an outer JAX "
                                   "transform (eager's operand is a JAX tracer)")
        if t.mixed or is_extended(t.dtype) or t.dtype.kind == "c" or (t.shape and not item and kind is not bool) \
                or item and int(np.prod(t.shape)) != 1 or what == "math.trunc()" and not _has_trunc(t):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"{what} of {describe(x)}: eager's result (or "
                                   "exception) needs its value on the host")
        if t.shape and kind is not bool:   # .item() of a one-element array
            x = self.emit_call(jnp.reshape, (x, ()), {}, node, "reshape")
        if kind is bool:   # (a one-element array of any rank: its truth)
            out = self.emit_call(arrays.cast, (self.truth(x, node), np.dtype(bool), False), {}, node, "bool")
        elif kind is float:
            out = self.emit_call(arrays.python_float_of, (x,), {}, node, "float")
        else:
            where = f"{self.loc(node).file}:{self.loc(node).line}"
            if t.dtype.kind not in "biu" or t.dtype == np.uint64:   # (int() of another integer or a bool never raises: no
                # check, so it may stand where a check cannot: a raise's message, a traced `and`'s operand)
                self.emit_call(arrays.int_conversion_check, (x, what, where), {}, node, "int check", effect=True)
            out = self.emit_call(arrays.python_int_of, (x, rounding), {}, node, what)
            _track_int_bits(out, x)
        out.type = out.type.with_kinds(("python",))
        self.decide(node, "call", "traced number", f"{what} of a traced value: a Python {kind.__name__} in the graph")
        return out

    def tolist(self, x: Value, node: Any) -> Any:
        """``x.tolist()`` of a traced array of static shape: eager's nested
        lists (fresh, one per call) of traced Python numbers, one per element,
        each ``x[i, j, ...].item()`` (``python_number``: the Python kind of the
        dtype, the same checks). A 0-d array gives the number itself. The shape
        is static, so the structure is; only the numbers are the graph's.
        Above ``TOLIST_LIMIT`` elements (a graph value each) it runs in Python."""
        t = x.type
        size = int(np.prod(t.shape, dtype=np.int64))
        if size > TOLIST_LIMIT:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f".tolist() of a traced array of {size} elements "
                                   f"(more than {TOLIST_LIMIT}, each a Python number in the graph) needs its values "
                                   "on the host", hint="keep the values an array, or convert a smaller part")
        kind = _ITEM_KINDS.get(t.dtype.kind, float)
        if not t.shape:
            return self.python_number(x, kind, "trunc", ".item()", node)

        def build(prefix: tuple) -> Any:
            if len(prefix) == len(t.shape):
                item = self.emit_call(arrays.getitem, (x, prefix), {}, node, "getitem")
                return self.python_number(item, kind, "trunc", ".tolist()", node)
            return self.mark_fresh([build((*prefix, k)) for k in range(t.shape[len(prefix)])])

        return build(())

    def _round(self, x: Value, ndigits: tuple, node: Any) -> Any:
        """``round(x)`` / ``round(x, n)`` of a traced value, of eager's kind:
        a Python number or NumPy scalar rounds to a Python int; with ``n``, a
        NumPy scalar stays one (NumPy's rounding is ``jnp.round``'s); a jax.Array
        rounds as JAX does. A NumPy array or bool has no ``__round__`` (eager
        raises TypeError): those run in Python. A Python float's ``round(x, n)``
        is decimal-exact: Python's own ``round`` computes it on the host
        (``arrays.python_round_digits``)."""
        t = x.type
        digits = ndigits[0] if len(ndigits) == 1 else None
        if len(ndigits) > 1 or contains_value_any(ndigits) or t.mixed or t.shape and (t.numpy or t.python) \
                or t.numpy and t.dtype.kind == "b":
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "round() of this kind of value: eager's result "
                                   "(or exception) is not JAX's")
        if t.python and t.dtype.kind == "f" and digits is not None:
            if type(digits) is not int:   # round(1.5, 2.0) raises TypeError in eager: let Python say so
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, "round() with a non-int ndigits (eager raises "
                                       "TypeError)")
            out = self.emit_call(arrays.python_round_digits, (x, digits), {}, node, "round")
            out.type = out.type.with_kinds(("python",))
            self.decide(node, "call", "host callback", "round(x, n) of a traced Python float: Python's decimal-exact "
                        "rounding, computed on the host")
            return out
        if not (t.python or t.numpy):
            return self.emit_call(round, (x, *ndigits), {}, node, "round")
        if digits is None:   # a Python int, half to even; NaN and infinities raise eager's errors
            return self.python_number(x, int, "round", "round()", node)
        if t.dtype.kind not in "f":
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"round(x, n) of a {t.dtype} scalar: NumPy's "
                                   "integer rounding is not modelled")
        # NumPy's own algorithm at the scalar's precision (a float64 stays float64)
        out = self.emit_call(arrays.numpy_round, (x, digits), {}, node, "round")
        out.type = out.type.with_kinds(t.kinds)
        return out

    def _zero_argument_super(self, node: Any) -> Any:
        """``super()`` in a method: ``super(__class__, <first argument>)``, as
        the compiler's ``__class__`` cell gives it in eager Python."""
        frame = self.frame
        cell = frame.unit.closure.get("__class__")
        positional = frame.unit.tree.args.posonlyargs + frame.unit.tree.args.args
        if cell is None or not positional:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "super(): __class__ cell not found (eager raises RuntimeError)")
        return self.static_call(super, (cell.cell_contents, frame.env[positional[0].id]), {}, node)

    def _select_extreme(self, is_max: bool, args: tuple, node: Any) -> Any:
        """``max(a, b, ...)``/``min`` of scalars, keeping Python's choice of
        operand: a later one wins only if strictly greater (smaller)."""
        import operator

        result = args[0]
        for other in args[1:]:
            better = self.truth(self.binop(operator.gt if is_max else operator.lt, other, result, node), node)
            if not isinstance(better, Value):
                result = other if better else result
            else:
                result = self._select_operand(node, better, other, result, True)
        if isinstance(result, Value) and result.type.dtype.kind in "iu" and not result.type.shape \
                and not any(result is a for a in args):   # (a new select: an operand's own range stays its own)
            known = _extreme_range(is_max, args)   # ``max(count, 1)`` is never 0: a division by it needs no check
            if known is not None:
                INT_RANGE[result] = known
        return result

    def _extreme_by_key(self, is_max: bool, items: list, kwargs: dict, node: Any) -> Any:
        """``max(xs, key=f, default=d)`` (``min``) of a static sequence: ``f``
        called on each item in order, once, as eager calls it; a later item
        wins only if its key is strictly greater (smaller), so ties keep the
        first, as Python's; the winner selected in the graph where the keys
        are traced (items of one kind, or tuples of them, selected leaf by
        leaf). No items: ``default``, or eager's ValueError."""
        import operator

        key = kwargs.get("key")
        if not items:
            if "default" in kwargs:
                return kwargs["default"]
            e = ValueError(f"{'max' if is_max else 'min'}() iterable argument is empty")
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{e} (eager raises ValueError)", exc=e)
        keys = [item if key is None else self.call(key, (item,), {}, node) for item in items]
        best, best_key = items[0], keys[0]
        for item, k in zip(items[1:], keys[1:]):
            better = self.truth(self.binop(operator.gt if is_max else operator.lt, k, best_key, node), node)
            if not isinstance(better, Value):
                best, best_key = (item, k) if better else (best, best_key)
            else:
                best, best_key = self._pick(node, better, item, best), self._pick(node, better, k, best_key)
        return best

    def _pick(self, node: Any, truth: Value, a: Any, b: Any) -> Any:
        """``a`` where ``truth`` holds, else ``b``: tuples of one length leaf by leaf."""
        if type(a) is tuple and type(b) is tuple and len(a) == len(b):
            return tuple(self._pick(node, truth, x, y) for x, y in zip(a, b))
        if a is b:
            return a
        return self._select_operand(node, truth, a, b, True)

    def _reduce_items(self, callee: Any, items: list, node: Any) -> Any:
        """``max(xs)``/``min(xs)`` (Python's choice of item, as with several
        arguments) and ``any(xs)``/``all(xs)`` (a Python bool, eager's kind)
        of a static sequence holding traced scalars (a list, a generator
        expression, a generator's items)."""
        if not items:
            try:
                return callee(())
            except ValueError as e:   # max() of nothing
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"{e} (eager raises ValueError)", exc=e) from None
        if callee is max or callee is min:
            return self._select_extreme(callee is max, tuple(items), node)
        is_any = callee is any
        acc = None
        for item in items:
            truth = self.truth(item, node)
            if not isinstance(truth, Value):
                if truth is is_any:   # decides the result whatever the traced items before it hold
                    return is_any
                continue
            acc = truth if acc is None else self.emit_call(jnp.logical_or if is_any else jnp.logical_and,
                                                           (acc, truth), {}, node, callee.__name__)
        if acc is None:
            return not is_any
        out = self.emit_call(arrays.truthy, (acc,), {}, node, callee.__name__)
        out.type = out.type.with_kinds(("python",))
        return out

    def _left_sum(self, items: list, start: Any, node: Any) -> Any:
        """``sum(xs, start)`` as eager adds: ``start + xs[0] + xs[1] ...``,
        left to right (not XLA's reduction order), each ``+`` of eager's kinds."""
        if isinstance(start, (str, bytes, bytearray)):
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "sum() of a string start (eager raises TypeError)")
        acc = start
        for item in items:
            acc = self.binop(operator.add, acc, item, node)
        return acc

    @staticmethod
    def _traced_zip(callee: Any, args: tuple, kwargs: dict) -> Any:
        """``zip``/``enumerate`` over a range with a traced bound: a
        ``TracedZip`` a rolled loop iterates (None where a part is not a
        range, a jax array's rows or such a zip: eager's call then decides)."""
        def ok(part: Any) -> bool:
            if isinstance(part, Value):
                return bool(part.type.shape) and not part.type.numpy and not part.type.mixed
            return isinstance(part, (arrays.TracedRange, arrays.TracedZip, range))

        if callee is enumerate:
            start = kwargs.get("start", args[1] if len(args) > 1 else 0)
            if len(args) + len(kwargs) > 2 or set(kwargs) - {"start"} or type(start) is not int or not ok(args[0]):
                return None
            return arrays.TracedZip((args[0],), start)
        if kwargs or not all(ok(a) for a in args):   # zip(..., strict=True) raises on unequal lengths: eager decides
            return None
        return arrays.TracedZip(tuple(args))

    def _traced_range(self, args: tuple, node: Any) -> Any:
        start, stop, step = (0, args[0], 1) if len(args) == 1 else (args + (1,))[:3]
        if isinstance(step, Value):
            # eager raises ValueError for a zero step when range() is called: a run-time check
            step = self._range_bound(step, node)
            if not self.raise_checks_allowed():
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, "range() with a traced step that may be zero "
                                       "(eager raises ValueError) where a run-time check cannot raise it")
            zero = self.emit_call(operator.eq, (step, 0), {}, node, "eq")
            self.emit_call(arrays.raise_when, (self.truth(zero, node), ValueError, ("range() arg 3 must not be zero",)),
                           {}, node, "zero step check", effect=True)
        elif step == 0:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, "range() arg 3 must not be zero (eager raises ValueError)")
        return arrays.TracedRange(self._range_bound(start, node), self._range_bound(stop, node), step)

    def _range_bound(self, bound: Any, node: Any) -> Any:
        """A traced bound of ``range()`` as eager holds it: ``operator.index``
        of the array, a Python int (``r.stop`` is an int, not an array). Only
        a 0-d signed integer array of at most 32 bits (or int64 with x64 on)
        converts exactly; anything else (a float or bool array eager rejects,
        an unsigned or wide one) runs in Python."""
        from .lattice import INT_BITS

        if not isinstance(bound, Value):
            return bound
        t = bound.type
        if t.python and t.dtype.kind == "i":
            return bound
        bits = {1: 7, 2: 15, 4: 31, 8: 63}.get(t.dtype.itemsize, 0)
        if t.shape or t.mixed or t.dtype.kind != "i" and not (t.dtype.kind == "u" and t.dtype.itemsize <= 2):
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, f"range() of a traced {t}: eager's operator.index "
                                   "of it (or its TypeError) needs its value")
        if t.dtype.kind == "u":
            bits += 1
        if bits == 63 and not jax.config.jax_enable_x64:
            raise self.graph_break(FallbackCode.CONCRETE_VALUE, node, "range() of a traced int64 array with x64 off")
        out = self.emit_call(arrays.as_python_int, (bound,), {}, node, "index")
        out.type = out.type.with_kinds(("python",))
        if out.type.dtype != np.dtype(np.int64):
            # a Python int is int64 in the graph (its arithmetic then runs at 64
            # bits, exact as eager's: r.stop - r.start of int32 bounds wrapped)
            out = self.emit_call(arrays.as_int64, (out,), {}, node, "index")
            out.type = out.type.with_kinds(("python",))
        INT_BITS[out] = bits
        return out

    # ---------------------------------------------------------- inlining
    def inline_user(self, callee: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        try:
            fn, bound_args, bound_kwargs = unwrap_callable(callee)
            unit = unit_of_function(fn)
        except StaleSourceError as e:   # its file was edited: the code it was loaded with runs, in Python
            raise self.graph_break(FallbackCode.NO_SOURCE, node, str(e), hint="reload the module that defines it")
        except NoSourceError:
            # not traced by JAX as a black box either: a Python effect in it
            # (a print, an append) would run once at trace time, not every call
            raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{qualified_name(callee)} has no Python source")
        except GraphBreak:
            raise
        except Exception as e:  # noqa: BLE001 - e.g. async def: runs in Python
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, node, f"{qualified_name(callee)} cannot be converted: {e}")
        self.guard_code(fn)
        merged = {**bound_kwargs, **kwargs}
        try:
            bound = code_signature(fn).bind(*bound_args, *args, **merged)
        except TypeError as e:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"calling {unit.qualname}: {e} (eager raises TypeError)")
        bound.apply_defaults()
        self._fresh_varargs(bound)
        frame = Frame(unit, dict(bound.arguments))
        if unit.generator:
            return self.inline_generator(unit, frame, node)
        return self._run_frame(frame, node)

    def guard_code(self, fn: Any) -> None:
        """Guard what of ``fn`` the trace inlined besides its identity: its
        ``__code__`` and defaults. IPython's autoreload replaces the code of a
        function in place when its file is edited (the function object stays,
        so the guard on the name that reads it still holds), and a caller may
        assign ``fn.__defaults__``."""
        for attr in ("__code__", "__defaults__", "__kwdefaults__"):
            if hasattr(fn, attr):
                self.external(getattr(fn, attr), functools.partial(getattr, fn, attr), f"{qualified_name(fn)}.{attr}",
                              ("attr", id(fn), attr), ("attr", fn, attr))

    def _fresh_varargs(self, bound: inspect.BoundArguments) -> None:
        """A ``**kwargs`` dict is new per call, the callee's own to change."""
        for p in bound.signature.parameters.values():
            if p.kind is p.VAR_KEYWORD and p.name in bound.arguments:
                self.mark_fresh(bound.arguments[p.name])

    def inline_local(self, fn: Any, args: tuple, kwargs: dict, node: Any) -> Any:
        sig = _signature_of_local(fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"calling {fn.unit.qualname}: {e} (eager raises TypeError)")
        bound.apply_defaults()
        self._fresh_varargs(bound)
        frame = Frame(fn.unit, dict(bound.arguments), parent=fn.frame)
        if fn.unit.generator:
            return self.inline_generator(fn.unit, frame, node)
        return self._run_frame(frame, node)

    def _run_frame(self, frame: Frame, node: Any) -> Any:
        if self.inline_depth >= self.options.max_inline_depth:
            raise self.graph_break(FallbackCode.RECURSION, node, f"calls nested deeper than {self.options.max_inline_depth} (recursion?)")
        if self.traced_depth and any(f is not None and _same_function(f.unit, frame.unit) for f in (self.frame, *self.callers)):
            self.traced_recursions += 1
            if self.traced_recursions > self.options.max_traced_recursion:
                raise self.graph_break(
                    FallbackCode.RECURSION, node,
                    f"recursion under a traced branch: both sides of a traced `if` are inlined, so the calls double "
                    f"at every level (more than {self.options.max_traced_recursion} inlined)")
        adapter = self.__dict__.pop("_return_adapter", None)
        if adapter is not None:   # (``apply_along``: what the caller does with each value this call returns)
            frame.return_adapter = adapter
        outer, outer_cont = self.frame, self.cont
        # where the graph stood when the call began: a value made later is in
        # no value the caller evaluated before it (mutation._made_during)
        frame.started = (self.region, len(self.region.ops), len(self.fresh_born))   # (and trace-time objects made)
        self.frame, self.cont = frame, []
        calling, outer.calling = getattr(outer, "calling", None), self.__dict__.get("_stmt")   # (containers.live_outer_values)
        self.callers.append(outer)
        self.call_nodes.append(node)
        self.inline_depth += 1
        try:
            self.exec_block(frame.unit.tree.body)
            return None
        except ReturnSignal as r:
            return r.value
        finally:
            self.inline_depth -= 1
            self.callers.pop()
            self.call_nodes.pop()
            outer.calling = calling
            self.frame, self.cont = outer, outer_cont


def _python_number(x: Any) -> bool:
    """A traced value standing for a Python number (a loop's index, a busy scalar)."""
    return isinstance(x, Value) and x.type.python and not x.type.shape


def _same_function(a: Any, b: Any) -> bool:
    """Two units of one function's source (each call may parse its own)."""
    return a is b or (a.filename, a.qualname, getattr(a.tree, "lineno", 0)) == \
        (b.filename, b.qualname, getattr(b.tree, "lineno", 0))


# builtins that keep a function to call later: given a local function they would keep the trace's stand-in
_FUNCTION_WRAPPERS = (staticmethod, classmethod, property, types.MethodType)
_BINARY_NAMES = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "lshift", "rshift", "and_", "or_",
                 "xor")
_OPERATOR_DUNDERS = {   # an ndarray's operator methods, called by name: (the operator, whether reflected)
    **{f"__{n.rstrip('_')}__": (getattr(operator, n), False) for n in (*_BINARY_NAMES, "lt", "le", "gt", "ge", "eq", "ne")},
    **{f"__r{n.rstrip('_')}__": (getattr(operator, n), True) for n in _BINARY_NAMES},
    "__divmod__": (divmod, False), "__rdivmod__": (divmod, True)}
_IDENTITY_BUILTINS = frozenset({isinstance, issubclass, type, id, callable, hasattr})
_STRUCTURE_BUILTINS = frozenset({len, list, tuple, iter, enumerate, zip, reversed})


def _user_init(cls: Any) -> bool:
    """``cls`` is a plain class whose ``__init__`` is Python code with source
    (the user's, or a library's other than JAX's and NumPy's: array-api-extra's
    ``at``), and no pytree JAX would rebuild (a registered dataclass)."""
    if _python_init(cls) is None:
        return False
    try:
        return jax.tree_util.all_leaves([object.__new__(cls)])
    except Exception:  # noqa: BLE001 - a registered pytree whose flatten needs its fields
        return False


def _keeps_attributes(obj: Any) -> bool:
    """An object of a Python class (a ``class`` statement's) with its own
    mutable attributes (a ``__dict__``, or slots of a class without its own
    ``__new__``: a ``dataclass(slots=True)``), which a caller may change; not
    a number (``Fraction``: immutable)."""
    cls = type(obj)
    if not cls.__flags__ & (1 << 9) or isinstance(obj, (numbers.Number, type, types.FunctionType, types.MethodType,
                                                          types.ModuleType, functools.partial, *standin_types())) \
            or is_array(obj) or (cls.__module__ or "").split(".")[0] in ("ast2graph", "jax", "jaxlib", "numpy"):
        return False   # (C types of a module's own, a partial: rebuilt per call as they are, specialize.remade_per_call)
    return isinstance(getattr(obj, "__dict__", None), dict) or cls.__new__ is object.__new__ and any(
        set((s,) if isinstance(s, str) else s) - {"__dict__", "__weakref__"}
        for s in (vars(b).get("__slots__", ()) for b in cls.__mro__))   # (slots and a __new__: a value, pathlib.Path)


def _python_init(cls: Any) -> Any:
    """The ``__init__`` to convert when ``cls(...)`` makes an instance: a
    plain class (metaclass ``type``, ``object.__new__``) whose ``__init__``
    is Python code of the user or of a library other than JAX and NumPy;
    None otherwise (the class is called as it is)."""
    if type(cls) is not type or cls.__new__ is not object.__new__:
        return None
    init = cls.__init__
    if not isinstance(init, types.FunctionType) or init.__code__.co_filename[:1] == "<":
        return None
    kind = classify_callee(init)
    return init if kind is CallKind.USER_FUNCTION or kind is CallKind.OPAQUE else None


def _packs_fields(cls: Any) -> bool:
    """A tuple subclass with ``_fields`` whose ``__new__`` (its own or
    inherited) is ``collections.namedtuple``'s or a SciPy tuple bunch's: it
    only packs the fields into the tuple."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        return False
    new = cls.__new__
    return isinstance(new, types.FunctionType) and new.__globals__.get("_tuple_new") is tuple.__new__


def generated_record_method(fn: Any) -> bool:
    """``__init__``/``__setattr__`` that SciPy's ``_make_tuple_bunch`` makes
    by ``exec`` (no source): they only check the keyword names and store
    values in the object's own ``__dict__``."""
    fn = getattr(fn, "__func__", fn)
    return isinstance(fn, types.FunctionType) and fn.__code__.co_filename == "<string>" \
        and fn.__name__ in ("__init__", "__setattr__") and fn.__globals__.get("_tuple_new") is tuple.__new__


def _record_with_state(cls: Any) -> bool:
    """A named tuple whose instances also hold attributes outside the tuple:
    a tuple bunch (its extra fields, and what a caller sets:
    ``res.correlation = r`` of SciPy's ``SignificanceResult``), or a subclass of a named tuple or tuple
    bunch with a Python ``__init__`` of its own (SciPy's ``PearsonRResult``).
    Its ``__init__`` is the bunch's or has source (it is converted)."""
    if not _packs_fields(cls) or _is_namedtuple_class(cls) or not hasattr(cls, "__dict__") \
            or "__dict__" not in dir(cls):
        return False
    init = cls.__init__
    if init is object.__init__ or generated_record_method(init):
        return True
    return isinstance(init, types.FunctionType) and init.__code__.co_filename[:1] != "<"


def _is_namedtuple_class(cls: Any) -> bool:
    """A class made by ``collections.namedtuple`` or ``typing.NamedTuple``
    (its ``__new__`` only packs the fields into the tuple; no ``__init__``)."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        return False
    new = cls.__new__
    return isinstance(new, types.FunctionType) and new.__globals__.get("_tuple_new") is tuple.__new__ \
        and cls.__init__ is object.__init__


def _is_jax_function(callee: Any) -> bool:
    """A function of JAX's own (``jnp.stack``, ``jax.nn.relu``): its operands become JAX arrays."""
    return (getattr(callee, "__module__", "") or "").split(".")[0] == "jax" and callable(callee)


_PYTHON_NUMBER = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_PYTHON_DTYPE = {int: np.dtype("int64"), float: np.dtype("float64"), complex: np.dtype("complex128")}


def _pure_lapack(callee: Any, args: tuple, kwargs: dict) -> bool:
    """A LAPACK/BLAS wrapper of SciPy's called on static operands writing
    none of them (``dgesdd_lwork(m, n)``): run at trace time, as eager runs it."""
    sig = lapack.wrapper(callee)
    bound = lapack.bind(sig, args, kwargs) if sig is not None else None
    return bound is not None and lapack.pure(sig, bound, _own_layout)


def _numbers_only(items: Any) -> bool:
    """A list or tuple of numbers, at least one of them traced: 0-d values
    and Python or NumPy numbers (what ``np.asarray`` makes a vector of)."""
    return bool(items) and any(isinstance(x, Value) for x in items) and all(
        isinstance(x, Value) and not x.type.shape and not x.type.mixed or type(x) in (bool, int, float, complex)
        or isinstance(x, np.generic) and x.dtype.kind in "biufc" for x in items)


_REFUSES: dict[int, bool] = {}


def _refuses_sequences(fn: Any) -> bool:
    """``fn`` is a function of jax.numpy that refuses a Python list as its
    first operand (``jnp.mean([a, b])``: TypeError, where NumPy takes the
    array of it); one that takes sequences (``jnp.stack``) or is no JAX
    function: False. Found once per function, on a list of two 0-d arrays."""
    if not _is_jax_function(fn) or not (getattr(fn, "__module__", "") or "").startswith("jax.numpy"):
        return False
    found = _REFUSES.get(id(fn))
    if found is None:
        try:
            jax.eval_shape(lambda: fn([jnp.zeros(()), jnp.zeros(())]))
            found = False
        except TypeError as e:
            found = "requires ndarray or scalar arguments" in str(e)
        except Exception:  # noqa: BLE001 - it needs other operands: not known to refuse
            found = False
        _REFUSES[id(fn)] = found
    return found


def _own_layout(x: Any) -> tuple[bool, bool] | None:
    """(C, F) contiguity of a NumPy array as it is now (an operand made at
    trace time: f2py copies one that is not Fortran-contiguous before LAPACK
    writes, whatever ``overwrite_X`` says)."""
    return (bool(x.flags.c_contiguous), bool(x.flags.f_contiguous)) if type(x) is np.ndarray else None


_NEP50 = int(np.__version__.split(".")[0]) >= 2   # NumPy 2: a result's dtype depends on its operands' types only


def _other_kinds(left: Any, right: Any) -> bool:
    """A tuple or list compared with ``==`` to None, a number or a str (or
    the reverse): neither defines equality with the other, so Python
    compares identities."""
    scalars = (type(None), bool, int, float, complex, str, bytes)
    return type(left) in (tuple, list) and type(right) in scalars or type(right) in (tuple, list) and type(left) in scalars


def _python_with_source(callee: Any) -> bool:
    """A Python function (or a method bound to one) with source, of the user
    or of a library other than JAX and NumPy: converted, never refused by
    the module it lives in (``resolver.is_effectful`` names whole modules,
    ``random``, ``os``, ``logging``; the C functions those call stay out)."""
    target = callee.__func__ if isinstance(callee, types.MethodType) else callee
    return isinstance(target, types.FunctionType) and target.__code__.co_filename[:1] != "<" \
        and classify_callee(target) in (CallKind.USER_FUNCTION, CallKind.OPAQUE)


def _numpy_python_method(callee: Any) -> tuple | None:
    """(NumPy's Python function, its receiver) for a bound method of NumPy's
    written in Python (``Polynomial.fit``, ``poly1d.deriv``) or an instance
    of a NumPy class with a Python ``__call__`` (``Polynomial(c)``,
    ``np.poly1d(p)``); None otherwise (ufuncs, C methods, functions)."""
    if isinstance(callee, types.MethodType):
        fn, receiver = callee.__func__, callee.__self__
    elif isinstance(callee, (type, types.FunctionType, types.BuiltinFunctionType, np.ufunc, functools.partial)):
        return None
    else:
        fn, receiver = getattr(type(callee), "__call__", None), callee
    if not isinstance(fn, types.FunctionType) or numpy_api.numpy_source(fn) is not fn:
        return None
    return fn, receiver


def _library_python(callee: Any, traced: bool = True) -> bool:
    """A Python function (or an object with a Python ``__call__``) of an
    installed library other than JAX and NumPy (scipy, scikit-learn, optax,
    ...). It is converted like the user's own functions, never run on
    tracers nor at trace time: running it would perform its Python effects
    (a call counter in a closure, an appended list) at trace time, once for
    all calls, or twice when the attempt then falls back; its effects are
    judged statement by statement, and what stays out is what it calls that
    has no source (C code) or a real effect. Only a ``traced`` call of a
    function with a JAX equivalent (``scipy.special.comb`` on traced values)
    runs as that equivalent instead."""
    target = callee.__func__ if isinstance(callee, types.MethodType) else callee
    if not isinstance(target, types.FunctionType):
        call = getattr(type(callee), "__call__", None)
        if isinstance(callee, type) or not isinstance(call, types.FunctionType):
            return False
        target = call
    if traced and _numpy_to_jnp(callee) is not callee or is_pure_static_callable(callee):
        return False   # a NumPy/SciPy function with a JAX equivalent; logging.getLogger
    return classify_callee(target) is CallKind.OPAQUE and target.__code__.co_filename[:1] != "<"


@standin
@jax.tree_util.register_pytree_node_class
class TransformedFn:
    """``jax.vmap(f, ...)`` (or ``grad``, ...) of a function holding traced values,
    not yet called: calling it emits one op applying the transform."""

    def __init__(self, transform: Any, args: tuple, kwargs: dict):
        self.transform, self.args, self.kwargs = transform, args, kwargs

    # a pytree of its arguments (``jax.vmap(jax.grad(f))``: the inner one among the outer's arguments, its
    # local functions made closures and its traced values operands where the outer is applied), and a
    # function when the op runs (JAX calls the inner one there)
    def tree_flatten(self) -> tuple:
        return (self.args, self.kwargs), self.transform

    @classmethod
    def tree_unflatten(cls, transform: Any, children: tuple) -> "TransformedFn":
        return cls(transform, *children)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.transform(*self.args, **self.kwargs)(*args, **kwargs)


def _local_functions_in(tree: Any) -> bool:
    from .state import LocalFunction

    leaves = tree_flatten(tree, is_leaf=lambda x: isinstance(x, (Value, LocalFunction)))[0]
    return any(isinstance(x, LocalFunction) for x in leaves)


def _transforms() -> tuple:
    return (jax.vmap, jax.grad, jax.value_and_grad, jax.jacfwd, jax.jacrev, jax.hessian, jax.checkpoint)


def _apply_transform(transform: Any, targs: tuple, tkwargs: dict, *args: Any, **kwargs: Any) -> Any:
    """``transform(*targs, **tkwargs)(*args, **kwargs)``."""
    return transform(*targs, **tkwargs)(*args, **kwargs)


def _apply_callable(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with the callable itself a (pytree) argument."""
    return fn(*args, **kwargs)


@functools.lru_cache(maxsize=None)
def _debug_effect(fn: Any) -> Any:
    """``jax.debug.print``/``callback`` as an effect op (the caller waits for it)."""

    def effect(*args: Any, **kwargs: Any) -> None:
        fn(*args, **kwargs)

    effect.__name__ = effect.__qualname__ = getattr(fn, "__qualname__", "debug")
    effect._a2g_effect = True  # type: ignore[attr-defined]
    effect._a2g_host_print = True  # type: ignore[attr-defined]
    return effect


# builtins that store an argument into another object (never graph ops: traced
# by JAX they would store its tracer)
_STORING_BUILTINS = frozenset(map(id, (delattr, operator.delitem, object.__setattr__, object.__delattr__,
                                       heapq.heappush, heapq.heappushpop, heapq.heapreplace, bisect.insort,
                                       bisect.insort_left, bisect.insort_right)))


def frame_introspection(callee: Any, args: tuple, kwargs: dict) -> bool:
    """A builtin call that looks at its caller's frame: ``locals()``, ``vars()``
    and ``dir()`` without an object, ``eval``/``exec`` without namespaces."""
    if callee is locals:
        return True
    if callee in (vars, dir):
        return not args and not kwargs
    if callee in (eval, exec):
        return len(args) < 2 and "globals" not in kwargs
    return False


def _stores_arguments(callee: Any) -> bool:
    """A builtin that stores an argument into an object: one of
    ``_STORING_BUILTINS``, or a builtin method of a mutable object that is
    not a list, dict or set (``deque.append``, ``bytearray.extend``;
    ``calls.py`` handles those three's methods itself)."""
    if id(callee) in _STORING_BUILTINS:
        return True
    owner = getattr(callee, "__self__", None)
    return type(callee) is types.BuiltinMethodType and owner is not None and not isinstance(
        owner, (types.ModuleType, type, list, dict, set, str, bytes, tuple, int, float, complex, np.ndarray,
                np.generic, jax.Array)) and getattr(owner, "__hash__", None) is None


_FILTER_SETTERS = (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings)
_FILTERS_MUTATED = arrays.host_effect(hostwarnings.filters_mutated) if hostwarnings.filters_mutated else None


def _warn_signature(message: Any, category: Any = None, stacklevel: int = 1, source: Any = None) -> None:
    """``warnings.warn``'s parameters (a C function)."""


_WARN_SIGNATURE = inspect.signature(_warn_signature)
_WARN_DEFAULTS = (("message", None), ("category", None), ("stacklevel", 1), ("source", None))


_FP_OPERATORS = {operator.truediv: "divide", operator.itruediv: "divide", operator.floordiv: "floor_divide",
                 operator.ifloordiv: "floor_divide", operator.mod: "remainder", operator.imod: "remainder",
                 operator.pow: "power", operator.ipow: "power", operator.add: "add", operator.iadd: "add",
                 operator.sub: "subtract", operator.isub: "subtract", operator.mul: "multiply",
                 operator.imul: "multiply", operator.neg: "negative", abs: "absolute"}
# NumPy's integer scalar arithmetic that warns where it wraps around ("overflow encountered in scalar add",
# "... in scalar negative" for -np.int8(-128) or -np.uint8(1), "... in scalar absolute" for abs(np.int8(-128)))
_FP_UNARY_WRAPS = frozenset({"negative", "absolute"})
_FP_INT_WRAPS = frozenset({"add", "subtract", "multiply"}) | _FP_UNARY_WRAPS
# ``ndarray ** k`` of a Python number: NumPy's fast paths call another ufunc
_FP_FAST_POWERS = {0.5: "sqrt", 2: "square", -1: "reciprocal"}


def _fp_ufunc_name(fn: Any, args: tuple, ufunc: Any, syntax: bool) -> tuple[str | None, bool]:
    """The ufunc NumPy runs for ``fn(*args)`` (its name in NumPy's warning),
    and whether it is NumPy's scalar arithmetic (``np.float64(1) / 0``: "scalar
    divide"); ``syntax``: written as an operator (``a / b``, ``a /= b``)."""
    name = ufunc.__name__ if isinstance(ufunc, np.ufunc) else \
        _FP_OPERATORS.get(fn) if isinstance(fn, types.BuiltinFunctionType) else None
    # a Python operator called as such (sum()'s adds, operator.add(a, b)) is the operands' own arithmetic too
    syntax = syntax or isinstance(fn, types.BuiltinFunctionType) and fn in _FP_OPERATORS and ufunc in (None, fn)
    if name is None or not syntax or len(args) != (1 if name in _FP_UNARY_WRAPS else 2):
        return name, False
    def scalar(v: Any) -> bool:
        if isinstance(v, Value):
            return v.type.kinds <= {"numpy", "python"} and not v.type.shape
        return isinstance(v, (int, float, np.generic))
    if all(scalar(v) for v in args):
        return name, True
    if name == "power" and type(args[1]) in (int, float) and args[1] in _FP_FAST_POWERS:
        return _FP_FAST_POWERS[args[1]], False
    return name, False


def _narrowing_cast(target: Any, args: tuple) -> bool:
    """``np.float32(x)`` (a NumPy float or complex scalar type called on one
    traced float or complex value of more bytes): NumPy's cast, which warns
    "overflow encountered in cast" where a finite value becomes infinite."""
    if target in _CONVERTERS and len(args) == 2 and not isinstance(args[1], Value) and args[1] is not None:
        target, args = args[1], args[:1]   # np.asarray(x, np.float32) (keywords: the caller's ``dtype``)
        try:
            target = np.dtype(target).type
        except TypeError:
            return False
    if not (isinstance(target, type) and issubclass(target, (np.floating, np.complexfloating))) or len(args) != 1 \
            or not isinstance(args[0], Value) or getattr(args[0].type.dtype, "kind", "") not in "fc":
        return False
    return _narrower(args[0].type.dtype, np.dtype(target))


_CONVERTERS = (np.asarray, np.array, np.asanyarray, np.ascontiguousarray)


def _ufunc_refuses(callee: Any, args: tuple, kwargs: dict) -> str:
    """Why NumPy's (or SciPy's) ufunc ``callee`` refuses operands of these
    dtypes (its call on empty arrays of them raises: no loop for them), or ""
    where it takes them, is not a ufunc call, or the check cannot tell
    (``out=``, a traced keyword, an operand of several kinds)."""
    if not isinstance(callee, np.ufunc) or "out" in kwargs or len(args) != callee.nin \
            or any(isinstance(v, Value) for v in kwargs.values()):
        return ""
    empties = []
    for a in args:
        if isinstance(a, Value):
            t = a.type
            if t.mixed or getattr(t.dtype, "kind", None) is None:
                return ""
            if t.python and not t.shape:
                empties.append({"b": False, "i": 0, "u": 0, "f": 0.0, "c": 0j}.get(t.dtype.kind, 0.0))
            else:
                empties.append(np.empty((0,) + tuple(t.shape[1:]) if t.shape else (0,), t.dtype))
        elif isinstance(a, (np.ndarray, np.generic, bool, int, float, complex)):
            empties.append(a)
        else:
            return ""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            callee(*empties, **kwargs)
    except TypeError as e:   # (UFuncTypeError is one)
        return str(e)[:120]
    except Exception:  # noqa: BLE001 - a broadcast of the stand-ins, a value error: not this check's to say
        return ""
    return ""


def _complex_to_real(method: Any, args: tuple, kwargs: dict) -> bool:
    """``z.astype(float)`` (any real dtype) of a NumPy complex array: NumPy's ComplexWarning."""
    t = method.value.type
    target = args[0] if args else kwargs.get("dtype")
    if not t.kinds <= {"numpy", "array0"} or getattr(t.dtype, "kind", "") != "c" or isinstance(target, Value) \
            or target is None:
        return False
    try:
        return np.dtype(target).kind in "biuf"
    except TypeError:
        return False


def _narrower(source: np.dtype, target: np.dtype) -> bool:
    """A float or complex ``source`` cast to a float or complex ``target`` of a smaller range."""
    if source.kind not in "fc" or target.kind not in "fc":
        return False
    width = lambda d: d.itemsize // (2 if d.kind == "c" else 1)   # noqa: E731 (a part's bytes)
    return width(target) < width(source)


def _code_filename(unit: Any) -> str:
    """The ``co_filename`` of the code a unit is made from (a warning's file)."""
    code = getattr(getattr(unit.parsed, "fn", None), "__code__", None)
    return code.co_filename if code is not None else unit.filename


def _call_line(unit: Any, node: Any) -> int:
    """The line eager's frame is at while ``node`` (a call) runs: the call's
    first line; for ``obj.method(...)`` across lines, the line of the method
    name (CPython 3.11+ places the call there)."""
    line = unit.loc(node).line
    func = getattr(node, "func", None)
    if isinstance(func, gast.Attribute) and getattr(func, "end_lineno", None) and getattr(node, "lineno", None):
        line += func.end_lineno - node.lineno
    return line


@functools.lru_cache(maxsize=1)
def _leaf_movers() -> frozenset:
    """ids of jax.tree_util's functions that only take trees apart and put them together."""
    names = ("tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure", "tree_flatten_with_path",
             "tree_leaves_with_path", "tree_transpose")
    tree = getattr(jax, "tree", None)
    found = [getattr(jax.tree_util, n, None) for n in names] + \
        [getattr(tree, n, None) for n in ("flatten", "unflatten", "leaves", "structure", "flatten_with_path",
                                          "leaves_with_path", "transpose")]
    return frozenset(id(f) for f in found if f is not None)


def _moves_leaves(callee: Any, args: tuple, kwargs: dict) -> bool:
    """``callee`` (a ``_leaf_movers`` function, ``treedef.unflatten``) hands
    traced leaves on untouched, and every stand-in among its arguments is a
    graph value (a leaf to JAX as the eager object is): no ``is_leaf`` of the
    user's to call on stand-ins, no stand-in JAX would take apart."""
    from .state import LocalFunction

    bound = type(getattr(callee, "__self__", None)) is jax.tree_util.PyTreeDef \
        and getattr(callee, "__name__", None) in ("unflatten", "flatten_up_to")
    if not bound and id(callee) not in _leaf_movers():
        return False
    # an ``is_leaf`` of the function's own (``tree_leaves(t, lambda x: type(x) is dict)``): called at
    # trace time as eager's JAX calls it, inlined; what it stops at is handed on as itself (the
    # caller's dict, not one rebuilt by an op)
    name = getattr(callee, "__name__", "")
    is_leaf = kwargs.get("is_leaf")
    if is_leaf is None and not bound and name in _IS_LEAF_READERS and len(args) >= 2:
        is_leaf = args[1]
    if is_leaf is not None and not (isinstance(is_leaf, LocalFunction) and not bound and name in _IS_LEAF_READERS):
        return False
    return all(type(x) is Value or x is is_leaf for x in standins_in((args, kwargs)))


_UNSET = object()


def _cell_set(cell: Any) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _tree_reducers() -> frozenset:
    """ids of ``jax.tree_util.tree_reduce`` and ``jax.tree.reduce``: Python's
    ``functools.reduce(f, tree_leaves(t), init)``, which hands ``init`` and what
    ``f`` returns on as themselves (a list given as ``init``, the caller's dict)."""
    return frozenset(id(f) for f in (jax.tree_util.tree_reduce, getattr(getattr(jax, "tree", None), "reduce", None))
                     if f is not None)


_IS_LEAF_READERS = ("tree_flatten", "tree_leaves", "tree_structure", "tree_flatten_with_path", "tree_leaves_with_path",
                    "flatten", "leaves", "structure", "flatten_with_path", "leaves_with_path")


def _python_leaf_map(callee: Any, args: tuple, kwargs: dict) -> bool:
    """``jax.tree.map(f, tree, ...)`` (``jax.tree_util.tree_map``) of a Python
    function over traced leaves of which one is a NumPy array or a Python
    number: eager calls ``f`` in Python on those, not on jax.Arrays."""
    maps = {jax.tree_util.tree_map, getattr(getattr(jax, "tree", None), "map", None)}
    if not any(callee is m for m in maps if m is not None) or not args or \
            not isinstance(args[0], (types.FunctionType, types.MethodType)) and type(args[0]).__name__ != "LocalFunction":
        return False
    leaves, _ = tree_flatten((args[1:], kwargs), is_leaf=lambda x: isinstance(x, Value))
    return any(isinstance(x, Value) and x.type.kinds - {"jax"} for x in leaves)


def _consumed_at_once(tree: Any, node: Any, count: int) -> bool:
    """The iterator the call ``node`` makes is consumed whole where it is
    made, before anything else runs: unpacked into targets that take exactly
    its ``count`` items (``a, b = ...``; ``a, *rest = ...``), or starred into
    a call's arguments or a display (``f(*...)``, ``[*...]``)."""
    from .generators import _parents

    parents = _parents(tree)
    parent = parents.get(id(node))
    if isinstance(parent, gast.Starred):
        outer = parents.get(id(parent))
        return isinstance(outer, (gast.List, gast.Tuple, gast.Set)) or \
            isinstance(outer, gast.Call) and any(a is parent for a in outer.args)
    if not (isinstance(parent, gast.Assign) and parent.value is node and len(parent.targets) == 1):
        return False
    target = parent.targets[0]
    if not isinstance(target, (gast.Tuple, gast.List)):
        return False
    starred = sum(isinstance(t, gast.Starred) for t in target.elts)
    fixed = len(target.elts) - starred
    return count == fixed if not starred else starred == 1 and count >= fixed


# Methods and builtins that look at a list or dict without changing it or
# handing it back (``CallMixin._shadowed``).
_LOOKING_METHODS = frozenset({"copy", "get", "keys", "items", "values", "count", "index", "__getitem__",
                              "__contains__", "__len__"})
def _extreme_range(is_max: bool, args: tuple) -> tuple[int, int] | None:
    """The values ``max(*args)`` (``min``) of ints can take, from each
    operand's (a static int's is itself; a traced one's ``INT_RANGE``, else
    any int64): a static bound on one side is enough to exclude 0."""
    lo_any, hi_any = -(1 << 63), (1 << 63) - 1
    bounds = []
    for a in args:
        if type(a) is int:
            bounds.append((a, a))
        elif isinstance(a, Value) and a.type.dtype.kind in "iu":
            bounds.append(INT_RANGE.get(a, (lo_any, hi_any)))
        else:
            return None
    if is_max:
        return max(b[0] for b in bounds), max(b[1] for b in bounds)
    return min(b[0] for b in bounds), min(b[1] for b in bounds)


_DEQUE_MOVING = frozenset({"pop", "popleft", "rotate", "reverse", "clear"})
_HEAP_FUNCTIONS = (heapq.heappush, heapq.heappop, heapq.heapify, heapq.heappushpop, heapq.heapreplace)
_CHOOSING = (itertools.combinations, itertools.permutations, itertools.combinations_with_replacement)
_LIST_ITERATOR = type(iter([]))   # an iterator made at trace time (itertools.chain/accumulate of static items)


def _user_method(obj: Any, name: str) -> Any:
    from .operators import python_method

    return python_method(obj, name)


def _user_added(operands: tuple) -> bool:
    """Whether ``sum`` of these adds with a user class's ``__add__``/``__radd__``
    (converted like any user method: its arrays may be traced)."""
    from .operators import has_user_operator

    return any(has_user_operator(operator.add, (x,)) for x in operands)


def _holds_values(x: Any, depth: int = 0, seen: set | None = None) -> bool:
    """Whether ``x`` holds a graph ``Value`` in its attributes (its
    ``__dict__``, ``__slots__``), the lists, tuples and dicts in them, nested
    a few levels deep."""
    seen = set() if seen is None else seen
    if isinstance(x, Value):
        return True
    if depth > 4 or id(x) in seen or isinstance(x, (str, bytes, numbers.Number, np.ndarray, type, types.ModuleType,
                                                      types.FunctionType)):
        return False
    seen.add(id(x))
    if isinstance(x, (list, tuple, set, frozenset)):
        return any(_holds_values(y, depth + 1, seen) for y in x)
    if isinstance(x, dict):
        return any(_holds_values(y, depth + 1, seen) for y in x.values())
    attrs = getattr(x, "__dict__", None)
    held = list(attrs.values()) if isinstance(attrs, dict) else []
    for klass in type(x).__mro__:
        for name in getattr(klass, "__slots__", ()) if isinstance(getattr(klass, "__slots__", ()), (tuple, list)) else ():
            held.append(getattr(x, name, None))
    return any(_holds_values(y, depth + 1, seen) for y in held)


_LOOKING_BUILTINS = (len, list, tuple, dict, sorted, set, frozenset, sum, any, all, max, min)

_COMPARING_METHODS = frozenset({"count", "index", "remove", "__contains__", "__eq__", "__ne__", "__lt__", "__le__",
                                "__gt__", "__ge__"})


def contains_value_any(*trees: Any) -> bool:
    from .state import contains_value

    return any(contains_value(t) for t in trees)


def _signature_of_local(fn: Any) -> inspect.Signature:
    from .state import NO_DEFAULT

    a = fn.node.args
    params = []
    positional = list(a.posonlyargs) + list(a.args)
    first_default = len(positional) - len(fn.defaults)
    for i, p in enumerate(positional):
        kind = inspect.Parameter.POSITIONAL_ONLY if i < len(a.posonlyargs) else inspect.Parameter.POSITIONAL_OR_KEYWORD
        default = fn.defaults[i - first_default] if i >= first_default else inspect.Parameter.empty
        params.append(inspect.Parameter(p.id, kind, default=default))
    if a.vararg is not None:
        params.append(inspect.Parameter(a.vararg.id, inspect.Parameter.VAR_POSITIONAL))
    for p, d in zip(a.kwonlyargs, fn.kw_defaults):
        params.append(inspect.Parameter(p.id, inspect.Parameter.KEYWORD_ONLY, default=inspect.Parameter.empty if d is NO_DEFAULT else d))
    if a.kwarg is not None:
        params.append(inspect.Parameter(a.kwarg.id, inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)
