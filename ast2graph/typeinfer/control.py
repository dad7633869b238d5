"""Control flow during specialisation: branches and loops, and their decisions.

Requires: the ``Specializer`` state (mixed in) and the unit's ``SSAInfo``:
``live_out`` and ``assigned`` give an ``if``'s results, ``loop_carried`` a
loop's carried values (the phis of the SSA form).
Produces: for each ``if``: pruned (static predicate) or an ``IfOp``; for each
loop: unrolled, evaluated at trace time, or a ``ForOp``/``ScanOp``/``WhileOp``
with carried values solved to a fixpoint with widening; with
``Options.max_iters`` a ``WhileOp`` and a ``ForOp`` with a traced trip count
carry that bound (lowered to a reverse-differentiable ``lax.scan``).
Invariants: branch results and carried values have one type on every path
(conversions are inserted); a variable that cannot have one type, or that is
defined on one path only, raises ``GraphBreak`` naming it.
"""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
from typing import Any, Callable, Iterable, Iterator

import gast
import jax
import numpy as np

from ..fallback.sites import FallbackCode, GraphBreak
from ..ir.core import (ArrayType, CallOp, ForOp, IfOp, KindedValue, Region, ScanOp, SwitchOp, TreeVariant, Value,
                       WhileOp, walk_ops)
from ..graphlib import arrays
from ..graphlib.casts import NARROW
from .exits import UNKNOWN_ITERABLE, BodyEnd, ExitsMixin, LoopCtx
from .lattice import INT_BITS, INT_RANGE, TRACED_INT_BITS, WIDE_INTS, abstract_type, describe, join_types, same_dtype, same_static
from .generators import generators_in
from .listindex import PickedRow
from .masked import MaskedSlice
from .varlist import tail_of
from .containers import _JoinError, _nested_containers
from .mutation import PendingRows
from .nnx import is_nnx
from .pathkinds import (TAG_TYPE, TREE_PREFIX, is_constant_alternative, is_tree_alternative, kind_family, placeholder_key,
                        variants_of)
from ..graphlib.trees import is_record, make_record, tree_flatten
from .carried import Traced as _Traced, flatten_carried as _flatten, flatten_joined as _flatten_joined
from .state import UNBOUND, BreakSignal, CaughtSignal, MaybeBound, ContinueSignal, ControlSignal, ReturnSignal

_MAX_FIXPOINT = 6
_UNROLL_WARNING = 64   # a loop that cannot roll and unrolls more iterations than this warns (once per site)
_NESTED_EXITS = 64     # a while that cannot roll unrolls at most this many iterations past a traced exit
_unroll_warned: set = set()



def _chosen_strings(outs: list, names: list[str]) -> None:
    """A variable holding a different static str on each path of a traced
    ``if`` (``type_err = "NaN"`` / ``"infinity"``): on each path, a deferred
    string choosing its text by a Python int index, which joins as any
    traced int. Its text is formatted on the host where eager uses it (a
    message raised by a run-time check, a print, a result), as an f-string
    of traced values is; comparing or hashing it falls back (a stand-in)."""
    for name in names:
        values = [env.get(name, UNBOUND) for _, env in outs]
        chosen = {v.parts[0][1] for v in values if _choice(v)}   # (one path already chose: a join after a join)
        if len(chosen) > 1 or not all(type(v) is str and v or _choice(v) for v in values) \
                or not chosen and len(set(values)) < 2:
            continue   # (non-empty: a deferred string is true, as each of them is)
        # the options chosen before come first: their indices stay valid
        options = tuple(dict.fromkeys([*(chosen.pop() if chosen else ()), *(v for v in values if type(v) is str)]))
        for (_, env), v in zip(outs, values):
            if type(v) is str:
                env[name] = arrays.DeferredStr(((arrays.CHOICE, options),), (options.index(v),))
            else:
                env[name] = arrays.DeferredStr(((arrays.CHOICE, options),), v.values)


def _choice(v: Any) -> bool:
    """``v`` is a deferred string choosing one of several texts (``_chosen_strings``)."""
    return type(v) is arrays.DeferredStr and len(v.parts) == 1 and not isinstance(v.parts[0], str) \
        and v.parts[0][0] == arrays.CHOICE


# Statements that may precede a checked ``raise`` in its block (they only
# compute its message): bindings of local names and ``if``s, nothing that
# calls a function, writes into an object, or leaves the block
_MESSAGE_STATEMENTS = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.If, gast.Pass)
_MESSAGE_FORBIDDEN = (gast.Call, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                      gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom, gast.Return, gast.Break,
                      gast.Continue, gast.Raise, gast.Global, gast.Nonlocal, gast.Delete, gast.Starred)


def _format_call(n: Any) -> bool:
    """``<expr>.format(a, k=b)`` without unpacking: allowed in a message block,
    where the interpreter checks that ``<expr>`` is a ``str`` (``STR_FORMAT_ONLY``)."""
    return isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr == "format" \
        and not any(isinstance(a, gast.Starred) for a in n.args) and all(k.arg is not None for k in n.keywords)


def _message_block(stmts: list) -> bool:
    """``stmts`` only compute values for a ``raise`` after them (``_MESSAGE_STATEMENTS``;
    attributes read are an array's static ones: ``X.dtype``; the only calls
    are ``str.format``: ``drv_err['ev'].format(info)``, scipy.linalg.eigh)."""
    for stmt in stmts:
        if not isinstance(stmt, _MESSAGE_STATEMENTS):
            return False
        formats = {id(n.func) for n in gast.walk(stmt) if _format_call(n)}
        for n in gast.walk(stmt):
            if isinstance(n, _MESSAGE_FORBIDDEN) and not _format_call(n):
                return False
            if isinstance(n, (gast.Attribute, gast.Subscript)) and not isinstance(n.ctx, gast.Load):
                return False
            if isinstance(n, gast.Attribute) and n.attr not in arrays.STATIC_ARRAY_ATTRS and id(n) not in formats:
                return False
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load) and \
                    not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.If)):
                return False
    return True


