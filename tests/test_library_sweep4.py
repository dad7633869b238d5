"""Library namespaces the sweep first tried in h-lib4 (issue 16).

``benchmarks/library_sweep.py`` now also sweeps ``numpy.polynomial``'s six
kinds, ``scipy.ndimage``, ``scipy.interpolate``, ``scipy.fft``,
``scipy.cluster.vq``, the plain functions of ``scipy.optimize`` and
``jax.nn``. What they showed, each pinned as user code and as the library
function that showed it, against eager:

* a NumPy view read from a view of an array the function made
  (``mat.reshape(-1)[n::n + 1]`` of ``mat = np.zeros(..)``) was taken for an
  array read from outside the function: the graph read a copy, so
  ``bot[...] = 1`` through it never reached ``mat`` (a silent wrong result in
  ``np.polynomial.polynomial.polycompanion`` and every ``*companion``);
* a local function handed to a JAX or C callable that reaches itself through
  its free names (a recursive local function, or SciPy's ``_wrap_nan_raise``
  whose ``f_raise._function_calls += 1`` names itself) sent the conversion
  into endless recursion (RecursionError where eager returns:
  ``scipy.optimize.brentq``/``brenth``/``ridder``/``bisect``); the write into
  the function's own attribute was also taken for a write into an object it
  made. It falls back now, with the reason;
* ``to_static`` of a JAX library callable with no Python function of its own
  (``jax.nn.sigmoid``, a jitted ``PjitFunction``; ``jax.nn.celu``, a
  ``custom_jvp``) ran eagerly (A2G012, 22 of ``jax.nn``'s functions): it
  converts a call of it now, one JAX op in one graph, as inside a user's
  function. A user's own ``jax.jit(f)`` still runs eagerly;
* ``x.flags.writeable`` of an argument's NumPy array (in the plan key) and of
  a new array written with traced values (``d = np.zeros(4); d[0] = x[0]``)
  is known at trace time: it fell back (A2G003), as SciPy's array-API
  ``xpx.at(x)[i].set(v)`` asks it (``is_writeable_array``);
* ``it = iter(args); x0 = next(it)`` of a list of traced values the function
  made (or a tuple) fell back ("builtins.iter returned a Python object"):
  the iterator is made at trace time over that very object, as eager's
  (``np.polynomial``'s ``*val2d``/``*val3d`` through ``polyutils._valnd``);
* a generator expression bound to a name whose one use is the next
  statement's builtin consumer (``vs = (..); return functools.reduce(
  operator.mul, vs)``) is consumed whole there, before anything else runs:
  held as a list, as when written in the call itself (it fell back:
  ``np.polynomial``'s ``*vander2d``/``*vander3d`` through
  ``polyutils._vander_nd``);
* an array made at trace time (``positions = np.arange(n)``) indexed by a
  traced boolean mask fell back (A2G003); it is a constant of the graph, and
  the index the masked rows every array gets (``positions[vals ==
  vals.min()][0]``: ``scipy.ndimage.minimum_position``, ``extrema``);
* an object of a Python subclass of ``dict`` the function made (SciPy's
  ``OptimizeResult``) could not leave a segment (A2G007: "the graph cannot
  rebuild this class"): it is rebuilt per call from its items and
  attributes, a new object each call, as a plain class's object is
  (``scipy.optimize.minimize_scalar``);
* ``jax.tree.map(f, tree)`` of a Python function over NumPy leaves: eager
  runs ``f`` in Python on the ndarrays (NumPy arrays come back), the graph
  traced it with JAX (jax.Arrays: a silent kind difference in
  ``optax.incremental_update``, found when the sweep ran optax again). It
  falls back now; over jax.Arrays it stays one graph.
"""

from __future__ import annotations

import functools
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.ndimage
import scipy.optimize

from ast2graph import to_static
from tests.helpers import assert_same, check


# ------------------------------------------------ views of views of an array made here
def test_a_view_of_a_reshaped_array_made_here_writes_through():
    def f(c):
        n = len(c) - 1
        mat = np.zeros((n, n), dtype=c.dtype)
        bot = mat.reshape(-1)[n::n + 1]
        bot[...] = 1
        mat[:, -1] -= c[:-1] / c[-1]
        return mat
    check(f, np.arange(1.0, 6.0), full_graph=False)


