"""The library sweep in h-lib13 (issue 16, library part): unmodified library
functions called as a user calls them (keyword options, ``axis=``, float32,
integer and 2-D inputs, two or three input sets each), a set independent of
``benchmarks/library_corpus.py`` and the earlier sweeps.

``entries()`` is the set: (library, name, function, input sets). ``python -m
tests.test_library_sweep13 [-v] [--set=user|direct|edge|nonfinite] [NAME...]`` converts each function once, calls
it on every input set under ``explain``, compares with eager
(``tests.helpers.assert_same``) and prints the one-graph count per library,
the fallback sites by reason, and every entry that falls back or differs.
"""

from __future__ import annotations

import collections
import sys
import warnings
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

rng = np.random.default_rng(13)
V8 = rng.standard_normal(8)
V12 = rng.standard_normal(12)
W8 = rng.random(8) + 0.1
M34 = rng.standard_normal((3, 4))
M45 = rng.standard_normal((4, 5))
M63 = rng.standard_normal((6, 3))
SPD = M45 @ M45.T + 4 * np.eye(4)
I12 = rng.integers(0, 4, 12)
F32 = rng.standard_normal(10).astype(np.float32)


class Entry(NamedTuple):
    library: str
    name: str
    fn: Callable
    calls: list          # input sets: tuples of positional arguments
    rtol: float = 1e-5
    atol: float = 1e-6


