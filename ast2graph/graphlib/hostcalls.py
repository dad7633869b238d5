"""The run-time transport of host callbacks: what the generated graphs call
to run Python on the host and bring its exceptions back.

Requires: JAX, NumPy and ``tracebacks`` (nothing of the compiler: this is the
run-time layer below ``typeinfer`` and ``lowering``, which both call it).
Produces: ``HostCall`` (what the host effects of a running graph call know of
it), ``pure_host_call`` (``jax.pure_callback`` whose 64-bit values cross
as uint32 words), ``words_sent`` (the same for ``io_callback``/
``debug.callback`` operands), ``_guarded`` (a callback whose exceptions are
kept in ``HostErrors`` and re-raised by the caller of the graph from the
user's line, ``HostError.throw``), ``HostRaised`` (what JAX sees instead).
Invariants: the user's exception object is never handled by JAX (no frames,
context or attributes added to it); a 64-bit value reaches the host and comes
back bit for bit, whatever thread runs the callback.
"""

from __future__ import annotations

import functools
import traceback
from typing import Any, NoReturn

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..tracebacks import current_site, rethrow, throw


class HostRaised(Exception):
    """What a host callback raises instead of the user's exception, which
    ``HostErrors`` keeps for the caller: JAX never handles the user's object
    (no frames, context or attributes added to it, no log of a ``SystemExit``
    or ``KeyboardInterrupt``: JAX handles only this ``Exception``). Its text
    is the user's exception's, for the error JAX raises where no ast2graph
    call catches it (under an outer ``jax.jit``)."""

    _a2g_runtime = True   # reaches the user as the kept exception: JAX's log of it is noise


class HostError:
    """What a graph call raises from the host: an exception the user code a
    callback ran raised (``error``), or what a checked ``raise``/``assert``
    raises, made only now (``tracebacks.throw``'s ``site``, ``form`` and
    ``operand``), so that it is made and raised in the user's frame."""

    __slots__ = ("error", "site", "form", "operand")

    def __init__(self, error: BaseException | None, site: Any = None, form: str = "",
                 operand: Any = None):
        self.error, self.site, self.form, self.operand = error, site, form, operand

    def throw(self) -> NoReturn:
        """Raise it as eager does, the traceback ending at the user's line."""
        if self.error is not None:
            rethrow(self.error, self.site)
        throw(self.site, self.form, self.operand)


class HostErrors:
    """The first exception a host callback raised during a graph call: the
    caller re-raises it as is (same object, the user's traceback) instead of
    XLA's wrapper error."""

    pending: HostError | None = None

    @classmethod
    def record(cls, error: HostError) -> None:
        if cls.pending is None:
            cls.pending = error

    @classmethod
    def take(cls) -> HostError | None:
        error, cls.pending = cls.pending, None
        return error


class HostCall:
    """The graph call ``GraphPlan.run`` is waiting for, as its host effects
    see it. ``running``: a graph call of ast2graph's runs now (its
    callbacks, not those of a graph a caller's ``jax.jit`` runs later), so an
    error in ``HostErrors`` is this call's: eager raised there, and no host
    effect after it in program order happens. ``deferred``: printed text held
    back until the call ends (``None``: printed as it comes): a segment that
    may leave int64 (``IntRangeError``) and then runs in Python again must not
    have printed anything yet."""

    running: bool = False
    deferred: list | None = None

    @classmethod
    def raised(cls) -> bool:
        """This call's graph has raised already (an earlier check fired)."""
        return cls.running and HostErrors.pending is not None


def _host_raised(error: BaseException) -> HostRaised:
    return HostRaised("".join(traceback.format_exception_only(type(error), error)).strip())


def _guarded(callback):
    """``callback`` run by a JAX host callback: what it raises (any
    ``BaseException``) is kept in ``HostErrors``, JAX sees ``HostRaised``.
    Made while JAX traces an op of the user's statement (``tracebacks.at_site``):
    the exception is raised from that statement."""
    site = current_site()

    @functools.wraps(callback)
    def run(*args):
        try:
            return callback(*args)
        except HostRaised:
            raise
        except BaseException as e:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too: kept, re-raised by the caller
            HostErrors.record(HostError(e, site))
            raise _host_raised(e) from None

    return run


