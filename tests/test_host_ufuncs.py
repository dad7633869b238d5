"""Compiled ufuncs with no JAX equivalent run on the host, inside the graph.

``scipy.special.chdtrc``, ``jv``, ``kv``, the private ``_riemann_zeta`` that
``scipy.special.zeta`` calls: NumPy ufuncs that are not NumPy's own and that
no JAX function computes exactly. The ufunc itself runs in a pure callback on
eager's objects (``typeinfer/calls._host_ufunc``), its results typed as NumPy
resolves them (a Python number weak, an array strong; NumPy scalars where
every operand is 0-d), so the function around it stays one graph. Each test
compares with eager.
"""

import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sp
import scipy.stats as st

from helpers import check

XS = np.linspace(0.1, 3.0, 5)


def special_values(x):
    return sp.chdtrc(3.0, x), sp.jv(1, x) * 2, sp.kv(0.5, x[0]), sp.zeta(x + 2.0)


@pytest.mark.parametrize("x", (XS, XS.astype(np.float32), jnp.asarray(XS)), ids=("f64", "f32", "jax"))
def test_special_functions_in_one_graph(x):
    check(special_values, x)


def branch_on_pvalue(x):
    s = x.sum()
    if sp.chdtrc(2, s) > 0.5:
        return s
    return -s


def test_traced_branch_on_a_host_ufunc():
    check(branch_on_pvalue, np.array([0.1, 0.2]))
    check(branch_on_pvalue, np.array([3.0, 4.0]))


def two_outputs(x):
    s, c = sp.fresnel(x)
    return s + c, sp.fresnel(float(x[0]))


def test_ufunc_with_two_outputs_and_python_scalar():
    check(two_outputs, XS)


@pytest.mark.parametrize("fn, args", [
    (st.chisquare, (np.array([10.0, 12, 9, 14]),)),
    (st.jarque_bera, (np.linspace(0, 1, 20) ** 2,)),
    (st.levene, (np.arange(5.0), np.arange(5.0)[::-1] * 2)),
], ids=("chisquare", "jarque_bera", "levene"))
def test_scipy_stats_tests_in_one_graph(fn, args):
    check(fn, *args)


def nan_and_inf(x):
    return sp.chdtrc(2.0, x), sp.kv(1.0, x)


def test_nan_and_inf_operands():
    check(nan_and_inf, np.array([np.nan, np.inf, -1.0, 0.0]))
