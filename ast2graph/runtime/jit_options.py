"""``to_static``'s ``jax.jit`` options: ``in_shardings``, ``out_shardings``,
``donate_argnums``, ``donate_argnames``.

Requires: ``jax`` shardings; the ``Specialization`` of a compiled segment.
Produces: ``JitOptions.make(...)`` (None when no option is given);
``place_inputs(env, params)`` / ``place_args(args)`` / ``place_result(result)``
run on every call; ``segment_kwargs(...)`` gives the ``jax.jit`` keyword
arguments of a segment (empty unless it is the whole function).
Invariants: an option never changes a value, only where it lives (and
whether an input buffer is reused). ``in_shardings`` is indexed like the
function's parameters (after those a bound method or ``partial`` fills), a
``Sharding`` or ``None`` (unspecified) per parameter or one for all, broadcast
over each argument's pytree as ``jax.jit`` broadcasts a prefix. The options
are forwarded to ``jax.jit`` only when one segment is the whole function:
its graph inputs are then the arrays of the arguments (plus the arrays it
reads from outside, unspecified and never donated). Otherwise the arguments'
``jax.Array`` leaves are placed with ``jax.device_put`` before the call and
the result's after it (``lax.with_sharding_constraint`` for traced values
under an outer transform) and donation is ignored. NumPy arrays and Python
numbers are never moved (eager semantics: in-place writes, ndarray results);
an argument returned unchanged or written back is never donated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from jax.sharding import PartitionSpec, Sharding

from ..ir.core import Value
from ..typeinfer.lattice import TracedNumber
from ..graphlib.trees import sorted_positions, tree_flatten


def _is_spec(x: Any) -> bool:
    return x is None or isinstance(x, (Sharding, PartitionSpec))


def broadcast(prefix: Any, tree: Any) -> list:
    """One sharding per leaf of ``tree`` (dicts in insertion order, as
    ``trees.tree_flatten`` lists them): ``prefix`` is a pytree prefix of it
    (``jax.jit``'s rule); ValueError naming both when it is not."""
    specs, prefix_def = jax.tree_util.tree_flatten(prefix, is_leaf=_is_spec)
    try:
        subtrees = prefix_def.flatten_up_to(tree)
    except (ValueError, TypeError) as e:
        raise ValueError(f"sharding {prefix!r} is not a pytree prefix of {jax.tree_util.tree_structure(tree)}: {e}") from None
    in_jax_order = [s for s, sub in zip(specs, subtrees) for _ in range(len(jax.tree_util.tree_leaves(sub)))]
    out: list = [None] * len(in_jax_order)
    for k, s in zip(sorted_positions(tree), in_jax_order):
        out[k] = s
    return out


def _place(leaf: Any, sharding: Any) -> Any:
    if sharding is None:
        return leaf
    if isinstance(leaf, jax.core.Tracer):
        return jax.lax.with_sharding_constraint(leaf, sharding)
    if isinstance(leaf, jax.Array):
        return jax.device_put(leaf, sharding)
    return leaf   # NumPy arrays and Python numbers stay what eager gives


def _place_tree(tree: Any, prefix: Any) -> Any:
    leaves, treedef = tree_flatten(tree)
    return jax.tree_util.tree_unflatten(treedef, [_place(x, s) for x, s in zip(leaves, broadcast(prefix, tree))])


_SHARDINGS = "a Sharding, a PartitionSpec or None, or a tuple, list or dict of them (one per parameter)"


def _check_shardings(option: str, value: Any) -> None:
    try:
        leaves = jax.tree_util.tree_leaves(value, is_leaf=_is_spec)
    except Exception:  # noqa: BLE001 - a value jax cannot even flatten
        leaves = [value]
    if isinstance(value, (str, bytes)) or not all(_is_spec(x) for x in leaves):
        raise TypeError(f"to_static: {option} must be {_SHARDINGS}, not {value!r}")


def _is_index(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _argnums(value: Any) -> tuple[int, ...]:
    """``donate_argnums``: None, an int, or an iterable of ints, each >= 0."""
    if value is None:
        return ()
    what = "None, a non-negative int or a sequence of non-negative ints"
    if _is_index(value):
        items: tuple = (value,)
    elif isinstance(value, (str, bytes, dict)) or not _iterable(value):
        raise TypeError(f"to_static: donate_argnums must be {what}, not {value!r}")
    else:
        items = tuple(value)
    for n in items:
        if not _is_index(n):
            raise TypeError(f"to_static: donate_argnums must be {what}, not {value!r} (holding {n!r})")
        if n < 0:
            raise ValueError(f"to_static: donate_argnums must be {what}, not {value!r} (holding {n!r})")
    return tuple(int(n) for n in items)


def _argnames(value: Any) -> tuple[str, ...]:
    """``donate_argnames``: None, a parameter name, or an iterable of names."""
    if value is None:
        return ()
    what = "None, a parameter name (str) or a sequence of them"
    if isinstance(value, str):
        items: tuple = (value,)
    elif isinstance(value, (bytes, dict)) or not _iterable(value):
        raise TypeError(f"to_static: donate_argnames must be {what}, not {value!r}")
    else:
        items = tuple(value)
    for n in items:
        if not isinstance(n, str):
            raise TypeError(f"to_static: donate_argnames must be {what}, not {value!r} (holding {n!r})")
        if not n.isidentifier():
            raise ValueError(f"to_static: donate_argnames must be {what}, not {value!r} ({n!r} is not a name)")
    return tuple(str.__str__(n) for n in items)


def _iterable(value: Any) -> bool:
    try:
        iter(value)
    except TypeError:
        return False
    return True


@dataclass(frozen=True)
class JitOptions:
    in_shardings: Any
    out_shardings: Any
    donate_argnums: tuple
    donate_argnames: tuple
    has_in: bool
    has_out: bool

    @classmethod
    def make(cls, in_shardings: Any, out_shardings: Any, donate_argnums: Any, donate_argnames: Any,
             unset: Any) -> "JitOptions | None":
        """The options as given to ``to_static``, checked (TypeError or
        ValueError naming the option, the value and what it must be)."""
        has_in, has_out = in_shardings is not unset, out_shardings is not unset
        if has_in:
            _check_shardings("in_shardings", in_shardings)
        if has_out:
            _check_shardings("out_shardings", out_shardings)
        nums = _argnums(donate_argnums)
        names = _argnames(donate_argnames)
        if not (has_in or has_out or nums or names):
            return None
        return cls(in_shardings, out_shardings, nums, names, has_in, has_out)

    # ------------------------------------------------------------ every call
    def _param_spec(self, q: int) -> Any:
        """The sharding of the q-th caller-filled parameter (None: unspecified)."""
        if isinstance(self.in_shardings, (tuple, list)) and not isinstance(self.in_shardings, PartitionSpec):
            return self.in_shardings[q] if q < len(self.in_shardings) else None
        return self.in_shardings

    def place_inputs(self, env: dict[str, Any], params: tuple[str, ...]) -> None:
        """``device_put`` the caller's arguments (``params``: the parameters the caller fills)."""
        if not self.has_in:
            return
        for q, name in enumerate(params):
            if name in env:
                env[name] = _place_tree(env[name], self._param_spec(q))

    def place_args(self, args: tuple) -> tuple:
        """The same for a function run eagerly (no signature): by position."""
        if not self.has_in:
            return args
        return tuple(_place_tree(a, self._param_spec(q)) for q, a in enumerate(args))

    def place_result(self, result: Any) -> Any:
        return _place_tree(result, self.out_shardings) if self.has_out else result

    # ------------------------------------------------------- whole function
    def donated(self, params: tuple[str, ...]) -> set[str]:
        return {params[q] for q in self.donate_argnums if 0 <= q < len(params)} | set(self.donate_argnames)

    def segment_kwargs(self, spec: Any, names: list[str], leaves: list, treedef: Any,
                       params: tuple[str, ...]) -> dict[str, Any]:
        """``jax.jit`` keyword arguments for a segment that is the whole
        function; ``names`` are its inputs (parameters), ``leaves`` theirs."""
        if not set(names) <= set(params):
            return {}
        values = jax.tree_util.tree_unflatten(treedef, leaves)
        param_leaf = {id(v): k for v, k in zip(spec.graph.params, spec.arg_positions)}
        returned = {param_leaf[id(x)] for x in spec.out_template if isinstance(x, Value) and id(x) in param_leaf}
        keep = returned | set(spec.input_writes)
        donated = self.donated(params)
        specs, donate, offset = {}, set(), 0
        for name, value in zip(names, values):
            sub = tree_flatten(value, is_leaf=lambda x: isinstance(x, TracedNumber))[0]
            shard = broadcast(self._param_spec(params.index(name)), value) if self.has_in else [None] * len(sub)
            for k, (leaf, s) in enumerate(zip(sub, shard)):
                is_array = isinstance(leaf, (jax.Array, np.ndarray))
                specs[offset + k] = s if is_array else None
                if name in donated and isinstance(leaf, jax.Array) and offset + k not in keep:
                    donate.add(offset + k)
            offset += len(sub)
        kwargs: dict[str, Any] = {}
        n_captures = len(spec.captures)
        if self.has_in:
            kwargs["in_shardings"] = tuple(specs.get(k) for k in spec.arg_positions) + (None,) * n_captures
        argnums = tuple(j for j, k in enumerate(spec.arg_positions) if k in donate)
        if argnums:
            kwargs["donate_argnums"] = argnums
        if self.has_out and spec.returns:
            result = jax.tree_util.tree_unflatten(spec.out_treedef, spec.out_template)[0]
            try:
                per_leaf = broadcast(self.out_shardings, result)
            except ValueError:
                per_leaf = None   # place_result raises jax.jit's error after the call
            if per_leaf is not None:
                outs = [per_leaf[k] if k < len(per_leaf) and not (x.type.python or x.type.numpy) else None
                        for k, x in enumerate(spec.out_template) if isinstance(x, Value)]
                kwargs["out_shardings"] = tuple(outs)
        return kwargs
