"""The library sweep in h-lib14: unmodified library functions called as a user
calls them, a set of functions and call patterns not in ``benchmarks/library_corpus.py``
nor in the earlier sweeps (scipy.stats on 2-D data with ``axis=``, scipy.signal
spectra and filters, scipy.interpolate, scipy.ndimage, numpy.polynomial,
``np.linalg.norm`` orders, sorting/searching options, scikit-learn curves and
scalers, optax optimiser steps and schedules, jax.nn / jax.scipy helpers).

``entries()`` is the set: (library, name, function, input sets). ``python -m
tests.test_library_sweep14 [-v] [--set=user|direct|edge] [NAME...]`` converts each function once, calls it
on every input set under ``explain``, compares with eager and prints the one-graph
count per library, the fallback sites by reason, and every entry that falls back
or differs (``tests.test_library_sweep13.run_entry``).
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import numpy as np

from tests.test_library_sweep13 import Entry, run_sets

rng = np.random.default_rng(14)
V8 = rng.standard_normal(8)
V16 = rng.standard_normal(16)
W8 = rng.random(8) + 0.1
M34 = rng.standard_normal((3, 4))
M45 = rng.standard_normal((4, 5))
M58 = rng.standard_normal((5, 8))
SPD = M45 @ M45.T + 4 * np.eye(4)
I12 = rng.integers(0, 5, 12)
F32 = rng.standard_normal(16).astype(np.float32)
SIG = np.sin(np.linspace(0, 12, 64)) + 0.3 * rng.standard_normal(64)
CW = np.cumsum(W8)
SIG2 = np.cos(np.linspace(0, 7, 64)) + 0.1 * rng.standard_normal(64)


def _numpy() -> list[Entry]:
    def E(name, fn, calls, **kw):
        return Entry("numpy", name, fn, calls, **kw)

    def norm_orders(x, m):
        return (np.linalg.norm(x, ord=1), np.linalg.norm(x, ord=np.inf), np.linalg.norm(x, ord=-np.inf),
                np.linalg.norm(x, ord=0), np.linalg.norm(x, ord=3), np.linalg.norm(m, ord=1), np.linalg.norm(m, ord=-1),
                np.linalg.norm(m, ord=2), np.linalg.norm(m, ord="nuc"), np.linalg.norm(m, axis=1),
                np.linalg.norm(m, ord=1, axis=0), np.linalg.norm(m, axis=1, keepdims=True), np.linalg.norm(m, axis=(0, 1)))

    def bin_edges(x):
        return (np.histogram_bin_edges(x, bins=4), np.histogram_bin_edges(x, bins="sturges"),
                np.histogram_bin_edges(x, bins=3, range=(-1.0, 1.0)), np.histogram(x, bins=np.array([-2.0, 0.0, 0.5, 2.0]))[0])

    def searchsorted_sides(a, v):
        s = np.sort(a)
        o = np.argsort(a)
        return (np.searchsorted(s, v, side="right"), np.searchsorted(s, v, side="left"), np.searchsorted(a, v, sorter=o),
                np.searchsorted(s, 0.0), np.digitize(v, s[::-1]), np.digitize(v, s, right=False))

    def bincount_kw(i, w):
        return np.bincount(i, weights=w, minlength=8), np.bincount(i, minlength=2), np.bincount(i[:3])

    def polynomial_cls(x, y):
        from numpy.polynomial import Polynomial, chebyshev, legendre
        p = Polynomial.fit(x, y, 2)
        c = chebyshev.chebfit(x, y, 3)
        return (p(0.25), p.convert().coef, Polynomial([1.0, -2.0, 0.5])(x), chebyshev.chebval(x, c),
                legendre.legval(x, [1.0, 0.5, 0.25]), np.polynomial.polynomial.polyval(x, [0.0, 1.0, 2.0]))

    def take_put_along(m):
        i = np.argsort(m, axis=1)
        s = np.take_along_axis(m, i, axis=1)
        z = m.copy()
        np.put_along_axis(z, i[:, :1], 0.0, axis=1)
        return s, z, np.take(m, [0, 2], axis=1), np.partition(m, 1, axis=1)[:, :2]

    def set_ops(a, b):
        return (np.isin(a, b), np.intersect1d(a, b), np.setdiff1d(a, b), np.union1d(a, b), np.setxor1d(a, b),
                np.lexsort((a, a * 2 - 1)))

    def ufunc_methods(x, i):
        z = np.zeros(5)
        np.add.at(z, i % 5, x[: i.shape[0]])
        return (z, np.add.reduceat(x, [0, 2, 5]), np.maximum.outer(x[:3], x[:4]), np.logical_and.reduce(x > -1),
                np.multiply.reduce(x[:4]), np.minimum.reduce(x))

    def insert_delete(x, m):
        return (np.insert(x, 2, 9.0), np.delete(x, [0, 3]), np.append(m, m[:1], axis=0), np.delete(m, 1, axis=1),
                np.insert(m, 0, -1.0, axis=0), np.resize(x, 11))

    def windows_np(n):
        return np.hanning(n), np.hamming(n), np.blackman(n), np.bartlett(n), np.kaiser(n, 5.0)

    def linalg_decomp(a, b):
        q, r = np.linalg.qr(a)
        w, v = np.linalg.eigh(a)
        sign, logdet = np.linalg.slogdet(a)
        return (np.linalg.solve(a, b), np.abs(q), np.abs(r), w, np.abs(v), sign, logdet, np.linalg.cholesky(a),
                np.linalg.svd(a, compute_uv=False), np.linalg.det(a))

    def diag_tri(x, m):
        return (np.diag(x), np.diag(m, k=1), np.diagflat(x[:3]), np.tri(3, 4, k=-1), np.triu(m, 1), np.tril(m, -1),
                m[np.triu_indices_from(m[:, :3])], np.diag_indices(3))

    def nan_more(x):
        y = x.copy()
        y[1] = np.nan
        return (np.nanquantile(y, [0.2, 0.8]), np.nanargmin(y), np.nanprod(y), np.nanmin(y), np.nanvar(y, ddof=1),
                np.nancumprod(y), np.nansum(y.reshape(2, -1), axis=1))

    def stack_block(x, y):
        return (np.stack([x, y], axis=1), np.block([[x[:2], y[:2]], [y[:2], x[:2]]]), np.dstack([x, y]).shape,
                np.concatenate([x, y], axis=None), np.hsplit(np.vstack([x, y]), 2)[1], np.expand_dims(x, (0, 2)).shape)

    def ix_grid(x):
        ii, jj = np.ix_([0, 2], [1, 3])
        m = np.outer(x, x)
        g = np.mgrid[0:3, 0:2]
        o = np.ogrid[0:3, 0:2]
        return m[ii, jj], g, o[0] + o[1], np.indices((2, 3)), np.unravel_index(7, (3, 4)), np.ravel_multi_index(([1, 2], [0, 3]), (3, 4))

    def modf_angle(x):
        frac, whole = np.modf(x * 3)
        return frac, whole, np.angle(x + 1j, deg=True), np.rint(x * 4), np.fix(x * 3), np.sign(x) * np.floor(np.abs(x))

    def cum_dtype(i, x):
        return (np.cumsum(i, dtype=np.float32), np.sum(x, dtype=np.float32), np.mean(i, dtype=np.float64),
                np.prod(i[:4] + 1, dtype=np.int8), np.cumprod(x.reshape(2, -1), axis=1))

    def einsum_opt(a, b, x):
        return (np.einsum("ij,jk,k->i", a, b, x, optimize=True), np.einsum("ij->ji", a), np.einsum("ij,ij->i", a, a),
                np.einsum(a, [0, 1], b, [1, 2], [0, 2]), np.tensordot(a, b, axes=1))

    def histogramdd_user(m):
        h, edges = np.histogramdd(m.T, bins=2)
        return h, edges

    def corr_rowvar(m, w):
        return (np.corrcoef(m, rowvar=False), np.cov(m, fweights=np.array([1, 2, 1, 3])[: m.shape[1]] if m.shape[1] <= 4 else None),
                np.cov(m, bias=True), np.cov(m.T, aweights=w[: m.shape[0]]))

    def masked_user(x):
        y = x.copy()
        y[2] = np.nan
        mx = np.ma.masked_invalid(y)
        mw = np.ma.masked_where(x > 0.5, x)
        return float(mx.mean()), float(mw.sum()), mx.filled(0.0), np.ma.getmaskarray(mw)

    def stride_user(x):
        from numpy.lib.stride_tricks import sliding_window_view
        w = sliding_window_view(x, 4)[::2]
        return w.max(axis=1), sliding_window_view(x.reshape(2, -1), (2, 2)).sum(axis=(-1, -2))

    return [
        E("np.linalg.norm(ord, axis, keepdims)", norm_orders, [(V8, M34), (W8, SPD), (F32[:5], M34.astype(np.float32))]),
        E("np.histogram_bin_edges/histogram(bins=array)", bin_edges, [(V16,), (W8,)]),
        E("np.searchsorted(side, sorter)/digitize decreasing", searchsorted_sides, [(V8, W8), (W8, V16)]),
        E("np.bincount(weights, minlength)", bincount_kw, [(I12, V16[:12]), (I12[::-1] + 2, W8.repeat(2)[:12])]),
        E("numpy.polynomial Polynomial.fit/chebfit/legval", polynomial_cls, [(np.linspace(0, 1, 8), V8), (np.linspace(-1, 1, 8), W8)]),
        E("np.take_along_axis/put_along_axis/partition", take_put_along, [(M34,), (M45,)]),
        E("np.isin/intersect1d/setdiff1d/lexsort", set_ops, [(I12, I12[::-1] + 1), (I12[:6], np.array([0, 2, 4]))]),
        E("ufunc.at/reduceat/outer/reduce", ufunc_methods, [(V16, I12), (W8.repeat(2), I12[::-1])]),
        E("np.insert/delete/append(axis)/resize", insert_delete, [(V8, M34), (W8, M45)]),
        E("np.hanning/hamming/blackman/kaiser", windows_np, [(8,), (5,)]),
        E("np.linalg solve/qr/eigh/slogdet/cholesky/svd", linalg_decomp, [(SPD, V8[:4]), (SPD * 2 + 1, W8[:4])]),
        E("np.diag/diagflat/tri/triu_indices_from", diag_tri, [(V8[:4], M34), (W8[:4], M45)]),
        E("np.nanquantile/nanargmin/nanprod/nancumprod", nan_more, [(V8,), (W8,)]),
        E("np.stack(axis)/block/dstack/hsplit", stack_block, [(V8, W8), (W8[:4], V8[:4])]),
        E("np.ix_/mgrid/ogrid/indices/unravel_index", ix_grid, [(V8[:4],), (W8[:4],)]),
        E("np.modf/angle(deg)/rint/fix", modf_angle, [(V8,), (W8,)]),
        E("reductions with dtype=", cum_dtype, [(I12, V8), (I12 * 7, W8)]),
        E("np.einsum(optimize)/tensordot(axes=1)", einsum_opt, [(M34, M45, W8[:5]), (M34 * 2, M45[::-1], V8[:5])]),
        E("np.histogramdd", histogramdd_user, [(M34,), (M45[:2],)]),
        E("np.corrcoef(rowvar=False)/cov(fweights, bias)", corr_rowvar, [(M34, W8), (M34 * 2, W8[::-1])]),
        E("np.ma masked_invalid/masked_where", masked_user, [(V8,), (W8,)]),
        E("sliding_window_view 2-D window", stride_user, [(V16,), (np.cumsum(V16),)]),
    ]


def _scipy() -> list[Entry]:
    import scipy.interpolate as si
    import scipy.linalg
    import scipy.ndimage as ndi
    import scipy.signal
    import scipy.spatial.distance as dist
    import scipy.special
    import scipy.stats

    def E(name, fn, calls, **kw):
        return Entry("scipy", name, fn, calls, **kw)

    def stats_axis(m):
        return (scipy.stats.skew(m, axis=1), scipy.stats.kurtosis(m, axis=0), scipy.stats.zscore(m, axis=1),
                scipy.stats.sem(m, axis=None), scipy.stats.moment(m, 2, axis=1), scipy.stats.variation(m, axis=0))

    def describe_axis(m):
        d = scipy.stats.describe(m, axis=1)
        return d.nobs, d.minmax, d.mean, d.variance, d.skewness

    def rank_entropy_axis(m, w):
        return (scipy.stats.rankdata(m, axis=1), scipy.stats.entropy(np.abs(m) + 0.1, axis=1),
                scipy.stats.gmean(np.abs(m) + 0.1, axis=0), scipy.stats.median_abs_deviation(m, axis=1),
                scipy.stats.tmean(w, (0.2, 0.9)), scipy.stats.iqr(m, axis=1))

    def tests_user(x, y):
        t = scipy.stats.ttest_ind(x, y)
        o = scipy.stats.ttest_1samp(x, 0.0)
        r = scipy.stats.ttest_rel(x, y)
        return t.statistic, t.pvalue, o.statistic, o.pvalue, r.statistic, scipy.stats.wasserstein_distance(x, y)

    def dists_more(x):
        return (scipy.stats.expon.pdf(np.abs(x), scale=2.0), scipy.stats.gamma.logpdf(np.abs(x) + 0.1, 2.0),
                scipy.stats.beta.cdf(np.clip(np.abs(x), 0.01, 0.99), 2.0, 3.0), scipy.stats.laplace.cdf(x),
                scipy.stats.logistic.sf(x), scipy.stats.multivariate_normal.logpdf(x[:2], mean=[0.0, 0.0]))

    def spectra(x):
        f, p = scipy.signal.welch(x, fs=10.0, nperseg=16)
        g, q = scipy.signal.periodogram(x, fs=10.0)
        return f, p, g, q, scipy.signal.periodogram(x, window="hann", scaling="spectrum")[1]

    def filters_more(x):
        b, a = scipy.signal.butter(3, 0.2)
        sos = scipy.signal.cheby1(2, 1.0, 0.3, output="sos")
        zi = scipy.signal.sosfilt_zi(sos) * x[0]
        y, zf = scipy.signal.sosfilt(sos, x, zi=zi)
        return scipy.signal.filtfilt(b, a, x), y, zf, scipy.signal.lfilter(b, a, x)

    def filter_2d_axis(m):
        b, a = scipy.signal.butter(2, 0.4)
        return scipy.signal.lfilter(b, a, m, axis=1), scipy.signal.savgol_filter(m, 5, 2, axis=1, mode="nearest"), scipy.signal.detrend(m, axis=0)

    def signal_misc(x, y):
        return (np.abs(scipy.signal.hilbert(x)), scipy.signal.correlation_lags(x.size, y.size), scipy.signal.resample(x, 32),
                scipy.signal.argrelextrema(x, np.greater)[0], scipy.signal.convolve2d(np.outer(x[:4], y[:4]), np.ones((2, 2)), mode="same"))

    def freq_resp(n):
        b, a = scipy.signal.butter(n, 0.3)
        w, h = scipy.signal.freqz(b, a, worN=16)
        return w, np.abs(h), scipy.signal.tf2zpk(b, a)[2]

    def interp_user(x, y, xn):
        f = si.interp1d(x, y)
        g = si.interp1d(x, y, kind="cubic", fill_value="extrapolate")
        cs = si.CubicSpline(x, y)
        return f(xn), g(xn), cs(xn), cs(xn, 1), si.PchipInterpolator(x, y)(xn), si.Akima1DInterpolator(x, y)(xn)

    def spline_user(x, y, xn):
        s = si.make_interp_spline(x, y, k=3)
        return s(xn), si.interp1d(x, y, kind="nearest", bounds_error=False, fill_value=0.0)(xn * 2)

    def ndimage_1d(x):
        return (ndi.gaussian_filter1d(x, 1.5), ndi.uniform_filter1d(x, 3), ndi.convolve1d(x, [1.0, 2.0, 1.0]),
                ndi.median_filter(x, size=3), ndi.maximum_filter1d(x, 3), ndi.gaussian_filter1d(x, 1.0, order=1, mode="nearest"),
                ndi.correlate1d(x, [0.5, -0.5], mode="wrap"))

    def ndimage_2d(m):
        return (ndi.gaussian_filter(m, 1.0), ndi.uniform_filter(m, 3), ndi.sobel(m, axis=0), ndi.laplace(m),
                ndi.shift(m, (0.5, 1.0), order=1), ndi.zoom(m, 2, order=1), ndi.convolve(m, np.ones((2, 2)) / 4))

    def special_more(x, p):
        return (scipy.special.log_expit(x), scipy.special.ndtr(x), scipy.special.ndtri(np.clip(p / 3, 0.01, 0.99)),
                scipy.special.gamma(p + 1), scipy.special.beta(p + 1, 2.0), scipy.special.i0e(x), scipy.special.rel_entr(p, p[::-1]),
                scipy.special.kl_div(p, p[::-1]), scipy.special.huber(0.5, x), scipy.special.pseudo_huber(0.5, x),
                scipy.special.boxcox(p, 0.5), scipy.special.erfinv(np.clip(x / 3, -0.9, 0.9)), scipy.special.factorial(np.array([3, 5])))

    def linalg_more(a, b):
        w, v = scipy.linalg.eigh(a)
        q, r = scipy.linalg.qr(a)
        return (scipy.linalg.solve(a, b, assume_a="pos"), w, np.abs(v), np.abs(r), scipy.linalg.det(a), scipy.linalg.inv(a),
                scipy.linalg.sqrtm(a).real, scipy.linalg.cholesky(a, lower=True), scipy.linalg.hankel(b), scipy.linalg.circulant(b),
                scipy.linalg.svdvals(a), scipy.linalg.lstsq(a, b)[0], scipy.linalg.pinv(a))

    def dist_more(u, v, m):
        return (dist.jensenshannon(np.abs(u), np.abs(v)), dist.mahalanobis(u[:4], v[:4], np.linalg.inv(m)),
                dist.hamming(u > 0, v > 0), dist.jaccard(u > 0, v > 0), dist.squareform(dist.squareform(dist.pdist(m))),
                dist.cdist(m, m, "seuclidean"), dist.pdist(m, "chebyshev"))

    def integrate_more(y, x):
        import scipy.integrate as sint
        return sint.cumulative_simpson(y, x=x), sint.simpson(y, x=x), sint.romb(y[:5], dx=0.5), sint.cumulative_trapezoid(y, x, axis=-1)

    return [
        E("scipy.stats skew/kurtosis/zscore/sem (axis=)", stats_axis, [(M34,), (M58,)]),
        E("scipy.stats.describe(axis=1)", describe_axis, [(M34,), (M58,)]),
        E("scipy.stats rankdata/entropy/gmean/mad (axis=)", rank_entropy_axis, [(M34, W8), (M58, W8[::-1])]),
        E("scipy.stats ttest_ind/ttest_1samp/wasserstein", tests_user, [(V8, W8), (W8, V8 + 1)]),
        E("scipy.stats expon/gamma/beta/multivariate_normal", dists_more, [(V8,), (W8,)]),
        E("scipy.signal.welch/periodogram", spectra, [(SIG,), (SIG2,)]),
        E("scipy.signal filtfilt/sosfilt(zi)/cheby1", filters_more, [(SIG,), (SIG2,)]),
        E("scipy.signal lfilter/savgol/detrend (axis=)", filter_2d_axis, [(M58,), (np.cumsum(M58, axis=1),)]),
        E("scipy.signal hilbert/resample/argrelextrema/convolve2d", signal_misc, [(V16, V8), (np.cumsum(V16), W8)]),
        E("scipy.signal.freqz/tf2zpk", freq_resp, [(2,), (3,)]),
        E("scipy.interpolate interp1d/CubicSpline/Pchip/Akima", interp_user, [(np.linspace(0, 1, 8), V8, np.linspace(0.05, 0.95, 5)),
                                                                             (CW, W8, np.linspace(CW[0] + 0.01, CW[-1] - 0.01, 6))]),
        E("scipy.interpolate make_interp_spline/interp1d(nearest)", spline_user, [(np.linspace(0, 1, 8), V8, np.linspace(0.05, 0.95, 5)),
                                                                                 (np.cumsum(W8), W8, np.linspace(0.2, 2.0, 6))]),
        E("scipy.ndimage 1-D filters", ndimage_1d, [(V16,), (SIG[:20],)]),
        E("scipy.ndimage 2-D filters/shift/zoom", ndimage_2d, [(M58,), (M45,)]),
        E("scipy.special log_expit/ndtr/gamma/rel_entr/huber/boxcox", special_more, [(V8, W8), (W8 - 0.5, W8 * 2)]),
        E("scipy.linalg solve(pos)/eigh/qr/sqrtm/hankel/lstsq", linalg_more, [(SPD, V8[:4]), (SPD * 2, W8[:4])]),
        E("scipy.spatial.distance jensenshannon/mahalanobis/hamming", dist_more, [(V8, W8, SPD), (W8, V8, SPD * 2)]),
        E("scipy.integrate cumulative_simpson/romb", integrate_more, [(V8, np.linspace(0, 1, 8)), (W8, np.cumsum(W8))]),
    ]


def _sklearn() -> list[Entry]:
    import sklearn.metrics as skm
    import sklearn.metrics.pairwise as pw
    import sklearn.preprocessing as pre
    from sklearn.utils import extmath

    def E(name, fn, calls, **kw):
        return Entry("sklearn", name, fn, calls, **kw)

    yt = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 0])
    yp = np.array([0, 1, 0, 0, 1, 1, 1, 1, 0, 1])
    sc = np.linspace(0.05, 0.95, 10)[rng.permutation(10)]
    y3 = np.array([0, 1, 2, 2, 1, 0, 2, 1, 0, 2])
    p3 = jax.nn.softmax(jnp.asarray(rng.standard_normal((10, 3)))).__array__().astype(np.float64)

    def curves(t, s):
        fpr, tpr, thr = skm.roc_curve(t, s)
        pr, rc, th = skm.precision_recall_curve(t, s)
        return fpr, tpr, thr, pr, rc, th, skm.roc_auc_score(t, s), skm.average_precision_score(t, s)

    def classif_more(t, p):
        return (skm.balanced_accuracy_score(t, p), skm.matthews_corrcoef(t, p), skm.cohen_kappa_score(t, p),
                skm.hamming_loss(t, p), skm.fbeta_score(t, p, beta=0.5), skm.jaccard_score(t, p),
                skm.f1_score(t, p, average="macro"), skm.precision_recall_fscore_support(t, p, average="binary")[:3])

    def multiclass(t, p):
        return (skm.log_loss(t, p, labels=[0, 1, 2]), skm.top_k_accuracy_score(t, p, k=2), skm.roc_auc_score(t, p, multi_class="ovr"),
                skm.confusion_matrix(t, p.argmax(1), labels=[0, 1, 2]), skm.f1_score(t, p.argmax(1), average="weighted"))

    def regress_more(t, p):
        return (skm.mean_absolute_percentage_error(t, p), skm.mean_squared_log_error(np.abs(t), np.abs(p)),
                skm.root_mean_squared_error(t, p), skm.d2_absolute_error_score(t, p), skm.mean_pinball_loss(t, p, alpha=0.3),
                skm.r2_score(t, p, multioutput="raw_values"), skm.mean_tweedie_deviance(np.abs(t), np.abs(p) + 0.1, power=1.5))

    def scalers_more(m):
        return (pre.scale(m, with_std=False), pre.robust_scale(m), pre.PolynomialFeatures(2).fit_transform(m),
                pre.binarize(m, threshold=0.1), pre.RobustScaler(quantile_range=(10, 90)).fit_transform(m),
                pre.normalize(m, norm="max", axis=0), pre.StandardScaler(with_mean=False).fit(m).transform(m))

    def encoders(y):
        le = pre.LabelEncoder().fit(y)
        return le.transform(y), le.classes_, pre.label_binarize(y, classes=[0, 1, 2, 3, 4]), pre.OneHotEncoder(sparse_output=False).fit_transform(y[:, None])

    def extmath_more(a):
        return (extmath.stable_cumsum(a.ravel()), extmath.squared_norm(a), extmath.fast_logdet(a @ a.T + np.eye(a.shape[0])),
                extmath.cartesian([np.arange(2), np.arange(3)]), extmath.weighted_mode(np.round(a), np.abs(a), axis=1)[0])

    def pairwise_more(a, b):
        return (pw.linear_kernel(a, b), pw.chi2_kernel(np.abs(a), np.abs(b)), pw.additive_chi2_kernel(np.abs(a), np.abs(b)),
                pw.paired_distances(a, a[::-1]), pw.haversine_distances(a[:, :2], b[:, :2]), pw.nan_euclidean_distances(a, b),
                pw.cosine_distances(a, b))

    return [
        E("sklearn.metrics roc_curve/precision_recall_curve/AP", curves, [(yt, sc), (yp, sc[::-1])]),
        E("sklearn.metrics balanced_accuracy/mcc/kappa/fbeta", classif_more, [(yt, yp), (yp, yt)]),
        E("sklearn.metrics multiclass log_loss(labels)/top_k/ovr", multiclass, [(y3, p3), (y3[::-1], p3)]),
        E("sklearn.metrics mape/msle/rmse/d2/pinball", regress_more, [(V8, W8), (W8, V8 * 2)]),
        E("sklearn.preprocessing scale/robust_scale/PolynomialFeatures", scalers_more, [(M45,), (M34.T,)]),
        E("sklearn.preprocessing LabelEncoder/label_binarize/OneHot", encoders, [(I12,), (I12[::-1],)]),
        E("sklearn.utils.extmath stable_cumsum/fast_logdet/cartesian", extmath_more, [(M34,), (M45,)]),
        E("sklearn.metrics.pairwise linear/chi2/haversine/nan_euclidean", pairwise_more, [(M34, M45[:, :4]), (M45[:, :4], M34)]),
    ]


def _optax() -> list[Entry]:
    import optax

    def E(name, fn, calls, **kw):
        return Entry("optax", name, fn, calls, **kw)

    j = lambda a: jnp.asarray(a, jnp.float32)  # noqa: E731

    def schedules_more(step):
        s1 = optax.exponential_decay(1.0, 5, 0.5, staircase=True)
        s2 = optax.cosine_decay_schedule(1.0, 20, alpha=0.1)
        s3 = optax.polynomial_schedule(1.0, 0.1, 2, 15, transition_begin=2)
        s4 = optax.warmup_cosine_decay_schedule(0.0, 1.0, 3, 20)
        s5 = optax.linear_onecycle_schedule(30, 1.0)
        return s1(step), s2(step), s3(step), s4(step), s5(step)

    def clip_adam(params, grads):
        tx = optax.chain(optax.clip_by_global_norm(1.0), optax.adam(1e-2))
        state = tx.init(params)
        for _ in range(3):
            updates, state = tx.update(grads, state, params)
            params = optax.apply_updates(params, updates)
        return params, optax.global_norm(grads), state[1][0].count

    def sgd_momentum(params, grads):
        tx = optax.sgd(optax.exponential_decay(0.1, 2, 0.5), momentum=0.9, nesterov=True)
        state = tx.init(params)
        for _ in range(3):
            updates, state = tx.update(grads, state)
            params = optax.apply_updates(params, updates)
        return params

    def adam_schedule(params, grads):
        tx = optax.adamw(optax.warmup_cosine_decay_schedule(0.0, 1e-2, 2, 10), weight_decay=1e-2)
        state = tx.init(params)
        for k in range(3):
            updates, state = tx.update(jax.tree_util.tree_map(lambda g: g * (k + 1), grads), state, params)
            params = optax.apply_updates(params, updates)
        return params

    def losses_more(p, t):
        return (optax.squared_error(p, t), optax.log_cosh(p, t), optax.hinge_loss(p, jnp.sign(t)),
                optax.smooth_labels(jax.nn.one_hot(jnp.argmax(t, -1), t.shape[-1]), 0.1), optax.convex_kl_divergence(jax.nn.log_softmax(p), jax.nn.softmax(t)),
                optax.sigmoid_focal_loss(p, (t > 0).astype(p.dtype), gamma=2.0), optax.safe_norm(p, 1e-3), optax.global_norm({"a": p, "b": t}))

    def tree_utils(a, b):
        return (optax.tree_utils.tree_l2_norm({"a": a, "b": b}), optax.tree_utils.tree_add(a, b),
                optax.tree_utils.tree_scalar_mul(0.5, {"a": a}), optax.tree_utils.tree_vdot(a, b), optax.tree_utils.tree_zeros_like({"x": a}))

    P = {"w": j(M34), "b": j(V8[:4])}
    G = {"w": j(M34[::-1] * 3), "b": j(W8[:4])}
    P2 = {"w": j(M34 * 2), "b": j(W8[4:])}
    return [
        E("optax schedules (exp staircase, cosine, poly, onecycle)", schedules_more, [(jnp.asarray(3),), (jnp.asarray(17),), (12,)]),
        E("optax clip_by_global_norm + adam steps", clip_adam, [(P, G), (P2, G)]),
        E("optax sgd(nesterov, schedule) steps", sgd_momentum, [(P, G), (P2, G)]),
        E("optax adamw(warmup cosine) steps", adam_schedule, [(P, G), (P2, G)]),
        E("optax losses squared/log_cosh/hinge/focal/smooth_labels", losses_more, [(j(M34), j(M34[::-1])), (j(M34 * 2), j(M34))]),
        E("optax.tree_utils l2_norm/add/vdot", tree_utils, [(j(V8), j(W8)), (j(W8), j(V8))]),
    ]


def _jax() -> list[Entry]:
    import jax.scipy.linalg as jsl
    import jax.scipy.signal as jsig
    import jax.scipy.special as jss
    import jax.scipy.stats as jst

    def E(name, fn, calls, **kw):
        return Entry("jax", name, fn, calls, **kw)

    j = lambda a: jnp.asarray(a, jnp.float32)  # noqa: E731

    def nn_acts(x):
        return (jax.nn.gelu(x), jax.nn.gelu(x, approximate=False), jax.nn.silu(x), jax.nn.softplus(x), jax.nn.relu6(x * 4),
                jax.nn.standardize(x), jax.nn.log_sigmoid(x), jax.nn.glu(x), jax.nn.elu(x), jax.nn.celu(x, 0.5),
                jax.nn.hard_tanh(x * 2), jax.nn.logsumexp(x), jax.nn.softmax(x, where=x > -1.0))

    def jsp_more(x, p, a):
        return (jss.logit(jnp.clip(p / 3, 0.01, 0.99)), jss.ndtr(x), jss.erfinv(jnp.clip(x / 3, -0.9, 0.9)),
                jst.multivariate_normal.logpdf(x[:4], jnp.zeros(4), a), jsl.cho_solve(jsl.cho_factor(a), x[:4]),
                jsig.convolve(x, p[:3], mode="same"), jst.poisson.logpmf(jnp.arange(4), 2.0), jsl.expm(a * 0.1))

    def jnp_user(x, m):
        return (jnp.histogram(x, bins=4)[0], jnp.searchsorted(jnp.sort(x), m[0], side="right"), jnp.linalg.norm(m, ord="nuc"),
                jnp.nanpercentile(jnp.where(x > 1.5, jnp.nan, x), 50), jnp.bincount(jnp.argsort(x) % 3, length=3),
                jnp.polyval(jnp.array([1.0, -1.0, 0.5]), x), jnp.trapezoid(x), jnp.cov(m))

    return [
        E("jax.nn activations (gelu, silu, glu, standardize, ...)", nn_acts, [(j(V8),), (j(W8 - 0.5),)]),
        E("jax.scipy logit/ndtr/multivariate_normal/cho_solve/convolve", jsp_more, [(j(V8), j(W8), j(SPD)), (j(W8), j(V8 ** 2), j(SPD * 2))]),
        E("jnp histogram/searchsorted(side)/norm(nuc)/cov", jnp_user, [(j(V8), j(M34)), (j(W8), j(M34 * 2))]),
    ]


def _direct() -> list[Entry]:
    """``to_static(lib_fn)`` itself on float64, float32, integer and jax.Array data."""
    import scipy.ndimage as ndi
    import scipy.signal
    import scipy.special
    import scipy.stats
    import sklearn.metrics as skm
    import sklearn.preprocessing as pre

    f32, jx = (lambda a: np.asarray(a, np.float32)), (lambda a: jnp.asarray(a, jnp.float32))  # noqa: E731
    v, m = V16, M34
    vec1 = [(v,), (f32(v),), (jx(v),)]
    mat1 = [(m,), (f32(m),), (jx(m),)]
    D = lambda lib, fn, calls, name=None: Entry(lib, name or f"{getattr(fn, '__module__', lib)}.{fn.__name__} (direct)", fn, calls)  # noqa: E731
    return [
        D("numpy", np.histogram_bin_edges, vec1), D("numpy", np.hanning, [(8,), (1,), (0,)]), D("numpy", np.kaiser, [(8, 5.0), (3, 0.0)]),
        D("numpy", np.take_along_axis, [(m, np.argsort(m, axis=1), 1), (f32(m), np.argsort(m, axis=0), 0)]),
        D("numpy", np.nanquantile, [(v, 0.3), (f32(v), [0.1, 0.9]), (jx(v), 0.5)]), D("numpy", np.nanargmin, vec1),
        D("numpy", np.diag, vec1 + mat1), D("numpy", np.insert, [(v, 1, 5.0), (f32(v), [0, 2], 1.0)]),
        D("numpy", np.delete, [(v, 1), (f32(v), [0, 2]), (I12, slice(0, 3))]), D("numpy", np.isin, [(I12, [1, 2]), (v, v[:3])]),
        D("numpy", np.intersect1d, [(I12, I12[::-1] + 1)]), D("numpy", np.lexsort, [((v, np.round(v)),)]),
        D("scipy", scipy.stats.median_abs_deviation, vec1 + mat1), D("scipy", scipy.stats.tmean, vec1),
        D("scipy", scipy.stats.ttest_1samp, [(v, 0.0), (f32(v), 0.5)]), D("scipy", scipy.special.log_expit, vec1),
        D("scipy", scipy.special.ndtr, vec1), D("scipy", scipy.special.rel_entr, [(np.abs(v), np.abs(v[::-1]))]),
        D("scipy", scipy.signal.welch, [(SIG,), (f32(SIG),)]), D("scipy", scipy.signal.periodogram, [(SIG,), (f32(SIG),)]),
        D("scipy", scipy.signal.hilbert, [(v,)]), D("scipy", ndi.gaussian_filter1d, [(v, 1.0), (f32(v), 2.0)]),
        D("scipy", ndi.uniform_filter1d, [(v, 3), (f32(v), 4)]), D("scipy", ndi.convolve1d, [(v, [1.0, 2.0, 1.0]), (f32(v), [1.0, -1.0])]),
        D("sklearn", skm.roc_auc_score, [(np.array([0, 1, 1, 0, 1, 0]), v[:6]), (np.array([1, 1, 0, 0, 1, 0]), f32(v[:6]))]),
        D("sklearn", skm.matthews_corrcoef, [(I12 % 2, I12[::-1] % 2)]), D("sklearn", pre.robust_scale, mat1[:2]),
        D("sklearn", pre.scale, mat1[:2]),
    ]


def _edge() -> list[Entry]:
    """``to_static(lib_fn)`` of this set's functions on narrow integers, booleans, float16/float32,
    NaN and infinities, 0-d arrays and Python lists (converted afresh for each input)."""
    import scipy.ndimage as ndi
    import scipy.signal
    import scipy.special
    import scipy.stats

    u8 = np.array([250, 3, 7, 255, 0, 9, 4, 4], np.uint8)
    i16 = np.array([32000, -7, 100, -32768, 5, 64, 3, 3], np.int16)
    b = np.array([True, False, True, True, False, True, False, False])
    h = np.array([0.1, 2.5, -3.25, 1000.0, 7.0, 0.5, -0.0, 2.5], np.float16)
    nan = np.array([1.0, np.nan, 3.0, -np.inf, 0.5, 4.0, np.inf, -0.0])
    f32 = np.array([1.5, -2.25, 3.0, 0.125, 7.5, -1.0, 2.0, 2.0], np.float32)
    lst = [3.0, 1.0, 2.0, 2.0, 5.0, -1.0, 0.0, 4.0]
    kinds = [(u8,), (i16,), (b,), (h,), (nan,), (f32,), (lst,), (jnp.asarray(f32),)]
    fns = [np.histogram_bin_edges, np.nanargmin, np.nanargmax, np.nanprod, np.nancumprod, np.rint, np.fix, np.modf,
           np.diag, np.diagflat, np.resize, np.lexsort, np.unwrap, np.ptp, np.sort_complex, np.trim_zeros, np.nanquantile,
           np.nanpercentile, np.median, np.average, np.msort if hasattr(np, "msort") else np.sort, np.isin, np.flatnonzero,
           np.argwhere, np.cumsum, np.linalg.norm, np.gradient, np.diff, np.sinc, np.i0, np.angle, np.real_if_close,
           np.around, np.nan_to_num, np.spacing, np.signbit, np.histogram, np.bincount, np.searchsorted,
           scipy.special.ndtr, scipy.special.log_expit, scipy.special.logit, scipy.special.expit, scipy.special.erfc,
           scipy.special.gammaln, scipy.special.softmax, scipy.special.log_softmax, scipy.special.logsumexp,
           scipy.stats.median_abs_deviation, scipy.stats.tmean, scipy.stats.rankdata, scipy.stats.zscore, scipy.stats.iqr,
           scipy.stats.variation, scipy.stats.gmean, scipy.stats.hmean, scipy.stats.sem, scipy.stats.kurtosis,
           ndi.gaussian_filter1d, ndi.uniform_filter1d, ndi.median_filter, ndi.maximum_filter1d, ndi.minimum_filter1d,
           scipy.signal.detrend, scipy.signal.hilbert, scipy.signal.medfilt, scipy.signal.periodogram,
           jax.nn.gelu, jax.nn.softplus, jax.nn.standardize, jax.nn.log_softmax]
    out = []
    for fn in fns:
        extra = {np.nanquantile: (0.3,), np.nanpercentile: (40.0,), np.resize: (5,), np.isin: ([0, 4, 7],),
                 np.searchsorted: (3,), ndi.gaussian_filter1d: (1.0,), ndi.uniform_filter1d: (3,), ndi.median_filter: (3,),
                 ndi.maximum_filter1d: (3,), ndi.minimum_filter1d: (3,), scipy.stats.tmean: ((0, 100),)}.get(fn, ())
        calls = [(*k, *extra) for k in kinds]
        if fn is np.lexsort:
            calls = [((k[0], k[0]),) for k in kinds]
        if fn is np.bincount:
            calls = [(np.abs(i16[:3]).astype(np.uint16) % 7,), (u8 % 5,), (b,), (u8 % 5, f32), (u8 % 5, h), (u8 % 3, nan)]
        if fn is np.searchsorted:
            calls = [(np.sort(np.asarray(k[0])), *extra) for k in kinds[:6]] + [(np.sort(f32), f32, "right")]
        out.append(Entry("edge", f"{getattr(fn, '__module__', '')}.{getattr(fn, '__name__', fn)} (odd kinds)", fn, calls))
    return out


def entries() -> list[Entry]:
    return _numpy() + _scipy() + _sklearn() + _optax() + _jax() + _direct() + _edge()


# ------------------------------------------------------------------ tests: what the sweep found
POLY = None


def _poly_global(x):
    return POLY(x), POLY.deriv()(x)


def test_numpy_callable_object_is_numpys_python():
    # Polynomial(c)(x) and a Polynomial object from an earlier segment called on a Python float:
    # the object went to the graph op as its function (an internal error, A2G015 "unhashable
    # type: 'Polynomial'"); its class's __call__ is NumPy's own Python, converted with the object
    from numpy.polynomial import Polynomial, chebyshev

    from tests.helpers import check, check_calls

    def f(x):
        return (Polynomial([1.0, -2.0, 0.5])(x), np.poly1d([1.0, 2.0, 3.0])(x), Polynomial([0.5, 1.0]).deriv()(x),
                chebyshev.Chebyshev([1.0, 0.5, 0.25])(x))

    check_calls(f, [(V8,), (np.float32(0.5),), (F32,)])

    def g(x, y):
        p = Polynomial.fit(x, y, 2)   # (fit's own checks need values: this statement runs in Python)
        return p(0.25), p(x)

    check_calls(g, [(np.linspace(0, 1, 8), V8), (np.linspace(-1, 1, 8), W8)], full_graph=False)


def test_numpy_callable_global_object_changed_between_calls():
    # the object's coefficients are read by the converted __call__: a new object, or its array
    # written in place, between calls gives eager's result
    global POLY
    from numpy.polynomial import Polynomial

    from ast2graph import to_static
    from tests.helpers import assert_same

    static = to_static(_poly_global)
    for step in range(3):
        if step == 0:
            POLY = Polynomial([1.0, 2.0, 3.0])
        elif step == 1:
            POLY.coef[0] = 5.0
        else:
            POLY = Polynomial([0.5, -1.0])
        assert_same(_poly_global(V8), static(V8))


def _narrowed_flag(x, vectorized=True, sentinel=False):
    bad = np.isnan(x).any()   # an np.bool_: its truth is its value
    if vectorized and not bad and not sentinel:
        return x.mean(), bad
    if bad and vectorized:   # (here bad is np.True_: the branches below are decided)
        def reduce(v):
            return np.nanmean(v)
    else:
        def reduce(v):
            return v.mean()
    return reduce(x), bad


def test_falling_through_a_traced_boolean_test_knows_its_value():
    # scipy.stats' axis_nan_policy: ``if vectorized and not contains_nan: return ...`` then local
    # functions defined under ``if contains_nan and ...``: two functions joined across a traced
    # ``if`` (A2G004); where the test fell through, the np.bool_ is np.True_, the branches static
    from tests.helpers import check_calls

    nan = V8.copy()
    nan[2] = np.nan
    check_calls(_narrowed_flag, [(V8,), (nan,), (F32,)])

    def py(x):   # a Python bool (bool() of a traced comparison), narrowed by ``or`` on the false side
        neg = bool(x.sum() < 0)
        if neg or False:
            return -x, neg, neg is True
        return x, neg, neg is False

    check_calls(py, [(V8,), (-V8,), (W8,)])

    def ifexp(x):
        has = np.isinf(x).any()
        return (x if not has else np.where(np.isinf(x), 0.0, x)), (has if has else has)

    inf = W8.copy()
    inf[0] = np.inf
    check_calls(ifexp, [(W8,), (inf,)])


def test_apply_along_axis_given_its_parameters_by_keyword():
    # np.apply_along_axis(hypotest_fun, axis=0, arr=x) (scipy.stats) went to jnp's namesake (a vmap,
    # which refuses a function with Python effects): NumPy's loop converted as for positional ones
    from tests.helpers import check_calls

    def f(m):
        a = np.apply_along_axis(lambda r: r.max() - r.min(), axis=1, arr=m)
        b = np.apply_along_axis(np.sort, 0, arr=m)
        c = np.apply_along_axis(func1d=np.cumsum, axis=1, arr=m)
        return a, b, c

    check_calls(f, [(M34,), (M45.astype(np.float32),)])

def test_modf_of_infinities_and_negative_integers_is_cs():
    # jnp.modf's x - trunc(x) is NaN of an infinity (NumPy: a signed zero) and +0.0 of -3.0
    # (NumPy: -0.0, C's modf keeps the sign): a silent wrong result of np.modf
    from tests.helpers import check, check_calls

    x = np.array([1.5, -3.0, np.inf, -np.inf, np.nan, -0.0, -2.5, 7.0])

    def f(x):
        a, b = np.modf(x)
        return a, b, np.signbit(a), np.modf(x[1]), np.modf(x * 2)[0]

    check_calls(f, [(x,), (x.astype(np.float32),), (x.astype(np.float16),), (np.arange(-4, 4),),
                    (np.arange(-4, 4).astype(np.int8),)])
    check(np.modf, -2.0)
    check(np.modf, jnp.asarray(x))

def test_quantiles_are_numpys_lerp_bit_for_bit():
    # jnp.quantile's low * (1 - t) + high * t rounds otherwise than NumPy's _lerp (a + (b - a) * t,
    # b - (b - a) * (1 - t) where t >= 0.5): the last bit of 40 % of float64 results, and of float16
    # data (a Python q: NumPy's weak t, products at the data's width); XLA's multiply-add fusion too
    from ast2graph import to_static
    from tests.helpers import check_calls

    def f(x):
        return (np.quantile(x, 0.3), np.percentile(x, [10.0, 77.0]), np.percentile(x, 33),
                np.quantile(x.reshape(3, -1), 0.25, axis=1), np.percentile(x.reshape(3, -1), [5.0, 95.0], axis=0),
                np.quantile(x, np.float64(0.7)), np.percentile(x, 50, keepdims=True),
                np.quantile(x.reshape(3, -1), [0.2], axis=-1, keepdims=True))

    r = np.random.default_rng(1)
    xs = [r.standard_normal(36) * 10 for _ in range(8)]
    xs[3][5], xs[4][7] = np.nan, np.inf
    check_calls(f, [(x,) for x in xs[:5]])
    # (float32 data and a list of q: NumPy's steps at two widths, its own Python: falls back as before)
    check_calls(f, [(xs[4].astype(np.float32),), (xs[5].astype(np.float16),)], full_graph=False)
    check_calls(lambda x: (np.quantile(x, 0.3), np.percentile(x, 33), np.median(x)),
                [(xs[6].astype(np.float32),), (xs[7].astype(np.float16),)])
    static = to_static(f)
    for x in xs + [x.astype(np.float32) for x in xs] + [x.astype(np.float16) for x in xs]:
        for a, b in zip(f(x), static(x)):
            assert np.array_equal(a, b, equal_nan=True) and np.asarray(a).dtype == np.asarray(b).dtype, (x.dtype, a, b)

def test_nan_quantiles_are_numpys_lerp_of_each_slice():
    # np.nanquantile / np.nanpercentile of float64 data: NumPy's _nanquantile_1d per slice (its NaN
    # removed, n the count of the others), then _lerp; jnp.nanquantile's formula differed in the last
    # bit of most results along an axis. All-NaN slices: NaN and NumPy's RuntimeWarning
    from ast2graph import to_static
    from tests.helpers import check_calls, check_warnings

    def f(x):
        return (np.nanquantile(x, 0.3), np.nanpercentile(x, [10.0, 77.0]), np.nanquantile(x.reshape(3, -1), 0.37, axis=1),
                np.nanpercentile(x.reshape(3, -1), [5.0, 100.0], axis=0), np.nanquantile(x, 0.5, keepdims=True))

    r = np.random.default_rng(3)
    xs = [r.standard_normal(36) * 10 for _ in range(6)]
    for k, x in enumerate(xs):
        x[k::5] = np.nan
    check_calls(f, [(x,) for x in xs[:3]])
    static = to_static(f)
    for x in xs:
        for a, b in zip(f(x), static(x)):
            assert np.array_equal(a, b, equal_nan=True), (a, b)
    m = r.standard_normal((3, 5))
    m[0], m[1, 2] = np.nan, np.nan
    check_warnings(lambda x: (np.nanquantile(x, [0.3, 1.0], axis=1), np.nanpercentile(x, 40.0, axis=0, keepdims=True)), m)

def test_i0_of_float16_rounds_each_step_as_numpy():
    # NumPy's np.i0 evaluates its Chebyshev series in Python, rounding at float16 after each step;
    # jnp.i0 rounded once from float32: 1.0029 where NumPy gives 1.0039 (a silent wrong result)
    from tests.helpers import check, check_calls

    h = np.array([0.1, 2.5, -3.25, 10.0, 7.0, 0.5, -0.0, 2.5], np.float16)
    check(np.i0, h, full_graph=False)
    # (np.nanquantile of float16 data: NumPy's per-slice _lerp at float16, its own Python as well)
    check(lambda x: (np.nanquantile(x, 0.3), np.nanpercentile(x, [30.0, 90.0])), h, full_graph=False)
    check_calls(np.i0, [(V8,), (F32,)])   # (float64 and float32: one graph)

def test_float16_ufunc_with_a_python_float_casts_it_to_float16_first():
    # np.mod(x16, 2 * np.pi) (np.unwrap's step): NumPy casts the weak Python float to float16
    # (6.28125), then its half loop computes at float32; the graph's float32 loop took 6.2831855:
    # 1006 mod period 0.69 where NumPy gives 1.0 (np.fmod, np.divmod, np.hypot, np.arctan2 too)
    from tests.helpers import check

    h = (np.random.default_rng(2).standard_normal(64) * 30).astype(np.float16)
    c = 2 * np.pi

    def f(x):
        return (np.mod(x, c), np.fmod(x, c), np.divmod(x, c), np.hypot(x, c), np.logaddexp(x, 0.1),
                np.arctan2(x, c), np.less(x, 0.1), np.heaviside(x, 0.1), np.mod(x, np.float32(c)), np.mod(x, 7),
                np.add(x, 0.1j))

    got, want = __import__("ast2graph").to_static(f)(h), f(h)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    check(f, h)


def main(argv: list[str]) -> int:
    return run_sets(argv, {"user": lambda: _numpy() + _scipy() + _sklearn() + _optax() + _jax(), "direct": _direct,
                           "edge": _edge}, entries)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
