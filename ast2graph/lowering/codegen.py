"""Lowering: the graph IR becomes the source of a Python function of JAX calls.

Requires: a verified ``Graph`` from ``typeinfer``.
Produces: ``Lowered``: the generated source text (readable: what
``explain(f).lowered_source`` shows), the function compiled from it, and the
constant table it reads. ``lower_graph`` does not call ``jax.jit``; the caller
does, so that the same function can be inspected, jitted or traced.
Invariants: one op becomes one statement (regions become nested functions
passed to ``lax.cond``/``lax.switch``/``lax.while_loop``/``lax.fori_loop``/
``lax.scan``); the generated code has no Python control flow on arrays.
The generated text holds only names ast2graph made (``v3``, ``k0``,
``body_4``), keyword names that are plain identifiers, ``repr``s of exact
``bool``/``int``/``float``/``str`` values, and comments with no line break
(``_comment_text``): nothing the user controls (a ``__qualname__``, a
keyword given through ``**``, a ``str`` subclass's ``__repr__``) can add a
statement to it. Every other value is a constant of the namespace (``k0``).

Lowering rules, with the eager Python each one must equal:

* ``IfOp``   ``r = then() if pred else orelse()``   → ``lax.cond``
* ``SwitchOp`` ``r = branches[i]()``                 → ``lax.switch``
* ``WhileOp`` ``c = init; while cond(*c): c = body(*c)`` → ``lax.while_loop``
* ``ForOp``  ``for i in range(lo, hi): c = body(i, *c)`` → ``lax.fori_loop``
* ``ScanOp`` ``for row in xs: c = body(*c, row)``     → ``lax.scan``
* ``WhileOp``/``ForOp`` with ``max_iters=N``: the same loop, at most N
  iterations, else ``LoopBoundError`` → ``lax.scan`` of N steps, each under
  ``lax.cond`` of the loop condition (reverse-differentiable; ``bounded``)
"""

from __future__ import annotations

import keyword
import operator
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Callable

import jax
import numpy as np
from jax import lax

from ..ir.core import (CallOp, ConstOp, ForOp, Graph, IfOp, Op, Region, ScanOp, is_extended,
                       SwitchOp, Value, WhileOp, bounded, walk_ops)
from ..resolver import qualified_name
from ..tracebacks import at_site
from ..graphlib.casts import NARROW as _NARROW, cast as _convert_element_type, opaque, unfused
from ..graphlib.trees import tree_flatten
from ..graphlib.bounded import (bounded_fori, bounded_while, case_taken, checks_direct, checks_drop,
                                checks_flush, checks_open, forward_only, under)

_LOWERINGS: dict[type, Callable[["_Emitter", Any, str], None]] = {}


def register_lowering(op_type: type) -> Callable:
    """Register the emitter of one op class (a rule table, not an if-chain)."""

    def deco(fn: Callable) -> Callable:
        _LOWERINGS[op_type] = fn
        return fn

    return deco


@dataclass
class Lowered:
    source: str
    fn: Callable[..., Any]
    consts: list[Any] = field(default_factory=list)
    # the graph holds 64-bit values: trace and call it under ``jax.enable_x64(True)``
    x64: bool = False


