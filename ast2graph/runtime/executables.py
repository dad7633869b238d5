"""Compiled graphs kept across processes: the executable of a lowered graph,
keyed by what the graph *is*, loaded instead of traced and compiled again.

Requires: ``cache.jax_cache_dir()`` (on where ast2graph set JAX's cache; the
store is its sibling folder ``graphs``), a ``Lowered`` graph (its generated
source and the constants it reads), its inputs, and
``jax.experimental.serialize_executable``.
Produces: ``graph_key(source, consts, inputs)`` (None where the graph cannot
be keyed faithfully), ``load(key, n_in, n_out, make_jit)`` (a ``LoadedGraph``
or None), ``store(key, compiled, n_in, n_out, hits_before)``,
``jax_cache_hits()`` and ``persistable()``.
Invariants: an entry is only ever used for the identical program. The key
holds the lowered source text, a fingerprint of every constant its namespace
binds (values by content; functions by the library module and name they are
found under, only from the libraries listed in ``_LIBRARIES``, whose versions
are in the key too), the inputs' shapes, dtypes and weak types, JAX's trace
context and options (the x64 switch among them) and XLA's flags, the
versions of ast2graph (with the size and time of each of its source files),
JAX, jaxlib, NumPy and Python, and the backend. Type inference runs again in every process, so a changed source,
guard or global shows up as another lowered source or constant; nothing of
the user's (their functions, objects, host callbacks) can be keyed, and a
graph that holds any is not kept. A ``LoadedGraph`` called with other
inputs than its executable takes (other shapes, tracers of an outer
transform) is ``jax.jit`` of the lowered function, as a graph compiled in
this process would be.

Why not persist the conversion itself: the graph type inference makes depends
on guards on live objects (a model's layers, the functions it calls), which a
file cannot record faithfully. The step after it, JAX's trace of the lowered
function, its lowering to StableHLO and the compile or the lookup in JAX's
persistent cache, depends only on what the key holds; on the Transformer
example it is about half of a second process's first call.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Callable

import jax
import numpy as np

from .. import cache

FORMAT = "ast2graph-executable-1"

# the libraries whose functions a graph may bind by name: their versions are in the key
_LIBRARIES = ("jax", "jaxlib", "numpy", "ast2graph", "builtins", "math", "cmath", "operator", "_operator",
              "scipy", "optax", "ml_dtypes", "opt_einsum")
_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_UNKEYABLE = object()


class _Unkeyable(Exception):
    """A constant whose identity in another process cannot be proved."""


@functools.lru_cache(maxsize=None)
def _in_ast2graph(filename: str) -> str | None:
    """``filename`` relative to the ast2graph package, where it is one of its files."""
    import ast2graph

    root = Path(ast2graph.__file__).resolve().parent
    try:
        return str(Path(filename).resolve().relative_to(root))
    except (ValueError, OSError):
        return None


def _library_of(module: str) -> str | None:
    top = module.split(".", 1)[0]
    return top if top in _LIBRARIES else None


def _named(obj: Any, libraries: set[str]) -> tuple:
    """A library function or class, by the name it is found under."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or _library_of(module) is None:
        raise _Unkeyable(obj)
    libraries.add(_library_of(module))
    found: Any = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, _UNKEYABLE)
    if found is not obj:   # a closure, a method of a live object, a patched name
        raise _Unkeyable(obj)
    return ("named", module, qualname)


def _array(x: np.ndarray) -> tuple:
    if x.dtype.hasobject or x.dtype.fields is not None:
        raise _Unkeyable(x)
    data = np.ascontiguousarray(x)
    return ("ndarray", x.dtype.str, x.shape, hashlib.sha256(data.tobytes()).hexdigest())


def _treedef(t: Any, libraries: set[str]) -> tuple:
    kind, aux = t.node_data() or (None, None)
    if kind in (tuple, list, dict, type(None), None):
        name: Any = getattr(kind, "__name__", None)
    elif isinstance(kind, type) and _library_of(kind.__module__) == "ast2graph":
        name = _named(kind, libraries)   # ast2graph's own pytree (``SliceSpec``)
    else:
        raise _Unkeyable(t)   # a registered class's node: its flatten rules are the user's
    return ("treedef", name, fingerprint(aux, libraries), t.num_leaves,
            tuple(_treedef(c, libraries) for c in t.children()))