def _raises_only(body: list) -> bool:
    """Every path through ``body`` ends in a ``raise E(...)`` (no cause, no
    bare re-raise), and the statements on the way only compute messages
    (``_message_block``) or choose among such paths (``if``)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, gast.Raise):
        head, ok = body[:-1], last.exc is not None and last.cause is None
    elif isinstance(last, gast.If):
        head, ok = body[:-1], _raises_only(last.body) and _raises_only(last.orelse)
    else:
        return False
    for sub in head:
        if isinstance(sub, gast.If) and (_raises_only(sub.body) or _raises_only(sub.orelse)):
            if not _pure_test(sub.test):
                return False
            if not (_raises_only(sub.body) or _message_block(sub.body)) or \
                    not (_raises_only(sub.orelse) or _message_block(sub.orelse)):
                return False
        elif not _message_block([sub]):
            return False
    return ok


def _pure_test(test: Any) -> bool:
    """An ``if`` test that only reads names and static attributes (no call, no store)."""
    for n in gast.walk(test):
        if isinstance(n, _MESSAGE_FORBIDDEN):
            return False
        if isinstance(n, gast.Attribute) and n.attr not in arrays.STATIC_ARRAY_ATTRS:
            return False
    return True


def _ops_since(region: Region, start: int):
    """The ops appended to ``region`` from ``start`` on, nested regions included."""
    for op in region.ops[start:]:
        yield op
        for sub in op.regions():
            yield from walk_ops(sub)

class UnrollWarning(UserWarning):
    """A loop that could not be rolled into one ``lax`` loop was unrolled
    into many copies of its body (compile time grows with them); the
    message names the loop, the iterations and why it could not roll."""


_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


def _reference_counts(values: Iterable, fresh: dict | None = None) -> dict[int, int]:
    """How many places among ``values`` (through tuples, lists, dicts and
    sets; with ``fresh``, the trace's own objects' attributes too) hold each
    list or dict; one counted twice is never walked again."""
    counts: dict[int, int] = {}
    stack = list(values)
    walked: set[int] = set()
    while stack:
        x = stack.pop()
        if type(x) in (list, dict):
            counts[id(x)] = counts.get(id(x), 0) + 1
            if counts[id(x)] > 1:
                continue
        if type(x) in (tuple, list, set, frozenset):
            stack.extend(x)
        elif type(x) is dict:
            stack.extend(x.values())
        elif fresh is not None and id(x) not in walked and fresh.get(id(x), (0, None))[1] is x \
                and isinstance(getattr(x, "__dict__", None), dict):
            walked.add(id(x))
            stack.extend(vars(x).values())   # an object this trace made: its attributes
    return counts


def _container_form(x: Any) -> tuple | None:
    """A tuple's, list's or dict's type and length or keys (in order); None
    for anything else (a leaf of a join)."""
    if is_record(x):   # a SciPy result: its fields and its attributes' names
        return type(x), len(x), tuple(vars(x))
    if type(x) in (tuple, list) or isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return type(x), len(x)
    if type(x) in (dict, collections.defaultdict):
        return type(x), tuple(x)
    return None


class ControlMixin(ExitsMixin):
    # ----------------------------------------------------------------- if
    def exec_If(self, stmt: gast.If) -> None:
        truth = self.truth(self.eval(stmt.test), stmt.test)
        if not isinstance(truth, Value):
            self.decide(stmt, "if", "pruned", f"condition is {truth} at trace time")
            self.exec_block(stmt.body if truth else stmt.orelse)
            return
        if self._checked_raise(stmt, truth):
            return
        preds, bodies, orelse = self._elif_chain(stmt, truth)
        ssa = self.frame.unit.ssa
        names = sorted(ssa.assigned(stmt) & ssa.live_out(stmt))
        runs = [lambda b=b: self.exec_block(b) for b in bodies] + [lambda: self.exec_block(orelse)]
        if len(preds) == 1:   # ``if n is None``: each branch sees what n can be there
            narrowing = self.test_narrowing(stmt.test)
            runs = [self.narrowed(narrowing, True, runs[0]), self.narrowed(narrowing, False, runs[1])]
        mirrored = self._mirror_nonlocals(stmt)
        if mirrored:
            names = sorted(set(names) | set(mirrored))
            runs = [self._with_owners_at_entry(mirrored, run) for run in runs]
        joined = False
        try:
            if len(preds) == 1:
                self.decide(stmt, "if", "lax.cond", "condition is a traced array")
                self._traced_branches(stmt, truth, runs, names, ssa.assigned(stmt) | set(mirrored))
            else:
                self.decide(stmt, "if", "lax.switch", f"if/elif chain of {len(preds)} traced conditions")
                index = self.emit_call(arrays.branch_index, tuple(preds), {}, stmt, "branch_index")
                self._traced_branches(stmt, index, runs, names, ssa.assigned(stmt) | set(mirrored), switch=True)
            joined = True
        finally:
            if mirrored:
                self._unmirror_nonlocals(mirrored, joined)

    def _mirror_nonlocals(self, stmt: gast.If) -> dict[str, tuple]:
        """The enclosing function's variables an inlined nested function
        rebinds (``nonlocal best``) in the traced ``if`` ``stmt``: joined as
        its own variables are. For the ``if``, each is a variable of this
        frame too (read and written here, each write also made in the
        enclosing activation, where a function called in the branch reads
        it); after the join the joined value is the enclosing activation's.
        name -> (owner frame, its value before the ``if``, whether this ``if``
        made it this frame's). Only for an ``if`` on a straight path of the
        enclosing activation, or directly in a branch of such an ``if`` (no
        rolled loop around it: its carry would not see the write), that
        cannot leave the branch early (its continuation would not carry
        them). A write made deeper (a rolled loop in the branch) falls back
        as before (``assign_name``)."""
        frame = self.frame
        declared = frame.unit.scope.declared_nonlocal
        if not declared or frame.parent is None or _exits_branch(stmt):
            return {}
        mirrors = self.__dict__.setdefault("_nonlocal_mirrors", {})
        written = _stored_names(stmt) & declared
        if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Del) and n.id in written for n in gast.walk(stmt)):
            return {}   # (``del best`` on one path: unbound in the enclosing activation)
        out: dict[str, tuple] = {}
        for name in sorted(written):
            stack = mirrors.get((id(frame), name))
            if stack:   # in a branch of an ``if`` that joins it already: this one joins it too
                if stack[-1][1] != len(self.regions):
                    return {}
                out[name] = (stack[-1][0], frame.env.get(name, UNBOUND), False)
                continue
            if len(self.regions) != self.nonlocal_depth(frame, name):
                return {}
            owner = frame.parent
            while owner is not None and not owner.owns(name):
                owner = owner.parent
            out[name] = (owner, owner.env.get(name, UNBOUND) if owner is not None else UNBOUND, True)
        if any(value is UNBOUND or isinstance(value, MaybeBound) for _, value, _ in out.values()):
            return {}
        for name, (owner, value, new) in out.items():
            frame.env[name] = value
            mirrors.setdefault((id(frame), name), []).append((owner, len(self.regions) + 1))   # (the branch's depth)
        frame.local_names = frame.local_names | frozenset(out)
        return out

    def _with_owners_at_entry(self, mirrored: dict, run: Callable[[], None]) -> Callable[[], None]:
        def entry() -> None:   # each branch starts from the enclosing activation as it was before the ``if``
            for name, (owner, value, _) in mirrored.items():
                owner.env[name] = value
            run()
        return entry

    def _unmirror_nonlocals(self, mirrored: dict, joined: bool) -> None:
        """The join's value of each mirrored variable into the enclosing
        activation; where the ``if`` did not join (it falls back), the value
        from before it, in both."""
        frame = self.frame
        mirrors = self.__dict__.get("_nonlocal_mirrors", {})
        for name, (owner, value, new) in mirrored.items():
            if not joined:
                frame.env[name] = value
            owner.env[name] = frame.env.get(name, value)
            mirrors[(id(frame), name)].pop()
            if new:
                frame.env.pop(name, None)
                del mirrors[(id(frame), name)]
                frame.local_names = frame.local_names - {name}

    def _checked_raise(self, stmt: gast.If, truth: Value) -> bool:
        """``if c: raise E(...)`` (or ``else: raise``) on a traced ``c`` with a
        static exception: a run-time check that raises what eager raises, then
        the other branch runs unconditionally (when the check fires, nothing
        after it is observable)."""
        if not self.raise_checks_allowed():
            return False
        for body, other, negate in ((stmt.body, stmt.orelse, False), (stmt.orelse, stmt.body, True)):
            if len(body) == 1 and isinstance(body[0], gast.Raise) and body[0].exc is not None and body[0].cause is None:
                start = len(self.region.ops)
                try:
                    checked = self.checked_exception(body[0].exc, start)
                    if checked is not None:
                        pred = self.emit_call(arrays.logical_not, (truth,), {}, stmt, "not") if negate else truth
                        self.emit_raise_check(pred, body[0], *checked, "raise")
                except GraphBreak:
                    checked = None
                if checked is None:
                    del self.region.ops[start:]
                    return False
                exc = checked[0]
                self.decide(stmt, "if", "checked", f"`raise {(exc if isinstance(exc, type) else type(exc)).__name__}` "
                            "under a traced condition: a run-time check, the call raises as eager does")
                self.exec_block(other)
                return True
        for body, other, negate in ((stmt.body, stmt.orelse, False), (stmt.orelse, stmt.body, True)):
            if len(body) > 1 and isinstance(body[-1], gast.Raise) and body[-1].exc is not None \
                    and body[-1].cause is None and _message_block(body[:-1]):
                return self._checked_raise_block(stmt, truth, body, other, negate)
        for body, other, negate in ((stmt.body, stmt.orelse, False), (stmt.orelse, stmt.body, True)):
            if _raises_only(body) and self._checked_raise_tree(stmt, truth, body, negate):
                self.exec_block(other)
                return True
        rest = self._rest_of_function_body(stmt)
        if rest is not None and not stmt.orelse and stmt.body and isinstance(stmt.body[-1], gast.Return) \
                and _raises_only(rest) and self._checked_raise_tree(stmt, truth, rest, True):
            # ``if c: return x`` then only a raise to the function's end (``raise E(f"... {info}")``):
            # the raise is a check under ``not c``, the return then runs unconditionally
            self.exec_block(stmt.body)
            return True
        return False

    def checked_rest_of_function(self, stmt: Any, returned: Value) -> bool:
        """After a loop of the function's own body that returned under a
        traced condition (its return flag ``returned``), where the rest of the
        function only raises (``_raises_only``: a solver's ``raise
        RuntimeError("did not converge")``): each raise a run-time check under
        ``not returned`` (and the conditions leading to it). True when done:
        the loop's return is then taken on every path (when a check fires,
        nothing after it is observable)."""
        if not self.raise_checks_allowed():
            return False
        rest = self._rest_of_function_body(stmt)
        return rest is not None and _raises_only(rest) and self._checked_raise_tree(stmt, returned, rest, True)

    def checked_loop_else(self, stmt: Any, broke: Value) -> bool:
        """``for ...: if done: break`` / ``else: raise E(...)`` on a traced
        break flag, the ``else:`` only raising (``_raises_only``): each raise a
        run-time check under ``not broke``; the names it binds are as before
        (eager leaves it only by raising). True when done."""
        return self.raise_checks_allowed() and _raises_only(stmt.orelse) \
            and self._checked_raise_tree(stmt, broke, stmt.orelse, True)

    def _rest_of_function_body(self, stmt: gast.If) -> list | None:
        """The statements after ``stmt`` where it is a statement of the
        function's own body (not nested in a loop, branch or handler)."""
        if not self.cont or not isinstance(self.cont[-1], tuple):   # (a segment's own statements: no block)
            return None
        stmts, i = self.cont[-1]
        body = getattr(self.frame.unit.tree, "body", None)
        return stmts[i + 1:] if stmts is body and i < len(stmts) and stmts[i] is stmt else None

    def _checked_raise_tree(self, stmt: gast.If, truth: Value, body: list, negate: bool) -> bool:
        """``if c:`` followed by a block that only ever raises (``_raises_only``:
        ``if info == -4: raise ValueError(msg)`` then ``raise ValueError(f"... {-info}")``):
        each raise a run-time check under the conjunction of the traced
        conditions that lead to it (disjoint: at most one fires, the first
        eager would reach), the statements computing their messages traced as
        pure ops; the names they bind are as before (eager leaves only by
        raising). False (nothing kept) where a part cannot be a check."""
        start = len(self.region.ops)
        env0 = dict(self.frame.env)
        try:
            pred = self.emit_call(arrays.logical_not, (truth,), {}, stmt, "not") if negate else truth
            done = self._emit_raise_tree(body, pred, start)
            ok = done and not any(isinstance(op, CallOp) and not op.results and op.fn is not arrays.raise_when
                                  for op in _ops_since(self.region, start))
        except GraphBreak:
            ok = False
        self.frame.env = env0
        if not ok:
            del self.region.ops[start:]
            return False
        self.decide(stmt, "if", "checked", "a block that only raises under a traced condition: each `raise` a "
                    "run-time check under the conditions leading to it, the call raises as eager does")
        return True

    def _emit_raise_tree(self, body: list, pred: Value, start: int) -> bool:
        for k, sub in enumerate(body):
            if isinstance(sub, gast.Raise):
                since = max([start] + [j + 1 for j, op in enumerate(self.region.ops)
                                       if getattr(op, "fn", None) is arrays.raise_when])   # (after the checks before)
                checked = self.checked_exception(sub.exc, since)
                if checked is None:
                    return False
                self.emit_raise_check(pred, sub, *checked, "raise")
                return True
            if isinstance(sub, gast.If) and (_raises_only(sub.body) or _raises_only(sub.orelse)):
                t = self.truth(self.eval(sub.test), sub.test)
                if not isinstance(t, Value):
                    chosen = sub.body if t else sub.orelse
                    return self._emit_raise_tree(chosen + body[k + 1:], pred, start)
                raising, other, flip = (sub.body, sub.orelse, False) if _raises_only(sub.body) else \
                    (sub.orelse, sub.body, True)
                nt = self.emit_call(arrays.logical_not, (t,), {}, sub, "not")
                inside = self.emit_call(arrays.logical_and, (pred, nt if flip else t), {}, sub, "and")
                outside = self.emit_call(arrays.logical_and, (pred, t if flip else nt), {}, sub, "and")
                if not self._emit_raise_tree(raising, inside, start):
                    return False
                return self._emit_raise_tree(other + body[k + 1:], outside, start)
            with self.str_format_only():
                self.exec_stmt(sub)
        return False

    def _checked_raise_block(self, stmt: gast.If, truth: Value, body: list, other: list, negate: bool) -> bool:
        """``if c: msg = ...; raise E(msg)``: the statements before the raise
        only compute its arguments (``_message_block``), so they are traced
        on every call, pure graph ops whose values matter only when the
        check fires; the names they bind are as before the ``if`` after it
        (eager leaves the block only by raising). False (nothing kept) where
        they made an effect (a run-time check, a print) or the raise cannot
        be a check."""
        start = len(self.region.ops)
        env0 = dict(self.frame.env)
        checked = None
        try:
            with self.str_format_only():
                self.exec_block(body[:-1])
            if not any(isinstance(op, CallOp) and not op.results for op in _ops_since(self.region, start)):
                checked = self.checked_exception(body[-1].exc, start)
                if checked is not None:
                    pred = self.emit_call(arrays.logical_not, (truth,), {}, stmt, "not") if negate else truth
                    self.emit_raise_check(pred, body[-1], *checked, "raise")
        except GraphBreak:
            checked = None
        self.frame.env = env0
        if checked is None:
            del self.region.ops[start:]
            return False
        exc = checked[0]
        self.decide(stmt, "if", "checked", f"`raise {(exc if isinstance(exc, type) else type(exc)).__name__}` after "
                    "statements computing its message, under a traced condition: a run-time check, the call "
                    "raises as eager does")
        self.exec_block(other)
        return True

    def _elif_chain(self, stmt: gast.If, truth: Value) -> tuple[list[Value], list[list], list]:
        """``if a: .. elif b: .. else: ..`` with traced a, b: the conditions
        (evaluated up front: they are pure graph ops), the bodies, the else."""
        preds, bodies, orelse = [truth], [stmt.body], stmt.orelse
        while len(orelse) == 1 and isinstance(orelse[0], gast.If):
            start = len(self.region.ops)
            nxt = self.truth(self.eval(orelse[0].test), orelse[0].test)
            if not isinstance(nxt, Value):
                del self.region.ops[start:]
                break
            preds.append(nxt)
            bodies.append(orelse[0].body)
            orelse = orelse[0].orelse
        return preds, bodies, orelse

    def traced_ifexp(self, node: gast.IfExp, truth: Value) -> Any:
        self.decide(node, "ifexp", "lax.cond", "condition is a traced array")
        box = f"<ifexp {id(node)}>"
        frame = self.frame
        had = frame.local_names

        def branch(expr: Any) -> Callable[[], None]:
            def run() -> None:
                value = self.eval(expr)  # may replace frame.env (a nested traced branch)
                frame.env[box] = value
            return run

        frame.local_names = had | {box}
        narrowing = self.test_narrowing(node.test)
        runs = [self.narrowed(narrowing, True, branch(node.body)), self.narrowed(narrowing, False, branch(node.orelse))]
        try:
            self._traced_branches(node, truth, runs, [box], {box})
            return frame.env.pop(box)
        finally:
            frame.local_names = had

    def _traced_branches(self, node: Any, pred: Value, branches: list[Callable[[], None]],
                         names: list[str], assigned: set[str], switch: bool = False) -> None:
        """Each branch in its own region; results joined.

        Early exits: a branch that returns, breaks or continues makes every
        branch run on to where that exit lands (the continuation), so all
        branches end at one point and the op yields what is live there:
        ``if c: return a`` / ``rest`` is ``return a if c else rest``; in a loop
        body the branches run to the end of the body and yield the carried
        values plus the loop's break/return flags (see ``exits``)."""
        frame = self.frame
        env0 = dict(frame.env)
        outs = [self._run_branch(run, env0, node, rest=None) for run in branches]
        if any(out is not _FELL for _, _, out in outs):
            loop = self.nearest_loop()
            if loop is not None:
                self._branches_ending_body(node, pred, branches, env0, loop, switch)
            self._branches_returning(node, pred, branches, env0, outs, switch)
        frame.env = dict(env0)
        for name in assigned:
            frame.env.pop(name, None)
            if name in env0:
                frame.env[name] = env0[name]
        self._join_and_emit(node, pred, [(r, env) for r, env, _ in outs], names, switch)

    def _join_and_emit(self, node: Any, pred: Value, outs: list[tuple[Region, dict]], names: list[str],
                       switch: bool) -> None:
        for n in names:
            if not any(n in env for _, env in outs):   # deleted on every path: unbound after the branch
                self.frame.env.pop(n, None)
        names = [n for n in names if any(n in env for _, env in outs)]
        names += self.input_write_names(names)   # argument arrays written in place (writeback.py)
        self.check_input_versions([env for _, env in outs])
        written = self._branch_writes(node, outs)
        names += [name for name, _, _ in written]
        containers = self.branch_containers(outs)   # lists and dicts written in a branch: their contents
        containers = self._containers_by_value(outs, names, containers)
        for name, obj in containers:
            if not self.join_list_structure(node, obj, name, outs):   # another length: a tail (varlist.py)
                self.check_container_structure(node, obj, [env[name] for _, env in outs])
        # a variable holding a written container keeps that object, and so
        # does one holding a list or dict made before the ``if``
        objs = {**self._held_containers(node, outs, names), **{id(obj): obj for _, obj in containers}}
        if objs:
            for _, env in outs:
                for n in names:
                    if n in env:
                        env[n] = self.shield_logged(env[n], objs)
        self._rebound_lists(node, outs, names, objs)
        plain = list(names)
        names += [name for name, _ in containers]
        self._fill_placeholders(node, outs, [n for n in names if n.startswith("<retval")])
        _chosen_strings(outs, names)
        templates = [self._join_branch_name(node, self._branch_label(name), [env.get(name, UNBOUND) for _, env in outs])
                     for name in names]
        results = self._emit_branch_op(node, pred, outs, names, templates, switch)
        self._bind_templates(names, templates, results)
        for n in plain:   # the lists and dicts the join built: this trace's own, as a new object per call
            if n in self.frame.env:
                self._mark_built(self.frame.env[n])
        for name, obj in containers:
            self.write_joined(node, obj, self.frame.env.pop(name))
        if objs:
            for n in plain:
                if n in self.frame.env:
                    self.frame.env[n] = self.unshield_all(self.frame.env[n])
        self.rebase_input_writes(names)
        for name, obj, attr in written:   # the joined value of each attribute written in a branch
            self.attr_writes[(id(obj), attr)] = (obj, attr, self.frame.env.pop(name))

    def _rebound_lists(self, node: Any, outs: list, names: list[str], objs: dict) -> None:
        """A variable bound to lists of other lengths on the paths (``xs = [a, b]``,
        then ``xs = [a, b, c]`` under the traced ``if``), none of them kept as
        itself (``_held_containers``: made by this trace, held by that variable
        alone): which list it is cannot be seen, so it joins as a list whose
        length depends on the data (a common prefix, then a tail: varlist.py)."""
        for n in names:
            values = [env.get(n, UNBOUND) for _, env in outs]
            if any(type(v) is not list or id(v) in objs for v in values) \
                    or len({len(v) for v in values}) == 1 and not any(tail_of(v) is not None for v in values):
                continue
            self.join_list_structure(node, values[0], n, outs)

    def _containers_by_value(self, outs: list, names: list[str], containers: list) -> list:
        """Of the lists and dicts a branch wrote, those this trace made
        that one variable alone holds and some path rebinds (``best[1] =
        loss`` on one path, ``best = [loss, best[0]]`` on another): which
        object the variable holds after the ``if`` cannot be seen, so on each
        path it holds the contents as a new list or dict, and the join is
        by value. The rest keep their objects (their contents joined)."""
        env0 = self.frame.env
        kept = []
        for name, obj in containers:
            holder = [n for n in names if env0.get(n) is obj]
            if len(holder) != 1 or type(obj) not in (list, dict) or not self._own_container(obj) \
                    or all(env.get(holder[0]) is obj for _, env in outs) or not self._held_once(obj, holder[0], outs):
                kept.append((name, obj))
                continue
            for _, env in outs:
                contents = env.pop(name)
                if env.get(holder[0]) is obj:   # a new object, as if the branch made it (``_held_containers``)
                    copy = env[holder[0]] = type(obj)(self.unshield_all(contents))
                    self.fresh[id(copy)] = (self.traced_depth + 1, copy)
        return kept

    def _own_container(self, obj: Any) -> bool:
        """A list or dict this trace made, for this call alone: not the
        stand-in for a caller's (``input_container``, made at trace time too)
        nor one read from outside."""
        return self._is_fresh(obj) and self.input_container(obj) is None and not self.outside_container(obj)

    def _held_once(self, obj: Any, name: str, outs: list) -> bool:
        """Nothing but variable ``name`` holds ``obj``: before the ``if``
        and on every path, no other variable, container, object the trace
        made, enclosing scope, caller, pending write or other written
        container's contents."""
        outside = self.outer_values() + [e[2] for e in self.attr_writes.values()]
        for env in [self.frame.env] + [env for _, env in outs]:
            values = [self.unshield_all(v) for n, v in env.items() if n != name and n != _WRITES]
            counts = _reference_counts(values + outside, self.fresh)
            if counts.get(id(obj)):
                return False
            held = env.get(name)
            if held is not obj and _reference_counts([held], self.fresh).get(id(obj)):
                return False
        return True

    def _mark_built(self, x: Any) -> None:
        """Mark the lists and dicts in a joined value (through tuples, lists
        and dicts, not into a kept object's ``Ref``) as made by this trace."""
        stack = [x]
        while stack:
            y = stack.pop()
            if type(y) in (list, dict):
                if self._is_fresh(y):
                    continue
                self.mark_fresh(y)
            if type(y) in (tuple, list):
                stack.extend(y)
            elif type(y) is dict:
                stack.extend(y.values())

    def _held_containers(self, node: Any, outs: list, names: list[str]) -> dict[int, Any]:
        """The lists and dicts the branches' values of ``names`` hold (inside
        tuples, lists and dicts) that were made before the ``if``: each is kept
        as itself through the join (``pair = (x, log)`` on both paths: eager's
        ``pair[1]`` is ``log``, and sees what is appended to it later); a
        position holding another object on another path fails the join (a
        Ref is compared by identity). A list or dict a branch made and binds
        twice (``a = []; b = a``) would become two copies: that falls back."""
        depth = self.traced_depth
        held: dict[int, Any] = {}
        on_paths: list[set[int]] = []
        for _, env in outs:
            seen: set[int] = set()
            on_paths.append(found := set())
            # (a written container's contents: its own join checks the identity of what it holds)
            stack = [(env[n], True) for n in names if n in env]
            stack += [(v, False) for n, v in env.items() if n.startswith("<container ")]
            while stack:
                x, keep = stack.pop()
                if type(x) in (tuple, list, dict):
                    if type(x) is not tuple:
                        entry = self.fresh.get(id(x))
                        if entry is None or entry[1] is not x or entry[0] <= depth:
                            if keep:
                                held[id(x)] = x   # made before the branch (or outside the function)
                                found.add(id(x))
                            continue
                        if id(x) in seen:
                            raise self.graph_break(FallbackCode.BRANCH_MISMATCH, node, "a list or dict made in a "
                                                   "branch is bound to two variables; the join would copy it", "if")
                        seen.add(id(x))
                    stack.extend((y, keep) for y in (x.values() if type(x) is dict else x))
        # one this trace made that another path replaces and nothing else holds
        # (``d = {...}; if c: d = {...}``): which object it was cannot be seen,
        # its items join as any value's
        partial = [k for k in held if not all(k in f for f in on_paths)]
        if partial:
            env0 = self.frame.env
            joined = set(names)
            # (an outside object's attribute, an outside list appended to: ``attr_writes``)
            others = [v for n, v in env0.items() if n not in joined] + self.live_outer_values() + \
                [e[2] for e in self.attr_writes.values()]
            inside = _reference_counts(v for n, v in env0.items() if n in joined)
            outside = _reference_counts(others, self.fresh)
            by_value: dict[int, Any] = {}   # (the containers inside one joined by value)
            for k in partial:
                if inside.get(k, 0) <= 1 and not outside.get(k) and self._own_container(held[k]):
                    del held[k]
                    continue
                holders = self._unobserved_holders(held[k], env0, outs)
                if holders:
                    by_value.update(_nested_containers(held[k]))
                    del held[k]
                    self._sort_unobserved([n for n in holders if n in joined], outs)
            for k in partial:
                if k in held and k in by_value and inside.get(k, 0) <= 1 and not outside.get(k) \
                        and (self.input_container(held[k]) is not None or self._own_container(held[k])):
                    del held[k]
        for k in [k for k in held if any(len({env.get(n) is held[k] for _, env in outs}) > 1 for n in names)]:
            # on every path but held by a variable on some paths only (``params`` kept by a ``break``
            # path, replaced on the other, ``best_p`` holding it on both): by value where only pytree
            # readers see its holders
            holders = self._unobserved_holders(held[k], self.frame.env, outs)
            if holders and any(n in names for n in holders):
                del held[k]
                self._sort_unobserved([n for n in holders if n in names], outs)
        for k in [k for k in held if type(held[k]) is dict and _unsorted(held[k])]:
            # kept on every path, its keys in the caller's order: as a sorted copy where only pytree
            # readers see it, the form ``tree_map``'s dicts take later (a loop rolls after peeling)
            holders = self._unobserved_holders(held[k], self.frame.env, outs)
            if holders and any(n in names for n in holders):
                del held[k]
                self._sort_unobserved([n for n in holders if n in names], outs)
        return held

    def _sort_unobserved(self, holders: list[str], outs: list) -> None:
        """The variables holding an object joined by value (``_unobserved_holders``)
        hold on each path a new dict whose keys are sorted, through nested
        dicts: JAX's pytree readers, all that reads them, see a dict's keys
        sorted whatever their order (the caller's ``{"w", "b"}`` and
        ``tree_map``'s ``{"b", "w"}`` read alike), so the paths join as one form."""
        for _, env in outs:
            for name in holders:
                if name in env:
                    try:
                        env[name] = self._sorted_copy(env[name])
                    except TypeError:   # keys that do not sort: JAX refuses them as eager's call does
                        pass

    def _sorted_copy(self, x: Any, depth: int | None = None) -> Any:
        if type(x) is dict:
            copy = {k: self._sorted_copy(x[k], depth) for k in sorted(x)}
            self.fresh[id(copy)] = (self.traced_depth + 1 if depth is None else depth, copy)
            return copy
        return x

    def sort_carried_dicts(self, stmt: Any) -> None:
        """Before loop ``stmt``: a variable it carries holding a dict whose
        keys are not sorted (the caller's ``{"w", "b"}``), where only pytree
        readers see it and its other holders (``_unobserved_holders``), holds
        a sorted copy, the form ``tree_map`` gives it in the body, carried by
        value (``by_value_dicts``: not kept as itself, containers.keep_identity):
        its carried form does not change on the first trip (a loop that can
        ``break`` is not peeled, and rolls this way)."""
        env = self.frame.env
        for n in self.frame.unit.ssa.loop_carried(stmt):
            obj = env.get(n)
            if type(obj) is not dict or not _unsorted(obj):
                continue
            holders = self._unobserved_holders(obj, env, [])
            if holders:
                try:
                    copy = self._sorted_copy(obj, self.traced_depth)
                except TypeError:
                    continue
                self.__dict__.setdefault("by_value_dicts", {})[id(copy)] = copy
                for h in holders:
                    env[h] = copy

    def _unobserved_holders(self, obj: Any, env0: dict, outs: list) -> list[str]:
        """The variables holding ``obj`` (a caller's dict or list, or one this
        trace made) before the ``if`` or on a path, where each holds it
        directly and the function reads each only through JAX's pytree readers
        (``unobserved.identity_unobserved``), and nothing else holds it (no
        other value, enclosing scope, caller, pending write): which object
        each holds after the ``if`` cannot be seen, so the join is by value
        (gradient clipping of the caller's ``grads``; ``best_p = params`` of
        a loop). Empty where that is not shown. Top-level function only."""
        from .unobserved import identity_unobserved

        if type(obj) not in (list, dict) or self.inline_depth or self.frame.parent is not None \
                or self.outside_container(obj) or not (self.input_container(obj) is not None or self._is_fresh(obj)):
            return []
        envs = [env0] + [env for _, env in outs]
        holders = sorted({n for env in envs for n, v in env.items() if v is obj})
        if not holders or any(not n.isidentifier() for n in holders):
            return []
        rest = [v for env in envs for n, v in env.items() if v is not obj and n != _WRITES]
        rest += self.outer_values() + [e[2] for e in self.attr_writes.values()]
        counts = _reference_counts(rest, self.fresh)
        # (nor any list or dict inside it: ``inner["w"] = 0`` through another variable reaches the
        # caller's ``grads["z"]``, which a copy made at the join would miss)
        if counts.get(id(obj)) or any(counts.get(k) for k in _nested_containers(obj)):
            return []
        unit = self.frame.unit
        return holders if all(identity_unobserved(unit.tree, unit.globals, n) for n in holders) else []

    def _branch_label(self, name: str) -> str:
        if name.startswith("<container "):
            return self.container_label(self.__dict__["_container_objects"][name])
        return name

    def _branch_writes(self, node: Any, outs: list[tuple[Region, dict]]) -> list[tuple]:
        """Attribute writes lifted out of the graph (an NNX Variable's value,
        ``nnx.py``) made inside the branches: each one some branch made becomes
        a result of the branch op, like a variable; a branch that did not make
        it yields the value from before the ``if`` (a pending write, or the
        object's value read as an input)."""
        changed: dict = {}
        for _, env in outs:
            before, after = env.get(_WRITES, ({}, {}))
            for key, entry in after.items():
                if before.get(key) is not entry:
                    changed.setdefault(key, entry)
        # every branch began from the same pending writes (``_writes_at``): a branch that made none
        # yields those (a write before the ``if``), not the value from before the call
        start = next((env[_WRITES][0] for _, env in outs if _WRITES in env), {})
        names = []
        for key, (obj, attr, _) in changed.items():
            name = f"<write {key[0]}.{attr}>"
            for _, env in outs:
                before, after = env.get(_WRITES, (start, start))
                entry = after.get(key) or before.get(key)
                env[name] = entry[2] if entry is not None else self.state_read(obj, attr, node)
            names.append((name, obj, attr))
        return names

    def _writes_at(self, env0: dict) -> dict:
        """The lifted attribute writes as they were when the branches from
        ``env0`` began (each branch starts from them)."""
        starts = self.__dict__.setdefault("_branch_starts", {})
        entry = starts.get(id(env0))
        if entry is None or entry[0] is not env0:
            entry = starts[id(env0)] = (env0, dict(self.attr_writes))
        return entry[1]

    def _branches_returning(self, node: Any, pred: Value, branches: list, env0: dict, outs: list, switch: bool) -> None:
        if not self._continuation_allowed():
            out = next(o for _, _, o in outs if o is not _FELL)
            raise self.graph_break(FallbackCode.EARLY_EXIT, out[1] or node, f"`{out[0]}` under a traced condition", out[0])
        outs = [o if o[2] is not _FELL else self._run_branch(run, env0, node, rest="function")
                for o, run in zip(outs, branches)]
        if any(_WRITES in env for _, env, _ in outs) or self.pending_inputs:
            raise self.graph_break(FallbackCode.EARLY_EXIT, node, "an NNX Variable, attribute or argument array written "
                                   "on a path that returns under a traced condition", "return")
        self.decide(node, "return", "joined", "early return under a traced condition: the rest of the function runs in the other branch")
        envs = [{"<return>": out[2]} for _, _, out in outs]
        _chosen_strings([(None, e) for e in envs], ["<return>"])
        template = self._join_branch_name(node, "the return value", [e["<return>"] for e in envs])
        results = self._emit_branch_op(node, pred, [(r, e) for (r, _, _), e in zip(outs, envs)], ["<return>"], [template], switch)
        leaves, treedef = _flatten(template)
        value = jax.tree_util.tree_unflatten(treedef, [next(results) if isinstance(x, _Traced) else x for x in leaves])
        raise ReturnSignal(node, value)

    def _run_branch(self, run: Callable[[], None], env0: dict, node: Any, rest: Any) -> tuple:
        """Run one branch; its outcome is ``_FELL`` or (kind, node, value).
        Lifted attribute writes made in it are kept in its environment
        (``_WRITES``: before, after) and undone for the next branch."""
        self.frame.env = dict(env0)
        before = self._writes_at(env0)
        self.attr_writes = dict(before)
        region = Region()
        outcome: Any = _FELL

        def body() -> None:
            nonlocal outcome
            try:
                run()
                if rest == "function":
                    self._run_continuation()
                elif rest is not None:
                    self.run_loop_continuation(rest)
            except ReturnSignal as r:
                outcome = ("return", r.node, r.value)
            except BreakSignal as b:
                outcome = ("break", b.node, None)
            except ContinueSignal as c:
                outcome = ("continue", c.node, None)
            except CaughtSignal as c:
                outcome = ("raise", c.node, c.value)
            except BodyEnd as e:
                outcome = ("end", e.node, None)

        log = self.begin_container_log()   # lists and dicts from outside written in it (containers.py)
        done = False
        try:
            self._run_traced(region, body, node)
            done = True
        finally:
            after, self.attr_writes = self.attr_writes, dict(before)
            self.end_container_log(log, self.frame.env if done else None)
        self.no_container_writes(log, None if outcome is _FELL else outcome, node, rest)
        env = self.frame.env
        if any(before.get(k) is not e for k, e in after.items()):
            env[_WRITES] = (before, after)
        return region, env, outcome

    def _emit_branch_op(self, node: Any, pred: Value, outs: list[tuple[Region, dict]], names: list[str],
                        templates: list, switch: bool) -> Any:
        results: list[Value] = []
        for template in templates:
            results.extend(Value(leaf.type) for leaf in _flatten(template)[0] if isinstance(leaf, _Traced))
        joined = []
        for region, env in outs:
            with self.in_region(region):
                values = [self.fit_kinds(self.fit_bound(env.get(n, UNBOUND), t, node), t, node)
                          for n, t in zip(names, templates)]
                joined.append([leaf for value, template in zip(values, templates)
                               for leaf, t in zip(_flatten(value)[0], _flatten(template)[0]) if isinstance(t, _Traced)])
                region.yields = self._coerce_all(node, values, templates)
        self.join_views(results, joined)   # the result is one of the paths' arrays (mutation.py)
        results += self.join_identities(node, results, joined, [r for r, _ in outs])   # (identity.py)
        for k, r in enumerate(results):   # a Python int that fits n bits on every path fits them after the join
            if r.type.python and r.type.dtype.kind in "iu" and all(region.yields[k] in INT_BITS for region, _ in outs):
                INT_BITS[r] = max(INT_BITS[region.yields[k]] for region, _ in outs)
            if any(region.yields[k] in WIDE_INTS for region, _ in outs):   # a JAX op still checks it fits int32
                WIDE_INTS.add(r)
        if switch:
            self.region.ops.append(SwitchOp(results, self.loc(node), pred, [r for r, _ in outs]))
        else:
            self.region.ops.append(IfOp(results, self.loc(node), pred, outs[0][0], outs[1][0]))
        return iter(results)

    # -------------------------------------------------------- continuations
    def _continuation_allowed(self) -> bool:
        """The rest of the function is known: no loop between here and its body."""
        return all(isinstance(entry, tuple) for entry in self.cont)

    def _run_continuation(self) -> None:
        """Run the statements after the current one, out to the function's
        end, then return None as falling off the end does."""
        saved = self.cont
        try:
            for j in range(len(saved) - 1, -1, -1):
                stmts, i = saved[j]
                self.cont = saved[:j]
                self.exec_block(stmts[i + 1:])
        finally:
            self.cont = saved
        raise ReturnSignal(None, None)

    def _run_traced(self, region: Region, run: Callable[[], None], node: Any) -> None:
        with self.in_region(region):
            try:
                run()
            except ControlSignal as sig:
                what = type(sig).__name__.replace("Signal", "").lower()
                raise self.graph_break(FallbackCode.EARLY_EXIT, sig.node, f"`{what}` under a traced condition or inside a rolled loop", what)

    def _join_branch_name(self, node: Any, name: str, values: list) -> Any:
        maybe = any(v is UNBOUND or isinstance(v, MaybeBound) for v in values)
        if maybe and not name.isidentifier():
            raise self.graph_break(FallbackCode.BRANCH_MISMATCH, node, f"variable '{name}' is assigned on one branch only and used afterwards", "if")
        try:
            if maybe:   # bound on some paths only: carried with a defined-flag (``MaybeBound``)
                bound = [v.value if isinstance(v, MaybeBound) else v for v in values if v is not UNBOUND]
                return MaybeBound(self._join_trees(bound, branches=True), _FLAG)
            return self._join_trees(values, branches=True)
        except _JoinError as e:
            what = name if name.startswith("the ") else f"variable '{name}'"
            raise self.graph_break(FallbackCode.BRANCH_MISMATCH, node, f"{what}: {e}", "if") from None

    def fit_bound(self, value: Any, template: Any, node: Any) -> Any:
        """``value`` (of one path) in the form of ``template``: where the join
        is ``MaybeBound``, a bound value with a True flag, an unbound one with
        a False flag and zeros of the template's type (never observed: a read
        checks the flag first)."""
        if not isinstance(template, MaybeBound) or isinstance(value, MaybeBound):
            return value
        if value is not UNBOUND:
            return MaybeBound(value, True)
        leaves, treedef = _flatten(template.value)
        filler = [self._zeros(x.type, node) if isinstance(x, _Traced) else x for x in leaves]
        return MaybeBound(jax.tree_util.tree_unflatten(treedef, filler), False)

    def _join_trees(self, values: list, branches: bool = False) -> Any:
        """Template of the join: static leaves where all agree, else ``_Traced``.
        ``branches``: the paths of a traced ``if``, after which eager's array
        has the taken path's dtype, so arrays of different dtypes do not join
        (a loop's carried value takes the promoted dtype from its first trip)."""
        flat = [_flatten_joined(v) for v in values]
        treedef = flat[0][1]
        if any(f[1] != treedef for f in flat[1:]):
            return self._join_structures(values, branches)
        out = []
        for leaves in zip(*(f[0] for f in flat)):
            out.append(self._join_leaves(list(leaves), branches, kinded=True))
        return jax.tree_util.tree_unflatten(treedef, out)

    def _join_structures(self, values: list, branches: bool) -> Any:
        """The join of values of different structures: tuples, lists or dicts
        of one form joined item by item; where the paths' objects differ in
        form, one ``KindedValue`` whose variants are the alternatives (None, a
        constant such as ``(lr, mom)`` or ``"relu"``, a tuple holding graph
        values, an array), picked by the tag on each call."""
        first = values[0]
        form = _container_form(first)
        if form is not None and all(_container_form(v) == form for v in values[1:]):
            if isinstance(first, dict):
                items = {k: self._join_trees([v[k] for v in values], branches) for k in first}
                return type(first)(items) if type(first) is dict else first.__class__(first.default_factory, items)
            items = [self._join_trees([v[i] for v in values], branches) for i in range(len(first))]
            if is_record(first):
                names = tuple(vars(first))
                return make_record(type(first), items, names,
                                   [self._join_trees([vars(v)[k] for v in values], branches) for k in names])
            return type(first)(*items) if hasattr(type(first), "_fields") else type(first)(items)
        if all(x is None or is_constant_alternative(x) or is_tree_alternative(x) or isinstance(x, Value)
               for x in values):
            tagged = self._join_kinds(values, branches)
            if tagged is not None:
                return tagged
        kept = [v for v in values if type(v).__name__ == "Ref" and type(getattr(v, "obj", None)) in (list, dict)]
        if kept and len(kept) < len(values):   # (``containers.Ref``: a list or dict kept as itself through the join)
            raise _JoinError(f"structure differs ({' vs '.join(describe(v) for v in values)}): one path keeps a "
                             f"{type(kept[0].obj).__name__} from before the `if` that is also held elsewhere (another "
                             "name, a container, the caller), another path binds another object: which one eager has "
                             "depends on the data")
        raise _JoinError(f"structure differs ({' vs '.join(describe(v) for v in values)})")

    def _join_leaves(self, leaves: list, branches: bool = False, kinded: bool = False) -> Any:
        """The template of one leaf after a join. ``kinded``: values of
        different kinds make a ``KindedValue`` (the caller fits each path's
        value to it, ``fit_kinds``); otherwise an untagged path-dependent kind."""
        first = leaves[0]
        if not any(isinstance(x, (Value, _Traced)) for x in leaves) and all(same_static(first, x) for x in leaves[1:]):
            return first
        tagged = self._join_kinds(leaves, branches) if kinded else None
        if tagged is not None:
            return tagged
        types = []
        for x in leaves:
            t = x.type if isinstance(x, (Value, _Traced)) else abstract_type(x)
            if t is None:
                raise _JoinError(f"a {describe(x)} cannot be joined with an array")
            types.append(t)
        if branches and not any("python" in t.kinds for t in types) and \
                any(not same_dtype(types[0], t) for t in types[1:]):   # x if c else x.real: float64 or complex128
            raise _JoinError(f"dtype differs ({' vs '.join(str(t.dtype) for t in types)})")
        joined = types[0]
        for t in types[1:]:
            joined = join_types(joined, t)
            if joined is None:
                raise _JoinError(f"shape changes ({' vs '.join(str(t) for t in types)})")
        # eager may have a NumPy array on one path, a jax.Array or a Python
        # number on another: which one depends on data (or on the trip count)
        kinds = frozenset().union(*(t.kinds for t in types))
        if any(_PYTHON_TYPES[t.dtype.kind] is not _PYTHON_TYPES[joined.dtype.kind] for t in types if "python" in t.kinds):
            # a Python int on one path, a float on another: the joined dtype
            # does not tell which Python type eager has
            kinds |= {"python?"}
        return _Traced(joined.with_kinds(kinds))

    def _join_kinds(self, leaves: list, branches: bool) -> KindedValue | None:
        """The join of values of different kinds (a Python float on one path,
        a jax.Array on another): a ``KindedValue`` template, one variant per
        kind, each the join of that kind's types; None where every value has
        one kind (the usual join) or one has no kind description."""
        described = [variants_of(x) for x in leaves]
        if any(d is None for d in described):
            return None
        groups: dict[str, list[ArrayType]] = {}
        trees: dict[str, list] = {}   # a tuple variant's tuples on the paths that have it
        for x, d in zip(leaves, described):
            for j, (key, t) in enumerate(d):
                groups.setdefault(key, []).append(t)
                if key.startswith(TREE_PREFIX):
                    trees.setdefault(key, []).append(x.variants[j].tree if isinstance(x, KindedValue) else x)
        if len(groups) < 2 or not branches and not any(isinstance(x, KindedValue) for x in leaves) and \
                len({kind_family(k) for k in groups}) < 2:
            return None   # one kind (a loop's carried array of another dtype: promoted, as before)
        variants = []
        for key in sorted(groups):
            if key in trees:
                variants.append(TreeVariant(self._join_trees(trees[key], branches)))
                continue
            types = groups[key]
            joined = types[0]
            for t in types[1:]:
                joined = join_types(joined, t)
                if joined is None:
                    raise _JoinError(f"shape changes ({' vs '.join(str(t) for t in types)})")
            variants.append(_Traced(joined.with_kinds(types[0].kinds)))
        if len({v.type.shape for k, v in zip(sorted(groups), variants) if not placeholder_key(k)}) > 1:
            raise _JoinError(f"shape changes ({' vs '.join(str(v.type) for v in variants)})")
        return KindedValue(_Traced(TAG_TYPE), variants, tuple(sorted(groups)))

    def _coerce_all(self, node: Any, values: list, templates: list) -> list[Value]:
        out: list[Value] = []
        for value, template in zip(values, templates):
            leaves = _flatten(value)[0]
            for leaf, t in zip(leaves, _flatten(template)[0]):
                if isinstance(t, _Traced):
                    out.append(self.convert(leaf, t.type, node))
                    if type(leaf) in (bool, int) and t.type.python and t.type.dtype.kind in "iu":
                        INT_BITS[out[-1]] = abs(leaf).bit_length()   # a static Python int: its bits are known
        return out

    def _bind_templates(self, names: list[str], templates: list, results: Any) -> None:
        for name, template in zip(names, templates):
            leaves, treedef = _flatten(template)
            filled = [next(results) if isinstance(x, _Traced) else x for x in leaves]
            self.frame.env[name] = jax.tree_util.tree_unflatten(treedef, filled)

    # -------------------------------------------------------------- loops
    def exec_While(self, stmt: gast.While, roll_at: float | None = None, exact: bool = True,
                   cannot_roll: GraphBreak | None = None) -> None:
        """A static condition runs at trace time (unrolling any array work);
        past ``roll_at`` iterations with array work the loop is rolled, unless
        rolling would change what eager computes (then it keeps unrolling)."""
        roll_at = self.options.unroll_limit if roll_at is None else roll_at
        self.sort_carried_dicts(stmt)
        start_ops, snapshot, decisions = len(self.region.ops), dict(self.frame.env), self._snapshot_decisions()
        writes = dict(self.attr_writes)   # lifted writes of the iterations a roll attempt discards
        inputs = self.inputs_snapshot()
        ctx = self.new_loop(stmt)
        mutations = self.mutations
        iterations = 0
        while True:
            test_start = len(self.region.ops)
            truth = self.truth(self.eval(stmt.test), stmt.test)
            if isinstance(truth, Value):
                del self.region.ops[test_start:]
                if iterations:
                    self.decide(stmt, "while", "peeled", f"{iterations} iterations with a static condition before it became traced")
                self._rolled_while(stmt, exact=False, ctx=ctx)
                return
            if not truth:
                break
            iterations += 1
            emitted = len(self.region.ops) > start_ops
            if emitted and iterations > roll_at and self.mutations == mutations:
                def restore() -> None:
                    del self.region.ops[start_ops:]
                    self.frame.env = dict(snapshot)
                    self.attr_writes = dict(writes)
                    self.restore_inputs(inputs)
                    self._restore_decisions(decisions)

                if any(isinstance(self.frame.env.get(flag), Value) for flag in (ctx.brk, ctx.ret)):
                    self.__dict__.setdefault("_traced_exit_loops", set()).add(id(stmt))
                restore()
                try:
                    self._rolled_while(stmt, exact=exact, ctx=self.new_loop(stmt))
                    return
                except _UnsafeWidening:
                    restore()
                    return self.exec_While(stmt, self.options.max_unroll, exact=False)
                except GraphBreak as e:
                    if self.outer_carry(e):
                        raise
                    restore()
                    return self.exec_While(stmt, float("inf"), exact=False, cannot_roll=e)
            # past a traced exit each iteration nests under the last one's: at most _NESTED_EXITS of them
            # (beyond, the graph is slower to build and compile than the loop is to run in Python)
            nested = isinstance(self.frame.env.get(ctx.brk), Value) or isinstance(self.frame.env.get(ctx.ret), Value)
            limit = min(self.options.max_unroll, _NESTED_EXITS) if nested else self.options.max_unroll
            if cannot_roll is not None and emitted and iterations > limit:
                # unrolled up to max_unroll iterations, as a `for` that cannot roll (a `while True:` whose only
                # exit is a traced `return` unrolled until static_iteration_limit, each iteration nested deeper)
                raise cannot_roll
            if iterations > limit and isinstance(self.frame.env.get(ctx.brk), Value):
                # its exit is traced, and it never tried to roll (it mutates a container): each iteration
                # nests under the last one's traced exit; without a bound it unrolled to
                # static_iteration_limit (a bubble sort's `while True:` ... `if not swapped: break`)
                raise self.graph_break(FallbackCode.MUTATION, stmt, f"a while loop that mutates a container and exits "
                                       f"under a traced condition cannot roll; it unrolled more than {limit} "
                                       f"iterations, each nested under the last one's exit", "while")
            if iterations > self.options.static_iteration_limit:
                raise self.graph_break(FallbackCode.CONCRETE_VALUE, stmt, f"a while loop with a static condition ran {iterations} iterations at trace time", "while")
            if not self.guarded_iteration(stmt, ctx, lambda: self.run_body(stmt, ctx)) or self.frame.env[ctx.brk] is True:
                break
        mode = "unrolled" if len(self.region.ops) > start_ops else "static"
        self.decide(stmt, "while", mode, f"static condition; {iterations} iterations evaluated at trace time")
        if mode == "unrolled" and roll_at > self.options.unroll_limit:   # it tried to roll and could not
            self.warn_unrolled(stmt, iterations, "cannot roll" if roll_at == float("inf") else
                               "rolling would turn a Python scalar into a 32-bit array")
        self.after_loop(stmt, ctx)

    def _snapshot_decisions(self) -> dict:
        return {k: dataclasses.replace(d) for k, d in self.decisions.items()}

    def _restore_decisions(self, snapshot: dict) -> None:
        self.decisions = {k: dataclasses.replace(d) for k, d in snapshot.items()}

    def _rolled_while(self, stmt: gast.While, exact: bool = False, ctx: LoopCtx | None = None) -> None:
        if any(isinstance(n, gast.NamedExpr) for n in gast.walk(stmt.test)):
            # the binding would live in the condition's region, which yields only the predicate
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt.test, "an assignment expression (:=) in the "
                                   "test of a traced `while`", "while", hint="assign before the loop and at the end "
                                   "of its body instead")
        ctx = ctx or self.new_loop(stmt)
        # ctx.names: the header's phis plus what the loop assigns and the code
        # after it reads (a body ending in `break` has no back edge, so no phi)
        names = ctx.all_names
        env0 = dict(self.frame.env)

        def one_pass(state: dict, cond: Region, body: Region) -> dict:
            self.frame.env = dict(env0)
            self._materialize(names, state, cond)
            writes = dict(self.attr_writes)
            carrier = self.container_loops[-1]
            carrier.active = False   # the test may not write a container from outside (it is not joined)
            with self.in_region(cond):
                try:
                    t = self.truth(self.eval(stmt.test), stmt.test)
                finally:
                    carrier.active = True
                if any(writes.get(k) is not e for k, e in self.attr_writes.items()):
                    raise self.graph_break(FallbackCode.MUTATION, stmt.test, "the test of a traced `while` writes state "
                                           "(an NNX Variable)", "while")
                t = t if isinstance(t, Value) else self.convert(bool(t), _BOOL, stmt.test)
                broke = self.frame.env[ctx.brk]
                if isinstance(broke, Value):
                    t = self.emit_call(arrays.not_and, (broke, t), {}, stmt.test, "not_and")
                cond.yields = [t]
            self.frame.env = dict(env0)
            self._materialize(names, state, body)
            self._counter_bits(stmt, names, env0)
            self._run_traced(body, lambda: self.run_body(stmt, ctx), stmt)
            return self.frame.env

        state, (cond, body) = self._solve_loop(stmt, names, env0, one_pass, regions=2, exact=exact,
                                               flagged=self._maybe_unbound_after(stmt, names, env0), may_skip=True,
                                               max_trips=self.options.max_iters, len_bounds=self._length_bounds(stmt))
        init = self._loop_init(stmt, names, state, env0)
        results = [Value(a.type) for a in body.args]
        self.join_views(results, [init, body.yields])   # the initial array or a carried one (mutation.py)
        n = self.options.max_iters
        self.region.ops.append(WhileOp(results, self.loc(stmt), init, cond, body, max_iters=n))
        if n is None:
            self.decide(stmt, "while", "lax.while_loop", "condition is a traced array")
        else:
            self.decide(stmt, "while", "lax.scan", f"condition is a traced array; {_bounded_scan(n)}")
        self.frame.env = dict(env0)
        self._bind_state(names, state, iter(results))
        self._counter_bits(stmt, names, env0)
        self.finish_carried_containers(stmt, names)
        self.after_loop(stmt, ctx)

    def _length_bounds(self, stmt: gast.While) -> tuple[dict[int, int], bool]:
        """The lists a ``while`` test bounds the length of (``len(xs) < n``,
        ``len(xs) <= n``, ``n > len(xs)``, alone or as a term of ``and``, with
        ``n`` a static int): id -> the length no iteration starts at or above;
        and whether the test is only such a comparison (no ``break`` in the body)."""
        terms = stmt.test.values if isinstance(stmt.test, gast.BoolOp) and isinstance(stmt.test.op, gast.And) \
            else [stmt.test]
        found: dict[int, int] = {}
        for t in terms:
            if not (isinstance(t, gast.Compare) and len(t.ops) == 1):
                continue
            left, op, right = t.left, t.ops[0], t.comparators[0]
            if isinstance(op, (gast.Gt, gast.GtE)):
                left, right, op = right, left, gast.Lt() if isinstance(op, gast.Gt) else gast.LtE()
            if not (isinstance(op, (gast.Lt, gast.LtE)) and isinstance(left, gast.Call) and len(left.args) == 1
                    and not left.keywords and isinstance(left.func, gast.Name) and isinstance(left.args[0], gast.Name)
                    and isinstance(right, (gast.Name, gast.Constant))):
                continue
            bound_here = self.frame.unit.ssa.assigned(stmt)   # a name the loop rebinds bounds nothing
            if any(isinstance(x, gast.Name) and x.id in bound_here for x in (left.func, left.args[0], right)):
                continue
            if self.eval(left.func) is not len:   # (names only: reading them has no effect)
                continue
            xs, n = self.eval(left.args[0]), self.eval(right)
            if type(xs) is list and type(n) is int:
                found[id(xs)] = n + isinstance(op, gast.LtE)
        alone = len(terms) == 1 and bool(found) and not any(isinstance(x, gast.Break) for b in stmt.body
                                                             for x in gast.walk(b))
        return found, alone

    def exec_For(self, stmt: gast.For) -> None:
        mark = len(self.iterated)
        iterable = self.eval(stmt.iter)
        # rows taken by the loop's own iterable (``enumerate(x)``, ``iter(x[:-1])``, or
        # the array itself): none is left to pull once the loop is over
        own = [] if isinstance(stmt.iter, gast.Name) else self.iterated[mark:]
        try:
            self._exec_for(stmt, iterable)
        finally:
            self.iterated[mark:] = [rows for rows in self.iterated[mark:]
                                    if rows.source is not iterable and not any(rows is o for o in own)]

    def _exec_for(self, stmt: gast.For, iterable: Any) -> None:
        self.sort_carried_dicts(stmt)
        if isinstance(iterable, arrays.TracedRange):
            self._rolled_range(stmt, iterable, traced=True)
            return
        if isinstance(iterable, arrays.TracedZip):
            self._rolled_zip(stmt, iterable)
            return
        if isinstance(iterable, PickedRow):   # ``for v in row`` of ``row = table[i]``, a traced ``i`` (listindex.py)
            self.decide(stmt, "for", "unrolled", f"{len(iterable.rows[0])} iterations over a row picked by a traced index")
            self._unrolled_for(stmt, self.live_row_items(iterable, stmt.iter))
            return
        if isinstance(iterable, MaskedSlice):   # ``for v in x[:n]``: a loop with a traced trip count (masked.py)
            self._rolled_masked(stmt, iterable)
            return
        if isinstance(iterable, range) and len(iterable) > self.options.unroll_limit:
            self._roll_or_unroll(stmt, len(iterable), lambda exact: self._rolled_range(stmt, iterable, traced=False, exact=exact), iterable)
            return
        if isinstance(iterable, Value) and iterable.type.shape and iterable.type.shape[0] > self.options.unroll_limit:
            self._roll_or_unroll(stmt, iterable.type.shape[0], lambda exact: self._scan_rows_pulled(stmt, iterable, exact),
                                 iterable)
            return
        if isinstance(iterable, collections.abc.Iterator):
            # an iterator (map/filter of a local function, zip, iter(xs)) is
            # pulled one item per iteration, as eager pulls it: the function it
            # calls sees what the body changed before (``map(lambda _: k, ..)``
            # with ``k = k + 1`` in the body)
            self.check_consumable(iterable, stmt.iter)
            self.decide(stmt, "for", "unrolled", f"over a {type(iterable).__name__} iterator, one item per iteration "
                        f"(at most max_unroll={self.options.max_unroll})")
            self._unrolled_for(stmt, self._live_items(iterable, stmt.iter, self.options.max_unroll), iterable)
            return
        if type(iterable) in (type({}.values()), type({}.items())) and self.holds_arrays(iterable):
            # ``for k, p in self.params.items()``: each array read as ``self.params[k]`` (a capture, written
            # in place as eager writes it), pulled one per iteration (a body that changes the dict's size
            # makes eager's iterator raise: it runs in Python)
            self.decide(stmt, "for", "unrolled", f"{len(iterable)} iterations over a {type(iterable).__name__} of "
                        "an outside dict of NumPy arrays")
            self._unrolled_for(stmt, self._live_items(self.live_held_arrays(iterable, stmt.iter), stmt.iter),
                               iterable)
            return
        items = self.iterate_static(iterable, stmt.iter)
        what = "array rows" if isinstance(iterable, Value) else type(iterable).__name__
        self.decide(stmt, "for", "unrolled", f"{len(items)} iterations over a static {what} (limit {self.options.unroll_limit})")
        if isinstance(iterable, (list, dict, set, np.ndarray)):
            # the body may change the container: iterate it live, as eager does
            # (a list grown in the loop is iterated further, a dict or set
            # changed in size raises RuntimeError, a NumPy array made at trace
            # time and written in the body gives its rows as they are then)
            items = self._live_items(iterable, stmt.iter, rows=items if isinstance(items, PendingRows) else None)
        self._unrolled_for(stmt, items, held=iterable)

    def _scan_rows_pulled(self, stmt: gast.For, iterable: Value, exact: bool) -> None:
        """``_scan_rows``; a NumPy array's rows are pulled one per iteration in
        eager: a write into it in the body must not reach rows still to pull
        (which row the body writes is traced: any write into it falls back)."""
        if not iterable.type.numpy:
            self._scan_rows(stmt, iterable, exact)
            return
        pending = PendingRows(iterable, [None] * iterable.type.shape[0])
        self.iterated.append(pending)
        try:
            self._scan_rows(stmt, iterable, exact)
        finally:
            self.iterated[:] = [rows for rows in self.iterated if rows is not pending]

    def _live_items(self, container: Any, node: Any, limit: int | None = None,
                    rows: PendingRows | None = None) -> Iterator[Any]:
        """``rows``: the rows of ``container`` (a NumPy array) taken at trace
        time, whose ``pulled`` count follows this iteration."""
        it = iter(container)
        count = 0
        while True:
            if rows is not None:
                rows.taken = max(rows.taken, count + 1)
            try:
                item = next(it)
            except StopIteration:
                return
            except GraphBreak:
                raise
            except Exception as e:  # noqa: BLE001 - eager raises it here too
                raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"iteration raised {type(e).__name__}: {e}", exc=e)
            count += 1
            if limit is not None and count > limit:
                raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, node, f"an iterator with more than "
                                       f"{limit} items (max_unroll) cannot be unrolled")
            if type(item) is np.ndarray and type(container) is list and not self._made_here(container):
                # ``for p in self.params``: the array read as ``self.params[k]`` reads it (a capture, which
                # ``p -= lr * g`` writes in place as eager does), not its values at trace time
                item = self.subscript(container, count - 1, node)
            yield item

    def _roll_or_unroll(self, stmt: Any, n: int, roll: Callable[[bool], None], iterable: Any) -> None:
        env0, start_ops, decisions = dict(self.frame.env), len(self.region.ops), self._snapshot_decisions()
        writes = dict(self.attr_writes)
        inputs = self.inputs_snapshot()
        try:
            roll(n <= self.options.max_unroll)
        except _UnsafeWidening as e:
            self.frame.env, self.attr_writes = env0, writes
            self.restore_inputs(inputs)
            del self.region.ops[start_ops:]
            self._restore_decisions(decisions)
            self._unrolled_for(stmt, self.iterate_static(iterable, stmt.iter), held=iterable)
            mode = "unrolled" if len(self.region.ops) > start_ops else "static"
            why = f"rolling would turn Python scalar '{e.name}' into a 32-bit array"
            self.decide(stmt, "for", mode, f"{n} iterations; {why}")
            if mode == "unrolled":
                self.warn_unrolled(stmt, n, why)
        except _StaticLoop:
            self.frame.env, self.attr_writes = env0, writes
            self.restore_inputs(inputs)
            self.decide(stmt, "for", "static", f"{n} iterations of pure Python work, evaluated at trace time")
            self._unrolled_for(stmt, self.iterate_static(iterable, stmt.iter), held=iterable)
        except GraphBreak as e:
            if self.outer_carry(e):
                raise
            self.frame.env, self.attr_writes = env0, writes
            self.restore_inputs(inputs)
            del self.region.ops[start_ops:]
            self._restore_decisions(decisions)
            if self._peeled_range(stmt, iterable, e):
                return
            if n > self.options.max_unroll:
                raise
            self.decide(stmt, "for", "unrolled", f"{n} iterations; cannot roll ({e.site.cause})")
            self._unrolled_for(stmt, self.iterate_static(iterable, stmt.iter), held=iterable)
            if len(self.region.ops) > start_ops:
                self.warn_unrolled(stmt, n, f"cannot roll: {e.site.cause}")

    def _peeled_range(self, stmt: gast.For, rng: Any, cause: GraphBreak) -> bool:
        """A static ``range`` loop whose carried values change form on the
        first trip only (a dict ``tree_map`` returns with sorted keys after
        the caller's order, ``acc = None`` that the first trip makes a pytree)
        rolls after its first iteration is peeled:

            for i in rng: body    ==    i = rng[0]; body    # unrolled
                                        for i in rng[1:]: body    # rolled

        Only for a loop with no ``break``, ``return`` or ``else`` (the peeled
        trip could leave the loop, the ``else`` runs once after it). False,
        with the state as it was, when the rest cannot roll either."""
        if (not isinstance(rng, range) or cause.site.code is not FallbackCode.LOOP_CARRIED_CHANGE or stmt.orelse
                or len(rng) - 1 <= self.options.unroll_limit or _exits_loop(stmt)):
            return False
        env0, start_ops, decisions = dict(self.frame.env), len(self.region.ops), self._snapshot_decisions()
        writes, inputs = dict(self.attr_writes), self.inputs_snapshot()
        self.decide(stmt, "for", "peeled", f"1 iteration before rolling ({cause.site.cause})")
        try:
            self._unrolled_for(stmt, [rng[0]], held=rng)
            self._rolled_range(stmt, rng[1:], traced=False, exact=len(rng) <= self.options.max_unroll)
        except (GraphBreak, _UnsafeWidening, _StaticLoop) as e:
            if isinstance(e, GraphBreak) and self.outer_carry(e):
                raise
            self.frame.env, self.attr_writes = env0, writes
            self.restore_inputs(inputs)
            del self.region.ops[start_ops:]
            self._restore_decisions(decisions)
            return False
        return True

    def warn_unrolled(self, stmt: Any, n: int, why: str) -> None:
        """``UnrollWarning``, once per loop, for a loop that could not roll and
        unrolled more than ``_UNROLL_WARNING`` iterations."""
        loc = self.loc(stmt)
        key = (loc.file, loc.line, loc.col)
        if n <= _UNROLL_WARNING or key in _unroll_warned:
            return
        _unroll_warned.add(key)
        import warnings

        warnings.warn_explicit(f"{loc.file}:{loc.line}: loop unrolled {n} times ({why}); compile time grows with the "
                      f"iterations. A loop that cannot roll unrolls up to to_static(..., "
                      f"max_unroll={self.options.max_unroll}) iterations and beyond that runs in Python; "
                      f"loops with more than unroll_limit={self.options.unroll_limit} iterations roll when they can",
                      UnrollWarning, loc.file, loc.line)   # shown at the loop
    def _unrolled_for(self, stmt: Any, items: Iterable[Any], source: Any = None, held: Any = UNKNOWN_ITERABLE) -> None:
        """``source``: the iterator the loop pulls ``items`` from, if one;
        ``held``: the static container or range it iterates (``LoopCtx.held``)."""
        ctx = self.new_loop(stmt)
        ctx.held = held

        def iteration(item: Any) -> None:
            self.assign(stmt.target, item, stmt)
            self.run_body(stmt, ctx)

        pulled = iter(items)
        if source is not None:   # what it pulls from is seen by the alias walk (``mutation._references``)
            self.loop_sources.append(source)
        try:
            while self.frame.env[ctx.brk] is not True:   # eager pulls no item once the loop has left
                try:   # after a traced break, whether eager pulls a generator's next item depends on data
                    item = self.speculative_pull(pulled, source, stmt) \
                        if isinstance(self.frame.env[ctx.brk], Value) and generators_in(source) else next(pulled)
                except StopIteration:
                    break
                if not self.guarded_iteration(stmt, ctx, lambda item=item: iteration(item)):
                    break
        finally:
            if source is not None:
                self.loop_sources[:] = [x for x in self.loop_sources if x is not source]
        self.after_loop(stmt, ctx)

    def _rolled_range(self, stmt: gast.For, rng: Any, traced: bool, exact: bool = False) -> None:
        start, stop, step = rng.start, rng.stop, rng.step
        target_live = self._target_names(stmt) & self.frame.unit.ssa.live_out(stmt)
        if traced:
            count = self.emit_call(arrays.trip_count, (start, stop, step), {}, stmt, "trip_count")
            if target_live and self._carried_target(stmt, count, True, None) is None:
                raise self.graph_break(FallbackCode.UNDEFINED_AFTER_LOOP, stmt, f"loop variable {sorted(target_live)} is used after a loop whose trip count is traced "
                                       "and is not bound before it", "for")
        else:
            count = len(rng)

        def bind_target(k: Value) -> None:
            i = k if (start == 0 and step == 1 and not traced) else self.emit_call(arrays.range_value, (start, k, step), {}, stmt, "range_value")
            if not traced and count and isinstance(i, Value):
                INT_RANGE[i] = (min(rng[0], rng[-1]), max(rng[0], rng[-1]))   # the body sees only the range's items
            self.assign(stmt.target, i, stmt)

        def finish() -> None:
            if not traced and count:
                self.assign(stmt.target, rng[-1], stmt)

        # the bits of the loop variable's values (INT_BITS): between start and stop
        bits = TRACED_INT_BITS if traced else max(abs(start), abs(stop)).bit_length()
        self._rolled_counted(stmt, count, bind_target, finish, "lax.fori_loop", traced, exact=exact, target_bits=bits)

    def _rolled_zip(self, stmt: gast.For, zipped: Any) -> None:
        """``for i, j in enumerate(range(n))`` / ``zip(range(n), xs)``: a
        rolled loop over the shortest part's trip count (traced), the target
        bound to the parts' items at the index."""
        count = self._zip_count(zipped, stmt)
        if self._target_names(stmt) & self.frame.unit.ssa.live_out(stmt) \
                and self._carried_target(stmt, count, True, None) is None:
            raise self.graph_break(FallbackCode.UNDEFINED_AFTER_LOOP, stmt, "a loop variable is used after a loop whose "
                                   "trip count is traced and is not bound before it", "for")

        def bind_target(k: Value) -> None:
            self.assign(stmt.target, self._zip_item(zipped, k, stmt), stmt)

        self._rolled_counted(stmt, count, bind_target, lambda: None, "lax.fori_loop", True, target_bits=TRACED_INT_BITS)

    def _rolled_masked(self, stmt: gast.For, s: Any) -> None:
        """``for v in x[:n]``: a rolled loop over the slice's count, the target
        bound to the row at ``start + k * step`` (eager's rows, in order)."""
        if self._target_names(stmt) & self.frame.unit.ssa.live_out(stmt) \
                and self._carried_target(stmt, s.count, True, None) is None:
            raise self.graph_break(FallbackCode.UNDEFINED_AFTER_LOOP, stmt, "a loop variable is used after a loop over "
                                   "a slice with a traced bound and is not bound before it", "for")

        def bind_target(k: Value) -> None:
            i = self.emit_call(arrays.range_value, (s.start, k, s.step), {}, stmt, "range_value")
            self.assign(stmt.target, self.emit_call(arrays.getitem, (s.base, i), {}, stmt, "getitem"), stmt)

        self._rolled_counted(stmt, s.count, bind_target, lambda: None, "lax.fori_loop", True)

    def _zip_count(self, part: Any, node: Any) -> Any:
        if isinstance(part, arrays.TracedZip):
            counts = [self._zip_count(p, node) for p in part.parts]
            return counts[0] if len(counts) == 1 else self.emit_call(arrays.min_count, tuple(counts), {}, node, "min_count")
        if isinstance(part, arrays.TracedRange):
            return self.emit_call(arrays.trip_count, (part.start, part.stop, part.step), {}, node, "trip_count")
        return len(part) if isinstance(part, range) else part.type.shape[0]

    def _zip_item(self, part: Any, k: Value, node: Any) -> Any:
        if isinstance(part, arrays.TracedZip):
            items = tuple(self._zip_item(p, k, node) for p in part.parts)
            if part.counter is None:
                return items
            return self.emit_call(arrays.range_value, (part.counter, k, 1), {}, node, "range_value"), items[0]
        if isinstance(part, (arrays.TracedRange, range)):
            return self.emit_call(arrays.range_value, (part.start, k, part.step), {}, node, "range_value")
        return self.emit_call(arrays.getitem, (part, k), {}, node, "getitem")

    def _scan_rows(self, stmt: gast.For, xs: Value, exact: bool = False) -> None:
        # a row is of the array's kind: iterating a NumPy array gives NumPy scalars (rows: ndarrays),
        # not jax.Arrays (np.float64 + a jax row made a float32 jax.Array of a float64 sum)
        row = ArrayType(xs.type.shape[1:], xs.type.dtype, xs.type.weak_type).with_kinds(
            xs.type.kinds - {"array0", "python"} or {"jax"})

        def finish() -> None:
            if self._target_names(stmt) & self.frame.unit.ssa.live_out(stmt):
                self.assign(stmt.target, self.emit_call(arrays.getitem, (xs, -1), {}, stmt, "getitem"), stmt)

        self._rolled_counted(stmt, xs, None, finish, "lax.scan", False, row, exact=exact)

    def _rolled_counted(self, stmt: gast.For, count: Any, bind_target: Callable | None, finish: Callable,
                        mode: str, traced_count: bool, row: ArrayType | None = None, exact: bool = False,
                        target_bits: int | None = None) -> None:
        ctx = self.new_loop(stmt)
        # the loop variable read after the loop is carried: its last value (the
        # one at a break), or its value before the loop when the body never runs
        carried_target = self._carried_target(stmt, count, traced_count, row)
        names = [n for n in ctx.names if n not in self._target_names(stmt) or n == carried_target]
        names += [ctx.brk, ctx.ret, ctx.retval]
        env0 = dict(self.frame.env)

        def one_pass(state: dict, body: Region) -> dict:
            self.frame.env = dict(env0)
            # a Python int in eager: int64 (exact), weak as a Python scalar (the lowering makes fori_loop's index so)
            index = Value(ArrayType((), np.dtype("int64"), True, python=True), "i")
            INT_BITS[index] = abs(count).bit_length() if type(count) is int else TRACED_INT_BITS
            if row is None:
                body.args.append(index)
            self._materialize(names, state, body)
            self._counter_bits(stmt, names, env0, None if traced_count else trips)
            if row is not None:
                r = Value(row, "row")
                body.args.append(r)
                if r.type.shape and r.type.numpy and isinstance(count, Value):
                    self.view_of[id(r)] = (r, [count])   # a NumPy row is a view: a write through it changes the array
                bind = lambda: self.assign(stmt.target, r, stmt)  # noqa: E731
            else:
                def bind() -> None:
                    with self.in_region(self.region, traced=False):
                        bind_target(index)

            def iteration() -> None:
                bind()   # inside the guard: after a traced break the carried loop variable keeps its value
                self.run_body(stmt, ctx)

            if carried_target is None:
                with self.in_region(body, traced=False):
                    bind()
                self._run_traced(body, lambda: self.guarded_iteration(stmt, ctx, lambda: self.run_body(stmt, ctx)), stmt)
            else:
                self._run_traced(body, lambda: self.guarded_iteration(stmt, ctx, iteration), stmt)
            return self.frame.env

        runs = not traced_count and (count if row is None else count.type.shape[0]) >= 1
        exits = any(isinstance(n, (gast.Break, gast.Return)) for b in stmt.body for n in gast.walk(b))
        flagged = set() if runs and not exits else self._maybe_unbound_after(stmt, names, env0)
        if runs:   # each iteration binds the loop variable before its body runs
            flagged.discard(carried_target)
        trips = self.options.max_iters if traced_count else count if row is None else count.type.shape[0]
        state, (body,) = self._solve_loop(stmt, names, env0, one_pass, regions=1, static_check=not traced_count,
                                          exact=exact, exempt={carried_target}, flagged=flagged, may_skip=not runs,
                                          max_trips=trips, trips_static=not traced_count)
        if carried_target is None:
            self.check_target_after_break(stmt, ctx, state)
        exit_kinds = self.carried_exit_kinds
        # the body runs at least once: a variable it first binds (a placeholder:
        # bound on every path of the first pass) is bound after the loop
        init = self._loop_init(stmt, names, state, env0, set(names) if runs else {carried_target})
        n_index = 0 if row is not None else 1
        results = [Value(a.type) for a in body.args[n_index:n_index + len(init)]]
        exit_classes = self.carried_exit_classes
        self.join_views(results, [init, body.yields])   # the initial array or a carried one (mutation.py)
        if not traced_count and (count if row is None else count.type.shape[0]) >= 1:
            for r, kinds in zip(results, exit_kinds):   # one iteration or more: the body's kinds
                r.type = r.type.with_kinds(kinds)
        n = self.options.max_iters if traced_count else None
        if row is not None:
            op = ScanOp(results, self.loc(stmt), count, init, body)
        else:
            done = _carried_index(names, state, ctx.brk) if n is not None else None
            op = ForOp(results, self.loc(stmt), 0, count, init, body, max_iters=n, done=done)
        self.region.ops.append(op)
        if n is not None:
            self.decide(stmt, "for", "lax.scan", f"rolled: trip count is traced; {_bounded_scan(n)}")
        else:
            self.decide(stmt, "for", mode, "rolled: trip count is traced" if traced_count else f"rolled: {count if row is None else count.type.shape[0]} iterations exceed the unroll limit {self.options.unroll_limit}")
        self.frame.env = dict(env0)
        self._bind_state(names, state, iter(results))
        self._counter_bits(stmt, names, env0, None if traced_count else trips)
        if not traced_count and (count if row is None else count.type.shape[0]) >= 1:
            self._exit_variants(names, exit_classes)
        self.finish_carried_containers(stmt, names)
        if carried_target is not None and target_bits is not None:
            self._bound_int_bits(self.frame.env.get(carried_target), env0.get(carried_target, UNBOUND), target_bits)
        if carried_target is None or (state[ctx.brk] is False
                                      and carried_target not in self.frame.unit.ssa.assigned(stmt.body)):
            finish()   # no break, not rebound in the body: the last item (a static int for a static range)
        self.after_loop(stmt, ctx)

    def _exit_variants(self, names: list[str], exit_classes: dict) -> None:
        """After a loop that runs at least once: a carried value of
        path-dependent kind that every iteration leaves of one kind is the
        variant of that kind (its tag is always that one's)."""
        for n in names:
            if n not in self.frame.env or not exit_classes.get(n):
                continue
            classes = iter(exit_classes[n])
            leaves, treedef = _flatten_joined(self.frame.env[n])
            if not any(isinstance(x, KindedValue) for x in leaves):
                continue
            out = []
            for x in leaves:
                if isinstance(x, KindedValue):
                    keys = next(classes, ())
                    x = x.variants[x.keys.index(keys[0])] if len(keys) == 1 and keys[0] in x.keys else x
                out.append(x)
            self.frame.env[n] = jax.tree_util.tree_unflatten(treedef, out)

    def _counter_bits(self, stmt: Any, names: list[str], env0: dict, trips: int | None = None) -> None:
        """The bits (``lattice.INT_BITS``) of the carried Python ints, in the
        body and after the loop. A counter (only ``n += 1``, ``n -= 1``) from
        a static int: ``trips`` (a static trip count) times the steps of one
        iteration, or 32 bits (it would take 2**31 steps of one to leave
        int32: the rule of ``lattice.WIDE_INTS``), so ``n * 2**30`` stays
        exact in int64; a counter from a traced int of known bits: one bit
        more than those or 32. Any other (``n = n + n``): all 63, so that a
        sum is checked at run time for leaving int64 and a product falls
        back (``mutation._python_int_bits``); unknown, a carried int was
        taken for a counter and a sum of it wrapped silently."""
        pairs = []
        for n in names:
            if n.startswith("<container "):   # a carried list's or dict's items (in the container itself now)
                obj, olds = self._container_object(n), env0.get(n, ())
                news = list(obj.values()) if type(obj) is dict else list(obj) if type(obj) is list else []
                olds = list(olds.values()) if type(olds) is dict else list(olds) if type(olds) is list else []
                counted = _items_counted_by_one(stmt, self.container_names(n, env0))
                pairs += [(n, counted, a, b) for a, b in zip(olds, news)] if len(olds) == len(news) else \
                    [(n, False, UNBOUND, b) for b in news]
            elif n.isidentifier():
                pairs.append((n, _counted_by_one(stmt, n), env0.get(n, UNBOUND), self.frame.env.get(n)))
        for n, counted, old, v in pairs:
            if not (isinstance(v, Value) and v.type.python and not v.type.shape and v.type.dtype.kind in "iu"):
                continue
            claims = self.__dict__.get("_int_claims") or {}
            if n in claims and INT_RANGE.get(v) == (claims[n] - _SUM_WINDOW, claims[n] + _SUM_WINDOW):
                bits = (abs(claims[n]) + _SUM_WINDOW).bit_length() + 1   # (the window: ``_check_accumulated_ints``)
            elif counted and type(old) is int and abs(old) < 2**20:
                steps = _steps_per_iteration(stmt, n) if n.isidentifier() else None
                start = max([abs(old), *map(abs, _counter_resets(stmt, n))]) if n.isidentifier() else abs(old)
                bits = 32 if trips is None or steps is None else (start + trips * steps).bit_length() + 1
            elif counted and isinstance(old, Value) and old in INT_BITS:
                bits = min(max(INT_BITS[old], 31) + 1, 63)
            else:
                bits = 63
            INT_BITS[v] = min(INT_BITS.get(v, 63), bits)

    @staticmethod
    def _bound_int_bits(result: Any, init: Any, bits: int) -> None:
        """The carried loop variable after the loop: a range value or its value
        before the loop, so its INT_BITS bound is theirs (a Python int it
        stands for then stays exact in int64 arithmetic)."""
        if isinstance(result, MaybeBound):   # not bound before a loop that may not run
            result = result.value
        if not isinstance(result, Value) or result.type.dtype.kind not in "iu":
            return
        if type(init) is int:
            bits = max(bits, abs(init).bit_length())
        elif isinstance(init, Value):
            if init not in INT_BITS:
                return
            bits = max(bits, INT_BITS[init])
        elif init is not UNBOUND:
            return
        INT_BITS[result] = bits

    def _carried_target(self, stmt: gast.For, count: Any, traced_count: bool, row: ArrayType | None) -> str | None:
        """The loop variable, when the code after the loop reads it and it can
        be carried: a plain name, bound before the loop or the body known to
        run at least once (else eager raises at the read: today's fallback)."""
        if not isinstance(stmt.target, gast.Name):
            return None
        name = stmt.target.id
        if name not in self.frame.unit.ssa.live_out(stmt):
            return None
        runs = not traced_count and (count if row is None else count.type.shape[0]) >= 1
        # not bound before and the body may not run: carried with a defined-flag (``MaybeBound``)
        if runs and name not in self.frame.unit.ssa.assigned(stmt.body) \
                and not any(isinstance(n, (gast.Break, gast.Return)) for b in stmt.body for n in gast.walk(b)):
            return None   # it ends on the last item: known after the loop (a static int for a static range)
        return name

    # ------------------------------------------------------ loop fixpoint
    def _target_names(self, stmt: Any) -> set[str]:
        return {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}

    def _solve_loop(self, stmt: Any, names: list[str], env0: dict, one_pass: Callable, regions: int,
                    static_check: bool = False, exact: bool = False, exempt: set = frozenset(),
                    flagged: set = frozenset(), may_skip: bool = False, max_trips: int | None = None,
                    trips_static: bool = False, len_bounds: tuple = ({}, False)) -> tuple[dict, tuple]:
        """Carried values to a fixpoint: widen until a pass changes nothing.

        ``exact``: raise ``_UnsafeWidening`` instead of widening a Python
        scalar whose eager value stays a Python number (an int that must not
        overflow int32, a float that must stay float64); the caller unrolls.

        Attribute writes lifted out of the graph (an NNX Variable's value,
        ``nnx.py``) made by the body are carried too: the first pass that
        makes one stops (``GraphBreak.carry``), and the loop is solved again
        with it as a carried value (a pseudo-variable ``<write ...>`` of
        ``names``, which the caller's ``_loop_init``/``_bind_state`` see).

        ``flagged``: variables first bound inside the loop and read after it
        that may be unbound there (zero iterations, a break first): carried
        with a defined-flag (``MaybeBound``, False on entry)."""
        writes0 = dict(self.attr_writes)
        carried: dict = {}   # key in attr_writes -> its pseudo-variable
        stack = self.__dict__.setdefault("_carried_writes", [])
        stack.append(carried)
        self.loop_depth += 1
        self.rolled_depth += 1
        containers = self.begin_container_carry()   # lists and dicts from outside written in the body (containers.py)
        containers.max_trips, containers.trips_static = max_trips, trips_static   # lists grown in the body (varlist.py)
        containers.may_skip = may_skip
        containers.len_bounds, containers.len_exit = len_bounds
        self.keep_identity(containers, names, env0)
        exempt = set(exempt) | self.carry_identities(stmt, names, env0)   # (identity.py: flags, not Python bools)
        try:
            while True:
                try:
                    state, regs = self._fixpoint(stmt, names, env0, one_pass, regions, static_check, exact, writes0,
                                                 carried, exempt, flagged)
                    if may_skip:
                        self._check_skipped_dtypes(stmt, names, env0, state)
                    self._prove_rolled_checks(carried)
                    return state, regs
                except _Rebound:
                    self.attr_writes = dict(writes0)
                    continue
                except GraphBreak as e:
                    if self.carry_container(containers, e, names, env0):
                        self.attr_writes = dict(writes0)
                        continue
                    carry = getattr(e, "carry", None)
                    if carry is None or carry[0] in carried:
                        raise
                    key, obj, attr = carry
                    name = f"<write {key[0]}.{attr}>"
                    carried[key] = name
                    self.__dict__.setdefault("_carried_names", {})[name] = (key, obj, attr)
                    names.append(name)
                    self.attr_writes = dict(writes0)
                    entry = writes0.get(key)
                    env0[name] = entry[2] if entry is not None else self.state_read(obj, attr, stmt)
        finally:
            self.attr_writes = writes0
            stack.pop()
            self.end_container_carry(containers)
            self.loop_depth -= 1
            self.rolled_depth -= 1

    def _prove_rolled_checks(self, carried: dict) -> None:
        """The run-time checks emitted in a rolled loop's body while the
        segment's writes were none or neutral (``_check_site``): each fires,
        on any trip, with the state its mark saw, when the body writes
        nothing the graph carries and nothing after the check; otherwise
        ``late_checks`` (the segment is specialised again, its checks in
        Python). Cleared where the outermost rolled loop ends."""
        marks = self.__dict__.get("rolled_check_marks")
        if not marks:
            return
        now = self._mark()
        if carried or not all(m.same(now, self.mutated) for m in marks):
            self.late_checks = True
            marks.clear()
        elif self.rolled_depth <= 1:
            marks.clear()

    def _fixpoint(self, stmt: Any, names: list[str], env0: dict, one_pass: Callable, regions: int,
                  static_check: bool, exact: bool, writes0: dict, carried: dict, exempt: set = frozenset(),
                  flagged: set = frozenset()) -> tuple[dict, tuple]:
        containers = self.container_loops[-1]
        state = {n: self._abstract(self.loop_entry(containers, n, env0.get(n, UNBOUND))) for n in names}
        decisions = self._snapshot_decisions()
        # Python ints summed in the body (``bounces += int(mask.sum())``) whose bound is shown below:
        # name -> value before the loop (``_accumulated_ints``)
        claims: dict[str, int] = {}
        saved_claims = self.__dict__.get("_int_claims")
        self._int_claims = claims
        # (a nested function's ``nonlocal`` write into a carried variable of this frame: assign_name)
        rolled = self.__dict__.setdefault("rolled_bodies", [])
        rolled.append((self.frame, len(self.regions) + 1, frozenset(names)))
        try:
            return self._fixpoint_passes(stmt, names, env0, one_pass, regions, static_check, exact, writes0, carried,
                                         exempt, flagged, containers, state, decisions, claims)
        finally:
            rolled.pop()
            self._int_claims = saved_claims

    def _fixpoint_passes(self, stmt: Any, names: list[str], env0: dict, one_pass: Callable, regions: int,
                         static_check: bool, exact: bool, writes0: dict, carried: dict, exempt: set, flagged: set,
                         containers: Any, state: dict, decisions: Any, claims: dict) -> tuple[dict, tuple]:
        for iteration in range(_MAX_FIXPOINT):
            self._restore_decisions(decisions)
            self.attr_writes = dict(writes0)
            regs = tuple(Region() for _ in range(regions))
            env = one_pass(state, *regs)
            if claims and iteration:
                self._check_accumulated_ints(claims, env, containers)
            for key, name in carried.items():   # the carried writes' values at the end of the body
                env[name] = self.attr_writes[key][2]
            self.yield_identities(stmt, names, env, regs[-1])
            self.carried_container_values(env, names)
            if not self.loop_exit(containers, env, env0, names):
                raise _Rebound()   # a variable kept as its list or dict was rebound: solve again, copying it
            if self.grow_carried(stmt, names, state, env, env0):
                continue   # a list grown by appends: carried as a buffer and a count from now on (varlist.py)
            if static_check and iteration == 0 and not any(True for r in regs for _ in walk_ops(r)) \
                    and not any(isinstance(x, _Traced) for n in names for x in _flatten(state[n])[0]):
                raise _StaticLoop()
            if exact and iteration == 0:
                # (a body of Python arithmetic on the loop index only is evaluated at trace time, unrolled)
                summing = containers.trips_static and containers.max_trips and _reads_arrays(regs)
                self._check_exact_widening([n for n in names if n not in exempt], env0, env, stmt,
                                           claims if summing else None)
            new = {n: self._widen(stmt, n, state[n], env.get(n, UNBOUND), n in flagged) for n in names}
            if all(_same_template(new[n], state[n]) for n in names):
                self._yield_carried(stmt, names, state, env, regs[-1])
                return state, regs
            state = new
        raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, stmt, "loop-carried values did not settle on one type", "loop")

    def _check_skipped_dtypes(self, stmt: Any, names: list[str], env0: dict, state: dict) -> None:
        """A loop that may run zero times (a traced trip count or condition):
        an array whose dtype the body changes (``y = y + x``: int32 to float32)
        has eager's entry dtype after zero iterations and the body's after
        one; the carried state holds only one, so the loop cannot roll."""
        for n in names:
            old, new = env0.get(n, UNBOUND), state[n]
            if old is UNBOUND or isinstance(new, (_PlaceholderOf, MaybeBound)) or not n.isidentifier():
                continue
            olds, old_tree = _flatten(old)
            news, new_tree = _flatten(new)
            if old_tree != new_tree:
                continue
            for a, b in zip(olds, news):
                if isinstance(a, Value) and isinstance(b, _Traced) and not a.type.python and \
                        a.type.dtype != b.type.dtype:
                    raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, stmt, f"variable '{n}' changes dtype in the "
                                           f"loop ({describe(a)} before it, {b.type.dtype} after an iteration) and the "
                                           "loop may run zero times (eager's dtype then depends on the data)", "loop")

    def carries_write(self, key: tuple) -> bool:
        """Whether the innermost rolled loop being solved carries this lifted write."""
        stack = self.__dict__.get("_carried_writes")
        return bool(stack) and key in stack[-1]

    def _check_accumulated_ints(self, claims: dict, env: dict, containers: Any) -> None:
        """The Python ints ``claims`` carried by a loop of ``max_trips`` static
        trips, bound only by ``n += e`` / ``n -= e``: this pass bound each to
        a value claimed within ``v0 ± _SUM_WINDOW`` (``_bind_state``), so the
        range the pass computed for its value at the end of the body is that
        window widened by what one iteration adds, ``[lo, hi]`` (computed
        with every other carried value unknown: true on every iteration).
        After ``t`` trips it lies within ``v0 + t*min(lo, 0)`` and ``v0 +
        t*max(hi, 0)``: where ``max_trips`` of them stay in the window (so
        the claim holds, by induction, and the int never leaves int32) it is
        carried as a 32-bit Python int, exact; otherwise ``_UnsafeWidening``
        (the loop unrolls, as before)."""
        for n, v0 in claims.items():
            new = env.get(n)
            known = INT_RANGE.get(new) if isinstance(new, Value) else None
            if known is None:
                raise _UnsafeWidening(n)
            lo, hi = known[0] - (v0 - _SUM_WINDOW), known[1] - (v0 + _SUM_WINDOW)
            if containers.max_trips * max(-min(lo, 0), max(hi, 0)) > _SUM_WINDOW:
                raise _UnsafeWidening(n)

    def _check_exact_widening(self, names: list[str], env0: dict, env: dict, stmt: Any = None,
                              claims: dict | None = None) -> None:
        """``claims``: where given (a loop of a static number of trips), a
        Python int that only ever grows by ``+=``/``-=`` of a traced int is
        entered into it (with its value before the loop) instead of being
        refused here: ``_check_accumulated_ints`` bounds it in the next passes."""
        pairs = []
        for n in names:
            old, new = env0.get(n, UNBOUND), env.get(n, UNBOUND)
            if n.startswith("<container ") and type(old) is type(new) and len(old) == len(new):
                # a carried container's items: the same rule per item
                olds, news = (old.values(), new.values()) if type(old) is dict else (old, new)
                pairs += [(n, a, b) for a, b in zip(olds, news)]
            else:
                pairs.append((n, old, new))
        # a loop seen to break or return under a traced condition: in this pass (its exit flag is traced), or
        # in the iterations unrolled before (exec_While)
        traced_exit = stmt is not None and (id(stmt) in self.__dict__.get("_traced_exit_loops", ()) or any(
            isinstance(env.get(n), Value) for n in names if n.startswith(("<break ", "<return "))))
        stepped = {n: _items_counted_by_one(stmt, self.container_names(n, env0))
                   for n in names if n.startswith("<container ")} if stmt is not None else {}
        for n, old, new in pairs:
            if not isinstance(old, (bool, int, float, complex)):
                continue
            counter = type(old) is int and abs(old) < 2**20 and (stepped[n] if n in stepped else
                                                                 _counted_by_one(stmt, n)
                                                                 or _counted_by_one_nonlocal(self.frame.unit.tree, stmt, n))
            traced_int = isinstance(new, Value) and new.type.python and not new.type.shape
            if counter and (traced_int or traced_exit and type(new) is int):
                # a counter (`it += 1`) counted under a traced condition (its value after the first iteration
                # already depends on the data: ``new`` is traced, from the static value before the loop), or
                # of a loop that leaves by a traced break or return: its value after the loop depends on the
                # data whether the loop rolls or unrolls; it would take 2**31 iterations to leave int32 by
                # steps of one (the rule of lattice.WIDE_INTS), and it stays a Python int
                unsafe = False
            elif isinstance(new, KindedValue):   # its Python number stays one, exact
                unsafe = False
            elif isinstance(new, Value) and new.type.python and not new.type.mixed and not new.type.shape \
                    and _holds_exactly(new.type.dtype, old):
                unsafe = False   # a Python float of the graph as wide as eager's (float(v @ w) of float64 data)
            elif isinstance(new, Value):
                unsafe = new.type.weak_type or new.type.dtype.kind in "biu" and not isinstance(old, bool)
            else:
                unsafe = isinstance(new, (bool, int, float, complex)) and not same_static(old, new)
            if unsafe and claims is not None and type(old) is int and abs(old) < _SUM_WINDOW and n.isidentifier() \
                    and isinstance(new, Value) and new.type.python and not new.type.mixed and not new.type.shape \
                    and new.type.dtype.kind in "iu" and _only_summed(stmt, n):
                claims[n] = old
                continue
            if unsafe:
                raise _UnsafeWidening(self.container_item_name(n) if n.startswith("<container ") else n)

    def _yield_carried(self, stmt: Any, names: list[str], state: dict, env: dict, body: Region) -> None:
        live = [n for n in names if state[n] is not UNBOUND]
        templates = [_unwrap(state[n]) for n in live]
        bound = [self.fit_bound(env[n], t, stmt) for n, t in zip(live, templates)]
        # the kinds a path-dependent carried value has after an iteration (one
        # variant: the loop's result after one or more iterations is that one)
        self.carried_exit_classes = {
            n: [tuple(k for k, _ in variants_of(leaf) or ()) for leaf, t in
                zip(*(_flatten_joined(x)[0] for x in (value, template))) if isinstance(t, KindedValue)]
            for n, value, template in zip(live, bound, templates)}
        self.check_input_versions([env])
        with self.in_region(body):
            fitted = [self.fit_kinds(value, t, stmt) for value, t in zip(bound, templates)]
            body.yields = self._coerce_all(stmt, fitted, templates)
        # the eager kinds of the carried values after an iteration (before the
        # join with the values before the loop): the loop's results after one
        # or more iterations
        self.carried_exit_kinds = [
            (leaf.type if isinstance(leaf, Value) else abstract_type(leaf)).kinds
            for value, template in zip(fitted, templates)
            for leaf, t in zip(_flatten(value)[0], _flatten(template)[0]) if isinstance(t, _Traced)]

    def _abstract(self, value: Any) -> Any:
        if value is UNBOUND:
            return UNBOUND
        leaves, treedef = _flatten(value)
        return jax.tree_util.tree_unflatten(treedef, [_Traced(x.type) if isinstance(x, Value) else x for x in leaves])

    def _widen(self, stmt: Any, name: str, old: Any, new: Any, flagged: bool = False) -> Any:
        if new is UNBOUND:
            if old is UNBOUND:
                return UNBOUND
            raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, stmt, f"variable '{name}' is deleted inside the loop", "loop")
        new_t = self._abstract(new)
        if old is UNBOUND:
            joined = self._join_or_break(stmt, name, [new_t])
            if flagged and not isinstance(joined, MaybeBound):
                joined = MaybeBound(joined, _FLAG)
            return _PlaceholderOf(joined)
        base = old.template if isinstance(old, _PlaceholderOf) else old
        if isinstance(base, MaybeBound) != isinstance(new_t, MaybeBound):
            base, new_t = (MaybeBound(x, True) if not isinstance(x, MaybeBound) else x for x in (base, new_t))
        joined = self._join_or_break(stmt, name, [base, new_t])
        if isinstance(joined, MaybeBound):
            joined = MaybeBound(joined.value, _FLAG)
        return _PlaceholderOf(joined) if isinstance(old, _PlaceholderOf) else joined

    def _maybe_unbound_after(self, stmt: Any, names: list[str], env0: dict) -> set[str]:
        """The variables a rolled loop first binds that the code after it reads."""
        live = self.frame.unit.ssa.live_out(stmt)
        return {n for n in names if n.isidentifier() and n in live and env0.get(n, UNBOUND) is UNBOUND}

    def _join_or_break(self, stmt: Any, name: str, values: list) -> Any:
        try:
            return self._join_trees(values)
        except _JoinError as e:
            what = f"{self._branch_label(name)} (carried by the loop)" if name.startswith("<container ") \
                else f"loop-carried variable '{name}'"
            raise self.graph_break(FallbackCode.LOOP_CARRIED_CHANGE, stmt, f"{what}: {e}", "loop") from None

    def _materialize(self, names: list[str], state: dict, region: Region) -> None:
        for n in names:
            template = state[n]
            if template is UNBOUND:
                self.frame.env.pop(n, None)
                continue
            if isinstance(template, _PlaceholderOf):
                template = template.template
            leaves, treedef = _flatten(template)
            before = _flatten(self.frame.env.get(n))[0]
            before = before if len(before) == len(leaves) else [None] * len(leaves)
            filled = []
            for x, entry in zip(leaves, before):
                if isinstance(x, _Traced):
                    v = Value(x.type, n)
                    region.args.append(v)
                    filled.append(v)
                    if isinstance(entry, Value) and id(entry) in self.input_of:   # still the caller's array
                        self.input_of[id(v)] = (v, self.input_of[id(entry)][1])
                    elif isinstance(entry, Value):   # on the first trip, the array from before the loop
                        self.join_views([v], [[entry]])
                else:
                    filled.append(x)
            # (its lists and dicts built from the state are new; a Ref stays the object it keeps)
            self.frame.env[n] = self.unshield_all(self.mark_carried_fresh(jax.tree_util.tree_unflatten(treedef, filled))
                                                  if not n.startswith("<") else jax.tree_util.tree_unflatten(treedef, filled))
            claims = self.__dict__.get("_int_claims")
            if claims and n in claims and isinstance(self.frame.env[n], Value):
                # a summed Python int's value within the window (``_check_accumulated_ints``: shown to hold
                # after the pass, or the loop unrolls)
                INT_RANGE[self.frame.env[n]] = (claims[n] - _SUM_WINDOW, claims[n] + _SUM_WINDOW)
            self._carried_write(n, self.frame.env[n])
            if n.startswith("<container "):   # its contents are in the container now (a branch records its own)
                del self.frame.env[n]
        self.bind_identities(names)

    def _carried_write(self, name: str, value: Any) -> None:
        """A carried attribute write's pseudo-variable bound: the pending write's
        value; a carried container's: its contents."""
        if self.bind_carried_container(name, value):
            return
        carried = self.__dict__.get("_carried_names")
        if carried and name in carried:
            key, obj, attr = carried[name]
            self.attr_writes[key] = (obj, attr, value)

    def _loop_init(self, stmt: Any, names: list[str], state: dict, env0: dict, bound: set = frozenset()) -> list[Value]:
        """Convert the entry values to the carried types; yield body results.
        ``bound``: variables first assigned inside the loop that the body is
        known to bind (it runs at least once): their initial value is a placeholder."""
        init: list[Value] = []
        for n in names:
            template = state[n]
            if template is UNBOUND:
                continue
            placeholder = isinstance(template, _PlaceholderOf)
            if placeholder:
                template = template.template
                if n in self.frame.unit.ssa.live_out(stmt) and n not in bound and not isinstance(template, MaybeBound):
                    raise self.graph_break(FallbackCode.UNDEFINED_AFTER_LOOP, stmt, f"variable '{n}' is first assigned inside the loop and used after it", "loop")
            src = _flatten(self.fit_kinds(self.fit_bound(env0[n], template, stmt), template, stmt))[0] \
                if not placeholder else None
            for j, t in enumerate(_flatten(template)[0]):
                if isinstance(t, _Traced):
                    init.append(self._zeros(t.type, stmt) if placeholder else self.convert(src[j], t.type, stmt))
        return init

    def _zeros(self, t: ArrayType, node: Any) -> Value:
        """A placeholder of type ``t`` (weak-typedness and eager kind included)."""
        import dataclasses

        import jax.numpy as jnp

        if t.shape == () and t.dtype.kind in _PYTHON_TYPES:   # a Python zero converts at any width (int64 too)
            zeros = self.convert(_PYTHON_TYPES[t.dtype.kind](0), t, node)
            zeros.type = zeros.type.with_kinds(t.kinds)
            return zeros
        # made in a 32-bit dtype where JAX's x64 is off (jnp.zeros of float64 would warn that it truncates),
        # then converted to ``t``: zeros are exact at any width
        dtype = t.dtype if jax.config.jax_enable_x64 else NARROW.get(t.dtype, t.dtype)
        zeros = self.emit_call(jnp.zeros, (t.shape, dtype), {}, node, "zeros")
        zeros = zeros if zeros.type == t else self.convert(zeros, t, node)
        zeros.type = zeros.type.with_kinds(t.kinds)
        return zeros

    def _bind_state(self, names: list[str], state: dict, results: Any) -> None:
        for n in names:
            template = state[n]
            if template is UNBOUND:
                self.frame.env.pop(n, None)
                continue
            if isinstance(template, _PlaceholderOf):
                template = template.template
            leaves, treedef = _flatten(template)
            self.frame.env[n] = self.unshield_all(
                jax.tree_util.tree_unflatten(treedef, [next(results) if isinstance(x, _Traced) else x for x in leaves]))
            if n.startswith("<write "):   # a carried attribute write: pending again, with the loop's result
                self._carried_write(n, self.frame.env.pop(n))
        self.bind_identities(names)
        self.rebase_input_writes(names)


