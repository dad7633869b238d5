"""The first call in a fresh process: ast2graph against hand-written ``jax.jit``.

    .venv/bin/python benchmarks/cold_start.py [--reps 3] [--only NAME] [--second]

For each benchmark program (``benchmarks/programs.py``) and each example, a
fresh Python process per measurement, with empty caches (JAX's persistent
compilation cache and ast2graph's own in a new temporary directory):

* *setup*: importing JAX, NumPy and the program, making its inputs (the same
  in both processes; ast2graph is not imported), then ``jax.clear_caches()``
  so nothing compiled during the set-up serves the first call;
* *first call*: ``import ast2graph``, ``to_static``, conversion, XLA
  compilation and the run, waited for; against the first call of the
  hand-written ``jax.jit`` version (its tracing, compilation and run).

The ratio *process* is (setup + first call) / (setup + first call of the
hand-written version): what a user waits for from ``python prog.py`` to the
first result. The ratio *call* is the first call alone. Each figure is the
median of ``--reps`` interleaved runs; times are CPU seconds of the process
(all threads; stable on a shared machine), wall seconds beside them.

The sources of ast2graph, the benchmarks and the examples are byte-compiled
first (``compileall``), as a package installed by pip is: a checkout run with
``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile ast2graph's modules from
source in every process, a third of its import.

``--second``: also the first call in a *second* process that finds the
caches the first one left (the same cache directory), as a fraction of the
first process's first call.
"""

from __future__ import annotations

import argparse
import compileall
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------- the child
def _stub_ast2graph() -> None:
    """While the programs are imported, ``from ast2graph import to_static``
    gives a do-nothing decorator: the setup is the same for both sides, and
    the hand-written side never imports ast2graph."""
    stub = types.ModuleType("ast2graph")

    def wrap(fn: Any) -> Any:   # the examples read the eager method back as ``__wrapped__``
        return functools.wraps(fn)(lambda *a, **k: fn(*a, **k))

    def to_static(fn: Any = None, **_: Any) -> Any:
        return wrap(fn) if fn is not None else wrap

    stub.to_static = to_static  # type: ignore[attr-defined]
    stub.explain = to_static  # type: ignore[attr-defined]
    sys.modules["ast2graph"] = stub
    # examples/common.py (what the examples print in their main) imports ast2graph.report
    common = types.ModuleType("common")
    common.__getattr__ = lambda name: None  # type: ignore[attr-defined]
    sys.modules["common"] = common


def _program(name: str) -> tuple[Callable, Callable, tuple, tuple]:
    """(eager function, hand-written function, its arguments, the hand-written one's)."""
    if name.startswith("example:"):
        return EXAMPLES[name.split(":", 1)[1]]()
    from benchmarks import programs

    factory = next(f for f in programs.FACTORIES if f.__name__ == "make_" + name)
    p = factory(True)
    return p.eager, p.hand, p.args, p.hand_call_args


def _child(name: str, mode: str) -> None:
    w0, c0 = time.perf_counter(), time.process_time()
    import jax

    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "examples"))
    _stub_ast2graph()
    eager, hand, args, hand_args = _program(name)
    jax.block_until_ready((args, hand_args))
    del sys.modules["ast2graph"]
    # a program whose set-up ran its hand-written version (beam picks its EOS token so) must
    # not find it compiled: no compiled function survives the set-up, on either side
    jax.clear_caches()
    w1, c1 = time.perf_counter(), time.process_time()
    if mode == "hand":
        out = hand(*hand_args)
    else:
        import ast2graph

        out = ast2graph.to_static(eager)(*args)
    jax.block_until_ready(out)
    w2, c2 = time.perf_counter(), time.process_time()
    # the process's own start (interpreter, ``import jax``) is the same on both sides; counted in setup
    print(json.dumps({"setup_wall": w1 - w0 + _START_WALL, "setup_cpu": c1 - c0 + _START_CPU,
                      "call_wall": w2 - w1, "call_cpu": c2 - c1}))


