"""The hunt corpus's registry (a ``benchmarks.corpus16.registry.Registry``).

Programs are written the way people write models and numerical code; a
program whose converted result differs from eager is a compiler bug, listed in
``XFAIL`` with the reason until it is fixed, never "fixed" in the program.
"""

from __future__ import annotations

from benchmarks.corpus16.registry import Registry

CATEGORIES = {
    "models": "models (layers, attention, classes, dataclasses, NamedTuples)",
    "training": "training loops (optimisers, early stopping, logging)",
    "numeric": "numerical methods (tolerance loops, root finding, ODEs, solvers)",
    "numpy": "NumPy code (float64, in-place writes, argument mutation)",
    "pynum": "Python numbers (int()/float()/.item(), overflow, //, %, nan/inf, -0.0)",
    "control": "control flow (early returns, break/continue, try/finally, raise, with, recursion)",
    "state": "state (globals, caches, closures, nonlocal, objects, default arguments)",
    "containers": "containers (dict order, comprehensions, generators, sorting, *args/**kwargs)",
    "aliasing": "aliasing and in-place writes (views, rows bound before the base is written, += on lists/dicts)",
    "dtypes": "dtype promotion and result kinds (float32 + float64, bool, int32 wrap, //, %, NumPy scalars)",
    "effects": "exceptions and printed output (effects before a raise, messages, finally, with, generators)",
    "objects": "objects (properties, __call__, class attributes, dataclasses, NamedTuples, closures, recursion)",
    "edges": "edge semantics (integer division by zero, nan casts and ordering, reduction dtypes, domain errors)",
}

# name -> what differs from eager today (xfail, strict, in tests/test_hunt_corpus.py)
XFAIL: dict[str, str] = {
    "print_options_changed_between_calls": "XLA CPU contracts np.linalg.norm's x * x and its sum into fused "
                                           "multiply-adds (jax.jit of jnp.linalg.norm does the same): the float64 "
                                           "norm differs from NumPy's by an ulp, and its printed repr in the last digit",
}

# of XFAIL: those whose difference depends on the host CPU (XLA's CPU code
# generation: whether it contracts into a fused multiply-add and how it splits a
# reduction into vector lanes differ between an Intel and an AMD EPYC core with
# AVX-512); their xfail is not strict, an equal result on another CPU is not a failure
XFAIL_ON_SOME_CPUS: set[str] = {"print_options_changed_between_calls"}

# name -> why its conversion does not finish (not run)
HANGS: dict[str, str] = {}

HUNT = Registry("hunt corpus", "benchmarks.hunt",
                ["models", "training", "numeric", "numpy_code", "pynum", "control", "state", "containers",
                 "aliasing", "dtypes", "effects", "objects", "edges",
                 "outside", "kinds", "loops"],
                CATEGORIES, XFAIL, HANGS)
program = HUNT.program
stateful = HUNT.stateful
load_all = HUNT.load_all
