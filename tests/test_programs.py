"""Realistic eager programs (the kinds users decorate), each against the eager
run on several inputs, in one graph unless said otherwise."""

import jax.numpy as jnp
import pytest

from helpers import check

progs = {}


def reg(f):
    progs[f.__name__] = f
    return f



@reg
def cache_none(x):
    cache = None
    for i in range(3):
        y = x * i
        if cache is None:
            cache = y
        else:
            cache = cache + y
    return cache

@reg
def cache_none_rolled(x):
    cache = None
    for i in range(40):
        y = x * i
        cache = y if cache is None else cache + y
    return cache

@reg
def list_append_rolled(x):
    outs = []
    for i in range(40):
        outs.append(x * i)
    return jnp.stack(outs).sum(0)

@reg
def inplace_write(x):
    y = jnp.zeros(4)
    for i in range(4):
        y = y.at[i].set(x[i] * 2)
    return y

@reg
def ternary_chain(x):
    s = x.sum()
    return x * 2 if s > 3 else (x if s > 0 else -x)

@reg
def or_default(x, scale=None):
    scale = scale or 2.0
    return x * scale

@reg
def walrus(x):
    if (n := x.shape[0]) > 2:
        return x[:n - 1]
    return x

@reg
def dict_items(x):
    params = {"a": 1.0, "b": 2.0}
    for k, v in params.items():
        x = x * v
    return x

@reg
def zip_enum(x):
    ws = [jnp.ones((4, 4)), jnp.eye(4)]
    for i, (w, b) in enumerate(zip(ws, [1.0, 2.0])):
        x = jnp.tanh(w @ x + b * i)
    return x

@reg
def while_true_break(x):
    n = 0
    while True:
        x = x * 0.5
        n += 1
        if jnp.abs(x).max() < 0.1:
            break
    return x, n

@reg
def type_change(x):
    acc = 0
    for i in range(30):
        acc += x[i % 4]
    return acc

@reg
def maybe_unbound(x):
    if x.sum() > 0:
        y = x
    else:
        y = -x
    for i in range(3):
        z = y * i
    return z

@reg
def bool_array_cond(x):
    mask = x > 1
    if mask.any():
        x = jnp.where(mask, x, 0.0)
    return x

@reg
def nested_func_loop(x):
    def step(h, t):
        return jnp.tanh(h + t)
    h = jnp.zeros(4)
    for t in range(50):
        h = step(h, x * t)
    return h

@reg
def chained(x):
    s = x.sum()
    if 0 < s < 100:
        return s
    return -s

@reg
def assert_static(x):
    assert x.ndim == 1, "need 1d"
    return x + 1

@reg
def reversed_loop(x):
    out = x
    for i in reversed(range(5)):
        out = out * (i + 1)
    return out

@reg
def neg_step(x, n=30):
    for i in range(n, 0, -3):
        x = x + i
    return x

@reg
def traced_count(x):
    n = (x > 1).sum()
    acc = jnp.zeros(())
    for i in range(n):
        acc = acc + i
    return acc

@reg
def early_return_none(x):
    if x.sum() > 100:
        return None
    return x

@reg
def kmeans_like(x):
    c = x[:2]
    for it in range(100):
        d = jnp.abs(x[:, None] - c[None, :])
        a = d.argmin(1)
        new = jnp.stack([jnp.where(a == k, x, 0).sum() / jnp.maximum((a == k).sum(), 1) for k in range(2)])
        if jnp.abs(new - c).max() < 1e-4:
            break
        c = new
    return c, it

@reg
def sum_gen(x):
    ws = [jnp.eye(4) * k for k in range(3)]
    return sum(w @ x for w in ws)


INPUTS = [jnp.arange(4.0), -jnp.arange(4.0) - 1, jnp.arange(4.0) * 30]
GRAPH = list(progs)   # early_return_none too: None or an array by the path, a run-time kind tag (pathkinds)


@pytest.mark.parametrize("name", GRAPH)
@pytest.mark.parametrize("x", INPUTS, ids=["small", "negative", "large"])
def test_program_one_graph(name, x):
    check(progs[name], x, graphs=1)