def _numpy() -> list[Entry]:
    def E(name, fn, calls, **kw):
        return Entry("numpy", name, fn, calls, **kw)

    def interp_kw(x, xp, fp):
        return np.interp(x, xp, fp, left=-1.0, right=2.0), np.interp(x, xp, fp, period=4.0)

    def gradient_kw(y, m):
        return np.gradient(y, 0.5, edge_order=2), np.gradient(m, axis=1), np.gradient(m)

    def trapezoid_kw(y, x):
        return np.trapezoid(y, x=x), np.trapezoid(y, dx=0.25)

    def diff_kw(x):
        return np.diff(x, n=2), np.diff(x, prepend=0.0), np.diff(x, append=[1.0, 2.0])

    def convolve_modes(a, v):
        return np.convolve(a, v, mode="same"), np.convolve(a, v, mode="full"), np.convolve(a, v, mode="valid")

    def correlate_modes(a, v):
        return np.correlate(a, v), np.correlate(a, v, mode="full"), np.correlate(a, v, "same")

    def unwrap_kw(p):
        return np.unwrap(p), np.unwrap(p, period=4.0), np.unwrap(p, discont=1.0)

    def histogram_kw(x):
        c, e = np.histogram(x, bins=5, range=(-2.0, 2.0))
        d, f = np.histogram(x, bins=4, density=True)
        return c, e, d, f

    def histogram_auto(x):
        return np.histogram(x, bins="auto")

    def histogram2d_user(x, y):
        return np.histogram2d(x, y, bins=3)

    def percentile_methods(x):
        return (np.percentile(x, 75, method="nearest"), np.percentile(x, 30, method="lower"),
                np.percentile(x, [25.0, 75.0], method="midpoint"), np.quantile(x, 0.4, method="higher"))

    def nanpercentile_user(x):
        y = x.copy()
        y[::3] = np.nan
        return np.nanpercentile(y, 50), np.nanmedian(y), np.nanmean(y), np.nanstd(y, ddof=1)

    def cov_kw(m, w):
        return np.cov(m, ddof=0), np.cov(m, aweights=w[:4]), np.cov(m.T, rowvar=False), np.cov(m[0], m[1])

    def corrcoef_xy(x, y):
        return np.corrcoef(x, y), np.corrcoef(np.vstack([x, y, x * y]))

    def polyfit_user(x, y):
        p = np.polyfit(x, y, 2)
        return p, np.polyval(p, x), np.poly1d(p)(0.5)

    def roots_poly(p):
        r = np.roots(p)
        return np.sort_complex(r), np.poly(np.array([1.0, 2.0, -3.0]))

    def pinv_rank(a):
        return np.linalg.pinv(a), np.linalg.matrix_rank(a), np.linalg.cond(a)

    def lstsq_rcond(a, b):
        x, res, rank, sv = np.linalg.lstsq(a, b, rcond=None)
        return x, rank, sv

    def tile_pad(x, m):
        return (np.tile(x, 2), np.tile(m, (2, 1)), np.pad(x, 2), np.pad(x, (1, 2), mode="edge"),
                np.pad(x, 2, mode="reflect"), np.pad(m, ((0, 1), (2, 0)), constant_values=-1.0),
                np.pad(x, 3, mode="wrap"), np.pad(x, 2, mode="symmetric"))

    def meshgrid_einsum(x, y, m):
        a, b = np.meshgrid(x, y, indexing="ij")
        return a + b, np.einsum("ij,jk->ik", m, m.T), np.einsum("ii", m[:, :3]), np.einsum("i,i", x, x)

    def nan_to_num_kw(x):
        y = x.copy()
        y[0], y[1], y[2] = np.nan, np.inf, -np.inf
        return np.nan_to_num(y, nan=0.5, posinf=9.0, neginf=-9.0), np.nan_to_num(y, copy=False), y

    def clip_round(x):
        return (np.clip(x, None, 0.5), np.clip(x, a_min=-0.5, a_max=None), np.round(x, 2),
                np.around(x * 100, decimals=-1), np.round(x))

    def average_kw(m, w):
        a, s = np.average(m, axis=1, weights=w[:4], returned=True)
        return a, s, np.average(m[0], weights=w[:4])

    def median_ptp(m):
        return np.median(m, axis=0), np.median(m, axis=1, keepdims=True), np.ptp(m, axis=1), np.ptp(m)

    def isclose_user(x, y):
        return np.isclose(x, y, rtol=0.5), np.allclose(x, x + 1e-9), np.allclose(x, y, atol=10.0)

    def select_piecewise(x):
        s = np.select([x < -0.5, x > 0.5], [x ** 2, -x], default=0.0)
        p = np.piecewise(x, [x < 0, x >= 0], [lambda t: -t, lambda t: t ** 2])
        return s, p

    def vander_kw(x):
        return np.vander(x, N=3, increasing=True), np.vander(x, 2)

    def along_axis(m):
        return np.apply_along_axis(np.sum, 1, m), np.apply_along_axis(lambda r: r - r.mean(), 0, m)

    def sliding_window(x):
        w = np.lib.stride_tricks.sliding_window_view(x, 3)
        return w.mean(axis=-1), w.shape

    def std_var_kw(m):
        return np.std(m, ddof=1), np.var(m, axis=0), np.std(m, axis=1, keepdims=True), np.mean(m, axis=(0, 1))

    def cumulative(x):
        return np.cumprod(x), np.cumsum(x[::-1]), np.maximum.accumulate(x), np.nancumsum(x)

    def sort_kw(x):
        return np.argsort(x, kind="stable"), np.sort(x)[::-1], np.argmax(x), np.argpartition(x, 3)[:3].shape

    def bincount_digitize(i, x):
        return (np.bincount(i, minlength=6), np.digitize(x, [-1.0, 0.0, 1.0], right=True),
                np.bincount(i, weights=x[: i.shape[0]]))

    def fft_user(x):
        return np.fft.rfft(x, n=16), np.fft.fftfreq(8, d=0.1), np.abs(np.fft.fft(x)), np.fft.irfft(np.fft.rfft(x))

    def roll_flip(m):
        return np.roll(m, 1, axis=1), np.flip(m, axis=0), np.rot90(m, k=2), np.moveaxis(m, 0, -1), np.roll(m, -2)

    def stack_split(x, y):
        return (np.column_stack([x, y]), np.hstack([x, y]), np.vstack([x, y]), np.array_split(x, 3),
                np.split(y, 2))

    def linalg_more(a):
        return (np.linalg.eigvalsh(a), np.linalg.matrix_power(a, 3), np.linalg.norm(a, "fro"),
                np.linalg.norm(a, np.inf), np.trace(a), np.linalg.multi_dot([a, a, a]))

    def ediff_argwhere(x):
        return np.ediff1d(x, to_begin=0.0), np.count_nonzero(x > 0), np.nanargmax(x), np.flatnonzero(x > 0)

    def space_fns(n):
        return np.logspace(0, 2, n), np.geomspace(1, 100, n), np.linspace(0, 1, n, endpoint=False), np.triu_indices(3)

    def tensordot_inner(m, x):
        return np.tensordot(m, m, axes=([1], [1])), np.inner(x, x), np.outer(x, x[:3]), np.dot(m, x[:4])

    def ufunc_misc(x, y):
        return (np.hypot(x, y), np.logaddexp(x, y), np.heaviside(x, 0.5), np.copysign(x, y), np.fmod(x, 0.3),
                np.arctan2(x, y), np.float_power(np.abs(x), 1.5))

    def where_kw(x):
        return np.where(x > 0, x, 0.0), np.where(x > 0), np.nonzero(x < 0)

    def unique_user(i):
        return np.unique(i), np.unique(i, return_counts=True)

    def float32_user(x):
        return np.mean(x), np.std(x), np.sum(x * 2), np.linalg.norm(x), np.median(x), x.astype(np.float64).sum()

    def int_user(i):
        return np.mean(i), np.sum(i), i / 2, i // 3, np.sqrt(i), np.cumsum(i), np.median(i), np.var(i)

    return [
        E("np.interp(left=, right=, period=)", interp_kw, [(V8, np.linspace(-2, 2, 5), np.linspace(0, 1, 5)),
                                                          (W8, np.linspace(0, 1, 4), np.arange(4.0))]),
        E("np.gradient(dx, edge_order, axis)", gradient_kw, [(V8, M34), (W8, M45)]),
        E("np.trapezoid(x=, dx=)", trapezoid_kw, [(V8, np.linspace(0, 1, 8)), (W8, np.cumsum(W8))]),
        E("np.diff(n, prepend, append)", diff_kw, [(V8,), (W8,)]),
        E("np.convolve modes", convolve_modes, [(V8, V8[:3]), (W8, np.array([1.0, -1.0]))]),
        E("np.correlate modes", correlate_modes, [(V8, V8[:3]), (W8, np.array([1.0, -1.0]))]),
        E("np.unwrap(period, discont)", unwrap_kw, [(np.cumsum(np.abs(V8)),), (np.cumsum(W8) * 3,)]),
        E("np.histogram(bins, range, density)", histogram_kw, [(V12,), (W8,)]),
        E("np.histogram(bins='auto')", histogram_auto, [(V12,), (W8,)]),
        E("np.histogram2d", histogram2d_user, [(V8, W8), (W8, V8)]),
        E("np.percentile(method=)", percentile_methods, [(V12,), (W8,)]),
        E("np.nanpercentile/nanmedian", nanpercentile_user, [(V12,), (W8,)]),
        E("np.cov(ddof, aweights, rowvar)", cov_kw, [(M45, W8), (M45 * 2, W8[::-1])]),
        E("np.corrcoef(x, y)", corrcoef_xy, [(V8, W8), (W8, V8 ** 2)]),
        E("np.polyfit/poly1d", polyfit_user, [(np.linspace(0, 1, 8), V8), (np.linspace(-1, 1, 8), W8)]),
        E("np.roots/np.poly", roots_poly, [(np.array([1.0, -3.0, 2.0]),), (np.array([1.0, 0.0, -4.0, 1.0]),)]),
        E("np.linalg.pinv/matrix_rank/cond", pinv_rank, [(M34,), (SPD,)]),
        E("np.linalg.lstsq(rcond=None)", lstsq_rcond, [(M63, V8[:6]), (M63 * 2, W8[:6])]),
        E("np.tile/np.pad modes", tile_pad, [(V8, M34), (W8, M34 * 2)]),
        E("np.meshgrid(ij)/np.einsum", meshgrid_einsum, [(V8[:3], W8[:4], M34), (W8[:3], V8[:4], M34 * 2)]),
        E("np.nan_to_num(nan=, posinf=)", nan_to_num_kw, [(V8,), (W8,)]),
        E("np.clip(None)/np.round", clip_round, [(V8,), (W8,)]),
        E("np.average(weights, returned)", average_kw, [(M34, W8), (M34 * 2, W8[::-1])]),
        E("np.median(axis)/np.ptp(axis)", median_ptp, [(M34,), (M45,)]),
        E("np.isclose/np.allclose", isclose_user, [(V8, W8), (W8, W8)]),
        E("np.select/np.piecewise", select_piecewise, [(V8,), (W8 - 0.5,)]),
        E("np.vander(N, increasing)", vander_kw, [(V8[:4],), (W8[:5],)]),
        E("np.apply_along_axis", along_axis, [(M34,), (M45,)]),
        E("sliding_window_view", sliding_window, [(V8,), (V12,)]),
        E("np.std/var(ddof, axis, keepdims)", std_var_kw, [(M34,), (M45,)]),
        E("np.cumprod/maximum.accumulate", cumulative, [(V8,), (W8,)]),
        E("np.argsort(kind)/argpartition", sort_kw, [(V8,), (W8,)]),
        E("np.bincount/np.digitize(right)", bincount_digitize, [(I12, V12), (I12[::-1], W8)]),
        E("np.fft.rfft(n)/fftfreq", fft_user, [(V8,), (W8,)]),
        E("np.roll/flip/rot90/moveaxis", roll_flip, [(M34,), (M45,)]),
        E("np.column_stack/array_split", stack_split, [(V8[:6], W8[:6]), (W8[:6], V8[:6])]),
        E("np.linalg eigvalsh/matrix_power/norm", linalg_more, [(SPD,), (SPD * 0.5,)]),
        E("np.ediff1d/count_nonzero/flatnonzero", ediff_argwhere, [(V8,), (W8 - 0.5,)]),
        E("np.logspace/geomspace/triu_indices", space_fns, [(5,), (7,)]),
        E("np.tensordot/inner/outer/dot", tensordot_inner, [(M34, V8), (M34 * 2, W8)]),
        E("ufuncs hypot/logaddexp/heaviside/fmod", ufunc_misc, [(V8, W8), (W8, V8)]),
        E("np.where/np.nonzero", where_kw, [(V8,), (W8 - 0.5,)]),
        E("np.unique(return_counts)", unique_user, [(I12,), (I12[:6],)]),
        E("float32 reductions", float32_user, [(F32,), (F32[::-1] * 3,)]),
        E("int64 reductions", int_user, [(I12,), (I12 * 3 + 1,)]),
    ]


