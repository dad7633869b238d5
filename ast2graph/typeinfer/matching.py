"""``match`` in the graph.

Requires: the ``Specializer`` state (mixed in).
Produces:
* a static subject (a Python value, a shape tuple, a config): Python's
  matching semantics run at trace time and only the chosen case's body is
  interpreted (the others are pruned). Value patterns are read through the
  interpreter (guarded like other reads); an outside container a sequence or
  mapping pattern looks into is guarded (``guard_reads``), so a changed
  config re-specialises.
* a traced scalar subject whose cases are numeric literals (``|`` of them)
  and a final wildcard/capture, without guards: an ``if``/``elif`` chain on
  ``subject == literal``, i.e. ``lax.cond``/``lax.switch``.
Anything else (a traced value a pattern must look into, a traced guard)
falls back to Python.
Invariants: names a pattern captures are bound when the pattern matches,
before its guard runs (as CPython does: they stay bound when the guard fails).
"""

from __future__ import annotations

import collections.abc
from typing import Any

import gast
import jax

from ..fallback.sites import FallbackCode
from ..graphlib import arrays
from .lattice import Value

_SELF_MATCHING = (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str, tuple)
_NUMERIC = (int, float, complex)


class _Traced(Exception):
    """A pattern needs a traced value's contents."""


