"""What ast2graph keeps across processes: JAX's persistent compilation cache.

    AST2GRAPH_CACHE_DIR=/path   the cache's folder (default: $XDG_CACHE_HOME/ast2graph,
                                else ~/.cache/ast2graph); JAX's cache is its `jax` subfolder,
                                ast2graph's store of compiled graphs its `graphs` subfolder
                                (runtime/executables.py)
    AST2GRAPH_NO_CACHE=1        no persistent cache at all

Requires: ``jax`` (its config; ``jax._src.compilation_cache`` where the
process compiled something before the cache was set, guarded).
Produces: ``enable_persistent_cache()`` (run once when ``ast2graph.api`` is
imported: the first ``to_static``), ``cache_root()``, ``jax_cache_dir()``
(None when off), ``jax_cache_bypassed()`` (the context of a compile whose
executable ast2graph keeps itself, ``runtime/executables.py``) and
``compile_threshold()``, the context an ast2graph graph is compiled in: JAX
writes the executable of every graph that ast2graph's store does not keep to
its cache, whatever its compile time (JAX's own default keeps only compiles
over a second, and stays so for the user's other ``jax.jit`` functions).
Invariants: a JAX cache the user configured (``JAX_COMPILATION_CACHE_DIR``,
``jax.config.update("jax_compilation_cache_dir", ...)``,
``jax.experimental.compilation_cache.set_cache_dir``) is never changed, nor
its threshold; JAX's cache is keyed by the compiled program, its compile
options and the versions of JAX, jaxlib and the backend, so an entry is only
ever used for the identical program.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Iterator

import jax

_OWN: dict[str, Any] = {"dir": None}   # the JAX cache folder ast2graph set (None: off, or the user's own)


def cache_root() -> Path | None:
    """ast2graph's cache folder, or None when ``AST2GRAPH_NO_CACHE`` is set."""
    if os.environ.get("AST2GRAPH_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("AST2GRAPH_CACHE_DIR", "")
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ast2graph"


def _user_configured_jax_cache() -> bool:
    return bool(os.environ.get("JAX_COMPILATION_CACHE_DIR")) or jax.config.jax_compilation_cache_dir is not None


def enable_persistent_cache() -> Path | None:
    """Point JAX's persistent compilation cache at ``cache_root()/jax``
    unless the user configured JAX's cache or turned ast2graph's off; the
    folder used, or None."""
    root = cache_root()
    if root is None or _user_configured_jax_cache():
        return None
    path = root / "jax"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:   # a read-only home: no cache, as with AST2GRAPH_NO_CACHE
        return None
    jax.config.update("jax_compilation_cache_dir", str(path))
    _OWN["dir"] = path
    _reset_if_checked()
    return path


def _reset_if_checked() -> None:
    """JAX decides once per process, at its first compile, whether the cache
    is used: where the program compiled something before (an eager
    ``jnp.ones``), that decision was "no cache" and is taken again now."""
    try:
        from jax._src import compilation_cache as cc
    except ImportError:   # another layout: the cache starts with the next process
        return
    if getattr(cc, "_cache_checked", False) and not getattr(cc, "_cache_used", True) \
            and getattr(cc, "_cache", None) is None:
        cc.reset_cache()


def jax_cache_dir() -> Path | None:
    """The folder of JAX's cache that ast2graph set, or None."""
    return _OWN["dir"]


@contextlib.contextmanager
def compile_threshold() -> Iterator[None]:
    """Around the compile of an ast2graph graph: cached whatever its compile
    time, where the cache is ast2graph's (JAX's threshold otherwise)."""
    if _OWN["dir"] is None:
        yield
        return
    try:
        from jax._src.config import persistent_cache_min_compile_time_secs as threshold
    except ImportError:
        yield
        return
    with threshold(0.0):
        yield


@contextlib.contextmanager
def jax_cache_bypassed() -> Iterator[bool]:
    """Around the compile of a graph whose executable ast2graph keeps in its
    own store (``runtime/executables.py``): JAX's persistent cache is not
    consulted, so the executable is compiled here (one JAX loaded from its
    cache is serialised by XLA without its kernels and would not run from
    the store). Yields whether the cache is bypassed; only where it is
    ast2graph's (``jax_cache_dir()``)."""
    try:
        from jax._src import compilation_cache as cc
    except ImportError:
        cc = None
    if _OWN["dir"] is None or cc is None or not hasattr(cc, "reset_cache"):
        yield False
        return
    before = jax.config.jax_enable_compilation_cache
    jax.config.update("jax_enable_compilation_cache", False)
    cc.reset_cache()
    try:
        yield True
    finally:
        jax.config.update("jax_enable_compilation_cache", before)
        cc.reset_cache()
