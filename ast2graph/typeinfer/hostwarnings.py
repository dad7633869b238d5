"""``warnings.warn`` as an ordered host effect, issued as eager issues it.

Requires: ``arrays.host_effect`` (an ordered ``jax.debug.callback`` handing its
arguments over as eager's objects) and ``arrays.DeferredStr`` (a message
formatted from traced values on the host).
Produces: ``filter_actions`` (what the warning filters do with a warning, at
trace time), ``filters_state``/``filters_unchanged`` (a guard on them),
``filters_mutated`` (eager's change of the filters' version), and
``warning_effect`` (the effect op issuing one warning from a fixed place);
for NumPy's floating-point warnings ``fp_flags_op`` (their flags, a graph
value), ``fp_fire_effect`` (the ordered callback issuing them) or, where the
graph has no other host effect, ``fp_output_issuer``/``issue_flag_outputs``
(the flags a graph output, the warnings issued after the call:
``specialize._warning_outputs``, ``GraphPlan.run``), ``reduce_site`` (NumPy's
own line of ``np.sum``'s "overflow encountered in reduce"), and
``ActionGuard`` (a guard on what the filters do with the graph's warnings).
Invariants: the warning is issued through ``warnings.warn_explicit`` with
what eager's ``warnings.warn`` computes from its frame: the category, the
file name and line of the frame ``stacklevel`` names, that frame's module
name and its module's ``__warningregistry__`` (made when missing, as eager
makes it), so that the filters, the "once per location" registry and
``catch_warnings(record=True)`` see eager's warning. An effect is emitted
only where the filters (guarded) do not turn the warning into an exception:
the callback never raises into the graph.

Eager's ``warnings.warn`` (CPython's ``_warnings.warn``), for reference::

    frame = sys._getframe(stacklevel)      # 1: the function calling warn
    globals = frame.f_globals
    module = globals.get("__name__", "<string>")
    registry = globals.setdefault("__warningregistry__", {})
    warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno, module, registry)
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np

from ..graphlib import arrays


def filter_actions(category: type, text: str | None, module: str | None, lineno: int | None) -> set[str]:
    """The actions the warning filters may take on a warning (the first
    filter matching it, as ``_warnings`` matches them, or
    ``warnings.defaultaction``): one action, or several where the match
    depends on a message text not known at trace time (``text`` None) or on
    a frame known only at run time (``module`` None)."""
    found: set[str] = set()
    for action, message, kind, mod, line in warnings.filters:
        if not issubclass(category, kind):
            continue
        if module is None and (mod is not None or line):   # a frame known only when it runs: it may match
            found.add(action)
            continue
        if (mod is not None and not mod.match(module)) or (line and line != lineno):
            continue
        if message is not None and (text is None or not message.match(text)):
            if text is None:
                found.add(action)   # it may match the text eager formats
            continue
        found.add(action)
        return found
    found.add(warnings.defaultaction)
    return found


# What eager calls where the filters change (``catch_warnings``, ``simplefilter``):
# the registries of "once per location" warnings are then forgotten.
filters_mutated = getattr(warnings, "_filters_mutated", None)


def filters_state(filters: list | None = None) -> tuple:
    """What the filters are now: the list (the module's attribute, or the one
    ``filters`` a ``catch_warnings`` block saved), its entries, and the
    default action."""
    filters = warnings.filters if filters is None else filters
    return filters, tuple(filters), warnings.defaultaction


def action_summary(category: type, text: str | None, module: str | None, lineno: int | None) -> str:
    """What a graph issuing this warning depends on of the filters: "error"
    where they may raise it (the statement then runs in Python), "ignore"
    where they surely drop it (the graph then computes nothing for it),
    "shown" otherwise (issued through ``warn_explicit``, which applies the
    filters as they are when it runs: "once", "always", "default" alike)."""
    actions = filter_actions(category, text, module, lineno)
    return "error" if "error" in actions else "ignore" if actions == {"ignore"} else "shown"


class ActionGuard:
    """One guard on what the warning filters do with every warning a graph
    may issue (``action_summary`` of each): it holds while each is what it was
    at trace time. While the filters' entries are those it last saw (a
    caller's ``catch_warnings()`` copies them), it holds at once."""

    def __init__(self) -> None:
        self.expected: dict[tuple, str] = {}
        self.seen: tuple = ([], None)

    def add(self, category: type, text: str | None, module: str | None, lineno: int | None) -> None:
        key = (category, text, module, lineno)
        if key not in self.expected:
            self.expected[key] = action_summary(*key)
            self.seen = ([], None)

    def __call__(self) -> bool:
        filters, default = self.seen
        if filters == warnings.filters and default == warnings.defaultaction:
            return True
        if all(action_summary(*key) == what for key, what in self.expected.items()):
            self.seen = (list(warnings.filters), warnings.defaultaction)
            return True
        return False


