"""Unmodified functions of widely used numerical libraries, decorated as a user would.

Each entry is one library function (NumPy, SciPy, scikit-learn, optax), used in
one of two styles:

- ``direct``: ``to_static(lib_fn)`` — the library function itself is converted;
- ``user``: a thin user function calling the library function with the inputs a
  user would pass (NumPy arrays for NumPy/SciPy/sklearn, jax arrays for optax).

Nothing in the libraries is modified. ``python -m benchmarks.library_corpus``
runs every entry under ``explain``, compares its result with the eager run
(``tests/helpers.assert_same``) and prints, per library, how many are one graph,
then the fallback sites counted by reason (code), then one line per entry.
``tests/test_library_corpus.py`` runs the same entries with ``tests/helpers.check``.
"""

from __future__ import annotations

import collections
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import jax.numpy as jnp
import numpy as np


@dataclass(frozen=True)
class Entry:
    library: str          # numpy, scipy, sklearn, optax
    name: str             # the library function, dotted
    style: str            # "direct" (to_static(lib_fn)) or "user" (a user function calling it)
    fn: Callable
    make_args: Callable[[], tuple]
    rtol: float = 1e-5
    atol: float = 1e-6


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _vec(n: int = 8, seed: int = 0) -> np.ndarray:
    return _rng(seed).normal(size=n)


def _mat(n: int = 4, m: int | None = None, seed: int = 0) -> np.ndarray:
    return _rng(seed).normal(size=(n, m or n))


def _spd(n: int = 4) -> np.ndarray:
    a = _mat(n)
    return a @ a.T + n * np.eye(n)


def _prob(seed: int = 0, n: int = 6) -> np.ndarray:
    p = np.abs(_vec(n, seed)) + 0.1
    return p / p.sum()


def _jvec(n: int = 8, seed: int = 0):
    return jnp.asarray(_rng(seed).normal(size=n), dtype=jnp.float32)


def _numpy_entries() -> list[Entry]:
    E = lambda name, fn, args, style="direct", **kw: Entry("numpy", name, style, fn, args, **kw)  # noqa: E731

    def poly_user(p, x):
        return np.polyval(p, x) - np.polyval(np.polyder(p), x)

    def interp_user(x, xp, fp):
        return np.interp(x, xp, fp)

    def norms_user(a):
        return np.linalg.norm(a), np.linalg.norm(a, axis=1), np.linalg.norm(a, ord=1)

    def solve_user(a, b):
        return np.linalg.solve(a, b)

    def cov_user(x):
        return np.cov(x)

    def gradient_user(y):
        return np.gradient(y)

    def lstsq_user(a, b):
        return np.linalg.lstsq(a, b, rcond=None)[0]

    def histogram_user(x):
        return np.histogram(x, bins=4, range=(-3.0, 3.0))[0]

    def chkfinite_user(x):
        return np.asarray_chkfinite(x * 2.0).sum()

    return [
        E("np.polyval", np.polyval, lambda: (np.array([1.0, -2.0, 0.5]), _vec())),
        E("np.polyval+np.polyder", poly_user, lambda: (np.array([1.0, -2.0, 0.5, 3.0]), _vec()), "user"),
        E("np.trapezoid", np.trapezoid, lambda: (_vec(),)),
        E("np.linalg.norm", np.linalg.norm, lambda: (_vec(),)),
        E("np.linalg.norm (ord, axis)", norms_user, lambda: (_mat(),), "user"),
        E("np.linalg.solve", solve_user, lambda: (_spd(), _vec(4)), "user"),
        E("np.linalg.inv", np.linalg.inv, lambda: (_spd(),)),
        E("np.linalg.det", np.linalg.det, lambda: (_spd(),)),
        E("np.linalg.cholesky", np.linalg.cholesky, lambda: (_spd(),)),
        E("np.cov", cov_user, lambda: (_mat(3, 6),), "user"),
        E("np.corrcoef", np.corrcoef, lambda: (_mat(3, 6),)),
        E("np.interp", interp_user, lambda: (_vec(), np.linspace(-2, 2, 5), np.linspace(0, 1, 5) ** 2), "user"),
        E("np.diff", np.diff, lambda: (_vec(),)),
        E("np.cross", np.cross, lambda: (_vec(3), _vec(3, 1))),
        E("np.outer", np.outer, lambda: (_vec(3), _vec(4, 1))),
        E("np.kron", np.kron, lambda: (_mat(2), _mat(2, seed=1))),
        E("np.vander", np.vander, lambda: (_vec(4),)),
        E("np.average", np.average, lambda: (_vec(),)),
        E("np.median", np.median, lambda: (_vec(),)),
        E("np.sinc", np.sinc, lambda: (_vec(),)),
        E("np.i0", np.i0, lambda: (_vec(),)),
        E("np.convolve", np.convolve, lambda: (_vec(6), _vec(3, 1))),
        E("np.gradient", gradient_user, lambda: (_vec(),), "user"),
        E("np.unwrap", np.unwrap, lambda: (np.cumsum(np.abs(_vec())),)),
        E("np.nan_to_num", np.nan_to_num, lambda: (np.array([1.0, np.nan, np.inf, -np.inf]),)),
        E("np.tril", np.tril, lambda: (_mat(),)),
        E("np.ptp", np.ptp, lambda: (_vec(),)),
        E("np.meshgrid", np.meshgrid, lambda: (_vec(3), _vec(2, 1))),
        E("np.linalg.qr", np.linalg.qr, lambda: (_mat(4, 3),)),
        E("np.linalg.slogdet", np.linalg.slogdet, lambda: (_spd(),)),
        E("np.linalg.lstsq", lstsq_user, lambda: (_mat(4, 3), _vec(4)), "user"),
        E("np.histogram", histogram_user, lambda: (_vec(16),), "user"),
        E("np.searchsorted", np.searchsorted, lambda: (np.sort(_vec()), 0.1)),
        E("np.clip", np.clip, lambda: (_vec(), -0.5, 0.5)),
        E("np.cumsum", np.cumsum, lambda: (_vec(),)),
        E("np.exp (ufunc)", np.exp, lambda: (_vec(),)),
        E("np.asarray_chkfinite", chkfinite_user, lambda: (_vec(),), "user"),
    ]


