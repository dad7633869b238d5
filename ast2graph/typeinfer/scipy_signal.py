"""JAX compositions of scipy.signal's compiled filters, for ``scipy_api.RULES``.

Requires: JAX (x64 on in the graph), the arguments of the public SciPy call.
Produces: ``lfilter``: ``scipy.signal.lfilter(b, a, x, axis=-1, zi=None)`` of
real floating data with a denominator of two or more coefficients, as SciPy's
C kernel (``_sigtools._linear_filter``, direct form II transposed) computes
it, as a ``lax.scan`` along the axis.
Invariants: each output and each delay is rounded as SciPy's loop rounds it
(``b``, ``a`` divided by ``a[0]`` first; ``z[k] = (z[k+1] + x*b[k+1]) -
y*a[k+1]``; the last delay without the ``z`` term, so a -0.0 stays -0.0);
what this does not model (a one-coefficient denominator: SciPy convolves;
complex or integer data; ``zi`` of another shape) raises, and
``scipy_api.equivalent`` validates every signature against SciPy before the
graph uses it (a difference is a fallback, never a result).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def _not_modelled(what: str) -> NotImplementedError:
    return NotImplementedError(f"scipy.signal.lfilter in the graph: {what}")


def lfilter(b: Any, a: Any, x: Any, axis: int = -1, zi: Any = None) -> Any:
    """``scipy.signal.lfilter``: direct form II transposed, one step per sample."""
    b, a, x = jnp.atleast_1d(jnp.asarray(b)), jnp.atleast_1d(jnp.asarray(a)), jnp.asarray(x)
    if b.ndim != 1 or a.ndim != 1 or b.size == 0 or a.size < 2:
        raise _not_modelled("a denominator of one coefficient, or coefficients not a 1-d array")
    dtype = jnp.result_type(b, a, x, *(() if zi is None else (jnp.asarray(zi),)))
    if np.dtype(dtype).kind != "f":
        raise _not_modelled(f"{np.dtype(dtype)} data")
    n = max(a.size, b.size)
    b = jnp.pad(b.astype(dtype), (0, n - b.size))
    a = jnp.pad(a.astype(dtype), (0, n - a.size))
    b, a = b / a[0], a / a[0]    # SciPy's kernel divides each coefficient by a[0] once
    xs = jnp.moveaxis(x.astype(dtype), axis, 0)
    state_shape = (n - 1, *xs.shape[1:])
    if zi is None:
        z0 = jnp.zeros(state_shape, dtype)
    else:
        z0 = jnp.moveaxis(jnp.asarray(zi).astype(dtype), axis, 0)
        if z0.shape != state_shape:
            raise _not_modelled(f"zi of shape {jnp.shape(zi)}")
    column = (slice(None),) + (None,) * (xs.ndim - 1)
    bk, ak = b[1:][column], a[1:][column]

    def step(z: Any, xn: Any) -> tuple:
        yn = z[0] + b[0] * xn
        middle = (z[1:] + xn * bk[:-1]) - yn * ak[:-1]
        last = xn * bk[-1:] - yn * ak[-1:]
        return jnp.concatenate([middle, last]), yn

    zf, ys = jax.lax.scan(step, z0, xs)
    y = jnp.moveaxis(ys, 0, axis)
    return y if zi is None else (y, jnp.moveaxis(zf, 0, axis))