def test_a_view_of_a_view_made_here_in_two_steps():
    def f(c):
        mat = np.zeros((3, 3))
        r = mat.reshape(-1)
        bot = r[1:]
        bot[0] = 1
        return mat + c[0]
    check(f, np.arange(1.0, 6.0))


def test_a_traced_write_through_a_view_of_a_view_made_here_falls_back():
    def f(c):
        mat = np.zeros((3, 3))
        bot = mat.reshape(-1)[1:]
        bot[2:4] = c[:2]       # the graph writes whole arrays, not through views: the write runs in Python
        return mat
    e = check(f, np.arange(1.0, 6.0), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G007"]


def test_transpose_of_a_view_made_here():
    def f(c):
        mat = np.zeros((3, 4))
        t = mat[1:].T
        t[0] = 7.0
        t[1, 1] = 3.0
        return mat * c[0], t.shape
    check(f, np.arange(1.0, 6.0))


def test_a_view_of_a_view_made_here_across_a_fallback():
    def f(c):
        mat = np.zeros(4)
        bot = mat.reshape(2, 2)[1:]
        b = c.tobytes()        # runs in Python: the segment ends with mat and bot live
        bot[0] = c[0] + len(b)
        return mat
    check(f, np.arange(1.0, 6.0), full_graph=False)


def test_a_view_of_an_outside_array_is_still_read_from_outside():
    g = np.arange(6.0)

    def f(c):
        v = g.reshape(2, 3)[1:]
        return v.sum() + c
    check(f, np.float64(1.0))
    g[4] = 100.0              # the caller changed it: the graph reads it again
    check(f, np.float64(1.0))


@pytest.mark.parametrize("name", ["polynomial.polycompanion", "chebyshev.chebcompanion", "legendre.legcompanion",
                                  "hermite.hermcompanion", "hermite_e.hermecompanion", "laguerre.lagcompanion"])
def test_polynomial_companion_matrices(name):
    module, fn = name.split(".")
    f = getattr(getattr(np.polynomial, module), fn)
    check(f, np.random.default_rng(0).normal(size=8), full_graph=False)


# ------------------------------------------------ local functions that reach themselves
def test_a_recursive_local_function_handed_to_jax():
    def f(x):
        def g(y, n):
            return y if n == 0 else g(y * 2, n - 1)
        return jax.lax.map(lambda t: g(t, 2), x)
    check(f, jnp.arange(3.0), full_graph=False)


def test_a_local_function_counting_its_calls_in_its_own_attribute():
    def f(x):
        def g(y):
            g.calls += 1
            return y * 2
        g.calls = 0
        out = jax.lax.map(g, x)
        return out, g.calls
    e = check(f, jnp.arange(3.0), full_graph=False)
    assert "A2G002" in [s.code.code for s in e.fallback_sites]


def _cubic(x):
    return x ** 3 - 2.0 * x - 5.0


@pytest.mark.parametrize("name", ["brentq", "brenth", "ridder", "bisect"])
def test_scipy_scalar_root_finders(name):
    check(getattr(scipy.optimize, name), _cubic, 2.0, 3.0, full_graph=False)


def test_a_root_finder_called_from_user_code():
    def f(g, a, b):
        return scipy.optimize.brentq(g, a, b) * 2
    check(f, _cubic, 2.0, 3.0, full_graph=False)


# ------------------------------------------------ JAX library callables converted whole
@pytest.mark.parametrize("name", ["sigmoid", "celu", "relu", "elu", "glu", "selu", "silu", "softplus", "log_softmax",
                                  "standardize", "hard_tanh", "leaky_relu", "mish", "squareplus"])
def test_jax_nn_functions_are_one_graph(name):
    check(getattr(jax.nn, name), np.random.default_rng(0).normal(size=8))


def test_a_jax_callable_with_keywords_and_numpy_float32():
    check(jax.nn.leaky_relu, np.linspace(-1, 1, 6, dtype=np.float32), kwargs={"negative_slope": 0.3})
    check(jnp.sin, np.float64(0.5))


def test_a_users_jitted_function_still_runs_eagerly():
    g = jax.jit(lambda x: x * 2)
    with pytest.warns(UserWarning, match="runs eagerly"):
        e = check(g, np.arange(3.0), full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G012"]


# ------------------------------------------------ .flags.writeable of an argument's array
def _writeable_or_copy(x, v):
    writeable = x.flags.writeable       # (array_api_extra's at(): is_writeable_array)
    if not writeable:
        x = x.copy()
    x[1:3] = v
    return x * 2, writeable


def test_flags_writeable_of_an_argument_is_known():
    check(_writeable_or_copy, np.arange(5.0), np.float64(3.5))


def test_flags_writeable_of_a_read_only_argument():
    x = np.arange(5.0)
    x.flags.writeable = False
    check(_writeable_or_copy, x, np.float64(3.5))


def test_flags_writeable_changes_between_calls():
    x = np.arange(5.0)
    y = np.arange(5.0)
    y.flags.writeable = False
    f = to_static(_writeable_or_copy)
    for a in (x, y, x.copy()):
        expected = _writeable_or_copy(a.copy() if a.flags.writeable else a, np.float64(2.0))
        got = f(a.copy() if a.flags.writeable else a, np.float64(2.0))
        assert_same(expected, got)


def test_flags_of_a_new_array_written_with_traced_values():
    def f(x):
        d = np.zeros(4)
        d[0] = x[0] * 2
        return d, d.flags.writeable, d.flags["W"]
    check(f, np.arange(5.0))


# ------------------------------------------------ iter() of this call's own list of traced values
def test_iter_of_a_list_made_here_pulled_with_next():
    def f(x, y):
        args = [np.asanyarray(a) for a in (x, y)]
        it = iter(args)
        x0 = next(it)
        out = x0 * 2
        for xi in it:
            out = out + xi
        return out
    check(f, np.arange(3.0), np.ones(3))


def test_iter_sees_items_appended_after_it_was_made():
    def f(x):
        xs = [x, x * 2]
        it = iter(xs)
        first = next(it)
        xs.append(x * 3)
        return first, list(it), next(it, None)
    check(f, np.arange(3.0))


def test_iter_of_a_tuple_of_traced_values():
    def f(x):
        it = iter((x, x + 1))
        return next(it) - next(it)
    check(f, np.arange(3.0))


def test_iter_of_an_argument_list_still_falls_back():
    def f(xs):
        it = iter(xs)
        return next(it) * 2
    check(f, [np.arange(3.0), np.ones(3)], full_graph=False)


@pytest.mark.parametrize("name", ["polynomial.polyval2d", "polynomial.polyval3d", "chebyshev.chebval2d",
                                  "legendre.legval3d", "hermite.hermval2d", "laguerre.lagval2d"])
def test_polynomial_nd_evaluation(name):
    module, fn = name.split(".")
    f = getattr(getattr(np.polynomial, module), fn)
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=5) for _ in range(3 if fn.endswith("3d") else 2)]
    check(f, *xs, rng.normal(size=(3,) * len(xs)))


