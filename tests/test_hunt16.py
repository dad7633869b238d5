"""h-hunt16: silent wrong results found by probing realistic programs
(attribute lookups that change between calls, NumPy's operators called by
name, comparison chains of arrays), each compared with eager over calls whose
state or data differ."""

from __future__ import annotations

import numpy as np

from helpers import check_calls, check_sequence


# ------------------------------------------- a user __getattr__ answering, then an attribute of the object's own
class _Lazy:
    def __init__(self):
        self.calls = 0

    def __getattr__(self, name):
        if name.startswith("w_"):
            self.calls += 1
            return float(len(name))
        raise AttributeError(name)


def test_an_attribute_answered_by_getattr_is_guarded_until_the_object_or_its_class_gets_it():
    def make():
        lazy = _Lazy()

        def scaled(x):
            return x * lazy.w_abc + getattr(lazy, "nope", 7.0)
        return scaled, lazy

    def plain(f, lazy):
        return f(np.arange(3.0)), lazy.calls

    def own(f, lazy):
        lazy.w_abc = 100.0
        return plain(f, lazy)

    def dropped(f, lazy):
        del lazy.w_abc
        return plain(f, lazy)

    def on_class(f, lazy):
        _Lazy.w_abc = 1.5
        return plain(f, lazy)

    def off_class(f, lazy):
        del _Lazy.w_abc
        return plain(f, lazy)

    check_sequence(make, [plain, plain, own, dropped, on_class, off_class, plain])


def test_a_guard_on_an_attribute_does_not_run_the_users_getattr_once_it_is_gone():
    def make():
        lazy = _Lazy()
        lazy.w_q = 3.0

        def scaled(x):
            return x * lazy.w_q
        return scaled, lazy

    def plain(f, lazy):
        return f(np.arange(3.0)), lazy.calls

    def dropped(f, lazy):
        del lazy.w_q
        return plain(f, lazy)

    check_sequence(make, [plain, dropped, plain])


# ------------------------------------------- divmod and NumPy's operators called by name
def test_divmod_of_numpy_integers_by_zero_is_numpys():
    def split(x, y):
        return divmod(x, y), divmod(x[0], y[0])

    with np.errstate(divide="ignore"):
        check_calls(split, [(np.array([7, -7, 0]), np.array([0, 0, 0])),
                            (np.array([7, -7, 5], dtype=np.int32), np.array([2, -2, 0], dtype=np.int32))])


def test_an_ndarrays_operator_methods_called_by_name_are_numpys_operators():
    def by_name(x, y):
        return x.__floordiv__(y), x.__mod__(y), y.__rfloordiv__(x), x.__divmod__(y), x.__lt__(y)

    def negative_power(x, y):
        return x.__pow__(-y)

    with np.errstate(divide="ignore"):
        check_calls(by_name, [(np.array([7, -7, 0]), np.array([0, 0, 1]))])
    check_calls(negative_power, [(np.array([7, -7, 0]), np.array([0, 0, 1])), (np.array([2, 3]), np.array([0, 0]))])


# ------------------------------------------- a comparison chain of 1-element arrays
def test_a_comparison_chain_of_one_element_arrays_gives_the_deciding_array():
    def between(lo, x, hi):
        return lo < x < hi

    one = np.array([1.0])
    check_calls(between, [(one, np.array([2.0]), np.array([1.5])), (one, np.array([2.0]), np.array([3.0])),
                          (np.array([3.0]), np.array([2.0]), np.array([3.0]))])


# ------------------------------------------- getattr with a default, hasattr: the answer guarded
class _Options:
    def __init__(self):
        self.lr = 0.5


def _options_steps():
    def plain(f, opts):
        return f(np.ones(2))

    def set_flag(f, opts):
        opts.nesterov = True
        return plain(f, opts)

    def clear_flag(f, opts):
        opts.nesterov = False
        return plain(f, opts)

    def drop_flag(f, opts):
        del opts.nesterov
        return plain(f, opts)

    def on_class(f, opts):
        _Options.nesterov = True
        return plain(f, opts)

    def off_class(f, opts):
        del _Options.nesterov
        return plain(f, opts)

    return [plain, set_flag, clear_flag, drop_flag, on_class, off_class, plain]


