"""Eager's kinds everywhere a Python program can look (issue 14).

Every test compares with the eager run of the same function (``helpers.check``:
exact on leaf kinds, dtypes, dict key order, container types). Where a site
must fall back, the test asserts that ``explain`` lists it and that the result
still equals eager.
"""

import collections
import contextlib
import functools
import io
import types

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from helpers import check, check_sequence

X = jnp.arange(3.0)
N32 = np.arange(3.0, dtype=np.float32)   # float32 ndarray: eager and converted agree on the dtype without x64


def causes(explanation) -> list[str]:
    return [s.cause for s in explanation.fallback_sites]


# ------------------------------------------------------------ dict key order
def dict_unsorted_keys(x):
    return {"b": x, "a": x + 1}


def dict_mixed_keys(x):
    return {"b": x, 1: x * 2, "a": 3}


def dict_argument_order(d):
    return list(d), {k: v * 2 for k, v in d.items()}


def dict_nested_in_containers(x):
    d = {"z": {"y": x, "x": x.sum()}, "a": [x, {"d": 1, "c": x}]}
    return [d, (d["z"], {"q": x, "p": (x,)})]


def dict_through_traced_branch(x):
    d = {"b": x, "a": x + 1}
    if x.sum() > 1:
        d = {"b": x - 1, "a": x * 3}
    return d


def dict_printed(x):
    d = {"b": x, "a": x + 1, 1: "one"}
    print(d)
    print(list(d))
    return d


def dict_defaultdict(x):
    d = collections.defaultdict(list)
    d["b"] = x
    d["a"] = x + 1
    return d


@pytest.mark.parametrize("fn", [dict_unsorted_keys, dict_mixed_keys, dict_nested_in_containers,
                                dict_through_traced_branch, dict_printed, dict_defaultdict])
def test_dict_order_one_graph(fn):
    check(fn, X, graphs=1)


@pytest.mark.parametrize("d", [{"b": X, "a": X + 1}, {"a": X, "b": X + 1}, {2: X, 1: X, "c": X}])
def test_dict_argument_keeps_order(d):
    check(dict_argument_order, d, graphs=1)


def test_dict_argument_order_changes_between_calls():
    def make():
        return dict_argument_order, None
    steps = [lambda f, w: f({"b": X, "a": X}), lambda f, w: f({"a": X, "b": X}), lambda f, w: f({"b": X, "a": X})]
    check_sequence(make, steps)


def dict_across_segments(x):
    d = {"b": x * 2, "a": {"y": x, "x": x + 1}}
    with open("/dev/null") as fh:   # runs in Python: d crosses the segment boundary both ways
        keys = list(d) + list(d["a"])
        fh.read()
    return {**d, "c": x.sum()}, keys


def test_dict_order_across_segments():
    e = check(dict_across_segments, X, full_graph=False)
    assert e.graph_count == 2 and len(e.fallback_sites) == 1


# ------------------------------------------- values answer Python's questions
def asks_about_array(x):
    s = np.sum(x)
    return (isinstance(x, np.ndarray), isinstance(x, jax.Array), type(x).__name__, type(x) is np.ndarray,
            x.__class__ is np.ndarray, isinstance(s, np.floating), isinstance(s, np.generic), isinstance(s, float),
            type(s).__name__, callable(x), hasattr(x, "at"), hasattr(x, "flags"), getattr(x, "at", None) is None,
            isinstance(x, (int, np.ndarray)), x is None, x is not None)


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_isinstance_and_type_of_arrays(x):
    check(asks_about_array, x, graphs=1)


def asks_about_python_number(x, n):
    m = n * 2
    return isinstance(m, int), isinstance(m, bool), type(m).__name__, type(m) is int, isinstance(n > 1, bool), x + m


def test_isinstance_and_type_of_traced_python_number():
    # static_values=0: the Python int argument is traced from the first call
    e = check(asks_about_python_number, X, 3, graphs=1, static_values=0)
    assert "py" in e.ir_text   # n is a traced value of Python kind


