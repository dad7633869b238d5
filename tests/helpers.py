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


def assert_same(eager: Any, converted: Any, rtol: float = 1e-5, atol: float = 1e-6, exact_kinds: bool = True) -> None:
    le, te = jax.tree_util.tree_flatten(eager)
    lc, tc = jax.tree_util.tree_flatten(converted)
    assert te == tc, f"structure differs: eager {te} vs converted {tc}"
    for a, b in zip(le, lc):
        assert not exact_kinds or _kind(a) == _kind(b), f"kind differs: eager {_kind(a)} {a!r} vs converted {_kind(b)} {b!r}"
        if isinstance(a, (jax.Array, np.ndarray, np.generic)) or isinstance(b, (jax.Array, np.ndarray, np.generic)):
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape, f"shape differs: {a.shape} vs {b.shape}"
            assert a.dtype == b.dtype or np.can_cast(a.dtype, b.dtype) or np.can_cast(b.dtype, a.dtype), (a.dtype, b.dtype)
            np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)
        else:
            assert type(a) is type(b) or isinstance(a, (int, float, bool)), f"type differs: {type(a)} vs {type(b)}"
            assert a == b or (a != a and b != b), f"value differs: {a!r} vs {b!r}"


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
