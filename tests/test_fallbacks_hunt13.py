"""Fallbacks and recompiles found on realistic programs (issue 16), hunt 13.

Each function is compared with its eager run on inputs that take every path,
under ``full_graph=True``; where a function keeps state, the caller changes it
between calls (``check_sequence``), and the number of recompilations is bounded.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, check_sequence

X = jnp.arange(3.0)
XS = [X + k for k in range(8)]


# ----------------------------------------------- 1. written dict items: read traced, graph reused
EMA: dict = {}
STATS: dict = {}


def ema_update(x, name="loss"):
    decay = 0.9
    v = float(x.mean())
    if name in EMA:
        EMA[name] = decay * EMA[name] + (1 - decay) * v
    else:
        EMA[name] = v
    STATS["calls"] += 1
    STATS["total"] += v
    return x * EMA[name], STATS["calls"]


def ema_update_get(x, name="loss"):
    v = float(x.mean())
    EMA[name] = 0.9 * EMA.get(name, v) + 0.1 * v
    STATS["calls"] = STATS.get("calls", 0) + 1
    return x * EMA[name], STATS["calls"]


def _fresh_state(fn):
    def make():
        global EMA, STATS
        EMA = {}
        STATS = {"calls": 0, "total": 0.0}
        return fn, None
    return make


def _state(fn, _, x=None):
    return fn(X if x is None else x), dict(EMA), dict(STATS)


@pytest.mark.parametrize("fn", [ema_update, ema_update_get])
def test_written_dict_items_do_not_recompile(fn):
    """Eight calls: the first inserts the key (one re-specialisation), the
    next change of each written item makes it a traced input: no more."""
    steps = [lambda f, w, x=x: _state(f, w, x) for x in XS]
    check_sequence(_fresh_state(fn), steps, recompiles=2)


def _add_key(fn, w):
    EMA["other"] = 5.0
    STATS["extra"] = 1
    return _state(fn, w)


def _delete_key(fn, w):
    EMA.pop("loss", None)
    return _state(fn, w)


def _delete_counter(fn, w):
    del STATS["calls"]
    return _state(fn, w)


def _int_value(fn, w):
    EMA["loss"] = 3
    return _state(fn, w)


def _str_value(fn, w):
    EMA["loss"] = "x"
    return _state(fn, w)


def _nan_value(fn, w):
    EMA["loss"] = float("nan")
    STATS["calls"] = 2 ** 63
    return _state(fn, w)


def _big_counter(fn, w):
    STATS["calls"] = -5
    return _state(fn, w)


def _replace_dicts(fn, w):
    global EMA, STATS
    EMA = {"loss": 1.0}
    STATS = {"total": 2.0, "calls": 7}
    return _state(fn, w)


def _same_value(fn, w):
    STATS["calls"] = STATS["calls"]
    return _state(fn, w)


@pytest.mark.parametrize("fn", [ema_update, ema_update_get])
@pytest.mark.parametrize("change", [_add_key, _delete_key, _delete_counter, _int_value, _str_value, _nan_value,
                                    _big_counter, _replace_dicts, _same_value])
def test_written_dict_items_changed_by_the_caller(fn, change):
    """The caller adds a key, deletes one, changes an item's type or
    replaces the dict between calls, after the items became traced. (Where
    eager raises, KeyError or TypeError, the statement raises in Python.)"""
    warm = [lambda f, w, x=x: _state(f, w, x) for x in XS[:4]]
    raises = change in (_delete_counter, _str_value)
    check_sequence(_fresh_state(fn), [*warm, change, lambda f, w: _state(f, w, XS[5]), change, _state],
                   full_graph=not raises)


def make_closure_ema():
    ema: dict = {}
    counts = {"n": 0}

    def step(x, name="loss"):
        v = float(jnp.abs(x).max())
        if name not in ema:
            ema[name] = v
        ema[name] = 0.5 * ema[name] + 0.5 * v
        counts["n"] += 1
        return x / ema[name], counts["n"], dict(ema)
    return step, (ema, counts)


def test_closure_ema_and_counter():
    def grow(fn, world):
        world[0]["acc"] = 1.0
        return fn(X, "acc"), fn(X + 1)

    def int_count(fn, world):
        world[1]["n"] = True
        return fn(X)

    steps = [lambda f, w, x=x: f(x) for x in XS]
    check_sequence(make_closure_ema, steps, recompiles=2)
    check_sequence(make_closure_ema, [*steps[:4], grow, lambda f, w: f(X), int_count, lambda f, w: f(X)])


def in_only_looks_at_keys(x, key):
    if key in EMA:
        return x + 1
    return x - 1


def test_membership_guards_keys_only():
    """``k in d`` guards the keys: a value changed does not recompile, a key
    added or removed does."""
    def make():
        global EMA
        EMA = {"a": 1.0}
        return in_only_looks_at_keys, None

    def change_value(fn, _):
        EMA["a"] = [2.0]
        return fn(X, "a")

    def add(fn, _):
        EMA["b"] = 1
        return fn(X, "b")

    def remove(fn, _):
        del EMA["a"]
        return fn(X, "a")

    static = check_sequence(make, [lambda f, _: f(X, "a"), change_value, lambda f, _: f(X, "a")], recompiles=0)
    assert static.recompiles == 0
    check_sequence(make, [lambda f, _: f(X, "a"), add, remove, change_value])


# ----------------------------------------------- 2. a traced index into a nested list
TABLE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
ITABLE = ((1, 2, 3), (40, 50, 60), (-7, 8, 2 ** 40))
ROWS = [[jnp.ones(3), jnp.zeros(3)], [jnp.arange(3.0), -jnp.ones(3)]]


def nested_float(x):
    i = int(x.sum()) % 3 - 1          # -1, 0, 1
    return x * TABLE[i][1], TABLE[i][-1]


def nested_int_both_traced(x):
    i = int(x.sum())
    j = int(x.max())
    return ITABLE[i][j], ITABLE[i][0] + j


def nested_arrays(x):
    i = int(x.max() > 1)
    return x * ROWS[i][0] + ROWS[i][1]


def nested_in_rolled_loop(x, n):
    acc = 0.0
    for k in range(int(n.sum())):
        acc = acc + TABLE[k % 2][k % 3] * x[k % 3]
    return acc


def nested_local_table(x):
    table = [[0.5, 1.5], [2.5, 3.5]]
    i = int(x[0] > 0)
    return table[i][0] + table[i][1] * x


@pytest.mark.parametrize("x", [X, X + 1, X - 3, X * 0 - 1])
def test_nested_list_traced_index(x):
    check(nested_float, x)
    check(nested_arrays, x)
    check(nested_local_table, x)


@pytest.mark.parametrize("x", [jnp.array([0.0, 0.0]), jnp.array([1.0, 1.0]), jnp.array([2.0, 0.0]),
                               jnp.array([-1.0, 0.0]), jnp.array([3.0, 0.0]), jnp.array([0.0, 3.0]),
                               jnp.array([-4.0, 0.0]), jnp.array([2.0, 2.0]), jnp.array([4.0, 5.0])])
def test_nested_tuple_both_indices_traced(x):
    """Python ints (one of them beyond int32), eager's IndexError for either
    index out of range (the outer one first)."""
    check(nested_int_both_traced, x)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_nested_list_in_rolled_loop(n):
    check(nested_in_rolled_loop, X, jnp.full((2,), n / 2), unroll_limit=2)


def test_nested_table_changed_between_calls():
    def make():
        global TABLE
        TABLE = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
        return nested_float, None

    def set_item(fn, _):
        TABLE[0][1] = -2.0
        return fn(X)

    def replace_row(fn, _):
        TABLE[1] = [7.0, 8.0, 9.0]
        return fn(X + 1)

    def add_row(fn, _):
        TABLE.append([0.0, 0.0, 1.0])
        return fn(X + 1), fn(X - 1)

    def ragged(fn, _):
        TABLE[0] = [1.0]
        return fn(X - 3), fn(X)

    def ints(fn, _):
        global TABLE
        TABLE = [[1, 2, 3], [4, 5, 6]]
        return fn(X), fn(X + 1)

    steps = [lambda f, _: f(X), set_item, lambda f, _: f(X + 1), replace_row, add_row, ints]
    check_sequence(make, steps)
    check_sequence(make, [lambda f, _: f(X), ragged], full_graph=False)


# ----------------------------------------------- 3. a print before a re-raise in a handler
def print_then_reraise(x):
    try:
        n = int(x)
    except ValueError as e:
        print("bad", e)
        raise
    return n + 1


def print_traced_then_raise_from(x):
    try:
        if x.sum() > 10:
            raise ValueError("too big")
        y = x * 2
    except ValueError as e:
        print(f"bad value: {e}; x = {x}", x.max(), sep=" | ", end="!\n")
        print("sum", x.sum())
        raise RuntimeError("gave up") from e
    return y


def print_then_raise_plain(x):
    try:
        k = int(x * 2)
    except (ValueError, OverflowError) as err:
        print("converting", type(err).__name__, err.args)
        raise TypeError(f"cannot use {err}")
    return k


def print_before_and_in_handler(x):
    print("start", x)
    try:
        n = int(x)
    except ValueError as e:
        print("bad", e)
        raise
    print("after", n)
    return n


@pytest.mark.parametrize("x", [jnp.array(2.5), jnp.array(jnp.nan), jnp.array(-7.0)])
def test_print_then_reraise(x):
    check(print_then_reraise, x)


@pytest.mark.parametrize("x", [jnp.arange(3.0), jnp.arange(9.0)])
def test_print_traced_then_raise_from(x):
    check(print_traced_then_raise_from, x)


@pytest.mark.parametrize("x", [jnp.array(2.5), jnp.array(jnp.nan), jnp.array(jnp.inf), jnp.array(-jnp.inf)])
def test_print_then_raise_other(x):
    check(print_then_raise_plain, x)


@pytest.mark.parametrize("x", [jnp.array(2.5), jnp.array(jnp.nan)])
def test_print_before_the_try_too(x):
    """Another print in the segment: eager's output exactly, whatever the form."""
    check(print_before_and_in_handler, x, full_graph=False)


