"""Export a one-graph converted function with ``jax.export`` (StableHLO).

    exp = ast2graph.export(f)(x, n)          # or f.export(x, n) on a converted f
    data = exp.serialize()                   # bytes (needs the `flatbuffers` package)
    ...                                      # another process, without ast2graph:
    exp = jax.export.deserialize(data); exp.call(x)

Requires: ``api.StaticFunction`` (a call recorded as for ``explain``),
``jax.export``.
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

import jax
import numpy as np

from .diagnostics import Ast2GraphError


class ExportError(Ast2GraphError):
    """The function is not one graph for these arguments (the message lists
    the fallback sites), or its graph does what an exported function cannot
    (host effects, writes into arguments or attributes)."""


def export(fn: Callable, *, platforms: Sequence[str] | None = None) -> Callable[..., Any]:
    """``export(f)(*args, **kwargs)``: a ``jax.export.Exported`` of the
    converted ``f`` for these arguments (``f`` is converted with ``to_static``
    if it is not already). ``platforms``: as ``jax.export.export``'s (default:
    the platform JAX runs on)."""
    from .api import StaticFunction, to_static

    static = fn if isinstance(fn, StaticFunction) else to_static(fn)
    return lambda *args, **kwargs: _export(static, args, kwargs, platforms)


def _all_arrays(value: Any) -> bool:
    leaves = jax.tree_util.tree_leaves(value)
    return bool(leaves) and all(isinstance(x, (jax.Array, np.ndarray)) for x in leaves)


def _export(static: Any, args: tuple, kwargs: dict, platforms: Sequence[str] | None) -> Any:
    if static._unit is None:
        reason = static.eager_reason.format() if static.eager_reason else "it was not converted"
        raise ExportError(f"cannot export {static.name}: it runs eagerly:\n{reason}")
    # the array arguments are the export's inputs; the others are fixed
    inputs = [("arg", k) for k, a in enumerate(args) if _all_arrays(a)]
    inputs += [("kw", k) for k, a in kwargs.items() if _all_arrays(a)]
    box: dict[str, Any] = {}

    def traced(*values: Any) -> Any:
        from .api import CallRecord

        a, kw = list(args), dict(kwargs)
        for (where, k), v in zip(inputs, values):
            if where == "arg":
                a[k] = v
            else:
                kw[k] = v
        static._record, static._fast = CallRecord(), None   # as explain: every plan recorded
        try:
            return static(*a, **kw)
        finally:
            box["record"], static._record = static._record, None

    values = [args[k] if where == "arg" else kwargs[k] for where, k in inputs]
    try:
        exported = jax.export.export(jax.jit(traced), platforms=platforms)(*values)
    except Exception as e:  # noqa: BLE001 - a fallback site that cannot run on traced values: say which
        problems = _problems(static, box["record"]) if "record" in box else []
        if problems:
            raise _refusal(static, problems) from e
        raise
    problems = _problems(static, box["record"])
    if problems:
        raise _refusal(static, problems)
    return exported


def _problems(static: Any, record: Any) -> list[str]:
    """Why the recorded call is not an exportable graph (empty: it is)."""
    from .api import Explanation, GraphPlan

    problems = [site.format() for site in Explanation(static, record, None, 0.0).fallback_sites]
    if problems:
        return problems
    plans = record.plans
    n = len(static._top.stmts)
    if len(plans) != 1 or not isinstance(plans[0], GraphPlan) or not (plans[0].spec.returns or plans[0].end == n):
        return [f"the call ran {len(plans)} plans, not one graph for the whole function"]
    plan = plans[0]
    spec = plan.spec
    if plan.has_effects:
        problems.append("the graph has host effects (a print, a host callback or a run-time check): an exported "
                        "function cannot call back into Python")
    if spec.input_writes or spec.written_arguments or spec.views or spec.local_writes:
        problems.append("the graph writes into an argument (an in-place NumPy write, a list or dict argument "
                        "changed): an exported function returns new values only")
    if spec.attr_writes:
        names = ", ".join(sorted({str(attr) for _, attr in spec.attr_writes}))
        problems.append(f"the graph writes attributes or globals back ({names}): an exported function has no "
                        "objects to write to")
    return problems


def _refusal(static: Any, problems: list[str]) -> ExportError:
    listed = "\n".join("  " + line for p in problems for line in p.splitlines())
    return ExportError(f"cannot export {static.name}: it is not one self-contained graph for these arguments:\n{listed}")


__all__ = ["ExportError", "export"]
