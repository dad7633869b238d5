"""h-hunt19: silent wrong results found by probing realistic NumPy numerical
programs (casts to float16 rounded twice, in-place updates of narrow arrays
by wide data rounded twice, NumPy's overflow warnings of integer scalars and
narrowing casts missing, JAX's own warnings leaking), each compared with eager
over calls whose data take every path."""

from __future__ import annotations

import warnings

import numpy as np

from ast2graph import to_static
from helpers import check_calls, check_warnings

# float64 values just off a float16 tie: rounded to float32 first they land on the tie
_NEAR_TIES = np.array([1.0 + 2 ** -11 + 2 ** -40, 65519.99, 2049.0000001, 1.00048828125 + 1e-12, -3.0, 1e-7])


# ------------------------------------------- float64 -> float16 rounds once, as NumPy's cast
def test_float64_to_float16_rounds_once_as_numpys_cast():
    def astype(x):
        return x.astype(np.float16)

    def scalar(x):
        return np.float16(x[0]), np.float16(float(x[2]))

    def converted(x):
        return np.asarray(x, dtype=np.float16), np.array(x, np.float16) + np.float16(1)

    def stored(x):
        y = np.empty(x.shape, np.float16)
        y[:] = x
        z = np.zeros(3, np.float16)
        z[1] = x[0]
        return y, z

    def filled(x):
        return np.full(3, x[0], dtype=np.float16), np.full_like(np.ones(2, np.float16), x[3])

    calls = [(_NEAR_TIES,), (_NEAR_TIES[::-1] * 0.5,)]
    for fn in (astype, scalar, converted, stored, filled):
        check_calls(fn, calls)


def test_an_inplace_update_of_a_narrow_array_by_wide_data_rounds_once():
    # y += x of a float16/float32 array and float64 data: NumPy computes at float64 and casts the result
    # once; the graph cast x to y's dtype first and rounded twice (float32: 40% of the elements an ulp off)
    def half(x):
        y = np.ones(x.shape, np.float16)
        y += x - 1.0
        return y

    def single(y, x):
        y += x
        y *= x
        y /= 3.0
        return y

    def copied(x):
        y = np.ones(x.shape, np.float16)
        np.copyto(y, x)
        return y

    check_calls(half, [(_NEAR_TIES,), (_NEAR_TIES * 3,)])
    check_calls(copied, [(_NEAR_TIES,)])
    x = np.random.default_rng(0).standard_normal(200)
    check_calls(single, [(np.ones(200, np.float32), x), (x.astype(np.float32), x[::-1].copy())])
    y = np.ones(200, np.float32)
    want, got = single(y.copy(), x), to_static(single)(y.copy(), x)
    assert np.array_equal(want, got)   # bit for bit (the helper's float32 tolerance would hide an ulp)


def test_an_inplace_integer_update_by_wide_data_computes_at_the_wide_dtype():
    def floor(y, x):
        y //= x
        return y

    def rem(y, x):
        y %= x
        y -= x
        return y

    calls = [(np.array([10, -7], np.int32), np.array([2 ** 32 + 3, 2 ** 33 - 1])), (np.array([9, 4], np.int32), np.array([2, -3]))]
    check_calls(floor, calls)
    check_calls(rem, calls)
    check_warnings(floor, *calls[0])   # no JAX FutureWarning of the scatter's int64 -> int32


# ------------------------------------------- NumPy's RuntimeWarnings the graph must issue too
def test_negating_or_abs_of_the_minimum_integer_scalar_warns_as_numpy():
    def unary(a):
        out = []
        for v in a:
            out.append(-v)
            out.append(abs(v))
        return out

    for data in (np.array([-128, 0, 5], np.int8), np.array([0, 3], np.uint8), np.array([-2 ** 31, 7], np.int32),
                 np.array([-2 ** 63, 1])):
        check_warnings(unary, data)