# ----------------------------------------------- 4. items of a list whose length depends on the data; searchsorted
def wide_ints_appended(x):
    out = []
    for k in range(3):
        if x[k] > 0:
            out.append(2 ** 40 + k)
    return x * out[0] if out else x


def wide_or_traced_items(x):
    out = [1]
    if x.sum() > 0:
        out.append(2 ** 40)
    else:
        out.append(int(x.max()))
        out.append(3)
    return out, x + out[1], out[-1], type(out[-1]).__name__, len(out)


def small_ints_appended(x):
    out = [0]
    for k in range(3):
        if x[k] > 0:
            out.append(k)
        else:
            out.append(int(x[k]))
            out.append(-k)
    return out[1], out[-1], len(out), type(out[1]).__name__, x * out[-1]


@pytest.mark.parametrize("x", [X + 1, -X - 1, jnp.array([3.0, -9.0, 1.0])])
def test_ints_read_back_from_a_data_dependent_list(x):
    """A Python int beyond int32 read back from the list's buffer, given to
    a JAX op: eager JAX's OverflowError (it was narrowed to 0 before)."""
    check(wide_ints_appended, x)
    check(wide_or_traced_items, x)
    check(small_ints_appended, x)


def searchsorted_jax_edges(x):
    edges = jnp.linspace(0.0, 1.0, 5)
    return np.searchsorted(edges, x), np.searchsorted(np.linspace(0.0, 1.0, 5), np.asarray(x), side="right")


