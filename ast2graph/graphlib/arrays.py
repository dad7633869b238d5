"""Helpers the graph calls on arrays, and the trace-time stand-ins for array
attributes (``x.sum``, ``x.at[i].set``) that must not leak tracers.

Requires: jax.
Produces: named functions (so the IR printer shows ``getitem``/``.sum``/
``truthy``) and the small classes the interpreter returns for method and
``.at`` lookups on traced values.
"""

from __future__ import annotations

import functools
import math
import operator
import reprlib
import sys
from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..diagnostics import IntRangeError
from ..ir.core import Value
from ..tracebacks import RaiseSite
# the run-time transport of host callbacks (``hostcalls``), used here and named by other modules through here
from .bounded import raise_if   # the run-time check machinery
from .casts import cast, half_from_double, is_double_to_half, opaque, to_python_number  # noqa: F401 (cast: named through here)
from .hostcalls import HostCall, HostError, HostErrors, HostRaised, _guarded, _host_raised, _wide, pure_host_call, words_sent  # noqa: F401
from .trees import keyed, tree_flatten, tree_map


_NPY_ARRAY_WRITEABLE = 0x0400


def writeable(x: np.ndarray) -> bool:
    """``x.flags.writeable``, read without a warning: NumPy warns (FutureWarning)
    on any read of the flag of a ``np.broadcast_arrays`` result, which will turn
    read-only, and eager's program never read it (scipy.stats' ``ppf``)."""
    return bool(x.flags.num & _NPY_ARRAY_WRITEABLE)


def _array_impl() -> type:
    """The concrete class of ``jax.Array`` values. Not found by making one:
    ``jax.device_put`` imports ``jax.experimental.multihost_utils`` (~55 ms
    of every process's first ``to_static``) and ``jnp.zeros`` compiles an
    XLA program."""
    try:
        from jax._src.array import ArrayImpl
    except ImportError:   # another JAX layout: make one
        return type(jax.device_put(np.zeros((), np.float32)))
    return ArrayImpl


ARRAY_IMPL = _array_impl()


@jax.tree_util.register_pytree_node_class
@dataclass
class SliceSpec:
    """A ``slice`` whose bounds may be traced: a pytree, unlike ``slice``."""

    start: Any
    stop: Any
    step: Any

    def tree_flatten(self):
        return (self.start, self.stop, self.step), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


# The conversion of a DeferredStr slot holding the index of one of several
# static strings (``spec``): a str variable a traced ``if`` set to one or another
CHOICE = "choice"


@jax.tree_util.register_pytree_node_class
class DeferredStr:
    """An f-string of traced values, formatted on the host when it is printed.

    ``parts`` are literal strings or ``(conversion, spec)`` slots; ``values``
    fill the slots (arrays at run time), exactly as eager formats them. A
    slot ``("%", directive)`` is ``directive % (value,)`` (``"%.2f" % x``)."""

    def __init__(self, parts: tuple, values: tuple):
        self.parts, self.values = parts, values

    def tree_flatten(self):
        return keyed(self.values), self.parts   # a dict among them (``str(d)``) keeps its order

    @classmethod
    def tree_unflatten(cls, parts, values):
        return cls(parts, tuple(values))

    def __str__(self) -> str:
        out, values = [], iter(self.values)
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                conv, spec = part
                value = formatted(next(values))   # (a list of f-strings: eager's strings in it, not ours)
                if conv == "%":   # a printf-style directive (``"%.3f" % x``)
                    out.append(spec % (value,))
                    continue
                if conv == CHOICE:   # one of the strings a traced branch chose (``spec``), by its index
                    out.append(spec[int(value)])
                    continue
                value = {"s": str, "r": repr, "a": ascii}.get(conv, lambda v: v)(value)
                out.append(format(value, spec))
        return "".join(out)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        """``f'...{}...'``, its slots empty (deterministic: the IR printer shows it)."""
        return "f" + repr("".join(p if isinstance(p, str) else "{}" for p in self.parts))

    def __add__(self, other: Any) -> "DeferredStr":
        """Concatenation with a string (or another deferred one), still formatted on the host."""
        if isinstance(other, DeferredStr):
            return DeferredStr(self.parts + other.parts, self.values + other.values)
        if isinstance(other, str):
            return DeferredStr(self.parts + (other,), self.values)
        return NotImplemented

    def __radd__(self, other: Any) -> "DeferredStr":
        if isinstance(other, str):
            return DeferredStr((other,) + self.parts, self.values)
        return NotImplemented


def _check_raised(exc: Any, form: str, args: tuple, kwargs: dict, site: RaiseSite | None) -> HostRaised:
    """``HostRaised`` for a check that fired: what it raises, described (not
    made: it is made once, in the user's frame)."""
    if isinstance(exc, (BaseException, Remake)):
        return _host_raised(exc if isinstance(exc, BaseException) else exc())
    text = ", ".join([reprlib.repr(a) for a in args] + [f"{k}={reprlib.repr(v)}" for k, v in kwargs.items()])
    return HostRaised(f"{getattr(exc, '__qualname__', exc)}({text}) raised at {site or 'a run-time check'}")


def eager_kind(t: Any) -> str:
    """The kind of object eager Python has for an array of type ``t`` (an
    ``ArrayType``): "python", "numpy", "array0" (a 0-d ndarray) or "jax" ("jax~" weakly typed: its repr
    says ``weak_type=True``); "mixed" where it depends on the path."""
    return "mixed" if t.mixed else "python" if t.python else "array0" if t.array0 else "numpy" if t.numpy else \
        "jax~" if t.weak_type else "jax"


def to_eager_kind(a: Any, kind: str) -> Any:
    """An array a host callback receives, as the object eager has in hand:
    a Python number, a NumPy array (a NumPy scalar when 0-d) or a jax.Array."""
    if kind == "python":
        return to_python_number(a)
    if kind == "numpy":
        x = np.array(a)
        return x[()] if x.ndim == 0 else x
    if kind == "array0":
        return np.array(a)
    if _wide(np.asarray(a).dtype) and not jax.config.jax_enable_x64:
        with jax.enable_x64(True):   # a 64-bit jax.Array as eager has it, never narrowed (a callback's thread)
            return to_eager_kind(a, kind)
    if kind == "jax~":
        return cast(jnp.asarray(a), np.asarray(a).dtype, weak=True)
    return jnp.asarray(a)


def formatted(tree: Any) -> Any:
    """``tree`` with every ``DeferredStr`` in it the ``str`` eager has there
    (``print([f"{v:.1f}" for v in x])`` prints the strings' reprs, not ours)."""
    if not any(isinstance(x, DeferredStr) for x in tree_flatten(tree, leaf_types=(DeferredStr,))[0]):
        return tree
    return tree_map(lambda x: str(x) if isinstance(x, DeferredStr) else x, tree,
                    is_leaf=lambda x: isinstance(x, DeferredStr))


@functools.lru_cache(maxsize=None)
def host_effect(fn: Any, kinds: tuple = (), printer: bool = False):
    """``fn(*args, **kwargs)`` run on the host, in program order, on every call
    (an ordered ``jax.debug.callback``: the one chain of ordered effects the
    run-time checks, ``bounded.raise_if``, are in too, so a check before a
    print in program order runs before it); array arguments arrive as the objects eager
    has (``kinds``: ``eager_kind`` of each, in order; a jax.Array where not
    given), so printed text is what eager prints. Not run once a check before
    it in the same graph call has raised (eager never got there). A
    ``printer`` (``print``, ``logging``: text only) waits in
    ``HostCall.deferred`` while the caller holds its output back."""

    def effect(*args, **kwargs):
        leaves, treedef = tree_flatten((args, kwargs))   # a printed dict in insertion order
        positions = [i for i, x in enumerate(leaves) if isinstance(x, jax.Array)]

        def callback(*arrays_in):
            if HostCall.raised():
                return
            filled = list(leaves)
            for n, (i, a) in enumerate(zip(positions, arrays_in)):
                kind = kinds[n] if n < len(kinds) else "jax"
                if np.dtype(a.dtype).itemsize == 8 and np.dtype(a.dtype).kind in "iuf" or a.dtype == np.complex128:
                    with jax.enable_x64(True):   # 64-bit data prints as eager's, never narrowed
                        filled[i] = to_eager_kind(a, kind)
                else:
                    filled[i] = to_eager_kind(a, kind)
            a, k = formatted(jax.tree_util.tree_unflatten(treedef, filled))
            if printer and HostCall.deferred is not None:
                HostCall.deferred.append((fn, a, k))
                return
            fn(*a, **k)

        sent, decode = words_sent(tuple(leaves[i] for i in positions))
        jax.debug.callback(_guarded(decode(callback)), *sent, ordered=True)

    effect.__name__ = effect.__qualname__ = f"host[{getattr(fn, '__qualname__', fn)}]"
    effect._a2g_effect = True  # type: ignore[attr-defined]
    effect._a2g_host_print = True  # type: ignore[attr-defined]
    effect._a2g_printer = printer  # type: ignore[attr-defined]
    return effect