class MatchMixin:
    def exec_Match(self, stmt: Any) -> None:
        subject = self.eval(stmt.subject)
        if isinstance(subject, Value):
            if self._traced_literal_match(stmt, subject):
                return
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, stmt, "`match` on a traced array with a pattern other "
                                   "than numeric literals", "match",
                                   hint="match a static value (a config, a shape), or use literal cases")
        for case in stmt.cases:
            try:
                bindings: dict = {}
                matched = self._match_pattern(case.pattern, subject, bindings)
            except _Traced:
                raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, case.pattern,
                                       "a `match` pattern looks into a traced value", "match") from None
            if not matched:
                continue
            for name, value in bindings.items():
                self.assign_name(name, value, case.pattern)
            if case.guard is not None:
                truth = self.truth(self.eval(case.guard), case.guard)
                if isinstance(truth, Value):
                    raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, case.guard, "a `match` guard on a traced value", "match")
                if not truth:
                    continue
            self.decide(stmt, "match", "pruned", f"the subject is static: case at line {getattr(case.pattern, 'lineno', '?')} selected at trace time")
            self.exec_block(case.body)
            return
        self.decide(stmt, "match", "pruned", "the subject is static: no case matches")

    # ---------------------------------------------------- static patterns
    def _static_truth(self, value: Any, node: Any) -> bool:
        if isinstance(value, Value):
            raise _Traced
        truth = self.truth(value, node)
        if isinstance(truth, Value):
            raise _Traced
        return bool(truth)

    def _match_pattern(self, p: Any, s: Any, out: dict) -> bool:
        if isinstance(s, Value) and not isinstance(p, (gast.MatchAs, gast.MatchOr)):
            raise _Traced
        if isinstance(p, gast.MatchValue):
            value = self.eval(p.value)
            if isinstance(value, Value):
                raise _Traced
            return self._static_truth(self.binop(arrays.COMPARE["Eq"], s, value, p), p)
        if isinstance(p, gast.MatchSingleton):
            return s is p.value
        if isinstance(p, gast.MatchAs):
            if p.pattern is not None and not self._match_pattern(p.pattern, s, out):
                return False
            if p.name is not None:
                out[p.name] = s
            return True
        if isinstance(p, gast.MatchOr):
            for alt in p.patterns:
                trial: dict = {}
                if self._match_pattern(alt, s, trial):
                    out.update(trial)
                    return True
            return False
        if isinstance(p, gast.MatchSequence):
            return self._match_sequence(p, s, out)
        if isinstance(p, gast.MatchMapping):
            return self._match_mapping(p, s, out)
        if isinstance(p, gast.MatchClass):
            return self._match_class(p, s, out)
        raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p, f"`match` pattern {type(p).__name__}", "match")

    def _match_sequence(self, p: Any, s: Any, out: dict) -> bool:
        if not isinstance(s, collections.abc.Sequence) or isinstance(s, (str, bytes, bytearray)):
            return False
        self.guard_reads(s, p)   # an outside list's contents: the caller may change them before the next call
        items = list(s)
        stars = [i for i, q in enumerate(p.patterns) if isinstance(q, gast.MatchStar)]
        if not stars:
            if len(items) != len(p.patterns):
                return False
            return all(self._match_pattern(q, v, out) for q, v in zip(p.patterns, items))
        star = stars[0]
        before, after = p.patterns[:star], p.patterns[star + 1:]
        if len(items) < len(before) + len(after):
            return False
        tail = len(items) - len(after)
        if not all(self._match_pattern(q, v, out) for q, v in zip(before, items[:star])):
            return False
        if p.patterns[star].name is not None:
            out[p.patterns[star].name] = self.mark_fresh(items[star:tail])
        return all(self._match_pattern(q, v, out) for q, v in zip(after, items[tail:]))

    def _match_mapping(self, p: Any, s: Any, out: dict) -> bool:
        if not isinstance(s, collections.abc.Mapping):
            return False
        self.guard_reads(s, p)
        keys = [self.eval(k) for k in p.keys]
        if any(isinstance(k, Value) for k in keys):
            raise _Traced
        try:
            distinct = len(set(keys)) == len(keys)
        except TypeError:
            distinct = False
        if not distinct:   # eager: ValueError (duplicate key) or TypeError (unhashable)
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p, "a mapping pattern eager rejects", "match")
        missing = object()
        for key, q in zip(keys, p.patterns):
            value = s.get(key, missing)
            if value is missing or not self._match_pattern(q, value, out):
                return False
        if p.rest is not None:
            rest = dict(s)
            for key in keys:
                del rest[key]
            out[p.rest] = self.mark_fresh(rest)
        return True

    def _match_class(self, p: Any, s: Any, out: dict) -> bool:
        cls = self.eval(p.cls)
        if not isinstance(cls, type):   # eager raises TypeError: Python raises it
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p.cls, "a class pattern whose name is not a class", "match")
        if not isinstance(s, cls):
            return False
        names: tuple = ()
        if p.patterns:
            if issubclass(cls, _SELF_MATCHING) and not hasattr(cls, "__match_args__"):
                if len(p.patterns) > 1:
                    raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p, "a class pattern eager rejects", "match")
                if not self._match_pattern(p.patterns[0], s, out):
                    return False
            else:
                names = getattr(cls, "__match_args__", ())
                if not isinstance(names, tuple) or len(p.patterns) > len(names) \
                        or not all(isinstance(n, str) for n in names[:len(p.patterns)]):
                    raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p, "a class pattern eager rejects", "match")
                names = names[:len(p.patterns)]
        if len(set(names) | set(p.kwd_attrs)) != len(names) + len(p.kwd_attrs):   # eager: TypeError
            raise self.graph_break(FallbackCode.UNSUPPORTED_SYNTAX, p, "a class pattern eager rejects", "match")
        for name, q in zip(names, p.patterns):
            if not self._match_attr(s, name, q, out):
                return False
        return all(self._match_attr(s, name, q, out) for name, q in zip(p.kwd_attrs, p.kwd_patterns))

    def _match_attr(self, s: Any, name: str, q: Any, out: dict) -> bool:
        if not hasattr(s, name):   # eager: an AttributeError fails the pattern
            return False
        return self._match_pattern(q, self.attribute_of(s, name, q), out)

    # ---------------------------------------------------- traced subject
    def _traced_literal_match(self, stmt: Any, subject: Value) -> bool:
        """Cases of numeric literals (``|`` of them) and at most a final
        wildcard/capture, no guards: an if/elif chain on ``subject == lit``."""
        if getattr(subject.type, "shape", None) != ():
            return False
        cases, default = list(stmt.cases), None
        if cases and isinstance(cases[-1].pattern, gast.MatchAs) and cases[-1].pattern.pattern is None and cases[-1].guard is None:
            default = cases.pop()

        def literals(p: Any) -> list | None:
            if isinstance(p, gast.MatchOr):
                parts = [literals(q) for q in p.patterns]
                return None if any(x is None for x in parts) else [v for x in parts for v in x]
            if isinstance(p, gast.MatchValue) and isinstance(p.value, gast.Constant) \
                    and type(p.value.value) in _NUMERIC + (bool,):
                return [p.value.value]
            if isinstance(p, gast.MatchValue) and isinstance(p.value, gast.UnaryOp) and isinstance(p.value.op, gast.USub) \
                    and isinstance(p.value.operand, gast.Constant) and type(p.value.operand.value) in _NUMERIC:
                return [-p.value.operand.value]
            return None

        lits = [literals(c.pattern) for c in cases]
        if not cases or any(c.guard is not None for c in cases) or any(x is None for x in lits):
            return False
        eq = arrays.COMPARE["Eq"]
        preds = []
        for values, case in zip(lits, cases):
            pred = None
            for v in values:
                part = self.truth(self.binop(eq, subject, v, case.pattern), case.pattern)
                if not isinstance(part, Value):
                    return False
                pred = part if pred is None else self.emit_call(jax.numpy.logical_or, (pred, part), {}, case.pattern, "or")
            preds.append(pred)
        bodies = [c.body for c in cases]

        def run_default() -> None:
            if default is None:
                return
            if default.pattern.name is not None:
                self.assign_name(default.pattern.name, subject, default.pattern)
            self.exec_block(default.body)

        ssa = self.frame.unit.ssa
        names = sorted(ssa.assigned(stmt) & ssa.live_out(stmt))
        runs = [lambda b=b: self.exec_block(b) for b in bodies] + [run_default]
        if len(preds) == 1:
            self.decide(stmt, "match", "lax.cond", "traced scalar subject with a literal case")
            self._traced_branches(stmt, preds[0], runs, names, ssa.assigned(stmt))
            return True
        self.decide(stmt, "match", "lax.switch", f"traced scalar subject with {len(preds)} literal cases")
        index = self.emit_call(arrays.branch_index, tuple(preds), {}, stmt, "branch_index")
        self._traced_branches(stmt, index, runs, names, ssa.assigned(stmt), switch=True)
        return True
