"""SciPy's f2py wrappers of LAPACK and BLAS, read from their own signatures.

Requires: nothing of the interpreter (the callee and the call's operands).
Produces: ``wrapper(callee)``: for a routine of ``scipy.linalg._flapack`` or
``_fblas`` (``dgetrf``, ``dgesdd_lwork``: what ``get_lapack_funcs`` hands
out), its ``Signature`` read from the docstring f2py wrote (``lu,piv,info =
dgetrf(a,[overwrite_a])``, each parameter's and result's sort); ``bind``: a
call's operands by parameter name; ``pure(sig, bound)``: the call writes into
none of its operands and calls no Python code; ``LapackCall``: the routine on
the host, on private copies of its array operands.
Invariants: a call is pure only where every ``overwrite_X`` it is given is a
static false value (f2py then copies ``X`` before LAPACK writes into it), the
routine has no result that is an operand's own storage without an
``overwrite_X`` (``dgelsy``'s ``jptv``: written in place), and no call-back
parameter is given (``dgees``' ``select``). Result shapes of these wrappers
depend only on their operands' shapes and integer parameters (f2py's bounds),
never on array data.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

_MODULES = ("scipy.linalg._flapack", "scipy.linalg._fblas")
_ENTRY = re.compile(r"^(\w+) : (.*)$")


@dataclass(frozen=True)
class Signature:
    """``results = name(params)``: parameter names in order (required, then
    optional), each one's sort (``"array"``, ``"int"``, ``"float"``,
    ``"complex"``, ``"bytes"``, ``"callback"``, ``"tuple"``), and the
    results' names with the operand whose storage each may be."""

    name: str
    params: tuple[str, ...]
    sorts: dict
    results: tuple[str, ...]
    in_place: bool   # a result is an operand's storage that no overwrite_X flag controls
    defaults: tuple = ()   # (parameter, default text) of the optional parameters (f2py's "Default: 0")


_CACHE: dict[int, Signature | None] = {}


def wrapper(callee: Any) -> Signature | None:
    """``callee``'s signature where it is one of SciPy's LAPACK/BLAS wrappers."""
    if type(callee).__name__ != "fortran":
        return None
    found = _CACHE.get(id(callee), False)
    if found is not False:
        return found
    sig = _read(callee)
    _CACHE[id(callee)] = sig
    return sig


def _read(callee: Any) -> Signature | None:
    doc = getattr(callee, "__doc__", None) or ""
    head = re.match(r"^(?:([\w,]+) = )?(\w+)\((.*)\)$", doc.splitlines()[0] if doc else "")
    if head is None:
        return None
    name = head.group(2)
    if not any(getattr(sys.modules.get(m), name, None) is callee for m in _MODULES):
        return None
    params = tuple(re.findall(r"\w+", head.group(3)))
    results = tuple((head.group(1) or "").split(",")) if head.group(1) else ()
    sorts: dict[str, str] = {}
    storage: list[str] = []
    defaults: dict[str, str] = {}
    last = None
    for line in doc.splitlines():
        entry = _ENTRY.match(line)
        if entry is None:
            default = re.match(r"^\s+Default: (.*)$", line)
            if default is not None and last is not None:
                defaults.setdefault(last, default.group(1).strip())
            continue
        last = entry.group(1)
        what = entry.group(2)
        sort = "callback" if what.startswith("call-back") else "array" if "array" in what else \
            next((s for s in ("int", "float", "complex", "bytes", "tuple") if s in what.split("(")[0]), "other")
        sorts.setdefault(entry.group(1), sort)
        storage += re.findall(r"and (\w+) storage", what)
    in_place = any(f"overwrite_{x}" not in params for x in storage)
    return Signature(name, params, sorts, results, in_place, tuple(defaults.items()))


