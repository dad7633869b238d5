"""The seed's eager model, ported to JAX: a Transformer decoder stack.

    for mod in self.layers:
        output = mod(output, memory, ...)
    if self.norm is not None:
        output = self.norm(output)

Run: ``python examples/transformer_decoder.py``. It converts the model's
``__call__`` with ``to_static``, checks the result against eager execution,
prints the time of each, what ``explain`` says and the ``ast2graph report``
of the model's ``__call__`` methods.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from common import compare, print_report


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mean) / jnp.sqrt(var + eps) + beta


def attention(q, k, v, mask=None):
    scores = q @ k.swapaxes(-1, -2) / jnp.sqrt(q.shape[-1])
    if mask is not None:
        scores = jnp.where(mask, scores, -1e9)
    return jax.nn.softmax(scores, axis=-1) @ v


class LayerNorm:
    def __init__(self, d):
        self.gamma = jnp.ones(d)
        self.beta = jnp.zeros(d)

    def __call__(self, x):
        return layer_norm(x, self.gamma, self.beta)


class DecoderLayer:
    def __init__(self, key, d, d_ff, norm_first=False):
        k = jax.random.split(key, 4)
        s = 1.0 / np.sqrt(d)
        self.w_self = jax.random.normal(k[0], (d, d)) * s
        self.w_cross = jax.random.normal(k[1], (d, d)) * s
        self.w1 = jax.random.normal(k[2], (d, d_ff)) * s
        self.w2 = jax.random.normal(k[3], (d_ff, d)) / np.sqrt(d_ff)
        self.norm1, self.norm2, self.norm3 = LayerNorm(d), LayerNorm(d), LayerNorm(d)
        self.norm_first = norm_first

    def _sa_block(self, x, mask):
        h = x @ self.w_self
        return attention(h, h, h, mask)

    def _mha_block(self, x, memory):
        q = x @ self.w_cross
        return attention(q, memory, memory)

    def _ff_block(self, x):
        return jax.nn.relu(x @ self.w1) @ self.w2

    def __call__(self, tgt, memory, tgt_mask=None):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask)
            x = x + self._mha_block(self.norm2(x), memory)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask))
            x = self.norm2(x + self._mha_block(x, memory))
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerDecoder:
    def __init__(self, layers, norm=None):
        self.layers = layers
        self.num_layers = len(layers)
        self.norm = norm

    def __call__(self, tgt, memory, tgt_mask=None):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


def build(num_layers=6, d=64, d_ff=256, seed=0):
    keys = jax.random.split(jax.random.PRNGKey(seed), num_layers)
    layers = [DecoderLayer(k, d, d_ff, norm_first=(i % 2 == 1)) for i, k in enumerate(keys)]
    return TransformerDecoder(layers, norm=LayerNorm(d))


def main(num_layers=6, d=64, d_ff=256, tgt_len=16, mem_len=24, repeat=20) -> int:
    model = build(num_layers, d, d_ff)
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    tgt = jax.random.normal(k1, (tgt_len, d))
    memory = jax.random.normal(k2, (mem_len, d))
    mask = jnp.tril(jnp.ones((tgt_len, tgt_len), dtype=bool))
    print(f"Transformer decoder stack: {num_layers} layers, d={d}, tgt {tgt_len}x{d}, memory {mem_len}x{d}")
    print()
    c = compare("[model(tgt, memory, mask)]", model, to_static(model, full_graph=True), tgt, memory, mask,
                repeat=repeat)
    print()
    print_report(__file__, ["TransformerDecoder.__call__", "DecoderLayer.__call__"])
    return 0 if c.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
