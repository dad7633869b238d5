"""Decoders: greedy, beam, sampling with a stop token, CTC collapse, Viterbi."""

import jax
import jax.numpy as jnp
import numpy as np

from .registry import program

_rng = np.random.default_rng(3)
V = 6
EOS = 0
# next-token logits of a bigram model: row = previous token
TABLE = jnp.asarray(_rng.normal(size=(V, V)), jnp.float32)
TABLE_EOS = TABLE.at[:, EOS].set(-5.0).at[3, EOS].set(5.0)       # reaches EOS after token 3
TABLE_NO_EOS = TABLE.at[:, EOS].set(-9.0)


@program("decoder", (TABLE_EOS, 2, 12), (TABLE_NO_EOS, 2, 12), (TABLE_EOS, 3, 12))
def greedy_decode_list(table, start, max_len):
    tokens = [start]
    for _ in range(max_len):
        nxt = int(jnp.argmax(table[tokens[-1]]))
        tokens.append(nxt)
        if nxt == EOS:
            break
    return tokens


@program("decoder", (TABLE_EOS, 2, 12), (TABLE_NO_EOS, 2, 12), (TABLE_EOS, 3, 12))
def greedy_decode_buffer(table, start, max_len):
    out = jnp.full((max_len,), -1, dtype=jnp.int32)
    tok = jnp.int32(start)
    length = 0
    for i in range(max_len):
        tok = jnp.argmax(table[tok]).astype(jnp.int32)
        out = out.at[i].set(tok)
        length += 1
        if tok == EOS:
            break
    return out, length


@program("decoder", (TABLE_EOS, 2, 3, 4), (TABLE_NO_EOS, 1, 2, 3))
def beam_search(table, start, beam, steps):
    logp = jax.nn.log_softmax(table, axis=-1)
    beams = [([start], 0.0)]
    for _ in range(steps):
        candidates = []
        for seq, score in beams:
            if seq[-1] == EOS:
                candidates.append((seq, score))
                continue
            row = logp[seq[-1]]
            for k in range(table.shape[1]):
                candidates.append((seq + [k], score + float(row[k])))
        beams = sorted(candidates, key=lambda c: c[1], reverse=True)[:beam]
    return beams[0][0], round(beams[0][1], 4)


@program("decoder", (jax.random.PRNGKey(0), TABLE_EOS, 6, 0.7), (jax.random.PRNGKey(1), TABLE_NO_EOS, 6, 1.5))
def sample_until_eos(key, table, max_len, temperature):
    tok = 1
    out = []
    for _ in range(max_len):
        key, sub = jax.random.split(key)
        tok = jax.random.categorical(sub, table[tok] / temperature)
        out.append(tok)
        if tok == EOS:
            break
    return jnp.stack(out), len(out)


@program("decoder", (jax.random.PRNGKey(0), TABLE, 8, 3), (jax.random.PRNGKey(5), TABLE, 8, 1))
def top_k_sampling(key, table, length, k):
    tok = jnp.int32(1)
    toks = jnp.zeros(length, jnp.int32)
    for i in range(length):
        key, sub = jax.random.split(key)
        vals, idx = jax.lax.top_k(table[tok], k)
        choice = jax.random.categorical(sub, vals)
        tok = idx[choice]
        toks = toks.at[i].set(tok)
    return toks


PROBS_A = jax.nn.softmax(jnp.asarray(_rng.normal(size=(10, 4)) * 3, jnp.float32), -1)
PROBS_B = jnp.tile(jnp.array([[0.9, 0.05, 0.03, 0.02]]), (10, 1))


@program("decoder", (PROBS_A,), (PROBS_B,))
def ctc_greedy(probs, blank=0):
    best = jnp.argmax(probs, axis=-1)
    out = []
    prev = -1
    for t in range(probs.shape[0]):
        c = int(best[t])
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


TRANS = jnp.log(jnp.array([[0.7, 0.2, 0.1], [0.3, 0.5, 0.2], [0.2, 0.3, 0.5]]))
EMIT_A = jnp.log(jax.nn.softmax(jnp.asarray(_rng.normal(size=(7, 3)) * 2, jnp.float32), -1))


@program("decoder", (TRANS, EMIT_A), (TRANS, EMIT_A[::-1]))
def viterbi(log_trans, log_emit):
    T, S = log_emit.shape
    score = log_emit[0] - jnp.log(S)
    back = []
    for t in range(1, T):
        cand = score[:, None] + log_trans
        back.append(jnp.argmax(cand, axis=0))
        score = jnp.max(cand, axis=0) + log_emit[t]
    state = int(jnp.argmax(score))
    path = [state]
    for t in range(T - 2, -1, -1):
        state = int(back[t][state])
        path.append(state)
    return path[::-1], score.max()


@program("decoder", (TABLE_EOS, jnp.ones(V) * 0.1, 15), (TABLE_NO_EOS, jnp.ones(V) * 0.1, 15))
def rnn_decode_while(table, h, max_len):
    tok = 2
    length = 0
    while tok != EOS and length < max_len:
        h = jnp.tanh(table[tok] + 0.5 * h)
        tok = jnp.argmax(h + table[tok])
        length += 1
    return h, length
