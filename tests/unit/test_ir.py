"""Graph IR: golden printer text, verifier, DOT export."""

import textwrap

import jax.numpy as jnp
import numpy as np
import pytest

from ast2graph import explain, to_static
from ast2graph.diagnostics import Loc, VerificationError
from ast2graph.ir import (ArrayType, CallOp, Graph, IfOp, Region, Value, print_graph, to_dot,
                          to_networkx, verify)


def branchy(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


def test_golden_branch_ir():
    e = explain(to_static(branchy, full_graph=True))(jnp.ones(3))
    assert e.ir_text == textwrap.dedent("""\
        graph branchy(%0: f32[3] <x>) {
          %1 = .sum(%0) : f32[]  # test_ir.py:16
          %2 = gt(%1, 0) : bool[]  # test_ir.py:16
          %3 = if %2 : f32[3]  # test_ir.py:16
            then() {
              %4 = mul(%0, 2) : f32[3]  # test_ir.py:17
              yield %4
            }
            else() {
              %5 = neg(%0) : f32[3]  # test_ir.py:19
              yield %5
            }
          return %3
        }""")


def accumulate(x):
    acc = 0
    for i in range(20):
        acc = acc + x[i % 3]
    return acc


def test_golden_widened_loop_ir():
    # ``acc = 0`` (a Python int) before a rolled loop whose body makes it a
    # jax.Array: carried with a run-time kind tag (typeinfer/pathkinds.py),
    # each variant exact; after the loop (20 iterations) the jax variant
    e = explain(to_static(accumulate, full_graph=True))(jnp.ones(3))
    assert e.ir_text == textwrap.dedent("""\
        graph accumulate(%0: f32[3] <x>) {
          %1 = kind tag(1) : i32[]  # test_ir.py:44
          %2 = asarray(0.0) : f64[]~py  # test_ir.py:44
          %3 = convert(%2, dtype('float32'), False) : f32[]  # test_ir.py:44
          %4 = asarray(0) : i64[]~py  # test_ir.py:44
          %5, %6, %7 = for 0 to 20 init(%1, %3, %4) : i32[], f32[], i64[]~py  # test_ir.py:44
            body(%8: i64[]~py, %9: i32[], %10: f32[], %11: i64[]~py) {
              %12 = mod(%8, 3) : i64[]~py  # test_ir.py:45
              %13 = getitem(%0, %12) : f32[]  # test_ir.py:45
              %14 = add(%10, %13) : f32[]  # test_ir.py:45
              %15 = add(%11, %13) : f32[]  # test_ir.py:45
              %16 = select kind(%9, %14, %15) : f32[]  # test_ir.py:45
              %17 = kind tag(0) : i32[]  # test_ir.py:44
              %18 = asarray(0) : i64[]~py  # test_ir.py:44
              yield %17, %16, %18
            }
          return %6
        }""")
    assert "lax.fori_loop" in e.lowered_source


def _loc():
    return Loc("f.py", 1, 0)


def test_verifier_rejects_use_before_definition():
    t = ArrayType((), np.dtype("float32"))
    a, b = Value(t), Value(t)
    op = CallOp([b], _loc(), jnp.negative, None, [a], "neg")
    import jax

    op.treedef = jax.tree_util.tree_structure(((0,), {}))
    graph = Graph("g", [], [], Region(ops=[op], yields=[b]))
    with pytest.raises(VerificationError, match="used before its definition"):
        verify(graph)


def test_verifier_rejects_branch_type_mismatch():
    f32, i32 = ArrayType((), np.dtype("float32")), ArrayType((), np.dtype("int32"))
    p, x, y = Value(ArrayType((), np.dtype(bool))), Value(f32), Value(i32)
    op = IfOp([Value(f32)], _loc(), p, Region(yields=[x]), Region(yields=[y]))
    graph = Graph("g", [p, x, y], ["p", "x", "y"], Region(ops=[op], yields=op.results))
    with pytest.raises(VerificationError, match="branch yields"):
        verify(graph)


def test_dot_export_and_networkx():
    e = explain(to_static(branchy, full_graph=True))(jnp.ones(3))
    graph = e.graphs[0].spec.graph
    g = to_networkx(graph)
    assert g.number_of_nodes() >= 5 and g.number_of_edges() >= 3
    dot = to_dot(graph)
    assert dot.startswith('digraph "branchy"') and "->" in dot and "if %" in dot
    assert print_graph(graph) == e.ir_text
