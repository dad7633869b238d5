"""Issue 16 part 3: lists and dicts built in the function and changed under traced
branches and rolled loops."""

import jax.numpy as jnp

from .registry import program

XA = jnp.array([0.5, -1.0, 2.0, -0.1])
XB = jnp.array([-0.5, 1.0, -2.0, 0.1])
XP = jnp.array([1.0, 2.0, 3.0, 4.0])


@program("containers", (XA,), (XB,), (XP,))
def flags_cleared_in_nested_loops(x):
    n = x.shape[0]
    flags = [True] * n
    for j in range(n):
        for k in range(n):
            if x[j] < x[k] - 1.5:
                flags[j] = False
    return flags


@program("containers", (XA,), (XB,))
def dict_key_under_traced_if(x):
    out = {}
    if x.sum() > 0:
        out["signal"] = x
        out["sign"] = 1.0
    else:
        out["signal"] = -x
        out["sign"] = -1.0
    return out


@program("containers", (XA,), (XB,), (XP,))
def append_on_either_branch_rolled(x):
    outs = []
    for i in range(40):
        if x[i % 4] > 0:
            outs.append(x * i)
        else:
            outs.append(-x)
    return jnp.stack(outs).sum(0)


@program("containers", (XA,), (XB,))
def python_numbers_become_traced(x):
    stats = [0.0, 0.0, 0]
    s = x.sum()
    if s > 0:
        stats[0] = s
        stats[2] = 1
    else:
        stats[1] = -s
    return stats


@program("containers", (XA, 1.0), (XP, 0.1), (XB, 100.0))
def metrics_dict_in_while(x, tol):
    metrics = {"loss": 0.0, "steps": 0}
    while jnp.abs(x).max() > tol and metrics["steps"] < 50:
        x = x * 0.8
        metrics["loss"] += jnp.sum(x ** 2)
        metrics["steps"] += 1
    return x, metrics


@program("containers", (XA,), (XB,))
def extend_under_traced_if(x):
    parts = [x[:1]]
    if x[0] > 0:
        parts.extend([x[1:2], x[2:3]])
    else:
        parts.extend([x[2:3], x[1:2]])
    return jnp.concatenate(parts)


@program("containers", (XA, 60), (XB, 60))
def loss_history_rolled(x, steps):
    history = []
    w = jnp.ones_like(x)
    for _ in range(steps):
        loss = jnp.sum((w - x) ** 2)
        history.append(loss)
        w = w - 0.05 * 2 * (w - x)
    return w, jnp.stack(history)


@program("containers", (XA,), (XB,), (XP,))
def swap_in_list_under_traced_if(x):
    items = [x[0], x[1], x[2], x[3]]
    for i in range(3):
        if items[i] > items[i + 1]:
            items[i], items[i + 1] = items[i + 1], items[i]
    return items


@program("containers", ({"a": XA, "b": XB},), ({"a": XP, "b": -XP},))
def dict_of_arrays_clipped(params):
    clipped = {}
    for name, p in params.items():
        norm = jnp.linalg.norm(p)
        if norm > 2.0:
            clipped[name] = p * (2.0 / norm)
        else:
            clipped[name] = p
    return clipped


@program("containers", (XA,), (XB,))
def pop_under_traced_if(x):
    stack = [x, x * 2, x * 3]
    if x.sum() > 0:
        stack.pop()
    return len(stack), sum(stack)


@program("containers", (XA, 30), (XP, 30))
def best_k_tracker(x, steps):
    best = [jnp.inf, jnp.inf]
    for t in range(steps):
        loss = jnp.sum((x - t * 0.1) ** 2)
        if loss < best[0]:
            best = [loss, best[0]]
        elif loss < best[1]:
            best[1] = loss
    return best


@program("containers", (XA,), (XB,))
def tuple_state_in_loop(x):
    state = (x, jnp.zeros_like(x), 0)
    for i in range(10):
        pos, vel, n = state
        if pos.sum() > 0:
            vel = vel - 0.1 * pos
        state = (pos + vel, vel, n + 1)
    return state