def test_floor_division_of_the_minimum_integer_by_minus_one_warns_as_numpy():
    def scalar(a):
        return a[0] // -1, a // -1

    def arrays(a, b):
        return np.floor_divide(a, b), a // b

    check_warnings(scalar, np.array([-128, 3], np.int8))
    check_warnings(scalar, np.array([5, 3], np.int8))
    check_warnings(arrays, np.array([-128, 6, 7], np.int8), np.array([-1, 0, 2], np.int8))


def test_builtin_sum_of_narrow_integer_scalars_warns_where_it_wraps():
    def total(a):
        s = 0
        for v in a:
            s += v
        return s, sum(a)

    check_warnings(total, np.array([200, 100, 3], np.uint8))
    check_warnings(total, np.array([1, 2], np.uint8))
    check_warnings(total, np.array([100, 100], np.int8))


def test_a_narrowing_float_cast_warns_of_overflow_as_numpy():
    def casts(x):
        return x.astype(np.float32), np.float32(x[1]), np.asarray(x, np.float32), np.array(x, dtype=np.float16), \
            x.astype(np.complex64)

    check_warnings(casts, np.array([1.0, 1e40, -1e39, np.inf, 70000.0]))
    check_warnings(casts, np.array([1.0, 2.0]))


def test_gcd_and_lcm_of_narrow_signed_ints_issue_no_jax_warning():
    def f(a):
        return np.gcd(a, 4), np.lcm(a, 3), np.gcd(a, a[::-1])

    check_warnings(f, np.array([-8, 7, -2 ** 31], np.int32))
    check_warnings(f, np.array([-128, 50, 100], np.int8))


def test_overflow_of_sinh_cosh_float_power_ldexp_degrees_warns_as_numpy():
    def f(x):
        return np.sinh(x), np.cosh(-x), np.float_power(x, 400), np.float_power(x - 10, -1), np.float_power(-x, 0.5), \
            np.ldexp(x, 2000), np.degrees(x * 1e306), np.float_power(x, np.inf), np.sinh(x[0])

    for data in (np.array([1000.0, 10.0]), np.array([1.0, 2.0]), np.array([np.inf, np.nan]), np.array([10.0, 0.0])):
        check_warnings(f, data)


def test_a_complex_array_cast_to_real_warns_complexwarning_as_numpy():
    def f(z):
        return z.astype(float), z.astype(np.int32), z.astype(np.complex64), np.real(z)

    check_warnings(f, np.array([1 + 1j, 2.0]))
    check_warnings(f, np.array([3j], np.complex64))
    with warnings.catch_warnings():   # (JAX's own complex-to-real DeprecationWarning stays out: the cast is of the real part)
        warnings.simplefilter("always")
        check_warnings(f, np.array([4 + 1j, 2.0]))


def test_log1p_and_friends_of_unsigned_data_warn_only_where_numpy_does():
    # the domain tests compared uint8 data with -1 at uint8 (255): 'invalid value encountered in log1p'
    # for every element below 255, 'divide by zero' at 255
    def f(a):
        return np.log1p(a), np.sqrt(a), np.log(a), np.arccosh(a), np.arctanh(a)

    for data in (np.array([1, 4, 255], np.uint8), np.array([0, 2], np.uint16), np.array([1, 4], np.int8)):
        check_warnings(f, data)


def test_float16_ufuncs_of_int8_and_uint8_data_round_once_as_numpys_half_loops():
    # NumPy takes int8/uint8 data through its float16 loop (computed at float32, rounded once); the graph
    # computed JAX's composite ops at float16: np.log2 of uint8 0..255 was a float16 ulp off in 114 elements
    def f(a):
        return np.log2(a), np.log10(a), np.exp2(a), np.arccosh(a), np.arcsinh(a), np.degrees(a), np.radians(a), \
            np.hypot(a, a[::-1]), np.expm1(a), np.sqrt(a)

    u8 = np.arange(256, dtype=np.uint8)
    i8 = np.arange(-128, 128, dtype=np.int8)
    check_calls(f, [(u8,), (u8[::-1].copy(),)], full_graph=False)
    with np.errstate(all="ignore"):
        for data in (u8, i8):
            for want, got in zip(f(data), to_static(f)(data)):
                assert want.dtype == got.dtype and np.array_equal(want, got, equal_nan=True)   # bit for bit


