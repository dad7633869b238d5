"""SciPy functions that mask the data, in a form the graph can run.

Requires: SciPy's ``rv_continuous`` (its ``_parse_args``, ``_argcheck``,
``_support_mask``, ``_get_support`` and the distribution's ``_pdf``, ``_cdf``...).
Produces: ``METHOD_FORMS``: for ``rv_continuous.pdf``, ``logpdf``, ``cdf``,
``logcdf``, ``sf``, ``logsf``, ``ppf``, ``isf``, ``rv_discrete.pmf``,
``logpmf``, ``cdf``, and ``FUNCTION_FORMS``: for
``scipy.special.diric``, the same computation written with ``np.where`` where
SciPy compresses the elements of a mask (``argsreduce``, ``np.extract``: a
shape that depends on the data) and scatters the results back (``np.place``).
Invariants: each form is SciPy 1.17's code line for line, except that an
elementwise function of the compressed elements (a distribution's ``_pdf``:
vectorized in ``x`` and the shapes, by ``rv_continuous``'s contract; diric's
ufunc expressions) is applied to every element and its results selected where
SciPy places them: the same values there, SciPy's filler elsewhere.
``scipy_api`` validates each form against SciPy's own code on exemplar data
per signature before the graph uses it.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def _aligned(cond: Any, *args: Any) -> list:
    """``argsreduce(cond, *args)`` without the compression: each argument
    broadcast to ``cond``'s shape and raveled (SciPy's own all-valid path)."""
    *full, _ = np.broadcast_arrays(*args, cond)
    return [np.ravel(a) for a in full]


def _place(output: Any, mask: Any, vals: Any) -> Any:
    """``np.place(output, mask, vals)`` for values aligned with ``mask`` (from
    ``_aligned``) or one value: the result, cast to ``output``'s dtype."""
    vals = np.asarray(vals)
    if vals.ndim and vals.size == np.size(mask):
        vals = np.reshape(vals, np.shape(mask))
    return np.where(mask, vals, output).astype(output.dtype)


def _ended(output: Any) -> Any:
    if output.ndim == 0:
        return output[()]
    return output


def _density(self: Any, x: Any, args: tuple, kwds: dict, log: bool) -> Any:
    """``pdf`` (``log``: ``logpdf``)."""
    args, loc, scale = self._parse_args(*args, **kwds)
    x, loc, scale = map(np.asarray, (x, loc, scale))
    args = tuple(map(np.asarray, args))
    dtyp = np.promote_types(x.dtype, np.float64)
    x = np.asarray((x - loc) / scale, dtype=dtyp)
    cond0 = self._argcheck(*args) & (scale > 0)
    cond1 = self._support_mask(x, *args) & (scale > 0)
    cond = cond0 & cond1
    output = np.full(np.shape(cond), -np.inf if log else 0.0, dtyp)
    output = _place(output, (1 - cond0) + np.isnan(x), self.badvalue)
    goodargs = _aligned(cond, *((x,) + args + (scale,)))
    scale, goodargs = goodargs[-1], goodargs[:-1]
    # (SciPy takes log(scale) and divides by it only where cond holds: elsewhere 1, which warns of nothing)
    scale = np.where(np.ravel(cond), scale, 1.0)
    vals = self._logpdf(*goodargs) - np.log(scale) if log else self._pdf(*goodargs) / scale
    return _ended(_place(output, cond, vals))


def pdf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _density(self, x, args, kwds, False)


def logpdf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _density(self, x, args, kwds, True)


def _tail(self: Any, x: Any, args: tuple, kwds: dict, upper: bool, log: bool) -> Any:
    """``cdf``, ``logcdf`` (``upper``: ``sf``, ``logsf``)."""
    args, loc, scale = self._parse_args(*args, **kwds)
    x, loc, scale = map(np.asarray, (x, loc, scale))
    args = tuple(map(np.asarray, args))
    _a, _b = self._get_support(*args)
    dtyp = np.promote_types(x.dtype, np.float64)
    x = np.asarray((x - loc) / scale, dtype=dtyp)
    cond0 = self._argcheck(*args) & (scale > 0)
    cond1 = self._open_support_mask(x, *args) & (scale > 0)
    cond2 = cond0 & (x <= _a) if upper else (x >= np.asarray(_b)) & cond0
    cond = cond0 & cond1
    output = np.full(np.shape(cond), -np.inf if log else 0.0, dtyp)
    bad = (1 - cond0) * (cond1 == cond1) + np.isnan(x) if log and not upper else (1 - cond0) + np.isnan(x)  # noqa: PLR0124 - SciPy's
    output = _place(output, bad, self.badvalue)
    output = _place(output, cond2, 0.0 if log else 1.0)
    goodargs = _aligned(cond, *((x,) + args))
    fn = {(False, False): self._cdf, (False, True): self._logcdf, (True, False): self._sf,
          (True, True): self._logsf}[(upper, log)]
    return _ended(_place(output, cond, fn(*goodargs)))


def cdf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _tail(self, x, args, kwds, False, False)


def logcdf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _tail(self, x, args, kwds, False, True)


def sf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _tail(self, x, args, kwds, True, False)


def logsf(self: Any, x: Any, *args: Any, **kwds: Any) -> Any:
    return _tail(self, x, args, kwds, True, True)