class _Emitter:
    def __init__(self, x64: bool = False) -> None:
        self.x64 = x64
        self.lines: list[str] = []
        self.names: dict[int, str] = {}
        self.consts: list[Any] = []
        self.const_ids: dict[int, str] = {}
        self.counter = 0
        self.fixed: set[int] = set()   # ids of values computed from constants alone (``_fixed_values``)
        self.products: set[int] = set()   # ids of the products kept apart from their sums (``_kept_products``)
        self.computed: dict[int, str] = {}   # id of each value an op computes -> the op's name (``unfused``)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def define(self, v: Value) -> str:
        name = self.fresh("v")
        self.names[id(v)] = name
        return name

    def ref(self, v: Value) -> str:
        return self.names[id(v)]

    def const(self, x: Any) -> str:
        key = id(x)
        if key not in self.const_ids:
            self.const_ids[key] = f"k{len(self.consts)}"
            self.consts.append(x)
        return self.const_ids[key]

    def tree(self, x: Any) -> str:
        """Source text rebuilding a (possibly nested) leaf structure."""
        if isinstance(x, Value):
            return self.ref(x)
        if x is None or type(x) in (bool, int, str) and len(repr(x)) < 30:
            return repr(x)
        if type(x) is float and x == x and abs(x) != float("inf"):
            return repr(x)
        if type(x) is tuple:
            return "(" + "".join(self.tree(e) + ", " for e in x) + ")"
        if type(x) is list:
            return "[" + ", ".join(self.tree(e) for e in x) + "]"
        if type(x) is dict and all(type(k) is str for k in x):
            return "{" + ", ".join(f"{k!r}: {self.tree(v)}" for k, v in x.items()) + "}"
        leaves, treedef = tree_flatten(x, is_leaf=lambda v: isinstance(v, Value))
        if any(isinstance(v, Value) for v in leaves):
            # A registered pytree holding graph values: rebuild it from its leaves.
            return f"_unflatten({self.const(treedef)}, [{', '.join(self.tree(v) for v in leaves)}])"
        return self.const(x)

    def emit(self, indent: str, text: str) -> None:
        self.lines.append(indent + text)

    def region_fn(self, region: Region, indent: str, prefix: str) -> str:
        """Emit ``def name(args): ops; return yields`` and return its name."""
        name = self.fresh(prefix)
        args = ", ".join(self.define(a) for a in region.args)
        self.emit(indent, f"def {name}({args}):")
        self.body(region.ops, indent + "    ")
        self.emit(indent + "    ", f"return ({''.join(self.ref(v) + ', ' for v in region.yields)})")
        return name

    def body(self, ops: list[Op], indent: str) -> None:
        """A function's ops; where it makes several run-time checks, they are
        emitted in batches (``bounded.checks_open``: one callback per batch,
        not per check), each batch before the next op that is not a plain
        computation or a check, and at the end."""
        if sum(1 for op in ops if _is_check(op)) < 2:
            self.ops(ops, indent)
            return
        self.emit(indent, "_chk = _checks_open()")
        self.emit(indent, "try:")
        self.ops(ops, indent + "    ", batched=True)
        self.emit(indent + "    ", "_checks_flush(_chk)")
        self.emit(indent, "finally:")
        self.emit(indent + "    ", "_checks_drop(_chk)")

    def ops(self, ops: list[Op], indent: str, batched: bool = False) -> None:
        for op in ops:
            if batched and not (_is_check(op) or _is_plain(op)):
                # an ordered effect or a region: the checks made before it go first; its own
                # checks are emitted where it makes them
                self.emit(indent, "_checks_flush(_chk)")
                self.emit(indent, "with _checks_direct(_chk):")
                _LOWERINGS[type(op)](self, op, indent + "    ")
            else:
                _LOWERINGS[type(op)](self, op, indent)

    def targets(self, op: Op) -> str:
        return "".join(self.define(r) + ", " for r in op.results) or "_"


def _is_check(op: Op) -> bool:
    """A run-time check (a callback that only raises) or a NumPy warning's
    (``hostwarnings.fp_fire_effect``: issued unless a check before it
    raised), batched with the others (``_Emitter.body``)."""
    return isinstance(op, CallOp) and (getattr(op.fn, "_a2g_check", False) or getattr(op.fn, "_a2g_batched", False))


def _is_plain(op: Op) -> bool:
    """A computation with no host effect and no region: nothing between two checks can see it."""
    return isinstance(op, ConstOp) or isinstance(op, CallOp) and not getattr(op.fn, "_a2g_effect", False)


def _comment(op: Op) -> str:
    line = op.loc.line
    return f"  # line {line}" if type(line) is int and line else ""


def _comment_text(text: object) -> str:
    """``text`` as a comment may hold it: itself when printable (no line
    break of any kind: ``str.isprintable`` is false for ``\\n``, ``\\r``,
    ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028``, ``\\u2029``),
    else its ``repr`` (which escapes them). ``str.__str__``: an exact ``str``,
    whatever a subclass's ``__str__``/``__format__``/``__repr__`` say."""
    text = _exact_str(text)
    return text if text.isprintable() else repr(text)


def _exact_str(text: object) -> str:
    return str.__str__(text) if isinstance(text, str) else "?"


def _is_name(text: object) -> bool:
    """A keyword name the generated source may spell as it is: an exact
    ``str``, an identifier, not a keyword, and unchanged by the NFKC
    normalisation Python applies to identifiers in source."""
    return (type(text) is str and text.isidentifier() and not keyword.iskeyword(text)
            and unicodedata.normalize("NFKC", text) == text)


def _int_text(x: object) -> str:
    """An ``int`` operand (a loop bound: a Python int or anything with
    ``__index__``) as source: the ``repr`` of the exact int."""
    return repr(operator.index(x))


