"""Pattern matching: `match` on static values (strings, sequences, mappings,
classes, guards) and on array shapes. Every `match` runs in Python today."""

from dataclasses import dataclass

import jax.numpy as jnp
import pytest

from helpers import check

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


@covers("Match", "interpreted", "`match` on a static config: literal, `|`, sequence, mapping, class, guard, wildcard",
        code="A2G001", caveat="should be graph: the subject is static, one case could be selected at trace time")
@pytest.mark.parametrize("spec", SPECS, ids=["literal", "or", "sequence", "mapping", "class", "guard", "guard-fails", "wildcard"])
def test_match_on_static_subject_falls_back(spec):
    e = check(activation, X - 1, spec, full_graph=False)
    assert codes(e) == ["A2G001"]


def by_shape(x):
    match x.shape:
        case (n,):
            y = x * n
        case (r, c):
            y = x.sum(axis=0) * r + c
        case _:
            y = x
    return y + 1


@covers("Match", "interpreted", "`match x.shape:` with capture patterns; the code after it stays compiled",
        code="A2G001", caveat="should be graph: shapes are static")
@pytest.mark.parametrize("x", [X, M], ids=["vector", "matrix"])
def test_match_on_shape_falls_back(x):
    e = check(by_shape, x, full_graph=False)
    assert codes(e) == ["A2G001"]
