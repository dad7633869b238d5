"""The abstract values of type inference and their join.

Requires: ``ir.core`` for ``Value``/``ArrayType``.
Produces: the lattice used per call signature::

    Static(python value)  ⊏  Traced(shape, dtype, weak)  ⊏  Opaque

In the interpreter a static value is simply the Python object itself (it is
known at trace time), a traced value is an IR ``Value`` (an array whose
contents are known only at run time), and ``Opaque`` is not represented: a
site that would need it raises ``GraphBreak`` and falls back to Python.
Containers (tuples, lists, dicts) hold either kind as leaves.

Invariants: ``join`` is commutative and monotone; joining two different static
numbers widens to an array type (``acc = 0`` then ``acc = acc + x[i]``); a
shape change or a non-numeric static change has no upper bound below Opaque.
"""

from __future__ import annotations

import math

import dataclasses
import functools
import weakref
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..graphlib.casts import NARROW as _NARROW
from ..graphlib.trees import tree_map
from ..ir.core import ArrayType, Value, is_extended
from .nnxtypes import is_node

_NUMBER_TYPES = (bool, int, float, complex, np.bool_, np.number)


def is_array(x: Any) -> bool:
    """Runtime arrays that become graph inputs (not Python scalars): jax
    arrays, and NumPy arrays and scalars of a dtype XLA holds (bool, integer,
    float, complex, ml_dtypes' bfloat16 and float8); a NumPy array of
    strings, objects or dates stays a Python object."""
    if isinstance(x, (np.ndarray, np.generic)):
        return x.dtype.kind in "biufc" or x.dtype.type.__module__ == "ml_dtypes"
    return isinstance(x, jax.Array)


def ndarray_subclass(x: Any) -> bool:
    """A NumPy array of a subclass (``np.matrix``, ``np.ma.MaskedArray``, a
    user's ``class Sub(np.ndarray)``): its operators, methods and results are
    its class's own (a 0-d ``Sub`` from ``x.sum()``, a matrix product for
    ``*``), which the graph's NumPy rules do not follow."""
    return isinstance(x, np.ndarray) and type(x) is not np.ndarray


_SUBCLASS_CAUSE = ("a NumPy array of a subclass of ndarray ({}): its operators, methods and results are its "
                   "class's own, which the graph does not compute")


def subclass_cause(x: Any) -> str:
    return _SUBCLASS_CAUSE.format(type(x).__qualname__)


def array_type_of(x: Any) -> ArrayType:
    """The type of a runtime array in the graph: its own dtype, 64-bit
    included (a segment with 64-bit values runs under ``jax.enable_x64``,
    never narrowed as ``jax.jit`` would with x64 off). A NumPy array or
    scalar is of NumPy kind (``ArrayType.numpy``): NumPy's rules apply to it;
    a 0-d ndarray is marked so (``ArrayType.array0``), a NumPy scalar is not.
    An extended dtype such as a PRNG key's ``key<fry>`` is kept as JAX's object."""
    if isinstance(x, (np.ndarray, np.generic)):
        return ArrayType(tuple(np.shape(x)), x.dtype, False, numpy=True,
                         array0=isinstance(x, np.ndarray) and x.ndim == 0)
    weak = bool(getattr(x, "weak_type", False))
    if is_extended(x.dtype):
        return ArrayType(tuple(x.shape), x.dtype, weak)
    return ArrayType(tuple(x.shape), np.dtype(x.dtype), weak)


def is_static_number(x: Any) -> bool:
    return isinstance(x, _NUMBER_TYPES) and not isinstance(x, Value)


# A Python number in the graph: exact as eager Python computes it (ints 64-bit,
# floats float64), weakly typed as JAX and NumPy 2 (NEP 50) treat Python scalars.
_PYTHON_DTYPES = {bool: np.dtype(bool), int: np.dtype(np.int64), float: np.dtype(np.float64),
                  complex: np.dtype(np.complex128)}


def static_array_type(x: Any) -> ArrayType:
    """The array type a static number takes when it becomes traced: a Python
    number its exact 64-bit type, weak (``ArrayType.python``: it stays a
    Python number for the caller); a NumPy scalar its own dtype (NumPy kind)."""
    kind = type(x)
    if kind in _PYTHON_DTYPES:
        if kind is int and not _INT64[0] <= x <= _INT64[1]:
            raise OverflowError(f"Python int {x} does not fit int64: it stays a Python value")
        return ArrayType((), _PYTHON_DTYPES[kind], kind is not bool, python=True)
    if isinstance(x, np.generic):
        return ArrayType((), x.dtype, False, numpy=True)
    return ArrayType.of(jax.eval_shape(lambda: jnp.asarray(x)))


def is_python_number(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)


_INT64 = (-2**63, 2**63 - 1)


def is_traceable_number(x: Any) -> bool:
    """A Python float, or an int within int64: exact as a traced scalar (an
    int beyond int64 stays a static Python value)."""
    return type(x) is float or type(x) is int and _INT64[0] <= x <= _INT64[1]


