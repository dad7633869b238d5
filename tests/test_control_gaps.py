"""Issue 16, item 6: the remaining control-flow gaps, each one graph with
eager's results (or eager's exception).

- A variable bound under a traced condition (or first inside a rolled loop)
  and read later is carried with a defined-flag (``MaybeBound``); a read where
  it is unbound raises eager's ``UnboundLocalError`` through a run-time check.
- A variable bound on both the ``break`` path and the ``else:`` of a loop.
- ``and``/``or`` of Python and array operands in an ``if``/``while`` test.
- ``enumerate(range(n))`` / ``zip(range(n), ...)`` with a traced ``n``: rolled.
- A class defined in the function: made at trace time, a new one per trace.
- ``x.at[:n].set(v)`` / ``y[:n] = v`` with a traced ``n``: a mask over ``x``.

Every case is compared against the eager run (``helpers.check``)."""

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain
from helpers import check, check_calls, check_sequence, modes

POS, NEG = jnp.array([1.0, 2.0, 3.0]), jnp.array([-1.0, -2.0, 0.5])
SIGNS, SIGN_IDS = [POS, NEG], ["bound", "unbound"]


# ------------------------------------------------------------ defined-flags
def p_defined(x):
    if x.sum() > 0:
        y = x * 2
    if x.sum() > 0:
        return y
    return x


def p_defined_bad(x):
    if x.sum() > 0:
        y = x * 2
    return y + 1


def defined_elif(x):
    if x.sum() > 5:
        y = x * 2
    elif x.sum() > 0:
        y = x - 1
    if x.sum() > 0:
        x = y + x
    return x


def defined_static_value(x):
    if x.sum() > 0:
        k = 3
    if x.max() > 1:
        return x * k
    return x


def defined_tree(x):
    if x.sum() > 0:
        pair = (x, x.sum())
    if x.sum() > 0:
        a, b = pair
        return a * b
    return x


def defined_free_variable(x):
    if x.sum() > 0:
        y = x * 2

    def inner():
        return y + 1
    if x.sum() > 0:
        return inner()
    return x


def defined_deleted(x):
    if x.sum() > 0:
        y = x * 2
    del y
    return x


def defined_rebound(x):
    if x.sum() > 0:
        y = x * 2
    if x.min() < 0:
        y = x + 1
    return y


@pytest.mark.parametrize("fn", [p_defined, p_defined_bad, defined_elif, defined_static_value, defined_tree,
                                defined_free_variable, defined_rebound, defined_deleted])
@pytest.mark.parametrize("x", SIGNS + [jnp.array([-5.0, 1.0, 2.0])], ids=SIGN_IDS + ["mixed"])
def test_defined_flag(fn, x):
    e = check(fn, x, graphs=1)
    assert e is None or not e.fallback_sites   # None: eager raised, and so did the call


def helper_defined(x):
    if x.sum() > 0:
        y = x * 2
    return y


def calls_helper(x):
    return helper_defined(x) + 1


class Model:
    def __init__(self, w):
        self.w = w

    def step(self, x):
        if (x * self.w).sum() > 0:
            h = x * self.w
        return h.sum()


@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_defined_flag_in_helper_and_method(x):
    check(calls_helper, x, graphs=1)
    check(lambda x: Model(2.0).step(x), x, graphs=1)


def defined_in_rolled_loop(x):
    for i in range(20):
        if x[i % 3] > i / 10:
            y = x * i
        if x.sum() > 100:
            x = y
        x = x + 0.5
    return x


def defined_in_traced_branch(x):
    if x.max() > 0:
        if x.sum() > 0:
            y = x * 2
        z = y if x.min() > 0 else x
    else:
        z = -x
    return z


@pytest.mark.parametrize("x", SIGNS + [POS * 30, jnp.array([0.05, -0.1, 2.0])], ids=SIGN_IDS + ["large", "mixed"])
def test_defined_flag_in_loop_and_branch(x):
    check(defined_in_rolled_loop, x, graphs=1)
    check(defined_in_traced_branch, x, graphs=1)


def p_while_def(x, n):
    i = 0
    while i < n:
        y = x * i
        i += 1
    return y


def for_traced_range_def(x, n):
    for i in range(n):
        y = x * i
    return y + 1


