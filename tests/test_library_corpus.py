"""Every entry of ``benchmarks/library_corpus.py`` (unmodified NumPy, SciPy,
scikit-learn and optax functions, decorated as a user would) against its eager
run: one graph under ``full_graph=True`` where the corpus is one graph today,
eager's results (values, kinds, dtypes, structure, argument mutations) for all
of them, a fallback being no failure."""

from __future__ import annotations

import warnings

import pytest

from benchmarks.library_corpus import entries
from tests.helpers import check

pytestmark = pytest.mark.slow   # minutes: deselected by -m "not slow"

# the entries that are one graph today (python -m benchmarks.library_corpus -v)
ONE_GRAPH = frozenset({
    "np.polyval", "np.polyval+np.polyder", "np.trapezoid", "np.linalg.norm", "np.linalg.norm (ord, axis)",
    "np.linalg.solve", "np.linalg.inv", "np.linalg.det", "np.linalg.cholesky", "np.cov", "np.corrcoef",
    "np.interp", "np.diff", "np.cross", "np.outer", "np.kron", "np.vander", "np.average", "np.median",
    "np.sinc", "np.i0", "np.convolve", "np.gradient", "np.unwrap", "np.nan_to_num", "np.tril", "np.ptp",
    "np.meshgrid", "np.linalg.qr", "np.linalg.slogdet", "np.clip", "np.cumsum", "np.exp (ufunc)",
    "np.asarray_chkfinite",
    "scipy.special.expit", "scipy.special.xlogy", "scipy.special.entr", "scipy.special.logit",
    "scipy.special.softmax", "scipy.integrate.trapezoid", "scipy.optimize.rosen", "scipy.optimize.rosen_der",
    "scipy.integrate.simpson",
    "sklearn.utils.extmath.safe_sparse_dot", "sklearn.utils.extmath.row_norms", "sklearn.utils.extmath.softmax",
    "optax.l2_loss", "optax.squared_error", "optax.huber_loss", "optax.log_cosh", "optax.cosine_similarity",
    "optax.softmax_cross_entropy", "optax.softmax_cross_entropy_with_integer_labels",
    "optax.sigmoid_binary_cross_entropy", "optax.safe_norm", "optax.cosine_decay_schedule",
    "optax.warmup_cosine_decay_schedule", "optax.linear_schedule", "optax.exponential_decay",
    "optax.sgd (momentum) update", "optax.adam update", "optax.clip_by_global_norm update", "optax.apply_updates",
    "optax.smooth_labels", "optax.kl_divergence", "optax.hinge_loss", "optax.polynomial_schedule",
})

ENTRIES = entries()


def test_corpus_is_large_enough():
    assert len(ENTRIES) >= 50
    assert {e.library for e in ENTRIES} == {"numpy", "scipy", "sklearn", "optax"}
    assert ONE_GRAPH <= {e.name for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.library}:{e.name}" for e in ENTRIES])
def test_library_function_equals_eager(entry):
    one = entry.name in ONE_GRAPH
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(entry.fn, *entry.make_args(), full_graph=one, graphs=1 if one else None,
              rtol=entry.rtol, atol=entry.atol)