def host_scalar(x: Any) -> np.generic:
    """A Python number as the 64-bit NumPy scalar that carries it into a graph."""
    return _PYTHON_DTYPES[type(x)].type(x)


class TracedNumber:
    """A Python number handed to a compiled segment as a traced scalar (a busy
    argument, a loop counter of a Python-run loop). A pytree: its array is the
    leaf, its Python type is in the treedef, so the segment's graph knows the
    value is a Python number (``ArrayType.python``) and hands results back as one.
    The array is a 64-bit NumPy scalar (an int stays exact, a float float64)."""

    __slots__ = ("array", "kind")

    def __init__(self, array: Any, kind: type):
        self.array, self.kind = array, kind

    @staticmethod
    def of(x: Any) -> "TracedNumber":
        return TracedNumber(host_scalar(x), type(x))


jax.tree_util.register_pytree_node(TracedNumber, lambda t: ((t.array,), t.kind),
                                   lambda kind, children: TracedNumber(children[0], kind))


# Traced Python ints that may not fit int32: the ones passed in from outside
# (busy arguments, outside ints read traced) and what Python arithmetic makes
# of them. A JAX op given one checks it at run time (precision.int32_check), as
# eager JAX raises OverflowError; a loop counter counted from a static value
# is not checked (it would take 2**31 iterations to leave int32 by steps).
WIDE_INTS: "weakref.WeakSet[Value]" = weakref.WeakSet()

# How many bits a traced Python int may need (``mutation.precise_eval``): a
# Python int is exact however large, the graph's int64 is not. Ints are passed
# in traced only within int32 (``traced_int_ok``; a larger one stays a static
# Python value), so a product of two fits int64; a product that may not runs
# in Python. A traced int not in this map may need all 63 bits.
INT_BITS: "weakref.WeakKeyDictionary[Value, int]" = weakref.WeakKeyDictionary()
# Python ints made from 64-bit integer data (``int(v[0])`` of an int64 array): any
# int64, so a sum may leave int64 (mutation._python_int_bits checks it at run time)
DATA_INT64: "weakref.WeakSet[Value]" = weakref.WeakSet()
TRACED_INT_BITS = 31

# The values a traced integer is known to lie between, inclusive: a rolled
# loop's counter over a static range, ``i % n`` by a static n. An index whose
# range is within an array's bounds needs no run-time bounds check.
INT_RANGE: "weakref.WeakKeyDictionary[Value, tuple[int, int]]" = weakref.WeakKeyDictionary()


def int_range_of(fn: Any, left: Any, right: Any) -> tuple[int, int] | None:
    """``INT_RANGE`` of ``left fn right`` (``+``, ``-``, ``*``, ``//``, ``%``)
    from its operands' (a static int's is itself), or None if unknown. ``%``
    by a static int is bounded whatever the dividend."""
    import operator

    if fn in (operator.mod, operator.imod) and type(right) is int and right:
        return (0, right - 1) if right > 0 else (right + 1, 0)
    a = (left, left) if type(left) is int else INT_RANGE.get(left) if isinstance(left, Value) else None
    b = (right, right) if type(right) is int else INT_RANGE.get(right) if isinstance(right, Value) else None
    if a is None or b is None:
        return None
    if fn in (operator.add, operator.iadd):
        return a[0] + b[0], a[1] + b[1]
    if fn in (operator.sub, operator.isub):
        return a[0] - b[1], a[1] - b[0]
    if fn in (operator.mul, operator.imul) or fn in (operator.floordiv, operator.ifloordiv) and b[0] > 0:
        corners = [fn(x, y) for x in a for y in b]
        return min(corners), max(corners)
    return None


def traced_int_ok(x: Any) -> bool:
    """A Python number that may be passed in traced: a float, or an int within int32."""
    return type(x) is not int or -2**TRACED_INT_BITS <= x < 2**TRACED_INT_BITS


def untrace_numbers(tree: Any) -> Any:
    """Replace each ``TracedNumber`` holding a graph ``Value`` by that Value,
    marked as a Python number."""
    def unwrap(x: Any) -> Any:
        if isinstance(x, TracedNumber) and isinstance(x.array, Value):
            # weak, as JAX and NumPy treat a Python scalar (the graph casts its input so)
            x.array.type = dataclasses.replace(x.array.type, python=True, numpy=False, array0=False,
                                                 weak_type=x.kind is not bool)
            if x.kind is int:
                WIDE_INTS.add(x.array)
                INT_BITS[x.array] = TRACED_INT_BITS
            return x.array
        return x

    # an NNX module stays the caller's object (not rebuilt from its leaves)
    # (a SciPy result record keeps its attributes: trees.keyed's Record node)
    return tree_map(unwrap, tree, is_leaf=lambda x: isinstance(x, TracedNumber) or is_node(x))




