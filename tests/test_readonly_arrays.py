"""NumPy arrays that are read-only in eager stay read-only: ``np.asarray`` of a
jax.Array (a view of its host buffer), ``np.broadcast_to``, views of them, and
read-only arguments. A write into one raises eager's ValueError; their
``.flags.writeable`` is False. The plan is keyed on which arguments are
read-only, so a writable array on the next call is written.

Each case is compared with the eager run of the same function.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import to_static
from helpers import assert_same, check


def write_into_converted(x):
    c = np.asarray(jnp.asarray(x) * 2)
    c[0] = 7.0
    return c


def write_into_view_of_converted(x):
    c = np.asarray(jnp.asarray(x))[1:]
    c += 1
    return c


def flags_of_converted(x):
    c = np.asarray(jnp.asarray(x))
    d = np.broadcast_to(x, (2, 3))
    return c.flags.writeable, d.flags.writeable, (x * 2).flags.writeable


def write_argument(a):
    a[0] = 5.0
    return a.sum()


@pytest.mark.parametrize("fn", [write_into_converted, write_into_view_of_converted, flags_of_converted])
def test_readonly_arrays_match_eager(fn):
    check(fn, np.arange(3.0), full_graph=False)


def test_readonly_argument_between_calls():
    f = to_static(write_argument)
    for writable in (True, False, True):
        a, b = np.arange(3.0), np.arange(3.0)
        a.flags.writeable = b.flags.writeable = writable
        try:
            expected, e_exc = write_argument(a), None
        except ValueError as e:
            expected, e_exc = None, e
        try:
            got, c_exc = f(b), None
        except ValueError as e:
            got, c_exc = None, e
        assert (type(c_exc), str(c_exc)) == (type(e_exc), str(e_exc))
        assert_same(expected, got)
        assert_same(a, b)


def flags_object_then_writeable(x):
    y = x * 2.0                        # a new array: writeable
    z = np.broadcast_to(x, (2, 3))     # read-only in eager
    flags = getattr(y, "flags", None)  # (sklearn's check_array)
    if not getattr(flags, "writeable", True):
        y = y.copy()
    zf = z.flags
    return y, flags.writeable, zf.writeable, getattr(zf, "writeable", True)


def test_flags_object_answers_writeable_only():
    check(flags_object_then_writeable, np.arange(3.0))


def flags_layout(x):
    fl = (x * 2.0).flags
    return fl.c_contiguous


def test_flags_layout_fields_fall_back():
    check(flags_layout, np.arange(3.0), full_graph=False)


def memory_shared(x):
    y = np.asarray(x)
    z = x * 2.0
    return np.may_share_memory(y, x), np.may_share_memory(z, x), np.shares_memory(x, z), np.may_share_memory(z, z)


def test_may_share_memory_where_the_graph_knows():
    check(memory_shared, np.arange(4.0))
    check(memory_shared, np.zeros(0))


def memory_of_views(x):
    z = x * 2.0
    return np.may_share_memory(z[1:], z[:1])


def test_may_share_memory_of_views_falls_back():
    check(memory_of_views, np.arange(4.0), full_graph=False)
