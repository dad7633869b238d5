"""What eager NumPy gives for a call, read by running it once on exemplar data.

Requires: ``ir.core`` (``Value``); nothing of the interpreter.
Produces: ``eager_probe(fn, treedef, leaves)``: ``fn`` (a NumPy function,
pure or writing into its arguments) run once on exemplar data of the graph
values' shapes, dtypes and eager kinds (``exemplar``; static leaves as they
are, NumPy arrays among them copied first), cached per function and
signature: a ``Probe`` with the flat result, which results share memory with
which array operands (views), and which array operands the call wrote into;
``leaf_kind(x)``: the eager kind of one result leaf ("python", "numpy",
"array0": a 0-d ndarray, None: not an array or number).
Invariants: a probe never touches the user's objects (every array operand is
a copy); a probe that raises, warns into an error or returns objects yields
None, and the caller keeps what it knew without it. Exemplar values are
floats in [0.5, 1.5] (nonzero, positive, not integral: rarely a special
case), ints and bools 0: what depends on the data (ties, trimmed zeros,
singular matrices) is not seen here (``numpy_api.DATA_DEPENDENT``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from ..ir.core import Value

PROBE_SEED = 20141
_FULL_SIZE = 1 << 14      # operands up to this many elements are probed at their own shapes
_MAX_SIZE = 1 << 22       # beyond this, only shapes shrunk to 2 per axis are tried
_CACHE: dict[tuple, Any] = {}
_CACHE_SIZE = 512         # (a probe holds its exemplars' results: a few MiB at most in all)
_FAILED = object()


@dataclass(frozen=True)
class Probe:
    """One eager run: ``result`` (what ``fn`` returned), its flat ``leaves``;
    ``shares[i]``: the leaf positions of the array operands that result leaf
    ``i`` shares memory with; ``written``: the leaf positions of array
    operands the call changed; ``shrunk``: shapes were shrunk (result shapes
    are not the graph's)."""

    result: Any
    leaves: list
    shares: list
    written: list
    shrunk: bool
    after: dict   # leaf position -> the operand's data after the call, for each written one


def exemplar(v: Value, rng: np.random.Generator, shrink: bool = False) -> Any:
    """An object of ``v``'s eager kind (a Python number, a NumPy scalar, a 0-d
    or shaped ndarray, a jax.Array) holding exemplar data."""
    t = v.type
    shape = tuple(min(d, 2) for d in t.shape) if shrink else t.shape
    data = np.zeros(shape, t.dtype)
    if t.dtype.kind in "fc":
        data = rng.uniform(0.5, 1.5, shape).astype(t.dtype)
    if t.python:
        return data.item()
    if t.numpy:
        return data[()] if not shape and not t.array0 else data
    import jax.numpy as jnp

    return jnp.asarray(data)


def leaf_kind(x: Any) -> str | None:
    """The eager kind of a result object: "python" (a Python number), "numpy"
    (an ndarray or a NumPy scalar), "array0" (a 0-d ndarray), None otherwise."""
    if type(x) in (bool, int, float, complex):
        return "python"
    if isinstance(x, np.ndarray):
        return "array0" if x.ndim == 0 else "numpy"
    if isinstance(x, np.generic):
        return "numpy"
    return None


def too_large(leaves: list) -> bool:
    """Whether the static ints among ``leaves`` may ask for a result too
    large to make at trace time (``np.full((10**4, 10**4), v)``): no probe."""
    statics = [abs(int(x)) for x in leaves if type(x) is int]
    return bool(statics) and float(np.prod(statics, dtype=np.float64)) > _MAX_SIZE


def call_key(fn: Any, treedef: Any, leaves: list) -> tuple | None:
    """A hashable key of a call by what decides its verdict: each traced
    operand's shape, dtype and kinds, a small static array's values, every
    other static by value (None where one is unhashable or an array large)."""
    parts = []
    for x in leaves:
        if isinstance(x, Value):
            t = x.type
            parts.append((Value, t.shape, t.dtype, t.kinds))
        elif isinstance(x, np.ndarray):   # a static array: its values may matter (indices)
            if x.size > 64:
                return None
            parts.append((np.ndarray, x.shape, x.dtype, x.tobytes()))
        elif type(x) in (float, complex):
            parts.append((type(x), repr(x)))
        else:
            parts.append((type(x), x))
    key = (fn, treedef, tuple(parts))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _size(leaves: list) -> int:
    return sum(int(np.prod(x.type.shape)) for x in leaves if isinstance(x, Value))


def _run(fn: Any, treedef: Any, leaves: list, shrink: bool) -> Probe:
    rng = np.random.default_rng(PROBE_SEED)
    dummies = [exemplar(x, rng, shrink) if isinstance(x, Value) else x.copy() if isinstance(x, np.ndarray) else x
               for x in leaves]
    before = [d.copy() if isinstance(d, np.ndarray) else None for d in dummies]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
        result = fn(*args, **kwargs)
    out = jax.tree_util.tree_leaves(result)
    arrays_in = [(k, d) for k, d in enumerate(dummies) if isinstance(d, np.ndarray)]
    shares = [[k for k, d in arrays_in if isinstance(o, np.ndarray) and np.shares_memory(o, d)] for o in out]
    written = [k for k, d in arrays_in if d.dtype.kind != "O" and not np.array_equal(d, before[k], equal_nan=True)]
    return Probe(result, out, shares, written, shrink, {k: dummies[k] for k in written})


def eager_probe(fn: Any, treedef: Any, leaves: list) -> Probe | None:
    """``fn`` run on exemplars of ``leaves`` (graph values) and the static
    leaves as they are: at the operands' own shapes when they are small,
    else shrunk to at most 2 per axis (then at their own shapes if that
    raised and they are not huge). None where every try raised."""
    key = call_key(fn, treedef, leaves)
    hit = _CACHE.get(key) if key is not None else None
    if hit is not None:
        return None if hit is _FAILED else hit
    if too_large(leaves):
        return None
    size = _size(leaves)
    tries = (False,) if size <= _FULL_SIZE else (True, False) if size <= _MAX_SIZE else (True,)
    probe = None
    for shrink in tries:
        try:
            probe = _run(fn, treedef, leaves, shrink)
            break
        except Exception:  # noqa: BLE001 - eager raised on these exemplars: nothing learnt
            continue
    if key is not None:
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = _FAILED if probe is None else probe
    return probe


_SAME_CACHE: dict[tuple, str] = {}


def _differ(eager: Any, mine: Any, wide: tuple[float, float] = (1e-7, 1e-9)) -> str:
    """Why the result ``mine`` of the graph's op on the exemplars is not
    NumPy's ``eager`` (another number of results, shape or values), or "".
    ``wide``: the tolerance (rtol, atol) of a 64-bit float result."""
    e_leaves, m_leaves = jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(mine)
    if len(e_leaves) != len(m_leaves):
        return f"{len(m_leaves)} results where NumPy gives {len(e_leaves)}"
    for k, (e, m) in enumerate(zip(e_leaves, m_leaves)):
        if not isinstance(e, (np.ndarray, np.generic, bool, int, float, complex)):
            continue
        e, m = np.asarray(e), np.asarray(m)
        if e.shape != m.shape:
            return f"shape {m.shape} where NumPy gives {e.shape} (result {k})"
        if e.dtype.kind not in "biufc" or m.dtype.kind not in "biufc":
            continue
        if e.dtype.kind in "biu" and m.dtype.kind in "biu":
            same = np.array_equal(e, m)
        else:
            tight = e.dtype.itemsize >= 8 and e.dtype.kind == "f" or e.dtype.itemsize >= 16
            rtol, atol = wide if tight else (1e-3, 1e-5)
            with np.errstate(all="ignore"):
                same = np.allclose(m, e, rtol=rtol, atol=atol, equal_nan=True)
        if not same:
            return f"other values than NumPy's (result {k})"
    return ""


def differs(callee: Any, fn: Any, treedef: Any, leaves: list, raises_checked: bool = False) -> str:
    """Why ``fn`` (the graph's op for the NumPy function ``callee``: its JAX
    namesake) does not compute what ``callee`` computes on these operands,
    found by running both once on the same exemplar data (JAX with x64 on,
    at NumPy's precision), or "": the same number of results, shapes and
    values. NumPy raising where JAX does not (``np.percentile(x, 150)``)
    differs too, unless NumPy raised ``LinAlgError`` (the data of the
    exemplars: a singular matrix) or ``raises_checked`` (the graph checks
    the data NumPy raises for at run time). Cached per function and signature."""
    key = call_key((callee, fn, raises_checked), treedef, leaves)
    hit = _SAME_CACHE.get(key) if key is not None else None
    if hit is not None:
        return hit
    if too_large(leaves):
        return ""   # (not compared: the op as it is, as before these checks)
    probe = eager_probe(callee, treedef, leaves)
    why = ""
    try:
        shrink = probe.shrunk if probe is not None else _size(leaves) > _FULL_SIZE
        rng = np.random.default_rng(PROBE_SEED)
        dummies = [exemplar(x, rng, shrink) if isinstance(x, Value) else x.copy() if isinstance(x, np.ndarray) else x
                   for x in leaves]
        with warnings.catch_warnings(), np.errstate(all="ignore"), jax.enable_x64(True):
            warnings.simplefilter("ignore")
            mine = _run_jitted(fn, treedef, dummies, leaves)
            if probe is None:
                why = "" if raises_checked else _eager_error(callee, treedef, dummies)
            else:
                why = _differ(probe.result, mine)
    except Exception:  # noqa: BLE001 - the graph's op raised on the exemplars: the trace will say so
        why = ""
    if key is not None:
        if len(_SAME_CACHE) >= _CACHE_SIZE:
            _SAME_CACHE.clear()
        _SAME_CACHE[key] = why
    return why


def _probe_cached(tag: str, callee: Any, fn: Any, treedef: Any, leaves: list, make: Any, compare: Any) -> str:
    """The frame of ``differs_at_width`` and ``differs_wrapping``: exemplars
    of the graph values made by ``make(value, rng)`` (arrays copied), NumPy's
    ``callee`` run on them, then ``compare(eager, dummies)``'s reason (""
    where NumPy or the op raises on them, or the operands are large). Cached
    per call signature."""
    key = call_key((tag, callee, fn), treedef, leaves)
    hit = _SAME_CACHE.get(key) if key is not None else None
    if hit is not None:
        return hit
    if too_large(leaves) or _size(leaves) > _FULL_SIZE:
        return ""
    rng = np.random.default_rng(PROBE_SEED)
    dummies = [make(x, rng) if isinstance(x, Value) else x.copy() if isinstance(x, np.ndarray) else x
               for x in leaves]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
            eager = callee(*args, **kwargs)
        with warnings.catch_warnings(), np.errstate(all="ignore"), jax.enable_x64(True):
            warnings.simplefilter("ignore")
            why = compare(eager, dummies)
    except Exception:  # noqa: BLE001 - NumPy or the op refuses these exemplars: nothing learnt here
        why = ""
    if key is not None:
        if len(_SAME_CACHE) >= _CACHE_SIZE:
            _SAME_CACHE.clear()
        _SAME_CACHE[key] = why
    return why


def differs_at_width(callee: Any, fn: Any, treedef: Any, leaves: list) -> str:
    """Why ``fn`` (the graph's op for the NumPy function ``callee``, JAX with
    x64 on) does not compute what ``callee`` computes on operands of mixed
    float widths (``numpy_api.narrow_steps``), or "". The exemplars hold
    values whose float32 rounding shows (normal data times 7, not the
    [0.5, 1.5] of ``exemplar``, whose neighbours subtract exactly), and a
    64-bit result is compared at the tolerance a test compares it with
    (rtol 1e-11): NumPy computing a step at the narrow width shows as a
    last-bit difference. "" also where NumPy raises on these exemplars or
    the op cannot run on them (the usual checks decide). Cached."""
    def compare(eager: Any, dummies: list) -> str:
        widest = max((np.asarray(e).dtype for e in jax.tree_util.tree_leaves(eager)
                      if np.asarray(e).dtype.kind in "fc"), key=lambda d: d.itemsize, default=None)
        if widest is not None:   # the graph casts the operands to NumPy's result dtype first (``precision``)
            dummies = [np.asarray(d).astype(widest) if isinstance(x, Value) and np.asarray(d).dtype.kind in "fc"
                       and np.asarray(d).dtype.itemsize < widest.itemsize else d for d, x in zip(dummies, leaves)]
        return _differ(eager, _run_jitted(fn, treedef, dummies, leaves), (1e-11, 1e-13))

    return _probe_cached("width", callee, fn, treedef, leaves, _rough, compare)


def differs_wrapping(callee: Any, fn: Any, treedef: Any, leaves: list) -> str:
    """Why ``fn`` (the graph's op for the NumPy function ``callee``, JAX with
    x64 on) does not compute what ``callee`` computes on integer or boolean
    operands narrower than 64 bits (``numpy_api.narrow_ints``), or "". NumPy's
    Python may compute a step at the operand's own width, where it wraps
    (``np.trapezoid`` of uint8: ``y[1:] + y[:-1]`` in uint8; of booleans: a
    logical or), and the op widens first: ``exemplar``'s zeros cannot show
    it, so the exemplars here hold values near the dtype's limits (booleans
    of both values). "" also where NumPy or the op raises on them. Cached."""
    def compare(eager: Any, dummies: list) -> str:
        mine = _run_jitted(fn, treedef, dummies, leaves)
        expected = {np.asarray(e).dtype for e in jax.tree_util.tree_leaves(eager)}
        got = {np.asarray(g).dtype for g in jax.tree_util.tree_leaves(mine)}
        if len(expected) == 1 and expected != got:
            # the graph computes integer operands at NumPy's result dtype (``precise_eval``: an exact widening)
            target = next(iter(expected))
            dummies = [np.asarray(d).astype(target) if isinstance(x, Value) and np.asarray(d).dtype.kind in "biu"
                       else d for d, x in zip(dummies, leaves)]
            mine = _run_jitted(fn, treedef, dummies, leaves)
        why = _differ(eager, mine, (1e-11, 1e-13))
        return f"NumPy computes at its operands' integer width, where it wraps ({why})" if why else ""

    return _probe_cached("wrap", callee, fn, treedef, leaves, _extreme, compare)


def _extreme(v: Value, rng: np.random.Generator) -> Any:
    """``exemplar`` of ``v`` with integers of narrow dtypes near their limits
    (a sum of two wraps) and booleans of both values."""
    t = v.type
    if t.dtype.kind in "iu" and t.dtype.itemsize < 8:
        info = np.iinfo(t.dtype)
        span = max(int(info.max) // 8, 1)
        high = rng.integers(int(info.max) - span, int(info.max), t.shape, endpoint=True)
        low = rng.integers(int(info.min), int(info.min) + span, t.shape, endpoint=True)
        # mostly high (neighbours' sums wrap one way, not cancelling), every fourth low (differences wrap)
        data = np.where(np.arange(int(np.prod(t.shape))).reshape(t.shape) % 4 == 0, low, high).astype(t.dtype)
    elif t.dtype.kind == "b":
        data = np.arange(int(np.prod(t.shape))).reshape(t.shape) % 3 != 1
    else:
        return exemplar(v, rng)
    if t.python:
        return data.item()
    if t.numpy:
        return data[()] if not t.shape and not t.array0 else data
    import jax.numpy as jnp

    return jnp.asarray(data)


def _rough(v: Value, rng: np.random.Generator) -> Any:
    """``exemplar`` of ``v`` with floats whose rounding at 32 bits shows
    (normal data times 7) and small non-negative ints."""
    t = v.type
    if t.dtype.kind in "fc":
        data = (rng.standard_normal(t.shape) * 7).astype(t.dtype)
    elif t.dtype.kind in "iu":
        data = rng.integers(0, 5, t.shape).astype(t.dtype)
    else:
        data = np.zeros(t.shape, t.dtype)
    if t.python:
        return data.item()
    if t.numpy:
        return data[()] if not t.shape and not t.array0 else data
    import jax.numpy as jnp

    return jnp.asarray(data)


def eager_raises(callee: Any, treedef: Any, leaves: list, raises_checked: bool = False) -> str:
    """Why NumPy's ``callee`` raises on exemplars of these operands (its
    static arguments as they are: ``np.percentile(x, 150)``), or "" (it
    does not, it raised ``LinAlgError``, or ``raises_checked``: the graph
    checks the data at run time). NumPy alone runs: no JAX compilation."""
    if raises_checked or too_large(leaves) or eager_probe(callee, treedef, leaves) is not None:
        return ""
    shrink = _size(leaves) > _FULL_SIZE
    rng = np.random.default_rng(PROBE_SEED)
    dummies = [exemplar(x, rng, shrink) if isinstance(x, Value) else x.copy() if isinstance(x, np.ndarray) else x
               for x in leaves]
    return _eager_error(callee, treedef, dummies)


def _run_jitted(fn: Any, treedef: Any, dummies: list, leaves: list) -> Any:
    """``fn`` on the exemplars as one compiled JAX function (the exemplars
    of graph values among ``leaves`` traced, static leaves as they are):
    one compilation, not one per op."""
    positions = [k for k, (d, x) in enumerate(zip(dummies, leaves))
                 if isinstance(x, Value) and isinstance(d, (np.ndarray, np.generic))]

    def run(*arrays: Any) -> Any:
        filled = list(dummies)
        for k, a in zip(positions, arrays):
            filled[k] = a
        args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
        return fn(*args, **kwargs)

    return jax.jit(run)(*[dummies[k] for k in positions])


def _eager_error(callee: Any, treedef: Any, dummies: list) -> str:
    """Why NumPy's ``callee`` raises on the exemplars where the graph's op does not ("" for a LinAlgError)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            args, kwargs = jax.tree_util.tree_unflatten(treedef, dummies)
            callee(*args, **kwargs)
    except np.linalg.LinAlgError:
        return ""
    except Exception as e:  # noqa: BLE001 - NumPy's own error for these arguments
        return f"NumPy raises {type(e).__name__} ({str(e)[:80]}) where it does not"
    return ""


def write_differs(callee: Any, update: Any, treedef: Any, leaves: list, position: int) -> str:
    """Why ``update`` (a functional rule for the NumPy function ``callee``,
    which writes into its operand at leaf ``position``) does not give the
    data NumPy writes, found on exemplar data (cached like ``differs``), or
    "". NumPy raising on the exemplars (a casting it refuses, an index out
    of bounds) differs: the call falls back and eager raises."""
    key = call_key(("write", callee, update, position), treedef, leaves)
    hit = _SAME_CACHE.get(key) if key is not None else None
    if hit is not None:
        return hit
    probe = eager_probe(callee, treedef, leaves)
    if probe is None:
        why = "NumPy raises on these arguments"
    else:
        try:
            rng = np.random.default_rng(PROBE_SEED)
            dummies = [exemplar(x, rng, probe.shrunk) if isinstance(x, Value) else
                       x.copy() if isinstance(x, np.ndarray) else x for x in leaves]
            with warnings.catch_warnings(), np.errstate(all="ignore"), jax.enable_x64(True):
                warnings.simplefilter("ignore")
                mine = np.asarray(_run_jitted(update, treedef, dummies, leaves))
            theirs = probe.after.get(position, dummies[position])
            why = "" if mine.shape == np.shape(theirs) and mine.dtype == np.asarray(theirs).dtype and \
                np.array_equal(mine, theirs, equal_nan=True) else "its functional form writes other data than NumPy's"
        except Exception as e:  # noqa: BLE001 - the rule does not take these arguments
            why = f"its functional form raised {type(e).__name__} on these arguments"
    if key is not None:
        if len(_SAME_CACHE) >= _CACHE_SIZE:
            _SAME_CACHE.clear()
        _SAME_CACHE[key] = why
    return why
