"""The Decision Transformer's attention block (HuggingFace's
``DecisionTransformerGPT2Attention``, a copy of ``GPT2Attention``) ported
line by line from its eager PyTorch code to JAX, and converted as it is:

    if encoder_hidden_states is not None:         # cross- or self-attention
        ...
    if layer_past is not None:                    # cached keys/values
        ...
    if use_cache is True:                         # return present keys/values
        present = (key, value)
    if self.reorder_and_upcast_attn:              # config flag: attention path
        ...
    outputs = (attn_output, present) if use_cache else (attn_output,)
    if output_attentions:
        outputs += (attn_weights,)

and in ``_attn``: ``if self.scale_attn_weights``, ``if not
self.is_cross_attention`` (the causal mask), ``if attention_mask is not
None``, ``if head_mask is not None``. All of them are decided at trace time
(None, flags, config), so each call configuration is one graph.

Run: ``python examples/decision_transformer_attention.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from common import compare, print_report


@dataclass
class GPT2Config:
    hidden_size: int = 128
    num_attention_heads: int = 4
    max_position_embeddings: int = 256
    scale_attn_weights: bool = True
    scale_attn_by_inverse_layer_idx: bool = False
    reorder_and_upcast_attn: bool = False
    attn_pdrop: float = 0.1
    resid_pdrop: float = 0.1


class Conv1D:
    """GPT-2's Conv1D: a linear layer with transposed weights."""

    def __init__(self, nf, nx, rng):
        self.nf = nf
        self.weight = jnp.asarray(rng.normal(size=(nx, nf)) * 0.02, dtype=jnp.float32)
        self.bias = jnp.zeros(nf)

    def __call__(self, x):
        size_out = x.shape[:-1] + (self.nf,)
        x = x.reshape(-1, x.shape[-1]) @ self.weight + self.bias
        return x.reshape(size_out)


class Dropout:
    def __init__(self, p):
        self.p = p
        self.training = False   # inference: identity, as nn.Dropout in eval()

    def __call__(self, x, key=None):
        if not self.training or self.p == 0.0:
            return x
        keep = jax.random.bernoulli(key, 1.0 - self.p, x.shape)
        return jnp.where(keep, x / (1.0 - self.p), 0.0)


