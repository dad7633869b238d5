"""A Newton solver with a ``while`` on a tensor tolerance, converted to one graph.

Run: ``python examples/newton_solver.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import explain, to_static
from timing import median_time


def newton_sqrt(a, tol=1e-3, max_iter=50):
    """Elementwise square roots of ``a`` by Newton's method."""
    x = jnp.where(a > 1.0, a / 2.0, 1.0)
    it = 0
    while jnp.max(jnp.abs(x * x - a)) > tol and it < max_iter:
        x = 0.5 * (x + a / x)
        it += 1
    if it == max_iter:
        x = jnp.full_like(x, jnp.nan)
    return x, it


def main() -> int:
    a = jnp.linspace(0.5, 400.0, 1000)
    solver = to_static(newton_sqrt, full_graph=True)
    x_eager, it_eager = newton_sqrt(a)
    e = explain(solver)(a)
    x_static, it_static = e.result
    same = bool(jnp.allclose(x_eager, x_static, equal_nan=True)) and int(it_eager) == int(it_static)
    t_eager, t_static = median_time(newton_sqrt, a, repeat=50), median_time(solver, a, repeat=50)
    print(f"Newton sqrt of 1000 values: {int(it_eager)} iterations")
    print(f"  eager == to_static: {same}")
    print(f"  eager call:     {t_eager * 1e3:8.3f} ms (median of 50)")
    print(f"  to_static call: {t_static * 1e3:8.3f} ms (median of 50; {t_eager / t_static:.1f}x faster)")
    print()
    print(e)
    return 0 if same and e.graph_count == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
