"""Eager's kinds everywhere a Python program can look (issue 14).

Every test compares with the eager run of the same function (``helpers.check``:
exact on leaf kinds, dtypes, dict key order, container types). Where a site
must fall back, the test asserts that ``explain`` lists it and that the result
still equals eager.
"""

import collections

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
