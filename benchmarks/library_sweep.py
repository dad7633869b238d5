"""A sweep over whole namespaces of numerical libraries, not a hand-picked list.

``benchmarks/library_corpus.py`` holds functions chosen one by one; a corpus
chosen by the people who build the compiler flatters it. This sweep takes
every public function of a set of namespaces (NumPy's top level, ``np.linalg``,
``np.fft``, SciPy's ``special``/``stats``/``linalg``/``signal``/
``spatial.distance``/``integrate``/``ndimage``/``interpolate``/``fft``/
``cluster.vq`` and the plain functions of ``optimize``, the six
``numpy.polynomial`` kinds, scikit-learn's ``metrics``/``preprocessing``/
``utils.extmath``, optax's losses, ``jax.nn``), and for each one the first of a fixed list
of argument sets that eager accepts (no exception, no warning, a result made
only of arrays, numbers, tuples, lists and dicts, the same result twice). It
then runs ``to_static(fn)`` on the same arguments under ``explain`` and
compares with eager (``tests.helpers.assert_same``: values, dtypes, kinds,
structure, argument mutation).

``python -m benchmarks.library_sweep`` prints, per namespace, the functions
tried, how many are one graph, how many give a result different from eager
(a silent wrong result: the worst outcome), how many raise where eager did
not, and the fallback sites by reason. ``--only NAME`` runs the functions
whose dotted name contains NAME; ``--retry FILE`` only those a former run's
JSON skipped; ``-v`` lists every function; ``--json FILE`` writes every outcome.
``--lists``: every NumPy array argument (at the top level and in a tuple or
list argument) passed as the Python list ``tolist()`` gives, as users call
``np.polyval([3, 0, 1], x)`` or ``f1_score([0, 1], [1, 1])``; a function
eager refuses lists for keeps its arrays (the outcome's ``args`` says which).
``--jax``: every such NumPy array argument passed as ``jnp.asarray`` of it
(a jax.Array, 32-bit as JAX makes it), as users of a JAX compiler call
``scipy.linalg.solve(a, b)``; a function eager refuses them for keeps its
NumPy arrays (labelled as for ``--lists``).

Each namespace runs in its own child process (``--in-process``: all in this
one), the outcomes merged into one table and one JSON: a native crash (heap
corruption in compiled library code, seen in long runs and at the exit of
``scipy.linalg``) costs that namespace's remaining functions, recorded as one
outcome ``crashed`` named by the function that was running, not the run.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib
import inspect
import io
import itertools
import json
import signal
import sys
import time
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

NAMESPACES = [
    "numpy", "numpy.linalg", "numpy.fft",
    "scipy.special", "scipy.stats", "scipy.linalg", "scipy.signal", "scipy.spatial.distance",
    "scipy.integrate",
    "sklearn.metrics", "sklearn.metrics.pairwise", "sklearn.preprocessing", "sklearn.utils.extmath",
    "optax", "optax.losses",
    "numpy.polynomial.polynomial", "numpy.polynomial.chebyshev", "numpy.polynomial.legendre",
    "numpy.polynomial.hermite", "numpy.polynomial.hermite_e", "numpy.polynomial.laguerre",
    "scipy.ndimage", "scipy.interpolate", "scipy.fft", "scipy.cluster.vq", "scipy.optimize", "jax.nn",
]

# Namespaces swept only in part: SciPy's optimizers with a global search or a
# solver's set-up (differential_evolution, linprog, minimize) run for minutes
# per call; the plain functions (Rosenbrock, finite differences, the scalar
# root finders and minimisers with a simple callable) are what a user's code
# calls. A name here is tried even where SKIP_WORDS would skip it.
NAMESPACE_ONLY: dict[str, tuple[str, ...]] = {
    "scipy.optimize": ("rosen", "rosen_der", "rosen_hess", "rosen_hess_prod", "approx_fprime", "check_grad",
                       "bisect", "brentq", "brenth", "ridder", "toms748", "newton", "fixed_point", "golden",
                       "brent", "bracket", "fminbound", "minimize_scalar", "root_scalar", "isotonic_regression",
                       "nnls"),
}

# Functions that read or write files, print, sleep, make random numbers, build
# objects rather than compute (classes are skipped anyway), or need arguments
# no argument set below can give: not computations a user would decorate.
SKIP_WORDS = ("load", "save", "print", "show", "test", "info", "source", "lookfor", "deprecate", "set_",
              "get_", "seterr", "geterr", "random", "fromfile", "tofile", "genfromtxt", "fromregex",
              "memmap", "who", "disp", "typename", "mintypecode", "check_", "_dispatch")
# Functions whose result holds uninitialised memory in eager (np.empty,
# np.empty_like): no value to compare, only the structure, kinds, shapes and
# dtypes (``_blank``): a difference of values there is no wrong result.
VALUES_UNDEFINED = ("empty",)


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _vec(n: int = 8, seed: int = 0) -> np.ndarray:
    return _rng(seed).normal(size=n)


def _mat(n: int = 4, m: int | None = None, seed: int = 0) -> np.ndarray:
    return _rng(seed).normal(size=(n, m or n))


def _spd(n: int = 4) -> np.ndarray:
    a = _mat(n)
    return a @ a.T + n * np.eye(n)


def _prob(n: int = 8, seed: int = 0) -> np.ndarray:
    p = np.abs(_vec(n, seed)) + 0.1
    return p / p.sum()


# The argument sets, in the order tried: the first one eager accepts is used.
ARG_SETS: list[tuple[str, Callable[[], tuple]]] = [
    ("vec", lambda: (_vec(),)),
    ("spd", lambda: (_spd(),)),
    ("vec,vec", lambda: (_vec(), _vec(8, 1))),
    ("mat,mat", lambda: (_mat(), _mat(seed=1))),
    ("mat,vec", lambda: (_spd(), _vec(4))),
    ("prob", lambda: (_prob(),)),
    ("prob,prob", lambda: (_prob(), _prob(8, 1))),
    ("vec,0.5", lambda: (_vec(), 0.5)),
    ("vec,2", lambda: (_vec(), 2)),
    ("mat(6x3)", lambda: (_mat(6, 3),)),
    ("mat(6x3),mat(4x3)", lambda: (_mat(6, 3), _mat(4, 3, seed=1))),
    ("labels", lambda: (np.array([0, 1, 1, 0, 1, 0, 0, 1]), np.array([0, 1, 0, 0, 1, 1, 0, 1]))),
    ("ints", lambda: (np.array([3, 1, 4, 1, 5, 9, 2, 6]),)),
    ("8", lambda: (8,)),
    ("0.3", lambda: (0.3,)),
]

# Argument sets chosen by the function's signature, tried after ARG_SETS (so a
# function ARG_SETS already fits keeps its arguments): each required
# positional parameter takes a value a real caller passes for a parameter of
# that name (``lfilter(b, a, x)``, ``butter(N, Wn)``, ``trim_mean(a,
# proportiontocut)``, ``hermite(n)``), the candidates of every name tried in
# order, at most BY_NAME_TRIES combinations. A name not listed is an array.
_B, _A = np.array([0.2, 0.3, 0.2]), np.array([1.0, -0.5, 0.25])       # a stable IIR filter
_SOS = np.array([[0.2, 0.3, 0.2, 1.0, -0.5, 0.25], [1.0, 0.5, 0.1, 1.0, -0.3, 0.1]])
_ZEROS, _POLES = np.array([-1.0, -1.0]), np.array([-0.5 + 0.3j, -0.5 - 0.3j])
_CALLABLE = ("func", "fun", "f", "function", "func1d", "statistic", "score_func", "metric_func")


def _sorted_vec(n: int = 8) -> np.ndarray:
    return np.sort(_vec(n, 2))


def _labels6() -> np.ndarray:
    return np.array([0, 1, 0, 1, 2, 2])


def _multilabel() -> np.ndarray:
    return np.array([[1, 0, 0], [0, 1, 1], [0, 0, 1], [1, 1, 0]])


BY_NAME: dict[str, list[tuple[str, Callable[[], Any]]]] = {}


def _names(names: str, *cands: tuple[str, Callable[[], Any]]) -> None:
    for n in names.split():
        BY_NAME[n] = list(cands)


_VEC = ("vec", _vec)
_POS = ("posvec", lambda: np.abs(_vec()) + 0.5)
_LONG = ("vec(256)", lambda: _vec(256, 3))     # spectral estimates: nperseg 256


def _num(label: str, value: Any) -> tuple[str, Callable[[], Any]]:
    return (label, lambda: value)


def _integrand2(y: float, x: float) -> float:      # dblquad's func(y, x), odeint's func(y, t)
    return -0.5 * y + x


_names("n N", _num("4", 4), _num("3", 3))
_names("m M nt deg d", _num("2", 2), _VEC)
_names("numtaps window_length hsize", _num("5", 5))
_names("polyorder up down sketch_size batch_size n_packs", _num("2", 2))
_names("q", _num("2", 2), _num("0.5", 0.5))
_names("in1_len", _num("8", 8))
_names("in2_len", _num("5", 5))
_names("Wn", _num("0.2", 0.2), ("[0.2,0.4]", lambda: [0.2, 0.4]))
_names("cutoff w0 wp", _num("0.2", 0.2))
_names("freq", _num("0.2", 0.2), ("[0,0.5,1]", lambda: [0.0, 0.5, 1.0]))
_names("gain", ("[1,1,0]", lambda: [1.0, 1.0, 0.0]))
_names("bands", ("[0,.2,.3,1]", lambda: [0.0, 0.2, 0.3, 1.0]), ("[0,.2,.3,.5]", lambda: [0.0, 0.2, 0.3, 0.5]))
_names("desired", ("[1,1,0,0]", lambda: [1.0, 1.0, 0.0, 0.0]), ("[1,0]", lambda: [1.0, 0.0]))
_names("ripple", _num("65.0", 65.0))
_names("width", _num("0.1", 0.1))
_names("ftype", _num("'fir'", "fir"))
_names("ws", _num("0.3", 0.3))
_names("gpass rp", _num("1.0", 1.0))
_names("gstop rs", _num("40.0", 40.0))
_names("proportiontocut", _num("0.1", 0.1))
_names("alpha beta lmb la fs c0 z1 omega", _num("0.5", 0.5))
_names("lb p1", _num("2.0", 2.0))
_names("q1", _num("1.0", 1.0))
_names("dt", _num("0.1", 0.1))
_names("gfun qfun", _num("0.0", 0.0))
_names("hfun rfun", _num("1.0", 1.0))
_names("t", _VEC, _num("0.5", 0.5))
_names("x", _VEC, _POS, _LONG, _num("0.5", 0.5))
_names("v c r", _VEC, _num("0.5", 0.5))
_names("y", _VEC, ("vec(256)", lambda: _vec(256, 4)))
_names("data", _VEC, _POS)
_names("a", _VEC, ("den", lambda: _A.copy()), ("spd", _spd), _POS, _num("0.0", 0.0))
_names("b", _VEC, ("num", lambda: _B.copy()), ("mat", _mat), _num("1.0", 1.0))
_names("num", ("num", lambda: _B.copy()))
_names("den", ("den", lambda: _A.copy()))
_names("p", _num("2.0", 2.0), ("poles", lambda: _POLES.copy()), _VEC)
_names("z", ("zeros", lambda: _ZEROS.copy()), _VEC, _num("0.5", 0.5))
_names("k", _num("0.5", 0.5), _num("2", 2))
_names("sos", ("sos", lambda: _SOS.copy()))
_names("system", ("(num,den)", lambda: (_B.copy(), _A.copy())), ("(num,den,dt)", lambda: (_B.copy(), _A.copy(), 0.1)))
_names("Q", _num("30.0", 30.0), ("spd", _spd))
_names("A R W", ("spd", _spd))
_names("X", ("mat(6x3)", lambda: _mat(6, 3)), ("spd", _spd), ("|mat(6x3)|", lambda: np.abs(_mat(6, 3))),
       ("mat(6x2)", lambda: _mat(6, 2)))
_names("labels", ("labels6", _labels6))
_names("y_true y_pred", ("binary", lambda: np.array([0, 1, 1, 0, 1, 0, 0, 1])), ("multilabel", _multilabel),
       ("labels4", lambda: np.array([0, 1, 2, 2])))
_names("y_score", ("prob", _prob), ("scores(4x3)", lambda: np.abs(_mat(4, 3))))
_names("peaks", ("[2,5]", lambda: np.array([2, 5])))
_names("ind indices", ("[0,2]", lambda: np.array([0, 2])))
_names("obj", _num("2", 2))
_names("values", _VEC, _num("1.0", 1.0))
_names("fill_value", _num("0.5", 0.5))
_names("bins xp fp", ("sorted", _sorted_vec))
_names("indices_or_sections", _num("2", 2))
_names("axis source axis1", _num("0", 0))
_names("destination axis2", _num("1", 1))
_names("shape", ("(2,4)", lambda: (2, 4)), ("(3,8)", lambda: (3, 8)))
_names("ary", _VEC, ("spd", _spd))
_names("table", ("2x2 counts", lambda: np.array([[7, 2], [3, 8]])))
_names("e", ("vec(7)", lambda: _vec(7, 1)))
_names("samples", ("mat(6x3)", lambda: _mat(6, 3)), ("[vec,vec]", lambda: [_vec(), _vec(8, 1)]))
_names("comparator", ("np.greater", lambda: np.greater))
_names("mask_func", ("np.triu", lambda: np.triu))
_names("cdf", ("'norm'", lambda: "norm"), ("norm.cdf", lambda: __import__("scipy.stats").stats.norm.cdf))
_names(" ".join(_CALLABLE), ("np.sin", lambda: np.sin), ("f(y,x)", lambda: _integrand2))
# numpy.polynomial: coefficient series, a line's offset and scale, a power.
_names("off", _num("0.5", 0.5))
_names("scl", _num("2.0", 2.0))
_names("pow", _num("2", 2))
_names("npts", _num("5", 5))
# scipy.ndimage: an image (a vector first: every filter takes one), filter sizes, a kernel, a structure.
_names("input", _VEC, ("mat(6x5)", lambda: _mat(6, 5)), ("bool(6x5)", lambda: _mat(6, 5) > 0))
_names("sigma", _num("1.0", 1.0))
_names("size filter_size", _num("3", 3))
_names("weights", ("[1,2,1]", lambda: np.array([1.0, 2.0, 1.0])))
_names("matrix", ("[[0.9]]", lambda: np.array([[0.9]])), ("rotation(2x2)", lambda: np.array([[0.8, -0.6], [0.6, 0.8]])))
_names("coordinates", ("[[0.5,1.5,2.5]]", lambda: np.array([[0.5, 1.5, 2.5]])))
_names("shift", _num("1.5", 1.5))
_names("angle", _num("30.0", 30.0))
_names("zoom", _num("2.0", 2.0))
_names("percentile", _num("50", 50))
_names("rank", _num("1", 1), _num("2", 2))
_names("connectivity iterations", _num("1", 1), _num("2", 2))
_names("structure", ("cross(3x3)", lambda: np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool)))
_names("markers", ("int markers", lambda: np.array([1, 0, 0, 0, 0, 0, 0, 2], dtype=np.int8)))
_names("min", _num("-2.0", -2.0))
_names("max", _num("2.0", 2.0))
_names("arr", ("ints", lambda: np.array([3, 1, 4, 1, 5, 9, 2, 6])))
_names("mapping", ("shift(x)", lambda: _shift_map))
_names("derivative", ("ndimage.sobel", lambda: __import__("scipy.ndimage").ndimage.sobel))
_names("derivative2", ("ndimage.laplace-like", lambda: _derivative2))
# scipy.interpolate: sample points (sorted), values, a B-spline's tck, series coefficients.
_names("xi", ("sorted", _sorted_vec))
_names("yi w an", _VEC)
_names("tck", ("splrep(x,y)", lambda: _tck()))
_names("degree", _num("2", 2))
_names("scale", _num("1.0", 1.0))
# scipy.fft's fast Hankel transform; scipy.cluster.vq's observations and code books.
_names("dln", _num("0.1", 0.1))
_names("mu", _num("0.5", 0.5))
_names("obs", ("mat(6x3)", lambda: _mat(6, 3)))
_names("k_or_guess", _num("2", 2), ("mat(2x3)", lambda: _mat(2, 3, seed=5)))
_names("code_book", ("mat(2x3)", lambda: _mat(2, 3, seed=5)))
# jax.nn
_names("num_classes", _num("3", 3))
# Required keyword-only parameters, passed by name.
KEYWORDS: dict[str, Callable[[], Any]] = {
    "beta": lambda: 0.5, "classes": lambda: [0, 1], "control": lambda: _vec(8, 3),
}
BY_NAME_TRIES = 16
# The few functions whose parameters must agree in a way no name says.
BY_FUNCTION: dict[str, tuple[str, Callable[[], tuple]]] = {
    "ss2tf": ("A,B,C,D", lambda: (-_spd(3), _mat(3, 1), _mat(1, 3, seed=1), np.ones((1, 1)))),
    "ss2zpk": ("A,B,C,D", lambda: (-_spd(3), _mat(3, 1), _mat(1, 3, seed=1), np.ones((1, 1)))),
    "ellip_harm": ("5,8,1,1,2.5", lambda: (5.0, 8.0, 1, 1, 2.5)),
    "ellip_harm_2": ("5,8,1,1,2.5", lambda: (5.0, 8.0, 1, 1, 2.5)),
    "ellip_normal": ("5,8,1,1", lambda: (5.0, 8.0, 1, 1)),
    "chirp": ("t,1,1,5", lambda: (np.linspace(0, 1, 8), 1.0, 1.0, 5.0)),
    "interp": ("x,xp,fp", lambda: (_vec(), _sorted_vec(), _vec(8, 1))),
    "einsum": ("'ij,jk',A,B", lambda: ("ij,jk", _mat(), _mat(seed=1))),
    "solve_continuous_are": ("a,b,q,r", lambda: (_spd(2), np.eye(2), np.eye(2), np.eye(2))),
    "solve_discrete_are": ("a,b,q,r", lambda: (0.5 * np.eye(2), np.eye(2), np.eye(2), np.eye(2))),
    "solve_sylvester": ("a,b,q", lambda: (_spd(), _spd() + np.eye(4), _mat())),
    "lsim": ("(num,den),U,T", lambda: ((_B.copy(), np.array([1.0, 3.0, 2.0])), np.ones(8), np.linspace(0, 1, 8))),
    "lu_solve": ("lu_factor(A),b", lambda: (_lu(), _vec(4))),
    "cho_solve": ("cho_factor(A),b", lambda: (_cho(), _vec(4))),
    "mahalanobis": ("u,v,VI", lambda: (_vec(4), _vec(4, 1), np.linalg.inv(_spd()))),
    "seuclidean": ("u,v,V", lambda: (_vec(4), _vec(4, 1), np.abs(_vec(4, 2)) + 0.5)),
    "cdf2rdf": ("eig(A)", lambda: tuple(np.linalg.eig(_mat()))),
    "diagsvd": ("s,4,3", lambda: (np.abs(_vec(3)), 4, 3)),
    "solve_banded": ("(1,1),ab,b", lambda: ((1, 1), np.array([[0, 1, 1, 1], [4, 4, 4, 4], [1, 1, 1, 0.0]]), _vec(4))),
    "leslie": ("f,s", lambda: (np.abs(_vec(4)), np.full(3, 0.5))),
    "qr_delete": ("qr(A),1", lambda: np.linalg.qr(_mat()) + (1,)),
    "qr_insert": ("qr(A),u,1", lambda: np.linalg.qr(_mat()) + (_vec(4, 1), 1)),
    "qr_update": ("qr(A),u,v", lambda: np.linalg.qr(_mat()) + (_vec(4, 1), _vec(4, 2))),
    "place_poles": ("A,B,poles", lambda: (_spd(), _mat(4, 1), np.array([-1.0, -2.0, -3.0, -4.0]))),
    "odeint": ("f(y,t),y0,t", lambda: (_integrand2, np.ones(2), np.linspace(0.0, 1.0, 5))),
    "auc": ("sorted x,y", lambda: (np.linspace(0.0, 1.0, 8), np.abs(_vec()))),
    "select": ("conds,choices", lambda: ([_vec() < 0, _vec() > 1], [_vec(), -_vec()])),
    "ravel_multi_index": ("(rows,cols),(2,4)", lambda: ((np.array([0, 1]), np.array([2, 3])), (2, 4))),
    "unpackbits": ("uint8", lambda: (np.array([3, 255], dtype=np.uint8),)),
    "cross": ("3-vectors", lambda: (_vec(3), _vec(3, 1))),
    "multi_dot": ("[A,B,A]", lambda: ([_mat(), _mat(seed=1), _mat(4, 2)],)),
    "tensorinv": ("(2,2,4)", lambda: (_spd().reshape(2, 2, 4),)),
    "piecewise": ("x,conds,values", lambda: (_vec(), [_vec() < 0, _vec() >= 0], [-1.0, 1.0])),
    "apply_over_axes": ("np.sum,A,[0]", lambda: (np.sum, _mat(), [0])),
    "vsplit": ("A,2", lambda: (_mat(), 2)),
    "dsplit": ("(2,2,4),2", lambda: (_spd().reshape(2, 2, 4), 2)),
    "broadcast_to": ("vec,(3,8)", lambda: (_vec(), (3, 8))),
    "quad": ("f,0,1", lambda: (np.sin, 0.0, 1.0)),
    "fixed_quad": ("f,0,1", lambda: (np.sin, 0.0, 1.0)),
    "quad_vec": ("f,0,1", lambda: (np.sin, 0.0, 1.0)),
    "dblquad": ("f(y,x),0,1,0,1", lambda: (_integrand2, 0.0, 1.0, 0.0, 1.0)),
    "symiirorder1": ("x,0.5,0.5", lambda: (_vec(), 0.5, 0.5)),
    "symiirorder2": ("x,0.5,0.5", lambda: (_vec(), 0.5, 0.5)),
    "kaiserord": ("65,0.1", lambda: (65.0, 0.1)),
    "pmean": ("posvec,2.0", lambda: (np.abs(_vec()) + 0.5, 2.0)),
    "boxcox_llf": ("0.5,posvec", lambda: (0.5, np.abs(_vec()) + 0.5)),
    "directional_stats": ("unit rows", lambda: (_mat(6, 3) / np.linalg.norm(_mat(6, 3), axis=1, keepdims=True),)),
}


BY_FUNCTION.update({
    # numpy.polynomial: a function to interpolate; x, y, z of one shape.
    "chebinterpolate": ("f,4", lambda: (_cubic, 4)),
    # scipy.ndimage
    "labeled_comprehension": ("x,labels,[0,1],np.mean,float,0.0",
                              lambda: (_vec(6), _labels6(), [0, 1], np.mean, float, 0.0)),
    "generic_filter": ("x,np.mean,size=3", lambda: (_vec(), np.mean, 3)),
    "generic_filter1d": ("x,f1d,3", lambda: (_vec(), _filter1d, 3)),
    "iterate_structure": ("cross,2", lambda: (np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], dtype=bool), 2)),
    "histogram": ("x,-2,2,5", lambda: (_vec(), -2.0, 2.0, 5)),
    "watershed_ift": ("uint8 image,markers", lambda: ((np.abs(_vec()) * 50).astype(np.uint8),
                                                       np.array([1, 0, 0, 0, 0, 0, 0, 2], dtype=np.int8))),
    # scipy.interpolate
    "approximate_taylor_polynomial": ("np.sin,0.5,3,1.0", lambda: (np.sin, 0.5, 3, 1.0)),
    "griddata": ("points,values,xi", lambda: (_sorted_vec(), _vec(8, 1), np.linspace(-1.0, 1.0, 5))),
    "interpn": ("(points,),values,xi", lambda: ((_sorted_vec(),), _vec(8, 1), np.linspace(-1.0, 1.0, 5))),
    "bisplrep": ("x,y,z (25 points)", lambda: _grid5()),
    "bisplev": ("x,y,bisplrep", lambda: (np.linspace(0.1, 0.9, 3), np.linspace(0.1, 0.9, 4),
                                         __import__("scipy.interpolate").interpolate.bisplrep(*_grid5()))),
    "splint": ("a,b,tck", lambda: (-1.0, 1.0, _tck())),
    "make_lsq_spline": ("x,y,t", lambda: (np.linspace(0, 1, 12), _vec(12), np.r_[[0.0] * 4, 0.5, [1.0] * 4])),
    "make_splprep": ("[x,y]", lambda: ([np.linspace(0, 1, 8), _vec()],)),
    "splprep": ("[x,y]", lambda: ([np.linspace(0, 1, 8), _vec()],)),
    "pade": ("taylor(exp),2", lambda: (np.array([1.0, 1.0, 0.5, 1 / 6, 1 / 24]), 2)),
    # scipy.optimize: Rosenbrock, finite differences, scalar root finders and minimisers of a plain function.
    "approx_fprime": ("x,rosen", lambda: (_vec(4), _rosen())),
    "check_grad": ("rosen,rosen_der,x", lambda: (_rosen(), __import__("scipy.optimize").optimize.rosen_der, _vec(4))),
    "rosen_hess_prod": ("x,p", lambda: (_vec(4), _vec(4, 1))),
    "bisect": ("f,2,3", lambda: (_cubic, 2.0, 3.0)),
    "brentq": ("f,2,3", lambda: (_cubic, 2.0, 3.0)),
    "brenth": ("f,2,3", lambda: (_cubic, 2.0, 3.0)),
    "ridder": ("f,2,3", lambda: (_cubic, 2.0, 3.0)),
    "toms748": ("f,2,3", lambda: (_cubic, 2.0, 3.0)),
    "newton": ("f,2.0", lambda: (_cubic, 2.0)),
    "fixed_point": ("cos,0.5", lambda: (np.cos, 0.5)),
    "golden": ("parabola", lambda: (_parabola,)),
    "brent": ("parabola", lambda: (_parabola,)),
    "bracket": ("parabola", lambda: (_parabola,)),
    "fminbound": ("parabola,0,3", lambda: (_parabola, 0.0, 3.0)),
    "nnls": ("A,b", lambda: (_mat(6, 3), _vec(6))),
    "percentile_filter": ("x,50,3", lambda: (_vec(), 50, 3)),
    "rank_filter": ("x,1,3", lambda: (_vec(), 1, 3)),
    "vectorized_filter": ("x,np.mean,size=3", lambda: (_vec(), np.mean, _Kw(size=3))),
    "splrep": ("sorted x,y", lambda: (np.linspace(-2.0, 2.0, 8), _vec())),
    "generate_knots": ("sorted x,y", lambda: (np.linspace(-2.0, 2.0, 8), _vec())),
    "root_scalar": ("f,bracket=[2,3]", lambda: (_cubic, _Kw(bracket=[2.0, 3.0]))),
    # jax.nn
    "one_hot": ("ints,10", lambda: (np.array([3, 1, 4, 1, 5, 9, 2, 6]), 10)),
    "dot_product_attention": ("q,k,v (1,4,2,8)", lambda: tuple(_rng(i).normal(size=(1, 4, 2, 8)).astype(np.float32)
                                                               for i in range(3))),
})


for _kind in ("poly", "cheb", "leg", "herm", "herme", "lag"):   # numpy.polynomial's pseudo-Vandermonde matrices
    BY_FUNCTION[f"{_kind}vander2d"] = ("x,y,[2,2]", lambda: (_vec(), _vec(8, 1), [2, 2]))
    BY_FUNCTION[f"{_kind}vander3d"] = ("x,y,z,[2,2,2]", lambda: (_vec(), _vec(8, 1), _vec(8, 2), [2, 2, 2]))


def _cubic(x: float) -> float:        # a root at 2.0946 in [2, 3]
    return x ** 3 - 2.0 * x - 5.0


def _parabola(x: float) -> float:     # its minimum at 1.5
    return (x - 1.5) ** 2 + 0.25


def _rosen() -> Callable:
    import scipy.optimize
    return scipy.optimize.rosen


def _shift_map(out: tuple) -> tuple:  # geometric_transform's mapping: each output point reads 0.5 before it
    return (out[0] - 0.5,)


def _filter1d(inp: np.ndarray, out: np.ndarray) -> None:   # generic_filter1d's in-place line filter
    out[:] = inp[1:-1] + 0.5 * (inp[:-2] + inp[2:])


def _derivative2(inp, axis, output, mode, cval):           # generic_laplace's second derivative
    import scipy.ndimage
    return scipy.ndimage.correlate1d(inp, [1.0, -2.0, 1.0], axis, output, mode, cval)


def _tck() -> tuple:
    import scipy.interpolate
    return scipy.interpolate.splrep(np.linspace(-2.0, 2.0, 8), _vec())


def _grid5() -> tuple:
    g = np.linspace(0.0, 1.0, 5)
    x, y = (a.ravel() for a in np.meshgrid(g, g))
    return x, y, np.sin(3 * x) * np.cos(2 * y)


def _lu() -> tuple:
    import scipy.linalg
    return scipy.linalg.lu_factor(_spd())


def _cho() -> tuple:
    import scipy.linalg
    return scipy.linalg.cho_factor(_spd())


class _Kw(dict):
    """The keyword arguments of an argument set: its last element, passed as ``**``."""


def _call(fn: Callable, args: tuple) -> Any:
    # NumPy's global random state, the same before every call (eager's and the
    # converted one's): a function drawing from it (kmeans2's initial
    # centroids) is compared on the same draws, not on two different ones
    np.random.seed(0)
    if args and isinstance(args[-1], _Kw):
        return fn(*args[:-1], **args[-1])
    return fn(*args)


def signature_arg_sets(name: str, fn: Callable) -> list[tuple[str, Callable[[], tuple]]]:
    """The argument sets for ``fn`` chosen by its name (BY_FUNCTION) and its parameters' names (BY_NAME)."""
    short = name.rsplit(".", 1)[-1]
    out = [BY_FUNCTION[short]] if short in BY_FUNCTION else []
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return out
    empty = inspect.Parameter.empty
    required = [p.name for p in params if p.default is empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    keywords = [p.name for p in params if p.default is empty and p.kind == p.KEYWORD_ONLY]
    if any(k not in KEYWORDS for k in keywords):
        return out
    kw = (lambda: _Kw({k: KEYWORDS[k]() for k in keywords})) if keywords else (lambda: None)
    if not required:
        if any(p.kind == p.VAR_POSITIONAL for p in params):     # f(*samples): three samples
            out.append(("vec,vec,vec", lambda: _tail((_vec(), _vec(8, 1), _vec(8, 2)), kw())))
        return out
    cands = [BY_NAME.get(n, [_VEC]) for n in required]
    if "b" in required and required.index("b") + 1 < len(required) and required[required.index("b") + 1] == "a":
        i = required.index("b")      # f(b, a, ...): a filter's numerator and denominator
        cands[i], cands[i + 1] = [("num", lambda: _B.copy())] + cands[i], [("den", lambda: _A.copy())] + cands[i + 1]
    for combo in itertools.islice(itertools.product(*cands), BY_NAME_TRIES):
        label = ",".join(f"{n}={c[0]}" for n, c in zip(required, combo)) + "".join(f",{k}=" for k in keywords)
        out.append((label, lambda combo=combo: _tail(tuple(c[1]() for c in combo), kw())))
    return out


def _tail(args: tuple, kw: _Kw | None) -> tuple:
    return args + (kw,) if kw is not None else args


@dataclass
class Outcome:
    name: str
    namespace: str
    args: str
    status: str                 # one-graph, no-graph, fallback, mismatch, raised, skipped, crashed
    graphs: int = 0
    codes: list[str] = field(default_factory=list)
    detail: str = ""
    seconds: float = 0.0


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _deadline(seconds: int):
    def handler(signum, frame):
        raise _Timeout(f"more than {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _plain(x: Any, depth: int = 0) -> bool:
    """A result made of arrays, numbers, strings, None and plain containers."""
    if depth > 4:
        return False
    if isinstance(x, (np.ndarray, np.generic, int, float, complex, bool, str, type(None))):
        return not (isinstance(x, np.ndarray) and x.dtype == object)
    if type(x).__module__.startswith("jax") and hasattr(x, "shape"):
        return True
    if isinstance(x, (list, tuple)):
        return len(x) <= 64 and all(_plain(v, depth + 1) for v in x)
    if isinstance(x, dict):
        return len(x) <= 64 and all(_plain(v, depth + 1) for v in x.values())
    return False


def _equal(a: Any, b: Any) -> bool:
    from tests.helpers import assert_same
    try:
        assert_same(a, b, 1e-9, 1e-12)
        return True
    except AssertionError:
        return False


def _values_undefined(name: str) -> bool:
    return any(w in name.rsplit(".", 1)[-1].lower() for w in VALUES_UNDEFINED)


def _blank(x: Any) -> Any:
    """``x`` with every array's values zeroed, its kind, shape and dtype kept."""
    import jax
    import jax.numpy as jnp

    def zero(leaf: Any) -> Any:
        if isinstance(leaf, jax.Array):
            return jnp.zeros_like(leaf)
        if isinstance(leaf, np.ndarray):
            return np.zeros_like(leaf)
        if isinstance(leaf, np.generic):
            return type(leaf)(0)
        return leaf
    return jax.tree_util.tree_map(zero, x)


def _eager(fn: Callable, make: Callable[[], tuple], blank: bool = False) -> Any:
    """fn(*make()) when eager is well behaved on it (no warning, no print, a plain, repeatable result;
    ``blank``: its values uninitialised, compared as ``_blank`` of it)."""
    out = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with contextlib.redirect_stdout(out), np.errstate(all="raise"), _deadline(5):
            first = _call(fn, make())
            second = _call(fn, make())
    if blank:
        first, second = _blank(first), _blank(second)
    if out.getvalue() or not _plain(first) or not _equal(first, second):
        raise ValueError("not a plain repeatable result")
    return first


def functions(namespace: str) -> list[tuple[str, Callable]]:
    try:
        mod = importlib.import_module(namespace)
    except Exception:  # noqa: BLE001
        return []
    names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
    only = NAMESPACE_ONLY.get(namespace)
    out = []
    for n in sorted(set(names) | set(only or ())):
        if only is not None and n not in only:
            continue
        if n.startswith("_") or (only is None and any(w in n.lower() for w in SKIP_WORDS)):
            continue
        obj = getattr(mod, n, None)
        if isinstance(obj, type) or isinstance(obj, types.ModuleType) or not callable(obj):
            continue
        if isinstance(obj, np.ufunc):     # ufuncs are C: one op each, not library Python code
            continue
        if not (inspect.isfunction(obj) or inspect.isfunction(getattr(obj, "__wrapped__", None))
                or type(obj).__name__ == "_ArrayFunctionDispatcher"):
            continue
        out.append((f"{namespace}.{n}", obj))
    return out


AS_LISTS = False   # ``--lists``: NumPy array arguments passed as Python lists (``_listed``)


def _as_lists(x: Any, depth: int = 0) -> Any:
    """``x`` with its NumPy arrays as the nested Python lists ``tolist()``
    gives (0-d arrays, other leaves and ``_Kw`` keywords kept)."""
    if isinstance(x, np.ndarray) and x.ndim:
        return x.tolist()
    if type(x) in (tuple, list) and depth < 2:
        return type(x)(_as_lists(v, depth + 1) for v in x)
    return x


AS_JAX = False   # ``--jax``: NumPy array arguments passed as jax.Arrays (``_listed``)


def _as_jax(x: Any, depth: int = 0) -> Any:
    """``x`` with its NumPy arrays as ``jnp.asarray`` gives them (0-d arrays,
    other leaves and ``_Kw`` keywords kept)."""
    import jax.numpy as jnp

    if isinstance(x, np.ndarray) and x.ndim and x.dtype.kind in "biufc":
        return jnp.asarray(x)
    if type(x) in (tuple, list) and depth < 2:
        return type(x)(_as_jax(v, depth + 1) for v in x)
    return x


def _listed(sets: list[tuple[str, Callable[[], tuple]]]) -> list[tuple[str, Callable[[], tuple]]]:
    """Each argument set with its arrays as lists (``--lists``, labelled
    ``lists:``) or jax.Arrays (``--jax``, labelled ``jax:``) first, then as
    it was: the first eager accepts is used."""
    out = []
    convert, prefix = (_as_jax, "jax") if AS_JAX else (_as_lists, "lists")
    for label, make in sets:
        out.append((f"{prefix}:{label}", lambda make=make: convert(make())))
    return out + sets


def run_one(name: str, namespace: str, fn: Callable, timeout: int = 60) -> Outcome:
    from ast2graph import explain, to_static
    from tests.helpers import assert_same

    blank = _values_undefined(name)
    sets = ARG_SETS + signature_arg_sets(name, fn)
    for label, make in _listed(sets) if AS_LISTS or AS_JAX else sets:
        try:
            expected = _eager(fn, make, blank)
        except BaseException:  # noqa: BLE001
            continue
        break
    else:
        return Outcome(name, namespace, "", "skipped", detail="no argument set eager accepts")
    t0 = time.perf_counter()
    args = make()
    kept = make()   # the arguments after eager's call: a function may write into them (np.copyto)
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        _call(fn, kept)
    try:
        with warnings.catch_warnings(), _deadline(timeout), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            e = _call(explain(to_static(fn)), args)
    except _Timeout as exc:
        return Outcome(name, namespace, label, "raised", detail=f"timeout: {exc}", seconds=timeout)
    except BaseException as exc:  # noqa: BLE001
        return Outcome(name, namespace, label, "raised", detail=f"{type(exc).__name__}: {str(exc)[:300]}",
                       seconds=time.perf_counter() - t0)
    dt = time.perf_counter() - t0
    try:
        assert_same(expected, _blank(e.result) if blank else e.result)
        assert_same(kept, args, path="arguments")
    except AssertionError as exc:
        return Outcome(name, namespace, label, "mismatch", e.graph_count, detail=str(exc)[:300], seconds=dt)
    codes = [s.code.code for s in e.fallback_sites]
    if e.graph_count == 1 and not codes:
        return Outcome(name, namespace, label, "one-graph", 1, seconds=dt)
    if e.graph_count == 0 and not codes:
        return Outcome(name, namespace, label, "no-graph", 0, detail="static result", seconds=dt)
    causes = "; ".join(f"{s.code.code} {s.loc.file.rsplit('/', 1)[-1]}:{s.loc.line} {s.cause[:160]}"
                       for s in e.fallback_sites[:3])
    return Outcome(name, namespace, label, "fallback", e.graph_count, codes, causes, dt)


def function_key(fn: Callable) -> str:
    """A name for ``fn`` the same in every process (its module and qualified name): how a child knows
    a function an earlier namespace's child tried (optax.losses' functions, also optax's)."""
    return f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', repr(fn))}"


def selected(namespaces: list[str], only: str | None, retry: set[str] | None, skip: set[str] | None = None):
    """(namespace, name, fn) of every function a run over ``namespaces`` tries, in order: a function
    reached again through a later namespace (optax.losses' through optax) is tried once, under the
    first; ``skip``: the ``function_key`` of those tried already (by other processes)."""
    seen: set[int] = set()
    for namespace in namespaces:
        for name, fn in functions(namespace):
            if id(fn) in seen or (only and only not in name) or (retry is not None and name not in retry):
                continue
            if skip is not None and function_key(fn) in skip:
                continue
            seen.add(id(fn))
            yield namespace, name, fn


def _show(o: Outcome, verbose: bool) -> None:
    if verbose or o.status in ("mismatch", "raised", "crashed", "exit-crash"):
        print(f"  {o.status:9s} {o.name} ({o.args}) {o.codes or ''} {o.detail[:300]}", flush=True)


def run_child(target: str, only: str | None, retry: set[str] | None, skip: set[str], progress: str) -> None:
    """Run ``target``'s functions in this process, appending to ``progress`` (a JSON line each) the
    name of every function before it runs and its outcome after: when native code corrupts the heap
    and kills the process, the parent still has every finished outcome and the function that died.
    ``skip``: the keys of the functions earlier namespaces' children tried."""
    with open(progress, "a", buffering=1) as log:
        for namespace, name, fn in selected([target], only, retry, skip):
            log.write(json.dumps({"start": name, "key": function_key(fn)}) + "\n")
            log.flush()
            log.write(json.dumps({"outcome": run_one(name, namespace, fn).__dict__}) + "\n")
            log.flush()
        log.write(json.dumps({"done": target}) + "\n")


CHILD_TIMEOUT = 1800   # seconds a child may take; past it, it is killed, recorded as crashed
CHILD_RESTARTS = 8     # children started for one namespace at most: one crash each before its last


def run_isolated(namespaces: list[str], only: str | None, retry_file: str | None,
                 verbose: bool) -> list[Outcome]:
    """Every namespace run by a child process of its own (``--child``), the outcomes merged in order.

    A native crash (glibc's "corrupted ..." abort, a segfault, also seen at interpreter exit after
    scipy.linalg) kills one child: its namespace keeps the outcomes finished, gets one outcome
    ``crashed`` named by the function it was running (or ``<namespace> at exit``), and a new child
    goes on after that function."""
    import os
    import tempfile
    outcomes: list[Outcome] = []
    fd, skip = tempfile.mkstemp(prefix="library_sweep_", suffix=".json")
    os.close(fd)
    keys: list[str] = []       # the functions started so far, by function_key
    for namespace in namespaces:
        for _ in range(CHILD_RESTARTS):
            with open(skip, "w") as f:
                json.dump(keys, f)
            rc, err, events = _run_child(namespace, skip, only, retry_file)
            keys += [e["key"] for e in events if "start" in e]
            for e in events:
                if "outcome" in e:
                    outcomes.append(Outcome(**e["outcome"]))
                    _show(outcomes[-1], verbose)
            if rc != 0:
                outcomes.append(_crashed(namespace, events, rc, err))
                _show(outcomes[-1], verbose)
            if rc == 0 or not events or "start" not in events[-1]:
                break          # finished, died at exit, or before its first function: no restart
    os.unlink(skip)
    return outcomes


def _run_child(namespace: str, skip: str, only: str | None, retry_file: str | None) -> tuple:
    """(exit status or None when killed for time, stderr, progress events) of one child."""
    import os
    import subprocess
    import tempfile
    fd, progress = tempfile.mkstemp(prefix="library_sweep_", suffix=".jsonl")
    os.close(fd)
    cmd = [sys.executable, "-m", "benchmarks.library_sweep", "--child", namespace, "--progress", progress,
           "--skip", skip]
    cmd += ["--only", only] if only else []
    cmd += ["--retry", retry_file] if retry_file else []
    cmd += ["--lists"] if AS_LISTS else []
    cmd += ["--jax"] if AS_JAX else []
    env = dict(os.environ, LIBC_FATAL_STDERR_="1")     # glibc's "corrupted ..." to stderr, not the tty
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=CHILD_TIMEOUT, env=env,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        rc, err = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr if isinstance(exc.stderr, str) else (exc.stderr or b"").decode(errors="replace")
        rc = None
    with open(progress) as f:
        events = [json.loads(line) for line in f if line.endswith("\n")]
    os.unlink(progress)
    return rc, err, events


def _crashed(namespace: str, events: list[dict], rc: int | None, stderr: str) -> Outcome:
    """The outcome of a child that died: the function it had started and not finished, if any."""
    last = events[-1] if events else {}
    if "start" not in last:      # not in a function: at exit (or on import), after its last outcome
        return Outcome(f"{namespace} at exit", namespace, "", "exit-crash", detail=_death(rc, stderr))
    return Outcome(last["start"], namespace, "", "crashed", detail=_death(rc, stderr))


def _death(rc: int | None, stderr: str) -> str:
    how = f"killed after {CHILD_TIMEOUT} s" if rc is None else (f"signal {-rc}" if rc < 0 else f"exit status {rc}")
    return f"{how}: " + " | ".join(stderr.strip().splitlines()[-3:])[:250]


def _summary(outcomes: list[Outcome]) -> None:
    tried = [o for o in outcomes if o.status not in ("skipped", "exit-crash")]
    skipped = sum(o.status == "skipped" for o in outcomes)
    print(f"\n{len(tried)} functions tried ({skipped} skipped: no argument set eager accepts)")
    at_exit = [o.namespace for o in outcomes if o.status == "exit-crash"]
    if at_exit:
        print("crashed at exit, after their last function (outcomes kept): " + ", ".join(at_exit))
    per_ns: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for o in tried:
        per_ns[o.namespace][o.status] += 1
    cols = ("one-graph", "no-graph", "fallback", "mismatch", "raised", "crashed")
    print(f"{'namespace':28s} {'tried':>5s} " + " ".join(f"{c:>9s}" for c in cols))
    for nsn, c in list(per_ns.items()) + [("all", collections.Counter(o.status for o in tried))]:
        print(f"{nsn:28s} {sum(c.values()):5d} " + " ".join(f"{c[k]:9d}" for k in cols))
    for prefix in ("lists", "jax"):
        took = sum(o.args.startswith(f"{prefix}:") for o in tried)
        if took:
            print(f"{took} of {len(tried)} took their array arguments as {prefix} (the rest: eager refused them)")
    reasons = collections.Counter(c for o in tried for c in o.codes)
    print("fallback sites per reason: " + ", ".join(f"{c} {n}" for c, n in reasons.most_common()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=None)
    p.add_argument("--namespace", action="append", default=None)
    p.add_argument("-v", action="store_true")
    p.add_argument("--json", default=None)
    p.add_argument("--retry", default=None, help="only the functions a former run's JSON FILE skipped")
    p.add_argument("--lists", action="store_true",
                   help="pass NumPy array arguments as Python lists (tolist()), as users often do")
    p.add_argument("--jax", action="store_true",
                   help="pass NumPy array arguments as jax.Arrays (jnp.asarray), as users of a JAX compiler do")
    p.add_argument("--in-process", action="store_true",
                   help="run every namespace in this process (a native crash ends the whole run)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)      # run_isolated's children
    p.add_argument("--progress", default=None, help=argparse.SUPPRESS)
    p.add_argument("--skip", default=None, help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    retry = None
    if ns.retry:
        with open(ns.retry) as f:
            retry = {o["name"] for o in json.load(f) if o["status"] == "skipped"}
    sys.setrecursionlimit(10000)
    global AS_LISTS, AS_JAX
    if ns.lists and ns.jax:
        p.error("--lists and --jax: one at a time")
    AS_LISTS, AS_JAX = ns.lists, ns.jax
    namespaces = ns.namespace or NAMESPACES
    if ns.child:
        with open(ns.skip) as f:
            run_child(ns.child, ns.only, retry, set(json.load(f)), ns.progress)
        return 0
    if ns.in_process or len(namespaces) == 1:
        outcomes = []
        for namespace, name, fn in selected(namespaces, ns.only, retry):
            outcomes.append(run_one(name, namespace, fn))
            _show(outcomes[-1], ns.v)
    else:
        outcomes = run_isolated(namespaces, ns.only, ns.retry, ns.v)
    _summary(outcomes)
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump([o.__dict__ for o in outcomes], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
