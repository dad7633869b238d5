"""Simulation steps: particles, cellular automata, ODE integrators with adaptive steps."""

import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

_rng = np.random.default_rng(5)
POS = jnp.asarray(_rng.uniform(0, 1, size=(8, 2)), jnp.float32)
VEL = jnp.asarray(_rng.normal(size=(8, 2)), jnp.float32)


@program("simulation", (POS, VEL, 20, 0.05), (POS, VEL * 0, 20, 0.05), (POS, VEL, 0, 0.05))
def particles_in_box(pos, vel, steps, dt):
    for _ in range(steps):
        pos = pos + vel * dt
        hit_low = pos < 0.0
        hit_high = pos > 1.0
        vel = jnp.where(hit_low | hit_high, -vel, vel)
        pos = jnp.clip(pos, 0.0, 1.0)
    return pos, vel


GLIDER = jnp.zeros((8, 8), jnp.int32).at[1, 2].set(1).at[2, 3].set(1).at[3, 1:4].set(1)
BLOCK = jnp.zeros((8, 8), jnp.int32).at[3:5, 3:5].set(1)


@program("simulation", (GLIDER, 6), (BLOCK, 6), (jnp.zeros((8, 8), jnp.int32), 6))
def game_of_life(grid, steps):
    for gen in range(steps):
        n = sum(jnp.roll(jnp.roll(grid, dy, 0), dx, 1)
                for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0))
        grid = jnp.where((n == 3) | ((grid == 1) & (n == 2)), 1, 0)
        if grid.sum() == 0:
            break
    return grid, gen


@program("simulation", (jnp.array([1.0, 0.0]), 5.0, 1e-3), (jnp.array([0.0, 2.0]), 2.0, 1e-5))
def rk23_adaptive(y, t_end, tol):
    def f(t, y):
        return jnp.array([y[1], -y[0] - 0.1 * y[1]])

    t, h, n_steps = 0.0, 0.1, 0
    while t < t_end:
        h = min(h, t_end - t)
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + 3 * h / 4, y + 3 * h / 4 * k2)
        y_new = y + h * (2 * k1 + 3 * k2 + 4 * k3) / 9
        k4 = f(t + h, y_new)
        y_low = y + h * (7 * k1 / 24 + k2 / 4 + k3 / 3 + k4 / 8)
        err = jnp.max(jnp.abs(y_new - y_low))
        if err < tol:
            t = t + h
            y = y_new
            n_steps += 1
        h = h * min(2.0, max(0.2, 0.9 * (tol / (err + 1e-12)) ** (1 / 3)))
    return y, n_steps


@program("simulation", (10.0, 0.0, 0.01), (1.0, 5.0, 0.01), (0.0, 0.0, 0.01))
def ball_drop_event(h0, v0, dt):
    y, v, t = jnp.float32(h0), jnp.float32(v0), 0.0
    while y > 0:
        v = v - 9.81 * dt
        y = y + v * dt
        t += dt
    return t, v


@program("simulation", (jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), jnp.zeros((3, 2)), jnp.array([1.0, 0.1, 0.1]), 10),)
def nbody_leapfrog(pos, vel, mass, steps):
    n = pos.shape[0]
    dt = 0.01

    def accel(pos):
        acc = []
        for i in range(n):
            a = jnp.zeros(2)
            for j in range(n):
                if i != j:
                    d = pos[j] - pos[i]
                    a = a + mass[j] * d / (jnp.sum(d ** 2) + 0.01) ** 1.5
            acc.append(a)
        return jnp.stack(acc)

    acc = accel(pos)
    for _ in range(steps):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = accel(pos)
        vel = vel + 0.5 * dt * acc
    return pos, vel


@program("simulation", (jnp.sin(jnp.linspace(0, math.pi, 12)), 0.1, 0.004, 30), (jnp.ones(12), 0.1, 0.01, 30))
def heat_explicit(u, dx, dt, steps):
    if dt > dx ** 2 / 2:
        raise ValueError(f"unstable: dt={dt} > {dx ** 2 / 2}")
    r = dt / dx ** 2
    for _ in range(steps):
        u = u.at[1:-1].set(u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2]))
    return u


@program("simulation", (990.0, 10.0, 0.3, 0.1, 160), (999.0, 1.0, 0.05, 0.1, 160), (1000.0, 0.0, 0.3, 0.1, 160))
def sir_until_extinct(s, i, beta, gamma, days):
    n = s + i
    r = 0.0
    s, i = jnp.float32(s), jnp.float32(i)
    peak = i
    for day in range(days):
        new_inf = beta * s * i / n
        new_rec = gamma * i
        s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
        peak = jnp.maximum(peak, i)
        if i < 1:
            break
    return day, peak, r


@program("simulation", (np.eye(1, 21, 10, dtype=np.int8)[0], 30, 10), (np.eye(1, 21, 10, dtype=np.int8)[0], 90, 10))
def elementary_automaton(cells, rule, steps):
    table = [(rule >> k) & 1 for k in range(8)]
    history = [cells.copy()]
    for _ in range(steps):
        left, right = np.roll(cells, 1), np.roll(cells, -1)
        idx = 4 * left + 2 * cells + right
        cells = np.array([table[i] for i in idx], dtype=np.int8)
        history.append(cells)
    return np.stack(history)


@program("simulation", (1.0, 0.0, 0.1, 40), (0.0, 1.0, 0.0, 40))
def spring_energy_log(x, v, damping, steps):
    k, m, dt = 4.0, 1.0, 0.05
    x, v = jnp.float32(x), jnp.float32(v)
    energies = []
    for _ in range(steps):
        a = (-k * x - damping * v) / m
        v = v + a * dt
        x = x + v * dt
        energies.append(float(0.5 * m * v ** 2 + 0.5 * k * x ** 2))
    return x, energies


@program("simulation", (10.0, 5.0, 30), (1.0, 20.0, 30), (0.5, 0.5, 30))
def predator_prey_floor(prey, pred, steps):
    a, b, c, d, dt = 1.0, 0.1, 1.5, 0.075, 0.1
    prey, pred = jnp.float32(prey), jnp.float32(pred)
    for _ in range(steps):
        dprey = a * prey - b * prey * pred
        dpred = d * prey * pred - c * pred
        prey = prey + dt * dprey
        pred = pred + dt * dpred
        if prey < 0:
            prey = 0.0
        if pred < 0:
            pred = 0.0
    return prey, pred


@program("simulation", (jax.random.PRNGKey(0), 30), (jax.random.PRNGKey(3), 30))
def brownian_absorbing(key, steps):
    x = jnp.zeros(4)
    alive = jnp.ones(4, bool)
    for t in range(steps):
        key, sub = jax.random.split(key)
        x = jnp.where(alive, x + 0.3 * jax.random.normal(sub, (4,)), x)
        alive = alive & (jnp.abs(x) < 1.0)
        if not alive.any():
            break
    return x, alive, t