def _scipy() -> list[Entry]:
    import scipy.integrate
    import scipy.linalg
    import scipy.signal
    import scipy.spatial.distance as dist
    import scipy.special
    import scipy.stats

    def E(name, fn, calls, **kw):
        return Entry("scipy", name, fn, calls, **kw)

    def logsumexp_kw(m, w):
        return (scipy.special.logsumexp(m, axis=1), scipy.special.logsumexp(m[0], b=w[:4]),
                scipy.special.logsumexp(m, axis=0, keepdims=True), scipy.special.logsumexp(m[0] - 1, b=-w[:4] + 0.5, return_sign=True))

    def special_fns(x, p):
        return (scipy.special.erf(x), scipy.special.erfc(x), scipy.special.gammaln(p + 1), scipy.special.digamma(p + 1),
                scipy.special.xlog1py(p, p), scipy.special.betaln(p + 1, 2.0), scipy.special.expit(x.astype(np.float32)),
                scipy.special.binom(6, 2), scipy.special.comb(10, 3), scipy.special.softmax(x, axis=0))

    def stats_moments(x):
        return (scipy.stats.skew(x), scipy.stats.skew(x, bias=False), scipy.stats.kurtosis(x),
                scipy.stats.kurtosis(x, fisher=False), scipy.stats.moment(x, 3), scipy.stats.sem(x), scipy.stats.variation(x))

    def stats_describe(x):
        return scipy.stats.describe(x)

    def zscore_kw(m):
        return scipy.stats.zscore(m, ddof=1), scipy.stats.zscore(m, axis=None)

    def entropy_kw(p, q):
        return scipy.stats.entropy(p, q), scipy.stats.entropy(p, base=2)

    def rankdata_kw(x):
        return scipy.stats.rankdata(x), scipy.stats.rankdata(np.round(x), method="min"), scipy.stats.rankdata(x, method="ordinal")

    def pearson_spearman(x, y):
        r = scipy.stats.pearsonr(x, y)
        s = scipy.stats.spearmanr(x, y)
        return r.statistic, r.pvalue, s.statistic, s.pvalue

    def norm_dist(x):
        return (scipy.stats.norm.pdf(x), scipy.stats.norm.cdf(x, loc=1.0, scale=2.0), scipy.stats.norm.logpdf(x),
                scipy.stats.norm.ppf(0.975), scipy.stats.t.cdf(x, df=3))

    def means(p):
        return scipy.stats.gmean(p), scipy.stats.hmean(p), scipy.stats.iqr(p), scipy.stats.trim_mean(p, 0.1)

    def lfilter_zi(x):
        b, a = scipy.signal.butter(2, 0.3)
        zi = scipy.signal.lfilter_zi(b, a) * x[0]
        y, zf = scipy.signal.lfilter(b, a, x, zi=zi)
        return y, zf, scipy.signal.filtfilt(b, a, x, padlen=3)

    def savgol_medfilt(x):
        return scipy.signal.savgol_filter(x, 5, 2), scipy.signal.medfilt(x, 3), scipy.signal.savgol_filter(x, 5, 2, deriv=1)

    def detrend_kw(x):
        return scipy.signal.detrend(x, type="constant"), scipy.signal.detrend(x, type="linear")

    def find_peaks_user(x):
        p, props = scipy.signal.find_peaks(x, height=0.0)
        return p, props["peak_heights"]

    def windows_user(n):
        return (scipy.signal.windows.hann(n), scipy.signal.windows.hann(n, sym=False),
                scipy.signal.get_window("hamming", n), scipy.signal.windows.gaussian(n, std=1.5))

    def sos_user(x):
        sos = scipy.signal.butter(4, 0.25, output="sos")
        return scipy.signal.sosfilt(sos, x), scipy.signal.sosfiltfilt(sos, x, padlen=3)

    def sig_convolve(x, v):
        return scipy.signal.convolve(x, v, mode="same"), scipy.signal.fftconvolve(x, v), scipy.signal.correlate(x, v, mode="valid")

    def integrate_kw(y, x):
        return (scipy.integrate.simpson(y, dx=0.5), scipy.integrate.trapezoid(y, x),
                scipy.integrate.cumulative_trapezoid(y, x, initial=0), scipy.integrate.cumulative_trapezoid(y, dx=0.1))

    def cdist_user(a, b):
        return (dist.cdist(a, b), dist.cdist(a, b, metric="cityblock"), dist.cdist(a, b, "cosine"),
                dist.cdist(a, b, "minkowski", p=3))

    def pdist_user(a):
        d = dist.pdist(a)
        return d, dist.squareform(d), dist.pdist(a, "sqeuclidean")

    def dist_fns(u, v):
        return (dist.cityblock(u, v), dist.minkowski(u, v, p=3), dist.chebyshev(u, v), dist.correlation(u, v),
                dist.sqeuclidean(u, v), dist.braycurtis(np.abs(u), np.abs(v)))

    def linalg_fns(a, b):
        c = scipy.linalg.cho_factor(a)
        lu = scipy.linalg.lu_factor(a)
        return (scipy.linalg.cho_solve(c, b), scipy.linalg.lu_solve(lu, b), scipy.linalg.solve_triangular(np.triu(a), b),
                scipy.linalg.expm(a * 0.1), scipy.linalg.norm(a), scipy.linalg.toeplitz(b), scipy.linalg.block_diag(a[:2, :2], b[:2][None]))

    def fft_dct(x):
        import scipy.fft
        return scipy.fft.dct(x, norm="ortho"), scipy.fft.idct(scipy.fft.dct(x)), scipy.fft.rfft(x), scipy.fft.next_fast_len(13)

    def optimize_scalar(c):
        import scipy.optimize
        r = scipy.optimize.bisect(lambda t: t ** 3 - c, 0.0, 4.0)
        g = scipy.optimize.golden(lambda t: (t - c) ** 2)
        b = scipy.optimize.brent(lambda t: (t - c) ** 2 + 1.0)
        return r, g, b

    return [
        E("scipy.special.logsumexp(axis, b, return_sign)", logsumexp_kw, [(M34, W8), (M45, W8[::-1])]),
        E("scipy.special erf/gammaln/binom/...", special_fns, [(V8, W8), (W8, W8 * 2)]),
        E("scipy.stats skew/kurtosis/moment/sem", stats_moments, [(V12,), (W8,)]),
        E("scipy.stats.describe", stats_describe, [(V12,), (W8,)]),
        E("scipy.stats.zscore(ddof, axis=None)", zscore_kw, [(M34,), (M45,)]),
        E("scipy.stats.entropy(q, base)", entropy_kw, [(W8 / W8.sum(), W8[::-1] / W8.sum()), (W8, W8 ** 2)]),
        E("scipy.stats.rankdata(method)", rankdata_kw, [(V8,), (W8 * 3,)]),
        E("scipy.stats.pearsonr/spearmanr", pearson_spearman, [(V8, W8), (W8, V8 + W8)]),
        E("scipy.stats.norm/t pdf/cdf/ppf", norm_dist, [(V8,), (W8,)]),
        E("scipy.stats gmean/hmean/iqr/trim_mean", means, [(W8,), (W8 * 3 + 1,)]),
        E("scipy.signal.lfilter(zi)/filtfilt", lfilter_zi, [(V12,), (np.cumsum(V12),)]),
        E("scipy.signal.savgol_filter/medfilt", savgol_medfilt, [(V12,), (np.cumsum(V12),)]),
        E("scipy.signal.detrend(type)", detrend_kw, [(V12,), (np.cumsum(V12),)]),
        E("scipy.signal.find_peaks(height)", find_peaks_user, [(V12,), (np.sin(np.arange(12.0)),)]),
        E("scipy.signal.windows hann/get_window", windows_user, [(8,), (9,)]),
        E("scipy.signal.sosfilt/sosfiltfilt", sos_user, [(V12,), (np.cumsum(V12),)]),
        E("scipy.signal.convolve/fftconvolve/correlate", sig_convolve, [(V12, V8[:3]), (W8, V8[:4])]),
        E("scipy.integrate simpson/trapezoid/cumulative", integrate_kw, [(V8, np.linspace(0, 1, 8)), (W8, np.cumsum(W8))]),
        E("scipy.spatial.distance.cdist(metric)", cdist_user, [(M34, M45[:, :4]), (M45[:, :4], M34)]),
        E("scipy.spatial.distance.pdist/squareform", pdist_user, [(M34,), (M45,)]),
        E("scipy.spatial.distance cityblock/minkowski/...", dist_fns, [(V8, W8), (W8, V8)]),
        E("scipy.linalg cho/lu/expm/toeplitz", linalg_fns, [(SPD, V8[:4]), (SPD * 2, W8[:4])]),
        E("scipy.fft dct/idct/rfft", fft_dct, [(V8,), (W8,)]),
        E("scipy.optimize bisect/golden/brent", optimize_scalar, [(2.0,), (5.0,)]),
    ]