def piecewise(x):
    return np.piecewise(x, [x < 1, x >= 1], [lambda v: v * 2, lambda v: v + 1])


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_numpy_piecewise(x):
    check(piecewise, x, full_graph=False)


def formats_arrays(x):
    print(repr(x), str(x), format(x.sum(), ".2f"), f"{x!r}")
    print(repr(x.sum()), repr(x[0]))
    return x + 1


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_repr_str_format_print_eager_objects(x):
    check(formats_arrays, x, graphs=1)


def returns_str_of_array(x):
    return str(x), repr(x * 2)


def test_str_of_traced_value_returned():
    # formatted on the host per call, from the graph's outputs as eager's objects
    check(returns_str_of_array, N32, graphs=1)


def identity_of_arrays(x):
    y = np.asarray(x)
    return y is x


def test_is_between_traced_values_of_asarray():
    # np.asarray of an ndarray (same dtype, any order) is the ndarray itself, in eager and in the graph
    check(identity_of_arrays, N32, graphs=1)
    # of a jax.Array, a new ndarray: another kind of object, so certainly not x
    check(identity_of_arrays, X, graphs=1)


def hash_and_id(x):
    return hash(x.sum()), id(x) == id(x), len(dir(x))


def test_hash_id_dir_fall_back():
    e = check(hash_and_id, N32, full_graph=False)
    assert any("hash()" in c for c in causes(e))


def in_place_numpy_method(x):
    y = x * 2
    y.sort()
    return y


def in_place_numpy_put(x):
    y = x * 2
    y.put([0], 5.0)
    return y


def test_in_place_ndarray_method_falls_back():
    # y.put(...) writes into y: not modelled, it runs in Python
    e = check(in_place_numpy_put, N32[::-1].copy(), full_graph=False)
    assert any("in place" in c for c in causes(e))


def test_in_place_ndarray_sort_is_a_functional_update():
    # y.sort() writes the sorted values into y (numpy_inplace): one graph, y changed as eager changes it
    check(in_place_numpy_method, N32[::-1].copy())


def python_number_attribute(x, n):
    try:
        return (n * 2).shape
    except AttributeError as e:
        return str(e), x


def test_attribute_eager_object_lacks_falls_back():
    e = check(python_number_attribute, X, 3, full_graph=False, static_values=0)
    assert any("does not have" in c for c in causes(e))


def rounds(x):
    n = 0.0
    for i in range(20):
        n = n + 0.25
    s = np.sum(x)
    return round(n), round(s), round(s, 1), round(x.sum())


@pytest.mark.parametrize("x", [N32 + 0.3, X + 0.3], ids=["ndarray", "jax"])
def test_round_of_eager_kinds(x):
    check(rounds, x, graphs=1)


def builtins_follow_operands(x):
    return abs(-x), pow(x, 2), divmod(x, 2.0), sum([x, x])


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_numeric_builtins_keep_kinds(x):
    check(builtins_follow_operands, x, graphs=1)


# ---------------------------------------------------------- local functions
def asks_about_local_functions(x):
    def inner(y, a=1, *, b=2, c):
        "Doc of inner."
        return y

    g = lambda: 0   # noqa: E731
    return (callable(inner), callable(g), type(inner).__name__, type(g) is type(inner), inner.__name__, g.__name__,
            inner.__qualname__, g.__qualname__, inner.__doc__, g.__doc__, inner.__module__, inner.__defaults__,
            inner.__kwdefaults__, isinstance(inner, types.FunctionType), hasattr(inner, "__wrapped__"),
            inner == inner, inner is g, x * 2)


def test_local_function_answers_as_a_function():
    check(asks_about_local_functions, X, graphs=1)


def missing_function_attribute(x):
    f = lambda v: v   # noqa: E731
    try:
        return f.nope
    except AttributeError as e:
        return str(e), x


def test_local_function_missing_attribute_raises_eagers_error():
    check(missing_function_attribute, X, graphs=1)


def function_code(x):
    f = lambda v: v   # noqa: E731
    return f.__code__.co_name, x


def test_local_function_code_falls_back():
    e = check(function_code, X, full_graph=False)
    assert e.fallback_sites


