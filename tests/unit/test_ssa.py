"""Unit tests of ast2graph.ssa: CFG shape, liveness, reaching definitions, SSA."""

from __future__ import annotations

import textwrap

import gast
import pytest

from ast2graph.ssa import (
    ForNext,
    HandlerEnter,
    IfTest,
    LoopTest,
    analyze,
    build_cfg,
    compute_liveness,
    construct_ssa,
    reaching_definitions,
)
from ast2graph.ssa.reaching import Definition


def parse(src: str) -> gast.FunctionDef:
    return gast.parse(textwrap.dedent(src)).body[0]


def info_of(src: str):
    tree = parse(src)
    return tree, analyze(tree)


def edges(cfg) -> set[tuple[int, int]]:
    return set(cfg.graph.edges)


def block_of(cfg, node) -> int:
    return cfg.stmt_loc[node][0]


# -- CFG shape ---------------------------------------------------------------
DIAMOND = """
def f(c):
    if c:
        y = 1
    else:
        y = 2
    return y
"""


def test_cfg_if_else_diamond():
    tree = parse(DIAMOND)
    cfg = build_cfg(tree)
    assert cfg.graph.number_of_nodes() == 5
    assert edges(cfg) == {(0, 1), (0, 2), (1, 3), (2, 3), (3, 4)}
    assert (cfg.entry, cfg.exit) == (0, 4)
    assert cfg.block(0).stmts == [IfTest(tree.body[0])]
    assert cfg.block(1).stmts == [tree.body[0].body[0]]
    assert cfg.block(3).stmts == [tree.body[1]]
    assert cfg.block(4).stmts == []
    assert cfg.join[tree.body[0]] == 3


def test_cfg_if_without_else():
    cfg = build_cfg(parse("""
        def f(c):
            x = 0
            if c:
                x = 1
            return x
    """))
    assert edges(cfg) == {(0, 1), (0, 2), (1, 2), (2, 3)}
    assert cfg.block(0).defs == {"x"} and cfg.block(0).uses == {"c"}


def test_cfg_elif_chain():
    tree = parse("""
        def f(a, b):
            if a:
                x = 1
            elif b:
                x = 2
            else:
                x = 3
            return x
    """)
    cfg = build_cfg(tree)
    assert cfg.graph.number_of_nodes() == 8
    assert edges(cfg) == {(0, 1), (0, 2), (1, 6), (2, 3), (2, 4), (3, 5), (4, 5),
                          (5, 6), (6, 7)}
    inner = tree.body[0].orelse[0]
    assert block_of(cfg, inner) == 2 and cfg.join[inner] == 5


def test_cfg_while():
    tree = parse("""
        def f(n):
            i = 0
            while i < n:
                i = i + 1
            return i
    """)
    cfg = build_cfg(tree)
    loop = tree.body[1]
    assert edges(cfg) == {(0, 1), (1, 2), (2, 1), (1, 3), (3, 4)}
    assert cfg.header[loop] == 1
    assert cfg.block(1).stmts == [LoopTest(loop)]


def test_cfg_for_else_with_break():
    tree = parse("""
        def f(xs):
            for x in xs:
                if x:
                    break
            else:
                x = 0
            return x
    """)
    cfg = build_cfg(tree)
    loop = tree.body[0]
    header = cfg.header[loop]
    brk = block_of(cfg, loop.body[0].body[0])
    orelse = block_of(cfg, loop.orelse[0])
    after = cfg.after[loop][0]
    assert cfg.block(header).stmts == [ForNext(loop)]
    assert cfg.preds(orelse) == [header]           # else runs on exhaustion
    assert cfg.succs(brk) == [after]               # break skips the else
    assert cfg.preds(after) == sorted([brk, orelse])
    assert len(cfg.preds(header)) == 2             # entry edge + back edge


def test_cfg_nested_loops():
    tree = parse("""
        def f(n, m):
            t = 0
            for i in range(n):
                j = 0
                while j < m:
                    t = t + i * j
                    j = j + 1
            return t
    """)
    cfg = build_cfg(tree)
    outer, inner = tree.body[1], tree.body[1].body[1]
    ho, hi = cfg.header[outer], cfg.header[inner]
    assert (ho, hi) == (1, 3)
    assert edges(cfg) == {(0, 1), (1, 2), (1, 6), (2, 3), (3, 4), (3, 5), (4, 3),
                          (5, 1), (6, 7)}


def test_cfg_return_in_branch():
    tree = parse("""
        def f(c):
            if c:
                return 1
            y = 2
            return y
    """)
    cfg = build_cfg(tree)
    # the join after the if holds `y = 2`; the then-branch goes to the exit
    assert edges(cfg) == {(0, 1), (0, 2), (1, 3), (2, 3)}
    assert cfg.exit == 3


