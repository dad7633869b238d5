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

import functools
import inspect
import math
import re
from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from ..graphlib import casts
from ..graphlib.casts import half_from_double
from . import numpy_inplace, scipy_api
from .numpy_inplace import not_numpys, writes_argument


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


def numpy_to_jnp(fn: Any) -> Any:
    """``np.sin`` called on a traced array runs as ``jnp.sin``. SciPy's functions
    are left as they are: ``scipy.special.erf`` runs as ``jax.scipy.special.erf``
    only where ``scipy_api.equivalent`` validated it for the call's signature."""
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__name__", None)
    if scipy_api.public_name(fn) is not None:
        return fn   # SciPy's: JAX's namesake only where validated for the call (scipy_api.equivalent)
    if isinstance(fn, np.ufunc) and name and hasattr(jnp, name):
        return getattr(jnp, name)
    if module.startswith("numpy") and name:
        # only the namesake of NumPy's own namespaces: np.emath.sqrt (complex for negative
        # values), np.ma.sum or numpy.polynomial's polyval are not np.sqrt, np.sum, np.polyval
        for home, target in ((np, jnp), (np.linalg, jnp.linalg), (np.fft, jnp.fft)):
            if getattr(home, name, None) is fn and hasattr(target, name):
                return getattr(target, name)
    return fn


_REFUSED = re.compile(r"requires ndarray or scalar arguments, got <class '(?:list|tuple)'> at position (\d+)")


def refused_sequence(fn: Any, callee: Any, args: tuple, kwargs: dict, cause: str) -> int | str | None:
    """Where JAX's ``fn``, standing for the NumPy function ``callee``, refused a
    list or tuple of numbers that NumPy converts to an array (``cause``: the
    fallback's message, jax.numpy's ``check_arraylike`` naming the operand's
    position among its parameters): that operand's index in ``args`` or its
    keyword in ``kwargs``. None where it is anything else (another error, no
    NumPy function, an operand that is no sequence of numbers)."""
    found = _REFUSED.search(cause)
    if found is None or fn is callee or not is_numpy(callee):
        return None
    position = int(found.group(1))
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return None
    name = names[position] if position < len(names) else None
    where: int | str | None = name if name is not None and name in kwargs else \
        position if position < len(args) else None
    operand = kwargs[where] if isinstance(where, str) else args[where] if where is not None else None
    if _numbers_sequence(operand):
        return where
    # the position is among the operands of one check, not the signature's (jnp.diff checks
    # prepend= and append= each on its own: "at position 0"): the first sequence of numbers
    return next((k for k, x in (*enumerate(args), *kwargs.items()) if _numbers_sequence(x)), None)


def _numbers_sequence(x: Any) -> bool:
    """A non-empty list or tuple (nested) of numbers: Python's and NumPy's
    numbers and 0-d graph values, what ``np.asarray`` makes a numeric array of."""
    from ..ir.core import Value

    if type(x) not in (list, tuple) or not x:
        return False
    return all(_numbers_sequence(v) if type(v) in (list, tuple) else
               isinstance(v, Value) and not v.type.shape and not v.type.mixed or
               type(v) in (bool, int, float, complex) or isinstance(v, np.generic) and v.dtype.kind in "biufc"
               for v in x)


def narrow_steps(callee: Any, leaves: list) -> bool:
    """Whether NumPy's ``callee``, a function written in Python, is given
    float operands of mixed widths: an array of 16 or 32 bits beside a 64-bit
    array or NumPy scalar (not a Python number: it does not widen). Its
    Python may compute some steps at the narrow width before the wide operand
    joins (``np.percentile(x32, [5, 95])``: ``b - a`` in float32, then the
    float64 weights), where the graph's op widens first: a last-bit
    difference in a float64 result."""
    if numpy_source(callee) is None:
        return False
    narrow = wide = False
    for dtype in _operand_dtypes(leaves):
        if dtype.kind in "fc" and dtype.itemsize < (8 if dtype.kind == "f" else 16):
            narrow = True
        elif dtype.kind in "iufc" and dtype.itemsize >= 8:
            wide = True
    return narrow and wide


def half_steps(callee: Any, leaves: list) -> bool:
    """Whether NumPy's ``callee`` evaluates a series in Python (``np.i0``'s
    Chebyshev series: ``x * b1 - b2 + c``, three roundings a term) and is
    given a float16 operand: each step rounds at float16, where its JAX
    namesake computes at float32 and rounds once, differences of many
    float16 ulps that the exemplars do not show. (Not every NumPy Python
    function of float16 data: most compute as their namesakes, and their
    own Python does not always convert. ``np.nanquantile``'s per-slice
    ``_lerp`` of float16 data: the same, its replacement being float64's.)"""
    return any(callee is f for f in _HALF_SERIES) and any(d == np.float16 for d in _operand_dtypes(leaves))


_HALF_SERIES = (np.i0, np.nanquantile, np.nanpercentile)


def narrow_ints(leaves: list, signed: bool = False) -> bool:
    """Whether some operand is an integer or boolean array or NumPy scalar
    narrower than 64 bits (not a Python number: NumPy makes it int64): NumPy
    may compute a step at its width, where it wraps (``numpy_probe.differs_wrapping``).
    ``signed``: a signed integer one (``b - a`` of sorted data may wrap)."""
    return any(d.kind in ("i" if signed else "iub") and d.itemsize < 8 for d in _operand_dtypes(leaves))


def _operand_dtypes(leaves: list) -> Any:
    """The dtypes of the array operands among ``leaves``: a graph value of
    one kind, a NumPy array or scalar (a Python number, which NumPy widens,
    is left out)."""
    from ..ir.core import Value

    for x in leaves:
        if isinstance(x, Value):
            if not x.type.mixed and x.type.kinds != {"python"}:
                yield x.type.dtype
        elif isinstance(x, (np.ndarray, np.generic)):
            yield x.dtype


def interpolates_narrow(callee: Any) -> bool:
    """NumPy's quantiles (``_lerp``: ``b - a`` at the data's width, then the
    float64 weights): a difference only where two neighbouring order
    statistics round apart at 32 bits, which exemplar data rarely shows
    (``numpy_probe.differs_at_width`` would miss it)."""
    return any(callee is f for f in (np.percentile, np.quantile, np.nanpercentile, np.nanquantile))


def has_graph_equivalent(fn: Any) -> bool:
    """Whether a NumPy function called on traced values runs as a JAX op."""
    if not REPLACEMENTS:
        REPLACEMENTS.update(_replacements())
    return numpy_to_jnp(fn) is not fn or id(fn) in REPLACEMENTS or writes_argument(fn)


def with_eager_containers(callee: Any, args: tuple, kwargs: dict, result: Any) -> Any:
    """``result`` (what the JAX equivalent of the NumPy function ``callee``
    gave on traced values) in the containers eager's ``callee`` returns:
    ``np.meshgrid`` gives a tuple where ``jnp.meshgrid`` gives a list,
    ``np.linalg.eigh`` NumPy's ``EighResult``. Eager's are read by running
    ``callee`` once on data of the operands' kinds (``numpy_probe``, cached;
    NumPy functions are pure); a result that is no list or tuple is returned
    as it is."""
    if not isinstance(result, (list, tuple)):
        return result
    from ..ir.core import Value
    from .numpy_probe import eager_probe
    from ..graphlib.trees import tree_flatten

    leaves, treedef = tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
    probe = eager_probe(callee, treedef, leaves)
    return result if probe is None else _restructure(probe.result, result)


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


def to_dtype(a: Any, dtype: Any) -> Any:
    """``jnp.asarray(a, dtype)``, a float64 (complex128) array to float16 rounded once (``casts.half_from_double``)."""
    x = jnp.asarray(a)
    if dtype is not None and np.dtype(dtype) == np.float16 and x.dtype in (jnp.float64, jnp.complex128):
        return half_from_double(jnp.real(x) if x.dtype == jnp.complex128 else x)
    return jnp.asarray(x, dtype=dtype)


def _converted(a: Any, dtype: Any) -> Any:
    return a if dtype is None or not isinstance(a, jax.Array) else to_dtype(a, dtype)


# NumPy's conversion functions on traced values, as JAX ops: the memory layout
# (``order``) never changes a value, and a result that may be the operand
# itself (``copy=None``) is marked a view of it (mutation.VIEW_NAMES), so a
# write through either falls back unless nothing else sees the array.
def asarray(a: Any, dtype: Any = None, order: Any = None, **_: Any) -> Any:
    return jnp.asarray(_converted(a, dtype), dtype=dtype)


def asanyarray(a: Any, dtype: Any = None, order: Any = None, **_: Any) -> Any:
    return jnp.asarray(_converted(a, dtype), dtype=dtype)


def ascontiguousarray(a: Any, dtype: Any = None, **_: Any) -> Any:
    return jnp.asarray(_converted(a, dtype), dtype=dtype)


def array(a: Any, dtype: Any = None, *, copy: Any = True, order: Any = "K", subok: bool = False, ndmin: int = 0,
          **_: Any) -> Any:
    return jnp.array(_converted(a, dtype), dtype=dtype, ndmin=ndmin)


def _fill(value: Any, dtype: Any) -> Any:
    return to_dtype(value, dtype) if dtype is not None and isinstance(value, jax.Array) else value


