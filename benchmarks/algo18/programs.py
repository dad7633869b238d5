"""h-algo18's corpus: real-world control-flow programs as found in tutorials, textbooks and projects.

Written the way people write them (NumPy and jnp, in-place writes, early
returns, tolerance loops, prints), each with input sets that take every path;
a program that falls back stays as it is, and one that differs from eager is a
compiler bug (``registry.XFAIL``).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

rng = np.random.default_rng(0)

# 1 Viterbi (numpy, log-space)
PI = np.log(np.array([0.6, 0.4]))
A = np.log(np.array([[0.7, 0.3], [0.4, 0.6]]))
B = np.log(np.array([[0.5, 0.4, 0.1], [0.1, 0.3, 0.6]]))


@program("dp_graphs", (PI, A, B, np.array([0, 1, 2, 2, 1])), (PI, A, B, np.array([2, 2, 2])))
def viterbi(pi, a, b, obs):
    n_states = a.shape[0]
    T = len(obs)
    delta = np.zeros((T, n_states))
    psi = np.zeros((T, n_states), dtype=int)
    delta[0] = pi + b[:, obs[0]]
    for t in range(1, T):
        for j in range(n_states):
            scores = delta[t - 1] + a[:, j]
            psi[t, j] = np.argmax(scores)
            delta[t, j] = np.max(scores) + b[j, obs[t]]
    path = [0] * T
    path[T - 1] = int(np.argmax(delta[T - 1]))
    for t in range(T - 2, -1, -1):
        path[t] = int(psi[t + 1, path[t + 1]])
    return path, float(np.max(delta[T - 1]))


# 2 edit distance numpy
@program("dp_graphs", ("kitten", "sitting"), ("", "abc"), ("flaw", "lawn"))
def edit_distance(s, t):
    m, n = len(s), len(t)
    dp = np.zeros((m + 1, n + 1), dtype=int)
    for i in range(m + 1):
        dp[i, 0] = i
    for j in range(n + 1):
        dp[0, j] = j
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = 0 if s[i - 1] == t[j - 1] else 1
            dp[i, j] = min(dp[i - 1, j] + 1, dp[i, j - 1] + 1, dp[i - 1, j - 1] + cost)
    return dp[m, n]


# 3 LCS on int arrays with jnp
@program("dp_graphs", (jnp.array([1, 3, 4, 1, 2, 3]), jnp.array([3, 4, 1, 2, 1, 3])), (jnp.array([1, 2, 3]), jnp.array([4, 5, 6])))
def lcs_length(x, y):
    m, n = x.shape[0], y.shape[0]
    L = jnp.zeros((m + 1, n + 1), dtype=jnp.int32)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            if x[i - 1] == y[j - 1]:
                L = L.at[i, j].set(L[i - 1, j - 1] + 1)
            else:
                L = L.at[i, j].set(jnp.maximum(L[i - 1, j], L[i, j - 1]))
    return L[m, n]


# 4 Needleman-Wunsch
@program("dp_graphs", (np.array([0, 1, 2, 3, 0]), np.array([0, 2, 3, 3]), 1, -1, -2), (np.array([1, 1]), np.array([1, 1, 1]), 2, -1, -1))
def needleman_wunsch(a, b, match, mismatch, gap):
    n, m = len(a), len(b)
    F = np.zeros((n + 1, m + 1))
    for i in range(n + 1):
        F[i][0] = gap * i
    for j in range(m + 1):
        F[0][j] = gap * j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s = match if a[i - 1] == b[j - 1] else mismatch
            F[i][j] = max(F[i - 1][j - 1] + s, F[i - 1][j] + gap, F[i][j - 1] + gap)
    # traceback
    i, j = n, m
    score = F[n][m]
    steps = 0
    while i > 0 and j > 0:
        s = match if a[i - 1] == b[j - 1] else mismatch
        if F[i][j] == F[i - 1][j - 1] + s:
            i -= 1
            j -= 1
        elif F[i][j] == F[i - 1][j] + gap:
            i -= 1
        else:
            j -= 1
        steps += 1
    return score, steps + i + j


# 5 Gaussian elimination w/ partial pivoting row swaps
M1 = np.array([[0.0, 2.0, 1.0], [1.0, -2.0, -3.0], [-1.0, 1.0, 2.0]])
M2 = np.array([[1.0, 2.0], [2.0, 4.0]])


@program("linalg", (M1, np.array([-8.0, 0.0, 3.0])), (M2, np.array([1.0, 2.0])), (np.eye(3) * 2, np.ones(3)))
def gauss_solve(A, b):
    A = A.astype(float).copy()
    b = b.astype(float).copy()
    n = len(b)
    for k in range(n - 1):
        p = np.argmax(np.abs(A[k:, k])) + k
        if abs(A[p, k]) < 1e-12:
            raise ValueError("Matrix is singular.")
        if p != k:
            A[[k, p]] = A[[p, k]]
            b[[k, p]] = b[[p, k]]
        for i in range(k + 1, n):
            factor = A[i, k] / A[k, k]
            A[i, k:] -= factor * A[k, k:]
            b[i] -= factor * b[k]
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        x[i] = (b[i] - np.dot(A[i, i + 1:], x[i + 1:])) / A[i, i]
    return x


# 6 LU Doolittle
@program("linalg", (np.array([[4.0, 3.0, 2.0], [6.0, 3.0, 1.0], [2.0, 5.0, 7.0]]),), (np.array([[1.0, 2.0], [3.0, 4.0]]),))
def lu_doolittle(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    U = np.zeros((n, n))
    for i in range(n):
        for k in range(i, n):
            s = 0.0
            for j in range(i):
                s += L[i][j] * U[j][k]
            U[i][k] = A[i][k] - s
        for k in range(i, n):
            if i == k:
                L[i][i] = 1
            else:
                s = 0.0
                for j in range(i):
                    s += L[k][j] * U[j][i]
                L[k][i] = (A[k][i] - s) / U[i][i]
    return L, U


# 7 Cholesky jnp
SPD = jnp.array([[4.0, 12.0, -16.0], [12.0, 37.0, -43.0], [-16.0, -43.0, 98.0]])


@program("linalg", (SPD,), (jnp.array([[1.0, 2.0], [2.0, 1.0]]),))
def cholesky_loops(A):
    n = A.shape[0]
    L = jnp.zeros_like(A)
    for i in range(n):
        for j in range(i + 1):
            s = jnp.sum(L[i, :j] * L[j, :j])
            if i == j:
                val = A[i, i] - s
                if val <= 0:
                    raise ValueError("matrix is not positive definite")
                L = L.at[i, j].set(jnp.sqrt(val))
            else:
                L = L.at[i, j].set((A[i, j] - s) / L[j, j])
    return L


# 8 Jacobi until tolerance with print every k
DD = np.array([[10.0, -1.0, 2.0], [-1.0, 11.0, -1.0], [2.0, -1.0, 10.0]])


@program("linalg", (DD, np.array([6.0, 25.0, -11.0]), 1e-8, 100), (DD, np.array([6.0, 25.0, -11.0]), 1e-8, 3))
def jacobi(A, b, tol, max_iter):
    x = np.zeros_like(b)
    D = np.diag(A)
    R = A - np.diagflat(D)
    for it in range(max_iter):
        x_new = (b - R @ x) / D
        if it % 5 == 0:
            print(f"iter {it}: residual {np.linalg.norm(A @ x_new - b):.3e}")
        if np.linalg.norm(x_new - x, ord=np.inf) < tol:
            return x_new, it + 1
        x = x_new
    print("Jacobi did not converge")
    return x, max_iter


# 9 Gauss-Seidel jnp while loop
@program("linalg", (jnp.asarray(DD, jnp.float32), jnp.array([6.0, 25.0, -11.0]), 1e-5), (jnp.asarray(DD, jnp.float32), jnp.array([1.0, 1.0, 1.0]), 1e-3))
def gauss_seidel(A, b, tol):
    n = b.shape[0]
    x = jnp.zeros_like(b)
    err = jnp.inf
    k = 0
    while err > tol and k < 200:
        x_old = x
        for i in range(n):
            s1 = jnp.dot(A[i, :i], x[:i])
            s2 = jnp.dot(A[i, i + 1:], x_old[i + 1:])
            x = x.at[i].set((b[i] - s1 - s2) / A[i, i])
        err = jnp.max(jnp.abs(x - x_old))
        k += 1
    return x, k


# 10 Conjugate gradient early exit
SPD2 = np.array([[4.0, 1.0], [1.0, 3.0]])


@program("linalg", (SPD2, np.array([1.0, 2.0]), np.zeros(2)), (np.eye(3), np.array([1.0, 2.0, 3.0]), np.zeros(3)), (SPD2, np.zeros(2), np.zeros(2)))
def conjugate_gradient(A, b, x0, tol=1e-10):
    x = x0.copy()
    r = b - A @ x
    p = r.copy()
    rsold = r @ r
    if np.sqrt(rsold) < tol:
        return x, 0
    for i in range(len(b)):
        Ap = A @ p
        alpha = rsold / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rsnew = r @ r
        if np.sqrt(rsnew) < tol:
            return x, i + 1
        p = r + (rsnew / rsold) * p
        rsold = rsnew
    return x, len(b)


# 11 power iteration jnp
@program("linalg", (jnp.array([[2.0, 1.0], [1.0, 3.0]]), 100), (jnp.array([[1.0, 0.0], [0.0, 1.0]]), 10))
def power_iter(A, num_iters):
    b = jnp.ones(A.shape[0]) / jnp.sqrt(A.shape[0])
    lam = 0.0
    for i in range(num_iters):
        bk = A @ b
        norm = jnp.linalg.norm(bk)
        b_new = bk / norm
        lam_new = b_new @ A @ b_new
        if abs(lam_new - lam) < 1e-6:
            break
        b, lam = b_new, lam_new
    return lam_new, b_new, i


# 12 golden section search
def _quad(x):
    return (x - 2.0) ** 2 + 1.0


@program("solvers", (0.0, 5.0, 1e-5), (-3.0, 1.0, 1e-3))
def golden_section(a, b, tol):
    gr = (math.sqrt(5) + 1) / 2
    c = b - (b - a) / gr
    d = a + (b - a) / gr
    n = 0
    while abs(b - a) > tol:
        if _quad(c) < _quad(d):
            b = d
        else:
            a = c
        c = b - (b - a) / gr
        d = a + (b - a) / gr
        n += 1
    return (b + a) / 2, n


# 13 secant method raising
@program("solvers", (jnp.float32(1.0), jnp.float32(2.0), 50), (jnp.float32(1.0), jnp.float32(2.0), 2), (jnp.float32(3.0), jnp.float32(3.0), 5))
def secant(x0, x1, max_iter):
    f = lambda x: x ** 3 - 2 * x - 5
    for i in range(max_iter):
        f0, f1 = f(x0), f(x1)
        if f1 == f0:
            raise ZeroDivisionError("flat secant")
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        if abs(x2 - x1) < 1e-6:
            return x2
        x0, x1 = x1, x2
    raise RuntimeError("did not converge")


# 14 Newton numpy float
@program("solvers", (2.0,), (1e-3,), (-1.0,))
def newton_sqrt(a):
    if a < 0:
        raise ValueError(f"negative input {a}")
    x = np.float64(a if a > 1 else 1.0)
    for it in range(100):
        x_new = 0.5 * (x + a / x)
        if abs(x_new - x) < 1e-12 * x:
            return x_new, it
        x = x_new
    raise RuntimeError("did not converge")


# 15 RK4 fixed step
@program("solvers", (jnp.array([1.0, 0.0]), 0.0, 1.0, 20), (jnp.array([0.0, 1.0]), 0.0, 2.0, 5))
def rk4(y0, t0, t1, n):
    def f(t, y):
        return jnp.array([y[1], -y[0]])
    h = (t1 - t0) / n
    y = y0
    t = t0
    ys = [y0]
    for _ in range(n):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
        ys.append(y)
    return jnp.stack(ys), t


# 16 adaptive RK45 (Fehlberg-ish via RK4 step doubling) with rejection
@program("solvers", (1.0, 0.0, 2.0, 1e-6), (1.0, 0.0, 0.5, 1e-3))
def adaptive_rk(y0, t0, t_end, tol):
    def f(t, y):
        return -2.0 * t * y
    def step(t, y, h):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    t, y, h = t0, np.float64(y0), 0.1
    accepted = rejected = 0
    while t < t_end:
        if t + h > t_end:
            h = t_end - t
        y1 = step(t, y, h)
        y2 = step(t + h / 2, step(t, y, h / 2), h / 2)
        err = abs(y2 - y1)
        if err <= tol:
            t += h
            y = y2
            accepted += 1
        else:
            rejected += 1
        h = 0.9 * h * min(max((tol / (err + 1e-16)) ** 0.2, 0.2), 5.0)
    return y, accepted, rejected


# 17 Simpson
@program("solvers", (0.0, math.pi, 10), (0.0, 1.0, 3))
def simpson(a, b, n):
    if n % 2 == 1:
        n += 1
    h = (b - a) / n
    x = np.linspace(a, b, n + 1)
    y = np.sin(x)
    s = y[0] + y[-1]
    for i in range(1, n):
        if i % 2 == 0:
            s += 2 * y[i]
        else:
            s += 4 * y[i]
    return s * h / 3


# 18 Romberg
@program("solvers", (0.0, 1.0, 6), (0.0, 2.0, 3))
def romberg(a, b, max_steps):
    f = lambda x: jnp.exp(-x * x)
    R = jnp.zeros((max_steps, max_steps))
    h = b - a
    R = R.at[0, 0].set(0.5 * h * (f(a) + f(b)))
    for i in range(1, max_steps):
        h /= 2.0
        s = 0.0
        for k in range(1, 2 ** i, 2):
            s += f(a + k * h)
        R = R.at[i, 0].set(0.5 * R[i - 1, 0] + h * s)
        for j in range(1, i + 1):
            R = R.at[i, j].set(R[i, j - 1] + (R[i, j - 1] - R[i - 1, j - 1]) / (4 ** j - 1))
        if abs(R[i, i] - R[i - 1, i - 1]) < 1e-7:
            return R[i, i], i
    return R[max_steps - 1, max_steps - 1], max_steps - 1


# 19 particles with wall bounces
P0 = rng.uniform(0, 1, (6, 2))
V0 = rng.normal(0, 1, (6, 2))


@program("simulation", (P0, V0, 30, 0.05), (P0, V0 * 3, 10, 0.1))
def bounce(pos, vel, steps, dt):
    pos = pos.copy()
    vel = vel.copy()
    bounces = 0
    for step in range(steps):
        pos += vel * dt
        mask = (pos < 0) | (pos > 1)
        vel[mask] *= -1
        bounces += int(mask.sum())
        pos = np.clip(pos, 0, 1)
    return pos, vel, bounces


# 20 game of life numpy
GL = np.zeros((6, 6), dtype=int)
GL[1, 2] = GL[2, 3] = GL[3, 1] = GL[3, 2] = GL[3, 3] = 1


@program("simulation", (GL, 4), (np.zeros((5, 5), dtype=int), 2))
def life(grid, gens):
    g = grid.copy()
    for _ in range(gens):
        n = np.zeros_like(g)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                if dy == 0 and dx == 0:
                    continue
                n += np.roll(np.roll(g, dy, 0), dx, 1)
        g = ((n == 3) | ((g == 1) & (n == 2))).astype(int)
        if g.sum() == 0:
            print("extinct")
            break
    return g


# 21 k-means numpy
KX = np.concatenate([rng.normal(0, 0.5, (10, 2)), rng.normal(3, 0.5, (10, 2))])


@program("simulation", (KX, 2, 20), (KX, 3, 2))
def kmeans(X, k, iters):
    centers = X[:k].copy()
    for it in range(iters):
        d = ((X[:, None, :] - centers[None, :, :]) ** 2).sum(-1)
        labels = d.argmin(1)
        new = np.zeros_like(centers)
        for c in range(k):
            pts = X[labels == c]
            if len(pts) > 0:
                new[c] = pts.mean(0)
            else:
                new[c] = centers[c]
        if np.allclose(new, centers):
            break
        centers = new
    return centers, labels, it


# 22 Kalman filter 1-D
ZS = np.array([1.1, 0.9, 1.3, 1.0, 0.95, 1.2])


@program("simulation", (ZS, 1e-5, 0.1), (ZS[:2], 1e-3, 1.0))
def kalman1d(zs, q, r):
    x, p = 0.0, 1.0
    out = []
    for z in zs:
        p = p + q
        k = p / (p + r)
        x = x + k * (z - x)
        p = (1 - k) * p
        out.append(x)
    return np.array(out), p


# 23 beam search sorting
LOGP = jnp.log(jax.nn.softmax(jnp.asarray(rng.normal(size=(4, 5)), jnp.float32), -1))


@program("dp_graphs", (LOGP, 2), (LOGP, 3))
def beam_search(logp, beam):
    beams = [([], 0.0)]
    for t in range(logp.shape[0]):
        cands = []
        for seq, score in beams:
            for tok in range(logp.shape[1]):
                cands.append((seq + [tok], score + float(logp[t, tok])))
        cands = sorted(cands, key=lambda c: c[1], reverse=True)
        beams = cands[:beam]
    return beams


# 24 top-k / nucleus sampling with PRNG key
LOGITS = jnp.asarray(rng.normal(size=10), jnp.float32)


@program("ml", (LOGITS, jax.random.PRNGKey(0), 5, 0.9, 1.0), (LOGITS, jax.random.PRNGKey(1), 0, 0.5, 0.7), (LOGITS, jax.random.PRNGKey(1), 3, 1.0, 0.0))
def sample_token(logits, key, top_k, top_p, temperature):
    if temperature == 0.0:
        return jnp.argmax(logits)
    logits = logits / temperature
    if top_k > 0:
        kth = jnp.sort(logits)[-top_k]
        logits = jnp.where(logits < kth, -jnp.inf, logits)
    if top_p < 1.0:
        sorted_logits = jnp.sort(logits)[::-1]
        probs = jax.nn.softmax(sorted_logits)
        cum = jnp.cumsum(probs)
        cutoff = sorted_logits[jnp.argmax(cum > top_p)]
        logits = jnp.where(logits < cutoff, -jnp.inf, logits)
    return jax.random.categorical(key, logits)


# 25 insertion sort numpy
@program("arrays", (np.array([5, 2, 9, 1, 5, 6]),), (np.array([1.0, 2.0]),))
def insertion_sort(arr):
    a = arr.copy()
    for i in range(1, len(a)):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
    return a


# 26 bubble sort jnp with swapped flag
@program("arrays", (jnp.array([3.0, 1.0, 2.0, 5.0, 4.0]),), (jnp.array([1.0, 2.0, 3.0]),))
def bubble_sort_flag(x):
    n = x.shape[0]
    passes = 0
    for i in range(n):
        swapped = False
        for j in range(n - i - 1):
            if x[j] > x[j + 1]:
                x = x.at[j].set(x[j + 1]).at[j + 1].set(x[j])
                swapped = True
        passes += 1
        if not swapped:
            break
    return x, passes


# 27 binary search returning -1
@program("arrays", (np.array([1, 3, 5, 7, 9, 11]), 7), (np.array([1, 3, 5, 7, 9, 11]), 4), (np.array([2]), 2))
def bsearch(arr, target):
    lo, hi = 0, len(arr) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if arr[mid] == target:
            return mid
        elif arr[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


# 28 cumsum by hand jnp
@program("arrays", (jnp.arange(6.0),), (jnp.ones(3, jnp.int32),))
def prefix_sum(x):
    out = jnp.zeros_like(x)
    total = 0
    for i in range(x.shape[0]):
        total = total + x[i]
        out = out.at[i].set(total)
    return out


# 29 Welford
@program("arrays", (np.array([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]),), (np.array([1.0]),), (np.array([]),))
def welford(data):
    n = 0
    mean = 0.0
    M2 = 0.0
    for x in data:
        n += 1
        delta = x - mean
        mean += delta / n
        M2 += delta * (x - mean)
    if n < 2:
        return mean, float("nan")
    return mean, M2 / (n - 1)


# 30 EMA with bias correction
@program("ml", (jnp.array([1.0, 2.0, 3.0, 2.0, 1.0]), 0.9), (jnp.array([5.0]), 0.5))
def ema_bias(xs, beta):
    v = 0.0
    out = []
    for t, x in enumerate(xs, start=1):
        v = beta * v + (1 - beta) * x
        out.append(v / (1 - beta ** t))
    return jnp.stack(out)


# 31 early-stopping MLP training
XT = jnp.asarray(rng.normal(size=(16, 3)), jnp.float32)
YT = jnp.asarray(XT @ jnp.array([1.0, -2.0, 0.5]) + 0.3, jnp.float32)


def _init(key):
    k1, k2 = jax.random.split(key)
    return {"w1": jax.random.normal(k1, (3, 8)) * 0.3, "b1": jnp.zeros(8), "w2": jax.random.normal(k2, (8,)) * 0.3, "b2": jnp.zeros(())}


def _loss(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    pred = h @ params["w2"] + params["b2"]
    return jnp.mean((pred - y) ** 2)


@program("ml", (_init(jax.random.PRNGKey(0)), XT, YT, 0.1, 40, 3), (_init(jax.random.PRNGKey(1)), XT, YT, 2.0, 30, 2), rtol=1e-4, atol=1e-5)
def train_early_stop(params, x, y, lr, epochs, patience):
    best = float("inf")
    bad = 0
    history = []
    for epoch in range(epochs):
        loss, grads = jax.value_and_grad(_loss)(params, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)
        history.append(float(loss))
        if epoch % 10 == 0:
            print(f"epoch {epoch} loss {loss:.4f}")
        if loss < best - 1e-4:
            best = float(loss)
            bad = 0
        else:
            bad += 1
            if bad >= patience:
                print("early stop at", epoch)
                break
    return params, history


# 32 warmup + cosine schedule with math
@program("ml", (0, 100, 10, 1e-3), (5, 100, 10, 1e-3), (50, 100, 10, 1e-3), (150, 100, 10, 1e-3))
def lr_schedule(step, total, warmup, base_lr):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    if step >= total:
        return 0.0
    progress = (step - warmup) / max(1, total - warmup)
    return base_lr * 0.5 * (1.0 + math.cos(math.pi * progress))


# 33 grad clip by global norm
G = {"a": jnp.array([3.0, 4.0]), "b": jnp.array([[1.0, 2.0]])}


@program("ml", (G, 1.0), (G, 100.0))
def clip_global_norm(grads, max_norm):
    leaves = jax.tree_util.tree_leaves(grads)
    total = jnp.sqrt(sum(jnp.sum(g ** 2) for g in leaves))
    if total > max_norm:
        scale = max_norm / (total + 1e-6)
        grads = jax.tree_util.tree_map(lambda g: g * scale, grads)
    return grads, total


# 34 logsumexp/softmax with max subtraction numpy
@program("ml", (np.array([1000.0, 1000.5, 999.0]),), (np.array([-np.inf, -np.inf]),), (np.array([0.1, 0.2]),))
def stable_softmax(x):
    m = np.max(x)
    if not np.isfinite(m):
        return np.full_like(x, np.nan), m
    e = np.exp(x - m)
    s = e.sum()
    return e / s, m + np.log(s)


# 35 causal attention mask built in a loop
QA = jnp.asarray(rng.normal(size=(4, 3)), jnp.float32)


@program("ml", (QA, QA, QA), (QA[:2], QA[:2], QA[:2]))
def causal_attention(q, k, v):
    T = q.shape[0]
    mask = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(T):
            if j > i:
                mask[i, j] = True
    scores = q @ k.T / math.sqrt(q.shape[-1])
    scores = jnp.where(mask, -1e9, scores)
    w = jax.nn.softmax(scores, axis=-1)
    return w @ v


# 36 histogram with digitize/bincount
HX = rng.normal(size=30)


@program("arrays", (HX, 5), (HX * 0.1, 3))
def hist_digitize(x, nbins):
    edges = np.linspace(x.min(), x.max(), nbins + 1)
    idx = np.digitize(x, edges[1:-1])
    counts = np.bincount(idx, minlength=nbins)
    mode = 0
    for b in range(nbins):
        if counts[b] > counts[mode]:
            mode = b
    return counts, edges, mode


# 37 moving-window convolution by loops
@program("arrays", (np.arange(10.0), np.array([0.25, 0.5, 0.25])), (np.ones(4), np.array([1.0, -1.0])))
def conv_valid(x, w):
    n, k = len(x), len(w)
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        acc = 0.0
        for j in range(k):
            acc += x[i + j] * w[k - 1 - j]
        out[i] = acc
    return out


# 38 Floyd-Warshall
INF = float("inf")
FW = np.array([[0, 3, INF, 7], [8, 0, 2, INF], [5, INF, 0, 1], [2, INF, INF, 0]])


@program("dp_graphs", (FW,), (np.array([[0.0, -1.0], [-1.0, 0.0]]),))
def floyd_warshall(W):
    n = W.shape[0]
    dist = W.copy()
    for k in range(n):
        for i in range(n):
            for j in range(n):
                if dist[i, k] + dist[k, j] < dist[i, j]:
                    dist[i, j] = dist[i, k] + dist[k, j]
    for i in range(n):
        if dist[i, i] < 0:
            raise ValueError("negative cycle")
    return dist


# 39 union-find path compression
@program("dp_graphs", (6, [(0, 1), (1, 2), (3, 4)]), (3, []), (4, [(0, 1), (1, 0), (2, 3), (3, 0)]))
def union_find(n, edges):
    parent = np.arange(n)

    def find(x):
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            nxt = parent[x]
            parent[x] = root
            x = nxt
        return root

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
    return len({int(find(i)) for i in range(n)}), parent


# 40 BFS on adjacency matrix with list queue
ADJ = np.array([[0, 1, 1, 0, 0], [1, 0, 0, 1, 0], [1, 0, 0, 1, 0], [0, 1, 1, 0, 0], [0, 0, 0, 0, 0]])


@program("dp_graphs", (ADJ, 0), (ADJ, 4))
def bfs(adj, start):
    n = adj.shape[0]
    dist = np.full(n, -1)
    dist[start] = 0
    queue = [start]
    order = []
    while queue:
        u = queue.pop(0)
        order.append(u)
        for v in range(n):
            if adj[u, v] and dist[v] == -1:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist, order


# 41 Brent-like bracketed root (bisection + secant hybrid), numpy
@program("solvers", (0.0, 2.0), (3.0, 4.0))
def hybrid_root(a, b):
    f = lambda x: np.cos(x) - x
    fa, fb = f(a), f(b)
    if fa * fb > 0:
        raise ValueError("root is not bracketed")
    for i in range(100):
        c = b - fb * (b - a) / (fb - fa)
        if not (min(a, b) < c < max(a, b)):
            c = 0.5 * (a + b)
        fc = f(c)
        if abs(fc) < 1e-12:
            return c, i
        if fa * fc < 0:
            b, fb = c, fc
        else:
            a, fa = c, fc
    raise RuntimeError("did not converge")


# 42 k-medoids jnp (small)
KJ = jnp.asarray(KX, jnp.float32)


@program("simulation", (KJ, 2, 5),)
def kmedoids(X, k, iters):
    D = jnp.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    medoids = list(range(k))
    for _ in range(iters):
        labels = jnp.argmin(D[:, jnp.array(medoids)], axis=1)
        changed = False
        for c in range(k):
            members = jnp.where(labels == c, 1.0, 0.0)
            cost = D @ members
            cost = jnp.where(members > 0, cost, jnp.inf)
            best = int(jnp.argmin(cost))
            if best != medoids[c]:
                medoids[c] = best
                changed = True
        if not changed:
            break
    return medoids, labels


rng2 = np.random.default_rng(1)


# 43 Dijkstra on dense matrix with visited array
W = np.array([[0, 4, 1, 0], [4, 0, 2, 5], [1, 2, 0, 8], [0, 5, 8, 0]], dtype=float)


@program("dp_graphs", (W, 0), (W, 3))
def dijkstra(adj, src):
    n = adj.shape[0]
    dist = np.full(n, np.inf)
    dist[src] = 0.0
    visited = np.zeros(n, dtype=bool)
    for _ in range(n):
        u = -1
        best = np.inf
        for v in range(n):
            if not visited[v] and dist[v] < best:
                best = dist[v]
                u = v
        if u == -1:
            break
        visited[u] = True
        for v in range(n):
            if adj[u, v] > 0 and dist[u] + adj[u, v] < dist[v]:
                dist[v] = dist[u] + adj[u, v]
    return dist


# 44 Sieve of Eratosthenes numpy
@program("solvers", (30,), (2,), (50,))
def sieve(n):
    is_prime = np.ones(n + 1, dtype=bool)
    is_prime[:2] = False
    for i in range(2, int(n ** 0.5) + 1):
        if is_prime[i]:
            is_prime[i * i::i] = False
    return np.nonzero(is_prime)[0]


# 45 Adam optimizer by hand with bias correction, jnp
@program("ml", (jnp.array([1.0, -2.0]), 0.1, 30), (jnp.array([0.5, 0.5]), 0.01, 5), rtol=1e-4)
def adam_minimize(x, lr, steps):
    m = jnp.zeros_like(x)
    v = jnp.zeros_like(x)
    b1, b2, eps = 0.9, 0.999, 1e-8
    f = lambda z: jnp.sum((z - 3.0) ** 2) + jnp.sum(jnp.abs(z))
    g = jax.grad(f)
    for t in range(1, steps + 1):
        gr = g(x)
        m = b1 * m + (1 - b1) * gr
        v = b2 * v + (1 - b2) * gr ** 2
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        x = x - lr * mhat / (jnp.sqrt(vhat) + eps)
    return x, f(x)


# 46 QR by Gram-Schmidt, numpy with rank-deficiency check
@program("linalg", (np.array([[1.0, 1.0], [1.0, 0.0], [0.0, 1.0]]),), (np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]),))
def gram_schmidt(A):
    m, n = A.shape
    Q = np.zeros((m, n))
    R = np.zeros((n, n))
    for j in range(n):
        v = A[:, j].copy()
        for i in range(j):
            R[i, j] = Q[:, i] @ A[:, j]
            v -= R[i, j] * Q[:, i]
        R[j, j] = np.linalg.norm(v)
        if R[j, j] < 1e-10:
            raise np.linalg.LinAlgError("matrix is rank deficient")
        Q[:, j] = v / R[j, j]
    return Q, R


# 47 Metropolis sampler with numpy RNG passed in? (jax key)
@program("simulation", (jax.random.PRNGKey(0), 0.0, 50, 0.5), (jax.random.PRNGKey(3), 1.0, 20, 2.0))
def metropolis(key, x0, n, step):
    logp = lambda x: -0.5 * x ** 2
    x = x0
    samples = []
    accepted = 0
    for i in range(n):
        key, k1, k2 = jax.random.split(key, 3)
        prop = x + step * jax.random.normal(k1)
        if jnp.log(jax.random.uniform(k2)) < logp(prop) - logp(x):
            x = prop
            accepted += 1
        samples.append(x)
    return jnp.stack(samples), accepted / n


# 48 matrix inverse Gauss-Jordan with pivot swap & singular raise
@program("linalg", (np.array([[2.0, 1.0], [1.0, 3.0]]),), (np.array([[0.0, 1.0], [1.0, 0.0]]),), (np.array([[1.0, 2.0], [2.0, 4.0]]),))
def gauss_jordan_inverse(A):
    n = A.shape[0]
    M = np.hstack([A.astype(float), np.eye(n)])
    for c in range(n):
        p = c + np.argmax(np.abs(M[c:, c]))
        if np.isclose(M[p, c], 0.0):
            raise ValueError("singular matrix")
        M[[c, p]] = M[[p, c]]
        M[c] /= M[c, c]
        for r in range(n):
            if r != c:
                M[r] -= M[r, c] * M[c]
    return M[:, n:]


# 49 trapezoid with early refinement exit
@program("solvers", (0.0, 1.0, 1e-6), (0.0, 3.0, 1e-2))
def trapezoid_refine(a, b, tol):
    f = lambda x: np.exp(-x) * np.sin(3 * x)
    n = 1
    h = b - a
    T = 0.5 * h * (f(a) + f(b))
    for k in range(20):
        mids = a + h * (np.arange(n) + 0.5)
        T_new = 0.5 * T + 0.5 * h * f(mids).sum()
        n *= 2
        h /= 2
        if abs(T_new - T) < tol:
            return T_new, k
        T = T_new
    return T, -1


# 50 max subarray Kadane on jnp array, python ints
@program("dp_graphs", (jnp.array([-2, 1, -3, 4, -1, 2, 1, -5, 4]),), (jnp.array([-3, -1, -2]),))
def kadane(a):
    best = cur = int(a[0])
    start = best_start = best_end = 0
    for i in range(1, a.shape[0]):
        v = int(a[i])
        if cur + v < v:
            cur = v
            start = i
        else:
            cur += v
        if cur > best:
            best = cur
            best_start, best_end = start, i
    return best, (best_start, best_end)


# 51 Collatz steps with while, numpy int64
@program("solvers", (np.int64(27),), (np.int64(1),), (np.int64(97),))
def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# 52 stable counting sort / argsort by hand with dict histogram
@program("dp_graphs", (np.array([3, 1, 2, 3, 0, 1]),), (np.array([5]),))
def counting_sort(a):
    counts = {}
    for v in a:
        counts[int(v)] = counts.get(int(v), 0) + 1
    out = []
    for k in sorted(counts):
        out.extend([k] * counts[k])
    return np.array(out), counts


# 53 momentum SGD on linear regression with loss log every k + nan guard
XR = rng2.normal(size=(20, 2)).astype(np.float32)
YR = (XR @ np.array([2.0, -1.0], np.float32) + 0.5).astype(np.float32)


@program("ml", (jnp.asarray(XR), jnp.asarray(YR), 0.05, 25), (jnp.asarray(XR), jnp.asarray(YR), 5.0, 25), rtol=1e-4, atol=1e-5)
def sgd_momentum(X, y, lr, epochs):
    w = jnp.zeros(X.shape[1])
    b = 0.0
    vw, vb = jnp.zeros_like(w), 0.0
    for ep in range(epochs):
        pred = X @ w + b
        err = pred - y
        loss = jnp.mean(err ** 2)
        if jnp.isnan(loss) or loss > 1e6:
            print(f"diverged at epoch {ep}")
            return None
        gw = 2 * X.T @ err / X.shape[0]
        gb = 2 * jnp.mean(err)
        vw = 0.9 * vw - lr * gw
        vb = 0.9 * vb - lr * gb
        w = w + vw
        b = b + vb
        if ep % 10 == 0:
            print(f"epoch {ep}: loss={float(loss):.4f}")
    return w, b


# 54 local maxima / peak finding with lists
@program("arrays", (np.array([1.0, 3.0, 2.0, 5.0, 4.0, 4.0, 6.0, 1.0]),), (np.array([1.0, 1.0]),))
def find_peaks(x):
    peaks = []
    for i in range(1, len(x) - 1):
        if x[i] > x[i - 1] and x[i] >= x[i + 1]:
            peaks.append(i)
    if not peaks:
        return None
    heights = x[peaks]
    return peaks, heights, int(np.argmax(heights))


# 55 row normalize in place with zero-row skip
@program("arrays", (np.array([[1.0, 2.0], [0.0, 0.0], [3.0, 1.0]]),))
def normalize_rows(M):
    for i in range(M.shape[0]):
        s = M[i].sum()
        if s == 0:
            continue
        M[i] /= s
    return M


# 56 percentile via sorting and interpolation
@program("arrays", (np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]), 50), (np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]), 90), (np.array([2.0]), 10))
def percentile_manual(a, q):
    s = np.sort(a)
    pos = (len(s) - 1) * q / 100
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(s) - 1)
    frac = pos - lo
    return s[lo] + (s[hi] - s[lo]) * frac