def _unspec(idx: Any) -> Any:
    if isinstance(idx, SliceSpec):
        return slice(idx.start, idx.stop, idx.step)
    if type(idx) is tuple:
        return tuple(_unspec(i) for i in idx)
    return idx


def numpy_round(x: Any, decimals: int) -> Any:
    """``np.round(x, decimals)`` of floats as NumPy computes it: scaled by a
    power of ten (a Python float, weak), rounded half to even, scaled back
    (``jnp.round`` multiplies by the inverse: another last bit; so would
    XLA's simplifier a division by a constant, hence the barrier)."""
    # (opaque: broadcast, LLVM divides by a loop-invariant scalar as by its inverse)

    if decimals >= 0:
        factor = 10.0 ** decimals
        scaled = jnp.rint(x * factor)
        return scaled / opaque(jnp.asarray(factor, x.dtype), scaled)
    factor = 10.0 ** -decimals
    return jnp.rint(x / opaque(jnp.asarray(factor, x.dtype), x)) * factor


def numpy_int_division(result: Any, divisor: Any) -> Any:
    """NumPy's integer ``//`` and ``%`` by zero: 0 (XLA's is another number)."""
    return jnp.where(divisor == 0, jnp.zeros_like(result), result)


def python_zero_signs(result: Any, left: Any, right: Any, floor: bool) -> Any:
    """NumPy's and Python's float ``%`` and ``//`` where the result is zero:
    a remainder of 0 has the divisor's sign (``-2.0 % 1.0`` is 0.0), a
    quotient of 0 the sign of ``left / right`` (``-0.0 // 1.0`` is -0.0);
    XLA's remainder keeps the dividend's sign and its floor division gives +0.0."""
    zero = jnp.zeros_like(result)
    return jnp.where(result == 0, jnp.copysign(zero, jnp.true_divide(left, right) if floor else right), result)


def power_overflowed(base: Any, exponent: Any, result: Any) -> Any:
    """Whether Python's ``base ** exponent`` of floats raises OverflowError:
    finite operands, an infinite result."""
    finite = jnp.isfinite(jnp.asarray(base, jnp.float64)) & jnp.isfinite(jnp.asarray(exponent, jnp.float64))
    return finite & jnp.isinf(result)


def int_float_compare(fn: Any, i: Any, f: Any) -> Any:
    """``fn(i, f)`` of a Python int (int64) and a Python float, exactly as
    Python compares them (not ``fn(float(i), f)``: ``2**53 + 1 == 2.0**53``
    is False). Rounding is monotone, so where ``float(i) != f`` their order is
    ``i``'s; where equal, ``f`` is integral and compared as an int (``f`` of
    2**63 or more is above every int64). NaN: ``float(i) != nan``, and ``fn``
    of NaN is Python's."""
    f = jnp.asarray(f, jnp.float64)
    i = jnp.asarray(i, jnp.int64)
    fi = i.astype(jnp.float64)
    big = f >= 2.0 ** 63
    as_int = jnp.where(big | (fi != f), 0.0, f).astype(jnp.int64)
    return jnp.where(fi != f, fn(fi, f), jnp.where(big, fn(0, 1), fn(i, as_int)))


@jax.custom_jvp
def plus_zero(x: Any) -> Any:
    """``x + 0`` as IEEE adds (eager's op by op): -0.0 becomes +0.0, where
    XLA's simplifier folds ``x + 0`` to ``x``. Its derivative is eager's,
    1 everywhere (the ``where`` alone would give 0 at zero under ``jax.grad``)."""
    return jnp.where(x == 0, jnp.zeros_like(x), x)


@plus_zero.defjvp
def _plus_zero_jvp(primals: tuple, tangents: tuple) -> tuple:
    (x,), (t,) = primals, tangents
    return plus_zero(x), t


def constant(x: Any) -> Any:
    """A static number as a graph constant (``jnp.asarray``)."""
    return jnp.asarray(x)


def getitem(x: Any, idx: Any) -> Any:
    if traced_slice(idx) and not isinstance(x, (list, tuple)):
        raise ShapeDependsOnTracedBound("the shape of x[a:b] depends on its traced bound")
    return x[_unspec(idx)]


def index_list(*items: Any) -> Any:
    """A list of integers used as a NumPy index (``x[[k, p]]``, some traced):
    the int64 index array NumPy makes of it."""
    return jnp.stack([jnp.asarray(i, jnp.int64) for i in items])


index_list._a2g_typed = True  # type: ignore[attr-defined]


def setitem_rows(x: Any, rows: Any, v: Any) -> Any:
    """``x[[r0, r1, ...]] = v`` on a NumPy array, one row after the other in
    the list's order: a repeated row gets the last of its values, as NumPy
    writes it (XLA's scatter leaves the order of repeated indices unspecified)."""
    values = jnp.broadcast_to(jnp.asarray(v), (rows.shape[0],) + x.shape[1:])
    for k in range(rows.shape[0]):
        x = x.at[rows[k]].set(values[k].astype(x.dtype))
    return x


setitem_rows._a2g_typed = True  # type: ignore[attr-defined]


def traced_int_parts(shape: tuple, idx: Any) -> list[tuple[int, Any]]:
    """``(axis, index)`` for the traced integer indices of ``x[idx]`` (scalars
    or integer arrays) before any ``...``: the ones NumPy bounds-checks at run
    time and XLA clamps or drops."""
    parts = idx if type(idx) is tuple else (idx,)
    out, axis = [], 0
    for p in parts:
        if p is Ellipsis:
            break
        if p is None:
            continue
        dtype = getattr(getattr(p, "type", p), "dtype", None)
        if isinstance(p, Value) and dtype is not None and np.dtype(dtype).kind in "iu" and axis < len(shape):
            out.append((axis, p))
        axis += 1
    return out


def numpy_index_check(shape: tuple, axes: tuple, *indices: Any) -> None:
    """At run time: NumPy's IndexError for an out-of-bounds integer index
    (``x[i]``, ``x[i] = v`` on a NumPy array with a traced ``i``)."""

    bad = [jnp.any((i < -shape[a]) | (i >= shape[a])) for a, i in zip(axes, indices)]
    raise_if(functools.reduce(jnp.logical_or, bad), functools.partial(_raise_index_error, shape, axes), *indices)


numpy_index_check._a2g_effect = True  # type: ignore[attr-defined]
numpy_index_check._a2g_check = True  # type: ignore[attr-defined]
numpy_index_check._a2g_raises = (IndexError,)  # type: ignore[attr-defined]


def numpy_index_failed(shape: tuple, axes: tuple, *indices: Any) -> Any:
    """Where ``numpy_index_check`` raises."""
    return functools.reduce(jnp.logical_or, [jnp.any((i < -shape[a]) | (i >= shape[a])) for a, i in zip(axes, indices)])


# (its message names the index's value: a stand-in, for a handler that never looks at it)
numpy_index_check._a2g_caught = lambda shape, axes, *indices: (   # type: ignore[attr-defined]
    numpy_index_failed, (shape, axes, *indices), IndexError("index out of bounds"), "text unknown")


def int_store_check(value: Any, dtype: np.dtype, kind: str) -> None:
    """At run time: the error NumPy raises storing the scalar ``value`` (a
    Python number for ``kind`` "python", else a NumPy scalar) into an array of
    integer ``dtype``: NaN, an infinity, or a number whose integer part is
    beyond the dtype's range."""

    info = np.iinfo(dtype)
    if jnp.issubdtype(value.dtype, jnp.floating):
        whole = jnp.trunc(value)
        signed = info.min < 0
        low, high = -(2.0 ** (info.bits - 1)) if signed else 0.0, 2.0 ** (info.bits - signed)   # exact floats
        bad = ~jnp.isfinite(value) | (whole < low) | (whole >= high)
    else:
        bad = (value < info.min) | (value > info.max)
    raise_if(bad, functools.partial(_raise_store_error, dtype, kind), value)


