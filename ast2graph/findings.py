"""What the report finds, and the limits a report runs under.

Requires: ``fallback.sites`` (the sites themselves).
Produces: the report's model, ``ReportSite`` (a ``FallbackSite`` and its kind,
``ALWAYS`` or ``DEPENDS``), ``FunctionReport`` and ``ReportError``; and the
isolation the survey and the CLI run a file's analysis in: ``on_deep_stack``
(a thread with a large stack and recursion limit), ``too_deep_is_error`` and
``installed_libraries_only`` (``sys.path`` without the user's folders).
Invariants: nothing here imports JAX or the compiler: ``report`` (the front:
files, suppressions, rendering) and ``survey`` (the engine) both build on it,
and neither imports the other at module level.
"""

from __future__ import annotations

import contextlib
import functools
import os
import site
import sys
import sysconfig
import threading
from dataclasses import dataclass, field
from typing import Callable, Iterator, TypeVar

from .fallback.sites import FallbackSite

T = TypeVar("T")
ALWAYS = "always"
DEPENDS = "depends"


class ReportError(Exception):
    """A path that cannot be reported on (missing, unparsable, unknown qualname)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class ReportSite:
    """One site and whether it falls back always or depending on the inputs."""

    site: FallbackSite
    kind: str

    def to_json(self) -> dict:
        return {**self.site.to_json(), "kind": self.kind}


@dataclass
class FunctionReport:
    """The sites of one function, or (``error`` set) a file that could not be read."""

    qualname: str
    file: str
    line: int
    sites: list[ReportSite] = field(default_factory=list)
    error: str | None = None

    def of_kind(self, kind: str) -> list[ReportSite]:
        return [s for s in self.sites if s.kind == kind]

    def to_json(self, include_depends: bool) -> dict:
        sites = [s for s in self.sites if include_depends or s.kind == ALWAYS]
        return {"qualname": self.qualname, "file": self.file, "line": self.line,
                "sites": [s.to_json() for s in sites]}


# ====================================================== limits and isolation
# CPython 3.11 compiles expressions nested up to ~3000 deep (3 levels per
# frame of its default recursion limit); parsing with gast and scanning take
# about 6 Python frames a level. Python-to-Python calls use no C stack in
# 3.11, so 30000 frames fit in a few MiB; the stack is 256 MiB for margin
# (virtual memory, committed only as used).
DEEP_RECURSION_LIMIT = 30_000
DEEP_STACK_BYTES = 256 << 20
_deep = threading.local()
_deep_lock = threading.Lock()


def on_deep_stack(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` in a thread with a large stack and recursion limit.

    Deep but valid input (a 2900-term sum, a 199-deep list display) is then
    analysed instead of overflowing the default limit of 1000 frames. The
    recursion limit is process-wide: it is raised for the call and restored
    after (calls are serialised by a lock); a call made from inside ``fn``
    runs directly. ``fn``'s exception is re-raised in the caller.
    """
    if getattr(_deep, "active", False):
        return fn(*args)
    results: list[T] = []
    errors: list[BaseException] = []

    def body() -> None:
        _deep.active = True
        try:
            results.append(fn(*args))
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            errors.append(e)

    with _deep_lock:
        try:
            old_stack = threading.stack_size(DEEP_STACK_BYTES)
        except (ValueError, RuntimeError):  # a platform without settable stacks
            return fn(*args)
        old_limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old_limit, DEEP_RECURSION_LIMIT))
        try:
            worker = threading.Thread(target=body, name="ast2graph-report", daemon=True)
            worker.start()
            worker.join()
        finally:
            threading.stack_size(old_stack)
            sys.setrecursionlimit(old_limit)
    if errors:
        raise errors[0]
    return results[0]


@contextlib.contextmanager
def too_deep_is_error(path: str) -> Iterator[None]:
    """RecursionError / MemoryError while parsing or analysing ``path`` -> ReportError."""
    try:
        yield
    except RecursionError:
        raise ReportError(f"{path}: nested too deeply to analyse (over the recursion limit of "
                          f"{sys.getrecursionlimit()} frames)") from None
    except MemoryError as e:
        detail = f": {e}" if str(e) else ""
        raise ReportError(f"{path}: nested too deeply or too large to analyse (MemoryError{detail})") from None


@contextlib.contextmanager
def installed_libraries_only(*folders: str) -> Iterator[None]:
    """``sys.path`` reduced to the installation's library folders while the body runs.

    What the report imports (a well-known library, or a submodule a library's
    ``__getattr__`` loads lazily, and everything they import in turn) then
    comes from the installed environment only: entries that are not under the
    stdlib or a site-packages folder are dropped -- ``''`` and the working
    directory (``sys.path[0]`` under ``python -m``), a script's folder,
    ``PYTHONPATH`` entries -- and so are the working directory and ``folders``
    (the reported file's folder) even when they are such a folder. Restored
    on exit; the change is process-wide while the report runs.
    """
    saved = list(sys.path)
    sys.path[:] = _installed_entries(saved, folders)
    try:
        yield
    finally:
        sys.path[:] = saved


def _installed_entries(entries: list, folders: tuple[str, ...]) -> list[str]:
    try:
        cwd = os.getcwd()
    except OSError:  # the working directory was removed
        cwd = ""
    excluded = {os.path.realpath(f) for f in (cwd, *folders) if f}
    libraries = _library_folders()
    return [e for e in entries if isinstance(e, str) and e and os.path.isabs(e)
            and os.path.realpath(e) not in excluded and _under(os.path.realpath(e), libraries)]


@functools.lru_cache(maxsize=1)
def _library_folders() -> tuple[str, ...]:
    """The stdlib and site-packages folders of this installation (realpaths)."""
    paths = sysconfig.get_paths()
    folders = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    folders.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE:
        folders.add(site.getusersitepackages())
    if "stdlib" in paths:  # the zipped stdlib, e.g. lib/python311.zip
        folders.add(os.path.join(os.path.dirname(paths["stdlib"]), "python%d%d.zip" % sys.version_info[:2]))
    return tuple(sorted(os.path.realpath(f) for f in folders))


def _under(path: str, folders: tuple[str, ...]) -> bool:
    return any(path == f or path.startswith(f.rstrip(os.sep) + os.sep) for f in folders)