def local_functions_called_by_builtins(x):
    order = sorted([3, 1, 2], key=lambda v: -v)
    best = max([(1, "a"), (3, "b")], key=lambda t: t[0])
    total = functools.reduce(lambda a, b: a + b, [x, x * 2, x * 3])
    doubled = list(map(lambda v: v * 2, [x, x + 1]))
    return order, best, total, doubled


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_builtins_call_local_functions_in_graph(x):
    check(local_functions_called_by_builtins, x, graphs=1)


def reduce_raises(x):
    try:
        r = functools.reduce(lambda a, b: a + b, [1, "a"])
    except TypeError as e:
        r = str(e)
    try:
        s = functools.reduce(lambda a, b: a + b, [1, 2, 3])
    except TypeError:
        s = 0
    return r, s, x


def test_exception_through_local_function_is_eagers():
    check(reduce_raises, X, graphs=1)


def filter_on_traced(x):
    return list(filter(lambda v: v.sum() > 0, [x, -x]))


def test_filter_on_traced_truth_falls_back():
    e = check(filter_on_traced, X + 1, full_graph=False)
    assert e.fallback_sites


def wraps_local(x):
    def inner(y):
        return y

    @functools.wraps(inner)
    def wrapper(y):
        return inner(y)

    return wrapper.__name__, wrapper.__wrapped__ is inner, wrapper(x)


def test_functools_wraps_on_local_function_falls_back():
    e = check(wraps_local, X, full_graph=False)
    assert e.fallback_sites


def def_in_python_statement(x):
    with open("/dev/null"):   # runs in Python: the def is a real function there
        def inner():
            return 1

        class Local:
            pass
    return inner.__qualname__, Local.__qualname__, (lambda: 0).__qualname__, x


def test_qualnames_in_interpreted_statement():
    check(def_in_python_statement, X, full_graph=False)


def prints_about_local_function(x):
    f = lambda: 0   # noqa: E731
    print(f.__name__, type(f), callable(f))
    return x


def prints_local_function(x):
    f = lambda: 0   # noqa: E731
    print(f)
    return x


def test_printing_a_local_function():
    check(prints_about_local_function, X, graphs=1)
    # the function itself prints with its address: eager's text differs from
    # run to run, so only its start is compared; it is printed from Python
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        e = explain(to_static(prints_local_function))(X)
    assert out.getvalue().startswith("<function prints_local_function.<locals>.<lambda> at 0x") and e.fallback_sites


def deferred_string_concat(x):
    msg = "x=" + str(x)
    msg += "!"
    print(msg)
    return x


def test_formatted_string_concatenation_printed():
    check(deferred_string_concat, N32, graphs=1)


def compare_deferred_string(x):
    s = str(x)
    return s == "[0. 1. 2.]"


def test_comparing_formatted_string_falls_back():
    e = check(compare_deferred_string, N32, full_graph=False)
    assert e.fallback_sites


def containers_of_values_compared(x):
    return [x] == [x], (x.sum(), 1) == (x.sum(), 1)


def test_containers_of_traced_values_compared():
    e = check(containers_of_values_compared, X, full_graph=False)
    assert e.fallback_sites   # x.sum() == x.sum(): the truth of a traced value


# ----------------------------------------------------- under a JAX transform
def is_tracer(x):
    return isinstance(x, jax.core.Tracer), isinstance(x, jax.Array), x * 2


def test_isinstance_under_outer_jit():
    from helpers import assert_same

    static = to_static(is_tracer)
    assert_same(is_tracer(X), static(X))
    eager = jax.jit(lambda x: is_tracer(x)[2] + is_tracer(x)[0])(X)
    converted = jax.jit(lambda x: static(x)[2] + static(x)[0])(X)
    assert_same(eager, converted)
    assert_same(is_tracer(X), static(X))


# ------------------------------------- kinds at segment boundaries, results
def writes_in_python(x):
    y = x * 2
    s = np.sum(x)
    with open("/dev/null"):   # runs in Python: y must be a writable ndarray, s a NumPy scalar
        y[0] = 5.0
        kinds = type(y).__name__, type(s).__name__, y.flags.writeable
    return y, s, kinds


