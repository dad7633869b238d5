"""Issue 16 part 1: Python numbers computed from arrays (int(), float(), bool(), .item(), round, math.floor)."""

import math

import jax.numpy as jnp
import numpy as np

from .registry import program

XA = jnp.array([0.5, -1.2, 2.0, 0.1])
XB = jnp.array([0.01, -0.02, 0.03, 0.0])
XC = jnp.array([-3.0, -1.0, -2.0, -0.5])


@program("pynum", (XA,), (XB,), (XC,))
def trip_count_from_data(x):
    n = int(jnp.abs(x).max() * 3) + 1
    for _ in range(n):
        x = 0.5 * x + 0.1
    return x, n


@program("pynum", (XA, -2.0, 2.0, 5), (XC * 3, -2.0, 2.0, 5))
def bin_counts_python_list(v, lo, hi, nb):
    width = (hi - lo) / nb
    counts = [0] * nb
    for i in range(v.shape[0]):
        b = int((v[i] - lo) / width)
        b = min(max(b, 0), nb - 1)
        counts[b] += 1
    return counts


@program("pynum", (XA, XB), (XA, XA), (XC, -XC))
def float_loss_threshold(pred, target):
    loss = float(jnp.mean((pred - target) ** 2))
    if loss > 1.0:
        scale = 1.0 / loss
    else:
        scale = 1.0
    return pred * scale, loss


@program("pynum", (jnp.array([2, 0, 1, 3]),), (jnp.array([0, 0, 0, 0]),))
def item_as_range_bound(counts):
    total = jnp.float32(0.0)
    for i in range(counts.max().item()):
        total = total + i * 0.5
    return total


@program("pynum", (XA,), (XB,), (XC,))
def rounded_mean(x):
    m = round(float(x.mean()), 2)
    return m, x - m


@program("pynum", (XA + 2,), (XB + 1,), (jnp.array([0.9, 0.8, 0.7, 0.6]),))
def floor_index(x):
    k = math.floor(x.sum()) % x.shape[0]
    return x[k], k


@program("pynum", (XA,), (XB,), (XC,))
def bool_any_branch(x):
    has_neg = bool((x < -1).any())
    if has_neg:
        x = jnp.abs(x)
    return x, has_neg


@program("pynum", (XA,), (XC,), (XB,))
def clamped_argmax(x):
    k = min(int(x.argmax()), 2)
    return x[k] * 2, k


@program("pynum", (XA,), (XB,))
def python_mean_of_floats(x):
    vals = [float(v) for v in x]
    mean = sum(vals) / len(vals)
    var = sum((v - mean) ** 2 for v in vals) / len(vals)
    return mean, var


@program("pynum", (jnp.array([1.0, 1.0, 0.0]),), (jnp.array([2.0, 1.0, 0.0]),))
def shape_from_data(x):
    n = int(x.sum())
    return jnp.zeros(n) + x[0]


@program("pynum", (XA,), (XC,))
def formatted_metric(x):
    loss = jnp.mean(x ** 2)
    acc = (x > 0).mean()
    print(f"loss={float(loss):.3f} acc={acc.item():.2f}")
    return loss


@program("pynum", (XA,), (XC,), (XB,))
def return_python_int(x):
    return int(x.argmax()), float(x.max()), bool(x.max() > 1)


@program("pynum", (XA,), (XC,), (jnp.zeros(4),))
def positive_fraction(x):
    count = int((x > 0).sum())
    ratio = count / x.shape[0]
    if ratio > 0.5:
        return x * ratio, count
    return -x, count


@program("pynum", (XA, 3), (XC, 3), (XB, 1))
def abs_min_step(x, n):
    step = abs(float(x.min()))
    for _ in range(n):
        x = x - step * jnp.sign(x)
        step = step / 2
    return x, step


@program("pynum", (np.array([0.2, 1.7, 3.4]),), (np.array([-0.5, 0.5, 9.0]),))
def numpy_item_int(a):
    total = 0
    for i in range(a.shape[0]):
        total += int(a[i])
    return total, a.max().item()


@program("pynum", (XA,), (XC,))
def traced_number_into_array_math(x):
    mx = float(x.max())
    mn = float(x.min())
    span = mx - mn if mx > mn else 1.0
    return (x - mn) / span
