"""typeinfer/shaperules.py gives the type jax.eval_shape gives, for every
rule and every kind of operand and static argument it may meet, and declines
(None) wherever JAX raises; typeinfer/tracing.py's direct tracer gives
jax.eval_shape's types too."""

from __future__ import annotations

import itertools
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph.ir.core import ArrayType, Value
from ast2graph.graphlib import arrays
from ast2graph.typeinfer import tracing
from ast2graph.typeinfer.shaperules import RULES, rule_type

DTYPES = [("f32", "float32", False), ("f32~", "float32", True), ("bf16", jnp.bfloat16, False),
          ("f16", "float16", False), ("i32", "int32", False), ("i32~", "int32", True),
          ("u8", "uint8", False), ("bool", bool, False), ("c64", "complex64", False)]
SHAPES = [(), (3,), (2, 3), (2, 3, 4), (0, 3)]


def values(shapes=SHAPES):
    for (name, dtype, weak), shape in itertools.product(DTYPES, shapes):
        yield Value(ArrayType(shape, np.dtype(dtype), weak))


NUMBERS = [3, -1, 2**40, 2.5, True, 1 + 2j]
DTYPE_ARGS = [None, np.float32, bool, np.int32, jnp.bfloat16, np.float64, int, float, "float16", complex, np.uint8]
INDICES = [0, -1, 5, -4, slice(1, 3), slice(None, None, -1), slice(None, None, 2), (0, slice(None)), (None, 0),
           (Ellipsis, 0), (0, 0, 0, 0), (slice(1, None, 2), None, Ellipsis), (), Ellipsis, None, (0, -1),
           arrays.SliceSpec(1, None, -1), (arrays.SliceSpec(0, 2, None), 1)]


def traced_indices():
    """Traced indices: integer scalars and arrays (and a bool scalar: a mask)."""
    scalars = [Value(ArrayType((), np.dtype(d), w)) for d, w in (("int32", False), ("int32", True), ("uint8", False), (bool, False))]
    arrays_ = [Value(ArrayType(s, np.dtype("int32"))) for s in ((2,), (2, 2))] + [Value(ArrayType((3,), np.dtype(bool)))]
    return [*scalars, *arrays_, *[(i, slice(None)) for i in scalars], *[(0, i) for i in scalars],
            (slice(1, None), scalars[0]), (arrays_[0], 0)]


AXES = [None, 0, -1, 1, (0, 1), 5, (0, 0), (-1, 0)]


def _cases(fn):
    """(args, kwargs) to try for ``fn``."""
    method = getattr(fn, "__name__", "")
    if fn is arrays.getitem:
        return [((x, i), {}) for x in values() for i in INDICES + traced_indices()]
    if fn in (arrays.at_updater("set"), arrays.at_updater("add")):
        updates = [0, 3, 300, -1, 2.5, True, *values([(), (3,), (2, 3), (4,)])]
        return [((x, i, v), {}) for x in values([(3,), (2, 3)]) for i in INDICES[:8] + traced_indices()
                for v in updates]
    if fn in (arrays.truthy, arrays.logical_not):
        return [((x,), {}) for x in values([(), (1,), (1, 1), (3,), (0,)])]
    if fn is arrays.cast:
        return [((x, d, w), {}) for x in values([(3,)]) for d in DTYPE_ARGS if d is not None for w in (False, True)]
    if fn is arrays.select:
        return [((p, a, b), {}) for p in values([(), (3,), (2,)]) for a in values([(3,)]) for b in values([(3,), ()])
                if p.type.dtype == np.dtype(bool) or a.type.dtype == np.dtype("float32")]
    if fn in (jnp.asarray, jnp.array):
        return [((x,), {}) for x in [*NUMBERS, *values([(), (3,)])]]
    if fn in (jnp.zeros, jnp.ones, jnp.empty):
        return [((s,), {"dtype": d} if d is not None else {}) for s in [3, (2, 3), (), [2, 3], (0,), -1, (2.0,), (-1, 2)]
                for d in DTYPE_ARGS] + [((3, np.int32), {})]
    if fn is jnp.full:
        return [((s, v), {"dtype": d} if d is not None else {}) for s in [3, (2, 3)] for v in NUMBERS
                for d in DTYPE_ARGS]
    if fn in (jnp.zeros_like, jnp.ones_like):
        return [((x,), {"dtype": d} if d is not None else {}) for x in values([(3,), ()]) for d in DTYPE_ARGS]
    if fn is jnp.full_like:
        return [((x, v), {"dtype": d} if d is not None else {}) for x in values([(3,)]) for v in NUMBERS
                for d in DTYPE_ARGS[:4]]
    if fn in (operator.matmul, jnp.matmul):
        shapes = [(3,), (2, 3), (3, 4), (4, 2, 3), (1, 3, 2), (), (5, 3, 4), (2,)]
        return [((a, b), {}) for a in values(shapes) for b in values(shapes)
                if a.type.dtype.kind == "f" or b.type.dtype.kind == "f"]
    if method in (".astype",) or fn is arrays.method_caller("astype"):
        return [((x, d), {}) for x in values([(3,)]) for d in DTYPE_ARGS]
    if fn is arrays.method_caller("reshape"):
        shapes = [((6,),), (6,), (3, 2), (-1,), (-1, 3), (-1, -1), (4, -1), ((2, 3),), (0,), ((-1, 1),)]
        return [((x, *s), {}) for x in values([(2, 3), (6,), (0, 3)]) for s in shapes]
    if fn in (arrays.method_caller("swapaxes"), jnp.swapaxes):
        return [((x, a, b), {}) for x in values([(2, 3), (2, 3, 4), (3,)]) for a in (0, -1, 2, 3) for b in (1, -2, 0)]
    if fn is arrays.attribute:
        return [((x, n), {}) for x in values() for n in ("T", "mT", "shape", "real")]
    if fn in (jnp.argmax, jnp.argmin, arrays.method_caller("argmax"), arrays.method_caller("argmin")):
        return [((x,), {"axis": a, "keepdims": k}) for x in values() for a in AXES for k in (False, True)] + \
               [((x, 0), {}) for x in values()]
    if fn in (jnp.any, jnp.all, arrays.method_caller("any"), arrays.method_caller("all")):
        return [((x,), {"axis": a, "keepdims": k}) for x in values() for a in AXES for k in (False, True, 1)] + \
               [((x, 0), {}) for x in values()]
    reductions = [jnp.sum, jnp.mean, jnp.max, jnp.min] + [arrays.method_caller(n) for n in ("sum", "mean", "max", "min")]
    if fn in reductions:
        return [((x,), {"axis": a, "keepdims": k}) for x in values() for a in AXES for k in (False, True, 1)] + \
               [((x, 0), {}) for x in values()]
    return [((x,), {}) for x in values()] + [((x, 2), {}) for x in values([(3,)])]   # unary functions


