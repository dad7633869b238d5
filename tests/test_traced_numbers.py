"""Python numbers computed from traced arrays stay in the graph (issue 16,
item 1): ``int(x.sum())``, ``float(loss)``, ``bool(m.any())``,
``x.max().item()``, ``round(..)``, ``math.floor/ceil/trunc(..)`` give a traced
Python number: eager's int/float/bool (its type, Python's promotion, its kind
when returned) computed in the graph. It flows into array math, comparisons,
``if``/``while`` tests, ``range`` bounds, ``min``/``max``/``abs`` and indices
into Python lists. Eager's errors (NaN, infinities, a list index out of
range) are run-time checks. Each case against the eager run, with x64 off
and with x64 engaged by a float64 NumPy argument."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static
from ast2graph.diagnostics import FullGraphError
from helpers import check, check_sequence, modes

X = jnp.array([0.3, -1.7, 2.4])
X64 = np.array([0.3, -1.7, 2.4])   # a float64 NumPy argument: the graph runs with x64


# ------------------------------------------------------------ the probes
def p_int_range(x):
    n = int(jnp.abs(x).max() * 3) + 1
    for _ in range(n):
        x = 0.5 * x + 0.1
    return x


def p_float_if(x):
    loss = float((x ** 2).sum())
    if loss > 1.0:
        return x / loss
    return x


def p_item(x):
    m = x.max().item()
    return x - m, m


def p_float_step(x, lr):
    step = float(lr) * 2
    return x - step, step


def p_hist(v):
    lo, width, nb = 0.0, 0.25, 4
    counts = [0] * nb
    for i in range(v.shape[0]):
        b = int((v[i] - lo) / width)
        b = min(max(b, 0), nb - 1)
        counts[b] += 1
    return counts


@pytest.mark.parametrize("x", [X, X / 10, X64], ids=["big", "small", "x64"])
def test_probes(x):
    check(p_int_range, x, graphs=1)
    check(p_float_if, x, graphs=1)
    check(p_item, x, graphs=1)
    check(p_float_step, x, jnp.float32(0.1), graphs=1)
    check(p_float_step, x, np.float64(0.1), graphs=1)


@pytest.mark.parametrize("v", [jnp.linspace(0.0, 1.0, 6), jnp.linspace(-1.0, 2.0, 40), np.linspace(0.0, 1.0, 9)])
def test_histogram_into_a_python_list(v):
    e = check(p_hist, v, graphs=1)
    assert ("subscript", "select") in modes(e)


# ------------------------------------------------- kinds and promotion
def conversions(x):
    a, b, c = int(x[2]), float(x[0]), bool(x.any())
    d, e, f = x.max().item(), math.floor(x[1]), math.ceil(x[1])
    g, h = round(b), int(x[1])   # banker's rounding; truncation toward zero
    return a, b, c, d, e, f, g, h, type(a) is int, isinstance(b, float), type(c) is bool


def promotion(x):
    a, b = int(x[2] * 3), float(x[0])
    return (a + b, a / 2, a // 2, a % 2, -a, b ** 2, b * x, a * x, x / a, a + 1, b + 1.5, a < b, a == 7,
            abs(a - 10), abs(b), min(a, 0), max(b, b * 2), a and a + 1, not a, a - True)


def kind_by_value(x):
    a, b = int(x[2] * 3), float(x[0])
    return max(b, a), a and b   # an int or a float, by the values: eager's class depends on the data


def test_a_class_that_depends_on_the_value_runs_in_python():
    check(kind_by_value, X, full_graph=False)
    check(kind_by_value, -X, full_graph=False)


def int_products(x, i):
    a, k = int(x[2] * 3), int(i.sum())   # k: from an int32 array (31 bits): its products fit int64
    return k * k, k ** 2 * 3, a * 2     # a: from a float (any int64): its product runs in Python, exact


def test_products_of_traced_ints():
    check(int_products, X, jnp.array([5, -40000], jnp.int32), full_graph=False)
    e = check(int_products, X, jnp.array([5, -40000], jnp.int32), full_graph=False)
    assert [s.code.value[0] for s in e.fallback_sites] in ([], ["A2G016"])


@pytest.mark.parametrize("x", [X, -X, X64, -X64], ids=["pos", "neg", "x64", "x64-neg"])
def test_kinds_and_promotion(x):
    check(conversions, x, graphs=1)
    check(promotion, x, graphs=1)


def float32_exact(x):
    return float(x[0]), x[0].item(), float(x[1] / 3)


def test_float_of_float32_is_its_exact_value():
    check(float32_exact, jnp.array([0.1, 1.0], jnp.float32), graphs=1, rtol=0, atol=0)


def items(a, b, c, d, e):
    return a.item(), b.item(), c.item(), d.item(), e.item()


def test_item_of_each_dtype():
    check(items, jnp.ones((), jnp.bfloat16) * 1.5, jnp.full((1, 1), -3, jnp.int8), jnp.ones((), bool),
          jnp.ones((1,), jnp.uint8) * 200, np.ones((), np.float64) / 3, graphs=1)


def bool_of(x):
    return bool(x), bool(x > 0)


def test_bool_of_one_element_arrays():
    check(bool_of, jnp.array([2.0]), graphs=1)
    check(bool_of, jnp.array(0.0), graphs=1)


def test_bool_of_an_array_of_several_elements_raises_as_eager():
    check(bool_of, jnp.array([1.0, 2.0]), full_graph=False)


# ------------------------------------------------------- eager's errors
def int_of(x):
    return int(x.sum())


def floor_of(x):
    return math.floor(x.sum()), math.ceil(x.sum())


def round_of(x):
    return round(float(x.sum())), round(x.sum().item())


@pytest.mark.parametrize("x", [jnp.array([jnp.nan]), jnp.array([jnp.inf]), jnp.array([-jnp.inf]), jnp.array([2.5]),
                               np.array([np.nan]), np.array([-2.5])],
                         ids=["nan", "inf", "-inf", "finite", "x64-nan", "x64-finite"])
def test_nan_and_infinities_raise_as_eager(x):
    check(int_of, x, graphs=1)
    check(floor_of, x, graphs=1)
    check(round_of, x, graphs=1)


def round_digits(x, n):
    v = float(x.mean())
    return round(v, n), round(v * 3.0, 1), round(-v, 0)


@pytest.mark.parametrize("value", [2.675, 0.125, 0.375, -0.5, 1234.5678, 1e300, 5e-324, float("nan"), float("inf")])
@pytest.mark.parametrize("n", [0, 1, 2, 3, -2, 400])
def test_round_with_digits_of_a_python_float_is_decimal_exact(value, n):
    """``round(2.675, 2)`` is 2.67 and ``round(0.125, 2)`` 0.12 in Python
    (the float's exact binary value, half to even), where ``x * 100`` rounded
    in floating point gives 2.68 and 0.13: one graph, Python's answer."""
    check(round_digits, np.array([value]), n, graphs=1)


def test_an_int_beyond_int64_is_eagers_exact_int_not_a_wrapped_value():
    # the graph's run-time check finds the int beyond int64: this call runs in Python (A2G016)
    for big in (1e20, -1e19):
        explanation = check(int_of, jnp.array([big]), full_graph=False, graphs=0)
        assert [s.code.code for s in explanation.fallback_sites] == ["A2G016"]
        with pytest.raises(FullGraphError, match="beyond int64"):
            to_static(int_of, full_graph=True)(jnp.array([big]))
    check(int_of, jnp.array([4e18]), graphs=1)   # within int64: exact
    check(int_of, np.array([-2.0 ** 63]), graphs=1)


def wide_int_times_array(x):
    n = int(x.sum())
    return jnp.ones(3) * n


def test_a_wide_int_given_to_a_jax_op_raises_as_eager():
    check(wide_int_times_array, jnp.array([3.0]), graphs=1)
    check(wide_int_times_array, jnp.array([1e10]), graphs=1)   # eager JAX: OverflowError (x64 off)


def trunc_of(x):
    return math.trunc(x.sum())


def test_math_trunc_of_a_jax_array_raises_as_eager():
    check(trunc_of, X, full_graph=False)   # eager: TypeError (no __trunc__)


def trunc_of_python(x):
    return math.trunc(float(x.sum()))


def test_math_trunc_of_a_traced_python_float():
    check(trunc_of_python, X, graphs=1)
    check(trunc_of_python, -X, graphs=1)


# ----------------------------------------------------------- composition
def helper(v):
    return float(v.sum()) / 2


def uses_helper(x):
    return helper(x) + 1, helper(x * 2) > 1.0


class Model:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, x):
        k = int(x.max() * self.scale)
        return x * k, k


