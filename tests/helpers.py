"""The one conversion-test helper: run eager, run converted, compare everything.

``check(fn, *args)`` runs ``fn`` eagerly and ``to_static(fn)`` on copies of the
same arguments and compares: the returned values (structure, and values within
a float tolerance, and the kind of every leaf: a Python number, a NumPy array
or scalar, a jax.Array, as eager returns it), what was printed, the exception type and message if eager
raised, and the arguments afterwards (mutations). With ``full_graph=True`` any
fallback fails the test; ``graphs=`` asserts how many compiled segments ran.
"""

from __future__ import annotations

import contextlib
import copy
import io
from typing import Any, Callable

import jax
import numpy as np

from ast2graph import explain, to_static


def _run(fn: Callable, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args, **kwargs), None, out.getvalue()
        except Exception as e:  # noqa: BLE001
            return None, e, out.getvalue()


def _kind(x: Any) -> str:
    """What a leaf is, as a user sees it: a jax.Array, a NumPy array or scalar, a Python object."""
    if isinstance(x, jax.Array):
        return "jax.Array"
    if isinstance(x, np.ndarray):
        return "numpy.ndarray"
    if isinstance(x, np.generic):
        return "numpy scalar"
    return type(x).__name__


def _tolerance(dtype: np.dtype, rtol: float, atol: float) -> tuple[float, float]:
    """64-bit values must agree to 64-bit precision (a float32 result where
    eager computes in float64 differs by ~1e-8 and must fail)."""
    if dtype.kind in "fc" and dtype.itemsize >= (8 if dtype.kind == "f" else 16):
        return min(rtol, 1e-11), min(atol, 1e-13)
    return rtol, atol


def assert_same(eager: Any, converted: Any, rtol: float = 1e-5, atol: float = 1e-6, exact_kinds: bool = True,
                path: str = "result") -> None:
    """``converted`` is what eager returned: the same structure (list vs tuple,
    dict keys in the same order, namedtuple and dataclass types), the same kind
    of every leaf (Python number, NumPy array or scalar, jax.Array), the same
    dtypes, and the same values (floats within a tolerance; 64-bit floats
    within a 64-bit one)."""
    if isinstance(eager, dict) and isinstance(converted, dict):
        assert type(eager) is type(converted), f"{path}: type differs: {type(eager)} vs {type(converted)}"
        assert list(eager) == list(converted), f"{path}: dict keys (in order) differ: {list(eager)} vs {list(converted)}"
        for k in eager:
            assert_same(eager[k], converted[k], rtol, atol, exact_kinds, f"{path}[{k!r}]")
        return
    if isinstance(eager, (list, tuple)) and isinstance(converted, (list, tuple)):
        assert type(eager) is type(converted), f"{path}: type differs: {type(eager)} vs {type(converted)}"
        assert len(eager) == len(converted), f"{path}: length differs: {len(eager)} vs {len(converted)}"
        for k, (a, b) in enumerate(zip(eager, converted)):
            assert_same(a, b, rtol, atol, exact_kinds, f"{path}[{k}]")
        return
    le, te = jax.tree_util.tree_flatten(eager)
    lc, tc = jax.tree_util.tree_flatten(converted)
    assert te == tc, f"{path}: structure differs: eager {te} vs converted {tc}"
    if te.num_leaves == 1 and len(le) == 1 and le[0] is not eager:   # a registered pytree node (a dataclass, a module)
        assert type(eager) is type(converted), f"{path}: type differs: {type(eager)} vs {type(converted)}"
    for a, b in zip(le, lc):
        assert not exact_kinds or _kind(a) == _kind(b), f"{path}: kind differs: eager {_kind(a)} {a!r} vs converted {_kind(b)} {b!r}"
        if isinstance(a, (jax.Array, np.ndarray, np.generic)) or isinstance(b, (jax.Array, np.ndarray, np.generic)):
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape, f"{path}: shape differs: {a.shape} vs {b.shape}"
            assert a.dtype == b.dtype or not exact_kinds and (np.can_cast(a.dtype, b.dtype) or np.can_cast(b.dtype, a.dtype)), \
                f"{path}: dtype differs: eager {a.dtype} vs converted {b.dtype}"
            if a.dtype.kind in "USOM":   # strings, objects, dates: exactly equal
                assert a.tolist() == b.tolist(), f"{path}: value differs: {a!r} vs {b!r}"
                continue
            r, t = _tolerance(a.dtype, rtol, atol)
            np.testing.assert_allclose(b, a, rtol=r, atol=t, err_msg=path)
        else:
            assert type(a) is type(b) or not exact_kinds and isinstance(a, (int, float, bool)), \
                f"{path}: type differs: {type(a)} vs {type(b)}"
            if type(a) is float and type(b) is float and a == a:
                # both exactly float32 values (float() of float32 data, times a power of two):
                # float32 rounding, where XLA's fused kernels may differ from eager's by an ulp
                f32 = float(np.float32(a)) == a and float(np.float32(b)) == b
                r, t = (rtol, atol) if f32 else (1e-11, 1e-13)
                assert a == b or abs(a - b) <= r * abs(a) + t, f"{path}: value differs: {a!r} vs {b!r}"
            else:
                assert a == b or (a != a and b != b), f"{path}: value differs: {a!r} vs {b!r}"


