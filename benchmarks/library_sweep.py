"""A sweep over whole namespaces of numerical libraries, not a hand-picked list.

``benchmarks/library_corpus.py`` holds functions chosen one by one; a corpus
chosen by the people who build the compiler flatters it. This sweep takes
every public function of a set of namespaces (NumPy's top level, ``np.linalg``,
``np.fft``, SciPy's ``special``/``stats``/``linalg``/``signal``/
``spatial.distance``/``integrate``, scikit-learn's ``metrics``/``preprocessing``/
``utils.extmath``, optax's losses), and for each one the first of a fixed list
of argument sets that eager accepts (no exception, no warning, a result made
only of arrays, numbers, tuples, lists and dicts, the same result twice). It
then runs ``to_static(fn)`` on the same arguments under ``explain`` and
compares with eager (``tests.helpers.assert_same``: values, dtypes, kinds,
structure, argument mutation).

``python -m benchmarks.library_sweep`` prints, per namespace, the functions
tried, how many are one graph, how many give a result different from eager
(a silent wrong result: the worst outcome), how many raise where eager did
not, and the fallback sites by reason. ``--only NAME`` runs the functions
whose dotted name contains NAME; ``-v`` lists every function; ``--json FILE``
writes every outcome.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib
import inspect
import io
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
]

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


@dataclass
class Outcome:
    name: str
    namespace: str
    args: str
    status: str                 # one-graph, fallback, mismatch, raised, eager-only, skipped
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
            first = fn(*make())
            second = fn(*make())
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
    out = []
    for n in sorted(set(names)):
        if n.startswith("_") or any(w in n.lower() for w in SKIP_WORDS):
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


def run_one(name: str, namespace: str, fn: Callable, timeout: int = 60) -> Outcome:
    from ast2graph import explain, to_static
    from tests.helpers import assert_same

    blank = _values_undefined(name)
    for label, make in ARG_SETS:
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
        fn(*kept)
    try:
        with warnings.catch_warnings(), _deadline(timeout), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            e = explain(to_static(fn))(*args)
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", default=None)
    p.add_argument("--namespace", action="append", default=None)
    p.add_argument("-v", action="store_true")
    p.add_argument("--json", default=None)
    ns = p.parse_args(argv)
    sys.setrecursionlimit(10000)
    outcomes: list[Outcome] = []
    seen: set[int] = set()
    for namespace in ns.namespace or NAMESPACES:
        for name, fn in functions(namespace):
            if id(fn) in seen or (ns.only and ns.only not in name):
                continue
            seen.add(id(fn))
            o = run_one(name, namespace, fn)
            outcomes.append(o)
            if ns.v or o.status in ("mismatch", "raised"):
                print(f"  {o.status:9s} {o.name} ({o.args}) {o.codes or ''} {o.detail[:300]}", flush=True)
    tried = [o for o in outcomes if o.status != "skipped"]
    print(f"\n{len(tried)} functions tried ({len(outcomes) - len(tried)} skipped: no argument set eager accepts)")
    per_ns: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for o in tried:
        per_ns[o.namespace][o.status] += 1
    print(f"{'namespace':28s} {'tried':>5s} {'one-graph':>9s} {'no-graph':>8s} {'fallback':>8s} {'mismatch':>8s} {'raised':>6s}")
    for nsn, c in per_ns.items():
        print(f"{nsn:28s} {sum(c.values()):5d} {c['one-graph']:9d} {c['no-graph']:8d} {c['fallback']:8d} "
              f"{c['mismatch']:8d} {c['raised']:6d}")
    total = collections.Counter(o.status for o in tried)
    print(f"{'all':28s} {len(tried):5d} {total['one-graph']:9d} {total['no-graph']:8d} {total['fallback']:8d} "
          f"{total['mismatch']:8d} {total['raised']:6d}")
    reasons = collections.Counter(c for o in tried for c in o.codes)
    print("fallback sites per reason: " + ", ".join(f"{c} {n}" for c, n in reasons.most_common()))
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump([o.__dict__ for o in outcomes], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