def filters_unchanged(state: tuple) -> bool:
    now = filters_state()
    return now[0] is state[0] and now[1] == state[1] and now[2] == state[2]


def _warn_from(message: Any, category: type, filename: str, lineno: int, namespace: dict,
               filters: tuple | None) -> None:
    """``warnings.warn_explicit`` with what eager's ``warn`` takes from a frame:
    its file and line, its module's name and ``__warningregistry__`` (made when
    missing); under ``filters`` (a ``catch_warnings`` block's, as eager's block
    holds them while the warning is issued: the module's attribute, which
    ``_warnings`` reads; its version changes are effects of their own)."""
    if isinstance(message, arrays.DeferredStr):
        message = str(message)
    module = namespace["__name__"] if "__name__" in namespace else "<string>"
    registry = namespace.setdefault("__warningregistry__", {})
    saved = warnings.filters
    if filters is not None:
        warnings.filters = list(filters)
    try:
        warnings.warn_explicit(message, category, filename, lineno, module, registry)
    finally:
        warnings.filters = saved


@functools.lru_cache(maxsize=None)
def _issuer(category: type, filename: str, lineno: int, module_globals: Any, filters: tuple | None) -> Any:
    def issue(message: Any) -> None:
        _warn_from(message, category, filename, lineno, module_globals.namespace, filters)

    issue.__qualname__ = issue.__name__ = "warnings.warn"
    return issue


# The frame of the graph call running now (``runtime.plans.GraphPlan.run`` of a graph
# with effects, which waits for them): a warning whose ``stacklevel`` names a
# frame outside the converted code finds it from there, as eager's
# ``sys._getframe(stacklevel)`` does.
RUNNING: list = [None]


def _outside_frame(k: int) -> Any:
    """The ``k``-th frame of the user's above the converted function (0: its
    caller), ast2graph's and JAX's frames skipped (eager has none of them);
    None past the top of the stack."""
    from ..tracebacks import _own

    frame, n = RUNNING[0], -1
    while frame is not None:
        if not _own(frame.f_code):
            n += 1
            if n == k:
                return frame
        frame = frame.f_back
    return None


@functools.lru_cache(maxsize=None)
def _outside_issuer(category: type, k: int, filters: tuple | None) -> Any:
    def issue(message: Any) -> None:
        frame = _outside_frame(k)
        if frame is None:   # past the top of the stack: CPython's warn names the module sys
            import sys

            _warn_from(message, category, "sys", 0, sys.__dict__, filters)
        else:
            _warn_from(message, category, frame.f_code.co_filename, frame.f_lineno, frame.f_globals, filters)

    issue.__qualname__ = issue.__name__ = "warnings.warn"
    return issue


def outside_warning_effect(category: type, k: int, kinds: tuple, filters: tuple | None = None) -> Any:
    """The effect op issuing ``warnings.warn(message, category)`` from the
    ``k``-th frame above the converted function (0: its caller), found when
    it runs (``RUNNING``)."""
    return arrays.host_effect(_outside_issuer(category, k, filters), kinds)


class Namespace:
    """A module's globals, hashable by identity (a key of ``_issuer``'s cache)."""

    __slots__ = ("namespace",)

    def __init__(self, namespace: dict):
        self.namespace = namespace


_NAMESPACES: dict[int, Namespace] = {}


def namespace_holder(namespace: dict) -> Namespace:
    """The one ``Namespace`` of a module's globals."""
    holder = _NAMESPACES.get(id(namespace))
    if holder is None or holder.namespace is not namespace:
        holder = _NAMESPACES[id(namespace)] = Namespace(namespace)
    return holder


def warning_effect(category: type, filename: str, lineno: int, namespace: dict, kinds: tuple,
                   filters: tuple | None = None) -> Any:
    """The effect op issuing ``warnings.warn(message, category)`` as if from
    ``filename:lineno`` in the module whose globals are ``namespace``; under
    ``filters`` (a ``catch_warnings`` block's) where given."""
    holder = _NAMESPACES.get(id(namespace))
    if holder is None or holder.namespace is not namespace:
        holder = _NAMESPACES[id(namespace)] = Namespace(namespace)
    return arrays.host_effect(_issuer(category, filename, lineno, holder, filters), kinds)


# ----------------------------------------------------------- NumPy's floating-point warnings
# NumPy checks the FPU's flags after a ufunc and, where ``np.geterr()`` says
# "warn", issues ``RuntimeWarning("<what> encountered in <ufunc>")`` from the
# Python frame that called it, in this order: divide, over, under, invalid.
# A graph op sets no flag; ``fp_warning_effect`` recomputes them from the
# operands and the result (IEEE's rules: an infinity from finite operands is
# a division by zero where an operand is the op's pole, an overflow otherwise;
# a NaN from operands without one is an invalid operation; integer ``//`` and
# ``%`` by zero divide by zero) and issues eager's warnings on the host.
FP_MESSAGES = (("divide", "divide by zero"), ("over", "overflow"), ("invalid", "invalid value"))

