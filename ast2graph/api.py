"""The user API: ``to_static``, ``explain``, and the converted function object.

Requires: every stage.
Produces: ``StaticFunction``: calls run as compiled segments (one per call
when the whole function is graph), interpreted statements and Python
control flow around compiled bodies (``_Block``, ``PythonControl``), each
segment specialised per call signature and cached; ``explain(f)(*args)``.
Invariants: ``to_static(f)(*a)`` equals ``f(*a)``; a function that cannot be
converted at all runs eagerly with a warning (never a crash) unless
``full_graph=True``, which turns every fallback into a ``FullGraphError``.

Per call (the pipeline of DESIGN.md)::

    parse → resolve → ssa            once per code object (``unit_of_function``)
    typeinfer → verify → lower → jit once per segment and call signature
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
import sys
import time
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import gast
import jax
import numpy as np

from .fastpath import MISS, SpecMiss, aval_checked, make_fast_call
from .diagnostics import ConversionError, FullGraphError, NoSourceError, UnsupportedSyntaxError
from .fallback.control import (BREAK, CONTINUE, NEXT, RETURN, JumpPlan, PythonControl, StatementPlan, escapes,
                               splittable)
from .fallback.interpreted import CELLS, InterpretedNode, call_cells
from .fallback.sites import Decision, FallbackCode, FallbackSite, GraphBreak
from .typeinfer.state import MaybeBound
from .typeinfer.specialize import outside_arrays
from .ir import print_graph, verify
from .ir.core import Value, as_dtype, bounded, walk_ops
from .jit_options import JitOptions
from .lowering import lower_graph
from .lowering.codegen import narrow
from .parser import unwrap_callable
from .parser.unwrap import array_function_implementation, code_signature, overrides_array_function
from .typeinfer import Options, Specialization, specialize, unit_of_function
from .typeinfer.guards import Identity, changed_attributes, object_key
from .typeinfer import hostwarnings, numpy_api, scipy_api
from .typeinfer.jaxcallbacks import called_whole
from .typeinfer.numpy_api import copy_keeping_views
from .typeinfer.specialize import leaf_paths, numpy_aliasing, numpy_readonly
from .typeinfer.boundary import InputRef, container_paths, resolve
from .typeinfer.nnx import boundary_leaf, is_node
from .typeinfer.trees import tree_flatten
from .tracebacks import hide_frames
from .hostcalls import HostErrors
from .typeinfer.lattice import (TracedNumber, array_type_of, is_array, is_traceable_number, to_python_number,
                                traced_int_ok)
from .typeinfer.precision import check_int_inputs, hoist_input_checks, needs_x64
from .cache import compile_threshold, enable_persistent_cache
from .worklog import note_long_work


MIN_JAX = (0, 8, 0)   # pyproject.toml's jax>= bound, the version .ci/lowest-jax tests (jax.enable_x64)


def check_jax_version(version: str) -> None:
    """Warn, once at import, when JAX is older than the lowest tested
    version: a conversion that needs what it lacks then fails inside
    ast2graph (an internal error, A2G015: the statement runs in Python),
    never reported as the user's code raising."""
    parts = tuple(int(p) for p in version.split(".")[:3] if p.isdigit())
    if parts < MIN_JAX:
        warnings.warn(f"ast2graph needs jax>={'.'.join(map(str, MIN_JAX))}, found jax {version}: conversions that "
                      "need what it lacks (jax.enable_x64, for graphs with 64-bit values) fail as internal errors "
                      "(A2G015) and run in Python; upgrade jax and jaxlib", stacklevel=3)


check_jax_version(jax.__version__)
enable_persistent_cache()   # JAX's compilation cache in ast2graph's folder, unless the user set JAX's own (cache.py)


@contextlib.contextmanager
def _gc_paused() -> Any:
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


def _checks_enabled() -> bool:
    return os.environ.get("AST2GRAPH_CHECKS", "") not in ("", "0")


_ARRAY_IMPL = type(jax.device_put(np.zeros((), np.float32)))   # (jnp.zeros would compile an XLA program at import)


