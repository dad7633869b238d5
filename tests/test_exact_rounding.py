"""Every floating-point op rounds as eager's op by op (``exact_rounding``, on
by default): a multiplication and the add or subtract that uses its product
stay two roundings (XLA would contract them into one fused multiply-add in a
fused loop), and a division is not rewritten across the ops that made its
operands (``a / sqrt(b)`` as ``a * rsqrt(b)``, ``a / b / c`` as ``a / (b * c)``).
Every comparison here is exact (rtol=atol=0): the differences are in the last
bit, or a nan against an infinity, or a zero against a rounding error."""

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_calls

EXACT = dict(rtol=0.0, atol=0.0)


def overflow_then_subtract(a):
    return a * 10.0 - np.float64(np.inf)


def square_minus_one(x):
    return x * x - 1.0, jnp.square(x) - 1.0, x ** 2 - 1.0, -(x * x) + 1.0


def singular(m):
    det = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    if det == 0:
        return "singular", det
    return "regular", det


def horner(coeffs, x):
    acc = jnp.zeros_like(x)
    i = 0
    while i < coeffs.shape[0]:   # a rolled loop: the product is carried to the next sum
        acc = acc * x + coeffs[i]
        i += 1
    return acc


def test_a_product_that_overflows_before_the_subtract_is_nan_as_in_eager():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(overflow_then_subtract, np.float64(1e308), **EXACT)
        check(overflow_then_subtract, np.full(3, 1e308), **EXACT)


def test_the_last_bit_of_a_product_minus_one_is_eagers():
    x = 1.0 + 2.0 ** -30
    check_calls(square_minus_one, [(np.full(5, x),), (np.full(5, -x),)], **EXACT)
    check(square_minus_one, jnp.full(5, 1.0 + 2.0 ** -12, jnp.float32), **EXACT)


def test_a_singular_matrix_has_eagers_zero_determinant_and_takes_its_branch():
    # 0.7 * 0.3 - 0.1 * 2.1 is eager's -2.8e-17; 0.1 * 0.6 - 0.2 * 0.3 is 0.0
    check_calls(singular, [(np.array([[0.1, 0.2], [0.3, 0.6]]),), (np.array([[0.7, 0.1], [2.1, 0.3]]),)], **EXACT)


def test_a_product_carried_through_a_rolled_loop():
    coeffs = jnp.asarray([1.0, -3.0, 3.0, -1.0], jnp.float32)
    check(horner, coeffs, jnp.linspace(0.9, 1.1, 7, dtype=jnp.float32), **EXACT)


def test_exact_rounding_false_lets_xla_fuse_and_is_checked():
    x = np.full(5, 1.0 + 2.0 ** -30)
    fast = to_static(square_minus_one, exact_rounding=False)
    for e, c in zip(square_minus_one(x), fast(x)):
        np.testing.assert_allclose(c, e, rtol=1e-15, atol=1e-15)   # within a rounding, not exact
    assert "_unfused" not in fast.explain(x).lowered_source
    assert "_unfused" in explain(square_minus_one)(x).lowered_source
    with pytest.raises(TypeError, match="exact_rounding must be True or False"):
        to_static(square_minus_one, exact_rounding=1)


def test_a_product_only_summed_or_compared_is_left_to_xla():
    def f(a, b):
        return (a * b).sum(), jnp.mean(a * b), (a * b > 1.0)
    x = jnp.linspace(0.0, 2.0, 9)
    check(f, x, x[::-1])
    assert "_unfused" not in explain(f)(x, x[::-1]).lowered_source


def test_the_derivative_through_a_kept_product_is_eagers():
    import jax

    def f(x):
        return (x * 3.0 - x * x).sum()
    x = jnp.array([0.0, 1.0, -0.0, -2.0])
    check(jax.grad(f), x, **EXACT)
    np.testing.assert_array_equal(jax.grad(to_static(f))(x), jax.grad(f)(x))
    np.testing.assert_array_equal(jax.jacfwd(to_static(f))(x), jax.jacfwd(f)(x))
    np.testing.assert_array_equal(jax.vmap(to_static(f))(x[:, None]), jax.vmap(f)(x[:, None]))


def divisions(a, b, c):
    return a / b / c, a / jnp.exp(b), a / (b / c), a / jnp.sqrt(b), a / jnp.linalg.norm(a), a / b.std()


def numpy_divisions(a, b, c):
    return a / b / c, a / (b / c), (a / b) / (c / a)


def test_a_division_is_not_rewritten_across_the_ops_that_made_its_operands():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(200)
    b, c = np.abs(a[::-1]) + 0.5, np.abs(a[::2].repeat(2)) + 0.25
    check(divisions, *(jnp.asarray(v, jnp.float32) for v in (a, b, c)), **EXACT)
    check(numpy_divisions, a, b, c, **EXACT)


def masked(x, y):
    import jax
    return (-(jax.nn.one_hot(y, 3) * jnp.log(x)).sum(-1), jnp.eye(3) * x, x * jnp.identity(3), jnp.tri(3) * x)


def test_a_product_with_a_one_hot_or_eye_keeps_eagers_nan():
    # XLA rewrites a product with a 0/1 array converted from booleans into a select: 0 * -inf would be 0
    x = jnp.array([[0.5, 0.5, 0.0], [0.2, 0.8, 0.0], [jnp.inf, 0.0, 1.0]])
    check(masked, x, jnp.array([0, 1, 2]), **EXACT)


def exps_and_logs(a, b):
    return jnp.exp(a) * jnp.exp(b), jnp.log(jnp.exp(a)), 1.0 / jnp.sqrt(jnp.abs(a) + 1.0)


def test_exp_times_exp_log_of_exp_and_one_over_sqrt_are_eagers():
    # XLA: exp(a) * exp(b) -> exp(a + b); log(exp(a)) -> a (eager: inf for a = 89); 1 / sqrt -> rsqrt
    a = jnp.asarray([1.2397794, -6.56375, -37.377327, 88.0, 89.0, 1e20, -1e20, 0.0], jnp.float32)
    check(exps_and_logs, a, a[::-1], **EXACT)