def int_in_rolled_loop(x):
    total = 0
    for i in range(40):
        total = total + int(x[i % 3] * i)
    return total


def float_in_rolled_loop(x):
    acc = 0.0
    for i in range(40):
        acc += float(x[i % 3]) / (i + 1)
    return acc, x * acc


def int_in_traced_branch(x):
    if x.sum() > 0:
        n = int(x.sum())
    else:
        n = 0
    return x * n, n


def while_to_int(x):
    n = int(x.max() * 4)
    k = 0
    while k < n:
        x = x + 1
        k += 1
    return x, k


def if_on_bool(x):
    flag = bool((x > 2).any())
    if flag:
        return x - 1, flag
    return x, flag


@pytest.mark.parametrize("x", [X, -X, X64], ids=["pos", "neg", "x64"])
def test_in_helpers_methods_loops_and_branches(x):
    check(uses_helper, x, graphs=1)
    check(Model(3.0), x, graphs=1)
    check(int_in_rolled_loop, x, graphs=1)
    check(float_in_rolled_loop, x, graphs=1)
    check(int_in_traced_branch, x, graphs=1)
    check(while_to_int, x, graphs=1)
    check(if_on_bool, x, graphs=1)


def printed(x):
    n = int(x.sum())
    print(f"n={n}", n, float(x[0]), bool(n))
    return n


