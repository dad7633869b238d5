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


FACTORIES = [make_newton, make_rnn, make_accumulate, make_bisection, make_collatz, make_transformer]


def plus_one(x):
    """The trivial function of the warm-call overhead row."""
    return x + 1