def _divisions() -> frozenset:
    import operator

    return frozenset({operator.truediv, operator.itruediv, operator.floordiv, operator.ifloordiv,
                      jax.numpy.divide, jax.numpy.true_divide, jax.numpy.floor_divide})


_DIVISIONS = _divisions()


def _constant_divisor(x: Any) -> bool:
    """A number XLA would fold a division by into a multiplication by its
    reciprocal (``k / 3``: 1.6666666666666665, not Python's ...67); an array
    constant likewise (``np.cumsum(x) / np.arange(1, 6)``, folded at trace time)."""
    return type(x) is float or type(x) is int and -2**31 <= x < 2**31 or isinstance(x, np.floating) \
        or isinstance(x, (np.ndarray, jax.Array)) and np.dtype(x.dtype).kind in "fciu"


def _fixed_values(graph: Graph) -> set[int]:
    """The values computed from constants alone (``np.arange(1, 6)``, a
    ``ConstOp``): XLA folds them, and a division by a folded array becomes a
    multiplication by its reciprocals, as by a scalar constant."""
    fixed: set[int] = set()
    for op in walk_ops(graph.body):
        if isinstance(op, (CallOp, ConstOp)) and all(id(v) in fixed for v in op.operands()):
            fixed.update(id(r) for r in op.results)
    return fixed


# Multiplications (``x ** 2`` and ``x ** 3`` are ones to XLA), and the consumers of a
# product that XLA does not contract with it: reductions (their accumulation order is
# XLA's own in eager too) and comparisons.
_PRODUCTS = frozenset({"operator.mul", "operator.imul", "operator.pow", "operator.ipow", "jax.numpy.multiply",
                       "jax.numpy.square", "jax.numpy.power", "jax.numpy.float_power"})
_NOT_CONTRACTED = frozenset({"operator.lt", "operator.le", "operator.gt", "operator.ge", "operator.eq",
                             "operator.ne"})
_REDUCTIONS = frozenset({"sum", "mean", "nansum", "nanmean"})   # jnp's, NumPy's and the methods'
# What XLA's simplifier rewrites across two ops, by the consumer: the producers of an
# operand it rewrites with (a division: whatever the graph computed). A product with a 0/1
# array converted from booleans becomes a select (one_hot(y) * log(p): 0 where eager's
# 0 * -inf is nan); exp(a) * exp(b) becomes exp(a + b); log(exp(a)) becomes a (eager's
# inf for a large a).
_EXPS = frozenset({"jax.numpy.exp", "jax.numpy.exp2", "jax.numpy.expm1"})
_REWRITTEN_WITH = {
    **dict.fromkeys(("operator.mul", "operator.imul", "jax.numpy.multiply"),
                    _EXPS | {"jax.nn.one_hot", "jax.numpy.eye", "jax.numpy.identity", "jax.numpy.tri"}),
    **dict.fromkeys(("jax.numpy.log", "jax.numpy.log1p", "jax.numpy.log2", "jax.numpy.log10"), _EXPS),
}


def _keep_operands_apart(em: _Emitter, op: CallOp, args: tuple, parts: list[str]) -> None:
    """``unfused`` around the operands XLA would rewrite ``op`` with: for a
    division, each operand the graph computed (``a / sqrt(b)`` as
    ``a * rsqrt(b)``, ``a / exp(b)`` as ``a * exp(-b)``, ``a / b / c`` as
    ``a / (b * c)``, ``a / (b / c)`` as ``a * c / b``); for the ops of
    ``_REWRITTEN_WITH``, the operands made by the producers it names. Each
    rewrite is a rounding (or an overflow) off eager's ops."""
    division = _is_division(op.fn)
    makers = None if division else _REWRITTEN_WITH.get(_name(op.fn))
    if not division and makers is None:
        return
    for k, a in enumerate(args[:2]):
        made_by = em.computed.get(id(a)) if isinstance(a, Value) else None
        if made_by is not None and (division or made_by in makers) and not parts[k].startswith("_opaque("):
            parts[k] = f"_unfused({parts[k]})"