int_store_check._a2g_effect = True  # type: ignore[attr-defined]
int_store_check._a2g_check = True  # type: ignore[attr-defined]


def _raise_store_error(dtype: np.dtype, kind: str, mask: Any, value: Any) -> None:
    if not np.any(np.asarray(mask)):
        return
    v = np.asarray(value)[()]
    np.zeros((), dtype)[()] = v.item() if kind == "python" else v   # raises eager's error


class Static:
    """An argument of a checked ``raise`` known at trace time: the very
    object, handed to the exception's constructor as eager hands it (never
    flattened and rebuilt as a pytree)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        try:
            return repr(self.value)
        except Exception:  # noqa: BLE001 - the IR printer must not fail on a user's repr
            return object.__repr__(self.value)


class Remake:
    """An exception made in the converted function (``err = E(...)``, then
    ``raise err``), made once while tracing: eager makes one per call, so the
    check makes a new one each time it fires, equal to it: its type, its
    arguments and its attributes (a shallow copy; ``__init__`` is not run
    again, as eager runs it once, where the exception was made)."""

    __slots__ = ("cls", "args", "state")

    def __init__(self, exc: BaseException):
        self.cls, self.args, self.state = type(exc), exc.args, dict(vars(exc))

    def __call__(self) -> BaseException:
        base = next(c for c in self.cls.__mro__ if c.__module__ == "builtins")   # its __new__ sets the built-in fields
        error = base.__new__(self.cls, *self.args)
        error.args = self.args
        if base.__init__ is not BaseException.__init__ and self.cls.__init__ is base.__init__:
            base.__init__(error, *self.args)   # OSError, StopIteration...: fields set in __init__
        vars(error).update(self.state)
        return error

    def __repr__(self) -> str:
        return f"{self.cls.__name__}{self.args!r}"


class Caused:
    """The constructor of what a ``raise`` in an ``except`` handler raises
    (``raise E(...) from e``, ``from None``, or a plain ``raise E(...)``
    there), called when the check fires: a new ``E(...)`` chained as eager
    chains it to a new copy of the exception the handler took (``handled``):
    ``__context__`` that copy; ``__cause__`` it too after ``from e``, None
    after ``from None``; ``__suppress_context__`` set after either ``from``."""

    def __init__(self, ctor: type, handled: Remake, cause: str):
        self.ctor, self.handled, self.cause = ctor, handled, cause   # cause: "e", "None" or "" (no ``from``)
        self.__qualname__ = getattr(ctor, "__qualname__", repr(ctor))

    def __call__(self, *args: Any, **kwargs: Any) -> BaseException:
        error = self.ctor(*args, **kwargs)
        handled = self.handled()
        error.__context__ = handled
        if self.cause:
            error.__cause__ = handled if self.cause == "e" else None   # (sets __suppress_context__ too)
        return error

    def __repr__(self) -> str:
        return f"{self.__qualname__} (in a handler of {self.handled!r})"


def raise_when(pred: Any, exc: Any, args: tuple = (), kwargs: dict | None = None, *, site: RaiseSite | None = None,
               kinds: tuple = (), first: Any = None, before: tuple = ()) -> None:
    """At run time: ``if pred: raise exc`` where ``exc`` is an exception
    instance (raised itself, as ``raise ERR`` raises it), else
    ``if pred: raise exc(*args, **kwargs)`` with the constructor called on
    the host each time the check fires, as eager calls it. ``args`` and
    ``kwargs`` hold ``Static`` objects, graph arrays (given to the
    constructor as eager's kinds, ``kinds``: ``eager_kind`` of each in
    flattening order) and f-strings of them (``DeferredStr``, formatted);
    ``site``: the user's ``raise``/``assert``, where the traceback ends;
    ``first``: a host function called (no arguments) when the check fires,
    before it raises (``warnings._filters_mutated``: see ``specialize``);
    ``before``: ``(fn, args, kwargs)`` calls made on the host, in order, when
    the check fires, before it raises (a handler's ``print("bad", e)`` before
    its ``raise``: printed by the check itself, so exactly when eager prints
    it, never out of order with the raise); their arrays are among
    ``kinds``, after the constructor's."""

    leaves, treedef = tree_flatten((args, kwargs or {}, before))
    positions = tuple(i for i, x in enumerate(leaves) if isinstance(x, jax.Array))
    statics = [None if i in positions else x for i, x in enumerate(leaves)]   # no tracer kept by the callback
    raiser = functools.partial(_raise_exception, exc, treedef, statics, positions, kinds, site, first)
    raise_if(pred, raiser, *[leaves[i] for i in positions])


raise_when._a2g_effect = True  # type: ignore[attr-defined]
raise_when._a2g_check = True  # type: ignore[attr-defined]


def write_state(targets: tuple, leaves: list, places: tuple, treedef: Any) -> None:
    """On the host, when a run-time check fires (one of ``raise_when``'s
    ``before`` calls): the outside state the segment wrote before the check,
    as eager holds it when it raises: ``setattr(obj, attr, value)`` for each
    ``(obj, attr)`` of ``targets`` in eager's order (an attribute, a global, a
    cell, an outside list's ``append``: ``writeback.Effect``), the values
    rebuilt from ``leaves`` (eager's objects by then) and ``treedef``
    (``trees.tree_flatten``'s: dicts in insertion order). The call raises
    after it, so the write-back after the call, which holds the state at the
    segment's end, is never made. ``places``: for each leaf, the first
    position of the same graph value (one object in every place it is set)."""
    values = jax.tree_util.tree_unflatten(treedef, [leaves[k] for k in places])
    for (obj, attr), value in zip(targets, values):
        setattr(obj, attr, value)


def _raise_when_caught(pred: Any, exc: Any, args: tuple = (), kwargs: dict | None = None, *, first: Any = None,
                       before: tuple = (), **_: Any) -> tuple | None:
    """``raise_when``'s exception made at trace time (the caught form of a
    check, ``Specializer.caught_check``): a built-in exception class called
    with plain constants (a zero division's message), or an instance with no
    arguments to add; None where eager makes something else on each call (a
    user's class, a message formatted from traced values)."""
    plain = (str, int, float, bool, type(None))
    leaves = [x.value if isinstance(x, Static) else x for x in tree_flatten((args, kwargs or {}))[0]]
    if first is not None or before or not isinstance(pred, Value) or not all(type(x) in plain for x in leaves):
        return None
    if isinstance(exc, BaseException):
        return (None, (pred,), exc) if not leaves else None
    if not (isinstance(exc, type) and issubclass(exc, Exception) and exc.__module__ == "builtins"):
        return None
    unwrap = lambda v: v.value if isinstance(v, Static) else v  # noqa: E731
    return None, (pred,), exc(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in (kwargs or {}).items()})


raise_when._a2g_caught = _raise_when_caught  # type: ignore[attr-defined]


def _raise_exception(exc: Any, treedef: Any, statics: list, positions: tuple, kinds: tuple, site: RaiseSite | None,
                     first: Any, mask: Any, *arrays_in: Any) -> None:
    """On the host, when the check fires: keep what the user's statement
    raises for the caller (made there, in the user's frame, as eager makes
    it); JAX gets ``HostRaised``."""
    if not np.any(np.asarray(mask)) or HostCall.raised():   # (an earlier check raised: eager stopped there)
        return
    if first is not None:
        first()
    args, kwargs, before = _eager_arguments(treedef, statics, positions, kinds, arrays_in)
    for fn, fn_args, fn_kwargs in before:
        if HostCall.deferred is not None:   # after the text held back before it, as eager prints it
            HostCall.deferred.append((fn, fn_args, fn_kwargs))
        else:
            fn(*fn_args, **fn_kwargs)
    form = site.lines[-1].form if site is not None and site.lines else \
        "raise" if isinstance(exc, BaseException) else "raise-call"
    if form == "raise":
        operand = exc() if isinstance(exc, Remake) else exc
    elif form.startswith("assert"):
        operand = args[0] if args else None
    else:
        operand = functools.partial(exc, *args, **kwargs)
    HostErrors.record(HostError(None, site, form, operand))
    raise _check_raised(exc, form, args, kwargs, site)


