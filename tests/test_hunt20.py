"""h-hunt20: in-place writes into NumPy arrays read from outside, and arrays
held by outside containers (parameter dicts and lists of a model, a module
cache), compared with eager call by call, with the state changed between
calls."""

from __future__ import annotations

import numpy as np

import ast2graph
from tests.helpers import check_sequence


def _fallbacks(fn, *args):
    return ast2graph.explain(fn)(*args).fallback_sites


# ------------------------------------------- arrays held in an outside dict, written in place
CACHE = {"buf": np.zeros(3), "o": np.ones(3)}


def _reset_cache():
    CACHE.clear()
    CACHE["buf"] = np.zeros(3)
    CACHE["o"] = np.ones(3)


def _cache_steps():
    def call(fn, _):
        r = fn(np.ones(3))
        return r, CACHE["buf"].copy(), CACHE["o"].copy()

    def rebound(fn, _):
        CACHE["buf"] = np.full(3, 5.0)
        return call(fn, _)

    def changed(fn, _):   # the caller writes into the arrays between calls
        CACHE["buf"][1] = 42
        CACHE["o"][2] = -1
        return call(fn, _)

    def same(fn, _):      # both keys hold one array
        CACHE["o"] = CACHE["buf"]
        return call(fn, _)

    def view(fn, _):      # one a view of the other
        CACHE["o"] = CACHE["buf"][::-1]
        return call(fn, _)

    return [call, call, rebound, call, changed, same, call, rebound, view, call]


def _cache_alias(x):
    b = CACHE["buf"]
    b += x
    CACHE["buf"][0] = 9
    return b.sum()


def _cache_values_read(x):
    CACHE["buf"] += x
    return [float(h.sum()) for h in CACHE.values()]


def _cache_every_key(x):
    for k in CACHE:
        CACHE[k] *= 2
    return CACHE["o"] + CACHE["buf"]


def test_array_of_an_outside_dict_written_in_place_is_one_graph():
    """``CACHE['buf'] += x`` fell back: the guard on the dict's entries counted
    the very array it holds as another array the graph reads sharing its
    memory. Only a guard that reads its values (a snapshot taking them, as
    ``CACHE.values()`` does) is one; iterating the dict's keys (``for k in
    CACHE``) guards its keys, not the values each ``CACHE[k]`` reads."""
    for fn in (_cache_alias, _cache_every_key, _cache_values_read):
        def make(fn=fn):
            _reset_cache()
            return fn, None

        check_sequence(make, _cache_steps(), full_graph=False)
    _reset_cache()
    assert _fallbacks(_cache_alias, np.ones(3)) == []
    _reset_cache()
    assert _fallbacks(_cache_every_key, np.ones(3)) == []
    _reset_cache()   # (its values are read at trace time: it still runs in Python)
    assert _fallbacks(_cache_values_read, np.ones(3))


class DictSGD:
    def __init__(self):
        self.params = {"w": np.ones(2), "b": np.zeros(2)}

    def step(self, g):
        for k in self.params:
            self.params[k] -= 0.1 * g
        return self.params["w"] @ self.params["b"]


def test_parameter_dict_updated_in_place_is_one_graph():
    def make():
        m = DictSGD()
        return DictSGD.step, {"m": m, "w": m.params["w"]}

    def call(fn, world):
        m = world["m"]
        return fn(m, np.array([1.0, 2.0])), {k: v.copy() for k, v in m.params.items()}, world["w"] is m.params["w"]

    def tied(fn, world):   # both entries one array: eager writes it twice
        m = world["m"]
        m.params["b"] = m.params["w"]
        return call(fn, world)

    def added(fn, world):  # a new key between calls
        world["m"].params["c"] = np.full(2, 3.0)
        return call(fn, world)

    check_sequence(make, [call, call, tied, call, added, call], full_graph=False)
    assert _fallbacks(DictSGD.step, DictSGD(), np.ones(2)) == []


# ------------------------------------------- arrays held by an outside container leave as themselves
L = [np.zeros(2), np.ones(2)]