def _kept_products(graph: Graph) -> set[int]:
    """The multiplications whose product is used by anything but a reduction,
    a comparison or the graph's outputs. XLA fuses the ops of a graph into one
    loop and LLVM contracts a multiplication and the add or subtract that
    consumes it into one fused multiply-add, rounded once; eager runs them op
    by op, rounding the product (``a * 10.0 - inf``: nan in eager, -inf
    contracted; ``a * d - b * c`` of a singular matrix: 0.0 in eager, the
    product's rounding error contracted). These products are made opaque
    (``unfused``); ``exact_rounding=False`` lets XLA contract them."""
    made: dict[int, CallOp] = {}
    used: dict[int, list[Any]] = {}
    for op in walk_ops(graph.body):
        for v in op.operands():
            used.setdefault(id(v), []).append(op)
        for region in op.regions():
            for v in region.yields:
                used.setdefault(id(v), []).append(None)   # carried out of its region
        if isinstance(op, CallOp) and len(op.results) == 1 and _name(op.fn) in _PRODUCTS:
            made[id(op.results[0])] = op
    return {id(op) for key, op in made.items()
            if any(user is None or not isinstance(user, CallOp) or not _not_contracted(_name(user.fn))
                   for user in used.get(key, ()))}


def _not_contracted(name: str) -> bool:
    return name in _NOT_CONTRACTED or name.startswith(("jax.", "ast2graph.", "numpy.")) \
        and name.rpartition(".")[2] in _REDUCTIONS


def _name(fn: Any) -> str:
    try:
        return qualified_name(fn)
    except Exception:   # an object without a usable name
        return ""


def _numpy_division(op: CallOp, args: tuple, fixed: set[int] = frozenset()) -> bool:
    """An array divided by a scalar (a constant or traced) or a broadcast
    array (``m / m.sum(axis=1, keepdims=True)``) with NumPy's or Python's
    rules: NumPy divides element by element, exactly; XLA's kernel would
    multiply by the reciprocal of the loop-invariant divisor. (A JAX
    division keeps XLA's, as eager JAX computes it.)"""
    a, b = args
    broadcast = _constant_divisor(b) or isinstance(b, Value) and (tuple(b.type.shape) != tuple(a.type.shape)
                                                                  or id(b) in fixed)
    return (not op.x32 and broadcast and bool(a.type.shape)
            and any(isinstance(x, Value) and (x.type.numpy or x.type.python) for x in (a, b)))


def _is_division(fn: Any) -> bool:
    try:
        return fn in _DIVISIONS
    except TypeError:   # an unhashable callable
        return False


@register_lowering(CallOp)
def _call_lowering(em: _Emitter, op: CallOp, indent: str) -> None:
    args, kwargs = jax.tree_util.tree_unflatten(op.treedef, op.leaves)
    parts = [em.tree(a) for a in args]
    for k, v in kwargs.items():   # a keyword given through ``**`` may be any string
        parts.append(f"{k}={em.tree(v)}" if _is_name(k) else f"**{{{em.tree(k)}: {em.tree(v)}}}")
    if _is_division(op.fn) and len(args) == 2 and not kwargs and isinstance(args[0], Value):
        numpy = _numpy_division(op, args, em.fixed)
        if numpy or _constant_divisor(args[1]) or isinstance(args[1], Value) and id(args[1]) in em.fixed:
            # a division, as eager computes it (op by op, the divisor is no constant
            # to XLA; with NumPy's rules no loop-invariant scalar either)
            parts[1] = f"_opaque({parts[1]}, {parts[0]})" if numpy else f"_opaque({parts[1]})"
    if em.computed and not kwargs:
        _keep_operands_apart(em, op, args, parts)
    if em.x64 and op.x32:   # eager runs it as a JAX op with x64 off: so does the graph
        call = f"_x32_call({', '.join([em.const(op.fn)] + parts)})"
    else:
        call = f"{em.const(op.fn)}({', '.join(parts)})"
    if id(op) in em.products:   # rounded before the sum that uses it, as eager rounds it
        call = f"_unfused({call})"
    n = len(op.results)
    if op.site is not None:   # its host callbacks raise from the user's statement
        em.emit(indent, f"with _at_site({em.const(op.site)}):")
        indent += "    "
    # The callee returns a pytree; its array leaves are the op's results.
    em.emit(indent, f"{em.targets(op)} = _array_leaves({call}, {n}){_comment(op)}  # {_comment_text(qualified_name(op.fn))}")


@register_lowering(ConstOp)
def _const_lowering(em: _Emitter, op: ConstOp, indent: str) -> None:
    em.emit(indent, f"{em.define(op.results[0])} = _asarray({em.const(op.value)}){_comment(op)}")


