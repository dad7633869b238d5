"""Containers: list, tuple, dict and set displays, their methods, nested
structures returned as pytrees, and mutation of local containers."""

from typing import NamedTuple

import jax
import jax.numpy as jnp
import pytest

from helpers import check

from .common import NEG, SIGN_IDS, SIGNS, X, codes, modes_of
from .coverage import covers


def build_state(x):
    layers = [x, x * 2]
    layers.append(x * 3)
    layers.extend([x - 1])
    layers.insert(0, -x)
    last = layers.pop()
    cfg = {"lr": 0.1, "steps": 3}
    cfg["decay"] = 0.5
    cfg.update(warmup=2)
    tags = {"train", "eval"}
    tags.add("test")
    return {"layers": layers, "last": last, "pair": (x.sum(), len(layers)),
            "cfg": cfg, "lr": cfg.get("lr", 1.0), "missing": cfg.get("zz"), "tags": sorted(tags | {"x"})}


@covers("List", "one graph", "list display, `append`/`extend`/`insert`/`pop` on a local list")
@covers("Dict", "one graph", "dict display, item store, `update`, `get`, nested dict returned as a pytree")
@covers("Set", "one graph", "set display, `add`, `|`, `sorted(set)`")
@covers("Tuple", "one graph", "tuple display holding traced and static values")
def test_local_containers_one_graph():
    check(build_state, X, graphs=1)


def collect_in_loop(x, n):
    outs, stats = [], {}
    for i in range(n):
        x = jnp.tanh(x + i)
        outs.append(x)
        stats[f"step{i}"] = x.sum()
    return jnp.stack(outs), stats


@covers("List", "unrolled", "`outs.append(x)` in a static loop, then `jnp.stack(outs)`")
@covers("Dict", "unrolled", "`stats[key] = v` in a static loop")
@pytest.mark.parametrize("n", [1, 4])
def test_append_in_unrolled_loop(n):
    e = check(collect_in_loop, X, n, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


def append_rolled_size(x):
    outs = []
    for i in range(20):
        outs.append(x * i)
    return jnp.stack(outs)


@covers("List", "unrolled", "`append` in a 20-iteration loop (above unroll_limit, unrolled since a list cannot roll)")
def test_append_above_unroll_limit_unrolls():
    e = check(append_rolled_size, X, graphs=1)
    assert modes_of(e, "for") == ["unrolled"]


def dict_store_in_traced_if(x):
    state = {"h": x}
    if x.sum() > 0:
        state["h"] = x * 2
    return state


@covers("Dict", "one graph", "`d[k] = v` on a local dict inside a traced `if` (same keys on both paths: the "
        "values joined)")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_dict_store_in_traced_branch(x):
    check(dict_store_in_traced_if, x, graphs=1)


def dict_new_key_in_traced_if(x):
    state = {"h": x}
    if x.sum() > 0:
        state["g"] = x * 2
    return state


@covers("Dict", "python control", "`d[k] = v` adding a key inside a traced `if` (the keys depend on the value)",
        code="A2G007")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_dict_new_key_in_traced_branch_runs_as_python(x):
    e = check(dict_new_key_in_traced_if, x, full_graph=False)
    assert codes(e)[0] == "A2G007"


def append_in_traced_if(x):
    outs = [x]
    if x.sum() > 0:
        outs.append(x * 2)
    return outs


@covers("List", "python control", "`append` inside a traced `if` (the list's length depends on the value)",
        code="A2G007")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_append_in_traced_branch_runs_as_python(x):
    e = check(append_in_traced_if, x, full_graph=False)
    assert codes(e)[0] == "A2G007"


def append_on_both_branches(x):
    outs = []
    for i in range(3):
        if x[i] > 0:
            outs.append(x[i])
        else:
            outs.append(-x[i])
    return outs


@covers("List", "one graph", "`append` on both branches of a traced `if` in an unrolled loop (same length on "
        "both paths: the elements joined)")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_append_on_both_traced_branches(x):
    check(append_on_both_branches, x, graphs=1)


def flags_in_traced_if(x):
    flags = [True] * 3
    for j in range(3):
        if x[j] < 0:
            flags[j] = False
    return flags, sum(flags)


@covers("List", "one graph", "`flags[j] = False` under a traced `if`: the Python bools traced, returned as bools")
@pytest.mark.parametrize("x", SIGNS, ids=SIGN_IDS)
def test_list_store_in_traced_branch(x):
    check(flags_in_traced_if, x, graphs=1)


def buf_in_rolled_loop(x):
    buf = [x[0] * 0] * 3
    for i in range(20):
        buf[i % 3] = buf[i % 3] + x[i % 3]
    return buf


@covers("List", "lax.fori_loop", "`buf[i] = v` into a local list of fixed length in a rolled loop (the list carried, "
        "the item selected by the traced index; IndexError checked at run time)")
def test_list_store_at_traced_index_in_rolled_loop():
    e = check(buf_in_rolled_loop, X, graphs=1)
    assert modes_of(e, "for") == ["lax.fori_loop"]


def mutate_argument(x, history):
    history.append(x.sum())
    return x * len(history)


@covers("List", "trace time", "`append` to an argument list (its new contents written back: the caller sees the new item)")
def test_append_to_argument_is_written_back():
    check(mutate_argument, X, [1.0], graphs=1)


def unpack_pytree(params, x):
    w, b = params["dense"]
    (scale,) = params["norm"]
    return (w @ x + b) * scale, list(params), [k for k in params if k.startswith("d")]


@covers("Dict", "one graph", "a nested parameter dict argument: subscripts, unpacking, iteration over keys")
def test_params_dict_argument():
    params = {"dense": (jnp.eye(3), jnp.ones(3)), "norm": [jnp.array(2.0)]}
    check(unpack_pytree, params, X, graphs=1)


def set_of_traced(x):
    return {x.sum(), 1.0}


@covers("Set", "error as eager", "a set holding a traced array (unhashable: TypeError as in eager)")
def test_set_of_array_raises_as_eager():
    check(set_of_traced, X, full_graph=False)


class State(NamedTuple):
    h: jax.Array
    step: int


def advance(x, state):
    new = state._replace(h=jnp.tanh(state.h + x), step=state.step + 1)
    h, step = new
    return new, State(h * 2, step).h


@covers("Tuple", "one graph", "a NamedTuple state argument: `_replace`, unpacking, construction, returned")
def test_namedtuple_state():
    check(advance, X, State(NEG, 1), graphs=1)
