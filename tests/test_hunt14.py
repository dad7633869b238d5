"""h-hunt14: NumPy's floating-point RuntimeWarnings (``x / 0``, ``np.log(0)``,
``np.sqrt(-1)``, integer ``//`` by zero, overflow in ``np.exp``) are part of
eager's visible behaviour: the graph issues them as eager does (message,
category, file and line, in program order, on every call where the data
makes them), following ``np.geterr()``/``np.errstate`` and the warning
filters, both guarded. Before, a graph issued none of them."""

from __future__ import annotations

import contextlib
import copy
import warnings

import numpy as np

from ast2graph import explain, to_static
from helpers import check


def _recorded(fn, args, outer=contextlib.nullcontext, action="always"):
    """What ``fn(*args)`` returned (or raised) and the warnings it issued."""
    with warnings.catch_warnings(record=True) as seen, outer():
        warnings.simplefilter(action)
        try:
            result = type(fn(*copy.deepcopy(args)))   # (the values: ``check``)
        except Exception as e:  # noqa: BLE001
            result = repr(e)
    return result, [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


def check_warnings(fn, calls, outers=None, graphs=1):
    """Eager and converted issue the same warnings on each call of a sequence
    (the caller's ``np.errstate`` or filters changed between calls: ``outers``),
    and return the same values (``check``)."""
    static = to_static(fn)
    outers = outers or [contextlib.nullcontext] * len(calls)
    for k, (args, outer) in enumerate(zip(calls, outers)):
        eager, converted = _recorded(fn, args, outer), _recorded(static, args, outer)
        assert eager == converted, f"call {k}: eager {eager} vs converted {converted}"
    check(fn, *calls[0], full_graph=True, graphs=graphs)
    return static


def safe_ratio(x, y):
    r = x / y
    return np.where(np.isfinite(r), r, 0.0)


def test_division_warns_on_the_call_that_divides_by_zero():
    a, b = np.array([1.0, 0.0, 3.0]), np.array([0.0, 0.0, 1.0])
    check_warnings(safe_ratio, [(a, a + 1), (a, b), (a, a + 2), (a, b)])


def log_likelihood(p, k):
    ll = np.sum(np.log(p)) + np.sqrt(k - 1.0)
    if ll < -10:
        warnings.warn("low likelihood", UserWarning)
    return ll


def test_log_sqrt_and_a_user_warning_in_order():
    check_warnings(log_likelihood, [(np.array([0.5, 0.5]), 2.0), (np.array([0.0, 1.0]), 2.0),
                                    (np.array([0.5, 0.5]), np.float64(0.0)), (np.full(30, 0.1), 5.0)])


def scalars(s, t, n, m):
    return s / t, s // t, s % t, s ** -1.0, n // m, n % m


def test_numpy_scalar_arithmetic_warns_as_scalar_ops():
    # "divide by zero encountered in scalar divide", NumPy's own wording for scalar math
    check_warnings(scalars, [(np.float64(1.0), np.float64(2.0), np.int64(7), np.int64(2)),
                             (np.float64(1.0), np.float64(0.0), np.int64(7), np.int64(0)),
                             (np.float32(0.0), np.float32(0.0), np.int64(3), np.int64(1))])


def ufuncs(x, a, b, i, j):
    out = np.zeros_like(a)
    np.divide(a, b, out=out, where=b != 0)   # no warning where it does not divide
    return (np.exp(x), np.arctanh(x), np.log1p(x), np.reciprocal(x), x ** 0.5, x ** 2, i // j, i % j, out)


def test_ufunc_poles_overflow_fast_powers_and_where():
    x = np.array([0.0, 1.0, -1.0, 1000.0, 1e200])
    a, b = np.array([3.0, -4.0, 5.0]), np.array([0.0, 2.0, 0.0])
    i, j = np.array([3, -4, 5]), np.array([0, 2, 1])
    check_warnings(ufuncs, [(np.array([0.5]), a, a + 10, i, j + 10), (x, a, b, i, j)])


def rolled_log_ratio(xs, ys):
    acc = np.zeros(xs.shape[1])
    for i in range(xs.shape[0]):
        acc = acc + np.log(xs[i]) / ys[i]
    return acc


def test_warning_inside_a_rolled_loop():
    xs = np.linspace(0.5, 2.0, 60).reshape(20, 3)
    ys = np.linspace(1.0, 2.0, 20)
    zs = ys.copy()
    zs[7] = 0.0
    check_warnings(rolled_log_ratio, [(xs, ys), (xs, zs), (np.where(xs > 1.9, 0.0, xs), ys)])


def errstate_inside(x, y):
    with np.errstate(divide="ignore"):
        a = x / y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = np.log(x - 5)
    return a, b, x / y


def test_errstate_and_filters_inside_the_function():
    check_warnings(errstate_inside, [(np.array([1.0, 0.0]), np.array([0.0, 0.0]))])


def test_callers_errstate_and_filters_are_guarded():
    a, b = np.array([1.0, 0.0]), np.array([0.0, 0.0])

    def ignoring():
        return np.errstate(all="ignore")

    def invalid_ignored():
        return np.errstate(invalid="ignore")

    def raising():
        return np.errstate(divide="raise")   # eager raises FloatingPointError: the graph's call runs in Python

    def filtered():
        stack = contextlib.ExitStack()
        stack.enter_context(warnings.catch_warnings())
        warnings.filterwarnings("ignore", message="divide by zero")
        return stack

    calls = [(a, b)] * 6
    outers = [contextlib.nullcontext, ignoring, invalid_ignored, raising, filtered, contextlib.nullcontext]
    static = check_warnings(safe_ratio, calls, outers)
    with np.errstate(divide="ignore"):
        explanation = explain(static)(a, b)
    assert explanation.graph_count == 1, str(explanation)


def ratio_once(x, y):
    return x / y


def test_once_per_location_as_eager():
    # the default filter: once per location (the module's __warningregistry__), as eager has it
    a, b = np.array([1.0]), np.array([0.0])
    calls = [(a, b + 1), (a, b), (a, b), (a + 1, b)]
    for fn in (ratio_once, to_static(ratio_once)):
        globals().pop("__warningregistry__", None)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("default")
            warnings.simplefilter("always", UserWarning)   # (a different filter: the registry is kept)
            for args in calls:
                fn(*args)
        found = [str(w.message) for w in seen]
        assert found == ["divide by zero encountered in divide"], (fn, found)


def shares(x):
    return (x / x.sum() * 100).astype(np.int64), x.astype(np.int8), x.astype(np.uint64)


def test_float_to_int_cast_warns_from_the_users_line_in_order():
    # NumPy's "invalid value encountered in cast" (NaN, infinities, beyond the C int it converts through):
    # it came from ast2graph's own file, unordered with the division's warning
    check_warnings(shares, [(np.array([1.0, 3.0]),), (np.array([1.0, -1.0]),), (np.array([3e9, 1.9e19]),)])


def test_a_callers_catch_warnings_around_each_call_does_not_recompile():
    static = to_static(safe_ratio)
    a, b = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    for _ in range(3):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            static(a, b)
        assert [str(w.message) for w in seen] == ["divide by zero encountered in divide",
                                                  "invalid value encountered in divide"]
    assert static.recompiles == 0, static.recompile_reasons


def column_stats(X, y):
    return np.nanmean(X, axis=0), np.nanmax(X, axis=0), np.corrcoef(X[:, 0], y), np.std(y[:1], ddof=1)


def test_numpy_functions_warn_of_all_nan_slices_constant_rows_and_no_degrees_of_freedom():
    # their own warnings (some with stacklevel=2: the user's line), issued where the result is not finite
    X = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    y = np.array([1.0, 0.0, 2.0])
    check_warnings(column_stats, [(X[:, :1].repeat(2, axis=1), y), (X, y), (X, np.ones(3))])


# ------------------------------------------------------------- modules held by globals and attributes
import types  # noqa: E402

import jax.numpy as jnp  # noqa: E402

from helpers import check_sequence  # noqa: E402

XP = np
SETTINGS = types.ModuleType("settings")   # a user's settings module (made here: the user's, not a library's)
SETTINGS.backend = np


def xp_norm(x):
    return XP.sqrt(XP.sum(x * x)) + SETTINGS.backend.tanh(x)


class Backend:
    def __init__(self, xp):
        self.xp = xp

    def scale(self, x):
        return self.xp.tanh(x) * 2.0


def test_a_global_or_attribute_rebound_to_another_module_is_guarded():
    # array-API style dispatch (``xp = np`` / ``xp = jnp``): a module read from a
    # global or an attribute was taken as fixed, and the graph kept the old one
    def make():
        global XP
        XP = SETTINGS.backend = np
        return xp_norm, None

    def use(module, backend):
        def step(fn, world):
            global XP
            XP, SETTINGS.backend = module, backend
            return fn(np.array([3.0, 4.0]))
        return step

    check_sequence(make, [use(np, np), use(jnp, np), use(np, np), use(np, jnp)])

    def make_backend():
        return (lambda b, x: b.scale(x)), Backend(np)

    def switch(module):
        def step(fn, backend):
            backend.xp = module
            return fn(backend, np.array([0.5, 1.0]))
        return step

    check_sequence(make_backend, [switch(np), switch(jnp), switch(np)])
