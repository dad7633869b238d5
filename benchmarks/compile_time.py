"""XLA compile time and run time of ast2graph's unroll/roll decisions against
hand-written JAX (section 4 of ``benchmarks/run.py``; issue 3).

Run alone: ``.venv/bin/python benchmarks/compile_time.py [--quick]``; the one
benchmark command ``benchmarks/run.py`` runs it too.

For each loop it converts the eager function with ``to_static(full_graph=True)``
and takes the jitted graph ast2graph made (``explain(...).graphs[0].jitted``).
*Compile* is ``jitted.lower(*args).compile()`` after ``jax.clear_caches()``
(median of repetitions; ast2graph's conversion and JAX tracing excluded, on
both sides); *run* is the warm median per call. The hand-written side is
``lax.fori_loop``/``lax.scan``, and for the loops ast2graph unrolls also the
Python loop under plain ``jax.jit`` (which unrolls it the same way).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
from jax import lax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import fmt_ratio, fmt_time, results_equal, time_reps  # noqa: E402
from programs import sin_accumulate, sin_accumulate_lax  # noqa: E402

from ast2graph import explain, to_static  # noqa: E402


def sin_rows(xs):
    """``for row in array``: rolled to a ``lax.scan`` above the unroll limit."""
    acc = jnp.zeros(xs.shape[1:])
    for row in xs:
        acc = acc * 0.5 + jnp.sin(row)
    return acc


@jax.jit
def sin_rows_lax(xs):
    def step(acc, row):
        return acc * 0.5 + jnp.sin(row), None

    return lax.scan(step, jnp.zeros(xs.shape[1:]), xs)[0]


def compile_seconds(jitted: Callable, *args: Any, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        jax.clear_caches()
        lowered = jitted.lower(*args)
        t0 = time.perf_counter()
        lowered.compile()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


@dataclass
class CompileRow:
    loop: str
    decision: str
    hand_label: str
    a2g_compile: float
    hand_compile: float
    a2g_run: float
    hand_run: float
    graphs: int
    equal: bool
    plain_compile: float | None = None   # plain jax.jit of the eager loop (Python-unrolled)
    plain_run: float | None = None

    @property
    def ok(self) -> bool:
        return self.equal and self.graphs == 1


def _case(loop: str, eager: Callable, args: tuple, graph_args: tuple, hand: Callable, hand_label: str,
          repeat: int, reps: int, plain: Callable | None = None) -> CompileRow:
    e = explain(to_static(eager, full_graph=True))(*args)
    ours = e.graphs[0].jitted
    loops = [d for d in e.decisions if d.construct in ("for", "while")]
    decision = "; ".join(f"{d.construct} -> {d.mode}" for d in loops) or "none"
    eq = results_equal(eager(*args), e.result, 1e-4, 1e-3)[0] and results_equal(e.result, hand(*graph_args), 1e-4, 1e-3)[0]
    row = CompileRow(loop, decision, hand_label, compile_seconds(ours, *graph_args, repeat=repeat),
                     compile_seconds(hand, *graph_args, repeat=repeat), 0.0, 0.0, e.graph_count, eq)
    thunks = [lambda: ours(*graph_args), lambda: hand(*graph_args)]
    if plain is not None:
        row.plain_compile = compile_seconds(plain, *graph_args, repeat=repeat)
        thunks.append(lambda: plain(*graph_args))
    times = time_reps(thunks, reps, 0.01)
    row.a2g_run, row.hand_run = times[0], times[1]
    if plain is not None:
        row.plain_run = times[2]
    return row


def measure(quick: bool) -> list[CompileRow]:
    repeat, reps = (3, 5) if quick else (5, 15)
    x = jnp.linspace(0.0, 1.0, 256)
    rows = []
    for n in (16, 17, 10_000):
        hand = jax.jit(functools.partial(sin_accumulate_lax, n=n))
        plain = jax.jit(functools.partial(sin_accumulate, n=n)) if n <= 17 else None
        rows.append(_case(f"for i in range({n}), x of 256", sin_accumulate, (x, n), (x,), hand,
                          "lax.fori_loop", repeat, reps, plain))
    xs = jax.random.normal(jax.random.PRNGKey(0), (1000, 256))
    rows.append(_case("for row in xs (1000 x 256)", sin_rows, (xs,), (xs,), sin_rows_lax, "lax.scan", repeat, reps))
    return rows


def table(rows: list[CompileRow]) -> list[str]:
    out = ["| loop | ast2graph decision | XLA compile: ast2graph | hand-written | compile ratio "
           "| run: ast2graph | hand-written | run ratio | plain jax.jit (unrolled): compile / run | result |",
           "|" + "---|" * 10]
    for r in rows:
        plain = f"{fmt_time(r.plain_compile)} / {fmt_time(r.plain_run)}" if r.plain_compile is not None else "-"
        out.append(f"| {r.loop} | {r.decision} | {fmt_time(r.a2g_compile)} | {fmt_time(r.hand_compile)} ({r.hand_label}) "
                   f"| {fmt_ratio(r.a2g_compile / r.hand_compile)} | {fmt_time(r.a2g_run)} | {fmt_time(r.hand_run)} "
                   f"| {fmt_ratio(r.a2g_run / r.hand_run)} | {plain} "
                   f"| {'EQUAL' if r.equal else 'DIFF'}, {r.graphs} graph(s) |")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    rows = measure(ap.parse_args(argv).quick)
    print(f"XLA compile time of the unroll/roll decisions; jax {jax.__version__}, {jax.devices()[0].platform}")
    print("\n".join(table(rows)))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
