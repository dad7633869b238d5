"""Benchmark programs: each in plain eager style, with a hand-written equivalent.

Every eager program below is ordinary JAX/NumPy-style Python: ``while`` and
``for`` loops and ``if`` on ``jnp`` arrays. ``ast2graph.to_static`` converts
them; the ``*_lax`` functions next to them are what a JAX user would write by
hand for the same computation (``jax.jit`` + ``lax.while_loop`` /
``lax.fori_loop`` / ``lax.cond``). ``benchmarks/run.py`` times all three.

Each program has a ``make_*(quick)`` factory returning a ``Program``: the
eager function (what ``to_static`` converts), the hand-written jitted
function, and the arguments both are called with.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

_EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
if str(_EXAMPLES) not in sys.path:
    sys.path.insert(0, str(_EXAMPLES))

import newton_solver  # noqa: E402  (examples/newton_solver.py)
import transformer_decoder  # noqa: E402  (examples/transformer_decoder.py)


@dataclass
class Program:
    name: str            # row label
    detail: str          # sizes, one line
    eager: Callable      # the eager program (converted by to_static)
    hand: Callable       # hand-written jax.jit + lax equivalent
    args: tuple
    hand_label: str = "jax.jit + lax"
    hand_args: tuple | None = None   # when the hand-written version takes other arguments
    rtol: float = 1e-5
    atol: float = 1e-5
    extra: dict = field(default_factory=dict)

    @property
    def hand_call_args(self) -> tuple:
        return self.args if self.hand_args is None else self.hand_args


# --------------------------------------------------------------------------
# 1. Newton square root: while on a tensor tolerance, then an if on the count.
#    Eager program: examples/newton_solver.py::newton_sqrt
#
#    def newton_sqrt(a, tol=1e-3, max_iter=50):
#        x = jnp.where(a > 1.0, a / 2.0, 1.0)
#        it = 0
#        while jnp.max(jnp.abs(x * x - a)) > tol and it < max_iter:
#            x = 0.5 * (x + a / x)
#            it += 1
#        if it == max_iter:
#            x = jnp.full_like(x, jnp.nan)
#        return x, it
# --------------------------------------------------------------------------
newton_sqrt = newton_solver.newton_sqrt


@functools.partial(jax.jit, static_argnames=("tol", "max_iter"))
def newton_sqrt_lax(a, tol=1e-3, max_iter=50):
    x0 = jnp.where(a > 1.0, a / 2.0, 1.0)

    def cond(state):
        x, it = state
        return (jnp.max(jnp.abs(x * x - a)) > tol) & (it < max_iter)

    def body(state):
        x, it = state
        return 0.5 * (x + a / x), it + 1

    x, it = lax.while_loop(cond, body, (x0, jnp.int32(0)))
    x = lax.cond(it == max_iter, lambda x: jnp.full_like(x, jnp.nan), lambda x: x, x)
    return x, it


def make_newton(quick: bool) -> Program:
    n = 1000 if quick else 100_000
    a = jnp.linspace(0.5, 400.0, n)
    return Program("Newton sqrt (while + if)", f"{n} values, tol 1e-3", newton_sqrt, newton_sqrt_lax, (a,))


# --------------------------------------------------------------------------
# 2. RNN with early stopping: tanh cell, hidden 64, up to T steps over the
#    rows of xs; stops once the hidden state changes by less than tol.
#    (``break`` under a traced condition falls back to Python in this
#    version of ast2graph, so the early stop is a ``while ... and not done``.)
# --------------------------------------------------------------------------
class TanhCell:
    def __init__(self, key, d_in, d_hidden):
        k1, k2 = jax.random.split(key)
        self.w_x = jax.random.normal(k1, (d_in, d_hidden)) / np.sqrt(d_in)
        # spectral radius < 1, so the state settles once the input fades
        self.w_h = jax.random.normal(k2, (d_hidden, d_hidden)) * (0.5 / np.sqrt(d_hidden))
        self.b = jnp.full((d_hidden,), 0.1)

    def __call__(self, h, x):
        return jnp.tanh(x @ self.w_x + h @ self.w_h + self.b)


def rnn_early_stop(cell, xs, h0, tol=1e-4):
    T = xs.shape[0]
    h = h0
    t = 0
    done = False
    while t < T and not done:
        h_prev = h
        h = cell(h, xs[t])
        done = jnp.linalg.norm(h - h_prev) < tol
        t += 1
    return h, t


@jax.jit
def rnn_early_stop_lax(params, xs, h0, tol=1e-4):
    w_x, w_h, b = params
    T = xs.shape[0]

    def cond(state):
        t, h, done = state
        return (t < T) & ~done

    def body(state):
        t, h, _ = state
        h_new = jnp.tanh(xs[t] @ w_x + h @ w_h + b)
        done = jnp.linalg.norm(h_new - h) < tol
        return t + 1, h_new, done

    t, h, _ = lax.while_loop(cond, body, (jnp.int32(0), h0, jnp.bool_(False)))
    return h, t


def make_rnn(quick: bool) -> Program:
    T, d_in, d_h = 200, 32, 64
    cell = TanhCell(jax.random.PRNGKey(0), d_in, d_h)
    steps = jnp.arange(T, dtype=jnp.float32)[:, None]
    # an input that fades out, so the state converges and the loop stops early
    xs = jax.random.normal(jax.random.PRNGKey(1), (T, d_in)) * jnp.exp(-steps / 15.0)
    h0 = jnp.zeros((d_h,))
    return Program("RNN early stop (while + not done)", f"tanh cell, hidden {d_h}, input {d_in}, T={T}, tol 1e-4",
                   rnn_early_stop, rnn_early_stop_lax, (cell, xs, h0),
                   hand_args=((cell.w_x, cell.w_h, cell.b), xs, h0))


# --------------------------------------------------------------------------
# 3. A long Python for-loop accumulation (rolled to one fori_loop).
# --------------------------------------------------------------------------
def sin_accumulate(x, n):
    acc = jnp.zeros_like(x)
    for i in range(n):
        acc = acc + jnp.sin(x * i)
    return acc


@functools.partial(jax.jit, static_argnames=("n",))
def sin_accumulate_lax(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc + jnp.sin(x * i), jnp.zeros_like(x))


def make_accumulate(quick: bool) -> Program:
    n = 1000 if quick else 10_000
    x = jnp.linspace(0.0, 1.0, 256)
    return Program(f"for-range accumulation (n={n})", f"acc + sin(x*i), x of 256, {n} iterations",
                   sin_accumulate, sin_accumulate_lax, (x, n), rtol=1e-4, atol=1e-3)


# --------------------------------------------------------------------------
# 4. Bisection: elementwise cube roots, while on the interval width.
# --------------------------------------------------------------------------
def bisect_cbrt(c, tol=1e-5):
    lo = jnp.zeros_like(c)
    hi = jnp.maximum(c, 1.0)
    it = 0
    while jnp.max(hi - lo) > tol:
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        lo = jnp.where(below, mid, lo)
        hi = jnp.where(below, hi, mid)
        it += 1
    return 0.5 * (lo + hi), it


@functools.partial(jax.jit, static_argnames=("tol",))
def bisect_cbrt_lax(c, tol=1e-5):
    def cond(state):
        lo, hi, _ = state
        return jnp.max(hi - lo) > tol

    def body(state):
        lo, hi, it = state
        mid = 0.5 * (lo + hi)
        below = mid * mid * mid < c
        return jnp.where(below, mid, lo), jnp.where(below, hi, mid), it + 1

    lo, hi, it = lax.while_loop(cond, body, (jnp.zeros_like(c), jnp.maximum(c, 1.0), jnp.int32(0)))
    return 0.5 * (lo + hi), it


def make_bisection(quick: bool) -> Program:
    n = 1000 if quick else 100_000
    c = jnp.linspace(0.0, 1000.0, n)
    return Program("bisection cube root (while)", f"{n} values in [0, 1000], width tol 1e-5",
                   bisect_cbrt, bisect_cbrt_lax, (c,))


# --------------------------------------------------------------------------
# 5. Collatz step counter on a scalar int32 (a data-dependent trip count).
# --------------------------------------------------------------------------
def collatz_steps(n):
    steps = 0
    while n != 1:
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        steps += 1
    return steps


@jax.jit
def collatz_steps_lax(n):
    def body(state):
        n, steps = state
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1

    _, steps = lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))
    return steps


def make_collatz(quick: bool) -> Program:
    start = 27 if quick else 77031     # 111 / 350 steps; 77031 peaks at 21,933,016 (fits int32)
    return Program(f"Collatz steps (while, n0={start})", f"scalar int32 start {start}",
                   collatz_steps, collatz_steps_lax, (jnp.int32(start),))


# --------------------------------------------------------------------------
# 6. The Transformer decoder stack of examples/transformer_decoder.py
#    (static control flow only: a loop over the layer list, static ifs).
# --------------------------------------------------------------------------
def make_transformer(quick: bool) -> Program:
    model = transformer_decoder.build()
    k1, k2 = jax.random.split(jax.random.PRNGKey(1))
    tgt = jax.random.normal(k1, (16, 64))
    memory = jax.random.normal(k2, (24, 64))
    mask = jnp.tril(jnp.ones((16, 16), dtype=bool))
    return Program("Transformer decoder (6 layers)", "d=64, d_ff=256, tgt 16x64, memory 24x64",
                   model, jax.jit(model.__call__), (tgt, memory, mask), hand_label="jax.jit")


# --------------------------------------------------------------------------
# 7./8. Greedy and beam decoding of a small recurrent language model, each a
#    ``while not done`` loop that stops at the end-of-sequence token.
# --------------------------------------------------------------------------
class TinyLM:
    """Embedding, a tanh recurrent cell and an output projection."""

    def __init__(self, key, vocab, d):
        k = jax.random.split(key, 4)
        self.vocab, self.d = vocab, d
        self.emb = jax.random.normal(k[0], (vocab, d))
        self.w_h = jax.random.normal(k[1], (d, d)) * (0.9 / np.sqrt(d))
        self.b = jax.random.normal(k[2], (d,)) * 0.1
        self.w_out = jax.random.normal(k[3], (d, vocab)) * (3.0 / np.sqrt(d))

    def step(self, h, tok):
        return jnp.tanh(self.emb[tok] + h @ self.w_h + self.b)

    def params(self):
        return self.emb, self.w_h, self.b, self.w_out


def greedy_decode(lm, bos, eos, max_len=64):
    h = jnp.zeros((lm.d,))
    tok = bos
    out = jnp.zeros((max_len,), jnp.int32)
    t = 0
    done = False
    while not done:
        h = lm.step(h, tok)
        tok = jnp.argmax(h @ lm.w_out).astype(jnp.int32)
        out = out.at[t].set(tok)
        t += 1
        done = tok == eos or t >= max_len
    return out, t


@functools.partial(jax.jit, static_argnames=("max_len",))
def greedy_decode_lax(params, bos, eos, max_len=64):
    emb, w_h, b, w_out = params

    def cond(state):
        return ~state[4]

    def body(state):
        h, tok, out, t, _ = state
        h = jnp.tanh(emb[tok] + h @ w_h + b)
        tok = jnp.argmax(h @ w_out).astype(jnp.int32)
        out = out.at[t].set(tok)
        t = t + 1
        return h, tok, out, t, (tok == eos) | (t >= max_len)

    init = (jnp.zeros((w_h.shape[0],)), bos, jnp.zeros((max_len,), jnp.int32), jnp.int32(0), jnp.bool_(False))
    _, _, out, t, _ = lax.while_loop(cond, body, init)
    return out, t


def _eos_at(seq, lo: int) -> int:
    """A token whose first occurrence in ``seq`` is at position ``lo`` or
    later (so that a decoder with it as end-of-sequence stops there)."""
    seq = [int(v) for v in np.asarray(seq).reshape(-1)]
    for i in range(lo, len(seq)):
        if seq[i] not in seq[:i]:
            return seq[i]
    return -1


def make_greedy(quick: bool) -> Program:
    vocab, d, max_len = 512, 128, 64
    lm = TinyLM(jax.random.PRNGKey(3), vocab, d)
    bos = jnp.int32(1)
    full, _ = greedy_decode(lm, bos, jnp.int32(-1), max_len)   # never stops early: pick an EOS it meets
    eos = jnp.int32(_eos_at(full, max_len * 3 // 4))
    return Program("greedy decoding (while not done)", f"tanh LM, vocab {vocab}, d {d}, max_len {max_len}, "
                   f"EOS met at step {int(greedy_decode(lm, bos, eos, max_len)[1])}",
                   greedy_decode, greedy_decode_lax, (lm, bos, eos, max_len),
                   hand_args=(lm.params(), bos, eos, max_len))


def beam_decode(lm, bos, eos, beam=4, max_len=32):
    V = lm.vocab
    h = jnp.zeros((beam, lm.d))
    tok = jnp.full((beam,), bos, jnp.int32)
    scores = jnp.array([0.0] + [-1e9] * (beam - 1))   # one live beam at the start
    seqs = jnp.zeros((beam, max_len), jnp.int32)
    finished = jnp.zeros((beam,), bool)
    only_eos = jnp.where(jnp.arange(V) == eos, 0.0, -1e9)
    t = 0
    done = False
    while not done:
        h = lm.step(h, tok)
        logp = jax.nn.log_softmax(h @ lm.w_out, axis=-1)
        logp = jnp.where(finished[:, None], only_eos, logp)   # a finished beam only continues with EOS, at no cost
        scores, flat = lax.top_k((scores[:, None] + logp).reshape(-1), beam)
        src = flat // V
        tok = (flat % V).astype(jnp.int32)
        h = h[src]
        seqs = seqs[src].at[:, t].set(tok)
        finished = finished[src] | (tok == eos)
        t += 1
        # scores only fall: once the best beam has ended, no other can overtake it
        done = finished[0] or t >= max_len
    return seqs, scores, t


@functools.partial(jax.jit, static_argnames=("beam", "max_len"))
def beam_decode_lax(params, bos, eos, beam=4, max_len=32):
    emb, w_h, b, w_out = params
    V = w_out.shape[1]
    only_eos = jnp.where(jnp.arange(V) == eos, 0.0, -1e9)

    def body(state):
        h, tok, scores, seqs, finished, t, _ = state
        h = jnp.tanh(emb[tok] + h @ w_h + b)
        logp = jax.nn.log_softmax(h @ w_out, axis=-1)
        logp = jnp.where(finished[:, None], only_eos, logp)
        scores, flat = lax.top_k((scores[:, None] + logp).reshape(-1), beam)
        src = flat // V
        tok = (flat % V).astype(jnp.int32)
        seqs = seqs[src].at[:, t].set(tok)
        finished = finished[src] | (tok == eos)
        t = t + 1
        return h[src], tok, scores, seqs, finished, t, finished[0] | (t >= max_len)

    init = (jnp.zeros((beam, w_h.shape[0])), jnp.full((beam,), bos, jnp.int32),
            jnp.array([0.0] + [-1e9] * (beam - 1)), jnp.zeros((beam, max_len), jnp.int32),
            jnp.zeros((beam,), bool), jnp.int32(0), jnp.bool_(False))
    _, _, scores, seqs, _, t, _ = lax.while_loop(lambda s: ~s[6], body, init)
    return seqs, scores, t


def make_beam(quick: bool) -> Program:
    vocab, d, beam, max_len = 512, 128, 4, 32
    lm = TinyLM(jax.random.PRNGKey(4), vocab, d)
    bos = jnp.int32(1)
    params = lm.params()
    seqs, _, _ = beam_decode_lax(params, bos, jnp.int32(-1), beam, max_len)
    # an EOS token that ends the best beam between a third and three quarters of max_len
    eos, steps = jnp.int32(-1), max_len
    for cand in dict.fromkeys(int(v) for v in np.asarray(seqs).T.reshape(-1)):
        t = int(beam_decode_lax(params, bos, jnp.int32(cand), beam, max_len)[2])
        if max_len // 3 <= t <= max_len * 3 // 4:
            eos, steps = jnp.int32(cand), t
            break
    return Program("beam decoding (beam 4, while not done)", f"tanh LM, vocab {vocab}, d {d}, beam {beam}, "
                   f"max_len {max_len}, best beam ends at step {steps}",
                   beam_decode, beam_decode_lax, (lm, bos, eos, beam, max_len),
                   hand_args=(params, bos, eos, beam, max_len), rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------
# 9. k-means (Lloyd's algorithm) until the centroids stop moving.
# --------------------------------------------------------------------------
def kmeans(x, centroids, tol=1e-4, max_iter=100):
    k = centroids.shape[0]
    assign = jnp.zeros((x.shape[0],), jnp.int32)
    shift = jnp.inf
    it = 0
    while shift > tol and it < max_iter:
        d2 = jnp.sum((x[:, None, :] - centroids[None, :, :]) ** 2, axis=-1)
        assign = jnp.argmin(d2, axis=1).astype(jnp.int32)
        onehot = jax.nn.one_hot(assign, k)
        counts = onehot.sum(axis=0)
        new = (onehot.T @ x) / jnp.maximum(counts, 1.0)[:, None]
        new = jnp.where(counts[:, None] > 0, new, centroids)   # an empty cluster keeps its centroid
        shift = jnp.max(jnp.linalg.norm(new - centroids, axis=1))
        centroids = new
        it += 1
    return centroids, assign, it


@functools.partial(jax.jit, static_argnames=("tol", "max_iter"))
def kmeans_lax(x, centroids, tol=1e-4, max_iter=100):
    k = centroids.shape[0]

    def cond(state):
        _, _, shift, it = state
        return (shift > tol) & (it < max_iter)

    def body(state):
        c, _, _, it = state
        d2 = jnp.sum((x[:, None, :] - c[None, :, :]) ** 2, axis=-1)
        assign = jnp.argmin(d2, axis=1).astype(jnp.int32)
        onehot = jax.nn.one_hot(assign, k)
        counts = onehot.sum(axis=0)
        new = (onehot.T @ x) / jnp.maximum(counts, 1.0)[:, None]
        new = jnp.where(counts[:, None] > 0, new, c)
        return new, assign, jnp.max(jnp.linalg.norm(new - c, axis=1)), it + 1

    init = (centroids, jnp.zeros((x.shape[0],), jnp.int32), jnp.float32(jnp.inf), jnp.int32(0))
    c, assign, _, it = lax.while_loop(cond, body, init)
    return c, assign, it


def make_kmeans(quick: bool) -> Program:
    n, k, dim = (500, 8, 2) if quick else (4000, 8, 2)
    kc, kx, ka = jax.random.split(jax.random.PRNGKey(5), 3)
    centers = jax.random.uniform(kc, (k, dim), minval=-10.0, maxval=10.0)
    x = centers[jax.random.randint(ka, (n,), 0, k)] + jax.random.normal(kx, (n, dim)) * 2.0
    init = x[:k]
    return Program("k-means until convergence (while)", f"{n} points in {dim}-D, k={k}, shift tol 1e-4",
                   kmeans, kmeans_lax, (x, init), rtol=1e-4, atol=1e-4)


# --------------------------------------------------------------------------
# 10. Mandelbrot escape counts: iterate while any point is still bounded.
# --------------------------------------------------------------------------
def mandelbrot(c, max_iter=100):
    z = jnp.zeros_like(c)
    count = jnp.zeros(c.shape, jnp.int32)
    it = 0
    while it < max_iter and jnp.any(jnp.abs(z) <= 2.0):
        inside = jnp.abs(z) <= 2.0
        z = jnp.where(inside, z * z + c, z)
        count = count + inside
        it += 1
    return count, it


@functools.partial(jax.jit, static_argnames=("max_iter",))
def mandelbrot_lax(c, max_iter=100):
    def cond(state):
        z, _, it = state
        return (it < max_iter) & jnp.any(jnp.abs(z) <= 2.0)

    def body(state):
        z, count, it = state
        inside = jnp.abs(z) <= 2.0
        return jnp.where(inside, z * z + c, z), count + inside, it + 1

    _, count, it = lax.while_loop(cond, body, (jnp.zeros_like(c), jnp.zeros(c.shape, jnp.int32), jnp.int32(0)))
    return count, it


def make_mandelbrot(quick: bool) -> Program:
    h, w = (48, 64) if quick else (240, 320)
    re = jnp.linspace(-2.2, 0.8, w)
    im = jnp.linspace(-1.2, 1.2, h)
    c = (re[None, :] + 1j * im[:, None]).astype(jnp.complex64)
    return Program("Mandelbrot escape loop (while any)", f"{h}x{w} complex64 grid, up to 100 iterations",
                   mandelbrot, mandelbrot_lax, (c,))


# --------------------------------------------------------------------------
# 11. Cumulative sum over the rows of an array that stops (``break``) once a
#     running total passes a limit.
# --------------------------------------------------------------------------
def cumsum_until(xs, limit):
    total = jnp.zeros(xs.shape[1:])
    out = jnp.zeros_like(xs)
    for i in range(xs.shape[0]):
        total = total + xs[i]
        if jnp.max(total) > limit:
            break
        out = out.at[i].set(total)
    return out, total


@jax.jit
def cumsum_until_lax(xs, limit):
    n = xs.shape[0]

    def cond(state):
        i, _, _, broke = state
        return (i < n) & ~broke

    def body(state):
        i, total, out, _ = state
        total = total + xs[i]
        broke = jnp.max(total) > limit
        out = lax.cond(broke, lambda o: o, lambda o: o.at[i].set(total), out)
        return i + 1, total, out, broke

    _, total, out, _ = lax.while_loop(cond, body, (jnp.int32(0), jnp.zeros(xs.shape[1:]), jnp.zeros_like(xs),
                                                   jnp.bool_(False)))
    return out, total


def make_cumsum(quick: bool) -> Program:
    n, dim = (200, 16) if quick else (2000, 64)
    xs = jax.random.uniform(jax.random.PRNGKey(6), (n, dim))   # rows in [0, 1): totals grow by ~0.5 a row
    limit = jnp.float32(0.35 * n)                            # passed about 70% of the way through
    return Program("cumulative scan with break (for + break)", f"{n} rows of {dim}, break once max(total) > {0.35 * n:g}",
                   cumsum_until, cumsum_until_lax, (xs, limit), rtol=1e-5, atol=1e-3)


FACTORIES = [make_newton, make_rnn, make_accumulate, make_bisection, make_collatz, make_transformer,
             make_greedy, make_beam, make_kmeans, make_mandelbrot, make_cumsum]


def plus_one(x):
    """The trivial function of the warm-call overhead row."""
    return x + 1
