"""A value whose eager kind depends on the path taken stays in the graph.

``s = 0.0`` then ``s = s + x[i]`` under a traced ``if``: eager's ``s`` is a
Python float on one call and a jax.Array on another, by the data. The graph
carries a run-time kind tag with the value (``typeinfer/pathkinds.py``):
operations compute each kind's result, prints and f-strings format eager's
object, ``isinstance`` is a traced bool, and the caller gets the object of
eager's kind. Every test calls one converted function on inputs that take
every path (so that both kinds come back across calls), first and warm
(the fast path), each compared with the eager run (``helpers``).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import _compare, check


def check_paths(fn, inputs, full_graph=True, **options):
    """One converted function called on each input tuple, then again on each
    (warm calls: the fast path where the function is one graph); every call
    equals eager's (values, dtypes, kinds, printed text, exceptions)."""
    static = to_static(fn, full_graph=full_graph, **options)
    for when in ("", "(warm call) "):
        for args in inputs:
            _compare(fn, static, args, {}, 1e-5, 1e-6, True, when)
    return static


def one_graph(fn, *args):
    e = explain(to_static(fn))(*args)
    assert e.graph_count == 1 and not e.fallback_sites, str(e)
    return e


POS = jnp.array([1.0, 2.0, 3.0, 4.0])
NEG = -POS
MIX = jnp.array([-1.0, 2.0, -3.0, 4.0])
VECTORS = [(POS,), (NEG,), (MIX,)]


# ---------------------------------------------------------------- branches
def float_or_array(x):
    s = 0.0
    if x[0] > 0:
        s = s + x[1]
    return s


def int_or_array(x):
    y = 0 if x.sum() > 0 else x.sum()
    return y


def three_kinds_nested(x):
    if x[0] > 0:
        if x[1] > 2.5:
            s = x.sum()
        else:
            s = 1
    else:
        s = 2.5
    return s


def python_int_or_float(x):
    y = 0 if x.sum() > 1 else 1.5
    z = y * 2            # a Python number either way, of the same type as y
    return y, z, x * y


def numpy_scalar_or_python(x):
    s = 0.0
    if x[0] > 0:
        s = x[0]          # a NumPy scalar (x is an ndarray)
    return s, s * 2


def bool_kinds(x):
    flag = False
    if x[0] > 0:
        flag = x[1] > 2.0
    return flag, flag and True


@pytest.mark.parametrize("fn", [float_or_array, int_or_array, three_kinds_nested, python_int_or_float])
def test_branch_kinds_returned(fn):
    check_paths(fn, VECTORS + [(jnp.array([1.0, 0.5, 0.0, 0.0]),)])


def test_numpy_scalar_or_python_number():
    data = np.array([1.5, 2.0, 3.0], dtype=np.float32)
    check_paths(numpy_scalar_or_python, [(data,), (-data,)])


def test_bool_kinds():
    check_paths(bool_kinds, VECTORS)


def test_exact_python_float_on_its_path():
    # 0.1 as a float32 would be 0.10000000149011612: the Python float path keeps float64
    def f(x):
        s = 0.1
        if x[0] > 0:
            s = x[1]
        return s, s * 3
    check_paths(f, VECTORS)


def test_weak_python_number_keeps_eager_dtype():
    # 0.1 * 3 + h is float16 on the Python path (a weak Python float), float32 on the other
    def f(x, h):
        s = 0.1
        if x[0] > 0:
            s = x[1]
        return s * 3 + h
    h = jnp.ones(3, jnp.float16)
    check_paths(f, [(POS, h), (NEG, h)])


# ------------------------------------------------------------------- loops
def unrolled_accumulate(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i]
    return s


def fori_accumulate(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i]
    return s


def while_accumulate(x):
    acc = 0.0
    i = 0
    while x[i] < 5:
        acc = acc + x[i]
        i += 1
    return acc          # a Python float if the loop never ran


def best_loss(x):
    best = float("inf")
    best_i = -1
    for i in range(x.shape[0]):
        loss = x[i] ** 2
        if loss < best:
            best = loss
            best_i = i
    return best, best_i


