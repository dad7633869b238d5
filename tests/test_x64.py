"""64-bit exactness (issue 14): NumPy int64/float64 data, Python numbers that
turn traced, and 64-bit constants made at trace time compute with eager's
dtypes and values, with JAX's x64 switch off (the default) and on. JAX ops
keep JAX's 32-bit results, as eager gives them. Every case against the eager
run of the same function (helpers.check compares dtypes exactly and 64-bit
floats to 64-bit precision)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static

from helpers import assert_same, check, check_sequence

X64_ON = bool(jax.config.jax_enable_x64)   # the suite run with JAX_ENABLE_X64=1: every graph is x64 already
BIG = np.arange(3, dtype=np.int64) + 2**40
F64 = np.array([3e8, 3.0, 1.0 / 3.0])
I32 = np.arange(4, dtype=np.int32)
F32 = np.linspace(0.0, 1.0, 4, dtype=np.float32)


# ------------------------------------------------- NumPy int64/float64 data
def total(v):
    return v.sum()


def statistics(v):
    return v.mean(), np.cumsum(v), v.max() - v.min(), np.std(v)


def arithmetic(v):
    return v * 3 + 1, v / 7, v // 2, -v, v ** 2, 2.5 * v, v - 0.1


def comparisons(v):
    return v > 1.5, v == v[0], np.where(v > 1.0, v, 0.0)


def numpy_functions(v):
    return np.sin(v), np.exp(v / 1e8), np.sqrt(np.abs(v)), np.log1p(np.abs(v)), np.clip(v, 0.5, 2.0)


def matmul(a, b):
    return a @ b, np.dot(a, b), a.T @ a


def indexing(v):
    return v[0], v[1:], v[::-1], v[v > 1.0]


def test_int64_sum_keeps_int64():
    check(total, BIG)


def test_float64_sum_keeps_float64():
    check(total, np.array([3e8, 3.0]))


@pytest.mark.parametrize("fn", [statistics, arithmetic, comparisons, numpy_functions, indexing])
def test_float64_operations(fn):
    if fn is indexing:   # a boolean mask has a data-dependent shape: that statement runs in Python
        check(fn, F64, full_graph=False)
    else:
        check(fn, F64)


@pytest.mark.parametrize("fn", [total, statistics, arithmetic])
def test_int64_operations(fn):
    check(fn, BIG)


def test_float64_matmul():
    a = np.arange(6.0).reshape(2, 3) / 7.0
    check(matmul, a, a.T.copy())


def test_numpy_promotion_where_jax_differs():
    """int32 with float32 is float64 in NumPy (float32 in JAX); np.sin of an
    int32 array is float64 (float32 in JAX); int32 / int32 is float64."""
    def f(i, x):
        return i + x, np.sin(i), i / i.max(), i * np.float32(0.5), i.mean(), i.sum(), i < x

    check(f, I32, F32)


def test_int64_compared_with_float32_compares_in_float64():
    def f(i, x):
        return i > x, i == x

    check(f, np.array([2**30 + 1, 3], dtype=np.int64), np.array([2.0**30, 3.0], dtype=np.float32))


def test_numpy_float64_scalars():
    def f(s, v):
        return s * 3.0 + v[0], s / 3, np.float64(0.1) + s, s > 0.5

    check(f, np.float64(1.0) / 3.0, F64)


def test_float32_numpy_data_stays_float32():
    def f(x):
        return x * 2.5 + 1, x.sum(), x.mean(), np.sin(x)

    check(f, F32)


# --------------------------------------------------------- in-place writes
def write_value(x):
    a = np.zeros(2)
    a[0] = x
    return a


@pytest.mark.parametrize("x", [np.float32(1.1), jnp.float32(1.1), 1.1, np.float64(1.0) / 3])
def test_write_into_float64_array_keeps_float64(x):
    check(write_value, x)


def write_argument(a, x):
    a[1] = x
    a[2] += 0.1
    return a.sum()


def test_write_into_float64_argument():
    check(write_argument, F64.copy(), jnp.float32(2.5))
    check(write_argument, F64.copy(), np.float64(1.0) / 3)


def rolled_writes(x):
    out = np.zeros((20, 3))
    for i in range(20):
        out[i] = x * i / 3.0
    return out


def test_rolled_loop_writes_float64():
    e = check(rolled_writes, F64)
    assert any(d.mode == "lax.fori_loop" for d in e.decisions)


def test_rolled_loop_writes_float32_value_into_float64_array():
    check(rolled_writes, jnp.arange(3.0))


# -------------------------------------------------- loops and branches on f64
def carry_float64(v):
    acc = 0.0
    for i in range(30):
        acc = acc + v[i % 3] * 1e-3
    return acc


def traced_if(v):
    if v.sum() > 1e8:
        y = v / 3.0
    else:
        y = v * 3.0
    return y


def traced_while(v):
    x = v.copy()
    n = 0
    while x.max() > 1.0:
        x = x / 3.0
        n += 1
    return x, n


def test_loop_carries_float64():
    check(carry_float64, F64)


def accumulate_numbers(v):
    acc = 0.0
    for i in range(30):
        acc = acc + v[i % 3] * i
    return acc


@pytest.mark.parametrize("v", [F64, F64.astype(np.float32), np.arange(3), np.arange(3, dtype=np.int32),
                               jnp.arange(3.0)], ids=["f64", "f32", "i64", "i32", "jax"])
def test_python_float_joined_with_numpy_scalars(v):
    """``acc = 0.0`` then ``acc + a[i]``: NumPy's scalar of NumPy's promotion
    (float32 stays float32, NEP 50), a jax array's float32."""
    check(accumulate_numbers, v)