def test_printed_traced_numbers():
    check(printed, X, graphs=1)


def shape_from_int(x):
    n = int(x.max()) + 3
    return jnp.ones(n)


def test_a_shape_needs_the_value_and_runs_in_python():
    check(shape_from_int, X, full_graph=False)
    check(shape_from_int, X * 2, full_graph=False)
    with pytest.raises(FullGraphError, match="jax.numpy.ones needs the value of a traced Python int as a shape"):
        to_static(shape_from_int, full_graph=True)(X)


# --------------------------------------------- indices into Python lists
def pick(x, xs):
    b = int(x[0])
    return xs[b], xs[-b - 1]


def pick_tuple(x):
    ts = (1.5, 2.5, 3.5)
    return ts[int(x[0])]


def store(x):
    xs = [0.0, 0.0, 0.0]
    xs[int(x[0])] = float(x[1])
    xs[int(x[0]) - 3] += 1.0
    return xs


@pytest.mark.parametrize("k", [0.0, 2.0, 2.9, -1.0, -3.0, 3.0, -4.0], ids=str)
def test_traced_index_into_a_list(k):
    x = jnp.array([k, 7.0])
    check(pick, x, [1, 2, 3], graphs=1)
    check(pick_tuple, x, graphs=1)
    check(store, x, graphs=1)


def test_traced_index_into_an_argument_list_is_guarded():
    def make():
        xs = [1, 2, 3]

        def f(x, ys):
            return ys[int(x[0])] * 2

        return f, xs

    def mutate(fn, xs):
        xs[1] = 20
        return fn(jnp.array([1.0]), xs)

    check_sequence(make, [lambda fn, xs: fn(jnp.array([1.0]), xs), mutate,
                          lambda fn, xs: fn(jnp.array([2.0]), xs)])


def mixed_list(x):
    xs = [0, 1.0]
    return xs[int(x[0])]


def test_elements_of_different_classes_fall_back():
    check(mixed_list, jnp.array([1.0]), full_graph=False)
    check(mixed_list, jnp.array([0.0]), full_graph=False)


def int_in_untaken_branch(x):
    s = x.sum()
    n = 0
    if s == s:   # not NaN
        n = int(s)
    return n, x * 2