# ufunc name -> where an operand is the op's pole (an infinite result there is
# a division by zero): "divisor" (the second operand is 0), "zero" (the operand
# is 0), "minus one" (it is -1), "unit" (|x| is 1), "" (none: an overflow)
FP_POLES = {
    "divide": "divisor", "floor_divide": "divisor", "remainder": "divisor",
    "log": "zero", "log2": "zero", "log10": "zero", "reciprocal": "zero", "power": "zero",
    "log1p": "minus one", "arctanh": "unit",
    "sqrt": "", "arcsin": "", "arccos": "", "arccosh": "", "exp": "", "exp2": "", "expm1": "", "square": "",
    "add": "", "subtract": "", "multiply": "",
    "sinh": "", "cosh": "", "degrees": "", "rad2deg": "", "ldexp": "", "float_power": "zero",
}
# ufuncs of two operands whose rule above names the first alone (an infinite exponent's inf is no overflow)
FP_BINARY = frozenset({"power", "float_power", "ldexp"})
# ``x.astype(int_dtype)`` of floats (``numpy_api.float_to_int``): "invalid value encountered in cast"
FP_POLES["cast"] = "cast"
# ``np.divmod`` (and ``divmod`` of NumPy values): the flags of ``floor_divide`` on its
# quotient and of ``remainder`` on its remainder, together ("... encountered in divmod")
FP_POLES["divmod"] = "divisor"
# ufuncs that warn for integer operands: by zero, their result is 0
FP_INT_DIVISIONS = frozenset({"floor_divide", "remainder", "divmod"})


def _pole(rule: str, operands: list) -> Any:
    x = operands[-1] if rule == "divisor" else operands[0]
    if rule in ("divisor", "zero"):
        return _eq(x, 0)
    if rule == "minus one":
        return _eq(x, -1)
    if rule == "unit":
        return _eq(_abs(x), 1)
    return False


def fp_flags(rule: str, kinds: tuple, result: Any, operands: tuple, where: Any = None, name: str = "") -> Any:
    """Which of ``kinds`` (of "divide", "over", "invalid") NumPy's ufunc
    flags computing ``result`` from ``operands`` (``where``: the positions
    it computes), as a bool vector; ``name``: the ufunc, where its flags
    follow from its operand alone (``FROM_OPERAND``). What is known when the graph is traced
    (a constant operand's NaNs, a ``where`` of True, an op without a pole)
    is computed then, in NumPy: the graph holds only the tests on its own
    values (every op added here is compiled with the user's graph)."""
    if name == "divmod":   # (``result``: the quotient and the remainder)
        q = _fp_found(rule, kinds, result[0], operands, where, "floor_divide")
        r = _fp_found(rule, kinds, result[1], operands, where, "remainder")
        return _flag_vector([_or(q.get(k, False), r.get(k, False)) for k in kinds])
    found = _fp_found(rule, kinds, result, operands, where, name)
    return _flag_vector([found.get(k, False) for k in kinds])


def _fp_found(rule: str, kinds: tuple, result: Any, operands: tuple, where: Any, name: str) -> dict:
    """``fp_flags``'s masks, by kind."""
    import jax.numpy as jnp

    out = jnp.asarray(result)
    ops = [_known(x) for x in operands]
    mask = True if where is None else _known(where)
    if rule == "cast":   # float to int: NumPy converts through a C int (int32's range) or int64, flagging the rest
        narrow = out.dtype in (jnp.int8, jnp.int16, jnp.int32, jnp.uint8, jnp.uint16)
        low, high = (-2.0 ** 31, 2.0 ** 31) if narrow else (-2.0 ** 63, 2.0 ** (64 if out.dtype == jnp.uint64 else 63))
        x = jnp.asarray(ops[0])
        found = {"invalid": _and(~(jnp.isfinite(x) & (x >= low) & (x < high)), mask)}
    elif rule == "narrow":   # float64 to float32 (float16, complex64): a finite value beyond the range
        x = jnp.asarray(ops[0])
        found = {"over": _and(jnp.isfinite(x) & jnp.isinf(out), mask)}
    elif rule.startswith("wrap "):   # NumPy's integer scalar + - * and unary - abs() wrapping around
        found = {"over": _wraps(rule[5:], *[jnp.asarray(x).astype(out.dtype) for x in ops], out)}
    elif name in FROM_OPERAND:   # tested at the dtype computed in (uint8 1 < -1 is True at uint8: -1 wraps)
        x = ops[0] if ops[0].dtype == out.dtype or not jnp.issubdtype(out.dtype, jnp.inexact) else ops[0].astype(out.dtype)
        found = {k: _and(v, mask) for k, v in FROM_OPERAND[name](x).items()}
    elif not jnp.issubdtype(out.dtype, jnp.inexact):   # integer // and %: by zero; min // -1 overflows
        found = {"divide": _and(_eq(ops[-1], 0), mask)}
        if name == "floor_divide" and jnp.issubdtype(out.dtype, jnp.signedinteger) and "over" in kinds:
            low = jnp.iinfo(out.dtype).min
            a, b = (jnp.asarray(x).astype(out.dtype) for x in ops)
            found["over"] = _and((a == low) & (b == -1), mask)
    else:
        inexact = [x for x in ops if jnp.issubdtype(x.dtype, jnp.inexact)]
        nan_in = functools.reduce(_or, [_isnan(x) for x in inexact], False)
        finite_in = functools.reduce(_and, [_isfinite(x) for x in inexact], True)
        new_inf = _and(_and(_isinf(out), finite_in), mask)
        pole = _pole(rule, ops)
        found = {"divide": _and(new_inf, pole), "over": _and(new_inf, _not(pole)),
                 "invalid": _and(_and(_isnan(out), _not(nan_in)), mask)}
        if name == "floor_divide" and out.dtype != jnp.float16:
            # NumPy's loop rounds an overflowed quotient as ``div - floor(div)``: inf - inf sets "invalid"
            # too (float16's is computed at float32, its overflow the cast's)
            found["invalid"] = _or(found["invalid"], found["over"])
    return found


