"""The library sweep in h-lib16: unmodified library functions called as a user
calls them, a set of functions and call patterns not in ``benchmarks/library_corpus.py``
nor in the earlier sweeps (np.linalg on batches and other shapes, np.fft on 2-D
data with ``axes=``/``norm=``, seeded ``np.random.Generator`` methods, set
routines with their ``return_*`` options, ``nan*`` reductions with
``keepdims``/``where=``, scipy.special/stats/linalg/optimize one function at a
time, scikit-learn metrics and utils, optax transforms and losses, jax.nn).

``entries()`` is the set: (library, name, function, input sets). ``python -m
tests.test_library_sweep16 [-v] [--set=user|direct|edge] [NAME...]`` converts
each function once, calls it on every input set under ``explain``, compares with
eager and prints the one-graph count per library, the fallback sites by reason,
and every entry that falls back or differs (``tests.test_library_sweep13.run_entry``).
"""

from __future__ import annotations

import sys

import jax.numpy as jnp
import numpy as np

from tests.test_library_sweep13 import Entry, run_sets

rng = np.random.default_rng(16)
V8 = rng.standard_normal(8)
V10 = rng.standard_normal(10)
W8 = rng.random(8) + 0.1
M34 = rng.standard_normal((3, 4))
M44 = rng.standard_normal((4, 4))
B344 = rng.standard_normal((3, 4, 4))
SPD = M44 @ M44.T + 4 * np.eye(4)
BSPD = np.einsum("bij,bkj->bik", B344, B344) + 4 * np.eye(4)
I10 = rng.integers(0, 4, 10)
J10 = rng.integers(0, 6, 10)
F32 = rng.standard_normal(10).astype(np.float32)
NAN8 = V8.copy()
NAN8[[1, 5]] = np.nan
NAN34 = M34.copy()
NAN34[0, 1] = NAN34[2, 3] = np.nan