def test_searchsorted_warns_nothing():
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        check(searchsorted_jax_edges, jnp.array([0.1, 0.7, 1.0]))
    assert not [w for w in seen if "truncated" in str(w.message)], [str(w.message) for w in seen]


# ----------------------------------------------- 5. the hunt corpus: k ** -1 of a traced int; attributes joined
def int_to_negative_power(x):
    k = x.max().item()
    n = int(x.sum())
    b = bool(x.any())
    return k ** -1 if k else None, n ** -2, type(k ** -3).__name__, b ** -1


@pytest.mark.parametrize("x", [jnp.array([3, 1, 2]), jnp.array([0, 0, 0]), jnp.array([-4, -1, -2]),
                               jnp.array([2 ** 20, 1, 0])])
def test_traced_int_to_a_negative_power(x):
    """A float in eager (int.__pow__ computes in floats); 0 ** -2 raises
    ZeroDivisionError."""
    check(int_to_negative_power, x)


class Tracker:
    def __init__(self):
        self.n = 0
        self.best = jnp.inf


class Logged:
    def __init__(self):
        self.writes = 0
        self.v = 0.0

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name != "writes":
            object.__setattr__(self, "writes", self.writes + 1)


def namespace_best_so_far(x):
    import types

    st = types.SimpleNamespace(best=None, n=0)
    for v in x:
        if st.best is None or v < st.best:
            st.best = v
            st.n += 1
    return st.best, st.n


