"""The wrappers libraries put around their numerics, converted and judged by
analysis rather than refused by a list: ``inspect.signature``/``bind`` (a
user's ``validate`` decorator, scikit-learn's ``validate_params``), reads of
interpreter state (``sys.getrecursionlimit``), a ``@contextmanager`` that
sets a module-level config and restores it (scikit-learn's
``config_context``), ``warnings.warn`` as an ordered host effect issued with
eager's category, file, line and registry, ``set()`` of a dict's keys, and
``inspect.getattr_static`` of a traced value; each against eager."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import os
import sys
import warnings

import numpy as np
import pytest

from ast2graph import explain, to_static
from tests.helpers import assert_same, check, check_sequence

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fixtures", "site-packages"))
import fakewrap  # noqa: E402 - a stand-in library (its files are not the user's)

X = np.arange(6.0).reshape(2, 3) + 0.5
V = np.linspace(-1.0, 2.0, 5)


def _site_files(e) -> set[str]:
    return {s.loc.file.rsplit("/", 1)[-1] for s in e.fallback_sites}


# ------------------------------------------------------------------ inspect
def validate(fn):
    """A user's validating decorator: the signature read once, bound per call."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            if name == "scale" and not isinstance(value, (int, float)):
                raise TypeError(f"{name} must be a number, not {type(value).__name__}")
        return fn(*bound.args, **bound.kwargs)

    return wrapper


@validate
def scaled(x, scale=2.0, *, shift=0.0):
    return x * scale + shift


def test_validate_decorator_with_bound_signature_is_one_graph():
    check(lambda x: scaled(x, 3.0) + scaled(x, shift=1.0), X, graphs=1)


def test_validate_decorator_raises_eagers_errors():
    check(lambda x: scaled(x, "3"), X, full_graph=False)     # the decorator's own TypeError
    check(lambda x: scaled(x, 1.0, 2.0), X, full_graph=False)   # bind's TypeError: too many positional arguments


