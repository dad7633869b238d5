"""Pattern matching: `match` on static values (strings, sequences, mappings,
classes, guards) and on array shapes is matched at trace time, the other
cases pruned; a traced scalar subject with numeric literal cases is a
lax.switch; a pattern that looks into a traced array runs in Python."""

from dataclasses import dataclass

import jax.numpy as jnp
import pytest

from helpers import check, modes

from .common import M, X, codes
from .coverage import covers


@dataclass
class Norm:
    kind: str
    eps: float = 1e-5


def activation(x, spec):
    match spec:
        case "relu":
            return jnp.maximum(x, 0)
        case "tanh" | "th":
            return jnp.tanh(x)
        case [scale, shift]:
            return x * scale + shift
        case {"scale": s}:
            return x * s
        case Norm(kind="layer", eps=eps):
            return (x - x.mean()) / jnp.sqrt(x.var() + eps)
        case int(n) if n > 0:
            return x * n
        case _:
            return x


SPECS = ["relu", "th", [2.0, 1.0], {"scale": 4.0}, Norm("layer"), 3, -1, None]


@covers("Match", "pruned", "`match` on a static config: literal, `|`, sequence, mapping, class, guard, wildcard")
@covers("match_case", "pruned", "`case` with a guard (`if`), tried in order at trace time; the untaken cases are not traced")
@pytest.mark.parametrize("spec", SPECS, ids=["literal", "or", "sequence", "mapping", "class", "guard", "guard-fails", "wildcard"])
def test_match_on_static_subject_pruned(spec):
    e = check(activation, X - 1, spec, graphs=1)
    assert ("match", "pruned") in modes(e)


def by_shape(x):
    match x.shape:
        case (n,):
            y = x * n
        case (r, c):
            y = x.sum(axis=0) * r + c
        case _:
            y = x
    return y + 1


@covers("Match", "pruned", "`match x.shape:` with capture patterns (shapes are static)")
@pytest.mark.parametrize("x", [X, M], ids=["vector", "matrix"])
def test_match_on_shape_pruned(x):
    e = check(by_shape, x, graphs=1)
    assert ("match", "pruned") in modes(e)


def traced_mode(x, k):
    match k:
        case 0:
            y = x + 1
        case 1 | 2:
            y = x * 2
        case other:
            y = x * other
    return y


@covers("Match", "lax.switch", "`match` on a traced scalar with numeric literal cases (`|`) and a final capture")
@covers("match_case", "lax.switch", "`case 1 | 2:` and a final capture `case other:` on a traced scalar: one branch each")
@pytest.mark.parametrize("k", [0, 2, 5])
def test_match_traced_literals_switch(k):
    e = check(traced_mode, X, jnp.int32(k), graphs=1)
    assert ("match", "lax.switch") in modes(e)


def traced_sequence(x):
    match x:
        case [a, b, *_]:
            return a + b
    return x


@covers("Match", "interpreted", "`match` on a traced array with a sequence pattern (it looks into the array)", code="A2G001")
def test_match_traced_sequence_falls_back():
    e = check(traced_sequence, X, full_graph=False)
    assert codes(e) == ["A2G001"]
