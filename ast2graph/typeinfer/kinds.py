"""What Python code sees of a trace-time value: eager's class, and the
builtins that look at an object rather than compute with it.

Requires: ``ir.core`` (``Value``, ``ArrayType``), ``arrays`` (the stand-ins
for array methods, ``.at``, traced ranges and deferred strings).
Produces: ``eager_exemplars(x)``: objects of the classes eager Python would
have in hand for a trace-time stand-in ``x`` (an IR ``Value``, a local
function, a traced ``range``, ...; ``standin_types``); ``observe(...)``: the
value of an inspecting builtin (``INSPECTORS``: ``isinstance``, ``type``,
``callable``, ``hasattr``, ``getattr``, ``repr``/``str``/``format``, ...)
applied to stand-ins, or ``NotImplemented`` where no stand-in is involved;
``same_object`` (``is``), ``function_attribute`` (``f.__name__`` of a local
function), ``value_attribute_allowed`` (``x.name`` of a traced value),
``traced_as_eager`` (whether an exception raised on tracers is eager's);
``contains_standin`` and ``MOVES_ARGUMENTS``, the callables that only store,
pass on or call their arguments (``list``, ``sorted``, ``functools.reduce``,
...), so that seeing a stand-in there is harmless; ``introspection``:
``inspect``'s signature functions run at trace time (``Signature.bind`` only
stores its arguments), with ``signature_inputs``/``same_inputs``, what a
function's signature is made from (its guard).
Invariants: an answer is given only when it is eager's for every object the
stand-in can stand for (an array ``Value``'s eager kind is in its type:
``ArrayType.numpy``: an ndarray, or a NumPy scalar when 0-d unless
``.array0``; ``.python``: a
Python number; otherwise a ``jax.Array``, or a JAX tracer when the caller
runs the converted function under a JAX transform); otherwise ``observe``
raises ``Unobservable`` and the site falls back to Python, where the real
object answers.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import operator
import os
import sys
import types
from typing import Any, Callable

import gast
import jax
import jax.numpy as jnp
import numpy as np

from ..ir.core import ArrayType, Value
from ..graphlib import arrays
from .closures import TracedClosure
from .state import NO_DEFAULT, LocalFunction

_PYTHON_NUMBER = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


class Unobservable(Exception):
    """Python code would look at a trace-time stand-in and could not get
    eager's answer (the site falls back; never an exception eager raises)."""


@functools.lru_cache(maxsize=None)
def _array_exemplars(kind: str, dtype: np.dtype, ndim_zero: bool) -> tuple:
    if kind == "python":
        return (_PYTHON_NUMBER[dtype.kind](0),)
    if kind == "python?":   # a Python number of a type the dtype does not tell
        return False, 0, 0.0, 0j
    if kind == "numpy":
        return (dtype.type(0),) if ndim_zero else (np.zeros(0, dtype),)
    if kind == "array0":   # a 0-d ndarray
        return (np.zeros((), dtype),)
    exemplar = jnp.zeros((), dtype)
    if kind == "jax":
        return (exemplar,)
    found: list = []
    jax.make_jaxpr(lambda t: found.append(t))(exemplar)   # a tracer, for its class only
    return exemplar, found[0]


def array_exemplars(t: ArrayType, outer_traced: bool) -> tuple:
    """Objects of the classes eager may have for an array of type ``t``."""
    kinds = ["traced" if k == "jax" and outer_traced else k for k in sorted(t.kinds)]
    return tuple(e for k in kinds for e in _array_exemplars(k, t.dtype, not t.shape))


def _exemplar_function() -> None:
    """A plain function: what a nested ``def`` or ``lambda`` is in eager Python."""


def eager_exemplars(x: Any, outer_traced: bool = False) -> tuple | None:
    """Objects of eager's classes for the stand-in ``x``: None if ``x`` is no
    stand-in (it is what eager has), ``()`` if eager's class is not known."""
    if isinstance(x, Value):
        return array_exemplars(x.type, outer_traced)
    if isinstance(x, (LocalFunction, TracedClosure)):
        return (_exemplar_function,)
    if isinstance(x, arrays.TracedRange):
        return (range(0),)
    if isinstance(x, arrays.TracedZip):
        return (enumerate(()),) if x.counter is not None else (zip(),)
    if isinstance(x, arrays.DeferredStr):
        return ("",)
    if isinstance(x, standin_types()):
        return ()
    return None


