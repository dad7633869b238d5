"""The block executor: a statement list run as compiled segments, interpreted
statements and Python control flow, each plan specialised per call signature.

Requires: a ``FunctionState`` (its unit, options and counters) and every
compiler stage (``specialize``, ``verify``, ``lower_graph``).
Produces: ``Block``: ``block(env) -> (kind, value)`` runs the statements on
the environment ``env``, choosing or compiling a plan per statement (keyed by
the live values' structure and leaves, checked by the plan's guards);
``RunEagerly``/``EagerCall`` for a function that runs as one graph or not at
all; ``gc_paused``, ``checks_enabled``.
Invariants: a compile failure of ours never breaks the user's program (the
statement runs in Python, with a warning) unless checks are enabled;
``full_graph=True`` turns every fallback into a ``FullGraphError``; nothing
of the user's has run when a plan is compiled.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import os
import time
import warnings
from dataclasses import dataclass
from typing import Any

import gast
import jax
import numpy as np

from ..diagnostics import FullGraphError, IntRangeError, Loc
from ..fallback.control import BREAK, CONTINUE, NEXT, RETURN, JumpPlan, PythonControl, escapes, splittable
from ..fallback.interpreted import CELLS, InterpretedNode
from ..fallback.sites import FallbackCode, FallbackSite, GraphBreak
from ..graphlib.arrays import ARRAY_IMPL as _ARRAY_IMPL
from ..graphlib.trees import tree_flatten
from ..ir import print_graph, verify
from ..lowering import lower_graph
from ..typeinfer import specialize
from ..typeinfer.guards import Identity, changed_attributes, object_key
from ..typeinfer.lattice import TracedNumber, array_type_of, is_array, is_traceable_number, traced_int_ok
from ..typeinfer.nnx import boundary_leaf, is_node
from ..typeinfer.precision import hoist_input_checks, needs_x64
from ..typeinfer.specialize import leaf_paths, numpy_aliasing, numpy_layout, numpy_readonly
from ..cache import compile_threshold, jax_cache_bypassed
from ..pipeline import Stages
from ..worklog import note_long_work
from . import executables
from .fastpath import SpecMiss, aval_checked, signature
from .plans import GraphPlan, InterpretedPlan, check_output_types, host_effects, shared_containers, x64_switch
from .state import FunctionState


@contextlib.contextmanager
def gc_paused() -> Any:
    """No cyclic garbage collection while converting: a conversion allocates
    many small objects (trees, types, IR) that stay alive, and the collector
    traversed the whole heap again and again (a quarter of the conversion
    time of a 1,000-line function, half at 5,000 lines: superlinear). The
    collection runs afterwards as usual."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def checks_enabled() -> bool:
    return os.environ.get("AST2GRAPH_CHECKS", "") not in ("", "0")


def _leaf_key(leaf: Any, by_identity: bool = False) -> Any:
    if type(leaf) is _ARRAY_IMPL:
        return ("A", leaf.shape, leaf.dtype, leaf.weak_type)
    if is_array(leaf):
        t = array_type_of(leaf)   # an ndarray is a NumPy array in the graph too: its own key
        # (a NumPy scalar too: the segment hands back NumPy scalars where a 0-d jax.Array gives jax.Arrays)
        kind = "N" if type(leaf) is np.ndarray else "G" if isinstance(leaf, np.generic) else "A"
        return (kind, t.shape, t.dtype, t.weak_type)
    if isinstance(leaf, (bool, int, float, complex, str, bytes, type(None))):
        # -0.0 == 0.0 (one dict key), yet they print and divide differently
        return ("S", type(leaf), leaf, repr(leaf) if isinstance(leaf, (float, complex)) else None)
    if by_identity or is_node(leaf):   # an NNX module: the graph reads its state through it (never by value)
        return ("O", Identity(leaf))
    return object_key(leaf)


