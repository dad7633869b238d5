"""Small models as people write them: layers, attention, normalisation, classes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program, stateful

KEY = jax.random.PRNGKey(0)
W1 = jax.random.normal(KEY, (4, 8)) * 0.5
B1 = jnp.zeros(8)
W2 = jax.random.normal(jax.random.PRNGKey(1), (8, 3)) * 0.5
X4 = jnp.array([[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.2, -2.0]])


def gelu(x):
    return 0.5 * x * (1.0 + jnp.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


@program("models", (X4, "relu"), (X4, "gelu"), (X4, "tanh"), (X4, None))
def mlp_with_activation_name(x, activation="relu"):
    h = x @ W1 + B1
    if activation == "relu":
        h = jnp.maximum(h, 0)
    elif activation == "gelu":
        h = gelu(h)
    elif activation is None:
        pass
    else:
        h = jnp.tanh(h)
    logits = h @ W2
    return jax.nn.softmax(logits, axis=-1)


@program("models", (X4, None), (X4, jnp.array([[1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)))
def masked_self_attention(x, mask=None):
    d = x.shape[-1]
    scores = x @ x.T / np.sqrt(d)
    if mask is not None:
        scores = jnp.where(mask[:, :2], scores, -1e9)
    weights = jax.nn.softmax(scores, axis=-1)
    out = weights @ x
    return out, weights.max(axis=-1)


class LayerNorm:
    def __init__(self, dim, eps=1e-5, affine=True):
        self.eps = eps
        self.affine = affine
        self.gamma = jnp.ones(dim)
        self.beta = jnp.zeros(dim)

    def __call__(self, x):
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        y = (x - mu) / jnp.sqrt(var + self.eps)
        if self.affine:
            y = y * self.gamma + self.beta
        return y


def _ln_step(affine, eps):
    def step(fn, ln):
        ln.affine = affine
        ln.eps = eps
        return fn(X4)
    return step


@stateful("models", [_ln_step(True, 1e-5), _ln_step(False, 1e-5), _ln_step(True, 10.0)])
def make_layernorm_object():
    ln = LayerNorm(4)
    return ln.__call__, ln


class Params(NamedTuple):
    w: jnp.ndarray
    b: jnp.ndarray


@program("models", (Params(jnp.ones((4, 2)), jnp.zeros(2)), X4), (Params(-jnp.ones((4, 2)), jnp.ones(2)), X4))
def linear_from_namedtuple(params, x):
    y = x @ params.w + params.b
    params = params._replace(b=params.b + y.mean(0))
    return y, params


@dataclass
class Config:
    hidden: int = 8
    dropout: float = 0.0
    residual: bool = True
    name: str = "block"


@program("models", (Config(), X4), (Config(residual=False, name="plain"), X4), (Config(dropout=0.5), X4))
def residual_block_config(cfg, x):
    h = jnp.tanh(x @ W1[:, : cfg.hidden])
    h = h @ W1[:, : cfg.hidden].T
    if cfg.dropout > 0:
        keep = jax.random.bernoulli(KEY, 1 - cfg.dropout, h.shape)
        h = jnp.where(keep, h / (1 - cfg.dropout), 0.0)
    out = x + h if cfg.residual else h
    return {"name": cfg.name, "out": out, "norm": float(jnp.linalg.norm(out))}


@dataclass
class RunningStats:
    mean: Optional[jnp.ndarray] = None
    count: int = 0
    history: list = field(default_factory=list)

    def update(self, batch):
        m = batch.mean(0)
        if self.mean is None:
            self.mean = m
        else:
            self.mean = self.mean + (m - self.mean) / (self.count + 1)
        self.count += 1
        self.history.append(self.count)
        return self.mean


def _rs_step(x):
    def step(fn, rs):
        out = fn(x)
        return out, rs.count, list(rs.history)
    return step


@stateful("models", [_rs_step(X4), _rs_step(X4 * 2), _rs_step(-X4)])
def make_running_stats_batchnorm():
    rs = RunningStats()
    return rs.update, rs


@program("models", (jnp.array([[1.0, 2.0, 3.0], [3.0, 3.0, 1.0]]),), (jnp.array([[0.0, 0.0, 0.0], [5.0, -1.0, 5.0]]),))
def classify_with_ties(logits):
    probs = jax.nn.softmax(logits, -1)
    preds = jnp.argmax(probs, -1)
    labels = []
    for i, p in enumerate(preds):
        name = ["cat", "dog", "bird"][int(p)]
        conf = float(probs[i, p])
        labels.append(f"{name}:{conf:.3f}")
    return labels, preds


class Conv1D:
    def __init__(self, kernel):
        self.kernel = kernel

    def forward(self, signal, padding="same"):
        k = self.kernel.shape[0]
        if padding == "same":
            pad = k // 2
            signal = jnp.pad(signal, (pad, k - 1 - pad))
        out = []
        for i in range(signal.shape[0] - k + 1):
            out.append(jnp.dot(signal[i:i + k], self.kernel[::-1]))
        return jnp.stack(out)


CONV = Conv1D(jnp.array([0.25, 0.5, 0.25]))


@program("models", (jnp.arange(6.0), "same"), (jnp.arange(6.0), "valid"))
def conv1d_forward(signal, padding):
    return CONV.forward(signal, padding)


@program("models", (X4, 0), (X4, 1), (X4, 3))
def stacked_layers_depth(x, depth):
    layers = [(W1, B1), (W1.T[:, :4] @ jnp.eye(4)[:, :4] if False else jnp.eye(8)[:, :8], jnp.ones(8) * 0.1)] * 2
    h = x @ W1
    for i, (w, b) in enumerate(layers[:depth]):
        if w.shape[0] != h.shape[-1]:
            print(f"skip layer {i}: shape {w.shape}")
            continue
        h = jax.nn.relu(h @ w + b)
    return h.sum(-1)


@program("models", (jnp.array([0.2, 0.5, 0.3]), 0.0), (jnp.array([0.2, 0.5, 0.3]), 1.0),
         (jnp.array([0.1, 0.1, 0.8]), 0.5))
def temperature_sampling_greedy(probs, temperature):
    if temperature == 0.0:
        return int(jnp.argmax(probs))
    logits = jnp.log(probs) / temperature
    return jax.random.categorical(KEY, logits)


@program("models", (jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([0, 1])),
         (jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([1, 5])))
def cross_entropy_with_label_check(logits, labels):
    n_classes = logits.shape[-1]
    if (labels >= n_classes).any():
        raise ValueError(f"label out of range: max label {int(labels.max())}, classes {n_classes}")
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, labels[:, None], axis=-1).squeeze(-1)
    return nll.mean()


class Embedding:
    vocab = {"<pad>": 0, "hello": 1, "world": 2, "<unk>": 3}

    def __init__(self):
        self.table = jnp.arange(16.0).reshape(4, 4)

    def encode(self, words):
        ids = [self.vocab.get(w, self.vocab["<unk>"]) for w in words]
        return self.table[jnp.array(ids)].mean(0), ids


EMB = Embedding()


@program("models", (["hello", "world"],), (["hello", "there", "<pad>"],))
def bag_of_words(words):
    vec, ids = EMB.encode(words)
    return vec, ids, len(set(ids))