def _numpy() -> list[Entry]:
    def E(name, fn, calls, **kw):
        return Entry("numpy", name, fn, calls, **kw)

    def linalg_batch(b, v):
        return (np.linalg.det(b), np.linalg.inv(b), np.linalg.solve(b, v[..., None])[..., 0],
                np.linalg.slogdet(b)[1], np.linalg.norm(b, axis=(1, 2)))

    def linalg_eig(a):
        w = np.linalg.eigvals(a)
        return np.sort_complex(w), np.linalg.eigvalsh(a + a.T, UPLO="U"), np.linalg.svd(a, compute_uv=False)

    def linalg_svd_full(a):
        u, s, vt = np.linalg.svd(a, full_matrices=False)
        return s, np.abs(u @ np.diag(s) @ vt - a).max() < 1e-10, np.linalg.qr(a, mode="r").shape

    def linalg_multi(a, b):
        return np.linalg.multi_dot([a, b.T, a]), np.linalg.matrix_power(b @ b.T, 3), np.linalg.trace(b @ b.T)

    def cholesky_batch(b):
        return np.linalg.cholesky(b), np.linalg.cholesky(b[0], upper=True)

    def fft2_user(m):
        return np.fft.fft2(m), np.fft.ifft2(np.fft.fft2(m)).real, np.fft.rfft2(m, axes=(0, 1)), np.fft.fftn(m, norm="ortho")

    def fft_norm(x):
        return (np.fft.fft(x, norm="forward"), np.fft.ifft(x, n=12), np.fft.irfft(np.fft.rfft(x), n=len(x)),
                np.fft.fftshift(np.fft.fftfreq(len(x), d=0.1)), np.fft.rfftfreq(len(x)), np.fft.ifftshift(x), np.fft.hfft(x[:5]))

    def unique_opts(i):
        u, idx, inv, cnt = np.unique(i, return_index=True, return_inverse=True, return_counts=True)
        return u, idx, inv, cnt, np.unique(i, return_counts=True)[1].max()

    def unique_values(i):
        return np.unique_values(i), np.unique_counts(i).counts, np.unique_inverse(i).inverse_indices

    def sort_kinds(x, m):
        return (np.sort(x, kind="stable"), np.argsort(x, kind="mergesort"), np.sort(m, axis=0), np.sort(m, axis=None),
                np.argsort(-m, axis=1, stable=True), np.sort(x)[::-1])

    def lexsort_user(a, b):
        return np.lexsort((a, b)), np.lexsort(np.vstack([a, b])), np.lexsort((b,))

    def cumsum_dtype(i, x):
        return (np.cumsum(i, dtype=np.float64), np.cumsum(x, dtype=np.float32), np.cumprod(i % 3 + 1, dtype=np.int32),
                np.cumsum(x.reshape(2, -1), axis=1), np.cumulative_sum(x, include_initial=True))

    def nan_reductions(m):
        return (np.nansum(m, axis=1, keepdims=True), np.nanmean(m, axis=0), np.nanmax(m, axis=1),
                np.nanmin(m, keepdims=True), np.nanvar(m, axis=1, ddof=1), np.nanargmax(m, axis=0), np.nancumsum(m, axis=1))

    def where_reductions(m):
        w = m > 0
        return (np.sum(m, where=w), np.mean(m, axis=1, where=w | True), np.max(m, axis=0, where=w, initial=-10.0),
                np.nansum(m, where=w), np.prod(m, where=w, axis=1), np.min(m, initial=0.5))

    def isin_kw(a, b):
        return np.isin(a, b, invert=True), np.isin(a, b, assume_unique=False), np.isin(a, [1, 3], kind="table")

    def set_ops(a, b):
        return (np.setdiff1d(a, b), np.union1d(a, b), np.intersect1d(a, b, return_indices=True),
                np.setxor1d(a, b), np.setdiff1d(a, b, assume_unique=False))

    def put_along(m):
        m = m.copy()
        i = np.argmax(m, axis=1, keepdims=True)
        np.put_along_axis(m, i, 0.0, axis=1)
        return m, np.take_along_axis(m, np.argsort(m, axis=0), axis=0)

    def tri_indices(m):
        r, c = np.triu_indices(4, k=1)
        lr, lc = np.tril_indices_from(m, k=-1)
        return m[r, c], m[lr, lc], np.triu(m, 1), np.tril(m, -1), np.diag_indices(3)[0]

    def argwhere_nonzero(m):
        return np.argwhere(m > 0), np.nonzero(m > 0.5), np.flatnonzero(m < 0), np.transpose(np.nonzero(m))

    def splits(x, m):
        return (np.split(x, 2), np.split(x, [2, 5]), np.array_split(x, 3), np.array_split(m, 2, axis=1),
                np.vsplit(m, [1]), np.hsplit(m, 2))

    def stacks(x, y):
        return (np.stack([x, y]), np.stack((x, y), axis=-1), np.hstack([x, y]), np.vstack((x, y)),
                np.dstack([x, y]), np.column_stack((x, y)),
                np.concatenate([x, y], axis=None))

    def block_user(a, b):
        return np.block([[a, b], [b, a]]), np.block([a[0], b[0]]), np.block([[a], [b]])

    def histogram_weights(x, w):
        c, e = np.histogram(x, bins=4, weights=w)
        d, _ = np.histogram(x, bins=3, weights=w, density=True)
        return c, e, d

    def multi_index(i, j):
        return (np.ravel_multi_index((i, j), (4, 6)), np.ravel_multi_index((i, j), (4, 6), order="F"),
                np.unravel_index(np.ravel_multi_index((i, j), (4, 6)), (4, 6)), np.ravel_multi_index((i, j + 3), (4, 6), mode="wrap"))

    def count_nz(m):
        return np.count_nonzero(m > 0), np.count_nonzero(m > 0, axis=0), np.count_nonzero(m > 0, axis=1, keepdims=True)

    def strings_reject(x):
        s = np.array(["a", "bb", "ccc"])
        return np.char.upper(s), s[np.argmax(x[:3])], np.sort(s)

    def structured_reject(x):
        a = np.zeros(3, dtype=[("f", np.float64), ("i", np.int64)])
        a["f"] = x[:3]
        return a["f"].sum(), a["i"], a.dtype.names, a.tolist()

    def random_gen(seed):
        g = np.random.default_rng(seed)
        return (g.normal(0.0, 2.0, size=5), g.uniform(-1, 1, (2, 3)), g.integers(0, 10, 6), g.choice(5, 3, replace=False),
                g.permutation(6), g.standard_normal(4), g.random(3), g.exponential(2.0, 3), g.poisson(3.0, 4))

    def random_shuffle(x):
        g = np.random.default_rng(7)
        y = x.copy()
        g.shuffle(y)
        return y, g.choice(x, 4, p=None), g.binomial(5, 0.3, 4), g.multivariate_normal(np.zeros(2), np.eye(2), 3)

    return [
        E("np.linalg batched det/inv/solve/slogdet", linalg_batch, [(BSPD, B344[:, 0]), (B344 + 3 * np.eye(4), B344[:, 1])]),
        E("np.linalg.eigvals/eigvalsh(UPLO)/svd(compute_uv)", linalg_eig, [(M44,), (SPD,)]),
        E("np.linalg.svd(full_matrices=False)/qr(mode=r)", linalg_svd_full, [(M34,), (M34.T,)]),
        E("np.linalg.multi_dot/matrix_power/trace", linalg_multi, [(M44, M34), (SPD, M34 * 2)]),
        E("np.linalg.cholesky(batch, upper)", cholesky_batch, [(BSPD,), (BSPD * 2,)]),
        E("np.fft.fft2/ifft2/rfft2/fftn(norm)", fft2_user, [(M34,), (M44,)]),
        E("np.fft norm=/n=/shift/hfft", fft_norm, [(V8,), (V10,)]),
        E("np.unique(return_index, inverse, counts)", unique_opts, [(I10,), (J10,)]),
        E("np.unique_values/unique_counts/unique_inverse", unique_values, [(I10,), (J10,)]),
        E("np.sort/argsort(kind, axis=None, stable)", sort_kinds, [(V8, M34), (W8, M44)]),
        E("np.lexsort", lexsort_user, [(I10, J10), (J10, I10)]),
        E("np.cumsum(dtype)/cumulative_sum", cumsum_dtype, [(I10, V8), (J10, W8)]),
        E("np.nan* (axis, keepdims, ddof)", nan_reductions, [(NAN34,), (M34,)]),
        E("reductions where=/initial=", where_reductions, [(M34,), (M44,)]),
        E("np.isin(invert, kind)", isin_kw, [(I10, J10), (J10, np.array([0, 5]))]),
        E("np.setdiff1d/union1d/intersect1d(return_indices)/setxor1d", set_ops, [(I10, J10), (J10, I10[:4])]),
        E("np.put_along_axis/take_along_axis", put_along, [(M34,), (M44,)]),
        E("np.triu_indices/tril_indices_from/diag_indices", tri_indices, [(M44,), (SPD,)]),
        E("np.argwhere/nonzero/flatnonzero", argwhere_nonzero, [(M34,), (M44,)]),
        E("np.split/array_split/vsplit/hsplit", splits, [(V8, M34), (V10[:8], M44)]),
        E("np.stack families", stacks, [(V8, W8), (W8[:3], V8[:3])]),
        E("np.block", block_user, [(M34[:2, :2], M44[:2, :2]), (M44[:2, :2], M34[:2, :2])]),
        E("np.histogram(weights, density)", histogram_weights, [(V8, W8), (W8, V8 ** 2)]),
        E("np.ravel_multi_index(order, mode)/unravel_index", multi_index, [(I10, J10), (I10[::-1], J10)]),
        E("np.count_nonzero(axis, keepdims)", count_nz, [(M34,), (M44,)]),
        E("string dtype arrays", strings_reject, [(V8,), (W8,)]),
        E("structured dtype arrays", structured_reject, [(V8,), (W8,)]),
        E("np.random.default_rng(seed) methods", random_gen, [(0,), (5,)]),
        E("Generator.shuffle/choice/binomial/multivariate_normal", random_shuffle, [(V8,), (W8,)]),
    ]


