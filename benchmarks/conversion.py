"""Conversion-time benchmarks: ast2graph against AutoGraph, against function
length, and the peak memory of a conversion (sections 2, 5 and 6 of
``benchmarks/run.py``).

What "conversion" means on each side (XLA compilation excluded on both):

* **ast2graph**: from ``to_static(f, full_graph=True)`` to the lowered Python
  function of the first call's graph: parse (of the whole source file, the
  way ast2graph reads source), resolve, CFG/SSA, type inference for this
  call's signature (every called user function inlined), lowering to JAX
  source and its ``exec``. Measured by wrapping ``ast2graph.runtime.block.lower_graph``
  for the duration of one measurement: the wrapper notes the time when
  lowering returns and stops the call there, so that neither JAX tracing nor
  XLA runs (``conversion_stop``). ``explain(...).conversion_seconds`` measures
  the same interval minus ``to_static``'s parse/SSA; ``run.py``'s program table
  prints that one. *cold*: ast2graph's parse caches emptied first (the source
  file is parsed again); *file parsed*: only the per-function caches emptied
  (the file's parsed tree is kept, as for the second function of a module).
* **AutoGraph** (``diastatic-malt``, AutoGraph without TensorFlow):
  ``malt.to_graph`` of the function and of every user function it calls
  (found once by running the converted function, which converts callees
  lazily), its conversion cache emptied first: ``inspect`` source lookup,
  parse, AutoGraph's static analyses and transforms, code generation and the
  loading of the generated module. AutoGraph converts each function once and
  does no type inference; without TensorFlow its control-flow operators run
  as Python, so only its conversion time is compared.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import inspect
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_common import block, loglog_slope, linear_fit, results_equal  # noqa: E402

from ast2graph import clear_caches, explain, to_static  # noqa: E402


# ------------------------------------------------------------------ ast2graph
def clear_ast2graph_caches(keep_files: bool = False) -> None:
    """Empty ast2graph's caches (``ast2graph.clear_caches``): parsed functions,
    result types of ops, and the parsed source files unless ``keep_files``."""
    clear_caches(source_files=not keep_files)


class _Stop(Exception):
    """Raised by the lowering hook: conversion finished, skip tracing and XLA."""


@contextlib.contextmanager
def _stop_after_lowering(marks: list[float]):
    import ast2graph.runtime.block as block

    real = block.lower_graph

    def lower_then_stop(*args: Any, **kwargs: Any) -> Any:
        real(*args, **kwargs)
        marks.append(time.perf_counter())
        raise _Stop

    block.lower_graph = lower_then_stop
    try:
        yield
    finally:
        block.lower_graph = real


def conversion_stop(fn: Callable, args: tuple, cold: bool = True, keep_files: bool = False) -> float:
    """Seconds from ``to_static(fn)`` to the first graph's lowered function
    (see the module docstring); the call is stopped there."""
    if cold:
        clear_ast2graph_caches(keep_files)
    gc.collect()   # no collection of earlier garbage inside the measurement (as timeit)
    marks: list[float] = []
    t0 = time.perf_counter()
    with _stop_after_lowering(marks):
        try:
            to_static(fn, full_graph=True)(*args)
        except Exception:  # noqa: BLE001 - _Stop, possibly wrapped in FullGraphError
            if not marks:
                raise
    if not marks:
        raise RuntimeError("the call finished without lowering a graph (nothing converted?)")
    return marks[0] - t0


def conversion_explain(fn: Callable, args: tuple, cold: bool = True) -> tuple[float, Any]:
    """The same interval through the public API (XLA runs, but is not counted):
    ``to_static`` time + ``explain(...).conversion_seconds``; and the Explanation."""
    if cold:
        clear_ast2graph_caches()
    gc.collect()
    t0 = time.perf_counter()
    static = to_static(fn, full_graph=True)
    front = time.perf_counter() - t0
    e = explain(static)(*args)
    block(e.result)
    return front + e.conversion_seconds, e


# ------------------------------------------------------------------ AutoGraph
class AutoGraph:
    """diastatic-malt (AutoGraph without TensorFlow), set up to leave JAX alone."""

    def __init__(self) -> None:
        self.error: str | None = None
        try:
            import malt
            from malt.core import config, config_lib
            from malt.impl import api as malt_api
            from malt.pyct import cache
        except Exception as e:  # noqa: BLE001
            self.error = (f"diastatic-malt is not importable ({type(e).__name__}: {e}); "
                          "install it with: pip install -e '.[bench]'")
            return
        self.malt, self._api, self._cache = malt, malt_api, cache
        try:
            from importlib.metadata import version
            self.version = version("diastatic-malt")
        except Exception:  # noqa: BLE001
            self.version = "?"
        # AutoGraph would otherwise convert jax.numpy's own Python functions
        # when it meets them in converted_call (tf.autograph leaves TensorFlow alone).
        rules = tuple(config_lib.DoNotConvert(m) for m in ("jax", "jaxlib", "ml_dtypes", "opt_einsum", "ast2graph"))
        config.CONVERSION_RULES = rules + tuple(r for r in config.CONVERSION_RULES if r not in rules)

    def clear(self) -> None:
        self._api._TRANSPILER._cache = self._cache.CodeObjectCache()

    def callees(self, fn: Callable, args: tuple) -> tuple[list[Callable], Any]:
        """Every user function that converting ``fn`` and running it once
        converts (``fn`` first), and the converted function's result."""
        transpiler = self._api._TRANSPILER
        real = transpiler.transform_function
        seen: dict[Any, Callable] = {}

        def note(f: Callable, ctx: Any) -> Any:
            code = getattr(getattr(f, "__func__", f), "__code__", None)
            seen.setdefault(code if code is not None else id(f), f)
            return real(f, ctx)

        self.clear()
        transpiler.transform_function = note
        try:
            target = _function_of(fn)
            converted = self.malt.to_graph(target)
            bound = (target.__self__,) if inspect.ismethod(target) else ()
            result = block(converted(*bound, *args))
        finally:
            transpiler.transform_function = real
        return list(seen.values()), result

    def convert(self, fns: list[Callable]) -> float:
        """Seconds of ``malt.to_graph`` of each function, cache emptied first."""
        self.clear()
        gc.collect()
        t0 = time.perf_counter()
        for f in fns:
            self.malt.to_graph(f)
        return time.perf_counter() - t0


