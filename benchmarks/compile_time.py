"""XLA compile time and run time of a 10,000-iteration ``for i in range(n)``
loop converted by ast2graph against a hand-written ``lax.fori_loop`` (issue 3).

Run: ``.venv/bin/python benchmarks/compile_time.py``. Compile time is
``jitted.lower(*args).compile()`` of the two jitted functions (ast2graph's
conversion is excluded and printed apart); run time is the warm median.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
from programs import sin_accumulate, sin_accumulate_lax  # noqa: E402
from timing import median_time  # noqa: E402  (examples/timing.py)

from ast2graph import explain, to_static  # noqa: E402


def _compile_time(jitted, *args, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        jax.clear_caches()
        lowered = jitted.lower(*args)
        t0 = time.perf_counter()
        lowered.compile()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    n = 10_000
    x = jnp.linspace(0.0, 1.0, 256)
    e = explain(to_static(sin_accumulate, full_graph=True))(x, n)
    plan = e.graphs[0]
    ours = plan.jitted
    hand = jax.jit(lambda x: sin_accumulate_lax(x, n))
    same = bool(np.allclose(e.result, hand(x), rtol=1e-4, atol=1e-3))
    c_ours, c_hand = _compile_time(ours, x), _compile_time(hand, x)
    r_ours, r_hand = median_time(ours, x), median_time(hand, x)
    print(f"10,000-iteration for-range loop, x of 256 floats; jax {jax.__version__}, {jax.devices()[0].platform}")
    print(f"  decisions: {[f'{d.construct} -> {d.mode}' for d in e.decisions]}; graphs: {e.graph_count}; equal: {same}")
    print(f"  conversion (parse -> lowered function): {plan.conversion_seconds * 1e3:.1f} ms")
    print(f"  XLA compile: ast2graph {c_ours * 1e3:.1f} ms, hand-written {c_hand * 1e3:.1f} ms, ratio {c_ours / c_hand:.2f}x (goal <= 2x)")
    print(f"  run:         ast2graph {r_ours * 1e3:.2f} ms, hand-written {r_hand * 1e3:.2f} ms, ratio {r_ours / r_hand:.3f}x (goal <= 1.05x)")
    return 0 if same and e.graph_count == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
