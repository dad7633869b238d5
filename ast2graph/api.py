"""The user API: ``to_static``, ``explain``, ``clear_caches``.

Requires: ``runtime`` (the converted function object and its call
machinery), ``typeinfer.Options``.
Produces: ``to_static(fn, **options)`` (options checked here, at
decoration), ``explain(f)(*args)``, ``clear_caches()``; the public classes
``StaticFunction``, ``Explanation`` and ``RecompileWarning`` (defined in
``runtime``); at import, a warning when JAX is older than ``MIN_JAX`` and
JAX's persistent compilation cache in ast2graph's folder (``cache.py``).
Invariants: ``to_static(f)(*a)`` equals ``f(*a)``; a function that cannot be
converted at all runs eagerly with a warning (never a crash) unless
``full_graph=True``, which turns every fallback into a ``FullGraphError``.

Per call (the pipeline of DESIGN.md)::

    parse → resolve → ssa            once per code object (``unit_of_function``)
    typeinfer → verify → lower → jit once per segment and call signature
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import jax
import numpy as np

from .cache import enable_persistent_cache
from .runtime.explanation import Explanation
from .runtime.function import StaticFunction
from .runtime.jit_options import JitOptions
from .runtime.state import RecompileWarning
from .typeinfer import Options

__all__ = ["Explanation", "RecompileWarning", "StaticFunction", "clear_caches", "explain", "to_static"]


MIN_JAX = (0, 8, 0)   # pyproject.toml's jax>= bound, the version .ci/lowest-jax tests (jax.enable_x64)


def check_jax_version(version: str) -> None:
    """Warn, once at import, when JAX is older than the lowest tested
    version: a conversion that needs what it lacks then fails inside
    ast2graph (an internal error, A2G015: the statement runs in Python),
    never reported as the user's code raising."""
    parts = tuple(int(p) for p in version.split(".")[:3] if p.isdigit())
    if parts < MIN_JAX:
        warnings.warn(f"ast2graph needs jax>={'.'.join(map(str, MIN_JAX))}, found jax {version}: conversions that "
                      "need what it lacks (jax.enable_x64, for graphs with 64-bit values) fail as internal errors "
                      "(A2G015) and run in Python; upgrade jax and jaxlib", stacklevel=3)


check_jax_version(jax.__version__)
enable_persistent_cache()   # JAX's compilation cache in ast2graph's folder, unless the user set JAX's own (cache.py)


_UNSET = object()


def _int_option(name: str, value: Any, low: int, alternatives: str = "") -> int:
    """``value`` as an int >= ``low`` (a NumPy integer too; a bool is not an
    int here): TypeError or ValueError naming the option and the value."""
    what = alternatives + ("a non-negative int" if low == 0 else f"an int >= {low}" if low > 1 else "a positive int")
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"to_static: {name} must be {what}, not {value!r}")
    if value < low:
        raise ValueError(f"to_static: {name} must be {what}, not {value!r}")
    return int(value)


def _flag_option(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"to_static: {name} must be True or False, not {value!r}")
    return bool(value)


