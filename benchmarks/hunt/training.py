"""Training loops as people write them: optimisers, early stopping, schedules, logging."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

X = jnp.array([[1.0, 2.0], [2.0, 0.5], [-1.0, 1.0], [0.0, -1.5]])
Y = jnp.array([1.0, 2.0, -0.5, -1.0])


def loss_fn(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


@program("training", (jnp.zeros(2), 0.1, 50), (jnp.zeros(2), 0.5, 50), (jnp.zeros(2), 2.0, 20))
def gd_early_stop_on_divergence(w, lr, steps):
    best = None
    best_loss = float("inf")
    for step in range(steps):
        loss, g = jax.value_and_grad(loss_fn)(w, X, Y)
        if not jnp.isfinite(loss) or loss > 1e6:
            print(f"diverged at step {step}")
            return best, step, "diverged"
        if loss < best_loss - 1e-6:
            best_loss = loss
            best = w
        elif step > 5 and loss > best_loss:
            break
        w = w - lr * g
    return best, step, "ok"


@program("training", (jnp.zeros(2), 30), (jnp.ones(2), 5))
def adam_with_bias_correction(w, steps):
    m = jnp.zeros_like(w)
    v = jnp.zeros_like(w)
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.05
    losses = []
    for t in range(1, steps + 1):
        loss, g = jax.value_and_grad(loss_fn)(w, X, Y)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        w = w - lr * mhat / (jnp.sqrt(vhat) + eps)
        if t % 10 == 0:
            losses.append(round(float(loss), 4))
    return w, losses


@program("training", (0, 100), (5, 100), (99, 100), (150, 100))
def warmup_cosine_lr(step, total):
    warmup = 10
    if step < warmup:
        return 1e-3 * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    progress = min(progress, 1.0)
    return 1e-3 * 0.5 * (1 + math.cos(math.pi * progress))


@program("training", (jnp.zeros(2), 0.05, 1e-3), (jnp.zeros(2), 0.2, 1e-1), (jnp.ones(2) * 5, 0.01, 1e-12))
def train_until_tolerance(w, lr, tol):
    prev = None
    it = 0
    while True:
        loss = loss_fn(w, X, Y)
        if prev is not None and abs(prev - loss) < tol:
            break
        if it >= 200:
            break
        prev = loss
        w = w - lr * jax.grad(loss_fn)(w, X, Y)
        it += 1
    return w, it, float(loss)


@program("training", (jnp.array([3.0, -4.0]), 1.0), (jnp.array([0.3, -0.4]), 1.0), (jnp.array([0.0, 0.0]), 1.0))
def clip_grad_norm(g, max_norm):
    norm = jnp.sqrt(jnp.sum(g ** 2))
    clipped = False
    if norm > max_norm:
        g = g * (max_norm / (norm + 1e-6))
        clipped = True
    return g, clipped, norm


class EarlyStopper:
    def __init__(self, patience=2):
        self.patience = patience
        self.best = math.inf
        self.bad_epochs = 0

    def should_stop(self, val_loss):
        if val_loss < self.best:
            self.best = val_loss
            self.bad_epochs = 0
        else:
            self.bad_epochs += 1
        return self.bad_epochs >= self.patience


def _es_step(v):
    def step(fn, es):
        return fn(jnp.array(v)), es.bad_epochs, es.best
    return step


@stateful("training", [_es_step(1.0), _es_step(0.5), _es_step(0.7), _es_step(0.9), _es_step(0.1)])
def make_early_stopper_object():
    es = EarlyStopper()
    return es.should_stop, es


LOG = []


def sgd_momentum_logged(params, grads, velocity, lr=0.1, mu=0.9):
    new_params = {}
    for name in params:
        velocity[name] = mu * velocity[name] + grads[name]
        new_params[name] = params[name] - lr * velocity[name]
        LOG.append((name, float(jnp.abs(grads[name]).max())))
    return new_params


P = {"w": jnp.array([1.0, 2.0]), "b": jnp.array(0.5)}
G = {"w": jnp.array([0.1, -0.3]), "b": jnp.array(-1.0)}


def _sgd_step(scale):
    def step(fn, world):
        out = fn(P, {k: v * scale for k, v in G.items()}, world)
        return out, dict(world), list(LOG)
    return step


@stateful("training", [_sgd_step(1.0), _sgd_step(2.0), _sgd_step(-1.0)])
def make_sgd_momentum_logged():
    LOG.clear()
    return sgd_momentum_logged, {"w": jnp.zeros(2), "b": jnp.array(0.0)}


@program("training", (np.array([0.9, 0.8, 0.85, 0.7, 0.71, 0.72]),), (np.array([1.0, 1.1, 1.2]),))
def reduce_lr_on_plateau(val_losses):
    lr = 0.1
    best = val_losses[0]
    wait = 0
    lrs = []
    for epoch, vl in enumerate(val_losses):
        if vl < best:
            best = vl
            wait = 0
        else:
            wait += 1
            if wait >= 2:
                lr *= 0.5
                wait = 0
        lrs.append(lr)
    return lrs, best


@program("training", (jnp.arange(10.0), 3), (jnp.arange(7.0), 4), (jnp.arange(4.0), 8))
def minibatch_epoch(data, batch_size):
    n = data.shape[0]
    total = 0.0
    nb = 0
    for start in range(0, n, batch_size):
        batch = data[start:start + batch_size]
        if batch.shape[0] < batch_size:
            continue   # drop_last
        total += batch.mean()
        nb += 1
    return total / nb if nb else None


@program("training", (jnp.array([0.2, 0.4, 0.9]), jnp.array([0, 1, 1])),
         (jnp.array([0.6, 0.6, 0.1]), jnp.array([1, 1, 0])))
def metrics_dict(probs, labels):
    preds = (probs > 0.5).astype(jnp.int32)
    tp = int(((preds == 1) & (labels == 1)).sum())
    fp = int(((preds == 1) & (labels == 0)).sum())
    fn = int(((preds == 0) & (labels == 1)).sum())
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "acc": (preds == labels).mean()}