def test_traced_if_on_float64():
    check(traced_if, F64)
    check(traced_if, F64 / 1e9)


def test_traced_while_on_float64():
    check(traced_while, F64)


# ------------------------------------------- 64-bit constants at trace time
def constants(x):
    c = np.linspace(0.0, 1.0, 3) / 3.0
    return x + c, c.sum() * x


def test_trace_time_float64_constants_with_numpy_input():
    check(constants, F64)


def test_trace_time_float64_constants_with_jax_input():
    check(constants, jnp.arange(3.0))   # jax f32 + ndarray f64: a jax f32 array in eager


# ------------------------------------------------------- mixed jnp and np
def mixed(v, j):
    a = v * j                     # ndarray f64 * jax f32: a jax f32 array (NumPy defers)
    b = jnp.sin(v)                # jnp of an f64 ndarray: float32
    c = jnp.zeros(3) + v.sum()    # jnp.zeros is float32
    d = np.add(v, j)              # np.add: an f64 ndarray
    e = jnp.asarray(v)            # float32
    f = v * 2.0 + 1e-9            # NumPy: float64
    return a, b, c, d, e, f


def test_mixed_jnp_and_numpy():
    check(mixed, F64, jnp.arange(3.0))


def test_jax_random_inside_a_64_bit_graph():
    def f(v, key):
        return jax.random.normal(key, (3,)) + v.sum(), jnp.arange(3) * v.shape[0]

    check(f, F64, jax.random.PRNGKey(0))


# --------------------------------------- Python numbers that become traced
def square(k):
    return k * k


def scaled(e):
    return e * 3.0


def mixed_python(k, x):
    return k * 2 ** 33, x * k, k / 3, k // 7, k % 5


def _calls(fn, values, full_graph=True):
    return check_sequence(lambda: (fn, None), [lambda f, w, v=v: f(*v) if isinstance(v, tuple) else f(v) for v in values],
                          full_graph=full_graph)


def test_busy_int_argument_is_exact():
    static = _calls(square, [1, 2, 3, 4, 5, 6, 100000, 3037000499, -7])
    assert static._state.traced_params == {"k"}


def test_busy_float_argument_is_float64():
    static = _calls(scaled, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 0.1, 1.0 / 3.0])
    assert static._state.traced_params == {"e"}


def test_busy_int_with_arrays():
    # k * 2**33 with a traced k (up to 2**31) may leave int64: that statement runs in Python, exact
    _calls(mixed_python, [(k, jnp.arange(3.0)) for k in (1, 2, 3, 4, 5, 6, 100000, 7)], full_graph=False)
    _calls(mixed_python, [(k, F64) for k in (1, 2, 3, 4, 5, 6, 100000, 7)], full_graph=False)


def jax_times(x, k):
    return x * k, k * 2, jnp.arange(3) + k


def test_busy_int_beyond_int32_in_a_jax_op_raises_as_eager():
    """Eager JAX (x64 off) raises OverflowError for a Python int beyond int32;
    the graph checks the traced int at run time and raises the same error."""
    x = jnp.arange(3.0)
    # an int beyond int32 is passed as a static Python int (the JAX op then raises as eager does, in Python)
    _calls(jax_times, [(x, k) for k in (1, 2, 3, 4, 5, 6, 2**40, 7, -2**35, 2**31 - 1)], full_graph=False)


def counter_loop(x, n):
    out = jnp.zeros(8)
    t = 0
    while t < n:
        out = out.at[t].add(x[t % 3] * t)
        t += 1
    return out, t


