"""h-lib16: fixes in the shared passes for library functions that fell back
in the h-lib16 sweep (``tests/test_library_sweep16.py``), each checked in one
graph (``full_graph=True``) and against eager: distribution methods converted
directly, writes into an argument at repeated or traced indices, options JAX's
namesakes lack, discrete distributions."""

from __future__ import annotations

import numpy as np

from tests.test_library_sweep16 import I10, J10, M34, M44, V8, W8


# ------------------------------------------------ library functions converted directly
def test_a_scipy_stats_distribution_method_converted_directly_is_its_graph_form():
    # to_static(scipy.stats.norm.pdf) converted rv_continuous.pdf's own code (np.extract: a shape by the
    # data, three graphs), where a user's call of it is one graph (scipy_forms)
    import scipy.stats as st

    from tests.helpers import check_calls

    check_calls(st.norm.pdf, [(V8,), (M34,), (I10,)])
    check_calls(st.norm.cdf, [(V8, 1.0, 2.0), (M34, 0.0, -1.0)])   # scale < 0: NaN
    check_calls(st.t.ppf, [(W8 / 2, np.array([2.0, 5.0])[:, None])])


# ------------------------------------------------ writes into an argument
def test_put_along_axis_of_one_value_at_traced_indices_is_one_graph():
    # np.put_along_axis(m, np.argmax(m, axis=1, keepdims=True), 0.0, axis=1) fell back (traced indices:
    # NumPy writes repeated ones in order); one value for every position cannot depend on that order,
    # and the bounds are checked at run time (NumPy's IndexError)
    from tests.helpers import check_calls

    def f(m):
        m = m.copy()
        np.put_along_axis(m, np.argmax(m, axis=1, keepdims=True), 0.0, axis=1)
        return m

    def g(m, i):
        np.put_along_axis(m, i, -1.0, axis=0)   # the caller's array
        return m.sum()

    def h(m, i):
        m = m.copy()
        np.put_along_axis(m, i, m[0, :1], axis=None)
        return m

    check_calls(f, [(M34,), (M44[::-1],)])
    check_calls(g, [(M34, np.array([[0, 1, 2, 2]])), (M34, np.array([[2, -1, 0, 0], [1, 1, 1, 1]])),
                    (M34, np.array([[3, 0, 0, 0]])), (M34, np.array([[0, -4, 0, 0]]))])
    check_calls(h, [(M34, np.array([0, 11, 11, -1])), (M34, np.array([12]))])
    check_calls(g, [(M34, np.array([[0.0, 1, 2, 2]]))], full_graph=False)   # float indices: NumPy's IndexError


def test_put_and_put_along_axis_at_repeated_static_indices_keep_numpys_last_write():
    # with indices known at trace time the rule scattered them: XLA leaves the order of repeated
    # indices open (the last write wins on CPU, any off it); now each element's last write is read
    # from NumPy's own call on the update numbers, a gather
    from tests.helpers import check_calls

    def s(x):
        x = x.copy()
        np.put_along_axis(x, np.array([[0, 0, 1, -1]]), np.array([[1.0, 2.0, 3.0, 4.0]]), axis=1)
        np.put(x, [0, 0, 2, -1, 9], [5.0, 6.0], mode="wrap")
        np.put(x, [1, 1], [7.0, 8.0])
        return x

    def bad(x):
        x = x.copy()
        np.put(x, [0, 9], [5.0, 6.0])
        return x

    check_calls(s, [(np.zeros((2, 4)),), (M34[:2],), (M44,)])
    check_calls(bad, [(np.zeros(4),), (V8,)], full_graph=False)   # out of bounds: IndexError once, in bounds after


# ------------------------------------------------ options JAX's namesake lacks
def test_isin_with_kind_is_one_graph():
    # jnp.isin has no kind= (NumPy's algorithm choice: the answer is the same): the call fell back
    from tests.helpers import check_calls

    i, j = np.array([0, 3, 1, 5, 2, 2]), np.array([2, 5, 7])

    def f(a, b):
        return (np.isin(a, b, invert=True), np.isin(a, b, kind="sort"), np.isin(a, b, kind="table"),
                np.isin(a, [1, 3], kind="table"), np.isin(a, b, kind=None, assume_unique=True))

    check_calls(f, [(i, j), (i[::-1], j[:1]), (i > 1, j > 3), (I10, J10)])
    check_calls(lambda a, b: np.isin(a, b, kind="table"), [(i * 0.5, j)], full_graph=False)   # NumPy's ValueError
    check_calls(lambda a, b: np.isin(a, b, kind="hash"), [(i, j)], full_graph=False)


