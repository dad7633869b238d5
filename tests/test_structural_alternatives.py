"""Objects of different structures on the paths of a traced ``if`` or loop.

``best_cfg = None`` before a loop and ``best_cfg = (lr, mom)`` under a traced
``if``: eager's object after the join is None or one of the tuples, by the
data. Each such constant (a str, a tuple of static values) is a variant of a
run-time kind tag (``typeinfer/pathkinds.py``), as None and a jax.Array on
different paths already are: the caller gets the very object eager has, and
operations on it (``is None``, indexing, ``==``, printing, f-strings) are
computed per variant. Each test calls one converted function on inputs that
take every path, first and warm, each compared with the eager run.
"""

import itertools

import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from helpers import _compare, check

POS = jnp.arange(4.0)
NEG = -jnp.arange(1.0, 5.0)
NAN = jnp.array([1.0, jnp.nan, 2.0, 3.0])


def check_paths(fn, inputs, full_graph=True, **options):
    """One converted function on each input tuple, then again (warm)."""
    static = to_static(fn, full_graph=full_graph, **options)
    for when in ("", "(warm call) "):
        for args in inputs:
            _compare(fn, static, args, {}, 1e-5, 1e-6, True, when)
    return static


def grid_search(x):
    best, best_cfg = jnp.inf, None
    for lr, mom in itertools.product([0.1, 0.01], [0.0, 0.9]):
        w, v = jnp.zeros_like(x), jnp.zeros_like(x)
        for _ in range(3):
            v = mom * v + 2 * (w - x)
            w = w - lr * v
        loss = float(jnp.sum((w - x) ** 2))
        if loss < best:
            best, best_cfg = loss, (lr, mom)
    return best, best_cfg


def test_tuple_or_none_chosen_in_unrolled_loop():
    # NaN data: no loss is below inf, so eager's best_cfg stays None
    check_paths(grid_search, [(POS,), (NEG,), (NAN,)])


def label_of(x):
    label = None
    if x.sum() > 0:
        label = "positive"
    return x * 2, label


def test_str_or_none():
    check_paths(label_of, [(POS,), (NEG,)])


def mode_tuple(x):
    mode = None
    if x[0] > 0.5:
        mode = ("sgd", 0.1, None)
    elif x[1] > 0:
        mode = ("adam", 1e-3, (0.9, 0.999))
    return mode


def test_nested_tuples_three_paths():
    check_paths(mode_tuple, [(POS,), (NEG,), (jnp.array([0.0, 1.0]),)])


def scaled_by_config(x):
    cfg = None
    if x.mean() > 1.0:
        cfg = (2.0, "double")
    if cfg is None:
        return x
    return x * cfg[0]


def test_is_none_then_index():
    check_paths(scaled_by_config, [(POS,), (NEG,)])


def compared(x):
    cfg = ("a", 1.5)
    if x.sum() > 0:
        cfg = ("b", 1.5, None)
    same = cfg == ("b", 1.5, None)
    return same, cfg[1] + x, len(cfg)


def test_equality_and_item_per_variant():
    check_paths(compared, [(POS,), (NEG,)])


def printed(x):
    cfg = None
    if x.sum() > 0:
        cfg = ("warm", 3)
    print("config:", cfg)
    print(f"{cfg}!")
    return x


def test_print_and_fstring_of_the_chosen_object():
    check_paths(printed, [(POS,), (NEG,)])


def str_or_int(x):
    r = 0
    if x.sum() > 0:
        r = "n/a"
    return r


def test_str_or_python_int():
    check_paths(str_or_int, [(POS,), (NEG,)])


def status_in_while(x):
    status = "start"
    while x.sum() < 20.0:
        x = x * 2.0 + 1.0
        status = "grew"
    return x, status


def test_status_string_carried_by_rolled_while():
    check_paths(status_in_while, [(POS,), (POS + 100.0,)])


def dict_item(x):
    d = {"cfg": None, "n": 0}
    if x.sum() > 0:
        d["cfg"] = (1, 2)
    return d