def test_float16_floor_division_remainder_and_power_round_once_as_numpys_half_loops():
    # a // b of float16 arrays was JAX's floor_divide at float16 (the quotient rounded before the floor):
    # -32.62 // -0.004555 was 7164 where NumPy's float32 loop gives 7162, 7160 at float16
    def f(a, b):
        return a // b, a % b, np.abs(a) ** b, divmod(a, b), a[0] // b[0]

    rng = np.random.default_rng(1)
    h = (rng.standard_normal(300) * 20).astype(np.float16)
    g = (rng.standard_normal(300) * 3).astype(np.float16)
    h[0], g[0] = -32.62, -0.004555
    check_calls(f, [(h, g), (g, h)])
    with np.errstate(all="ignore"):
        for want, got in zip(f(h, g), to_static(f)(h, g)):
            for w, o in zip(np.atleast_1d(want) if not isinstance(want, tuple) else want,
                            np.atleast_1d(got) if not isinstance(got, tuple) else got):
                assert np.array_equal(w, o, equal_nan=True)


def test_numpy_scalar_arithmetic_of_static_numbers_warns_on_every_call_from_the_users_line():
    # computed at trace time, NumPy's RuntimeWarning came from ast2graph's own frame, once per trace
    # (three times for an unrolled loop, none on a warm call); eager issues it from its line
    def string_hash(x, s):
        h = np.uint32(0)
        for c in s:
            h = h * np.uint32(31) + np.uint32(ord(c))
        return x + h

    def constants(x):
        k = np.int8(100) + np.int8(100)
        big = np.float64(1e308) * 10
        return x + k, big

    check_warnings(string_hash, np.ones(2), "hello world", calls=3)
    check_warnings(string_hash, np.ones(2), "hi")
    check_warnings(constants, np.ones(2), calls=3)


# ------------------------------------------- fallbacks made graph
def test_math_isclose_of_traced_numbers_is_one_graph_with_cpythons_test():
    import math

    def flags(x):
        out = []
        for v in x:
            out.append(math.isclose(v, 1.0))
            out.append(math.isclose(float(v), 1.0, abs_tol=1e-3))
            out.append(math.isclose(1.0, v, rel_tol=0.1))
        out.append(math.isclose(x[0], x[1]))
        return out

    def fixed_point(x0):
        x = x0
        for i in range(50):
            nx = math.cos(x)
            if math.isclose(nx, x, rel_tol=1e-12):
                return nx, i
            x = nx
        return x, -1

    check_calls(flags, [(np.array([1.0, 1.0 + 1e-10, 1.0005, np.inf, np.nan, 0.9]),),
                        (np.array([np.inf, np.inf], np.float32),), (np.array([1, 1], np.int32),)])
    check_calls(fixed_point, [(0.5,), (np.float64(0.7),), (np.float32(0.2),)])


def test_a_ufunc_with_dtype_computes_in_that_loop_as_one_graph():
    # np.add(a, b, dtype=np.int16) fell back (A2G003: JAX's ufunc takes no dtype=); NumPy casts the
    # operands to the loop's dtype (same_kind) and computes there
    def f(a, b, x):
        return np.add(a, b, dtype=np.int16), np.multiply(a, b, dtype=np.int64), np.add(x, 1, dtype=np.float64), \
            np.multiply(a, 3, dtype=np.float32), np.sqrt(a, dtype=np.float32), np.add(a, b, dtype=np.float16)

    def refused(x):
        return np.add(x, 1, dtype=np.int64)   # float to int is not same_kind: eager raises

    a, b = np.array([100, -100, 127], np.int8), np.array([100, 100, 2], np.int8)
    x = np.array([1.0 + 2 ** -11 + 2 ** -40, 2.0, 1e40])
    check_calls(f, [(a, b, x), (b, a, x[::-1].copy())])
    check_warnings(f, a, b, x)
    check_calls(refused, [(x,)], full_graph=False)


