"""The plans a converted function's statements run as, and what one call did.

Requires: a ``Specialization`` (typeinfer) and its lowered, jitted graph.
Produces: ``GraphPlan`` (statements [start, end) of one block as one jitted
graph: its ``run`` calls the graph and hands eager's objects back: NumPy
arrays and scalars, Python numbers, the caller's own objects, views, written
arguments, attributes and locals), ``InterpretedPlan`` (a statement run by
Python), ``CallRecord`` (the plans of one call, for ``explain``) and
``x64_switch``.
Invariants: a plan's ``run`` leaves the environment and every object it
writes as the eager run of its statements would; the user's exception from
a host callback is raised outside JAX's handler, from the user's line.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import numpy as np

from ..fallback.control import NEXT, RETURN, StatementPlan
from ..fallback.interpreted import InterpretedNode
from ..fallback.sites import FallbackSite
from ..graphlib.arrays import writeable
from ..graphlib.casts import to_python_number
from ..diagnostics import IntRangeError
from ..graphlib.hostcalls import HostCall, HostErrors
from ..ir.core import Value, as_dtype, bounded, walk_ops
from ..lowering.codegen import narrow
from ..typeinfer import Specialization, hostwarnings
from ..typeinfer.boundary import InputRef, container_paths, resolve
from ..typeinfer.numpy_api import copy_keeping_views
from ..typeinfer.precision import check_int_inputs
from ..typeinfer.specialize import inplace_apart, outside_arrays
from ..typeinfer.state import InPlaceArray, MaybeBound
from .fastpath import SpecMiss


def check_output_types(spec: Specialization, traced: Any) -> None:
    """The graph computes the types type inference gave its outputs (the
    checks of the test suite: a 64-bit value must never come out narrowed)."""
    got = jax.tree_util.tree_leaves(traced.out_info)
    want = [x.type for x in spec.out_template if isinstance(x, Value)]
    for k, (g, w) in enumerate(zip(got, want)):
        if tuple(g.shape) != w.shape or as_dtype(g.dtype) != w.dtype:
            raise AssertionError(f"ast2graph internal error: output {k} of {spec.graph.name} is "
                                 f"{as_dtype(g.dtype)}{list(g.shape)}, typed {w}")


def host_effects(graph: Any) -> bool:
    """The graph calls back into Python (prints, checks, loop bounds)."""
    return any(getattr(getattr(op, "fn", None), "_a2g_effect", False) or bounded(op) for op in walk_ops(graph.body))


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
    stages: dict[str, float] = field(default_factory=dict)   # seconds per stage, typeinfer .. jit (pipeline.py)

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
        self.has_effects = host_effects(self.spec.graph)
        # ... of which the user sees some before the graph returns (a print, a warning, a call of
        # theirs on the host): not only run-time checks, which have done nothing until they raise
        fns = [getattr(op, "fn", None) for op in walk_ops(self.spec.graph.body)]
        shown = [fn for fn in fns if getattr(fn, "_a2g_effect", False) and not getattr(fn, "_a2g_check", False)]
        self.visible_effects = bool(shown)
        # ... all of them printed text, in a graph that may find a Python int beyond int64: the text is
        # held back until the call ends, so that on such a call the segment can run in Python instead
        # (``Block``), having printed nothing
        self.defer_prints = bool(shown) and all(getattr(fn, "_a2g_printer", False) for fn in shown) and any(
            IntRangeError in getattr(fn, "_a2g_raises", ()) for fn in fns)
        # the graph's outputs are the flat result as they are (no static values, no conversions)
        self.plain_outputs = (all(isinstance(x, Value) for x in self.spec.out_template)
                              and not (self.numpy_out or self.numpy_scalar_out or self.python_out or self.captured_out))
        # what only the general path does: arguments handed back or written into, attributes set, host effects
        self.fast_ok = not (self.passthrough or self.has_effects or self.spec.input_writes or self.spec.views
                            or self.spec.maybe_same or self.spec.warning_issuers or self.spec.inplace_captures)
        # NumPy's RuntimeWarnings whose flags the graph hands out (its last outputs): issued after the call
        self.warning_issuers = self.spec.warning_issuers
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
        if failed is None and self.spec.inplace_captures and not self._inplace_ok(leaves):
            return ("a NumPy array it reads from outside and writes in place is read-only now, or shares memory "
                    "with another array it reads")
        return f"{failed.description} changed" if failed is not None else "the graph was traced for other input types"

    def guards_hold(self, leaves: list) -> bool:
        return not self.stale and all(leaves[k] is obj for k, obj in self.spec.pinned.items()) and \
            all(g.holds() for g in self.spec.guards) and all(c.holds() for c in self.spec.captures) and \
            (not self.alias_checked or self._captures_apart(leaves)) and \
            (not self.spec.inplace_captures or self._inplace_ok(leaves))

    def _inplace_ok(self, leaves: list) -> bool:
        """The arrays read from outside that the graph writes in place are
        writeable and share memory with no other array it reads
        (``specialize.inplace_apart``)."""
        captures = self.spec.captures
        try:
            if not all(writeable(captures[k].getter()) for k, _ in self.spec.inplace_captures):
                return False
        except Exception:  # noqa: BLE001 - a vanished value: the capture's own check fails the plan
            return False
        return inplace_apart(captures, self.spec.guards, leaves, [k for k, _ in self.spec.inplace_captures]) is None

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
                # (in Fortran order where eager's is: a ufunc of Fortran-ordered operands)
                made[key] = np.array(filled[k], order="F" if k in spec.fortran_out else "K")
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
        outer = HostCall.running, HostCall.deferred
        HostCall.running = True
        if self.defer_prints and outer[1] is None:
            HostCall.deferred = []
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
            held = HostCall.deferred if outer[1] is None else None
            HostCall.running, HostCall.deferred = outer
        if held:   # printed now, unless the segment runs in Python on this call instead (``Block``)
            if not (thrown is not None and isinstance(thrown.error, IntRangeError)):
                for fn, args, kwargs in held:
                    fn(*args, **kwargs)
        if thrown is not None:   # outside the handler: the context is the caller's, as eager's
            thrown.throw()   # what the check or the user's callback raised, from the user's line
        if self.warning_issuers:   # eager's NumPy RuntimeWarnings, in program order, from the user's lines
            hostwarnings.issue_flag_outputs(self.warning_issuers, outs[-1])
        filled = self.converted(outs)
        concrete = not any(isinstance(o, jax.core.Tracer) for o in outs)
        for k, at in spec.inplace_captures if concrete else ():   # ``self.w -= g``: into eager's array, as eager
            array = spec.captures[k].getter()
            np.copyto(array, filled[at], casting="unsafe")
            final = spec.out_template[at]
            for j, x in enumerate(spec.out_template):   # every output that is it: that very array
                if x is final:
                    filled[j] = array
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
        result, written, _, cell_values, local_contents = jax.tree_util.tree_unflatten(spec.out_treedef, filled)[:5]
        if local_targets:
            write_back_local(local_targets, local_contents)
        if cell_values:
            env.update(_bound_only(cell_values))
        targets = [obj for obj, _ in spec.attr_writes]
        for w, k in self.rebind_writes:
            targets[w] = leaves[k]
        for obj, (_, attr), value in zip(targets, spec.attr_writes, written):
            if type(obj) is not InPlaceArray:   # (written above)
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


def shared_containers(names: list[str], values: list, treedef: Any) -> tuple:
    """The plan-key part of the inputs' lists and dicts: the places one is
    reached again (``d["l"] is inner``: one object in the trace too)."""
    if treedef.num_nodes == len(names) + 1:   # no container at all
        return ()
    return container_paths(names, values)[1]


def write_back_local(targets: list, contents: list) -> None:
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