_BOOL = ArrayType((), np.dtype(bool))
_FLAG = _Traced(_BOOL)   # a defined-flag's template (``MaybeBound``)
_WRITES = "<attribute writes>"   # a branch's environment: (writes before it, writes after it)
_FELL = object()  # a branch that fell through (did not return)


class _Rebound(Exception):
    """A loop body bound another object to a variable whose list or dict the loop kept."""


def _stored_names(stmt: Any) -> set[str]:
    """Names ``stmt`` binds (assignments, augmented ones, ``del``), not
    inside the functions, lambdas and classes it defines."""
    out: set[str] = set()
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            out.add(node.id)
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
                stack.append(child)
    return out


def _exits_branch(stmt: Any) -> bool:
    """Whether ``stmt`` has a ``return``, ``break``, ``continue``, ``raise``
    or ``yield`` outside the functions it defines (conservative: a loop's own
    ``break`` counts)."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.Return, gast.Break, gast.Continue, gast.Raise, gast.Yield, gast.YieldFrom)):
            return True
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
                stack.append(child)
    return False


def _exits_loop(stmt: Any) -> bool:
    """Whether ``stmt``'s body has a ``break`` or ``return`` (of it or of a
    loop inside it; conservative), or a ``yield``."""
    return any(isinstance(n, (gast.Break, gast.Return, gast.Yield, gast.YieldFrom))
               for b in stmt.body for n in gast.walk(b))


def _reads_arrays(regions: tuple) -> bool:
    """Whether an op of ``regions`` (a loop body's pass) reads an array it did
    not make (a carried array, an array of the caller or from before the loop,
    anything but a Python int: the loop index, a carried int): else the body
    is Python arithmetic on ints, which unrolled is evaluated at trace time."""
    made: set[int] = set()
    ops = []
    region_args = [a for region in regions for a in region.args]
    for region in regions:
        made.update(id(a) for a in region.args)
        for op in walk_ops(region):
            ops.append(op)
            made.update(id(r) for r in op.results)
            for sub in op.regions():
                made.update(id(a) for a in sub.args)
    return any(id(v) not in made or any(v is a for a in region_args) and not (v.type.python and not v.type.shape
                                                                               and v.type.dtype.kind in "iu")
               for op in ops for v in op.operands())


_SUM_WINDOW = 2 ** 20   # how far a summed Python int may move in a rolled loop (``_check_accumulated_ints``)


def _only_summed(stmt: Any, name: str) -> bool:
    """Every binding of ``name`` in the loop ``stmt`` is ``name += e`` or
    ``name -= e`` (``e`` any expression), none inside a loop, function or
    class nested in it (whose own carried values would bind it in between)."""
    nesting = (gast.For, gast.While, gast.AsyncFor, gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
               gast.ClassDef, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
    steps = []

    def visit(node: Any, top: bool) -> bool:
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and node.target.id == name:
            if not top or not isinstance(node.op, (gast.Add, gast.Sub)):
                return False
            steps.append(node)
            return visit(node.value, top)
        if isinstance(node, gast.Name) and node.id == name and not isinstance(node.ctx, gast.Load) \
                or isinstance(node, (gast.Global, gast.Nonlocal)) and name in node.names:
            return False
        inner = top and not isinstance(node, nesting)
        return all(visit(child, inner) for child in gast.iter_child_nodes(node))

    if isinstance(stmt, (gast.For, gast.AsyncFor)) and not visit(stmt.target, True):
        return False
    return all(visit(part, True) for part in stmt.body) and bool(steps)


def _counted_by_one(stmt: Any, name: str) -> bool:
    """Every binding of ``name`` in the loop ``stmt`` (its test, its body, the
    functions defined in it) is ``name += 1`` or ``name -= 1``, or resets it
    to a small int constant (``wait = 0``: an early stop's patience counter,
    ``_counter_resets``), and at least one steps it."""
    nodes = list(gast.walk(stmt))
    steps = [n for n in nodes if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
             and n.target.id == name]
    targets = {id(n.target) for n in steps} | {id(n.targets[0]) for n in _reset_nodes(stmt, name)}
    if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) and id(n) not in targets
           or isinstance(n, (gast.Global, gast.Nonlocal)) and name in n.names for n in nodes):
        return False
    return bool(steps) and all(isinstance(n.op, (gast.Add, gast.Sub)) and isinstance(n.value, gast.Constant)
                               and type(n.value.value) is int and n.value.value == 1 for n in steps)


def _reset_nodes(stmt: Any, name: str) -> list:
    """The statements ``name = c`` in the loop ``stmt``, ``c`` an int constant
    of at most 2**20 in size (not a bool)."""
    return [n for n in gast.walk(stmt) if isinstance(n, gast.Assign) and len(n.targets) == 1
            and isinstance(n.targets[0], gast.Name) and n.targets[0].id == name
            and isinstance(n.value, gast.Constant) and type(n.value.value) is int and abs(n.value.value) < 2**20]


def _counter_resets(stmt: Any, name: str) -> list[int]:
    """The constants a counter of the loop ``stmt`` is reset to (``_counted_by_one``)."""
    return [n.value.value for n in _reset_nodes(stmt, name)]


def _unsorted(d: dict) -> bool:
    try:
        return list(d) != sorted(d)
    except TypeError:
        return False


def _counted_by_one_nonlocal(tree: Any, stmt: Any, name: str) -> bool:
    """``name``, a variable of function ``tree``, is bound in the loop
    ``stmt`` and in the nested functions of ``tree`` that declare it
    ``nonlocal`` only as ``name += 1`` or ``name -= 1`` (a counter a helper
    steps: ``nonlocal count; count += 1``), and no deeper function rebinds it."""
    if stmt is None:
        return False
    owners = [f for f in gast.walk(tree) if isinstance(f, (gast.FunctionDef, gast.AsyncFunctionDef)) and f is not tree
              and any(isinstance(s, gast.Nonlocal) and name in s.names for s in f.body)]
    nodes = list(gast.walk(stmt))
    for f in owners:
        if any(isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef))
               and n is not f and name in {m.id for m in gast.walk(n) if isinstance(m, gast.Name)}
               for n in gast.walk(f)):
            return False
        nodes += [n for n in gast.walk(f) if not isinstance(n, gast.Nonlocal)]
    steps = [n for n in nodes if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
             and n.target.id == name]
    targets = {id(n.target) for n in steps}
    if not owners or any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
                         and id(n) not in targets or isinstance(n, (gast.Global, gast.Nonlocal)) and name in n.names
                         for n in nodes):
        return False
    return bool(steps) and all(isinstance(n.op, (gast.Add, gast.Sub)) and isinstance(n.value, gast.Constant)
                               and type(n.value.value) is int and n.value.value == 1 for n in steps)


def _items_counted_by_one(stmt: Any, names: set[str]) -> bool:
    """Every use of the containers ``names`` in the loop ``stmt`` reads an
    item (``counts[k]``) or steps one by one (``counts[k] += 1``, ``-= 1``):
    no other write, no call handed the container, no alias, no method."""
    if not names:
        return False
    parents = {id(child): node for node in gast.walk(stmt) for child in gast.iter_child_nodes(node)}
    steps = 0
    for node in gast.walk(stmt):
        if isinstance(node, (gast.Global, gast.Nonlocal)) and names & set(node.names):
            return False
        if not (isinstance(node, gast.Name) and node.id in names):
            continue
        item = parents.get(id(node))
        if not isinstance(node.ctx, gast.Load) or not (isinstance(item, gast.Subscript) and item.value is node):
            return False
        if isinstance(item.ctx, gast.Load):
            continue
        step = parents.get(id(item))
        if not (isinstance(step, gast.AugAssign) and step.target is item and isinstance(step.op, (gast.Add, gast.Sub))
                and isinstance(step.value, gast.Constant) and type(step.value.value) is int and step.value.value == 1):
            return False
        steps += 1
    return steps > 0


def _steps_per_iteration(stmt: Any, name: str) -> int | None:
    """How many ``name += 1`` one iteration of the loop ``stmt`` can run at
    most: its statements of them outside nested loops and functions (None
    when one is inside: it may run any number of times)."""
    count = 0
    todo = list(stmt.body) + list(getattr(stmt, "orelse", []))
    while todo:
        node = todo.pop()
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and node.target.id == name:
            count += 1
        nested = isinstance(node, (gast.For, gast.While, gast.FunctionDef, gast.Lambda, gast.comprehension))
        if nested and any(isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name) and n.target.id == name
                          for n in gast.walk(node)):
            return None
        todo.extend(gast.iter_child_nodes(node))
    return count


def _holds_exactly(dtype: np.dtype, old: Any) -> bool:
    """A graph number of ``dtype`` is a Python float as eager has it: float64.
    (An int stays as before: ``n += i`` over the loop's index is pure Python
    work the unrolled loop evaluates at trace time, a static shape after it.)"""
    return type(old) is float and dtype == np.float64


class _UnsafeWidening(Exception):
    """Rolling would widen a Python scalar whose eager value stays a Python number."""

    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


class _StaticLoop(Exception):
    """The loop does no array work: evaluate it at trace time instead."""


class _PlaceholderOf:
    """A carried variable first bound inside the loop (no entry value)."""

    def __init__(self, template: Any):
        self.template = template

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _PlaceholderOf) and _same_template(self.template, other.template)


def _bounded_scan(n: int) -> str:
    return f"lax.scan of max_iters={n} steps (reverse-differentiable)"


def _carried_index(names: list[str], state: dict, name: str) -> int | None:
    """Position of ``name``'s value among the carried values (as ``_loop_init``
    orders them) when it is one traced leaf, else None."""
    k = 0
    for n in names:
        if state[n] is UNBOUND:
            continue
        leaves = _flatten(_unwrap(state[n]))[0]
        if n == name:
            return k if len(leaves) == 1 and isinstance(leaves[0], _Traced) else None
        k += sum(isinstance(x, _Traced) for x in leaves)
    return None


def _unwrap(template: Any) -> Any:
    return template.template if isinstance(template, _PlaceholderOf) else template


def _same_template(a: Any, b: Any) -> bool:
    if isinstance(a, _PlaceholderOf) or isinstance(b, _PlaceholderOf):
        return isinstance(a, _PlaceholderOf) and isinstance(b, _PlaceholderOf) and _same_template(a.template, b.template)
    if a is UNBOUND or b is UNBOUND:
        return a is b
    fa, fb = _flatten(a), _flatten(b)
    if fa[1] != fb[1]:
        return False
    for x, y in zip(fa[0], fb[0]):
        if isinstance(x, _Traced) or isinstance(y, _Traced):
            if x != y:
                return False
        elif not same_static(x, y):
            return False
    return True