def _scipy() -> list[Entry]:
    import scipy.linalg as sla
    import scipy.optimize as opt
    import scipy.spatial.distance as dist
    import scipy.special as sp
    import scipy.stats as st

    def E(name, fn, calls, **kw):
        return Entry("scipy", name, fn, calls, **kw)

    def special_user(x, p):
        return (sp.gammaln(p * 3), sp.betaln(p, p + 1), sp.logit(p / (p.max() + 0.1)), sp.expit(x),
                sp.log_softmax(x), sp.zeta(p + 1.5, 1.0), sp.digamma(p), sp.xlogy(p, p), sp.xlog1py(p, x))

    def special_axis(m):
        return sp.log_softmax(m, axis=1), sp.softmax(m, axis=0), sp.logsumexp(m, axis=1, keepdims=True)

    def linalg_solve(a, b):
        c, low = sla.cho_factor(a)
        lu, piv = sla.lu_factor(a)
        return (sla.solve(a, b), sla.cho_solve((c, low), b), sla.lu_solve((lu, piv), b), sla.norm(a), sla.norm(b, 1),
                sla.solve(a, b, assume_a="pos"), sla.expm(a / 10))

    def linalg_misc(a):
        return sla.inv(a), sla.det(a), sla.pinv(a), sla.solve_triangular(np.triu(a), a[0]), sla.cholesky(a, lower=True)

    def stats_dists(x):
        return (st.norm.pdf(x), st.norm.cdf(x, loc=0.5, scale=2.0), st.norm.logpdf(x), st.t.ppf(np.clip(np.abs(x) / 3, 0.01, 0.99), df=4),
                st.norm.sf(x), st.norm.ppf(0.975), st.t.cdf(x, 3))

    def mvn(x, c):
        return st.multivariate_normal.logpdf(x, mean=np.zeros(len(c)), cov=c), st.multivariate_normal(np.zeros(len(c)), c).pdf(x)

    def minimize_scalar_cb(c):
        r = opt.minimize_scalar(lambda t: (t - c) ** 2 + 1.0)
        b = opt.minimize_scalar(lambda t: (t - c) ** 2, bounds=(0.0, 10.0), method="bounded")
        return r.x, r.fun, b.x

    def root_scalar_cb(c):
        r = opt.root_scalar(lambda t: t ** 3 - c, bracket=[0.0, 5.0], method="brentq")
        s = opt.brentq(lambda t: np.cos(t) - t * c, 0.0, 2.0)
        return r.root, r.converged, s

    def distances(u, v):
        return (dist.euclidean(u, v), dist.cosine(u, v), dist.correlation(u, v), dist.chebyshev(u, v),
                dist.braycurtis(u, v), dist.canberra(u, v), dist.sqeuclidean(u, v), dist.seuclidean(u, v, np.ones(len(u))))

    def cdist_metrics(a, b):
        return (dist.cdist(a, b, "sqeuclidean"), dist.cdist(a, b, metric="minkowski", p=3), dist.cdist(a, b, "chebyshev"),
                dist.pdist(a, "cosine"))

    def discrete(x):
        k = np.round(np.abs(x) * 3)
        return st.poisson.pmf(k, 2.0), st.binom.pmf(k, 10, 0.3), st.poisson.logpmf(k, 1.5), st.geom.cdf(k, 0.4)

    def frozen(x, s):
        d = st.norm(loc=1.0, scale=s)
        return d.pdf(x), d.cdf(x), d.logpdf(x)

    return [
        E("scipy.stats poisson/binom/geom pmf/logpmf/cdf", discrete, [(V8,), (W8 * 3,)]),
        E("scipy.stats frozen norm(loc, scale)", frozen, [(V8, 2.0), (W8, 0.5)]),
        E("scipy.special gammaln/betaln/logit/zeta/...", special_user, [(V8, W8), (W8 - 0.5, W8 * 2)]),
        E("scipy.special log_softmax/softmax/logsumexp(axis)", special_axis, [(M34,), (M44,)]),
        E("scipy.linalg solve/cho_*/lu_*/norm/expm", linalg_solve, [(SPD, V8[:4]), (SPD * 2, W8[:4])]),
        E("scipy.linalg inv/det/pinv/solve_triangular/cholesky", linalg_misc, [(SPD,), (SPD + M44 * 0.1,)]),
        E("scipy.stats norm/t pdf/cdf/logpdf/ppf/sf", stats_dists, [(V8,), (W8,)]),
        E("scipy.stats.multivariate_normal.logpdf", mvn, [(M34, SPD), (M34 * 2, SPD * 2)]),
        E("scipy.optimize.minimize_scalar(callback)", minimize_scalar_cb, [(2.0,), (3.5,)]),
        E("scipy.optimize.root_scalar/brentq(callback)", root_scalar_cb, [(2.0,), (0.5,)]),
        E("scipy.spatial.distance euclidean/cosine/...", distances, [(V8, W8), (W8, V8)]),
        E("scipy.spatial.distance.cdist(metric, p)", cdist_metrics, [(M34, M44[:, :4]), (M44, M34)]),
    ]