def test_the_check_of_an_untaken_branch_does_not_fire():
    check(int_in_untaken_branch, jnp.array([1.0, jnp.nan]), graphs=1)
    check(int_in_untaken_branch, jnp.array([1.0, 2.5]), graphs=1)


def int_then_break(x):
    n = 0
    for i in range(40):
        if x[i % 3] != x[i % 3]:
            break
        n += int(x[i % 3])
    return n


def test_the_check_after_a_traced_break_does_not_fire():
    check(int_then_break, jnp.array([1.5, 2.5, jnp.nan]), graphs=1)
    check(int_then_break, jnp.array([1.5, 2.5, 3.5]), graphs=1)


def scaled(x):
    return x * int(x.sum()) + float(x[0])


def test_under_an_outer_jax_transform_as_eager():
    f = to_static(scaled)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(lambda x: scaled(x).sum())(X)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        jax.grad(lambda x: f(x).sum())(X)


class Unhashable:
    __hash__ = None

    def __call__(self, x):
        return x * 2


def call_unhashable(x):
    return Unhashable()(x), int(x[0])


def test_an_unhashable_callable_is_called_as_before():
    check(call_unhashable, X, graphs=1)


# ----------------------------------------- math.sqrt/log/exp/fabs of traced numbers
def math_floats(x):
    return math.sqrt(x[0]), math.log(x[1]), math.exp(x[0] * 100), math.fabs(x[1]), math.fabs(int(x[1]))


def math_in_branch(x):
    s = float((x ** 2).sum())
    n = math.sqrt(s)
    if n > 1.0:
        x = x / n
    else:
        n = math.log(n) if n > 0 else -1.0   # log only where eager takes it: its check is masked elsewhere
    return x, n


def math_in_loop(x):
    acc = 0.0
    for i in range(30):
        acc += math.sqrt(float(x[i % 2]) + i)
    return acc


@pytest.mark.parametrize("x", [jnp.array([2.0, 1.0]), jnp.array([-1.0, 2.0]), jnp.array([1.0, 0.0]),
                               jnp.array([1.0, -3.0]), jnp.array([8.0, 2.0]), jnp.array([float("nan"), 1.0]),
                               jnp.array([float("inf"), 5.0]), np.array([0.25, 3.0]), np.array([3, 4]),
                               jnp.array([7, 9], dtype=jnp.int32)])
def test_math_functions_of_traced_numbers(x):
    """math.sqrt/log/exp/fabs of a traced scalar: a Python float in the graph,
    with eager's ValueError('math domain error') / OverflowError('math range
    error') from a run-time check (a float32 0-d array, NumPy data, ints)."""
    check(math_floats, x, graphs=1)


@pytest.mark.parametrize("x", [jnp.array([0.5, 0.25]), jnp.array([3.0, 4.0]), jnp.zeros(2)])   # exact in float32 (XLA fuses x**2 + sum)
def test_math_functions_in_branches_and_loops(x):
    check(math_in_branch, x, graphs=1)
    check(math_in_loop, x + 1, graphs=1)


# ------------------------------- math's other float functions: Python's math on the host
def cosine_schedule(step, total):
    s = int(step.sum())   # a traced Python int
    return 0.5 * (1.0 + math.cos(math.pi * s / total))


def every_math_function(x):
    a, b = float(x[0]), float(x[1])
    out = [math.sin(a), math.cos(a), math.tan(a), math.atan(a), math.sinh(a), math.cosh(a), math.tanh(a),
           math.asinh(a), math.exp(a), math.expm1(a), math.erf(a), math.erfc(a), math.lgamma(b), math.gamma(b),
           math.log(b), math.log2(b), math.log10(b), math.log1p(b), math.log(b, 3), math.atan2(a, b),
           math.pow(b, a), math.hypot(a, b), math.fmod(a, b), math.remainder(a, b), math.copysign(b, a),
           math.degrees(a), math.radians(a), math.asin(a / 10), math.acos(a / 10), math.acosh(b + 1),
           math.atanh(a / 10)]
    if hasattr(math, "cbrt"):
        out += [math.cbrt(a), math.exp2(a)]
    return out