# id(flags vector) -> (a weak reference to it, its masks): ``join_flags`` reduces the masks of all the top-level
# flags of a graph together rather than each flag on its own
_MASKS: dict[int, tuple] = {}


def _flag_vector(masks: list) -> Any:
    """The flags (one bool each: whether its mask is set anywhere) as a bool
    vector; its masks kept for ``join_flags`` while the graph is traced."""
    import weakref

    import jax.numpy as jnp

    vector = jnp.stack([jnp.any(m) if _traced(m) else jnp.asarray(bool(np.any(m))) for m in masks])
    if _traced(vector):
        if len(_MASKS) > 256:   # entries of traces done with (their flags went to callbacks or branch results)
            for key in [key for key, (ref, _) in _MASKS.items() if ref() is None]:
                del _MASKS[key]
        _MASKS[id(vector)] = (weakref.ref(vector), masks)
    return vector


# Ufuncs whose flags follow from their operand (IEEE's domains and poles),
# tested on it rather than on the result: a test on the result of an op XLA
# counts as expensive (sqrt, log, ...) is a second use of it, which makes XLA
# write that result to memory and compile one more kernel around it. Each is
# the generic rule's answer (NaN out of no NaN: "invalid"; an infinity out of
# a finite operand: "divide" at a pole, "over" elsewhere, which none of these
# reaches); "divide" and "over" of kinds they never flag are False.
def _below(x: Any, bound: float) -> Any:
    return x < bound if _traced(x) else np.asarray(x) < bound


def _above(x: Any, bound: float) -> Any:   # False for a NaN, as _below
    return x > bound if _traced(x) else np.asarray(x) > bound


def _abs(x: Any) -> Any:
    import jax.numpy as jnp

    return jnp.abs(x) if _traced(x) else np.abs(x)


def _log_domain(pole: float) -> Any:
    return lambda x: {"divide": _eq(x, pole), "invalid": _below(x, pole)}


FROM_OPERAND = {
    "sqrt": lambda x: {"invalid": _below(x, 0)},
    "log": _log_domain(0), "log2": _log_domain(0), "log10": _log_domain(0), "log1p": _log_domain(-1),
    "arcsin": lambda x: {"invalid": _above(_abs(x), 1)},
    "arccos": lambda x: {"invalid": _above(_abs(x), 1)},
    "arccosh": lambda x: {"invalid": _below(x, 1)},
    "arctanh": lambda x: {"divide": _eq(_abs(x), 1), "invalid": _above(_abs(x), 1)},
}
# the kinds each of these never flags (an overflow needs an infinity from finite operands, an invalid value a NaN
# from operands without one): left out of the flags altogether
NEVER = {"over": frozenset(FROM_OPERAND),
         "invalid": frozenset({"exp", "exp2", "expm1", "square", "sinh", "cosh", "degrees", "rad2deg"})}


# Trace-time folding of the flags' boolean algebra: a term is a traced bool
# array, or a NumPy bool array / Python bool known now.
def _traced(x: Any) -> bool:
    import jax

    return isinstance(x, jax.core.Tracer)


def _known(x: Any) -> Any:
    """``x`` as a NumPy array where its value is known when tracing, else as traced."""
    import jax.numpy as jnp

    return jnp.asarray(x) if _traced(x) else np.asarray(x)


def _fixed(x: Any) -> bool | None:
    """True or False where the term is that everywhere (an empty one: False), else None."""
    if _traced(x):
        return None
    x = np.asarray(x)
    if not x.any():
        return False
    return True if x.all() else None


def _and(a: Any, b: Any) -> Any:
    fa, fb = _fixed(a), _fixed(b)
    if fa is False or fb is False:
        return False
    if fa is True:
        return b
    if fb is True:
        return a
    return a & b