def bind(sig: Signature, args: tuple, kwargs: dict) -> dict | None:
    """The call's operands by parameter name (None where f2py would refuse them)."""
    if len(args) > len(sig.params) or any(k not in sig.params for k in kwargs):
        return None
    bound = dict(zip(sig.params, args))
    if any(k in bound for k in kwargs):
        return None
    bound.update(kwargs)
    return bound


def pure(sig: Signature, bound: dict, layout: Any = None) -> bool:
    """The call writes into none of its operands and calls no Python code.
    An ``overwrite_X`` that is true still leaves ``X`` alone where ``layout(X)``
    (its known (C, F) contiguity) says it is not Fortran-contiguous: f2py
    copies it before LAPACK writes. A call-back is never called where the
    routine sorts nothing (``callbacks_unused``)."""
    if sig.in_place or any(sig.sorts.get(p) == "callback" for p in bound) and not callbacks_unused(sig, bound):
        return False
    for p, x in bound.items():
        if p.startswith("overwrite_") and not (type(x) in (bool, int) and not x):
            known = layout(bound.get(p[len("overwrite_"):])) if layout is not None and type(x) in (bool, int) else None
            if known is None or known[1]:
                return False
    return True


def callbacks_unused(sig: Signature, bound: dict) -> bool:
    """``dgees(select, a, sort_t=0)``: LAPACK calls ``select`` only to sort
    the eigenvalues, which ``sort_t`` (a static 0, or its default 0) turns off."""
    if "sort_t" not in sig.params or dict(sig.defaults).get("sort_t") != "0":
        return False
    x = bound.get("sort_t", 0)
    return type(x) in (bool, int) and not x


def never_called(*args: Any) -> int:
    """The call-back handed to a routine that never calls it (``callbacks_unused``)."""
    raise AssertionError("a LAPACK call-back that sort_t=0 turns off was called")


# the attributes SciPy's ``_get_funcs`` (get_lapack_funcs, get_blas_funcs) sets on the wrapper it hands out
_LABELS = {"module_name": str, "typecode": str, "prefix": str, "dtype": np.dtype, "int_dtype": np.dtype}


def labels(obj: Any, attr: str, value: Any) -> bool:
    """``func.typecode = prefix`` and the like on a LAPACK/BLAS wrapper: the
    values are a function of the routine itself (its module, its type
    prefix and dtype, the integer width of its module), so every eager call
    writes the same ones: written once, while tracing, it is the state
    eager's every call leaves."""
    kind = _LABELS.get(attr)
    return kind is not None and isinstance(value, kind) and wrapper(obj) is not None


# the results of a LAPACK workspace query (``lwork=-1``): sizes and the status, never the data's
QUERY_RESULTS = ("work", "rwork", "iwork", "info")


def workspace_query(sig: Signature, bound: dict) -> str | None:
    """``"all"``: a ``*_lwork`` wrapper (every result a workspace size or the
    status); ``"sizes"``: a routine called with ``lwork=-1`` (LAPACK's
    workspace query: the ``QUERY_RESULTS`` follow the operands' shapes and
    integer parameters, not their data; the other results are the operands
    as given); None otherwise."""
    if sig.name.endswith("_lwork") and set(sig.results) <= set(QUERY_RESULTS):
        return "all"
    if any(type(bound.get(p)) is int and bound[p] == -1 for p in ("lwork", "lrwork", "liwork")) \
            and "info" in sig.results:
        return "sizes"
    return None


@dataclass(frozen=True)
class LapackCall:
    """``routine(*args, **kwargs)`` on the host, each array operand a private
    writable copy (eager's own array is never handed to LAPACK: an XLA
    buffer's NumPy view is read-only); the results as a tuple, in order."""

    routine: Any
    name: str

    def __call__(self, *args: Any, **kwargs: Any) -> tuple:
        copy = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        kw = {k: np.array(v, copy=True) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        out = self.routine(*copy, **kw)
        return out if isinstance(out, tuple) else (out,)

    def __repr__(self) -> str:   # (the name of the host callback)
        return f"scipy.linalg.lapack.{self.name}"