def test_cfg_try_except():
    tree = parse("""
        def f():
            try:
                a = g()
                b = h(a)
            except E:
                a = 0
            return a
    """)
    cfg = build_cfg(tree)
    handler = tree.body[0].handlers[0]
    hb = block_of(cfg, handler)
    assert cfg.block(hb).stmts[0] == HandlerEnter(handler)
    # before the try, and after each statement of the body
    assert cfg.preds(hb) == [0, 1, 2]
    assert edges(cfg) == {(0, 1), (0, 3), (1, 2), (1, 3), (2, 3), (2, 4), (3, 4), (4, 5)}


def test_cfg_try_finally_break_goes_through_finally():
    tree = parse("""
        def f(xs):
            for x in xs:
                try:
                    break
                finally:
                    done = 1
            return 0
    """)
    cfg = build_cfg(tree)
    loop = tree.body[0]
    brk = block_of(cfg, loop.body[0].body[0])
    fin = block_of(cfg, loop.body[0].finalbody[0])
    after = cfg.after[loop][0]
    assert fin in cfg.succs(brk)
    assert after in cfg.succs(fin) and cfg.exit in cfg.succs(fin)


def test_cfg_dead_code_kept_unreachable():
    tree = parse("""
        def f(x):
            return x
            y = x + 1
            return y
    """)
    info = analyze(tree)
    dead = block_of(info.cfg, tree.body[1])
    assert info.cfg.preds(dead) == []
    assert dead not in info.cfg.reachable
    assert info.live_in(tree.body[1]) == frozenset()
    assert info.maybe_undefined(tree.body[2]) == frozenset()
    assert "(unreachable)" in info.dump()


def test_cfg_every_nested_statement_is_mapped():
    tree, info = info_of("""
        def f(a):
            with open(a) as fh:
                for line in fh:
                    try:
                        v = int(line)
                    except ValueError as e:
                        continue
                    match v:
                        case 0:
                            pass
                        case _:
                            while v:
                                v -= 1
            return a
    """)
    for node in gast.walk(tree):
        if isinstance(node, gast.stmt) and node is not tree:
            info.live_in(node), info.live_out(node), info.maybe_undefined(node)


def test_cfg_rejects_non_function():
    with pytest.raises(TypeError):
        build_cfg(gast.parse("x = 1"))


# -- liveness --------------------------------------------------------------
def test_liveness_dead_after_last_use():
    tree, info = info_of("""
        def f(a):
            x = a * 2
            y = x + 1
            return y
    """)
    assert info.live_in(tree.body[1]) == {"x"}
    assert info.live_out(tree.body[1]) == {"y"}
    assert info.live_in(tree.body[0]) == {"a"}


def test_liveness_loop_carried_live_at_header():
    tree = parse("""
        def f(n):
            i = 0
            s = 0
            while i < n:
                s = s + i
                i = i + 1
            return s
    """)
    cfg = build_cfg(tree)
    live = compute_liveness(cfg)
    assert live.live_in[cfg.header[tree.body[2]]] == {"i", "n", "s"}
    assert live.live_out[cfg.exit] == frozenset()


def test_liveness_compound_live_out_is_after_whole_statement():
    tree, info = info_of("""
        def f(c, a):
            if c:
                t = a
            else:
                t = 0
            return t
    """)
    assert info.live_in(tree.body[0]) == {"a", "c"}
    assert info.live_out(tree.body[0]) == {"t"}


def test_liveness_unreachable_join_has_empty_live_out():
    tree, info = info_of("""
        def f(c):
            if c:
                return 1
            else:
                return 2
    """)
    assert info.live_out(tree.body[0]) == frozenset()
    assert info.if_results(tree.body[0]) == ()


def test_liveness_del_kills_and_globals_are_ignored():
    tree, info = info_of("""
        def f(a):
            global G
            x = a
            del x
            G = len(a)
            return G
    """)
    assert info.live_out(tree.body[1]) == {"a", "x"}   # `del x` reads x (it raises where x is unbound)
    assert info.live_in(tree.body[3]) == {"a"}         # and kills it


def test_liveness_nested_scope_free_names_are_uses():
    tree, info = info_of("""
        def f(a):
            k = 3
            def g(y):
                return y + k
            h = lambda z: z * a
            return g, h
    """)
    assert "k" in info.live_in(tree.body[1])
    assert "a" in info.live_in(tree.body[2])
    assert info.assigned(tree.body) == {"k", "g", "h"}


