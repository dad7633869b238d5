"""Silent differences an independent corpus of realistic programs found
(/work/hunt-programs, not in the repository), minimised; each compared with eager."""

import sys
import types

import jax
import jax.numpy as jnp
import numpy as np

from helpers import check, check_sequence


def test_monkeypatched_function_of_a_module_without_file_is_guarded():
    # a module the user made in memory (types.ModuleType, a notebook's scratch
    # module) has no __file__: its functions were taken for a library's and
    # not guarded, so a monkeypatched `helpers.activation` kept the old one
    def make():
        helpers = types.ModuleType("hunt_scratch_helpers")
        helpers.activation = jnp.tanh
        helpers.EPS = 1e-3

        def f(x):
            return helpers.activation(x) + helpers.EPS
        return f, helpers

    x = jnp.array([1.0, 2.0, 3.0])

    def patch(name, value):
        def step(f, helpers):
            setattr(helpers, name, value)
            return f(x)
        return step

    check_sequence(make, [lambda f, _: f(x), patch("activation", jax.nn.relu), patch("EPS", 0.5),
                          patch("activation", lambda v: v * 10)])