def for_break_def(x):
    for i in range(30):
        if x.sum() > i:
            break
        y = x * i
    return y


def loop_var_after(x, n):
    for i in range(n):
        if x.sum() > 10:
            break
        x = x + i
    return x, i


@pytest.mark.parametrize("n", [0, 1, 4])
def test_first_bound_in_a_rolled_loop(n):
    check(loop_var_after, POS, jnp.array(n), graphs=1)
    check(loop_var_after, POS * 10, jnp.array(n), graphs=1)
    check(p_while_def, POS, jnp.array(n), graphs=1)
    check(for_traced_range_def, POS, jnp.array(n), graphs=1)


@pytest.mark.parametrize("x", [POS, -POS, POS * 5], ids=["first", "never", "later"])
def test_first_bound_before_a_traced_break(x):
    check(for_break_def, x, graphs=1)


def test_defined_flag_follows_each_call():
    """The flag is computed per call: the same graph raises on one call and
    returns on the next."""
    steps = [lambda f, _: f(POS), lambda f, _: f(NEG), lambda f, _: f(POS * 3)]
    check_sequence(lambda: (p_defined_bad, None), steps, recompiles=0)


# ------------------------------------------------------- break and else
def p_break_else(x):
    for i in range(5):
        if x.sum() > i:
            y = x * i
            break
    else:
        y = x
    return y


def p_break_else_rolled(x, n):
    for i in range(n):
        if x.sum() > i:
            y = x * i
            break
    else:
        y = x
    return y


def while_break_else(x):
    i = 0
    while i < 40:
        if x.sum() > i:
            y = x + i
            break
        i += 1
    else:
        y = x
    return y


@pytest.mark.parametrize("x", [POS, -POS, POS * 0.1], ids=["breaks", "else", "late"])
def test_bound_on_break_and_else(x):
    check(p_break_else, x, graphs=1)
    check(p_break_else_rolled, x, jnp.array(4), graphs=1)
    check(while_break_else, x, graphs=1)


# ------------------------------------------------- and/or in tests
def p_and(x, flag):
    if flag and x.sum() > 0:
        return x + 1
    return x


def p_while_and(x, tol):
    n = 0
    err = x.sum()
    while n < 10 and err > tol:
        err = err / 2
        n += 1
    return err, n


def p_or_none(x, y):
    if x.any() or y is None:
        return x + 1
    return x


def p_or_arrays(x):
    k = 0
    while x.sum() > 1 or k < 3:
        x = x * 0.5
        k += 1
    return x, k


@pytest.mark.parametrize("flag", [True, False, 0, None])
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_and_or_in_tests(x, flag):
    check(p_and, x, flag, graphs=1)
    check(p_while_and, x, 0.1, graphs=1)
    check(p_or_none, x, flag, graphs=1)
    check(p_or_none, x * 0, flag, graphs=1)
    check(p_or_arrays, x, graphs=1)


# --------------------------------------- enumerate / zip over traced ranges
def enum_range(x, n):
    s = jnp.zeros_like(x)
    for i, j in enumerate(range(n)):
        s = s + x * j - i
    return s


def enum_range_start(x, n):
    s = x.sum()
    for i, j in enumerate(range(2, n, 2), 10):
        s = s * 0.5 + i * j
    return s


def zip_ranges(x, n):
    s = x.sum()
    for a, b in zip(range(n), range(1, 10, 2)):
        s = s * 0.5 + a * b
    return s


def zip_range_rows(x, n):
    s = jnp.zeros(())
    for a, row in zip(range(n), x):
        s = s + row * a
    return s


def enum_zip(x, n):
    s = jnp.zeros_like(x)
    for k, (a, b) in enumerate(zip(range(n), range(n, 0, -1))):
        if a > b:
            s = s + x * k
        else:
            s = s - a
    return s


def enum_range_in_helper(x, n):
    return enum_range(x, n) + zip_ranges(x, n)


@pytest.mark.parametrize("fn", [enum_range, enum_range_start, zip_ranges, zip_range_rows, enum_zip, enum_range_in_helper])
@pytest.mark.parametrize("n", [0, 2, 7])
def test_enumerate_and_zip_of_a_traced_range(fn, n):
    e = check(fn, jnp.array([1.0, 2.0, 3.0]), jnp.array(n), graphs=1)
    assert ("for", "lax.scan") in modes(e) or ("for", "lax.fori_loop") in modes(e)