def test_liveness_comprehension_targets_are_local():
    tree, info = info_of("""
        def f(xs, b):
            ys = [x + b for x in xs if x]
            return ys
    """)
    assert info.live_in(tree.body[0]) == {"xs", "b"}
    assert info.assigned(tree.body[0]) == {"ys"}


# -- reaching definitions / maybe_undefined ----------------------------------
def test_maybe_undefined_one_branch_only():
    tree, info = info_of("""
        def f(c):
            if c:
                y = 1
            return y
    """)
    assert info.maybe_undefined(tree.body[1]) == {"y"}


def test_maybe_undefined_both_branches():
    tree, info = info_of(DIAMOND)
    assert info.maybe_undefined(tree.body[1]) == frozenset()
    assert info.maybe_undefined(tree.body[0]) == frozenset()


def test_maybe_undefined_for_target_after_loop():
    tree, info = info_of("""
        def f(xs):
            for i in xs:
                pass
            return i
    """)
    assert info.maybe_undefined(tree.body[1]) == {"i"}


def test_maybe_undefined_after_del_on_one_path():
    tree, info = info_of("""
        def f(c):
            x = 1
            if c:
                del x
            return x
    """)
    assert info.maybe_undefined(tree.body[2]) == {"x"}


def test_maybe_undefined_while_true_with_break():
    tree, info = info_of("""
        def f(g):
            while True:
                x = g()
                if x:
                    break
            return x
    """)
    assert info.maybe_undefined(tree.body[1]) == frozenset()


def test_maybe_undefined_try_body_var_in_finally():
    tree, info = info_of("""
        def f(g):
            try:
                q = g()
            finally:
                print(q)
            return q
    """)
    fin = tree.body[0].finalbody[0]
    assert info.maybe_undefined(fin) == {"q"}


def test_maybe_undefined_handler_that_reraises():
    tree, info = info_of("""
        def f(g):
            try:
                q = g()
            except ValueError:
                raise
            return q
    """)
    assert info.maybe_undefined(tree.body[1]) == frozenset()


def test_maybe_undefined_except_name_is_unbound_after_handler():
    tree, info = info_of("""
        def f(g):
            try:
                g()
            except ValueError as e:
                pass
            return e
    """)
    assert info.maybe_undefined(tree.body[1]) == {"e"}


def test_reaching_definitions_sets():
    tree = parse(DIAMOND)
    cfg = build_cfg(tree)
    rd = reaching_definitions(cfg)
    then_def, else_def = tree.body[0].body[0], tree.body[0].orelse[0]
    ret = cfg.stmt_loc[tree.body[1]]
    assert rd.at(*ret) == {Definition("c", "param"), Definition("y", then_def),
                           Definition("y", else_def)}
    assert rd.rd_in[cfg.entry] == {Definition("c", "param"),
                                   Definition("y", "entry", True)}


def test_walrus_in_if_test_defines_before_branches():
    tree, info = info_of("""
        def f(g):
            if (n := g()) > 0:
                r = n
            else:
                r = -n
            return r
    """)
    assert info.maybe_undefined(tree.body[0].body[0]) == frozenset()
    assert info.assigned(tree.body[0]) == {"n", "r"}


def test_match_capture_only_in_its_case():
    tree, info = info_of("""
        def f(p):
            match p:
                case [a, b]:
                    r = a + b
                case _:
                    r = 0
            return r
    """)
    case0 = tree.body[0].cases[0]
    assert info.maybe_undefined(case0.body[0]) == frozenset()
    assert info.maybe_undefined(tree.body[1]) == frozenset()
    assert info.assigned(tree.body[0]) == {"a", "b", "r"}


# -- SSA -------------------------------------------------------------------
def test_loop_carried_accumulator():
    tree, info = info_of("""
        def f(x, n):
            acc = 0
            for i in range(n):
                acc = acc + x[i]
            return acc
    """)
    assert info.loop_carried(tree.body[1]) == ("acc",)


def test_loop_carried_excludes_for_target_even_if_live_after():
    tree, info = info_of("""
        def f(xs):
            s = 0
            for i in xs:
                s = s + i
            return s, i
    """)
    header = info.cfg.header[tree.body[1]]
    assert set(info.phis()[header]) == {"i", "s"}
    assert info.loop_carried(tree.body[1]) == ("s",)


def test_loop_carried_while_two_vars():
    tree, info = info_of("""
        def f(n):
            i = 0
            s = 0
            t = 5
            while i < n:
                tmp = s + i
                s = tmp
                i = i + 1
            return s
    """)
    assert info.loop_carried(tree.body[3]) == ("i", "s")


