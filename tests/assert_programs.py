"""Functions that use `assert`, kept out of test modules: pytest rewrites
`assert` in test modules, so their eager run would not be plain Python."""

import jax.numpy as jnp


def asserted(x):
    assert x.min() >= 0, "negative input"
    assert x.sum() < 50
    return jnp.sqrt(x)