# ------------------------------------------------ 64-bit values across a host callback
# JAX hands a callback's arguments over (``device_put``) and checks its results
# under the x64 switch of the thread that runs it. ast2graph runs a graph with
# 64-bit values inside ``jax.enable_x64(True)``, which holds for the calling
# thread only: where XLA runs the callback on another one (its worker threads
# on a CPU, the host thread of a GPU), float64 arguments arrived as float32
# and a float64 result was refused ("Incorrect output dtype"). 64-bit values
# cross as pairs of uint32 words instead, exact whatever the thread.
def _wide(dtype: Any) -> bool:
    dtype = np.dtype(dtype)
    return dtype.itemsize == 8 and dtype.kind in "iuf"


def _to_words(x: Any) -> Any:
    """In the graph: a 64-bit value as uint32 words (a last axis of 2)."""
    x = jnp.asarray(x)
    return lax.bitcast_convert_type(x, jnp.uint32) if _wide(x.dtype) else x


def _from_words(a: Any, dtype: Any) -> np.ndarray:
    """On the host: the NumPy array that ``_to_words`` sent, a private copy.
    A callback's arguments can be views of XLA's own buffers, marked
    read-only; native code that ignores the flag (f2py's LAPACK wrappers with
    ``overwrite_a=True``, which ``scipy.linalg`` passes for arrays it owns)
    would write into XLA's memory and corrupt its heap. The user's code gets
    a writable array of its own, as eager's library calls get the caller's."""
    a = np.array(a)
    return a.view(np.dtype(dtype)).reshape(a.shape[:-1]) if _wide(dtype) else a


def words_sent(operands: tuple) -> tuple[list, Any]:
    """The operands of a host callback as sent (64-bit ones as uint32 words)
    and ``decode``: ``decode(fn)`` is ``fn`` taking them back as NumPy
    arrays of their dtypes (for ``io_callback``/``debug.callback``)."""
    operands = [jnp.asarray(x) for x in operands]
    dtypes = [x.dtype for x in operands]

    def decode(fn: Any) -> Any:
        @functools.wraps(fn)
        def run(*sent: Any) -> Any:
            return fn(*[_from_words(a, d) for a, d in zip(sent, dtypes)])
        return run

    return [_to_words(x) for x in operands], decode


def pure_host_call(fn: Any, result_types: Any, *operands: Any, vmap_method: str | None = None) -> Any:
    """``jax.pure_callback(fn, result_types, *operands)`` whose 64-bit
    arguments and results cross as uint32 words (see above): ``fn`` gets
    NumPy arrays of the operands' dtypes and returns arrays (or numbers) of
    ``result_types`` (a tree of ``ShapeDtypeStruct``)."""
    types, tree = jax.tree_util.tree_flatten(result_types)
    operands = [jnp.asarray(x) for x in operands]
    dtypes = [x.dtype for x in operands]

    def host(*sent: Any) -> tuple:
        outs = jax.tree_util.tree_leaves(fn(*[_from_words(a, d) for a, d in zip(sent, dtypes)]))
        back = []
        for o, t in zip(outs, types):
            o = np.asarray(o, dtype=t.dtype).reshape(t.shape)
            back.append(np.ascontiguousarray(o).view(np.uint32).reshape(t.shape + (2,)) if _wide(t.dtype) else o)
        return tuple(back)

    sent = tuple(jax.ShapeDtypeStruct(t.shape + (2,), np.uint32) if _wide(t.dtype) else t for t in types)
    outs = jax.pure_callback(host, sent, *[_to_words(x) for x in operands], vmap_method=vmap_method)
    return jax.tree_util.tree_unflatten(tree, [lax.bitcast_convert_type(o, t.dtype) if _wide(t.dtype) else o
                                               for o, t in zip(outs, types)])
