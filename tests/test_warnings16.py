"""NumPy's RuntimeWarnings from graphs whose flags compile cheaply.

The flags of NumPy's floating-point warnings (``hostwarnings.fp_flags``) are
folded where they are known when the graph is traced (a constant operand, a
an op without a pole), tested on the operand where
the ufunc's domain decides them (``FROM_OPERAND``: sqrt, log, arcsin, ...),
left out where the ufunc never raises them (``NEVER``), and, where they
leave the graph as outputs, reduced together: packed as bits, 32 at a time,
per shape (``join_flags``). Each test compares the warnings (category,
message, file, line, order) and the results with eager's
(``helpers.check_warnings``), on calls with other data too."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import _warned, assert_same, check_warnings


def _warns(fn, *args) -> list:
    """The warnings eager issues, under "always" (each test's premise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        return _warned(fn, args, {})[3]


def _always(fn, *argsets):
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        for args in argsets:
            check_warnings(fn, *args)


def many_divisions(x, divisors):
    acc = np.zeros_like(x)
    for d in divisors:   # a tuple: unrolled, each iteration's flags (divide, over, invalid; over, invalid) its own
        acc = acc + x / d
    return acc


def _divisors(zero_at):
    return tuple(np.array([1.0, 2.0, 0.0 if k in zero_at else 4.0]) for k in range(12))


def test_more_flags_of_one_shape_than_one_word_holds():
    x = np.array([1.0, -1.0, 2.0])
    # 60 flags of shape (3,): two words; the divisions by zero at iterations 2 and 11 are bits of each
    for zero_at in ({2, 11}, {11}, set(), {0, 5}):
        assert bool(_warns(many_divisions, x, _divisors(zero_at))) == bool(zero_at)
    _always(many_divisions, *[(x, _divisors(z)) for z in ({2, 11}, {11}, set(), {0, 5})])
    _always(many_divisions, (np.array([0.0, np.inf, 1.0]), _divisors({3})))   # 0/0 invalid, inf/0 nothing


def shapes_mixed(v, m, s):
    a = np.exp(v)              # (3,): overflow
    b = m * 1e300              # (2, 2): overflow
    c = np.log(s)              # 0-d: divide by zero, invalid
    d = np.sqrt(m - 1.0)       # (2, 2): invalid
    return a.sum() + b.sum() + c + d.sum()


def test_flags_of_several_shapes():
    v, m, s = np.array([1.0, 800.0, 2.0]), np.array([[1e10, 2.0], [3.0, 0.5]]), np.array(0.0)
    assert _warns(shapes_mixed, v, m, s)
    _always(shapes_mixed, (v, m, s), (np.ones(3), np.full((2, 2), 2.0), np.array(-1.0)),
            (np.ones(3), np.full((2, 2), 2.0), np.array(3.0)))


def branch_and_top(x, y):
    a = np.log(x)
    if y.sum() > 0:   # traced: the branch's flags leave it as a result, the others are packed
        b = np.sqrt(y - 2.0)
    else:
        b = np.arcsin(y)
    return a / y + b


def test_flags_of_a_branch_and_of_the_top_level():
    x = np.array([0.0, 1.0, 2.0])
    for y in (np.array([1.0, 0.0, 3.0]), np.array([-2.0, 0.5, -0.5]), np.array([3.0, 4.0, 5.0])):
        assert _warns(branch_and_top, x, y)
    _always(branch_and_top, (x, np.array([1.0, 0.0, 3.0])), (x, np.array([-2.0, 0.5, -0.5])),
            (x + 1.0, np.array([3.0, 4.0, 5.0])))


EDGES = np.array([-np.inf, -2.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 2.0, 800.0, np.inf, np.nan])
UFUNCS = ["sqrt", "log", "log2", "log10", "log1p", "arcsin", "arccos", "arccosh", "arctanh", "exp", "exp2",
          "expm1", "square", "reciprocal"]


def _apply(name):
    ufunc = getattr(np, name)

    def f(x):
        return ufunc(x) + 0.0
    f.__name__ = f"apply_{name}"
    return f


@pytest.mark.parametrize("name", UFUNCS)
def test_each_domain_edge_on_its_own(name):
    """One value a call (each is its own warning or none), in both widths,
    then all of them at once: the flags tested on the operand (the domain)
    or on the result, eager's either way."""
    fn = _apply(name)
    static = to_static(fn, full_graph=True)
    for dtype in (np.float64, np.float32):
        for v in EDGES.astype(dtype):
            x = np.array(v, dtype)
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                eager, conv = _warned(fn, (x,), {}), _warned(static, (x.copy(),), {})
            assert conv[3] == eager[3], (name, dtype, v, eager[3], conv[3])
    _always(fn, (EDGES,), (EDGES.astype(np.float32),))


def constants(x):
    a = x + np.nan            # a NaN operand: no invalid value
    b = x * np.inf            # 0 * inf: invalid where x is 0
    c = np.float64(1e308) * x  # overflow where |x| > 1.8
    d = x / 0.0               # a constant divisor of zero: divide by zero (or invalid for 0 / 0)
    return a, b, c, d


def test_constant_operands_and_where_are_folded():
    for x in (np.array([0.0, 1.0, 2.0]), np.array([1.0, -1.0, 0.5]), np.array([-1.0, 0.0, 3.0])):
        assert _warns(constants, x)
    _always(constants, (np.array([0.0, 1.0, 2.0]),), (np.array([1.0, -1.0, 0.5]),), (np.array([-1.0, 0.0, 3.0]),))


def empty(x, s):
    return np.log(x), np.exp(x) * s


def test_empty_arrays_flag_nothing():
    _always(empty, (np.zeros(0), -1.0), (np.zeros((0, 3)), 4.0))


def sqrt_of_a_number(x, s):
    return np.log(x) + np.sqrt(s)


def test_numpy_on_a_number_known_when_tracing_warns_on_every_call():
    """``np.sqrt(-1.0)`` of a Python float argument (a constant of the
    graph) warned once, while tracing, from ast2graph's own line, and never
    again: it runs in Python now, warning as eager on every call."""
    x = np.array([1.0, 2.0])
    assert _warns(sqrt_of_a_number, x, -1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        check_warnings(sqrt_of_a_number, x, -1.0, full_graph=False, calls=3)
        check_warnings(sqrt_of_a_number, x, 4.0, calls=2)   # no warning: one graph
    e = explain(to_static(sqrt_of_a_number))(x, -1.0)
    assert any("RuntimeWarning" in s.cause for s in e.fallback_sites), str(e)


def test_flags_leave_as_one_output_without_callbacks():
    """The packed flags are outputs: the graph has no host callback."""
    x = np.array([1.0, -1.0, 2.0])
    plan = explain(to_static(many_divisions, full_graph=True))(x, _divisors({2, 11})).record.plans[0]
    assert not plan.has_effects and len(plan.warning_issuers) == 24   # 12 divisions, 12 additions


# ------------------------------------------------ warnings batched with the run-time checks
# Beside run-time checks (or in a loop) the warnings are issued by callbacks in the graph; they are
# kept in the batch of the region's checks (one callback between two other effects, run in program
# order on the host) instead of a lax.cond and a callback each. A check that raises stops the
# warnings after it, as eager stops there.
def warn_check_warn(x, idx):
    y = np.sqrt(x)             # invalid value (x < 0)
    v = x[int(idx[0])]         # IndexError past the end: a run-time check
    z = np.log(x + 1.0)        # invalid value, divide by zero (x <= -1)
    w = np.arange(4.0)[int(idx[1])]
    return y, v, z, w


def warn_in_a_rolled_loop(x, idx):
    total = 0.0
    for k in range(20):
        total = total + np.sqrt(x[k % 3] - 0.25 * k)   # invalid value once x[k % 3] < 0.25 k
    return total, x[int(idx[0])]


def test_warnings_batched_with_checks_keep_eagers_order():
    neg, pos = np.array([-2.0, 1.0, 4.0]), np.array([1.0, 2.0, 3.0])
    calls = [(neg, np.array([0, 1])), (neg, np.array([5, 1])), (pos, np.array([1, 9])), (neg, np.array([2, 7])),
             (pos, np.array([0, 0]))]
    big = np.array([10.0, 9.0, 8.0])
    loops = [(big, np.array([0])), (pos, np.array([1])), (pos, np.array([4])), (big, np.array([3]))]
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        for fn, argsets in ((warn_check_warn, calls), (warn_in_a_rolled_loop, loops)):
            static = to_static(fn, full_graph=True)
            for args in argsets:
                expected, eager_exc, _, eager_warned = _warned(fn, args, {})
                got, conv_exc, _, conv_warned = _warned(static, args, {})
                assert repr(conv_exc) == repr(eager_exc) and conv_warned == eager_warned, (fn.__name__, args)
                if eager_exc is None:
                    assert_same(expected, got)