def join_types(a: ArrayType, b: ArrayType) -> ArrayType | None:
    """Least upper bound of two array types; None if the shapes differ. The
    join is a NumPy array only when both are (else: not known to be mutable).

    The dtype is the one eager computes with after the join: two values of
    NumPy or Python kind (``acc = 0.0`` then ``acc = acc + a[i]`` on an
    ndarray) by NumPy's promotion (NEP 50: a Python number is weak), which
    never narrows (int64 and float32 make float64); a JAX array on either
    side by JAX's, with x64 off (the user's setting) as JAX itself would
    compute (an ndarray float64 joined with a jax float32 array: the jax
    array's float32, the type every later JAX op gives)."""
    numpy, python = a.numpy and b.numpy, a.python and b.python
    if a == b:
        array0 = a.array0 and b.array0   # (the kinds of a join of paths: its caller's ``with_kinds``)
        return a if (a.numpy, a.python, a.array0) == (numpy, python, array0) else \
            dataclasses.replace(a, numpy=numpy, python=python, array0=array0)
    if a.shape != b.shape:
        return None
    if (a.numpy or a.python) and (b.numpy or b.python):
        dtype = _numpy_promoted(a.dtype, a.python, b.dtype, b.python)
        # a Python number joined with a NumPy scalar: NumPy's scalar from then on
        return ArrayType(a.shape, dtype, python and a.weak_type and b.weak_type, numpy or not python, python)
    x64 = bool(jax.config.jax_enable_x64)
    ta, tb = (a, b) if x64 else (canonical_type(a), canonical_type(b))
    return ArrayType(a.shape, _promoted_dtype(a.shape, ta.dtype, ta.weak_type, tb.dtype, tb.weak_type, x64),
                     a.weak_type and b.weak_type, numpy, python)


def same_dtype(a: ArrayType, b: ArrayType) -> bool:
    """The two types have one dtype as eager computes with them: equal, or
    equal once narrowed where a JAX array is on a side (x64 off: a Python
    float with a jax float32 array is a float32)."""
    if a.dtype == b.dtype:
        return True
    if jax.config.jax_enable_x64 or (a.numpy or a.python) and (b.numpy or b.python):
        return False
    return canonical_type(a).dtype == canonical_type(b).dtype


@functools.lru_cache(maxsize=None)
def _numpy_promoted(a: np.dtype, python_a: bool, b: np.dtype, python_b: bool) -> np.dtype:
    """NumPy's result type of two operands (a Python number: a weak scalar of its kind)."""
    rep_a = a.type(0).item() if python_a else a
    rep_b = b.type(0).item() if python_b else b
    return np.dtype(np.result_type(rep_a, rep_b))


@functools.lru_cache(maxsize=None)
def _promoted_dtype(shape: tuple, a: np.dtype, weak_a: bool, b: np.dtype, weak_b: bool, x64: bool) -> np.dtype:
    sds = (jax.ShapeDtypeStruct(shape, a, weak_type=weak_a), jax.ShapeDtypeStruct(shape, b, weak_type=weak_b))
    with jax.enable_x64(x64):
        return np.dtype(jax.eval_shape(lambda u, v: jnp.add(u, v), *sds).dtype)




def is_64bit(dtype: np.dtype) -> bool:
    """A dtype that JAX narrows with x64 off."""
    return dtype in _NARROW


def canonical_type(t: ArrayType) -> ArrayType:
    """``t`` as JAX with x64 off sees it (``jnp.asarray`` narrows 64-bit
    dtypes to 32-bit; the weak type is kept)."""
    narrow = _NARROW.get(t.dtype)
    return t if narrow is None else dataclasses.replace(t, dtype=narrow)


def same_static(a: Any, b: Any) -> bool:
    """Two static values are interchangeable for the graph (same type and value)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, float):   # 0.0 and -0.0 are equal, yet print (and divide) differently
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)
    if isinstance(a, complex):
        return same_static(a.real, b.real) and same_static(a.imag, b.imag)
    if isinstance(a, (bool, int, str, bytes)):
        return a == b
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_static(x, y) if not isinstance(x, Value) else x is y for x, y in zip(a, b))
    return False


def abstract_type(x: Any) -> ArrayType | None:
    """The array type of a leaf if it is (or can widen to) an array."""
    if isinstance(x, Value):
        return x.type
    if is_static_number(x):
        return None if type(x) is int and not is_traceable_number(x) else static_array_type(x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc":
        return array_type_of(x)
    if isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer) and x.dtype.kind in "biufc":
        return array_type_of(x)   # a small array folded at trace time (``jnp.arange(3)``): a jax.Array
    return None


def describe(x: Any) -> str:
    """Short text of an abstract value for error messages."""
    if isinstance(x, Value):
        return str(x.type)
    text = repr(x)
    return f"{type(x).__name__} {text if len(text) < 30 else text[:27] + '...'}"