# ----------------------------------------------------------------- examples
def _example_rnn() -> tuple:
    import jax
    import jax.numpy as jnp
    from jax import lax

    import rnn_early_stop as m

    params = m.init_params(jax.random.PRNGKey(0), 16, 64, 4)
    xs, h0, _ = m.inputs(jax.random.PRNGKey(1), 400, 16, 64, 4)

    @jax.jit
    def hand(params, xs, h0, tol=1e-4):
        def cond(s):
            t, _, done = s
            return (t < xs.shape[0]) & ~done

        def body(s):
            t, h, _ = s
            h_new = jnp.tanh(h @ params["w"] + xs[t] @ params["u"] + params["b"])
            return t + 1, h_new, jnp.max(jnp.abs(h_new - h)) < tol

        t, h, _ = lax.while_loop(cond, body, (0, h0, False))
        return h, t

    return m.run, hand, (params, xs, h0), (params, xs, h0)


def _example_numpy() -> tuple:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax

    import numpy_model as m

    args = m.make_inputs(256, 16, 64)

    @jax.jit
    def elman(xs, w, u, b, state, threshold=0.05):
        steps, hidden = xs.shape[0], w.shape[0]

        def body(t, c):
            out, h, peak = c
            h = jnp.tanh(w @ h + u @ xs[t] + b)
            h = jnp.where(jnp.abs(h) < threshold, 0.0, h)
            return out.at[t].set(h), h, jnp.maximum(peak, jnp.abs(h))

        init = (jnp.zeros((steps, hidden), jnp.float32), state, jnp.zeros(hidden, jnp.float32))
        out, h, peak = lax.fori_loop(0, steps, body, init)
        out = out.at[:, 0].multiply(2.0).at[steps // 4: steps // 2].multiply(0.5)
        return out, peak, h

    def hand(*a: Any) -> Any:   # NumPy in, NumPy out, the caller's state written, as the eager program
        out, peak, h = elman(*a)
        np.copyto(a[4], np.asarray(h))
        return np.asarray(out), np.asarray(peak)

    return m.elman_rnn, hand, args, tuple(a.copy() for a in args)


def _example_attention() -> tuple:
    import jax
    import jax.numpy as jnp
    import numpy as np

    import decision_transformer_attention as m

    rng = np.random.default_rng(0)
    cfg = m.GPT2Config(hidden_size=128, num_attention_heads=4, max_position_embeddings=256)
    attn = m.DecisionTransformerGPT2Attention(cfg, rng, layer_idx=0)
    x = jnp.asarray(rng.normal(size=(4, 64, 128)), dtype=jnp.float32)
    keep = np.arange(64)[None, :] < (64 - np.arange(4)[:, None] * 3)
    mask = m.extended_mask(keep.astype(np.float32))
    return attn, jax.jit(lambda x, mask: attn(x, attention_mask=mask)), (x, None, mask), (x, mask)


def _example_equinox() -> tuple:
    import equinox as eqx
    import jax
    import jax.numpy as jnp
    from jax import lax

    import equinox_model as m

    model = m.Net(64, 128, 4, 8, jax.random.PRNGKey(0), final_norm=True, clip=1.0)
    x = jax.random.normal(jax.random.PRNGKey(1), (64,))

    @eqx.filter_jit
    def hand(model, x):
        for block in model.blocks:
            x = block(x)
        logits = model.head(model.norm(x))
        return lax.cond(jnp.max(jnp.abs(logits)) > model.clip, lambda v: model.clip * jnp.tanh(v / model.clip),
                        lambda v: v, logits)

    return m.Net.__call__, hand, (model, x), (model, x)


def _example_flax() -> tuple:
    import jax
    import jax.numpy as jnp
    from flax import nnx
    from jax import lax

    import flax_nnx_model as m

    model, _ = m.make(16, 64, 128, 3, 10, 0.05)
    hand_model, _ = m.make(16, 64, 128, 3, 10, 0.05)
    x = jax.random.normal(jax.random.PRNGKey(0), (64, 16))

    @nnx.jit
    def hand(model, x):
        model.calls[...] += 1
        x = model.embed(x)
        for block in model.blocks:
            x = block(x)
        logits = model.head(model.norm(x))
        return lax.cond(jnp.max(jnp.abs(logits)) > model.clip, lambda v: model.clip * jnp.tanh(v / model.clip),
                        lambda v: v, logits)

    return m.Classifier.__call__, hand, (model, x), (hand_model, x)


EXAMPLES = {"rnn_early_stop": _example_rnn, "numpy_model": _example_numpy,
            "decision_transformer_attention": _example_attention, "equinox_model": _example_equinox,
            "flax_nnx_model": _example_flax}
PROGRAMS = ["newton", "rnn", "accumulate", "bisection", "collatz", "transformer", "greedy", "beam", "kmeans",
            "mandelbrot", "cumsum"] + [f"example:{k}" for k in EXAMPLES]


# ---------------------------------------------------------------- the parent
def _run(name: str, mode: str, cache: str) -> dict:
    env = dict(os.environ, AST2GRAPH_CACHE_DIR=cache, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    start = "import time; _w, _c = time.perf_counter(), time.process_time(); import sys; "
    code = (start + f"sys.path.insert(0, {str(ROOT)!r}); import benchmarks.cold_start as b; "
            "b._START_WALL, b._START_CPU = time.perf_counter() - _w, time.process_time() - _c; "
            f"b._child({name!r}, {mode!r})")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{name} ({mode}) failed:\n{done.stderr[-3000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["process_wall"] = time.perf_counter() - t0
    return out


def _median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", action="append", help="a program name (repeatable)")
    ap.add_argument("--second", action="store_true", help="also the first call of a second process")
    args = ap.parse_args(argv)
    names = args.only or PROGRAMS
    for folder in ("ast2graph", "benchmarks", "examples"):   # what pip's install does; see the docstring
        compileall.compile_dir(str(ROOT / folder), quiet=1)
    rows = []
    print(f"{'program':34s} {'hand: setup+call cpu':>21s} {'a2g: setup+call cpu':>20s} {'process':>8s} {'call':>7s}"
          f" {'(wall)':>7s}" + ("  second/first" if args.second else ""))
    for name in names:
        runs: dict[str, list] = {"hand": [], "a2g": [], "second": []}
        for _ in range(args.reps):
            for mode in ("hand", "a2g"):
                with tempfile.TemporaryDirectory(prefix="a2g-cold-") as cache:
                    runs[mode].append(_run(name, mode, cache))
                    if mode == "a2g" and args.second:
                        runs["second"].append(_run(name, mode, cache))
        h, a = runs["hand"], runs["a2g"]
        hs, hc, as_, ac = (_median(h, "setup_cpu"), _median(h, "call_cpu"), _median(a, "setup_cpu"),
                           _median(a, "call_cpu"))
        process = (as_ + ac) / (hs + hc)
        call = ac / hc
        wall = (_median(a, "setup_wall") + _median(a, "call_wall")) / (_median(h, "setup_wall") + _median(h, "call_wall"))
        row = {"name": name, "process": process, "call": call, "wall": wall, "hand": h, "a2g": a}
        line = (f"{name:34s} {hs:8.2f}+{hc:5.2f} s {'':5s} {as_:8.2f}+{ac:5.2f} s {process:7.2f}x {call:6.2f}x"
                f" {wall:6.2f}x")
        if args.second:
            row["second"] = statistics.median(s["call_cpu"] / f["call_cpu"] for s, f in zip(runs["second"], a))
            line += f"  {row['second'] * 100:5.1f} %"
        print(line, flush=True)
        rows.append(row)
    print(f"median ratio: process {statistics.median(r['process'] for r in rows):.2f}x, "
          f"call {statistics.median(r['call'] for r in rows):.2f}x, "
          f"process wall {statistics.median(r['wall'] for r in rows):.2f}x"
          + (f", second/first {statistics.median(r['second'] for r in rows) * 100:.1f} %" if args.second else ""))
    return 0


_START_WALL = _START_CPU = 0.0

if __name__ == "__main__":
    sys.exit(main())