def _eager_arguments(treedef: Any, statics: list, positions: tuple, kinds: tuple, arrays_in: tuple) -> tuple:
    """The constructor's arguments as eager has them: arrays of eager's kinds,
    f-strings formatted, ``Static`` objects themselves."""
    filled = list(statics)
    for n, (i, a) in enumerate(zip(positions, arrays_in)):
        kind = kinds[n] if n < len(kinds) else "jax"
        a = np.asarray(a)
        if a.dtype.itemsize == 8 and a.dtype.kind in "iuf" or a.dtype == np.complex128:
            with jax.enable_x64(True):   # 64-bit data stays 64-bit, as eager's
                filled[i] = to_eager_kind(a, kind)
        else:
            filled[i] = to_eager_kind(a, kind)
    args, kwargs, before = jax.tree_util.tree_unflatten(treedef, filled)
    eager = functools.partial(jax.tree_util.tree_map, _eager_leaf,
                              is_leaf=lambda x: isinstance(x, (DeferredStr, Static)))
    calls = tuple((fn, tuple(eager(a) for a in a_), {k: eager(v) for k, v in k_.items()}) for fn, a_, k_ in before)
    return tuple(eager(a) for a in args), {k: eager(v) for k, v in kwargs.items()}, calls


def _eager_leaf(x: Any) -> Any:
    if isinstance(x, Static):
        return x.value
    return str(x) if isinstance(x, DeferredStr) else x


def _raise_index_error(shape: tuple, axes: tuple, mask: Any, *indices: Any) -> None:
    if not np.any(np.asarray(mask)):
        return
    for a, i in zip(axes, indices):
        values = np.ravel(np.asarray(i))
        for v in values:
            if not -shape[a] <= v < shape[a]:
                raise IndexError(f"index {int(v)} is out of bounds for axis {a} with size {shape[a]}")


def branch_index(*preds: Any) -> Any:
    """Index of the first true condition of an elif chain; ``len(preds)`` if none."""
    index = jnp.int32(len(preds))
    for i in reversed(range(len(preds))):
        index = jnp.where(preds[i], jnp.int32(i), index)
    return index


def not_and(broke: Any, test: Any) -> Any:
    """A loop condition once a break is traced: ``not broke and test``."""
    return jnp.logical_and(jnp.logical_not(broke), test)


def truthy(x: Any) -> Any:
    """``bool(x)`` of a one-element array, as a traced scalar bool."""
    return jnp.reshape(x, ()).astype(bool)


def as_python_int(x: Any) -> Any:
    """``operator.index(x)`` of a 0-d integer array: a Python int (int64 with
    x64 on, else int32, which holds every value the operand can have)."""
    return jnp.asarray(x).astype(int)


def as_int64(x: Any) -> Any:
    """A Python int's graph value: int64 (typed and run with x64 on)."""
    return jnp.asarray(x, dtype=jnp.int64)


_ROUNDINGS = {"trunc": jnp.trunc, "floor": jnp.floor, "ceil": jnp.ceil, "round": jnp.round}


def python_int_of(x: Any, rounding: str = "trunc") -> Any:
    """``int(x)`` (``rounding="trunc"``), ``math.floor``/``math.ceil`` or
    ``round(x)`` (half to even) of a scalar: a Python int's graph value
    (int64, weak). A float operand out of int64's range (NaN, infinities,
    beyond 2**63) is caught before, by ``int_conversion_check``."""
    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = _ROUNDINGS[rounding](x)
    return cast(x, np.int64, True)


python_int_of._a2g_typed = True  # type: ignore[attr-defined]


def python_float_of(x: Any) -> Any:
    """``float(x)`` of a real scalar: a Python float's graph value (float64,
    weak; a float32 converts exactly, an int rounds as Python's ``float``)."""
    return cast(jnp.asarray(x), np.float64, True)


python_float_of._a2g_typed = True  # type: ignore[attr-defined]


def python_complex_of(re: Any, im: Any = None) -> Any:
    """``complex(z)`` of a scalar, ``complex(re, im)`` of two real ones
    (Python floats' graph values): a Python complex's graph value (complex128,
    weak): the parts as they are, no arithmetic (``complex(-0.0)`` is
    ``-0j``'s real part with a +0.0 imaginary one)."""
    z = jnp.asarray(re)
    if im is None and jnp.iscomplexobj(z):
        return cast(z, np.complex128, True)
    imag = jnp.zeros((), np.float64) if im is None else cast(jnp.asarray(im), np.float64)
    return cast(lax.complex(cast(z, np.float64), imag), np.complex128, True)


python_complex_of._a2g_typed = True  # type: ignore[attr-defined]


def python_round_digits(x: Any, ndigits: int) -> Any:
    """``round(x, ndigits)`` of a traced Python float: Python rounds the
    float's exact binary value to ``ndigits`` decimals, half to even, and
    returns the float nearest that decimal (``2.675`` gives ``2.67``,
    ``0.125`` gives ``0.12``), which ``x * 10**n`` in floating point does not
    reproduce. The graph asks the host: a ``jax.pure_callback`` running
    Python's own ``round`` on the float64 value (exact, the same on every
    backend; NaN and infinities come back unchanged, as in eager)."""
    def on_host(v: Any) -> Any:
        return np.asarray(round(float(v), ndigits), dtype=np.float64)

    out = jax.ShapeDtypeStruct((), np.float64)
    return cast(pure_host_call(on_host, out, jnp.asarray(x, np.float64), vmap_method="sequential"), np.float64, True)


python_round_digits._a2g_typed = True  # type: ignore[attr-defined]