def fingerprint(x: Any, libraries: set[str]) -> Any:
    """A value that equals ``fingerprint(y)`` in any process only when ``y``
    behaves as ``x`` in a lowered graph (``libraries``: where the functions
    it names come from, added to); ``_Unkeyable`` where none can be made."""
    kind = type(x)
    f = functools.partial(fingerprint, libraries=libraries)
    if kind in _SCALARS:
        return (kind.__name__, repr(x))
    if kind in (tuple, list):
        return (kind.__name__, tuple(f(e) for e in x))
    if kind is dict:
        return ("dict", tuple((f(k), f(v)) for k, v in x.items()))
    if kind is slice:
        return ("slice", f(x.start), f(x.stop), f(x.step))
    if x is Ellipsis:
        return ("Ellipsis",)
    if x is getattr(np, "_NoValue", Ellipsis):   # NumPy's "no value given" default
        return ("np._NoValue",)
    if isinstance(x, np.dtype):
        if x.hasobject or x.fields is not None:
            raise _Unkeyable(x)
        return ("dtype", x.str, str(x))
    if kind is np.ndarray:
        return _array(x)
    if isinstance(x, np.generic):
        return ("generic",) + _array(np.asarray(x))
    if isinstance(x, jax.Array):
        if isinstance(x, jax.core.Tracer):
            raise _Unkeyable(x)
        return ("jax.Array", bool(getattr(x, "weak_type", False))) + _array(np.asarray(x))
    if kind is functools.partial:
        return ("partial", f(x.func), f(x.args), f(x.keywords))
    if kind is jax.tree_util.PyTreeDef:
        return _treedef(x, libraries)
    if dataclasses.is_dataclass(x) and not isinstance(x, type) and kind.__module__ == "ast2graph.diagnostics":
        # a source location (``_at_site``): ast2graph's own frozen record
        return ("record", _named(kind, libraries), tuple(f(getattr(x, fld.name)) for fld in dataclasses.fields(x)))
    if isinstance(x, types.FunctionType) and _in_ast2graph(x.__code__.co_filename):
        # one of ast2graph's own functions (a factory's closure, ``numpy RuntimeWarning flags``):
        # its code is where it is defined (ast2graph's sources are in the key), its state its cells
        code = x.__code__
        return ("ast2graph code", _in_ast2graph(code.co_filename), code.co_firstlineno, code.co_name,
                tuple(f(cell.cell_contents) for cell in x.__closure__ or ()), f(x.__defaults__),
                f(x.__kwdefaults__))
    if isinstance(x, type) or callable(x):   # a function, a ufunc, a class, a jitted function
        return _named(x, libraries)
    raise _Unkeyable(x)


@functools.lru_cache(maxsize=1)
def _environment() -> tuple:
    """What every key holds: versions, the backend, ast2graph's own sources."""
    import ast2graph
    import jaxlib

    root = Path(ast2graph.__file__).parent
    sources = []
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        sources.append((str(path.relative_to(root)), st.st_size, st.st_mtime_ns))
    devices = jax.devices()
    return (FORMAT, ast2graph.__version__, jax.__version__, jaxlib.__version__, np.__version__, sys.version,
            jax.default_backend(), devices[0].device_kind, getattr(devices[0].client, "platform_version", ""),
            tuple(sources))


def _versions(libraries: set[str]) -> tuple:
    """The versions of the libraries a graph names functions of."""
    return tuple((name, str(getattr(sys.modules.get(name), "__version__", None))) for name in sorted(libraries))


def _trace_context() -> tuple:
    """JAX's settings a trace or a compile may read: its trace context (the
    x64 switch, matmul precision, ... as context managers set them), every
    global option but the caches' own, and XLA's flags."""
    try:
        from jax._src.config import trace_context
        items = tuple(trace_context())
    except Exception:   # another JAX: the global options below hold the switches
        items = ()
    options = tuple(sorted((k, v) for k, v in jax.config.values.items() if "cache" not in k))
    flags = tuple(os.environ.get(name, "") for name in ("XLA_FLAGS", "LIBTPU_INIT_ARGS"))
    return tuple(repr(e) if " at 0x" not in repr(e) else type(e).__qualname__ for e in items + options + flags)


def _input(x: Any) -> tuple:
    if isinstance(x, jax.core.Tracer):
        raise _Unkeyable(x)
    aval = jax.typeof(x) if hasattr(jax, "typeof") else jax.core.get_aval(x)
    return (tuple(aval.shape), str(aval.dtype), bool(getattr(aval, "weak_type", False)), type(x).__name__)


def persistable() -> bool:
    """Whether graphs are kept: ast2graph's cache is on (it set JAX's: a
    user who configured JAX's cache themselves gets that one only) and the
    process has one device (a key holds no sharding)."""
    return cache.jax_cache_dir() is not None and len(jax.devices()) == 1


