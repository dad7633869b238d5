"""The warm-call fast path of a function that is one graph.

Requires: a ``GraphPlan`` that ran as the whole function (``plans.py``) and
the function's ``FunctionState`` (its binding and counters).
Produces: ``make_fast_call``: a closure that calls the plan's ``jax.jit``
directly when the new call's arguments match the plan's specialisation;
``aval_checked``: the wrapper that makes a jitted graph refuse to be traced
for other shapes or dtypes than it was specialised for (``SpecMiss``).
Invariants: the fast path returns exactly what the general path
(``Block.__call__`` → ``GraphPlan.run``) would return, or ``MISS`` before
anything ran; it never hides a specialisation change.

The general path costs several microseconds a call in Python: binding the
arguments, the live values of the first statement, their pytree, a cache
key per leaf, the guards, the outputs' kinds. When the whole function is
one graph whose outputs need no conversion, most of that is constant from
call to call; what can change is checked here in the cheapest form:

* array arguments: only that each is a ``jax.Array``. Their shapes, dtypes
  and weak types are checked by ``jax.jit``'s own C++ cache; a call with
  new ones makes ``jax.jit`` trace again, and the traced function
  (``aval_checked``) raises ``SpecMiss`` before anything runs, so the call
  takes the general path, which compiles the new specialisation.
* static arguments (Python numbers, strings, objects): equal to (numbers,
  strings) or identical with (objects) the specialised ones;
* guards (static values read from outside): re-checked, as the general
  path does;
* arrays read from outside (model weights): re-read, as graph inputs.

The last two are one generated function per plan (``make_reader``): a model
with 60 weights and 40 static attributes would otherwise pay two Python
calls per value (the guard, its getter's lambda), ~10 us of a 200 us call.
"""

from __future__ import annotations

import functools
import keyword
from typing import Any, Callable

import jax
import numpy as np

from ..graphlib.arrays import ARRAY_IMPL as _ARRAY_IMPL
from ..graphlib.hostcalls import HostErrors
from ..typeinfer.guards import object_key
from ..typeinfer.precision import check_int_inputs
from ..typeinfer.state import guarded_equal, same_scalar

MISS = object()

_STATIC_SCALARS = (bool, int, float, complex, str, bytes, type(None))
_MAX_MISSES = 3   # trace attempts refused (shape changes) before the fast path is given up


class SpecMiss(Exception):
    """A specialised graph was traced again with inputs of other shapes or
    dtypes than the ones it was specialised for (nothing ran)."""


def aval_checked(fn: Callable[..., Any], expected_signature: tuple | None = None) -> Callable[..., Any]:
    """``fn``, which refuses (``SpecMiss``) to be traced for other input
    shapes, dtypes or weak types than the ones of its first trace (or than
    ``expected_signature``, ``signature(inputs)``: the graph's executable was
    loaded, not traced).

    A graph is specialised on its inputs' types: loops unrolled by a shape,
    static shapes folded. ``jax.jit`` would silently trace it again for new
    shapes (a model weight replaced by one of another shape, an argument of
    the fast path); the check makes that a recompile instead. It costs
    nothing per call: it runs only when ``jax.jit`` traces."""
    expected: list[tuple] = [] if expected_signature is None else [expected_signature]

    @functools.wraps(fn)
    def traced(*args: Any) -> Any:
        sig = signature(args)
        if not expected:
            expected.append(sig)
        elif sig != expected[0]:
            raise SpecMiss(f"traced for {sig}, specialised for {expected[0]}")
        return fn(*args)

    return traced


_typeof = getattr(jax, "typeof", None) or jax.core.get_aval   # jax.typeof from JAX 0.4.36


def signature(args: Any) -> tuple:
    """The inputs' shapes, dtypes and weak types, as ``aval_checked`` compares them."""
    return tuple(_aval_key(a) for a in args)


def _aval_key(x: Any) -> tuple:
    aval = _typeof(x)
    return (tuple(aval.shape), aval.dtype, getattr(aval, "weak_type", False))


