"""typeinfer/elementwise.py gives the type jax.eval_shape gives, for every
elementwise op it knows and every kind of operand (dtype, weak type, Python
number, broadcasting), and declines (None) wherever JAX raises."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph.ir.core import ArrayType, Value
from ast2graph.typeinfer.elementwise import ELEMENTWISE, elementwise_type

KINDS = [
    ("f32", lambda s: Value(ArrayType(s, np.dtype("float32")))),
    ("f32~", lambda s: Value(ArrayType(s, np.dtype("float32"), True))),
    ("bf16", lambda s: Value(ArrayType(s, np.dtype(jnp.bfloat16)))),
    ("f16", lambda s: Value(ArrayType(s, np.dtype("float16")))),
    ("i32", lambda s: Value(ArrayType(s, np.dtype("int32")))),
    ("i32~", lambda s: Value(ArrayType(s, np.dtype("int32"), True))),
    ("u8", lambda s: Value(ArrayType(s, np.dtype("uint8")))),
    ("bool", lambda s: Value(ArrayType(s, np.dtype(bool)))),
    ("c64", lambda s: Value(ArrayType(s, np.dtype("complex64")))),
    ("int 3", lambda s: 3),
    ("int 300", lambda s: 300),
    ("int -1", lambda s: -1),
    ("float", lambda s: 2.5),
    ("bool True", lambda s: True),
]
SHAPES = [(3,), (), (2, 3)]


def _eval_shape(fn, leaves):
    positions = [k for k, x in enumerate(leaves) if isinstance(x, Value)]

    def run(*arrays):
        filled = list(leaves)
        for k, a in zip(positions, arrays):
            filled[k] = a
        return fn(*filled)

    try:
        out = jax.eval_shape(run, *[leaves[k].type.to_sds() for k in positions])
    except Exception:  # noqa: BLE001
        return None
    return ArrayType.of(out) if isinstance(out, jax.ShapeDtypeStruct) else "not an array"


def _cases():
    for fn, arities in ELEMENTWISE.items():
        n = arities[0]
        for kinds in itertools.product(range(len(KINDS)), repeat=n):
            yield fn, kinds


def _op_name(f) -> str:
    return f"{getattr(f, '__module__', None) or 'builtins'}.{getattr(f, '__name__', str(f))}"


# (sorted by name: ELEMENTWISE is built from sets, whose order differs between processes,
# and pytest-xdist's workers must collect the same tests in the same order)
@pytest.mark.parametrize("fn", sorted(ELEMENTWISE, key=_op_name), ids=_op_name)
def test_rule_types_equal_jax_eval_shape(fn):
    n = ELEMENTWISE[fn][0]
    checked = 0
    seen = set()
    for kinds in itertools.product(range(len(KINDS)), repeat=n):
        for shapes in itertools.product(SHAPES, repeat=n) if n < 3 else [((3,), (3,), ()), ((2, 3), (3,), (2, 1))]:
            leaves = [KINDS[k][1](s) for k, s in zip(kinds, shapes)]
            if not any(isinstance(x, Value) for x in leaves):
                continue
            case = tuple((k, s if isinstance(x, Value) else None) for k, s, x in zip(kinds, shapes, leaves))
            if case in seen:   # a Python number has no shape: the same case under another shape
                continue
            seen.add(case)
            got = elementwise_type(fn, jax.tree_util.tree_structure(((0,) * n, {})), [*leaves], {})
            want = _eval_shape(fn, leaves)
            label = f"{getattr(fn, '__name__', fn)}({', '.join(KINDS[k][0] + str(list(s)) for k, s in zip(kinds, shapes))})"
            if got is None:
                continue   # declined: the general evaluation decides
            checked += 1
            (value,) = got[1]
            assert want not in (None, "not an array"), f"{label}: JAX raises or returns no array, rule gave {value.type}"
            assert (value.type.shape, value.type.dtype, value.type.weak_type) == (want.shape, want.dtype, want.weak_type), \
                f"{label}: rule {value.type}, jax.eval_shape {want}"
    assert checked