def _or(a: Any, b: Any) -> Any:
    fa, fb = _fixed(a), _fixed(b)
    if fa is True or fb is True:
        return np.broadcast_to(True, np.broadcast_shapes(np.shape(a), np.shape(b)))
    if fa is False:
        return b
    if fb is False:
        return a
    return a | b


def _not(a: Any) -> Any:
    return ~a if _traced(a) else np.logical_not(a)


def _eq(a: Any, v: Any) -> Any:
    return a == v if _traced(a) else np.asarray(a) == v


def _isnan(x: Any) -> Any:
    import jax.numpy as jnp

    return jnp.isnan(x) if _traced(x) else np.isnan(x)


def _isfinite(x: Any) -> Any:
    import jax.numpy as jnp

    return jnp.isfinite(x) if _traced(x) else np.isfinite(x)


def _isinf(x: Any) -> Any:
    import jax.numpy as jnp
    from jax import lax

    if not _traced(x):
        return np.isinf(x)
    if jnp.issubdtype(x.dtype, jnp.floating):   # jnp.isinf is a jitted function: one call more to lower
        return lax.abs(x) == np.inf
    return jnp.isinf(x)


def _wraps(name: str, a: Any, *rest: Any) -> Any:
    """Whether ``r`` (the last of ``rest``), ``a <name> b`` computed in ``r``'s
    integer dtype (``<name> a`` for "negative" and "absolute"), wrapped around."""
    import jax.numpy as jnp

    *b_, r = rest
    b = b_[0] if b_ else None
    if name in ("negative", "absolute"):   # -min and abs(min) are min; -u of an unsigned u is 2**n - u
        if jnp.issubdtype(r.dtype, jnp.unsignedinteger):
            return a != 0 if name == "negative" else jnp.zeros(jnp.shape(a), bool)
        return a == jnp.iinfo(r.dtype).min
    if jnp.issubdtype(r.dtype, jnp.unsignedinteger):
        if name == "add":
            return r < a
        if name == "subtract":
            return a < b
    elif name == "add":   # the operands of one sign, the result of the other
        return ((a ^ r) & (b ^ r)) < 0
    elif name == "subtract":
        return ((a ^ b) & (a ^ r)) < 0
    # multiply: r / a is not b (and min * -1, whose quotient wraps too)
    safe = jnp.where(a == 0, jnp.ones_like(a), a)
    wrong = (a != 0) & (r // safe != b)
    if jnp.issubdtype(r.dtype, jnp.signedinteger):
        low = jnp.iinfo(r.dtype).min
        wrong = wrong | (a == -1) & (b == low) | (b == -1) & (a == low)
    return wrong


# ----------------------------------------------------------- np.sum, np.prod: "... encountered in reduce"
REDUCERS = frozenset({"sum", "prod"})


@functools.lru_cache(maxsize=None)
def reduce_site(name: str, method: bool, dtype: str) -> tuple | None:
    """Where NumPy's ``np.<name>`` (``method``: ``ndarray.<name>``) of
    ``dtype`` data issues its "overflow encountered in reduce": the file,
    line and module name of NumPy's own frame (eager's warning names it, not
    the user's line), found by running it once on data that overflows."""
    import sys

    fn = getattr(np.ndarray, name) if method else getattr(np, name)
    data = np.full(2, np.finfo(np.dtype(dtype)).max, np.dtype(dtype))
    with warnings.catch_warnings(record=True) as seen, np.errstate(all="ignore", over="warn"):
        warnings.simplefilter("always")
        fn(data)
    for w in seen:
        if str(w.message) == "overflow encountered in reduce":
            module = next((m for m in list(sys.modules.values()) if getattr(m, "__file__", None) == w.filename), None)
            return (w.filename, w.lineno, module.__name__) if module is not None else None
    return None


@functools.lru_cache(maxsize=None)
def reduce_flags_op(kinds: tuple, axis: Any, keepdims: bool, initial_finite: bool = True,
                    initial_nan: bool = False) -> Any:
    """The graph op ``flags(result, x)`` of ``np.sum``/``np.prod``: an
    overflow where a result is not finite though its data is ("over"; an
    infinity that met another becomes a NaN), an invalid value where a result
    is NaN though its data has none ("invalid"); a static ``initial=`` is
    part of the data (``initial_finite``, ``initial_nan``); with ``where``
    (a third operand) only the elements it selects are."""
    def flags(result: Any, x: Any, where: Any = True) -> Any:
        import jax.numpy as jnp

        out = jnp.asarray(result)
        selected = jnp.broadcast_to(jnp.asarray(where, bool), jnp.shape(x))
        finite = jnp.all(jnp.isfinite(x) | ~selected, axis=axis, keepdims=keepdims) & initial_finite
        nan_in = jnp.any(jnp.isnan(x) & selected, axis=axis, keepdims=keepdims) | initial_nan
        found = {"over": ~jnp.isfinite(out) & finite, "invalid": jnp.isnan(out) & ~nan_in}
        return _flag_vector([found[k] for k in kinds])

    flags.__name__ = flags.__qualname__ = "numpy RuntimeWarning flags"
    return flags


@functools.lru_cache(maxsize=None)
def _fp_issuer(texts: tuple, filename: str, lineno: int, module_globals: Any, filters: tuple | None) -> Any:
    from ..graphlib.hostcalls import HostCall

    def issue(flags: Any) -> None:
        if HostCall.raised():
            return   # a check before it raised: eager never got here
        for text, fired in zip(texts, np.asarray(flags)):
            if fired:
                _warn_from(text, RuntimeWarning, filename, lineno, module_globals.namespace, filters)

    issue.__qualname__ = issue.__name__ = "numpy RuntimeWarning"
    return issue


@functools.lru_cache(maxsize=None)
def _fp_effect(rule: str, kinds: tuple, texts: tuple, filename: str, lineno: int, module_globals: Any,
               filters: tuple | None) -> Any:
    import jax
    import jax.numpy as jnp
    from jax import lax

    from ..graphlib.bounded import _active_stack
    from ..graphlib.hostcalls import _guarded

    issue = _fp_issuer(texts, filename, lineno, module_globals, filters)

    def effect(result: Any, *operands: Any, where: Any = None) -> None:
        # masked by the enclosing branch predicates and running flags, as a run-time check is (``bounded.raise_if``)
        flags = functools.reduce(jnp.logical_and, _active_stack(), fp_flags(rule, kinds, result, operands, where))

        def fire(f: Any) -> None:
            jax.debug.callback(_guarded(issue), f, ordered=True)

        lax.cond(jnp.any(flags), fire, lambda f: None, flags)

    effect.__name__ = effect.__qualname__ = "host[numpy RuntimeWarning]"
    effect._a2g_effect = True  # type: ignore[attr-defined]
    effect._a2g_fp_warning = True  # type: ignore[attr-defined]
    return effect


# ----------------------------------------------------------- the flags as graph outputs
# An ordered host callback makes JAX dispatch every call of the graph from
# Python and wait on ``jax.effects_barrier()``. Where the graph has no other
# host effect (no print, no warnings.warn, no run-time check) and the warning
# is issued at its top level, the flags leave the graph as outputs instead
# (``specialize``: ``Specialization.warning_issuers``) and ``GraphPlan.run``
# issues the warnings after the call, in program order, from the user's line.

@functools.lru_cache(maxsize=None)
def fp_flags_op(rule: str, kinds: tuple, name: str = "") -> Any:
    """The graph op ``flags(result, *operands, where=None)``: which of
    ``kinds`` NumPy's ufunc ``name`` flags (``fp_flags``), a bool vector."""
    def flags(result: Any, *operands: Any, where: Any = None) -> Any:
        return fp_flags(rule, kinds, result, operands, where, name)

    flags.__name__ = flags.__qualname__ = "numpy RuntimeWarning flags"
    return flags


@functools.lru_cache(maxsize=None)
def fp_fire_effect(texts: tuple, filename: str, lineno: int, module_globals: Any, filters: tuple | None) -> Any:
    """The effect op ``fire(flags)``: the host callback issuing the warnings
    of the flags set (masked by the enclosing branches and running flags), as
    ``fp_warning_effect`` issues them."""
    from ..graphlib.bounded import raise_if

    issue = _fp_issuer(texts, filename, lineno, module_globals, filters)

    def fire(flags: Any) -> None:
        # masked by the enclosing branches and running flags; kept in the batch of the region's
        # run-time checks (``bounded.raise_if``): one callback for the warnings and checks between two
        # other effects, run in program order on the host (a check that raises stops the warnings
        # after it), not a ``lax.cond`` and a callback each (~0.15 s of XLA's compile apiece)
        raise_if(flags, issue)

    fire.__name__ = fire.__qualname__ = "host[numpy RuntimeWarning]"
    fire._a2g_effect = True  # type: ignore[attr-defined]
    fire._a2g_fp_warning = True  # type: ignore[attr-defined]
    fire._a2g_batched = True  # type: ignore[attr-defined]
    fire._a2g_fp_issuer = (texts, filename, lineno, module_globals, filters)  # type: ignore[attr-defined]
    return fire


@functools.lru_cache(maxsize=None)
def fp_output_issuer(texts: tuple, filename: str, lineno: int, module_globals: Any, filters: tuple | None) -> Any:
    """What ``GraphPlan.run`` calls with a flags output (a bool vector read
    back): eager's warnings for the flags set, from ``filename:lineno``."""
    def issue(flags: Any) -> None:
        for text, fired in zip(texts, flags):
            if fired:
                _warn_from(text, RuntimeWarning, filename, lineno, module_globals.namespace, filters)

    issue.__qualname__ = issue.__name__ = "numpy RuntimeWarning"
    return issue


def _bits_set(packed: Any, n: int) -> Any:
    """Which of the low ``n`` bits are set in any element of ``packed``
    (uint32), as a uint32 vector of 0/1: whether any is set first (one
    reduction of bools), the bits only then. An OR-reduction of the words
    themselves would be one op, but XLA cannot all-reduce it where the graph
    is split over several devices."""
    import jax.numpy as jnp
    from jax import lax

    shifts = np.arange(n, dtype=np.uint32).reshape((n,) + (1,) * packed.ndim)

    def which(p: Any) -> Any:   # every bit at once: one reduction, not one per flag (each a kernel)
        return jnp.any(((p[None] >> shifts) & np.uint32(1)) != 0, axis=tuple(range(1, p.ndim + 1))).astype(jnp.uint32)

    return lax.cond(jnp.any(packed != 0), which, lambda p: jnp.zeros(n, jnp.uint32), packed)


def join_flags(*flags: Any) -> Any:
    """The flags outputs of a graph as one bool vector (one transfer a call).
    The masks of the flags computed at the graph's top level (``_MASKS``)
    are reduced together: packed as bits of one integer per element, 32
    flags at a time, for all the masks of one shape, and reduced once
    (``_bits_set``). Each flag reduced on its own made XLA compile a kernel
    for it, and write to memory each result the flags test that other ops
    use as well (sqrt, exp, a division): most of the compile time of a
    graph of NumPy code. A branch's flags (results of its op) are used as
    they are."""
    import jax.numpy as jnp

    entries = []
    for f in flags:
        entry = _MASKS.pop(id(f), None)
        entries.append(entry[1] if entry is not None and entry[0]() is f else None)
    groups: dict[tuple, list] = {}
    for p, masks in enumerate(entries):
        for j, m in enumerate(masks or ()):
            if _traced(m):
                groups.setdefault(tuple(m.shape), []).append((p, j, m))
    words, where = [], {}   # the packed words' bits, in chunks; (part, flag) -> its place among them
    for shape, items in groups.items():
        for start in range(0, len(items), 32):
            chunk = items[start:start + 32]
            packed = functools.reduce(jnp.bitwise_or, [m.astype(jnp.uint32) << np.uint32(b)
                                                       for b, (_, _, m) in enumerate(chunk)])
            words.append(_bits_set(packed, len(chunk)))
            for b, (p, j, _) in enumerate(chunk):
                where[p, j] = sum(len(w) for w in words[:-1]) + b
    if not words:
        return jnp.concatenate(flags)
    bits = jnp.concatenate(words) != 0
    order = []   # where each output flag comes from: its place in the pieces, or known now (-1: False, -2: True)
    pieces = [bits]
    for p, (f, masks) in enumerate(zip(flags, entries)):
        if masks is None:
            start = sum(len(x) for x in pieces)
            pieces.append(f)
            order.extend(range(start, start + f.shape[0]))
            continue
        for j, m in enumerate(masks):
            if (p, j) in where:
                order.append(where[p, j])
            else:   # known when tracing
                order.append(-1 - bool(np.any(m)))
    pieces.append(jnp.array([False, True]))
    joined = jnp.concatenate(pieces)
    size = joined.shape[0]
    return joined[np.array([k if k >= 0 else size + (-1 - k) - 2 for k in order], dtype=np.int32)]


join_flags.__qualname__ = join_flags.__name__ = "numpy RuntimeWarning flags"


def no_flags(n: int) -> Any:
    """No warning flag set: the flags a branch gives for another branch's warnings."""
    import jax.numpy as jnp

    return jnp.zeros(n, bool)


no_flags.__qualname__ = no_flags.__name__ = "numpy RuntimeWarning flags"


def issue_flag_outputs(issuers: tuple, flags: Any) -> None:
    """The warnings of a graph's flags output (the flags of its NumPy
    operations, one after the other: ``Specialization.warning_issuers``, each
    issuer with its number of flags), in program order; under an outer JAX
    transform (the flags are a tracer) as an ordered host callback of the
    outer graph."""
    import jax

    if isinstance(flags, jax.core.Tracer):
        import jax.numpy as jnp
        from jax import lax

        from ..graphlib.bounded import _active_stack
        from ..graphlib.hostcalls import _guarded

        flags = functools.reduce(jnp.logical_and, _active_stack(), flags)
        lax.cond(jnp.any(flags), lambda g: jax.debug.callback(_guarded(functools.partial(_issue_all, issuers)), g,
                                                                ordered=True), lambda g: None, flags)
        return
    flags = np.asarray(flags)
    if flags.any():
        _issue_all(issuers, flags)


def _issue_all(issuers: tuple, flags: Any) -> None:
    at = 0
    for issue, n in issuers:
        if flags[at:at + n].any():
            issue(flags[at:at + n])
        at += n


def fp_warning_effect(rule: str, kinds: tuple, texts: tuple, filename: str, lineno: int, namespace: dict,
                      filters: tuple | None = None) -> Any:
    """The effect op ``effect(result, *operands, where=None)`` issuing
    NumPy's floating-point RuntimeWarnings ``texts`` (one per kind of
    ``kinds``, in NumPy's order) for a ufunc whose pole is ``rule``
    (``FP_POLES``), as if from ``filename:lineno`` of the module whose
    globals are ``namespace``; the flags are computed in the graph, the
    host is called only where one is set."""
    holder = _NAMESPACES.get(id(namespace))
    if holder is None or holder.namespace is not namespace:
        holder = _NAMESPACES[id(namespace)] = Namespace(namespace)
    return _fp_effect(rule, kinds, texts, filename, lineno, holder, filters)


# ----------------------------------------------------------- NumPy functions that warn of degenerate data
# np.nanmean of an all-NaN slice ("Mean of empty slice"), np.std with ddof >= n
# ("Degrees of freedom <= 0 for slice"), np.corrcoef of a constant row ("invalid
# value encountered in divide"): where the graph's result is not finite, NumPy's
# own function runs again on the host, from a frame that is the user's line
# (its file, line and module globals: a warning with stacklevel=2 names it, as
# eager's does), and issues what eager issues; its result is dropped.
REPLAYED = frozenset(f"{name}" for name in (
    "nanmean", "nanstd", "nanvar", "nanmin", "nanmax", "nanmedian", "nanpercentile", "nanquantile",
    "nanargmin", "nanargmax", "corrcoef"))


# functions whose warnings depend on shapes and static arguments only (np.std(x, ddof=1)
# of one element, np.mean of an empty axis): replayed where exemplar data warns
REPLAYED_BY_SHAPE = frozenset({"mean", "average", "std", "var", "median", "cov"})


def warns_on_exemplar(callee: Any, args: tuple, kwargs: dict) -> bool:
    """Whether ``callee`` warns with every traced operand replaced by ones
    of its shape and dtype (the warnings that depend on shapes only)."""
    import jax

    from ..ir.core import Value

    def exemplar(x: Any) -> Any:
        return np.ones(x.type.shape, x.type.dtype) if isinstance(x, Value) else x

    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
    if sum(int(np.prod(x.type.shape)) for x in leaves if isinstance(x, Value)) > 1 << 20:
        return False   # (too large to try at trace time)
    a, k = jax.tree_util.tree_unflatten(treedef, [exemplar(x) for x in leaves])
    with warnings.catch_warnings(record=True) as seen, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            callee(*a, **k)
        except Exception:  # noqa: BLE001 - eager's error is the graph's business elsewhere
            return False
    return bool(seen)


@functools.lru_cache(maxsize=None)
def _replayer(filename: str, lineno: int, module_globals: Any) -> Any:
    import types

    source = "\n" * (max(lineno, 1) - 1) + "def _a2g_replay(_f, _a, _k): _f(*_a, **_k)\n"
    code = compile(source, filename, "exec")
    inner = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    return types.FunctionType(inner, module_globals.namespace)


def replay_effect(callee: Any, filename: str, lineno: int, namespace: dict, kinds: tuple) -> Any:
    """The effect op ``effect(result, *args, **kwargs)`` running
    ``callee(*args, **kwargs)`` on the host, as from ``filename:lineno`` of
    the module whose globals are ``namespace``, where ``result`` is not all
    finite (masked by the enclosing branches and running flags)."""
    holder = _NAMESPACES.get(id(namespace))
    if holder is None or holder.namespace is not namespace:
        holder = _NAMESPACES[id(namespace)] = Namespace(namespace)
    return _replay_effect(callee, filename, lineno, holder, kinds)


@functools.lru_cache(maxsize=None)
def _replay_effect(callee: Any, filename: str, lineno: int, module_globals: Any, kinds: tuple) -> Any:
    import jax.numpy as jnp
    from jax import lax

    from ..graphlib.bounded import _active_stack
    from ..graphlib.hostcalls import HostCall

    replay = _replayer(filename, lineno, module_globals)

    def run(*args: Any, **kwargs: Any) -> None:
        if not HostCall.raised():
            replay(callee, args, kwargs)

    run.__qualname__ = run.__name__ = f"numpy {callee.__name__} warnings"
    issue = arrays.host_effect(run, kinds)

    def effect(result: Any, *args: Any, **kwargs: Any) -> None:
        out = jnp.asarray(result)
        bad = ~jnp.all(jnp.isfinite(out)) if jnp.issubdtype(out.dtype, jnp.inexact) else jnp.zeros((), bool)
        bad = functools.reduce(jnp.logical_and, _active_stack(), bad)
        lax.cond(bad, lambda: issue(*args, **kwargs), lambda: None)

    effect.__name__ = effect.__qualname__ = f"host[numpy {callee.__name__} warnings]"
    effect._a2g_effect = True  # type: ignore[attr-defined]
    return effect
