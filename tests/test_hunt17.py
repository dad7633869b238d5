"""h-hunt17: silent wrong results found by probing realistic programs
(strings built from dicts of traced values, objects made in the function
returned with a dict attribute), each compared with eager over calls whose
data differ."""

from __future__ import annotations

import types

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from helpers import check_calls, check_sequence


# ------------------------------------------- a dict's insertion order through the graph's own pytree nodes
def test_a_dict_of_traced_values_formatted_keeps_its_insertion_order():
    def log_line(x):
        metrics = {"loss": jnp.sum(x), "n": x[0], "acc": float(jnp.mean(x)), "k": int(x[1])}
        return str(metrics), f"{metrics}", repr({"z": x[1], "a": 0.5})

    check_calls(log_line, [(np.array([1.1, 3.0]),), (np.array([-2.0, 0.5]),)])


class _Result:
    def __init__(self, stats):
        self.stats = stats

    def get(self, key, scale=1.0, shift=0.0):
        return self.stats[key] * scale + shift


def test_an_object_made_in_the_function_returned_keeps_its_dicts_order():
    def summarise(x):
        res = _Result({"var": jnp.var(x), "mean": x.mean(), "max": 2.0})
        return res

    def outside(x):
        res = summarise(x)
        return list(res.stats), res.stats, res.get("mean", shift=x[0])

    check_calls(outside, [(np.array([1.0, 3.0, 2.0]),), (np.array([-1.0, 0.5, 4.0]),)])
    for made in (summarise, lambda x: summarise(x).get):   # the object, a method bound to it
        converted = to_static(made, full_graph=True)
        for x in (np.array([1.0, 3.0]), np.array([0.0, 2.0])):
            got, eager = converted(x), made(x)
            got, eager = getattr(got, "__self__", got), getattr(eager, "__self__", eager)
            assert list(got.stats) == list(eager.stats)


def test_a_local_function_handed_to_jax_sees_the_dict_it_closes_over_in_order():
    def per_row(x):
        gains = {"z": x[0] * 2, "a": x[1]}
        return jax.vmap(lambda r: jnp.stack([r * g for g in gains.values()]))(x), list(gains)

    check_calls(per_row, [(np.array([1.0, 3.0], np.float32),), (np.array([-2.0, 0.5], np.float32),)])


# ------------------------------------------- a dict's live views: leaving a segment, read from outside
def test_a_view_of_a_dict_leaving_the_function_is_eagers_live_view():
    def views(d, x):
        d["new"] = x[0] * 2
        return d.items(), {"z": x[1], "a": 1.0}.values()

    converted = to_static(views)
    for x in (np.array([1.0, 3.0]), np.array([0.0, -2.0])):
        mine, theirs = {"w": np.ones(2), "s": 3}, {"w": np.ones(2), "s": 3}
        (items, values), (eager_items, eager_values) = converted(mine, x), views(theirs, x)
        mine["late"] = theirs["late"] = 5   # the caller's dict, seen through the view
        assert repr(list(items)) == repr(list(eager_items)) and repr(list(values)) == repr(list(eager_values))


def test_a_dict_view_or_proxy_read_from_outside_is_guarded_through_its_dict():
    table = {"a": 1.0, "b": 2.0}

    def make():
        table.clear()
        table.update(a=1.0, b=2.0)
        names, weights = table.keys(), table.values()

        def weigh(x):
            return [k for k in names], x * sum(weights), "c" in names, len(weights)
        return weigh, table

    def make_proxy():
        table.clear()
        table.update(a=1.0, b=2.0)
        frozen = types.MappingProxyType(table)

        def weigh(x):
            return x * frozen["a"], list(frozen), len(frozen)
        return weigh, table

    def plain(f, d):
        return f(np.arange(2.0))

    def added(f, d):
        d["c"] = 5.0
        return plain(f, d)

    def changed(f, d):
        d["a"] = 7.0
        return plain(f, d)

    check_sequence(make, [plain, added, changed, plain])
    check_sequence(make_proxy, [plain, added, changed, plain])


def test_a_containers_own_method_leaving_the_function_is_bound_to_eagers_container():
    def handles(d, xs, x):
        d["k"] = x[0]
        return d.get, xs.append, {"z": x[1] * 2}.__getitem__, [x[0], 1.0].count

    converted = to_static(handles)
    for x in (np.array([3.0, 4.0]), np.array([1.0, 0.5])):
        got, eager = ({"a": np.ones(1)}, [1]), ({"a": np.ones(1)}, [1])
        (get, add, item, count), (eget, eadd, eitem, ecount) = converted(*got, x), handles(*eager, x)
        add(99), eadd(99)
        got[0]["late"] = eager[0]["late"] = 7
        assert repr([get("k"), get("a"), get("late"), item("z"), count(x[0])]) == \
            repr([eget("k"), eget("a"), eget("late"), eitem("z"), ecount(x[0])])
        assert got[1] == eager[1] == [1, 99]


# ------------------------------------------- jax.tree_util moving NumPy leaves
def test_jax_tree_util_hands_numpy_and_python_leaves_on_as_they_are():
    def rescale(params, x):
        leaves, treedef = jax.tree_util.tree_flatten(params)
        doubled = jax.tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
        pair = jax.tree_util.tree_structure((0, None, 0)).unflatten([x * 3, jnp.sum(x)])
        return doubled, pair, jax.tree.leaves(doubled), jax.tree.structure(params).num_leaves

    params = {"z": np.ones(2), "a": np.arange(2.0), "n": 3, "j": jnp.ones(2)}
    check_calls(rescale, [(params, np.arange(3.0)), (dict(params, z=np.zeros(2)), np.ones(3))])


def test_device_get_and_block_until_ready_give_eagers_objects():
    def log_metrics(x, i):
        loss = jax.device_get(jnp.sum(x))
        print("loss", loss, jax.device_get(x[0]), jax.device_get(float(x[1])))
        metrics = jax.device_get({"z": jnp.max(x), "a": i, "b": x * 2})
        ready = jax.block_until_ready(x + 1)
        return loss, metrics, list(metrics), ready, jax.tree.transpose(
            jax.tree.structure([0, 0]), jax.tree.structure((0, 0)), [(x, i), (x * 2, i * 2)])

    check_calls(log_metrics, [(np.arange(3.0), np.arange(3)), (np.ones(2), np.ones(2, np.int32))])

    def written(x):
        host = jax.device_get(jnp.sin(x))
        host[0] = 1.0   # eager: ValueError (a jax.Array's host copy is read-only)
        return host

    check_calls(written, [(np.arange(3.0),)], full_graph=False)


# ------------------------------------------- a local function jitted inside the function
def test_a_local_function_jitted_in_the_function_computes_as_eagers_jit_call():
    def smooth(x):
        scale = 2.0
        return jax.jit(lambda v: jnp.sin(v) * scale)(x), jax.jit(lambda v: v + 1)(x), jax.grad(lambda v: v @ v)(x)

    check_calls(smooth, [(np.array([1.5, -2.25, 3.0]),), (np.array([0.5, 1.0, 2.0], np.float32),)])


# ------------------------------------------- strings formatted from traced values, printed inside a container
def test_printing_a_container_of_formatted_strings_prints_the_strings():
    def report(x):
        labels = [f"{v:.1f}" for v in x]
        print(labels, {"first": labels[0]}, (labels[-1],), sep=" ; ")
        print(str(labels), repr(labels[0]), {1: labels[1], "k": [labels[2]]})
        return x * 2

    check_calls(report, [(np.array([1.5, 1.5, 3.0]),), (np.array([-1.0, 2.0, 3.0]),)])