def to_static(fn: Callable | None = None, *, full_graph: bool = False, unroll_limit: int = 16,
              max_unroll: int = 512, static_values: int = 4, max_iters: int | None = None,
              exact_rounding: bool = True, in_shardings: Any = _UNSET, out_shardings: Any = _UNSET,
              donate_argnums: int | tuple[int, ...] | None = None,
              donate_argnames: str | tuple[str, ...] | None = None) -> Any:
    """Convert ``fn`` to a graph function (usable as ``@to_static`` or ``@to_static(...)``).

    ``unroll_limit``: static trip counts up to this unroll, above it loops roll.
    ``max_unroll``: a loop that cannot roll unrolls up to this many iterations.
    ``static_values``: a Python number argument is static until it has taken
    this many different values, then traced (no recompile storms).
    ``max_iters``: None (default): a ``while`` with a traced condition becomes
    ``lax.while_loop`` and a ``for`` over a ``range`` with a traced bound
    ``lax.fori_loop``, which ``jax.grad`` cannot reverse-differentiate. An int
    N: each such loop becomes a ``lax.scan`` of N steps, each running the body
    only while the loop condition holds, so ``jax.grad`` works through it; a
    loop that would still iterate after N iterations raises ``LoopBoundError``
    (naming the loop's file and line) instead of returning a truncated result.
    Loops with a static trip count are unaffected.
    ``exact_rounding``: True (default): every floating-point op rounds as
    eager's op by op, where XLA would fuse a multiplication into the add or
    subtract that uses its product (one fused multiply-add, rounded once:
    ``a * 10.0 - inf`` is -inf, not eager's nan; ``a * d - b * c`` of a
    singular matrix is not 0.0) or rewrite a division across the ops that
    made its operands (``a / sqrt(b)`` as ``a * rsqrt(b)``, ``a / b / c`` as
    ``a / (b * c)``). False: XLA may, faster in arithmetic-bound code (a
    polynomial by Horner's rule) and off eager by a rounding there.

    ``in_shardings``, ``out_shardings``, ``donate_argnums``, ``donate_argnames``:
    as for ``jax.jit`` (``in_shardings``/``donate_argnums`` index the
    parameters the caller fills; a ``Sharding`` or None per parameter, or one
    for all). Passed to ``jax.jit`` when the whole function is one graph;
    otherwise the arguments' and the result's ``jax.Array`` leaves are placed
    with ``jax.device_put`` (``with_sharding_constraint`` under an outer
    transform) and donation is ignored. NumPy arrays and Python numbers are
    never moved or donated, nor is an argument the function returns unchanged
    (``jit_options.py``).

    Every option is checked here, not at the first call: a wrong type is a
    ``TypeError``, a value out of range a ``ValueError``, each naming the
    option, the value and what it must be (``bool`` is not an int here)."""
    if fn is not None and not callable(fn):
        raise TypeError(f"to_static: fn must be a callable (a function, method, functools.partial or object "
                        f"with __call__), not {fn!r}")
    options = Options(full_graph=_flag_option("full_graph", full_graph),
                      unroll_limit=_int_option("unroll_limit", unroll_limit, 0),
                      max_unroll=_int_option("max_unroll", max_unroll, 0),
                      static_values=_int_option("static_values", static_values, 0),
                      max_iters=None if max_iters is None else _int_option("max_iters", max_iters, 1, "None or "),
                      exact_rounding=_flag_option("exact_rounding", exact_rounding))
    jit_options = JitOptions.make(in_shardings, out_shardings, donate_argnums, donate_argnames, _UNSET)
    if fn is None:
        return lambda f: StaticFunction(f, options, jit_options)
    return StaticFunction(fn, options, jit_options)


def explain(fn: Callable) -> Callable[..., Explanation]:
    """``explain(f)(*args)``: run one call and return what happened."""
    static = fn if isinstance(fn, StaticFunction) else to_static(fn)
    return static.explain


def clear_caches(source_files: bool = True) -> None:
    """Forget what ast2graph keeps between conversions: parsed functions with
    their CFG/SSA, and the result types of ops; with ``source_files`` also the
    parsed source files. Functions already converted keep their compiled
    graphs (as ``jax.clear_caches`` leaves a ``jax.jit`` object usable). For
    releasing memory in a long-running process, and for measuring a cold
    conversion (benchmarks/conversion.py)."""
    from .parser import _CODE_CACHE
    from .parser.source import _FILES
    from .typeinfer.interpreter import _EVAL_CACHE
    from .typeinfer.precision import _PROBE_CACHE
    from .typeinfer.state import _NESTED_UNITS

    for cache in (_CODE_CACHE, _NESTED_UNITS, _EVAL_CACHE, _PROBE_CACHE) + ((_FILES,) if source_files else ()):
        cache.clear()
