"""Run one corpus program eagerly and converted, on every input set, and record what happened.

The comparison is ``tests/helpers.py``'s (``assert_same`` on results and on
the arguments afterwards, printed output, exception type and message); the
converted side is called through ``explain`` so that each call's graph count
and fallback sites are kept.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ast2graph import explain, to_static

from .registry import HANGS, Program

_TESTS = str(Path(__file__).resolve().parents[2] / "tests")
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)

from helpers import _run, assert_same  # noqa: E402


@dataclass
class Outcome:
    program: Program
    graphs: list[int] = field(default_factory=list)            # graph count of each call
    sites: list[tuple] = field(default_factory=list)           # distinct (code, line, col, cause)
    equal: bool = True
    error: str = ""

    @property
    def one_graph(self) -> bool:
        return self.equal and not self.sites and bool(self.graphs) and all(g == 1 for g in self.graphs)

    def to_json(self) -> dict:
        p = self.program
        return {"name": p.name, "category": p.category, "module": p.module, "one_graph": self.one_graph,
                "equal": self.equal, "error": self.error, "graphs": self.graphs,
                "sites": [{"code": c, "line": ln, "col": col + 1, "cause": cause} for c, ln, col, cause in self.sites]}

    def line(self) -> str:
        p = self.program
        state = "one graph" if self.one_graph else f"graphs {self.graphs}"
        first = ""
        if self.sites:
            code, line, _col, cause = self.sites[0]
            first = f"; {len(self.sites)} site(s), first {code} line {line}: {cause[:100]}"
        eq = "" if self.equal else f"; DIFFERS: {self.error[:200]}"
        return f"{p.category:11s} {p.name:32s} {state}{first}{eq}"


class _Recorder:
    """The converted function, called through ``explain`` (each call's record kept)."""

    def __init__(self, static: Callable, out: Outcome):
        self.static, self.out = static, out

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        e = explain(self.static)(*args, **kwargs)
        self.out.graphs.append(e.graph_count)
        for s in e.fallback_sites:
            key = (s.code.code, s.loc.line, s.loc.col, s.cause)
            if key not in self.out.sites:
                self.out.sites.append(key)
        return e.result


def _same(eager: tuple, conv: tuple, p: Program, eager_args: Any = None, conv_args: Any = None) -> None:
    (e, e_exc, e_out), (c, c_exc, c_out) = eager, conv
    if e_exc is not None:
        assert c_exc is not None, f"eager raised {e_exc!r}, converted returned {c!r}"
        assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc), \
            f"eager raised {e_exc!r}, converted raised {c_exc!r}"
    else:
        assert c_exc is None, f"converted raised {c_exc!r}, eager returned {e!r}"
        assert_same(e, c, p.rtol, p.atol, p.exact_kinds)
    assert c_out == e_out, f"printed output differs: eager {e_out!r} vs converted {c_out!r}"
    if eager_args is not None:
        assert_same(eager_args, conv_args, p.rtol, p.atol, p.exact_kinds, "arguments after the call")


def measure(p: Program, hangs: dict[str, str] | None = None) -> Outcome:
    """``hangs``: the programs of ``p``'s corpus not to run (corpus16's by default)."""
    out = Outcome(p)
    hangs = HANGS if hangs is None else hangs
    if p.name in hangs:
        out.equal, out.error = False, "not run: " + hangs[p.name]
        return out
    try:
        if p.stateful:
            _measure_sequence(p, out)
        else:
            _measure_inputs(p, out)
    except AssertionError as e:
        out.equal, out.error = False, " ".join(str(e).split())[:300] or "assertion failed"
    except Exception as e:  # noqa: BLE001  (the harness itself failed: count it as a difference)
        out.equal, out.error = False, " ".join(f"{type(e).__name__}: {e}".split())[:300]
    return out


def _measure_inputs(p: Program, out: Outcome) -> None:
    """Each input set: an explained call (recorded), then a warm plain call
    (the fast path), both vs one eager run on a copy of the same inputs (a
    program whose eager result depends on more than its inputs is
    ``stateful``: ``_measure_sequence``)."""
    assert p.fn is not None
    static = to_static(p.fn, full_graph=False)
    conv = _Recorder(static, out)
    for k, args in enumerate(p.inputs):
        eager_args = copy.deepcopy(args)
        e = _run(p.fn, eager_args, {})
        for when, call in (("", conv), ("(warm call) ", static)):
            conv_args = copy.deepcopy(args)
            c = _run(call, conv_args, {})
            try:
                _same(e, c, p, eager_args, conv_args)
            except AssertionError as err:
                raise AssertionError(f"input set {k}: {when}{err}") from None


def _measure_sequence(p: Program, out: Outcome) -> None:
    """The sequence of calls eagerly, then converted twice: through ``explain``
    (recorded) and plainly (the fast path a user's warm calls take)."""
    assert p.make is not None
    fn, world = p.make()
    eager = [_run(step, (fn, world), {}) for step in p.steps]
    for when in ("", "(plain calls) "):
        fn, world = p.make()
        static = to_static(fn, full_graph=False)
        conv = _Recorder(static, out) if not when else static
        converted = [_run(step, (conv, world), {}) for step in p.steps]
        for k, (e, c) in enumerate(zip(eager, converted)):
            try:
                _same(e, c, p)
            except AssertionError as err:
                raise AssertionError(f"{when}step {k}: {err}") from None