def _reset_list():
    global L
    L = [np.zeros(2), np.ones(2)]


def _list_copy(x):
    return list(L)


def _list_slice_and_comprehension(x):
    return L[:], [p for p in L], tuple(L)


def _list_written_then_listed(x):
    L[0] += x
    return list(L)


def _list_listed_then_written(x):
    out = list(L)
    L[0][:] = x * 5
    return out


def test_arrays_of_an_outside_list_leave_as_the_very_objects():
    """``list(L)``, ``L[:]``, ``[p for p in L]`` of a global list of NumPy
    arrays returned new arrays per call (copies of what the list held when
    traced) where eager returns the list's own arrays: a write into the
    result did not reach ``L``. They are re-read as the objects themselves."""
    def call(fn, _):
        r = fn(np.ones(2))
        flat = [a for part in (r if isinstance(r, tuple) else (r,)) for a in part]
        return r, [a is b for a in flat for b in L], [a.copy() for a in L]

    def written(fn, _):   # the caller writes into the arrays the last call returned
        r = fn(np.ones(2))
        flat = [a for part in (r if isinstance(r, tuple) else (r,)) for a in part]
        flat[0][0] = 7.0
        return [a.copy() for a in L]

    def rebound(fn, _):
        L[1] = np.full(2, 3.0)
        return call(fn, _)

    def same(fn, _):
        L[1] = L[0]
        return call(fn, _)

    for fn in (_list_copy, _list_slice_and_comprehension, _list_written_then_listed, _list_listed_then_written):
        def make(fn=fn):
            _reset_list()
            return fn, None

        check_sequence(make, [call, written, call, rebound, call, same, written, call], full_graph=False)
    _reset_list()
    assert _fallbacks(_list_copy, np.ones(2)) == []
    _reset_list()
    assert _fallbacks(_list_slice_and_comprehension, np.ones(2)) == []


class Holder:
    def __init__(self):
        self.ps = [np.ones(2), np.zeros(2)]
        self.cache = {"a": np.arange(3.0)}
        self.picked = None

    def pick(self, i):
        self.picked = self.ps[i]
        self.all = [p for p in self.ps]
        return self.picked.sum(), dict(self.cache)


def test_attribute_set_to_an_array_of_an_outside_list_is_that_array():
    def make():
        return Holder.pick, Holder()

    def call(fn, h):
        s, d = fn(h, 1)
        return s, h.picked is h.ps[1], h.all[0] is h.ps[0], d["a"] is h.cache["a"], [p.copy() for p in h.ps]

    def replaced(fn, h):
        h.ps[0] = np.full(2, 4.0)
        return call(fn, h)

    check_sequence(make, [call, call, replaced, call], full_graph=False)
    assert _fallbacks(Holder.pick, Holder(), 1) == []


class ListSGD:
    def __init__(self):
        self.params = [np.ones(2), np.ones(3)]
        self.grads = [np.full(2, 0.5), np.full(3, 0.25)]

    def step(self, lr):
        for i in range(len(self.params)):
            self.params[i] -= lr * self.grads[i]
        return self.params[0].sum(), len(self.grads)


def test_parameter_list_updated_by_index_is_one_graph():
    """``len(self.params)`` guarded the list's whole contents, values too,
    which counted ``self.params[0]`` as read apart from its capture: the
    in-place update fell back. ``len`` of an outside list guards its length
    (of a dict, its keys); the items each read guard themselves."""
    def make():
        return ListSGD.step, ListSGD()

    def call(fn, n):
        return fn(n, 0.1), [p.copy() for p in n.params], [g.copy() for g in n.grads]

    def alias(fn, n):   # a gradient that is a parameter: eager's second read sees the write
        n.grads[0] = n.params[0]
        return call(fn, n)

    def tie(fn, n):     # a parameter that is a view of another one
        n.params[1] = n.params[0][:]
        n.grads[1] = n.grads[0]
        return call(fn, n)

    def grow(fn, n):    # one more parameter between calls
        n.params.append(np.zeros(1))
        n.grads.append(np.ones(1))
        return call(fn, n)

    def shrink(fn, n):
        del n.params[-1]
        return call(fn, n)   # (the loop stops at len(params): grads keeps its extra item)

    check_sequence(make, [call, call, alias, call, tie, call, grow, call, shrink, call], full_graph=False)
    assert _fallbacks(ListSGD.step, ListSGD(), 0.1) == []