def make_fast_call(state: Any, plan: Any, args: tuple, names: list[str], leaves: list,
                   treedef: Any) -> Callable[[tuple], Any] | None:
    """A fast call for ``plan`` (a ``GraphPlan`` that was the whole call of
    the function whose ``FunctionState`` is ``state``, with positional
    ``args``), or None where the call needs the general path every time."""
    spec = plan.spec
    if state.fast_misses >= _MAX_MISSES or not plan.fast_ok or not (spec.returns or spec.end == len(state.top.stmts)):
        return None
    binding = state.binding
    if state.jit is not None or state.traced_params or not binding.simple or binding.kwargs:
        return None
    bound = binding.args
    params = binding.params
    nb = len(bound)
    missing = len(params) - nb - len(args)   # parameters left to their defaults
    if not 0 <= missing <= len(binding.defaults) or treedef != jax.tree_util.tree_structure(list(range(len(names)))):
        return None   # an argument that is a pytree: the general path
    where = {name: k for k, name in enumerate(params)}
    arrays: list[int] = []
    equal: list[tuple[int, type, Any]] = []
    same: list[tuple[int, Any]] = []
    by_value: list[tuple[int, tuple]] = []
    fixed_by_value: list[tuple[Any, tuple]] = []   # bound or default objects whose state the plan is keyed on
    arg_of_leaf: dict[int, int] = {}
    for k, (name, leaf) in enumerate(zip(names, leaves)):
        p = where.get(name)
        if p is None:
            return None
        if p < nb or p >= nb + len(args):
            if k in spec.arg_positions:
                return None   # an array bound by functools.partial or a default: the general path
            if k in spec.rebound:   # ``self`` of a bound method, a default: the same object, its state keyed
                fixed_by_value.append((leaf, spec.value_keys[k]))
            continue   # the same object every call
        q = p - nb
        if type(leaf) is _ARRAY_IMPL:
            arrays.append(q)
            arg_of_leaf[k] = q
        elif k in spec.arg_positions:
            return None   # a NumPy array or a traced number: converted by the general path
        elif isinstance(leaf, _STATIC_SCALARS):
            equal.append((q, type(leaf), leaf))
        else:
            same.append((q, leaf))
            if k in spec.rebound:   # specialised on by value: its state is part of the key
                by_value.append((q, spec.value_keys[k]))
    order = [arg_of_leaf[k] for k in spec.arg_positions]
    read = make_reader(spec.guards, spec.captures)
    jitted = plan.jitted
    nargs = len(args)
    plain = plan.plain_outputs
    out_treedef = spec.out_treedef
    unflatten = jax.tree_util.tree_unflatten
    writes = spec.attr_writes
    # the plan's types follow the user's x64 switch; a graph with 64-bit
    # values is called with the switch on (plans.GraphPlan.run)
    config, user_x64 = jax.config, bool(jax.config.jax_enable_x64)
    x64 = jax.enable_x64 if plan.x64 else None
    int_inputs = plan.int_inputs
    target, (defaults, kwdefaults) = binding.target, binding.defaults_of

    def fast(call_args: tuple) -> Any:
        if len(call_args) != nargs or config.jax_enable_x64 is not user_x64:
            return MISS
        if missing and (getattr(target, "__defaults__", None) is not defaults
                        or getattr(target, "__kwdefaults__", None) is not kwdefaults):
            return MISS   # f.__defaults__ = (...) since: the general path binds the new ones
        for q in arrays:
            if type(call_args[q]) is not _ARRAY_IMPL:
                return MISS
        for q, kind, value in equal:
            a = call_args[q]
            if type(a) is not kind or not same_scalar(a, value):   # -0.0 is not 0.0
                return MISS
        for q, obj in same:
            if call_args[q] is not obj:
                return MISS
        for q, key in by_value:
            if object_key(call_args[q]) != key:
                return MISS
        for obj, key in fixed_by_value:   # ``self.v`` set from None to an array by the last call
            if object_key(obj) != key:
                return MISS
        outside = read()
        if outside is None:
            return MISS
        inputs = [call_args[q] for q in order]
        inputs += outside
        if int_inputs:   # outside Python ints read traced that JAX ops take: eager's OverflowError
            check_int_inputs(int_inputs, inputs)
        if HostErrors.pending is not None:
            HostErrors.pending = None
        thrown = None
        try:
            if x64 is None:
                outs = jitted(*inputs)
            else:
                with x64(True):
                    outs = jitted(*inputs)
        except SpecMiss:
            state.fast_misses += 1
            state.fast = None
            return MISS
        except Exception:
            thrown = HostErrors.take()
            if thrown is None:
                raise
        if thrown is not None:   # outside the handler: the context is the caller's, as eager's
            thrown.throw()
        full = unflatten(out_treedef, outs if plain else plan.converted(outs))
        for (obj, attr), value in zip(writes, full[1]):   # lifted attribute and cell writes, in eager's order
            setattr(obj, attr, value)
        return full[0]

    return fast


def _read_expression(source: tuple, k: int, names: dict[str, Any]) -> str | None:
    """Python source reading ``source`` (``Guard.source``), its objects bound
    in ``names``; None where only the getter can read it."""
    kind, holder, key = source
    names[f"h{k}"] = holder
    if kind == "cell":
        return f"h{k}.cell_contents"
    if kind == "attr" and type(key) is str and key.isidentifier() and not key.startswith("__") \
            and not keyword.iskeyword(key):
        return f"h{k}.{key}"
    if kind in ("global", "item", "attr"):
        names[f"k{k}"] = key
        return f"_getattr(h{k}, k{k})" if kind == "attr" else f"h{k}[k{k}]"
    return None


def make_reader(guards: list, captures: list) -> Callable[[], list | None]:
    """One function that checks every guard and reads every capture, as
    ``[g.holds() for g in guards]`` and ``[c.getter() for c in captures]``
    would: the captured arrays (a list), or None if a guard fails or a
    value can no longer be read (the general path then decides, and raises
    what eager raises)."""
    names: dict[str, Any] = {"_same": guarded_equal, "_getattr": getattr}
    lines = ["def read():", "    try:"]
    for k, g in enumerate(guards):
        expr = _read_expression(g.source, k, names) if g.source is not None else None
        if expr is None:
            names[f"g{k}"] = g.holds
            lines.append(f"        if not g{k}(): return None")
            continue
        names[f"e{k}"] = g.expected
        lines += [f"        v = {expr}", f"        if v is not e{k} and not _same(v, e{k}): return None"]
    items = []
    for k, c in enumerate(captures, start=len(guards)):
        expr = _read_expression(c.source, k, names) if c.source is not None else None
        if expr is None:
            names[f"c{k}"] = c.getter
            expr = f"c{k}()"
        if c.kind is not None:   # still an array of its kind (a global array set to None: the general path)
            names[f"t{k}"] = c.kind
            lines += [f"        v{k} = {expr}", f"        if type(v{k}) is not t{k}: return None"]
            expr = f"v{k}"
        items.append(expr)
    lines += [f"        return [{', '.join(items)}]", "    except Exception:", "        return None"]
    exec(compile("\n".join(lines) + "\n", "<ast2graph guards and captures>", "exec"), names)  # noqa: S102 - our own code
    return names["read"]
