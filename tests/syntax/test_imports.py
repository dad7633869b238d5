"""Imports inside a converted function: `import m`, `import a.b as c`,
`from m import name as alias`; they run at trace time."""

from helpers import check

from .common import X
from .coverage import covers


def local_imports(x):
    import math
    import jax.numpy as jnp2
    from jax import nn
    from math import pi as PI
    return jnp2.sin(x) * math.e + PI, nn.relu(x - 1)


@covers("Import", "one graph", "`import math`, `import jax.numpy as jnp2` inside the function")
@covers("ImportFrom", "one graph", "`from jax import nn`, `from math import pi as PI` inside the function")
def test_imports_inside_function():
    check(local_imports, X, graphs=1)


def import_in_branch(x, fast):
    if fast:
        from jax.numpy import tanh as act
    else:
        from jax.nn import sigmoid as act
    return act(x)


@covers("ImportFrom", "pruned", "an import under a static `if` choosing an implementation")
def test_import_in_static_branch():
    for fast in (True, False):
        check(import_in_branch, X, fast, graphs=1)


def relative_import(x):
    from .common import NEG
    return x + NEG


@covers("ImportFrom", "interpreted", "a relative import (`from .common import NEG`) inside the function",
        code="A2G001")
def test_relative_import_falls_back():
    e = check(relative_import, X, full_graph=False)
    assert [s.code.code for s in e.fallback_sites] == ["A2G001"]
