"""Fallback basics: unsupported sites run in Python, the rest stays compiled;
``full_graph=True`` turns each of them into a FullGraphError naming the site."""

import contextlib
import inspect
import os

import jax.numpy as jnp
import pytest

from ast2graph import FullGraphError, explain, to_static
from helpers import assert_same, check, modes

X = jnp.arange(3.0)
NEG = -jnp.arange(1.0, 4.0)
THIS_FILE = os.path.basename(__file__)


def line_of(fn, marker: str) -> int:
    """The file line number of the first source line of ``fn`` containing ``marker``."""
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if k and marker in text:  # skip the def line
            return first + k
    raise AssertionError(f"{marker!r} not in {fn.__name__}")


def assert_full_graph_error(fn, marker, *args):
    with pytest.raises(FullGraphError) as info:
        to_static(fn, full_graph=True)(*args)
    msg = str(info.value)
    assert THIS_FILE in msg, msg
    assert f"line {line_of(fn, marker)}" in msg, msg
    return msg


def codes(e):
    return [s.code.code for s in e.fallback_sites]


# ----------------------------------------------------------------------- print
def with_print(x):
    y = x * 2
    print("y is", y.shape, "and", 3)
    z = y + 1
    return z


def test_print_between_array_statements_is_a_host_callback_in_one_graph():
    e = check(with_print, X, graphs=1)
    assert not codes(e)
    assert ("call", "host callback") in [(d.construct, d.mode) for d in e.decisions]


def print_traced_value(x):
    y = x.sum()
    print(y)
    return y * 2


def test_print_of_traced_value_prints_eager_text():
    e = check(print_traced_value, X, graphs=1)
    assert not codes(e)