def _signature_change(old: tuple, new: tuple) -> str:
    """Which input of a segment changed between two cache keys, in words a
    user can act on."""
    _, names_old, tree_old, leaves_old, _, x64_old, outer_old = old
    _, names_new, tree_new, leaves_new, _, x64_new, outer_new = new
    if x64_old != x64_new:
        return f"JAX's x64 switch changed ({'on' if x64_new else 'off'} now)"
    if outer_old != outer_new:
        return "called under an outer JAX transform now" if outer_new else "called outside a JAX transform now"
    if names_old != names_new:
        return f"new inputs {list(names_new)} (were {list(names_old)})"
    if tree_old != tree_new:
        return f"the structure of inputs {list(names_new)} changed ({len(leaves_old)} -> {len(leaves_new)} leaves)"
    paths = leaf_paths(list(names_new), tree_new, len(leaves_new))
    for path, a, b in zip(paths, leaves_old, leaves_new):
        if a != b:
            return f"{path}: {_describe_leaf_change(a, b)}"
    return "the inputs share memory differently"


def _describe_leaf_change(a: tuple, b: tuple) -> str:
    if a[0] != b[0] or a[0] not in "ANGSHVO":
        return "changed kind"
    if a[0] in "ANG":
        return f"{a[2]}[{','.join(map(str, a[1]))}] -> {b[2]}[{','.join(map(str, b[1]))}]"
    if a[0] == "S":
        return f"{a[2]!r} -> {b[2]!r} (a Python value is specialised on)"
    if a[0] == "H":
        return f"{_short(a[2])} -> {_short(b[2])} (an immutable object is specialised on by equality)"
    if a[0] == "V":
        changed = changed_attributes(a[1], b[1])
        what = f"attribute{'s' * (len(changed) > 1)} {', '.join(changed)} changed" if changed else "another class"
        return f"{what} (a plain object is specialised on by its attribute values)"
    return f"a different {type(b[1].obj).__name__} object (specialised on by identity: it holds arrays, slots, " \
           "properties or other state that cannot be compared cheaply; pass the same object, or keep arrays in " \
           "arguments)"