_STANDINS: list[type] = []


def standin(cls: type) -> type:
    """Class decorator: instances of ``cls`` are trace-time stand-ins
    (``standin_types``). The classes live in modules above this one, which
    register them as they are imported (``ast2graph.typeinfer`` imports
    them all before any conversion)."""
    _STANDINS.append(cls)
    standin_types.cache_clear()
    return cls


@functools.lru_cache(maxsize=1)
def standin_types() -> tuple:
    """The classes of trace-time stand-ins: the graph's values, ``graphlib``'s
    helpers, and the classes registered with ``standin``."""
    return (Value, arrays.TracedRange, arrays.TracedZip, arrays.DeferredStr, arrays.ArrayMethod, arrays.AtHelper,
            arrays.AtIndexed, arrays.AtMethod, arrays.SliceSpec, arrays.KnownFlags, LocalFunction, TracedClosure,
            *_STANDINS)


def standins_in(tree: Any) -> list:
    """The stand-ins anywhere in ``tree`` (through tuples, lists, dicts and pytrees)."""
    from ..graphlib.trees import tree_flatten

    kinds = standin_types()
    return [x for x in tree_flatten(tree, leaf_types=kinds)[0] if isinstance(x, kinds)]


def contains_standin(tree: Any, arrays_too: bool = True) -> bool:
    """A stand-in anywhere in ``tree``. ``arrays_too=False``: graph ``Value``s
    and strings formatted from them (``DeferredStr``) do not count."""
    found = standins_in(tree)
    return bool(found) if arrays_too else any(not isinstance(x, (Value, arrays.DeferredStr)) for x in found)


# Callables that only store, pass on or call their arguments: a stand-in
# among them is never looked at by the callable itself.
MOVES_ARGUMENTS = frozenset(map(id, (
    list, tuple, dict, set, frozenset, zip, enumerate, reversed, iter, next, map, filter, sorted, max, min,
    sum, any, all, len, functools.partial, functools.reduce, operator.getitem, operator.setitem,
    operator.itemgetter, operator.contains, setattr, itertools.chain, itertools.product, itertools.repeat,
    itertools.islice, itertools.accumulate, itertools.starmap, itertools.zip_longest,
)))


# Of those, the ones that do nothing with the other arguments but hand them to
# the function argument (so graph values pass through them untouched).
CALLS_ARGUMENTS = frozenset(map(id, (
    map, filter, functools.reduce, itertools.starmap, itertools.accumulate, functools.partial,
)))


def _classes(info: Any) -> list[type]:
    """The classes of an ``isinstance`` class-info (a class, a union, nested tuples)."""
    if isinstance(info, tuple):
        return [c for part in info for c in _classes(part)]
    if isinstance(info, types.UnionType):
        return _classes(info.__args__)
    return [info]


def _one(answers: set, what: str) -> Any:
    if len(answers) != 1:
        raise Unobservable(f"{what} depends on the path taken or on whether the caller runs under a JAX transform")
    return answers.pop()


def _is_instance(exemplars: tuple, info: Any, outer_traced: bool) -> bool:
    if outer_traced and any(isinstance(c, type) and issubclass(c, jax.core.Tracer) for c in _classes(info)):
        raise Unobservable("an isinstance() check for a JAX tracer class, under an outer JAX transform")
    try:
        return _one({isinstance(e, info) for e in exemplars}, "isinstance()")
    except TypeError as e:   # not a class: eager raises TypeError, in its own words
        raise Unobservable(f"isinstance() with {info!r}: {e}") from None