def test_loop_counter_in_jax_ops_needs_no_check():
    e = check(counter_loop, jnp.arange(3.0), jnp.int32(6))
    assert e.graphs[0].x64 is not X64_ON and not e.graphs[0].has_effects


def test_int_beyond_int64_stays_exact():
    _calls(square, [1, 2, 3, 4, 5, 6, 2**70, 2**64 + 1, 7])


def loop_counter(n):
    t = 0
    for i in range(n):
        t = t + i * i * 1000003
    return t


def test_rolled_loop_counter_is_exact():
    check(loop_counter, 100)   # unrolled or rolled, a Python int in int64


class Counter:
    def __init__(self):
        self.count = 2**31 - 3
        self.scale = 0.1

    def step(self, x):
        self.count += 1
        return x * self.count, self.count * 3, self.count + self.scale


def test_outside_int_read_traced_is_exact():
    def make():
        c = Counter()
        return c.step, c

    def step(f, c):
        return f(F64), c.count

    static = check_sequence(make, [step] * 10)
    assert static._state.traced_statics


def printing(x, k):
    print(k / 3, k * 2**35, x.sum() / 3, x / 7)
    for i in range(20):
        x = x + i / 7
    print(x, k / 10)
    return x


@pytest.mark.parametrize("x", [F64, jnp.arange(3.0)])
def test_printed_python_and_float64_values_are_eager_digits(x):
    """A division by a constant is a division (XLA would multiply by the
    reciprocal: 5 / 3 printed as 1.6666666666666665)."""
    _calls(printing, [(x, k) for k in (1, 2, 3, 4, 5, 6, 7, 8)], full_graph=False)   # k * 2**35: in Python, exact


# --------------------------------------------- NumPy arrays read from outside
SCALE = np.array([1e-10, 1.0, 1.0 / 3.0])
STATE = np.zeros(3)


def uses_global(x):
    return x * SCALE, SCALE.sum() * x


def writes_global(x):
    g = STATE
    g[0] = x
    return g.sum()


def test_global_float64_array_stays_float64():
    check(uses_global, F64)
    check(uses_global, jnp.arange(3.0))   # a jax array times a global ndarray: JAX's float32


def test_write_into_global_array_reaches_it():
    STATE[:] = 0
    to_static(writes_global)(np.float64(2.5))
    assert STATE[0] == 2.5


# ------------------------------------------------------------- kinds
def kinds(v, k):
    return v.sum(), v[0] > 1.0, k * 2, v * 1.0


def test_results_keep_eager_kinds():
    check(kinds, F64, 3)
    check(kinds, BIG, 3)


# ------------------------------------------------- outer JAX transforms
def loss(x):
    acc = 0.0
    for i in range(20):
        acc = acc + jnp.sum(jnp.sin(x * i))
    return acc


def test_grad_through_a_graph_with_64_bit_loop_index():
    g = jax.grad(to_static(loss, full_graph=True))(jnp.arange(3.0))
    want = jax.grad(loss)(jnp.arange(3.0))
    assert g.dtype == want.dtype
    np.testing.assert_allclose(g, want, rtol=1e-5)


def test_jit_and_vmap_of_a_converted_function():
    f = to_static(loss, full_graph=True)
    x = jnp.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(jax.jit(f)(x[0]), loss(x[0]), rtol=1e-5)
    np.testing.assert_allclose(jax.vmap(f)(x), jax.vmap(loss)(x), rtol=1e-5)


def test_loss_with_64_bit_loop_is_one_graph_with_x32_jax_ops():
    e = check(loss, jnp.arange(3.0))
    assert e.graphs[0].x64 is not X64_ON and ("_x32_call" in e.lowered_source) is not X64_ON


def test_graph_without_64_bit_values_is_unchanged():
    e = check(lambda x: jnp.sin(x) * 2.0, jnp.arange(3.0))
    assert not e.graphs[0].x64 and "_x32_call" not in e.lowered_source


# ------------------------------------------------------- library calls
def test_scipy_and_numpy_library_functions_keep_float64():
    import scipy.integrate
    import scipy.optimize

    x = np.linspace(0.0, 1.0, 11)

    def trap(y):
        return scipy.integrate.trapezoid(y), scipy.integrate.simpson(y, x=x)

    for fn, args in [(trap, (x ** 2,))]:
        eager = fn(*args)
        got = to_static(fn)(*args)
        for e, g in zip(eager, got):
            assert np.asarray(g).dtype == np.asarray(e).dtype
            np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-13)

    def optimize(a):
        f = lambda t: (t - a) ** 2 + 0.1   # noqa: E731
        return (scipy.optimize.brent(f), scipy.optimize.golden(f),
                scipy.optimize.newton(lambda t: t * t - a, 1.0))

    eager = optimize(2.0)
    got = to_static(optimize)(2.0)
    for e, g in zip(eager, got):
        assert np.asarray(g).dtype == np.asarray(e).dtype
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-12)


