"""ast2graph benchmarks: eager vs ast2graph vs hand-written jax.jit + lax.

Run (from the repository root):

    .venv/bin/python benchmarks/run.py            # full run, a few minutes at most
    .venv/bin/python benchmarks/run.py --quick    # smaller sizes, fewer repetitions

For every program of ``benchmarks/programs.py`` it measures, in one process:

* eager, ast2graph (``to_static(f, full_graph=True)``) and hand-written
  (``jax.jit`` + ``lax``) warm call times: median of N repetitions, each call
  followed by ``jax.block_until_ready``; fast calls are repeated inside a
  repetition so that one repetition lasts a few milliseconds;
* the conversion time ``explain(...).conversion_seconds`` on a fresh
  ``to_static`` object (ast2graph's own work; excludes XLA compilation);
* the first-call time, from ``to_static(...)`` to the first result
  (conversion + tracing + XLA compilation + one run), and the hand-written
  function's first call (tracing + XLA compilation + one run);
* whether the three results are equal (``np.allclose``) and ast2graph made
  exactly one graph.

It exits non-zero when a result differs, ast2graph made other than one graph,
or a program could not be converted with ``full_graph=True``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import programs  # noqa: E402
from ast2graph import explain, to_static  # noqa: E402


# ------------------------------------------------------------------ helpers
def fmt_time(s: float | None) -> str:
    if s is None or s != s:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.1f} µs"
    if s < 1.0:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def fmt_ratio(r: float | None) -> str:
    if r is None or r != r:
        return "n/a"
    if r >= 100:
        return f"{r:.0f}x"
    if r >= 10:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


def _block(x: Any) -> Any:
    return jax.block_until_ready(x)


def time_reps(fns: list[Callable[[], Any]], reps: int, min_rep_s: float) -> list[float]:
    """Median per-call time of each thunk; repetitions interleaved round-robin.

    Each thunk is called once to warm it and to size the inner loop so that one
    repetition takes at least ``min_rep_s`` (every call is blocked on).
    """
    inner = []
    for fn in fns:
        t0 = time.perf_counter()
        _block(fn())
        dt = time.perf_counter() - t0
        inner.append(max(1, min(10_000, int(min_rep_s / max(dt, 1e-7)))))
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for k, fn in enumerate(fns):
            n = inner[k]
            t0 = time.perf_counter()
            for _ in range(n):
                _block(fn())
            samples[k].append((time.perf_counter() - t0) / n)
    return [statistics.median(s) for s in samples]


def results_equal(a: Any, b: Any, rtol: float, atol: float) -> tuple[bool, str]:
    la, ta = jax.tree_util.tree_flatten(a)
    lb, tb = jax.tree_util.tree_flatten(b)
    if len(la) != len(lb):
        return False, f"structure {ta} vs {tb}"
    worst = 0.0
    for x, y in zip(la, lb):
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape and x.size != y.size:
            return False, f"shape {x.shape} vs {y.shape}"
        x, y = x.reshape(-1), y.reshape(-1)
        if not np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True):
            diff = np.abs(x.astype(np.float64) - y.astype(np.float64))
            return False, f"max abs diff {np.nanmax(diff):.3g}"
        if x.size and np.issubdtype(x.dtype, np.floating):
            finite = np.isfinite(x) & np.isfinite(y)
            if finite.any():
                worst = max(worst, float(np.max(np.abs(x[finite].astype(np.float64) - y[finite].astype(np.float64)))))
    return True, f"max abs diff {worst:.2g}"


@dataclass
class Row:
    name: str
    detail: str
    hand_label: str = ""
    eager: float | None = None
    static: float | None = None
    hand: float | None = None
    conversion: float | None = None
    first_static: float | None = None
    first_hand: float | None = None
    graphs: int | None = None
    status: str = "?"
    notes: list[str] = field(default_factory=list)
    ok: bool = False
    overhead_row: bool = False

    @property
    def ratio_hand(self) -> float | None:
        return self.static / self.hand if self.static and self.hand else None

    @property
    def ratio_eager(self) -> float | None:
        return self.eager / self.static if self.static and self.eager else None


# ----------------------------------------------------------------- programs
def bench_program(p: programs.Program, reps_eager: int, reps_fast: int, min_rep_s: float) -> Row:
    row = Row(p.name, p.detail, p.hand_label)

    # first call on a fresh to_static object: conversion + trace + compile + run
    fallback = None
    t0 = time.perf_counter()
    try:
        static = to_static(p.eager, full_graph=True)
        e = explain(static)(*p.args)
        _block(e.result)
    except Exception as exc:  # noqa: BLE001  -- report, then time the fallback version
        fallback = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        row.notes.append("full_graph=True failed: " + fallback)
        traceback.print_exc()
        t0 = time.perf_counter()
        static = to_static(p.eager)
        e = explain(static)(*p.args)
        _block(e.result)
    row.first_static = time.perf_counter() - t0
    row.conversion = e.conversion_seconds
    row.graphs = e.graph_count
    static_result = e.result

    t0 = time.perf_counter()
    hand_result = _block(p.hand(*p.hand_call_args))
    row.first_hand = time.perf_counter() - t0

    eager_result = _block(p.eager(*p.args))

    eq_s, why_s = results_equal(eager_result, static_result, p.rtol, p.atol)
    eq_h, why_h = results_equal(eager_result, hand_result, p.rtol, p.atol)
    if not eq_s:
        row.notes.append(f"ast2graph != eager ({why_s})")
    if not eq_h:
        row.notes.append(f"hand-written != eager ({why_h})")
    row.notes.append(f"eager vs ast2graph: {why_s}; eager vs hand-written: {why_h}")

    row.eager = time_reps([lambda: p.eager(*p.args)], reps_eager, 0.0)[0]
    row.static, row.hand = time_reps([lambda: static(*p.args), lambda: p.hand(*p.hand_call_args)],
                                     reps_fast, min_rep_s)
    if static.recompiles:
        row.notes.append(f"ast2graph recompiled {static.recompiles} time(s) during the warm calls")

    # a warm call still runs exactly as many graphs
    warm = explain(static)(*p.args)
    if warm.graph_count != row.graphs or warm.record.compiled:
        row.notes.append(f"warm call ran {warm.graph_count} graph(s), compiled {len(warm.record.compiled)} segment(s)")

    problems = []
    if fallback:
        problems.append("FALLBACK")
    if row.graphs != 1:
        problems.append(f"{row.graphs} GRAPHS")
    if not eq_s:
        problems.append("DIFF")
    row.ok = not problems and eq_h
    if row.ok:
        row.status = "EQUAL"
    elif problems:   # ast2graph's result or graph count is wrong
        row.status = "ast2graph " + " + ".join(problems)
    else:            # only the hand-written equivalent disagrees with eager
        row.status = "DIFF (hand-written differs)"
    return row


def bench_overhead(reps: int, calls: int) -> Row:
    """Per-call time of ``x + 1`` on a 3-element array: to_static vs jax.jit."""
    row = Row("warm-call overhead (x + 1, 3 floats)", f"{calls:,} calls per repetition", "jax.jit")
    row.overhead_row = True
    x = jnp.arange(3.0)
    t0 = time.perf_counter()
    static = to_static(programs.plus_one, full_graph=True)
    e = explain(static)(x)
    _block(e.result)
    row.first_static = time.perf_counter() - t0
    row.conversion, row.graphs = e.conversion_seconds, e.graph_count
    jitted = jax.jit(programs.plus_one)
    t0 = time.perf_counter()
    hand_result = _block(jitted(x))
    row.first_hand = time.perf_counter() - t0
    eager_result = _block(programs.plus_one(x))
    eq = results_equal(eager_result, e.result, 0, 0)[0] and results_equal(eager_result, hand_result, 0, 0)[0]

    def loop(fn: Callable) -> Callable[[], Any]:
        def run() -> Any:
            y = None
            for _ in range(calls):
                y = fn(x)
            return y
        return run

    t = time_reps([loop(programs.plus_one), loop(static), loop(jitted)], reps, 0.0)
    row.eager, row.static, row.hand = (v / calls for v in t)
    row.ok = eq and row.graphs == 1
    row.status = "EQUAL" if row.ok else ("DIFF" if not eq else f"{row.graphs} GRAPHS") + " (ast2graph)"
    return row


# ------------------------------------------------------------------ output
def machine_lines() -> list[str]:
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    dev = jax.devices()[0]
    import jaxlib
    return [
        f"platform: {platform.platform()} ({platform.machine()}), {platform.processor() or 'cpu'}",
        f"CPUs: {os.cpu_count()} (usable by this process: {usable})",
        f"python {platform.python_version()}, jax {jax.__version__}, jaxlib {jaxlib.__version__}",
        f"device: {dev.platform} / {getattr(dev, 'device_kind', dev)} ({jax.device_count()} device(s))",
    ]


def markdown(rows: list[Row], args: argparse.Namespace, reps_eager: int, reps_fast: int) -> str:
    head = ("| program | eager | ast2graph | hand-written | ast2graph / hand | eager / ast2graph "
            "| conversion | first call: ast2graph | first call: hand | graphs | result |")
    out = [head, "|" + "---|" * 11]
    for r in rows:
        label = r.name + (" [hand-written = plain jax.jit]" if r.hand_label == "jax.jit" and not r.overhead_row else "")
        cells = [label, fmt_time(r.eager), fmt_time(r.static), fmt_time(r.hand),
                 fmt_ratio(r.ratio_hand), fmt_ratio(r.ratio_eager), fmt_time(r.conversion),
                 fmt_time(r.first_static), fmt_time(r.first_hand), str(r.graphs), r.status]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and few repetitions (smoke test, under 40 s)")
    args = ap.parse_args(argv)

    quick = args.quick
    reps_eager = 3 if quick else 5
    reps_fast = 5 if quick else 31
    min_rep_s = 0.002 if quick else 0.03
    overhead_reps, overhead_calls = (3, 2_000) if quick else (5, 10_000)

    t_start = time.perf_counter()
    print("ast2graph benchmarks" + (" (--quick)" if quick else ""))
    for line in machine_lines():
        print("  " + line)
    print(f"  repetitions: eager {reps_eager}, ast2graph / hand-written {reps_fast} "
          f"(interleaved; each repetition >= {min_rep_s * 1e3:.0f} ms of calls); medians")
    print()

    # warm JAX itself (backend start-up, first jit) so the first row is not charged for it
    _block(jax.jit(lambda v: v * 2 + 1)(jnp.ones(3)))

    rows: list[Row] = []
    for factory in programs.FACTORIES:
        p = factory(quick)
        t0 = time.perf_counter()
        try:
            row = bench_program(p, reps_eager, reps_fast, min_rep_s)
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            row = Row(p.name, p.detail, p.hand_label, status=f"ERROR: {type(exc).__name__}")
        rows.append(row)
        print(f"{row.name}  [{row.detail}]  ({time.perf_counter() - t0:.1f} s)")
        print(f"  eager {fmt_time(row.eager)} | ast2graph {fmt_time(row.static)} | {row.hand_label} {fmt_time(row.hand)}"
              f" | ast2graph/hand {fmt_ratio(row.ratio_hand)} | eager/ast2graph {fmt_ratio(row.ratio_eager)}")
        print(f"  conversion {fmt_time(row.conversion)} | first call: ast2graph {fmt_time(row.first_static)}, "
              f"{row.hand_label} {fmt_time(row.first_hand)} | graphs {row.graphs} | {row.status}")
        for note in row.notes:
            print("  " + note)
        sys.stdout.flush()

    row = bench_overhead(overhead_reps, overhead_calls)
    rows.append(row)
    print(f"{row.name}  [{row.detail}]")
    print(f"  per call: eager {fmt_time(row.eager)} | ast2graph {fmt_time(row.static)} | jax.jit {fmt_time(row.hand)}"
          f" | ast2graph/jax.jit {fmt_ratio(row.ratio_hand)} | {row.status}")
    print()

    elapsed = time.perf_counter() - t_start
    print("Markdown table (times are per call; warm = median of repetitions, "
          "'hand-written' = jax.jit + lax.while_loop/fori_loop/cond, or plain jax.jit where marked):")
    print()
    print("Machine: " + "; ".join(machine_lines()) + ".  " +
          f"Command: `.venv/bin/python benchmarks/run.py{' --quick' if quick else ''}` ({elapsed:.0f} s).")
    print()
    print(markdown(rows, args, reps_eager, reps_fast))
    print()
    bad = [r for r in rows if not r.ok]
    if bad:
        print("FAILED: " + ", ".join(f"{r.name}: {r.status}" for r in bad))
        return 1
    print(f"all {len(rows)} rows EQUAL, one graph each ({elapsed:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