def scan_rows(m):
    best = 0
    for row in m:
        if row.sum() > 1.0:
            best = row.max()
    return best


def test_unrolled_loop():
    check_paths(unrolled_accumulate, VECTORS)


def test_rolled_fori_loop():
    long = jnp.linspace(-1.0, 1.0, 40)
    e = explain(to_static(fori_accumulate))(-long * 0 - 1)
    assert ("for", "lax.fori_loop") in [(d.construct, d.mode) for d in e.decisions]
    check_paths(fori_accumulate, [(long,), (-jnp.abs(long) - 1,), (jnp.abs(long),)])


def test_while_loop_zero_or_more_iterations():
    data = jnp.arange(40.0)
    check_paths(while_accumulate, [(data,), (data + 10,)])


def test_best_loss_pattern():
    check_paths(best_loss, [(POS,), (jnp.full(4, jnp.inf),), (MIX,)])


def test_scan_over_rows():
    m = jnp.linspace(-1.0, 1.0, 60).reshape(20, 3)
    assert ("for", "lax.scan") in [(d.construct, d.mode) for d in one_graph(scan_rows, m).decisions]
    check_paths(scan_rows, [(m,), (-jnp.abs(m),)])


# ------------------------------------------------------ helpers, containers
def _add_if_positive(s, v):
    if v > 0:
        return s + v
    return s


def through_helper(x):
    s = 0
    for i in range(3):
        s = _add_if_positive(s, x[i])
    return s


def in_containers(x):
    s = 0.0
    if x[0] > 0:
        s = x.sum()
    return (s, [s, 1]), {"s": s, "x": x}


def test_through_helper():
    check_paths(through_helper, VECTORS)


def test_returned_inside_containers():
    check_paths(in_containers, VECTORS)


# ------------------------------------------------------- where kind is seen
def printed(x):
    s = 0.0
    if x[0] > 0:
        s = x[1] * 2
    print(s)
    print("s =", s, f"{s}", f"{s:.3f}", "%s" % (s,), "{:.2f}".format(s))
    print("s is " + str(s) + ", " + repr(s))
    return x + 1


def isinstance_test(x):
    s = 0.0
    if x[0] > 0:
        s = x.sum()
    if isinstance(s, float):
        return x * 0
    return x * s


def converted_to_python(x):
    s = 0 if x[0] > 0 else x.sum()
    return float(s), int(s), bool(s), abs(s), max(s, 1.0)


def division_by_python_zero(x):
    s = 0.0
    if x[0] > 0:
        s = x.sum()
    return 1.0 / s      # ZeroDivisionError on the Python path, inf on the array's


def compared(x):
    s = 0.0
    if x[0] > 0:
        s = x[1]
    return s > 1.0, s == 0.0


def test_printed_values():
    check_paths(printed, VECTORS)


def test_isinstance_is_a_traced_bool():
    check_paths(isinstance_test, VECTORS)


def test_python_conversions():
    check_paths(converted_to_python, VECTORS)


def test_division_raises_on_the_python_path_only():
    check_paths(division_by_python_zero, VECTORS)


def test_comparisons():
    check_paths(compared, VECTORS)


# ---------------------------------------------------- segments and fallbacks
def handed_to_python_statement(x):
    s = 0.0
    if x[0] > 0:
        s = x.sum()
    kind = type(s).__name__      # runs in Python: it gets eager's object
    return kind, s


def test_value_handed_to_an_interpreted_statement():
    check_paths(handed_to_python_statement, VECTORS, full_graph=False)


def test_under_outer_transform_falls_back():
    def f(x, n):
        s = 0.0
        if n > 2:
            s = x.sum()
        return s
    g = to_static(f, static_values=0)
    for n in (1, 3):
        assert jax.jit(lambda x: g(x, 5))(POS) == f(POS, 5)


