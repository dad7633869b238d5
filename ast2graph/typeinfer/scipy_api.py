"""SciPy in the graph: JAX equivalents only where they compute what SciPy computes.

Requires: SciPy (never imported here: only functions the user's code
reached are looked at); the IR's ``Value`` types of the call's operands.
Produces:
* ``equivalent``: the JAX function (a namesake in ``jax.scipy``/``jnp``, or one
  of ``RULES``) to run for a public SciPy function on given operands,
  validated against SciPy on exemplar data per signature (cached), never one
  of ``DATA_DEPENDENT``; or why there is none;
* ``guarded_call``: the graph's op for it, with SciPy's own call on the host
  where an input or a result is not finite or SciPy may warn (``SUSPECT``);
* ``graph_form``: SciPy Python that masks the data, in a ``where`` form
  (``scipy_forms``, validated the same way; array_api_extra's apply_where);
* ``is_tuple_bunch``, ``packs_arguments``, ``pure_compiled``: SciPy objects
  the interpreter may run at trace time (result bunches, distributions'
  generated ``_parse_args``, compiled special helpers on static values).
Invariants: nothing here narrows a value or guesses one: a SciPy call runs as
JAX's only where both gave the same results, dtypes, warnings and errors on
every exemplar; SciPy's exceptions, warnings and results on non-finite or
suspect data come from SciPy itself.
"""
from __future__ import annotations

import types
import warnings
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np

from . import scipy_signal


