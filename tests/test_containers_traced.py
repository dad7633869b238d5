"""Local lists and dicts written under a traced ``if``: contents joined (issue 16, item 3).

Each function is compared with its eager run on inputs that take every path;
one graph where both paths leave the same structure, a fallback (with eager's
values) where they do not.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_calls, check_sequence

X_MIXED = jnp.array([1.0, -2.0, 3.0])
X_POS = jnp.array([1.0, 2.0, 3.0])
X_NEG = jnp.array([-1.0, -2.0, -3.0])
INPUTS = [X_MIXED, X_POS, X_NEG]


def _causes(fn, *args, **options) -> list[str]:
    e = explain(to_static(fn, **options))(*args)
    return [s.cause for s in e.fallback_sites]


# --------------------------------------------------------------- the probes
def p_list_branch(x):
    out = []
    for i in range(3):
        if x[i] > 0:
            out.append(x[i])
        else:
            out.append(-x[i])
    return out


def p_dict_branch(x):
    d = {"a": x, "n": 0}
    if x.sum() > 0:
        d["a"] = x * 2
        d["n"] = 1
    return d["a"]


def p_dict_branch_n(x):
    d = {"a": x, "n": 0}
    if x.sum() > 0:
        d["a"] = x * 2
        d["n"] = 1
    return d["a"], d["n"], d


def p_flags(x):
    flags = [True] * 3
    for j in range(3):
        if x[j] < 0:
            flags[j] = False
    return jnp.array(flags)


def p_flags_sum(x):
    flags = [True] * 3
    for j in range(3):
        if x[j] < 0:
            flags[j] = False
    return sum(flags)


def p_flags_list(x):
    flags = [True] * 3
    for j in range(3):
        if x[j] < 0:
            flags[j] = False
    return flags


@pytest.mark.parametrize("fn", [p_list_branch, p_dict_branch, p_dict_branch_n, p_flags, p_flags_sum, p_flags_list])
@pytest.mark.parametrize("x", INPUTS, ids=["mixed", "pos", "neg"])
def test_probes_are_one_graph(fn, x):
    check(fn, x, graphs=1)


# ------------------------------------------------------------ combinations
def test_extend_and_setitem_on_both_branches():
    def f(x):
        out = [x[0] * 0, x[0]]
        if x.sum() > 0:
            out.extend([x[1], 1.0])
            out[0] = x[2]
        else:
            out.extend([x[2], 2.0])
        return out

    for x in INPUTS:
        check(f, x, graphs=1)


def test_alias_sees_the_joined_contents():
    def f(x):
        out = []
        alias = out
        if x[0] > 0:
            alias.append(x[0] * 2)
        else:
            out.append(x[1])
        return out, alias, out is alias

    for x in INPUTS:
        check(f, x, graphs=1)


def test_nested_loops_flags():
    def f(x):
        flags = [True, True, True]
        for i in range(2):
            for j in range(3):
                if x[i, j] < 0:
                    flags[j] = False
        return jnp.array(flags), sum(flags)

    for x in (jnp.array([[1.0, -1.0, 2.0], [3.0, 4.0, -5.0]]), jnp.ones((2, 3)), -jnp.ones((2, 3))):
        check(f, x, graphs=1)


def test_nested_traced_ifs():
    def f(x):
        zero = jnp.zeros(())
        d = {"lo": zero, "hi": zero}
        if x[0] > 0:
            if x[1] > 0:
                d["hi"] = x[1]
            else:
                d["lo"] = x[1]
        else:
            d["lo"] = x[0]
        return d

    for x in INPUTS + [jnp.array([1.0, -2.0, 0.0])]:
        check(f, x, graphs=1)


def test_elif_chain():
    def f(x):
        out = [0, 0]
        s = x.sum()
        if s > 1:
            out[0] = 1
        elif s > -1:
            out[1] = 2
        else:
            out[0] = -1
        return out

    for x in INPUTS + [jnp.array([0.1, 0.1, -0.1])]:
        check(f, x, graphs=1)


def test_list_inside_dict():
    def f(x):
        d = {"vals": [x[0] * 0, x[1] * 0], "k": "name"}
        if x[0] > 0:
            d["vals"][0] = x[0]
        else:
            d["vals"][1] = x[1]
        return d

    for x in INPUTS:
        check(f, x, graphs=1)


def _helper(xs, v):
    if v > 0:
        xs.append(v)
    else:
        xs.append(-v)
    return xs


def test_helper_mutates_a_list_under_a_traced_if():
    def f(x):
        out = [x[0]]
        for i in range(3):
            _helper(out, x[i])
        return out

    for x in INPUTS:
        check(f, x, graphs=1)


def _push(xs, v):
    xs.append(v)


def test_helper_called_under_a_traced_if():
    def f(x):
        out = []
        if x[0] > 0:
            _push(out, x[1])
        else:
            _push(out, x[2] + 1)
        return out

    for x in INPUTS:
        check(f, x, graphs=1)


class Tracker:
    def __init__(self, scale):
        self.scale = scale

    def run(self, x):
        seen = {"pos": 0, "neg": 0}
        for i in range(3):
            if x[i] > 0:
                seen["pos"] = seen["pos"] + 1
            else:
                seen["neg"] += 1
        return seen, x * self.scale


def test_method_counts_in_a_dict():
    t = Tracker(2.0)
    for x in INPUTS:
        check(t.run, x, graphs=1)


def test_loop_unrolled_under_small_unroll_limit():
    def f(x):
        out = []
        for i in range(6):
            if x[i] > 0:
                out.append(x[i])
            else:
                out.append(0.0)
        return jnp.stack(out)

    for x in (jnp.arange(6.0) - 2.5, jnp.ones(6)):
        check(f, x, graphs=1, unroll_limit=2)


def test_numpy_array_elements():
    def f(x):
        vals = [np.float64(0.0), np.float64(1.0)]
        if x.sum() > 0:
            vals[0] = np.float64(2.5)
        return vals

    for x in INPUTS:
        check(f, x, graphs=1)


def test_python_int_and_float_join():
    def f(x):
        vals = [0, 0]
        if x[0] > 0:
            vals[0] = 2
            vals[1] = 1.5
        else:
            vals[1] = 3.5
        return vals

    for x in INPUTS:
        check(f, x, graphs=1)


def test_state_read_into_the_list_changes_between_calls():
    def make():
        state = {"defaults": [1.0, 2.0]}

        def f(x):
            out = list(state["defaults"])
            if x[0] > 0:
                out[0] = out[1] * 2
            return out

        return f, state

    def step(values, x):
        def run(fn, state):
            state["defaults"] = values
            return fn(x)
        return run

    check_sequence(make, [step([1.0, 2.0], X_POS), step([5.0, 6.0], X_NEG), step([5.0, -1.0], X_POS),
                          step([7.0, 8.0, 9.0], X_NEG)])


# ------------------------------------------------------------- fallbacks
def test_append_on_one_branch_is_a_buffer_and_a_count():
    # eager's length depends on the data: a buffer and a traced count, the list made after the call (varlist.py)
    def f(x):
        out = []
        if x[0] > 0:
            out.append(x[0])
        return out

    for x in INPUTS:
        check(f, x, full_graph=True)


def test_new_key_on_one_branch_falls_back():
    def f(x):
        d = {"a": 1}
        if x[0] > 0:
            d["b"] = x[0]
        return d

    for x in INPUTS:
        check(f, x, full_graph=False)
    assert any("dict 'd' has other keys" in c for c in _causes(f, X_POS))


def test_path_dependent_kind_is_not_returned_from_the_graph():
    """A Python True on one path, a jax bool on the other: eager's element
    kind depends on the data. Returned, the list falls back; used as an
    array, its kind does not matter and it is one graph."""
    def returned(x):
        flags = [True, True]
        if x[0] < 0:
            flags[0] = x[1] > 0
        return flags

    def used(x):
        flags = [True, True]
        if x[0] < 0:
            flags[0] = x[1] > 0
        return jnp.array(flags)

    for x in INPUTS:
        check(returned, x, full_graph=False)
        check(used, x, graphs=1)


def test_write_then_return_under_a_traced_if_falls_back():
    def f(x):
        out = [0.0]
        if x[0] > 0:
            out[0] = x[0]
            return out
        out.append(x[1])
        return out

    for x in INPUTS:
        check(f, x, full_graph=False)


def test_write_in_traced_while_still_falls_back():
    def f(x):
        out = [0.0]
        i = 0
        while x[i] > 0:
            out[0] = out[0] + x[i]
            i += 1
            if i == 3:
                break
        return out

    for x in INPUTS:
        check(f, x, full_graph=False)


# ------------------------------------------------------------ rolled loops
X20 = jnp.arange(20.0) - 5.5


def _loop_modes(e) -> list[str]:
    return [d.mode for d in e.decisions if d.construct in ("for", "while")]


def test_rolled_for_carries_a_list_written_at_static_indices():
    def f(x):
        acc = [x[0] * 0, x[0] * 0]
        for i in range(20):
            acc[0] = acc[0] + x[i]
            if x[i] > 0:
                acc[1] = acc[1] + x[i]
        return acc

    for x in (X20, -X20):
        e = check(f, x, graphs=1)
        assert _loop_modes(e) == ["lax.fori_loop"], e


def test_traced_while_carries_a_dict():
    def f(x):
        d = {"s": x[0] * 0, "n": x[0] * 0}
        i = 0
        while d["s"] < 10.0:
            d["s"] = d["s"] + x[i % 3]
            d["n"] = d["n"] + 1
            i += 1
        return d, i

    for x in (jnp.array([1.0, 2.0, 3.0]), jnp.array([4.0, 0.5, 9.0])):
        e = check(f, x, graphs=1)
        assert _loop_modes(e) == ["lax.while_loop"], e


def test_rolled_loop_alias_sees_the_writes():
    def f(x):
        acc = [x[0] * 0]
        alias = acc
        for i in range(20):
            alias[0] = alias[0] + x[i]
        return acc, alias is acc

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_rolled_loop_rebinding_a_list_still_rolls():
    def f(x):
        state = [x[0] * 0, x[1]]
        for i in range(20):
            state = [state[0] + x[i], state[1] * 0.5]
        return state

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_rolled_loop_inside_traced_branch_writes_outer_list():
    def f(x):
        acc = [x[0] * 0, x[1] * 0]
        if x.sum() > 0:
            for i in range(20):
                acc[0] = acc[0] + x[i]
        else:
            acc[1] = x[2]
        return acc

    for x in (X20, -X20):
        check(f, x, graphs=1)


def _accumulate(acc, v):
    acc["total"] = acc["total"] + v


def test_nested_rolled_loops_and_a_helper():
    def f(x):
        acc = {"total": x[0] * 0}
        for i in range(18):
            for j in range(17):
                _accumulate(acc, x[i] * x[j])
        return acc

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop", "lax.fori_loop"], e


def test_growing_list_in_long_loop_rolls():
    # the appended items are a buffer the loop carries; every iteration appends, so the list's
    # length is known after it and its items are the buffer's rows (varlist.py)
    def f(x):
        out = []
        for i in range(20):
            out.append(x[i])
        return jnp.stack(out)

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_python_counter_in_a_list_keeps_python_semantics():
    def f(x):
        cnt = [0, 0.0]
        for i in range(20):
            if x[i] > 0:
                cnt[0] += 1
                cnt[1] = cnt[1] + 0.5
        return cnt

    for x in (X20, -X20):
        check(f, x, graphs=1)


# -------------------------------------------------- traced list indices
def test_rolled_for_writes_buf_at_the_loop_index():
    def f(x):
        buf = [x[0] * 0] * 4
        for i in range(20):
            buf[i % 4] = buf[i % 4] + x[i]
        return buf

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_traced_while_writes_buf_i():
    def f(x):
        buf = [x[0] * 0] * 3
        i = 0
        while x[i] > 0:
            buf[i] = x[i]
            i += 1
        return buf, i

    for x in (jnp.array([1.0, 2.0, -1.0, 3.0]), jnp.array([-1.0, 2.0, 1.0, 3.0])):
        e = check(f, x, graphs=1)
        assert _loop_modes(e) == ["lax.while_loop"], e


def test_traced_index_out_of_range_raises_eagers_index_error():
    def f(x):
        buf = [x[0]] * 3
        for i in range(20):
            buf[i] = x[i]
        return buf

    def g(x):
        table = [x[0], x[1] * 2, x[2] * 3]
        acc = x[0] * 0
        for i in range(20):
            acc = acc + table[i - 1]
        return acc

    check(f, X20, full_graph=False)
    check(g, X20, full_graph=False)


def test_traced_index_read_and_negative_index():
    def f(x):
        table = (x[0], x[1] * 2, x[2] * 3)
        buf = [x[0] * 0, x[0] * 0]
        acc = x[0] * 0
        for i in range(18):
            acc = acc + table[i % 3] + table[-1 - i % 3]
            buf[-1 - i % 2] = buf[-1 - i % 2] + table[i % 3]
        return acc, buf

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_traced_index_write_of_another_kind_is_path_dependent():
    """A Python float list written with jax values at a traced index: eager's
    item kinds depend on the path; returned, it runs in Python."""
    def f(x):
        buf = [0.0, 0.0]
        for i in range(20):
            buf[i % 2] = x[i]
        return buf

    check(f, X20, full_graph=False)


def test_outside_list_read_at_a_traced_index_is_guarded():
    """A module-level list read with a traced index, and one copied by
    ``+`` into a local list written under a traced ``if``: the caller changes
    it (values and length) between calls."""
    def make():
        world = {"table": [1.0, 2.0, 3.0]}

        def f(x):
            table = world["table"]
            local = table + []
            acc = x[0] * 0
            for i in range(20):
                acc = acc + table[i % 3] * x[i]
            if x[0] > 0:
                local[0] = local[1]
            return acc, local

        return f, world

    def step(values, x):
        def run(fn, world):
            world["table"] = values
            return fn(x)
        return run

    check_sequence(make, [step([1.0, 2.0, 3.0], X20), step([1.0, 5.0, 3.0], X20), step([1.0, 5.0, 3.0, 4.0], -X20),
                          step([0.5, 0.25, 4.0], -X20)])


def test_outside_list_mutated_in_place_between_calls():
    def make():
        table = [1.0, 2.0, 3.0]

        def f(x):
            acc = x[0] * 0
            for i in range(20):
                acc = acc + table[i % 3] * x[i]
            return acc

        return f, table

    def step(k, v):
        def run(fn, table):
            table[k] = v
            return fn(X20)
        return run

    check_sequence(make, [step(0, 1.0), step(1, 7.0), step(2, -1.0)])


def test_rolled_loop_tuple_holding_the_carried_list_sees_its_writes():
    def f(x):
        buf = [x[0] * 0]
        t = (buf, 0)
        ys = x[0] * 0
        for i in range(20):
            ys = ys + t[0][0]
            buf[0] = buf[0] + x[i]
            ys = ys + t[0][0]
            t = (buf, i)
        return ys, buf, t[0] is buf

    e = check(f, X20, graphs=1)
    assert _loop_modes(e) == ["lax.fori_loop"], e


def test_other_list_and_dict_methods_on_both_branches():
    def pop_insert(x):
        out = [x[0], x[1]]
        if x[0] > 0:
            v = out.pop()
            out.insert(0, v * 2)
        else:
            out.reverse()
        return out

    def setdefault(x):
        d = {"a": x[0], "b": x[1]}
        if x[0] > 0:
            d.setdefault("c", x[2])
            d["a"] = x[2]
        else:
            d["c"] = x[1]
        return d, list(d)

    def read_back_in_branch(x):
        out = [x[0] * 0]
        if x[0] > 0:
            out[0] = x[1]
            if x[1] > 0:
                out[0] = out[0] + 10
            y = out[0] * 2
        else:
            y = out[0] - 1
        return out, y

    def self_reference(x):
        out = []
        out.append(out)
        out.append(x[0])
        if x[0] > 0:
            out[1] = x[1]
        return out[1], out[0] is out

    for fn in (pop_insert, setdefault, read_back_in_branch, self_reference):
        for x in INPUTS:
            check(fn, x, graphs=1)


def test_histogram_counts_at_a_traced_bin():
    """``counts[b] += 1`` with a bin computed from the data: the Python ints
    stay Python ints; a loop past the unroll limit rolls, its counts carried
    as traced Python ints (each only ever stepped by one: exact in int64,
    ``control._items_counted_by_one``). It unrolled, and XLA's compile of
    the unrolled selects grew with the square of the iterations (200 bins
    of data: over 12 minutes and 9 GB)."""
    def hist(v):
        counts = [0] * 4
        for k in range(10):
            b = jnp.clip((v[k] * 4).astype(int), 0, 3)
            counts[b] += 1
        return counts

    def hist_long(v):
        counts = [0] * 4
        for k in range(30):
            b = jnp.clip((v[k] * 4).astype(int), 0, 3)
            counts[b] += 1
        return counts

    def hist_data(v, lo, width, nb):   # issue 16's example: Python ints of the data as bins
        counts = [0] * nb
        for x in v:
            b = int((x - lo) / width)
            b = min(max(b, 0), nb - 1)
            counts[b] += 1
        return counts

    v = jnp.linspace(0.0, 1.0, 30)
    check(hist, v, graphs=1)
    e = check(hist_long, v, graphs=1)
    assert [d.mode for d in e.decisions if d.construct == "for"] == ["lax.fori_loop"], e
    data = np.random.default_rng(0).normal(size=200)
    h = check_calls(hist_data, [(data, -2.0, 0.5, 8), (data[::-1] * 3, -2.0, 0.5, 8)])
    assert [d.mode for d in explain(h)(data, -2.0, 0.5, 8).decisions if d.construct == "for"] == ["lax.scan"]


@pytest.mark.parametrize("body,counted", [
    ("counts[b] += 1", True), ("counts[b] -= 1\n    y = counts[b] * 2", True),
    ("counts[b] += 1\n    counts[0] *= 2", False),   # doubled: may leave int64 (the loop unrolls, exact)
    ("counts[b] += 2", False), ("counts[b] = counts[b] + 1", False), ("bump(counts, b)", False),
    ("c = counts", False), ("counts.append(1)", False), ("del counts[b]", False)])
def test_which_container_items_are_counters(body, counted):
    import gast

    from ast2graph.typeinfer.control import _items_counted_by_one

    loop = gast.parse(f"for b in xs:\n    {body}\n").body[0]
    assert _items_counted_by_one(loop, {"counts"}) is counted


def test_grad_through_a_rolled_loop_carrying_a_list():
    import jax

    def f(x):
        buf = [x[0] * 0] * 3
        for i in range(20):
            buf[i % 3] = buf[i % 3] + x[i] * x[i]
            if x[i] > 0:
                buf[0] = buf[0] * 0.5
        return buf[0] + 2 * buf[1] + 3 * buf[2]

    x = jnp.linspace(-1.0, 1.0, 20)
    np.testing.assert_allclose(jax.grad(to_static(f, full_graph=True))(x), jax.grad(f)(x), rtol=1e-5, atol=1e-6)


# ------------------------------------- collections' dict subclasses: the methods they inherit from dict
# ``d.items()`` of a defaultdict is dict.items itself (a C method, the same object): it computes what
# the builtin's does. It was "not known to be free of side effects" (A2G009).
def _grouped(x):
    import collections

    d = collections.defaultdict(list)
    for i in range(4):
        d["ab"[i % 2]].append(x[i] * 2)
    sums = {k: sum(v) for k, v in d.items()}
    return d, sums, list(d.keys()), len(d.values()), d.get("c", None)


def _counted(x):
    import collections

    d = collections.defaultdict(float)
    for i in range(4):
        d[i % 3] += x[i]
    view = d.items()
    d[7] += 1.0
    return sorted(d.items()), list(view), d.pop(0), dict(d)


@pytest.mark.parametrize("fn", (_grouped, _counted))
@pytest.mark.parametrize("x", (np.array([0.5, -1.0, 2.0, 3.0]), jnp.array([3.0, 2.0, -1.0, 0.0])))
def test_defaultdict_methods_inherited_from_dict(fn, x):
    check(fn, x, full_graph=True)