def check(fn: Callable, *args: Any, full_graph: bool = True, graphs: int | None = None,
          rtol: float = 1e-5, atol: float = 1e-6, kwargs: dict | None = None, exact_kinds: bool = True,
          warm: bool = True, **options: Any):
    """Eager vs converted on the same inputs; returns the explanation.
    ``exact_kinds=False`` only where eager's result kind depends on the data
    path (a Python number on one path, an array on the other).

    The comparison is made twice: the first (explained) call converts and
    compiles; the second, on fresh copies of the inputs, is a warm call (the
    fast path of a one-graph function). ``warm=False`` only where a second
    eager call differs from the first (state kept across calls)."""
    kwargs = kwargs or {}
    static = to_static(fn, full_graph=full_graph, **options)
    box: dict = {}

    def call(*a, **k):
        box["explanation"] = e = explain(static)(*a, **k)
        return e.result

    _compare(fn, call, args, kwargs, rtol, atol, exact_kinds)
    explanation = box.get("explanation")
    if graphs is not None and explanation is not None:
        assert explanation.graph_count == graphs, str(explanation)
    if warm:
        _compare(fn, static, args, kwargs, rtol, atol, exact_kinds, "(warm call) ")
    return explanation


def check_calls(fn: Callable, calls: list[tuple], full_graph: bool = True, rtol: float = 1e-5, atol: float = 1e-6,
                exact_kinds: bool = True, graphs: int | None = None, **options: Any) -> Any:
    """Eager vs ONE converted function over several calls, in order (each a
    tuple of positional arguments), for a ``fn`` whose eager result depends
    on its arguments only. The first call converts and compiles; later ones
    with inputs of the same types reuse that graph with new data (a check
    that fires on one call and not the next, the other side of a traced
    branch), as a user's calls do: stronger than a fresh conversion per
    input set, and a fraction of its cost. ``graphs=``: the compiled
    segments each call runs. Returns the converted function."""
    static = to_static(fn, full_graph=full_graph, **options)
    box: dict = {}

    def explained(*a: Any) -> Any:
        box["explanation"] = e = explain(static)(*a)
        return e.result

    for k, args in enumerate(calls):
        box.clear()
        _compare(fn, static if graphs is None else explained, tuple(args), {}, rtol, atol, exact_kinds,
                 f"(call {k} of {len(calls)}) ")
        if graphs is not None and "explanation" in box:
            assert box["explanation"].graph_count == graphs, f"call {k}: {box['explanation']}"
    return static


def _compare(fn: Callable, converted: Callable, args: tuple, kwargs: dict, rtol: float, atol: float,
             exact_kinds: bool, when: str = "") -> None:
    eager_args, conv_args = copy.deepcopy((args, kwargs)), copy.deepcopy((args, kwargs))
    expected, eager_exc, eager_out = _run(fn, *eager_args)
    got, conv_exc, conv_out = _run(converted, *conv_args)
    if eager_exc is not None:
        assert conv_exc is not None, f"{when}eager raised {eager_exc!r}, converted returned {got!r}"
        assert type(conv_exc) is type(eager_exc), f"{when}eager raised {eager_exc!r}, converted raised {conv_exc!r}"
        assert str(conv_exc) == str(eager_exc)
    else:
        assert conv_exc is None, f"{when}converted raised {conv_exc!r}, eager returned {expected!r}"
        assert_same(expected, got, rtol, atol, exact_kinds)
    assert conv_out == eager_out, f"{when}printed output differs:\neager: {eager_out!r}\nconverted: {conv_out!r}"
    assert_same(eager_args, conv_args, rtol, atol, exact_kinds)


def modes(explanation) -> list[tuple[str, str]]:
    """(construct, mode) of every decision, in order."""
    return [(d.construct, d.mode) for d in explanation.decisions]


def check_sequence(make: Callable[[], Any], steps: list[Callable[..., Any]], full_graph: bool = True,
                   rtol: float = 1e-5, atol: float = 1e-6, recompiles: int | None = None, **options: Any):
    """A sequence of calls with the caller's state changed between them,
    compared with the eager run of the same sequence.

    ``make()`` builds a fresh world (globals reset, objects made) and returns
    ``(fn, world)``; it is called twice, once for the eager run and once for
    the converted one (``to_static(fn, full_graph=..., **options)``), so that
    state the function itself changes (counters, appended lists) is not
    shared. Each step is ``step(fn, world)``: it may change the world, then
    calls ``fn`` and returns what to compare (the result, and whatever state
    should be equal afterwards). Results, printed output and exceptions
    (type and message) are compared step by step; ``recompiles``: how many
    recompilations the converted run may make at most. Returns the converted
    function."""
    def run(fn: Callable, world: Any) -> list:
        outs = []
        for step in steps:
            outs.append(_run(step, (fn, world), {}))
        return outs

    fn, world = make()
    eager = run(fn, world)
    fn, world = make()
    static = to_static(fn, full_graph=full_graph, **options)
    converted = run(static, world)
    for k, ((e, e_exc, e_out), (c, c_exc, c_out)) in enumerate(zip(eager, converted)):
        if e_exc is not None:
            assert c_exc is not None, f"step {k}: eager raised {e_exc!r}, converted returned {c!r}"
            assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc), \
                f"step {k}: eager raised {e_exc!r}, converted raised {c_exc!r}"
        else:
            assert c_exc is None, f"step {k}: converted raised {c_exc!r}, eager returned {e!r}"
            assert_same(e, c, rtol, atol, path=f"step {k}")
        assert c_out == e_out, f"step {k}: printed output differs:\neager: {e_out!r}\nconverted: {c_out!r}"
    if recompiles is not None:
        assert static.recompiles <= recompiles, static.recompile_reasons
    return static