def _function_of(fn: Callable) -> Callable:
    """What to hand to malt.to_graph: a function, or the __call__ of an object."""
    if inspect.isfunction(fn) or inspect.ismethod(fn):
        return fn
    return fn.__call__


# ----------------------------------------------- section 2: ast2graph vs AutoGraph
@dataclass
class ConvRow:
    name: str
    functions: int = 0                 # user functions converted (AutoGraph's count)
    a2g_cold: float | None = None
    a2g_file: float | None = None      # the file's parse kept
    a2g_explain: float | None = None   # to_static + explain(...).conversion_seconds, cold
    malt: float | None = None
    note: str = ""

    @property
    def ratio_cold(self) -> float | None:
        return self.malt / self.a2g_cold if self.malt and self.a2g_cold else None

    @property
    def ratio_file(self) -> float | None:
        return self.malt / self.a2g_file if self.malt and self.a2g_file else None


def bench_vs_autograph(progs: list, reps: int, ag: AutoGraph) -> list[ConvRow]:
    rows = []
    for p in progs:
        row = ConvRow(p.name)
        try:
            row.a2g_explain = conversion_explain(p.eager, p.args)[0]
            row.a2g_cold = statistics.median(conversion_stop(p.eager, p.args) for _ in range(reps))
            row.a2g_file = statistics.median(conversion_stop(p.eager, p.args, keep_files=True) for _ in range(reps))
        except Exception as e:  # noqa: BLE001
            row.note = f"ast2graph: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if ag.error is None:
            try:
                fns, result = ag.callees(p.eager, p.args)
                row.functions = len(fns)
                eq, _ = results_equal(p.eager(*p.args), result, p.rtol, p.atol)
                if not eq:
                    row.note += " AutoGraph-converted run differs from eager."
                row.malt = statistics.median(ag.convert(fns) for _ in range(reps))
            except Exception as e:  # noqa: BLE001
                row.note += f" AutoGraph could not convert it: {type(e).__name__}: {str(e).splitlines()[0][:160]}"
        rows.append(row)
    return rows


