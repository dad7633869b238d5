"""What every example prints: eager vs ``to_static`` on the same inputs (equal?
max abs difference, warm time per call of each, first-call time), what
``explain`` says (graphs, decisions, fallback sites), and the ahead-of-time
``ast2graph report`` of the model's functions.

Used as ``from common import compare, print_report`` by the scripts in this
folder (each is run as ``python examples/NAME.py``).
"""

from __future__ import annotations

import copy
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import jax
import numpy as np

from ast2graph import explain
from ast2graph.report import format_text, report_path
from timing import median_time


def _kind(x: Any) -> str:
    return "jax.Array" if isinstance(x, jax.Array) else "ndarray" if isinstance(x, np.ndarray) else type(x).__name__


def compare_trees(eager: Any, converted: Any, rtol: float = 1e-5, atol: float = 1e-5) -> tuple[bool, float, str]:
    """(equal, max abs difference, why not): same structure, same kind of
    every leaf (a jax.Array, an ndarray, a Python number), values within tolerance."""
    le, te = jax.tree_util.tree_flatten(eager)
    lc, tc = jax.tree_util.tree_flatten(converted)
    if te != tc:
        return False, float("nan"), f"structure differs: {te} vs {tc}"
    worst, why = 0.0, ""
    for a, b in zip(le, lc):
        if _kind(a) != _kind(b):
            why = why or f"kind differs: {_kind(a)} vs {_kind(b)}"
        if isinstance(a, (jax.Array, np.ndarray, np.generic, int, float)) and not isinstance(a, bool):
            a, b = np.asarray(a), np.asarray(b)
            if a.shape != b.shape:
                return False, float("nan"), f"shape differs: {a.shape} vs {b.shape}"
            if a.size:
                worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)))))
            if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
                why = why or "values differ"
        elif a != b:
            why = why or f"{a!r} vs {b!r}"
    return not why, worst, why


@dataclass
class Comparison:
    label: str
    equal: bool
    max_abs_diff: float
    eager_s: float
    static_s: float
    first_call_s: float
    explanation: Any
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.equal and self.explanation.graph_count == 1 and not self.explanation.fallback_sites

    def print(self, repeat: int, show_explain: bool = True) -> None:
        e = self.explanation
        diff = f"max abs diff {self.max_abs_diff:.2e}" + (f"; {self.why}" if self.why else "")
        print(f"{self.label}")
        print(f"  eager == to_static: {self.equal} ({diff})")
        print(f"  eager call:      {self.eager_s * 1e3:9.3f} ms (median of {repeat})")
        print(f"  to_static call:  {self.static_s * 1e3:9.3f} ms (median of {repeat}; "
              f"{self.eager_s / self.static_s:.1f}x {'faster' if self.static_s < self.eager_s else 'slower'})")
        print(f"  first call (conversion + XLA compile): {self.first_call_s * 1e3:.0f} ms")
        if show_explain:
            print("  " + str(e).replace("\n", "\n  "))
        else:
            print(f"  graphs run: {e.graph_count}; fallback sites: {len(e.fallback_sites)}")


def compare(label: str, eager_fn: Callable, static_fn: Callable, *args: Any, repeat: int = 20,
            rtol: float = 1e-5, atol: float = 1e-5, show_explain: bool = True, **kwargs: Any) -> Comparison:
    """Run ``eager_fn`` and ``static_fn`` on copies of the same arguments; compare
    the results and the arguments afterwards (in-place writes), time both, print."""
    eager_args, static_args = copy.deepcopy((args, kwargs)), copy.deepcopy((args, kwargs))
    want = eager_fn(*eager_args[0], **eager_args[1])
    t0 = time.perf_counter()
    e = explain(static_fn)(*static_args[0], **static_args[1])
    jax.block_until_ready(e.result)
    first = time.perf_counter() - t0
    equal, worst, why = compare_trees(want, e.result, rtol, atol)
    args_equal, args_worst, args_why = compare_trees(eager_args, static_args, rtol, atol)
    if not args_equal:
        why = why or f"arguments after the call differ: {args_why}"
    equal, worst = equal and args_equal, max(worst, args_worst)
    call_eager = lambda: eager_fn(*args, **kwargs)    # noqa: E731
    call_static = lambda: static_fn(*args, **kwargs)  # noqa: E731
    t_eager, t_static = median_time(call_eager, repeat=repeat), median_time(call_static, repeat=repeat)
    result = Comparison(label, equal, worst, t_eager, t_static, first, e, why)
    result.print(repeat, show_explain)
    return result


def print_report(path: str, qualnames: Sequence[str]) -> None:
    """``ast2graph report PATH::QUALNAME... --possible`` for the names:
    the sites that may fall back, found from the source alone (nothing is imported)."""
    shown = os.path.relpath(path)
    print(f"ast2graph report {' '.join(f'{shown}::{q}' for q in qualnames)} --possible")
    reports = [r for q in qualnames for r in report_path(shown, q)]
    print("  " + format_text(reports, include_depends=True).rstrip().replace("\n", "\n  "))