def _sklearn() -> list[Entry]:
    import sklearn.metrics as skm
    import sklearn.preprocessing as pre
    from sklearn.utils import check_array, shuffle

    def E(name, fn, calls, **kw):
        return Entry("sklearn", name, fn, calls, **kw)

    yt = np.array([0, 1, 2, 2, 1, 0, 1, 2])
    yp = np.array([0, 2, 2, 1, 1, 0, 1, 0])
    sc = np.abs(M34.T.repeat(2, axis=0)[:8, :3]) + 0.1
    sc = sc / sc.sum(axis=1, keepdims=True)

    def regress(t, p):
        return (skm.mean_absolute_error(t, p), skm.explained_variance_score(t, p), skm.mean_squared_error(t, p),
                skm.r2_score(t, p), skm.mean_absolute_percentage_error(t, p))

    def classif(t, p):
        return skm.balanced_accuracy_score(t, p), skm.matthews_corrcoef(t, p), skm.accuracy_score(t, p, normalize=False)

    def topk(t, s):
        return skm.top_k_accuracy_score(t, s, k=2), skm.top_k_accuracy_score(t, s, k=1, normalize=False)

    def utils_user(m):
        a = check_array(m)
        b, c = shuffle(m, np.arange(len(m)), random_state=0)
        return a, b, c

    def binarize(y):
        return pre.label_binarize(y, classes=[0, 1, 2]), pre.binarize(y.reshape(-1, 1).astype(float), threshold=1.0)

    return [
        E("sklearn.metrics mae/explained_variance/mse/r2/mape", regress, [(V8, W8), (W8, V8 * 2)]),
        E("sklearn.metrics balanced_accuracy/mcc (multiclass)", classif, [(yt, yp), (yp, yt)]),
        E("sklearn.metrics.top_k_accuracy_score", topk, [(yt, sc), (yp, sc[::-1])]),
        E("sklearn.utils check_array/shuffle(random_state)", utils_user, [(M34,), (M44,)]),
        E("sklearn.preprocessing label_binarize/binarize", binarize, [(yt,), (yp,)]),
    ]