def _frame_introspection_call(unit: Any) -> str | None:
    """The name of a builtin the function's own body calls that looks at the
    calling frame (``locals()``, ``vars()``/``dir()`` without an object,
    ``eval``/``exec`` without namespaces), or None. Nested functions and
    lambdas have frames of their own and are not looked into."""
    import builtins

    import gast

    from .typeinfer.calls import frame_introspection

    stack = list(unit.tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id not in unit.globals:
            fn = getattr(builtins, node.func.id, None)
            if fn is not None and frame_introspection(fn, tuple(node.args), {k.arg: k.value for k in node.keywords if k.arg}):
                return node.func.id
        stack.extend(gast.iter_child_nodes(node))
    return None


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


def _check_output_types(spec: Specialization, traced: Any) -> None:
    """The graph computes the types type inference gave its outputs (the
    checks of the test suite: a 64-bit value must never come out narrowed)."""
    got = jax.tree_util.tree_leaves(traced.out_info)
    want = [x.type for x in spec.out_template if isinstance(x, Value)]
    for k, (g, w) in enumerate(zip(got, want)):
        if tuple(g.shape) != w.shape or as_dtype(g.dtype) != w.dtype:
            raise AssertionError(f"ast2graph internal error: output {k} of {spec.graph.name} is "
                                 f"{as_dtype(g.dtype)}{list(g.shape)}, typed {w}")


def x64_switch(on: bool) -> Any:
    """``jax.enable_x64(True)`` around the trace and every call of a graph
    with 64-bit values; nothing otherwise."""
    return jax.enable_x64(True) if on else contextlib.nullcontext()


@dataclass
class GraphPlan:
    """A compiled segment: statements [start, end) of one block as one jitted graph."""

    start: int
    spec: Specialization
    lowered_source: str
    jitted: Callable[..., Any]
    conversion_seconds: float
    x64: bool = False   # traced and called with JAX's x64 switch on (64-bit values)
    int_inputs: list = field(default_factory=list)   # (input, path): Python ints that must fit int32 (precision.py)
    # the site that ended the segment before this one (it compiles here, on that segment's
    # outputs read back as Python values): where the function's graph is split
    split_site: FallbackSite | None = None

    def __post_init__(self) -> None:
        # outputs whose eager value is a NumPy ndarray: handed back as ndarrays
        # (a 0-d one too where eager's is a 0-d ndarray: np.cov of a vector, ``ArrayType.array0``)
        self.numpy_out = [k for k, x in enumerate(self.spec.out_template)
                          if isinstance(x, Value) and x.type.numpy and (x.type.shape or x.type.array0)]
        # a 0-d NumPy result (np.sum of an ndarray, a[i]) is a NumPy scalar in eager
        self.numpy_scalar_out = [k for k, x in enumerate(self.spec.out_template)
                                 if isinstance(x, Value) and x.type.numpy and not x.type.shape and not x.type.array0]
        # outputs that are an argument unchanged: the caller's object itself, as in eager
        param_leaf = {id(v): k for v, k in zip(self.spec.graph.params, self.spec.arg_positions)}
        # (a Python number passed traced is handed back as the Python number: python_out)
        self.passthrough = [(j, param_leaf[id(x)]) for j, x in enumerate(self.spec.out_template)
                            if isinstance(x, Value) and id(x) in param_leaf and not x.type.python]
        # ... or an array read from outside unchanged (``return res['x']``, a global):
        # the object itself, re-read (a Python number read traced is converted as any)
        reads = {id(c.value): c.getter for c in self.spec.captures if not c.value.type.python}
        self.captured_out = [(j, reads[id(x)]) for j, x in enumerate(self.spec.out_template)
                             if isinstance(x, Value) and id(x) in reads]
        # NumPy arrays the trace made (``np.zeros(3)``): static in the graph, but
        # eager makes a new one per call, which the caller may write into
        self.fresh_numpy = [k for k, x in enumerate(self.spec.out_template) if type(x) is np.ndarray]
        # outputs whose eager value is a Python number: handed back as one
        self.python_out = [k for k, x in enumerate(self.spec.out_template) if isinstance(x, Value) and x.type.python]
        # host callbacks (prints, loop-bound checks): wait for them after each call
        self.has_effects = any(getattr(getattr(op, "fn", None), "_a2g_effect", False) or bounded(op)
                               for op in walk_ops(self.spec.graph.body))
        # the graph's outputs are the flat result as they are (no static values, no conversions)
        self.plain_outputs = (all(isinstance(x, Value) for x in self.spec.out_template)
                              and not (self.numpy_out or self.numpy_scalar_out or self.python_out or self.captured_out))
        # what only the general path does: arguments handed back or written into, attributes set, host effects
        self.fast_ok = not (self.passthrough or self.has_effects or self.spec.input_writes or self.spec.views
                            or self.spec.maybe_same)
        # by-value object arguments (``Specialization.rebound``): where the
        # trace-time object stands in the outputs and attribute writes
        self.rebind_out = [(j, k) for j, x in enumerate(self.spec.out_template) for k, obj in self.spec.rebound.items()
                           if x is obj]
        self.rebind_writes = [(w, k) for w, (obj, _) in enumerate(self.spec.attr_writes)
                              for k, held in self.spec.rebound.items() if obj is held]
        # the caller's lists and dicts handed on: the objects themselves, found in the live values
        self.input_refs = [(j, x.path) for j, x in enumerate(self.spec.out_template) if type(x) is InputRef]
        self.stale = False   # traced again for inputs of other types (SpecMiss): compile anew
        # argument arrays written in place and NumPy arrays read from outside: checked apart before each call
        # (and the arrays inside guarded outside containers: ``specialize.outside_arrays``)
        self.alias_checked = bool(self.spec.written_arguments) and (bool(self.spec.guards) or any(
            c.kind is np.ndarray or c.value.type.numpy for c in self.spec.captures))

    @property
    def end(self) -> int:
        return self.spec.end

    def why_not(self, leaves: list) -> str:
        """What fails now of what the plan was specialised on."""
        for k, obj in self.spec.pinned.items():
            if leaves[k] is not obj:
                return f"another {type(leaves[k]).__name__} object where the graph used the identity of the first"
        failed = next((g for g in self.spec.guards if not g.holds()), None) or \
            next((c for c in self.spec.captures if not c.holds()), None)
        if failed is None and self.alias_checked and not self._captures_apart(leaves):
            return "an argument array it writes in place shares memory with an array it reads from outside now"
        return f"{failed.description} changed" if failed is not None else "the graph was traced for other input types"

    def guards_hold(self, leaves: list) -> bool:
        return not self.stale and all(leaves[k] is obj for k, obj in self.spec.pinned.items()) and \
            all(g.holds() for g in self.spec.guards) and all(c.holds() for c in self.spec.captures) and \
            (not self.alias_checked or self._captures_apart(leaves))

    def _captures_apart(self, leaves: list) -> bool:
        """No argument array the graph writes in place shares memory with a
        NumPy array it reads from outside (``specialize._check_captures_apart``)."""
        return not any(np.may_share_memory(value, leaves[k]) for _, value in
                       outside_arrays(self.spec.captures, self.spec.guards) for k in self.spec.written_arguments)

    def converted(self, outs: Any) -> list:
        """The flat result of the graph's outputs ``outs``, each of eager's
        kind: NumPy arrays and scalars, Python numbers, new trace-time arrays."""
        spec = self.spec
        it = iter(outs)
        filled = [next(it) if isinstance(x, Value) else x for x in spec.out_template]
        # Under an outer JAX transform (jax.grad of the converted function) the
        # results are tracers: they stay arrays, as only JAX can trace them.
        concrete = not any(isinstance(o, jax.core.Tracer) for o in outs)
        made: dict[int, Any] = {}
        for k in self.numpy_out if concrete else ():   # a writable ndarray, one per Value (aliases stay aliases)
            key = id(spec.out_template[k])
            if key not in made:
                made[key] = np.array(filled[k])
                if k in spec.readonly_out:   # read-only in eager (np.asarray of a jax.Array): a write raises
                    made[key].flags.writeable = False
            filled[k] = made[key]
        if self.fresh_numpy:   # new arrays per call, as eager makes (aliases and views stay so)
            for k, a in zip(self.fresh_numpy, copy_keeping_views([spec.out_template[k] for k in self.fresh_numpy])):
                filled[k] = a
        for k in self.python_out if concrete else ():
            filled[k] = to_python_number(filled[k])
        for k in self.numpy_scalar_out if concrete else ():
            filled[k] = np.asarray(filled[k])[()]
        for k, read in self.captured_out if concrete else ():
            filled[k] = read()
        return filled

    def run(self, env: dict[str, Any], leaves: list) -> tuple[str, Any]:
        spec = self.spec
        arrays_in = [leaves[i] for i in spec.arg_positions]
        if spec.captures:
            arrays_in += [c.getter() for c in spec.captures]
        HostErrors.take()   # one left by a failed call under an outer jax.jit is not this call's
        if self.int_inputs:
            check_int_inputs(self.int_inputs, arrays_in)
        thrown = None
        if self.has_effects:   # a warning issued from a frame above the converted function finds it from here
            running, hostwarnings.RUNNING[0] = hostwarnings.RUNNING[0], sys._getframe()
        try:
            if self.x64:
                with jax.enable_x64(True):
                    outs = self.jitted(*arrays_in)
                    if any(isinstance(o, jax.core.Tracer) for o in outs):
                        # under an outer transform (jax.jit, grad, vmap of the converted function,
                        # x64 off) results are JAX's: 32-bit, as the transform makes eager's outputs
                        outs = [narrow(o) for o in outs]
            else:
                outs = self.jitted(*arrays_in)
            if self.has_effects:
                jax.effects_barrier()  # host prints finish before the caller goes on
        except SpecMiss:
            self.stale = True   # an array read from outside changed shape or dtype; nothing ran
            raise
        except Exception:
            thrown = HostErrors.take()
            if thrown is None:
                raise
        finally:
            if self.has_effects:
                hostwarnings.RUNNING[0] = running
        if thrown is not None:   # outside the handler: the context is the caller's, as eager's
            thrown.throw()   # what the check or the user's callback raised, from the user's line
        filled = self.converted(outs)
        for j, k in self.passthrough:
            filled[j] = leaves[k]
        if spec.maybe_same:   # a joined array that is an argument, a global, another output on this call's path
            _hand_back_same(spec.maybe_same, filled, leaves, spec.captures)
        for j, k in self.rebind_out:   # an equal object argument stands where the traced one did
            filled[j] = leaves[k]
        for j, path in self.input_refs:
            filled[j] = resolve(env, path)
        local_targets = [resolve(env, path) for path in spec.local_writes]
        tail = spec.input_writes_at   # the versions of the written-back arguments
        for n, k in enumerate(spec.input_writes):
            # a mutated argument: into the caller's array, and every output that is it
            np.copyto(leaves[k], filled[tail + n], casting="unsafe")
            final = spec.out_template[tail + n]
            for j, x in enumerate(spec.out_template):
                if x is final:
                    filled[j] = leaves[k]
        if spec.views and not any(isinstance(o, jax.core.Tracer) for o in outs):   # (under an outer transform: JAX's)
            _make_views(spec.views, filled, leaves, arrays_in[len(spec.arg_positions):])
        result, written, _, cell_values, local_contents, _, _ = jax.tree_util.tree_unflatten(spec.out_treedef, filled)
        if local_targets:
            _write_back_local(local_targets, local_contents)
        if cell_values:
            env.update(_bound_only(cell_values))
        targets = [obj for obj, _ in spec.attr_writes]
        for w, k in self.rebind_writes:
            targets[w] = leaves[k]
        for obj, (_, attr), value in zip(targets, spec.attr_writes, written):
            setattr(obj, attr, value)
        if spec.returns:
            return RETURN, result
        for name in spec.deleted:
            env.pop(name, None)
        env.update(result)
        for name, value in list(result.items()):   # bound on some paths only: its flag says which
            if isinstance(value, MaybeBound):
                if bool(value.flag):
                    env[name] = value.value
                else:
                    env.pop(name, None)
        return NEXT, None


def _shared_containers(names: list[str], values: list, treedef: Any) -> tuple:
    """The plan-key part of the inputs' lists and dicts: the places one is
    reached again (``d["l"] is inner``: one object in the trace too)."""
    if treedef.num_nodes == len(names) + 1:   # no container at all
        return ()
    return container_paths(names, values)[1]


def _write_back_local(targets: list, contents: list) -> None:
    """The input lists and dicts a segment wrote: their new contents, in the same objects."""
    for target, new in zip(targets, contents):
        if type(target) is list:
            target[:] = new
        else:
            target.clear()
            target.update(new)


def _make_views(views: tuple, filled: list, leaves: list, captured: list) -> None:
    """The NumPy views among a segment's outputs, made on eager's arrays (the
    caller's, written back; those read from outside; those handed out), so a
    later write through a view or its base shows in the other, as in eager
    (``specialize._view_program``)."""
    steps, assigns, writes = views
    made: list = []
    for step in steps:
        kind = step[0]
        if kind == "leaf":
            made.append(leaves[step[1]])
        elif kind == "capture":
            made.append(captured[step[1]])
        elif kind == "out":
            made.append(filled[step[1]])
        else:
            _, base, fn, treedef, operands, value = step
            args, kwargs = jax.tree_util.tree_unflatten(treedef, [made[base] if x is value else x for x in operands])
            made.append(fn(*args, **kwargs))
    for slot, j in writes:   # a view of an argument written in place: into that view of the caller's array
        np.copyto(made[slot], filled[j], casting="unsafe")
    for j, slot in assigns:
        filled[j] = made[slot]


def _bound_only(values: dict) -> dict:
    """A segment's cell values without those its run left unbound (``MaybeBound``)."""
    return {n: v.value if isinstance(v, MaybeBound) else v for n, v in values.items()
            if not isinstance(v, MaybeBound) or bool(v.flag)}


@dataclass
class InterpretedPlan(StatementPlan):
    """A statement that runs in Python (an interpreted node)."""

    start: int
    node: InterpretedNode
    site: FallbackSite

    def run(self, env: dict[str, Any], leaves: list) -> tuple[str, Any]:
        returned, value = self.node.run(env)
        return (RETURN, value) if returned else (NEXT, None)


@dataclass
class CallRecord:
    """What one call did (``explain``)."""

    plans: list[Any] = field(default_factory=list)
    compiled: list[Any] = field(default_factory=list)


_NESTED_COMPILE_CAP = 8   # signatures one statement of a Python-run body compiles before it runs in Python
_RECOMPILE_WARNING = 8   # recompilations of one function before it warns (once)


class _RunEagerly(Exception):
    """This call of a function that runs as one graph or not at all (it
    rebinds nonlocal variables) would not be one graph: it runs eagerly."""

    def __init__(self, site: FallbackSite):
        self.site = site


@dataclass
class _EagerCall:
    """A call run eagerly as a whole (``explain`` lists its site)."""

    site: FallbackSite


class RecompileWarning(UserWarning):
    """A converted function keeps recompiling: something it is specialised on
    changes between calls (the message names it)."""


class _Block:
    """A statement list run as a sequence of plans: compiled segments, statements
    interpreted by Python and, in bodies run by Python control flow
    (``PythonControl``), jumps and nested control.

    The function body is the top block. A nested block is the body of an
    ``if``/``for``/``while`` that runs as Python control flow: its segments
    never span a statement that jumps out of the block, and a Python number
    that changes between runs (a loop counter) is passed traced once it has
    taken two values, so a loop does not compile once per iteration."""

    def __init__(self, owner: "StaticFunction", stmts: list, nested: bool):
        self.owner, self.stmts, self.nested = owner, stmts, nested
        hidden = _hidden_reads(owner._unit) | set(owner._unit.cellvars)   # a closure may read a cell variable any time
        self.live_names = [sorted(owner._unit.ssa.live_in(s) | hidden) for s in self.stmts]
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
        record = self.owner._record
        i, n = 0, len(self.stmts)
        while i < n:
            plan, leaves = self.fixed.get(i), None
            if plan is None:
                names = [x for x in self.live_names[i] if x in env]
                values = [env[x] for x in names]
                if self.nested or self.owner._traced_params:
                    values = self._trace_busy(i, names, values)
                leaves, treedef = tree_flatten(values, is_leaf=boundary_leaf())   # dicts in insertion order; an NNX module: one object
                shared = _shared_containers(names, values, treedef)
                plan = self._plan_for(i, names, leaves, treedef, env.get(CELLS), values, shared)
            if i == 0 and not self.nested and self.owner._whole_only is not None:
                self._check_whole(plan, n)
            if record is not None:
                record.plans.append(plan)
            try:
                kind, value = plan.run(env, leaves)
            except SpecMiss:   # the plan is stale now: the same statement again, compiled anew
                if record is not None:
                    record.plans.pop()
                continue
            if i == 0 and not self.nested and isinstance(plan, GraphPlan) and (kind == RETURN or plan.end == n):
                self.owner._single = (plan, names, leaves, treedef)   # the whole call was this plan
            if kind != NEXT:
                return kind, value
            i = plan.end
        return NEXT, None

    def _check_whole(self, plan: Any, n: int) -> None:
        """A function that rebinds nonlocal variables runs as one graph (its
        nested functions inlined, their writes in the graph's own frames) or,
        before anything of it has run, eagerly: an interpreted statement or a
        nested function run by Python would rebind a real cell the compiled
        segments do not read."""
        if isinstance(plan, GraphPlan) and (plan.spec.returns or plan.end == n):
            return
        base = self.owner._whole_only
        what = getattr(plan, "site", None)
        if what is None:
            stmt = self.stmts[min(getattr(plan, "end", 0), n - 1)]
            why = f"the statement at line {getattr(stmt, 'lineno', '?')} is not in the graph"
        else:
            why = f"{what.code.code} at line {what.loc.line}: {what.cause}"
        raise _RunEagerly(dataclasses.replace(base, cause=f"{base.cause}; this call is not one graph ({why})"))

    def _trace_busy(self, i: int, names: list[str], values: list) -> list:
        """The Python numbers to pass traced: the function's busy number
        arguments and, in a body run by Python control flow, any number that
        has taken two values here (a loop counter)."""
        traced = self.traced.setdefault(i, set())
        busy = self.owner._traced_params
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
        owner = self.owner
        ident = self.identity_keyed.get(i, ())
        # the user's x64 switch decides the types of JAX ops: a plan per setting;
        # under an outer JAX transform eager's arrays are tracers (isinstance, type() see it)
        outer = any(isinstance(x, jax.core.Tracer) for x in leaves)
        key = (i, tuple(names), treedef, tuple(_leaf_key(x, k in ident) for k, x in enumerate(leaves)),
               (numpy_aliasing(leaves), numpy_readonly(leaves), shared), bool(jax.config.jax_enable_x64), outer)
        candidates = self.plans.setdefault(key, [])
        last, self.last_keys[i] = self.last_keys.get(i), key
        for plan in candidates:
            if plan.guards_hold(leaves):
                return plan
        if candidates:
            owner.note_changed_statics(candidates)
            owner.note_recompile(f"line {self._line(i)}: {candidates[0].why_not(leaves)}")
        elif last is not None:
            owner.note_recompile(f"line {self._line(i)}: {_signature_change(last, key)}")
        self.compiles[i] = self.compiles.get(i, 0) + 1
        if self.nested and self.compiles[i] > _NESTED_COMPILE_CAP:
            site = FallbackSite(FallbackCode.LOOP_CARRIED_CHANGE, owner._unit.loc(self.stmts[i]),
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
        if owner._record is not None:
            owner._record.compiled.append(plan)
        return plan

    def _compile(self, i: int, names: list[str], leaves: list, treedef: Any, cells: dict | None,
                 values: list | None = None) -> Any:
        owner = self.owner
        try:
            with _gc_paused():
                plan = self._compile_plan(i, names, leaves, treedef, cells, values)
        except (FullGraphError, GraphBreak):
            raise
        except Exception as e:  # noqa: BLE001 - a bug of ours must not break the user's program
            if _checks_enabled():
                raise
            stmt = self.stmts[i]
            site = FallbackSite(FallbackCode.INTERNAL_ERROR, owner._unit.loc(stmt), type(stmt).__name__.lower(),
                                f"{type(e).__name__}: {e}", "this statement runs in Python", "ast2graph")
            if owner._options.full_graph:
                raise FullGraphError(f"full_graph=True but ast2graph failed on this statement:\n{site.format()}") from e
            warnings.warn(f"ast2graph internal error on {owner.name}, statement at line {site.loc.line}: {e!r}; "
                          "it runs in Python", stacklevel=5)
            return self._interpreted_plan(i, site)
        return plan

    def _compile_plan(self, i: int, names: list[str], leaves: list, treedef: Any, cells: dict | None,
                      values: list | None = None) -> Any:
        owner = self.owner
        t0 = time.perf_counter()
        stop = next((k for k in self.barriers if k > i), len(self.stmts))
        while True:
            try:
                spec = specialize(owner._unit, self.stmts, i, stop, names, leaves, treedef, owner._options,
                                  by_identity=frozenset(self.identity_keyed.get(i, ())),
                                  nested=self.nested, traced_statics=frozenset(owner._traced_statics), cells=cells,
                                  structure=values)
                break
            except GraphBreak as e:
                if owner._options.full_graph:
                    raise FullGraphError(f"full_graph=True but this site would fall back to Python:\n{e.site.format()}") from None
                k = e.top_index  # type: ignore[attr-defined]
                if k <= i:
                    # The first cause found for this statement is the root one; a later
                    # compile from here sees earlier segments' outputs as outside objects.
                    return self._fallback_plan(i, self.break_sites.get(i, e.site))
                self.break_sites.setdefault(k, e.site)
                stop = k
        if _checks_enabled():
            verify(spec.graph)
        # A graph with 64-bit values (NumPy's int64/float64, Python numbers) is
        # traced and run with JAX's x64 switch on (precision.py); with the
        # user's switch on, every graph already is.
        int_inputs = hoist_input_checks(spec.graph)   # busy Python ints given to JAX ops: checked before the call
        x64 = not jax.config.jax_enable_x64 and needs_x64(spec.graph)
        lowered = lower_graph(spec.graph, x64)
        conversion = time.perf_counter() - t0  # parse .. lowered function; JAX tracing and XLA excluded
        jit_kwargs = {}
        if owner._jit is not None and not self.nested and i == 0 and (spec.returns or spec.end == len(self.stmts)):
            # the whole function is this one graph: jax.jit takes the options
            jit_kwargs = owner._jit.segment_kwargs(spec, names, leaves, treedef, owner._caller_params)
        note_long_work(owner.name, "conversion", conversion, spec)
        jitted = jax.jit(aval_checked(lowered.fn), **jit_kwargs)
        # Trace and compile now: an error here is ours, and nothing of the user's has run yet.
        # (Under an outer transform the graph is inlined into the caller's: no compile of its own.)
        t1 = time.perf_counter()
        inputs = [leaves[k] for k in spec.arg_positions] + [c.getter() for c in spec.captures]
        with x64_switch(x64):
            traced = jitted.lower(*inputs)
            if not any(isinstance(x, jax.core.Tracer) for x in inputs):
                with compile_threshold():   # the call reuses this executable; it goes to the persistent cache
                    traced.compile()
        note_long_work(owner.name, "trace and XLA compile", time.perf_counter() - t1, spec)
        if _checks_enabled():
            _check_output_types(spec, traced)
        if spec.end in self.break_sites:   # this segment stopped before a break: the next one is a split
            self.split_after.add(spec.end)
        split = self.break_sites.get(i) if i in self.split_after else None
        if split is not None:
            split = dataclasses.replace(split, effect="the graph is split before this statement: the segment before it "
                                        "ends there and this one is compiled on its results read back as Python values")
        return GraphPlan(i, spec, lowered.source, jitted, conversion, x64, int_inputs, split)

    def _fallback_plan(self, i: int, site: FallbackSite) -> Any:
        """The smallest construct that cannot be graph runs in Python: an
        ``if``/``for``/``while`` as Python control flow around compiled bodies,
        any other statement as an interpreted node."""
        if splittable(self.stmts[i]):
            return self._control(i, site)
        return self._interpreted_plan(i, site)

    def _interpreted_plan(self, i: int, site: FallbackSite) -> "InterpretedPlan":
        node = self.interpreted.setdefault(i, InterpretedNode(self.owner._unit, self.stmts[i]))
        return InterpretedPlan(i, node, site)

    def _control(self, i: int, site: FallbackSite | None) -> PythonControl:
        control = self.controls.get(i)
        if control is None:
            stmt = self.stmts[i]
            what = {gast.If: "if", gast.For: "for", gast.While: "while"}[type(stmt)]
            if site is not None:
                head = "iterable" if what == "for" else "test"
                site = dataclasses.replace(
                    site, loc=self.owner._unit.loc(stmt), construct=what,
                    cause=f"{site.cause} (line {site.loc.line})",
                    effect=f"this `{what}` runs as Python control flow: its {head} is evaluated in Python "
                           f"(a host transfer each time); the statements of its body stay compiled")
            control = self.controls[i] = PythonControl(self.owner._unit, i, stmt, site, self.owner._block)
        return control


def _hidden_reads(unit: Any) -> set[str]:
    """Names a statement reads without naming them: zero-argument ``super()``
    reads the method's first parameter."""
    positional = unit.tree.args.posonlyargs + unit.tree.args.args
    return {positional[0].id} if unit.tree_facts.zero_arg_super and positional else set()


_UNWRAP = object()


def _rebinding(fn: Any, replaced: bool) -> Any:
    """What ``StaticFunction._rebound`` re-checks per call: None for a
    function or a method of one (their ``__code__`` is checked), the class's
    ``__call__`` function for a model, ``_UNWRAP`` (unwrap again) otherwise."""
    if replaced or type(fn) is types.FunctionType or \
            type(fn) is types.MethodType and type(fn.__func__) is types.FunctionType:
        return None
    call = getattr(type(fn), "__call__", None)
    return call if type(call) is types.FunctionType else _UNWRAP


def _forwards_attributes(fn: Any) -> bool:
    """``fn`` is an object called through its class's ``__call__`` (a model
    instance), not a function: its attributes are the state its calls read."""
    return not isinstance(fn, (types.FunctionType, types.MethodType, types.BuiltinFunctionType, functools.partial,
                               type, np.ufunc)) and hasattr(fn, "__dict__")


class StaticFunction:
    """A function converted by ``to_static``.

    Of a callable object (``to_static(model)``), any attribute that is not the
    converted function's own is the object's, read and written through:
    ``f.training = False`` sets the model's, as on the model itself (a copy of
    its ``__dict__`` taken at conversion, as ``functools.wraps`` makes, would
    go stale: a write into it never reached the calls)."""

    # the converted function's own attributes (any other is the wrapped object's, when it forwards)
    _OWN = frozenset({"_fn", "_forwards", "_options", "_jit", "_caller_params", "_blocks", "_record", "_fast",
                      "_fast_misses", "_single", "recompiles", "recompile_reasons", "_scalar_values",
                      "_traced_params", "_static_values", "_traced_statics", "eager_reason", "_unit", "_dispatcher",
                      "_target", "_bound_args", "_bound_kwargs", "_whole_only", "_top", "_defaults_of",
                      "_signature", "_simple", "_defaults", "_simple_params", "_code", "_rebinds"})

    def __init__(self, fn: Callable, options: Options, jit_options: JitOptions | None = None):
        object.__setattr__(self, "_forwards", _forwards_attributes(fn))
        object.__setattr__(self, "_fn", fn)
        functools.update_wrapper(self, fn, updated=() if self._forwards else functools.WRAPPER_UPDATES)
        self._options = options
        self._jit = jit_options
        self._caller_params: tuple[str, ...] = ()
        self._blocks: dict[int, _Block] = {}
        self._record: CallRecord | None = None
        self._fast: Callable[[tuple], Any] | None = None   # fastpath.py: the warm call of a one-graph function
        self._fast_misses = 0
        self._single: tuple | None = None
        self.recompiles = 0
        self.recompile_reasons: list[str] = []
        self._scalar_values: dict[str, set] = {}
        self._traced_params: set[str] = set()
        self._static_values: dict[Any, set] = {}   # guard key -> the Python ints it has held
        self._traced_statics: set = set()
        self.eager_reason: FallbackSite | None = None
        self._unit = None
        self._target = self._code = None
        self._rebinds: Any = None
        # np.polyval & co. convert their Python implementation; a call with an argument
        # overriding __array_function__ goes through NumPy's dispatcher, as eager's does
        self._dispatcher = array_function_implementation(fn) is not None
        try:
            # one with a JAX equivalent (np.polyval, a ufunc such as np.exp; scipy.linalg.solve or
            # scipy.special.expit where validated for the call) is converted as a user's call of it
            replaced = (self._dispatcher or numpy_api.is_numpy(fn)) and numpy_api.has_graph_equivalent(fn) \
                or scipy_api.replaceable(fn) or called_whole(fn)
            self._target, self._bound_args, self._bound_kwargs = unwrap_callable(
                numpy_api.calling(fn) if replaced else fn)
            self._code = getattr(self._target, "__code__", None)
            self._rebinds = _rebinding(fn, replaced)
            with _gc_paused():
                self._unit = unit_of_function(self._target)
        except NoSourceError as e:
            self._eager(FallbackCode.NO_SOURCE, e, fn)
            return
        except UnsupportedSyntaxError:
            raise
        except Exception as e:  # noqa: BLE001 - an analysis bug must not break the user's program
            if _checks_enabled():
                raise
            self._eager(FallbackCode.INTERNAL_ERROR, e, fn)
            return
        rebound = self._unit.scope.declared_nonlocal or set(self._unit.tree_facts.nonlocals)
        # An interpreted statement cannot rebind the enclosing function's
        # cell, nor can a nested function run by Python rebind a variable
        # the compiled segments keep: such a function runs as one graph (its
        # nested functions inlined) or, call by call, eagerly (_Block._check_whole).
        self._whole_only: FallbackSite | None = None
        if rebound:
            self._whole_only = FallbackSite(
                FallbackCode.MUTATION, self._unit.loc(self._unit.tree), "function",
                f"{self._unit.qualname} (or a function nested in it) assigns nonlocal variables {sorted(rebound)}",
                "the whole call runs eagerly", "api")
        self._read_signature()
        self._caller_params = self._simple_params[len(self._bound_args):]   # what in_shardings/donate_argnums index
        self._top = _Block(self, self._unit.tree.body, nested=False)
        if self._unit.generator:
            self._eager(FallbackCode.GENERATOR, ConversionError(f"{self._unit.qualname} is a generator function", self._unit.loc(self._unit.tree)), fn)
            return
        frame_call = _frame_introspection_call(self._unit)
        if frame_call is not None:   # only the function's own frame answers locals(), eval("y + 1")
            self._eager(FallbackCode.OPAQUE_CALL, ConversionError(f"{self._unit.qualname} calls {frame_call}(), which "
                                                                  "looks at its own frame", self._unit.loc(self._unit.tree)), fn)

    def _rebound(self) -> bool:
        """Whether the function behind a callable object or partial is
        another now: its class's ``__call__`` reassigned, its ``__class__``
        changed, a partial's keywords changed in place (eager looks them up
        on every call; identity only, no user ``__eq__``)."""
        if self._rebinds is not _UNWRAP:   # the common case, a model: one class attribute read
            return type(self._fn).__call__ is not self._rebinds
        try:
            target, args, kwargs = unwrap_callable(self._fn)
        except Exception:  # noqa: BLE001 - no longer convertible: the general path decides
            return True
        old_args, old_kwargs = self._bound_args, self._bound_kwargs
        return target is not self._target or len(args) != len(old_args) \
            or any(a is not b for a, b in zip(args, old_args)) or list(kwargs) != list(old_kwargs) \
            or any(v is not old_kwargs[k] for k, v in kwargs.items())

    def _reconvert(self) -> None:
        """The function's ``__code__`` was replaced since it was converted
        (IPython's autoreload does so when its file is edited; the function
        object stays), or the function behind a callable object is another
        (``_rebound``): convert it again, as eager now runs the new code."""
        recompiles, reasons = self.recompiles, self.recompile_reasons
        StaticFunction.__init__(self, self._fn, self._options, self._jit)
        self.recompiles, self.recompile_reasons = recompiles, reasons
        self.note_recompile(f"the code of {self.name} was replaced")

    def _read_signature(self) -> None:
        """The parameters and their defaults, as ``fn.__defaults__`` and
        ``__kwdefaults__`` hold them now (a caller may assign new ones between
        calls: ``_bind`` reads them again when they are other objects)."""
        self._defaults_of = (getattr(self._target, "__defaults__", None), getattr(self._target, "__kwdefaults__", None))
        self._signature = code_signature(self._target)   # a wraps() wrapper runs its own code
        params = list(self._signature.parameters.values())
        simple = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        self._simple = simple
        self._defaults = tuple(p.default for p in params if p.default is not p.empty)
        if any(p.default is p.empty for p in params[len(params) - len(self._defaults):]):
            self._simple = False
        self._simple_params = tuple(p.name for p in params)

    def _eager(self, code: FallbackCode, error: Exception, fn: Callable) -> None:
        from .diagnostics import UNKNOWN_LOC

        loc = getattr(error, "loc", None) or UNKNOWN_LOC
        self.eager_reason = FallbackSite(code, loc, "function", str(error).splitlines()[0], "the whole function runs eagerly", "parser")
        self._unit = None
        if self._options.full_graph:
            raise FullGraphError(f"full_graph=True but {getattr(fn, '__qualname__', fn)!r} cannot be converted: {error}", getattr(error, "loc", None))
        warnings.warn(f"ast2graph: {getattr(fn, '__qualname__', fn)!r} runs eagerly: {error}", stacklevel=3)

    def __getattr__(self, name: str) -> Any:   # only where the ordinary lookup failed
        own = self.__dict__
        if own.get("_forwards") and not name.startswith("__") and name not in self._OWN:
            return getattr(own["_fn"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__dict__.get("_forwards") and not name.startswith("__") and name not in self._OWN \
                and not hasattr(type(self), name):
            setattr(self._fn, name, value)
        else:
            object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if self.__dict__.get("_forwards") and not name.startswith("__") and name not in self._OWN \
                and not hasattr(type(self), name):
            delattr(self._fn, name)
        else:
            object.__delattr__(self, name)

    @property
    def name(self) -> str:
        if self._unit is not None:
            return self._unit.qualname
        return getattr(self._fn, "__qualname__", type(self._fn).__name__)

    def __repr__(self) -> str:
        """``<to_static f at model.py:12, 0 recompiles>``: what a notebook
        shows for the converted function (``explain(f)(*args)`` says more)."""
        loc = self._unit.loc(self._unit.tree) if self._unit is not None else None
        where = f" at {loc.file}:{loc.line}" if loc is not None else ""
        state = f"runs eagerly: {self.eager_reason.code.code}" if self.eager_reason is not None \
            else f"{self.recompiles} recompiles"
        options = ", full_graph=True" if self._options.full_graph else ""
        return f"<to_static {self.name}{where}, {state}{options}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:   # IPython
        printer.text(repr(self))

    # ----------------------------------------------------------------- calls
    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._dispatcher and overrides_array_function((args, kwargs)):
            return self._fn(*args, **kwargs)
        if getattr(self._target, "__code__", None) is not self._code or self._rebinds is not None and self._rebound():
            self._reconvert()
        try:
            fast = self._fast
            if fast is not None and not kwargs:
                value = fast(args)
                if value is not MISS:
                    return value
            if self._jit is not None:
                return self._call_placed(args, kwargs)
            if self._unit is None:
                return self._fn(*args, **kwargs)
            env = self._bind(args, kwargs)
            if env is None:   # arguments the function does not take: Python's own TypeError, before its body
                return self._fn(*args, **kwargs)
            self._note_busy_scalars(env)
            self._single = None
            try:
                kind, value = self._top(env)
            except _RunEagerly as e:
                return self._run_eagerly(e, args, kwargs)
            if CELLS in env:   # closures made by interpreted statements see the variables' final values
                call_cells(env, self._unit.cellvars)
            if self._single is not None:
                if not kwargs and self._record is None:
                    self._fast = make_fast_call(self, self._single[0], args, *self._single[1:])
                self._single = None
            else:
                self._fast = None
            return value if kind == RETURN else None
        except BaseException as e:
            hide_frames(e)   # a graph's exception: its traceback goes from the caller to the user's line
            raise

    def _call_placed(self, args: tuple, kwargs: dict) -> Any:
        """A call with in_shardings/out_shardings: arguments and result placed
        (a no-op where the whole-function graph's jax.jit already placed them)."""
        if self._unit is None:
            return self._jit.place_result(self._fn(*self._jit.place_args(args), **kwargs))
        env = self._bind(args, kwargs)
        if env is None:
            return self._fn(*args, **kwargs)
        self._jit.place_inputs(env, self._caller_params)
        self._note_busy_scalars(env)
        try:
            kind, value = self._top(env)
        except _RunEagerly as e:
            return self._jit.place_result(self._run_eagerly(e, self._jit.place_args(args), kwargs))
        if CELLS in env:   # closures made by interpreted statements see the variables' final values
            call_cells(env, self._unit.cellvars)
        return self._jit.place_result(value if kind == RETURN else None)

    def _run_eagerly(self, e: _RunEagerly, args: tuple, kwargs: dict) -> Any:
        if self._options.full_graph:
            raise FullGraphError(f"full_graph=True but {self.name!r} is not one graph: {e.site.cause}", e.site.loc)
        if self._record is not None:
            self._record.plans.append(_EagerCall(e.site))
        self._fast = None
        return self._fn(*args, **kwargs)

    def _block(self, stmts: list) -> "_Block":
        block = self._blocks.get(id(stmts))
        if block is None or block.stmts is not stmts:
            block = self._blocks[id(stmts)] = _Block(self, stmts, nested=True)
        return block

    def _bind(self, args: tuple, kwargs: dict) -> dict[str, Any] | None:
        defaults_of = self._defaults_of
        if getattr(self._target, "__defaults__", None) is not defaults_of[0] \
                or getattr(self._target, "__kwdefaults__", None) is not defaults_of[1]:
            self._read_signature()   # f.__defaults__ = (...) since the last call
        if self._simple and not kwargs and not self._bound_kwargs:
            given = self._bound_args + args
            missing = len(self._simple_params) - len(given)
            if missing == 0:
                return dict(zip(self._simple_params, given))
            if 0 < missing <= len(self._defaults):
                return dict(zip(self._simple_params, given + self._defaults[len(self._defaults) - missing:]))
        try:
            bound = self._signature.bind(*self._bound_args, *args, **{**self._bound_kwargs, **kwargs})
        except TypeError:
            return None   # the caller calls the function: eager's TypeError ("f() missing 1 required ...")
        bound.apply_defaults()
        return dict(bound.arguments)

    def _note_busy_scalars(self, env: dict[str, Any]) -> None:
        """A Python number argument is static (specialised on its value) until
        it has taken ``static_values`` different values; from then on compiled
        segments get it as a traced scalar (``_Block._trace_busy``), so new
        values do not recompile. The function itself still sees the number."""
        limit = self._options.static_values
        for name in self._simple_params or env:
            value = env.get(name)
            if name in self._traced_params or type(value) not in (int, float):
                continue
            seen = self._scalar_values.setdefault(name, set())
            seen.add((type(value), value))
            if len(seen) > limit:
                self._traced_params.add(name)
                self.recompile_reasons.append(f"argument {name!r} took more than {limit} values: now traced")

    def note_recompile(self, reason: str) -> None:
        """One more recompilation; a function that keeps recompiling says
        once what keeps changing."""
        self.recompiles += 1
        self.recompile_reasons.append(reason)
        if self.recompiles == _RECOMPILE_WARNING:
            recent = "; ".join(dict.fromkeys(self.recompile_reasons[-3:]))
            warnings.warn(f"ast2graph: {self.name} has recompiled {self.recompiles} times (each costs a new trace "
                          f"and XLA compilation); the latest reasons: {recent}", RecompileWarning, stacklevel=4)

    def note_changed_statics(self, plans: list) -> None:
        """Guarded Python ints read from outside (``self.calls``) that changed:
        once one has taken ``static_values`` values it is read traced; one
        the graph itself writes back (an int or a float, ``global step; step
        += 1``) at once, when it kept its type."""
        limit = self._options.static_values
        for plan in plans:
            for g in plan.spec.guards:
                written = g.key is not None and g.key in plan.spec.written_keys
                if not (type(g.expected) is int or written and type(g.expected) is float) or g.key is None \
                        or g.key in self._traced_statics or g.holds():
                    continue
                seen = self._static_values.setdefault(g.key, {g.expected})
                try:
                    now = g.getter()
                    seen.add(now)
                except Exception:  # noqa: BLE001 - a vanished value: nothing to count
                    continue
                if len(seen) > limit:
                    self._traced_statics.add(g.key)
                    self.recompile_reasons.append(f"{g.description} took more than {limit} values: now traced")
                elif written and type(now) is type(g.expected):
                    # the function itself changes it (``global step; step += 1``)
                    self._traced_statics.add(g.key)
                    self.recompile_reasons.append(f"{g.description} is written back by the function: now traced")

    # --------------------------------------------------------------- explain
    def explain(self, *args: Any, **kwargs: Any) -> "Explanation":
        self._record, self._fast = CallRecord(), None
        t0 = time.perf_counter()
        try:
            result = self(*args, **kwargs)
        finally:
            record, self._record = self._record, None
        return Explanation(self, record, result, time.perf_counter() - t0)

    def export(self, *args: Any, **kwargs: Any) -> Any:
        """A ``jax.export.Exported`` of this function's graph for these
        arguments (``exporting.export``); ``ExportError`` listing the
        fallback sites where it is not one graph."""
        from .exporting import export

        return export(self)(*args, **kwargs)


@dataclass
class Explanation:
    """What one call of a converted function did."""

    function: StaticFunction
    record: CallRecord
    result: Any
    seconds: float

    @property
    def graphs(self) -> list[GraphPlan]:
        return [p for p in self.record.plans if isinstance(p, GraphPlan)]

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def fallback_sites(self) -> list[FallbackSite]:
        sites: list[FallbackSite] = []
        for p in self.record.plans:   # each site once, in the order first run
            site = getattr(p, "site", None) or getattr(p, "split_site", None)
            if site is not None and not any((s.code, s.loc, s.cause) == (site.code, site.loc, site.cause) for s in sites):
                sites.append(site)
        if self.function.eager_reason is not None:
            sites.append(self.function.eager_reason)
        return sites

    @property
    def decisions(self) -> list[Decision]:
        """Every decision of the graphs run, in source order (file, line,
        column; the order they were made among equal positions)."""
        out: list[Decision] = []
        for p in self.graphs:
            out.extend(p.spec.decisions)
        return sorted(out, key=lambda d: (d.loc.file, d.loc.line, d.loc.col))

    @property
    def conversion_seconds(self) -> float:
        return sum(p.conversion_seconds for p in self.record.compiled if isinstance(p, GraphPlan))

    @property
    def ir_text(self) -> str:
        return "\n\n".join(print_graph(p.spec.graph) for p in self.graphs)

    @property
    def lowered_source(self) -> str:
        return "\n\n".join(p.lowered_source for p in self.graphs)

    def __str__(self) -> str:
        fn = self.function
        lines = [f"ast2graph explain: {fn.name}",
                 f"  graphs run: {self.graph_count}; fallback sites: {len(self.fallback_sites)}; "
                 f"newly compiled segments: {len(self.record.compiled)}; recompiles so far: {fn.recompiles}; "
                 f"conversion time: {self.conversion_seconds * 1e3:.1f} ms"]
        if fn.recompile_reasons:
            lines.append("  recompile reasons (latest last): " + "; ".join(fn.recompile_reasons[-3:]))
        if self.decisions:
            lines.append("  decisions:")
            lines.extend("    " + d.format() for d in self.decisions)
        if self.fallback_sites:
            lines.append("  fallback sites:")
            for s in self.fallback_sites:
                lines.extend("    " + line for line in s.format().splitlines())
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:   # IPython's text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        """Jupyter's display: the summary, then the decisions and the fallback
        sites as tables (code, line, construct, cause, hint)."""
        from html import escape

        fn, sites = self.function, self.fallback_sites
        head = (f"<b>ast2graph explain: {escape(fn.name)}</b><br>graphs run: {self.graph_count}; fallback sites: "
                f"{len(sites)}; newly compiled segments: {len(self.record.compiled)}; recompiles so far: "
                f"{fn.recompiles}; conversion time: {self.conversion_seconds * 1e3:.1f} ms")
        parts = [f"<div class='ast2graph-explain'>{head}"]

        def table(title: str, columns: tuple, rows: list) -> None:
            if not rows:
                return
            cells = "".join(f"<th>{escape(c)}</th>" for c in columns)
            body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
            parts.append(f"<details open><summary>{escape(title)} ({len(rows)})</summary>"
                         f"<table><tr>{cells}</tr>{body}</table></details>")

        table("fallback sites", ("code", "where", "construct", "cause", "hint"),
              [(s.code.code, f"{s.loc.file}:{s.loc.line}", s.construct, s.cause, s.hint or s.code.hint) for s in sites])
        table("decisions", ("where", "construct", "becomes", "why"),
              [(f"{d.loc.file}:{d.loc.line}", d.construct, d.mode, d.reason) for d in self.decisions])
        parts.append("</div>")
        return "".join(parts)


_UNSET = object()


def _int_option(name: str, value: Any, low: int, alternatives: str = "") -> int:
    """``value`` as an int >= ``low`` (a NumPy integer too; a bool is not an
    int here): TypeError or ValueError naming the option and the value."""
    what = alternatives + ("a non-negative int" if low == 0 else f"an int >= {low}" if low > 1 else "a positive int")
    if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"to_static: {name} must be {what}, not {value!r}")
    if value < low:
        raise ValueError(f"to_static: {name} must be {what}, not {value!r}")
    return int(value)


def _flag_option(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"to_static: {name} must be True or False, not {value!r}")
    return bool(value)


def to_static(fn: Callable | None = None, *, full_graph: bool = False, unroll_limit: int = 16,
              max_unroll: int = 512, static_values: int = 4, max_iters: int | None = None,
              in_shardings: Any = _UNSET, out_shardings: Any = _UNSET,
              donate_argnums: int | tuple[int, ...] | None = None,
              donate_argnames: str | tuple[str, ...] | None = None) -> Any:
    """Convert ``fn`` to a graph function (usable as ``@to_static`` or ``@to_static(...)``).

    ``unroll_limit``: static trip counts up to this unroll, above it loops roll.
    ``max_unroll``: a loop that cannot roll unrolls up to this many iterations.
    ``static_values``: a Python number argument is static until it has taken
    this many different values, then traced (no recompile storms).
    ``max_iters``: None (default): a ``while`` with a traced condition becomes
    ``lax.while_loop`` and a ``for`` over a ``range`` with a traced bound
    ``lax.fori_loop``, which ``jax.grad`` cannot reverse-differentiate. An int
    N: each such loop becomes a ``lax.scan`` of N steps, each running the body
    only while the loop condition holds, so ``jax.grad`` works through it; a
    loop that would still iterate after N iterations raises ``LoopBoundError``
    (naming the loop's file and line) instead of returning a truncated result.
    Loops with a static trip count are unaffected.

    ``in_shardings``, ``out_shardings``, ``donate_argnums``, ``donate_argnames``:
    as for ``jax.jit`` (``in_shardings``/``donate_argnums`` index the
    parameters the caller fills; a ``Sharding`` or None per parameter, or one
    for all). Passed to ``jax.jit`` when the whole function is one graph;
    otherwise the arguments' and the result's ``jax.Array`` leaves are placed
    with ``jax.device_put`` (``with_sharding_constraint`` under an outer
    transform) and donation is ignored. NumPy arrays and Python numbers are
    never moved or donated, nor is an argument the function returns unchanged
    (``jit_options.py``).

    Every option is checked here, not at the first call: a wrong type is a
    ``TypeError``, a value out of range a ``ValueError``, each naming the
    option, the value and what it must be (``bool`` is not an int here)."""
    if fn is not None and not callable(fn):
        raise TypeError(f"to_static: fn must be a callable (a function, method, functools.partial or object "
                        f"with __call__), not {fn!r}")
    options = Options(full_graph=_flag_option("full_graph", full_graph),
                      unroll_limit=_int_option("unroll_limit", unroll_limit, 0),
                      max_unroll=_int_option("max_unroll", max_unroll, 0),
                      static_values=_int_option("static_values", static_values, 0),
                      max_iters=None if max_iters is None else _int_option("max_iters", max_iters, 1, "None or "))
    jit_options = JitOptions.make(in_shardings, out_shardings, donate_argnums, donate_argnames, _UNSET)
    if fn is None:
        return lambda f: StaticFunction(f, options, jit_options)
    return StaticFunction(fn, options, jit_options)


def _hand_back_same(maybe_same: tuple, filled: list, leaves: list, captures: list) -> None:
    """The outputs that are, on this call's path, another object (an
    argument, an array read from outside, another output): that object
    itself, as in eager (``Specialization.maybe_same``, typeinfer/identity.py)."""
    def holds(at: int) -> bool:
        return not isinstance(filled[at], jax.core.Tracer) and bool(filled[at])   # (under an outer transform: JAX's)

    others = []
    for j, choices in maybe_same:
        which = next((which for which, at in choices if holds(at)), None)
        if type(which) is int:
            filled[j] = leaves[which]
        elif which is not None and which[0] == "capture":
            filled[j] = captures[which[1]].getter()
        elif which is not None:
            others.append((j, which))
    groups: dict[int, Any] = {}
    for j, (kind, ref) in others:   # after the arguments: an output may be one of them
        filled[j] = filled[ref] if kind == "out" else groups.setdefault(ref, filled[j])


def explain(fn: Callable) -> Callable[..., Explanation]:
    """``explain(f)(*args)``: run one call and return what happened."""
    static = fn if isinstance(fn, StaticFunction) else to_static(fn)
    return static.explain


def clear_caches(source_files: bool = True) -> None:
    """Forget what ast2graph keeps between conversions: parsed functions with
    their CFG/SSA, and the result types of ops; with ``source_files`` also the
    parsed source files. Functions already converted keep their compiled
    graphs (as ``jax.clear_caches`` leaves a ``jax.jit`` object usable). For
    releasing memory in a long-running process, and for measuring a cold
    conversion (benchmarks/conversion.py)."""
    from .parser import _CODE_CACHE
    from .parser.source import _FILES
    from .typeinfer.interpreter import _EVAL_CACHE
    from .typeinfer.precision import _PROBE_CACHE
    from .typeinfer.state import _NESTED_UNITS

    for cache in (_CODE_CACHE, _NESTED_UNITS, _EVAL_CACHE, _PROBE_CACHE) + ((_FILES,) if source_files else ()):
        cache.clear()
