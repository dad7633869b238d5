"""Static analyses of one function for ast2graph: CFG, liveness, reaching
definitions, dominance and pruned SSA.

Requires: a ``gast.FunctionDef`` (gast 0.7), never mutated.
Produces: ``analyze(tree) -> SSAInfo`` and the building blocks ``build_cfg``,
``compute_liveness``, ``reaching_definitions``, ``construct_ssa``.
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

__all__ = [
    "analyze", "SSAInfo", "CFG", "BasicBlock", "build_cfg", "compute_liveness",
    "reaching_definitions", "construct_ssa", "Liveness", "ReachingDefs",
    "Definition", "SSAResult", "IfTest", "LoopEntry", "LoopTest", "ForIter",
    "ForNext", "ForTarget", "WithEnter", "TryEnter", "HandlerEnter",
    "HandlerExit", "MatchSubject", "MatchCase",
]
