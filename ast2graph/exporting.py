"""Export a one-graph converted function with ``jax.export`` (StableHLO).

    exp = ast2graph.export(f)(x, n)          # or f.export(x, n) on a converted f
    data = exp.serialize()                   # bytes (needs the `flatbuffers` package)
    ...                                      # another process, without ast2graph:
    exp = jax.export.deserialize(data); exp.call(x)

Requires: ``api.to_static``; ``runtime.export`` (the export itself).
Produces: ``export(fn, platforms=None)(*args, **kwargs)`` and
``ExportError``. The exported function takes the arguments of the call whose
leaves are all arrays (``jax.Array``, NumPy arrays; a dict or list of them
keeps its structure), in the order given; every other argument (a Python
number, ``None``, a string, a model object) is fixed to the value given, as a
``jax.jit`` static argument would be, and arrays read from outside (a model's
weights) are constants of the export, as in ``jax.jit`` of a closure. Results
are JAX arrays, as ``jax.jit``'s are (a Python number the function returns is
a 0-d array there).
Invariants: an export is the graph the converted function runs under an outer
``jax.jit`` for these arguments, and only a function that is exactly one graph
there: a fallback site, a host effect (a print, a callback), an argument
written in place or an attribute written back (none of which an exported
StableHLO function can do) is an ``ExportError`` listing them; nothing is
approximated.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .runtime.export import ExportError, export_static


def export(fn: Callable, *, platforms: Sequence[str] | None = None) -> Callable[..., Any]:
    """``export(f)(*args, **kwargs)``: a ``jax.export.Exported`` of the
    converted ``f`` for these arguments (``f`` is converted with ``to_static``
    if it is not already). ``platforms``: as ``jax.export.export``'s (default:
    the platform JAX runs on)."""
    from .api import StaticFunction, to_static

    static = fn if isinstance(fn, StaticFunction) else to_static(fn)
    return lambda *args, **kwargs: export_static(static, args, kwargs, platforms)


__all__ = ["ExportError", "export"]