def enum_target_after(x, n):
    k = -1
    for k, j in enumerate(range(n)):
        x = x + j
    return x, k


@pytest.mark.parametrize("n", [0, 3])
def test_enumerate_target_read_after_runs_in_python(n):
    # a tuple target read after a loop with a traced trip count is not carried: the loop runs in Python
    e = check(enum_target_after, POS, jnp.array(n), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G010"]


# ------------------------------------------ a class defined in the function
def p_local_class(x):
    class A:
        scale = 2.0

        def __init__(self, v):
            self.v = v

        def f(self):
            return self.v * self.scale

        def twice(self):
            return A(self.v * 2)

        @property
        def total(self):
            return self.v.sum()

        @staticmethod
        def unit():
            return 1.0

    a = A(x)
    return a.f() + a.twice().f() + a.total + A.unit()


def local_class_names(x):
    class A:
        def __init__(self, v):
            self.v = v

    a = A(x)
    return type(a).__name__, type(a).__qualname__, repr(A).split(" ")[1], a.v + 1


def local_class_isinstance(x, prev):
    class A:
        def __init__(self, v):
            self.v = v

    a = A(x)
    return isinstance(prev, A), isinstance(a, A), a.v * 2


def local_class_in_loop_and_branch(x):
    class Acc:
        def __init__(self, v):
            self.v = v

        def step(self, k):
            if self.v.sum() > k:   # (an object of either branch is not joined yet: the values are)
                v = self.v * 0.5
            else:
                v = self.v + 1
            return Acc(v)

    acc = Acc(x)
    for k in range(5):
        acc = acc.step(k)
    return acc.v


def local_class_subclass(x):
    class Base:
        def f(self, v):
            return v + 1

    class Child(Base):
        def f(self, v):
            return super().f(v) * 2

    return Child().f(x)


def helper_with_local_class(x):
    return p_local_class(x) - 1


class Holder:
    def method(self, x):
        class A:
            def g(self, v):
                return v * 3
        return A().g(x)


@pytest.mark.parametrize("fn", [p_local_class, local_class_names, local_class_in_loop_and_branch, local_class_subclass,
                                helper_with_local_class, lambda x: Holder().method(x)])
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_local_class_one_graph(fn, x):
    check(fn, x, graphs=1)


def test_local_class_is_new_per_call():
    """Eager makes a new class on every call: an instance of an earlier
    call's class is not an instance of this call's."""
    def make(x):
        class A:
            def __init__(self, v):
                self.v = v
        return A(x)

    eager_prev = make(POS)
    steps = [lambda f, w: f(POS, None), lambda f, w: f(POS, w[0]), lambda f, w: f(NEG, w[0])]
    check_sequence(lambda: (local_class_isinstance, [eager_prev]), steps, recompiles=1)
    f = __import__("ast2graph").to_static(make)
    a, b = f(POS), f(POS)
    assert type(a) is not type(b) and type(a).__qualname__ == type(eager_prev).__qualname__


def local_class_reads_local(x):
    k = 3.0

    class A:
        def f(self, v):
            return v * k

    return A().f(x)


def test_local_class_reading_a_local_runs_in_python():
    e = check(local_class_reads_local, POS, full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G001"]


# ----------------------------- .at[:n] updates and scatter with traced bounds
def at_set(x, n):
    return x.at[:n].set(0.0)


def at_add(x, n):
    x = x.at[:n].add(1.5)
    return x


def at_row_col(x, i, n):
    return x.at[i, :n].set(-1.0)


def at_tail_mul(x, n):
    return x.at[n:].multiply(2.0)


def at_step(x, n):
    return x.at[n::2].add(1.0)


def at_reverse(x, n):
    return x.at[n::-1].max(2.5)


def at_rows(x, n):
    return x.at[:n].set(jnp.arange(3.0))


def at_int_add(x, n):
    return x.at[:n].add(-1.5)


def np_style(x, n):
    y = np.array(x)
    y[:n] = 0
    return y


def scatter_traced_index(x, i):
    x = x.at[i].add(1.0)
    y = np.zeros(3)
    y[i % 3] += 2.0
    return x, y


def at_in_rolled_loop(x, n):
    for k in range(20):
        x = x.at[: n + k % 3].add(0.25)
    return x


def at_in_branch(x, n):
    if x.sum() > 3:
        x = x.at[:n].set(7.0)
    return x


X1, X2 = jnp.arange(5.0), jnp.arange(15.0).reshape(5, 3)


@pytest.mark.parametrize("n", [0, 2, -2, 9, -9])
def test_at_update_with_a_traced_slice_bound(n):
    n = jnp.array(n)
    for fn in (at_set, at_add, at_tail_mul, at_step, at_reverse, at_in_rolled_loop, at_in_branch):
        check(fn, X1, n, graphs=1)
    check(at_row_col, X2, jnp.array(1), n, graphs=1)
    check(at_row_col, X2, jnp.array(-1), n, graphs=1)
    check(at_rows, X2, n, graphs=1)
    check(at_int_add, jnp.arange(-3, 2), n, graphs=1)
    check(np_style, np.arange(5.0), n, graphs=1)


@pytest.mark.parametrize("i", [0, 2, -1])
def test_scatter_with_a_traced_index(i):
    check(scatter_traced_index, X1, jnp.array(i), graphs=1)


def at_shape_depends(x, n):
    return x.at[:n].set(jnp.zeros(3))


def read_slice(x, n):
    return x[:n]


@pytest.mark.parametrize("n", [2, 3])
def test_traced_slice_whose_shape_depends_on_the_bound_runs_in_python(n):
    # eager's result (or its broadcast error) depends on n: the statement runs in Python
    e = check(at_shape_depends, X1, jnp.array(n), full_graph=False)
    assert e is None or e.fallback_sites
    e = check(read_slice, X1, jnp.array(n), full_graph=False)
    assert e.fallback_sites


def _result_bound_on_one_branch(x):
    if x.sum() > 0:
        result = x * 2
    return result


def test_unbound_read_raises_eager_error_with_the_users_line():
    """The run-time check of a maybe-unbound read raises eager's
    UnboundLocalError from the user's line, carets under the name (it raised
    NameError "name 'raise_' is not defined": the fake statement had no room
    in the name's span)."""
    import traceback
    f = __import__("ast2graph").to_static(_result_bound_on_one_branch, full_graph=True)
    check(_result_bound_on_one_branch, -jnp.ones(3), graphs=1)
    try:
        f(-jnp.ones(3))
    except UnboundLocalError as e:
        frames = traceback.extract_tb(e.__traceback__)
        assert frames[-1].name == "_result_bound_on_one_branch" and frames[-1].line == "return result"
        assert (frames[-1].colno, frames[-1].end_colno) == (11, 18) or frames[-1].colno == 11
    else:
        raise AssertionError("eager raises UnboundLocalError")


# ------------------------------------------------ a traced and/or whose right operand has run-time checks
# ``len(history) > 1 and abs(history[-2] - history[-1]) < tol``: the right operand's index check fires
# only where eager evaluates it (a lax.cond taken where the left operand does not decide); the loop
# ran as Python control flow and recompiled on every new length of the list
def train_until_flat(w, x, y, tol):
    history = []
    for step in range(30):
        loss = jnp.mean((x @ w - y) ** 2)
        history.append(float(loss))
        if len(history) > 1 and abs(history[-2] - history[-1]) < tol:
            break
        w = w - 0.1 * (x.T @ (x @ w - y)) / len(y)
    return w, history, step


def checked_operands(x, i):
    k = int(i[0])
    ok = k >= 3 or x[k] > 0.5        # x[k] is checked only where k < 3
    bad = k < 0 and x[k + 10] > 0    # IndexError where k < 0: eager evaluates it there
    return ok, bad


def test_a_checked_right_operand_of_a_traced_and_or_is_one_graph():
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = x @ np.ones(3, np.float32)
    f = check_calls(train_until_flat, [(jnp.zeros(3), x, y, 1e-6), (jnp.ones(3), x, y, 10.0)])
    assert ("boolop", "lax.cond") in {(d.construct, d.mode) for d in explain(f)(jnp.zeros(3), x, y, 1e-6).decisions}
    v = np.array([0.2, 0.9, 0.1])
    check_calls(checked_operands, [(v, np.array([1])), (v, np.array([7])), (v, np.array([-1])), (v, np.array([2]))])
