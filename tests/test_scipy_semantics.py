"""User functions calling SciPy, each against eager: values, dtypes (64-bit
where eager is 64-bit), kinds, structure and exceptions."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import scipy.stats
from scipy.stats._stats_py import SignificanceResult

from tests.helpers import check

X = np.linspace(0.0, 1.0, 5) + 1.0 / 3.0
Y = np.random.default_rng(0).normal(size=8)
Z = np.random.default_rng(1).normal(size=8)
P = np.abs(Y) + 0.1
P = P / P.sum()


# ----------------------------------------------- 64-bit values kept (no narrowing)
def test_scipy_result_bunch_of_float64_values_stays_float64():
    def f(x):
        return SignificanceResult(np.sum(x), np.mean(x))   # it was typed as a JAX op: float32
    check(f, X)


def test_reduce_of_numpy_function_keeps_numpy_precision():
    def f(x, y):
        return functools.reduce(np.multiply, [x, y, x])
    check(f, X, X * 2.0)


def test_reduce_of_one_item_is_the_item():
    def f(x):
        return functools.reduce(np.multiply, [x]) / x.sum()
    check(f, X)


def test_reduce_with_initial_and_lambda():
    def f(x):
        return functools.reduce(lambda a, b: a + b * 2.0, [x, x, x], 1.0)
    check(f, X)


@pytest.mark.parametrize("name,args", [
    ("chatterjeexi", (Y, Z)), ("combine_pvalues", (P,)), ("jarque_bera", (Y,)),
    ("mood", (Y, Z)), ("siegelslopes", (Y,)), ("spearmanrho", (Y, Z)), ("theilslopes", (Y,)),
    ("chi2_contingency", (P,))])
def test_scipy_stats_results_keep_eager_dtypes(name, args):
    fn = getattr(scipy.stats, name, None)
    if fn is None:
        pytest.skip(f"scipy.stats.{name} not in this SciPy")
    check(fn, *args, full_graph=False)   # decorated as it is: its last segment builds the result