# ---------------------------------------------- section 5: conversion vs length
def generate_source(n_lines: int, seed: int = 0) -> str:
    """A function of about ``n_lines`` lines in the style of generated model
    code: 60% straight-line array arithmetic, 25% ``if`` on a static Python
    flag (pruned), 15% ``if`` on a traced array (``lax.cond``)."""
    rnd = random.Random(seed)
    body = ["    v0 = x * 0.5 + y", "    v1 = jnp.tanh(v0) - 0.25 * y"]
    k = 2
    while len(body) < n_lines - 2:
        a, b = k - 1, max(0, k - rnd.randint(2, 4))
        r = rnd.random()
        if r < 0.6:
            expr = rnd.choice([f"jnp.tanh(v{a}) * 0.9 + 0.1 * v{b}", f"v{a} * 0.5 - v{b} * 0.25",
                               f"jnp.sin(v{a}) + jnp.cos(v{b}) * 0.5", f"v{a} / (1.0 + jnp.abs(v{b}))"])
            body.append(f"    v{k} = {expr}")
        elif r < 0.85:
            body += [f"    if flag > {rnd.randint(0, 9)}:", f"        v{k} = v{a} + 0.5 * v{b}",
                     "    else:", f"        v{k} = v{a} - 0.5 * v{b}"]
        else:
            body += [f"    if jnp.mean(v{a}) > jnp.mean(v{b}):", f"        v{k} = v{a} * 0.9 + 0.05",
                     "    else:", f"        v{k} = v{b} * 0.8 - 0.05"]
        k += 1
    lines = ["import jax.numpy as jnp", "", "", f"def generated_{n_lines}(x, y, flag):"] + body + [f"    return v{k - 1}"]
    return "\n".join(lines) + "\n"


@dataclass
class Generated:
    n_lines: int      # lines of the function (def .. return)
    path: Path
    fn: Callable


def load_generated(n_lines: int, folder: Path) -> Generated:
    text = generate_source(n_lines)
    path = folder / f"generated_{n_lines}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"a2g_bench_generated_{n_lines}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = getattr(module, f"generated_{n_lines}")
    return Generated(len(text.splitlines()) - 3, path, fn)


GEN_ARGS = (jnp.linspace(0.0, 1.0, 8), jnp.ones(8), 5)


@dataclass
class LengthRow:
    n_lines: int
    a2g: float | None = None
    malt: float | None = None
    checked: str = "not run"   # result of a full call against eager (small sizes)


@dataclass
class LengthResult:
    rows: list[LengthRow] = field(default_factory=list)
    fit_a2g: tuple[float, float, float] | None = None   # (intercept s, slope s/line, R²)
    fit_malt: tuple[float, float, float] | None = None
    exp_a2g: float | None = None
    exp_malt: float | None = None
    ok: bool = True
    generated: dict[int, Generated] = field(default_factory=dict)


def bench_lengths(sizes: list[int], reps: int, check_upto: int, ag: AutoGraph, folder: Path,
                  log: Callable[[str], None]) -> LengthResult:
    res = LengthResult()
    for n in sizes:
        g = load_generated(n, folder)
        res.generated[n] = g
        row = LengthRow(g.n_lines)
        t0 = time.perf_counter()
        if n <= check_upto:   # one real call (XLA included): one graph, equal to eager
            _, e = conversion_explain(g.fn, GEN_ARGS)
            eq, why = results_equal(g.fn(*GEN_ARGS), e.result, 1e-5, 1e-5)
            row.checked = f"{'EQUAL' if eq else 'DIFF'}, {e.graph_count} graph(s)"
            res.ok &= eq and e.graph_count == 1
        row.a2g = statistics.median(conversion_stop(g.fn, GEN_ARGS) for _ in range(reps))
        if ag.error is None:
            try:
                row.malt = statistics.median(ag.convert([g.fn]) for _ in range(reps))
            except Exception as e:  # noqa: BLE001
                log(f"  AutoGraph could not convert the {n}-line function: {type(e).__name__}: {e}")
        res.rows.append(row)
        log(f"  {row.n_lines:5d} lines: ast2graph {row.a2g * 1e3:9.1f} ms"
            + (f" | AutoGraph {row.malt * 1e3:9.1f} ms" if row.malt else "")
            + f" | checked: {row.checked}  ({time.perf_counter() - t0:.1f} s)")
    xs = [r.n_lines for r in res.rows]
    res.fit_a2g = linear_fit(xs, [r.a2g for r in res.rows])
    res.exp_a2g = loglog_slope(xs, [r.a2g for r in res.rows])
    if all(r.malt for r in res.rows):
        res.fit_malt = linear_fit(xs, [r.malt for r in res.rows])
        res.exp_malt = loglog_slope(xs, [r.malt for r in res.rows])
    return res


