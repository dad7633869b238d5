"""ast2graph benchmarks: every figure, side by side, from one command.

Run (from the repository root; ``pip install -e '.[bench]'`` first for
AutoGraph and matplotlib):

    .venv/bin/python benchmarks/run.py            # full run (about 10 minutes on 2 cores); writes docs/
    .venv/bin/python benchmarks/run.py --quick    # smaller sizes, fewer repetitions (about 2 minutes)

Sections, all measured in this one process (medians of repetitions):

1. **Programs** (``benchmarks/programs.py``): eager, ast2graph
   (``to_static(f, full_graph=True)``), hand-written ``jax.jit`` + ``lax``, and
   plain ``jax.jit`` of the eager function where it runs (Python numbers and
   objects closed over as static, arrays traced). Warm call times, each call
   blocked on; ast2graph / hand-written and eager / ast2graph ratios and their
   medians over the programs; conversion time and first-call times; equality
   with eager and the graph count.
2. **Conversion time against AutoGraph** (``diastatic-malt``), on the same
   programs and on small generated functions (``benchmarks/conversion.py``
   says what each side's time includes).
3. **Warm-call overhead** of ``x + 1`` against ``jax.jit``.
4. **XLA compile time of the unroll/roll decisions** (``benchmarks/compile_time.py``).
5. **Conversion time against function length**: generated functions of 100 to
   5,000 lines, a linear fit, the time per 1,000 lines.
6. **Peak memory of conversion** (tracemalloc).

The full run writes ``docs/benchmarks.md`` and ``docs/benchmarks.png``
(``--docs DIR`` elsewhere, ``--no-docs`` not at all; ``--quick`` writes
nothing unless ``--docs`` is given). It exits non-zero when a result differs
from eager, when ast2graph made other than one graph, or when a program could
not be converted with ``full_graph=True``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compile_time  # noqa: E402
import conversion  # noqa: E402
import programs  # noqa: E402
from bench_common import (block, fmt_bytes, fmt_ratio, fmt_time, machine_lines, results_equal,  # noqa: E402,F401
                    time_reps)
from ast2graph import explain, to_static  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
_block = block   # the old name, for scripts that imported it from here

PLAIN_JIT_MAX_OPS = 2000   # plain jax.jit that unrolls a loop into more ops is not compiled


@dataclass
class Row:
    name: str
    detail: str
    hand_label: str = ""
    eager: float | None = None
    static: float | None = None
    hand: float | None = None
    plain: float | None = None
    plain_note: str = ""
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


# ----------------------------------------------------------- section 1: programs
def plain_jit(p: programs.Program) -> tuple[Callable[[], Any] | None, str]:
    """Plain ``jax.jit`` of the eager function: arrays traced, everything else
    (Python numbers, model objects) closed over as static. A thunk, or why not."""
    if p.hand_label == "jax.jit":
        return None, "= hand-written"
    is_array = [isinstance(a, jax.Array) for a in p.args]
    arrays = [a for a, keep in zip(p.args, is_array) if keep]

    def call(*traced: Any) -> Any:
        it = iter(traced)
        return p.eager(*[next(it) if keep else a for a, keep in zip(p.args, is_array)])

    jitted = jax.jit(call)
    try:
        ops = len(jitted.trace(*arrays).jaxpr.eqns)
        if ops > PLAIN_JIT_MAX_OPS:
            return None, f"unrolls to {ops:,} ops (not compiled)"
        result = block(jitted(*arrays))
    except Exception as e:  # noqa: BLE001
        return None, f"fails: {type(e).__name__}"
    if not results_equal(p.eager(*p.args), result, p.rtol, p.atol)[0]:
        return None, "differs from eager"
    return (lambda: jitted(*arrays)), "runs"


def bench_program(p: programs.Program, reps_eager: int, reps_fast: int, min_rep_s: float) -> Row:
    row = Row(p.name, p.detail, p.hand_label)

    # first call on a fresh to_static object: conversion + trace + compile + run
    fallback = None
    t0 = time.perf_counter()
    try:
        static = to_static(p.eager, full_graph=True)
        e = explain(static)(*p.args)
        block(e.result)
    except Exception as exc:  # noqa: BLE001  -- report, then time the fallback version
        fallback = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        row.notes.append("full_graph=True failed: " + fallback)
        traceback.print_exc()
        t0 = time.perf_counter()
        static = to_static(p.eager)
        e = explain(static)(*p.args)
        block(e.result)
    row.first_static = time.perf_counter() - t0
    row.conversion = e.conversion_seconds
    row.graphs = e.graph_count
    static_result = e.result

    jax.clear_caches()   # the factory may have called the hand-written function already
    t0 = time.perf_counter()
    hand_result = block(p.hand(*p.hand_call_args))
    row.first_hand = time.perf_counter() - t0

    eager_result = block(p.eager(*p.args))

    eq_s, why_s = results_equal(eager_result, static_result, p.rtol, p.atol)
    eq_h, why_h = results_equal(eager_result, hand_result, p.rtol, p.atol)
    if not eq_s:
        row.notes.append(f"ast2graph != eager ({why_s})")
    if not eq_h:
        row.notes.append(f"hand-written != eager ({why_h})")
    row.notes.append(f"eager vs ast2graph: {why_s}; eager vs hand-written: {why_h}")

    plain, row.plain_note = plain_jit(p)
    row.eager = time_reps([lambda: p.eager(*p.args)], reps_eager, 0.0)[0]
    thunks = [lambda: static(*p.args), lambda: p.hand(*p.hand_call_args)] + ([plain] if plain else [])
    times = time_reps(thunks, reps_fast, min_rep_s)
    row.static, row.hand = times[0], times[1]
    if plain:
        row.plain = times[2]
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


# ------------------------------------------------ section 3: warm-call overhead
def bench_overhead(reps: int, calls: int) -> Row:
    """Per-call time of ``x + 1`` on a 3-element array: to_static vs jax.jit."""
    row = Row("warm-call overhead (x + 1, 3 floats)", f"{calls:,} calls per repetition", "jax.jit")
    row.overhead_row = True
    x = jnp.arange(3.0)
    t0 = time.perf_counter()
    static = to_static(programs.plus_one, full_graph=True)
    e = explain(static)(x)
    block(e.result)
    row.first_static = time.perf_counter() - t0
    row.conversion, row.graphs = e.conversion_seconds, e.graph_count
    jitted = jax.jit(programs.plus_one)
    t0 = time.perf_counter()
    hand_result = block(jitted(x))
    row.first_hand = time.perf_counter() - t0
    eager_result = block(programs.plus_one(x))
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


# ------------------------------------------------------------------ tables
def _median(values: list[float | None]) -> float | None:
    vals = [v for v in values if v]
    return statistics.median(vals) if vals else None


def programs_table(rows: list[Row]) -> list[str]:
    out = ["| program | eager | ast2graph | hand-written (jax.jit + lax) | plain jax.jit | ast2graph / hand "
           "| eager / ast2graph | conversion | first call: ast2graph | first call: hand | graphs | result |",
           "|" + "---|" * 12]
    for r in rows:
        hand = fmt_time(r.hand) + (" (plain jax.jit)" if r.hand_label == "jax.jit" else "")
        plain = fmt_time(r.plain) if r.plain else r.plain_note
        cells = [r.name, fmt_time(r.eager), fmt_time(r.static), hand, plain, fmt_ratio(r.ratio_hand),
                 fmt_ratio(r.ratio_eager), fmt_time(r.conversion), fmt_time(r.first_static), fmt_time(r.first_hand),
                 str(r.graphs), r.status]
        out.append("| " + " | ".join(cells) + " |")
    mh, me = _median([r.ratio_hand for r in rows]), _median([r.ratio_eager for r in rows])
    out.append(f"| **median over {len(rows)} programs** | | | | | **{fmt_ratio(mh)}** | **{fmt_ratio(me)}** | | | | | |")
    return out


def autograph_table(rows: list[conversion.ConvRow]) -> list[str]:
    out = ["| program | functions | ast2graph, cold | ast2graph, file parsed | AutoGraph | AutoGraph / ast2graph (cold) "
           "| AutoGraph / ast2graph (file parsed) | ast2graph via explain (cold) | note |",
           "|" + "---|" * 9]
    for r in rows:
        out.append(f"| {r.name} | {r.functions or 'n/a'} | {fmt_time(r.a2g_cold)} | {fmt_time(r.a2g_file)} | "
                   f"{fmt_time(r.malt)} | {fmt_ratio(r.ratio_cold)} | {fmt_ratio(r.ratio_file)} | "
                   f"{fmt_time(r.a2g_explain)} | {r.note.strip()} |")
    out.append(f"| **median** | | {fmt_time(_median([r.a2g_cold for r in rows]))} | "
               f"{fmt_time(_median([r.a2g_file for r in rows]))} | {fmt_time(_median([r.malt for r in rows]))} | "
               f"**{fmt_ratio(_median([r.ratio_cold for r in rows]))}** | **{fmt_ratio(_median([r.ratio_file for r in rows]))}** | | |")
    return out


def probe_table(rows: list[conversion.ProbeRow]) -> list[str]:
    out = ["| generated function | ast2graph, cold | AutoGraph | AutoGraph / ast2graph |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.n_lines} lines | {fmt_time(r.a2g)} | {fmt_time(r.malt) if r.malt is not None else r.malt_note} "
                   f"| {fmt_ratio(r.malt / r.a2g) if r.malt else 'n/a'} |")
    return out


def overhead_table(r: Row) -> list[str]:
    return ["| function | eager | ast2graph | jax.jit | ast2graph / jax.jit | goal | result |",
            "|---|---|---|---|---|---|---|",
            f"| `x + 1`, 3 floats ({r.detail}) | {fmt_time(r.eager)} | {fmt_time(r.static)} | {fmt_time(r.hand)} "
            f"| **{fmt_ratio(r.ratio_hand)}** | <= 1.5x ({'met' if r.ratio_hand and r.ratio_hand <= 1.5 else 'not met'}) "
            f"| {r.status} |"]


def length_table(res: conversion.LengthResult) -> list[str]:
    out = ["| lines | ast2graph conversion | per 1,000 lines | checked against eager (full call) |",
           "|---|---|---|---|"]
    for r in res.rows:
        out.append(f"| {r.n_lines:,} | {fmt_time(r.a2g)} | {fmt_time(r.a2g / r.n_lines * 1000)} | {r.checked} |")
    return out


def length_summary(res: conversion.LengthResult) -> list[str]:
    a, b, r2 = res.fit_a2g
    return [f"linear fit: conversion = {a * 1e3:.0f} ms + {b * 1e6:.0f} µs x lines (R² = {r2:.3f}): "
            f"**{fmt_time(b * 1000)} per 1,000 lines**; log-log slope {res.exp_a2g:.2f} "
            f"(1 = linear, 2 = quadratic)"]


def memory_table(rows: list[conversion.MemoryRow]) -> list[str]:
    out = ["| conversion | ast2graph peak | (its time under tracemalloc) | AutoGraph peak |", "|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.what} | {fmt_bytes(r.a2g_peak)} | {fmt_time(r.a2g_seconds)} | "
                   f"{fmt_bytes(r.malt_peak) if r.malt_peak is not None else 'n/a'} |")
    return out


# ------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and few repetitions (about 2 minutes)")
    ap.add_argument("--docs", type=Path, default=None, help="write benchmarks.md and benchmarks.png here "
                    "(default: docs/ for a full run, nothing for --quick)")
    ap.add_argument("--no-docs", action="store_true", help="write no files")
    args = ap.parse_args(argv)

    quick = args.quick
    reps_eager = 3 if quick else 5
    reps_fast = 5 if quick else 21
    min_rep_s = 0.002 if quick else 0.02
    overhead_reps, overhead_calls = (3, 2_000) if quick else (7, 10_000)
    conv_reps = 3 if quick else 5
    sizes = [100, 500, 1000, 2000] if quick else [100, 250, 500, 1000, 2000, 3000, 5000]
    length_reps = 1 if quick else 3
    check_upto = 500 if quick else 1000
    probe_sizes = [20, 40, 60] if quick else [20, 30, 40, 50, 60, 70, 80]
    probe_deadline = 15.0 if quick else 20.0
    docs = None if args.no_docs else (args.docs or (None if quick else ROOT / "docs"))
    command = ".venv/bin/python benchmarks/run.py" + (" --quick" if quick else "")

    def log(line: str = "") -> None:
        print(line, flush=True)

    t_start = time.perf_counter()
    load_start = os.getloadavg()[0]
    log("ast2graph benchmarks" + (" (--quick)" if quick else ""))
    for line in machine_lines():
        log("  " + line)
    log(f"  load average (1 min) at the start: {load_start:.2f} (before this run starts: other work competing for the cores)")
    log(f"  repetitions: eager {reps_eager}, ast2graph / hand-written / plain jax.jit {reps_fast} "
        f"(interleaved; each repetition >= {min_rep_s * 1e3:.0f} ms of calls); conversions {conv_reps}; medians")
    log()

    # warm JAX itself (backend start-up, first jit) so the first row is not charged for it
    block(jax.jit(lambda v: v * 2 + 1)(jnp.ones(3)))
    ag = conversion.AutoGraph()
    tmp = conversion.temp_folder()
    folder = Path(tmp.name)

    # 1. programs
    log("== 1. programs: eager vs ast2graph vs hand-written jax.jit + lax vs plain jax.jit")
    rows: list[Row] = []
    progs: list[programs.Program] = []
    for factory in programs.FACTORIES:
        p = factory(quick)
        progs.append(p)
        t0 = time.perf_counter()
        try:
            row = bench_program(p, reps_eager, reps_fast, min_rep_s)
        except Exception as exc:  # noqa: BLE001
            traceback.print_exc()
            row = Row(p.name, p.detail, p.hand_label, status=f"ERROR: {type(exc).__name__}")
        rows.append(row)
        log(f"{row.name}  [{row.detail}]  ({time.perf_counter() - t0:.1f} s)")
        log(f"  eager {fmt_time(row.eager)} | ast2graph {fmt_time(row.static)} | {row.hand_label} {fmt_time(row.hand)}"
            f" | plain jax.jit {fmt_time(row.plain) if row.plain else row.plain_note}"
            f" | ast2graph/hand {fmt_ratio(row.ratio_hand)} | eager/ast2graph {fmt_ratio(row.ratio_eager)}")
        log(f"  conversion {fmt_time(row.conversion)} | first call: ast2graph {fmt_time(row.first_static)}, "
            f"{row.hand_label} {fmt_time(row.first_hand)} | graphs {row.graphs} | {row.status}")
        for note in row.notes:
            log("  " + note)
    log()

    # 2. conversion time against AutoGraph
    log("== 2. conversion time: ast2graph vs AutoGraph (diastatic-malt)")
    if ag.error:
        log("  AutoGraph: " + ag.error)
    else:
        log(f"  AutoGraph: diastatic-malt {ag.version}")
    t0 = time.perf_counter()
    conv_rows = conversion.bench_vs_autograph(progs, conv_reps, ag)
    for r in conv_rows:
        log(f"  {r.name}: ast2graph cold {fmt_time(r.a2g_cold)}, file parsed {fmt_time(r.a2g_file)} | "
            f"AutoGraph {fmt_time(r.malt)} ({r.functions} functions) | AutoGraph/ast2graph {fmt_ratio(r.ratio_cold)} cold, "
            f"{fmt_ratio(r.ratio_file)} file parsed {r.note}")
    log(f"  generated straight-line-and-branchy functions (AutoGraph in a child process, deadline {probe_deadline:.0f} s):")
    probe_rows = conversion.probe_small(probe_sizes, conv_reps, probe_deadline, ag, folder, log)
    log(f"  ({time.perf_counter() - t0:.1f} s)")
    log()

    # 3. warm-call overhead
    log("== 3. warm-call overhead")
    over = bench_overhead(overhead_reps, overhead_calls)
    log(f"  per call: eager {fmt_time(over.eager)} | ast2graph {fmt_time(over.static)} | jax.jit {fmt_time(over.hand)}"
        f" | ast2graph/jax.jit {fmt_ratio(over.ratio_hand)} (goal <= 1.5x) | {over.status}")
    log()

    # 4. XLA compile time of the unroll/roll decisions
    log("== 4. XLA compile time of the unroll/roll decisions")
    t0 = time.perf_counter()
    comp_rows = compile_time.measure(quick)
    for r in comp_rows:
        log(f"  {r.loop}: {r.decision} | compile ast2graph {fmt_time(r.a2g_compile)}, {r.hand_label} "
            f"{fmt_time(r.hand_compile)} | run {fmt_time(r.a2g_run)} vs {fmt_time(r.hand_run)} | "
            f"{'EQUAL' if r.equal else 'DIFF'}, {r.graphs} graph(s)")
    log(f"  ({time.perf_counter() - t0:.1f} s)")
    log()

    # 5. conversion time against function length
    log(f"== 5. conversion time against function length ({length_reps} repetition(s) per size; "
        f"a full call checked against eager up to {check_upto} lines)")
    t0 = time.perf_counter()
    lengths = conversion.bench_lengths(sizes, length_reps, check_upto, ag=_NoAutoGraph(), folder=folder, log=log)
    for line in length_summary(lengths):
        log("  " + line)
    log(f"  ({time.perf_counter() - t0:.1f} s)")
    log()

    # 6. peak memory of conversion
    log("== 6. peak memory of conversion (tracemalloc, Python allocations, cold caches)")
    t0 = time.perf_counter()
    largest = lengths.generated[max(sizes)]
    transformer = next(p for p in progs if p.name.startswith("Transformer"))
    t_fns = ag.callees(transformer.eager, transformer.args)[0] if ag.error is None else None
    mem_rows = [conversion.peak_memory(f"generated function, {largest.n_lines:,} lines", largest.fn, conversion.GEN_ARGS,
                                       ag, None),
                conversion.peak_memory(f"{transformer.name} ({len(t_fns or [])} functions)", transformer.eager,
                                       transformer.args, ag, t_fns)]
    done_probe = [r for r in probe_rows if r.malt is not None and r.malt <= 1.0]   # tracemalloc slows it several times
    if done_probe:
        g = conversion.load_generated(done_probe[-1].n_lines, folder)
        mem_rows.append(conversion.peak_memory(f"generated function, {g.n_lines} lines", g.fn, conversion.GEN_ARGS,
                                               ag, [g.fn]))
    for r in mem_rows:
        log(f"  {r.what}: ast2graph {fmt_bytes(r.a2g_peak)} ({fmt_time(r.a2g_seconds)} under tracemalloc) | "
            f"AutoGraph {fmt_bytes(r.malt_peak)}")
    log(f"  ({time.perf_counter() - t0:.1f} s)")
    log()

    elapsed = time.perf_counter() - t_start
    date = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    load = f"load average (1 min): {load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end"
    sections = build_sections(rows, conv_rows, probe_rows, over, comp_rows, lengths, mem_rows, ag, probe_deadline)
    log("=" * 100)
    log(f"Command: `{command}` ({elapsed:.0f} s, {date}). Machine: " + "; ".join(machine_lines() + [load]) + ".")
    for title, lines in sections:
        log()
        log(f"## {title}")
        log()
        log("\n".join(lines))
    log()

    bad = [r for r in rows + [over] if not r.ok]
    bad_compile = [r for r in comp_rows if not r.ok]
    failed = bool(bad or bad_compile or not lengths.ok)

    if docs is not None:
        import report
        md, png = report.write(docs, sections, command, elapsed, date, machine_lines() + [load], rows, conv_rows, lengths,
                               probe_rows, quick)
        log(f"wrote {md} and {png}")

    if failed:
        log("FAILED: " + ", ".join([f"{r.name}: {r.status}" for r in bad] + [f"{r.loop}: DIFF" for r in bad_compile]
                                   + (["generated functions: DIFF or not one graph"] if not lengths.ok else [])))
        return 1
    log(f"all {len(rows)} programs and the checked generated functions EQUAL to eager, one graph each ({elapsed:.0f} s)")
    tmp.cleanup()
    return 0


class _NoAutoGraph:
    """Section 5 times ast2graph only: AutoGraph does not finish on these sizes
    (section 2's probe of small generated functions shows its growth)."""

    error = "not run on these sizes"


def build_sections(rows, conv_rows, probe_rows, over, comp_rows, lengths, mem_rows, ag, probe_deadline):
    mh = _median([r.ratio_hand for r in rows])
    notes_conv = [
        "*ast2graph*: `to_static(f, full_graph=True)` up to the lowered Python function of the first call's graph: "
        "parse, resolve, CFG/SSA, type inference for the call's signature (called user functions inlined), "
        "lowering to JAX source and its `exec`; JAX tracing and XLA excluded (the call is stopped when lowering returns). "
        "*cold*: ast2graph's parse caches emptied, so the whole source file is parsed again "
        "(ast2graph parses the file a function is in, once for all its functions); *file parsed*: the file's parsed "
        "tree kept, per-function caches emptied. *via explain*: `to_static` time + `explain(...).conversion_seconds` "
        "(the same interval through the public API, one run).",
        "*AutoGraph*: " + (ag.error if ag.error else
                           f"diastatic-malt {ag.version}; `malt.to_graph` of the function and of every user function "
                           "it calls (found by running the converted function once), conversion cache emptied: "
                           "source lookup, parse, AutoGraph's analyses and transforms, code generation, loading the "
                           "generated module. It converts each function once, with no type inference; without "
                           "TensorFlow its control-flow operators run as Python, so only conversion time is compared. "
                           "JAX modules are marked do-not-convert (as AutoGraph leaves TensorFlow alone)."),
        "Goal: ast2graph at least 5x faster than AutoGraph.",
    ]
    return [
        ("1. Programs: eager vs ast2graph vs hand-written", programs_table(rows) + [
            "",
            "Warm call times, median of repetitions, each call blocked on. *hand-written*: `jax.jit` + "
            "`lax.while_loop`/`fori_loop`/`cond` written by hand (plain `jax.jit` for the Transformer, whose control "
            "flow is static). *plain jax.jit*: `jax.jit` of the eager function itself, arrays traced, Python numbers and "
            "objects static. *conversion*: `explain(...).conversion_seconds` on a fresh `to_static` (file already "
            "parsed; XLA excluded). *first call*: from `to_static(...)` to the first result (conversion, tracing, XLA, "
            "one run).",
            f"Goal: ast2graph / hand-written <= 1.05x on the median program: {fmt_ratio(mh)} "
            f"({'met' if mh and mh <= 1.05 else 'not met'})."]),
        ("2. Conversion time: ast2graph vs AutoGraph", autograph_table(conv_rows) + [""] + notes_conv + [
            "",
            "The same generated straight-line-and-branchy functions as section 5, smaller (AutoGraph runs in a child "
            f"process with a {probe_deadline:.0f} s deadline):",
            ""] + probe_table(probe_rows)),
        ("3. Warm-call overhead", overhead_table(over) + [
            "", "Per call, median of repetitions of a loop of calls; ast2graph's wrapper work per call "
                "(signature lookup, guards) against `jax.jit`'s C++ dispatch."]),
        ("4. XLA compile time of the unroll/roll decisions", compile_time.table(comp_rows) + [
            "", "XLA compile: `jitted.lower(*args).compile()` after `jax.clear_caches()`, median; ast2graph's "
                "conversion and JAX tracing excluded on both sides. Run: warm median per call. The unroll limit is 16: "
                "range(16) unrolls, range(17) rolls."]),
        ("5. Conversion time against function length", length_table(lengths) + [""] + length_summary(lengths) + [
            "",
            "Generated functions (written to a temporary .py file and imported): 60% straight-line array arithmetic, "
            "25% `if` on a static Python flag (pruned), 15% `if` on a traced array (`lax.cond`). Conversion as in "
            "section 2 (ast2graph, cold). AutoGraph is not run on these sizes: see section 2's generated functions."]),
        ("6. Peak memory of conversion", memory_table(mem_rows) + [
            "", "`tracemalloc` peak over one cold conversion (Python allocations only; parse caches emptied first, "
                "so the parsed source file is counted). ast2graph: as in section 2, stopped when lowering returns. "
                "AutoGraph: `malt.to_graph` of the same functions."]),
    ]


if __name__ == "__main__":
    raise SystemExit(main())