def is_tuple_bunch(cls: Any) -> bool:
    """A class made by ``scipy._lib._bunch._make_tuple_bunch`` (a tuple of its
    fields; ``__new__`` packs them, ``__init__`` only checks and stores extra
    keyword fields): built from traced values, it holds them as they are,
    like a namedtuple (run as an op it was typed as a JAX op, at 32 bits)."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")):
        return False
    new = cls.__dict__.get("__new__")
    extra = cls.__dict__.get("_extra_fields")
    if isinstance(new, staticmethod):
        new = new.__func__
    return isinstance(new, types.FunctionType) and new.__globals__.get("_tuple_new") is tuple.__new__ \
        and isinstance(extra, tuple) and new.__code__.co_filename == "<string>"


def packs_arguments(fn: Any) -> bool:
    """A scipy.stats distribution's ``_parse_args``/``_parse_args_stats``:
    made by ``exec`` from ``parse_arg_template`` (no source file), they only
    return their arguments, defaults filled in, as a tuple: called on traced
    values they run at trace time, holding the values as they are."""
    func = getattr(fn, "__func__", None)
    owner = getattr(fn, "__self__", None)
    if not isinstance(func, types.FunctionType) or func.__name__ not in ("_parse_args", "_parse_args_stats"):
        return False
    template = getattr(owner, "_parse_arg_template", None)
    return func.__code__.co_filename == "<string>" and isinstance(template, str) \
        and type(owner).__module__.startswith("scipy.stats.") and _only_returns_arguments(func)


def makes_distribution(fn: Any) -> bool:
    """A scipy.stats distribution class (``rv_continuous``'s or
    ``rv_discrete``'s subclass, as ``rv_frozen`` makes a fresh instance of
    its distribution's class from static constructor parameters): its
    ``__init__`` builds the argument parser with ``exec``, pure Python that
    only makes the new object, so called on static values it runs at trace time."""
    import sys

    infrastructure = sys.modules.get("scipy.stats._distn_infrastructure")
    return infrastructure is not None and isinstance(fn, type) and issubclass(fn, infrastructure.rv_generic) \
        and fn.__module__.startswith("scipy.stats.")


def _only_returns_arguments(func: types.FunctionType) -> bool:
    """Its body is one ``return`` of a tuple of its parameters' names (and of
    tuples of them, and constants: a discrete distribution's scale 1): what
    ``parse_arg_template`` makes."""
    import dis

    names = set(func.__code__.co_varnames[:func.__code__.co_argcount])
    for ins in dis.get_instructions(func):
        if ins.opname in ("RESUME", "RETURN_VALUE", "BUILD_TUPLE", "NOP"):
            continue
        if ins.opname in ("LOAD_FAST", "LOAD_FAST_CHECK") and ins.argval in names:
            continue
        if ins.opname == "LOAD_CONST" and isinstance(ins.argval, (tuple, type(None), int, float, str)):
            continue
        return False
    return True


# ------------------------------------------------------- graph forms of helpers
def _apply_where_in_graph(cond: Any, f1: Any, f2: Any, fill_value: Any, *args: Any, xp: Any) -> Any:
    """array_api_extra's ``_apply_where`` as it runs where boolean indexing
    is not available (its own branch for JAX): ``f1`` and ``f2`` are
    elementwise by its contract, so computing them everywhere and selecting
    gives the values the masked form gives."""
    return xp.where(cond, f1(*args), f2(*args) if f2 is not None else fill_value)


def _rankdata_in_graph(x: Any, method: str, return_ties: bool = False, xp: Any = None) -> Any:
    """scipy.stats' ``_rankdata`` (``rankdata``, ``spearmanr``, ``mannwhitneyu``,
    ``kruskal``, ``ansari``, ...) with static shapes: SciPy compacts the starts
    of the runs of equal sorted values (``arange(n)[i]``, a shape of the data)
    and repeats each run's rank ``counts`` times; here each sorted position
    finds its run's start and end by ``searchsorted`` over the runs' numbers
    (``cumulative_sum(i)``, nondecreasing; each row offset past the last so
    the rows search apart). The same runs (``y[:-1] != y[1:]``: every NaN a
    run of its own), the same integer rank arithmetic in the same dtypes.
    The ranks go back to the input's order by the inverse permutation (SciPy's
    ``put_along_axis`` for NumPy puts the same values in the same places)."""
    from scipy._lib._array_api import array_namespace, xp_size
    from scipy.stats._stats_py import _rankdata

    xp = array_namespace(x) if xp is None else xp
    shape = x.shape
    if len(shape) == 0 or xp_size(x) == 0:
        return _rankdata(x, method, return_ties, xp)   # SciPy's own (no runs to find)
    dtype = xp.asarray(1.).dtype if method == "average" else xp.asarray(1).dtype
    j = xp.argsort(x, axis=-1, stable=True)
    j_inv = xp.argsort(j, axis=-1, stable=True)
    n = shape[-1]
    if method == "ordinal":
        ordinal = xp.broadcast_to(xp.arange(1, n + 1, dtype=dtype), shape)
        return xp.take_along_axis(ordinal, j_inv, axis=-1)
    y = xp.take_along_axis(x, j, axis=-1)
    i = xp.concat([xp.ones(shape[:-1] + (1,), dtype=xp.bool), y[..., :-1] != y[..., 1:]], axis=-1)
    run = xp.cumulative_sum(xp.astype(i, xp.asarray(1).dtype), axis=-1)
    rows = xp.reshape(xp.arange(xp_size(x) // n), shape[:-1] + (1,))
    keys = xp.reshape(run + rows * (n + 1), (-1,))
    start = xp.reshape(xp.searchsorted(keys, keys, side="left"), shape) - rows * n
    end = xp.reshape(xp.searchsorted(keys, keys, side="right"), shape) - rows * n
    counts = end - start
    if method == "min":
        ranks = xp.astype(start + 1, dtype)
    elif method == "max":
        ranks = xp.astype(start + 1, dtype) + counts - 1
    elif method == "average":
        ranks = xp.astype(start + 1, dtype) + (xp.asarray(counts, dtype=dtype) - 1) / 2
    else:   # "dense"
        ranks = xp.astype(run, dtype)
    ranks = xp.take_along_axis(ranks, j_inv, axis=-1)
    if return_ties:
        t = xp.zeros(shape, dtype=xp.float64)
        t = xp.where(i, xp.astype(counts, t.dtype), t)
        return ranks, t
    return ranks


# SciPy's Python helpers that index with a boolean mask of the data (a shape
# the graph cannot know) and their graph forms, converted in their place when
# called on traced values: (module, name) -> the replacement.
_GRAPH_FORMS = {
    ("scipy._lib.array_api_extra._lib._funcs", "_apply_where"): _apply_where_in_graph,
    ("scipy.stats._stats_py", "_rankdata"): _rankdata_in_graph,
}


def graph_form(fn: Any, args: tuple, kwargs: dict) -> tuple | None:
    """``(form, args)``: the graph form of SciPy's helper ``fn``
    (``_GRAPH_FORMS``), of a public SciPy function or of a scipy.stats
    distribution's method (``scipy_forms``: validated against SciPy's own for
    this signature), and the arguments to call it with; None where there is none."""
    from . import scipy_forms

    if isinstance(fn, types.FunctionType):
        form = _GRAPH_FORMS.get((fn.__module__, fn.__name__))
        if form is not None:
            return form, args
        form = scipy_forms.FUNCTION_FORMS.get(public_name(fn) or "")
        if form is None or not _form_agrees(fn, form, (), args, kwargs):
            return None
        return form, args
    func, owner = getattr(fn, "__func__", None), getattr(fn, "__self__", None)
    if not isinstance(func, types.FunctionType) or not (func.__module__ or "").startswith("scipy.stats."):
        return None
    form = scipy_forms.METHOD_FORMS.get((func.__module__, func.__qualname__))
    if form is None or not _form_agrees(fn, form, (owner,), args, kwargs):
        return None
    return form, (owner, *args)


def _form_agrees(fn: Any, form: Any, bound: tuple, args: tuple, kwargs: dict) -> bool:
    """Whether ``form`` computes what SciPy's ``fn`` computes on exemplars of
    these operands (run eagerly on NumPy data, as ``equivalent`` runs a JAX
    equivalent); cached per signature."""
    from ..ir.core import Value

    leaves, treedef = jax.tree_util.tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, Value))
    if not _plain_operands(leaves):
        return False
    key = _verdict_key((fn, "form"), treedef, leaves)
    if key is not None and key in _VERDICTS:
        return isinstance(_VERDICTS[key], Equivalent)
    verdict = _validate(fn, lambda *a, **k: form(*bound, *a, **k), treedef, leaves, False, False, guarded=False)
    if key is not None:
        _VERDICTS[key] = verdict
    return isinstance(verdict, Equivalent)


# ------------------------------------------------------------- JAX equivalents
#
# A SciPy function called on traced values runs as the JAX function of its
# name (``scipy.linalg.solve`` as ``jax.scipy.linalg.solve``, ``scipy.fft.rfft``
# as ``jnp.fft.rfft``) only where that computes what SciPy computes: for each
# signature (the operands' shapes, dtypes and kinds, the static arguments) both
# are run once on exemplar data of several families (normal, uniform, positive
# definite, scaled, small integers, singular, with a NaN, special values) and
# must agree in structure, shapes, dtypes and values (64-bit values to 64-bit
# precision). On exemplars whose inputs or JAX results are not all finite the
# graph does not trust JAX: where SciPy raised, warned or differed there, the
# graph checks finiteness at run time and, where it fails, calls SciPy itself
# on the host (``guarded_call``), which raises SciPy's own exception
# (``LinAlgError('Matrix is singular.')``) or gives SciPy's values. Anywhere
# else a difference (another dtype, a keyword JAX lacks, a warning, a value)
# means no equivalent: SciPy's Python is converted like the user's code, or
# the call falls back.

# Functions whose agreement depends on the data in ways no exemplar shows, never
# run as their JAX namesake (for scipy.special: found by comparing both on 1,000
# to 3,000 finite arguments drawn from normal, uniform, large, tiny, negative,
# integer and half-integer values, where the guard of non-finite data does not
# apply; erfcx, ndtri and spence agree there), and those whose JAX loop runs
# without end on some arguments (found by running each on 1e30 and 1e300) (the call converts SciPy's Python, whose LAPACK or C
# kernel then runs in Python): the result is one of several valid answers and
# which one depends on the algorithm and on rounding, or JAX's implementation is
# accurate only on part of the domain. A predicate on (args, kwargs) names the
# forms that are unique after all (eigenvalues only).
# JAX's iterates (a while loop to convergence) for minutes or more on some
# arguments where SciPy returns at once: the graph would hang where eager does not
_ENDLESS = "JAX's loops without end on large arguments"
_NEAR_TIES = "the pivots of near ties depend on rounding (the same where JAX runs SciPy's own LAPACK: on CPU)"
_QR_ORDER = "the eigenvalues' order is the QR iterations' (the same where JAX runs SciPy's own LAPACK: on CPU)"
DATA_DEPENDENT: dict[str, tuple[str, Any]] = {
    "scipy.linalg.eigh": ("eigenvectors are unique only up to sign (LAPACK's syevr in SciPy, syevd in JAX)",
                          lambda a, k: k.get("eigvals_only") is True),
    "scipy.linalg.eig": ("eigenvectors are unique only up to a complex phase", None),
    "scipy.linalg.svd": ("singular vectors are unique only up to sign", lambda a, k: k.get("compute_uv") is False),
    "scipy.linalg.schur": ("the Schur form's order of eigenvalues depends on the QR iterations", None),
    "scipy.linalg.rsf2csf": ("works on a Schur form, unique only up to the QR iterations", None),
    "scipy.linalg.qr": ("Q's columns past the numerical rank are rounding noise", None),
    "scipy.linalg.qr_multiply": ("Q's columns past the numerical rank are rounding noise", None),
    "scipy.linalg.polar": ("the unitary factor of a singular matrix is not unique", None),
    "scipy.linalg.hessenberg": ("the reduction's Householder vectors of a rank-deficient matrix are rounding noise", None),
    "scipy.linalg.lu": (_NEAR_TIES, "cpu-exact"),
    "scipy.linalg.lu_factor": (_NEAR_TIES, "cpu-exact"),
    "scipy.linalg.eigvals": (_QR_ORDER, "cpu-exact"),
    "scipy.linalg.lstsq": ("the residues' shape depends on the rank (empty when rank-deficient)", None),
    "scipy.linalg.funm": ("takes a Python function, applied to a Schur form", None),
    "scipy.linalg.sqrtm": ("the principal root's branch on negative eigenvalues", None),
    "scipy.special.beta": ("JAX's is exp(gammaln differences): 1e-7 relative error for large arguments", None),
    "scipy.special.betaln": ("JAX's loses 1e-7 relative for large arguments", None),
    "scipy.special.betainc": ("JAX's continued fraction loses 1e-10 relative for large parameters", None),
    "scipy.special.expn": ("JAX's gives NaN on much of the domain where SciPy gives a value", None),
    "scipy.special.exp1": (_ENDLESS + " (1e300)", None),
    "scipy.special.expi": (_ENDLESS + " (1e300)", None),
    "scipy.special.gammainc": (_ENDLESS + " (gammainc(1e30, 1e30))", None),
    "scipy.special.gammaincc": (_ENDLESS + " (as gammainc, its complement)", None),
    "scipy.special.hyp1f1": ("JAX's series covers part of the domain; " + _ENDLESS, None),
    "scipy.special.hyp2f1": ("JAX's series covers part of the domain; " + _ENDLESS, None),
    "scipy.special.loggamma": ("JAX's is log|gamma| where SciPy's is the complex principal branch", None),
    "scipy.special.log_ndtr": ("JAX's loses 1e-11 relative in the left tail", None),
    "scipy.special.polygamma": ("JAX's takes only integer orders and differs in error behaviour", None),
    "scipy.special.zeta": ("JAX's lacks the one-argument Riemann form", None),
    "scipy.special.multigammaln": ("JAX's differs in error behaviour for a traced dimension", None),
    "scipy.special.bernoulli": ("JAX's needs a static order", None),
}

# scipy.linalg.norm, scipy.fft.rfft, scipy.special.expm1: jnp.linalg's, jnp.fft's, jnp's
_JNP_PLACES = {"linalg": "jax.numpy.linalg", "fft": "jax.numpy.fft", "special": "jax.numpy"}
_MAX_EXEMPLAR_SIZE = 1 << 18                # elements per operand beyond which nothing is validated
_UFUNC_SAMPLE = 64                          # a ufunc's operands: samples of this size (its shape is no matter)
_SEED = 20261128


def public_name(fn: Any) -> str | None:
    """``scipy.<sub>.<name>`` when ``fn`` is a public function of a SciPy
    subpackage (a Python function or a ``scipy.special`` ufunc), else None."""
    import sys

    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or name.startswith("_"):
        return None
    if isinstance(fn, np.ufunc):
        special = sys.modules.get("scipy.special")
        if special is None or getattr(special, name, None) is not fn or getattr(np, name, None) is fn:
            return None
        return f"scipy.special.{name}"
    module = getattr(fn, "__module__", "") or ""
    multimethod = type(fn).__name__ == "_Function" and type(fn).__module__ == "uarray"   # scipy.fft's
    if not module.startswith("scipy.") or not (isinstance(fn, types.FunctionType) or multimethod):
        return None
    sub = module.split(".")[1]
    package = sys.modules.get(f"scipy.{sub}")
    if package is None or getattr(package, name, None) is not fn:
        return None
    return f"scipy.{sub}.{name}"


# SciPy's compiled helpers that compute only from their arguments and return new
# objects (never writing into an argument): called on static values they run
# at trace time, as eager runs them (bernoulli's, comb(exact=True)'s, the
# Kelvin and Airy zeros', czt's FFT of its static chirp).
PURE_COMPILED_MODULES = ("scipy.special._specfun", "scipy.special._comb")


def pure_compiled(fn: Any) -> bool:
    """A compiled function of ``PURE_COMPILED_MODULES``, or one of scipy.fft's
    transforms (a uarray multimethod: pocketfft on NumPy data, a new array)."""
    if isinstance(fn, types.FunctionType):
        return False
    if getattr(fn, "__module__", None) in PURE_COMPILED_MODULES:
        return True
    return type(fn).__name__ == "_Function" and (public_name(fn) or "").startswith("scipy.fft.")


def _hermitian(a: Any, lower: bool) -> Any:
    """The Hermitian matrix LAPACK sees in ``a``'s ``lower`` (else upper)
    triangle: the other triangle and the diagonal's imaginary part ignored."""
    import jax.numpy as jnp

    t = jnp.tril(a) if lower else jnp.triu(a)
    strict = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    full = t + jnp.conj(jnp.swapaxes(strict, -1, -2))
    return full.real.astype(a.dtype) if not jnp.iscomplexobj(a) else full - 1j * jnp.imag(jnp.diagonal(
        full, axis1=-2, axis2=-1))[..., None] * jnp.eye(a.shape[-1], dtype=a.dtype)