# ------------------------------------------------- the user's x64 switch
def test_under_users_x64_context():
    def f(v, j, k):
        return v * j, jnp.zeros(2) + k, v.sum() * k, jnp.arange(3)

    with jax.enable_x64(True):
        j = jnp.arange(3.0)
        check(f, F64, j, 3)
        check(f, BIG, j, 2**40)


@pytest.mark.skipif(X64_ON, reason="switches x64 on from off")
def test_switching_x64_between_calls_does_not_reuse_a_plan():
    def f(j):
        return jnp.zeros(3) + j.sum()

    static = to_static(f, full_graph=True)
    j = jnp.arange(3.0)
    assert static(j).dtype == jnp.float32
    assert static(j).dtype == jnp.float32   # warm
    with jax.enable_x64(True):
        assert_same(f(j), static(j))
    assert static(j).dtype == jnp.float32


def test_global_x64_in_a_subprocess(tmp_path):
    script = tmp_path / "x64_global.py"
    script.write_text(textwrap.dedent("""
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp, numpy as np
        from helpers import check
        def f(v, k):
            acc = 0.0
            for i in range(20):
                acc = acc + v[i % 3] * k
            return acc, jnp.zeros(2), v.sum(), jnp.arange(2) * k
        check(f, np.array([1.0, 2.0, 1.0 / 3.0]), 3)
        check(f, jnp.array([1.0, 2.0, 1.0 / 3.0]), 2**40)
        print("ok")
    """))
    env = {"PYTHONPATH": f"{Path(__file__).parents[1]}:{Path(__file__).parent}", "AST2GRAPH_CHECKS": "1",
           "JAX_PLATFORMS": "cpu", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-3000:]


# ------------------------------------------------------------- reports
def test_explain_shows_x64_graph():
    e = explain(to_static(total))(BIG)
    assert e.graph_count == 1 and e.graphs[0].x64 is not X64_ON
    assert "i64" in e.ir_text


def test_busy_int_arithmetic_beyond_int64_stays_exact():
    def f(k):
        return k ** 5, k * k * k * k, k << 40

    def make():
        return f, None

    check_sequence(make, [lambda f, _, k=k: f(k) for k in [1, 2, 3, 4, 5, 10**5, 3 * 10**6, -7]], full_graph=False)


def divisions(x, d):
    return x + 1, 10 // d, 7.0 / d, 5 % d, 3 / d


def numpy_int_divisions(a, b):
    return a // b, a % b


def test_division_by_a_traced_zero_is_eagers():
    # a busy Python int divisor: eager raises ZeroDivisionError (its message) when it is 0
    _calls(divisions, [(jnp.ones(2), d) for d in (1, 2, 3, 4, 5, 0, 7, -3)])
    # NumPy integers: // and % by zero give 0 (XLA would give another number)
    check(numpy_int_divisions, np.array([5, 3, -7]), np.array([0, 2, 0]))


def abs_of_busy_float(x, s):
    return x * 2, abs(s), pow(s, 2), divmod(s, 0.25)


def test_abs_of_a_traced_python_float_stays_float64():
    # a Python float argument that keeps changing is traced (float64): abs() of it is
    # Python's, exact (it was computed by JAX's rules, narrowed to float32)
    def make():
        return abs_of_busy_float, None

    check_sequence(make, [lambda fn, _, s=s: fn(jnp.ones(2), s) for s in (0.1, 0.2, 0.3, 0.4, 0.5, -0.6, -0.7)])


def caught_raise_of_float64(m):
    try:
        if m[0, 0] > 1:
            raise ValueError("big")
        inv = m * 2
    except ValueError:
        inv = np.linalg.pinv(m)
    return inv


def test_placeholders_of_64bit_values_warn_nothing():
    """A variable unbound on one path of a traced branch gets a placeholder of
    its type there: made without JAX's "float64 ... truncated to float32"
    warning, which eager never issues (it failed a program run with warnings
    as errors)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)   # (an "error" filter for all would refuse NumPy's RuntimeWarnings)
        check(caught_raise_of_float64, np.array([[2.0, 1.0], [1.0, 3.0]]), full_graph=True)
        check(caught_raise_of_float64, np.array([[0.5, 1.0], [1.0, 3.0]]), full_graph=True)