def _optax() -> list[Entry]:
    import optax

    def E(name, fn, calls, **kw):
        return Entry("optax", name, fn, calls, **kw)

    j = jnp.asarray
    P = {"w": j(M34), "b": j(V8[:4])}
    G = {"w": j(M34[::-1] * 0.1), "b": j(W8[:4])}

    def opt_steps(make):
        def step(params, grads):
            tx = make()
            state = tx.init(params)
            for _ in range(3):
                upd, state = tx.update(grads, state, params)
                params = optax.apply_updates(params, upd)
            return params

        return step

    def losses(logits, labels):
        return (optax.sigmoid_binary_cross_entropy(logits, labels).mean(), optax.hinge_loss(logits, labels * 2 - 1).sum(),
                optax.l2_loss(logits, labels).mean(), optax.softmax_cross_entropy(logits, labels / labels.sum(-1, keepdims=True) + 0.0))

    L = j(M34)
    T = j((M34 > 0).astype(np.float64))
    return [
        E("optax.adamw steps", opt_steps(lambda: optax.adamw(1e-2, weight_decay=1e-3)), [(P, G), ({k: v * 2 for k, v in P.items()}, G)]),
        E("optax.lamb steps", opt_steps(lambda: optax.lamb(1e-2)), [(P, G), ({k: v * 2 for k, v in P.items()}, G)]),
        E("optax.chain(clip_by_global_norm, adam)", opt_steps(lambda: optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-2))),
          [(P, G), ({k: v * 2 for k, v in P.items()}, G)]),
        E("optax.rmsprop/adagrad via chain", opt_steps(lambda: optax.chain(optax.clip(0.5), optax.rmsprop(1e-2))), [(P, G)]),
        E("optax sigmoid_bce/hinge/l2/softmax_xent", losses, [(L, T), (L * 2, T[::-1] + 0.0)]),
    ]


