"""The library sweep in h-lib10 (issue 16, library part): internal errors
(A2G015) met by whole-namespace sweeps, and what eager NumPy/SciPy do there.

* A named tuple that also holds attributes (SciPy's tuple bunch with extra
  fields, ``PearsonRResult``: a subclass of one with its own ``__init__``) is
  made as eager makes it: ``__new__`` packs the fields, ``__init__`` (the
  bunch's, or converted) stores the rest; it leaves the graph rebuilt per call
  with its fields and its attributes (JAX's rebuild ``type(x)(*fields)``
  raised: an A2G015 site on every statement of ``pearsonr`` before its return).
* A tuple or list of numbers beside a NumPy array in an operator is the array
  NumPy converts it to (``a.shape[1:] != nbin - 2``), where JAX's operator
  refused it in the lowering (A2G015).
* A function made by ``exec`` has no ``__module__`` (``None``): looking up
  SciPy's graph forms no longer fails on it (``fisher_exact``: A2G015).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import scipy.signal
import scipy.stats
from scipy._lib._bunch import _make_tuple_bunch
from scipy.stats._stats_py import PearsonRResult

from ast2graph import explain, to_static
from tests.helpers import assert_same, check

rng = np.random.default_rng(10)
V = rng.standard_normal(12)
P = rng.random(12)

Extra = _make_tuple_bunch("Extra", ["low", "high"], ["width", "label"])


def _state(r):
    return type(r).__name__, tuple(r), dict(vars(r))


def test_tuple_bunch_with_extra_fields_one_graph():
    def f(x):
        lo, hi = x.min(), x.max()
        return Extra(lo, hi, width=hi - lo, label="range")

    check(f, V)
    r1, r2 = to_static(f, full_graph=True)(V), to_static(f, full_graph=True)(V * 2)
    e1, e2 = f(V), f(V * 2)
    assert r1 is not r2   # a new object per call, as eager's
    for got, want in ((r1, e1), (r2, e2)):
        assert_same(_state(want), _state(got))
        assert got.width == want.width and got.label == "range"


def test_subclass_of_tuple_bunch_with_own_init_one_graph():
    def f(x, y):
        r = (x * y).sum() / 10.0
        return PearsonRResult(statistic=r, pvalue=r * 0.5, n=x.shape[0], alternative="two-sided", x=x, y=y, axis=0)

    for conv in (np.asarray, jnp.asarray):
        x, y = conv(V), conv(P)
        check(f, x, y)
        got, want = to_static(f, full_graph=True)(x, y), f(x, y)
        assert_same(_state(want), _state(got))
        assert_same(want.correlation, got.correlation)


def test_pearsonr_has_no_internal_error():
    x, y = jnp.asarray(V), jnp.asarray(P)
    ex = explain(scipy.stats.pearsonr)(x, y)
    want = scipy.stats.pearsonr(x, y)
    assert_same(_state(want), _state(ex.result))
    assert_same(want.confidence_interval(), ex.result.confidence_interval())
    assert not [s for s in ex.fallback_sites if s.code.code == "A2G015"], str(ex)


def test_fisher_exact_has_no_internal_error():
    table = jnp.asarray(np.array([[7, 2], [3, 8]]))
    ex = explain(scipy.stats.fisher_exact)(table)
    assert_same(scipy.stats.fisher_exact(table), ex.result)
    assert not [s for s in ex.fallback_sites if s.code.code == "A2G015"], str(ex)


def test_sequence_beside_numpy_array_in_operators():
    def f(x):
        n = np.asarray(x > 0).astype(np.int64).sum() + np.array([3, 4])
        a = np.zeros((2, 5, 6))
        same = a.shape[1:] != n - 2
        return same, [1, 2] + n, n * (2, 3), (5, 5) <= n, np.any(a.shape[1:] == n)

    check(f, V)
    check(f, -V)


def test_sequence_beside_jax_array_raises_as_eager():
    def f(x):
        return x.sum() + jnp.zeros(2) != (1, 2)

    check(f, jnp.asarray(V), full_graph=False)


TIES = np.array([3.0, 2, 1, 2, 2, 2, 1, np.nan, 0.0, -0.0, np.nan])


def test_rankdata_with_ties_one_graph():
    # SciPy's _rankdata compacts the runs of ties (a shape of the data); its graph form finds each
    # run's start and end by searchsorted: the same ranks, dtypes and tie counts, NaNs each a run
    from scipy.stats._stats_py import _rankdata

    def f(x):
        return _rankdata(x, "average", return_ties=True), _rankdata(np.stack([x[:6], x[5::-1]]), "max")

    check(f, TIES)


def test_zero_d_mask_write():
    def f(x, y):
        m = np.any(np.isnan(x))
        r = x.copy()
        r[m] = -1.0
        s = y.copy()
        s[m] = np.arange(3.0)   # broadcast to every row
        return r, s

    check(f, TIES[:3].copy(), np.ones((2, 3)))
    check(f, np.array([1.0, np.nan, 2.0]), np.ones((2, 3)))


def test_mask_write_of_data_dependent_values_is_no_internal_error():
    v, w = jnp.asarray(V[:8]), jnp.asarray(P[:8] * 8)
    ex = explain(scipy.signal.cspline1d_eval)(v, w)
    assert_same(scipy.signal.cspline1d_eval(v, w), ex.result)
    assert not [s for s in ex.fallback_sites if s.code.code == "A2G015"], str(ex)


def test_significance_result_attribute_set_after_making_it():
    from scipy.stats._stats_py import SignificanceResult

    def f(x):
        res = SignificanceResult(x.mean(), x.std())
        res.correlation = x.max()
        if x.sum() > 0:   # a traced branch making its own
            res = SignificanceResult(x.min(), 0.0)
            res.correlation = 1.0
        return res

    for x in (V, -np.abs(V), np.abs(V)):
        check(f, x)
        assert_same(_state(f(x)), _state(to_static(f, full_graph=True)(x)))


def test_ndarray_clip_with_one_bound():
    def f(x):
        return x.clip(0), x.clip(max=0.5), x.clip(-0.5, out=None), x.clip()

    check(f, V)


def test_zero_d_mask_read_and_write_one_graph():
    # array_api_compat's clip: ``ia = (out > a) | isnan(a); out[ia] = a[ia]`` of a 0-d result
    def f(x):
        out = np.empty((), dtype=x.dtype)
        out[()] = x.sum()
        a = np.broadcast_to(np.asarray(1.0), ())
        ia = (out > a) | np.isnan(a)
        out[ia] = a[ia]
        v = x.copy()
        m = np.any(x > 2)
        v[m] = v[m] * 2
        return out, out[()], v

    check(f, np.array([0.1, 0.2]))
    check(f, np.array([1.0, 2.5]))


def test_linregress_result_crosses_a_segment_with_its_attributes():
    # LinregressResult: a tuple bunch with an extra field, an input of a later segment (A2G015 before)
    x, y = V[:8], P[:8]
    ex = explain(scipy.stats.linregress)(x, y)
    want = scipy.stats.linregress(x, y)
    assert_same(_state(want), _state(ex.result))
    assert not [s for s in ex.fallback_sites if s.code.code == "A2G015"], str(ex)