def _cache_len(x):
    CACHE["buf"] += x * len(CACHE)
    return CACHE["buf"].sum()


def test_len_of_an_outside_dict_guards_its_keys():
    def make():
        _reset_cache()
        return _cache_len, None

    def added(fn, _):
        CACHE["new"] = np.zeros(1)
        return fn(np.ones(3)), CACHE["buf"].copy()

    def removed(fn, _):
        del CACHE["o"], CACHE["new"]
        return fn(np.ones(3)), CACHE["buf"].copy()

    steps = _cache_steps()
    check_sequence(make, steps[:5] + [added, steps[0], removed, steps[0]], full_graph=False)
    _reset_cache()
    assert _fallbacks(_cache_len, np.ones(3)) == []


class ClassBuffer:
    buf = np.zeros(3)   # one array on the class, read through instances

    def add(self, x):
        self.buf += x   # eager: written in place, then set on the instance
        return self.buf.sum()


def test_in_place_write_of_a_class_attribute_through_the_instance():
    """``self.buf += x`` with ``buf`` a class attribute: eager writes the
    class's array, then sets it on the instance, which holds it from then on
    (a class attribute set later does not reach it). The graph set nothing:
    the instance kept reading the class's attribute. It runs in Python now."""
    def make():
        ClassBuffer.buf = np.zeros(3)
        return ClassBuffer.add, ClassBuffer()

    def call(fn, c):
        return fn(c, np.ones(3)), "buf" in vars(c), c.buf.copy(), ClassBuffer.buf.copy()

    def rebound(fn, c):   # a new class attribute: eager's instance keeps its own array
        ClassBuffer.buf = np.full(3, 10.0)
        return call(fn, c)

    check_sequence(make, [call, rebound, call], full_graph=False)


# ------------------------------------------- iterating an outside list of arrays, written in place
class ZipSGD:
    def __init__(self):
        self.params = [np.ones(2), np.ones(3)]
        self.grads = [np.full(2, 0.5), np.full(3, 0.25)]

    def by_zip(self, lr):
        for p, g in zip(self.params, self.grads):
            p -= lr * g
        return self.params[0].sum()

    def by_enumerate(self, lr):
        for i, p in enumerate(self.params):
            p -= lr * self.grads[i]
        return self.params[1].sum()

    def by_item(self, lr):
        for p in self.params:
            p *= 1 - lr
        return [p for p in self.params]

    def by_list_copy(self, lr):
        out = []
        for p in list(self.params):
            out.append(p.sum())
        return out


def test_iterating_an_outside_list_of_arrays_writes_them_in_place():
    """``for p, g in zip(self.params, self.grads): p -= lr * g`` (and
    ``enumerate``, ``for p in self.params``) fell back: the loop's items were
    the arrays' values at trace time, not graph inputs that the write could
    reach. Each item is now read as ``self.params[k]`` reads it (a capture,
    written in place after the call), the list's length guarded; a list
    holding one array twice, or a view of another, runs in Python."""
    def call(fn, n):
        r = fn(n, 0.1)
        return r, [p.copy() for p in n.params], [g.copy() for g in n.grads]

    def changed(fn, n):   # the caller writes into a parameter between calls: read anew, no stale values
        n.params[0][1] = 5.0
        return call(fn, n)

    def alias(fn, n):     # a gradient that is the parameter itself
        n.grads[0] = n.params[0]
        return call(fn, n)

    def tie(fn, n):       # a parameter that is a view of another
        n.params[1] = n.params[0][:]
        n.grads[1] = n.grads[0]
        return call(fn, n)

    def fresh(fn, n):
        n.params[:] = [np.ones(2), np.ones(3)]
        n.grads[:] = [np.full(2, 0.5), np.full(3, 0.25)]
        return call(fn, n)

    def grow(fn, n):      # one more parameter: the loop takes one more trip
        n.params.append(np.zeros(1))
        n.grads.append(np.ones(1))
        return call(fn, n)

    def not_array(fn, n):
        n.params[0] = [1.0, 2.0]   # not an array: as eager (the loop variable rebound, or a TypeError)
        return call(fn, n)

    steps = [call, call, changed, call, alias, call, fresh, tie, call, fresh, grow, call, fresh, not_array, fresh, call]
    for name in ("by_zip", "by_enumerate", "by_item", "by_list_copy"):
        fn = getattr(ZipSGD, name)

        def make(fn=fn):
            return fn, ZipSGD()

        check_sequence(make, steps, full_graph=False)
        assert _fallbacks(fn, ZipSGD(), 0.1) == [], name