def test_ravel_multi_index_of_traced_coordinates_is_one_graph():
    # jnp.ravel_multi_index needs concrete coordinates for mode="raise" (its bounds check): the call
    # fell back; now the graph clips where NumPy raises and checks the bounds at run time
    from tests.helpers import check_calls

    i, j = np.array([0, 3, 1, 2]), np.array([2, 5, 0, 4])

    def f(i, j):
        return (np.ravel_multi_index((i, j), (4, 6)), np.ravel_multi_index((i, j), (4, 6), order="F"),
                np.ravel_multi_index((i, j + 3), (4, 6), mode="wrap"),
                np.ravel_multi_index((i - 2, j), (4, 6), mode=("clip", "raise")),
                np.ravel_multi_index((i[0], j[1]), (4, 6)), np.ravel_multi_index([i, j, i], (5, 6, 4)))

    check_calls(f, [(i, j), (i[::-1], j), (i + 1, j), (i, j - 1), (i.astype(np.int32), j.astype(np.int8))])
    check_calls(np.ravel_multi_index, [((i, j), (4, 6)), ((i, j + 4), (4, 6)), ((I10, J10), (4, 6))])
    check_calls(lambda i, j: np.ravel_multi_index((i, j), (4, 6)), [(i * 1.0, j)], full_graph=False)   # TypeError


def test_discrete_distributions_pmf_logpmf_cdf_are_one_graph():
    # scipy.stats.poisson.pmf fell back: a discrete distribution's generated _parse_args returns a
    # constant (scale 1), which the "only returns its arguments" test refused; then rv_discrete.pmf
    # compresses the valid elements (np.extract): now a graph form as rv_continuous' methods have
    import scipy.stats as st

    from tests.helpers import check_calls

    def f(x, p):
        k = np.round(np.abs(x) * 3)
        return st.poisson.pmf(k, 2.0), st.binom.pmf(k, 10, p), st.poisson.logpmf(x, 1.5), st.geom.cdf(k - 1, p, loc=1)

    check_calls(f, [(V8, np.full(8, 0.3)), (np.array([0.0, -1.0, np.nan, 2.5, 3.0, 1.0, 0.0, 7.0]), W8 - 0.3)])
    check_calls(st.poisson.pmf, [(I10, 2.0), (J10, 0.5)])


def test_a_frozen_distribution_is_one_graph():
    # st.norm(loc=1.0, scale=s).pdf(x) fell back: rv_frozen makes a fresh instance of the distribution's
    # class from static constructor parameters, whose __init__ builds its argument parser with exec;
    # that construction now runs at trace time (it only makes the object), the methods are graph forms
    import scipy.stats as st

    from tests.helpers import check_calls

    def f(x, s):
        d = st.norm(loc=1.0, scale=s)
        return d.pdf(x), d.cdf(x), d.logpdf(x), st.t(3, loc=s).sf(x)

    check_calls(f, [(V8, 2.0), (V8, 0.5), (M34, 3.0), (V8, -1.0)])


def test_a_string_array_in_a_try_is_not_taken_for_eagers_error():
    # staging a string array into the graph raised TypeError at trace time, taken as eager's error:
    # the `except TypeError` handler ran where eager indexed the array ("none" for "bb")
    from tests.helpers import check_calls

    def f(x):
        s = np.array(["a", "bb", "c"])
        try:
            y = s[np.argmax(x)]
        except TypeError:
            y = "none"
        return y

    def g(x):
        s = np.array(["a", "bb", "c"])
        try:
            y = np.add(s, x)   # eager raises (no loop for strings and floats): the handler runs
        except TypeError:
            y = x * 2
        return y, s[::-1]

    check_calls(f, [(V8[:3],), (-V8[:3],)], full_graph=False)
    check_calls(g, [(V8[:3],)], full_graph=False)


def test_a_density_with_a_scale_scipy_refuses_warns_nothing():
    # the graph form of rv_continuous.logpdf took log(scale) on every element, where SciPy takes it
    # only where the arguments are valid: scale=-1 warned "invalid value encountered in log"
    import scipy.stats as st

    from tests.helpers import check_warnings

    def f(x, s):
        return st.norm.logpdf(x, scale=s), st.norm.pdf(x, 1.0, s), st.gamma.logpdf(np.abs(x), 2.0, scale=s)

    for s in (2.0, -1.0, np.array([1.0, -1.0, 2.0, 2.0, 1.0, 1.0, 3.0, -2.0])):
        check_warnings(f, V8, s, calls=1)
