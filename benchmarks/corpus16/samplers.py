"""Samplers: rejection sampling with while, Metropolis, resampling, HMC leapfrog."""

import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

K0, K1, K2 = jax.random.PRNGKey(0), jax.random.PRNGKey(1), jax.random.PRNGKey(7)


@program("sampler", (K0,), (K1,), (K2,))
def rejection_halfnormal(key):
    while True:
        key, k1, k2 = jax.random.split(key, 3)
        x = jnp.abs(jax.random.cauchy(k1))
        u = jax.random.uniform(k2)
        if u < jnp.exp(-0.5 * x ** 2) * (1 + x ** 2) / 1.53:
            return x


@program("sampler", (K0, 3), (K1, 0), (K2, 2))
def rejection_count(key, n):
    accepted = []
    tries = 0
    while len(accepted) < n:
        key, sub = jax.random.split(key)
        x = jax.random.uniform(sub, minval=-1.0, maxval=1.0)
        tries += 1
        if x * x < 0.25:
            accepted.append(x)
    return jnp.array(accepted), tries


@program("sampler", (K0, jnp.zeros(2), 10), (K1, jnp.ones(2) * 3, 10), (K2, jnp.zeros(2), 0))
def metropolis(key, x, n_steps):
    def logp(z):
        return -0.5 * jnp.sum(z ** 2)

    accepts = 0
    for _ in range(n_steps):
        key, k1, k2 = jax.random.split(key, 3)
        prop = x + 0.5 * jax.random.normal(k1, x.shape)
        if jnp.log(jax.random.uniform(k2)) < logp(prop) - logp(x):
            x = prop
            accepts += 1
    return x, accepts / max(n_steps, 1)


W_EVEN = jnp.full(6, 1 / 6)
W_SKEW = jnp.array([0.7, 0.1, 0.1, 0.05, 0.05, 0.0])


@program("sampler", (W_EVEN, 0.3), (W_SKEW, 0.1), (W_SKEW, 0.95))
def systematic_resample(weights, u0):
    n = weights.shape[0]
    cumsum = jnp.cumsum(weights)
    idx = []
    j = 0
    for i in range(n):
        u = (u0 + i) / n
        while j < n - 1 and cumsum[j] < u:
            j += 1
        idx.append(j)
    return jnp.array(idx)


@program("sampler", (K0, 0.5, 6), (K1, -0.9, 6), (K2, 0.0, 1))
def gibbs_bivariate(key, rho, n):
    x, y = 0.0, 0.0
    xs, ys = [], []
    s = math.sqrt(1 - rho ** 2)
    for _ in range(n):
        key, k1, k2 = jax.random.split(key, 3)
        x = rho * y + s * jax.random.normal(k1)
        y = rho * x + s * jax.random.normal(k2)
        xs.append(x)
        ys.append(y)
    return jnp.corrcoef(jnp.stack(xs), jnp.stack(ys))[0, 1] if n > 1 else jnp.float32(0.0)


@program("sampler", (K0, jnp.linspace(-2, 2, 8)), (K1, jnp.array([0.0, 0, 0, 0, 0, 0, 0, 9])))
def importance_resample(key, logw):
    w = jnp.exp(logw - logw.max())
    w = w / w.sum()
    ess = 1.0 / jnp.sum(w ** 2)
    if ess < w.shape[0] / 2:
        idx = jax.random.choice(key, w.shape[0], (w.shape[0],), p=w)
        w = jnp.full_like(w, 1.0 / w.shape[0])
        return idx, w, ess
    return jnp.arange(w.shape[0]), w, ess


@program("sampler", (jnp.array([0.5, -0.3]), jnp.array([0.1, 0.2]), 0.1, 10),
         (jnp.zeros(2), jnp.ones(2), 0.05, 20))
def hmc_leapfrog(q, p, eps, n_leap):
    def grad_u(z):
        return jax.grad(lambda v: 0.5 * jnp.sum(v ** 2) + 0.1 * jnp.sum(v ** 4))(z)

    p = p - 0.5 * eps * grad_u(q)
    for i in range(n_leap):
        q = q + eps * p
        if i != n_leap - 1:
            p = p - eps * grad_u(q)
    p = p - 0.5 * eps * grad_u(q)
    return q, -p


@program("sampler", (np.array([0.1, 0.5, 0.9, 0.3]), 2), (np.array([0.99, 0.98, 0.97, 0.96]), 1))
def inverse_cdf_exponential(u, rate):
    out = np.empty_like(u)
    for i in range(len(u)):
        out[i] = -math.log(1.0 - u[i]) / rate
    return out


@program("sampler", (K0, 12), (K1, 12))
def random_walk_until_exit(key, max_steps):
    pos = 0.0
    for t in range(max_steps):
        key, sub = jax.random.split(key)
        pos = pos + jnp.where(jax.random.bernoulli(sub), 1.0, -1.0)
        if abs(pos) >= 3:
            return pos, t + 1
    return pos, max_steps
