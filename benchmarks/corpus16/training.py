"""Training loops as people write them: early stopping, patience, histories, clipping."""

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

_rng = np.random.default_rng(0)
X = jnp.asarray(_rng.normal(size=(16, 3)), jnp.float32)
W_TRUE = jnp.array([1.0, -2.0, 0.5])
Y = X @ W_TRUE
Y_NOISY = Y + jnp.asarray(_rng.normal(size=16), jnp.float32)
W0 = jnp.zeros(3)
LABELS = jnp.where(Y > 0, 1.0, -1.0)


@program("training", (W0, X, Y, 0.1, 1e-3), (W0, X, Y_NOISY, 0.1, 1e-3), (W0, X, Y, 0.0, 1e-3),
         (W_TRUE, X, Y, 0.1, 1e-3))
def gd_early_stop(w, x, y, lr, tol):
    for step in range(300):
        pred = x @ w
        loss = jnp.mean((pred - y) ** 2)
        if loss < tol:
            break
        grad = 2 * x.T @ (pred - y) / x.shape[0]
        w = w - lr * grad
    return w, step


@program("training", (W0, X, Y), (W0, X, Y_NOISY), (W_TRUE, X, Y))
def patience_early_stop(w, x, y):
    best = float("inf")
    bad_epochs = 0
    patience = 5
    for epoch in range(40):
        loss = jnp.mean((x @ w - y) ** 2)
        if loss < best - 1e-4:
            best = loss
            bad_epochs = 0
        else:
            bad_epochs += 1
        if bad_epochs >= patience:
            break
        w = w - 0.05 * jax.grad(lambda v: jnp.mean((x @ v - y) ** 2))(w)
    return w, best, epoch


@program("training", (W0, X, Y, 20), (W0, X, Y_NOISY, 20), (W0, X, Y, 0))
def train_with_history(w, x, y, steps):
    losses = []
    for step in range(steps):
        loss, g = jax.value_and_grad(lambda v: jnp.mean((x @ v - y) ** 2))(w)
        losses.append(float(loss))
        w = w - 0.1 * g
    return w, losses


@program("training", (W0, X, Y, 1.0), (W0, X, Y, 100.0), (W0, X, Y_NOISY, 0.5))
def clipped_sgd(w, x, y, clip):
    for _ in range(30):
        g = jax.grad(lambda v: jnp.mean((x @ v - y) ** 2))(w)
        norm = jnp.linalg.norm(g)
        if norm > clip:
            g = g * (clip / norm)
        w = w - 0.1 * g
    return w


@program("training", (W0, X, Y), (W0, X, Y_NOISY))
def train_print_every(w, x, y):
    for step in range(30):
        loss, g = jax.value_and_grad(lambda v: jnp.mean((x @ v - y) ** 2))(w)
        if step % 10 == 0:
            print(f"step {step:3d}  loss {float(loss):.4f}")
        w = w - 0.1 * g
    return w