# ------------------------------------------------ a generator expression bound to a name, consumed next
def test_a_generator_expression_bound_then_reduced_by_the_next_statement():
    def f(x):
        vs = (x * k + 1 for k in range(3))
        return functools.reduce(operator.mul, vs)
    check(f, np.arange(4.0))


def test_a_generator_expression_bound_then_summed_into_a_name():
    def f(x):
        parts = (x[k] * 2 for k in range(3))
        total = sum(parts)
        return total + 1
    check(f, np.arange(4.0))


def test_a_generator_expression_consumed_twice_is_eagers_and_one_graph():
    # a generator expression bound to a name is a lazy generator object (h-fb11): the second sum is empty
    def f(x):
        vs = (x * k for k in range(3))
        a = sum(vs)
        b = sum(vs)          # eager: empty, 0
        return a, b
    check(f, np.arange(4.0), full_graph=True)


def test_a_generator_expression_reading_a_name_rebound_before_it_is_consumed_is_eagers():
    def f(x):
        k = 2
        vs = (x * k for _ in range(2))
        k = 3                # eager's items read k = 3 (late binding)
        return sum(vs)
    check(f, np.arange(4.0), full_graph=True)


def test_a_generator_expression_reduced_by_a_python_function_falls_back():
    seen = []

    def mul(a, b):
        seen.append(1)
        return a * b

    def f(x):
        vs = (x * k + 1 for k in range(3))
        return functools.reduce(mul, vs)
    e = check(f, np.arange(4.0), full_graph=False)
    assert "A2G013" in [s.code.code for s in e.fallback_sites]


