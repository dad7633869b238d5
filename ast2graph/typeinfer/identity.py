"""Which NumPy argument a joined array may be, decided on each call.

Requires: the interpreter's ``emit``/``as_value``/``convert`` and regions
(``in_region``); the specializer seeds ``identity_flags`` with the NumPy array
arguments (``specialize.specialize``) and the in-place write machinery hands a
written argument's versions on (``mutation.array_store``).
Produces: ``IdentityMixin``: ``identity_of`` (for an array value: the objects
it may be, each an argument's leaf index, ``("capture", i)`` for an array
read from outside or ``("value", v)`` for a graph value joined into it, ->
whether it is that object, ``True`` or a traced bool)
and ``join_identities``, which a traced ``if`` calls on its results, and
``carried_identities``/``bind_identities``, which a rolled loop calls on its
carried values.
Invariants: eager's ``x if c else x * 2`` and ``while x.sum() > 10: x = x / 2``
hand back the caller's ``x`` itself on the paths that leave it unchanged (the
caller may write into the result, or test ``is``); the graph computes a copy.
So each joined NumPy result that may be an argument carries one traced bool
per such argument, true exactly on the paths where it is that argument's
object, and the host returns the caller's object where it is true
(``runtime.plans.GraphPlan``: ``maybe_same``); the same for a NumPy array read from
outside (a global, ``self.table``), re-read, and for another output
(``y = x if c else z; return y, z``: ``y`` is ``z`` where the flag holds). A result with no flag is never an
argument. Flags are only for arrays that leave the graph unchanged by the
join: an in-place write to an array that may be another one falls back
(``specialize._view_program``, ``mutation``), so a flag never has to follow a
write.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ir.core import ArrayType, Value, walk_ops
from ..graphlib import arrays

_BOOL = ArrayType((), np.dtype(bool))


def _numpy_array(x: Any) -> bool:
    # (a 0-d array's kind is "array0": ``x if c else -x`` of one hands back the caller's too)
    return isinstance(x, Value) and bool(x.type.kinds & {"numpy", "array0"}) and bool(x.type.shape or "array0" in x.type.kinds)


class IdentityMixin:
    @property
    def identity_flags(self) -> dict[int, tuple]:
        """id(value) -> (value, {argument leaf index: True or a traced bool})."""
        d = self.__dict__.get("_identity_flags")
        if d is None:
            d = self.__dict__["_identity_flags"] = {}
        return d

    def identity_of(self, x: Any) -> dict[Any, Any]:
        """The objects ``x`` may be in eager (arguments, arrays read from
        outside, graph values joined into it), each with the condition under
        which it is; empty where it is never one."""
        if not _numpy_array(x):
            return {}
        entry = self.identity_flags.get(id(x))
        return dict(entry[1]) if entry is not None and entry[0] is x else {}

    def _path_identity(self, x: Any) -> dict[Any, Any]:
        """What a path's array is: the objects it may be, and itself
        (``("value", x)``: a joined result that is ``x`` on this path is the
        same object as ``x``, wherever ``x`` leaves too)."""
        return {**self.identity_of(x), ("value", x): True} if _numpy_array(x) else {}

    def same_identity(self, new: Any, old: Any) -> None:
        """``new`` is ``old``'s object (a version written in place)."""
        flags = self.identity_of(old)
        if flags and isinstance(new, Value):
            self.identity_flags[id(new)] = (new, flags)

    def _flag_in_region(self, flag: Any, node: Any) -> Value:
        """A path's flag as a graph bool of one type, a jax.Array's (emitted
        in the current region; a Python bool would make a loop's flag a
        value of path-dependent kind)."""
        if isinstance(flag, Value) and flag.type == _BOOL and not flag.type.python and not flag.type.mixed:
            return flag
        v = self.as_value(bool(flag), node) if flag is True or flag is False else flag
        out = self.emit_call(arrays.cast, (v, np.dtype(bool), False), {}, node, "is_same")
        out.type = _BOOL
        return out

    def join_identities(self, node: Any, results: list, paths: list[list], regions: list) -> list[Value]:
        """After a traced branch: each NumPy result that may be an object
        seen elsewhere gets a flag per such object, yielded by every path
        (``regions``, aligned with ``paths``, each a list of its leaves
        aligned with ``results``). Returns the new flag results, to append to
        the op's. A path's own array counts where it was made before the
        branch (it may leave too) or is two results of this join."""
        made = [{id(v) for op in walk_ops(region) for v in op.results} for region in regions]
        per_result = {k: [self._path_identity(p[k]) if k < len(p) else {} for p in paths]
                      for k, r in enumerate(results) if _numpy_array(r)}
        uses: dict[Any, int] = {}
        for per_path in per_result.values():
            for m in dict.fromkeys(m for ids in per_path for m in ids):
                uses[m] = uses.get(m, 0) + 1

        def seen_elsewhere(m: Any, b: int) -> bool:
            return type(m) is not tuple or m[0] != "value" or id(m[1]) not in made[b] or uses[m] > 1

        extra: list[Value] = []
        for k, per_path in per_result.items():
            per_path = [{m: f for m, f in ids.items() if seen_elsewhere(m, b)} for b, ids in enumerate(per_path)]
            flags = {}
            for m in dict.fromkeys(m for ids in per_path for m in ids):
                out = Value(_BOOL, "is_same")
                for region, ids in zip(regions, per_path):
                    with self.in_region(region):
                        region.yields.append(self._flag_in_region(ids.get(m, False), node))
                extra.append(out)
                flags[m] = out
            if flags:
                self.identity_flags[id(results[k])] = (results[k], flags)
        return extra

    # ------------------------------------------------------------ rolled loops
    # A carried variable that enters the loop as an argument's array carries,
    # beside it, a bool per such argument (a pseudo-variable ``<same n m>``):
    # true while the variable still holds that argument's object.

    @property
    def _identity_names(self) -> dict[str, tuple[str, int]]:
        d = self.__dict__.get("_identity_names_d")
        if d is None:
            d = self.__dict__["_identity_names_d"] = {}
        return d

    def carry_identities(self, stmt: Any, names: list[str], env0: dict) -> set[str]:
        """Add the flags of the carried variables that may enter as an
        argument's array to ``names`` and ``env0``; returns their names."""
        added = set()
        held = {}
        for v in env0.values():
            held[id(v)] = held.get(id(v), 0) + 1
        for n in list(names):
            v = env0.get(n)
            own = {("value", v): True} if _numpy_array(v) and held[id(v)] > 1 else {}   # another name holds it
            for m, flag in {**self.identity_of(v), **own}.items():
                p = f"<same {n} {m if type(m) is not tuple or m[0] != 'value' else id(m[1])}>"
                if p not in names:
                    names.append(p)
                    env0[p] = self._flag_in_region(flag, stmt)
                    self._identity_names[p] = (n, m)
                    added.add(p)
        return added

    def yield_identities(self, stmt: Any, names: list[str], env: dict, body: Any) -> None:
        """At the end of the body: each flag says whether its variable is still the argument."""
        with self.in_region(body):
            for p in names:
                if p in self._identity_names:
                    n, m = self._identity_names[p]
                    env[p] = self._flag_in_region(self._path_identity(env.get(n)).get(m, False), stmt)

    def bind_identities(self, names: list[str]) -> None:
        """After the carried values are bound (in the body, or after the loop):
        each one's flags are its pseudo-variables' values."""
        env = self.frame.env
        for p in names:
            if p not in self._identity_names:
                continue
            n, m = self._identity_names[p]
            flag, v = env.pop(p, None), env.get(n)
            if isinstance(flag, Value) and _numpy_array(v) and self.identity_flags.get(id(v), (None,))[0] is not v:
                self.identity_flags[id(v)] = (v, {m: flag})
            elif isinstance(flag, Value) and _numpy_array(v):
                self.identity_flags[id(v)][1][m] = flag