def full(shape: Any, fill_value: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """``np.full``: a float64 fill value of a float16 array rounded once (``to_dtype``)."""
    return jnp.full(shape, _fill(fill_value, dtype), dtype, **kwargs)


def full_like(a: Any, fill_value: Any, dtype: Any = None, **kwargs: Any) -> Any:
    """``np.full_like``: as ``full``, the dtype ``a``'s where none is given."""
    target = dtype if dtype is not None else getattr(a, "dtype", None)
    return jnp.full_like(a, _fill(fill_value, target), dtype, **kwargs)


def half(x: Any = 0, *args: Any, **kwargs: Any) -> Any:
    """``np.float16(x)``: float64 data rounded once (``to_dtype``)."""
    if args or kwargs:
        return jnp.float16(x, *args, **kwargs)
    return to_dtype(x, np.float16) if isinstance(x, jax.Array) else jnp.float16(x)


def conversion(callee: Any, args: tuple, kwargs: dict) -> Any:
    """The JAX op for a NumPy conversion call on traced values (``np.asanyarray(x,
    order='C')``, ``np.array(x, copy=None)``), or None where there is none
    (``like=``, ``copy=False``, an unknown keyword: the call falls back)."""
    name = getattr(callee, "__name__", "")
    if callee is np.from_dlpack:
        return _from_dlpack(args, kwargs)
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


def _from_dlpack(args: tuple, kwargs: dict) -> Any:
    """``np.from_dlpack(x, device="cpu")`` of a NumPy array (sklearn's
    ``move_to(x, xp=np, device="cpu")``): a new array object viewing ``x``'s
    memory (read-only where ``x`` is), as ``np.asarray`` of it with the
    object made anew; ``copy=True``: a copy. None for any other operand (a
    jax.Array, a NumPy scalar: eager raises) or keyword."""
    from ..ir.core import Value

    x = args[0] if args else kwargs.get("x")
    if len(args) > 1 or set(kwargs) - {"x", "device", "copy"} or kwargs.get("device") not in (None, "cpu") \
            or not (isinstance(x, Value) and x.type.kinds == frozenset({"numpy"}) and x.type.shape
                    and not x.type.mixed):
        return None
    copy = kwargs.get("copy")
    if copy is True:
        return array
    return _dlpack_view if copy is None or copy is False else None


def _dlpack_view(x: Any, device: Any = None, copy: Any = None) -> Any:
    return jnp.asarray(x)


_dlpack_view.__name__ = "asarray"   # mutation.VIEW_NAMES: a view of the operand (a new object)


def _array_if_needed(a: Any, dtype: Any = None, *, copy: Any = None, order: Any = "K", subok: bool = False,
                     ndmin: int = 0) -> Any:
    return jnp.array(_converted(a, dtype), dtype=dtype, ndmin=ndmin)


_array_if_needed.__name__ = "asarray"   # mutation.VIEW_NAMES: may be the operand itself


# NumPy functions whose result depends on their operands' dtypes and eager
# kinds alone (NumPy 2's promotion, NEP 50: a Python number is weak, a NumPy
# scalar or array strong), never on their data: run by NumPy at trace time on
# exemplars of those kinds. Their JAX namesakes follow JAX's own rules
# (``jnp.result_type`` of float32 and int64 is float32 where NumPy's is float64;
# ``np.isscalar`` of a 0-d array is False, ``jnp.isscalar``'s True).
_BY_KINDS = ("result_type", "can_cast", "common_type", "isscalar")


def decided_by_kinds(callee: Any) -> bool:
    """Whether ``callee`` is one of NumPy's functions of dtypes and kinds only (``_BY_KINDS``)."""
    return any(callee is getattr(np, name, None) for name in _BY_KINDS)


# NumPy's reductions taking ``initial=``, and the ndarray methods among them
_INITIAL_REDUCTIONS = ("sum", "prod", "max", "min", "amax", "amin", "nansum", "nanprod", "nanmax", "nanmin")
INITIAL_METHODS = ("sum", "prod", "max", "min")


def takes_initial(callee: Any) -> bool:
    """Whether ``callee`` is one of NumPy's reductions with an ``initial=`` (``_INITIAL_REDUCTIONS``)."""
    return any(callee is getattr(np, name, None) for name in _INITIAL_REDUCTIONS)


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
    JAX ops) nor a rule here (``conversion``, ``REPLACEMENTS``); None otherwise."""
    if isinstance(callee, np.ufunc) or has_graph_equivalent(callee) or conversion(callee, (), {}) is not None:
        return None
    return numpy_source(callee)


# ------------------------------------------------------------------ graph ops
# The graph's op for a NumPy function called on traced values is its JAX
# namesake (``np.sin`` -> ``jnp.sin``) only where that computes what NumPy
# computes: the same results, shapes, dtypes and kinds. Where it does not for
# a reason written down here (a default, a signature, the order of ties), a
# function below with NumPy's signature computes NumPy's result with JAX ops
# (``REPLACEMENTS``); where the difference depends on the data in a way no
# exemplar shows, the call runs NumPy's own Python or falls back
# (``DATA_DEPENDENT``); any other difference is found by running both on
# exemplar data once per function and signature (``numpy_probe.differs``).


def _host_numpy(fn: Any, shape: tuple, dtype: Any, *operands: Any) -> Any:
    """``fn(*operands)`` run by NumPy on the host (a pure callback), as an array of ``shape`` and ``dtype``."""
    from ..graphlib.hostcalls import pure_host_call

    def host(*arrays: Any) -> np.ndarray:
        return np.asarray(fn(*arrays), dtype=dtype)

    return pure_host_call(host, jax.ShapeDtypeStruct(shape, dtype), *operands, vmap_method="sequential")


def float_to_int(x: Any, dtype: Any) -> Any:
    """``x.astype(dtype)`` of a NumPy float array to an integer dtype: XLA
    truncates toward zero as NumPy does, but where a value is NaN, infinite
    or beyond the integer range NumPy's answer is the platform's (INT_MIN on
    x86 for int32/int64, bits wrapped for narrower types) and XLA saturates:
    those calls convert on the host with NumPy itself (a callback that runs
    only then, warning as eager warns)."""
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    lo, hi = float(info.min), float(info.max) + 1.0   # both exact in float32 and float64
    x = jnp.asarray(x)
    in_range = jnp.all(jnp.isfinite(x) & (x >= lo) & (x < hi))

    def cast(a: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):   # the graph warns from the user's line, in order (calls.numpy_fp_warnings)
            return a.astype(dtype)

    def on_host(v: Any) -> Any:
        return _host_numpy(cast, v.shape, dtype, v)

    return jax.lax.cond(in_range, lambda v: v.astype(dtype), on_host, x)


def float_narrow(x: Any, dtype: Any) -> Any:
    """``x.astype(dtype)`` of a NumPy float (complex) array to a float (complex)
    dtype of a smaller range: the cast itself (its "overflow encountered in
    cast" is ``calls.numpy_fp_warnings``'s)."""
    return to_dtype(x, dtype)


def _has_ties(sorted_values: Any, axis: int) -> Any:
    """Whether two neighbours along ``axis`` of sorted data are equal (NaNs equal to each other, -0.0 to 0.0)."""
    n = sorted_values.shape[axis]
    if n < 2:
        return jnp.zeros((), bool)
    a = jax.lax.slice_in_dim(sorted_values, 1, n, axis=axis)
    b = jax.lax.slice_in_dim(sorted_values, 0, n - 1, axis=axis)
    same = a == b
    if jnp.issubdtype(sorted_values.dtype, jnp.inexact):
        same = same | jnp.isnan(a) & jnp.isnan(b)
    return jnp.any(same)


def argsort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
    """``np.argsort``: NumPy's default sort (quicksort, heapsort) is not
    stable, JAX's is: equal keys may come in another order. A stable kind
    is JAX's result; otherwise, where the data has ties, NumPy sorts on the
    host (a callback that runs only then)."""
    if order is not None:
        raise not_numpys("np.argsort with order= (structured arrays)")
    x = jnp.asarray(a)
    if axis is None:
        x, axis = jnp.ravel(x), -1
    axis = axis % max(x.ndim, 1)
    indices = jnp.argsort(x, axis=axis, stable=True)
    if stable or kind in ("stable", "mergesort") or x.ndim == 0:
        return indices
    ties = _has_ties(jnp.take_along_axis(x, indices, axis=axis), axis)

    def numpy_order(values: Any) -> Any:
        return _host_numpy(lambda v: np.argsort(v, axis=axis, kind=kind), indices.shape, indices.dtype, values)

    return jax.lax.cond(ties, numpy_order, lambda _: indices, x)


def sort(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Any:
    """``np.sort``: the sorted values do not depend on the algorithm (``kind``)."""
    if order is not None:
        raise not_numpys("np.sort with order= (structured arrays)")
    return jnp.sort(a, axis=axis)


def isin(element: Any, test_elements: Any, assume_unique: bool = False, invert: bool = False, *,
         kind: Any = None) -> Any:
    """``np.isin``: the answer does not depend on the algorithm (``kind``);
    ``kind="table"`` of other than integer or bool operands raises in NumPy
    (eager's error: the call falls back), as does an unknown ``kind``."""
    element, test_elements = jnp.asarray(element), jnp.asarray(test_elements)
    if kind not in (None, "sort", "table") or kind == "table" and \
            not all(jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_ for x in (element, test_elements)):
        raise not_numpys(f"np.isin with kind={kind!r} of these operands (NumPy raises)")
    return jnp.isin(element, test_elements, assume_unique=assume_unique, invert=invert)


def tril(m: Any, k: int = 0) -> Any:
    """``np.tril``: a 1-D operand is a row repeated (NumPy broadcasts it to a square)."""
    m = jnp.asarray(m)
    if m.ndim == 1:
        m = jnp.broadcast_to(m, (m.shape[0], m.shape[0]))
    return jnp.tril(m, k)


def triu(m: Any, k: int = 0) -> Any:
    """``np.triu``: a 1-D operand is a row repeated (NumPy broadcasts it to a square)."""
    m = jnp.asarray(m)
    if m.ndim == 1:
        m = jnp.broadcast_to(m, (m.shape[0], m.shape[0]))
    return jnp.triu(m, k)


_NO_VALUE = getattr(np, "_NoValue", None)


def pinv(a: Any, rcond: Any = None, hermitian: bool = False, *, rtol: Any = _NO_VALUE) -> Any:
    """``np.linalg.pinv``: NumPy's cutoff for small singular values (1e-15
    by default; JAX's default is ``10 * max(M, N) * eps``)."""
    if rcond is None:
        if rtol is _NO_VALUE:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(np.shape(a)[-2:]) * np.finfo(jnp.result_type(a, 1.0)).eps
        else:
            rcond = rtol
    elif rtol is not _NO_VALUE:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    return jnp.linalg.pinv(a, rtol=rcond, hermitian=hermitian)


def matrix_rank(A: Any, tol: Any = None, hermitian: bool = False, *, rtol: Any = None) -> Any:
    """``np.linalg.matrix_rank``: ``tol`` absolute, ``rtol`` relative to the
    largest singular value (JAX takes both as absolute), an int64 count."""
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = jnp.asarray(A)
    if A.ndim < 2:
        return jnp.any(A != 0).astype(_int64())
    S = jnp.linalg.svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        rtol = max(A.shape[-2:]) * jnp.finfo(S.dtype).eps if rtol is None else jnp.asarray(rtol)[..., None]
        tol = jnp.max(S, axis=-1, keepdims=True, initial=0) * rtol
    else:
        tol = jnp.asarray(tol)[..., None]
    return jnp.count_nonzero(S > tol, axis=-1).astype(_int64())


def _int64() -> np.dtype:
    """NumPy's int64 as the graph holds it: int64 where the graph is traced
    with 64-bit values on (``precision.py``), else int32 (as ``astype(np.int64)``
    gives, without JAX's truncation warning: the typing pass runs with x64 off)."""
    return jax.dtypes.canonicalize_dtype(np.int64)


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Any:
    """``np.searchsorted``: NumPy's int64 indices; where ``a`` is not sorted
    (NumPy's precondition, whose breach gives what its binary search finds),
    NumPy searches on the host (a callback that runs only then)."""
    found = jnp.searchsorted(a, v, side=side, sorter=sorter).astype(_int64())
    a = jnp.asarray(a)
    keys = a if sorter is None else a[jnp.asarray(sorter)]
    if keys.shape[0] < 2:
        return found
    unsorted = jnp.any(keys[1:] < keys[:-1]) | jnp.any(jnp.isnan(keys[:-1]) & ~jnp.isnan(keys[1:])) \
        if jnp.issubdtype(keys.dtype, jnp.inexact) else jnp.any(keys[1:] < keys[:-1])
    operands = (a, v) if sorter is None else (a, v, sorter)

    def numpy_search(ops: tuple) -> Any:
        return _host_numpy(lambda *xs: np.searchsorted(xs[0], xs[1], side=side,
                                                       sorter=None if sorter is None else xs[2]),
                           found.shape, found.dtype, *ops)

    return jax.lax.cond(unsorted, numpy_search, lambda _: found, operands)


def _static_number(x: Any) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


def _edge_type(first: Any, last: Any, dtype: Any) -> np.dtype:
    """NumPy's dtype of the bin edges: of the outer edges and the data, a float."""
    t = np.result_type(first, last, np.empty(0, dtype))
    return np.result_type(t, float) if np.issubdtype(t, np.integer) else t


def histogram_edges(a: Any, bins: Any, range: Any) -> Any:
    """NumPy's bin edges for an int ``bins`` (``np.histogram_bin_edges``), or
    None where they are not NumPy's to compute here (explicit edges, a
    string rule, traced bounds, other data). JAX's linspace computes in the
    edges' type, NumPy's in float64 then casts: float32 edges an ulp off
    (-0.99999988 for -1), so a value on an edge went to the bin below. A
    static range: NumPy's own ``linspace`` at trace time; the data's min and
    max: NumPy on the host (the edges depend on those two numbers only)."""
    a = jnp.asarray(a)
    if not isinstance(bins, (int, np.integer)) or isinstance(bins, bool) or a.dtype.kind not in "iuf":
        return None
    n = int(bins)
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range is not None:
        if len(range) != 2 or not all(_static_number(x) for x in range):
            return None
        first, last = range
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif a.size == 0:
        first, last = 0, 1
    else:
        kind = 0.0 if a.dtype.kind == "f" else 0   # eager's outer edges: a.min().item(), a Python float or int
        dtype, np_dtype = _edge_type(kind, kind, a.dtype), a.dtype

        def on_host(lo: Any, hi: Any) -> Any:
            if not (np.isfinite(lo) and np.isfinite(hi)):   # NumPy raises: the run-time check reports it
                return np.zeros(n + 1, dtype)
            return np.histogram_bin_edges(np.array([lo, hi], np_dtype), bins=n)

        return _host_numpy(on_host, (n + 1,), dtype, jnp.min(a), jnp.max(a))
    if first == last:
        first, last = first - 0.5, last + 0.5
    return jnp.asarray(np.linspace(first, last, n + 1, endpoint=True, dtype=_edge_type(first, last, a.dtype)))


def histogram_bin_edges(a: Any, bins: Any = 10, range: Any = None, weights: Any = None) -> Any:
    """``np.histogram_bin_edges``: NumPy's edges where ``histogram_edges`` knows them."""
    edges = histogram_edges(jnp.ravel(jnp.asarray(a)), bins, range)
    return jnp.histogram_bin_edges(a, bins=bins, range=range, weights=weights) if edges is None else edges


def histogram(a: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> Any:
    """``np.histogram``: NumPy's edges (``histogram_edges``); a value counts in
    the bin ``edges[i] <= v < edges[i + 1]`` (the last one closed), as NumPy's
    corrected index puts it; counts are int64 without weights (JAX's are
    floats), of the weights' dtype with them; ``density`` in float64."""
    a = jnp.ravel(jnp.asarray(a))
    edges = histogram_edges(a, bins, range)
    if edges is None:
        hist, edges = jnp.histogram(a, bins=bins, range=range, density=density, weights=weights)
        return (hist.astype(_int64()) if weights is None and not density else hist), edges
    n = edges.shape[0] - 1
    v = a.astype(edges.dtype)
    index = jnp.searchsorted(edges, v, side="right") - 1
    index = jnp.where(v == edges[-1], n - 1, index)
    index = jnp.where((v >= edges[0]) & (v <= edges[-1]), index, n)   # outside (or NaN): dropped
    if weights is None:
        hist = jnp.zeros(n, np.int64).at[index].add(1, mode="drop")
    else:
        w = jnp.ravel(jnp.asarray(weights))
        hist = jnp.zeros(n, w.dtype).at[index].add(w, mode="drop")
    if density:
        widths = jnp.diff(edges).astype(float)
        hist = hist.astype(float) / widths / hist.sum()
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> Any:
    """``np.histogram2d``: counts are float64 (JAX's are ints without weights)."""
    hist, xedges, yedges = jnp.histogram2d(x, y, bins=bins, range=range, density=density, weights=weights)
    return hist.astype(jnp.result_type(float)), xedges, yedges


def _int_division_by_zero(ufunc: Any, quotient_at: Any) -> Any:
    """``ufunc`` (``jnp.floor_divide``, ``jnp.divmod``) with NumPy's integer
    quotient by zero: 0 (XLA's is another number)."""
    def op(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
        out = ufunc(x1, x2, **kwargs)
        q = out if quotient_at is None else out[quotient_at]
        if jnp.issubdtype(q.dtype, jnp.integer):
            q = jnp.where(jnp.asarray(x2) == 0, jnp.zeros_like(q), q)
        if jnp.issubdtype(q.dtype, jnp.floating):   # the signs of zero results, as NumPy's
            from ..graphlib.arrays import python_zero_signs

            q = python_zero_signs(q, x1, x2, True)
            if quotient_at is not None:
                return q, python_zero_signs(out[1], x1, x2, False)
        return q if quotient_at is None else (q, *out[1:])

    op.__name__ = op.__qualname__ = ufunc.__name__
    return op


def remainder(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """``np.remainder``/``np.mod`` of floats: a zero remainder has the
    divisor's sign (``np.mod(-2.0, 1.0)`` is 0.0; XLA's keeps the dividend's)."""
    from ..graphlib.arrays import python_zero_signs

    if out is not None:
        raise not_numpys("np.remainder with out=")
    r = jnp.remainder(x1, x2, **kwargs)
    return python_zero_signs(r, x1, x2, False) if jnp.issubdtype(r.dtype, jnp.floating) else r


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> Any:
    """``np.interp`` as NumPy's loop computes it: ``j`` the last point with
    ``xp[j] <= x``, ``slope * (x - xp[j]) + fp[j]`` (another rounding than
    JAX's ``fp[j] + (x - xp[j]) / dx * df``), ``fp[j]`` where ``x == xp[j]``,
    ``fp[-1]`` where ``x == xp[-1]`` (where ``xp`` ends in repeated points JAX
    gives ``fp[-2]``), NumPy's retries where the value is NaN. With
    ``period=``, complex values or fewer than two points: ``jnp.interp``."""
    xp_, fp_ = jnp.asarray(xp), jnp.asarray(fp)
    if period is not None or xp_.ndim != 1 or xp_.shape != fp_.shape or xp_.shape[0] < 2 \
            or jnp.iscomplexobj(fp_) or jnp.iscomplexobj(x) or isinstance(left, str) or isinstance(right, str):
        return jnp.interp(x, xp, fp, left=left, right=right, period=period)
    dtype = jnp.result_type(x, xp_, fp_, 1.0)
    x_, xp_, fp_ = jnp.asarray(x, dtype), xp_.astype(dtype), fp_.astype(dtype)
    n = xp_.shape[0]
    j = jnp.clip(jnp.searchsorted(xp_, x_, side="right") - 1, 0, n - 2)
    x0, x1, y0, y1 = xp_[j], xp_[j + 1], fp_[j], fp_[j + 1]
    slope = (y1 - y0) / (x1 - x0)
    # each product rounded before its sum, as NumPy's loop rounds it: XLA would fuse a product feeding a sum
    # into a multiply-add (another rounding); a select between them, the same value (a NaN x makes a NaN
    # product anyway), keeps them apart
    nan_x = jnp.isnan(x_)
    t0, t1 = jnp.where(nan_x, x_, slope * (x_ - x0)), jnp.where(nan_x, x_, slope * (x_ - x1))
    r = t0 + y0
    r = jnp.where(jnp.isnan(r), t1 + y1, r)
    r = jnp.where(jnp.isnan(r) & (y0 == y1), y0, r)
    r = jnp.where(x_ == x0, y0, r)
    r = jnp.where(x_ == xp_[-1], fp_[-1], r)
    r = jnp.where(jnp.isnan(x_), jnp.nan, r)
    r = jnp.where(x_ < xp_[0], fp_[0] if left is None else left, r)
    return jnp.where(x_ > xp_[-1], fp_[-1] if right is None else right, r).astype(dtype)


def _gcd_lcm(lcm: bool) -> Any:
    """``np.gcd``/``np.lcm`` of signed integers: NumPy's loop takes the
    magnitudes unsigned (``npy_gcdu``), its result cast back to the dtype;
    ``jnp.gcd`` of int8 100 and -128 never ends (its ``abs(-128)`` is -128)."""
    def op(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            raise not_numpys("np.gcd/np.lcm with out=")
        fn = jnp.lcm if lcm else jnp.gcd
        dtype = jnp.result_type(x1, x2)
        if kwargs or not jnp.issubdtype(dtype, jnp.signedinteger):
            return fn(x1, x2, **kwargs)
        # the unsigned type of the result's width (int64 only where the graph has 64 bits: no JAX
        # "int64 requested ... truncated" UserWarning eager does not issue); abs(-128) is -128, 128 unsigned
        unsigned = jnp.dtype(f"uint{jnp.dtype(dtype).itemsize * 8}")
        a, b = (jnp.abs(jnp.asarray(x, dtype)).astype(unsigned) for x in (x1, x2))
        return fn(a, b).astype(dtype)
    op.__name__ = "lcm" if lcm else "gcd"
    return op


def power(x1: Any, x2: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """``np.power`` of integers by a traced integer exponent: binary
    exponentiation over every bit of the exponent, wrapping at the result's
    width as NumPy's loop does (``jnp.power`` reads only the exponent's low
    six bits: ``np.uint16(9) ** np.uint16(65000)`` is 2625, JAX's 54337)."""
    if out is not None:
        raise not_numpys("np.power with out=")
    r = jnp.power(x1, x2, **kwargs)
    if kwargs or r.dtype.kind not in "iu" or isinstance(x2, (int, np.integer)):
        return r
    base, exponent = jnp.asarray(x1).astype(r.dtype), jnp.asarray(x2).astype(r.dtype)
    base, exponent = jnp.broadcast_arrays(base, exponent)
    one = jnp.ones((), r.dtype)
    acc = jnp.where((base == 0) & (exponent != 0), jnp.zeros((), r.dtype), one)
    for _ in range(r.dtype.itemsize * 8):
        acc = jnp.where((exponent & one) != 0, acc * base, acc)
        base = base * base
        exponent = jax.lax.shift_right_logical(exponent, one)
    return acc.reshape(r.shape)


def sign(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
    """``np.sign`` of floats: the sign of -0.0 is 0.0 (XLA's is -0.0)."""
    from ..graphlib.arrays import plus_zero

    if out is not None:
        raise not_numpys("np.sign with out=")
    r = jnp.sign(x, **kwargs)
    return plus_zero(r) if jnp.issubdtype(r.dtype, jnp.floating) else r


def _int_bound(bound: Any, dtype: Any, below: bool) -> Any:
    """A Python int bound of ``np.clip`` on an integer array as NumPy takes it:
    one beyond the dtype's range on its own side clips nothing (None: NumPy's
    ``_clip`` drops it); one beyond the other side raises OverflowError in NumPy
    (the call falls back and raises it). JAX would wrap it into the dtype."""
    if isinstance(bound, jax.Array) and getattr(bound, "weak_type", False) \
            and jnp.issubdtype(bound.dtype, jnp.integer) and not np.can_cast(bound.dtype, dtype):
        # a traced Python int: which rule applies depends on its value
        raise not_numpys(f"np.clip of a {np.dtype(dtype)} array with a traced Python int bound (NumPy drops or "
                         "rejects one out of the dtype's range)")
    if type(bound) is not int:
        return bound
    info = np.iinfo(dtype)
    if (bound <= info.min) if below else (bound >= info.max):
        return None
    if not info.min <= bound <= info.max:
        raise not_numpys(f"np.clip with the Python int bound {bound} out of range for {np.dtype(dtype)}")
    return bound


def clip(a: Any, a_min: Any = _NO_VALUE, a_max: Any = _NO_VALUE, out: Any = None, *, min: Any = _NO_VALUE,
         max: Any = _NO_VALUE, **kwargs: Any) -> Any:
    """``np.clip`` (a jax.Array too: NumPy clips ``np.asarray`` of it): a
    Python int bound out of an integer dtype's range is dropped, not wrapped
    (``np.clip(uint8_array, -5, 5)`` leaves 1 as 1; JAX's -5 is 251)."""
    if out is not None:
        raise not_numpys("np.clip with out=")
    lo = min if a_min is _NO_VALUE else a_min
    hi = max if a_max is _NO_VALUE else a_max
    lo, hi = (None if b is _NO_VALUE else b for b in (lo, hi))
    dtype = getattr(a, "dtype", None)
    if dtype is not None and np.dtype(dtype).kind in "iu":
        lo, hi = _int_bound(lo, dtype, True), _int_bound(hi, dtype, False)
    if lo is None and hi is None:
        return jnp.positive(jnp.asarray(a), **kwargs)
    return jnp.clip(a, lo, hi, **kwargs)


# The complex functions whose XLA kernel ignores the sign of a zero on the
# branch cut: NumPy (C99) takes ``x - 0j`` as the limit from below the cut
# (``np.sqrt(-4 - 0j)`` is -2j, XLA's 2j). Each result's part has a sign given
# by the operand's (C99's symmetries f(conj z) = conj f(z), odd f): the parts
# whose sign follows the operand's imaginary part (-1: its opposite), and
# whether the real part's follows the operand's real part.
_BRANCH_SIGNS = {"sqrt": (1, False), "arcsin": (1, False), "arccos": (-1, False), "arccosh": (1, False),
                 "arcsinh": (1, True)}


def branch_cut(name: str) -> Callable:
    """``np.<name>`` of complex numbers with NumPy's signs on the branch cut;
    of real numbers JAX's namesake unchanged."""
    jnp_fn = getattr(jnp, name)
    imag_sign, real_sign = _BRANCH_SIGNS[name]

    def op(x: Any, /, out: Any = None, **kwargs: Any) -> Any:
        if out is not None:
            raise not_numpys(f"np.{name} with out=")
        r = jnp_fn(x, **kwargs)
        if not jnp.issubdtype(r.dtype, jnp.complexfloating) or not jnp.issubdtype(jnp.result_type(x),
                                                                                   jnp.complexfloating):
            return r
        x = jnp.asarray(x).astype(r.dtype)
        imag = jnp.copysign(jnp.abs(r.imag), x.imag if imag_sign > 0 else -x.imag)
        real = jnp.copysign(jnp.abs(r.real), x.real) if real_sign else r.real
        return jax.lax.complex(real, imag)

    op.__name__ = op.__qualname__ = name
    return op


def broadcast_to(array: Any, shape: Any, subok: bool = False) -> Any:
    """``np.broadcast_to``: ``subok`` only keeps an ndarray subclass, which a traced array is not."""
    return jnp.broadcast_to(array, shape)


def fix(x: Any, out: Any = None) -> Any:
    """``np.fix`` (its Python calls ``np.trunc(x, out=None)``, which JAX's ``trunc`` does not take)."""
    if out is not None:
        raise not_numpys("np.fix with out=")
    return jnp.trunc(x)


def modf(x: Any, out: Any = None) -> Any:
    """``np.modf``: C's ``modf``, whose fractional part has the sign of ``x``
    (-0.0 of -3.0) and is a signed zero of an infinity; JAX's ``x - trunc(x)``
    gave 0.0 and NaN there."""
    if out is not None and not (type(out) is tuple and all(o is None for o in out)):
        raise not_numpys("np.modf with out=")
    frac, whole = jnp.modf(x)
    return jnp.copysign(jnp.where(jnp.isinf(whole), jnp.zeros_like(frac), frac), whole), whole


def _nan_lerp_points(s: Any, qs: Any) -> tuple:
    """For ``np.nanquantile``'s linear method of float64 data sorted along
    axis 0 (NaN last): the order statistics on each side and the weight,
    NumPy's ``_nanquantile_1d`` of each slice (its NaN removed: ``n`` the
    count of the others, index -1 the last of them)."""
    m = jnp.sum(~jnp.isnan(s), axis=0).astype(np.float64)
    qb = jnp.reshape(jnp.asarray(qs, np.float64), np.shape(qs) + (1,) * (s.ndim - 1))
    virtual = (m - 1) * qb
    prev = jnp.floor(virtual)
    out, below = (virtual >= m - 1) | jnp.isnan(virtual), virtual < 0
    gamma = virtual - jnp.where(out, -1.0, jnp.where(below, 0.0, prev))
    last = jnp.broadcast_to(m - 1, virtual.shape)
    lo_at = jnp.where(out, last, jnp.where(below, 0.0, prev)).astype(int) % s.shape[0]
    hi_at = jnp.where(out, last, jnp.where(below, 0.0, prev + 1)).astype(int) % s.shape[0]
    if not np.shape(qs):
        lo, hi = (jnp.take_along_axis(s, at[None], axis=0)[0] for at in (lo_at, hi_at))
    else:
        lo, hi = (jnp.take_along_axis(s, at, axis=0) for at in (lo_at, hi_at))
    return lo, hi, gamma


def _numpys_quantile(jax_fn: Any, scale: float, nan: bool = False) -> Any:
    """``np.quantile`` / ``np.percentile`` (``scale`` 100) by NumPy's
    ``method="linear"`` steps where they are exact graph ops: the virtual
    index ``(n - 1) * q``, its floor and NumPy's index clamping, then
    ``_lerp``'s ``a + (b - a) * t`` (``b - (b - a) * (1 - t)`` where
    ``t >= 0.5``) and NaN for a slice holding NaN. JAX's
    ``low * (1 - t) + high * t`` rounds otherwise (last bits of float64
    results, float16 ones). Of float64 data, or of narrower float data with a
    Python number ``q`` (NumPy's weak ``t`` then computes at the data's
    width); everything else (other methods, weights, keepdims, several axes,
    integer data) is ``jax_fn`` as before."""
    def op(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, method: str = "linear",
           keepdims: bool = False, *, weights: Any = None) -> Any:
        from ..ir.core import Value

        a = arr = jnp.asarray(a)
        weak = type(q) in (int, float) and not isinstance(q, bool)
        simple = method == "linear" and weights is None and out is None and \
            (axis is None or type(axis) is int) and arr.ndim > 0 and arr.size > 0
        if nan:
            simple = simple and arr.dtype == np.float64 and np.ndim(q) <= 1
        if not simple or not (arr.dtype == np.float64 or weak and arr.dtype.kind == "f"):
            return jax_fn(a, q, axis=axis, out=out, overwrite_input=overwrite_input, method=method,
                          keepdims=keepdims, **({} if weights is None else {"weights": weights}))
        if isinstance(q, (Value, jax.core.Tracer)) or not weak and not isinstance(q, (np.ndarray, np.generic, list, tuple)):
            qs = jnp.asarray(q, np.float64)
        else:
            qs = np.asarray(q, np.float64)
        if scale != 1.0:
            qs = qs / scale   # NumPy's np.true_divide(q, 100) in float64
        arr = arr.ravel() if axis is None else jnp.moveaxis(arr, axis, 0)
        n = arr.shape[0]
        s = jnp.sort(arr, axis=0)   # (NaN last, as NumPy's partition leaves it)
        if nan:
            lo, hi, t = _nan_lerp_points(s, qs)
            return _lerp_result(lo, hi, t, None, a, axis, keepdims, qs)
        xp = np if isinstance(qs, (np.ndarray, np.generic)) else jnp   # (static quantiles: their indices and weights too)
        virtual = (n - 1) * qs
        prev = xp.floor(virtual)
        nxt = prev + 1
        above, below, nan_at = virtual >= n - 1, virtual < 0, xp.isnan(virtual)
        prev = xp.where(above | nan_at, -1.0, xp.where(below, 0.0, prev))
        nxt = xp.where(above | nan_at, -1.0, xp.where(below, 0.0, nxt))
        gamma = virtual - prev
        shape = xp.shape(virtual) + (1,) * (arr.ndim - 1)
        lo = jnp.take(s, prev.astype(int) % n, axis=0)
        hi = jnp.take(s, nxt.astype(int) % n, axis=0)
        if weak and xp is np:
            t = float(gamma)   # NumPy's weak Python float: the products at the data's width
        elif weak:
            t = gamma.astype(arr.dtype)
        else:
            t = xp.reshape(gamma, shape)
        return _lerp_result(lo, hi, t, jnp.isnan(s[-1]), a, axis, keepdims, qs)

    op.__name__ = op.__qualname__ = jax_fn.__name__
    return op


def _lerp_result(lo: Any, hi: Any, t: Any, nan_slices: Any, a: Any, axis: Any, keepdims: bool, qs: Any) -> Any:
    """NumPy's ``_lerp(lo, hi, t)``, NaN where ``nan_slices``, the reduced
    axes kept as 1s after the quantiles' own where ``keepdims``."""
    diff = hi - lo
    # each product rounded before its sum (as NumPy's ufuncs round it): a select of the same value
    # keeps XLA from fusing them into a multiply-add (as in ``interp``)
    nan_diff = jnp.isnan(diff)
    up, down = jnp.where(nan_diff, diff, diff * t), jnp.where(nan_diff, diff, diff * (1 - t))
    result = jnp.where(jnp.asarray(t) >= 0.5, hi - down, lo + up)
    if nan_slices is not None:
        result = jnp.where(nan_slices, jnp.asarray(np.nan, result.dtype), result)
    if keepdims:
        kept = (1,) * a.ndim if axis is None else tuple(1 if d == axis % a.ndim else k for d, k in enumerate(a.shape))
        result = jnp.reshape(result, np.shape(qs) + kept)
    return result


def eigh(a: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigh``: only the ``UPLO`` triangle is read (JAX symmetrizes by default)."""
    return jnp.linalg.eigh(a, UPLO=UPLO, symmetrize_input=False)


def eigvalsh(a: Any, UPLO: str = "L") -> Any:
    """``np.linalg.eigvalsh``: only the ``UPLO`` triangle is read (JAX symmetrizes by default)."""
    return jnp.linalg.eigvalsh(a, UPLO=UPLO, symmetrize_input=False)


def cholesky(a: Any, /, *, upper: bool = False) -> Any:
    """``np.linalg.cholesky``: only the lower (``upper``) triangle is read (JAX symmetrizes by default)."""
    return jnp.linalg.cholesky(a, upper=upper, symmetrize_input=False)


def _int_indices(indices: Any) -> Any:
    """Indices as NumPy casts them (floats truncated: ``np.take(x, 1.7)`` is ``x[1]``)."""
    if isinstance(indices, (list, tuple)):
        indices = jnp.asarray(indices)
    if jnp.issubdtype(jnp.result_type(indices), jnp.floating):
        return jnp.asarray(indices).astype(_int64())
    return indices


def _sequential(product: bool, ignore_nan: bool) -> Any:
    """``np.cumsum``/``np.cumprod`` (``np.nancumsum``/``np.nancumprod``: NaN
    counted as 0/1) of floats as NumPy accumulates: one element after the
    other along the axis, each partial result rounded to the dtype. XLA's
    cumulative ops reduce windows in another order: other last bits from 32
    float32 elements on (1.4e-4 apart over 10**5 of them, 1.5 % in float16),
    and after a zero a window whose product overflows gives 0 * inf = NaN
    where NumPy's running product stays 0. Integers wrap alike in any order."""
    name = ("nancum" if ignore_nan else "cum") + ("prod" if product else "sum")
    jnp_fn = getattr(jnp, name)
    combine, unit = (jnp.multiply, 1) if product else (jnp.add, 0)

    def op(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> Any:
        if out is not None:
            raise not_numpys(f"np.{name} with out=")
        a = jnp.asarray(a)
        result = jax.eval_shape(lambda v: jnp_fn(v, axis=axis, dtype=dtype), a)
        if result.dtype.kind not in "fc":
            return jnp_fn(a, axis=axis, dtype=dtype)
        if ignore_nan and a.dtype.kind in "fc":
            a = jnp.where(jnp.isnan(a), jnp.full((), unit, a.dtype), a)
        x = (a.ravel() if axis is None else jnp.moveaxis(a, axis, 0)).astype(result.dtype)

        def step(carry: Any, v: Any) -> tuple:
            carry = combine(carry, v)
            return carry, carry

        if x.shape[0] == 0:
            return x if axis is None else jnp.moveaxis(x, 0, axis)
        _, partial = jax.lax.scan(step, x[0], x[1:])   # (the first is the element itself: -0.0 stays -0.0)
        partial = jnp.concatenate([x[:1], partial])
        return partial if axis is None else jnp.moveaxis(partial, 0, axis)

    op.__name__ = op.__qualname__ = name
    return op


def _total(jnp_fn: Any) -> Any:
    """``np.sum``/``np.mean``/``np.nansum``/``np.nanmean`` (``np.median``:
    a mean of the middle ones) of floats: NumPy adds to its identity +0.0, so
    a total is never -0.0 (without ``initial=``); XLA folds a reduction over
    one element into that element, -0.0 kept (``np.sum(np.array([-0.0]))``,
    ``x.sum(axis=1)`` of a column), and interpolates medians of -0.0 to -0.0."""
    def op(*args: Any, **kwargs: Any) -> Any:
        from ..graphlib.arrays import plus_zero

        out = jnp_fn(*args, **kwargs)
        if kwargs.get("initial") is not None or len(args) > 5 or not jnp.issubdtype(out.dtype, jnp.inexact):
            return out
        if jnp.issubdtype(out.dtype, jnp.complexfloating):
            return jax.lax.complex(plus_zero(out.real), plus_zero(out.imag))
        return plus_zero(out)

    op.__name__ = op.__qualname__ = jnp_fn.__name__
    return op


def _count(shape: tuple, axis: Any) -> int:
    axes = range(len(shape)) if axis is None else axis if isinstance(axis, tuple) else (axis,)
    return int(np.prod([shape[k] for k in axes]))


def _true_divide(total: Any, count: int) -> Any:
    """``total / count`` as NumPy's ``true_divide`` computes it: a division
    by a count the graph knows, hidden from XLA, which would multiply by the
    count's reciprocal (``np.mean([1, 2, 4])``: 2.3333333333333335, where the
    reciprocal's product is 2.333333333333333); a complex total's parts
    divided each (NumPy divides by ``count + 0j``: exactly that)."""
    from ..graphlib.casts import opaque

    if jnp.issubdtype(total.dtype, jnp.complexfloating):
        real = total.real
        n = opaque(jnp.asarray(count, real.dtype), real)
        return jax.lax.complex(real / n, total.imag / n)
    return total / opaque(jnp.asarray(count, total.dtype), total)


def _accumulator(a: Any, dtype: Any) -> Any:
    """The dtype NumPy's mean and var add in: ``dtype``, else float64 for
    integers and bools (the graph's float: 64-bit where it runs with x64)."""
    if dtype is not None:
        return dtype
    if a.dtype.kind in "biu":
        return jax.dtypes.canonicalize_dtype(np.float64)
    return None


def numpy_mean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NO_VALUE, *,
               where: Any = _NO_VALUE) -> Any:
    """``np.mean`` as NumPy computes it (``numpy._core._methods._mean``): the
    sum in the accumulator's dtype (float32 for float16), divided by the
    count (``_true_divide``), cast back to float16."""
    a = jnp.asarray(a)
    n = _count(a.shape, axis)
    if out is not None or where is not _NO_VALUE or n == 0:
        return jnp.mean(a, axis=axis, dtype=dtype, out=out, keepdims=False if keepdims is _NO_VALUE else keepdims,
                        **({} if where is _NO_VALUE else {"where": where}))
    keepdims = False if keepdims is _NO_VALUE else keepdims
    half = dtype is None and a.dtype == jnp.float16
    acc = jnp.float32 if half else _accumulator(a, dtype)
    result = _true_divide(jnp.sum(a, axis=axis, dtype=acc, keepdims=keepdims), n)
    return result.astype(jnp.float16) if half else result


def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: Any = _NO_VALUE) -> Any:
    """``np.average``: unweighted, NumPy's mean (``numpy_mean``); weighted,
    a division by the weights' sum (a traced divisor, as NumPy's)."""
    if weights is not None:
        return _weighted_average(a, axis, weights, returned, False if keepdims is _NO_VALUE else keepdims)
    a = jnp.asarray(a)
    avg = _total(numpy_mean)(a, axis=axis, keepdims=keepdims)
    if not returned:
        return avg
    return avg, jnp.full(avg.shape, a.size // max(avg.size, 1), avg.dtype)


def _weighted_average(a: Any, axis: Any, weights: Any, returned: bool, keepdims: bool) -> Any:
    """``np.average`` with weights, as ``jnp.average`` computes it (the
    weights reshaped along ``axis``) but with NumPy's sums: each starts at
    +0.0 (``_total``), so a total of -0.0 terms is 0.0 and the average of
    ``[-0.0]`` is 0.0, where XLA's one-element sum keeps -0.0. (Weights that
    sum to zero raise NumPy's ZeroDivisionError before: a run-time check.)"""
    total = _total(jnp.sum)
    a, w = jnp.asarray(a), jnp.asarray(weights)
    dtype = jnp.result_type(a.dtype, w.dtype)
    if not jnp.issubdtype(dtype, jnp.inexact):
        dtype = jnp.result_type(dtype, float)   # as jnp.average promotes: the default float
    a, w = a.astype(dtype), w.astype(dtype)
    axes = None if axis is None else axis if isinstance(axis, tuple) else (axis,)
    if w.shape != a.shape:   # weights along ``axis``, reshaped as jnp.average does; NumPy raises otherwise
        if axes is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = tuple(k % a.ndim for k in axes)
        if w.shape != tuple(a.shape[k] for k in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
        shape = tuple(d if k in axes else 1 for k, d in enumerate(a.shape))
        w = jax.lax.reshape(w, shape, dimensions=tuple(np.argsort(axes)))
    scl = total(w, axis=axis, keepdims=keepdims)
    avg = total(a * w, axis=axis, keepdims=keepdims) / scl
    if not returned:
        return avg
    return avg, jnp.broadcast_to(scl, avg.shape)


def _numpy_var(a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: bool) -> Any:
    """``np.var`` as NumPy computes it (``numpy._core._methods._var``): the
    mean (``numpy_mean``'s division), the squared deviations (a complex one:
    its parts squared and added), their sum over ``max(count - ddof, 0)``."""
    acc = _accumulator(a, dtype)
    n = _count(a.shape, axis)
    mean = _true_divide(jnp.sum(a, axis=axis, dtype=acc, keepdims=True), n)
    x = a - mean
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        x = x.real * x.real + x.imag * x.imag
    else:
        x = x * x
    return _true_divide(jnp.sum(x, axis=axis, dtype=acc, keepdims=keepdims), max(n - ddof, 0))


def _innermost(ndim: int, axis: Any) -> bool:
    """A reduction NumPy makes along the innermost axis (or over all of a
    contiguous array): its loop adds pairwise in float32 for float16 data,
    rounding once."""
    axes = None if axis is None else axis if isinstance(axis, tuple) else (axis,)
    return ndim <= 1 or axes is None or [k % ndim for k in axes] == [ndim - 1]


def _half_var(a: Any, axis: Any, ddof: Any, keepdims: bool) -> Any:
    """``np.var`` of float16 values, rounded to float16 where NumPy rounds:
    the sum (added in float32, as NumPy's half loops add), the mean, each
    deviation and its square, the sum of squares, the quotient (JAX's own
    var computes in float32 and rounds once: an ulp or more apart)."""
    def half_sum(x: Any, keep: bool) -> Any:
        return jnp.sum(x.astype(jnp.float32), axis=axis, keepdims=keep).astype(jnp.float16)

    n = _count(a.shape, axis)
    mean = _true_divide(half_sum(a, True).astype(jnp.float32), n).astype(jnp.float16)
    x = a - mean
    x = x * x
    return _true_divide(half_sum(x, keepdims).astype(jnp.float32), max(n - ddof, 0)).astype(jnp.float16)


def _spread(jnp_fn: Any, name: str) -> Any:
    """``np.var``/``np.std``: with ``ddof`` at least the count, NumPy divides
    the sum of squares by 0 (``max(n - ddof, 0)``): inf where the values
    spread, NaN where they do not (JAX's is NaN either way)."""
    def op(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, ddof: Any = 0, keepdims: Any = False,
           **options: Any) -> Any:
        if out is not None or any(v is not _NO_VALUE for v in options.values()) or isinstance(ddof, jax.core.Tracer):
            raise not_numpys(f"np.{name} with out=, where=, mean=, correction= or a traced ddof")
        keepdims = False if keepdims is _NO_VALUE else keepdims
        a = jnp.asarray(a)
        if a.dtype == jnp.float16 and dtype in (None, np.float16):
            if _count(a.shape, axis) - ddof <= 0 or not _innermost(a.ndim, axis):
                # along an outer axis NumPy adds row by row, rounding each partial sum to float16
                raise not_numpys(f"np.{name} of float16 values along an outer axis (NumPy rounds each partial "
                                 "sum to float16)")
            var = _half_var(a, axis, ddof, keepdims)
            return var if name == "var" else jnp.sqrt(var)
        result = jnp_fn(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
        if _count(a.shape, axis) - ddof > 0:   # NumPy's own steps (JAX's divide by the count's reciprocal)
            var = _numpy_var(a, axis, dtype, ddof, keepdims)
            return (var if name == "var" else jnp.sqrt(var)).astype(result.dtype)
        spread = jnp.var(a, axis=axis, dtype=dtype, keepdims=keepdims)   # (the sum of squares over n: > 0 alike)
        return jnp.where(spread > 0, jnp.inf, jnp.nan).astype(result.dtype)

    op.__name__ = op.__qualname__ = name
    return op


def round_(a: Any, decimals: Any = 0, out: Any = None) -> Any:
    """``np.round``/``np.around`` of floats with ``decimals``: NumPy's
    scaling by a power of ten and back (``arrays.numpy_round``); JAX's
    multiplies by the inverse power (0.32999998 for NumPy's 0.33 in float32)."""
    from ..graphlib.arrays import numpy_round

    a = jnp.asarray(a)
    if out is not None or not isinstance(decimals, int) or decimals == 0 or not jnp.issubdtype(a.dtype, jnp.floating):
        return jnp.round(a, decimals, out)
    return numpy_round(a, decimals)


def take(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: str = "raise") -> Any:
    """``np.take``: indices checked by NumPy's bounds (``take_index_check``, before the op) for ``mode='raise'``."""
    if out is not None:
        raise not_numpys("np.take with out=")
    return jnp.take(a, _int_indices(indices), axis=axis, mode="fill" if mode == "raise" else mode)


def take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Any:
    """``np.take_along_axis``: indices checked by NumPy's bounds (``take_index_check``)."""
    return jnp.take_along_axis(arr, indices, axis=axis, mode="fill")


def repeat(a: Any, repeats: Any, axis: Any = None) -> Any:
    """``np.repeat``: a float count known at trace time truncated, as NumPy casts it."""
    if isinstance(repeats, float) or isinstance(repeats, np.ndarray) and repeats.dtype.kind == "f":
        repeats = np.asarray(repeats).astype(np.intp)
        repeats = int(repeats) if repeats.ndim == 0 else repeats
    return jnp.repeat(a, repeats, axis=axis)


def take_index_check(callee: Any, args: tuple, kwargs: dict) -> tuple | None:
    """``(shape, axis, indices)`` for the run-time bounds check NumPy makes
    of ``np.take``'s (``mode='raise'``) and ``np.take_along_axis``'s traced
    indices (XLA would fill or clamp where NumPy raises IndexError), or None."""
    from ..ir.core import Value

    names = ("a", "indices", "axis") if callee is np.take else ("arr", "indices", "axis")
    if callee not in (np.take, np.take_along_axis):
        return None
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k in names})
    a, indices = bound.get(names[0]), bound.get("indices")
    axis = bound.get("axis", None if callee is np.take else -1)
    if callee is np.take and kwargs.get("mode", args[4] if len(args) > 4 else "raise") != "raise":
        return None
    if not isinstance(a, Value) or not isinstance(indices, Value) or indices.type.dtype.kind not in "iu" \
            or not isinstance(axis, (int, type(None))):
        return None
    shape = a.type.shape
    if axis is None:
        return (int(np.prod(shape)),), 0, indices
    return shape, axis % max(len(shape), 1), indices


def widen_ints(fn: Any, dtypes: list) -> Any:
    """``fn`` with its array results cast to ``dtypes`` (in flattening
    order): integer results NumPy gives wider than JAX (int64 indices where
    JAX computes int32), a cast that changes no value."""
    def wider(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        leaves, treedef = jax.tree_util.tree_flatten(out)
        it = iter(dtypes)
        cast = [x.astype(next(it)) if hasattr(x, "dtype") else x for x in leaves]
        return jax.tree_util.tree_unflatten(treedef, cast)

    wider.__name__ = wider.__qualname__ = getattr(fn, "__name__", "numpy_function")
    wider.__module__ = getattr(fn, "__module__", None)
    return wider


def results_cast(fn: Any, dtypes: list) -> Any:
    """``fn`` computed at its operands' common dtype, its array results cast
    once to ``dtypes`` (in flattening order): ``y += x`` into a NumPy array
    ``y`` of a narrower dtype than ``x``'s, as NumPy's ``out=`` casts
    (float64 to float16 rounded once: ``casts.cast``)."""
    def narrowed(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        leaves, treedef = jax.tree_util.tree_flatten(out)
        it = iter(dtypes)
        cast = [casts.cast(x, next(it)) if hasattr(x, "dtype") else x for x in leaves]
        return jax.tree_util.tree_unflatten(treedef, cast)

    narrowed.__name__ = narrowed.__qualname__ = getattr(fn, "__name__", "numpy_function")
    narrowed.__module__ = getattr(fn, "__module__", None)
    return narrowed


def choose(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    """``np.choose``: an entry out of range raises (``raise_check``), so the graph op may clip."""
    if out is not None:
        raise not_numpys("np.choose with out=")
    return jnp.choose(a, choices, mode="clip" if mode == "raise" else mode)


def _multi_index_modes(multi_index: Any, dims: Any, mode: Any) -> tuple:
    """``np.ravel_multi_index``'s coordinates and one mode per dimension, or
    ``not_numpys`` where NumPy's checks of the arguments decide (eager's error)."""
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, (int, np.integer)) for d in dims) \
            or not isinstance(multi_index, (tuple, list)) or len(multi_index) != len(dims):
        raise not_numpys("np.ravel_multi_index of other than one coordinate array per static dimension")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    coords = [jnp.asarray(c) for c in multi_index]
    if len(modes) != len(dims) or any(m not in ("raise", "wrap", "clip") for m in modes) \
            or not all(jnp.issubdtype(c.dtype, jnp.integer) for c in coords):
        raise not_numpys("np.ravel_multi_index with these modes or coordinates (NumPy raises)")
    return coords, modes


def ravel_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> Any:
    """``np.ravel_multi_index``: a coordinate out of range in a "raise"
    dimension raises (``raise_check``), so the graph op may clip there."""
    coords, modes = _multi_index_modes(multi_index, dims, mode)
    fixed = [jnp.mod(c, d) if m == "wrap" else jnp.clip(c, 0, d - 1) for c, d, m in zip(coords, dims, modes)]
    if order not in ("C", "F"):
        raise not_numpys(f"np.ravel_multi_index with order={order!r}")
    sizes = [int(d) for d in dims]
    strides = [math.prod(sizes[k + 1:]) if order == "C" else math.prod(sizes[:k]) for k in range(len(sizes))]
    index = sum(c.astype(np.intp) * int(s) for c, s in zip(fixed, strides))
    return jnp.asarray(index, dtype=np.intp)


def _bad_multi_index(multi_index: Any, dims: Any, mode: Any = "raise", order: str = "C") -> Any:
    coords, modes = _multi_index_modes(multi_index, dims, mode)
    bad = [jnp.any((c < 0) | (c >= d)) for c, d, m in zip(coords, dims, modes) if m == "raise"]
    return functools.reduce(jnp.logical_or, bad, jnp.zeros((), bool))


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, density: Any = None, weights: Any = None) -> Any:
    """``np.histogramdd``: a 1-D sample is N points in one dimension; counts are floats."""
    sample = jnp.asarray(sample)
    if sample.ndim == 1:
        sample = sample[:, None]
    hist, edges = jnp.histogramdd(sample, bins=bins, range=range, weights=weights, density=density)
    return hist.astype(jnp.result_type(float)), edges


def _on_host(numpy_fn: Any, integer_result: bool) -> Any:
    """``numpy_fn(a, kth, axis=-1, ...)`` (``np.partition``, ``np.argpartition``)
    computed by NumPy on the host (a pure callback): NumPy's introselect
    leaves the elements other than the ``kth`` in an order of its own, which
    no JAX op computes. ``kth`` and the keywords must be known at trace time."""
    def op(a: Any, kth: Any, axis: Any = -1, kind: str = "introselect", order: Any = None) -> Any:
        from ..ir.core import Value

        if order is not None or any(isinstance(x, (Value, jax.core.Tracer)) for x in jax.tree_util.tree_leaves(kth)):
            raise not_numpys(f"np.{numpy_fn.__name__} with a traced kth or order=")
        a = jnp.asarray(a)
        shape = (a.size,) if axis is None else a.shape
        dtype = np.dtype(np.intp) if integer_result else a.dtype
        return _host_numpy(lambda x: numpy_fn(x, kth, axis=axis, kind=kind), shape, dtype, a)

    op.__name__ = op.__qualname__ = numpy_fn.__name__
    return op


def _replacements() -> dict:
    return {id(np.argsort): argsort, id(np.sort): sort, id(np.isin): isin, id(np.tril): tril, id(np.triu): triu,
            id(np.linalg.pinv): pinv, id(np.linalg.matrix_rank): matrix_rank, id(np.searchsorted): searchsorted,
            id(np.histogram): histogram, id(np.histogram_bin_edges): histogram_bin_edges,
            id(np.histogram2d): histogram2d, id(np.fix): fix, id(np.modf): modf,
            id(np.quantile): _numpys_quantile(jnp.quantile, 1.0), id(np.percentile): _numpys_quantile(jnp.percentile, 100.0),
            id(np.nanquantile): _numpys_quantile(jnp.nanquantile, 1.0, True),
            id(np.nanpercentile): _numpys_quantile(jnp.nanpercentile, 100.0, True),
            id(np.choose): choose, id(np.ravel_multi_index): ravel_multi_index, id(np.histogramdd): histogramdd, id(np.broadcast_to): broadcast_to,
            id(np.partition): _on_host(np.partition, False), id(np.argpartition): _on_host(np.argpartition, True),
            id(np.take): take, id(np.round): round_, id(np.around): round_, id(np.take_along_axis): take_along_axis, id(np.repeat): repeat,
            id(np.linalg.eigh): eigh, id(np.linalg.eigvalsh): eigvalsh, id(np.linalg.cholesky): cholesky,
            id(np.floor_divide): _int_division_by_zero(jnp.floor_divide, None),
            id(np.divmod): _int_division_by_zero(jnp.divmod, 0), id(np.var): _spread(jnp.var, "var"),
            id(np.std): _spread(jnp.std, "std"), id(np.cumprod): _sequential(True, False),
            id(np.nancumprod): _sequential(True, True), id(np.cumsum): _sequential(False, False),
            id(np.remainder): remainder, id(np.sign): sign, id(np.power): power, id(np.interp): interp, id(np.gcd): _gcd_lcm(False), id(np.float16): half, id(np.full): full, id(np.full_like): full_like, id(np.lcm): _gcd_lcm(True), id(np.clip): clip,
            id(np.nancumsum): _sequential(False, True), id(np.sum): _total(jnp.sum), id(np.mean): _total(numpy_mean), id(np.average): average,
            id(np.nansum): _total(jnp.nansum), id(np.nanmean): _total(jnp.nanmean), id(np.median): _total(jnp.median),
            id(np.nanmedian): _total(jnp.nanmedian), **{id(getattr(np, n)): branch_cut(n) for n in _BRANCH_SIGNS}}


REPLACEMENTS: dict = {}
# replacements for NumPy's computation that apply to NumPy arrays only: NumPy
# hands a jax.Array to its own method (``np.cumsum(x)`` is ``x.cumsum()``, JAX's op)
_ON_NDARRAYS = frozenset(map(id, (np.cumsum, np.cumprod, np.var, np.std, np.sum, np.mean, np.round, np.around)))   # (np.nancumsum: on np.asarray(x))


# NumPy functions whose JAX namesake differs in ways that depend on the data
# (exemplars cannot show them): the reason, and whether NumPy's own Python
# (``python_code``) computes it instead (it then falls back where it must).
DATA_DEPENDENT: dict = {}


def _data_dependent() -> dict:
    shape = "the result's shape depends on the data"
    return {
        id(np.polydiv): ("NumPy trims the remainder's leading zeros: its shape depends on the data", True),
        id(np.roots): ("NumPy trims zeros and returns real or complex roots by the data", False),
        id(np.linalg.eig): ("NumPy returns real or complex eigenvalues by the data", False),
        id(np.linalg.eigvals): ("NumPy returns real or complex eigenvalues by the data", False),
        id(np.linalg.lstsq): ("NumPy's residuals are empty when the matrix is rank-deficient", False),
        id(np.unique): (shape, False), id(np.unique_values): (shape, False), id(np.unique_counts): (shape, False),
        id(np.unique_inverse): (shape, False), id(np.unique_all): (shape, False), id(np.trim_zeros): (shape, False),
        id(np.nonzero): (shape, False), id(np.flatnonzero): (shape, False), id(np.argwhere): (shape, False),
        id(np.extract): (shape, False), id(np.compress): (shape, False), id(np.setdiff1d): (shape, False),
        id(np.union1d): (shape, False), id(np.intersect1d): (shape, False), id(np.setxor1d): (shape, False),
    }


def data_dependent(callee: Any, args: tuple, kwargs: dict) -> tuple[str, bool]:
    """``(why, python)``: why the JAX namesake of ``callee`` may compute
    otherwise than NumPy on these arguments ("" if it does not), and whether
    NumPy's own Python (converted) computes it instead."""
    if not DATA_DEPENDENT:
        DATA_DEPENDENT.update(_data_dependent())
    if any(callee is f for f in (np.argmax, np.argmin, np.nanargmax, np.nanargmin)) and _complex_operand(args, kwargs):
        # (JAX types it, then its comparison refuses complex operands when compiled: an internal error)
        return "JAX's op does not compile for complex operands (NumPy orders them by real, then imaginary part)", False
    return DATA_DEPENDENT.get(id(callee), ("", False))


def _complex_operand(args: tuple, kwargs: dict) -> bool:
    from ..ir.core import Value

    first = args[0] if args else kwargs.get("a")
    return isinstance(first, Value) and first.type.dtype.kind == "c"


# ---------------------------------------------------- NumPy's own errors
# NumPy functions that raise for data their JAX namesake takes silently (an
# all-NaN slice, weights summing to zero, a quantile out of range): a
# run-time check in the graph raises eager's exception (``raise_check``).
def _all_nan_slice(a: Any, axis: Any = None, out: Any = None, *, keepdims: Any = False) -> Any:
    a = jnp.asarray(a)
    if not jnp.issubdtype(a.dtype, jnp.inexact):
        return jnp.zeros((), bool)
    return jnp.any(jnp.all(jnp.isnan(a), axis=axis))


def _weights_sum_to_zero(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *,
                         keepdims: Any = False) -> Any:
    a, w = jnp.asarray(a), jnp.asarray(weights)
    if w.shape != a.shape:   # 1-D weights along ``axis``, as NumPy broadcasts them
        w = jnp.swapaxes(jnp.broadcast_to(w, (a.ndim - 1) * (1,) + w.shape), -1, axis)
    return jnp.any(jnp.sum(w, axis=axis) == 0)


def _outside(scale: float) -> Callable:
    def q_outside(a: Any, q: Any, *args: Any, **kwargs: Any) -> Any:
        q = jnp.asarray(q) / scale
        return ~(jnp.all(0 <= q) & jnp.all(q <= 1))   # (a NaN is outside)

    return q_outside


def _not_monotonic(x: Any, bins: Any, right: bool = False) -> Any:
    d = jnp.diff(jnp.asarray(bins))
    return ~(jnp.all(d >= 0) | jnp.all(d <= 0))


def _bad_choice(a: Any, choices: Any, out: Any = None, mode: str = "raise") -> Any:
    n = len(choices) if isinstance(choices, (list, tuple)) else jnp.shape(choices)[0]
    a = jnp.asarray(a)
    return jnp.any((a < 0) | (a >= n)) if mode == "raise" else jnp.zeros((), bool)


def _negative_integer_power(x1: Any, x2: Any, /, **kwargs: Any) -> Any:
    x1, x2 = jnp.asarray(x1), jnp.asarray(x2)
    if not (jnp.issubdtype(x1.dtype, jnp.integer) and jnp.issubdtype(x2.dtype, jnp.signedinteger)):
        return jnp.zeros((), bool)
    return jnp.any(x2 < 0)


def _autodetected_range_not_finite(a: Any, bins: Any = 10, range: Any = None, *args: Any, **kwargs: Any) -> Any:
    a = jnp.asarray(a)
    if range is not None or a.size == 0 or a.dtype.kind != "f" or not isinstance(bins, (int, np.integer)):
        return jnp.zeros((), bool)
    return ~(jnp.isfinite(jnp.min(a)) & jnp.isfinite(jnp.max(a)))


def _autodetected_range(a: Any, *args: Any, **kwargs: Any) -> tuple:
    """The message's values: the data's min and max (NaN when there is one)."""
    return jnp.min(jnp.asarray(a)), jnp.max(jnp.asarray(a))


def _autodetected_range_error(lo: Any, hi: Any) -> ValueError:
    return ValueError(f"autodetected range of [{float(lo)}, {float(hi)}] is not finite")


_autodetected_range_error.__name__ = "ValueError"


def _raise_checks() -> dict:
    percent = (ValueError, "Percentiles must be in the range [0, 100]")
    quant = (ValueError, "Quantiles must be in the range [0, 1]")
    return {
        id(np.nanargmax): (_all_nan_slice, ValueError, "All-NaN slice encountered", None),
        id(np.nanargmin): (_all_nan_slice, ValueError, "All-NaN slice encountered", None),
        id(np.average): (_weights_sum_to_zero, ZeroDivisionError, "Weights sum to zero, can't be normalized",
                         ("weights", 2)),
        id(np.percentile): (_outside(100.0), *percent, ("q", 1)), id(np.nanpercentile): (_outside(100.0), *percent, ("q", 1)),
        id(np.quantile): (_outside(1.0), *quant, ("q", 1)), id(np.nanquantile): (_outside(1.0), *quant, ("q", 1)),
        id(np.power): (_negative_integer_power, ValueError, "Integers to negative integer powers are not allowed.",
                       ("x2", 1)),
        id(np.choose): (_bad_choice, ValueError, "invalid entry in choice array", ("a", 0)),
        id(np.ravel_multi_index): (_bad_multi_index, ValueError, "invalid entry in coordinates array",
                                   ("multi_index", 0)),
        id(np.digitize): (_not_monotonic, ValueError, "bins must be monotonically increasing or decreasing",
                          ("bins", 1)),
        # NumPy's message holds the values: the constructor is handed them (``_numpy_raise_check``)
        id(np.histogram): (_autodetected_range_not_finite, _autodetected_range_error, _autodetected_range, ("a", 0)),
        id(np.histogram_bin_edges): (_autodetected_range_not_finite, _autodetected_range_error,
                                     _autodetected_range, ("a", 0)),
    }


RAISE_CHECKS: dict = {}


def raise_check(callee: Any, args: tuple, kwargs: dict) -> tuple | None:
    """``(predicate, exception, message)`` where NumPy's ``callee`` raises
    ``exception(message)`` on data ``predicate(*args, **kwargs)`` (a JAX
    function) holds for, or None (no such check, or the argument it checks
    is known at trace time: NumPy's own check then runs on the exemplars)."""
    from ..ir.core import Value
    from ..graphlib.trees import tree_leaves

    if not RAISE_CHECKS:
        RAISE_CHECKS.update(_raise_checks())
    entry = RAISE_CHECKS.get(id(callee))
    if entry is None:
        return None
    predicate, exc, message, checked = entry
    if checked is not None:
        name, at = checked
        operand = args[at] if len(args) > at else kwargs.get(name)
        if not any(isinstance(x, Value) for x in tree_leaves(operand)):
            return None
    return predicate, exc, message


# NumPy functions (names under ``numpy.``) whose graph op (JAX namesake or
# replacement above) was checked against NumPy on exemplar data for every
# argument kind NumPy's namespace sweep gives them: not checked again at
# trace time (a check runs JAX on the exemplars, a compilation each); the
# test ``test_numpy_semantics.py::test_vetted_graph_ops_compute_numpys_results``
# checks them all again. Any other NumPy function is checked when called.
VETTED_NAMES = (
    "empty", "empty_like",   # uninitialised memory: any values are eager's (JAX's zeros too)
    "partition", "argpartition",   # NumPy's own, on the host
    "all", "allclose", "amax", "amin", "angle", "any", "append", "argmax", "argmin", "argsort", "around",
    "array_equal", "array_equiv", "array_split", "atleast_1d", "atleast_2d", "atleast_3d", "average", "bartlett",
    "bincount", "blackman", "block", "broadcast_arrays", "broadcast_shapes", "choose", "clip", "column_stack",
    "concat", "concatenate", "convolve", "copy", "corrcoef", "correlate", "count_nonzero", "cov", "cumprod",
    "cumsum", "cumulative_prod", "cumulative_sum", "delete", "diag", "diag_indices", "diag_indices_from", "diagflat",
    "diagonal", "diff", "dot", "dstack", "ediff1d", "eye", "fft.fft", "fft.fft2", "fft.fftfreq", "fft.fftn",
    "fft.fftshift", "fft.hfft", "fft.ifft", "fft.ifft2", "fft.ifftn", "fft.ifftshift", "fft.ihfft", "fft.irfft",
    "fft.irfft2", "fft.irfftn", "fft.rfft", "fft.rfft2", "fft.rfftfreq", "fft.rfftn", "fill_diagonal", "fix", "flip",
    "fliplr", "flipud", "full_like", "geomspace", "gradient", "hamming", "hanning", "histogram", "histogram2d",
    "histogram_bin_edges", "histogramdd", "hsplit", "hstack", "i0", "identity", "imag", "indices", "inner",
    "interp",   # NumPy's loop (``interp``), for an increasing xp as NumPy requires (random exemplars are not)
    "isclose", "iscomplex", "iscomplexobj", "isin", "isneginf", "isposinf", "isreal", "isrealobj", "isscalar", "ix_",
    "kron", "lexsort", "linalg.cholesky", "linalg.cond", "linalg.det", "linalg.diagonal", "linalg.eigh",
    "linalg.eigvalsh", "linalg.inv", "linalg.matmul", "linalg.matrix_norm", "linalg.matrix_rank",
    "linalg.matrix_transpose", "linalg.norm", "linalg.outer", "linalg.pinv", "linalg.qr", "linalg.slogdet",
    "linalg.solve", "linalg.svd", "linalg.svdvals", "linalg.tensordot", "linalg.tensorsolve", "linalg.trace",
    "linalg.vecdot", "linalg.vector_norm", "linspace", "logspace", "matrix_transpose", "max", "mean", "median",
    "meshgrid", "min", "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean",
    "nanmedian", "nanmin", "nanpercentile", "nanprod", "nanstd", "nansum", "nanvar", "ndim", "ones", "ones_like",
    "outer", "packbits", "pad", "percentile", "permute_dims", "poly", "polyadd", "polyder", "polyint", "polymul",
    "polysub", "polyval", "prod", "ptp", "ravel", "real", "repeat", "resize", "roll", "rot90", "round", "shape",
    "sinc", "size", "sort", "sort_complex", "split", "squeeze", "stack", "std", "sum", "take", "take_along_axis",
    "tensordot", "tile", "trace", "transpose", "trapezoid", "tri", "tril", "tril_indices", "tril_indices_from",
    "triu", "triu_indices", "triu_indices_from", "unstack", "unwrap", "vander", "var", "vdot", "vstack", "where",
    "zeros_like",
)
_VETTED: set = set()


# keywords whose meaning NumPy and JAX share (a call with another keyword,
# ``np.linalg.norm(x, ord='nuc')``, is checked at trace time even when vetted)
_PLAIN_KEYWORDS = frozenset({"axis", "keepdims", "dtype", "ddof"})
# a vetted function's own keywords its replacement computes as NumPy does
_OWN_KEYWORDS = {"interp": {"left", "right"}}


def vetted(callee: Any, kwargs: dict | None = None) -> bool:
    """Whether ``callee``'s graph op is one of the checked ones (``VETTED_NAMES``)
    and the call's keywords are among those whose meaning JAX shares."""
    if kwargs and not set(kwargs) <= _PLAIN_KEYWORDS | _OWN_KEYWORDS.get(getattr(callee, "__name__", ""), set()):
        return False
    if not _VETTED:
        import importlib

        for name in VETTED_NAMES:
            module, _, attr = ("numpy." + name).rpartition(".")
            obj = getattr(importlib.import_module(module), attr, None)
            if obj is not None:
                _VETTED.add(id(obj))
    return id(callee) in _VETTED


def graph_function(callee: Any, args: tuple, kwargs: dict) -> Any:
    """The function the graph runs for the NumPy function ``callee`` on
    traced values: a conversion (``np.asarray``), a replacement with NumPy's
    semantics (``REPLACEMENTS``), else its JAX namesake (or ``callee`` itself
    where it has none). ``out=None`` (NumPy's "a new array") is dropped."""
    if not REPLACEMENTS:
        REPLACEMENTS.update(_replacements())
    method = ufunc_method(callee)
    if method is not None:   # np.add.reduce -> jnp.add.reduce
        return getattr(getattr(jnp, callee.__self__.__name__, None), method, None) or callee
    replacement = REPLACEMENTS.get(id(callee))
    if id(callee) in _ON_NDARRAYS and not _ndarray_operand(args, kwargs):
        replacement = None   # np.cumsum(jax_array) is the array's own method: JAX's op, as eager runs it
    found = conversion(callee, args, kwargs) or replacement or _jnp_namesake(callee)
    if isinstance(callee, np.ufunc) and found is not callee and set(kwargs) == {"dtype"}:
        typed = _ufunc_at_dtype(callee, found, args, kwargs["dtype"])
        if typed is not None:
            return typed
    if isinstance(callee, np.ufunc) and found is not callee and callee not in (np.nextafter, np.spacing) \
            and not kwargs and _half_operand(args, kwargs):   # (those two: the float16 neighbours themselves)
        return _at_single(found)
    return found


def _ufunc_at_dtype(ufunc: np.ufunc, fn: Any, args: tuple, dtype: Any) -> Any:
    """``np.add(a, b, dtype=np.int64)``: NumPy's loop of that dtype, its
    operands cast to it first (``casting="same_kind"``), as ``fn`` (the
    ufunc's graph op) on the cast operands; None where NumPy has no such
    loop or refuses an operand's cast (eager raises: the call falls back)."""
    from ..ir.core import Value

    if isinstance(dtype, Value):
        return None
    if dtype is None:   # NumPy's own choice, as without the keyword (np.dtype(None) would be float64)
        plain = _at_single(fn) if _half_operand(args, {}) and ufunc not in (np.nextafter, np.spacing) else fn

        def default(*xs: Any, dtype: Any = None) -> Any:
            return plain(*xs)

        default.__name__ = default.__qualname__ = ufunc.__name__
        return default
    try:
        target = np.dtype(dtype)
    except TypeError:
        return None
    if len(args) != ufunc.nin or f"{target.char * ufunc.nin}->{target.char * ufunc.nout}" not in ufunc.types:
        return None
    for x in args:
        source = x.type.dtype if isinstance(x, Value) else np.result_type(x) if type(x) in (bool, int, float) \
            else getattr(x, "dtype", None)
        if source is None or not np.can_cast(source, target, "same_kind"):
            return None
        if isinstance(x, Value) and source.kind in "fc" and target.kind in "fc" and source.itemsize > target.itemsize:
            return None   # NumPy's narrowing cast of the operand warns on its own ("overflow encountered in cast")
    op = _at_single(fn) if target == np.float16 else fn

    def at_dtype(*xs: Any, dtype: Any = None) -> Any:
        return op(*(casts.cast(jnp.asarray(x), target) for x in xs))

    at_dtype.__name__ = at_dtype.__qualname__ = ufunc.__name__
    return at_dtype


def _half_operand(args: tuple, kwargs: dict) -> bool:
    """Whether a NumPy array operand (a graph value or a static array) is
    float16, or of a dtype NumPy's float loops take at float16 (int8, uint8,
    bool: ``np.arccosh`` of uint8 data is a float16 result)."""
    from ..ir.core import Value

    for x in (*args, *kwargs.values()):
        dtype = x.type.dtype if isinstance(x, Value) else getattr(x, "dtype", None) \
            if isinstance(x, (np.ndarray, np.generic)) else None
        if dtype is not None and dtype in _HALF_OPERANDS:
            return True
    return False


_HALF_OPERANDS = (np.dtype(np.float16), np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.bool_))


_AT_SINGLE: dict = {}


def _at_single(fn: Any) -> Any:
    """``fn`` (a ufunc's JAX op) computing its float16 operands at float32,
    each result rounded once to the dtype ``fn`` gives, as NumPy's half loops
    do (``npy_half_to_float``, the float loop, ``npy_float_to_half``): JAX's
    composite ops (``hypot``, ``logaddexp``, ``expm1``, ``log10``,
    ``arcsinh``, ``degrees``...) round at float16 between their steps and
    differ in the last bit."""
    wrapped = _AT_SINGLE.get(id(fn))
    if wrapped is not None:
        return wrapped[1]

    def at_single(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not all(isinstance(a, (jax.Array, np.ndarray, np.generic, bool, int, float, complex))
                             for a in args):
            return fn(*args, **kwargs)
        arrays = [a for a in args if not isinstance(a, (bool, int, float, complex))]
        types = jax.eval_shape(fn, *args)
        # int8/uint8/bool operands of a float16 result (np.sqrt of uint8 data) go through the float loop too
        halves = all(t.dtype == jnp.float16 for t in jax.tree_util.tree_leaves(types))
        half_loop = bool(arrays) and (jnp.result_type(*arrays) == jnp.float16 or halves)

        def wide(x: Any) -> Any:
            if type(x) is float and half_loop:   # NumPy's weak Python float: cast to float16 first (2 * pi: 6.28125)
                with np.errstate(over="ignore"):   # (beyond float16: inf; NumPy's own warning is issued apart)
                    return np.float32(np.float16(x))
            dtype = getattr(x, "dtype", None)
            widen = dtype == jnp.float16 or halves and dtype in _HALF_OPERANDS
            return x.astype(jnp.float32) if widen and hasattr(x, "astype") else x

        out = fn(*[wide(a) for a in args])
        return jax.tree_util.tree_map(lambda r, t: r.astype(t.dtype) if r.dtype != t.dtype else r, out, types)

    at_single.__name__ = at_single.__qualname__ = getattr(fn, "__name__", "ufunc")
    _AT_SINGLE[id(fn)] = (fn, at_single)
    return at_single


def _ndarray_operand(args: tuple, kwargs: dict) -> bool:
    """Whether the first operand is a traced NumPy array (not one that may be a jax.Array)."""
    from ..ir.core import Value

    first = args[0] if args else kwargs.get("a")
    return isinstance(first, Value) and first.type.kinds <= {"numpy", "array0"}


def ufunc_method(fn: Any) -> str | None:
    """The name of a NumPy ufunc's method (``np.add.reduce``: "reduce"), or None."""
    if isinstance(getattr(fn, "__self__", None), np.ufunc) and getattr(fn, "__name__", "") in (
            "reduce", "accumulate", "outer", "reduceat", "at"):
        return fn.__name__
    return None


def _jnp_namesake(callee: Any) -> Any:
    return numpy_to_jnp(callee)


def without_out_none(callee: Any, kwargs: dict, args: tuple = ()) -> dict:
    """``kwargs`` without ``out=None`` for a NumPy function (NumPy's default:
    a new array); also without a ufunc's ``out=...`` (a new array, never a
    NumPy scalar: NumPy's ``_lerp``) where an operand has an axis, so that
    the result is no 0-d array either."""
    from ..ir.core import Value

    out = kwargs.get("out", 0)
    shaped = any(isinstance(x, Value) and x.type.shape or isinstance(x, np.ndarray) and x.ndim for x in args)
    if out is Ellipsis and isinstance(callee, np.ufunc) and shaped:
        out = None
    if (out is None or type(out) is tuple and len(out) == 1 and out[0] is None) and is_numpy(callee):
        kwargs = dict(kwargs)
        del kwargs["out"]
    return kwargs


def is_numpy(fn: Any) -> bool:
    """A NumPy function, ufunc or ufunc method (``np.add.reduce``)."""
    if isinstance(fn, np.ufunc) or ufunc_method(fn) is not None:
        return True
    module = getattr(fn, "__module__", "") or ""
    return module == "numpy" or module.startswith("numpy.")


def numpy_source(callee: Any) -> Any:
    """NumPy's own Python function for ``callee`` (a dispatcher's
    implementation), whether or not it has a JAX namesake; None if it has none."""
    import types

    from ..parser.unwrap import array_function_implementation

    if isinstance(callee, np.ufunc):
        return None
    fn = array_function_implementation(callee) or callee
    module = getattr(fn, "__module__", "") or ""
    if not isinstance(fn, types.FunctionType) or not (module == "numpy" or module.startswith("numpy.")) \
            or fn.__code__.co_filename[:1] == "<":
        return None
    return fn


# ndarray methods whose jax.Array namesakes compute otherwise: on a NumPy
# array, ``x.argsort(...)`` is ``np.argsort(x, ...)`` (and its rules above)
METHOD_FUNCTIONS = {"argsort": np.argsort, "argpartition": np.argpartition, "searchsorted": np.searchsorted,
                    "take": np.take, "var": np.var, "std": np.std, "cumprod": np.cumprod,
                    "cumsum": np.cumsum, "sum": np.sum, "prod": np.prod, "mean": np.mean, "round": np.round, "clip": np.clip,
                    "argmax": np.argmax, "argmin": np.argmin}   # (argmax, argmin: of complex data, refused)


def method_arguments(name: str, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """The arguments of ``METHOD_FUNCTIONS[name](x, ...)`` for ``x.name(*args,
    **kwargs)``: ``x.clip(0)`` gives its bounds as ``min``/``max``, each
    optional, where ``np.clip(x, 0)`` requires ``a_max``: both bounds passed,
    a missing one None (what the method means by it)."""
    if name != "clip" or len(args) >= 2:
        return args, kwargs
    kwargs = dict(kwargs)
    low = args[0] if args else kwargs.pop("min", None)
    high = kwargs.pop("max", None)
    return (low, high), kwargs


def _partition_method(a: Any, kth: Any, axis: int = -1, kind: str = "introselect", order: Any = None) -> Any:
    """``ndarray.partition``: NumPy's own partition, computed on the host (``np.partition``'s replacement)."""
    graph_function(np.partition, (), {})   # (fills REPLACEMENTS)
    return REPLACEMENTS[id(np.partition)](a, kth, axis=axis, kind=kind, order=order)


numpy_inplace.METHODS["partition"] = _partition_method   # (numpy_inplace, below this module, holds the table)