@pytest.mark.parametrize("name", ["polynomial.polyvander2d", "chebyshev.chebvander3d", "hermite_e.hermevander2d"])
def test_polynomial_nd_vandermonde(name):
    module, fn = name.split(".")
    f = getattr(getattr(np.polynomial, module), fn)
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=5) for _ in range(3 if fn.endswith("3d") else 2)]
    check(f, *xs, [2] * len(xs))


# ------------------------------------------------ an array made at trace time indexed by a traced mask
def test_an_arange_indexed_by_a_traced_mask_then_its_first_item():
    def f(vals):
        positions = np.arange(vals.size).reshape(vals.shape)
        return positions[vals == vals.min()][0], positions[vals > 0].sum()
    check(f, np.random.default_rng(0).normal(size=(3, 4)))


def test_a_masked_static_array_leaving_the_segment_falls_back():
    def f(vals):
        return np.arange(vals.size)[vals > 0]
    check(f, np.random.default_rng(0).normal(size=8), full_graph=False)


@pytest.mark.parametrize("name", ["minimum_position", "maximum_position", "extrema"])
def test_ndimage_positions(name):
    check(getattr(scipy.ndimage, name), np.random.default_rng(0).normal(size=(4, 5)))


# ------------------------------------------------ a dict subclass made in the function, leaving it
class _Result(dict):
    """As SciPy's OptimizeResult: a dict whose items read as attributes."""
    __getattr__ = dict.__getitem__


def _made_result(x):
    r = _Result(n=3)
    r["a"] = x * 2
    r["fun"] = float(len(x))
    r.note = "kept"
    return r


def test_a_dict_subclass_made_here_leaves_as_a_new_object_each_call():
    e = check(_made_result, np.arange(3.0))
    assert e.graph_count == 1
    f = to_static(_made_result)
    first = f(np.arange(3.0))
    first["n"] = 99                       # the caller changes one result: the next is new
    second = f(np.arange(3.0))
    assert type(second) is _Result and second["n"] == 3 and second is not first and second.note == "kept"


def test_scipy_minimize_scalar_is_one_graph():
    check(scipy.optimize.minimize_scalar, np.sin)
    check(scipy.optimize.minimize_scalar, np.cos, kwargs={"bounds": (0.0, 5.0)})


def test_iter_of_a_list_whose_length_depends_on_the_data_falls_back():
    def f(x):
        xs = []
        for v in x:
            if v > 0:
                xs.append(v * 2)
        it = iter(xs)
        return next(it, -1.0)
    check(f, np.array([-1.0, 2.0, 3.0]), full_graph=False)
    check(f, np.array([-1.0, -2.0]), full_graph=False)


# ------------------------------------------------ jax.tree.map of a Python function over NumPy leaves
def _polyak(new, old, s):
    return jax.tree.map(lambda a, b: s * a + (1.0 - s) * b, new, old)


def test_tree_map_over_numpy_arrays_keeps_numpys_results():
    # eager runs the lambda in Python on the ndarrays: NumPy arrays come back (optax.incremental_update)
    e = check(_polyak, {"w": np.arange(3.0)}, {"w": np.ones(3)}, np.float64(0.25), full_graph=False)
    assert "A2G003" in [s.code.code for s in e.fallback_sites]


def test_tree_map_over_jax_arrays_stays_one_graph():
    check(_polyak, {"w": jnp.arange(3.0)}, {"w": jnp.ones(3)}, 0.25)


def test_optax_incremental_update():
    import optax
    rng = np.random.default_rng(0)
    check(optax.incremental_update, rng.normal(size=4), rng.normal(size=4), rng.normal(size=4), full_graph=False)
