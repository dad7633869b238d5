"""NumPy-style algorithms: histograms, bisection, Newton, sorting, union-find, prefix sums."""

import jax.numpy as jnp
import numpy as np

from .registry import program

_rng = np.random.default_rng(11)
DATA = _rng.normal(size=20)
DATA_J = jnp.asarray(DATA, jnp.float32)


@program("numpy", (DATA, -2.0, 2.0, 8), (DATA * 5, -2.0, 2.0, 8), (np.zeros(20), -1.0, 1.0, 4))
def histogram_loop(data, lo, hi, nb):
    counts = np.zeros(nb, dtype=np.int64)
    width = (hi - lo) / nb
    for v in data:
        b = int((v - lo) / width)
        b = min(max(b, 0), nb - 1)
        counts[b] += 1
    return counts


@program("numpy", (DATA_J, -2.0, 2.0, 8), (DATA_J * 5, -2.0, 2.0, 8))
def histogram_jnp_python_bins(data, lo, hi, nb):
    counts = [0] * nb
    width = (hi - lo) / nb
    for v in data:
        b = int((v - lo) / width)
        b = min(max(b, 0), nb - 1)
        counts[b] += 1
    return counts


@program("numpy", (jnp.array([1.0, 0.0, -2.0]), 0.0, 3.0), (jnp.array([1.0, 0.0, -9.0]), 0.0, 4.0),
         (jnp.array([1.0, 0.0, 1.0]), 0.0, 3.0))
def bisection(coeffs, lo, hi):
    def f(x):
        return jnp.polyval(coeffs, x)

    if f(lo) * f(hi) > 0:
        raise ValueError("root not bracketed")
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(lo) * f(mid) <= 0:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-6:
            break
    return 0.5 * (lo + hi)


@program("numpy", (2.0, 1.0), (10.0, 3.0), (0.0, 1.0))
def newton_cuberoot(a, x0):
    x = jnp.float32(x0)
    for i in range(50):
        fx = x ** 3 - a
        if abs(fx) < 1e-5:
            break
        x = x - fx / (3 * x ** 2)
    return x, i


@program("numpy", (np.array([3.0, 1.0, 2.0, 5.0, 4.0]),), (np.arange(5.0),), (np.arange(5.0)[::-1].copy(),))
def bubble_sort(a):
    a = a.copy()
    n = len(a)
    swaps = 0
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
                swaps += 1
    return a, swaps


@program("numpy", (jnp.array([3.0, 1.0, 2.0, 5.0, 4.0]),), (jnp.arange(5.0),), (jnp.arange(5.0)[::-1],))
def insertion_sort_jnp(x):
    for i in range(1, x.shape[0]):
        key = x[i]
        j = i - 1
        while j >= 0 and x[j] > key:
            x = x.at[j + 1].set(x[j])
            j -= 1
        x = x.at[j + 1].set(key)
    return x


@program("numpy", (np.array([[0, 1], [2, 3], [1, 2]]), 5), (np.array([[0, 4], [4, 3]]), 5),
         (np.zeros((0, 2), dtype=np.int64), 3))
def union_find_components(edges, n):
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return len({find(i) for i in range(n)})


@program("numpy", (DATA,), (np.ones(5),), (np.zeros(0),))
def prefix_sum_loop(x):
    out = np.empty_like(x)
    s = 0.0
    for i in range(len(x)):
        s += x[i]
        out[i] = s
    return out


@program("numpy", (jnp.arange(0.0, 20.0, 2.0), 7.0), (jnp.arange(0.0, 20.0, 2.0), -1.0),
         (jnp.arange(0.0, 20.0, 2.0), 100.0))
def binary_search(a, v):
    lo, hi = 0, a.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


@program("numpy", (jnp.array(48), jnp.array(18)), (jnp.array(7), jnp.array(0)), (jnp.array(17), jnp.array(5)))
def gcd_euclid(a, b):
    while b != 0:
        a, b = b, a % b
    return a


A_SYM = jnp.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]])


@program("numpy", (A_SYM, 1e-6), (jnp.eye(3) * jnp.array([1.0, 1.0, 0.5]), 1e-6), (A_SYM, 1.0))
def power_iteration(a, tol):
    v = jnp.ones(a.shape[0]) / jnp.sqrt(a.shape[0])
    lam = 0.0
    for it in range(200):
        w = a @ v
        w = w / jnp.linalg.norm(w)
        if jnp.linalg.norm(w - v) < tol:
            v = w
            break
        v = w
    lam = v @ a @ v
    return lam, it


@program("numpy", (DATA_J,), (-jnp.abs(DATA_J),), (jnp.zeros(20),))
def manual_argmax(x):
    best = -float("inf")
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > best:
            best = x[i]
            idx = i
    return best, idx


@program("numpy", (np.array([[2.0, 1.0, -1.0], [-3.0, -1.0, 2.0], [-2.0, 1.0, 2.0]]), np.array([8.0, -11.0, -3.0])),
         (np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([2.0, 3.0])))
def gauss_partial_pivot(a, b):
    a = a.astype(float).copy()
    b = b.astype(float).copy()
    n = len(b)
    for k in range(n):
        p = int(np.argmax(np.abs(a[k:, k]))) + k
        if p != k:
            a[[k, p]] = a[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            f = a[i, k] / a[k, k]
            a[i, k:] -= f * a[k, k:]
            b[i] -= f * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - a[i, i + 1:] @ x[i + 1:]) / a[i, i]
    return x


@program("numpy", (jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1.0, 2.0]), 1e-5),
         (jnp.array([[10.0, 1.0, 0.0], [1.0, 10.0, 1.0], [0.0, 1.0, 10.0]]), jnp.ones(3), 1e-5))
def jacobi_solve(a, b, tol):
    x = jnp.zeros_like(b)
    d = jnp.diag(a)
    r = a - jnp.diag(d)
    for k in range(500):
        x_new = (b - r @ x) / d
        if jnp.max(jnp.abs(x_new - x)) < tol:
            return x_new, k
        x = x_new
    return x, k


@program("numpy", (0.0, 1.0, 1e-6), (0.0, 3.0, 1e-3))
def adaptive_simpson(a, b, eps):
    def f(x):
        return jnp.sin(x) ** 2 * jnp.exp(-x)

    def simpson(lo, hi):
        mid = 0.5 * (lo + hi)
        return (hi - lo) / 6 * (f(lo) + 4 * f(mid) + f(hi))

    def rec(lo, hi, whole, eps, depth):
        mid = 0.5 * (lo + hi)
        left, right = simpson(lo, mid), simpson(mid, hi)
        if depth <= 0 or abs(left + right - whole) <= 15 * eps:
            return left + right + (left + right - whole) / 15
        return rec(lo, mid, left, eps / 2, depth - 1) + rec(mid, hi, right, eps / 2, depth - 1)

    return rec(a, b, simpson(a, b), eps, 6)


@program("numpy", (DATA,), (np.array([1.0, 1.0, 1.0]),))
def moving_average_window(x, k=3):
    out = []
    window = []
    for v in x:
        window.append(v)
        if len(window) > k:
            window.pop(0)
        out.append(sum(window) / len(window))
    return np.array(out)