def _eigvalsh(a: Any, b: Any = None, *, lower: bool = True, overwrite_a: bool = False, overwrite_b: bool = False,
              type: int = 1, check_finite: bool = True, subset_by_index: Any = None, subset_by_value: Any = None,
              driver: Any = None) -> Any:
    """scipy.linalg.eigvalsh's standard problem: the eigenvalues (ascending)
    of the Hermitian matrix in ``a``'s ``lower`` triangle."""
    import jax.numpy as jnp

    if b is not None or type != 1 or subset_by_index is not None or subset_by_value is not None \
            or driver not in (None, "ev", "evd", "evr", "evx"):
        raise NotImplementedError("a generalized or partial eigenvalue problem")
    return jnp.linalg.eigvalsh(_hermitian(jnp.asarray(a), lower))


def _eigh(a: Any, b: Any = None, *, lower: bool = True, eigvals_only: bool = False, **kwargs: Any) -> Any:
    """scipy.linalg.eigh with ``eigvals_only=True`` (the vectors: DATA_DEPENDENT)."""
    if not eigvals_only:
        raise NotImplementedError("eigenvectors")
    return _eigvalsh(a, b, lower=lower, **kwargs)


def _cho_factor(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """scipy.linalg.cho_factor: LAPACK's potrf leaves the unused triangle as
    it was in ``a`` (JAX's zeroes it)."""
    import jax.numpy as jnp

    a = jnp.asarray(a)
    c = jnp.linalg.cholesky(_hermitian(a, lower))
    c = c if lower else jnp.conj(jnp.swapaxes(c, -1, -2))
    n = a.shape[-1]
    keep = jnp.tril(jnp.ones((n, n), bool)) if lower else jnp.triu(jnp.ones((n, n), bool))
    return jnp.where(keep, c, a), lower


def _psi(x: Any) -> Any:
    """scipy.special.psi (digamma's ufunc is named psi)."""
    import jax.scipy.special as jss

    return jss.digamma(x)


# JAX compositions for SciPy functions whose namesake is not equivalent (or
# missing), validated like namesakes.
RULES: dict[str, Any] = {
    "scipy.special.psi": _psi,
    "scipy.linalg.eigvalsh": _eigvalsh,
    "scipy.linalg.eigh": _eigh,
    "scipy.linalg.cho_factor": _cho_factor,
    "scipy.signal.lfilter": scipy_signal.lfilter,      # SciPy's C kernel as a scan
}


def replaceable(fn: Any) -> bool:
    """Whether a call of SciPy's public ``fn`` may run as something else in
    the graph (a JAX equivalent or a graph form), decided per call: then
    ``to_static(fn)`` converts a call of it, not its own code."""
    from . import scipy_forms

    if candidate(fn) is not None or (public_name(fn) or "") in scipy_forms.FUNCTION_FORMS:
        return True
    # a scipy.stats distribution's method (``scipy.stats.norm.pdf``): its graph form, as in a user's call
    func = getattr(fn, "__func__", None)
    return isinstance(func, types.FunctionType) and \
        (func.__module__, func.__qualname__) in scipy_forms.METHOD_FORMS


def candidate(fn: Any) -> Any:
    """The JAX function named as SciPy's public ``fn`` (``jax.scipy.<sub>.<name>``,
    else for scipy.linalg, scipy.fft and scipy.special ``jnp.linalg``'s,
    ``jnp.fft``'s and ``jnp``'s), or
    None. A candidate only: ``equivalent`` decides per signature."""
    import importlib

    public = public_name(fn)
    if public is None:
        return None
    if public in RULES:
        return RULES[public]
    _, sub, name = public.split(".")
    places = [f"jax.scipy.{sub}"] + ([_JNP_PLACES[sub]] if sub in _JNP_PLACES else [])
    for place in places:
        try:
            module = importlib.import_module(place)
        except ImportError:
            continue
        target = getattr(module, name, None)
        if callable(target) and not isinstance(target, type):
            return target
    return None


@dataclass(frozen=True, eq=False)
class Equivalent:
    """What the graph runs for a SciPy call: ``fn`` (JAX's); ``guard``: where
    an input or a result is not finite, SciPy's own call on the host instead
    (``guarded_call``); ``kinds``: eager's kind of each array result;
    ``example``: SciPy's result on one exemplar (its containers);
    ``layouts``: the (C, F) contiguity of each array result on every exemplar
    (C-ordered operands), None where it was not one and the same."""

    fn: Any
    guard: bool
    kinds: tuple
    example: Any
    layouts: tuple = ()


_VERDICTS: dict[tuple, Equivalent | str] = {}
_VERDICTS_SIZE = 2048
# ("infinite": normal data with +inf first and -inf third, no NaN, which would hide what SciPy makes of
# infinities: log_softmax of [inf, 1, -inf, ...] is [nan, -inf, ...], JAX's all NaN; they decide the guard)
_FAMILIES = ("normal", "uniform", "spd", "scaled", "integers", "singular", "illconditioned", "nonfinite", "special",
             "infinite")


def equivalent(fn: Any, leaves: list, treedef: Any) -> Equivalent | str:
    """The JAX function to run for SciPy's ``fn`` called with these leaves of
    ``(args, kwargs)`` (graph values and static Python objects), or why there
    is none (a ``str``: no JAX function of that name, ``DATA_DEPENDENT``, or
    what differed on the exemplars). Cached per function, operand types and
    static arguments. A ``"cpu-exact"`` entry of ``DATA_DEPENDENT`` is run as
    JAX's on CPU only, where both are SciPy's LAPACK, and only if they agree
    bit for bit."""
    public = public_name(fn)
    target = candidate(fn) if public is not None else None
    if target is None:
        return "JAX has no function of that name"
    if not _plain_operands(leaves, isinstance(fn, np.ufunc)):
        return "an operand is not NumPy data or a jax.Array of a numeric dtype (a function, a large array)"
    args, kwargs = jax.tree_util.tree_unflatten(treedef, leaves)
    if any(k.startswith("overwrite") and v is not False for k, v in kwargs.items()):
        return "SciPy may write its result into an argument (overwrite_...=True), as the graph does not"
    if public.startswith("scipy.linalg.") and any(getattr(getattr(x, "type", None), "dtype", np.dtype("f")).kind in "iu"
                                                   for x in leaves):
        # lu_solve((lu, piv), b): LAPACK reads its integer operands (pivots) as indices into the others;
        # exemplar integers would make it read and write out of bounds (heap corruption, not an exception)
        return "an integer operand of a LAPACK routine (pivot indices): no exemplar data is safe to run it on"
    reason, allowed = DATA_DEPENDENT.get(public, (None, None))
    if reason is not None and not (callable(allowed) and allowed(args, kwargs)) and allowed != "cpu-exact":
        return f"JAX's agrees only on some data: {reason}"
    exact = allowed == "cpu-exact" and not (callable(allowed) and allowed(args, kwargs))
    if exact and jax.default_backend() != "cpu":
        return f"JAX's agrees only on some data: {reason}"
    key = _verdict_key(fn, treedef, leaves)
    if key is not None and key in _VERDICTS:
        return _VERDICTS[key]
    verdict = _validate(fn, target, treedef, leaves, exact, isinstance(fn, np.ufunc))
    if key is not None:
        if len(_VERDICTS) >= _VERDICTS_SIZE:
            _VERDICTS.clear()
        _VERDICTS[key] = verdict
    return verdict


def _plain_operands(leaves: list, ufunc: bool = False) -> bool:
    """Graph values of NumPy or Python kind (eager hands SciPy NumPy data), or
    of jax.Array kind (not to a ufunc: SciPy's Python converts them with
    ``np.asarray``, and the exemplars SciPy is validated on are jax.Arrays
    too: ``_exemplar``), of numeric dtypes, and static leaves that are plain
    data (no callables: a function argument is SciPy's to call). Arrays
    beyond ``_MAX_EXEMPLAR_SIZE`` elements are too large to validate on,
    except a ``ufunc``'s (its exemplars are samples)."""
    from ..ir.core import Value

    some = False
    for x in leaves:
        if isinstance(x, Value):
            t = x.type
            if t.mixed or not (t.numpy or t.python or not ufunc) or t.dtype.kind not in "biufc":
                return False
            if not ufunc and int(np.prod(t.shape)) > _MAX_EXEMPLAR_SIZE:
                return False
            some = True
        elif callable(x) and not isinstance(x, (type, np.dtype)):
            return False
    return some


def _verdict_key(fn: Any, treedef: Any, leaves: list) -> tuple | None:
    """``numpy_probe.call_key`` of the call, per JAX backend (a verdict is the backend's)."""
    from .numpy_probe import call_key

    return call_key((jax.default_backend(), fn), treedef, leaves)


def _validate(fn: Any, target: Any, treedef: Any, leaves: list, exact: bool, ufunc: bool,
              guarded: bool = True) -> Equivalent | str:
    """Run SciPy's ``fn`` and JAX's ``target`` on each family of exemplars (as
    the graph runs it: with x64 on, on the default backend) and compare. On
    exemplars whose inputs or JAX results are not all finite the graph would
    ask SciPy itself (``guarded_call``): there only the results' types must
    agree, and the guard is kept if SciPy raised, warned or differed there.
    Not ``guarded`` (a graph form, which has no guard): all must agree."""
    from ..ir.core import Value

    rng = np.random.default_rng(_SEED)
    guard, example = False, None
    layouts: list | None = None
    for family in _FAMILIES:
        filled = [_exemplar(x, family, rng, ufunc) if isinstance(x, Value) else x for x in leaves]
        before = [np.copy(x) for x in filled if isinstance(x, np.ndarray)]
        eager, eager_error, warned = _run_scipy(fn, treedef, filled)
        if not all(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
                   for a, b in zip(before, [x for x in filled if isinstance(x, np.ndarray)])):
            return f"SciPy's writes into an argument ({family} data)"
        mine, mine_error = _run_jax(target, treedef, filled)
        if mine_error is not None:
            if eager_error is None:   # JAX refuses what SciPy takes (a keyword, a dtype, a shape)
                return f"JAX's raises {type(mine_error).__name__} where SciPy's does not ({family} data)"
            continue
        inputs = [x for x, v in zip(filled, leaves) if isinstance(v, Value)]
        if guarded and not (_all_finite(inputs) and _all_finite(mine) and not _suspect_on(fn, treedef, filled, mine)):   # the graph asks SciPy on the host here
            if eager_error is None and not _agree(eager, mine, exact, types_only=True):
                return f"their results differ in structure, shape or dtype ({family} data)"
            guard = guard or eager_error is not None or warned or not _agree(eager, mine, exact)
            continue
        if eager_error is not None:   # where the graph would not know
            return f"SciPy's raises {type(eager_error).__name__} on finite data where JAX's does not ({family} data)"
        if warned:
            return f"SciPy's warns where JAX's does not ({family} data)"
        if not _agree(eager, mine, exact):
            return f"their results differ{' bit for bit' if exact else ''} ({family} data)"
        if example is None:
            example = eager
        found = _result_layouts(eager)
        layouts = found if layouts is None else [a if a == b else None for a, b in zip(layouts, found)]
    if example is None:
        return "SciPy's raises or JAX's result is not finite on every exemplar: nothing to compare"
    kinds = _eager_kinds(example)
    return "SciPy's returns a 0-d array or an object the graph cannot hand back" if kinds is None else \
        Equivalent(target, guard, kinds, example, tuple(layouts or ()))


def exemplar_contiguity(shape: tuple) -> tuple[bool, bool]:
    """(C, F) contiguity of an exemplar operand of ``shape`` (a new C-ordered array)."""
    return (True, int(np.prod(shape)) == 0 or sum(n > 1 for n in shape) <= 1)


_LAYOUTS: dict[tuple, tuple] = {}


def laid_out_layouts(fn: Any, leaves: list, treedef: Any, contiguity: list) -> tuple:
    """The (C, F) contiguity of each array result of SciPy's ``fn`` on
    exemplars whose array operands have ``contiguity`` (each a C-ordered or
    a Fortran-ordered layout), the same on every family of exemplars SciPy
    accepts (None where it differs); () where an operand's layout cannot be
    made. Cached per call signature and layouts."""
    from ..ir.core import Value

    if any(c not in ((True, False), (False, True), (True, True)) for c in contiguity):
        return ()
    key = _verdict_key(fn, treedef, leaves)
    key = None if key is None else (key, tuple(contiguity))
    if key is not None and key in _LAYOUTS:
        return _LAYOUTS[key]
    rng = np.random.default_rng(_SEED)
    layouts: list | None = None
    for family in _FAMILIES:
        order = iter(contiguity)
        filled = []
        for x in leaves:
            if isinstance(x, Value):
                data = _exemplar(x, family, rng, False)
                if x.type.shape and isinstance(data, jax.Array):
                    next(order)   # (a jax.Array: its buffer is row-major)
                elif x.type.shape and not isinstance(data, (int, float, complex)):
                    data = np.asfortranarray(data) if next(order) == (False, True) else np.ascontiguousarray(data)
                filled.append(data)
            else:
                filled.append(x)
        eager, error, _ = _run_scipy(fn, treedef, filled)
        if error is not None:
            continue
        found = _result_layouts(eager)
        layouts = found if layouts is None else [a if a == b else None for a, b in zip(layouts, found)]
    out = tuple(layouts or ())
    if key is not None:
        if len(_LAYOUTS) >= _VERDICTS_SIZE:
            _LAYOUTS.clear()
        _LAYOUTS[key] = out
    return out


def _result_layouts(result: Any) -> list:
    """The (C, F) contiguity of each ndarray leaf of ``result`` (None for other leaves)."""
    return [(bool(x.flags.c_contiguous), bool(x.flags.f_contiguous)) if type(x) is np.ndarray else None
            for x in jax.tree_util.tree_leaves(result) if not isinstance(x, bool)]


def _suspect_on(fn: Any, treedef: Any, filled: list, mine: Any) -> bool:
    args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
    with jax.enable_x64(True):
        return bool(_suspect(fn, args, kwargs, mine))


def _eager_kinds(example: Any) -> tuple | None:
    """The kind of each array leaf of SciPy's result ("numpy": an ndarray or
    NumPy scalar, "python": a Python number), None where the graph cannot
    hand it back as eager's (a 0-d ndarray, which it cannot tell from a
    NumPy scalar)."""
    kinds = []
    for leaf in jax.tree_util.tree_leaves(example):
        if isinstance(leaf, np.ndarray):
            if leaf.ndim == 0:
                return None
            kinds.append("numpy")
        elif isinstance(leaf, np.generic):
            kinds.append("numpy")
        elif type(leaf) in (int, float, complex):
            kinds.append("python")
        elif isinstance(leaf, bool):
            continue   # a static flag (cho_factor's lower)
        else:
            return None
    return tuple(kinds)


def _exemplar(v: Any, family: str, rng: np.random.Generator, ufunc: bool) -> Any:
    """Data of ``v``'s type and eager kind from one family (a jax.Array for a
    value of jax.Array kind: what eager hands SciPy); a ufunc's array
    operands are samples of ``_UFUNC_SAMPLE`` values (its results' shape and
    dtype are typed with the real ones elsewhere)."""
    t = v.type
    shape = (_UFUNC_SAMPLE,) if ufunc and t.shape else t.shape
    with np.errstate(all="ignore"):   # (1e300 cast to float32: an overflow no user's program made)
        data = _family_data(family, shape, t.dtype, rng)
    if t.python:
        return data.reshape(()).item() if data.size == 1 else data.reshape(-1)[0].item()
    if not (t.numpy or t.array0):
        with jax.enable_x64(True):   # (its own dtype, as the graph's value has it)
            return jax.device_put(data)
    return data[()] if not shape else data


def _family_data(family: str, shape: tuple, dtype: np.dtype, rng: np.random.Generator) -> np.ndarray:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0 if dtype.kind == "u" else -3, 7, shape).astype(dtype)
    square = len(shape) >= 2 and shape[-1] == shape[-2]
    if dtype.kind == "c" and family in ("spd", "singular") and square:   # Hermitian positive definite
        a = rng.normal(size=shape) + 1j * rng.normal(size=shape)
        data = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])
        if family == "singular":
            data[..., :, -1] = 0.0
            data[..., -1, :] = 0.0
        return data.astype(dtype)
    data = _real_family(family, shape, rng)
    if dtype.kind == "c":
        with np.errstate(all="ignore"):
            data = data + 1j * _real_family(family, shape, rng)
    return data.astype(dtype)