def test_loop_body_growing_the_list_it_iterates():
    """Eager's list iterator sees what the body appends: the items are pulled
    one by one from the live list, by index."""
    def make():
        _reset_list()
        return _grow_while_iterating, None

    def call(fn, _):
        return fn(np.ones(2)), [a.copy() for a in L], len(L)

    check_sequence(make, [call, call, call], full_graph=False)


def _grow_while_iterating(x):
    n = 0
    for p in L:
        p += x
        n += 1
        if n == 1 and len(L) < 4:
            L.append(np.full(2, 9.0))
    return n


def test_parameter_updates_do_not_recompile_when_the_caller_changes_values():
    def make():
        return ZipSGD.by_zip, ZipSGD()

    def call(fn, n):
        n.params[0][0] += 1.0
        return fn(n, 0.1), [p.copy() for p in n.params]

    check_sequence(make, [call] * 4, recompiles=0)


COUNTS = np.zeros(2)


def _count_calls(x):
    COUNTS[0] += 1.0
    return x * 2 + COUNTS.sum()


def test_in_place_write_under_an_outer_jax_transform_is_made_as_eager():
    """``jax.grad``/``jax.jit`` of the converted function: its graph's results
    are tracers, so the copy into the global array after the call never
    happened (eager writes it as it runs: each call under grad, once when
    traced under jit). The write runs in Python there."""
    import jax
    import jax.numpy as jnp

    global COUNTS
    results = []
    for fn in (_count_calls, ast2graph.to_static(_count_calls)):
        COUNTS = np.zeros(2)
        g1 = jax.grad(lambda x: fn(x).sum())(jnp.ones(2))
        g2 = jax.grad(lambda x: fn(x).sum())(jnp.ones(2))
        after_grad = COUNTS.copy()
        jitted = jax.jit(fn)
        j1, j2 = jitted(jnp.ones(2)), jitted(jnp.ones(2))
        results.append((np.asarray(g1), np.asarray(g2), after_grad, np.asarray(j1), np.asarray(j2), COUNTS.copy()))
    for eager, converted in zip(*results):
        np.testing.assert_array_equal(eager, converted)


LABELS = np.array(["cat", "dog"])
HELD = [np.array(["a", "bc"]), np.array([1, None], dtype=object), np.zeros(2)]


def _labels():
    return LABELS


def _held_items():
    return [h for h in HELD], HELD[1]


def test_outside_array_of_strings_or_objects_leaves_as_itself():
    """A NumPy array of strings or objects read from outside (a global, an
    item of a global list) came back as a new copy on every call where eager
    hands on that very array (a caller's write into it reached nothing): no
    graph value can hold it, so the statement that hands it on runs in
    Python."""
    for fn in (_labels, _held_items):
        def make(fn=fn):
            return fn, None

        def call(f, _):
            r = f()
            flat = [r] if isinstance(r, np.ndarray) else [*r[0], r[1]]
            return r, [a is LABELS or any(a is h for h in HELD) for a in flat]

        check_sequence(make, [call, call], full_graph=False)