def observe(callee: Any, args: tuple, kwargs: dict, outer_traced: bool,
            attribute: Callable[[Any, str], Any]) -> Any:
    """``callee(*args, **kwargs)`` for an inspecting builtin (``INSPECTORS``)
    applied to stand-ins, as eager answers it; ``NotImplemented`` when it
    looks at no stand-in. ``attribute(obj, name)`` reads an attribute of a
    stand-in as the interpreter does (``x.shape``, ``f.__name__``).
    Raises ``Unobservable`` where eager's answer is not known."""
    if not args or id(callee) not in INSPECTORS:
        return NotImplemented
    obj, name = args[0], callee.__name__
    exemplars = eager_exemplars(obj, outer_traced)
    if exemplars is None:   # a real object: only its contents may be stand-ins
        if id(callee) not in _LOOKS_INSIDE or not contains_standin(args):
            return NotImplemented
        if contains_standin(args, arrays_too=False):
            raise Unobservable(f"{name}() of a container holding ast2graph's trace-time stand-ins")
        return _deferred(callee, args, kwargs)
    if not exemplars:
        raise Unobservable(f"{name}() of {_what(obj)}, whose eager class is not modelled")
    if callee is isinstance and len(args) == 2 and not kwargs:
        return _is_instance(exemplars, args[1], outer_traced)
    if callee is type and len(args) == 1 and not kwargs:
        return _one({type(e) for e in exemplars}, "type()")
    if callee is callable and len(args) == 1 and not kwargs:
        return _one({callable(e) for e in exemplars}, "callable()")
    if callee in (hasattr, getattr) and len(args) in (2, 3) and isinstance(args[1], str) and not kwargs:
        # eager's classes define every attribute their objects have, except
        # what a program sets on a function (``f.calls = 0``)
        has = _one({hasattr(type(e), args[1]) for e in exemplars}, f"{name}()") or args[1] in getattr(obj, "attributes", ())
        if callee is hasattr and len(args) == 2:
            return has
        if has:
            return attribute(obj, args[1])
        if len(args) == 3:
            return args[2]
    if callee is inspect.getattr_static and len(args) in (2, 3) and isinstance(args[1], str) and not kwargs \
            and args[1] not in getattr(obj, "attributes", ()):
        # what the class of eager's object holds (its MRO, its instances' __dict__: the exemplars' own)
        missing = object()
        found = _one({inspect.getattr_static(e, args[1], missing) for e in exemplars}, "inspect.getattr_static()")
        if found is not missing:
            return found
        if len(args) == 3:
            return args[2]
    if isinstance(obj, (Value, arrays.DeferredStr)) and id(callee) in _LOOKS_INSIDE and callee is not hash:
        return _deferred(callee, args, kwargs)
    raise Unobservable(f"{name}() of {_what(obj)} (eager looks at the object itself)")


def _deferred(callee: Any, args: tuple, kwargs: dict) -> Any:
    """``str``/``repr``/``ascii``/``format`` of traced values: formatted on the
    host when printed, from values of eager's kinds (``arrays.DeferredStr``)."""
    spec = args[1] if len(args) == 2 else ""
    if callee is hash or kwargs or len(args) > (2 if callee is format else 1) or not isinstance(spec, str):
        raise Unobservable(f"{callee.__name__}() of traced values")
    if callee is str and isinstance(args[0], arrays.DeferredStr):
        return args[0]
    conversion = {str: "s", repr: "r", ascii: "a", format: ""}[callee]
    return arrays.DeferredStr(((conversion, spec),), (args[0],))


def _what(x: Any) -> str:
    if isinstance(x, Value):
        names = {"python": "a Python number", "python?": "a Python number", "numpy": "a NumPy array",
                 "array0": "a 0-d NumPy array", "jax": "a jax.Array"}
        return f"a traced value ({' or '.join(names.get(k, k) for k in sorted(x.type.kinds))})"
    return f"ast2graph's stand-in for {type(x).__name__}"


# Builtins that look at the object itself (its class, identity, text,
# attributes), not at its value through operators.
INSPECTORS = frozenset(map(id, (
    isinstance, issubclass, type, callable, hasattr, getattr, delattr, id, hash, repr, str, ascii,
    format, vars, dir, memoryview, bytes, bytearray, inspect.getattr_static,
)))
# ... and of those, the ones that look inside a container too.
_LOOKS_INSIDE = frozenset(map(id, (hash, repr, str, ascii, format)))