def _scipy_entries() -> list[Entry]:
    import scipy.integrate
    import scipy.optimize
    import scipy.spatial.distance
    import scipy.special
    import scipy.stats

    E = lambda name, fn, args, style="direct", **kw: Entry("scipy", name, style, fn, args, **kw)  # noqa: E731

    def simpson_user(y, x):
        return scipy.integrate.simpson(y, x=x)

    def softmax_user(x):
        return scipy.special.softmax(x, axis=-1)

    return [
        E("scipy.special.logsumexp", scipy.special.logsumexp, lambda: (_vec(),)),
        E("scipy.special.softmax", softmax_user, lambda: (_mat(),), "user"),
        E("scipy.special.log_softmax", scipy.special.log_softmax, lambda: (_vec(),)),
        E("scipy.integrate.trapezoid", scipy.integrate.trapezoid, lambda: (_vec(),)),
        E("scipy.integrate.simpson", simpson_user, lambda: (_vec(7), np.linspace(0.0, 1.0, 7)), "user"),
        E("scipy.optimize.rosen", scipy.optimize.rosen, lambda: (_vec(5),)),
        E("scipy.optimize.rosen_der", scipy.optimize.rosen_der, lambda: (_vec(5),)),
        E("scipy.spatial.distance.euclidean", scipy.spatial.distance.euclidean, lambda: (_vec(4), _vec(4, 1))),
        E("scipy.spatial.distance.cosine", scipy.spatial.distance.cosine, lambda: (_vec(4), _vec(4, 1))),
        E("scipy.special.expit", scipy.special.expit, lambda: (_vec(),)),
        E("scipy.special.xlogy", scipy.special.xlogy, lambda: (_prob(), _prob(1))),
        E("scipy.special.entr", scipy.special.entr, lambda: (_prob(),)),
        E("scipy.special.logit", scipy.special.logit, lambda: (_prob(),)),
        E("scipy.stats.entropy", scipy.stats.entropy, lambda: (_prob(),)),
    ]