def test_complex_of_traced_numbers_is_one_graph():
    # complex(float(re), float(im)) / complex(z[0]) fell back (A2G003: complex() of a traced array needs its
    # value on the host): the quadratic formula's complex roots, a loop printing complex(v)
    import jax.numpy as jnp

    def roots(coef):
        a, b, c = coef
        disc = b * b - 4 * a * c
        if disc < 0:
            re = -b / (2 * a)
            im = np.sqrt(-disc) / (2 * a)
            return (complex(float(re), float(im)), complex(float(re), -float(im)))
        sq = np.sqrt(disc)
        return ((-b + sq) / (2 * a), (-b - sq) / (2 * a))

    def conversions(z, x):
        return complex(z[0]), complex(x[0]), complex(x[0], x[1]), complex(-0.0, x[1]), complex(x[0]) * 2, \
            [complex(v) for v in z]

    check_calls(roots, [(np.array([1.0, -3.0, 2.0]),), (np.array([1.0, 2.0, 5.0]),), (np.array([1.0, 1.0, 1.0], np.float32),)])
    check_calls(roots, [(jnp.array([1.0, 2.0, 5.0]),), (jnp.array([1.0, -3.0, 2.0]),)])
    check_calls(conversions, [(np.array([1 + 2j, -0.5j]), np.array([1.5, -0.0])),
                              (np.array([3j], np.complex64), np.array([2, 3], np.int32)),
                              (jnp.array([1 + 1j]), jnp.array([0.5, 2.5]))])


def test_a_ufunc_with_dtype_none_keeps_numpys_own_choice():
    # dtype=None was handed to JAX's ufunc: an internal error (A2G015), the statement run in Python
    def f(a):
        return np.add(a, 1, dtype=None), np.multiply(a, a, dtype="int16"), np.negative(a, dtype=np.int32), \
            np.sqrt(a, dtype=None)

    check_calls(f, [(np.array([1, 2], np.int8),), (np.array([100, -128], np.int8),)])


def test_a_complex_product_is_rounded_before_the_sum_that_uses_it():
    # s += x[t] * w (a naive DFT): XLA contracted the product's real multiply-adds into the running sum
    # (one rounding where eager rounds the product first): the last bit of the Python complex differed
    import cmath

    def dft_bin(x, k):
        s = complex(0.0, 0.0)
        for t in range(len(x)):
            s += x[t] * cmath.exp(-2j * cmath.pi * k * t / len(x))
        return s

    def dft(x):
        out = []
        for k in range(len(x)):
            s = complex(0.0, 0.0)
            for t in range(len(x)):
                s += complex(x[t]) * cmath.exp(-2j * cmath.pi * k * t / len(x))
            out.append(s)
        return out

    check_calls(dft_bin, [(np.array([1.0, 2.0, 3.0]), 2), (np.array([1.0, 0.0, -1.0, 0.0]), 1)])
    check_calls(dft, [(np.array([1.0, 2.0, 3.0]),), (np.array([1.0, 0.0, -1.0, 0.0]),)])


def test_a_python_float_beyond_a_narrow_arrays_range_is_cast_with_numpys_warning():
    # x16 + 1e5: NumPy casts 1e5 to float16 (inf, 'overflow encountered in cast' from the user's line) and
    # adds the infinity quietly; the graph warned 'overflow encountered in add' and leaked JAX's own cast
    # warning from JAX's frame at trace time
    def ops(x):
        return x < 1e5, x == 1e5, x + 1e5, x - 1e5, x / 1e5, 1e5 / x, x // 1e5, x % 1e5, x[0] + 1e5, x > -1e40, \
            x * 1e-30

    def inplace(x):
        y = x.copy()
        y += 7e4
        y *= 2.0
        return y

    for fn in (ops, inplace):
        for data in (np.array([1.0, 2.0], np.float16), np.array([1.0, -3.0], np.float32), np.array([1.0, 2.0])):
            check_calls(fn, [(data,)])
            check_warnings(fn, data)
