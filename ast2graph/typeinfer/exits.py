"""Early exits: ``break``, ``continue`` and ``return`` inside loops.

Requires: the ``Specializer`` state (mixed into ``ControlMixin``) and its
continuation stack ``cont``, on which every loop body pushes its ``LoopCtx``.
Produces: exits under traced conditions as explicit values. Each loop gets
three pseudo-variables in the environment: its break flag (set by ``break``
and by ``return``), its return flag and its return value. A traced ``if``
whose branches exit differently runs every branch to the end of the loop body
(the statements after the ``if`` go into the branches that did not exit) and
yields the carried variables plus the flags. Loops then carry the flags:
a ``while`` tests ``not broke and test``; a rolled ``for`` and later unrolled
iterations run their body under ``if not broke``; after the loop, ``else:``
runs when no break happened and the return flag becomes an ``if`` that
returns the return value (the rest of the function then runs in the other
branch, see ``ControlMixin._traced_branches``).
Invariants: the flags are static ``False`` until an exit is traced, so loops
without traced exits carry nothing extra.

Reference semantics of a loop body with a traced ``break`` (eager Python)::

    for x in xs:               broke = False
        a(x)                   for x in xs:
        if c(x): break             if not broke:
        b(x)                           a(x)
                                       if c(x): broke = True
                                       else:    b(x)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import gast
import jax
import jax.numpy as jnp

from ..fallback.sites import FallbackCode
from ..ir.core import KindedValue, Region, TreeVariant, Value
from .nnx import is_nnx
from ..graphlib.trees import tree_flatten
from .state import UNBOUND, BreakSignal, ContinueSignal, ControlSignal, MaybeBound, ReturnSignal


class BodyEnd(ControlSignal):
    """The rest of a loop body already ran inside the branches of an ``if``."""


# ``LoopCtx.held`` of a loop whose iterable is not known (a ``while``, an iterator)
UNKNOWN_ITERABLE = object()


@dataclass
class LoopCtx:
    stmt: Any
    names: list[str]
    brk: str
    ret: str
    retval: str
    flags: list[str] = field(default_factory=list)
    # what a static ``for`` iterates (a list, a range): what its later items
    # come from (``mutation._rebindable``); UNKNOWN_ITERABLE otherwise
    held: Any = UNKNOWN_ITERABLE

    @property
    def all_names(self) -> list[str]:
        return self.names + [self.brk, self.ret, self.retval]


@dataclass(eq=False)
class TryCtx:
    """The body of a ``try`` with ``finally:`` (or of a ``with`` on a
    manager whose ``__exit__`` is converted): a ``break``, ``continue`` or
    ``return`` under a traced condition in it sets a flag, the rest of the
    body runs in the other branches, the ``finally:`` (the exit) runs once
    after the body on every path, then the flags re-raise the exit
    (``blocks.BlocksMixin.guarded_body``)."""

    stmt: Any
    names: list[str]
    brk: str
    cnt: str
    ret: str
    retval: str
    # a ``try`` with handlers: a flag per ``raise`` of its body (by the node's id) that a
    # handler takes under a traced condition (``CaughtSignal``), and the (handler, exception)
    # each took
    sites: dict = field(default_factory=dict)
    caught: dict = field(default_factory=dict)
    depth: int = 0
    frame: Any = None
    protectors: int = 0
    lookup: Any = None   # exception -> the handler taking it, or None

    @property
    def all_names(self) -> list[str]:
        return self.names + [self.brk, self.cnt, self.ret, self.retval] + list(self.sites.values())


class ExitsMixin:
    def new_loop(self, stmt: Any) -> LoopCtx:
        """Start a loop: its flags are static False until an exit is traced."""
        ssa = self.frame.unit.ssa
        names = sorted(set(ssa.loop_carried(stmt)) | (ssa.assigned(stmt) & ssa.live_out(stmt))
                       | self.nonlocal_rebound(stmt))
        key = f"{stmt.lineno}:{stmt.col_offset}:{id(stmt)}"
        ctx = LoopCtx(stmt, names, f"<break {key}>", f"<return {key}>", f"<retval {key}>")
        env = self.frame.env
        env[ctx.brk], env[ctx.ret] = False, False
        env.pop(ctx.retval, None)
        self.frame.local_names = self.frame.local_names | {ctx.brk, ctx.ret, ctx.retval}
        return ctx

    def nonlocal_rebound(self, stmt: Any) -> set[str]:
        """This frame's variables, bound before loop ``stmt``, that a nested
        function of it rebinds (``nonlocal best``) and the loop's body may
        call: carried by the loop like its own (``interpreter.nonlocal_depth``)."""
        tree = self.frame.unit.tree
        declared: set[str] = set()
        for node in gast.walk(tree):
            if isinstance(node, gast.Nonlocal):
                declared.update(node.names)
        if not declared or not any(isinstance(n, gast.Call) for n in gast.walk(stmt)):
            return set()
        env = self.frame.env
        return {n for n in declared if self.frame.owns(n) and n in env and env[n] is not UNBOUND
                and not isinstance(env[n], MaybeBound)}

    def nearest_loop(self) -> LoopCtx | TryCtx | None:
        """The loop body (or ``try`` body with ``finally:``) an exit under a
        traced condition ends: its rest runs in the branches that do not exit."""
        for entry in reversed(self.cont):
            if isinstance(entry, (LoopCtx, TryCtx)):
                return entry
            if not isinstance(entry, tuple):
                return None
        return None

    def run_body(self, stmt: Any, ctx: LoopCtx) -> None:
        """One iteration of the body; an exit sets the loop's flags."""
        env_of = lambda: self.frame.env  # noqa: E731 - the env is replaced by branches
        self.loop_depth += 1
        self.cont.append(ctx)
        self.loops_held.append(ctx.held)
        try:
            self.exec_block(stmt.body)
        except BreakSignal:
            env_of()[ctx.brk] = True
        except ContinueSignal:
            pass
        except ReturnSignal as r:
            env = env_of()
            env[ctx.brk], env[ctx.ret], env[ctx.retval] = True, True, r.value
        except BodyEnd:
            pass
        finally:
            self.cont.pop()
            self.loops_held.pop()
            self.loop_depth -= 1

    def guarded_iteration(self, stmt: Any, ctx: LoopCtx, run: Callable[[], None]) -> bool:
        """Run one iteration unless the loop has broken; False once it has."""
        broke = self.frame.env[ctx.brk]
        if broke is True:
            return False
        if isinstance(broke, Value):
            skip = self.emit_call(jnp.logical_not, (broke,), {}, stmt, "not")
            self._traced_branches(stmt, skip, [run, lambda: None], ctx.all_names, set(ctx.all_names))
        else:
            run()
        return True

    def run_loop_continuation(self, ctx: LoopCtx) -> None:
        """Run the rest of the loop body after the current statement."""
        saved = self.cont
        depth = saved.index(ctx)
        try:
            for j in range(len(saved) - 1, depth, -1):
                stmts, i = saved[j]
                self.cont = saved[:j]
                self.exec_block(stmts[i + 1:])
        finally:
            self.cont = saved
        raise BodyEnd(None)

    def _branches_ending_body(self, node: Any, pred: Value, branches: list, env0: dict, ctx: LoopCtx | TryCtx,
                              switch: bool) -> None:
        if isinstance(ctx, TryCtx):
            self.branches_ending_try(node, pred, branches, env0, ctx, switch)
        outs = [self._run_branch(run, env0, node, rest=ctx) for run in branches]
        kinds = sorted({out[0] for _, _, out in outs})
        for _, env, (kind, _, value) in outs:
            if kind in ("break", "return"):
                env[ctx.brk] = True
            if kind == "return":
                env[ctx.ret], env[ctx.retval] = True, value
        self.decide(node, "exit", "flag", f"{'/'.join(k for k in kinds if k != 'end')} under a traced condition: "
                    "the rest of the loop body runs in the other branches; a flag is carried")
        self.frame.env = dict(env0)
        self._join_and_emit(node, pred, [(r, env) for r, env, _ in outs], ctx.all_names, switch)
        raise BodyEnd(node)

    def _fill_placeholders(self, node: Any, outs: list[tuple[Region, dict]], names: list[str]) -> None:
        """A return value bound on some branches only: zeros of its type elsewhere
        (never observed: the return flag is False on those branches)."""
        for name in names:
            bound = [env[name] for _, env in outs if name in env and env[name] is not UNBOUND]
            if not bound or len(bound) == len(outs):
                continue
            # (a value of path-dependent kind: zeros for its tag and each variant)
            leaves, treedef = tree_flatten(bound[0], is_leaf=lambda x: isinstance(x, Value) and type(x) not in (KindedValue, TreeVariant)
                                           or is_nnx(x))
            for region, env in outs:
                if env.get(name, UNBOUND) is UNBOUND:
                    with self.in_region(region):
                        dummy = [self._zeros(x.type, node) if isinstance(x, Value) else x for x in leaves]
                    env[name] = jax.tree_util.tree_unflatten(treedef, dummy)

    def after_loop(self, stmt: Any, ctx: LoopCtx) -> None:
        """The return flag, else ``else:`` when no break happened; drop the flags.
        (A return sets the break flag too, so testing it first is eager's
        order; and ``else:`` may itself exit an enclosing loop, after which
        nothing of this statement runs: it must sit in the non-returning branch.)"""
        env = self.frame.env
        broke, returned = env.pop(ctx.brk, False), env.pop(ctx.ret, False)
        retval = env.pop(ctx.retval, UNBOUND)
        if returned is True or isinstance(returned, Value) and _exits_only_by_return(stmt):
            # ``while True:`` with no ``break``: when it ends, it returned (the other path is
            # unreachable; joining it would pair the return value with the implicit None)
            raise ReturnSignal(stmt, retval)
        if isinstance(returned, Value) and not stmt.orelse and self.checked_rest_of_function(stmt, returned):
            # ``for ...: if done: return x`` then only a raise to the function's end
            # (``raise RuntimeError("did not converge")``): the raise is a run-time check
            # under ``not returned``, then the loop's return is taken unconditionally
            raise ReturnSignal(stmt, retval)
        if isinstance(returned, Value):
            def ret() -> None:
                raise ReturnSignal(stmt, retval)

            names, assigned = self._else_names(stmt)
            self._traced_branches(stmt, returned, [ret, lambda: self._loop_else(stmt, broke)], names, assigned)
            return
        self._loop_else(stmt, broke)

    def _else_names(self, stmt: Any) -> tuple[list[str], set[str]]:
        ssa = self.frame.unit.ssa
        assigned = ssa.assigned(stmt.orelse) if stmt.orelse else set()
        return sorted(assigned & ssa.live_out(stmt)), assigned

    def _loop_else(self, stmt: Any, broke: Any) -> None:
        """``else:`` of a loop: when it did not break."""
        if stmt.orelse and broke is False:
            self.exec_block(stmt.orelse)
        elif stmt.orelse and isinstance(broke, Value) and self.checked_loop_else(stmt, broke):
            pass   # ``else: raise RuntimeError(...)``: a run-time check under ``not broke``
        elif stmt.orelse and isinstance(broke, Value):
            names, assigned = self._else_names(stmt)
            self._traced_branches(stmt, broke, [lambda: None, lambda: self.exec_block(stmt.orelse)], names, assigned)

    def check_target_after_break(self, stmt: Any, ctx: LoopCtx, state: dict) -> None:
        """A rolled ``for`` cannot tell the loop variable's value at a traced break."""
        target = self._target_names(stmt) & self.frame.unit.ssa.live_out(stmt)
        flag = state.get(ctx.brk)
        if target and flag is not False and not (flag is True):
            raise self.graph_break(FallbackCode.EARLY_EXIT, stmt, f"loop variable {sorted(target)} is used after a rolled loop with a traced break", "for")


def _exits_only_by_return(stmt: Any) -> bool:
    """A ``while`` on a true constant (``while True:``, ``while 1:``) with no
    ``break`` anywhere in its body: it ends only by ``return`` (or an
    exception), so after it the function has returned."""
    if not isinstance(stmt, gast.While) or not isinstance(stmt.test, gast.Constant) or not stmt.test.value:
        return False
    return not any(isinstance(n, gast.Break) for s in stmt.body for n in gast.walk(s))
