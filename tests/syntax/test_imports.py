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


@covers("ImportFrom", "one graph", "a relative import of a module imported already (`from .common import NEG`): "
        "resolved against the function's package, a read")
def test_relative_import_of_an_imported_module():
    check(relative_import, X, graphs=1)


def relative_import_late(x):
    from ._imported_late import SCALE
    return x * SCALE


@covers("ImportFrom", "interpreted", "a relative import of a module not imported yet (its code runs: an effect)",
        code="A2G002")
def test_relative_import_of_a_module_not_imported_yet():
    import sys

    from ast2graph import explain, to_static

    name = f"{__package__}._imported_late"
    sys.modules.pop(name, None)
    e = explain(to_static(relative_import_late))(X)   # first: the import runs, in Python, as eager's would
    assert [s.code.code for s in e.fallback_sites] == ["A2G002"]
    assert sys.modules[name].LOADS == ["loaded"]
    check(relative_import_late, X, graphs=1)   # imported now: a read
