"""Numerical methods: tolerance loops, root finding, ODE steps, iterative solvers."""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from .registry import program


@program("numeric", (2.0,), (jnp.array(9.0),), (0.0,), (-1.0,))
def newton_sqrt(a, tol=1e-10, maxiter=50):
    if a < 0:
        raise ValueError("negative input")
    if a == 0:
        return 0.0
    x = a
    for i in range(maxiter):
        nx = 0.5 * (x + a / x)
        if abs(nx - x) < tol:
            return nx
        x = nx
    return x


@program("numeric", (jnp.array(1.0), jnp.array(2.0)), (jnp.array(-3.0), jnp.array(3.0)), (jnp.array(2.0), jnp.array(3.0)))
def bisect_cubic(lo, hi):
    f = lambda x: x ** 3 - x - 2
    flo, fhi = f(lo), f(hi)
    if flo * fhi > 0:
        return None
    n = 0
    while hi - lo > 1e-5:
        mid = (lo + hi) / 2
        if f(mid) * flo <= 0:
            hi = mid
        else:
            lo = mid
            flo = f(lo)
        n += 1
    return (lo + hi) / 2, n


@program("numeric", (jnp.array([[4.0, 1.0], [1.0, 3.0]]), jnp.array([1.0, 2.0])),
         (jnp.array([[1.0, 2.0], [3.0, 1.0]]), jnp.array([1.0, 1.0])))
def jacobi_solver(A, b):
    x = jnp.zeros_like(b)
    D = jnp.diag(A)
    R = A - jnp.diag(D)
    for k in range(100):
        x_new = (b - R @ x) / D
        if jnp.linalg.norm(x_new - x) < 1e-8:
            return x_new, k, True
        if not jnp.all(jnp.isfinite(x_new)) or jnp.abs(x_new).max() > 1e10:
            return x, k, False
        x = x_new
    return x, 100, False


@program("numeric", (jnp.array([1.0, 0.0]), 0.1, 1.0), (jnp.array([1.0, 0.0]), 0.3, 2.0))
def rk4_oscillator(y0, h, t_end):
    def f(t, y):
        return jnp.array([y[1], -y[0]])
    t = 0.0
    y = y0
    steps = 0
    while t < t_end - 1e-12:
        h_eff = min(h, t_end - t)
        k1 = f(t, y)
        k2 = f(t + h_eff / 2, y + h_eff / 2 * k1)
        k3 = f(t + h_eff / 2, y + h_eff / 2 * k2)
        k4 = f(t + h_eff, y + h_eff * k3)
        y = y + h_eff / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h_eff
        steps += 1
    return y, t, steps


@program("numeric", (jnp.array(1.0), 1e-3), (jnp.array(5.0), 1e-6))
def adaptive_euler(y0, tol):
    t, y, h = 0.0, y0, 0.1
    accepted = rejected = 0
    while t < 1.0:
        h = min(h, 1.0 - t)
        y1 = y + h * (-2.0 * y)
        yh = y + h / 2 * (-2.0 * y)
        y2 = yh + h / 2 * (-2.0 * yh)
        err = jnp.abs(y2 - y1)
        if err > tol:
            h /= 2
            rejected += 1
            continue
        t += h
        y = y2
        accepted += 1
        if err < tol / 4:
            h *= 2
    return y, accepted, rejected


@program("numeric", (jnp.array([[2.0, 1.0], [1.0, 3.0]]),), (jnp.array([[1.0, 0.0], [0.0, 1.0]]),))
def power_iteration(A):
    v = jnp.ones(A.shape[0]) / math.sqrt(A.shape[0])
    lam = 0.0
    for i in range(200):
        w = A @ v
        new_lam = float(v @ w)
        v = w / jnp.linalg.norm(w)
        if abs(new_lam - lam) < 1e-9:
            break
        lam = new_lam
    return new_lam, v, i


@program("numeric", (0.0, 1.0, 4), (0.0, math.pi, 16), (1.0, 1.0, 8), (0.0, 1.0, 3))
def simpson_integrate(a, b, n):
    if n % 2:
        raise ValueError(f"n must be even, got {n}")
    h = (b - a) / n
    xs = jnp.linspace(a, b, n + 1)
    ys = jnp.sin(xs) + xs ** 2
    s = ys[0] + ys[-1]
    for i in range(1, n):
        s += (4 if i % 2 else 2) * ys[i]
    return s * h / 3


@program("numeric", (np.array([3.0, 1.0, 2.0]), np.array([1.0, 2.0, 0.5])),
         (np.array([0.0, 0.0]), np.array([1.0, 1.0])))
def golden_section_min(center, scale):
    gr = (math.sqrt(5) - 1) / 2
    f = lambda t: float(np.sum(((center - t) / scale) ** 2))
    a, b = -10.0, 10.0
    c, d = b - gr * (b - a), a + gr * (b - a)
    while abs(b - a) > 1e-6:
        if f(c) < f(d):
            b = d
        else:
            a = c
        c, d = b - gr * (b - a), a + gr * (b - a)
    return (a + b) / 2


@program("numeric", (jnp.array([1.0, 2.0, 4.0, 7.0]),), (jnp.array([1.0]),), (jnp.array([3.0, 3.0]),))
def finite_differences(y):
    if y.shape[0] < 2:
        return None, None
    d1 = jnp.diff(y)
    d2 = jnp.diff(y, n=2) if y.shape[0] > 2 else jnp.zeros(0)
    is_linear = bool(jnp.allclose(d2, 0)) if d2.size else True
    return d1, is_linear


@program("numeric", (jnp.array([1.0, -3.0, 2.0]),), (jnp.array([1.0, 2.0, 5.0]),), (jnp.array([0.0, 2.0, -4.0]),),
         (jnp.array([1.0, 2.0, 1.0]),))
def quadratic_roots(coef):
    a, b, c = coef
    if a == 0:
        if b == 0:
            return ()
        return (-c / b,)
    disc = b * b - 4 * a * c
    if disc < 0:
        re = -b / (2 * a)
        im = jnp.sqrt(-disc) / (2 * a)
        return (complex(float(re), float(im)), complex(float(re), -float(im)))
    if disc == 0:
        return (-b / (2 * a),)
    sq = jnp.sqrt(disc)
    return ((-b + sq) / (2 * a), (-b - sq) / (2 * a))


@program("numeric", (np.linspace(0.0, 1.0, 5), 1e-3), (np.array([0.0, 0.0, 0.0]), 1e-3))
def fixed_point_cosine(x0, tol):
    x = x0.copy()
    history = []
    for it in range(100):
        x_new = np.cos(x)
        delta = np.max(np.abs(x_new - x))
        history.append(delta)
        x[:] = x_new
        if delta < tol:
            break
    return x, it, len(history), history[-1]
