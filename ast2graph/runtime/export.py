"""Export a one-graph converted function with ``jax.export`` (StableHLO).

Requires: a ``StaticFunction`` (its calls recorded as for ``explain``),
``jax.export``.
Produces: ``export_static(static, args, kwargs, platforms)`` (what
``ast2graph.export`` and ``StaticFunction.export`` call) and ``ExportError``.
Invariants: see ``ast2graph/exporting.py``: only a function that is exactly
one self-contained graph for these arguments is exported; nothing is
approximated.
"""

from __future__ import annotations

from typing import Any, Sequence

import jax
import numpy as np

from ..diagnostics import Ast2GraphError
from .explanation import Explanation
from ..typeinfer.state import InPlaceArray
from .plans import CallRecord, GraphPlan


class ExportError(Ast2GraphError):
    """The function is not one graph for these arguments (the message lists
    the fallback sites), or its graph does what an exported function cannot
    (host effects, writes into arguments or attributes)."""


def _all_arrays(value: Any) -> bool:
    leaves = jax.tree_util.tree_leaves(value)
    return bool(leaves) and all(isinstance(x, (jax.Array, np.ndarray)) for x in leaves)


def export_static(static: Any, args: tuple, kwargs: dict, platforms: Sequence[str] | None) -> Any:
    """A ``jax.export.Exported`` of the converted ``static`` (a ``StaticFunction``)
    for these arguments, or ``ExportError``."""
    state = static._state
    if state.unit is None:
        reason = static.eager_reason.format() if static.eager_reason else "it was not converted"
        raise ExportError(f"cannot export {static.name}: it runs eagerly:\n{reason}")
    # the array arguments are the export's inputs; the others are fixed
    inputs = [("arg", k) for k, a in enumerate(args) if _all_arrays(a)]
    inputs += [("kw", k) for k, a in kwargs.items() if _all_arrays(a)]
    box: dict[str, Any] = {}

    def traced(*values: Any) -> Any:
        a, kw = list(args), dict(kwargs)
        for (where, k), v in zip(inputs, values):
            if where == "arg":
                a[k] = v
            else:
                kw[k] = v
        state.record, state.fast = CallRecord(), None   # as explain: every plan recorded
        try:
            return static(*a, **kw)
        finally:
            box["record"], state.record = state.record, None

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
    problems = [site.format() for site in Explanation(static, record, None, 0.0).fallback_sites]
    if problems:
        return problems
    plans = record.plans
    n = len(static._state.top.stmts)
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
        names = ", ".join(sorted({obj.capture.description if type(obj) is InPlaceArray else str(attr)
                                  for obj, attr in spec.attr_writes}))
        problems.append(f"the graph writes attributes or globals back ({names}): an exported function has no "
                        "objects to write to")
    return problems


def _refusal(static: Any, problems: list[str]) -> ExportError:
    listed = "\n".join("  " + line for p in problems for line in p.splitlines())
    return ExportError(f"cannot export {static.name}: it is not one self-contained graph for these arguments:\n{listed}")
