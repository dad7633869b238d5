"""Result types of elementwise ops without tracing each one.

Requires: ``ArrayType``/``Value`` (ir.core); JAX's promotion rules
(``jax.dtypes.result_type``).
Produces: ``ELEMENTWISE`` (function -> arities) and ``elementwise_type``:
the (output pytree, [Value]) of an elementwise op on Values and Python
numbers, as ``Specializer._abstract_eval`` returns it, or None where the
general evaluation (``jax.eval_shape``) must decide.
Invariants: the type given is the one ``jax.eval_shape`` gives (checked for
every op and operand kind in tests/unit/test_elementwise_types.py).

Abstract evaluation is most of a conversion's time: one ``jax.eval_shape``
costs 0.1-0.5 ms, and a function has tens of ``+``/``*``/``<``. An
elementwise op's result shape is its operands' broadcast shape; its dtype
and weak type depend only on theirs (JAX has no value- or rank-based
promotion). So for arithmetic with a real floating-point result, integer
``+``/``-``/``*``/max/min (in-place forms included) and comparisons the type
comes from JAX's promotion table (``jax.dtypes.result_type``, no tracing),
kept in the caller's cache per dtype signature; every other case is left to
the general evaluation. (Evaluating
on 0-d operands instead is not exact: ``jnp.logical_not`` of a weak float is
a weak bool at rank 0 but not at rank 1.)
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import jax
import numpy as np

from ..ir.core import ArrayType, Value, is_extended

_NUMBERS = (bool, int, float, complex)


def _ops() -> tuple[dict, set, set]:
    jnp = jax.numpy
    # (pow, hypot, logical and unary functions are left out: some drop or
    # keep the weak type in ways the promotion table does not tell)
    # (``x += y`` on a JAX array is ``x + y``: arrays have no in-place operators)
    promoting = {operator.add, operator.sub, operator.mul, operator.truediv, operator.iadd, operator.isub,
                 operator.imul, operator.itruediv, jnp.add, jnp.subtract,
                 jnp.multiply, jnp.divide, jnp.true_divide, jnp.maximum, jnp.minimum}
    comparing = {operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge, jnp.greater,
                 jnp.greater_equal, jnp.less, jnp.less_equal, jnp.equal, jnp.not_equal}
    arity: dict[Callable, tuple[int, ...]] = {f: (2,) for f in promoting | comparing}
    arity[jnp.where] = (3,)
    return arity, promoting, comparing


ELEMENTWISE, _PROMOTING, _COMPARING = _ops()
_DIVIDING = {operator.truediv, operator.itruediv, jax.numpy.divide, jax.numpy.true_divide}
_COMPLEX_OK = {operator.add, operator.sub, operator.mul, operator.truediv, operator.iadd, operator.isub,
               operator.imul, operator.itruediv, jax.numpy.add, jax.numpy.subtract, jax.numpy.multiply,
               jax.numpy.divide, jax.numpy.true_divide, jax.numpy.where}


def is_real_float(dtype: np.dtype) -> bool:
    """A real floating-point dtype (bfloat16 included)."""
    return jax.numpy.issubdtype(dtype, jax.numpy.floating)


def _representative(leaf: Any) -> Any:
    """What stands for an operand in ``jax.dtypes.result_type``: a dtype, or
    a Python type for a weak operand; None for kinds the rules leave to JAX."""
    if type(leaf) is Value:
        t = leaf.type
        if t.dtype.kind not in "fiucb" and t.dtype != jax.numpy.bfloat16:
            return None
        if not t.weak_type:
            return t.dtype
        if t.dtype.kind in "cb":
            return None   # a weak complex or bool: the general evaluation
        default = jax.dtypes.canonicalize_dtype(float if t.dtype.kind == "f" else int)
        return (float if t.dtype.kind == "f" else int) if t.dtype == default else None
    if type(leaf) is float:
        return float
    if type(leaf) is int and 0 <= leaf < 128:   # fits every integer dtype
        return int
    return None


def _rule(fn: Callable, leaves: list) -> tuple[np.dtype, bool] | None:
    """(dtype, weak_type) by JAX's promotion table, for real floating-point
    results; None where the rules do not decide."""
    operands = leaves[1:] if fn is jax.numpy.where else leaves
    if fn is jax.numpy.where and not (type(leaves[0]) is Value and leaves[0].type.dtype == np.dtype(bool)):
        return None
    reps = [_representative(x) for x in operands]
    if any(r is None for r in reps):
        return None
    dtype, weak = jax.dtypes.result_type(*reps, return_weak_type_flag=True)
    if fn in _COMPARING:   # a bool, weak where the promoted operands are
        return np.dtype(bool), bool(weak)
    if all(r == np.dtype(bool) or r is bool for r in reps) and fn is not jax.numpy.where:
        return None   # arithmetic on bools alone (logical, or an error): the general evaluation
    if np.dtype(dtype).kind in "iu" and fn not in _DIVIDING:
        return np.dtype(dtype), bool(weak)   # integer +, -, *, max, min: the promoted integer type
    if np.dtype(dtype).kind == "c" and fn in _COMPLEX_OK:
        return np.dtype(dtype), bool(weak)   # complex +, -, *, /
    if fn is jax.numpy.where and all(r == np.dtype(bool) for r in reps):
        return np.dtype(bool), False
    if not is_real_float(dtype) or not any(isinstance(r, np.dtype) and is_real_float(r) or r is float for r in reps):
        return None   # true division of integers makes floats: the general evaluation
    return np.dtype(dtype), bool(weak)


def elementwise_type(fn: Callable, treedef: Any, leaves: list, cache: dict) -> tuple | None:
    """The result of elementwise ``fn`` on Values and Python numbers, or None
    where the general evaluation must decide (other arguments; shapes that do
    not broadcast: the error is JAX's own)."""
    shapes = []
    parts = []
    for leaf in leaves:
        if type(leaf) is Value:
            t = leaf.type
            if is_extended(t.dtype):
                return None   # a PRNG key array: JAX's abstract evaluation types it
            shapes.append(t.shape)
            parts.append((Value, t.dtype, t.weak_type))
        elif type(leaf) in _NUMBERS:
            # a Python number's type decides the promotion, not its value, except
            # an int that may not fit the array's dtype (JAX raises OverflowError)
            small = type(leaf) is not int or 0 <= leaf < 128
            parts.append((type(leaf), None) if small else (int, leaf))
        else:
            return None
    if not shapes:
        return None
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return None
    key = (elementwise_type, fn, treedef, tuple(parts), jax.config.jax_enable_x64)
    hit = cache.get(key)
    if hit is None:
        hit = _rule(fn, leaves)
        if hit is None:
            return None
        cache[key] = hit
    dtype, weak = hit
    return jax.tree_util.tree_structure(0), [Value(ArrayType(tuple(shape), dtype, weak))]