def _jax() -> list[Entry]:
    import jax
    import jax.scipy as jsp

    def E(name, fn, calls, **kw):
        return Entry("jax", name, fn, calls, **kw)

    j = jnp.asarray

    def nn_user(x):
        return (jax.nn.softplus(x), jax.nn.log_sigmoid(x), jax.nn.one_hot(jnp.argmax(x.reshape(2, -1), axis=1), 4),
                jax.nn.logsumexp(x), jax.nn.relu6(x * 5), jax.nn.celu(x), jax.nn.selu(x), jax.nn.hard_tanh(x * 2))

    def jsp_user(x, p):
        return (jsp.special.gammaln(p), jsp.special.betaln(p, p), jsp.stats.norm.logpdf(x), jsp.stats.t.logpdf(x, 3.0),
                jsp.special.log_softmax(x) if hasattr(jsp.special, "log_softmax") else 0, jsp.linalg.expm(jnp.outer(x, p)[:3, :3] / 10))

    return [
        E("jax.nn softplus/log_sigmoid/one_hot/...", nn_user, [(j(V8),), (j(W8 - 0.5),)]),
        E("jax.scipy gammaln/betaln/norm/t/expm", jsp_user, [(j(V8), j(W8)), (j(W8), j(V8 ** 2 + 0.1))]),
    ]


def _direct() -> list[Entry]:
    """``to_static(lib_fn)`` itself, on float64, float32 or integer NumPy data."""
    import scipy.linalg as sla
    import scipy.spatial.distance as dist
    import scipy.special as sp
    import scipy.stats as st
    import sklearn.metrics as skm
    from sklearn.utils import check_array

    D = lambda lib, fn, calls, name=None: Entry(lib, name or f"{getattr(fn, '__module__', lib)}.{fn.__name__} (direct)", fn, calls)  # noqa: E731
    f32 = lambda a: a.astype(np.float32)  # noqa: E731
    return [
        D("numpy", np.linalg.inv, [(SPD,), (BSPD,), (f32(SPD),)]),
        D("numpy", np.linalg.det, [(SPD,), (BSPD,), (f32(M44),)]),
        D("numpy", np.linalg.eigh, [(SPD,), (BSPD,)]),
        D("numpy", np.linalg.pinv, [(M34,), (f32(M34),)]),
        D("numpy", np.unique, [(I10,), (J10,), (V8,)]),
        D("numpy", np.setdiff1d, [(I10, J10), (J10, I10)]),
        D("numpy", np.union1d, [(I10, J10), (V8, W8)]),
        D("numpy", np.argwhere, [(M34,), (I10,)]),
        D("numpy", np.nonzero, [(I10,), (M34 > 0,)]),
        D("numpy", np.count_nonzero, [(I10,), (M34,)]),
        D("numpy", np.array_split, [(V10, 3), (M34, 2)]),
        D("numpy", np.split, [(V10, 2), (V10, [3, 7])]),
        D("numpy", np.stack, [((V8, W8),), ([V8, W8, V8],)]),
        D("numpy", np.block, [([M34, M34],), ([[M44], [M34]],)]),
        D("numpy", np.ravel_multi_index, [((I10, J10), (4, 6)), ((I10, J10), (5, 7))]),
        D("numpy", np.triu_indices, [(4,), (5, 1)]),
        D("numpy", np.lexsort, [((I10, J10),), ((V8, W8),)]),
        D("numpy", np.nansum, [(NAN8,), (NAN34,), (f32(NAN8),)]),
        D("numpy", np.nanmean, [(NAN8,), (NAN34,)]),
        D("numpy", np.nanstd, [(NAN8,), (NAN34,)]),
        D("numpy", np.fft.fft2, [(M34,), (f32(M44),)]),
        D("numpy", np.fft.irfft, [(V8,), (f32(V10),)]),
        D("numpy", np.fft.fftshift, [(V8,), (M34,)]),
        D("numpy", np.cumsum, [(I10,), (M34,), (f32(V8),)]),
        D("numpy", np.sort, [(V8,), (M34,), (I10,)]),
        D("numpy", np.histogram, [(V8,), (I10,), (f32(V10),)]),
        D("scipy", sp.gammaln, [(W8,), (f32(W8),), (I10 + 1,)]),
        D("scipy", sp.betaln, [(W8, W8[::-1]), (I10 + 1, J10 + 1)]),
        D("scipy", sp.logit, [(W8 / 2,), (f32(W8 / 2),)]),
        D("scipy", sp.log_softmax, [(V8,), (M34,)]),
        D("scipy", sp.zeta, [(W8 + 1.5,), (W8 + 2, 2.0)]),
        D("scipy", sp.expit, [(V8,), (f32(V8),), (I10,)]),
        D("scipy", sla.solve, [(SPD, V8[:4]), (SPD, M44)]),
        D("scipy", sla.expm, [(M44 / 5,), (SPD / 10,)]),
        D("scipy", sla.norm, [(M34,), (V8,)]),
        D("scipy", sla.cho_factor, [(SPD,), (SPD * 2,)]),
        D("scipy", sla.lu_factor, [(SPD,), (M44 + 3 * np.eye(4),)]),
        D("scipy", st.norm.pdf, [(V8,), (M34,)], name="scipy.stats.norm.pdf (direct)"),
        D("scipy", st.norm.logcdf, [(V8,), (W8,)], name="scipy.stats.norm.logcdf (direct)"),
        D("scipy", dist.euclidean, [(V8, W8), (W8, V8)]),
        D("scipy", dist.cosine, [(V8, W8), (W8, V8)]),
        D("scipy", dist.cdist, [(M34, M44), (M44, M34)]),
        D("sklearn", skm.mean_absolute_error, [(V8, W8), (W8, V8)]),
        D("sklearn", skm.explained_variance_score, [(V8, W8), (W8, V8)]),
        D("sklearn", skm.r2_score, [(V8, W8), (W8, V8)]),
        D("sklearn", skm.balanced_accuracy_score, [(I10, J10 % 4), (J10 % 4, I10)]),
        D("sklearn", check_array, [(M34,), (M44,)]),
    ]


