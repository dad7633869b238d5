"""h-hunt15: silent wrong results found by probing realistic programs (random
state, formatting, containers, generators, control flow, in-place NumPy
writes), each compared with eager over calls whose data differ."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from helpers import check, check_sequence


def _calls(fn, *inputs, full_graph=True):
    """``fn(np.array(x))`` against eager for each ``x`` in turn (one converted function)."""
    def make():
        return fn, None
    return check_sequence(make, [lambda f, w, x=x: f(np.array(x)) for x in inputs], full_graph=full_graph)


# ------------------------------------------- an exit under a traced condition in `finally:`
def first_big_logged(x):
    log = []
    for v in x:
        try:
            if v > 1.5:
                break
        finally:
            log.append(v)
            if v == 2.0:
                continue   # (discards the pending break only where it runs)
    return log


def retry_until(x):
    n = 0
    for v in x:
        try:
            n += 1
            if v > 1:
                return n
        finally:
            if v > 2:
                break   # (discards the pending return only where it runs)
    return -n


def settle(x):
    try:
        if x[0] > 0:
            return 1
        y = 2
    finally:
        if x[1] > 0:
            return 3
    return y


def test_a_traced_exit_in_finally_keeps_the_pending_break_where_it_is_not_taken():
    # the break of the body was dropped on every path once `finally:` held a traced `continue`
    _calls(first_big_logged, [1.0, 2.0, 3.0], [0.0, 3.0, 1.0], [2.0, 5.0, 1.0])


def test_a_traced_exit_in_finally_keeps_the_pending_return_where_it_is_not_taken():
    _calls(retry_until, [-1.0, 1.5, 3.0], [0.5, 3.0, 1.0], [3.0, 2.0, 0.0])
    _calls(settle, [1.0, -1.0], [1.0, 1.0], [-1.0, -1.0])
    check(settle, np.array([1.0, -1.0]), full_graph=True, graphs=1)


# ------------------------------------------- an object of a class with its own __new__, made in the function
@dataclasses.dataclass
class _Options:
    tags: list = dataclasses.field(default_factory=list)
    scale: float = 1.0


@dataclasses.dataclass(slots=True)
class _SlotOptions:
    tags: list = dataclasses.field(default_factory=list)
    scale: float = 1.0


class Registry:
    def __new__(cls, *args, **kwargs):   # (networkx's Graph has one: its backend dispatch)
        return super().__new__(cls)

    def __init__(self):
        self.items = []


def collect(x):
    r = Registry()
    if x[0] > 0:
        r.items.append(1)
    return r.items


def edges_above(W):
    import networkx as nx

    G = nx.DiGraph()
    for i in range(3):
        if W[i] > 0:
            G.add_edge(i, 5)
    return list(G.nodes), list(G.edges)


def tagged(x):
    import dataclasses

    cfg = dataclasses.replace(_Options(), scale=3.0)   # (run at trace time: a library function's new object)
    if x[0] > 0:
        cfg.tags.append("pos")
    return cfg.tags, x * cfg.scale


def test_an_object_made_by_a_class_with_its_own_new_is_a_new_one_on_every_call():
    # it was made once, at trace time, and every call shared it: items appended on earlier calls stayed
    # (the append falls back: the list was made by the class's own code, run at trace time)
    _calls(collect, [1.0], [1.0], [-1.0], full_graph=False)
    _calls(edges_above, [1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, 1.0], full_graph=False)


# ------------------------------------------- a defaultdict's missing key read under a traced condition
def group_by_sign(x):
    import collections

    groups = collections.defaultdict(list)
    for v in x:
        if v > 0:
            groups["pos"].append(v)
        else:
            groups["neg"].append(v)
    return dict(groups)


def touched(x):
    import collections

    seen = collections.defaultdict(float)
    if x[0] > 0:
        seen["a"]   # (a read of a missing key inserts it)
    return dict(seen)


def test_a_defaultdict_read_of_a_missing_key_in_a_traced_branch_inserts_it_only_where_it_runs():
    # the key was inserted at trace time on every path (and both groups got every value)
    _calls(group_by_sign, [1.0, 2.0, 3.0], [-1.0, -2.0, 3.0], full_graph=False)
    _calls(touched, [1.0], [-1.0], full_graph=False)


def slot_tagged(x):
    cfg = dataclasses.replace(_SlotOptions(), scale=2.0)
    if x[0] > 0:
        cfg.tags.append("pos")
    return cfg.tags


def test_an_object_a_library_function_makes_at_trace_time_is_a_new_one_on_every_call():
    # dataclasses.replace ran once, at trace time: every call shared its object (and its list)
    _calls(tagged, [1.0], [1.0], [-1.0], full_graph=False)
    _calls(slot_tagged, [1.0], [-1.0], [1.0], full_graph=False)


# ------------------------------------------- functools.cached_property
class Summary:
    def __init__(self, data):
        self.data = data
        self.computed = 0

    @functools.cached_property
    def mean(self):
        self.computed += 1
        return self.data.mean()


def rescaled(x):
    s = Summary(x)
    if x[0] > 0:
        s.mean   # (cached only where this runs)
    s.data = x * 100
    return s.mean, s.computed


def test_a_cached_property_is_computed_and_stored_where_eager_reads_it_first():
    # it was computed at trace time from the data before a pending write, and stored on every path
    _calls(rescaled, [1.0, 2.0], [-1.0, 2.0], [1.0, -2.0], full_graph=False)
    check(rescaled, np.array([1.0, 2.0]), full_graph=False)


def test_a_cached_property_of_an_argument_stays_cached_across_calls():
    def make():
        return (lambda s, x: s.mean * x), Summary(np.arange(3.0))

    def later(fn, s):
        s.data = s.data + 10   # (eager keeps the cached mean)
        return fn(s, np.ones(2)), s.computed

    check_sequence(make, [lambda fn, s: (fn(s, np.ones(2)), s.computed), later, later], full_graph=False)


# ------------------------------------------- a user class's dunder methods with effects
class Lookup:
    calls = 0

    def __init__(self, x):
        self.x = x
        self.misses = 0

    def __getattr__(self, name):
        if name.startswith("p"):
            self.misses += 1
            return self.x * int(name[1:])
        raise AttributeError(name)

    def __contains__(self, k):
        self.misses += 10
        return k < len(self.x)

    def __iter__(self):
        self.misses += 100
        yield from range(2)

    def __eq__(self, other):
        Lookup.calls += 1
        return isinstance(other, Lookup) and self.misses == other.misses


def probe_lookup(x):
    Lookup.calls = 0
    a, b = Lookup(x), Lookup(x)
    s = 0
    if x[0] > 0:
        a.p2
        s = 5 in a
        for i in b:
            s += i
        s += b in [a, b]
    return a.misses, b.misses, s, Lookup.calls


def test_a_user_getattr_contains_iter_and_eq_run_where_eager_runs_them():
    # they ran natively at trace time: their effects happened once, on every path (or not at all)
    _calls(probe_lookup, [1.0, 2.0], [-1.0, 2.0], [1.0, 2.0], full_graph=False)