def _real_family(family: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    square = len(shape) >= 2 and shape[-1] == shape[-2]
    if family == "uniform":
        return rng.uniform(0.05, 0.95, shape)
    if family == "scaled":
        return rng.normal(size=shape) * 50.0
    if family == "integers":
        return rng.integers(-3, 7, shape).astype(float)
    if family == "special":
        values = np.array([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 1e-300, 1e300, -1e300, 30.0, np.inf, -np.inf, np.nan])
        return np.resize(values, shape) if shape else np.asarray(values[4])
    if family in ("spd", "singular") and square:
        a = rng.normal(size=shape)
        spd = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
        if family == "singular":
            spd[..., :, -1] = 0.0
            spd[..., -1, :] = 0.0
        return spd
    if family == "illconditioned" and square:   # singular values from 1 down to 1e-17
        u = np.linalg.qr(rng.normal(size=shape))[0]
        v = np.linalg.qr(rng.normal(size=shape))[0]
        return u @ (np.logspace(0, -17, shape[-1])[..., None] * v)
    if family == "spd":
        return rng.uniform(0.5, 20.0, shape)
    data = rng.normal(size=shape)
    if family == "nonfinite" and data.size:
        data.reshape(-1)[0] = np.nan
    if family == "infinite" and data.size:
        data.reshape(-1)[::3] = np.inf
        data.reshape(-1)[2::3] = -np.inf
    if family == "singular" and data.size:
        data.reshape(-1)[::2] = 0.0
    return data


def _run_scipy(fn: Any, treedef: Any, filled: list) -> tuple:
    """(result, exception, whether it warned other than NumPy's floating-point
    RuntimeWarnings, which the graph's NumPy ops do not give either; SciPy's
    LinAlgWarning counts)."""
    args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
    with warnings.catch_warnings(record=True) as seen, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            out = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - SciPy's own error: the graph must raise it too
            return None, e, False
    return out, None, any(w.category is not RuntimeWarning for w in seen)   # (LinAlgWarning is a subclass)


def _run_jax(target: Any, treedef: Any, filled: list) -> tuple:
    args, kwargs = jax.tree_util.tree_unflatten(treedef, filled)
    try:
        with jax.enable_x64(True), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return jax.device_get(target(*args, **kwargs)), None
    except Exception as e:  # noqa: BLE001 - JAX refuses the call: no equivalent here
        return None, e


def _all_finite(tree: Any) -> bool:
    for leaf in jax.tree_util.tree_leaves(tree):
        a = np.asarray(leaf)
        if a.dtype.kind in "fc" and not np.all(np.isfinite(a)):
            return False
    return True


def _agree(eager: Any, mine: Any, exact: bool, types_only: bool = False) -> bool:
    """The same number of leaves, each of the same shape and dtype and, within
    the tolerance a 64-bit (32-bit) value is compared with, the same values
    (NaN where SciPy has NaN); static leaves equal. ``exact``: bit for bit;
    ``types_only``: shapes and dtypes only."""
    e_leaves, m_leaves = jax.tree_util.tree_leaves(eager), jax.tree_util.tree_leaves(mine)
    if len(e_leaves) != len(m_leaves):
        return False
    for e, m in zip(e_leaves, m_leaves):
        if isinstance(e, bool) or not isinstance(e, (np.ndarray, np.generic, int, float, complex)):
            if type(e) is not type(m) or e != m:
                return False
            continue
        a, b = np.asarray(e), np.asarray(m)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if types_only:
            continue
        if exact:
            if not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"):
                return False
            continue
        if a.dtype.kind not in "fc":
            if not np.array_equal(a, b):
                return False
            continue
        wide = a.dtype.itemsize >= (8 if a.dtype.kind == "f" else 16)
        rtol, atol = (1e-11, 1e-13) if wide else (1e-5, 1e-6)
        with np.errstate(all="ignore"):
            if not np.allclose(b, a, rtol=rtol, atol=atol, equal_nan=True):
                return False
    return True



# ------------------------------------------------- where SciPy warns on data
def _rcond_low(a: Any, inverse: Any = None) -> Any:
    """Whether the 1-norm reciprocal condition number of the square matrix
    ``a`` may be below machine epsilon, where LAPACK's estimate (``gecon``,
    ``pocon``: a lower bound of the inverse's norm, so an rcond at least the
    true one) makes SciPy warn; computed from the inverse (given, or made),
    with a margin for the inverse's rounding."""
    import jax.numpy as jnp

    a = jnp.asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or not jnp.issubdtype(a.dtype, jnp.inexact):
        return jnp.asarray(False)
    inverse = jnp.linalg.inv(a) if inverse is None else jnp.asarray(inverse)
    norm = lambda m: jnp.max(jnp.sum(jnp.abs(m), axis=-2), axis=-1)   # the 1-norm
    rcond = 1.0 / (norm(a) * norm(inverse))
    return jnp.any(~(rcond >= 1e4 * jnp.finfo(a.dtype).eps))


def _operand(args: tuple, kwargs: dict, k: int, name: str) -> Any:
    return args[k] if len(args) > k else kwargs.get(name)


# Data on which SciPy warns while the inputs and JAX's results are finite, as a
# test on them (positional arguments, keyword arguments, JAX's result): where it
# holds, SciPy itself runs on the host and gives its warning (``guarded_call``).
SUSPECT: dict[str, Any] = {
    "scipy.linalg.solve": lambda args, kwargs, out: _rcond_low(_operand(args, kwargs, 0, "a")),
    "scipy.linalg.inv": lambda args, kwargs, out: _rcond_low(_operand(args, kwargs, 0, "a"), out),
    # 'Diagonal number k is exactly zero. Singular matrix.'
    "scipy.linalg.lu_factor": lambda args, kwargs, out: _exact_zero_pivot(out[0]),
}


def _exact_zero_pivot(lu: Any) -> Any:
    import jax.numpy as jnp

    return jnp.any(jnp.diagonal(jnp.asarray(lu), axis1=-2, axis2=-1) == 0)


def _suspect(fn: Any, args: tuple, kwargs: dict, out: Any) -> Any:
    test = SUSPECT.get(public_name(fn) or "")
    return False if test is None else test(args, kwargs, out)


# ------------------------------------------------------------------ run time
@dataclass(frozen=True, eq=False)
class GuardedCall:
    """One SciPy call site's JAX equivalent, with SciPy's own call on the host
    where an input or a result is not finite (``guard``). ``static``: the
    call's leaves, traced ones marked ``TRACED``; ``kinds``: eager's kind of
    each traced operand."""

    _a2g_host = True   # may raise on the host (``tracebacks.at_site``)

    scipy_fn: Any
    jax_fn: Any
    treedef: Any
    static: tuple
    kinds: tuple
    guard: bool


class _Traced:
    """The place of a traced operand among a call's static leaves."""

    def __repr__(self) -> str:
        return "<traced operand>"


TRACED = _Traced()


def guarded_call(spec: GuardedCall, *inputs: Any) -> Any:
    """``spec.jax_fn`` on the inputs; with ``spec.guard``, where an input or
    its result is not all finite (a NaN, a singular matrix, an overflow) or
    SciPy may warn (``SUSPECT``: an ill-conditioned matrix), SciPy's own call
    on the host values, as eager makes it: its exception (``LinAlgError('A
    singular matrix detected: ...')``, ``ValueError('array must not contain
    infs or NaNs')``), its warnings and its values."""
    from jax import lax

    from ..graphlib.hostcalls import pure_host_call

    args, kwargs = _fill(spec, inputs)
    out = spec.jax_fn(*args, **kwargs)
    if not spec.guard:
        return out
    leaves, tree = jax.tree_util.tree_flatten(out)
    arrays = [x for x in leaves if isinstance(x, jax.Array)]
    ok = _finite_all([*inputs, *arrays]) & ~_suspect(spec.scipy_fn, args, kwargs, out)
    types = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in arrays)
    host = _host_scipy(spec, types)
    chosen = lax.cond(ok, lambda: tuple(arrays), lambda: pure_host_call(host, types, *inputs))
    it = iter(chosen)
    return jax.tree_util.tree_unflatten(tree, [next(it) if isinstance(x, jax.Array) else x for x in leaves])


