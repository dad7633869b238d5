"""Python's operator protocol for objects whose class defines it in Python.

Requires: the interpreter's ``call`` (a function converted like any call)
and ``binop``/``static_call`` for the operands' own operators.
Produces: ``OperatorMixin.user_operator(fn, operands, node)``: ``a + b``,
``a += b``, ``a < b``, ``-a`` where ``a`` or ``b`` is an instance of a class
whose dunder method (``__add__``/``__radd__``/``__iadd__``, ``__lt__``/
``__gt__``, ``__neg__``, ...) is a Python function: that method converted as
a call, in Python's order (a subclass's reflected method first; the
reflected one when the first gives ``NotImplemented``; ``__iadd__`` before
``__add__``); ``NOT_USER`` where no such method is involved.
Invariants: a user's operator method is never run at trace time on graph
values: its effects (a counter, an appended list) happen on every call, as
eager's, and graph values reach it as graph values (``Vec(x, y) * 2``).
"""

from __future__ import annotations

import inspect
import operator
import types
from typing import Any

from ..fallback.sites import FallbackCode

NOT_USER = object()

_BINARY = {
    operator.add: ("__add__", "__radd__"), operator.sub: ("__sub__", "__rsub__"),
    operator.mul: ("__mul__", "__rmul__"), operator.truediv: ("__truediv__", "__rtruediv__"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__"), operator.mod: ("__mod__", "__rmod__"),
    operator.pow: ("__pow__", "__rpow__"), operator.matmul: ("__matmul__", "__rmatmul__"),
    operator.lshift: ("__lshift__", "__rlshift__"), operator.rshift: ("__rshift__", "__rrshift__"),
    operator.and_: ("__and__", "__rand__"), operator.or_: ("__or__", "__ror__"),
    operator.xor: ("__xor__", "__rxor__"),
    # comparisons: the reflection of `a < b` is `b > a`
    operator.lt: ("__lt__", "__gt__"), operator.le: ("__le__", "__ge__"), operator.gt: ("__gt__", "__lt__"),
    operator.ge: ("__ge__", "__le__"), operator.eq: ("__eq__", "__eq__"), operator.ne: ("__ne__", "__ne__"),
}
_INPLACE = {
    operator.iadd: ("__iadd__", operator.add), operator.isub: ("__isub__", operator.sub),
    operator.imul: ("__imul__", operator.mul), operator.itruediv: ("__itruediv__", operator.truediv),
    operator.ifloordiv: ("__ifloordiv__", operator.floordiv), operator.imod: ("__imod__", operator.mod),
    operator.ipow: ("__ipow__", operator.pow), operator.imatmul: ("__imatmul__", operator.matmul),
    operator.ilshift: ("__ilshift__", operator.lshift), operator.irshift: ("__irshift__", operator.rshift),
    operator.iand: ("__iand__", operator.and_), operator.ior: ("__ior__", operator.or_),
    operator.ixor: ("__ixor__", operator.xor),
}
_UNARY = {operator.neg: "__neg__", operator.pos: "__pos__", operator.invert: "__invert__"}


def python_method(obj: Any, name: str) -> Any:
    """The Python function that implements ``name`` for ``obj``'s class (looked
    up on the class, as Python's operators do), or None: a builtin's slot, a
    class that does not define it, a method generated without source (as
    ``calls._python_init`` leaves a dataclass's ``__init__``)."""
    if isinstance(obj, type) or (type(obj).__module__ or "").split(".")[0] == "ast2graph":
        return None   # a class; ast2graph's own stand-ins (a formatted string) have their own rules
    try:
        fn = inspect.getattr_static(type(obj), name)
    except AttributeError:
        return None
    from ..resolver import CallKind, classify_callee

    if not isinstance(fn, types.FunctionType) or fn.__code__.co_filename[:1] == "<":
        return None   # code made by exec (a dataclass's __eq__ and __lt__): no source, run as the operand's operator
    # the user's, or a library's other than JAX's and NumPy's (array-api-extra's ``at(x)[idx]``), as calls of
    # a library's functions are converted
    return fn if classify_callee(fn) in (CallKind.USER_FUNCTION, CallKind.OPAQUE) else None


def has_user_operator(fn: Any, operands: tuple) -> bool:
    names = _names(fn)
    return bool(names) and any(python_method(x, n) is not None for x in operands for n in names)


def _names(fn: Any) -> tuple:
    if fn in _INPLACE:
        return (_INPLACE[fn][0], *_BINARY[_INPLACE[fn][1]])
    if fn in _BINARY:
        return _BINARY[fn]
    return (_UNARY[fn],) if fn in _UNARY else ()


class OperatorMixin:
    def user_operator(self, fn: Any, operands: tuple, node: Any) -> Any:
        if fn is operator.ne and not has_user_operator(fn, operands) and has_user_operator(operator.eq, operands):
            return self._negated(self._binary_protocol(operator.eq, *operands, node), node)   # object.__ne__
        if not has_user_operator(fn, operands):
            return NOT_USER
        if fn in _UNARY:
            return self.call(python_method(operands[0], _UNARY[fn]), operands, {}, node)
        left, right = operands
        if fn in _INPLACE:
            name, fn = _INPLACE[fn]
            method = python_method(left, name)
            if method is not None:
                out = self.call(method, (left, right), {}, node)
                if out is not NotImplemented:
                    return out
        return self._binary_protocol(fn, left, right, node)

    def _binary_protocol(self, fn: Any, left: Any, right: Any, node: Any) -> Any:
        """``left.__op__(right)``, then ``right.__rop__(left)`` (the reflected
        one first when ``right``'s class is a subclass of ``left``'s that
        overrides it); a side that is not the user's own runs as the
        operand's operator would (``NotImplemented`` from a builtin's slot)."""
        forward, reflected = _BINARY[fn]
        order = [(left, forward, right), (right, reflected, left)]
        if type(right) is not type(left) and isinstance(right, type(left)) and \
                python_method(right, reflected) is not python_method(left, reflected):
            order.reverse()
        for obj, name, other in order:
            method = python_method(obj, name)
            if method is None:
                if getattr(type(obj), name, None) is None or _declines(obj, other):
                    continue
                # another class's slot (a NumPy array makes an object array of a user object)
                raise self.graph_break(FallbackCode.OPAQUE_CALL, node, f"{type(obj).__name__}.{name} of an object "
                                       f"of the user's class {type(other).__name__} (Python's operator protocol "
                                       "between a builtin and a user class)")
            out = self.call(method, (obj, other), {}, node)
            if out is not NotImplemented:
                return out
        if fn in (operator.eq, operator.ne):   # identity, as object's default
            return (left is right) == (fn is operator.eq)
        raise self.graph_break(FallbackCode.TRACE_ERROR, node, f"unsupported operand types for {fn.__name__}: "
                               f"{type(left).__name__} and {type(right).__name__} (eager raises TypeError)")

    def _negated(self, out: Any, node: Any) -> Any:
        from ..graphlib import arrays
        from ..ir.core import Value

        truth = self.truth(out, node)
        if isinstance(truth, Value):
            neg = self.emit_call(arrays.logical_not, (truth,), {}, node, "not")
            neg.type = neg.type.with_kinds(("python",))
            return neg
        return not truth


_DECLINING = (bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset, type(None))


def _declines(obj: Any, other: Any) -> bool:
    """Whether ``obj``'s own (builtin) operator returns NotImplemented for the
    user's object ``other``: a Python number, string or container does, and so
    does a jax.Array or a traced Python number (JAX defers to unknown types)."""
    from ..ir.core import Value

    if type(obj) in _DECLINING:
        return not isinstance(other, type(obj))
    return isinstance(obj, Value) and not obj.type.mixed and not obj.type.numpy


def numpy_operands(left: Any, right: Any) -> bool:
    """Both operands of NumPy's rules: NumPy arrays or scalars (graph values of
    NumPy kind, or NumPy objects) and Python numbers, at least one an integer
    or float16 array of NumPy kind (NumPy's half loops compute ``//``, ``%``
    and ``**`` at float32 and round once, where JAX's composite ops round at
    float16 between steps); no jax.Array (NumPy defers to JAX's operators)
    and no value whose kind depends on the path."""
    import numpy as np

    from ..ir.core import Value

    numpy_int = False
    for x in (left, right):
        if isinstance(x, Value):
            if x.type.mixed or not x.type.kinds <= {"numpy", "array0", "python"}:
                return False
            numpy_int |= "python" not in x.type.kinds and (x.type.dtype.kind in "iu" or x.type.dtype == np.float16)
        elif not isinstance(x, (bool, int, float, np.ndarray, np.generic)):
            return False
    return numpy_int