def _edge() -> list[Entry]:
    """Calls eager refuses or answers in odd kinds: exceptions and kinds compared."""
    out = []

    def split_uneven(x):
        return np.split(x, 3)

    def setdiff_float_int(a, b):
        return np.setdiff1d(a, b.astype(np.float32))

    def unique_axis(m):
        return np.unique(np.round(m), axis=0, return_counts=True)

    def inv_singular(m):
        return np.linalg.inv(m * 0.0)

    def cumsum_bool(b):
        return np.cumsum(b), np.sum(b, dtype=np.int8), np.count_nonzero(b)

    def ravel_bad(i, j):
        return np.ravel_multi_index((i, j + 10), (4, 6))

    out += [Entry("edge", "np.split uneven", split_uneven, [(V8,), (V10[:9],)]),
            Entry("edge", "np.setdiff1d mixed dtypes", setdiff_float_int, [(V8, I10), (I10, I10)]),
            Entry("edge", "np.unique(axis=0)", unique_axis, [(M34,), (M44 * 3,)]),
            Entry("edge", "np.linalg.inv singular", inv_singular, [(M44,)]),
            Entry("edge", "bool cumsum/sum(dtype)", cumsum_bool, [(I10 > 1,), (J10 > 2,)]),
            Entry("edge", "np.ravel_multi_index out of bounds", ravel_bad, [(I10, J10)])]
    return out


# ------------------------------------------------ warnings eager never issues
def test_reading_a_broadcast_arrays_results_writeable_flag_warns_nothing():
    # scipy.stats' ppf broadcasts its operands (np.broadcast_arrays): ast2graph read the results'
    # ``.flags.writeable``, and NumPy warns (FutureWarning) on any read of it; eager never read it
    import scipy.stats as st

    from tests.helpers import check_warnings

    check_warnings(lambda q, df: st.t.ppf(q, df), W8 / 2, 3)

    def f(x):
        return x * 2.0, x.sum()

    a, _ = np.broadcast_arrays(V8, np.zeros((2, 8)))   # an argument that is itself such a result
    check_warnings(f, a)


def test_a_conversion_of_complex_to_real_warns_on_every_call_where_eager_does():
    # np.asarray(z, dtype=float) of complex data: NumPy's ComplexWarning on each call, from the
    # user's line; JAX's own cast warned at trace time only (twice, from JAX's file), and also for a
    # branch eager did not take (scipy.linalg.logm)
    import jax.numpy as jnp
    import scipy.linalg as sla

    from tests.helpers import check_warnings

    def f(z, flag):
        if flag.sum() > 0:
            return np.asarray(z, dtype=float) * 2
        return np.abs(z)

    z = np.array([1 + 2j, 3 - 1j])
    for args in [(z, np.ones(2)), (z, -np.ones(2))]:
        check_warnings(f, *args)

    def g(z):
        return np.array(z, dtype=np.float32), np.asarray(z, float), np.ascontiguousarray(z, dtype=np.int64), \
            np.asarray(z, dtype=complex)

    check_warnings(g, jnp.asarray(z))
    check_warnings(sla.logm, SPD, full_graph=False)