def _quantile(self: Any, q: Any, args: tuple, kwds: dict, inverse_sf: bool) -> Any:
    """``ppf`` (``inverse_sf``: ``isf``)."""
    args, loc, scale = self._parse_args(*args, **kwds)
    q, loc, scale = map(np.asarray, (q, loc, scale))
    args = tuple(map(np.asarray, args))
    _a, _b = self._get_support(*args)
    cond0 = self._argcheck(*args) & (scale > 0) & (loc == loc)  # noqa: PLR0124 - not NaN (SciPy's)
    cond1 = (0 < q) & (q < 1)
    cond2 = cond0 & (q == (1 if inverse_sf else 0))
    cond3 = cond0 & (q == (0 if inverse_sf else 1))
    cond = cond0 & cond1
    output = np.full(np.shape(cond), fill_value=self.badvalue)
    lower_bound = _a * scale + loc
    upper_bound = _b * scale + loc
    output = _place(output, cond2, _aligned(cond2, lower_bound)[0])
    output = _place(output, cond3, _aligned(cond3, upper_bound)[0])
    goodargs = _aligned(cond, *((q,) + args + (scale, loc)))
    scale, loc, goodargs = goodargs[-2], goodargs[-1], goodargs[:-2]
    fn = self._isf if inverse_sf else self._ppf
    return _ended(_place(output, cond, fn(*goodargs) * scale + loc))


def ppf(self: Any, q: Any, *args: Any, **kwds: Any) -> Any:
    return _quantile(self, q, args, kwds, False)


def isf(self: Any, q: Any, *args: Any, **kwds: Any) -> Any:
    return _quantile(self, q, args, kwds, True)


def diric(x: Any, n: Any) -> Any:
    """scipy.special.diric: the periodic sinc function."""
    x, n = np.asarray(x), np.asarray(n)
    n = np.asarray(n + (x - x))
    x = np.asarray(x + (n - n))
    ytype = x.dtype if np.issubdtype(x.dtype, np.inexact) else float
    y = np.zeros(x.shape, ytype)
    if np.finfo(ytype).eps < 1e-18:
        minval = 1e-11
    elif np.finfo(ytype).eps < 1e-15:
        minval = 1e-7
    else:
        minval = 1e-3
    mask1 = (n <= 0) | (n != np.floor(n))
    y = _place(y, mask1, np.nan)
    x = x / 2
    denom = np.sin(x)
    mask2 = (1 - mask1) & (abs(denom) < minval)
    y = _place(y, mask2, pow(-1, np.round(x / np.pi) * (n - 1)))
    mask = (1 - mask1) & (1 - mask2)
    return _place(y, mask, np.sin(n * x) / (n * denom))


def _discrete_start(self: Any, k: Any, args: tuple, kwds: dict) -> tuple:
    from scipy.stats._distn_infrastructure import rv_sample

    args, loc, _ = self._parse_args(*args, **kwds)
    k, loc = map(np.asarray, (k, loc))
    args = tuple(map(np.asarray, args))
    _a, _b = self._get_support(*args)
    k = np.asarray(k - loc)
    return args, k, _a, _b, self._argcheck(*args), not isinstance(self, rv_sample)


def _mass(self: Any, k: Any, args: tuple, kwds: dict, log: bool) -> Any:
    """``rv_discrete.pmf`` (``log``: ``logpmf``)."""
    args, k, _a, _b, cond0, nonzero = _discrete_start(self, k, args, kwds)
    cond1 = (k >= _a) & (k <= _b)
    if nonzero:
        cond1 = cond1 & self._nonzero(k, *args)
    cond = cond0 & cond1
    output = np.full(np.shape(cond), -np.inf if log else 0.0, "d")
    output = _place(output, (1 - cond0) + np.isnan(k), self.badvalue)
    goodargs = _aligned(cond, *((k,) + args))
    vals = self._logpmf(*goodargs) if log else np.clip(self._pmf(*goodargs), 0, 1)
    return _ended(_place(output, cond, vals))


def pmf(self: Any, k: Any, *args: Any, **kwds: Any) -> Any:
    return _mass(self, k, args, kwds, False)


def logpmf(self: Any, k: Any, *args: Any, **kwds: Any) -> Any:
    return _mass(self, k, args, kwds, True)


def discrete_cdf(self: Any, k: Any, *args: Any, **kwds: Any) -> Any:
    """``rv_discrete.cdf``."""
    args, k, _a, _b, cond0, _ = _discrete_start(self, k, args, kwds)
    cond1 = (k >= _a) & (k < _b)
    cond2 = (k >= _b)
    cond3 = np.isneginf(k)
    cond = cond0 & cond1 & np.isfinite(k)
    output = np.zeros(np.shape(cond), "d")
    output = _place(output, cond2 * (cond0 == cond0), 1.0)  # noqa: PLR0124 - SciPy's
    output = _place(output, cond3 * (cond0 == cond0), 0.0)  # noqa: PLR0124 - SciPy's
    output = _place(output, (1 - cond0) + np.isnan(k), self.badvalue)
    goodargs = _aligned(cond, *((k,) + args))
    return _ended(_place(output, cond, np.clip(self._cdf(*goodargs), 0, 1)))


discrete_cdf.__name__ = "cdf"


# (the method's module, its qualified name) -> its form
METHOD_FORMS = {("scipy.stats._distn_infrastructure", f"rv_continuous.{f.__name__}"): f
                for f in (pdf, logpdf, cdf, logcdf, sf, logsf, ppf, isf)}
METHOD_FORMS.update({("scipy.stats._distn_infrastructure", f"rv_discrete.{f.__name__}"): f
                     for f in (pmf, logpmf, discrete_cdf)})
# a public function's name -> its form
FUNCTION_FORMS = {"scipy.special.diric": diric}