def test_constant_in_dict_item_under_traced_if():
    check_paths(dict_item, [(POS,), (NEG,)])


def test_sequence_of_calls_with_other_data():
    static = to_static(grid_search, full_graph=True)
    for x in (NEG, POS, NAN, POS * 3, NAN):
        _compare(grid_search, static, (x,), {}, 1e-5, 1e-6, True, "")


def returned_list_structure(x):
    out = None
    if x.sum() > 0:
        out = [1, 2]   # a list is mutable: eager makes a new one each call
    return out


def test_list_constant_is_not_a_variant():
    # a fresh list per call cannot be one trace-time object: it stays a fallback
    e = check(returned_list_structure, POS, full_graph=False)
    assert e.fallback_sites, str(e)
    check(returned_list_structure, NEG, full_graph=False)


def test_numpy_input():
    check_paths(label_of, [(np.arange(3.0),), (-np.arange(1.0, 4.0),)])


def signed_zero(x):
    s = 0.0
    t = (0.0, 1)
    if x.sum() > 0:
        s = -0.0
        t = (-0.0, 1)
    return s, t, 1.0 / s if s != 0 else s


def test_zero_and_negative_zero_are_different_constants():
    # 0.0 == -0.0, but eager's object prints (and divides) by its sign
    check_paths(signed_zero, [(POS,), (NEG,)])


# ----------------------------------------------- tuples holding graph values
def find_first(x, thr):
    for i in range(x.shape[0]):
        if x[i] > thr:
            return i, x[i]
    return None


def test_early_return_of_tuple_or_none():
    check_paths(find_first, [(POS, 1.5), (POS, 10.0), (NEG, -2.5)])


def best_pair(x):
    best, best_loss = None, jnp.inf
    for k in range(3):
        w = x * (k + 1.0)
        loss = jnp.sum((w - 2.0) ** 2)
        if loss < best_loss:
            best, best_loss = (loss, w, k), loss
    return best


def test_none_then_tuple_of_arrays_in_unrolled_loop():
    check_paths(best_pair, [(POS,), (NEG,), (NAN,)])


def narrowed(x):
    best = None
    if x.sum() > 0:
        best = (x.max(), x * 2)
    if best is not None:
        return best[1] + best[0]
    return x


def test_is_not_none_narrows_to_the_tuple():
    check_paths(narrowed, [(POS,), (NEG,)])


def found_in_while(x):
    found = None
    i = 0
    while i < 4:
        if x[i] > 1.0:
            found = (i, x[i] * 10)
        i += 1
    return found


def test_tuple_or_none_carried_in_loop():
    check_paths(found_in_while, [(POS,), (NEG,)])


def rolled_search(x, n):
    found = None
    for i in range(n):
        if x[i % 4] > 2.0:
            found = (x[i % 4], i)
    return found


def test_tuple_or_none_in_rolled_loop():
    check_paths(rolled_search, [(POS, 40), (NEG, 40), (POS, 0)])


Stats = __import__("collections").namedtuple("Stats", "mean top")


def named(x):
    s = None
    if x.sum() > 0:
        s = Stats(x.mean(), float(x.max()))
    return s


def test_namedtuple_or_none():
    check_paths(named, [(POS,), (NEG,)])


def printed_tuple(x):
    best = None
    if x.sum() > 0:
        best = (1, x.sum())
    print("best:", best)
    return best


def test_print_of_tuple_or_none():
    check_paths(printed_tuple, [(POS,), (NEG,)])


# ------------------------------- lists held in joined values keep their identity
def pair_then_append(x):
    log = []
    if x.sum() > 0:
        pair = (x, log)
    else:
        pair = (x * 2, log)
    log.append(1)   # eager's pair[1] is log: it sees this
    return pair


def append_through_pair(x):
    log = [0.0]
    if x.sum() > 0:
        pair = (x, log)
    else:
        pair = (x * 2, log)
    pair[1].append(2.0)
    return pair, log