def test_values_into_python_statement_have_eager_kinds():
    e = check(writes_in_python, N32, full_graph=False)
    assert e.graph_count == 2


def python_number_into_python(x, n):
    m = n * 2
    with open("/dev/null"):
        kind = type(m).__name__
    return kind, m, x


def test_traced_python_number_into_python_statement():
    check(python_number_into_python, X, 3, full_graph=False, static_values=0)


Point = collections.namedtuple("Point", "a b")


def structured_results(x):
    s = np.sum(x)
    return Point(x * 2, s), [s, (x.shape[0], float(x.shape[0]))], {"z": Point(1, x), "a": [x]}


@pytest.mark.parametrize("x", [N32, X], ids=["ndarray", "jax"])
def test_structured_results_keep_types_and_kinds(x):
    check(structured_results, x, graphs=1)


G = np.arange(3.0, dtype=np.float32)


def reads_numpy_global(x):
    y = G           # the caller's own array, as eager returns it
    return y, G * x, np.sum(G)


def writes_numpy_global_alias(x):
    y = G
    y[0] = x[1]     # a write into the global: must reach it
    return y


def test_numpy_global_keeps_kind_and_identity():
    check(reads_numpy_global, N32, graphs=1)
    assert to_static(reads_numpy_global)(N32)[0] is G


def test_write_into_numpy_global_reaches_it():
    # not a functional update of a graph input alone (the global would not change):
    # the graph's written version is copied into the global's array after the call
    # (mutation._capture_store), which the call returns, as eager's
    global G
    saved = G.copy()
    try:
        e = explain(to_static(writes_numpy_global_alias))(N32 + 7)
        assert G[0] == 8.0 and e.result is G and e.graph_count == 1 and not e.fallback_sites
        G = saved.copy()
        eager = writes_numpy_global_alias(N32 + 7)
        assert eager is G and G[0] == 8.0
    finally:
        G = saved


# ---------------------------------------- kinds that depend on the path taken
def kind_by_branch_not_observed(x):
    if x.sum() > 1:
        y = 0
    else:
        y = x.sum() * 2
    return x + y    # a jax.Array whichever y was


def kind_by_branch_returned(x):
    y = x[0] if x.sum() > 1 else 1.0
    return y


def accumulate_numpy(x):
    acc = 0
    for i in range(30):   # rolled: 30 iterations > the unroll limit
        acc = acc + x[i]
    return acc          # a NumPy scalar after one iteration or more


def accumulate_while(x):
    acc = 0.0
    i = 0
    while x[i] < 5:
        acc = acc + x[i]
        i += 1
    return acc          # a Python float if the loop never ran


def python_int_or_float(x):
    y = 0 if x.sum() > 1 else 1.5
    z = y * 2            # a Python number either way, of the same type as y
    return x * y, isinstance(y, int), z


@pytest.mark.parametrize("x", [X, -X], ids=["int", "float"])
def test_python_int_or_float_by_branch(x):
    # y's kind is carried by a run-time kind tag (pathkinds.py): one graph, eager's objects
    check(python_int_or_float, x, graphs=1)


@pytest.mark.parametrize("x", [X, -X], ids=["pos", "neg"])
def test_kind_by_branch_not_observed_one_graph(x):
    check(kind_by_branch_not_observed, x, graphs=1)


@pytest.mark.parametrize("x", [N32, -N32 - 1], ids=["pos", "neg"])
def test_kind_by_branch_returned_one_graph(x):
    check(kind_by_branch_returned, x, graphs=1)   # the host picks eager's object by the kind tag


def test_rolled_loop_with_static_count_has_body_kind():
    e = check(accumulate_numpy, np.arange(40.0, dtype=np.float32), graphs=1)
    assert ("for", "lax.fori_loop") in [(d.construct, d.mode) for d in e.decisions]


@pytest.mark.parametrize("x", [np.arange(40.0, dtype=np.float32), np.arange(40.0, dtype=np.float32) + 10],
                         ids=["runs", "never"])
