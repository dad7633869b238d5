"""Conversions of dtype and kind that the graphs and the compiler share.

Requires: jax, NumPy.
Produces: ``cast`` (to a dtype with a given weak type, exactly), ``NARROW``
(the 32-bit dtype JAX gives a 64-bit one with x64 off), ``to_python_number``
(a scalar array as the Python number it stands for) and ``opaque`` (a
constant XLA's simplifier cannot fold into a multiplication).
Invariants: imports nothing of ast2graph: ``bounded``, ``arrays``, lowering
and typeinfer all build on it.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax


def half_from_double(x: Any) -> Any:
    """float64 ``x`` cast to float16 rounded once, as NumPy's cast: XLA's
    convert goes through float32 and rounds twice (1 + 2**-11 + 2**-40 is
    float16 1.0 there, NumPy's 1.0009765625). The float32 step rounds to odd
    (a float32 of 13 more bits than float16 cannot then land on a float16 tie
    the float64 value is not on), so the second rounding is the only one."""
    y = x.astype(jnp.float32)
    back = y.astype(jnp.float64)
    bits = lax.bitcast_convert_type(y, jnp.uint32)
    even = (back != x) & jnp.isfinite(x) & ((bits & 1) == 0)   # inexact and rounded to even: take the odd neighbour
    bits = jnp.where(even, jnp.where(jnp.abs(back) > jnp.abs(x), bits - 1, bits + 1), bits)
    return lax.bitcast_convert_type(bits, jnp.float32).astype(jnp.float16)


def is_double_to_half(x: Any, dtype: Any) -> bool:
    """Whether ``x`` (an array) is float64 and ``dtype`` float16 (``half_from_double``'s case)."""
    return getattr(x, "dtype", None) == np.float64 and dtype is not None and np.dtype(dtype) == np.float16


def cast(x: Any, dtype: Any, weak: bool = False) -> Any:
    """To ``dtype`` with the given weak-typedness (the join of branch and loop
    types is exact: a weak ``f32[]~`` and a strong ``f32[]`` are different)."""
    dtype = np.dtype(dtype)
    if is_double_to_half(x, dtype) and not weak:
        x = half_from_double(x)
    try:
        from jax._src.lax.lax import _convert_element_type
    except ImportError:  # pragma: no cover - a JAX without the private helper
        y = lax.convert_element_type(x, dtype)
        return y + jnp.zeros((), dtype) if not weak and getattr(getattr(y, "aval", y), "weak_type", False) else y
    return _convert_element_type(x, dtype, weak_type=weak)



# the 32-bit dtype JAX gives a 64-bit one with x64 off
NARROW = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32),
          np.dtype(np.uint64): np.dtype(np.uint32), np.dtype(np.complex128): np.dtype(np.complex64)}


def to_python_number(x: Any) -> Any:
    """A scalar array back to the Python number it stands for (by dtype kind)."""
    if isinstance(x, jax.Array):
        x.block_until_ready()   # waits as jax.block_until_ready does (np.asarray's wait is slower)
    x = np.asarray(x)
    kind = x.dtype.kind
    value = x.item()
    return bool(value) if kind == "b" else int(value) if kind in "iu" else float(value) if kind == "f" else complex(value)


def unfused(x: Any) -> Any:
    """A real floating-point value as its own rounded value: ``x`` through a
    select on its sign bit that XLA's simplifier keeps and LLVM does not see
    through. So the add or subtract that consumes a product is not fused with
    the multiplication into one fused multiply-add (one rounding, where eager
    rounds the product first: ``a * 10.0 - inf`` is nan in eager, not -inf;
    ``x * x - 1.0`` keeps eager's last bit), and a division is not rewritten
    across the op that made an operand (``a / sqrt(b)`` as ``a * rsqrt(b)``).
    Any other value as it is."""
    dtype = getattr(x, "dtype", None)
    if dtype is not None and jnp.issubdtype(dtype, jnp.complexfloating):   # each part on its own
        return lax.complex(_sign_select(lax.real(x)), _sign_select(lax.imag(x)))
    if dtype is None or not jnp.issubdtype(dtype, jnp.floating):
        return x
    return _sign_select(x)


@jax.custom_jvp
def _sign_select(x: Any) -> Any:
    bits = lax.bitcast_convert_type(x, _SIGNED[np.dtype(x.dtype).itemsize])
    magnitude = lax.abs(x)
    return lax.select(bits < 0, lax.neg(magnitude), magnitude)


@_sign_select.defjvp
def _sign_select_jvp(primals: tuple, tangents: tuple) -> tuple:
    """The identity's derivative (``abs`` would give 0 at zero)."""
    return _sign_select(primals[0]), tangents[0]


_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


def opaque(x: Any, like: Any = None) -> Any:
    """A constant that XLA's simplifier cannot see as one (same dtype and weak
    type), of the dividend's shape: a scalar divisor broadcast in the kernel
    is loop-invariant, and LLVM divides by it as a multiplication by its
    reciprocal (``0.3 / 0.1``: 3.0, not 2.9999999999999996)."""
    c = jax.numpy.asarray(x)
    if like is not None and jax.numpy.ndim(like):
        c = jax.numpy.broadcast_to(c, jax.numpy.broadcast_shapes(jax.numpy.shape(like), jax.numpy.shape(c)))
    return lax.optimization_barrier(c)
