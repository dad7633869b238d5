"""The library sweep in h-lib11 (issue 16, library part): whole namespaces
with jax.Array and NumPy inputs, the largest causes of fallback.

* An array this call made, read back out of a tuple display (``(c,)[0]``,
  SciPy's ``find_best_blas_type((a1,))``), is that array: its layout and its
  writes are this call's own (it was read as an outside value: ``.flags`` fell
  back).
* A LAPACK wrapper given ``overwrite_X=True`` on an operand whose layout is
  known not Fortran-contiguous (a NumPy array made at trace time, as it is
  at the call) writes nothing: f2py copies it first. Its arrays are new,
  this call's own (``x -= y/dy`` of ``eigvals_banded``'s roots). The
  ``scipy.special.roots_*`` Gauss quadratures are one graph.
* A NumPy ufunc's positional outputs are its ``out=`` (``np.logical_not(r, r)``).
* scipy.ndimage's compiled ``binary_erosion`` (returning its "changed" flag,
  a Python int), ``geometric_transform`` (no Python mapping) and
  ``distance_transform_bf`` run on the host inside the graph and write their
  outputs, as the other compiled filters do: binary erosion, dilation,
  opening, closing, hit-or-miss, ``distance_transform_bf``, ``rotate``,
  ``affine_transform`` are one graph.
* An array made at trace time during an inlined call (``_get_output``'s
  ``np.zeros``) is no value the caller's statement evaluated before the call
  (``affine_transform(m, np.eye(2) * 1.1)``): written through its one name
  (``map_coordinates``, ``morphological_gradient`` fell back at the alias check).
* The kinds of a NumPy function's results on jax.Arrays are found by running
  it on exemplar data; where that raises, on a second exemplar ascending in
  [0.25, 0.75] (a probability, a monotonic bin edge): ``np.quantile``,
  ``np.nanquantile``, ``np.digitize`` of jax.Arrays are one graph.
* A 0-d array a NumPy function makes new (``np.asarray(s, copy=True)`` of a
  NumPy scalar, as array_api_extra's ``at(r, mask).set(v)`` does) has a known
  ``.flags.writeable``: ``scipy.stats.pearsonr`` is one graph (NumPy and jax inputs).
* A write into an array that an attribute of an object made in this call
  holds (array_api_extra's ``at(z, i).set(v)``: ``x = self._x; x[idx] = y``)
  rebinds that attribute to the written array, as a local name is rebound,
  where no other attribute of the object reaches it; a method call on an
  object the caller's statement made of plain arguments (``at(z, i).set(v)``)
  holds no other temporary: ``scipy.stats.zscore`` is one graph.
* ``np.r_[a, x0]`` of traced arrays and numbers is NumPy's concatenation
  (``np.result_type`` of the items where one is a number): ``cspline1d``,
  ``qspline1d`` are one graph.
* A NumPy function given a list of traced numbers where its JAX op refuses
  a list (``np.mean([p0, p1])``) gets NumPy's array of them: ``invres``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import scipy._lib.array_api_extra as xpx
import scipy.linalg
import scipy.ndimage
import scipy.signal
import scipy.special
import scipy.stats

from ast2graph import explain
from tests.helpers import check, check_calls

rng = np.random.default_rng(11)
V = rng.standard_normal(8)
P = rng.random(8)
B = rng.random((6, 7)) > 0.4
M = rng.standard_normal((6, 7))


def test_array_made_here_read_from_a_tuple_keeps_its_layout():
    def f(x):
        c = np.zeros((2, 8))
        c[1, :] = 1.0
        t = (c,)
        return t[0].flags["FORTRAN"], (c.T,)[0].flags["F_CONTIGUOUS"], t[0] * x

    check(f, np.arange(8.0))


def test_gauss_quadrature_roots_one_graph():
    def f(n, a):
        x, w = scipy.special.roots_hermite(n)
        y, v = scipy.special.roots_genlaguerre(n, a)
        return (w * np.exp(x)).sum(), (v * y).sum(), x, w

    check_calls(f, [(8, 0.5), (8, 1.5), (5, 0.5)])


def test_lapack_overwrite_of_a_fortran_array_is_not_pure():
    # f2py writes LAPACK's workspace into an F-contiguous operand given overwrite_ab=True:
    # eager's array changes, so the call is no trace-time computation
    def f(n):
        c = np.zeros((2, n), order="F")
        c[0, 1:] = np.sqrt(np.arange(1.0, n) / 2.0)
        w = scipy.linalg.eigvals_banded(c, overwrite_a_band=True)
        return w, c

    check(f, 6, full_graph=False)
    assert explain(f)(6).fallback_sites


def test_ufunc_positional_out_is_its_out():
    def f(x, y):
        r = x > 0.2
        np.logical_not(r, r)
        z = np.zeros_like(y)
        np.add(y, 1.0, z)
        return np.logical_and(x < 0.9, r), z

    check_calls(f, [(V, P), (P, V)])


def test_ndimage_binary_morphology_and_transforms_one_graph():
    # _nd_image.binary_erosion (its "changed" a Python int), geometric_transform (no Python mapping),
    # distance_transform_bf: compiled code writing its outputs, on the host inside the graph
    def f(b, m):
        e = scipy.ndimage.binary_erosion(b)
        o = scipy.ndimage.binary_opening(b)
        h = scipy.ndimage.binary_hit_or_miss(b)
        d = scipy.ndimage.distance_transform_bf(b)
        r = scipy.ndimage.rotate(m, 30)
        a = scipy.ndimage.affine_transform(m, np.eye(2) * 1.1)
        return e, o, h, d, r, a

    for conv in (np.asarray, jnp.asarray):
        check_calls(f, [(conv(B), conv(M)), (conv(~B), conv(M * 2))])


def test_ndimage_erosion_until_stable_falls_back_at_the_coordinate_list():
    # iterations=-1 asks _nd_image.binary_erosion for a coordinate list (mode 1): no graph op
    def f(b):
        return scipy.ndimage.binary_propagation(b)

    check(f, B, full_graph=False)
    sites = explain(f)(B).fallback_sites
    assert [s.loc.function for s in sites] == ["_binary_erosion"]


def test_output_made_during_a_call_is_no_temporary_of_the_callers_statement():
    # the caller's statement evaluated np.eye(2) * 1.1 before the call; the output array
    # affine_transform makes (np.zeros at trace time) after it began is none of those values
    def f(m):
        a = scipy.ndimage.affine_transform(m, np.eye(2) * 1.1)
        g = scipy.ndimage.morphological_gradient(m, 3)
        c = scipy.ndimage.map_coordinates(m, np.array([[0.5, 2.0], [1.0, 3.5]]) + 0.25)
        return a, g, c

    check_calls(f, [(M,), (M * 2,)])


def test_numpy_on_jax_arrays_whose_kinds_need_probabilities_or_sorted_bins():
    # the result kinds are found by running NumPy on exemplar data: data in [0.5, 1.5) is no
    # quantile and no monotonic bin edge, so a second exemplar is ascending in [0.25, 0.75]
    def f(a, q, bins):
        return np.quantile(a, q), np.nanquantile(a, q), np.digitize(a, bins)

    pj, vj = jnp.asarray(P), jnp.asarray(V)
    # the same conversion over calls; the last two raise eager's ValueErrors (a quantile above 1,
    # bins not monotonic) after calls that did not
    check_calls(f, [(pj, pj, jnp.sort(vj)), (vj, pj[::-1], jnp.sort(pj)), (pj, pj + 1.0, jnp.sort(vj)), (pj, pj, vj)])


def test_new_zero_d_array_is_writeable_pearsonr_one_graph():
    # array_api_extra's at(r, mask).set(v) of a NumPy scalar r copies it (np.asarray(r, copy=True)):
    # a new 0-d array, writeable in eager, so its .flags.writeable is known (it fell back)
    def f(x):
        r = x.sum()
        return xpx.at(r, r > 100).set(np.nan), xpx.at(r, r < 100).set(0.0)

    check_calls(f, [(V,), (V * 100,)])
    check_calls(scipy.stats.pearsonr, [(jnp.asarray(V), jnp.asarray(P)), (jnp.asarray(P), jnp.asarray(V))])


def test_write_through_an_attribute_of_an_object_made_here_zscore_one_graph():
    # array_api_extra's at(z, i).set(v) writes z in place through x = self._x: the at object,
    # made in this call, has its attribute rebound to the written array as a name is
    def f(x):
        z = x * 2
        a = xpx.at(z, np.abs(z) > 1)
        w = a.set(0.0)
        return z, w, a._x is z, a._x

    check_calls(f, [(V,), (V * 3,)])
    check_calls(scipy.stats.zscore, [(jnp.asarray(V),), (jnp.asarray(P),)])


def test_write_into_an_array_an_object_also_holds_in_a_list_falls_back():
    class Box:
        def __init__(self, v):
            self.v = v
            self.others = [v]

    def f(x):
        z = x * 2
        b = Box(z)
        z[0] = 5.0
        return b.v, b.others[0]

    check_calls(f, [(V,), (P,)], full_graph=False)
    assert [s.code.code for s in explain(f)(V).fallback_sites] == ["A2G007"]


def test_r_of_traced_arrays_and_numbers_one_graph():
    # np.r_[...] of arrays and numbers: NumPy's AxisConcatenator (a number does not up-cast)
    def f(x):
        s = x.sum()
        return (np.r_[x[::-1], s], np.r_[x.astype(np.float32), 1.0], np.r_[1, -x[0]],
                np.r_[x[:2], x[3:5] * 2], np.r_[x.astype(np.float32), s])

    check_calls(f, [(V,), (jnp.asarray(P),)])   # (a jax.Array: NumPy's array of it)


def test_numpy_function_of_a_list_of_traced_numbers_one_graph():
    # np.mean([p0, p1]): NumPy's array of the numbers, where jnp.mean refuses a list
    # (jnp.stack takes one as it is); scipy.signal.invres groups poles this way
    def f(x):
        a, b = x[0], x[1] * 2
        return np.mean([a, b]), np.median([a, b, 1.0]), np.std((a, b)), np.max([a, 2.0]), np.stack([a, b])

    check_calls(f, [(V,), (P,)])
    check_calls(scipy.signal.invres, [(np.arange(3.0), 2.0, 0.5), (P[:3], 2.0, 0.5)])


def test_ufunc_positional_out_with_casting_falls_back_without_internal_error():
    # np.sqrt(output, output, casting="unsafe") (generic_gradient_magnitude): not modelled, a fallback site
    def f(x):
        y = x * 2
        np.sqrt(y, y, casting="unsafe")
        return y

    check(f, np.abs(M), full_graph=False)
    assert {s.code.code for s in explain(f)(np.abs(M)).fallback_sites} == {"A2G003"}