# ------------------------------------------------ corpora of programs (benchmarks/corpus16, benchmarks/hunt)
def corpus_params(programs: list, hangs: dict, xfail: dict, on_some_cpus: set | frozenset = frozenset()) -> list:
    """One ``pytest.param`` per corpus program, id ``category-name``: a program
    whose conversion does not finish (``hangs``) is not run, one that differs
    from eager today (``xfail``, with the reason) is a strict xfail, unless it
    differs only on some host CPUs (``on_some_cpus``)."""
    import pytest

    out = []
    for p in programs:
        marks = []
        if p.name in hangs:
            marks.append(pytest.mark.xfail(reason=hangs[p.name], run=False))
        elif p.name in xfail:
            marks.append(pytest.mark.xfail(reason=xfail[p.name], strict=p.name not in on_some_cpus))
        out.append(pytest.param(p, id=f"{p.category}-{p.name}", marks=marks))
    return out


def check_program(prog: Any, hangs: dict | None = None, record: dict | None = None) -> None:
    """A corpus program against eager on every input set (a stateful one on
    its steps), fallbacks allowed: the corpus's single-graph rate is what its
    benchmark measures, a wrong result is never allowed. The comparison is
    ``check``'s, made by the corpus's own harness (``benchmarks.corpus16.measure``),
    whose outcome (graph counts, fallback sites) goes into ``record`` (name ->
    its JSON) for the report-agreement test of the same file: no program runs twice."""
    from benchmarks.corpus16.measure import measure

    outcome = measure(prog, hangs if hangs is not None else {})
    if record is not None:
        record[prog.name] = outcome.to_json()
    assert outcome.equal, f"{prog.name}: {outcome.error}"


# ------------------------------------------------ warnings (h-warn)
def _warned(fn: Callable, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None, str, list]:
    """``_run`` under ``warnings.catch_warnings(record=True)`` with the
    caller's filters (NumPy's "default" action included: once per location,
    as eager has it): what was returned or raised, printed, and warned."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        out = _run(fn, args, kwargs)
    return (*out, [(w.category, str(w.message), w.filename, w.lineno) for w in seen])


def check_warnings(fn: Callable, *args: Any, full_graph: bool = True, calls: int = 2, kwargs: dict | None = None,
                   rtol: float = 1e-5, atol: float = 1e-6, **options: Any):
    """``check``'s comparison (results, exceptions, printed output, the
    arguments afterwards) plus the warnings each call issues: their category,
    message, file name and line, in order, eager's against the converted
    run's, on ``calls`` calls in a row (the first converts and compiles, the
    rest are warm calls). The eager and the converted function each run in a
    fresh copy of the caller's filters; the "once per location" registries
    they fill are reset between the two runs, so each starts as eager's did.
    Returns the converted function."""
    import warnings

    kwargs = kwargs or {}
    static = to_static(fn, full_graph=full_graph, **options)
    for k in range(calls):
        eager_args, conv_args = copy.deepcopy((args, kwargs)), copy.deepcopy((args, kwargs))
        registry = fn.__globals__.get("__warningregistry__") if hasattr(fn, "__globals__") else None
        saved = dict(registry) if registry is not None else None
        expected, eager_exc, eager_out, eager_warned = _warned(fn, *eager_args)
        if registry is not None:   # the converted run starts from the registry eager started from
            registry.clear()
            registry.update(saved)
        got, conv_exc, conv_out, conv_warned = _warned(static, *conv_args)
        when = f"call {k}: "
        if eager_exc is not None:
            assert conv_exc is not None, f"{when}eager raised {eager_exc!r}, converted returned {got!r}"
            assert type(conv_exc) is type(eager_exc) and str(conv_exc) == str(eager_exc), \
                f"{when}eager raised {eager_exc!r}, converted raised {conv_exc!r}"
        else:
            assert conv_exc is None, f"{when}converted raised {conv_exc!r}, eager returned {expected!r}"
            assert_same(expected, got, rtol, atol)
        assert conv_out == eager_out, f"{when}printed output differs:\neager: {eager_out!r}\nconverted: {conv_out!r}"
        assert_same(eager_args, conv_args, rtol, atol)
        assert conv_warned == eager_warned, \
            f"{when}warnings differ:\neager:     {eager_warned}\nconverted: {conv_warned}"
    return static
