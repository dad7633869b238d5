"""Small shared pieces of the syntax suite: inputs and readers of an ``Explanation``."""

from __future__ import annotations

import jax.numpy as jnp

X = jnp.arange(3.0)            # sum 3: positive, "then" paths
NEG = -jnp.arange(1.0, 4.0)    # sum -6: negative, "else" paths
BIG = X * 100.0                # sum 300
M = jnp.arange(6.0).reshape(2, 3)
SIGNS = [X, NEG]
SIGN_IDS = ["pos", "neg"]


def codes(e) -> list[str]:
    """Fallback codes of one call, in the order first run."""
    return [s.code.code for s in e.fallback_sites]


def sites(e) -> list[tuple[str, str]]:
    return [(s.code.code, s.construct) for s in e.fallback_sites]


def modes_of(e, construct: str) -> list[str]:
    return [d.mode for d in e.decisions if d.construct == construct]


def assert_one_graph(e) -> None:
    """The whole call was one compiled graph and nothing fell back."""
    assert e.graph_count == 1, str(e)
    assert not e.fallback_sites, str(e)