def _objective(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@program("training", (W0, X, Y), (W_TRUE, X, Y), (W0, X, Y_NOISY), rtol=1e-4)   # float32 line search: ulps grow
def backtracking_line_search(w, x, y):
    for it in range(20):
        f0 = _objective(w, x, y)
        g = jax.grad(_objective)(w, x, y)
        t = 1.0
        while _objective(w - t * g, x, y) > f0 - 0.5 * t * jnp.sum(g * g):
            t *= 0.5
            if t < 1e-8:
                break
        w = w - t * g
        if jnp.linalg.norm(g) < 1e-4:
            break
    return w, it


@program("training", (W0, X[:8], LABELS[:8], 6), (W0, X[:8], -LABELS[:8], 6), (W0, X[:8], jnp.ones(8), 6))
def perceptron(w, x, y, max_epochs):
    for epoch in range(max_epochs):
        errors = 0
        for i in range(x.shape[0]):
            if y[i] * (x[i] @ w) <= 0:
                w = w + y[i] * x[i]
                errors += 1
        if errors == 0:
            break
    return w, epoch, errors


PTS = jnp.asarray(np.concatenate([_rng.normal(size=(10, 2)) - 3, _rng.normal(size=(10, 2)) + 3]), jnp.float32)


@program("training", (PTS, PTS[:2]), (PTS, PTS[jnp.array([0, 10])]), (PTS, jnp.array([[0.0, 0.0], [0.1, 0.1]])))
def kmeans(points, centers):
    for it in range(50):
        d = jnp.sum((points[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
        assign = jnp.argmin(d, axis=1)
        new_centers = jnp.stack([
            jnp.sum(jnp.where((assign == k)[:, None], points, 0.0), 0) / jnp.maximum(jnp.sum(assign == k), 1)
            for k in range(centers.shape[0])])
        if jnp.allclose(new_centers, centers):
            break
        centers = new_centers
    return centers, it


@program("training", (W0, X, Y), (W0, X, Y_NOISY))
def ema_loss(w, x, y):
    ema = None
    for step in range(20):
        loss, g = jax.value_and_grad(_objective)(w, x, y)
        ema = loss if ema is None else 0.9 * ema + 0.1 * loss
        w = w - 0.05 * g
    return w, ema


@program("training", ({"w": W0, "b": jnp.zeros(())}, X, Y, 25), ({"w": W_TRUE, "b": jnp.ones(())}, X, Y_NOISY, 25))
def adam(params, x, y, steps):
    def loss_fn(p):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    m = {k: jnp.zeros_like(v) for k, v in params.items()}
    v = {k: jnp.zeros_like(v) for k, v in params.items()}
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.05
    for t in range(1, steps + 1):
        grads = jax.grad(loss_fn)(params)
        for k in params:
            m[k] = b1 * m[k] + (1 - b1) * grads[k]
            v[k] = b2 * v[k] + (1 - b2) * grads[k] ** 2
            mhat = m[k] / (1 - b1 ** t)
            vhat = v[k] / (1 - b2 ** t)
            params[k] = params[k] - lr * mhat / (jnp.sqrt(vhat) + eps)
    return params, loss_fn(params)


@program("training", (W0, X[:12], Y[:12], X[12:], Y[12:]), (W0, X[:12], Y_NOISY[:12], X[12:], Y_NOISY[12:]),
         (W_TRUE, X[:12], Y[:12], X[12:], Y_NOISY[12:]))
def keep_best_weights(w, xtr, ytr, xval, yval):
    best_val = jnp.inf
    best_w = w
    for epoch in range(40):
        w = w - 0.1 * jax.grad(_objective)(w, xtr, ytr)
        val = _objective(w, xval, yval)
        if val < best_val:
            best_val = val
            best_w = w
    return best_w, best_val


@program("training", (W0, X, Y, 1e-2), (W0, X, Y_NOISY, 1e-2), (W_TRUE, X, Y, 1e-2))
def newton_least_squares(w, x, y, tol):
    it = 0
    while True:
        r = x @ w - y
        g = x.T @ r
        if jnp.linalg.norm(g) < tol or it >= 10:
            break
        h = x.T @ x + 1e-3 * jnp.eye(x.shape[1])
        w = w - jnp.linalg.solve(h, g)
        it += 1
    return w, it


@program("training", (W0, X, Y, 64), (W0, X, Y_NOISY, 4))
def minibatch_epochs(w, x, y, batch_size):
    n = x.shape[0]
    total = 0.0
    for epoch in range(3):
        for start in range(0, n, batch_size):
            xb, yb = x[start:start + batch_size], y[start:start + batch_size]
            loss, g = jax.value_and_grad(_objective)(w, xb, yb)
            w = w - 0.1 * g
            total += loss
    return w, total / (3 * ((n + batch_size - 1) // batch_size))