def test_getattr_with_a_default_is_guarded_until_the_caller_sets_the_attribute():
    def make():
        opts = _Options()

        def step(g):
            if getattr(opts, "nesterov", False):
                return g * 2
            return g * opts.lr
        return step, opts

    check_sequence(make, _options_steps())


def test_hasattr_is_guarded_on_the_objects_class_too():
    def make():
        opts = _Options()

        def step(g):
            return g * 2 if hasattr(opts, "nesterov") else g
        return step, opts

    check_sequence(make, _options_steps())


# ------------------------------------------- an exception a handler takes at trace time: its cause guarded
def test_an_attribute_error_taken_by_a_handler_is_guarded_until_the_attribute_is_set():
    def make():
        opts = _Options()

        def step(g):
            try:
                s = opts.scale
            except AttributeError:
                s = 1.0
            return g * s
        return step, opts

    def plain(f, opts):
        return f(np.ones(2))

    def set_scale(f, opts):
        opts.scale = 3.0
        return plain(f, opts)

    def drop_scale(f, opts):
        del opts.scale
        return plain(f, opts)

    check_sequence(make, [plain, set_scale, drop_scale])


def test_a_key_error_taken_by_a_handler_is_guarded_until_the_key_is_added():
    def make():
        cache = {}

        def cached(g, key):
            try:
                w = cache[key]
            except KeyError:
                w = cache[key] = g * 2
            return w + g
        return cached, cache

    def first(f, cache):
        return f(np.ones(2), "a")

    def again(f, cache):
        return f(np.ones(2) * 3, "a")

    def cleared(f, cache):
        cache.clear()
        return again(f, cache)

    check_sequence(make, [first, again, cleared])


# ------------------------------------------- a Python number that leaves a segment twice is one object
def test_a_python_number_leaving_a_segment_twice_stays_one_object():
    def first_is_first(x):
        lst = x.tolist()
        v = lst[0]
        m = {float(x[1]): 1}   # (a traced key: the statement runs in Python, after the segment)
        return v is lst[0], lst.count(v), m

    check_calls(first_is_first, [(np.array([np.nan, 1.0]),), (np.array([2.0, 1.0]),)], full_graph=False)


# ------------------------------------------- list.count / list.index through a user __eq__
class _Box:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return bool((self.v == other.v).all())

    __hash__ = None


def test_list_count_and_index_call_the_users_eq_as_eager_does():
    def counted(x):
        a = _Box(x)
        return [a].count(_Box(x + 0))

    def found(x):
        a = _Box(x)
        return [_Box(x * 2), a].index(_Box(x + 0))

    check_calls(counted, [(np.arange(3.0),), (np.zeros(2),)], full_graph=False)
    check_calls(found, [(np.arange(3.0),), (np.zeros(2),)], full_graph=False)


# ------------------------------------------- a user protocol method with an effect, run by a builtin
class _Loud:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        print("compared")
        return self.v < other.v

    def __repr__(self):
        print("shown")
        return f"_Loud({self.v})"


class _Quiet:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v < other.v


def test_a_builtin_running_a_users_protocol_method_with_an_effect_runs_it_on_every_call():
    def smallest(x):
        return x * sorted([_Loud(2.0), _Loud(1.0)])[0].v

    def shown(x):
        return repr(_Loud(1.0)), f"{_Loud(2.0)!r}", x

    def held(x):
        return x * min([_Loud(x[0]), _Loud(x[1])]).v   # (objects holding traced values: never traced through)

    check_calls(smallest, [(np.arange(3.0),), (np.ones(2),)], full_graph=False)
    check_calls(shown, [(np.arange(3.0),), (np.ones(2),)], full_graph=False)
    check_calls(held, [(np.arange(3.0),), (np.ones(2),)], full_graph=False)


def test_a_pure_protocol_method_still_runs_at_trace_time():
    def smallest(x):
        return x * sorted([_Quiet(2.0), _Quiet(1.0)])[0].v

    check_calls(smallest, [(np.arange(3.0),), (np.ones(2),)])
