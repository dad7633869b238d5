"""The graph IR: typed SSA values, one class per op, regions for control flow.

Requires: nothing but numpy/jax for dtypes.
Produces: ``Value``, ``ArrayType``, the op classes, ``Region`` and ``Graph``.
Invariants (checked by ``ir.verify``):
  * every ``Value`` is defined once, by a graph parameter, a region argument or
    one op result, before any use, in the same region or an enclosing one;
  * every region ends by yielding values whose types equal what its op expects
    (``IfOp`` results, ``WhileOp``/``ForOp``/``ScanOp`` carried values);
  * values are compared by identity; names (``%3``) are given by the printer;
  * a ``WhileOp``/``ForOp`` with ``max_iters`` has ``max_iters >= 1``; a
    ``ForOp``'s ``done`` names a carried scalar bool.

The IR is what ``typeinfer`` produces for one call signature: Python values
known at trace time are already folded away, so only array work remains.
Regions may read values of enclosing regions (like MLIR regions that are not
isolated from above); the lowering passes them by closure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..diagnostics import UNKNOWN_LOC, Loc
from .tracertext import StandinSeen, standin_text  # noqa: F401 (StandinSeen: named through here)

_SHORT_DTYPES = {
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "bool": "bool", "complex64": "c64", "complex128": "c128",
}


def as_dtype(dtype: Any) -> Any:
    """``np.dtype(dtype)``, or JAX's own dtype object for an extended dtype
    (a typed PRNG key array's ``key<fry>``), which NumPy cannot represent."""
    try:
        return np.dtype(dtype)
    except TypeError:
        import jax

        if jax.dtypes.issubdtype(dtype, jax.dtypes.extended):
            return dtype
        raise


def is_extended(dtype: Any) -> bool:
    """A JAX extended dtype (PRNG keys): no NumPy kind, no promotion table;
    its ops are typed by JAX's abstract evaluation, never by our rules."""
    return not isinstance(dtype, np.dtype)


_PYTHON_KIND, _NUMPY_KIND, _JAX_KIND = frozenset({"python"}), frozenset({"numpy"}), frozenset({"jax"})
_ARRAY0_KIND = frozenset({"array0"})


@dataclass(frozen=True)
class ArrayType:
    """Shape, dtype and JAX weak-typedness of an array value. ``dtype`` is a
    ``np.dtype`` or, for an extended dtype (``jax.random.key``'s
    ``key<fry>``), JAX's dtype object (``is_extended``)."""

    shape: tuple[int, ...]
    dtype: np.dtype
    weak_type: bool = False
    # The eager value is a (mutable) NumPy ndarray, not a jax.Array: in-place
    # writes are allowed (lowered to functional updates) and the segment hands
    # it back as an ndarray. Not part of type equality: the graph is the same.
    numpy: bool = field(default=False, compare=False)
    # The eager value is a Python number (bool, int, float or complex by the
    # dtype's kind): a loop counter, a flag, a traced scalar argument. A segment
    # hands it back as that Python number. Not part of type equality either.
    python: bool = field(default=False, compare=False)
    # The kinds the eager value may have when it depends on the path taken (a
    # Python number on one branch, a jax.Array on the other): then ``numpy``
    # and ``python`` are False and this holds two or more of "numpy",
    # "python", "jax" and "python?" (a Python number whose type, bool, int or
    # float, is not the dtype's on every path). Such a value can be computed
    # with (``x + y`` is a jax.Array either way) but not observed
    # (``isinstance``, printing, an in-place write, a segment's output). Not
    # part of type equality either.
    mixed: frozenset = field(default=frozenset(), compare=False)
    # A 0-d value of NumPy kind that is a 0-d ``ndarray`` in eager (``np.cov``
    # of a vector, ``np.asarray(2.0)``, a 0-d array argument), not a NumPy
    # scalar (``np.sum(x)``, ``a[i]``): its kind is "array0" (``numpy`` is True
    # too: NumPy's rules apply). A segment hands it back as a 0-d ndarray.
    array0: bool = field(default=False, compare=False)

    @staticmethod
    def of(x: Any) -> "ArrayType":
        """The type of an array, tracer or ``jax.ShapeDtypeStruct``."""
        return ArrayType(tuple(x.shape), as_dtype(x.dtype), bool(getattr(x, "weak_type", False)))

    @property
    def kinds(self) -> frozenset:
        """The kinds of object eager may have: {"numpy"}, {"array0"}, {"python"}, {"jax"} or several."""
        if self.mixed:
            return self.mixed
        if self.array0:
            return _ARRAY0_KIND
        return _PYTHON_KIND if self.python else _NUMPY_KIND if self.numpy else _JAX_KIND

    def with_kinds(self, kinds: Any) -> "ArrayType":
        """This type with eager kinds ``kinds`` (one: determinate; several: mixed)."""
        from dataclasses import replace

        kinds = frozenset(kinds)
        if len(kinds) == 1:
            (kind,) = kinds
            return replace(self, numpy=kind in ("numpy", "array0"), python=kind == "python", mixed=frozenset(),
                           array0=kind == "array0")
        return replace(self, numpy=False, python=False, mixed=kinds, array0=False)

    def to_sds(self) -> Any:
        import jax

        return jax.ShapeDtypeStruct(self.shape, self.dtype, weak_type=self.weak_type)

    def __str__(self) -> str:
        name = _SHORT_DTYPES.get(self.dtype.name, self.dtype.name)   # extended dtypes: their own name (key<fry>)
        dims = ",".join(str(d) for d in self.shape)
        mixed = "{" + "|".join(sorted(self.mixed)) + "}" if self.mixed else ""
        return f"{name}[{dims}]" + ("~" if self.weak_type else "") + ("np0" if self.array0 else "np" if self.numpy else "") + ("py" if self.python else "") + mixed


class Value:
    """An SSA value of the graph: an array with a static type."""

    __slots__ = ("type", "hint", "__weakref__")

    def __init__(self, type: ArrayType, hint: str = ""):
        self.type = type
        self.hint = hint

    def __repr__(self) -> str:
        return standin_text(self, None)

    def debug_text(self) -> str:
        return f"<Value {self.hint or hex(id(self))}: {self.type}>"

    # A Value must never be used as a Python truth value or operand by
    # accident: the interpreter dispatches on it explicitly. Python code run
    # at trace time that meets one anyway (a lazy ``filter`` calling a local
    # function, a library formatting it) gets ``StandinSeen``: the site falls
    # back, never with ast2graph's object in eager's place.
    def __bool__(self) -> bool:
        raise StandinSeen("the truth value of a traced array is needed at trace time")

    def __format__(self, spec: str) -> str:
        return standin_text(self, spec)

    def __str__(self) -> str:
        return standin_text(self, "")

    def _operand(self, *_: Any) -> Any:
        raise StandinSeen("a traced array is an operand of Python code run at trace time")

    # Operators and conversions (``max(objs)`` calling a user's ``__lt__`` on
    # graph values, ``float(v)`` in a library): without them Python raises a
    # plain TypeError, which would pass for an exception eager raises.
    __lt__ = __le__ = __gt__ = __ge__ = _operand
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _operand
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _operand
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __divmod__ = __rdivmod__ = _operand
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _operand
    __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _operand
    __neg__ = __pos__ = __abs__ = __invert__ = __round__ = _operand
    __int__ = __float__ = __complex__ = __index__ = _operand


class KindedValue(Value):
    """A value whose eager kind depends on the path taken (a Python float on
    one path, a jax.Array on another): ``variants`` holds one value per kind
    it may have, each of that kind's exact type (a Python float as float64,
    the jax.Array as float32), and ``tag``, a traced int32 scalar, says which
    one holds eager's value on this call (the others hold zeros). ``keys``
    names the variants' kinds (``typeinfer.pathkinds.kind_class``), in order.

    It is never an operand of an op, a region's yield or a graph output: ops
    on it are computed per variant (``pathkinds``), joins and loops carry its
    tag and variants (it is a pytree node of them), and a segment hands back
    the object of eager's kind, picked by the tag on the host (``tree_unflatten``
    of concrete children). Its own ``type`` (the first variant's, with
    ``mixed`` naming every kind) is what code unaware of it sees: a value of
    path-dependent kind, which it does not observe."""

    __slots__ = ("tag", "variants", "keys")

    def __init__(self, tag: Any, variants: Any, keys: tuple):
        # (None's and a constant's variants are placeholders: typeinfer.pathkinds.placeholder_key)
        types = [v.type for k, v in zip(keys, variants) if k != "none" and not k.startswith(("const:", "tree:"))] \
            or [variants[0].type]
        kinds = frozenset(k.split(":")[0] for k in keys)
        if len({k for k in keys if k.startswith("python")}) > 1:
            kinds |= {"python?"}
        super().__init__(ArrayType(types[0].shape, types[0].dtype, False, mixed=kinds))
        self.tag, self.variants, self.keys = tag, tuple(variants), tuple(keys)


class TreeVariant(Value):
    """A variant of a ``KindedValue`` that is a tuple of values on its
    paths (``None`` on one path, ``(loss, w)`` on another): ``tree`` is that
    tuple (graph values, static numbers, None, nested tuples). A pytree node
    of the tree's leaves; its own ``type`` is a placeholder (a bool scalar)
    that nothing computes with."""

    __slots__ = ("tree",)

    def __init__(self, tree: Any):
        super().__init__(ArrayType((), np.dtype(bool)))
        self.tree = tree


@dataclass(eq=False)
class Region:
    """A single-block region: arguments, ops, and the values it yields."""

    args: list[Value] = field(default_factory=list)
    ops: list["Op"] = field(default_factory=list)
    yields: list[Value] = field(default_factory=list)


@dataclass(eq=False)
class Op:
    """Base class. ``results`` are the values the op defines."""

    results: list[Value]
    loc: Loc

    def operands(self) -> list[Value]:
        return []

    def regions(self) -> list[Region]:
        return []


@dataclass(eq=False)
class CallOp(Op):
    """``fn(*args, **kwargs)`` where ``fn`` is a static callable.

    ``leaves`` is the flattened ``(args, kwargs)`` pytree (``treedef``): each
    leaf is a ``Value`` or a static Python object. Reference semantics::

        args, kwargs = tree_unflatten(treedef, leaves)
        results = array leaves of fn(*args, **kwargs)
    """

    fn: Callable[..., Any] = None  # type: ignore[assignment]
    treedef: Any = None
    leaves: list[Any] = field(default_factory=list)
    name: str = ""
    # Eager runs ``fn`` as a JAX op with x64 off (a jnp/lax call, an operator
    # on a jax.Array): in a graph that runs with x64 on it runs on its
    # operands narrowed to 32 bits, with x64 off (lowering), as eager does.
    x32: bool = False
    # an op that runs a host callback, which may raise: the user's statement
    # (``tracebacks.PendingSite``), which the exception is raised from
    site: Any = None

    def operands(self) -> list[Value]:
        return [x for x in self.leaves if isinstance(x, Value)]


@dataclass(eq=False)
class ConstOp(Op):
    """An array constant (a literal folded at trace time)."""

    value: Any = None


@dataclass(eq=False)
class IfOp(Op):
    """``results = then() if pred else orelse()`` on a traced scalar bool."""

    pred: Value = None  # type: ignore[assignment]
    then_region: Region = field(default_factory=Region)
    else_region: Region = field(default_factory=Region)

    def operands(self) -> list[Value]:
        return [self.pred]

    def regions(self) -> list[Region]:
        return [self.then_region, self.else_region]


@dataclass(eq=False)
class SwitchOp(Op):
    """``results = branches[clamp(index)]()``: an ``if``/``elif`` chain."""

    index: Value = None  # type: ignore[assignment]
    branches: list[Region] = field(default_factory=list)

    def operands(self) -> list[Value]:
        return [self.index]

    def regions(self) -> list[Region]:
        return list(self.branches)


@dataclass(eq=False)
class WhileOp(Op):
    """Reference semantics::

        carried = init
        while cond(*carried): carried = body(*carried)
        results = carried

    ``max_iters=N`` (``to_static(max_iters=N)``): at most N iterations, a
    ``lax.scan`` of N guarded steps (reverse-differentiable); if ``cond`` still
    holds after N iterations the call raises ``LoopBoundError``.
    """

    init: list[Value] = field(default_factory=list)
    cond: Region = field(default_factory=Region)
    body: Region = field(default_factory=Region)
    max_iters: int | None = None

    def operands(self) -> list[Value]:
        return list(self.init)

    def regions(self) -> list[Region]:
        return [self.cond, self.body]


@dataclass(eq=False)
class ForOp(Op):
    """Reference semantics (``lower``/``upper`` are Values or ints)::

        carried = init
        for i in range(lower, upper): carried = body(i, *carried)
        results = carried

    ``max_iters=N``: at most N iterations, a ``lax.scan`` of N guarded steps
    (reverse-differentiable); if iterations remain after N the call raises
    ``LoopBoundError``, unless ``carried[done]`` (the loop's break flag, a
    scalar bool, when ``done`` is not None) is true: the loop has exited.
    """

    lower: Any = 0
    upper: Any = 0
    init: list[Value] = field(default_factory=list)
    body: Region = field(default_factory=Region)
    max_iters: int | None = None
    done: int | None = None

    def operands(self) -> list[Value]:
        bounds = [b for b in (self.lower, self.upper) if isinstance(b, Value)]
        return bounds + list(self.init)

    def regions(self) -> list[Region]:
        return [self.body]


@dataclass(eq=False)
class ScanOp(Op):
    """Reference semantics::

        carried = init
        for row in xs: carried = body(*carried, row)
        results = carried
    """

    xs: Value = None  # type: ignore[assignment]
    init: list[Value] = field(default_factory=list)
    body: Region = field(default_factory=Region)

    def operands(self) -> list[Value]:
        return [self.xs, *self.init]

    def regions(self) -> list[Region]:
        return [self.body]


@dataclass(eq=False)
class Graph:
    """One compiled segment: parameters, a body region, and its outputs.

    ``param_names`` say where each parameter comes from (an argument path or
    a captured attribute/global) for the printer and for ``explain``.
    """

    name: str
    params: list[Value]
    param_names: list[str]
    body: Region
    loc: Loc = UNKNOWN_LOC

    @property
    def outputs(self) -> list[Value]:
        return self.body.yields


def bounded(op: Op) -> bool:
    """A loop of at most ``max_iters`` iterations (its lowering checks the bound)."""
    return getattr(op, "max_iters", None) is not None


def walk_ops(region: Region):
    """Every op of a region, nested regions included, in program order."""
    for op in region.ops:
        yield op
        for sub in op.regions():
            yield from walk_ops(sub)