def _sklearn() -> list[Entry]:
    import sklearn.metrics as skm
    import sklearn.metrics.pairwise as pw
    import sklearn.preprocessing as pre
    from sklearn.utils import extmath

    def E(name, fn, calls, **kw):
        return Entry("sklearn", name, fn, calls, **kw)

    yt = np.array([0, 1, 1, 0, 1, 0, 1, 1])
    yp = np.array([0, 1, 0, 0, 1, 1, 1, 1])
    pr = np.clip(W8 / W8.max(), 0.05, 0.95)

    def classif(t, p):
        return (skm.accuracy_score(t, p), skm.f1_score(t, p), skm.precision_score(t, p), skm.recall_score(t, p),
                skm.confusion_matrix(t, p), skm.zero_one_loss(t, p))

    def regress(t, p):
        return (skm.mean_squared_error(t, p), skm.mean_absolute_error(t, p), skm.r2_score(t, p),
                skm.median_absolute_error(t, p), skm.explained_variance_score(t, p), skm.max_error(t, p))

    def probas(t, q):
        return skm.log_loss(t, q), skm.brier_score_loss(t, q), skm.roc_auc_score(t, q)

    def scalers(m):
        return (pre.StandardScaler().fit_transform(m), pre.minmax_scale(m), pre.normalize(m, norm="l1"),
                pre.scale(m), pre.MinMaxScaler(feature_range=(-1, 1)).fit_transform(m), pre.maxabs_scale(m))

    def extmath_fns(a, b):
        return (extmath.softmax(a.copy()), extmath.safe_sparse_dot(a, b.T), extmath.row_norms(a, squared=True),
                extmath.density(a))

    def pairwise_fns(a, b):
        return (pw.euclidean_distances(a, b, squared=True), pw.rbf_kernel(a, b, gamma=0.5), pw.cosine_similarity(a, b),
                pw.manhattan_distances(a, b), pw.polynomial_kernel(a, b, degree=2), pw.laplacian_kernel(a, b),
                pw.sigmoid_kernel(a, b))

    def pairwise_distances_user(a, b):
        return pw.pairwise_distances(a, b, metric="cosine"), pw.pairwise_distances(a, metric="euclidean")

    return [
        E("sklearn.metrics accuracy/f1/precision/confusion", classif, [(yt, yp), (yp, yt)]),
        E("sklearn.metrics mse/mae/r2/max_error", regress, [(V8, W8), (W8, V8 * 2)]),
        E("sklearn.metrics log_loss/brier/roc_auc", probas, [(yt, pr), (yp, pr[::-1])]),
        E("sklearn.preprocessing scalers", scalers, [(M45,), (M63,)]),
        E("sklearn.utils.extmath softmax/safe_sparse_dot/row_norms", extmath_fns, [(M34, M45[:, :4]), (M45[:, :4], M34)]),
        E("sklearn.metrics.pairwise kernels", pairwise_fns, [(M34, M45[:, :4]), (M45[:, :4], M34)]),
        E("sklearn.metrics.pairwise.pairwise_distances", pairwise_distances_user, [(M34, M45[:, :4]), (M45[:, :4], M34)]),
    ]


def _optax() -> list[Entry]:
    import optax

    def E(name, fn, calls, **kw):
        return Entry("optax", name, fn, calls, **kw)

    j = lambda a: jnp.asarray(a, jnp.float32)  # noqa: E731
    L, T = j(M34), jax.nn.softmax(j(M34 * 2))

    def losses(logits, targets):
        return (optax.softmax_cross_entropy(logits, targets), optax.huber_loss(logits, targets, delta=0.5),
                optax.l2_loss(logits, targets).mean(), optax.cosine_similarity(logits, targets, epsilon=1e-6),
                optax.cosine_distance(logits, targets), optax.sigmoid_binary_cross_entropy(logits, targets),
                optax.kl_divergence(jax.nn.log_softmax(logits), targets), optax.safe_softmax_cross_entropy(logits, targets),
                optax.poly_loss_cross_entropy(logits, targets, epsilon=2.0))

    def int_labels(logits, labels):
        return (optax.softmax_cross_entropy_with_integer_labels(logits, labels),
                optax.losses.multiclass_hinge_loss(logits, labels), optax.losses.sparsemax_loss(logits, labels))

    def schedules(step):
        s1 = optax.piecewise_constant_schedule(0.1, {5: 0.5, 20: 0.1})
        s2 = optax.join_schedules([optax.constant_schedule(1.0), optax.linear_schedule(1.0, 0.0, 10)], [10])
        s3 = optax.warmup_exponential_decay_schedule(0.0, 1.0, 5, 10, 0.5)
        s4 = optax.cosine_onecycle_schedule(100, 1.0)
        s5 = optax.sgdr_schedule([dict(init_value=0.0, peak_value=1.0, warmup_steps=2, decay_steps=10)] * 2)
        return s1(step), s2(step), s3(step), s4(step), s5(step)

    def opt_step(name):
        def step(params, grads):
            tx = {"adamw": lambda: optax.adamw(1e-2, weight_decay=1e-3), "rmsprop": lambda: optax.rmsprop(1e-2),
                  "adagrad": lambda: optax.adagrad(1e-2), "lamb": lambda: optax.lamb(1e-2),
                  "lion": lambda: optax.lion(1e-3), "chain": lambda: optax.chain(optax.clip(0.5), optax.scale(-0.1)),
                  "adabelief": lambda: optax.adabelief(1e-2), "nadam": lambda: optax.nadam(1e-2)}[name]()
            state = tx.init(params)
            for _ in range(2):
                updates, state = tx.update(grads, state, params)
                params = optax.apply_updates(params, updates)
            return params
        step.__name__ = f"{name}_step"
        return step

    P = {"w": j(M34), "b": j(V8[:4])}
    G = {"w": j(M34[::-1]), "b": j(W8[:4])}
    P2 = {"w": j(M34 * 2), "b": j(W8[4:])}
    return [
        E("optax losses (softmax xent, huber, cosine, kl, ...)", losses, [(L, T), (L * 2, T[::-1])]),
        E("optax integer-label losses", int_labels, [(L, jnp.asarray([0, 3, 1])), (L * 2, jnp.asarray([2, 2, 0]))]),
        E("optax schedules (piecewise, join, onecycle, sgdr)", schedules, [(jnp.asarray(3),), (jnp.asarray(17),), (12,)]),
    ] + [E(f"optax.{n} update", opt_step(n), [(P, G), (P2, G)])
         for n in ("adamw", "rmsprop", "adagrad", "lamb", "lion", "chain", "adabelief", "nadam")]