def graph_key(source: str, consts: list, inputs: list) -> str | None:
    """The key of the graph ``source`` reads with ``consts`` (its ``k{i}``)
    when called on ``inputs`` in the current trace context; None where one
    of them cannot be keyed (a user's function or object, a tracer)."""
    libraries: set[str] = set()
    try:
        parts = (_environment(), _trace_context(), source, tuple(fingerprint(c, libraries) for c in consts),
                 tuple(_input(x) for x in inputs))
        parts += (_versions(libraries),)
    except Exception:   # _Unkeyable, or an unusual constant (a __repr__ that raises): not kept, never an error
        return None
    return hashlib.sha256(repr(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _folder() -> Path | None:
    jax_dir = cache.jax_cache_dir()
    return None if jax_dir is None else jax_dir.parent / "graphs"


def _path(key: str) -> Path | None:
    folder = _folder()
    return None if folder is None else folder / f"{key}.xla"


def _trusted(path: Path) -> bool:
    """An entry this user wrote in a folder only they can write: it is unpickled."""
    try:
        st, folder = path.stat(), path.parent.stat()
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (st.st_uid != getuid() or folder.st_uid != getuid()):
        return False
    return not folder.st_mode & 0o022


class LoadedGraph:
    """A graph's executable loaded from ast2graph's cache, called as the
    ``jax.jit`` of its lowered function would be: the executable where the
    inputs are the ones it was compiled for; otherwise (other shapes, an
    outer transform's tracers) that ``jax.jit``, made on first need. An
    executable the runtime cannot run (an entry XLA wrote without its
    kernels) is dropped, its entry deleted, and the call made by the
    ``jax.jit``: the graph has no host effects, so nothing of it ran."""

    def __init__(self, compiled: Any, make_jit: Callable[[], Callable[..., Any]], path: Path) -> None:
        self.compiled = compiled
        self._make_jit = make_jit
        self._jit: Callable[..., Any] | None = None
        self._path = path

    def __call__(self, *args: Any) -> Any:
        compiled = self.compiled
        if compiled is None:
            return self.jit(*args)
        try:
            return compiled(*args)
        except TypeError:   # inputs the executable was not compiled for: nothing ran
            return self.jit(*args)
        except jax.errors.JaxRuntimeError:
            self.compiled = None
            with contextlib.suppress(OSError):
                self._path.unlink()
            return self.jit(*args)

    @property
    def jit(self) -> Callable[..., Any]:
        if self._jit is None:
            self._jit = self._make_jit()
        return self._jit


def load(key: str, n_in: int, n_out: int, make_jit: Callable[[], Callable[..., Any]]) -> LoadedGraph | None:
    """The executable kept under ``key``, or None (absent, unreadable, or
    written by a JAX that cannot load it: the graph compiles as usual)."""
    path = _path(key)
    if path is None or not path.is_file() or not _trusted(path):
        return None
    try:
        from jax.experimental.serialize_executable import deserialize_and_load

        blob = path.read_bytes()
        in_tree = jax.tree_util.tree_structure((tuple(range(n_in)), {}))
        out_tree = jax.tree_util.tree_structure(tuple(range(n_out)))
        compiled = deserialize_and_load(blob, in_tree, out_tree)
    except Exception:
        return None
    return LoadedGraph(compiled, make_jit, path)


_JAX_CACHE_HITS = [0]   # executables JAX loaded from its own persistent cache in this process


def _count_hits(event: str, **_: Any) -> None:
    if event == "/jax/compilation_cache/cache_hits":
        _JAX_CACHE_HITS[0] += 1


jax.monitoring.register_event_listener(_count_hits)


def jax_cache_hits() -> int:
    """How many executables JAX has loaded from its persistent cache so far."""
    return _JAX_CACHE_HITS[0]


def store(key: str, compiled: Any, n_in: int, n_out: int, hits_before: int) -> bool:
    """Keep ``compiled`` (a ``jax.stages.Compiled`` of flat inputs and a flat
    tuple of outputs) under ``key``; False where it is not kept. Not one
    JAX loaded from its own cache since ``hits_before`` (``jax_cache_hits()``
    before the compile): XLA serialises such an executable without its
    kernels, and the entry would not run."""
    folder = _folder()
    if folder is None or jax_cache_hits() != hits_before:
        return False
    try:
        from jax.experimental.serialize_executable import serialize

        unloaded = getattr(getattr(compiled, "_executable", None), "_unloaded_executable", None)
        if getattr(unloaded, "host_callbacks", None):   # Python functions the executable calls: not kept
            return False
        blob, in_tree, out_tree = serialize(compiled)
        if in_tree.num_leaves != n_in or out_tree != jax.tree_util.tree_structure(tuple(range(n_out))):
            return False
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".xla")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(blob)
            os.replace(tmp, folder / f"{key}.xla")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except Exception:   # a read-only or full disk, an executable JAX cannot serialise: not kept
        return False
    return True