def test_if_results_diamond():
    tree, info = info_of(DIAMOND)
    assert info.if_results(tree.body[0]) == ("y",)


def test_if_results_dead_after_branch_is_not_a_result():
    tree, info = info_of("""
        def f(c, a):
            y = 0
            if c:
                t = a + 1
                y = t
            return y
    """)
    assert info.if_results(tree.body[1]) == ("y",)
    assert info.assigned(tree.body[1]) == {"t", "y"}


def test_if_results_one_branch_var_live_after():
    tree, info = info_of("""
        def f(c):
            if c:
                y = 1
            return y
    """)
    assert info.if_results(tree.body[0]) == ("y",)
    join = info.cfg.join[tree.body[0]]
    assert info.phis()[join]["y"] == [(0, "y.undef"), (1, "y.1")]


def test_phis_and_versions_diamond():
    tree, info = info_of(DIAMOND)
    assert info.phis() == {3: {"y": [(1, "y.1"), (2, "y.2")]}}
    versions = info.versions()
    param = tree.args.args[0]
    assert versions[param] == "c.0"
    assert versions[tree.body[0].test] == "c.0"
    assert versions[tree.body[0].body[0].targets[0]] == "y.1"
    assert versions[tree.body[0].orelse[0].targets[0]] == "y.2"
    assert versions[tree.body[1].value] == "y.3"
    assert "y.3 = phi(b1: y.1, b2: y.2)" in info.dump()


def test_versions_undefined_use_and_augassign():
    tree, info = info_of("""
        def f():
            x += 1
            return x
    """)
    target = tree.body[0].target
    assert info.versions()[target] == "x.1"
    assert info.ssa.aug_loads[target] == "x.undef"
    assert info.maybe_undefined(tree.body[0]) == {"x"}


def test_construct_ssa_loop_phi_operands():
    tree = parse("""
        def f(n):
            i = 0
            while i < n:
                i = i + 1
            return i
    """)
    cfg = build_cfg(tree)
    ssa = construct_ssa(cfg, compute_liveness(cfg))
    header = cfg.header[tree.body[1]]
    assert ssa.phis[header] == {"i": [(0, "i.1"), (2, "i.3")]}
    assert ssa.phi_versions[header] == {"i": "i.2"}
    assert ssa.idom[header] == 0 and header in ssa.frontiers[2]


def test_assigned_scoping_rules():
    tree, info = info_of("""
        def f(xs):
            global G
            G = 1
            ys = [(w := x) for x in xs]
            class C:
                inner = 1
            def g(a):
                b = a
            import os.path
            return ys
    """)
    assert info.assigned(tree.body) == {"ys", "w", "C", "g", "os"}
    assert info.assigned(tree.body[2]) == {"ys", "w"}


def test_analysis_does_not_mutate_tree():
    tree = parse("""
        def f(a, *b, c=1, **d):
            for i in a:
                try:
                    with open(i) as fh:
                        c += len(fh.read())
                except OSError as e:
                    raise
            return c
    """)
    before = gast.dump(tree)
    analyze(tree).dump()
    assert gast.dump(tree) == before


def _corpus_functions():
    """Every function defined in ast2graph's own source, the construct-by-
    construct syntax tests, the examples and the program corpora: thousands
    of real CFGs (loops, try, with, match, del, comprehensions, nested defs).
    (The rest of the test suite adds some 6,000 short test functions and
    nothing these lack.)"""
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2]
    for path in sorted([*root.glob("ast2graph/**/*.py"), *root.glob("tests/syntax/**/*.py"), *root.glob("examples/*.py"),
                        *root.glob("benchmarks/hunt/*.py"), *root.glob("benchmarks/corpus16/*.py")]):
        module = gast.parse(path.read_text())
        for node in gast.walk(module):
            if isinstance(node, gast.FunctionDef):
                yield f"{path.relative_to(root)}:{node.name}", node


def test_maybe_unbound_equals_reaching_definitions_on_live_names():
    """The liveness-bounded analysis the lowering uses gives, at every point
    and for every live name, the answer of full reaching definitions."""
    from ast2graph.ssa import maybe_unbound

    checked = 0
    for label, fn in _corpus_functions():
        cfg = build_cfg(fn)
        liveness = compute_liveness(cfg)
        fast, full = maybe_unbound(cfg, liveness), reaching_definitions(cfg)
        for b in sorted(cfg.reachable):
            for i in range(len(cfg.block(b).stmts) + 1):
                live = liveness.at(b, i)
                assert fast.at(b, i) & live == full.undefined_at(b, i) & live, f"{label}: block {b}, entry {i}"
                checked += 1
    assert checked > 10_000
