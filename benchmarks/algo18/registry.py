"""h-algo18's corpus registry (a ``benchmarks.corpus16.registry.Registry``).

Programs are written the way people write numerical code; a program whose
converted result differs from eager is a compiler bug, listed in ``XFAIL``
with the reason until it is fixed, never "fixed" in the program.
"""

from __future__ import annotations

from benchmarks.corpus16.registry import Registry

CATEGORIES = {
    "dp_graphs": "dynamic programming and graphs (Viterbi, edit distance, Floyd-Warshall, union-find, BFS)",
    "linalg": "linear algebra by loops (pivoting, LU, Cholesky, Jacobi, CG, power iteration)",
    "solvers": "root finding, integration and ODEs (secant, golden section, RK4/adaptive, Simpson, Romberg)",
    "simulation": "simulations and samplers (bouncing particles, Life, Kalman, Metropolis, k-means)",
    "ml": "ML loops (sampling, early stopping, schedules, clipping, attention, Adam)",
    "arrays": "array algorithms (sorting, binary search, prefix sums, Welford, histograms, peaks)",
}

# name -> what differs from eager today
XFAIL: dict[str, str] = {}

# name -> why its conversion does not finish (not run)
HANGS: dict[str, str] = {}

ALGO18 = Registry("h-algo18 corpus", "benchmarks.algo18", ["programs"], CATEGORIES, XFAIL, HANGS)
program = ALGO18.program
load_all = ALGO18.load_all