# ------------------------------------------------- exits, state, effects in loops
def early_exit_loop(x):
    s = 0
    for i in range(x.shape[0]):
        if x[i] > 3:
            break
        if x[i] > 0:
            s = s + x[i]
    return s


def early_return(x):
    s = 0.0
    if x[0] > 0:
        s = x.sum()
    if x[1] > 1:
        return s
    return s * 2


def printed_in_rolled_loop(x):
    s = 0.0
    for i in range(20):
        if x[i] > 0:
            s = s + x[i]
        if i % 5 == 0:
            print(i, s)
    return s


class Tracker:
    def __init__(self):
        self.best = float("inf")

    def update(self, x):
        if x.min() < self.best:
            self.best = x.min()
        return x


def test_break_in_loop():
    check_paths(early_exit_loop, VECTORS + [(jnp.array([1.0, 5.0, 1.0, 1.0]),)])


def test_early_return():
    check_paths(early_return, VECTORS)


def test_printed_inside_a_rolled_loop():
    v = jnp.linspace(-1.0, 1.0, 20)
    check_paths(printed_in_rolled_loop, [(v,), (-jnp.abs(v) - 1,)])


def test_attribute_written_with_path_kind():
    for x in (POS, NEG * 0 + jnp.inf):
        eager, conv = Tracker(), Tracker()
        g = to_static(conv.update, full_graph=True)
        eager.update(x)
        g(x)
        assert type(eager.best) is type(conv.best) and float(eager.best) == float(conv.best)


# ------------------------------------------------------------- None or array
def best_or_none(x):
    best = None
    for i in range(x.shape[0]):
        loss = x[i] ** 2
        if x[i] > 0 and (best is None or loss < best):
            best = loss
    return best


def best_or_none_rolled(x):
    best = None
    for i in range(x.shape[0]):
        if x[i] > 0:
            if best is None or x[i] < best:
                best = x[i]
    return best


def none_tested(x):
    found = None
    if x[0] > 0:
        found = x * 2
    if found is None:
        print("nothing found")
        return x
    print("found", found)
    return found + 1


def none_default(x):
    limit = None
    if x.sum() > 0:
        limit = x.max()
    limit = limit if limit is not None else 0.5
    return x * limit, limit is None


def test_best_or_none_unrolled():
    check_paths(best_or_none, VECTORS)


def test_best_or_none_rolled_loop():
    v = jnp.linspace(-1.0, 1.0, 40)
    check_paths(best_or_none_rolled, [(v,), (-jnp.abs(v) - 1,)])


def test_none_tested_in_branches():
    check_paths(none_tested, VECTORS)


def test_none_default_expression():
    check_paths(none_default, VECTORS)


# ------------------------------------- a JAX function of many such values
def stacked(x, h):
    out = []
    for i in range(6):
        if x[i] > 0:
            out.append(x[i])
        else:
            out.append(0.5)
    y = jnp.stack(out)     # weakly typed float32 when every item is a Python float
    print(y)
    return y, y[:3] + h    # float16 then (a weak float32 with float16), float32 otherwise


def test_jax_function_of_many_kinded_values():
    h = jnp.ones(3, jnp.float16)
    v = jnp.arange(6.0) - 2.5
    check_paths(stacked, [(v, h), (-jnp.abs(v) - 1, h), (jnp.abs(v), h)], unroll_limit=2)


def rows_of_numpy_or_jax(x, n):
    m = n                      # a NumPy array
    if x.sum() > 0:
        m = jnp.asarray(n) * x[0]
    total = 0.0
    for row in m:              # a NumPy row or a jax.Array row, by the path
        total = total + row.sum()
    return m, total


def test_iterated_rows_and_numpy_or_jax_array():
    n = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    check_paths(rows_of_numpy_or_jax, [(POS, n), (NEG, n)])


def test_warm_calls_take_the_fast_path():
    static = check_paths(float_or_array, VECTORS)
    assert static._state.fast is not None   # the jitted graph called directly; its outputs converted per call
    for x in (POS, NEG):
        assert type(static(x)) is type(float_or_array(x))