guarded_call._a2g_typed = True  # type: ignore[attr-defined]  # its types are JAX's, validated against SciPy's


def _fill(spec: GuardedCall, inputs: tuple) -> tuple:
    values = iter(inputs)
    filled = [next(values) if x is TRACED else x for x in spec.static]
    return jax.tree_util.tree_unflatten(spec.treedef, filled)


def _finite_all(xs: list) -> Any:
    import jax.numpy as jnp

    ok = jnp.asarray(True)
    for x in xs:
        x = jnp.asarray(x)
        if jnp.issubdtype(x.dtype, jnp.inexact):
            ok = ok & jnp.all(jnp.isfinite(x))
    return ok


def _host_scipy(spec: GuardedCall, types: tuple) -> Any:
    """The host side: SciPy's call on eager's objects; what it raises is
    eager's exception (kept and re-raised by the caller of the graph)."""
    from ..graphlib.hostcalls import _guarded
    from ..graphlib.arrays import to_eager_kind

    def run(*inputs: Any) -> tuple:
        eager = [to_eager_kind(x, kind) for x, kind in zip(inputs, spec.kinds)]
        args, kwargs = _fill(spec, tuple(eager))
        out = [x for x in jax.tree_util.tree_leaves(spec.scipy_fn(*args, **kwargs)) if not isinstance(x, bool)]
        if len(out) != len(types):
            raise TypeError(f"ast2graph: {public_name(spec.scipy_fn)} returned {len(out)} arrays on the host "
                            f"where its JAX equivalent returns {len(types)}")
        return tuple(np.asarray(o, dtype=t.dtype).reshape(t.shape) for o, t in zip(out, types))

    return _guarded(run)


def guarded_operands(fn: Any, found: Equivalent, leaves: list, treedef: Any) -> tuple[GuardedCall, list]:
    """The op's static part and its traced operands for one call."""
    from ..ir.core import Value
    from ..graphlib.arrays import eager_kind

    traced = [x for x in leaves if isinstance(x, Value)]
    spec = GuardedCall(fn, found.fn, treedef, tuple(TRACED if isinstance(x, Value) else x for x in leaves),
                       tuple(eager_kind(x.type) for x in traced), found.guard)
    return spec, traced