def _jax() -> list[Entry]:
    import jax.scipy.special as jss
    import jax.scipy.stats as jst

    def E(name, fn, calls, **kw):
        return Entry("jax", name, fn, calls, **kw)

    def jsp(x, p):
        return (jss.logsumexp(x, b=p), jst.norm.logpdf(x, 0.5, 2.0), jss.xlogy(p, p), jss.gammaln(p + 1),
                jnp.interp(x, jnp.linspace(-2, 2, 5), jnp.linspace(0, 1, 5)), jnp.percentile(x, 30.0),
                jax.nn.one_hot(jnp.argmax(x), 8))

    j = lambda a: jnp.asarray(a, jnp.float32)  # noqa: E731
    return [E("jax.scipy logsumexp/norm/xlogy + jnp.interp", jsp, [(j(V8), j(W8)), (j(W8), j(V8 ** 2))])]


def _direct() -> list[Entry]:
    """``to_static(lib_fn)`` itself, on float64, float32 or integer NumPy data and on jax.Arrays."""
    import optax
    import scipy.integrate
    import scipy.signal
    import scipy.spatial.distance as dist
    import scipy.special
    import scipy.stats
    import sklearn.metrics as skm
    from sklearn.utils import extmath

    f32, jx = (lambda a: np.asarray(a, np.float32)), (lambda a: jnp.asarray(a, jnp.float32))  # noqa: E731
    v, w, m = V8, W8, M34
    vec1 = [(v,), (f32(w),), (jx(v),)]
    vec2 = [(v, w), (f32(v), f32(w)), (jx(v), jx(w))]
    mat1 = [(m,), (f32(m),), (jx(m),)]
    ints = [(I12,), (I12.astype(np.int32),), (jnp.asarray(I12),)]
    D = lambda lib, fn, calls, name=None: Entry(lib, name or f"{getattr(fn, '__module__', lib)}.{fn.__name__} (direct)", fn, calls)  # noqa: E731
    return [
        D("numpy", np.gradient, vec1 + mat1), D("numpy", np.trapezoid, vec1 + mat1), D("numpy", np.diff, vec1 + mat1 + ints),
        D("numpy", np.unwrap, vec1), D("numpy", np.ptp, vec1 + mat1 + ints), D("numpy", np.median, vec1 + mat1 + ints),
        D("numpy", np.average, vec1 + mat1 + ints), D("numpy", np.cov, mat1), D("numpy", np.corrcoef, mat1),
        D("numpy", np.percentile, [(v, 30), (f32(v), 30), (jx(v), 30.0), (I12, 50)]),
        D("numpy", np.nanmean, vec1 + ints), D("numpy", np.nanstd, vec1), D("numpy", np.var, vec1 + ints),
        D("numpy", np.std, vec1 + ints), D("numpy", np.mean, vec1 + ints), D("numpy", np.sum, vec1 + ints),
        D("numpy", np.prod, vec1 + ints), D("numpy", np.cumsum, vec1 + ints), D("numpy", np.cumprod, vec1),
        D("numpy", np.interp, [(v, np.linspace(-2, 2, 5), np.linspace(0, 1, 5)), (f32(v), f32(np.linspace(-2, 2, 5)), f32(np.linspace(0, 1, 5))),
                               (jx(v), jx(np.linspace(-2, 2, 5)), jx(np.linspace(0, 1, 5))), (0.5, np.arange(3.0), np.arange(3.0))]),
        D("numpy", np.convolve, vec2), D("numpy", np.correlate, vec2), D("numpy", np.outer, vec2), D("numpy", np.kron, vec2),
        D("numpy", np.cross, [(v[:3], w[:3]), (f32(v[:3]), f32(w[:3])), (jx(v[:3]), jx(w[:3]))]),
        D("numpy", np.isclose, vec2), D("numpy", np.allclose, vec2), D("numpy", np.array_equal, vec2),
        D("numpy", np.dot, vec2), D("numpy", np.vdot, vec2), D("numpy", np.inner, vec2),
        D("numpy", np.round, vec1 + ints), D("numpy", np.around, vec1), D("numpy", np.nan_to_num, vec1 + ints),
        D("numpy", np.sort, vec1 + ints), D("numpy", np.argsort, vec1 + ints), D("numpy", np.argmax, vec1 + ints),
        D("numpy", np.max, vec1 + ints), D("numpy", np.amin, vec1 + ints), D("numpy", np.count_nonzero, vec1 + ints),
        D("numpy", np.vander, [(v[:4],), (f32(v[:4]),), (jx(v[:4]),), (I12[:4],)]), D("numpy", np.trace, mat1),
        D("numpy", np.tril, mat1), D("numpy", np.triu, mat1), D("numpy", np.fliplr, mat1), D("numpy", np.rot90, mat1),
        D("numpy", np.linalg.norm, vec1 + mat1 + ints), D("numpy", np.linalg.pinv, mat1), D("numpy", np.linalg.matrix_rank, mat1),
        D("numpy", np.linalg.cond, [(SPD,), (f32(SPD),), (jx(SPD),)]), D("numpy", np.linalg.eigvalsh, [(SPD,), (f32(SPD),), (jx(SPD),)]),
        D("numpy", np.linalg.det, [(SPD,), (f32(SPD),), (jx(SPD),)]), D("numpy", np.linalg.inv, [(SPD,), (f32(SPD),), (jx(SPD),)]),
        D("numpy", np.fft.rfft, vec1), D("numpy", np.fft.fft, vec1), D("numpy", np.sinc, vec1), D("numpy", np.i0, vec1),
        D("numpy", np.polyval, [(w[:3], v), (f32(w[:3]), f32(v)), (jx(w[:3]), jx(v)), (I12[:3], I12)]),
        D("numpy", np.polyder, [(w[:4],), (I12[:4],)]), D("numpy", np.polyint, [(w[:4],), (I12[:4],)]),
        D("numpy", np.polyfit, [(np.linspace(0, 1, 8), v, 2), (f32(np.linspace(0, 1, 8)), f32(v), 2)]),
        D("numpy", np.histogram, vec1), D("numpy", np.bincount, [(I12,)]), D("numpy", np.clip, [(v, -0.5, 0.5), (f32(v), -0.5, 0.5), (jx(v), -0.5, 0.5), (I12, 1, 2)]),
        D("numpy", np.where, [(v > 0, v, w), (f32(v) > 0, f32(v), 0.0), (jx(v) > 0, jx(v), jx(w))]),
        D("numpy", np.meshgrid, vec2), D("numpy", np.tile, [(v, 2), (f32(v), (2, 1)), (jx(v), 3)]),
        D("numpy", np.pad, [(v, 2), (f32(v), 1), (jx(v), 2), (I12, (1, 2))]),
        D("scipy", scipy.special.logsumexp, vec1 + mat1), D("scipy", scipy.special.softmax, vec1 + mat1),
        D("scipy", scipy.special.log_softmax, vec1), D("scipy", scipy.special.expit, vec1 + ints),
        D("scipy", scipy.special.erf, vec1), D("scipy", scipy.special.xlogy, [(w, w), (f32(w), f32(w)), (jx(w), jx(w))]),
        D("scipy", scipy.special.entr, [(w,), (f32(w),), (jx(w),)]), D("scipy", scipy.special.gammaln, [(w,), (f32(w),), (jx(w),), (I12,)]),
        D("scipy", scipy.stats.zscore, vec1 + mat1), D("scipy", scipy.stats.entropy, [(w,), (f32(w),), (jx(w),), (I12 + 1,)]),
        D("scipy", scipy.stats.skew, vec1 + mat1), D("scipy", scipy.stats.kurtosis, vec1 + mat1),
        D("scipy", scipy.stats.rankdata, vec1 + ints), D("scipy", scipy.stats.pearsonr, vec2), D("scipy", scipy.stats.describe, vec1),
        D("scipy", scipy.stats.sem, vec1), D("scipy", scipy.stats.gmean, [(w,), (f32(w),), (jx(w),)]),
        D("scipy", scipy.stats.variation, vec1), D("scipy", scipy.stats.moment, vec1),
        D("scipy", scipy.integrate.simpson, vec1 + mat1), D("scipy", scipy.integrate.trapezoid, vec1 + mat1),
        D("scipy", scipy.integrate.cumulative_trapezoid, vec1 + mat1), D("scipy", scipy.signal.detrend, vec1 + mat1),
        D("scipy", scipy.signal.medfilt, [(v,), (f32(w),)]), D("scipy", scipy.signal.windows.hann, [(8,), (5,)]),
        D("scipy", scipy.signal.savgol_filter, [(V12, 5, 2), (f32(V12), 5, 2), (jx(V12), 5, 2)]),
        D("scipy", scipy.signal.lfilter, [([1.0, 0.5], [1.0, -0.3], v), (f32([1.0, 0.5]), f32([1.0, -0.3]), f32(v)), (np.array([1.0, 0.5]), np.array([1.0]), jx(v))]),
        D("scipy", dist.euclidean, vec2), D("scipy", dist.cosine, vec2), D("scipy", dist.cityblock, vec2),
        D("scipy", dist.correlation, vec2), D("scipy", dist.cdist, [(m, m), (f32(m), f32(m)), (jx(m), jx(m))]),
        D("scipy", dist.pdist, mat1),
        D("sklearn", skm.mean_squared_error, vec2), D("sklearn", skm.mean_absolute_error, vec2), D("sklearn", skm.r2_score, vec2),
        D("sklearn", skm.accuracy_score, [(I12, I12[::-1]), (I12.astype(np.int32), I12)]),
        D("sklearn", extmath.softmax, mat1), D("sklearn", extmath.row_norms, mat1), D("sklearn", extmath.safe_sparse_dot, [(m, m.T), (f32(m), f32(m.T))]),
        D("optax", optax.huber_loss, [(jx(v), jx(w)), (v, w)]), D("optax", optax.l2_loss, [(jx(v), jx(w)), (v, w)]),
        D("optax", optax.softmax_cross_entropy, [(jx(m), jax.nn.softmax(jx(m))), (m, np.asarray(jax.nn.softmax(jx(m)), np.float64))]),
        D("optax", optax.cosine_similarity, [(jx(v), jx(w)), (v, w)]),
        D("optax", optax.sigmoid_binary_cross_entropy, [(jx(v), jx(w) / 2), (v, w / 2)]),
    ]


