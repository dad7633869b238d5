"""A NumPy argument handed back on some paths of a traced branch or loop is
the caller's object itself, as in eager (typeinfer/identity.py).

Eager's ``return x if x.sum() > 0 else -x`` returns the caller's ``x`` on one
path: a caller that writes into the result writes into its own array, and
``result is x`` is true. Each step below calls the function, then writes into
the result and hands back the argument, so the comparison with eager sees
whether the result was the argument's object."""

import numpy as np
import pytest

from helpers import check, check_sequence


def _identity_steps(*inputs):
    """Steps that call ``fn(*args)`` with fresh arrays, write into the result,
    and return (result, the arguments after the write, whether it was an argument)."""
    def step_for(args):
        def step(fn, world):
            arrays = [np.array(a) for a in args]
            out = fn(*arrays)
            first = out[0] if isinstance(out, (tuple, list)) else out["y"] if isinstance(out, dict) else out
            same = [first is a for a in arrays]
            first[...] = -7.0
            return out, arrays, same
        return step
    return [step_for(args) for args in inputs]


def _world(fn):
    return lambda: (fn, None)


def pick_if(x):
    if x.sum() > 0:
        y = x
    else:
        y = x * 2
    return y


def pick_ifexp(x):
    return x if x.max() > 1 else np.abs(x)


def pick_two(a, b):
    if a.sum() > b.sum():
        return a
    return b


def pick_chain(a, b):
    s = a.sum() - b.sum()
    if s > 1:
        out = a
    elif s < -1:
        out = b
    else:
        out = (a + b) / 2
    return out


def halve_while(x):
    while x.sum() > 10:
        x = x / 2
    return x


def best_of(x, n):
    best = x
    for i in range(n):
        c = best * 0.5 + i
        if c.sum() < best.sum():
            best = c
    return best


def in_tuple(x):
    y = x if x[0] > 0 else x + 1
    return y, y.sum()


def in_dict(x):
    y = x if x[0] > 0 else x + 1
    return {"y": y, "n": y.size}


CASES = [
    (pick_if, [([1.0, 2.0],), ([-1.0, -2.0],)]),
    (pick_ifexp, [([1.0, 2.0],), ([0.5, -0.5],)]),
    (pick_two, [([3.0, 2.0], [1.0, 1.0]), ([0.0, 1.0], [5.0, 5.0])]),
    (pick_chain, [([5.0, 2.0], [1.0, 1.0]), ([0.0, 1.0], [5.0, 5.0]), ([1.0, 1.0], [1.0, 1.5])]),
    (halve_while, [([1.0, 2.0],), ([30.0, 2.0],)]),
    (in_tuple, [([1.0, 2.0],), ([-1.0, 2.0],)]),
    (in_dict, [([1.0, 2.0],), ([-1.0, 2.0],)]),
]


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_argument_identity(fn, inputs):
    check(fn, *[np.array(a) for a in inputs[0]], full_graph=True)
    check_sequence(_world(fn), _identity_steps(*inputs + inputs[::-1]), full_graph=True)


def test_loop_that_may_keep_the_argument():
    def step_for(x, n):
        def step(fn, world):
            a = np.array(x)
            out = fn(a, n)
            same = out is a
            out[...] = 0.0
            return out, a, same
        return step
    check(best_of, np.array([1.0, 2.0]), 3, full_graph=True)
    check_sequence(_world(best_of), [step_for([1.0, 2.0], 0), step_for([1.0, 2.0], 3), step_for([-4.0, 1.0], 2),
                                     step_for([0.0, 0.0], 1)], full_graph=True)


def test_attribute_set_to_an_argument_on_one_path():
    class Keeper:
        def __init__(self):
            self.best = None

        def update(self, x):
            self.best = x if x.sum() > 0 else np.zeros_like(x)
            return self.best.sum()

    def make():
        k = Keeper()
        return k.update, k

    def step_for(v):
        def step(fn, keeper):
            a = np.array(v)
            out = fn(a)
            same = keeper.best is a
            keeper.best[...] = 3.0
            return out, a, same
        return step
    check_sequence(make, [step_for([1.0, 2.0]), step_for([-1.0, -2.0]), step_for([2.0, 2.0])], full_graph=True)


def test_jax_arguments_are_unaffected():
    import jax.numpy as jnp
    check(pick_two, jnp.array([3.0, 2.0]), jnp.array([1.0, 1.0]), full_graph=True)
    check(halve_while, jnp.array([30.0, 2.0]), full_graph=True)


TABLE = np.array([1.0, 2.0, 3.0])


def table_or_scaled(x):
    if x.sum() > 0:
        return TABLE
    return TABLE * x.sum()


