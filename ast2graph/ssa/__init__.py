"""Static analyses of one function for ast2graph: CFG, liveness, maybe-unbound
names, dominance and pruned SSA.

Requires: a ``gast.FunctionDef`` (gast 0.7), never mutated.
Produces: ``analyze(tree) -> SSAInfo`` and the building blocks ``build_cfg``,
``compute_liveness``, ``maybe_unbound``, ``construct_ssa``; and
``reaching_definitions``, the full analysis ``maybe_unbound`` agrees with on
live names (the tests' reference).
Invariants: pure syntax (no evaluation, no imports of the user's code); every
name set is restricted to the function's local names.
"""

from __future__ import annotations

from .cfg import (
    CFG,
    BasicBlock,
    ForIter,
    ForNext,
    ForTarget,
    HandlerEnter,
    HandlerExit,
    IfTest,
    LoopEntry,
    LoopTest,
    MatchCase,
    MatchSubject,
    TryEnter,
    WithEnter,
    build_cfg,
)
from .construct import SSAResult, construct_ssa
from .info import SSAInfo, analyze
from .liveness import Liveness, compute_liveness
from .reaching import Definition, ReachingDefs, reaching_definitions
from .unbound import MaybeUnbound, maybe_unbound

__all__ = [
    "analyze", "SSAInfo", "CFG", "BasicBlock", "build_cfg", "compute_liveness",
    "reaching_definitions", "construct_ssa", "Liveness", "ReachingDefs",
    "Definition", "SSAResult", "IfTest", "LoopEntry", "LoopTest", "ForIter",
    "ForNext", "ForTarget", "WithEnter", "TryEnter", "HandlerEnter",
    "HandlerExit", "MatchSubject", "MatchCase", "MaybeUnbound", "maybe_unbound",
]