def _edge() -> list[Entry]:
    """``to_static(np_fn)`` on data of other kinds: small integers that wrap, booleans, float16,
    complex, 0-d arrays, Python numbers and lists, NaN."""
    u8 = np.array([250, 3, 7, 255, 0, 9], np.uint8)
    i8 = np.array([120, -7, 100, -128, 5, 64], np.int8)
    i32 = np.array([2 ** 30, 2 ** 30, 3, -5, 7, 11], np.int32)
    b = np.array([True, False, True, True, False, True])
    h = np.array([0.1, 2.5, -3.25, 1000.0, 7.0, 0.5], np.float16)
    c = np.array([1 + 2j, -0.5j, 3.0, 2 - 1j, 0.25 + 0.25j, -1.0])
    nan = np.array([1.0, np.nan, 3.0, -2.0, 0.5, 4.0])
    halves = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 2.675])
    kinds = [(u8,), (i8,), (i32,), (b,), (h,), (c,), (nan,), (np.float64(2.5),), (3,), ([1.0, 2.0, 4.0],), (np.array(1.5),)]
    fns = [np.sum, np.mean, np.prod, np.cumsum, np.diff, np.median, np.var, np.std, np.ptp, np.max, np.argmax,
           np.sort, np.abs, np.round, np.square, np.negative, np.sign, np.trapezoid, np.gradient, np.average,
           np.nanmean, np.nansum, np.percentile, np.count_nonzero, np.linalg.norm, np.unwrap, np.cumprod,
           np.histogram, np.nan_to_num, np.isfinite, np.sinc, np.exp, np.sqrt, np.log1p, np.fix, np.around,
           np.real_if_close, np.conj, np.angle, np.clip, np.mod]
    out = []
    for fn in fns:
        calls = [(*k, 40.0) for k in kinds] if fn is np.percentile else \
            [(*k, 0.0, 2.0) for k in kinds] if fn is np.clip else [(*k, 3) for k in kinds] if fn is np.mod else kinds
        out.append(Entry("edge", f"np.{fn.__name__} (odd kinds)", fn, calls))
    more = [np.trapezoid, np.unwrap, np.cov, np.corrcoef, np.convolve, np.correlate, np.polyval, np.vander, np.kron,
            np.outer, np.quantile, np.nanmedian, np.ediff1d, np.i0, np.tril, np.cumprod, np.nancumsum, np.isclose,
            np.allclose, np.tile, np.pad, np.roll, np.append, np.flip, np.trim_zeros, np.dot, np.inner, np.cross,
            np.interp, np.polyder, np.polyint, np.linalg.norm, np.var, np.std, np.average, np.histogram, np.digitize,
            np.searchsorted, np.maximum, np.fmin, np.logaddexp, np.heaviside, np.hypot, np.floor_divide, np.power,
            np.left_shift, np.bitwise_xor, np.gcd, np.lcm, np.true_divide, np.subtract, np.divmod]
    u16 = np.array([65000, 3, 700, 65535, 0, 9], np.uint16)
    i16 = np.array([32000, -7, 100, -32768, 5, 64], np.int16)
    pairs = [(u8, u8[::-1]), (i8, i8[::-1]), (i32, i32[::-1]), (u16, u16[::-1]), (i16, i16), (b, b[::-1]),
             (u8, 3), (i8, np.int8(5)), (i32, 2.5), (jnp.asarray(i8), jnp.asarray(i8[::-1])), (b, 2)]
    for fn in more:
        calls = [(x, 1 if fn in (np.tile, np.pad, np.roll) else y) for x, y in pairs] if fn not in (
            np.cumprod, np.nancumsum, np.nanmedian, np.ediff1d, np.i0, np.tril, np.flip, np.trim_zeros, np.unwrap,
            np.polyder, np.polyint, np.linalg.norm, np.var, np.std, np.average, np.histogram, np.trapezoid,
            np.vander, np.cov, np.corrcoef) else [(x,) for x, _ in pairs[:6]] + [(pairs[-2][0],)]
        if fn in (np.interp,):
            calls = [(x, np.sort(np.asarray(y)), np.asarray(y)) for x, y in pairs[:6]]
        if fn in (np.digitize, np.searchsorted):
            calls = [(x, np.sort(np.asarray(y))) for x, y in pairs[:6]]
        if fn is np.quantile:
            calls = [(x, 0.3) for x, _ in pairs]
        out.append(Entry("edge", f"np.{fn.__name__} (narrow ints, bools)", fn, calls))
    return out


