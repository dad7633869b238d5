"""The library sweep in h-lib9 (issue 16, library part): library functions
called with jax.Array inputs, and the layout of NumPy's copies.

* A SciPy function with a JAX equivalent validated on exemplars is its
  equivalent with jax.Array operands too: the exemplars SciPy is checked on are
  then jax.Arrays, as eager hands SciPy (``scipy.linalg.solve``/``inv``/
  ``cho_factor``); SciPy's own call on the host where an input or a result is
  not finite, on the jax.Arrays eager has.
* ``np.array(x, copy=np._CopyMode.IF_NEEDED)`` of a jax.Array (array_api_compat's
  ``asarray``, scipy's ``_apply_over_batch``) views its buffer read-only, as
  ``np.asarray`` does; ``order="C"``/``device="cpu"`` too. A probed library
  function whose eager result is read-only gives a read-only result.
* ``x.copy(order)``, ``np.copy(a, order)``, ``np.asfortranarray``,
  ``np.ascontiguousarray`` give eager's layout (``.flags`` answers as
  eager's); ``x.T`` of a known layout has the transposed one.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import scipy.linalg
import scipy.special

from ast2graph import explain
from tests.helpers import check, check_sequence

rng = np.random.default_rng(9)
A = rng.standard_normal((4, 4)) + 4 * np.eye(4)
b = rng.standard_normal(4)


def _flags(a):
    return (type(a).__name__, a.flags.writeable, a.flags.c_contiguous, a.flags.f_contiguous)


def test_scipy_equivalent_with_jax_operands():
    def f(a, v):
        x = scipy.linalg.solve(a, v)
        return x, scipy.linalg.inv(a) @ v
    check(f, jnp.asarray(A), jnp.asarray(b), full_graph=True)


def test_scipy_equivalent_with_jax_operands_singular_on_a_later_call():
    # the verdict is cached per signature: a singular matrix later raises SciPy's own error
    check_sequence(lambda: (scipy.linalg.solve, None),
                   [lambda f, w: f(jnp.asarray(A), jnp.asarray(b)),
                    lambda f, w: f(jnp.zeros((4, 4)), jnp.asarray(b)),
                    lambda f, w: f(jnp.asarray(A.T), jnp.asarray(b))], full_graph=True)


def test_scipy_python_with_jax_operands():
    # qr, eigh: SciPy's Python (_apply_over_batch's np.array(x, copy=IF_NEEDED), LAPACK wrappers)
    def f(a):
        q, r = scipy.linalg.qr(a)
        w, v = scipy.linalg.eigh(a + a.T)
        return q, r, w, np.abs(v)
    check(f, jnp.asarray(A), full_graph=True)


def test_logsumexp_of_a_jax_array():
    check(scipy.special.logsumexp, jnp.asarray(b), full_graph=True)


def test_array_if_needed_of_a_jax_array_is_read_only():
    def f(x):
        a = np.array(x, copy=np._CopyMode.IF_NEEDED)
        c = np.asarray(x, order="C")
        return _flags(a), _flags(c), a * 2
    check(f, jnp.ones((3, 4)), full_graph=True)


def test_copy_orders_of_a_numpy_array():
    def f(x):
        a = x.T
        return (_flags(x.copy()), _flags(x.copy(order="F")), _flags(x.copy("A")), _flags(a.copy(order="K")),
                _flags(a.copy(order="A")), _flags(np.copy(x, order="F")), _flags(np.copy(a)),
                _flags(np.ascontiguousarray(a)), np.asfortranarray(x) * 2, np.asfortranarray(a) is a)
    check(f, np.arange(12.0).reshape(3, 4), full_graph=True)


def test_copy_orders_of_a_jax_array():
    def f(x):
        a = np.asarray(x)
        return (_flags(a.copy(order="F")), _flags(np.copy(x, order="F")), _flags(np.asfortranarray(x)),
                _flags(np.ascontiguousarray(a.T)), _flags(np.asfortranarray(x[0])), np.copy(x) + 1)
    check(f, jnp.arange(12.0).reshape(3, 4), full_graph=True)


def test_copy_layout_follows_the_argument_layout():
    # the argument's layout is in the plan key: a Fortran-ordered argument re-specialises
    def f(x):
        c = x.copy(order="K")
        return _flags(c), _flags(np.ascontiguousarray(x)), c * 2
    check_sequence(lambda: (f, None), [lambda f, w: f(np.ones((3, 4))), lambda f, w: f(np.asfortranarray(np.ones((3, 4)))),
                                       lambda f, w: f(np.ones((3, 4)))], full_graph=True)


def test_write_into_a_fortran_copy():
    def f(x):
        y = np.asfortranarray(x)
        y[0, 0] = 5.0
        return y, _flags(y), x
    check(f, np.arange(6.0).reshape(2, 3), full_graph=True)


def test_copy_order_k_of_an_unknown_layout_falls_back():
    # a strided view's "K" copy: its layout is not known to the graph
    def f(x):
        v = x[:, ::2]
        return _flags(v.copy(order="K")), v.sum()
    e = explain(f)(np.arange(12.0).reshape(3, 4))
    assert e.result[0] == f(np.arange(12.0).reshape(3, 4))[0]
    check(f, np.arange(12.0).reshape(3, 4), full_graph=False)


def test_and_with_a_static_string_in_a_test():
    # scipy.linalg's _check_info: ``if info > 0 and positive:`` with a traced info
    def f(x, positive="did not converge"):
        info = x.sum() > 0
        if info and positive:
            return x * 2
        if not (info or ""):
            return x - 1
        return x
    check_sequence(lambda: (f, None), [lambda f, w: f(jnp.ones(3)), lambda f, w: f(-jnp.ones(3)),
                                       lambda f, w: f(jnp.ones(3), "")], full_graph=True)


def test_and_with_a_static_string_as_a_value_falls_back():
    def f(x, positive="did not converge"):
        return (x.sum() > 0) and positive
    for x in (jnp.ones(3), -jnp.ones(3)):
        e = explain(f)(x)
        assert e.fallback_sites and str(e.result) == str(f(x))


def test_matrix_products_are_c_ordered():
    # scipy.linalg.solve_sylvester's np.dot(u, q) read by get_lapack_funcs' ``.flags.fortran``
    def f(u, q):
        d = np.dot(np.asfortranarray(u), q)
        m = np.asarray(q).T @ u
        return _flags(d), _flags(m), d, m
    check(f, np.arange(9.0).reshape(3, 3), jnp.ones((3, 3)), full_graph=True)


def test_atleast_2d_of_a_matrix_is_itself():
    def f(x):
        a = np.atleast_2d(x)
        b = np.atleast_1d(np.asfortranarray(x))
        return a is x, _flags(b), a * 2
    check(f, np.ones((2, 3)), full_graph=True)


def test_may_share_memory_of_a_jax_buffer_and_a_new_array():
    # scipy.ndimage's rank filters (scipy.signal.medfilt): np.may_share_memory(input, output)
    def f(x):
        a = np.asarray(x)
        out = np.zeros(a.shape)
        shared = np.may_share_memory(a, out)
        out[...] = a * 2
        return shared, out
    check(f, jnp.arange(4.0), full_graph=True)


def test_broadcast_arrays_of_jax_arrays_is_a_tuple():
    # scipy.special.spherical_jn: np.broadcast_arrays(n, z) of jax.Arrays (jnp's is a list)
    def f(x, y):
        r = np.broadcast_arrays(x, y)
        return type(r).__name__, [(type(v).__name__, v.flags.writeable) for v in r], r[0] * 2, r[1]
    check(f, jnp.ones(3), jnp.arange(6.0).reshape(2, 3), full_graph=True)


def test_flags_of_a_zero_d_array():
    # array_api_compat's is_writeable_array(x) of a 0-d ndarray (scipy.stats.pearsonr with jax.Arrays)
    def f(x):
        a = np.asarray(x.sum())
        c = np.cov(np.asarray(x))
        return a.flags.c_contiguous, a.flags.f_contiguous, a.flags.writeable, c.flags.c_contiguous, c * 2
    check(f, jnp.arange(4.0), full_graph=True)