def _short(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 40 else text[:37] + "..."


class RunEagerly(Exception):
    """This call of a function that runs as one graph or not at all (it
    rebinds nonlocal variables) would not be one graph: it runs eagerly."""

    def __init__(self, site: FallbackSite):
        self.site = site


@dataclass
class EagerCall:
    """A call run eagerly as a whole (``explain`` lists its site)."""

    site: FallbackSite


_NESTED_COMPILE_CAP = 8   # signatures one statement of a Python-run body compiles before it runs in Python


class Block:
    """A statement list run as a sequence of plans: compiled segments, statements
    interpreted by Python and, in bodies run by Python control flow
    (``PythonControl``), jumps and nested control.

    The function body is the top block. A nested block is the body of an
    ``if``/``for``/``while`` that runs as Python control flow: its segments
    never span a statement that jumps out of the block, and a Python number
    that changes between runs (a loop counter) is passed traced once it has
    taken two values, so a loop does not compile once per iteration."""

    def __init__(self, state: FunctionState, stmts: list, nested: bool):
        self.state, self.stmts, self.nested = state, stmts, nested
        hidden = hidden_reads(state.unit) | set(state.unit.cellvars)   # a closure may read a cell variable any time
        self.live_names = [sorted(state.unit.ssa.live_in(s) | hidden) for s in self.stmts]
        self.plans: dict[tuple, list[Any]] = {}
        self.interpreted: dict[int, InterpretedNode] = {}
        self.controls: dict[int, PythonControl] = {}
        self.break_sites: dict[int, FallbackSite] = {}
        self.split_after: set[int] = set()   # starts of segments that follow a compiled one cut at a break
        self.fixed: dict[int, Any] = {}   # plans that do not depend on the inputs
        self.barriers: list[int] = []
        for k, stmt in enumerate(self.stmts):
            if nested and escapes(stmt):
                self.barriers.append(k)
                if isinstance(stmt, (gast.Break, gast.Continue)):
                    self.fixed[k] = JumpPlan(k, BREAK if isinstance(stmt, gast.Break) else CONTINUE)
                else:  # splittable: the enclosing PythonControl checked it
                    self.fixed[k] = self._control(k, None)
        self.scalar_values: dict[tuple[int, str], set] = {}
        self.traced: dict[int, set[str]] = {}
        self.compiles: dict[int, int] = {}
        self.last_keys: dict[int, tuple] = {}   # the plan key each statement ran with last
        self.identity_keyed: dict[int, set[int]] = {}   # statement -> object leaves keyed by identity

    def __call__(self, env: dict[str, Any]) -> tuple[str, Any]:
        record = self.state.record
        i, n = 0, len(self.stmts)
        while i < n:
            plan, leaves = self.fixed.get(i), None
            if plan is None:
                names = [x for x in self.live_names[i] if x in env]
                values = [env[x] for x in names]
                if self.nested or self.state.traced_params:
                    values = self._trace_busy(i, names, values)
                leaves, treedef = tree_flatten(values, is_leaf=boundary_leaf())   # dicts in insertion order; an NNX module: one object
                shared = shared_containers(names, values, treedef)
                plan = self._plan_for(i, names, leaves, treedef, env.get(CELLS), values, shared)
            if i == 0 and not self.nested and self.state.whole_only is not None:
                self._check_whole(plan, n)
            if record is not None:
                record.plans.append(plan)
            try:
                kind, value = plan.run(env, leaves)
            except SpecMiss:   # the plan is stale now: the same statement again, compiled anew
                if record is not None:
                    record.plans.pop()
                continue
            except IntRangeError as e:
                # A Python int of the graph left int64 (eager's is exact). Nothing of the
                # segment has happened where it has no host effect but printed text, held back
                # (its checks only raise; its writes come after the graph): on this call its statements
                # run in Python instead, or, where a function must be one graph or eager
                # (``whole_only``) and this is its start, the call runs eagerly.
                if not isinstance(plan, GraphPlan) or plan.visible_effects and not plan.defer_prints:
                    raise
                site = self._beyond_int64(e)
                if self.state.options.full_graph:
                    raise FullGraphError(f"full_graph=True but this call would fall back to Python:\n{site.format()}") from None
                if record is not None:
                    record.plans.pop()
                if self.state.whole_only is not None:
                    if i == 0 and not self.nested:
                        raise RunEagerly(site) from None
                    raise
                kind, value = self._interpret(i, plan.end, env, site)
                if kind != NEXT:
                    return kind, value
                i = plan.end
                continue
            if i == 0 and not self.nested and isinstance(plan, GraphPlan) and (kind == RETURN or plan.end == n):
                self.state.single = (plan, names, leaves, treedef)   # the whole call was this plan
            if kind != NEXT:
                return kind, value
            i = plan.end
        return NEXT, None

    def _interpret(self, start: int, end: int, env: dict, site: FallbackSite) -> tuple[str, Any]:
        """Statements ``start:end`` run in Python, on this call only."""
        record = self.state.record
        for k in range(start, end):
            plan = self._interpreted_plan(k, site)
            if record is not None:
                record.plans.append(plan)
            kind, value = plan.run(env, [])
            if kind != NEXT:
                return kind, value
        return NEXT, None

    def _beyond_int64(self, error: IntRangeError) -> FallbackSite:
        """The site of a call that ran eagerly because a Python int of its
        graph left int64: the user's line the check raised from."""
        unit = self.state.unit
        loc = unit.loc(unit.tree)
        tb = error.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if code.co_filename == loc.file:
                loc = Loc(loc.file, tb.tb_lineno, 0, code.co_name)
            tb = tb.tb_next
        return FallbackSite(FallbackCode.PRECISION, loc, "int beyond int64",
                            f"a Python int is beyond int64 on this call ({error}); eager's int is exact",
                            effect="on this call the segment's statements ran in Python (a function that must be one graph "
                                   "or eager: the whole call ran eagerly); calls whose ints fit int64 stay one graph",
                            hint="the graph's Python ints are int64: only calls whose exact ints are larger run in Python",
                            stage="runtime")

    def _check_whole(self, plan: Any, n: int) -> None:
        """A function that rebinds nonlocal variables runs as one graph (its
        nested functions inlined, their writes in the graph's own frames) or,
        before anything of it has run, eagerly: an interpreted statement or a
        nested function run by Python would rebind a real cell the compiled
        segments do not read."""
        if isinstance(plan, GraphPlan) and (plan.spec.returns or plan.end == n):
            return
        base = self.state.whole_only
        what = getattr(plan, "site", None)
        if what is None and self.break_sites:   # the first break found: the cause (a statement ending the
            what = next(iter(self.break_sites.values()))   # graph earlier to keep a closure in it is its consequence)
        if what is None:
            stmt = self.stmts[min(getattr(plan, "end", 0), n - 1)]
            why = f"the statement at line {getattr(stmt, 'lineno', '?')} is not in the graph"
        else:
            why = f"{what.code.code} at line {what.loc.line}: {what.cause}"
        raise RunEagerly(dataclasses.replace(base, cause=f"{base.cause}; this call is not one graph ({why})"))

    def _trace_busy(self, i: int, names: list[str], values: list) -> list:
        """The Python numbers to pass traced: the function's busy number
        arguments and, in a body run by Python control flow, any number that
        has taken two values here (a loop counter)."""
        traced = self.traced.setdefault(i, set())
        busy = self.state.traced_params
        out = list(values)
        for k, (name, value) in enumerate(zip(names, values)):
            if not is_traceable_number(value) or not traced_int_ok(value):   # a large int stays a static Python int
                continue
            if name not in traced and name not in busy:
                if not self.nested:
                    continue
                seen = self.scalar_values.setdefault((i, name), set())
                seen.add((type(value), value))
                if len(seen) < 2:
                    continue
                traced.add(name)
            out[k] = TracedNumber.of(value)
        return out

    def _line(self, i: int) -> int:
        return getattr(self.stmts[i], "lineno", 0)

    def _plan_for(self, i: int, names: list[str], leaves: list, treedef: Any, cells: dict | None = None,
                  values: list | None = None, shared: tuple = ()) -> Any:
        state = self.state
        ident = self.identity_keyed.get(i, ())
        # the user's x64 switch decides the types of JAX ops: a plan per setting;
        # under an outer JAX transform eager's arrays are tracers (isinstance, type() see it)
        outer = any(isinstance(x, jax.core.Tracer) for x in leaves)
        key = (i, tuple(names), treedef, tuple(_leaf_key(x, k in ident) for k, x in enumerate(leaves)),
               (numpy_aliasing(leaves), numpy_readonly(leaves), numpy_layout(leaves), shared), bool(jax.config.jax_enable_x64), outer)
        candidates = self.plans.setdefault(key, [])
        last, self.last_keys[i] = self.last_keys.get(i), key
        for plan in candidates:
            if plan.guards_hold(leaves):
                return plan
        if candidates:
            state.note_changed_statics(candidates)
            state.note_recompile(f"line {self._line(i)}: {candidates[0].why_not(leaves)}")
        elif last is not None:
            state.note_recompile(f"line {self._line(i)}: {_signature_change(last, key)}")
        self.compiles[i] = self.compiles.get(i, 0) + 1
        if self.nested and self.compiles[i] > _NESTED_COMPILE_CAP:
            site = FallbackSite(FallbackCode.LOOP_CARRIED_CHANGE, state.unit.loc(self.stmts[i]),
                                type(self.stmts[i]).__name__.lower(),
                                f"its inputs changed type or static value {_NESTED_COMPILE_CAP} times in a body that runs as Python control flow",
                                "this statement runs in Python; the statements around it stay compiled")
            plan = self.fixed[i] = self._fallback_plan(i, site)
            return plan
        plan = self._compile(i, names, leaves, treedef, cells, values)
        if getattr(plan, "rebind_writes", None):
            # the graph writes attributes of a by-value object (``c.calls += 1``):
            # its state changes every call, so it is specialised on by identity
            # from now on (its attributes guarded, a counter read traced)
            self.identity_keyed.setdefault(i, set()).update(k for _, k in plan.rebind_writes)
        candidates.insert(0, plan)
        if state.record is not None:
            state.record.compiled.append(plan)
        return plan

    def _compile(self, i: int, names: list[str], leaves: list, treedef: Any, cells: dict | None,
                 values: list | None = None) -> Any:
        state = self.state
        try:
            with gc_paused():
                plan = self._compile_plan(i, names, leaves, treedef, cells, values)
        except (FullGraphError, GraphBreak):
            raise
        except Exception as e:  # noqa: BLE001 - a bug of ours must not break the user's program
            if checks_enabled():
                raise
            stmt = self.stmts[i]
            site = FallbackSite(FallbackCode.INTERNAL_ERROR, state.unit.loc(stmt), type(stmt).__name__.lower(),
                                f"{type(e).__name__}: {e}", "this statement runs in Python", "ast2graph")
            if state.options.full_graph:
                raise FullGraphError(f"full_graph=True but ast2graph failed on this statement:\n{site.format()}") from e
            warnings.warn(f"ast2graph internal error on {state.name}, statement at line {site.loc.line}: {e!r}; "
                          "it runs in Python", stacklevel=5)
            return self._interpreted_plan(i, site)
        return plan

    def _compile_plan(self, i: int, names: list[str], leaves: list, treedef: Any, cells: dict | None,
                      values: list | None = None) -> Any:
        state = self.state
        t0 = time.perf_counter()
        stages = Stages(f"{state.name}, segment at line {self._line(i)}")
        stop = next((k for k in self.barriers if k > i), len(self.stmts))
        while True:
            try:
                with stages.run("typeinfer", lambda: print_graph(spec.graph)):
                    spec = specialize(state.unit, self.stmts, i, stop, names, leaves, treedef, state.options,
                                      by_identity=frozenset(self.identity_keyed.get(i, ())),
                                      nested=self.nested, traced_statics=frozenset(state.traced_statics), cells=cells,
                                      structure=values)
                break
            except GraphBreak as e:
                if state.options.full_graph:
                    raise FullGraphError(f"full_graph=True but this site would fall back to Python:\n{e.site.format()}") from None
                k = e.top_index  # type: ignore[attr-defined]
                if k <= i:
                    # The first cause found for this statement is the root one; a later
                    # compile from here sees earlier segments' outputs as outside objects.
                    return self._fallback_plan(i, self.break_sites.get(i, e.site))
                self.break_sites.setdefault(k, e.site)
                stop = k
        if checks_enabled():
            with stages.run("verify"):
                verify(spec.graph)
        # A graph with 64-bit values (NumPy's int64/float64, Python numbers) is
        # traced and run with JAX's x64 switch on (precision.py); with the
        # user's switch on, every graph already is.
        int_inputs = hoist_input_checks(spec.graph)   # busy Python ints given to JAX ops: checked before the call
        x64 = not jax.config.jax_enable_x64 and needs_x64(spec.graph)
        with stages.run("lower", lambda: lowered.source):
            lowered = lower_graph(spec.graph, x64, state.options.exact_rounding)
        conversion = time.perf_counter() - t0  # parse .. lowered function; JAX tracing and XLA excluded
        jit_kwargs = {}
        if state.jit is not None and not self.nested and i == 0 and (spec.returns or spec.end == len(self.stmts)):
            # the whole function is this one graph: jax.jit takes the options
            jit_kwargs = state.jit.segment_kwargs(spec, names, leaves, treedef, state.caller_params)
        note_long_work(state.name, "conversion", conversion, spec)
        inputs = [leaves[k] for k in spec.arg_positions] + [c.getter() for c in spec.captures]
        concrete = not any(isinstance(x, jax.core.Tracer) for x in inputs)
        key = None
        with x64_switch(x64):
            if concrete and not jit_kwargs and not host_effects(spec.graph) and executables.persistable():
                key = executables.graph_key(lowered.source, lowered.consts, inputs)
            if key is not None:   # the same program compiled before, in this process or another one
                t1 = time.perf_counter()
                sig = signature(inputs)
                loaded = executables.load(key, len(inputs), len(spec.graph.outputs),
                                          lambda: jax.jit(aval_checked(lowered.fn, sig)))
                if loaded is not None:
                    stages.add("load", time.perf_counter() - t1)
                    if checks_enabled():
                        check_output_types(spec, loaded.compiled)
                    return self._graph_plan(i, spec, lowered, loaded, conversion, x64, int_inputs, stages)
        jitted = jax.jit(aval_checked(lowered.fn), **jit_kwargs)
        # Trace and compile now: an error here is ours, and nothing of the user's has run yet.
        # (Under an outer transform the graph is inlined into the caller's: no compile of its own.)
        t1 = time.perf_counter()
        with x64_switch(x64), stages.run("jit", lambda: traced.as_text()):
            traced = jitted.lower(*inputs)
            if concrete:
                hits = executables.jax_cache_hits()
                # the call reuses this executable; it goes to JAX's persistent cache, or to
                # ast2graph's own store where the graph has a key
                with compile_threshold(), jax_cache_bypassed() if key is not None else contextlib.nullcontext():
                    compiled = traced.compile()
                if key is not None:
                    executables.store(key, compiled, len(inputs), len(spec.graph.outputs), hits)
        note_long_work(state.name, "trace and XLA compile", time.perf_counter() - t1, spec)
        if checks_enabled():
            check_output_types(spec, traced)
        return self._graph_plan(i, spec, lowered, jitted, conversion, x64, int_inputs, stages)

    def _graph_plan(self, i: int, spec: Any, lowered: Any, jitted: Any, conversion: float, x64: bool,
                    int_inputs: list, stages: Stages) -> GraphPlan:
        if spec.end in self.break_sites:   # this segment stopped before a break: the next one is a split
            self.split_after.add(spec.end)
        split = self.break_sites.get(i) if i in self.split_after else None
        if split is not None:
            split = dataclasses.replace(split, effect="the graph is split before this statement: the segment before it "
                                        "ends there and this one is compiled on its results read back as Python values")
        return GraphPlan(i, spec, lowered.source, jitted, conversion, x64, int_inputs, split, stages.seconds)

    def _fallback_plan(self, i: int, site: FallbackSite) -> Any:
        """The smallest construct that cannot be graph runs in Python: an
        ``if``/``for``/``while`` as Python control flow around compiled bodies,
        any other statement as an interpreted node."""
        if splittable(self.stmts[i]):
            return self._control(i, site)
        return self._interpreted_plan(i, site)

    def _interpreted_plan(self, i: int, site: FallbackSite) -> "InterpretedPlan":
        node = self.interpreted.setdefault(i, InterpretedNode(self.state.unit, self.stmts[i]))
        return InterpretedPlan(i, node, site)

    def _control(self, i: int, site: FallbackSite | None) -> PythonControl:
        control = self.controls.get(i)
        if control is None:
            stmt = self.stmts[i]
            what = {gast.If: "if", gast.For: "for", gast.While: "while"}[type(stmt)]
            if site is not None:
                head = "iterable" if what == "for" else "test"
                site = dataclasses.replace(
                    site, loc=self.state.unit.loc(stmt), construct=what,
                    cause=f"{site.cause} (line {site.loc.line})",
                    effect=f"this `{what}` runs as Python control flow: its {head} is evaluated in Python "
                           f"(a host transfer each time); the statements of its body stay compiled")
            control = self.controls[i] = PythonControl(self.state.unit, i, stmt, site, self.nested_block)
        return control

    def nested_block(self, stmts: list) -> "Block":
        """The executor of a body run by Python control flow (``PythonControl``):
        one per body of the function, kept in the function's state."""
        blocks = self.state.blocks
        block = blocks.get(id(stmts))
        if block is None or block.stmts is not stmts:
            block = blocks[id(stmts)] = Block(self.state, stmts, nested=True)
        return block


def hidden_reads(unit: Any) -> set[str]:
    """Names a statement reads without naming them: zero-argument ``super()``
    reads the method's first parameter."""
    positional = unit.tree.args.posonlyargs + unit.tree.args.args
    return {positional[0].id} if unit.tree_facts.zero_arg_super and positional else set()