def _nonfinite() -> list[Entry]:
    """``to_static(lib_fn)`` on data holding NaN, inf, -0.0 and ties."""
    import scipy.special
    import scipy.stats

    n1 = np.array([1.0, np.nan, -2.0, 3.0, 0.5, -0.0])
    n2 = np.array([np.inf, 1.0, -np.inf, 2.0, 2.0, 0.0])
    n3 = np.array([[1.0, np.nan, 2.0], [0.0, -0.0, 5.0]])
    ties = np.array([2.0, 1.0, 2.0, 3.0, 1.0, 2.0])
    kinds = [(n1,), (n2,), (n3,), (ties,), (n1.astype(np.float32),), (jnp.asarray(n2),)]
    fns = [np.max, np.min, np.argmax, np.argmin, np.sort, np.argsort, np.median, np.percentile, np.mean, np.std,
           np.cumsum, np.diff, np.clip, np.nanmax, np.nanargmin, np.nanmedian, np.nanpercentile, np.nanvar,
           np.maximum.reduce, np.ptp, np.round, np.sign, np.unique, np.isclose, np.nan_to_num, np.sinc, np.gradient,
           np.trapezoid, np.average, np.cov, np.corrcoef, np.histogram, np.searchsorted, np.linalg.norm,
           scipy.special.logsumexp, scipy.special.softmax, scipy.special.expit, scipy.special.log_softmax,
           scipy.special.xlogy, scipy.special.entr, scipy.stats.rankdata, scipy.stats.zscore, scipy.stats.skew,
           scipy.stats.entropy, scipy.stats.gmean, scipy.stats.describe, scipy.stats.sem]
    out = []
    for fn in fns:
        calls = [(*k, 50.0) for k in kinds] if fn in (np.percentile, np.nanpercentile) else \
            [(*k, -1.0, 1.0) for k in kinds] if fn is np.clip else [(np.sort(n2), *k) for k in kinds] \
            if fn is np.searchsorted else [(*k, *k) for k in kinds] if fn in (np.isclose, scipy.special.xlogy) else kinds
        out.append(Entry("nonfinite", f"{getattr(fn, '__name__', fn)} (NaN, inf)", fn, calls))
    return out


def entries() -> list[Entry]:
    return _numpy() + _scipy() + _sklearn() + _optax() + _jax() + _direct() + _edge() + _nonfinite()


# ------------------------------------------------------------------ tests: what the sweep found
def test_jax_namesake_refusing_an_option_runs_numpys_python():
    # jnp.gradient refuses edge_order=2 (NotImplementedError), jnp.diff an append= list (its check's
    # "position 0" is append's own, not the signature's): NumPy's own Python, converted / NumPy's array
    from tests.helpers import check_calls

    def f(y, m):
        return (np.gradient(y, 0.5, edge_order=2), np.gradient(m, edge_order=2), np.gradient(m, axis=1),
                np.diff(y, append=[1.0, 2.0]), np.diff(y, prepend=[y[0]]), np.diff(y, n=2, prepend=0.0))

    check_calls(f, [(V8, M34), (jnp.asarray(W8), jnp.asarray(M45))])


def test_numpy_arithmetic_at_narrow_integer_width_wraps_as_eager():
    # NumPy's Python computes y[1:] + y[:-1] of uint8/int32 data at that width (it wraps; of booleans a
    # logical or), where the graph's op widened first: a silent wrong result (np.trapezoid, np.unwrap)
    from tests.helpers import check

    u8 = np.array([250, 3, 7, 255, 0, 9], np.uint8)
    i32 = np.array([2 ** 30, 2 ** 30, 3, -5, 7, 11], np.int32)
    b = np.array([True, False, True, True, False, True])
    for x in (u8, i32, b):
        check(lambda y: (np.trapezoid(y), np.unwrap(y)), x)
    # (the same functions of data that does not wrap: one graph)
    check(lambda y: (np.mean(y), np.median(y), np.cumsum(y), np.max(y)), u8)


def test_percentile_of_narrow_signed_ints_is_numpys_lerp():
    # NumPy's _lerp subtracts neighbouring order statistics at the data's width: of int8 [-100, 100]
    # the median is 0.0 but the 50th percentile 128.0; the graph's op gave 0.0
    from tests.helpers import check

    def f(x):
        return np.percentile(x, 50), np.quantile(x, 0.4)

    a = np.array([-100, 100, 5, 7], np.int8)
    check(f, a, full_graph=False)
    check(f, a.astype(np.int32) * 20000000, full_graph=False)
    check(f, a.astype(np.uint8))   # sorted unsigned data: b - a never wraps
    check(f, a.astype(np.int64))


def test_integer_power_uses_every_bit_of_the_exponent():
    # jnp.power of integers reads the exponent's low 6 bits: np.uint16(9) ** 65000 is 2625 in NumPy
    # (wrapping at 16 bits), 54337 from JAX; a ** b of NumPy int arrays is np.power
    from tests.helpers import check_calls

    def f(a, b):
        return np.power(a, b), a ** b, a ** 3, np.power(a, 2)

    u16 = np.array([65000, 3, 700, 65535, 0, 9], np.uint16)
    check_calls(f, [(u16, u16[::-1]), (np.abs(I12), I12 * 30 + 64),
                    (np.array([3, 5, 7, -3, 0, 1]), np.array([100, 65, 70, 99, 0, 1000])), (u16, 3)])


def test_interp_is_numpys_loop():
    # x == xp[-1] where xp ends in repeated points: NumPy gives fp[-1], jnp.interp fp[-2]; elsewhere
    # NumPy's slope * (x - xp[j]) + fp[j] rounds otherwise than JAX's formula (last bits, 15 % of points)
    from ast2graph import to_static
    from tests.helpers import check, check_calls

    def f(x, xp, fp):
        return (np.interp(x, xp, fp), np.interp(x, xp, fp, left=-1.0, right=2.0), np.interp(x[0], xp, fp),
                np.interp(0.5, xp, fp))

    xs = np.array([-1, 0, 0.5, 1, 1.5, 2, 3, np.nan])
    check_calls(f, [(xs, np.array([0., 1, 1, 2]), np.array([0., 0, 1, 1])),
                    (xs[::-1], np.array([0., 0, 1, 1, 1, 1]), np.array([1., 0, 1, 1, 0, 1])),
                    (V12, np.sort(V8[:6]), W8[:6])])
    b = np.array([True, False, True, True, False, True])
    check(np.interp, b, np.sort(b[::-1]), b[::-1])
    x = np.random.default_rng(0).uniform(0, 10, 200) / 3
    xp = np.linspace(0, 10, 11) / 3
    fp = np.sin(xp) * 1e3
    assert np.array_equal(to_static(np.interp)(x, xp, fp), np.interp(x, xp, fp))   # exactly


def test_scipy_equivalent_guarded_where_infinities_differ():
    # SciPy's log_softmax of [inf, 1, -inf, ...] is [nan, -inf, ...], JAX's all NaN: the exemplars that
    # decide the guard (SciPy's own on the host where data is not finite) held NaN or no infinity
    import scipy.special

    from tests.helpers import check_calls

    def f(x):
        return scipy.special.log_softmax(x), scipy.special.softmax(x), scipy.special.logsumexp(x)

    n2 = np.array([np.inf, 1.0, -np.inf, 2.0, 2.0, 0.0])
    check_calls(f, [(V8,), (n2,), (-n2,), (W8,)])
    check_calls(scipy.special.log_softmax, [(n2,), (V8[:6],)])