def _branch(em: _Emitter, region: Region, indent: str, prefix: str, taken: str) -> str:
    """A branch function; one holding a bounded loop knows when it is taken
    (``taken``: source of a bool), which masks the loop's check under vmap."""
    name = em.region_fn(region, indent, prefix)
    return f"_under({taken}, {name})" if any(bounded(op) for op in walk_ops(region)) else name


@register_lowering(IfOp)
def _if_lowering(em: _Emitter, op: IfOp, indent: str) -> None:
    pred = em.ref(op.pred)
    t = _branch(em, op.then_region, indent, "then_", pred)
    e = _branch(em, op.else_region, indent, "else_", f"_not({pred})")
    em.emit(indent, f"{em.targets(op)} = lax.cond({pred}, {t}, {e}){_comment(op)}")


@register_lowering(SwitchOp)
def _switch_lowering(em: _Emitter, op: SwitchOp, indent: str) -> None:
    index, n = em.ref(op.index), len(op.branches)
    names = [_branch(em, r, indent, f"case{i}_", f"_case_taken({index}, {i}, {n})") for i, r in enumerate(op.branches)]
    em.emit(indent, f"{em.targets(op)} = lax.switch({index}, [{', '.join(names)}]){_comment(op)}")


@register_lowering(WhileOp)
def _while_lowering(em: _Emitter, op: WhileOp, indent: str) -> None:
    c = em.region_fn(op.cond, indent, "cond_")
    b = em.region_fn(op.body, indent, "body_")
    init = "".join(em.ref(v) + ", " for v in op.init)
    if op.max_iters is not None:   # a lax.scan of max_iters guarded steps (bounded.py)
        call = f"_bounded_while({c}, {b}, ({init}), {_int_text(op.max_iters)}, {em.const(op.loc)})"
    else:   # jax.grad through it fails naming the loop (bounded.forward_only)
        call = f"_forward_only(lax.while_loop(_splat({c}), _splat_tuple({b}), ({init})), {em.const(op.loc)}, 'while')"
    em.emit(indent, f"{em.targets(op)} = {call}{_comment(op)}")


@register_lowering(ForOp)
def _for_lowering(em: _Emitter, op: ForOp, indent: str) -> None:
    b = em.region_fn(op.body, indent, "body_")
    init = "".join(em.ref(v) + ", " for v in op.init)
    lo, hi = (em.ref(x) if isinstance(x, Value) else _int_text(x) for x in (op.lower, op.upper))
    if op.max_iters is not None:   # a lax.scan of max_iters guarded steps (bounded.py)
        done = "None" if op.done is None else _int_text(op.done)
        call = f"_bounded_fori({lo}, {hi}, {b}, ({init}), {_int_text(op.max_iters)}, {done}, {em.const(op.loc)})"
    elif isinstance(op.lower, Value) or isinstance(op.upper, Value):   # a while_loop (bounded.forward_only)
        call = f"_forward_only(lax.fori_loop({lo}, {hi}, _index_splat({b}), ({init})), {em.const(op.loc)}, 'for')"
    else:
        call = f"lax.fori_loop({lo}, {hi}, _index_splat({b}), ({init}))"
    em.emit(indent, f"{em.targets(op)} = {call}{_comment(op)}")


@register_lowering(ScanOp)
def _scan_lowering(em: _Emitter, op: ScanOp, indent: str) -> None:
    b = em.region_fn(op.body, indent, "body_")
    init = "".join(em.ref(v) + ", " for v in op.init)
    em.emit(indent, f"{em.targets(op)} = lax.scan(_scan_body({b}), ({init}), {em.ref(op.xs)})[0]{_comment(op)}")


def _array_leaves(out: Any, n: int) -> tuple:
    leaves = [x for x in tree_flatten(out)[0] if isinstance(x, jax.Array)]   # in typeinfer's order (dicts as inserted)
    assert len(leaves) == n, "ast2graph internal error: result count changed between typeinfer and lowering"
    return tuple(leaves)


def _splat(f: Callable) -> Callable:
    return lambda c: f(*c)[0]


def _splat_tuple(f: Callable) -> Callable:
    return lambda c: tuple(f(*c))


def _index_splat(f: Callable) -> Callable:
    return lambda i, c: tuple(f(weak(i), *c))   # the loop index is a Python int: weakly typed


def weak(x: Any) -> Any:
    """``x`` weakly typed, as JAX types a Python scalar (a no-op on a weak
    input): a graph input that stands for a Python number arrives as a
    strong 64-bit NumPy scalar, a loop index strong from ``fori_loop``."""
    return _convert_element_type(x, x.dtype, True)


