"""Issue 16 part 6: the remaining control-flow gaps (defined-flags, try/finally exits,
match, class in function, traced slice bounds, traced ranges, nonlocal, for/else, vmap)."""

import jax
import jax.numpy as jnp

from .registry import program

XA = jnp.array([0.5, -1.0, 2.0, 0.1])
XB = jnp.array([-0.5, -1.0, -2.0, -0.1])
XZ = jnp.zeros(4)


@program("control", (XA,), (XB,))
def defined_under_same_condition(x):
    s = x.sum()
    if s > 0:
        scale = 1.0 / s
    y = jnp.tanh(x)
    if s > 0:
        y = y * scale
    return y


@program("control", (XA,), (XB,))
def unbound_on_one_path(x):
    if x.sum() > 0:
        result = x * 2
    return result


@program("control", (XA,), (XB,), (XZ,))
def return_in_try_finally(x):
    log = []
    try:
        if x.sum() > 0:
            return x * 2, log
        x = x - 1
    finally:
        log.append("done")
    return x, log


@program("control", (XA,), (XB,))
def break_in_try_finally_loop(x):
    cleanups = 0
    for i in range(6):
        try:
            x = x * 1.5
            if jnp.abs(x).max() > 4:
                break
        finally:
            cleanups += 1
    return x, cleanups


@program("control", (XA, "relu"), (XA, "tanh"), (XA, "gelu"), (XA, "none"))
def match_static_activation(x, act):
    match act:
        case "relu":
            return jnp.maximum(x, 0)
        case "tanh":
            return jnp.tanh(x)
        case "gelu" | "silu":
            return jax.nn.gelu(x) if act == "gelu" else jax.nn.silu(x)
        case _:
            return x


@program("control", (XA, jnp.array(0)), (XA, jnp.array(1)), (XA, jnp.array(2)), (XA, jnp.array(7)))
def match_traced_mode(x, mode):
    match int(mode):
        case 0:
            y = x + 1
        case 1:
            y = x * 2
        case 2:
            y = x ** 2
        case _:
            y = -x
    return y


@program("control", (XA,), (XB,))
def class_defined_in_function(x):
    class Affine:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __call__(self, v):
            return self.a * v + self.b

    f = Affine(2.0, x.mean())
    return f(x)


@program("control", (XA,), (XB,), (XZ + 1,))
def slice_with_traced_length(x):
    n = int((x > 0).sum())
    return x[:n].sum(), n


@program("control", (XA, jnp.array(3)), (XA, jnp.array(0)))
def enumerate_traced_range(x, n):
    total = 0.0
    for k, i in enumerate(range(n)):
        total = total + k * x[i % 4]
    return total


@program("control", (XA, 3), (XA, 0))
def loop_var_bound_before(x, n):
    i = 7
    for i in range(n):
        x = x + i
    return x, i


@program("control", (XA, jnp.array(1)), (XA, jnp.array(2)), (XA, jnp.array(5)))
def range_traced_step(x, step):
    acc = jnp.zeros(())
    for i in range(0, 10, step):
        acc = acc + x[i % 4]
    return acc, len(range(0, 10, step))


@program("control", (XA, jnp.array(2)), (XA, jnp.array(4)), (XA, jnp.array(3)))
def in_tuple_traced(x, c):
    if c in (2, 3):
        return x * c
    return x


@program("control", (XA, True), (XB, True), (XA, False))
def and_python_array_test(x, verbose):
    if verbose and x.sum() > 0:
        x = x * 10
    while x.max() > 1 and verbose:
        x = x / 2
    return x


@program("control", (XA,), (XB,))
def nonlocal_inlined(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    for i in range(x.shape[0]):
        add(x[i] ** 2)
    return total


@program("control", (XA, 1.5), (XA, 5.0))
def for_else_both_assign(x, thr):
    for i in range(x.shape[0]):
        if x[i] > thr:
            found = i
            break
    else:
        found = -1
    return found


@program("control", (XA,), (XB,))
def vmap_local_closure(x):
    w = jnp.outer(x, x) + jnp.eye(x.shape[0])

    def apply(v):
        return jnp.tanh(w @ v + x)

    return jax.vmap(apply)(jnp.stack([x, 2 * x, -x]))


@program("control", (XA,), (XB,))
def builtin_reductions_over_array(x):
    return max(x), min(x), sum(x)


@program("control", (jnp.zeros((3, 5)), jnp.array(2)), (jnp.zeros((3, 5)), jnp.array(4)))
def masked_row_write(buf, n):
    for i in range(buf.shape[0]):
        buf = buf.at[i, :n].set(i + 1.0)
    return buf


@program("control", (jnp.array([0, 2, 2, 1, 3]), 4), (jnp.array([3, 3, 3, 3, 3]), 4))
def scatter_add_traced_index(idx, nbins):
    hist = jnp.zeros(nbins, jnp.int32)
    for i in range(idx.shape[0]):
        hist = hist.at[idx[i]].add(1)
    return hist


@program("control", (XA, 50), (XB, 50))
def loop_counter_after_break(x, max_steps):
    for step in range(max_steps):
        x = 0.9 * x
        if jnp.abs(x).max() < 0.5:
            break
    return x, step


@program("control", (jnp.asarray([4.0, 3.0]),), (jnp.asarray([0.0, 0.0]),))
def constant_shape_arrays(x):
    n = jnp.asarray(x.shape)[0]
    fill = jnp.full([], 3)
    return x * fill + n, int(n)