def checked(fn):
    """Signature looked up on every call, with the recursion limit read as
    ``inspect.unwrap`` and scikit-learn's validation read it."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        params = inspect.signature(fn).bind(*args, **kwargs)
        params.apply_defaults()
        depth = sys.getrecursionlimit()
        kinds = [p.kind for p in inspect.signature(fn).parameters.values()]
        return fn(*params.args, **params.kwargs), depth > 0, len(kinds)
    return wrapper


@checked
def weighted(x, w=0.5):
    return (x * w).sum()


def test_signature_per_call_and_recursion_limit_are_one_graph():
    check(lambda x: weighted(x), X, graphs=1)


def test_changed_defaults_respecialise():
    def make():
        def inner(x, w=0.5):
            return x * w
        return checked(inner), inner

    def call(new_defaults=None):
        def step(fn, inner):
            if new_defaults is not None:
                inner.__defaults__ = new_defaults
            return fn(X)
        return step

    check_sequence(make, [call(), call(), call((2.0,)), call()], recompiles=1)


def test_recursion_limit_is_guarded():
    def make():
        def f(x):
            return x * 2 if sys.getrecursionlimit() > 5000 else x - 1
        return f, None

    old = sys.getrecursionlimit()

    def call(limit):
        def step(fn, world):
            sys.setrecursionlimit(limit)
            return fn(X)
        return step

    try:
        check_sequence(make, [call(6000), call(6000), call(3000)], recompiles=1)
    finally:
        sys.setrecursionlimit(old)


class Options:
    def __init__(self, scale=2.0, shift=0.0):
        self.scale, self.shift = scale, shift


def test_signature_of_a_class_partial_and_method_are_guarded():
    def make():
        Options.__signature__ = inspect.signature(Options.__init__).replace(parameters=[])

        def f(x):
            names = list(inspect.signature(Options).parameters)
            bound = list(inspect.signature(functools.partial(scaled, scale=3.0)).parameters)
            method = list(inspect.signature(Options().__init__).parameters)
            return x * len(names), bound, method
        return f, None

    def call(signature=None):
        def step(fn, world):
            if signature is not None:
                Options.__signature__ = signature
            return fn(X)
        return step

    try:
        check_sequence(make, [call(), call(), call(inspect.signature(Options.__init__)), call()], recompiles=1)
    finally:
        del Options.__signature__


def with_axis(fn):
    """A decorator adding a keyword parameter to the wrapped function's
    signature (the shape of SciPy's ``_axis_nan_policy``)."""
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        axis = kwargs.pop("axis", 0)
        return fn(*args, **kwargs).sum(axis=axis)

    extra = inspect.Parameter("axis", inspect.Parameter.KEYWORD_ONLY, default=0)
    wrapper.__signature__ = sig.replace(parameters=params + [extra])
    return wrapper


@with_axis
def squares(x):
    return x * x


def test_parameter_and_signature_built_at_trace_time():
    def f(x):
        sig = inspect.signature(squares)
        p = inspect.Parameter("w", inspect.Parameter.KEYWORD_ONLY, default=1.0)
        names = list(sig.replace(parameters=[*sig.parameters.values(), p]).parameters)
        return squares(x, axis=1), names
    check(f, X, graphs=1)


def test_getattr_static_of_traced_value():
    missing = object()

    def f(x):
        y = x * 2
        has_dict = inspect.getattr_static(y, "__dict__", missing) is not missing
        has_shape = inspect.getattr_static(y, "shape", missing) is not missing
        return y, has_dict, has_shape
    check(f, X, graphs=1)


# ------------------------------------------- Python functions of "effectful" modules
def test_python_function_of_an_effectful_module_is_converted():
    import logging

    e = check(lambda x: (x * 2, logging.getLevelName(logging.INFO)), X, graphs=1)
    assert not e.fallback_sites


def test_random_shuffle_is_converted_until_its_rng_call():
    import random

    def make():
        rng = random.Random(0)

        def f(x):
            order = [0, 1, 2]
            rng.shuffle(order)
            return x[0, order[0]], order
        return f, rng

    def step(fn, rng):
        return fn(X), rng.getstate()

    static = check_sequence(make, [step, step, step], full_graph=False)
    e = explain(static)(X)
    assert any("getrandbits" in s.cause for s in e.fallback_sites)   # the C call with the effect, not shuffle


# ----------------------------------------------------------- interpreter state
CONTEXT = contextvars.ContextVar("CONTEXT", default=1.0)


def test_context_variable_read_is_guarded():
    def make():
        CONTEXT.set(1.0)
        return (lambda x: x * CONTEXT.get()), None

    def call(value=None):
        def step(fn, world):
            if value is not None:
                CONTEXT.set(value)
            return fn(X)
        return step

    check_sequence(make, [call(), call(), call(3.0), call()], recompiles=1)


# ------------------------------------------------------------------ config
_CONFIG = {"skip": False, "scale": 2.0}


def get_config():
    return _CONFIG.copy()


def set_config(skip=None, scale=None):
    if skip is not None:
        _CONFIG["skip"] = skip
    if scale is not None:
        _CONFIG["scale"] = scale


@contextlib.contextmanager
def config_context(**changes):
    old = get_config()
    set_config(**changes)
    try:
        yield
    finally:
        set_config(**old)


def scaled_by_config(x):
    if get_config()["skip"]:
        return x
    return x * get_config()["scale"]


def configured(x):
    with config_context(scale=3.0, skip=False):
        inner = scaled_by_config(x)
    return inner + scaled_by_config(x), get_config()


def test_config_context_is_one_graph():
    check(configured, X, graphs=1)


def test_config_context_sees_the_callers_config():
    def make():
        _CONFIG.update(skip=False, scale=2.0)
        return configured, None

    def call(**changes):
        def step(fn, world):
            _CONFIG.update(changes)
            out = fn(X)
            return out, dict(_CONFIG)
        return step

    check_sequence(make, [call(), call(), call(scale=5.0), call(skip=True), call()], recompiles=3)


def test_config_left_changed_after_the_call():
    def make():
        _CONFIG.update(skip=False, scale=2.0)

        def f(x):
            set_config(scale=4.0)
            return scaled_by_config(x), len(get_config()), dict(_CONFIG)
        return f, None

    def step(fn, world):
        return fn(X), dict(_CONFIG)

    check_sequence(make, [step, step])


LOG: list = []


def test_outside_list_read_after_an_append():
    def make():
        LOG.clear()

        def f(x):
            LOG.append(x.shape[0])
            LOG.append(x.sum())   # traced: len(LOG) is known, LOG.count(2) would compare it
            return x * len(LOG), sorted(LOG[:1]) if False else len(list(LOG))
        return f, None

    def step(fn, world):
        out = fn(X)
        return out, len(LOG)

    check_sequence(make, [step, step, step])


class Settings:
    """A class-based manager of a module-level config, as libraries write them."""

    def __init__(self, **changes):
        self.changes = changes

    def __enter__(self):
        self.old = get_config()
        set_config(**self.changes)
        return self

    def __exit__(self, *exc):
        set_config(**self.old)
        return False


def test_class_manager_setting_config_is_one_graph():
    def f(x):
        with Settings(scale=0.5):
            y = scaled_by_config(x)
        return y, get_config()["scale"]
    check(f, X, graphs=1)


# ----------------------------------------------------------------- warnings
def noisy_helper(x):
    warnings.warn("helper was called", RuntimeWarning, stacklevel=2)
    return x * 2


def noisy(x):
    warnings.warn(f"total is {x.sum():.2f}")
    y = noisy_helper(x)
    warnings.warn("done", DeprecationWarning)
    return y + 1


def _records(fn, action, calls=2):
    """What ``calls`` calls of ``fn`` warn under the filter ``action``, as
    (message, category, file, line, source line), and what they return or raise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        results = []
        for _ in range(calls):
            try:
                results.append(fn(X))
            except Exception as e:  # noqa: BLE001 - compared below
                results.append((type(e), str(e)))
    seen = [(str(w.message), w.category, w.filename, w.lineno, w.line) for w in caught]
    return seen, results


def _same_records(eager, converted):
    assert converted[0] == eager[0]
    assert len(converted[1]) == len(eager[1])
    for e, c in zip(eager[1], converted[1]):
        if isinstance(e, tuple):
            assert c == e
        else:
            assert_same(e, c)


@pytest.mark.parametrize("action", ["always", "default", "once", "module", "ignore", "error"])
def test_warnings_as_eager_issues_them(action):
    _same_records(_records(noisy, action), _records(to_static(noisy), action))


def warns_in_branches_and_loops(x):
    if x.sum() > 10:
        warnings.warn(f"large sum {x.sum():.1f}", RuntimeWarning)
    else:
        warnings.warn("small sum")
    for i in range(30):   # rolled
        if x[0, 0] * i > 40:
            warnings.warn("late iteration")
        x = x + 1
    return x


@pytest.mark.parametrize("action", ["always", "default", "once"])
@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_warnings_under_traced_conditions_and_in_rolled_loops(action, scale):
    _same_records(_records(lambda x: warns_in_branches_and_loops(x * scale), action),
                  _records(to_static(lambda x: warns_in_branches_and_loops(x * scale)), action))


def test_warning_is_a_host_callback_in_one_graph():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(to_static(noisy, full_graph=True))(X)
    assert e.graph_count == 1 and not e.fallback_sites
    assert sum("warnings.warn" in d.reason for d in e.decisions) == 3


def test_warning_filter_changed_between_calls():
    def scenario(fn):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(X)
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises(RuntimeWarning) as raised:
                fn(X)
        return [(str(w.message), w.category, w.lineno) for w in caught], str(raised.value)

    assert scenario(to_static(noisy)) == scenario(noisy)


def warns_under_catch(x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn("inside")
    return x + len(caught)


@pytest.mark.parametrize("action", ["error", "ignore"])
def test_warning_inside_catch_warnings_as_eager(action):
    _same_records(_records(warns_under_catch, action), _records(to_static(warns_under_catch), action))


def warns_in_a_quiet_block(x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # scipy's zscore: this block's filters
        warnings.warn("ignored in the block")
        warnings.warn("shown", RuntimeWarning)
        y = x * 2
    warnings.warn("shown after the block")
    return y


@pytest.mark.parametrize("action", ["default", "always", "error"])
def test_warning_under_a_blocks_own_filters(action):
    _same_records(_records(warns_in_a_quiet_block, action, calls=3),
                  _records(to_static(warns_in_a_quiet_block), action, calls=3))


def test_warning_under_a_blocks_own_filters_is_one_graph():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(to_static(warns_in_a_quiet_block, full_graph=True))(X)
    assert e.graph_count == 1


def warns_at_callers_caller(x):
    warnings.warn("too far", UserWarning, stacklevel=3)
    return x


def warns_at_the_caller_when_positive(x):
    return _checks_total(x) * 2


def _checks_total(x):
    if x.sum() > 0:   # a traced condition: the warning is issued on the host, on the calls that warn
        warnings.warn(f"positive total {x.sum()}", RuntimeWarning, stacklevel=3)
    return x + 1


@pytest.mark.parametrize("fn", [warns_at_callers_caller, warns_at_the_caller_when_positive])
@pytest.mark.parametrize("action", ["always", "default", "once", "module", "ignore", "error"])
def test_warning_from_a_frame_outside_the_converted_code(fn, action):
    # scipy.stats' "Precision loss" warning names the caller of the caller: the frame is found when the
    # graph runs (the file, line and module registry eager's warn takes), so the filters see eager's warning
    _same_records(_records(fn, action, calls=3), _records(to_static(fn), action, calls=3))


def test_warning_from_a_frame_outside_the_converted_code_is_one_graph():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = check(warns_at_the_caller_when_positive, X)
    assert e.graph_count == 1


def filters_in_a_block(x):
    warnings.warn("shown once per location, until the filters change")
    with warnings.catch_warnings():
        # the block's own filters (scikit-learn's check_array makes ComplexWarning an error; a RuntimeWarning
        # error would make x * 2 of NumPy values raise on overflow, which a graph op cannot: it falls back)
        warnings.simplefilter("error", np.exceptions.ComplexWarning)
        y = x * 2
    return y


@pytest.mark.parametrize("action", ["default", "once", "always"])
def test_filters_changed_in_a_catch_warnings_block(action):
    # eager's catch_warnings changes the filters' version: a "default" warning shows again on every call
    _same_records(_records(filters_in_a_block, action, calls=3), _records(to_static(filters_in_a_block), action, calls=3))


def test_filters_changed_in_a_catch_warnings_block_is_one_graph():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = explain(to_static(filters_in_a_block, full_graph=True))(X)
    assert e.graph_count == 1


# --------------------------------------------------------------- generators
def _plugins(v):
    for p in ():   # none installed: the consumer's body never runs
        yield p


def _converted(v):
    for plugin in _plugins(v):
        SEEN.append(plugin)   # an effect between items, if there were any
        yield plugin
    if v.sum() > 1e9:
        raise ValueError("never checked: eager stops at the first yield")
    yield v * 2


def first_item(x):
    return next(_converted(x), None), next(_plugins(x), "none")


SEEN: list = []


def test_next_of_a_library_style_generator_is_one_graph():
    check(first_item, X, graphs=1)


def first_under_handler(x):
    def gen():
        try:
            yield x
        except GeneratorExit:
            SEEN.append("closed")
            raise
    return next(gen()) + 1


def test_next_of_a_generator_that_sees_generator_exit_falls_back():
    e = check(first_under_handler, X, full_graph=False)
    assert any("GeneratorExit" in s.cause for s in e.fallback_sites)


def static_truth_of_and(x, policy="propagate"):
    has_nan = [bool(np.isnan(x).any())]
    if any(has_nan) and policy == "omit":   # never taken: `traced and False` is falsy whatever it holds
        x = x[~np.isnan(x)]                  # (a data-dependent shape, which the graph could not hold)
    if any(has_nan) or policy == "propagate":   # always taken
        x = x + 1
    return x


def test_traced_and_static_false_is_static():
    check(static_truth_of_and, X, graphs=1)
    check(static_truth_of_and, X, "omit", full_graph=False)


def test_library_class_made_from_traced_values_is_converted():
    check(lambda x: fakewrap.at(x * 2, 0).set(x[1]), X, graphs=1)


# ------------------------------------------------------------------ builtins
def keys_of_traced(x, *rest, **named):
    given = dict(zip(["a", "b"], (x, *rest)))
    overlap = set(given) & set(named)
    return x + len(overlap), frozenset(named) == {"c"}


def test_set_of_dict_keys_holding_traced_values():
    check(keys_of_traced, X, kwargs={"c": X}, graphs=1)


def test_set_of_traced_values_falls_back():
    def f(x):
        return len(set([x.sum(), x.max()]))
    check(f, X, full_graph=False)


def test_membership_error_is_eagers():
    def f(x):
        try:
            found = "unique" in x.dtype.metadata
        except TypeError:
            found = None
        return x * 2, found
    check(f, X, graphs=1)


# ----------------------------------------------- a library's own wrappers
def uses_library_config(x):
    with fakewrap.config_context(scale=0.25):
        inner = fakewrap.scaled(x)
    return inner + fakewrap.scaled(x), fakewrap.get_config()


def test_library_config_context_is_one_graph():
    check(uses_library_config, X, graphs=1)


def test_library_config_set_between_calls():
    def make():
        fakewrap.set_config(scale=2.0, check=True)
        return uses_library_config, None

    def call(**changes):
        def step(fn, world):
            fakewrap.set_config(**changes)
            return fn(X), fakewrap.get_config()
        return step

    check_sequence(make, [call(), call(), call(scale=3.0), call(check=False), call()], recompiles=3)


def test_relative_import_inside_a_library_function():
    e = check(lambda x: fakewrap.scaled(x) * 2, X, graphs=1)
    assert not e.fallback_sites


def test_relative_import_of_a_module_not_imported_yet_runs_in_python():
    sys.modules.pop("fakewrap._late", None)
    vars(fakewrap).pop("_late", None)
    e = explain(to_static(fakewrap.late_triple))(X)   # the first call imports it (eager's effect), in Python
    assert [s.code.code for s in e.fallback_sites] == ["A2G002"]
    assert_same(fakewrap.late_triple(X), e.result)
    assert sys.modules["fakewrap._late"].LOADS == ["loaded"]   # imported once, as eager imports it
    check(fakewrap.late_triple, X, graphs=1)   # imported now: a read


def calls_library_that_warns(x):
    return fakewrap.warns_for_caller(x) * 2


@pytest.mark.parametrize("action", ["always", "default", "error"])
def test_library_warning_names_the_callers_line(action):
    _same_records(_records(calls_library_that_warns, action), _records(to_static(calls_library_that_warns), action))


# ------------------------------------------------------- the function's own **kwargs
def own_kwargs(x, **kwds):
    kwds.update({"scale": x.sum()})   # scipy's _axis_nan_policy: kwds.update(d_args), then kwds.pop(...)
    data = x.tolist()                 # runs in Python: the dict changed above must reach it
    scale = kwds.pop("scale")
    extra = kwds.pop("extra", 1.0)
    helper = lambda: len(kwds)        # noqa: E731 - kwds is a cell variable
    return x * scale * extra, data, helper(), kwds


def test_own_kwargs_changed_in_place_then_read_in_python():
    check(own_kwargs, X, full_graph=False)
    check(own_kwargs, X, kwargs={"extra": 2.0, "other": 3}, full_graph=False)


def test_own_kwargs_changed_in_place_is_one_graph():
    def f(x, **kwds):
        kwds.update({"axis": 0})
        axis = kwds.pop("axis")
        return x.sum(axis=axis), kwds
    check(f, X, graphs=1)
    check(f, X, kwargs={"keep": True}, graphs=1)


# ----------------------------------------------------------- more builtins
def unpacks_map(b, a):
    b, a = map(np.atleast_1d, (b, a))
    first, *rest = map(lambda v: v * 2, (a, b, a))
    return b * a.sum(), first, rest, max(*map(np.sum, (a, b)))


def test_map_unpacked_where_it_is_made():
    check(unpacks_map, X[0], X[1, :2], graphs=1)


def test_iter_of_traced_values():
    def f(x):
        rows = iter(x)
        first = next(rows)
        try:
            iter(x.sum())
            scalar_iterable = True
        except TypeError:
            scalar_iterable = False
        return first, next(rows), scalar_iterable, np.iterable(x), np.iterable(x[0, 0])
    check(f, X, graphs=1)


def test_rows_of_an_array_made_here_written_in_place():
    def f(x):
        shapes = [x.shape, (1,)]
        n_dims = max([len(shape) for shape in shapes])
        new_shapes = np.ones((len(shapes), n_dims), dtype=int)
        for row, shape in zip(new_shapes, shapes):
            row[len(row) - len(shape):] = shape
        return x * new_shapes[1, -1], new_shapes.tolist()
    check(f, X, graphs=1)


def test_slice_of_a_list_made_here_is_its_own():
    def f(x, *more):
        args = list((x, *more))
        arrays, rest = args[:2], args[2:]
        arrays[0] = arrays[0] * 2
        rest.append(1.0)
        return arrays, rest, args
    check(f, X, X, 3.0, graphs=1)


# ------------------------------------------------------------------ libraries
@pytest.mark.parametrize("name", ["accuracy_score", "r2_score", "mean_squared_error"])
def test_sklearn_validate_params_wrapper_is_converted(name):
    metrics = pytest.importorskip("sklearn.metrics")
    fn = getattr(metrics, name)
    y = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    p = np.array([0.0, 1.0, 0.0, 0.0, 1.0])
    e = check(fn, y, p, full_graph=False)
    # what remains is the numerics', not the wrapper's
    assert not _site_files(e) & {"_param_validation.py", "inspect.py", "_config.py", "contextlib.py"}, \
        [str(s) for s in e.fallback_sites]