def object_attributes_in_branches(x):
    t = Tracker()
    alias = t
    if x.sum() > 0:
        t.best = x.max()
        t.n = int(x.argmax())
    else:
        alias.n = 7
    return t.best, t.n, alias is t


def namespace_in_rolled_loop(x, n):
    import types

    st = types.SimpleNamespace(total=0.0, k=0)
    for i in range(int(n)):
        st.total = st.total + x[i % 3]
        st.k += 1
    return st.total, st.k


def custom_setattr_in_branch(x):
    o = Logged()
    if x.sum() > 0:
        o.v = x.max()
    return o.v, o.writes


def attribute_added_in_one_branch(x):
    import types

    st = types.SimpleNamespace(a=1)
    if x.sum() > 0:
        st.extra = 5
    return hasattr(st, "extra"), st.a


@pytest.mark.parametrize("x", [jnp.array([3.0, 1.0, 2.0]), jnp.array([-1.0, -5.0, 0.0]), jnp.array([1.0, 2.0, 3.0])])
def test_attributes_of_objects_made_here_joined(x):
    """``st.best = v`` under a traced ``if`` on a SimpleNamespace or a plain
    object made in the function: its attributes joined like a dict's items."""
    check(namespace_best_so_far, x)
    check(object_attributes_in_branches, x)
    check(namespace_in_rolled_loop, x, jnp.array(5))
    # a class's own __setattr__, a key set on one path only: in Python, as eager
    check(custom_setattr_in_branch, x, full_graph=False)
    check(attribute_added_in_one_branch, x, full_graph=False)


def math_log_in_try(x):
    try:
        r = math.log(float(x.max()))
    except ValueError as e:
        r = str(e)
    return r


def math_exp_overflow_in_try(x):
    try:
        r = math.exp(float(x.max()) * 100.0)
    except OverflowError:
        r = -1.0
    except ValueError:
        r = -2.0
    return r, math.exp(float(x.min()))


@pytest.mark.parametrize("x", [jnp.array([1.0, 2.0, 3.0]), jnp.array([-1.0, -2.0, -0.5]), jnp.zeros(3),
                               jnp.array([jnp.nan, 1.0, 2.0])])
def test_math_error_taken_by_a_handler(x):
    """math.log / math.exp of a traced Python float in a try whose handler
    takes eager's ValueError / OverflowError: one graph, the handler run
    where the host's math raised."""
    check(math_log_in_try, x)
    check(math_exp_overflow_in_try, x)


def log_of_ratio(x):
    try:
        r = math.log(float(x.max()) / float(x.sum()))
    except ZeroDivisionError:
        r = float("inf")
    except ValueError as e:
        r = str(e)
    finally:
        done = True
    return r, done


def log_of_ratio_one_handler(x):
    r = -1.0
    try:
        r = math.log(float(x.max()) / float(x.sum()))
    except ZeroDivisionError:
        r = 0.0
    return r


@pytest.mark.parametrize("x", [jnp.array([1.0, 2.0, 3.0]), jnp.array([-1.0, -2.0, 0.5]), jnp.zeros(3),
                               jnp.array([1.0, -1.0, 0.0]), jnp.array([-1.0, 2.0, 0.0])])
def test_two_checks_of_one_statement_taken_by_handlers(x):
    """The division's ZeroDivisionError, then (where it did not fire) the
    log's ValueError: each taken by its handler, or raised out of the try."""
    check(log_of_ratio, x)
    check(log_of_ratio_one_handler, x)


def log_of_ratio_outer_handler(x):
    try:
        try:
            r = math.log(float(x.max()) / float(x.sum()))
        except ZeroDivisionError:
            r = 0.0
    except ValueError:
        r = -5.0
    return r


def log_of_ratio_printing(x):
    print("ratio of", x)
    try:
        r = math.log(float(x.max()) / float(x.sum()))
    except ZeroDivisionError:
        r = 0.0
    return r


@pytest.mark.parametrize("x", [jnp.array([1.0, 2.0, 3.0]), jnp.zeros(3), jnp.array([-1.0, 2.0, 0.0])])
def test_second_check_with_an_outer_handler_or_prints(x):
    """The log's ValueError taken by an outer handler; a segment that prints:
    eager's result and output, whatever the form."""
    check(log_of_ratio_outer_handler, x, full_graph=False)
    check(log_of_ratio_printing, x, full_graph=False)