def same_object(a: Any, b: Any) -> bool:
    """``a is b`` as eager answers it; ``Unobservable`` where it depends on
    data or on whether an op hands back its operand (``np.asarray(x) is x``)."""
    if a is not b and (isinstance(a, arrays.DeferredStr) or isinstance(b, arrays.DeferredStr)):
        # eager's string may be an interned constant, or a cached one-character string
        raise Unobservable("whether a string formatted on the host is another object")
    if a is not b and (getattr(type(a), "stands_for_several", False) or getattr(type(b), "stands_for_several", False)):
        # a stand-in for one of several objects chosen by data (``listindex.PickedRow``)
        raise Unobservable("whether an object picked by a traced index is another object")
    if a is b or not (isinstance(a, Value) or isinstance(b, Value)):
        return a is b
    if isinstance(a, Value) and isinstance(b, Value):
        ta, tb = a.type, b.type
        if ta == tb and ta.kinds & tb.kinds:
            raise Unobservable("whether two traced values are one object (an op may hand back its operand)")
        return False
    value, other = (a, b) if isinstance(a, Value) else (b, a)
    if "python" in value.type.kinds and isinstance(other, (bool, int, float, complex)):
        raise Unobservable("`is` between a traced Python number and a constant depends on its value")
    return False


def function_attribute(fn: Any, name: str) -> Any:
    """``fn.name`` of a local function (``interpreter.LocalFunction``) as the
    function eager Python made has it; AttributeError (eager's) for a name a
    function does not have; ``Unobservable`` for what is not modelled
    (``__code__``, ``__closure__``, ``__dict__``, ...)."""
    unit, tree = fn.unit, fn.unit.tree
    if name in fn.attributes:
        return fn.attributes[name]
    if name == "__name__":
        return tree.name
    if name == "__qualname__":
        if fn.frame is not None and fn.frame.parent is not None and fn.frame.unit is fn.frame.parent.unit \
                and sys.version_info < (3, 12):
            raise Unobservable("the __qualname__ of a function made in a comprehension (its own scope before Python 3.12)")
        return unit.qualname
    if name == "__doc__":
        first = tree.body[0] if tree.body and not isinstance(fn.node, gast.Lambda) else None
        is_doc = isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant) and isinstance(first.value.value, str)
        return inspect.cleandoc(first.value.value) if is_doc and sys.version_info >= (3, 13) else first.value.value if is_doc else None
    if name == "__module__":
        return unit.globals.get("__name__")
    if name == "__globals__":
        return unit.globals
    if name == "__defaults__":
        return tuple(fn.defaults) or None
    if name == "__kwdefaults__":
        args = fn.node.args
        given = {a.id: d for a, d in zip(args.kwonlyargs, fn.kw_defaults) if d is not _no_default()}
        return given or None
    if not hasattr(types.FunctionType, name):
        raise AttributeError(f"'function' object has no attribute '{name}'")
    raise Unobservable(f"the attribute {name!r} of a local function (ast2graph inlines it; there is no function object)")


def _no_default() -> Any:
    return NO_DEFAULT


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def internal_failure(error: BaseException, below: Any = None) -> bool:
    """Whether ``error`` was raised in ast2graph's own code: its innermost
    Python frame below the frame running ``below`` (a code object: the frame
    that called the user's or library's function; None: the whole traceback)
    is in this package. An exception a builtin raised straight into that frame
    is the callee's; one ast2graph re-raises as eager's (``_a2g_eager``) is eager's."""
    if getattr(error, "_a2g_eager", False):
        return False
    tb, last, seen = error.__traceback__, None, below is None
    while tb is not None:
        code = tb.tb_frame.f_code
        if seen:
            last = code.co_filename
        elif code is below:
            seen = True
        tb = tb.tb_next
    return last is not None and os.path.abspath(last).startswith(_PACKAGE)


def traced_as_eager(fn: Any, leaves: list, error: BaseException) -> bool:
    """Whether ``error``, raised by ``fn`` run on JAX tracers, is what eager
    raises (so a handler may take it at trace time): only a JAX function or
    an operator whose array operands are all jax.Arrays in eager sees what
    eager gives it, and only an error that does not name the tracer."""
    module = getattr(fn, "__module__", "") or ""
    jaxlike = module == "jax" or module.startswith(("jax.", "jaxlib", "operator", "_operator", arrays.__name__))
    eager_arrays = all(x.type.kinds == {"jax"} for x in leaves if isinstance(x, Value))
    # a NumPy array JAX cannot hold (strings, objects, records, dates): the refusal is the graph's, and
    # ``arrays.constant`` (a static value staged into the graph) is no op of eager's at all
    unheld = fn is arrays.constant or any(isinstance(x, (np.ndarray, np.generic)) and x.dtype.kind not in "biufc"
                                          for x in leaves)
    return jaxlike and eager_arrays and not unheld and "Tracer" not in str(error) \
        and not contains_standin(leaves, arrays_too=False)


