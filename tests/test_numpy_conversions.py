"""NumPy's conversions (np.asarray and kin) inside a converted function. Of a jax.Array: what eager
hands back is known without running it. ``np.asarray(x)`` (also
``asanyarray``, ``ascontiguousarray``, a dtype equal to ``x``'s) is a
read-only view of the jax.Array's row-major buffer (C-contiguous); with a
dtype of another width it is a new, writeable, C-ordered array. Library code
reads these flags to decide whether to copy (SciPy's LAPACK wrappers,
scikit-learn's validation): a wrong answer is a wrong result, not a fallback.
Compared with eager under ``full_graph=True``."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, check_calls


def flags_of_asarray(x):
    a = np.asarray(x)
    return a.flags.writeable, a.flags.c_contiguous, a.flags.f_contiguous, a.flags["FORTRAN"], a * 2


def flags_of_asarray_with_dtype(x):
    a = np.asarray(x, dtype=np.float64)
    return a.flags.writeable, a.flags["C_CONTIGUOUS"], a.flags.f_contiguous, a + 1


def flags_of_asarray_with_own_dtype(x):
    a = np.asarray(x, x.dtype)
    return a.flags.writeable, a.flags.c_contiguous, a


def copy_if_read_only(x):
    """The pattern of library validation code: copy only where it must."""
    a = np.asarray(x, dtype=np.float64)
    if not a.flags.writeable:
        a = a.copy()
    a[0] = 0.0
    return a


SHAPES = [(3, 3), (4,), (1, 5), (2, 3, 2)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("fn", [flags_of_asarray, flags_of_asarray_with_dtype, flags_of_asarray_with_own_dtype])
def test_flags_of_a_numpy_conversion_of_a_jax_array(fn, shape):
    x = jnp.arange(float(np.prod(shape))).reshape(shape)
    check(fn, x)
    check(fn, x.astype(jnp.int32))


def test_a_copy_decided_by_the_writeable_flag():
    check(copy_if_read_only, jnp.arange(4.0))
    check(copy_if_read_only, jnp.arange(6.0).reshape(3, 2))


def cast_then_write(x):
    a = np.asarray(x, dtype=np.float32)   # a new array where x is not float32: x unchanged
    a[0] = 9.0
    return a, x, a is x


def cast_flags(x):
    a = np.asarray(x, np.float64)
    return a.flags.writeable, a is x, a * 2


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.float32], ids=lambda d: d.__name__)
def test_a_numpy_conversion_to_another_dtype_is_a_new_array(dtype):
    """``np.asarray(x, dtype)`` of an ndarray of another dtype is a copy: a
    write into it leaves the argument as it was, ``is`` says so. One graph
    where the dtype differs; where it is the same the result is the argument
    itself (checked against eager too, whatever the graph count)."""
    x = np.arange(4).astype(dtype)
    check(cast_then_write, x, full_graph=dtype is not np.float32)
    check(cast_flags, x, full_graph=dtype is not np.float64)


# A strided view of np.asarray(jax.Array) that leaves its segment (a statement
# after it runs in Python) is made again on the caller's array: eager's
# layout and read-only flag, not a C-ordered copy (h-lib9's finding).
def strided_view_flags_read_in_python(x):
    a = np.asarray(x)
    b = a[:, ::2]
    print(b.flags.writeable, b.flags.c_contiguous)   # .flags of a layout the graph does not model: Python
    return b.sum()


def contiguous_copy_of_a_strided_view_written(x):
    a = np.asarray(x)[:, ::2]
    b = np.ascontiguousarray(a)   # a copy in eager (a is not contiguous): writeable
    b[0, 0] = 7
    return b


@pytest.mark.parametrize("fn", [strided_view_flags_read_in_python, contiguous_copy_of_a_strided_view_written])
def test_a_strided_view_of_a_jax_buffer_leaves_its_segment_with_eager_layout(fn):
    check(fn, jnp.arange(12.0).reshape(3, 4), full_graph=False)


def flags_of_basic_views(a):
    out = []
    for v in (a[1:], a[:, 1:], a[:, ::2], a[::2], a[1], a[:, 1], a[None, 1:2], a[..., :1], a[::-1]):
        out.append((v.flags.c_contiguous, v.flags.f_contiguous))
    return out, a[:, ::2].sum()


@pytest.mark.parametrize("make", [lambda: np.arange(12.0).reshape(3, 4), lambda: np.asfortranarray(
    np.arange(12.0).reshape(3, 4)), lambda: jnp.arange(12.0).reshape(3, 4)], ids=["C", "F", "jax"])
def test_flags_of_a_static_basic_view_are_eager_s_in_one_graph(make):
    # (NumPy's answer on a stand-in with the base's strides: the base's layout known, the index static)
    def fn(x):
        return flags_of_basic_views(np.asarray(x))
    check(fn, make(), full_graph=True)


# ------------------------------------------------ ravel/flatten in memory order (order="K"/"A")
def _ravel_k(x):
    return np.ravel(x, order="K") * 2, x.ravel(order="A").sum(), x.flatten(order="K")


def _ravel_of_transpose(x):
    return np.ravel(x.T, order="K"), np.ravel(x.T, order="A"), x.T.flatten("A")


def test_ravel_and_flatten_in_memory_order_follow_the_known_layout():
    """JAX implements neither "K" nor "A": NumPy's order is the operand's
    memory order, known here from the argument's layout (part of the plan
    key: a C- and then a Fortran-ordered argument each get their graph) and
    from NumPy's own views (``x.T``); sklearn's ``squared_norm`` is one graph."""
    from sklearn.utils.extmath import squared_norm

    c = np.array([[0.0, 1.0, 5.0], [1.0, 1.5, -2.0]])
    calls = [(c,), (np.asfortranarray(c),), (jnp.asarray(c, jnp.float32),)]
    check_calls(_ravel_k, calls[:2])
    check_calls(_ravel_of_transpose, calls[:2])
    check_calls(squared_norm, calls)