# ----------------------------------------------------- section 6: peak memory
@dataclass
class MemoryRow:
    what: str
    a2g_peak: int | None = None
    malt_peak: int | None = None
    a2g_seconds: float | None = None   # conversion time under tracemalloc (slower than without)


def peak_memory(name: str, fn: Callable, args: tuple, ag: AutoGraph, malt_fns: list[Callable] | None) -> MemoryRow:
    """tracemalloc peak of one cold conversion on each side (Python allocations
    only; the caches are emptied first, so the parsed file is counted)."""
    row = MemoryRow(name)
    clear_ast2graph_caches()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        row.a2g_seconds = conversion_stop(fn, args, cold=False)
        row.a2g_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    clear_ast2graph_caches()
    if ag.error is None and malt_fns:
        ag.clear()
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            ag.convert(malt_fns)
            row.malt_peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return row


def temp_folder() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="a2g-bench-")


# ------------------- section 2b: both converters on small generated functions
@dataclass
class ProbeRow:
    n_lines: int
    a2g: float | None = None
    malt: float | None = None
    malt_note: str = ""


def probe_small(sizes: list[int], reps: int, deadline_s: float, ag: AutoGraph, folder: Path,
                log: Callable[[str], None]) -> list[ProbeRow]:
    """ast2graph and AutoGraph on the generated functions of ``sizes`` lines.
    AutoGraph runs in a child process with a deadline (its analyses can take
    very long here); after its first miss, larger sizes are not tried."""
    import subprocess

    rows, gave_up = [], False
    for n in sizes:
        g = load_generated(n, folder)
        row = ProbeRow(g.n_lines, a2g=statistics.median(conversion_stop(g.fn, GEN_ARGS) for _ in range(reps)))
        if ag.error is not None:
            row.malt_note = "AutoGraph not installed"
        elif gave_up:
            row.malt_note = "not tried (a smaller one missed the deadline)"
        else:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--autograph-child", str(g.path),
                   g.fn.__name__, str(reps)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=deadline_s)
                if out.returncode == 0:
                    row.malt = float(out.stdout.split()[-1])
                else:
                    row.malt_note = "failed: " + (out.stderr.strip().splitlines() or ["?"])[-1][:160]
            except subprocess.TimeoutExpired:
                row.malt_note = f"did not finish in {deadline_s:.0f} s"
                gave_up = True
        rows.append(row)
        log(f"  {row.n_lines:4d} lines: ast2graph {row.a2g * 1e3:8.1f} ms | AutoGraph "
            + (f"{row.malt * 1e3:8.1f} ms" if row.malt is not None else row.malt_note))
    return rows


def _autograph_child(path: str, name: str, reps: int) -> int:
    spec = importlib.util.spec_from_file_location("a2g_bench_child", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ag = AutoGraph()
    if ag.error:
        print(ag.error, file=sys.stderr)
        return 1
    fn = getattr(module, name)
    times: list[float] = []
    while len(times) < reps and sum(times) < 3.0:   # a slow one is measured fewer times
        times.append(ag.convert([fn]))
    print(statistics.median(times))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--autograph-child":
        raise SystemExit(_autograph_child(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    print(__doc__)