def _eval_shape(fn, args, kwargs):
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    positions = [k for k, x in enumerate(leaves) if isinstance(x, Value)]

    def run(*arrays_in):
        filled = list(leaves)
        for k, a in zip(positions, arrays_in):
            filled[k] = a
        a, kw = jax.tree_util.tree_unflatten(treedef, filled)
        return fn(*a, **kw)

    try:
        out = jax.eval_shape(run, *[leaves[k].type.to_sds() for k in positions])
    except Exception:  # noqa: BLE001
        return None
    return ArrayType.of(out) if isinstance(out, jax.ShapeDtypeStruct) else "not an array"


def _label(fn, args, kwargs):
    def show(x):
        return str(x.type) if isinstance(x, Value) else repr(x)
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{getattr(fn, '__qualname__', fn)}({', '.join(parts)})"


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@pytest.mark.parametrize("fn", list(RULES), ids=lambda f: f"{getattr(f, '__module__', '')}.{getattr(f, '__qualname__', f)}")
def test_rule_types_equal_jax_eval_shape(fn, x64):
    checked = 0
    with jax.enable_x64(x64):
        for args, kwargs in _cases(fn):
            leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
            got = rule_type(fn, treedef, leaves)
            if got is None:
                continue   # declined: the general evaluation decides
            checked += 1
            want = _eval_shape(fn, args, kwargs)
            label = _label(fn, args, kwargs)
            (value,) = got[1]
            assert want not in (None, "not an array"), f"{label}: JAX raises or returns no array, rule gave {value.type}"
            assert (value.type.shape, value.type.dtype, value.type.weak_type) == (want.shape, want.dtype, want.weak_type), \
                f"{label}: rule {value.type}, jax.eval_shape {want}"
    assert checked, "the rule declined every case"


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_direct_tracer_equals_eval_shape(x64):
    """The direct tracer (or its fallback) gives eval_shape's types and raises
    JAX's errors."""
    cases = [
        (lambda x, i: [x[i], jnp.sum(x, axis=0), x.astype(jnp.bfloat16)], [ArrayType((4, 3), np.dtype("float32")),
                                                                          ArrayType((), np.dtype("int32"), True)]),
        (lambda x: [jnp.argmax(x), x > 0, jnp.where(x > 0, x, 0.0)], [ArrayType((5,), np.dtype("float16"))]),
        (lambda x, y: [x @ y, jnp.concatenate([x, x])], [ArrayType((2, 3), np.dtype("float32"), True),
                                                         ArrayType((3, 2), np.dtype("float32"))]),
        (lambda: [jnp.arange(5) * 2.5], []),
    ]
    with jax.enable_x64(x64):
        for fn, types in cases:
            want = [ArrayType.of(x) for x in jax.eval_shape(fn, *[t.to_sds() for t in types])]
            assert tracing.output_types(fn, types) == want
        with pytest.raises(jax.errors.ConcretizationTypeError):
            tracing.output_types(lambda x: [x + 1] if x.sum() > 0 else [x], [ArrayType((3,), np.dtype("float32"))])
        with pytest.raises(TypeError):
            tracing.output_types(lambda x, y: [x @ y], [ArrayType((2, 3), np.dtype("float32"))] * 2)
