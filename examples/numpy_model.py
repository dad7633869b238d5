"""A model written the NumPy way, converted as it is: preallocated outputs
written row by row (``out[t] = h``), a masked write (``h[mask] = 0``), slice
updates (``out[a:b] *= 0.5``), and a state buffer the caller passes in and
gets back updated in place (``state[:] = h``). Inputs are NumPy arrays; as
in eager, the outputs are ``ndarray``s and the caller's ``state`` array is
written.

``to_static`` makes each write a functional update in one graph (the loop
over time steps rolls to a ``lax.fori_loop``) and writes ``state`` back into
the caller's array after the call.

Run: ``python examples/numpy_model.py``.
"""

from __future__ import annotations

import numpy as np

from ast2graph import to_static
from common import compare, print_report


def elman_rnn(xs, w, u, b, state, threshold=0.05):
    """Hidden states of every step (``out``), the peak magnitude of each unit,
    and the last state, written into ``state``."""
    steps, hidden = xs.shape[0], w.shape[0]
    out = np.zeros((steps, hidden), dtype=np.float32)
    h = state.copy()
    peak = np.zeros(hidden, dtype=np.float32)
    for t in range(steps):
        h = np.tanh(w @ h + u @ xs[t] + b)
        h[np.abs(h) < threshold] = 0.0          # a masked in-place write
        out[t] = h
        peak = np.maximum(peak, np.abs(h))
    out[:, 0] *= 2                               # emphasise unit 0
    out[steps // 4: steps // 2] *= 0.5           # damp a window of steps
    state[:] = h                                 # the caller's buffer, updated in place
    return out, peak


def make_inputs(steps, n_in, hidden, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.normal(size=(steps, n_in)).astype(np.float32)
    w = (rng.normal(size=(hidden, hidden)) * (0.9 / np.sqrt(hidden))).astype(np.float32)
    u = (rng.normal(size=(hidden, n_in)) / np.sqrt(n_in)).astype(np.float32)
    b = np.zeros(hidden, dtype=np.float32)
    state = (rng.normal(size=hidden) * 0.1).astype(np.float32)
    return xs, w, u, b, state


def main(steps=256, n_in=16, hidden=64, repeat=20) -> int:
    args = make_inputs(steps, n_in, hidden)
    print(f"NumPy Elman RNN: {steps} steps, {n_in} inputs, hidden {hidden}; NumPy arrays in, ndarrays out")
    print()
    c = compare("[elman_rnn(xs, w, u, b, state)]", elman_rnn, to_static(elman_rnn, full_graph=True), *args,
                repeat=repeat, rtol=1e-4, atol=1e-5)
    out, peak = c.explanation.result
    print(f"  result kinds: out {type(out).__name__}{out.shape}, peak {type(peak).__name__}{peak.shape}; "
          "the caller's `state` ndarray after the call: eager's (part of the equality above)")
    print()
    print_report(__file__, ["elman_rnn"])
    return 0 if c.ok and isinstance(out, np.ndarray) and isinstance(peak, np.ndarray) else 1


if __name__ == "__main__":
    raise SystemExit(main())