def test_global_array_handed_back_on_one_path():
    def make():
        global TABLE
        TABLE = np.array([1.0, 2.0, 3.0])
        return table_or_scaled, None

    def step_for(v):
        def step(fn, world):
            out = fn(np.array(v))
            same = out is TABLE
            out[0] += 10.0
            return out, TABLE.copy(), same
        return step
    check_sequence(make, [step_for([1.0]), step_for([-1.0]), step_for([2.0])], full_graph=True)


def test_array_or_none():
    def first_positive(x):
        if x.sum() > 0:
            return x
        return None

    def step_for(v):
        def step(fn, world):
            a = np.array(v)
            out = fn(a)
            return out, out is a
        return step
    check_sequence(_world(first_positive), [step_for([1.0]), step_for([-1.0]), step_for([2.0])], full_graph=True)


def astype_no_copy(x):
    return x.astype(np.float64, copy=False)


def astype_no_copy_written(x):
    y = x.astype(x.dtype, copy=False)
    y[0] = 5.0
    return y.sum()


def astype_copy(x):
    return x.astype(np.float64)


@pytest.mark.parametrize("fn", [astype_no_copy, astype_copy])
def test_astype_without_copy_is_the_array(fn):
    check_sequence(_world(fn), _identity_steps(([1.0, 2.0],), ([3.0],)), full_graph=True)
    check_sequence(_world(fn), _identity_steps((np.array([1.0, 2.0], np.float32),)), full_graph=True)


def test_astype_without_copy_written():
    check(astype_no_copy_written, np.array([1.0, 2.0]), full_graph=False)


def appended_on_one_path(x):
    out = [x]
    if x.sum() > 0:
        out.append(x)
    return out


def test_argument_appended_under_a_traced_condition_stays_itself():
    """A list whose length depends on the data keeps its later items as rows
    of a buffer (varlist.py): a row would be a copy of the caller's array, so
    this list stays Python's (A2G007), with eager's objects in it."""
    def step_for(v):
        def step(fn, world):
            a = np.array(v)
            out = fn(a)
            return out, [item is a for item in out]
        return step
    check_sequence(_world(appended_on_one_path), [step_for([1.0, 2.0]), step_for([-1.0])], full_graph=False)
    explanation = check(appended_on_one_path, np.array([1.0, 2.0]), full_graph=False)
    assert "A2G007" in {s.code.value[0] for s in explanation.fallback_sites}


# ------------------------------------------------- outputs that are one object
def joined_with_another_output(x):
    z = x * 2
    y = x if x.sum() > 0 else z
    return y, z


def one_array_two_names_in_a_branch(x):
    if x.sum() > 0:
        z = x * 2
        y = z
    else:
        z = x * 3
        y = x + 1
    return y, z


def loop_may_keep_another_name(x):
    z = x * 2
    y = z
    while y.sum() > 10:
        y = y / 2
    return y, z


def for_may_keep_another_name(x, n):
    z = x * 2
    y = z
    for _ in range(n):
        if y[0] > 3:
            y = y - 1
    return y, z


def nested_joins(x):
    a = x * 2
    if x[0] > 0:
        b = a if x[1] > 0 else x
    else:
        b = x * 5
    return a, b


def tuple_of_one_object(x):
    z = x + 1
    t = (z, z) if x[0] > 0 else (z, x)
    return t, z


def _flat(r):
    return [t for item in r for t in (item if isinstance(item, tuple) else (item,))]


def _pattern_step(*args):
    """Which outputs (and the argument) are one object: eager's pattern."""
    def step(fn, world):
        a = np.array(args[0])
        out = fn(a, *args[1:])
        objs = _flat(out) + [a]
        return out, [next(i for i, o in enumerate(objs) if o is p) for p in objs]
    return step


PATTERNS = [
    (joined_with_another_output, [([1.0, 2.0],), ([-1.0, -2.0],)]),
    (one_array_two_names_in_a_branch, [([1.0, 2.0],), ([-1.0, -2.0],)]),
    (loop_may_keep_another_name, [([1.0, 2.0],), ([30.0, 2.0],)]),
    (for_may_keep_another_name, [([1.0, 2.0], 3), ([5.0, 2.0], 3), ([5.0, 2.0], 0)]),
    (nested_joins, [([1.0, 2.0],), ([1.0, -2.0],), ([-1.0, 2.0],)]),
    (tuple_of_one_object, [([1.0],), ([-1.0],)]),
]


@pytest.mark.parametrize("fn,inputs", PATTERNS, ids=[c[0].__name__ for c in PATTERNS])
def test_outputs_that_are_one_object(fn, inputs):
    check_sequence(_world(fn), [_pattern_step(*args) for args in inputs + inputs[::-1]], full_graph=True)