def _sklearn_entries() -> list[Entry]:
    from sklearn.metrics import mean_squared_error
    from sklearn.metrics.pairwise import euclidean_distances, linear_kernel, rbf_kernel
    from sklearn.preprocessing import normalize
    from sklearn.utils import extmath

    E = lambda name, fn, args, style="direct", **kw: Entry("sklearn", name, style, fn, args, **kw)  # noqa: E731

    def softmax_user(x):
        return extmath.softmax(x, copy=True)

    def mse_user(y, p):
        return mean_squared_error(y, p)

    return [
        E("sklearn.utils.extmath.row_norms", extmath.row_norms, lambda: (_mat(4, 3),)),
        E("sklearn.utils.extmath.squared_norm", extmath.squared_norm, lambda: (_mat(4, 3),)),
        E("sklearn.utils.extmath.safe_sparse_dot", extmath.safe_sparse_dot, lambda: (_mat(3, 4), _mat(4, 2, seed=1))),
        E("sklearn.utils.extmath.softmax", softmax_user, lambda: (_mat(3, 4),), "user"),
        E("sklearn.metrics.mean_squared_error", mse_user, lambda: (_vec(6), _vec(6, 1)), "user"),
        E("sklearn.metrics.pairwise.euclidean_distances", euclidean_distances, lambda: (_mat(3, 2), _mat(4, 2, seed=1))),
        E("sklearn.metrics.pairwise.rbf_kernel", rbf_kernel, lambda: (_mat(3, 2), _mat(4, 2, seed=1))),
        E("sklearn.preprocessing.normalize", normalize, lambda: (_mat(3, 4),)),
        E("sklearn.utils.extmath.fast_logdet", extmath.fast_logdet, lambda: (_spd(3),)),
        E("sklearn.utils.extmath.stable_cumsum", extmath.stable_cumsum, lambda: (_vec(),)),
        E("sklearn.metrics.pairwise.linear_kernel", linear_kernel, lambda: (_mat(3, 2), _mat(4, 2, seed=1))),
    ]


def _optax_entries() -> list[Entry]:
    import jax
    import optax

    E = lambda name, fn, args, style="direct", **kw: Entry("optax", name, style, fn, args, **kw)  # noqa: E731

    def sgd_user(params, grads):
        opt = optax.sgd(0.1, momentum=0.9)
        state = opt.init(params)
        updates, state = opt.update(grads, state, params)
        return optax.apply_updates(params, updates)

    def adam_user(params, grads):
        opt = optax.adam(1e-2)
        state = opt.init(params)
        for _ in range(2):
            updates, state = opt.update(grads, state, params)
            params = optax.apply_updates(params, updates)
        return params

    def clip_user(grads):
        opt = optax.clip_by_global_norm(1.0)
        updates, _ = opt.update(grads, opt.init(grads))
        return updates

    def cosine_schedule_user(step):
        return optax.cosine_decay_schedule(0.1, 100)(step)

    def warmup_user(step):
        return optax.warmup_cosine_decay_schedule(0.0, 1.0, 10, 100)(step)

    def linear_user(step):
        return optax.linear_schedule(1.0, 0.1, 50)(step)

    def exp_user(step):
        return optax.exponential_decay(1.0, 10, 0.5)(step)

    def poly_user(step):
        return optax.polynomial_schedule(1.0, 0.0, 2, 50)(step)

    def xent_user(logits, labels):
        return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

    params = lambda: {"w": _jvec(4), "b": _jvec(2, 1)}  # noqa: E731
    grads = lambda: {"w": _jvec(4, 2), "b": _jvec(2, 3)}  # noqa: E731
    step = lambda: (jnp.asarray(17),)  # noqa: E731
    return [
        E("optax.l2_loss", optax.l2_loss, lambda: (_jvec(), _jvec(8, 1))),
        E("optax.squared_error", optax.squared_error, lambda: (_jvec(), _jvec(8, 1))),
        E("optax.huber_loss", optax.huber_loss, lambda: (_jvec(), _jvec(8, 1))),
        E("optax.log_cosh", optax.log_cosh, lambda: (_jvec(), _jvec(8, 1))),
        E("optax.cosine_similarity", optax.cosine_similarity, lambda: (_jvec(), _jvec(8, 1))),
        E("optax.softmax_cross_entropy", optax.softmax_cross_entropy,
          lambda: (_jvec(6).reshape(2, 3), jax.nn.softmax(_jvec(6, 1).reshape(2, 3)))),
        E("optax.softmax_cross_entropy_with_integer_labels", xent_user,
          lambda: (_jvec(6).reshape(2, 3), jnp.asarray([0, 2])), "user"),
        E("optax.sigmoid_binary_cross_entropy", optax.sigmoid_binary_cross_entropy,
          lambda: (_jvec(), (_jvec(8, 1) > 0).astype(jnp.float32))),
        E("optax.global_norm", optax.global_norm, lambda: (grads(),)),
        E("optax.safe_norm", optax.safe_norm, lambda: (_jvec(), 1e-6)),
        E("optax.cosine_decay_schedule", cosine_schedule_user, step, "user"),
        E("optax.warmup_cosine_decay_schedule", warmup_user, step, "user"),
        E("optax.linear_schedule", linear_user, step, "user"),
        E("optax.exponential_decay", exp_user, step, "user"),
        E("optax.sgd (momentum) update", sgd_user, lambda: (params(), grads()), "user"),
        E("optax.adam update", adam_user, lambda: (params(), grads()), "user"),
        E("optax.clip_by_global_norm update", clip_user, lambda: (grads(),), "user"),
        E("optax.apply_updates", optax.apply_updates, lambda: (params(), grads())),
        E("optax.smooth_labels", optax.smooth_labels, lambda: (jnp.eye(3), 0.1)),
        E("optax.kl_divergence", optax.kl_divergence,
          lambda: (jnp.log(jnp.asarray(_prob(), jnp.float32)), jnp.asarray(_prob(1), jnp.float32))),
        E("optax.hinge_loss", optax.hinge_loss, lambda: (_jvec(), jnp.sign(_jvec(8, 1)))),
        E("optax.polynomial_schedule", poly_user, step, "user"),
    ]


