"""What the call machinery of one converted function shares, in declared fields.

Requires: ``parser.unwrap.code_signature``.
Produces: ``Binding`` (the converted callable, its bound arguments and
signature; ``bind`` makes a call's environment, as Python binds it) and
``FunctionState`` (the unit, options, per-function counters and what the
last call left: the record of ``explain``, the whole-call plan, the fast
call). The block executor (``block.Block``), the fast path and the export read
and write this object, never the function object's attributes.
Invariants: a ``Binding`` re-reads ``__defaults__``/``__kwdefaults__`` when
they are other objects than at the last call (a caller may assign new ones);
``FunctionState.note_recompile`` warns once, at the ``RECOMPILE_WARNING``-th
recompilation, naming the latest reasons.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

from ..parser.unwrap import code_signature

RECOMPILE_WARNING = 8   # recompilations of one function before it warns (once)


class RecompileWarning(UserWarning):
    """A converted function keeps recompiling: something it is specialised on
    changes between calls (the message names it)."""


class Binding:
    """How a call's arguments become the function's parameters: the
    converted callable (``target``), what ``functools.partial`` or a bound
    method fixed (``args``, ``kwargs``), and its signature as its defaults
    are now."""

    def __init__(self, target: Callable, args: tuple, kwargs: dict) -> None:
        self.target, self.args, self.kwargs = target, args, kwargs
        self.read_signature()

    def read_signature(self) -> None:
        """The parameters and their defaults, as ``fn.__defaults__`` and
        ``__kwdefaults__`` hold them now (a caller may assign new ones between
        calls: ``bind`` reads them again when they are other objects)."""
        target = self.target
        self.defaults_of = (getattr(target, "__defaults__", None), getattr(target, "__kwdefaults__", None))
        self.signature = code_signature(target)   # a wraps() wrapper runs its own code
        params = list(self.signature.parameters.values())
        self.defaults = tuple(p.default for p in params if p.default is not p.empty)
        # every parameter positional-or-keyword, the defaulted ones last: bound by position here
        self.simple = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params) and \
            not any(p.default is p.empty for p in params[len(params) - len(self.defaults):])
        self.params = tuple(p.name for p in params)

    def bind(self, args: tuple, kwargs: dict) -> dict[str, Any] | None:
        """The environment of a call: parameter name -> value, defaults
        filled; None for arguments the function does not take (its caller
        calls the function then, for Python's own TypeError)."""
        target, defaults_of = self.target, self.defaults_of
        if getattr(target, "__defaults__", None) is not defaults_of[0] \
                or getattr(target, "__kwdefaults__", None) is not defaults_of[1]:
            self.read_signature()   # f.__defaults__ = (...) since the last call
        if self.simple and not kwargs and not self.kwargs:
            given = self.args + args
            missing = len(self.params) - len(given)
            if missing == 0:
                return dict(zip(self.params, given))
            if 0 < missing <= len(self.defaults):
                return dict(zip(self.params, given + self.defaults[len(self.defaults) - missing:]))
        try:
            bound = self.signature.bind(*self.args, *args, **{**self.kwargs, **kwargs})
        except TypeError:
            return None   # the caller calls the function: eager's TypeError ("f() missing 1 required ...")
        bound.apply_defaults()
        return dict(bound.arguments)


@dataclass(eq=False)
class FunctionState:
    """One converted function's call machinery: what it was converted to
    (``unit``: None where it runs eagerly as a whole), how it is called, and
    what its calls learnt and left."""

    name: str
    options: Any                       # typeinfer.Options
    jit: Any = None                    # jit_options.JitOptions, or None
    unit: Any = None                   # typeinfer.state.Unit
    binding: Binding | None = None
    caller_params: tuple[str, ...] = ()   # the parameters the caller fills (in_shardings/donate_argnums index them)
    # a function that rebinds nonlocal variables runs as one graph or eagerly (block.Block._check_whole)
    whole_only: Any = None             # fallback.sites.FallbackSite
    stages: dict[str, float] = field(default_factory=dict)   # seconds of parse, resolve, ssa (pipeline.py)
    top: Any = None                    # block.Block of the function body
    blocks: dict[int, Any] = field(default_factory=dict)   # bodies run by Python control flow (Block.nested_block)
    # per-function learning: recompilations, Python numbers that became traced
    recompiles: int = 0
    recompile_reasons: list[str] = field(default_factory=list)
    scalar_values: dict[str, set] = field(default_factory=dict)
    traced_params: set[str] = field(default_factory=set)
    static_values: dict[Any, set] = field(default_factory=dict)   # guard key -> the Python ints it has held
    traced_statics: set = field(default_factory=set)
    # what the last call left
    record: Any = None                 # plans.CallRecord while ``explain`` or an export records a call
    single: tuple | None = None        # (plan, names, leaves, treedef) when the whole call was one plan
    fast: Callable[[tuple], Any] | None = None   # fastpath.py: the warm call of a one-graph function
    fast_misses: int = 0

    def note_busy_scalars(self, env: dict[str, Any]) -> None:
        """A Python number argument is static (specialised on its value) until
        it has taken ``static_values`` different values; from then on compiled
        segments get it as a traced scalar (``Block._trace_busy``), so new
        values do not recompile. The function itself still sees the number."""
        limit = self.options.static_values
        for name in self.binding.params or env:
            value = env.get(name)
            if name in self.traced_params or type(value) not in (int, float):
                continue
            seen = self.scalar_values.setdefault(name, set())
            seen.add((type(value), value))
            if len(seen) > limit:
                self.traced_params.add(name)
                self.recompile_reasons.append(f"argument {name!r} took more than {limit} values: now traced")

    def note_recompile(self, reason: str) -> None:
        """One more recompilation; a function that keeps recompiling says
        once what keeps changing."""
        self.recompiles += 1
        self.recompile_reasons.append(reason)
        if self.recompiles == RECOMPILE_WARNING:
            recent = "; ".join(dict.fromkeys(self.recompile_reasons[-3:]))
            warnings.warn(f"ast2graph: {self.name} has recompiled {self.recompiles} times (each costs a new trace "
                          f"and XLA compilation); the latest reasons: {recent}", RecompileWarning, stacklevel=4)

    def note_changed_statics(self, plans: list) -> None:
        """Guarded Python ints read from outside (``self.calls``) that changed:
        once one has taken ``static_values`` values it is read traced; one
        the graph itself writes back (an int or a float, ``global step; step
        += 1``) at once, when it kept its type."""
        limit = self.options.static_values
        for plan in plans:
            for g in plan.spec.guards:
                written = g.key is not None and g.key in plan.spec.written_keys
                if not (type(g.expected) is int or written and type(g.expected) is float) or g.key is None \
                        or g.key in self.traced_statics or g.holds():
                    continue
                seen = self.static_values.setdefault(g.key, {g.expected})
                try:
                    now = g.getter()
                    seen.add(now)
                except Exception:  # noqa: BLE001 - a vanished value: nothing to count
                    continue
                if len(seen) > limit:
                    self.traced_statics.add(g.key)
                    self.recompile_reasons.append(f"{g.description} took more than {limit} values: now traced")
                elif written and type(now) is type(g.expected):
                    # the function itself changes it (``global step; step += 1``)
                    self.traced_statics.add(g.key)
                    self.recompile_reasons.append(f"{g.description} is written back by the function: now traced")