def test_print_fallback_runs_every_call():
    f = to_static(with_print, full_graph=False)
    import contextlib
    import io

    for _ in range(2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            f(X)
        assert out.getvalue() == "y is (3,) and 3\n"


# ---------------------------------------------------------------- try/except
def with_try(x):
    y = x + 1
    try:
        if y.sum() > 100:
            raise ValueError("big")
        z = y * 2
    except ValueError:
        z = -y
    return z * 2


@pytest.mark.parametrize("x", [X, X * 100], ids=["no-raise", "raises"])
def test_try_with_raise_under_traced_condition_caught_by_its_handler_is_one_graph(x):
    # the raise ends the try body (a flag, as break sets one) and the handler runs under it
    check(with_try, x, graphs=1)


def with_try_in_loop(x):
    y = x + 1
    try:
        for _ in range(3):
            if y.sum() > 100:
                raise ValueError("big")
            y = y * 2
        z = y
    except ValueError:
        z = -y
    return z * 2


@pytest.mark.parametrize("x", [X, X * 100], ids=["no-raise", "raises"])
def test_try_with_raise_in_a_loop_under_traced_condition_falls_back(x):
    e = check(with_try_in_loop, x, full_graph=False)
    assert codes(e) == ["A2G008"]


def test_try_except_full_graph_error():
    assert_full_graph_error(with_try_in_loop, "raise ValueError", X)


def try_finally(x):
    out = []
    try:
        out.append(x * 2)
    finally:
        out.append(x + 1)
    return out[0] - out[1]


def test_try_finally_is_one_graph():
    e = check(try_finally, X, graphs=1)
    assert not e.fallback_sites


# ---------------------------------------------------------- break under traced
def traced_break(x):
    acc = x
    for i in range(6):
        if acc.sum() > 20:
            break
        acc = acc * 2 + i
    return acc


@pytest.mark.parametrize("x", [X, X * 100, NEG], ids=["breaks-late", "breaks-first", "never"])
def test_break_under_traced_condition_is_now_one_graph(x):
    e = check(traced_break, x, graphs=1)
    assert not codes(e)


def traced_break_while(x):
    i = 0
    while i < 10:
        x = x + 1
        if x.sum() > 12:
            break
        i += 1
    return x, i


@pytest.mark.parametrize("x", [X, NEG * 10])
def test_break_in_while_under_traced_condition(x):
    e = check(traced_break_while, x, graphs=1)
    assert not e.fallback_sites


# ------------------------------------------------- defined on one branch only
def one_branch(x):
    if x.sum() > 0:
        y = x * 2
    return y


@pytest.mark.parametrize("x", [X, NEG], ids=["defined", "unbound"])
def test_variable_assigned_on_one_branch_only(x):
    # carried with a defined-flag: NEG raises eager's UnboundLocalError through a run-time check
    check(one_branch, x, graphs=1)


def one_branch_read_in_try(x):
    if x.sum() > 0:
        y = x * 2
    try:
        z = y + 1
    except NameError:   # UnboundLocalError is a NameError
        z = x
    return z


@pytest.mark.parametrize("x", [X, NEG], ids=["defined", "unbound"])
def test_variable_assigned_on_one_branch_read_in_try(x):
    # inside try/except the run-time check cannot raise (the handler must see it): the graph splits
    # after the `if`, where the flag says whether y is bound; unbound, the `try` runs in Python
    check(one_branch_read_in_try, x, full_graph=False)


def test_variable_assigned_on_one_branch_full_graph_error():
    msg = assert_full_graph_error(one_branch_read_in_try, "z = y + 1", NEG)
    assert "A2G004" in msg and "'y'" in msg


def one_branch_then_more(x):
    z = x + 1
    if z.sum() > 5:
        y = z * 2
    else:
        w = z
    return z - 1


@pytest.mark.parametrize("x", [X, NEG])
def test_one_branch_names_not_used_after_stay_graph(x):
    e = check(one_branch_then_more, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)


# ------------------------------------------------------- loop-carried shape change
def grows(x, n):
    for i in range(n):
        x = jnp.concatenate([x, x])
    return x


def test_loop_carried_shape_change_small():
    check(grows, X, 3, full_graph=False)


def test_loop_carried_shape_change_long():
    check(grows, jnp.ones(1), 20, full_graph=False, unroll_limit=4)


def grows_traced(x, n):
    for i in range(n):
        x = jnp.concatenate([x, x])
    return x


def test_loop_carried_shape_change_traced_bound():
    e = check(grows_traced, X, jnp.int32(2), full_graph=False)
    assert len(e.fallback_sites) == 1
    assert "A2G005" in codes(e)


def test_loop_carried_shape_change_full_graph_error():
    msg = assert_full_graph_error(grows_traced, "for i in range(n)", X, jnp.int32(2))
    assert "A2G005" in msg


def while_grows(x):
    while x.sum() < 50:
        x = jnp.concatenate([x, x + 1])
    return x


def test_while_loop_carried_shape_change():
    e = check(while_grows, X + 1, full_graph=False)
    assert "A2G005" in codes(e)


# ------------------------------------------------------------ eager exceptions
def static_zero_division(x, n):
    y = x + 1
    k = 10 // n
    return y * k


def test_zero_division_in_static_code():
    check(static_zero_division, X, 0, full_graph=False)


def test_zero_division_full_graph_error():
    msg = assert_full_graph_error(static_zero_division, "k = 10 // n", X, 0)
    assert "A2G008" in msg and "ZeroDivisionError" in msg


def matmul_mismatch(a, b):
    c = a + 1
    return c @ b


def test_matmul_shape_mismatch_raises_same_type():
    check(matmul_mismatch, jnp.ones((2, 3)), jnp.ones((2, 3)), full_graph=False)


def test_matmul_shape_mismatch_full_graph_error():
    assert "A2G008" in assert_full_graph_error(matmul_mismatch, "c @ b", jnp.ones((2, 3)), jnp.ones((2, 3)))


def index_error(x):
    parts = [x, x * 2]
    return parts[5]


def test_static_index_error():
    check(index_error, X, full_graph=False)


def assert_stmt(x, n):
    assert n > 0, "n must be positive"
    return x * n


def test_static_assert_passes_and_fails():
    check(assert_stmt, X, 2, graphs=1)
    # pytest rewrites `assert` in this module (the eager message gains pytest's
    # explanation), so compare the type and the user's message only
    with pytest.raises(AssertionError) as eager:
        assert_stmt(X, -1)
    with pytest.raises(AssertionError, match="n must be positive") as conv:
        to_static(assert_stmt)(X, -1)
    assert str(eager.value).startswith(str(conv.value))


def raise_stmt(x, flag):
    if flag:
        raise ValueError("bad flag")
    return x


def test_raise_on_static_condition():
    check(raise_stmt, X, False, graphs=1)
    check(raise_stmt, X, True, full_graph=False)


# -------------------------------------------------- other unsupported statements
class _Ctx:
    def __enter__(self):
        return 2.0

    def __exit__(self, *a):
        return False


def with_stmt(x):
    y = x - 1
    with _Ctx() as k:
        y = y * k
    return y + 1


def test_user_with_statement_is_one_graph():
    # a user class's __enter__/__exit__ are converted like calls (tests/test_context_managers_graph.py)
    e = check(with_stmt, X, graphs=1)
    assert not e.fallback_sites


def with_file(x):
    y = x - 1
    with open(os.devnull) as fh:
        y = y * (len(fh.read()) + 2)
    return y + 1


def test_with_statement_falls_back():
    e = check(with_file, X, full_graph=False)
    assert len(e.fallback_sites) == 1
    assert e.graph_count == 2


def test_with_statement_full_graph_error():
    assert_full_graph_error(with_file, "with open(os.devnull)", X)


def test_while_shape_change_full_graph_error():
    assert "A2G005" in assert_full_graph_error(while_grows, "while x.sum()", X + 1)


def inplace_list_write(x):
    ys = [x, x]
    ys[0] = x * 3
    return ys[0] + ys[1]


def test_list_item_assignment():
    check(inplace_list_write, X, full_graph=False)


def numpy_inplace(x, buf):
    y = x * 2
    buf[0] = 5.0
    return y + buf.sum()


def test_inplace_write_to_numpy_argument():
    import numpy as np

    # one graph; the write shows in the caller's array (check compares it)
    check(numpy_inplace, X, np.zeros(3, dtype=np.float32), graphs=1)


def numpy_inplace_aliased(x, buf):
    y = x * 2
    alias = buf
    alias[0] = 5.0
    return y + buf.sum()


def test_inplace_write_through_an_alias_falls_back():
    import numpy as np

    e = check(numpy_inplace_aliased, X, np.zeros(3, dtype=np.float32), full_graph=False)
    assert codes(e) == ["A2G007"]


def test_inplace_write_full_graph_error():
    import numpy as np

    assert "A2G007" in assert_full_graph_error(numpy_inplace_aliased, "alias[0] = 5.0", X, np.zeros(3, dtype=np.float32))


def traced_concrete(x):
    y = x * 2
    n = int(float(str(y.sum())))   # the text of a traced value parsed back: on the host
    return y + n


def test_int_of_traced_value():
    e = check(traced_concrete, X, full_graph=False)
    assert codes(e) == ["A2G003"]


def test_int_of_traced_value_full_graph_error():
    assert_full_graph_error(traced_concrete, "int(float(str(y.sum())))", X)


def segments(x):
    a = x + 1
    with open(os.devnull):   # a library context manager: runs in Python on every call
        a = a * 3
    b = a * 2
    with open(os.devnull):
        b = b / 2
    c = b - 3
    return c


def test_two_interpreted_statements_three_segments():
    e = check(segments, X, full_graph=False, graphs=3)
    assert codes(e) == ["A2G001", "A2G001"]
    # second call reuses the cached plans
    e2 = explain(to_static(segments))(X)
    assert e2.graph_count == 3


def make_counter():
    count = 0

    def bump(x):
        nonlocal count
        count += 1
        return x * count

    return bump


def test_nonlocal_write_is_written_back_into_the_cell():
    eager, converted = make_counter(), make_counter()
    static = to_static(converted, full_graph=True)
    for _ in range(3):
        assert_same(eager(X), static(X))


def ones_of_data_size(x):
    n = int(x.sum())
    y = x * 2
    return jnp.ones(n) * y.sum()


def test_a_split_graph_lists_the_site_that_split_it():
    """A statement that needs a traced value as a Python value (a shape) but
    compiles in the next segment, on the first one's results read back,
    still splits the graph: explain lists that site (it said 'graphs run: 2;
    fallback sites: 0')."""
    e = check(ones_of_data_size, jnp.arange(3.0), full_graph=False)
    assert e.graph_count == 2
    assert [(s.code.code, s.loc.line) for s in e.fallback_sites] == [
        ("A2G003", ones_of_data_size.__code__.co_firstlineno + 3)]
    assert "the graph is split before this statement" in e.fallback_sites[0].effect