def int_conversion_check(x: Any, what: str, where: str) -> None:
    """At run time, before ``python_int_of``: eager's ValueError for NaN,
    OverflowError for an infinity; ``IntRangeError`` for a finite value
    beyond int64 (eager's exact int does not fit the graph's int64)."""

    x = jnp.asarray(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        bad = jnp.logical_not(jnp.isfinite(x)) | (x >= 2.0 ** 63) | (x < -2.0 ** 63)
    elif x.dtype == np.uint64:
        bad = x > np.uint64(2 ** 63 - 1)
    else:
        return
    raise_if(bad, functools.partial(_raise_int_conversion, what, where), x)


int_conversion_check._a2g_effect = True  # type: ignore[attr-defined]
int_conversion_check._a2g_check = True  # type: ignore[attr-defined]
int_conversion_check._a2g_raises = (ValueError, OverflowError, IntRangeError)  # type: ignore[attr-defined]


class ResidualCheck(NamedTuple):
    """Part of a check that no handler takes, emitted as a check of its own
    (in a list of caught forms: ``Specializer.caught_check``)."""

    fn: Callable
    args: tuple


def int_nan(x: Any) -> Any:
    """Where ``int(x)`` raises ValueError: ``x`` is NaN."""
    return jnp.isnan(jnp.asarray(x))


def int_infinite(x: Any) -> Any:
    """Where ``int(x)`` raises OverflowError: ``x`` is an infinity."""
    return jnp.isinf(jnp.asarray(x))


def int_range_check(x: Any, what: str, where: str) -> None:
    """At run time: ``IntRangeError`` for a finite float beyond int64 (the
    part of ``int_conversion_check`` that is no exception of eager's: eager's
    int holds it, the graph's int64 cannot; ``runtime.block`` then runs the
    segment in Python on that call)."""

    x = jnp.asarray(x)
    bad = jnp.isfinite(x) & ((x >= 2.0 ** 63) | (x < -2.0 ** 63))
    raise_if(bad, functools.partial(_raise_int_conversion, what, where), x)


int_range_check._a2g_effect = True  # type: ignore[attr-defined]
int_range_check._a2g_check = True  # type: ignore[attr-defined]
int_range_check._a2g_raises = (IntRangeError,)  # type: ignore[attr-defined]


def _int_caught(x: Any, what: str, where: str) -> list | None:
    """``int_conversion_check`` split by what eager raises (the caught form,
    ``Specializer.caught_check``): NaN's ValueError and an infinity's
    OverflowError, each with eager's message, and the range check, which
    raises nothing of eager's. None for an operand of another dtype."""
    dtype = getattr(getattr(x, "type", None), "dtype", None)
    if dtype is None or dtype.kind != "f":
        return None
    return [(int_nan, (x,), ValueError("cannot convert float NaN to integer")),
            (int_infinite, (x,), OverflowError("cannot convert float infinity to integer")),
            ResidualCheck(int_range_check, (x, what, where))]


int_conversion_check._a2g_caught = _int_caught  # type: ignore[attr-defined]


# ``math.f(x)`` of a Python float in the graph: the float64 function, and the
# operands for which eager's ``math`` raises (its error and message)
_MATH = {
    "sqrt": (jnp.sqrt, lambda x: x < 0, ValueError, "math domain error"),
    "log": (jnp.log, lambda x: x <= 0, ValueError, "math domain error"),
    "exp": (jnp.exp, lambda x: jnp.isfinite(x) & jnp.isinf(jnp.exp(x)), OverflowError, "math range error"),
    "fabs": (jnp.abs, None, None, None),
}


def python_math(x: Any, name: str) -> Any:
    """``math.sqrt``/``log``/``exp``/``fabs`` of a Python float's graph value
    (float64, weak): a Python float's graph value (sqrt and fabs are exact
    as IEEE requires; exp and log within an ulp of the C library's)."""
    return cast(_MATH[name][0](x), np.float64, True)


python_math._a2g_typed = True  # type: ignore[attr-defined]


def python_float_predicate(x: Any, name: str) -> Any:
    """``math.isnan``/``isinf``/``isfinite`` of a Python float's graph value
    (float64): exact, at the value's own precision (never narrowed to
    float32, where 1e308 is an infinity)."""
    return getattr(jnp, name)(x)


python_float_predicate._a2g_typed = True  # type: ignore[attr-defined]


def python_isclose(a: Any, b: Any, rel_tol: float, abs_tol: float) -> Any:
    """``math.isclose(a, b, rel_tol=..., abs_tol=...)`` of Python floats'
    graph values (float64), as CPython's ``math_isclose_impl`` computes it:
    equal, else False where either is infinite, else ``|b - a|`` within
    ``|rel_tol * b|``, ``|rel_tol * a|`` or ``abs_tol`` (NaN: False)."""
    diff = jnp.abs(b - a)
    near = (diff <= jnp.abs(rel_tol * b)) | (diff <= jnp.abs(rel_tol * a)) | (diff <= abs_tol)
    return (a == b) | (~(jnp.isinf(a) | jnp.isinf(b)) & near)

# ``math``'s float functions that XLA computes otherwise than the C library
# Python calls (its kernels differ from libm in the last ulp, and eager's
# result is libm's): of traced Python numbers they run by Python's own
# ``math`` on the host. (``sqrt`` and ``fabs`` are exact in IEEE arithmetic:
# in the graph, ``python_math``.)
HOST_MATH = frozenset(n for n in (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "hypot", "erf", "erfc", "gamma", "lgamma",
    "cbrt", "fmod", "remainder", "copysign", "degrees", "radians") if hasattr(math, n))


def python_math_host(name: str, *xs: Any) -> Any:
    """``math.<name>(*xs)`` of Python floats' graph values (float64): a
    ``jax.pure_callback`` running Python's ``math.<name>`` on the host, so
    the result is eager's to the bit on every backend. Where ``math`` raises
    (``ValueError: math domain error``, ``OverflowError: math range error``)
    the run-time check raises eager's very exception (the host call is made
    again with the same floats)."""

    value, failed, operands = _math_host_value(name, *xs)
    raise_if(failed, functools.partial(_raise_math_host, name), *operands)
    return value


def _math_host_value(name: str, *xs: Any) -> tuple:
    fn = getattr(math, name)

    def on_host(*vs: Any) -> tuple:
        try:
            return np.asarray(fn(*(float(v) for v in vs)), np.float64), np.asarray(False)
        except (ValueError, OverflowError):
            return np.asarray(np.nan, np.float64), np.asarray(True)

    operands = [jnp.asarray(x, np.float64) for x in xs]
    out = (jax.ShapeDtypeStruct((), np.float64), jax.ShapeDtypeStruct((), np.bool_))
    value, failed = pure_host_call(on_host, out, *operands, vmap_method="sequential")
    return cast(value, np.float64, True), failed, operands


python_math_host._a2g_effect = True  # type: ignore[attr-defined]
# a run-time check too (raising eager's math error): refused inside a handler that may catch it (checkscope)
python_math_host._a2g_check = True  # type: ignore[attr-defined]
python_math_host._a2g_raises = (ValueError, OverflowError)  # type: ignore[attr-defined]

# the functions of HOST_MATH that never raise, whatever the floats (CPython sets no error for them)
MATH_NEVER_RAISES = frozenset({"atan", "atan2", "tanh", "asinh", "hypot", "erf", "erfc", "cbrt", "copysign",
                               "degrees", "radians"})


def python_math_host_total(name: str, *xs: Any) -> Any:
    """``python_math_host`` of a function in ``MATH_NEVER_RAISES``, or one
    checked by ``python_math_check`` after it: no run-time check (NaN where
    ``math`` raises)."""
    return _math_host_value(name, *xs)[0]


python_math_host_total._a2g_effect = True  # type: ignore[attr-defined]
python_math_host_total._a2g_pure = True  # a pure host computation: nothing eager would not do once a check fired  # type: ignore[attr-defined]


def _math_host_code(name: str, *xs: Any) -> Any:
    """Whether ``math.<name>(*xs)`` raises on the host: 0 (no), 1
    (ValueError), 2 (OverflowError); an int8 graph value."""
    fn = getattr(math, name)

    def on_host(*vs: Any) -> Any:
        try:
            fn(*(float(v) for v in vs))
        except ValueError:
            return np.asarray(1, np.int8)
        except OverflowError:
            return np.asarray(2, np.int8)
        return np.asarray(0, np.int8)

    operands = [jnp.asarray(x, np.float64) for x in xs]
    return pure_host_call(on_host, jax.ShapeDtypeStruct((), np.int8), *operands, vmap_method="sequential")


def python_math_check(name: str, *xs: Any) -> None:
    """At run time, after ``python_math_host_total``: eager's math error
    where ``math.<name>(*xs)`` raises (the form a handler around it may
    take: ``_a2g_caught``)."""
    operands = [jnp.asarray(x, np.float64) for x in xs]
    raise_if(_math_host_code(name, *xs) != 0, functools.partial(_raise_math_host, name), *operands)


def math_host_failed(exc: type, name: str, *xs: Any) -> Any:
    """Where ``math.<name>(*xs)`` raises ``exc`` (ValueError or OverflowError)."""
    return _math_host_code(name, *xs) == (1 if exc is ValueError else 2)


def _math_host_caught(name: str, *xs: Any) -> list | None:
    # (CPython before 3.13 words every domain and range error of the math module alike)
    if sys.version_info >= (3, 13):
        return None
    return [(math_host_failed, (ValueError, name, *xs), ValueError("math domain error")),
            (math_host_failed, (OverflowError, name, *xs), OverflowError("math range error"))]


python_math_check._a2g_effect = True  # type: ignore[attr-defined]
python_math_check._a2g_check = True  # type: ignore[attr-defined]
python_math_check._a2g_raises = (ValueError, OverflowError)  # type: ignore[attr-defined]
python_math_check._a2g_caught = _math_host_caught  # type: ignore[attr-defined]


def _raise_math_host(name: str, mask: Any, *vs: Any) -> None:
    if np.any(np.asarray(mask)):
        getattr(math, name)(*(float(np.asarray(v)) for v in vs))   # raises eager's exception


def math_domain_check(x: Any, name: str) -> None:
    """At run time, before ``python_math``: eager's ValueError("math domain
    error") / OverflowError("math range error") where ``math`` raises."""

    _, bad, exc, message = _MATH[name]
    if bad is not None:
        raise_if(bad(x), functools.partial(_raise_math, exc, message))


math_domain_check._a2g_effect = True  # type: ignore[attr-defined]
math_domain_check._a2g_check = True  # type: ignore[attr-defined]
math_domain_check._a2g_raises = (ValueError, OverflowError)  # type: ignore[attr-defined]


def math_failed(x: Any, name: str) -> Any:
    """Where ``math_domain_check`` raises."""
    return jnp.any(_MATH[name][1](x))


def _math_caught(x: Any, name: str) -> tuple | None:
    _, bad, exc, message = _MATH[name]
    return None if bad is None else (math_failed, (x, name), exc(message))


math_domain_check._a2g_caught = _math_caught  # type: ignore[attr-defined]


def _raise_math(exc: type, message: str, mask: Any) -> None:
    if np.any(np.asarray(mask)):
        raise exc(message)


def linalg_error_check(output: Any, message: str, *inputs: Any) -> None:
    """At run time, after ``np.linalg.inv``/``solve``/``cholesky`` run as
    ``jnp.linalg``'s: where the inputs are finite and the result is not (LAPACK
    met a zero pivot, or a matrix that is not positive definite), eager NumPy's
    ``LinAlgError`` with its message (JAX returns inf/NaN there)."""

    raise_if(linalg_failed(output, *inputs), functools.partial(_raise_linalg, message))


def linalg_failed(output: Any, *inputs: Any) -> Any:
    """Where ``linalg_error_check`` raises: finite inputs, a result that is not."""
    finite = functools.reduce(jnp.logical_and, [jnp.all(jnp.isfinite(jnp.asarray(x))) for x in inputs])
    return finite & jnp.logical_not(jnp.all(jnp.isfinite(output)))


linalg_error_check._a2g_effect = True  # type: ignore[attr-defined]
linalg_error_check._a2g_check = True  # type: ignore[attr-defined]
linalg_error_check._a2g_raises = (np.linalg.LinAlgError,)  # type: ignore[attr-defined]
linalg_error_check._a2g_caught = lambda output, message, *inputs: (   # type: ignore[attr-defined]
    linalg_failed, (output, *inputs), np.linalg.LinAlgError(message))


def _raise_linalg(message: str, mask: Any) -> None:
    if np.any(np.asarray(mask)):
        raise np.linalg.LinAlgError(message)


def _raise_int_conversion(what: str, where: str, mask: Any, x: Any) -> None:
    if not np.any(np.asarray(mask)):
        return
    a = np.asarray(x).reshape(-1)[0]
    value = int(a) if a.dtype.kind in "iub" else float(a)   # (bfloat16 and the like: kind "V")
    if isinstance(value, float) and value != value:
        raise ValueError("cannot convert float NaN to integer")
    if value in (float("inf"), float("-inf")):
        raise OverflowError("cannot convert float infinity to integer")
    raise IntRangeError(f"{what} at {where} is {int(value)}, beyond int64: eager Python's int holds it exactly, "
                        "the graph's int64 cannot; keep the value an array, or run this function eagerly")


def index_range_check(i: Any, n: int, message: str) -> None:
    """At run time: eager's ``IndexError(message)`` unless ``-n <= i < n``
    (a traced index into a Python list or tuple of ``n`` elements)."""

    i = jnp.asarray(i)
    raise_if(_outside(i, n), functools.partial(_raise_index_range, message), i)


def _outside(i: Any, n: int) -> Any:
    """``not -n <= i < n``, compared in ``i``'s integer dtype only where the
    bound fits it (``i < -3`` of a uint8 ``i`` would compare with 253)."""
    info = jnp.iinfo(i.dtype)
    below = i < -n if -n >= info.min else jnp.zeros(i.shape, bool)
    above = i >= n if n <= info.max else jnp.zeros(i.shape, bool)
    return below | above


index_range_check._a2g_effect = True  # type: ignore[attr-defined]
index_range_check._a2g_check = True  # type: ignore[attr-defined]
index_range_check._a2g_raises = (IndexError,)  # type: ignore[attr-defined]


def int_add_overflow_check(a: Any, b: Any, result: Any, subtract: bool, where: str) -> None:
    """At run time: ``IntRangeError`` where the int64 ``result`` of ``a + b``
    (``a - b``) of Python ints wrapped around, i.e. eager's exact int is
    beyond int64 (the sign of the result contradicts the operands')."""

    a, b, r = (jnp.asarray(v, jnp.int64) for v in (a, b, result))
    wrapped = ((a ^ b) & (a ^ r)) < 0 if subtract else ((a ^ r) & (b ^ r)) < 0
    raise_if(wrapped, functools.partial(_raise_int_overflow, where), wrapped)


int_add_overflow_check._a2g_effect = True  # type: ignore[attr-defined]
int_add_overflow_check._a2g_check = True  # type: ignore[attr-defined]
int_add_overflow_check._a2g_raises = (IntRangeError,)  # type: ignore[attr-defined]


def int_floordiv_overflow_check(a: Any, b: Any, where: str) -> None:
    """At run time: ``IntRangeError`` where ``a // b`` of Python ints is
    ``-2**63 // -1``: eager's int is 2**63, the graph's int64 division wraps
    to -2**63 (the only quotient beyond int64)."""

    a, b = (jnp.asarray(v, jnp.int64) for v in (a, b))
    wrapped = (a == jnp.iinfo(jnp.int64).min) & (b == -1)
    raise_if(wrapped, functools.partial(_raise_int_overflow, where), wrapped)


int_floordiv_overflow_check._a2g_effect = True  # type: ignore[attr-defined]
int_floordiv_overflow_check._a2g_check = True  # type: ignore[attr-defined]
int_floordiv_overflow_check._a2g_raises = (IntRangeError,)  # type: ignore[attr-defined]


def _raise_int_overflow(where: str, mask: Any, _: Any) -> None:
    if np.any(np.asarray(mask)):
            raise IntRangeError(f"a Python int computed at {where} is beyond int64: eager Python's int holds it exactly, "
                            "the graph's int64 cannot; keep the value an array, or run this function eagerly")


def _raise_index_range(message: str, mask: Any, i: Any) -> None:
    if np.any(np.asarray(mask)):
        raise IndexError(message)


def pick_item(i: Any, *items: Any) -> Any:
    """``items[i]`` for a traced index (checked before to be in range; a
    negative one counts from the end), the items all of one type."""
    i = _wide_index(i)
    return jnp.stack(items)[jnp.where(i < 0, i + len(items), i)]


def _wide_index(i: Any) -> Any:
    """A traced list index of a narrow integer dtype as int32 (exact), so
    that ``i + len(items)`` neither wraps nor overflows the bound."""
    i = jnp.asarray(i)
    return i.astype(jnp.int32) if i.dtype.itemsize < 4 else i


pick_item._a2g_typed = True  # type: ignore[attr-defined]


def put_item(i: Any, new: Any, *items: Any) -> tuple:
    """The items after ``items[i] = new`` for a traced index (checked before):
    each one ``new`` where it is the one indexed, itself otherwise."""
    i = _wide_index(i)
    i = jnp.where(i < 0, i + len(items), i)
    return tuple(lax.select(i == k, new, item) for k, item in enumerate(items))


put_item._a2g_typed = True  # type: ignore[attr-defined]


def logical_not(x: Any) -> Any:
    return jnp.logical_not(truthy(x))


def logical_and(x: Any, y: Any) -> Any:
    """Both conditions hold (the truth of each, as ``if`` takes it)."""
    return jnp.logical_and(truthy(x), truthy(y))


def select(pred: Any, a: Any, b: Any) -> Any:
    """``a if pred else b`` on arrays of one type (both already computed)."""
    return lax.select(pred, a, b)


def trip_count(start: Any, stop: Any, step: Any) -> Any:
    """``len(range(start, stop, step))`` for traced bounds (a zero traced
    step is checked before: it counts as 1 here)."""
    start, stop = jnp.asarray(start), jnp.asarray(stop)
    if not isinstance(step, (int, np.integer)):
        step = jnp.asarray(step)
        step = jnp.where(step == 0, 1, step)
        n = jnp.where(step > 0, (stop - start + step - 1) // step, (start - stop - step - 1) // (-step))
    elif step > 0:
        n = (stop - start + step - 1) // step
    else:
        n = (start - stop - step - 1) // (-step)
    return jnp.maximum(n, 0).astype(jnp.int64)   # the graph runs with x64 (its loop index is a Python int)


def range_value(start: Any, k: Any, step: Any) -> Any:
    return start + k * step


@functools.lru_cache(maxsize=None)
def method_caller(name: str):
    """``x.name(*args, **kwargs)`` as a named function for the IR."""

    def call(self, *args, **kwargs):
        out = getattr(self, name)(*args, **kwargs)
        return opaque_mask(self, out) if name == "astype" else out

    call.__name__ = call.__qualname__ = f".{name}"
    return call


def _is_bool(x: Any) -> bool:
    return np.dtype(getattr(x, "dtype", np.float32)) == np.dtype(bool) and not isinstance(x, bool)


def opaque_mask(src: Any, out: Any) -> Any:
    """A bool array converted to a float or complex one by ``astype``, hidden
    from XLA's simplifier: it rewrites ``convert(mask) * x`` into
    ``select(mask, x, 0)``, which gives 0 where eager's product of 0.0 and an
    inf or NaN (a separate op after the conversion) is NaN. (``mask * x`` is
    one op in eager too, ``jnp.multiply``, which XLA rewrites alike: left as it is.)"""
    if _is_bool(src) and isinstance(out, jax.Array) and jnp.issubdtype(out.dtype, jnp.inexact):
        return lax.optimization_barrier(out)
    return out




def mask_product(left: Any, right: Any) -> Any:
    """``mask * x`` of NumPy arrays or Python numbers as eager multiplies: the
    bool operand converted, then hidden from XLA's simplifier (see
    ``opaque_mask``), which would make the product ``select(mask, x, 0)``: 0
    where eager's 0.0 * inf is NaN and 0.0 * -1.0 is -0.0."""
    dtype = jnp.result_type(left, right)

    def operand(v: Any) -> Any:
        return lax.optimization_barrier(jnp.asarray(v).astype(dtype)) if _is_bool(v) else v
    return operand(left) * operand(right)


@functools.lru_cache(maxsize=None)
def at_updater(name: str):
    """``x.at[idx].name(*args, **kwargs)`` as a named function for the IR."""

    def update(x, idx, *args, **kwargs):
        if name in _MASKED and len(args) == 1 and not kwargs and traced_slice(idx):
            return masked_update(x, idx, name, args[0])
        return getattr(x.at[_unspec(idx)], name)(*args, **kwargs)

    update.__name__ = update.__qualname__ = f".at[].{name}"
    return update


_MASKED = {"set": lambda x, v: jnp.broadcast_to(v, x.shape), "add": jnp.add, "multiply": jnp.multiply,
           "mul": jnp.multiply, "min": jnp.minimum, "max": jnp.maximum}


class ShapeDependsOnTracedBound(jax.errors.JAXTypeError):
    """A slice with a traced bound where the result's shape depends on it
    (a read ``x[:n]``, an update that broadcasts along the slice): the
    statement needs the bound's value and runs in Python."""


def traced_slice(idx: Any) -> bool:
    """An index with a slice whose bound is traced (``x.at[:n]``, ``x[i, :n]``)."""
    parts = idx if type(idx) is tuple else (idx,)
    return any(isinstance(p, SliceSpec) and any(isinstance(b, jax.core.Tracer) for b in (p.start, p.stop, p.step))
               for p in parts)


def masked_update(x: Any, idx: Any, name: str, v: Any) -> Any:
    """``x.at[idx].name(v)`` where a slice of ``idx`` has a traced bound: the
    indexed positions as a mask over ``x`` (a fixed shape whatever the bound),
    ``v`` broadcast over ``x``, then ``where(mask, update, x)``. Only where
    ``v`` broadcasts to the indexed part whatever its length (size 1 or absent
    along every axis a slice indexes partially): eager's own broadcast
    otherwise depends on the bound, and this raises (the statement runs in
    Python)."""
    parts = list(idx if type(idx) is tuple else (idx,))
    if any(p is None or p is Ellipsis or isinstance(p, bool) for p in parts) or len(parts) > x.ndim:
        raise ShapeDependsOnTracedBound("an index with None, Ellipsis or too many parts and a traced slice bound")
    parts += [slice(None)] * (x.ndim - len(parts))
    v = jnp.asarray(v)
    kept = [k for k, p in enumerate(parts) if isinstance(p, (slice, SliceSpec))]   # the axes of the indexed part
    if v.ndim > len(kept):
        raise ShapeDependsOnTracedBound("an update of more dimensions than the indexed part")
    shape = [1] * x.ndim
    for k, d in zip(kept[len(kept) - v.ndim:], v.shape):
        p = parts[k]
        if d != 1 and not (isinstance(p, slice) and p == slice(None) and d == x.shape[k]):
            raise ShapeDependsOnTracedBound("an update whose broadcast to a slice with a traced bound depends on the bound")
        shape[k] = d
    v = jnp.reshape(v, shape).astype(x.dtype)   # a scatter converts its updates to x's dtype first
    mask = jnp.ones((), bool)
    for k, p in enumerate(parts):
        axis = jnp.reshape(jnp.arange(x.shape[k]), [-1 if j == k else 1 for j in range(x.ndim)])
        mask = mask & _axis_mask(axis, x.shape[k], p)
    return jnp.where(mask, _MASKED[name](x, v).astype(x.dtype), x)


def _axis_mask(k: Any, d: int, p: Any) -> Any:
    """Where along an axis of length ``d`` (positions ``k``) index part ``p`` selects."""
    if not isinstance(p, (slice, SliceSpec)):   # an integer (negative from the end; out of range selects nothing)
        i = jnp.asarray(p)
        return k == jnp.where(i < 0, i + d, i)
    step = 1 if p.step is None else p.step
    if isinstance(step, jax.core.Tracer) or not isinstance(step, (int, np.integer)) or step == 0:
        raise ShapeDependsOnTracedBound("a slice with a traced or zero step")

    def bound(b: Any, default: int, low: int, high: int) -> Any:
        if b is None:
            return default
        b = jnp.asarray(b)
        return jnp.clip(jnp.where(b < 0, b + d, b), low, high)

    if step > 0:
        start, stop = bound(p.start, 0, 0, d), bound(p.stop, d, 0, d)
        return (k >= start) & (k < stop) & ((k - start) % step == 0)
    start, stop = bound(p.start, d - 1, -1, d - 1), bound(p.stop, -1, -1, d - 1)
    return (k <= start) & (k > stop) & ((start - k) % (-step) == 0)


def attribute(x: Any, name: str) -> Any:
    return getattr(x, name)


STATIC_ARRAY_ATTRS = {"shape", "dtype", "ndim", "size"}
# A NumPy array's memory layout: eager's answer depends on how the array was
# made (C or Fortran order, a view's base and strides), which the graph does
# not model (SciPy's LAPACK wrappers read them to pick a routine).
LAYOUT_ATTRS = frozenset({"flags", "strides", "base", "data", "ctypes", "__array_interface__"})


class KnownFlags:
    """``x.flags`` of a NumPy array whose writeability the trace knows (a new
    array this segment made, one read-only in eager): a stand-in that answers
    ``.writeable``, and the layout fields (``c_contiguous``, ``fortran``,
    ``flags["F_CONTIGUOUS"]``, ...) where ``contiguous`` gives eager's C and
    F contiguity (``(c, f)``; None: the layout is not known)."""

    __slots__ = ("array", "writeable", "contiguous")

    def __init__(self, array: Any, writeable: bool, contiguous: tuple[bool, bool] | None = None):
        self.array, self.writeable, self.contiguous = array, writeable, contiguous

    def answer(self, name: str) -> bool | None:
        """``flags.name`` (an attribute name) or ``flags[name]`` (a key), as
        NumPy answers it; None where the trace does not know it."""
        if name in ("writeable", "WRITEABLE", "W"):
            return self.writeable
        field = FLAG_FIELDS.get(name)
        if field is None or self.contiguous is None:
            return None
        c, f = self.contiguous
        return {"c": c, "f": f, "fnc": f and not c, "forc": f or c, "aligned": True}[field]


# ``ndarray.flags`` fields of the memory layout, by attribute name and by key
# (NumPy's ``flagsobj``): ``fortran`` and ``flags["FORTRAN"]`` are F-contiguity,
# ``contiguous`` C-contiguity, ``fnc`` F and not C, ``forc`` F or C.
FLAG_FIELDS = {"c_contiguous": "c", "contiguous": "c", "C_CONTIGUOUS": "c", "C": "c", "CONTIGUOUS": "c",
               "f_contiguous": "f", "fortran": "f", "F_CONTIGUOUS": "f", "F": "f", "FORTRAN": "f",
               "fnc": "fnc", "FNC": "fnc", "forc": "forc", "FORC": "forc",
               "aligned": "aligned", "ALIGNED": "aligned", "A": "aligned"}


def allocated_contiguity(shape: tuple) -> tuple[bool, bool] | None:
    """(C, F) contiguity of an array NumPy allocated whole (a ufunc's result,
    ``np.zeros``): contiguous in some axis order, so both C and F contiguous
    where at most one axis is longer than 1 (or it is empty); None where the
    order is not known (a 2-D result's order follows its operands')."""
    if int(np.prod(shape)) == 0 or sum(n > 1 for n in shape) <= 1:
        return (True, True)
    return None
# Methods whose result is a Python object made from the values (a list of
# numbers, bytes): eager needs them on the host.
HOST_METHODS = frozenset({"tolist", "tobytes"})


@dataclass
class ArrayMethod:
    """``x.name`` for a method of a traced array, before it is called."""

    value: Value
    name: str


@dataclass
class AtHelper:
    """``x.at`` of a traced array."""

    value: Value


@dataclass
class AtIndexed:
    """``x.at[idx]`` of a traced array."""

    value: Value
    index: Any


@dataclass
class AtMethod:
    value: Value
    index: Any
    name: str


@dataclass
class TracedRange:
    """``range(start, stop, step)`` with a traced bound (only iterable by a loop)."""

    start: Any
    stop: Any
    step: Any   # a static int, or a traced Python int (checked non-zero)


@dataclass
class TracedZip:
    """``zip(a, b, ..)`` or ``enumerate(a, start)`` where some part is a
    ``TracedRange`` (only iterable by a loop, rolled: ``exec_For``). ``parts``:
    ``TracedRange``, static ``range``, jax array (its rows) or ``TracedZip``
    items; ``counter``: enumerate's start (its items are ``(counter + k, part
    item)``), or None for zip (its items are tuples of the parts' items).
    The trip count is the shortest part's, as eager's zip stops there."""

    parts: tuple
    counter: Any = None


def min_count(*counts: Any) -> Any:
    """The trip count of a zip: the least of its parts' (int64, as a loop index)."""
    return functools.reduce(jnp.minimum, [jnp.asarray(c, jnp.int64) for c in counts])


OPERATORS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul,
    "Div": operator.truediv, "FloorDiv": operator.floordiv, "Mod": operator.mod,
    "Pow": operator.pow, "MatMult": operator.matmul, "LShift": operator.lshift,
    "RShift": operator.rshift, "BitOr": operator.or_, "BitXor": operator.xor,
    "BitAnd": operator.and_,
}

INPLACE_OPERATORS = {
    "Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul,
    "Div": operator.itruediv, "FloorDiv": operator.ifloordiv, "Mod": operator.imod,
    "Pow": operator.ipow, "MatMult": operator.imatmul, "LShift": operator.ilshift,
    "RShift": operator.irshift, "BitOr": operator.ior, "BitXor": operator.ixor,
    "BitAnd": operator.iand,
}

UNARY = {"USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert}

def contained_in(a: Any, b: Any) -> bool:
    """``a in b``; what ``b.__contains__`` raises is eager's (``"k" in None``
    raises TypeError in the user's code, not in ast2graph's)."""
    try:
        return operator.contains(b, a)
    except Exception as e:
        e._a2g_eager = True  # type: ignore[attr-defined]
        raise


def not_contained_in(a: Any, b: Any) -> bool:
    """``a not in b`` (``contained_in``)."""
    return not contained_in(a, b)


COMPARE = {
    "Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le,
    "Gt": operator.gt, "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
    "In": contained_in, "NotIn": not_contained_in,
}


_DTYPES = {
    "f16": "float16", "bf16": "bfloat16", "f32": "float32", "f64": "float64",
    "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u32": "uint32", "bool": "bool", "c64": "complex64", "c128": "complex128",
}
_ANNOTATION = __import__("re").compile(r"#\s*ast2graph:\s*returns\s+(.+?)\s*$")
_TYPE = __import__("re").compile(r"(\w+)\[([\d,\s]*)\]")


def parse_returns_annotation(line: str) -> list | None:
    """``# ast2graph: returns f32[3]`` (or several, comma-separated) on a source line."""
    match = _ANNOTATION.search(line)
    if not match:
        return None
    types = []
    for name, dims in _TYPE.findall(match.group(1)):
        if name not in _DTYPES:
            return None
        shape = tuple(int(d) for d in dims.replace(" ", "").split(",") if d)
        types.append(jax.ShapeDtypeStruct(shape, _DTYPES[name]))
    return types or None


def declared_results(out: Any, single: bool, result_types: tuple, name: Any) -> tuple:
    """The results of a host call the user declared (``# ast2graph: returns
    f32[3]``), checked against the declaration: each a NumPy array (a NumPy
    scalar where 0-d) of exactly the declared dtype and shape, several in a
    tuple, which is the kind the graph hands back (eager's own object would
    otherwise differ from it: a jax.Array, a float64 array cast to float32).
    Anything else raises a ``TypeError`` naming the declaration, never a
    silent cast."""
    outs = (out,) if single else out
    if not single and (type(out) is not tuple or len(out) != len(result_types)):
        raise TypeError(f"{name} returned {type(out).__name__} where its `# ast2graph: returns` declares a tuple "
                        f"of {len(result_types)} NumPy arrays")
    for o, t in zip(outs, result_types):
        kind = np.ndarray if t.shape else np.generic
        if not isinstance(o, kind) or o.dtype != t.dtype or o.shape != t.shape:
            got = f"{type(o).__name__} {getattr(o, 'dtype', '')}{list(getattr(o, 'shape', ()))}"
            want = f"a NumPy {'array' if t.shape else 'scalar'} {np.dtype(t.dtype)}{list(t.shape)}"
            raise TypeError(f"{name} returned {got} where its `# ast2graph: returns` declares {want} (the graph "
                            "hands back what the declaration says: return exactly that, np.asarray(..., dtype))")
    return tuple(np.asarray(o) for o in outs)


@functools.lru_cache(maxsize=None)
def host_function(fn: Any, single: bool, kinds: tuple = (), may_raise: bool = False, exact: bool = False):
    """``fn`` run on the host by ``jax.pure_callback`` with declared result
    types; its array arguments are of eager's kinds (``kinds``, as for ``host_effect``).
    ``may_raise``: ``fn`` is the user's and may raise any exception on some
    data, which leaves the graph after the call: a run-time check of no known
    class (``Specializer._check_site``: refused inside any handler or manager,
    kept in Python after a write of state). ``exact``: the result types are
    the user's declaration, checked on every call (``declared_results``)."""

    def call(result_types, *args, **kwargs):
        leaves, treedef = tree_flatten((args, kwargs))   # a printed dict in insertion order
        positions = [i for i, x in enumerate(leaves) if isinstance(x, jax.Array)]

        def callback(*arrays_in):
            filled = list(leaves)
            for n, (i, a) in enumerate(zip(positions, arrays_in)):
                filled[i] = to_eager_kind(a, kinds[n] if n < len(kinds) else "jax")
            a, k = jax.tree_util.tree_unflatten(treedef, filled)
            out = fn(*a, **k)
            if not exact:
                outs = (out,) if single else tuple(out)
                return tuple(np.asarray(o, dtype=t.dtype).reshape(t.shape) for o, t in zip(outs, result_types))
            return declared_results(out, single, result_types, getattr(fn, "__qualname__", fn))

        outs = pure_host_call(_guarded(callback), tuple(result_types), *[leaves[i] for i in positions])
        return outs[0] if single else tuple(outs)

    call.__name__ = call.__qualname__ = f"host[{getattr(fn, '__qualname__', fn)}]"
    call._a2g_typed = True  # type: ignore[attr-defined]  # its result types are the declared ones
    call._a2g_host = True  # type: ignore[attr-defined]  # may raise on the host (``tracebacks.at_site``)
    if may_raise:
        call._a2g_check = True  # type: ignore[attr-defined]
        call._a2g_raises = (None,)  # type: ignore[attr-defined]
    return call


class DataDependentWrite(jax.errors.JAXTypeError):
    """``x[mask] = values`` with an array of values: which value goes where
    depends on the data (how many elements the mask selects): the statement
    needs the mask's value and runs in Python (not an internal error)."""


def np_setitem(x: Any, idx: Any, v: Any) -> Any:
    """``x[idx] = v`` on a NumPy array, as a functional update (same dtype as ``x``)."""
    index = _unspec(idx)
    if is_double_to_half(v, x.dtype):   # float64 values into a float16 array: rounded once, as NumPy
        v = half_from_double(v)
    elif isinstance(v, jax.Array) and v.dtype != x.dtype and v.dtype.kind in "biuf" and x.dtype.kind in "biuf":
        v = v.astype(x.dtype)   # the scatter's own conversion, made here: no JAX FutureWarning eager does not issue
    if hasattr(index, "dtype") and index.dtype == jnp.bool_ and index.ndim == x.ndim:
        if jnp.ndim(v) and jnp.size(v) != 1:
            raise DataDependentWrite("a boolean-mask write with an array of values has a data-dependent shape")
        return jnp.where(index, jnp.reshape(v, ()) if jnp.ndim(v) else v, x).astype(x.dtype)
    if hasattr(index, "dtype") and index.dtype == jnp.bool_ and index.ndim == 0:
        # ``ranks[i_nan] = nan`` with a 0-d mask: NumPy's x[True] is x[None] (every element), x[False] none
        target = (1, *x.shape)
        if jnp.broadcast_shapes(jnp.shape(v), target) != target:
            raise DataDependentWrite("a 0-d boolean-mask write whose values do not broadcast to the array")
        values = jnp.broadcast_to(v, target)[0]
        return jnp.where(index, values, x).astype(x.dtype)
    if traced_slice(idx):
        return masked_update(x, idx, "set", v)
    return x.at[index].set(v)


np_setitem.__name__ = np_setitem.__qualname__ = "setitem"
