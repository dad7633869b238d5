"""h-hunt17: silent wrong results found by probing realistic programs
(strings built from dicts of traced values, objects made in the function
returned with a dict attribute), each compared with eager over calls whose
data differ."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ast2graph import to_static
from helpers import check_calls


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