class DecisionTransformerGPT2Attention:
    def __init__(self, config, rng, is_cross_attention=False, layer_idx=None):
        max_positions = config.max_position_embeddings
        self.bias = jnp.tril(jnp.ones((max_positions, max_positions), dtype=bool)).reshape(
            1, 1, max_positions, max_positions)
        self.embed_dim = config.hidden_size
        self.num_heads = config.num_attention_heads
        self.head_dim = self.embed_dim // self.num_heads
        self.split_size = self.embed_dim
        if self.head_dim * self.num_heads != self.embed_dim:
            raise ValueError(f"`embed_dim` must be divisible by num_heads (got `embed_dim`: {self.embed_dim} and"
                             f" `num_heads`: {self.num_heads}).")
        self.scale_attn_weights = config.scale_attn_weights
        self.is_cross_attention = is_cross_attention
        self.scale_attn_by_inverse_layer_idx = config.scale_attn_by_inverse_layer_idx
        self.layer_idx = layer_idx
        self.reorder_and_upcast_attn = config.reorder_and_upcast_attn
        if self.is_cross_attention:
            self.c_attn = Conv1D(2 * self.embed_dim, self.embed_dim, rng)
            self.q_attn = Conv1D(self.embed_dim, self.embed_dim, rng)
        else:
            self.c_attn = Conv1D(3 * self.embed_dim, self.embed_dim, rng)
        self.c_proj = Conv1D(self.embed_dim, self.embed_dim, rng)
        self.attn_dropout = Dropout(config.attn_pdrop)
        self.resid_dropout = Dropout(config.resid_pdrop)

    def _attn(self, query, key, value, attention_mask=None, head_mask=None):
        attn_weights = jnp.matmul(query, key.swapaxes(-1, -2))

        if self.scale_attn_weights:
            attn_weights = attn_weights / jnp.full([], value.shape[-1] ** 0.5, dtype=attn_weights.dtype)

        # Layer-wise attention scaling
        if self.scale_attn_by_inverse_layer_idx:
            attn_weights = attn_weights / float(self.layer_idx + 1)

        if not self.is_cross_attention:
            # if only "normal" attention layer implements causal mask
            query_length, key_length = query.shape[-2], key.shape[-2]
            causal_mask = self.bias[:, :, key_length - query_length: key_length, :key_length]
            mask_value = jnp.finfo(attn_weights.dtype).min
            mask_value = jnp.full([], mask_value, dtype=attn_weights.dtype)
            attn_weights = jnp.where(causal_mask, attn_weights, mask_value)

        if attention_mask is not None:
            # Apply the attention mask
            attn_weights = attn_weights + attention_mask

        attn_weights = jax.nn.softmax(attn_weights, axis=-1)
        attn_weights = attn_weights.astype(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)

        # Mask heads if we want to
        if head_mask is not None:
            attn_weights = attn_weights * head_mask

        attn_output = jnp.matmul(attn_weights, value)
        return attn_output, attn_weights

    def _upcast_and_reordered_attn(self, query, key, value, attention_mask=None, head_mask=None):
        bsz, num_heads, q_seq_len, dk = query.shape
        _, _, k_seq_len, _ = key.shape

        # Compute Scale Factor
        scale_factor = 1.0
        if self.scale_attn_weights:
            scale_factor /= float(value.shape[-1]) ** 0.5

        if self.scale_attn_by_inverse_layer_idx:
            scale_factor /= float(self.layer_idx + 1)

        # Upcast (turn off autocast) and reorder (Scale K by 1 / root(dk))
        q, k = query.reshape(-1, q_seq_len, dk), key.swapaxes(-1, -2).reshape(-1, dk, k_seq_len)
        attn_weights = scale_factor * jnp.matmul(q.astype(jnp.float32), k.astype(jnp.float32))
        attn_weights = attn_weights.reshape(bsz, num_heads, q_seq_len, k_seq_len)

        if not self.is_cross_attention:
            # if only "normal" attention layer implements causal mask
            query_length, key_length = query.shape[-2], key.shape[-2]
            causal_mask = self.bias[:, :, key_length - query_length: key_length, :key_length]
            mask_value = jnp.finfo(attn_weights.dtype).min
            mask_value = jnp.array(mask_value, dtype=attn_weights.dtype)
            attn_weights = jnp.where(causal_mask, attn_weights, mask_value)

        if attention_mask is not None:
            # Apply the attention mask
            attn_weights = attn_weights + attention_mask

        attn_weights = jax.nn.softmax(attn_weights, axis=-1)

        # Downcast (if necessary) back to V's dtype (if in mixed-precision) -- No-Op if otherwise
        if attn_weights.dtype != jnp.float32:
            raise RuntimeError("Error with upcasting, attn_weights does not have dtype float32")
        attn_weights = attn_weights.astype(value.dtype)
        attn_weights = self.attn_dropout(attn_weights)

        # Mask heads if we want to
        if head_mask is not None:
            attn_weights = attn_weights * head_mask

        attn_output = jnp.matmul(attn_weights, value)
        return attn_output, attn_weights

    def _split_heads(self, tensor, num_heads, attn_head_size):
        """Splits hidden_size dim into attn_head_size and num_heads."""
        new_shape = tensor.shape[:-1] + (num_heads, attn_head_size)
        tensor = tensor.reshape(new_shape)
        return tensor.transpose(0, 2, 1, 3)  # (batch, head, seq_length, head_features)

    def _merge_heads(self, tensor, num_heads, attn_head_size):
        """Merges attn_head_size dim and num_attn_heads dim into hidden_size."""
        tensor = tensor.transpose(0, 2, 1, 3)
        new_shape = tensor.shape[:-2] + (num_heads * attn_head_size,)
        return tensor.reshape(new_shape)

    def __call__(self, hidden_states, layer_past=None, attention_mask=None, head_mask=None,
                 encoder_hidden_states=None, encoder_attention_mask=None, use_cache=False,
                 output_attentions=False):
        if encoder_hidden_states is not None:
            if not hasattr(self, "q_attn"):
                raise ValueError(
                    "If class is used as cross attention, the weights `q_attn` have to be defined. "
                    "Please make sure to instantiate class with `DecisionTransformerGPT2Attention(..., is_cross_attention=True)`."
                )
            query = self.q_attn(hidden_states)
            key, value = jnp.split(self.c_attn(encoder_hidden_states), [self.split_size], axis=2)
            attention_mask = encoder_attention_mask
        else:
            query, key, value = jnp.split(self.c_attn(hidden_states), [self.split_size, 2 * self.split_size], axis=2)

        query = self._split_heads(query, self.num_heads, self.head_dim)
        key = self._split_heads(key, self.num_heads, self.head_dim)
        value = self._split_heads(value, self.num_heads, self.head_dim)

        if layer_past is not None:
            past_key, past_value = layer_past
            key = jnp.concatenate((past_key, key), axis=-2)
            value = jnp.concatenate((past_value, value), axis=-2)

        if use_cache is True:
            present = (key, value)
        else:
            present = None

        if self.reorder_and_upcast_attn:
            attn_output, attn_weights = self._upcast_and_reordered_attn(query, key, value, attention_mask, head_mask)
        else:
            attn_output, attn_weights = self._attn(query, key, value, attention_mask, head_mask)

        attn_output = self._merge_heads(attn_output, self.num_heads, self.head_dim)
        attn_output = self.c_proj(attn_output)
        attn_output = self.resid_dropout(attn_output)

        outputs = (attn_output, present) if use_cache else (attn_output,)
        if output_attentions:
            outputs += (attn_weights,)

        return outputs  # a, present, (attentions)