def narrow(x: Any) -> Any:
    """A 64-bit array as ``jnp.asarray`` gives it with x64 off (32-bit, the
    weak type kept); anything else as it is."""
    if isinstance(x, jax.Array) and not is_extended(x.dtype):   # tracers included; a PRNG key as it is
        narrow = _NARROW.get(np.dtype(x.dtype))
        if narrow is not None:
            return _convert_element_type(x, narrow, bool(getattr(_typeof(x), "weak_type", False)))
    if isinstance(x, (np.ndarray, np.generic)) and np.dtype(x.dtype) in _NARROW:
        # a NumPy constant of the graph (``c = np.linspace(..)`` made at trace time): JAX with x64
        # off converts it so (``dtypes.canonicalize_value``); left 64-bit, a jitted ``fn`` (its
        # jaxpr traced for the 32-bit aval) would be handed the outer graph's 64-bit constant
        return x.astype(_NARROW[np.dtype(x.dtype)])
    return x


_typeof = getattr(jax, "typeof", None) or jax.core.get_aval


def x32_call(fn: Callable, /, *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` as eager JAX computes it with x64 off, inside a
    graph traced with x64 on: 64-bit operands narrowed first (as ``jnp.asarray``
    narrows them), then ``fn`` traced with x64 off (its results 32-bit, its
    defaults such as ``jnp.zeros``' float32 and ``jax.random``'s bits as eager's)."""
    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
    args, kwargs = jax.tree_util.tree_unflatten(treedef, [narrow(x) for x in leaves])
    with jax.enable_x64(False):
        return fn(*args, **kwargs)


def _scan_body(f: Callable) -> Callable:
    return lambda c, x: (tuple(f(*c, x)), None)


_RUNTIME = {
    "lax": lax, "_at_site": at_site, "_array_leaves": _array_leaves, "_splat": _splat,
    "_splat_tuple": _splat_tuple, "_index_splat": _index_splat,
    "_scan_body": _scan_body, "_asarray": jax.numpy.asarray,
    "_unflatten": jax.tree_util.tree_unflatten,
    "_bounded_while": bounded_while, "_bounded_fori": bounded_fori, "_under": under, "_forward_only": forward_only,
    "_case_taken": case_taken, "_not": jax.numpy.logical_not,
    "_x32_call": x32_call, "_weak": weak, "_opaque": opaque, "_unfused": unfused,
    "_checks_open": checks_open, "_checks_flush": checks_flush, "_checks_direct": checks_direct,
    "_checks_drop": checks_drop,
}


def lower_graph(graph: Graph, x64: bool = False, exact_rounding: bool = True) -> Lowered:
    """Generate, compile and return the Python/JAX function of ``graph``.
    ``x64``: the function is traced with JAX's x64 switch on (the graph holds
    64-bit values); its ops that eager runs as JAX ops with x64 off run so
    (``x32_call``). ``exact_rounding``: each floating-point op rounds as
    eager's op by op: XLA neither fuses a multiplication into the add that
    uses it (``_kept_products``) nor rewrites a division across the ops that
    compute its operands (``unfused``)."""
    em = _Emitter(x64)
    em.fixed = _fixed_values(graph)
    if exact_rounding:
        em.products = _kept_products(graph)
        em.computed = {id(r): _name(op.fn) for op in walk_ops(graph.body) if isinstance(op, CallOp) for r in op.results}
    params = ", ".join(em.define(p) for p in graph.params)
    name = "lowered_" + "".join(c if c.isascii() and c.isalnum() else "_" for c in _exact_str(graph.name))
    em.emit("", f"def {name}({params}):")
    for p in graph.params:
        if p.type.weak_type:   # a Python number passed as a strong NumPy scalar
            em.emit("    ", f"{em.ref(p)} = _weak({em.ref(p)})")
    em.body(graph.body.ops, "    ")
    em.emit("    ", f"return ({''.join(em.ref(v) + ', ' for v in graph.outputs)})")
    source = "\n".join(em.lines) + "\n"
    namespace = dict(_RUNTIME)
    namespace.update({f"k{i}": c for i, c in enumerate(em.consts)})
    code = compile(source, f"<ast2graph lowered {_comment_text(graph.name)}>", "exec")
    exec(code, namespace)  # noqa: S102 - our own generated code
    return Lowered(source, namespace[name], em.consts, x64)