def test_list_held_by_a_joined_tuple_is_the_same_object():
    check_paths(pair_then_append, [(POS,), (NEG,)])
    check_paths(append_through_pair, [(POS,), (NEG,)])


def alias_made_in_branch(x):
    a = [1]
    b = a
    if x.sum() > 0:
        a = [x.sum()]
        b = a
    b.append(3)
    return a


def test_list_bound_twice_in_a_branch_falls_back():
    check(alias_made_in_branch, POS, full_graph=False)
    check(alias_made_in_branch, NEG, full_graph=False)


def held_in_rolled_for(x, n):
    log = []
    state = (x, log)
    for i in range(n):
        state = (state[0] * 2, log)
    log.append(1)
    return state


def held_in_while(x):
    log = []
    state = (x, log)
    while state[0].sum() < 100:
        state = (state[0] * 2 + 1, log)
    log.append(1)
    return state


def replaced_in_while(x):
    log = []
    state = (x, log)
    while state[0].sum() < 100:
        state = (state[0] * 2 + 1, [])
    log.append(1)   # after zero trips eager's state[1] is log
    return state


def test_list_held_by_a_loop_carried_tuple():
    check_paths(held_in_rolled_for, [(POS, 30), (POS, 0)])
    check_paths(held_in_while, [(POS,), (POS + 200.0,)])
    check_paths(replaced_in_while, [(POS,), (POS + 200.0,)], full_graph=False)


def return_in_try_finally(x):
    log = []
    try:
        if x.sum() > 0:
            return x * 2, log
        x = x - 1
    finally:
        log.append("done")
    return x, log


def test_return_in_try_finally_returns_the_list_the_finally_wrote():
    check_paths(return_in_try_finally, [(POS,), (NEG,)])


def compared_with_none(x):
    t = None
    if x.sum() > 0:
        t = (1, x.sum())
    u = (x.max(), 2)
    return t == None, t != None, t is None, isinstance(t, tuple), u == None, None != u, u == 3  # noqa: E711


def test_tuple_compared_with_none_is_an_identity_test():
    # a tuple holding graph values == None: Python compares identities (an internal error before)
    check_paths(compared_with_none, [(POS,), (NEG,)])


def used_in_helper(b):
    if b is None:
        return 0.0
    return b[0] * 3


def call_helper_with_alternative(x):
    best = None
    if x.sum() > 0:
        best = (x.max(), x * 2)
    return used_in_helper(best), 1 if best else 2


def test_alternative_passed_to_helper_and_truth():
    check_paths(call_helper_with_alternative, [(POS,), (NEG,)])


def numpy_items(x):
    out = None
    if x.sum() > 0:
        out = (x * 2, float(x.max()), np.float64(3.0), np.int8(2))
    return out


def track_best(x, n):
    best = None
    for i in range(n):
        v = jnp.sin(x * i).sum()
        if best is None or v > best[0]:
            best = (v, i, "it")
    return best


def test_numpy_scalars_in_a_tuple_variant_and_a_rolled_tracker():
    check_paths(numpy_items, [(np.arange(3.0),), (-np.arange(3.0),)])
    check_paths(track_best, [(POS, 30), (NEG, 0), (NEG, 30)])


def rebound_dict(x):
    d = {"b": x, "a": x + 1}
    if x.sum() > 1:
        d = {"b": x - 1, "a": x * 3}
    d["c"] = 1
    return d


def rebind_in_helper(d, x):
    if x.sum() > 1:
        d = {"b": x}
    d["seen"] = True   # on the false path eager writes the caller's dict
    return d


def caller_keeps_dict(x):
    mine = {"b": x * 2}
    out = rebind_in_helper(mine, x)
    return mine, out


def test_a_dict_replaced_on_one_path_is_joined_by_value_only_when_nothing_else_holds_it():
    check_paths(rebound_dict, [(POS,), (NEG,)])
    check_paths(caller_keeps_dict, [(POS,), (NEG,)], full_graph=False)