def test_while_loop_changing_kind_one_graph(x):
    check(accumulate_while, x, graphs=1)   # a Python float if the loop never ran: the kind tag says so


# ------------------------------------------------------------ library code
def assert_same_kinds(eager, converted, rtol=1e-5):
    """Structure and the kind of every leaf exact, values close; dtypes may
    differ (64-bit NumPy data runs in 32 bits until the x64 work lands)."""
    from helpers import _kind

    le, te = jax.tree_util.tree_flatten(eager)
    lc, tc = jax.tree_util.tree_flatten(converted)
    assert te == tc, (te, tc)
    assert [_kind(a) for a in le] == [_kind(b) for b in lc], (eager, converted)
    for a, b in zip(le, lc):
        np.testing.assert_allclose(np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64), rtol=rtol, atol=1e-6)


def check_kinds(fn, *args):
    import copy

    eager = fn(*copy.deepcopy(args))
    e = explain(to_static(fn))(*copy.deepcopy(args))
    assert_same_kinds(eager, e.result)
    assert_same_kinds(eager, to_static(fn)(*copy.deepcopy(args)))
    return e


RNG = np.random.RandomState(0)
M32 = RNG.rand(4, 3).astype(np.float32)
M64 = M32.astype(np.float64)


def test_sklearn_softmax():
    extmath = pytest.importorskip("sklearn.utils.extmath")
    check(extmath.softmax, M32, graphs=1)   # float32 in, float32 out: exact; get_namespace(X), np.exp(X, out=...) in the graph
    check_kinds(extmath.softmax, M64)                    # float64: kinds exact, dtype needs the x64 work


def test_sklearn_incremental_mean_and_var():
    extmath = pytest.importorskip("sklearn.utils.extmath")
    for X_ in (M32, M64):   # sklearn accumulates in float64: dtypes need the x64 work, kinds are exact
        e = check_kinds(extmath._incremental_mean_and_var, X_, np.zeros(3), np.zeros(3), np.zeros(3))
        assert e.graph_count >= 1


def test_scipy_integrate():
    integrate = pytest.importorskip("scipy.integrate")
    y = M32[0]
    check(integrate.simpson, y, full_graph=False, rtol=1e-4)   # a NumPy float32 scalar, as eager
    check(integrate.trapezoid, y, full_graph=False, rtol=1e-4)
    check_kinds(integrate.simpson, M64[0])            # np.float64 in eager: the kind is exact, the dtype needs x64


def test_scipy_optimize_scalar():
    optimize = pytest.importorskip("scipy.optimize")
    f = lambda v: (v - 2.0) ** 2   # noqa: E731
    check(optimize.brent, f, full_graph=False)        # the result read from the OptimizeResult: eager's own np.float64
    check(optimize.golden, f, full_graph=False)
    check_kinds(optimize.newton, lambda v: v ** 2 - 2.0, 1.0)


def local_function_in_lazy_objects(x):
    g = functools.partial(lambda a, b: a + b, 1)
    m = map(lambda v: v + 1, [1, 2])
    with open("/dev/null"):   # runs in Python: g and m must hold real functions
        out = g(2), list(m)
    return out, x


def test_partial_and_map_of_local_function_cross_into_python():
    e = check(local_function_in_lazy_objects, X, full_graph=False)
    assert any("nested function escapes" in c for c in causes(e))


def equinox_on_numpy(model, x):
    return model(x) * 2


def test_library_module_on_numpy_input_kind():
    eqx = pytest.importorskip("equinox")
    lin = eqx.nn.Linear(3, 2, key=jax.random.PRNGKey(0))
    check(equinox_on_numpy, lin, N32, graphs=1)


def zero_d_numpy(x, c):
    a = np.asarray(c * 2.0)
    b = np.zeros(()) + x.sum()
    return a, b, np.array(x.sum())


def test_zero_d_numpy_arrays_are_arrays_not_scalars():
    check_sequence(lambda: (zero_d_numpy, None),
                   [lambda f, _, c=c: f(np.arange(3.0), c) for c in (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)], full_graph=False)
