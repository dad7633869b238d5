"""NumPy objects the trace made, handed out anew on every call.

Requires: NumPy arrays made at trace time (``np.zeros(3)``, ``v[:, ::-1]``),
static in a graph's outputs.
Produces: ``copy_keeping_views(arrays)``: fresh copies for one call, in which
arrays that shared memory at trace time (a base and its views, two views of one
base) share it again, with the same offsets and strides.
Invariants: a write through any copy shows in exactly the copies whose
originals it would have shown in, as eager's arrays (made anew by each call)
do; an array sharing memory with nothing is copied on its own.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def _root(a: np.ndarray) -> np.ndarray:
    """The array at the end of ``a``'s chain of bases (the one holding the memory)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def copy_keeping_views(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """A copy of each array (the same object once per distinct array), views
    rebuilt over one copy of their common base."""
    roots: dict[int, np.ndarray] = {}
    members: dict[int, list[int]] = {}
    for k, a in enumerate(arrays):
        r = _root(a)
        roots.setdefault(id(r), r)
        members.setdefault(id(r), []).append(k)
    out: list = [None] * len(arrays)
    for rid, ks in members.items():
        distinct = {id(arrays[k]) for k in ks}
        root = roots[rid]
        new_root = root.copy(order="K") if len(distinct) > 1 else None
        if new_root is None or new_root.strides != root.strides or not root.flags.forc:
            made: dict[int, np.ndarray] = {}
            for k in ks:   # nothing shared (or a layout we cannot rebuild): one copy each
                out[k] = made.setdefault(id(arrays[k]), arrays[k].copy())
            continue
        made = {}
        for k in ks:
            a = arrays[k]
            if id(a) not in made:
                made[id(a)] = new_root if a is root else np.ndarray(
                    a.shape, a.dtype, buffer=new_root, offset=_address(a) - _address(root), strides=a.strides)
            out[k] = made[id(a)]
    return out


def calling(fn: Any) -> Any:
    """A Python function calling the NumPy function ``fn`` (``np.polyval``)
    as a user's function would: converted, the call is the graph's array op
    for ``fn`` (``jnp.polyval`` on traced values, with NumPy's result kinds
    and dtypes), as inside any user function."""
    def numpy_function(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    numpy_function.__qualname__ = numpy_function.__name__ = getattr(fn, "__name__", "numpy_function")
    return numpy_function


def has_graph_equivalent(fn: Any) -> bool:
    """Whether a NumPy function called on traced values runs as a JAX op."""
    from .calls import _numpy_to_jnp

    return _numpy_to_jnp(fn) is not fn


def with_eager_containers(callee: Any, args: tuple, kwargs: dict, result: Any) -> Any:
    """``result`` (what the JAX equivalent of the NumPy function ``callee``
    gave on traced values) in the containers eager's ``callee`` returns:
    ``np.meshgrid`` gives a tuple where ``jnp.meshgrid`` gives a list,
    ``np.linalg.eigh`` NumPy's ``EighResult``. Eager's are read by running
    ``callee`` once on data of the operands' kinds (NumPy functions are pure);
    a result that is no list or tuple is returned as it is."""
    if not isinstance(result, (list, tuple)):
        return result
    import warnings

    from ..ir.core import Value
    from .mutation import _PROBE_SEED, _exemplar
    from .trees import tree_flatten

    rng = np.random.default_rng(_PROBE_SEED)
    leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
    dummies = [_exemplar(x, rng) if isinstance(x, Value) else x for x in leaves]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            dargs, dkwargs = jax.tree_util.tree_unflatten(treedef, dummies)
            eager = callee(*dargs, **dkwargs)
    except Exception:  # noqa: BLE001 - eager's containers not known: left as they are
        return result
    return _restructure(eager, result)


def _restructure(eager: Any, mine: Any) -> Any:
    if not (isinstance(eager, (list, tuple)) and isinstance(mine, (list, tuple)) and len(eager) == len(mine)):
        return mine
    items = [_restructure(e, m) for e, m in zip(eager, mine)]
    kind = type(eager)
    if kind is list or kind is tuple:
        return kind(items)
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):   # a named tuple (EighResult, SVDResult)
        return kind(*items)
    return type(mine)(items)


# NumPy's conversion functions on traced values, as JAX ops: the memory layout
# (``order``) never changes a value, and a result that may be the operand
# itself (``copy=None``) is marked a view of it (mutation.VIEW_NAMES), so a
# write through either falls back unless nothing else sees the array.
def asarray(a: Any, dtype: Any = None, order: Any = None, **_: Any) -> Any:
    return jnp.asarray(a, dtype=dtype)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, **_: Any) -> Any:
    return jnp.asarray(a, dtype=dtype)


def ascontiguousarray(a: Any, dtype: Any = None, **_: Any) -> Any:
    return jnp.asarray(a, dtype=dtype)


def array(a: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K", subok: bool = False, ndmin: int = 0,
          **_: Any) -> Any:
    return jnp.array(a, dtype=dtype, ndmin=ndmin)


def conversion(callee: Any, args: tuple, kwargs: dict) -> Any:
    """The JAX op for a NumPy conversion call on traced values (``np.asanyarray(x,
    order='C')``, ``np.array(x, copy=None)``), or None where there is none
    (``like=``, ``copy=False``, an unknown keyword: the call falls back)."""
    name = getattr(callee, "__name__", "")
    if not isinstance(callee, type(np.asarray)) or callee is not getattr(np, name, None) \
            or name not in ("asarray", "asanyarray", "ascontiguousarray", "array"):
        return None
    allowed = {"asarray": {"dtype", "order", "copy", "device"}, "asanyarray": {"dtype", "order", "copy", "device"},
               "ascontiguousarray": {"dtype"}, "array": {"dtype", "copy", "order", "subok", "ndmin"}}[name]
    if set(kwargs) - allowed or kwargs.get("device") not in (None, "cpu") or len(args) > 3:
        return None
    copy = kwargs.get("copy", True if name == "array" else None)
    if copy is False or isinstance(copy, np._CopyMode) and copy is np._CopyMode.NEVER:
        return None   # raises where a copy is needed: eager decides it
    if name == "array":
        if kwargs.get("subok"):
            return None
        # copy=None (or IF_NEEDED) may hand back the operand itself: a view, as np.asarray
        return array if copy is True or copy is np._CopyMode.ALWAYS else _array_if_needed
    return {"asarray": asarray, "asanyarray": asanyarray, "ascontiguousarray": ascontiguousarray}[name]


def _array_if_needed(a: Any, dtype: Any = None, *, copy: Any = None, order: Any = "K", subok: bool = False,
                     ndmin: int = 0) -> Any:
    return jnp.array(a, dtype=dtype, ndmin=ndmin)


_array_if_needed.__name__ = "asarray"   # mutation.VIEW_NAMES: may be the operand itself


def returns_operand(callee: Any, args: tuple, kwargs: dict) -> bool:
    """Whether eager's ``np.asarray(x)`` (``asanyarray``, ``array(x, copy=None)``)
    of the NumPy array ``x`` (``args[0]``, a graph value of NumPy kind) is ``x``
    itself: no dtype change, no ``ndmin``, and an order any layout satisfies."""
    from ..ir.core import Value

    fn = conversion(callee, args, kwargs)
    if fn not in (asarray, asanyarray, _array_if_needed) or not args or len(args) > 1:
        return False
    x = args[0]
    if not (isinstance(x, Value) and x.type.numpy and not x.type.python and x.type.shape):
        return False
    dtype = kwargs.get("dtype")
    return (dtype is None or np.dtype(dtype) == x.type.dtype) and kwargs.get("order") in (None, "K", "A") \
        and not kwargs.get("ndmin")


def python_code(callee: Any) -> Any:
    """The Python function of NumPy's own (``np.asarray_chkfinite``, a
    dispatcher's ``_implementation``) to convert when ``callee`` is called on
    traced values and has no JAX equivalent (``np.sin``, ``np.polyval`` run as
    JAX ops) nor a rule here (``conversion``); None otherwise."""
    import types

    from ..parser.unwrap import array_function_implementation

    if isinstance(callee, np.ufunc) or has_graph_equivalent(callee) or conversion(callee, (), {}) is not None:
        return None
    fn = array_function_implementation(callee) or callee
    module = getattr(fn, "__module__", "") or ""
    if not isinstance(fn, types.FunctionType) or not (module == "numpy" or module.startswith("numpy.")) \
            or fn.__code__.co_filename[:1] == "<":
        return None
    return fn
