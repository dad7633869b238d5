"""The nesting matrix: generated programs with `if`, `while` and `for` inside
and after one another up to three deep, static and traced conditions, and
`break`/`continue`/`return` under static and traced guards at every depth
(tests/syntax/nesting.py). Each program is written to a module file, imported,
and compared with its eager run on inputs that take different paths.

A case is expected to be one graph with no fallback on every input, unless it
is listed in FALLBACKS with the codes it falls back with today. Its decisions
must be modes that construct can have, and every level on a traced condition
that tracing reaches (no static-guard exit above it) must have its traced mode:
`lax.cond`/`lax.switch`, `lax.while_loop`, `lax.fori_loop`; a traced-guard exit
becomes a carried flag (`return` outside loops: `joined`)."""

from __future__ import annotations

import importlib.util
import sys

import jax.numpy as jnp
import pytest

from helpers import check

from .common import BIG, NEG, X
from .coverage import covers
from .nesting import cases, source

CASES = cases()
INPUTS = [(X, 2), (NEG, 0), (BIG, 3)]    # (x, n): m is n as a traced int32 scalar

# case id -> the fallback codes it has today (on the inputs where it falls back)
FALLBACKS: dict[str, set[str]] = {}

ALLOWED = {
    "if": {"pruned", "lax.cond", "lax.switch"},
    "while": {"static", "unrolled", "peeled", "lax.while_loop"},
    "for": {"static", "unrolled", "lax.fori_loop"},
    "boolop": {"static", "select"},
    "exit": {"flag"},
    "return": {"joined"},
    "kinds": {"per kind"},   # a value of path-dependent kind computed with (pathkinds.py)
}
TRACED_MODE = {"if": {"lax.cond", "lax.switch"}, "while": {"lax.while_loop"}, "for": {"lax.fori_loop"}}


def expected_modes(case) -> list[set[tuple[str, str]]]:
    """For each level that tracing must reach on a traced condition, the decisions
    (any one of a set) it must produce; the same for a traced-guard exit."""
    parents = case.parents()
    blocked = set()   # levels below a static-guard exit: skipped whenever the guard's level runs
    if case.exit and case.exit[2] == "s":
        blocked.add(case.exit[1] - 1)

    def reached(k):
        p = parents[k]
        while p is not None:
            if p in blocked:
                return False
            p = parents[p]
        return True

    out = []
    for k, (kind, cond) in enumerate(case.levels):
        if cond == "t" and reached(k):
            out.append({(kind, m) for m in TRACED_MODE[kind]})
    if case.exit and case.exit[2] == "t" and reached(case.exit[1] - 1):
        kind, level, _ = case.exit
        inside_loop = any(case.levels[k][0] != "if" for k in _ancestors_or_self(parents, level - 1))
        if kind == "return" and not inside_loop:
            out.append({("return", "joined")})
        else:
            out.append({("exit", "flag")})
    return out


def _ancestors_or_self(parents, k):
    while k is not None:
        yield k
        k = parents[k]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    path = tmp_path_factory.mktemp("nesting") / "a2g_nesting_matrix.py"
    path.write_text(source(CASES))
    spec = importlib.util.spec_from_file_location("a2g_nesting_matrix", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


@covers("If", "lax.cond", "nesting matrix: `if` inside/after `if`/`while`/`for`, 1-3 deep, static and traced")
@covers("While", "lax.while_loop", "nesting matrix: `while` inside/after `if`/`while`/`for`, 1-3 deep, static and traced")
@covers("For", "lax.fori_loop", "nesting matrix: `for` inside/after `if`/`while`/`for`, 1-3 deep, static and traced n")
@covers("Break", "flag", "nesting matrix: `break` under static/traced guards at depths 1-3")
@covers("Continue", "flag", "nesting matrix: `continue` under static/traced guards at depths 1-3")
@covers("Return", "joined", "nesting matrix: `return` under static/traced guards at depths 1-3")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_nesting(case, generated):
    fn = getattr(generated, case.name)
    seen: set[str] = set()
    decisions: set[tuple[str, str]] = set()
    for x, n in INPUTS:
        e = check(fn, x, n, jnp.asarray(n, dtype=jnp.int32), full_graph=False)
        seen |= {s.code.code for s in e.fallback_sites}
        if not e.fallback_sites:
            assert e.graph_count == 1, str(e)
        decisions |= {(d.construct, d.mode) for d in e.decisions}
    assert seen == FALLBACKS.get(case.id, set())
    for construct, mode in decisions:
        assert mode in ALLOWED[construct], (construct, mode)
    for options in expected_modes(case):
        assert options & decisions, f"none of {sorted(options)} in {sorted(decisions)}"