@pytest.mark.parametrize("values", [(0.3, 2.5), (1.1, 7.0), (-2.7, 0.6), (5.5, 123.25)])
def test_math_functions_are_python_s_to_the_bit(values):
    """math.cos & co. of traced Python numbers run Python's math on the host
    (a callback in the graph): eager's libm result to the last bit, which
    XLA's kernels do not give (they differ in the last ulp)."""
    x = jnp.array(values, dtype=jnp.float32)
    check(every_math_function, x, graphs=1)
    assert to_static(every_math_function)(x) == every_math_function(x)   # bit for bit, not within a tolerance


@pytest.mark.parametrize("step", [jnp.arange(3), jnp.arange(6), jnp.zeros(2, jnp.int32)])
def test_cosine_schedule_of_a_traced_step(step):
    check(cosine_schedule, step, 17, graphs=1)
    assert to_static(cosine_schedule)(step, 17) == cosine_schedule(step, 17)


def math_errors(x):
    v = float(x.sum())
    return math.acos(v), math.log(v, 2), math.exp(v * 1000)


@pytest.mark.parametrize("x", [jnp.array([0.25, 0.25]), jnp.array([1.0, 1.0]), jnp.array([-0.5, 0.0]),
                               jnp.array([0.0, 0.0])])
def test_math_errors_are_eager_s(x):
    """math.acos(2.0) -> ValueError, math.exp(2000.0) -> OverflowError,
    math.log(0, 2) -> ValueError: each raised as eager raises it (the check
    calls Python's math again with the same floats)."""
    check(math_errors, x, graphs=1)


def chained_comparisons(x, n):
    a = float(x[0])
    return 0 < a < 2, 1 < a > 5, -1.0 <= a <= int(x[2]), x[0] < x[1] < x[2], n[0] < n[1] < n[2]


@pytest.mark.parametrize("x", [jnp.array([1.5, -2.25, 3.0]), jnp.array([-1.0, 0.0, 9.0])])
def test_chained_comparisons_keep_eager_s_kinds(x):
    # a Python bool for Python numbers, a jax.Array for jax.Arrays, np.bool_ for NumPy (it came back a jax.Array)
    check(chained_comparisons, x, np.asarray(x), graphs=1)


# ------------------------------------ a Python number carried by a rolled loop, of 64-bit data
# ``lam = 0.0`` then ``lam = float(v @ w)`` of float64 data: the graph's number is a float64, as wide
# as eager's float, so the loop rolls (it unrolled every iteration: "rolling would turn Python scalar
# 'lam' into a 32-bit array", a 100-iteration power iteration compiled for 18 s).
def power_iteration(A, iters=40, tol=1e-9):
    v = np.ones(A.shape[0]) / np.sqrt(A.shape[0])
    lam = 0.0
    for i in range(iters):
        w = A @ v
        lam_new = float(v @ w)
        v = w / np.linalg.norm(w)
        if abs(lam_new - lam) < tol:
            break
        lam = lam_new
    return lam_new, lam, v, i


def running_int_total(v):
    total = 0
    for i in range(24):
        total = total + int(v[i % len(v)])
    return total, type(total).__name__


def running_float_max(v):
    best = 0.0
    for i in range(24):
        best = max(best, float(v[i % len(v)]))
    return best


_M = np.random.default_rng(5).normal(size=(4, 4))


@pytest.mark.parametrize("A", [_M @ _M.T, np.diag([3.0, 1.0, 0.5]), np.eye(2)], ids=["spd", "diag", "eye"])
def test_python_float_of_float64_data_carried_by_a_rolled_loop(A):
    e = check(power_iteration, A, full_graph=True)
    assert any(d.construct == "for" and d.mode != "unrolled" for d in e.decisions), e


@pytest.mark.parametrize("fn, v", [(running_int_total, np.array([2 ** 40, -3, 7], np.int64)),   # (unrolled)
                                   (running_float_max, np.array([0.5, 2.25, -1.0])),
                                   (running_float_max, np.array([0.1, 0.7], np.float32))])
def test_python_numbers_of_64_bit_data_in_a_rolled_loop(fn, v):
    check(fn, v, full_graph=True)
