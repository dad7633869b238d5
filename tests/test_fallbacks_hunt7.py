"""Fewer fallbacks in programs nobody wrote for the compiler (issue 16, the
session-7 hunt of fallback reasons). Each capability is user code compared
with the eager run under ``full_graph=True``, on inputs that take every path.

- ``type(r)`` (and ``r.dtype``) of a value whose kind depends on the path
  taken (``r = 0.0`` or a NumPy scalar, by the data): a class or a builtin
  dtype is a constant variant of the kind tag, so ``type(r).__name__``,
  ``type(r) is float`` and ``np.asarray(r).dtype`` are one graph (hunt
  p_control.acc_changes_type_np, numpy_branch_scalar_kind,
  p_s4_prep.fill_nan_with_mean, p_s7_new.rebind_list_int, mask_float32_loop,
  p_s5_lib.emath_sqrt_kind).
"""

import numpy as np

from helpers import check, check_sequence

POS = np.array([1.0, -2.0, 3.0])
NEG = np.array([-1.0, -2.0])
EMPTY = np.array([], np.float64)
F32 = np.array([1.0, -2.0, 3.0], np.float32)


# ------------------------------------------- type() of a path-dependent kind
def p_type_name_after_loop(x):
    acc = 0
    for v in x:
        if v > 0:
            acc = acc + v
    return acc, type(acc).__name__


def p_type_after_if(x):
    s = x.sum()
    if s > 0:
        r = s
    else:
        r = 0.0
    return r, type(r), type(r) is float, isinstance(r, np.floating)


def p_type_called(x):
    s = x.sum()
    r = s if s > 0 else 0.5
    return type(r)(2), type(r) == np.float64


def p_type_printed(x):
    tot = 0.0
    for v in x:
        if v > 0:
            tot += v
    print(type(tot), type(tot).__name__)
    return tot


def p_masked_loop_kind(x):
    tot = 0.0
    for v in x[x > 0]:
        tot += v
    return tot, type(tot)


def p_dtype_after_if(x):
    r = np.emath.sqrt(x.sum())
    return r, np.asarray(r).dtype, np.asarray(r).dtype.name


def test_type_of_a_path_dependent_kind_is_one_graph():
    for a in (POS, NEG, EMPTY, F32):
        check(p_type_name_after_loop, a, full_graph=True)
        check(p_type_after_if, a, full_graph=True)
        check(p_type_called, a, full_graph=True)
        check(p_type_printed, a, full_graph=True)
    for a in (POS, NEG):
        check(p_dtype_after_if, a, full_graph=True)
        check(p_masked_loop_kind, a.astype(np.float32), full_graph=True)


def test_type_of_a_path_dependent_kind_follows_each_call():
    """One compiled graph, the data changing the path between calls."""
    def make():
        return p_type_name_after_loop, None

    steps = [lambda f, _, a=a: f(a) for a in (POS, -POS, 0 * POS, 2 * POS, -POS)]
    check_sequence(make, steps, full_graph=True, recompiles=0)


def p_two_classes_one_name(x, Big, Small):
    cls = Big if x.sum() > 0 else Small
    return cls, cls.__name__, cls.scale * x


def _classes():
    def make(scale):
        class Box:
            pass

        Box.scale = scale
        return Box

    return make(2.0), make(-3.0)


def test_classes_with_one_name_stay_apart():
    """Two classes of one name and repr are two variants: eager's own class on each path."""
    big, small = _classes()
    for a in (POS, NEG):
        check(p_two_classes_one_name, a, big, small, full_graph=True)
