"""Issue 16 part 4: generator functions, generator expressions and itertools, consumed in the function."""

import itertools

import jax.numpy as jnp

from .registry import program

XA = jnp.array([0.5, -1.0, 2.0, -0.1, 0.3, 0.7])
XB = jnp.array([-0.5, -1.0, -2.0, -0.1, -0.3, -0.7])


def windows(x, size):
    for i in range(0, x.shape[0] - size + 1):
        yield x[i:i + size]


@program("generators", (XA, 2), (XB, 3))
def batches_nested_generator(x, size):
    def batches(x, size):
        for i in range(0, x.shape[0], size):
            yield x[i:i + size]

    total = 0.0
    for b in batches(x, size):
        total = total + b.sum() ** 2
    return total


@program("generators", (XA, 3), (XB, 2))
def helper_generator_max_window(x, size):
    return max(float(w.sum()) for w in windows(x, size))


@program("generators", (XA,), (XB,))
def sum_of_genexp(x):
    return sum(x[i] * x[i + 1] for i in range(x.shape[0] - 1))


@program("generators", (XA,), (XB,), (jnp.zeros(6),))
def any_all_traced(x):
    has_pos = any(v > 0 for v in x)
    all_small = all(jnp.abs(v) < 3 for v in x)
    if has_pos and all_small:
        return x * 2
    return x


@program("generators", (XA, XB), (XB, XA))
def chain_and_zip(a, b):
    out = []
    for u, v in zip(itertools.chain(a[:3], b[:3]), itertools.chain(b[3:], a[3:])):
        out.append(u * v)
    return jnp.stack(out)


@program("generators", (XA,), (XB,))
def grid_search_product(x):
    best, best_cfg = jnp.inf, None
    for lr, mom in itertools.product([0.1, 0.01], [0.0, 0.9]):
        w, v = jnp.zeros_like(x), jnp.zeros_like(x)
        for _ in range(5):
            g = 2 * (w - x)
            v = mom * v + g
            w = w - lr * v
        loss = float(jnp.sum((w - x) ** 2))
        if loss < best:
            best, best_cfg = loss, (lr, mom)
    return best, best_cfg


@program("generators", (XA,), (XB,))
def accumulate_partial_sums(x):
    parts = list(itertools.accumulate(x[i] for i in range(x.shape[0])))
    return jnp.stack(parts)


@program("generators", (XA, 4), (XB, 0))
def islice_infinite_generator(x, n):
    def geometric(x):
        while True:
            yield x
            x = x * 0.5

    return [v.sum() for v in itertools.islice(geometric(x), n)]


@program("generators", (XA,), (XB,))
def enumerate_generator(x):
    def squares(x):
        for v in x:
            yield v * v

    acc = jnp.float32(0.0)
    for i, s in enumerate(squares(x)):
        acc = acc + i * s
    return acc


@program("generators", (XA,), (XB,))
def tuple_and_min_of_genexp(x):
    t = tuple(jnp.tanh(x[i]) for i in range(3))
    m = min(x[i] for i in range(x.shape[0]))
    return t, m


@program("generators", (XA, 1.0), (XB, 0.1))
def generator_pipeline(x, thr):
    def scaled(xs, k):
        for v in xs:
            yield v * k

    def clipped(xs, t):
        for v in xs:
            yield jnp.clip(v, -t, t)

    return jnp.stack(list(clipped(scaled(x, 3.0), thr)))


@program("generators", (XA,), (XB,))
def dict_from_genexp(x):
    stats = dict((name, fn(x)) for name, fn in [("mean", jnp.mean), ("max", jnp.max), ("min", jnp.min)])
    return stats