# ndarray methods that change the array in place (jax.Array's namesakes, if
# any, return a new array and leave the operand as it is).
# (``sort``, ``fill`` and ``partition`` are functional updates of the array: ``calls._numpy_write``)
_NUMPY_IN_PLACE = frozenset({"resize", "put", "itemset", "setfield", "setflags", "byteswap"})


def value_attribute_allowed(v: Value, name: str, outer_traced: bool) -> None:
    """``v.name`` of a traced value may be read as the graph reads it (a
    jax.Array's attribute): eager's object has that attribute too, and it is
    not a NumPy method that works in place. ``Unobservable`` otherwise."""
    kinds = v.type.kinds
    if ("numpy" in kinds or "array0" in kinds) and name in _NUMPY_IN_PLACE:
        raise Unobservable(f"ndarray.{name} changes the array in place")
    if kinds == {"jax"} or name in ("shape", "dtype", "ndim", "size") and "python" not in kinds:
        return
    has = {hasattr(type(e), name) for e in array_exemplars(v.type, outer_traced)}
    if has != {True}:
        raise Unobservable(f"attribute {name!r} of {_what(v)}: eager's object "
                           f"{'may not have' if len(has) > 1 else 'does not have'} it")


# --------------------------------------------------------------- inspect
# ``inspect``'s functions of static objects (a function's signature, binding
# arguments to it): run at trace time, as eager runs them, never converted
# (inspect's own code reads interpreter state and builds objects ast2graph
# would otherwise have to model). Each entry: the callable, or the function
# behind a bound method, and whether it only moves its other arguments
# (``Signature.bind`` stores graph values in the ``BoundArguments`` it makes,
# never looks at them).
_INTROSPECTION: dict[int, tuple[Any, bool]] = {id(f): (f, moves) for f, moves in (
    (inspect.signature, False), (inspect.Signature.from_callable.__func__, False),
    (inspect.Signature.bind, True), (inspect.Signature.bind_partial, True),
    (inspect.Signature.replace, False), (inspect.Parameter.replace, False),
    (inspect.BoundArguments.apply_defaults, True), (inspect.Signature, False), (inspect.Parameter, False),
    (inspect.unwrap, False), (inspect.getfullargspec, False),
)}


def introspection(callee: Any) -> tuple[Any, bool] | None:
    """``(function, moves)`` when ``callee`` is one of inspect's trace-time
    functions (``_INTROSPECTION``), or a method bound to one; None otherwise."""
    target = callee.__func__ if isinstance(callee, types.MethodType) else callee
    entry = _INTROSPECTION.get(id(target))
    return entry if entry is not None and entry[0] is target else None


def signature_inputs(obj: Any, depth: int = 0) -> tuple | None:
    """The objects whose identity decides ``inspect.signature(obj)`` (and
    ``inspect.unwrap``, ``getfullargspec``): of a Python function, its code,
    defaults, annotations and its own ``__signature__``/``__wrapped__``,
    through the ``__wrapped__`` chain; of a ``functools.partial`` and a bound
    method, those of what they hold. None where that is not known (a class,
    a builtin, a callable object): the signature itself is then compared."""
    if depth > 32:
        return None
    if isinstance(obj, types.MethodType):
        inner = signature_inputs(obj.__func__, depth + 1)
        return None if inner is None else (obj.__func__, obj.__self__, inner)
    if isinstance(obj, functools.partial):
        inner = signature_inputs(obj.func, depth + 1)
        return None if inner is None else (obj.func, obj.args, tuple(obj.keywords.items()), inner)
    if not isinstance(obj, types.FunctionType):
        return None
    own = obj.__dict__
    annotations = obj.__annotations__
    mine = (obj.__code__, obj.__defaults__, obj.__kwdefaults__, annotations, tuple(annotations.items()),
            own.get("__signature__"), own.get("__wrapped__"), own.get("__text_signature__"))
    wrapped = own.get("__wrapped__")
    if wrapped is None:
        return mine
    inner = signature_inputs(wrapped, depth + 1)
    return None if inner is None else (mine, inner)


def same_inputs(now: Any, then: Any) -> bool:
    """``signature_inputs`` results holding the same objects (by identity)."""
    if type(now) is tuple and type(then) is tuple:
        return len(now) == len(then) and all(same_inputs(a, b) for a, b in zip(now, then))
    return now is then
