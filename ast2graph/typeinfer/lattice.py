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

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..ir.core import ArrayType, Value, is_extended

_NUMBER_TYPES = (bool, int, float, complex, np.bool_, np.number)


def is_array(x: Any) -> bool:
    """Runtime arrays that become graph inputs (not Python scalars)."""
    return isinstance(x, (jax.Array, np.ndarray, np.generic))


def array_type_of(x: Any) -> ArrayType:
    """The type JAX gives a runtime array (dtype canonicalised, as jit sees it;
    an extended dtype such as a PRNG key's ``key<fry>`` is kept as JAX's object)."""
    dtype = np.asarray(x).dtype if isinstance(x, np.generic) else x.dtype
    if is_extended(dtype):
        return ArrayType(tuple(x.shape), dtype, bool(getattr(x, "weak_type", False)))
    dtype = jax.dtypes.canonicalize_dtype(dtype)
    return ArrayType(tuple(np.shape(x)), np.dtype(dtype), bool(getattr(x, "weak_type", False)))


def is_static_number(x: Any) -> bool:
    return isinstance(x, _NUMBER_TYPES) and not isinstance(x, Value)


def static_array_type(x: Any) -> ArrayType:
    """The array type a static number takes when it becomes traced (a Python
    number stays one for the caller: ``ArrayType.python``)."""
    kind = type(x)
    if kind in (bool, float, complex) or kind is int and _INT32[0] <= x <= _INT32[1]:
        t = _static_number_type(kind, jax.config.jax_enable_x64)   # the type of a Python number does not depend on its value
    else:
        t = ArrayType.of(jax.eval_shape(lambda: jnp.asarray(x)))
    return dataclasses.replace(t, python=True) if is_python_number(x) else t


@functools.lru_cache(maxsize=None)
def _static_number_type(kind: type, x64: bool) -> ArrayType:
    return ArrayType.of(jax.eval_shape(lambda: jnp.asarray(kind(1))))


def is_python_number(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)


_INT32 = (-2**31, 2**31 - 1)


def is_traceable_number(x: Any) -> bool:
    """A Python int within int32, or a float: exact enough as a traced scalar."""
    return type(x) is float or type(x) is int and _INT32[0] <= x <= _INT32[1]


class TracedNumber:
    """A Python number handed to a compiled segment as a traced scalar (a busy
    argument, a loop counter of a Python-run loop). A pytree: its array is the
    leaf, its Python type is in the treedef, so the segment's graph knows the
    value is a Python number (``ArrayType.python``) and hands results back as one."""

    __slots__ = ("array", "kind")

    def __init__(self, array: Any, kind: type):
        self.array, self.kind = array, kind

    @staticmethod
    def of(x: Any) -> "TracedNumber":
        return TracedNumber(jnp.asarray(x), type(x))


jax.tree_util.register_pytree_node(TracedNumber, lambda t: ((t.array,), t.kind),
                                   lambda kind, children: TracedNumber(children[0], kind))


def untrace_numbers(tree: Any) -> Any:
    """Replace each ``TracedNumber`` holding a graph ``Value`` by that Value,
    marked as a Python number."""
    def unwrap(x: Any) -> Any:
        if isinstance(x, TracedNumber) and isinstance(x.array, Value):
            x.array.type = dataclasses.replace(x.array.type, python=True)
            return x.array
        return x

    from .nnx import is_node   # an NNX module stays the caller's object (not rebuilt from its leaves)

    return jax.tree_util.tree_map(unwrap, tree, is_leaf=lambda x: isinstance(x, TracedNumber) or is_node(x))


def to_python_number(x: Any) -> Any:
    """A scalar array back to the Python number it stands for (by dtype kind)."""
    if isinstance(x, jax.Array):
        x.block_until_ready()   # waits as jax.block_until_ready does (np.asarray's wait is slower)
    x = np.asarray(x)
    kind = x.dtype.kind
    value = x.item()
    return bool(value) if kind == "b" else int(value) if kind in "iu" else float(value) if kind == "f" else complex(value)


def join_types(a: ArrayType, b: ArrayType) -> ArrayType | None:
    """Least upper bound of two array types; None if the shapes differ. The
    join is a NumPy array only when both are (else: not known to be mutable)."""
    numpy, python = a.numpy and b.numpy, a.python and b.python
    if a == b:
        return a if (a.numpy, a.python) == (numpy, python) else dataclasses.replace(a, numpy=numpy, python=python)
    if a.shape != b.shape:
        return None
    return ArrayType(a.shape, _promoted_dtype(a.shape, a.dtype, a.weak_type, b.dtype, b.weak_type, jax.config.jax_enable_x64),
                     a.weak_type and b.weak_type, numpy, python)


@functools.lru_cache(maxsize=None)
def _promoted_dtype(shape: tuple, a: np.dtype, weak_a: bool, b: np.dtype, weak_b: bool, x64: bool) -> np.dtype:
    sds = (jax.ShapeDtypeStruct(shape, a, weak_type=weak_a), jax.ShapeDtypeStruct(shape, b, weak_type=weak_b))
    return np.dtype(jax.eval_shape(lambda u, v: jnp.add(u, v), *sds).dtype)


def same_static(a: Any, b: Any) -> bool:
    """Two static values are interchangeable for the graph (same type and value)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (bool, int, float, complex, str, bytes)):
        return a == b or (a != a and b != b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_static(x, y) if not isinstance(x, Value) else x is y for x, y in zip(a, b))
    return False


def abstract_type(x: Any) -> ArrayType | None:
    """The array type of a leaf if it is (or can widen to) an array."""
    if isinstance(x, Value):
        return x.type
    if is_static_number(x):
        return static_array_type(x)
    if isinstance(x, np.ndarray) and x.dtype.kind in "biufc":
        return dataclasses.replace(array_type_of(x), numpy=True)
    return None


def describe(x: Any) -> str:
    """Short text of an abstract value for error messages."""
    if isinstance(x, Value):
        return str(x.type)
    text = repr(x)
    return f"{type(x).__name__} {text if len(text) < 30 else text[:27] + '...'}"
