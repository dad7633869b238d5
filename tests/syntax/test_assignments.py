"""Assignments: =, chained, unpacking, starred, augmented, annotated, walrus, del, pass."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from helpers import check, modes

from .common import NEG, SIGN_IDS, SIGNS, X, codes, modes_of
from .coverage import covers


# ------------------------------------------------------------------- Assign
def layer_norm_unpacked(x, eps):
    mean = x.mean()
    centered = x - mean
    var = (centered ** 2).mean()
    scale = shift = 1.0          # chained
    h, (lo, hi) = centered / jnp.sqrt(var + eps), (x.min(), x.max())
    return h * scale + shift, lo, hi


@covers("Assign", "one graph", "`a = v`, chained `a = b = v`, nested tuple unpacking")
@covers("Name", "one graph", "local, parameter, global and builtin names")
@covers("Tuple", "one graph", "tuple display and tuple target")
def test_assign_forms_one_graph():
    check(layer_norm_unpacked, X, 1e-5, graphs=1)


def starred_unpack(x):
    head, *rest = [x, x * 2, x * 3]
    *init, last = (1, 2, 3)
    [a, b] = x[0], x[1]
    first, *_ = x            # unpacking an array's rows
    return head + sum(rest), init, last, a * b, first


@covers("Starred", "one graph", "starred assignment target `a, *rest = ...` (list, tuple, array rows)")
@covers("List", "one graph", "list display and list target `[a, b] = ...`")
def test_starred_unpacking_one_graph():
    check(starred_unpack, X, graphs=1)


def swap_in_loop(x, y):
    for _ in range(3):
        x, y = y, x + y      # Fibonacci-style swap
    return x, y


@covers("Assign", "unrolled", "tuple swap `x, y = y, x + y` in a static loop")
def test_swap_in_unrolled_loop():
    e = check(swap_in_loop, X, NEG, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


# ---------------------------------------------------------------- AugAssign
def aug_arrays(x, m):
    x += 1.0
    x -= 0.5
    x *= 2.0
    x /= 3.0
    x **= 2
    x //= 0.25
    x %= 5.0
    m @= m
    return x, m


def aug_python(n, s):
    items = [n]
    n += 1
    n <<= 2
    n |= 1
    n &= 7
    n ^= 3
    n >>= 1
    s += "!"
    items += [n]
    return n, s, items


@covers("AugAssign", "one graph", "`+= -= *= /= **= //= %= @=` on arrays")
def test_augassign_arrays_one_graph():
    check(aug_arrays, X, jnp.eye(2) * 2, graphs=1)


@covers("AugAssign", "trace time", "`<<= |= &= ^= >>=` on ints, `+=` on str and a local list")
def test_augassign_python_values_one_graph():
    check(aug_python, 5, "hi", graphs=1)


def aug_argument_list(x, items):
    items += [x.sum()]        # extends the caller's list
    return x * len(items)


@covers("AugAssign", "trace time", "`lst += [v]` on an argument list (its new contents written back into the caller's list)")
def test_augassign_on_argument_list_is_written_back():
    check(aug_argument_list, X, [1.0], graphs=1)


def aug_rolled(x):
    acc = 0.0
    for i in range(40):
        acc += x[i % 3] * i
    return acc


@covers("AugAssign", "lax.fori_loop", "`acc += x[i]` carried by a rolled loop (widened Python float)")
def test_augassign_carried_by_rolled_loop():
    e = check(aug_rolled, X, graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]


# ---------------------------------------------------------------- AnnAssign
def annotated(x, n: int):
    y: jax.Array = x * 2
    k: int = n + 1
    pending: float           # annotation only, no value
    total: "jax.Array" = y.sum() * k
    return y, k, total


@covers("AnnAssign", "one graph", "`y: T = v` and bare `z: T` in the function body")
def test_annotated_assignment_one_graph():
    check(annotated, X, 3, graphs=1)


# ---------------------------------------------------------------- NamedExpr
def walrus_traced(x):
    if (s := x.sum()) > 0:
        y = x / s
    else:
        y = x * s
    return y, s


@covers("NamedExpr", "lax.cond", "`if (s := x.sum()) > 0` on a traced value")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_walrus_in_traced_if(x):
    e = check(walrus_traced, x, graphs=1)
    assert modes(e) == [("if", "lax.cond")]


def walrus_static(x, n):
    if (k := n * 2) > 3:
        return x * k
    return x - k


@covers("NamedExpr", "pruned", "`if (k := n * 2) > 3` on a static value")
@pytest.mark.parametrize("n", [1, 3])
def test_walrus_in_static_if(n):
    e = check(walrus_static, X, n, graphs=1)
    assert modes(e) == [("if", "pruned")]


def walrus_in_comprehension(x):
    scaled = [last := x * w for w in (1.0, 2.0, 3.0)]
    return scaled, last       # the comprehension's walrus binds in the function scope


@covers("NamedExpr", "unrolled", "walrus inside a comprehension, read after it (binds in the function scope)")
def test_walrus_in_comprehension():
    check(walrus_in_comprehension, X, graphs=1)


def walrus_in_traced_while(x):
    while (s := x.sum()) < 10:
        x = x + 1
    return x, s


@covers("NamedExpr", "python control", "walrus in a traced `while` test: `while (s := x.sum()) < 10:`: the "
        "`while` runs as Python control flow around its compiled body", code="A2G001")
def test_walrus_in_traced_while_test():
    e = check(walrus_in_traced_while, X, full_graph=False)
    assert codes(e)[:1] == ["A2G001"]


def walrus_in_static_while(x, n):
    while (n := n - 1) > 0:
        x = x * 2
    return x, n


@covers("NamedExpr", "unrolled", "walrus in a static `while` test: `while (n := n - 1) > 0:`")
def test_walrus_in_static_while_test():
    e = check(walrus_in_static_while, X, 4, graphs=1)
    assert modes_of(e, "while") == ["unrolled"]


# ------------------------------------------------------------------- Delete
def del_local(x):
    tmp = x * 2
    y = tmp + 1
    del tmp
    return y


@covers("Delete", "one graph", "`del name` of a bound local")
def test_del_local_one_graph():
    check(del_local, X, graphs=1)


def del_items(x):
    cache = {"a": x, "b": x * 2}
    del cache["a"]
    layers = [x, x + 1, x + 2]
    del layers[0]
    return cache, layers


@covers("Delete", "one graph", "`del d[k]`, `del lst[i]` with static keys (the container's `pop`)")
def test_del_items_one_graph():
    check(del_items, X, graphs=1)


def del_traced_index(x):
    layers = [x, x + 1, x + 2]
    del layers[int(x.sum()) % 3]
    return layers


@covers("Delete", "interpreted", "`del lst[i]` with a traced index", code="A2G007")
def test_del_traced_index_falls_back():
    e = check(del_traced_index, X, full_graph=False)
    assert codes(e) == ["A2G007"]


def del_numpy_slice(n):
    a = np.arange(n)
    b = list(a)
    del b[1:3]
    return np.array(b)


@covers("Delete", "one graph", "`del lst[a:b]` with static bounds")
def test_del_slice_one_graph():
    check(del_numpy_slice, 5)


# --------------------------------------------------------------------- Pass
def pass_branch(x):
    if x.sum() > 0:
        pass
    else:
        x = -x
    for _ in range(2):
        pass
    return x


@covers("Pass", "lax.cond", "`pass` as a traced branch body and a loop body")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_pass_one_graph(x):
    e = check(pass_branch, x, graphs=1)
    assert ("if", "lax.cond") in modes(e)