def entries() -> list[Entry]:
    """The whole corpus, library by library."""
    return _numpy_entries() + _scipy_entries() + _sklearn_entries() + _optax_entries()


@dataclass
class Outcome:
    entry: Entry
    graphs: int
    one_graph: bool
    codes: list[str]
    error: str | None      # a mismatch with eager, or an exception (never expected)


def run_entry(entry: Entry) -> Outcome:
    """Eager vs converted on one entry; the explanation of the converted call."""
    from ast2graph import explain, to_static
    from tests.helpers import assert_same

    static = to_static(entry.fn)
    try:
        expected = entry.fn(*entry.make_args())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = explain(static)(*entry.make_args())
        assert_same(expected, e.result, entry.rtol, entry.atol)
    except Exception as exc:  # noqa: BLE001
        return Outcome(entry, 0, False, [], f"{type(exc).__name__}: {str(exc)[:200]}")
    codes = [s.code.code for s in e.fallback_sites]
    return Outcome(entry, e.graph_count, e.graph_count == 1 and not codes, codes, None)


def main(argv: list[str] | None = None) -> int:
    verbose = "-v" in (argv or sys.argv[1:])
    outcomes = [run_entry(e) for e in entries()]
    per_lib: dict[str, list[Outcome]] = collections.defaultdict(list)
    for o in outcomes:
        per_lib[o.entry.library].append(o)
    print("one graph per library:")
    for lib, outs in per_lib.items():
        print(f"  {lib:8s} {sum(o.one_graph for o in outs):3d} / {len(outs)}")
    print(f"  {'total':8s} {sum(o.one_graph for o in outcomes):3d} / {len(outcomes)}")
    reasons = collections.Counter(c for o in outcomes for c in o.codes)
    print("fallback sites per reason:")
    for code, n in reasons.most_common():
        print(f"  {code}: {n}")
    errors = [o for o in outcomes if o.error]
    print(f"mismatches with eager: {len(errors)}")
    for o in outcomes:
        if verbose or o.error or not o.one_graph:
            mark = "ERROR " + o.error if o.error else ("one graph" if o.one_graph else f"{o.graphs} graphs, {o.codes}")
            print(f"  [{o.entry.library}] {o.entry.name} ({o.entry.style}): {mark}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