def extended_mask(mask):
    """HF's additive mask from a (batch, key_len) 0/1 mask: 0 where kept, the dtype minimum where masked."""
    return jnp.asarray((1.0 - mask[:, None, None, :]) * np.finfo(np.float32).min, dtype=jnp.float32)


def main(batch=4, seq=64, past=32, hidden=128, heads=4, repeat=20) -> int:
    rng = np.random.default_rng(0)
    normal = lambda *shape: jnp.asarray(rng.normal(size=shape), dtype=jnp.float32)  # noqa: E731
    cfg = GPT2Config(hidden_size=hidden, num_attention_heads=heads, max_position_embeddings=max(256, past + seq))
    self_attn = DecisionTransformerGPT2Attention(cfg, rng, layer_idx=0)
    upcast_cfg = GPT2Config(hidden_size=hidden, num_attention_heads=heads, max_position_embeddings=cfg.max_position_embeddings,
                            reorder_and_upcast_attn=True, scale_attn_by_inverse_layer_idx=True)
    upcast_attn = DecisionTransformerGPT2Attention(upcast_cfg, rng, layer_idx=2)
    cross_attn = DecisionTransformerGPT2Attention(cfg, rng, is_cross_attention=True, layer_idx=1)

    x = normal(batch, seq, hidden)
    enc = normal(batch, seq + 8, hidden)
    head_dim = hidden // heads
    layer_past = (normal(batch, heads, past, head_dim), normal(batch, heads, past, head_dim))
    # padding masks: example k has its last 3k (key) / k (encoder) positions masked
    keep = np.arange(past + seq)[None, :] < (past + seq - np.arange(batch)[:, None] * 3)
    attention_mask = extended_mask(keep.astype(np.float32))
    enc_mask = extended_mask((np.arange(seq + 8)[None, :] < seq + 8 - np.arange(batch)[:, None]).astype(np.float32))
    head_mask = jnp.asarray(np.array([1.0, 0.0] * (heads // 2) + [1.0] * (heads % 2), dtype=np.float32).reshape(1, heads, 1, 1))

    configs = [
        ("self-attention, no cache, no masks", self_attn, (x,), {}),
        ("self-attention + layer_past, use_cache, attention/head mask, output_attentions",
         self_attn, (x,), dict(layer_past=layer_past, attention_mask=attention_mask, head_mask=head_mask,
                               use_cache=True, output_attentions=True)),
        ("reorder_and_upcast_attn + scale_attn_by_inverse_layer_idx, use_cache",
         upcast_attn, (x,), dict(use_cache=True)),
        ("cross-attention (encoder_hidden_states, encoder_attention_mask), output_attentions",
         cross_attn, (x,), dict(encoder_hidden_states=enc, encoder_attention_mask=enc_mask, output_attentions=True)),
    ]
    print(f"DecisionTransformerGPT2Attention: batch {batch}, seq {seq}, past {past}, hidden {hidden}, {heads} heads")
    ok = True
    for label, module, args, kwargs in configs:
        print()
        c = compare(f"[{label}]", module, to_static(module, full_graph=True), *args, repeat=repeat,
                    rtol=1e-4, atol=1e-5, **kwargs)
        ok = ok and c.ok
    print()
    print_report(__file__, ["DecisionTransformerGPT2Attention.__call__", "DecisionTransformerGPT2Attention._attn",
                            "DecisionTransformerGPT2Attention._upcast_and_reordered_attn"])
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