def _in_place(func, *args, out=None):
    func(*args, out=out)   # (scikit-learn's _modify_in_place_if_numpy: the array in args and in out)
    return args, out


def _in_place_kept(func, *args, out=None):
    kept = args
    func(*args, out=out)
    return kept[0] + 0.0, args[0] is out


def test_write_through_out_into_an_array_a_local_tuple_holds_one_graph():
    # sklearn's pairwise kernels: func(*args, out=out) with the same array in args: the tuple is made
    # again with the written version (it fell back: "the array in 'out' is also reachable as 'args'")
    import sklearn.metrics.pairwise as pw

    from tests.helpers import check, check_calls

    def f(x):
        d = np.abs(x) * 2.0
        a, o = _in_place(np.sqrt, d, out=d)
        b, _ = _in_place(np.add, d, 1.0, out=d)
        return a, o, d, a[0] is d, b[1], len(b)

    check_calls(f, [(V8,), (W8,)])
    check_calls(lambda x: _in_place_kept(np.sqrt, x, out=x), [(np.abs(V8),)], full_graph=False)   # another name holds the tuple
    check_calls(pw.euclidean_distances, [(M34, M45[:, :4])])


def test_argmax_of_complex_data_falls_back_cleanly():
    # jnp.argmax of complex data is typed, then refused when compiled: an internal error (A2G015)
    # where NumPy orders by real, then imaginary part; now a plain fallback, eager's result
    from ast2graph import explain
    from tests.helpers import check, check_calls

    c = np.array([1 + 2j, -0.5j, 3.0, 2 - 1j, 3 + 1j])

    def f(x):
        return np.argmax(x), x.argmin(), np.nanargmax(x)

    check(f, c, full_graph=False)
    assert [s.code.code for s in explain(f)(c).fallback_sites] == ["A2G009"]

    def g(x):   # (real data: ndarray.argmax is np.argmax, one graph)
        return x.argmax(), x.argmin(axis=1), x.argmax(axis=0, keepdims=True), x[0].argmax()

    check_calls(g, [(M34,), (M34.astype(np.float32),), (jnp.asarray(M34),)])


def test_float16_ufuncs_round_once_as_numpys_half_loops():
    # NumPy's float16 loops compute at float32 and round once; JAX's composite ops (hypot, logaddexp,
    # expm1, log10, arcsinh, degrees, exp2...) rounded at float16 between steps: last-bit differences
    # in up to half of the elements
    from tests.helpers import assert_same, check

    h = (np.random.default_rng(2).standard_normal(64) * 3).astype(np.float16)
    g = h[::-1].copy()

    def f(x, y):
        return (np.hypot(x, y), np.logaddexp(x, y), np.expm1(x), np.log10(np.abs(x)), np.arcsinh(x), np.degrees(x),
                np.exp2(x), np.nextafter(x, y), np.spacing(x), np.frexp(x), np.hypot(x, np.int16(3)),
                np.hypot(x, np.float32(2.5)), np.logaddexp(x, 0.5), x * 1.5 + y)

    check(f, h, g)
    got, want = f(h, g), __import__("ast2graph").to_static(f)(h, g)
    for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
        assert a.dtype == b.dtype
        if a.dtype == np.float16:   # bit for bit (a float32 result: JAX's and libm's float32 hypot may differ by an ulp)
            assert np.array_equal(a, b, equal_nan=True)


def test_gcd_lcm_of_the_minimum_signed_int_end():
    # jnp.gcd of int8 100 and -128 never ended (abs(-128) is -128 in int8: the graph hung); NumPy takes
    # the magnitudes unsigned and casts the result back
    from tests.helpers import check_calls

    def f(a, b):
        return np.gcd(a, b), np.lcm(a, b), np.gcd(a, 3)

    i8 = np.array([120, -7, 100, -128, 5, 64], np.int8)
    check_calls(f, [(i8, i8[::-1]), (i8.astype(np.int32) * 1000, i8[::-1].astype(np.int32)),
                    (np.array([-2 ** 63, 12, -9]), np.array([6, -2 ** 63, 0])), (i8.astype(np.uint8), i8[::-1].astype(np.uint8))])


class Outcome(NamedTuple):
    entry: Entry
    one_graph: bool
    codes: list
    error: str | None


def run_entry(entry: Entry) -> Outcome:
    """One conversion, every input set: eager vs converted under ``explain``."""
    import copy

    from ast2graph import explain, to_static
    from tests.helpers import assert_same

    static = to_static(entry.fn)
    one, codes = True, []
    for k, args in enumerate(entry.calls):
        static = to_static(entry.fn) if entry.library in ("edge", "nonfinite") else static
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = entry.fn(*copy.deepcopy(args))
            except Exception as exc:  # noqa: BLE001
                want = exc
            try:
                e = explain(static)(*copy.deepcopy(args))
            except Exception as exc:  # noqa: BLE001
                if isinstance(want, Exception) and type(want) is type(exc) and str(want) == str(exc):
                    continue
                return Outcome(entry, False, codes, f"call {k}: converted raised {type(exc).__name__}: {str(exc)[:300]}")
        if isinstance(want, Exception):
            return Outcome(entry, False, codes, f"call {k}: eager raised {want!r}, converted returned")
        try:
            assert_same(want, e.result, entry.rtol, entry.atol)
        except AssertionError as exc:
            return Outcome(entry, False, codes, f"call {k}: {str(exc)[:400]}")
        sites = [f"{s.code.code}" for s in e.fallback_sites]
        codes += [f"{s.code.code} {s.cause[:140]} @ {getattr(s, 'location', '')}" for s in e.fallback_sites]
        one = one and e.graph_count == 1 and not sites
    return Outcome(entry, one, codes, None)


def main(argv: list[str]) -> int:
    return run_sets(argv, {"user": lambda: _numpy() + _scipy() + _sklearn() + _optax() + _jax(), "direct": _direct,
                           "edge": _edge, "nonfinite": _nonfinite}, entries)


def run_sets(argv: list[str], groups: dict[str, Callable[[], list[Entry]]], everything: Callable[[], list[Entry]]) -> int:
    """The command line of a sweep file: ``--set=NAME`` (of ``groups``; all of
    ``everything()`` by default), ``-v``, name filters; one line per entry,
    then the one-graph count per library and the fallback reasons."""
    verbose = "-v" in argv
    names = [a for a in argv if not a.startswith("-")]
    chosen = [a.split("=", 1)[1] for a in argv if a.startswith("--set=")]
    outcomes = []
    for entry in [e for g in chosen for e in groups[g]()] if chosen else everything():
        if names and not any(n in entry.name for n in names):
            continue
        o = run_entry(entry)
        outcomes.append(o)
        mark = "ERROR " + o.error if o.error else ("one graph" if o.one_graph else "falls back")
        print(f"[{entry.library}] {entry.name}: {mark}", flush=True)
        if verbose or not o.one_graph:
            for c in dict.fromkeys(o.codes):
                print("      ", c)
    per: dict[str, list] = collections.defaultdict(list)
    for o in outcomes:
        per[o.entry.library].append(o)
    print("one graph per library:")
    for lib, outs in per.items():
        print(f"  {lib:8s} {sum(o.one_graph for o in outs):3d} / {len(outs)}   differ: {sum(bool(o.error) for o in outs)}")
    reasons = collections.Counter(c.split()[0] for o in outcomes for c in dict.fromkeys(o.codes))
    print("fallback sites by reason:", dict(reasons.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