# ------------------------------------------------ NumPy's RuntimeWarnings of reductions
def test_sum_and_prod_with_where_warn_of_overflow_in_the_graph():
    # np.sum(m, where=w) fell back (its overflow warning was computed only without where=); now the
    # flags count only the elements the mask selects: an infinity or NaN masked out is not data
    from tests.helpers import check_calls, check_warnings

    big = np.array([[1e308, 1e308, np.inf], [np.nan, 1.0, 2.0]])

    def g(m, w):
        return np.sum(m, where=w), np.sum(m, axis=1, where=w), np.prod(m, where=w, axis=0), m.sum(where=w), \
            m.prod(where=w), np.sum(m, where=np.array([True, False, True]), axis=0, keepdims=True)

    for w in [np.array([[True, True, False], [False, True, False]]), np.array([[True, False, True], [False, True, True]])]:
        check_warnings(g, big, w, calls=1)
    check_warnings(g, np.array([[1e308, 1e308, 1.0], [0.0, 1.0, 2.0]]), True, calls=1)

    def f(m):
        w = m > 0
        return (np.sum(m, where=w), np.mean(m, axis=1, where=w | True), np.max(m, axis=0, where=w, initial=-10.0),
                np.nansum(m, where=w), np.prod(m, where=w, axis=1), np.min(m, initial=0.5))

    check_calls(f, [(M34,), (NAN34,)])


def test_ndarray_prod_warns_of_overflow_as_numpy():
    # x.prod() of a NumPy array ran as jax.Array's prod: NumPy's "overflow encountered in reduce" was lost
    from tests.helpers import check_warnings

    def f(x):
        return x.prod(), x.prod(axis=0), x[:2].prod(keepdims=True)

    check_warnings(f, np.array([1e308, 1e308, 1.0]))
    check_warnings(f, np.array([1e300, 1e10, -2.0]))
    check_warnings(f, W8)


def test_scipy_exemplar_data_made_at_conversion_warns_nothing():
    # the exemplars SciPy's functions are validated on (1e300 among them) were cast to float32 under the
    # user's np.errstate: "overflow encountered in cast" on the first call of scipy.special.expit(x32)
    import scipy.special as sp

    from tests.helpers import check_warnings

    check_warnings(lambda x: (sp.expit(x), sp.erf(x), sp.log1p(np.abs(x))), F32)
    check_warnings(lambda x: (sp.softmax(x, axis=1), sp.logsumexp(x)), jnp.asarray(M34, dtype=jnp.float32))


# ------------------------------------------------ NumPy's refusals
def test_a_ufunc_numpy_has_no_loop_for_raises_as_eager():
    # np.positive of bools, np.deg2rad of complex data: NumPy raises (no loop for the dtype), JAX's op
    # computed a result: a silent difference; now the call falls back and raises eager's error
    from tests.helpers import check_calls

    i, v = np.array([1, -2, 3]), np.array([0.5, -1.0, 2.0])
    check_calls(lambda x: np.positive(x), [(i > 0,)], full_graph=False)
    check_calls(lambda x: np.deg2rad(x), [(v + 1j,)], full_graph=False)
    check_calls(lambda x: np.bitwise_and(x, 3), [(v,)], full_graph=False)
    check_calls(lambda x: (np.deg2rad(x), np.positive(x), np.left_shift(i, 1)), [(v,), (i,), (jnp.asarray(v),)])
    check_calls(lambda x, y: (np.add(x, y), np.sqrt(np.abs(x)), np.add(x, 1.5), np.logaddexp(x, 2)), [(v, i), (i, v)])


def entries() -> list[Entry]:
    return _numpy() + _scipy() + _sklearn() + _optax() + _jax() + _direct() + _edge()


def main(argv: list[str]) -> int:
    return run_sets(argv, {"user": lambda: _numpy() + _scipy() + _sklearn() + _optax() + _jax(), "direct": _direct,
                           "edge": _edge}, entries)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
