"""Static fallback report: which sites of a file's functions run in Python.

Requires: a path to a ``.py`` file or a directory of them; ``gast`` (the file
text is parsed, never imported or executed); ``resolver`` (scoping, effectful
callees, safe attribute chains); ``ssa`` (branch results and loop-carried
names, for the causes); ``typeinfer.interpreter.Specializer`` (which statement
and expression types have a graph form at all).
Produces: ``report_path(path, qualname=None, max_file_size=MAX_FILE_SIZE)
-> list[FunctionReport]``; each ``FunctionReport`` holds ``ReportSite``s (a
``FallbackSite`` with ``stage='report'`` plus ``kind``: ``"always"`` -- falls
back whatever the inputs -- or ``"depends"`` -- falls back or not depending
on whether values are traced arrays). ``ReportError`` for a missing path, a named file that
cannot be read, parsed or analysed (larger than ``max_file_size`` bytes,
nested too deeply) or an unknown qualname. ``to_json``/``to_sarif``/
``format_text`` render a report (schema: docs/fallback-codes.md).
Invariants: the user's files are never imported or executed; only
well-known library modules (``_KNOWN_ROOTS``) are imported to resolve names
the file imports, and only from the installed environment: while a file is
reported ``sys.path`` holds only the library folders of the installation
(stdlib, site-packages), never the working directory or the file's folder,
so a user's ``cmath.py`` next to the file cannot shadow the library (a
module already in ``sys.modules`` is used as is). The report survives any
input CPython compiles: it runs in a thread with a large stack and a raised
recursion limit (``on_deep_stack``), and a file nested deeper still, or one
that exhausts memory, is a ``ReportError`` naming it, never a traceback.
Every site names a line of the user's file; sites in every branch are listed,
taken or not. A trailing ``# ast2graph: ignore[CODE, ...]`` (or a bare
``# ast2graph: ignore``) on a site's line removes that site. In directory
mode such a file becomes an error entry (``FunctionReport.error``), not a
crash, and the other files are still reported.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import importlib
import importlib.util
import io
import linecache
import os
import re
import site
import sys
import sysconfig
import threading
import tokenize
import urllib.parse
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import gast

from .diagnostics import Loc
from .fallback.sites import FallbackCode, FallbackSite
from .parser.locate import normalise
from .resolver import CallKind, classify_callee, is_effectful, is_host_printer, qualified_name, resolve_attr_chain, scope_of
from .resolver.scope import outer_parts
from .ssa import SSAInfo, analyze
from .ssa.dump import unparse
from .typeinfer.interpreter import Specializer

T = TypeVar("T")
MAX_FILE_SIZE = 10_000_000  # bytes; a 50 MB list display took 125 s and 9.6 GiB to report
ALWAYS = "always"
DEPENDS = "depends"
STAGE = "report"

_KNOWN_ROOTS = frozenset({
    "numpy", "jax", "math", "cmath", "time", "random", "logging", "os", "sys",
    "warnings", "operator", "functools", "itertools", "builtins", "contextlib",
})
_STATIC_ATTRS = frozenset({"shape", "dtype", "ndim", "size"})
_STATIC_CALLS = frozenset({"isinstance", "issubclass", "len", "hasattr", "callable", "type"})
# int(), float(), bool(), round(), math.floor() and .item() of a traced scalar
# are traced Python numbers in the graph; these still need the values on the host
_CONVERSIONS = (complex,)
_HOST_METHODS = frozenset({"tolist", "tobytes"})
_MUTATING_METHODS = frozenset({
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse",
    "update", "setdefault", "popitem", "add", "discard",
})
_CONTAINER_NODES = (gast.List, gast.Dict, gast.Set, gast.ListComp, gast.DictComp, gast.SetComp)
_SKIP_DIRS = frozenset({"__pycache__", "site-packages", "node_modules"})
_NOT_STATIC: tuple[bool, object] = (False, None)
_IGNORE = re.compile(r"#\s*ast2graph:\s*ignore(?:\[([^\]]*)\])?")
_STMT_CAUSES = {
    "TryStar": "`try`/`except*` statement: exception handling has no graph form",
    "With": "`with` on a context manager whose __enter__/__exit__ must run on every call",
    "AsyncWith": "`async with` statement",
    "AsyncFor": "`async for` statement",
    "Match": "`match` on a traced subject with a pattern other than numeric literals, or a traced guard",
    "ClassDef": "class definition inside a function",
    "AsyncFunctionDef": "`async def` inside a function",
}
_STMT_EFFECT = FallbackSite.__dataclass_fields__["effect"].default
_WHOLE_EFFECT = "the whole function runs eagerly (no graph)"
_ASYNC_EFFECT = "to_static refuses the function (UnsupportedSyntaxError); call it without to_static"
_DEPENDS_EFFECT = "only when the value is a traced array: the enclosing statement then runs in Python"


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


# =================================================================== files
@dataclass
class _File:
    path: str
    module: gast.Module
    suppressed: dict[int, frozenset[str] | None]


def report_path(path: str, qualname: str | None = None,
                max_file_size: int | None = MAX_FILE_SIZE, engine: str = "scan") -> list[FunctionReport]:
    """Every function's sites in ``path`` (a file, or every .py file under a folder).

    A file larger than ``max_file_size`` bytes (None or 0: no limit) is not read.
    ``engine``: "scan", this module's syntactic scanner (the default for now),
    or "survey", typeinfer run on abstract arguments (``survey.py``,
    experimental: module-level functions of one file only; issue 17).
    """
    if engine == "survey":
        from .survey import survey_path

        return survey_path(path, qualname, max_file_size)
    return on_deep_stack(_report_path, path, qualname, max_file_size)


def _report_path(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    if os.path.isdir(path):
        reports = [r for f in _python_files(path) for r in _report_file_or_error(f, qualname, max_file_size)]
    elif os.path.exists(path):
        reports = report_file(path, qualname, max_file_size)
    else:
        raise ReportError(f"{path}: no such file or directory")
    if qualname and not any(r.error is None for r in reports):
        raise ReportError(f"{path}: no function or method named {qualname!r}")
    return reports


def report_file(path: str, qualname: str | None = None,
                max_file_size: int | None = MAX_FILE_SIZE) -> list[FunctionReport]:
    """The sites of every function of one file; ReportError if it cannot be read, parsed or analysed."""
    return on_deep_stack(_report_file_isolated, path, qualname, max_file_size)


def _report_file_isolated(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    with installed_libraries_only(os.path.dirname(os.path.abspath(path))), too_deep_is_error(path):
        return _report_file(path, qualname, max_file_size)


def _report_file(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    source = load_file(path, max_file_size)
    scanner = _ModuleNames(source.module)
    out = []
    for entry in iter_functions(source.module):
        if _selected(entry.qualname, qualname):
            sites = _FunctionScanner(source, scanner, entry).run()
            out.append(FunctionReport(entry.qualname, path, entry.node.lineno, sites))
    return out


def _report_file_or_error(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    try:
        return report_file(path, qualname, max_file_size)
    except ReportError as e:
        return [FunctionReport("<module>", path, e.line, [], str(e))]


def _python_files(root: str) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        yield from (os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))


def _selected(qualname: str, wanted: str | None) -> bool:
    return wanted is None or qualname == wanted or qualname.startswith(wanted + ".")


def load_file(path: str, max_size: int | None = None) -> _File:
    """Read and parse ``path`` with gast; ReportError naming file:line on failure.

    A file larger than ``max_size`` bytes (None or 0: no limit) is not read.
    """
    try:
        size = os.stat(path).st_size
        if max_size and size > max_size:
            raise ReportError(f"{path}: {size:,} bytes, over the {max_size:,}-byte limit of --max-file-size "
                              "(pass a larger --max-file-size, or 0 for no limit, to report it)")
        with open(path, "rb") as fh:
            text = importlib.util.decode_source(fh.read())
    except (OSError, UnicodeDecodeError, SyntaxError) as e:
        raise ReportError(f"{path}: cannot read: {e}") from None
    try:
        with too_deep_is_error(path), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = gast.parse(text, filename=path)
    except SyntaxError as e:
        where = f"{path}:{e.lineno or 0}:{e.offset or 0}"
        raise ReportError(f"{where}: syntax error: {e.msg}", e.lineno or 0) from None
    except ValueError as e:  # null bytes
        raise ReportError(f"{path}: cannot parse: {e}") from None
    linecache.checkcache(path)
    return _File(path, module, _suppressions(text))


def _suppressions(text: str) -> dict[int, frozenset[str] | None]:
    """line -> codes ignored there (None: every code), from comment tokens."""
    try:
        comments = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(text).readline)
                    if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        comments = [(i, line) for i, line in enumerate(text.splitlines(), 1) if "#" in line]
    out: dict[int, frozenset[str] | None] = {}
    for line, comment in comments:
        match = _IGNORE.search(comment)
        if match:
            codes = match.group(1)
            out[line] = None if codes is None else frozenset(c.strip().upper() for c in codes.split(",") if c.strip())
    return out


def _is_suppressed(source: _File, site: FallbackSite) -> bool:
    if site.loc.line not in source.suppressed:
        return False
    codes = source.suppressed[site.loc.line]
    return codes is None or site.code.code in codes


# =============================================================== functions
@dataclass(frozen=True)
class FunctionEntry:
    """A def in the file, its qualname and its enclosing defs (outermost first)."""

    node: gast.FunctionDef | gast.AsyncFunctionDef
    qualname: str
    enclosing: tuple[gast.AST, ...] = ()


def iter_functions(module: gast.Module) -> list[FunctionEntry]:
    """Every def of the module, in source order, with Python's ``__qualname__``."""
    out: list[FunctionEntry] = []
    _collect_defs(module.body, "", (), out)
    return sorted(out, key=lambda e: (e.node.lineno, e.node.col_offset))


def _collect_defs(nodes: list, prefix: str, enclosing: tuple, out: list[FunctionEntry]) -> None:
    for node in nodes:
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            qual = prefix + node.name
            out.append(FunctionEntry(node, qual, enclosing))
            _collect_defs(node.body, qual + ".<locals>.", enclosing + (node,), out)
        elif isinstance(node, gast.ClassDef):
            _collect_defs(node.body, prefix + node.name + ".", enclosing, out)
        else:
            _collect_defs(list(_child_statements(node)), prefix, enclosing, out)


def header_nodes(stmt: gast.stmt) -> Iterator[gast.AST]:
    """Every node of ``stmt`` outside its nested statement bodies."""
    for child in gast.iter_child_nodes(stmt):
        if isinstance(child, gast.excepthandler):
            parts = [child.type, child.name]
        elif isinstance(child, gast.match_case):
            parts = [child.pattern, child.guard]
        else:
            parts = [] if isinstance(child, gast.stmt) else [child]
        for part in parts:
            if part is not None:
                yield from gast.walk(part)


def _child_statements(node: gast.AST) -> Iterator[gast.stmt]:
    for child in gast.iter_child_nodes(node):
        if isinstance(child, gast.stmt):
            yield child
        elif isinstance(child, (gast.excepthandler, gast.match_case)):
            yield from child.body


# ============================================================ static names
class _ModuleNames:
    """What the module's top-level names are, from its own import statements."""

    def __init__(self, module: gast.Module):
        self.imports: dict[str, tuple[str, tuple[str, ...]]] = {}
        self.kinds: dict[str, str] = {}
        for stmt in _module_statements(module.body):
            self._bind(stmt)

    def _bind(self, stmt: gast.stmt) -> None:
        if isinstance(stmt, (gast.Import, gast.ImportFrom)):
            for name, target in import_bindings(stmt).items():
                self._set(name, "import")
                self.imports[name] = target
        elif isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            self._set(stmt.name, "def")
        else:
            constant = isinstance(stmt, (gast.Assign, gast.AnnAssign)) and _is_literal(stmt.value)
            for node in header_nodes(stmt):
                if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                    self._set(node.id, "const" if constant else "other")

    def _set(self, name: str, kind: str) -> None:
        old = self.kinds.get(name)
        self.kinds[name] = kind if old in (None, kind) else "other"

    def lookup(self, name: str) -> tuple[bool, object]:
        kind = self.kinds.get(name)
        if kind == "import":
            return load_import(self.imports[name])
        if kind is None and name in vars(builtins):
            return True, vars(builtins)[name]
        return _NOT_STATIC

    def is_static(self, name: str) -> bool:
        kind = self.kinds.get(name)
        return kind in ("import", "def", "const") or (kind is None and name in vars(builtins))


def _module_statements(body: list) -> Iterator[gast.stmt]:
    """Top-level statements, including those nested in module-level if/try/with."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            yield from _module_statements(list(_child_statements(stmt)))


def _yields(fn: gast.AST) -> bool:
    """Whether ``fn`` itself is a generator function: a ``yield`` in its own
    body, not in a function, lambda or class nested in it (a function that
    merely contains a nested generator is an ordinary function)."""
    stack = list(gast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (gast.Yield, gast.YieldFrom)):
            return True
        if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
            stack.extend(gast.iter_child_nodes(node))
    return False


def _is_literal(node: gast.AST | None) -> bool:
    if isinstance(node, gast.Constant):
        return True
    if isinstance(node, gast.UnaryOp):
        return _is_literal(node.operand)
    return isinstance(node, gast.Tuple) and all(_is_literal(e) for e in node.elts)


def import_bindings(stmt: gast.Import | gast.ImportFrom) -> dict[str, tuple[str, tuple[str, ...]]]:
    """name -> (module, attributes) each alias of an import binds (relative/star: none)."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    if isinstance(stmt, gast.Import):
        for a in stmt.names:
            if a.asname:
                out[a.asname] = (a.name, ())
            else:
                top = a.name.split(".")[0]
                out[top] = (top, ())
    elif not stmt.level and stmt.module:
        for a in stmt.names:
            if a.name != "*":
                out[a.asname or a.name] = (stmt.module, (a.name,))
    return out


def load_import(target: tuple[str, tuple[str, ...]]) -> tuple[bool, object]:
    """The object an import binds, for well-known library modules only."""
    module, attrs = target
    if module.split(".")[0] not in _KNOWN_ROOTS:
        return _NOT_STATIC
    try:
        obj = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - a broken optional library is just unknown
        return _NOT_STATIC
    if attrs:
        ok, value = resolve_attr_chain(obj, attrs)
        if ok:
            return ok, value
        try:
            return True, importlib.import_module(f"{module}.{attrs[0]}")
        except Exception:  # noqa: BLE001
            return _NOT_STATIC
    return True, obj


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


# ================================================================ scanning
@dataclass(frozen=True)
class _Frame:
    """An enclosing ``if``/loop of the statement being scanned."""

    node: gast.stmt
    kind: str
    dynamic: bool

    @property
    def is_loop(self) -> bool:
        return self.kind in ("for", "while")


@dataclass
class _FnNames:
    """The names one function binds itself, and those bound by its imports."""

    own: frozenset[str]
    declared_global: frozenset[str]
    declared_nonlocal: frozenset[str]
    imports: dict[str, tuple[str, tuple[str, ...]]]

    @classmethod
    def of(cls, node: gast.AST) -> "_FnNames":
        scope = scope_of(normalise(node))
        own = frozenset(scope.params) | scope.locals
        imports: dict = {}
        for stmt in _own_statements(node.body):
            if isinstance(stmt, (gast.Import, gast.ImportFrom)):
                imports.update(import_bindings(stmt))
        return cls(own, scope.declared_global, scope.declared_nonlocal, imports)


def _own_statements(body: list) -> Iterator[gast.stmt]:
    """Statements of a function body, not those of nested defs or classes."""
    for stmt in body:
        yield stmt
        if not isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            yield from _own_statements(list(_child_statements(stmt)))


class _FunctionScanner:
    """Walks one function's body once and collects its sites."""

    def __init__(self, source: _File, names: _ModuleNames, entry: FunctionEntry):
        self.source, self.module, self.entry = source, names, entry
        self.node = entry.node
        self.chain = [_FnNames.of(n) for n in (*entry.enclosing, entry.node)]
        self.names = self.chain[-1]
        self.fresh = _fresh_containers(entry.node, self.names)
        self.ssa = _safe_analyze(entry.node)
        self.frames: list[_Frame] = []
        self.sites: list[ReportSite] = []

    # ------------------------------------------------------------ driver
    def run(self) -> list[ReportSite]:
        if isinstance(self.node, gast.AsyncFunctionDef):
            self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, self.node, "async def",
                      "async def is refused by to_static: a coroutine cannot be traced into one graph",
                      _ASYNC_EFFECT)
        elif _yields(normalise(self.node)) and not self.entry.enclosing:
            self._add(ALWAYS, FallbackCode.GENERATOR, self.node, "function",
                      f"{self.entry.qualname} is a generator function (it contains yield)", _WHOLE_EFFECT)
        elif _yields(normalise(self.node)):
            self._add(DEPENDS, FallbackCode.GENERATOR, self.node, "function",
                      f"{self.entry.qualname} is a nested generator function: inlined at trace time where its "
                      "caller consumes it with a static number of items (for, list(), sum(), zip(), ...)",
                      "only when a consumer needs its items one by one at run time (a traced number of items, "
                      "a generator left unconsumed): the consuming statement then runs in Python")
        else:
            rebound = sorted({n for sub in gast.walk(self.node) if isinstance(sub, gast.Nonlocal)
                              and sub is not self.node for n in sub.names} - set(self.names.declared_nonlocal))
            if rebound:
                self._add(DEPENDS, FallbackCode.MUTATION, self.node, "function",
                          f"a function nested in {self.entry.qualname} rebinds its variables {rebound} (nonlocal): "
                          "inlined, one graph; a call that would not be one graph runs eagerly as a whole",
                          "only when some statement of the call falls back, or the write is under a traced "
                          "condition or in a rolled loop: " + _WHOLE_EFFECT)
            self._body(self.node.body)
        kept = [s for s in self.sites if not _is_suppressed(self.source, s.site)]
        return sorted(kept, key=lambda s: (s.site.loc.line, s.site.loc.col, s.site.code.code))

    def _add(self, kind: str, code: FallbackCode, node: gast.AST, construct: str, cause: str,
             effect: str = _STMT_EFFECT, hint: str = "") -> None:
        loc = Loc(self.source.path, node.lineno, node.col_offset, function=self.entry.qualname)
        depth = sum(f.is_loop for f in self.frames)
        site = FallbackSite(code, loc, construct, cause, effect, STAGE, depth, hint)
        self.sites.append(ReportSite(site, kind))

    # -------------------------------------------------------- statements
    def _body(self, stmts: list, frame: _Frame | None = None) -> None:
        if frame is not None:
            self.frames.append(frame)
        try:
            for stmt in stmts:
                self._stmt(stmt)
        finally:
            if frame is not None:
                self.frames.pop()

    def _stmt(self, stmt: gast.stmt) -> None:
        name = type(stmt).__name__
        handler = getattr(self, "_s_" + name, None)
        if handler is not None:
            handler(stmt)
            return
        if not hasattr(Specializer, "exec_" + name):
            cause = _STMT_CAUSES.get(name, f"`{name.lower()}` statement has no graph form")
            self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, name.lower(), cause)
        self._generic(stmt)

    def _s_With(self, stmt: gast.With) -> None:
        """Context managers that only affect tracing stay in the graph; the
        user's own (a class with Python ``__enter__``/``__exit__``, a
        ``@contextmanager`` generator) are converted like calls, so their fate
        depends on their code; a library's (``open``) always falls back."""
        from .typeinfer.blocks import _TRACE_TIME_CONTEXTS
        from .typeinfer.contexts import contextmanager_function, user_manager_class

        for item in stmt.items:
            expr = item.context_expr
            ok, obj = self._resolve(expr.func if isinstance(expr, gast.Call) else expr)
            if ok and any(obj is c for c in (*_TRACE_TIME_CONTEXTS, contextlib.suppress)):
                continue
            user = not ok or contextmanager_function(obj) is not None or \
                user_manager_class(obj if isinstance(obj, type) else type(obj)) or \
                isinstance(expr, gast.Call) and classify_callee(obj) is CallKind.USER_FUNCTION
            if not user:
                self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, "with", _STMT_CAUSES["With"])
                break
            self._add(DEPENDS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, "with", _STMT_CAUSES["With"],
                      "only when the context manager is not the user's own (a class with Python __enter__/__exit__, "
                      "a @contextmanager generator: converted like calls) or its enter/exit code falls back")
            break
        self._generic(stmt)

    def _s_Match(self, stmt: gast.Match) -> None:
        """A static subject is matched at trace time (the other cases pruned);
        a traced scalar with numeric literal cases is a lax.cond/lax.switch."""
        self._add(DEPENDS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, "match", _STMT_CAUSES["Match"],
                  "only when the subject is traced and a pattern looks into it (or a guard is traced): "
                  "the statement then runs in Python")
        self._generic(stmt)

    def _generic(self, node: gast.AST) -> None:
        """Scan a statement's own expressions and recurse into its nested bodies."""
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.stmt):
                self._stmt(child)
            elif isinstance(child, gast.expr):
                self._expr(child)
            elif isinstance(child, gast.withitem):
                self._expr(child.context_expr)
                self._target(child.optional_vars)
            elif isinstance(child, gast.excepthandler):
                self._expr(child.type)
                self._body(child.body)
            elif isinstance(child, gast.match_case):
                self._expr(child.guard)
                self._body(child.body)

    def _nested_scope(self, stmt: gast.stmt, what: str, always: bool) -> None:
        if always:
            cause = _STMT_CAUSES.get(type(stmt).__name__, f"decorated nested function {stmt.name!r}")
            self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, what, cause)
        for part in outer_parts(stmt):
            self._expr(part)

    def _s_FunctionDef(self, stmt: gast.FunctionDef) -> None:
        self._nested_scope(stmt, "def", bool(stmt.decorator_list))

    def _s_AsyncFunctionDef(self, stmt: gast.AsyncFunctionDef) -> None:
        self._nested_scope(stmt, "async def", True)

    def _s_ClassDef(self, stmt: gast.ClassDef) -> None:
        self._nested_scope(stmt, "class", True)

    def _s_If(self, stmt: gast.If) -> None:
        self._expr(stmt.test)
        dynamic = not self._static(stmt.test)
        if dynamic:
            results = self._ssa_names(lambda ssa: sorted(ssa.assigned(stmt) & ssa.live_out(stmt)))
            self._add(DEPENDS, FallbackCode.BRANCH_MISMATCH, stmt, "if",
                      f"condition `{unparse(stmt.test)}` is decided per call: pruned when it is a Python value, "
                      f"lax.cond when it is a traced array{_listing('; branch results', results)}",
                      "only when the condition is traced and the branches disagree: this `if` then runs as "
                      "Python control flow, its branches compiled")
        frame = _Frame(stmt, "if", dynamic)
        self._body(stmt.body, frame)
        self._body(stmt.orelse, frame)

    def _s_While(self, stmt: gast.While) -> None:
        self._expr(stmt.test)
        dynamic = not self._static(stmt.test)
        if dynamic:
            carried = self._ssa_names(lambda ssa: list(ssa.loop_carried(stmt)))
            self._add(DEPENDS, FallbackCode.LOOP_CARRIED_CHANGE, stmt, "while",
                      f"condition `{unparse(stmt.test)}` is decided per call: evaluated at trace time when it is a "
                      f"Python value, lax.while_loop when it is a traced array{_listing('; carried', carried)}",
                      "only when the loop is rolled and a carried variable changes shape or kind: the loop then "
                      "runs as Python control flow, its body compiled")
        if dynamic and any(isinstance(n, gast.NamedExpr) for n in gast.walk(stmt.test)):
            self._add(DEPENDS, FallbackCode.UNSUPPORTED_SYNTAX, stmt.test, "while",
                      f"an assignment expression (:=) in the test `{unparse(stmt.test)}`: when the condition is "
                      "traced, the loop runs as Python control flow around its compiled body")
        self._body(stmt.body, _Frame(stmt, "while", dynamic))
        self._body(stmt.orelse)

    def _s_For(self, stmt: gast.For) -> None:
        self._expr(stmt.iter)
        self._target(stmt.target)
        targets = {n.id for n in gast.walk(stmt.target) if isinstance(n, gast.Name)}
        after = self._ssa_names(lambda ssa: sorted(targets & ssa.live_out(stmt)))
        carried = self._ssa_names(lambda ssa: list(ssa.loop_carried(stmt)))
        loop = f"loop over `{unparse(stmt.iter)}`: unrolled when the trip count is static and small, " \
               f"lax.fori_loop / lax.scan when it is large or traced{_listing('; carried', carried)}"
        if after and not self._static(stmt.iter):
            self._add(DEPENDS, FallbackCode.UNDEFINED_AFTER_LOOP, stmt, "for",
                      f"{loop}; loop variable {', '.join(after)} is used after the loop",
                      "only when the trip count is traced: the loop then runs as Python control flow, its body compiled")
        else:
            self._add(DEPENDS, FallbackCode.LOOP_CARRIED_CHANGE, stmt, "for", loop,
                      "only when the loop is rolled and a carried variable changes shape or kind: the loop then "
                      "runs as Python control flow, its body compiled")
        self._body(stmt.body, _Frame(stmt, "for", True))
        self._body(stmt.orelse)

    def _s_AsyncFor(self, stmt: gast.AsyncFor) -> None:
        self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, "async for", _STMT_CAUSES["AsyncFor"])
        self._s_For(stmt)  # type: ignore[arg-type]

    def _s_Return(self, stmt: gast.Return) -> None:
        self._expr(stmt.value)
        self._early_exit(stmt, "return", self.frames)

    def _s_Break(self, stmt: gast.Break) -> None:
        self._early_exit(stmt, "break", self._innermost_loop_frames())

    def _s_Continue(self, stmt: gast.Continue) -> None:
        self._early_exit(stmt, "continue", self._innermost_loop_frames())

    def _innermost_loop_frames(self) -> list[_Frame]:
        loops = [i for i, f in enumerate(self.frames) if f.is_loop]
        return self.frames[loops[-1]:] if loops else []

    def _early_exit(self, stmt: gast.stmt, what: str, frames: list[_Frame]) -> None:
        dynamic = [f for f in frames if f.dynamic]
        if not dynamic:
            return
        inner = dynamic[-1]
        header = unparse(inner.node.test if inner.kind != "for" else inner.node.iter)
        self._add(DEPENDS, FallbackCode.EARLY_EXIT, stmt, what,
                  f"`{what}` inside `{inner.kind} {header}` (line {inner.node.lineno}): falls back if that "
                  f"{'condition is traced' if inner.kind == 'if' else 'loop is rolled or its condition traced'}",
                  _DEPENDS_EFFECT.replace("the value is a traced array", "that happens"))

    def _s_Raise(self, stmt: gast.Raise) -> None:
        cause = "raise (eager raises here; under a traced `if` with a static exception it is a run-time check in the graph)"
        if any(f.dynamic and f.kind == "if" for f in self.frames):
            self._add(DEPENDS, FallbackCode.TRACE_ERROR, stmt, "raise", cause,
                      "only when the enclosing condition is a Python value that takes this path at trace time, or "
                      "the exception is built from traced values: the statement then runs in Python")
        else:
            self._add(ALWAYS, FallbackCode.TRACE_ERROR, stmt, "raise", cause)
        self._generic(stmt)

    def _s_Assert(self, stmt: gast.Assert) -> None:
        self._generic(stmt)
        if not self._static(stmt.test):
            self._add(DEPENDS, FallbackCode.CONCRETE_VALUE, stmt, "assert",
                      f"assert on `{unparse(stmt.test)}`: when it is a traced array, a run-time check in the graph "
                      "(AssertionError as eager), unless a try/except around it must catch it or its message is "
                      "formatted from traced values", _DEPENDS_EFFECT)

    def _s_Delete(self, stmt: gast.Delete) -> None:
        for target in stmt.targets:
            self._expr(target)
            if not isinstance(target, gast.Name) or target.id not in self._writable():
                self._add(ALWAYS, FallbackCode.MUTATION, target, "del",
                          f"`del {unparse(target)}`: del of something other than a bound local")

    def _s_ImportFrom(self, stmt: gast.ImportFrom) -> None:
        if stmt.level or any(a.name == "*" for a in stmt.names):
            self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, stmt, "import",
                      "relative or star import inside a function")

    def _s_Assign(self, stmt: gast.Assign) -> None:
        self._expr(stmt.value)
        for target in stmt.targets:
            self._expr(target)
            self._target(target)

    def _s_AnnAssign(self, stmt: gast.AnnAssign) -> None:
        self._expr(stmt.value)
        if stmt.value is not None:
            self._expr(stmt.target)
            self._target(stmt.target)

    def _s_AugAssign(self, stmt: gast.AugAssign) -> None:
        self._expr(stmt.value)
        self._expr(stmt.target)
        self._target(stmt.target, augmented=True)

    # ----------------------------------------------------------- targets
    def _writable(self) -> frozenset[str]:
        return self.names.own - self.names.declared_global - self.names.declared_nonlocal

    def _target(self, target: gast.AST | None, augmented: bool = False) -> None:
        if isinstance(target, (gast.Tuple, gast.List)):
            for e in target.elts:
                self._target(e, augmented)
        elif isinstance(target, gast.Starred):
            self._target(target.value, augmented)
        elif isinstance(target, gast.Name):
            self._name_target(target)
        elif isinstance(target, gast.Subscript):
            self._subscript_target(target, augmented)
        elif isinstance(target, gast.Attribute):
            self._add(DEPENDS, FallbackCode.MUTATION, target, "attribute store",
                      f"setting attribute {target.attr!r} on `{unparse(target.value)}`",
                      "the write is lifted out of the graph (set after each call; joined under a traced condition, "
                      "carried by a rolled loop); the enclosing statement runs in Python only when the value's "
                      "kind depends on the path, or the attribute has a property or __setattr__")

    def _name_target(self, target: gast.Name) -> None:
        # ``global g; g = v`` and a closure's ``nonlocal n; n = v`` are lifted
        # out of the graph (set in the module or the cell after each call:
        # typeinfer/writeback.py); a nested function's is the entry's own variable
        return

    def _subscript_target(self, target: gast.Subscript, augmented: bool) -> None:
        form = "x[i] += v" if augmented else "x[i] = v"
        base = target.value
        if isinstance(base, gast.Name) and base.id in self.fresh:
            if any(f.dynamic for f in self.frames):
                self._add(DEPENDS, FallbackCode.MUTATION, target, "item assignment",
                          f"item assignment into `{base.id}`, a container built in this function: fine at trace "
                          "time; under a traced `if` or in a rolled loop a list or dict is joined (carried) when every "
                          "path leaves the same length and keys", _DEPENDS_EFFECT.replace(
                              "the value is a traced array", "the paths or iterations leave another structure"))
            return
        if isinstance(base, gast.Name):
            self._add(DEPENDS, FallbackCode.MUTATION, target, "item assignment",
                      f"in-place write ({form}) into `{base.id}`: a functional update in the graph when it is a NumPy "
                      "array that no other name, container, attribute or view can see (an argument is written back "
                      "after the call); a jax.Array raises TypeError as in eager",
                      "only when the array is aliased, or `{0}` is an object from outside: the enclosing statement "
                      "then runs in Python".format(base.id))
            return
        what = "update of an element" if augmented else "item assignment"
        if isinstance(base, gast.Attribute) and isinstance(target.slice, gast.Constant) and target.slice.value is Ellipsis:
            self._add(DEPENDS, FallbackCode.MUTATION, target, "item assignment",
                      f"in-place {what} (x[...] {'+' if augmented else ''}= v) into `{unparse(base)}`: on a Flax NNX "
                      "Variable (`self.count[...] += 1`) "
                      "an op whose write is lifted out of the graph (set after each call); on an array attribute the "
                      "enclosing statement runs in Python",
                      "only when `{0}` is not an NNX Variable: the enclosing statement then runs in Python".format(
                          unparse(base)), hint="bind the array to a local name first, or use x = x.at[i].set(v)")
            return
        self._add(ALWAYS, FallbackCode.MUTATION, target, "item assignment",
                  f"in-place {what} ({form}) through the expression `{unparse(base)}`",
                  hint="bind the array to a local name first, or use x = x.at[i].set(v)")

    # ------------------------------------------------------- expressions
    def _expr(self, node: gast.AST | None) -> None:
        if node is None:
            return
        for sub in gast.walk(node):
            if isinstance(sub, gast.Call):
                self._call(sub)
            elif isinstance(sub, gast.NamedExpr):
                self._name_target(sub.target)
            elif isinstance(sub, gast.expr) and not _has_eval(sub):
                name = type(sub).__name__
                self._add(ALWAYS, FallbackCode.UNSUPPORTED_SYNTAX, sub, name.lower(),
                          f"expression {name} is not supported in a graph")

    def _call(self, call: gast.Call) -> None:
        ok, callee = self._resolve(call.func)
        if ok and is_host_printer(callee):
            self._add(DEPENDS, FallbackCode.HOST_CALLBACK, call, "call",
                      f"{qualified_name(callee)} runs on the host as an ordered callback, on every call",
                      "stays in the graph: an ordered host callback (one host transfer of its array arguments)")
        elif ok and _safe_effectful(callee):
            self._add(ALWAYS, FallbackCode.SIDE_EFFECT, call, "call",
                      f"{qualified_name(callee)} has a Python side effect that must run on every call")
        elif ok and any(callee is c for c in _CONVERSIONS):
            if call.args and not all(self._static(a) for a in call.args):
                self._add(DEPENDS, FallbackCode.CONCRETE_VALUE, call, "call",
                          f"{callee.__name__}() of a traced array needs its value on the host", _DEPENDS_EFFECT)
        elif isinstance(call.func, gast.Attribute):
            self._method_call(call, call.func)

    def _method_call(self, call: gast.Call, func: gast.Attribute) -> None:
        if func.attr in _HOST_METHODS and not call.args and not self._static(func.value):
            self._add(DEPENDS, FallbackCode.CONCRETE_VALUE, call, "call",
                      f".{func.attr}() of a traced array needs its value on the host", _DEPENDS_EFFECT)
        elif func.attr in _MUTATING_METHODS and isinstance(func.value, gast.Name) \
                and func.value.id in self.fresh and any(f.dynamic for f in self.frames):
            self._add(DEPENDS, FallbackCode.MUTATION, call, "call",
                      f"`{func.value.id}.{func.attr}()` mutates a container built in this function: fine at trace "
                      "time; under a traced `if` or in a rolled loop a list or dict is joined (carried) when every "
                      "path leaves the same length and keys",
                      _DEPENDS_EFFECT.replace("the value is a traced array",
                                              "the paths or iterations leave another structure"))

    # ------------------------------------------------------------- names
    def _resolve(self, node: gast.AST) -> tuple[bool, object]:
        attrs: list[str] = []
        while isinstance(node, gast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name):
            return _NOT_STATIC
        ok, value = self._lookup(node.id)
        return resolve_attr_chain(value, tuple(reversed(attrs))) if ok else _NOT_STATIC

    def _lookup(self, name: str) -> tuple[bool, object]:
        owner = self._owner(name)
        if owner is None:
            return self.module.lookup(name)
        target = owner.imports.get(name)
        return load_import(target) if target else _NOT_STATIC

    def _owner(self, name: str) -> _FnNames | None:
        """The innermost function that binds ``name`` (None: module or builtin)."""
        for names in reversed(self.chain):
            if name in names.declared_global:
                return None
            if name in names.own and name not in names.declared_nonlocal:
                return names
        return None

    def _static(self, node: gast.AST | None) -> bool:
        """Syntactically a Python value on every call (never a traced array)."""
        if node is None or isinstance(node, gast.Constant):
            return True
        if isinstance(node, gast.Name):
            owner = self._owner(node.id)
            return self.module.is_static(node.id) if owner is None else node.id in owner.imports
        if isinstance(node, gast.Attribute):
            return node.attr in _STATIC_ATTRS or self._static(node.value)
        if isinstance(node, gast.Compare) and all(isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops):
            return True
        if isinstance(node, gast.Call):
            return self._static_call(node)
        if isinstance(node, (gast.Compare, gast.BoolOp, gast.UnaryOp, gast.BinOp, gast.Tuple, gast.List,
                             gast.Subscript, gast.Slice)):
            return all(self._static(c) for c in gast.iter_child_nodes(node) if isinstance(c, gast.expr))
        return False

    def _static_call(self, node: gast.Call) -> bool:
        func = node.func
        if isinstance(func, gast.Name) and func.id in _STATIC_CALLS and self._owner(func.id) is None \
                and self.module.kinds.get(func.id) is None:
            return True
        parts = [func, *node.args, *(k.value for k in node.keywords)]
        return all(self._static(p) for p in parts)

    def _ssa_names(self, query) -> list[str]:
        if self.ssa is None:
            return []
        try:
            return list(query(self.ssa))
        except Exception:  # noqa: BLE001 - a statement the analysis did not reach
            return []


def _has_eval(node: gast.expr) -> bool:
    return isinstance(node, gast.FormattedValue) or hasattr(Specializer, "eval_" + type(node).__name__)


def _safe_effectful(obj: object) -> bool:
    try:
        return is_effectful(obj)
    except Exception:  # noqa: BLE001 - odd library objects are just not known effectful
        return False


def _safe_analyze(node: gast.AST) -> SSAInfo | None:
    try:
        return analyze(normalise(node))
    except Exception:  # noqa: BLE001 - the report does not need SSA to list sites
        return None


def _listing(label: str, names: list[str]) -> str:
    return f"{label}: {', '.join(names)}" if names else ""


def _fresh_containers(node: gast.AST, names: _FnNames) -> frozenset[str]:
    """Locals only ever bound to a list/dict/set display built in the function."""
    verdict: dict[str, bool] = {}
    for stmt in _own_statements(node.body):
        for name, fresh in _binding_kinds(stmt):
            if fresh is not None:
                verdict[name] = verdict.get(name, True) and fresh
    local = names.own - frozenset(_params(node))
    return frozenset(n for n, ok in verdict.items() if ok and n in local)


def _binding_kinds(stmt: gast.stmt) -> Iterator[tuple[str, bool | None]]:
    """(name, fresh container?) per name ``stmt`` binds; None: keeps what it was."""
    if isinstance(stmt, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        yield stmt.name, False
        return
    simple: dict[str, bool | None] = {}
    if isinstance(stmt, gast.Assign) and all(isinstance(t, gast.Name) for t in stmt.targets):
        simple = {t.id: _is_container(stmt.value) for t in stmt.targets}
    elif isinstance(stmt, gast.AnnAssign) and isinstance(stmt.target, gast.Name) and stmt.value is not None:
        simple = {stmt.target.id: _is_container(stmt.value)}
    elif isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
        simple = {stmt.target.id: None}
    yield from simple.items()
    for sub in header_nodes(stmt):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, (gast.Store, gast.Del)) and sub.id not in simple:
            yield sub.id, False


def _is_container(value: gast.AST) -> bool:
    if isinstance(value, _CONTAINER_NODES):
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
        and value.func.id in ("list", "dict", "set") and not value.args


def _params(node: gast.AST) -> list[str]:
    a = node.args
    names = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    return names + [p.id for p in (a.vararg, a.kwarg) if p is not None]


# =============================================================== rendering
def summary(reports: list[FunctionReport]) -> dict:
    functions = [r for r in reports if r.error is None]
    return {
        "functions": len(functions),
        "always": sum(len(r.of_kind(ALWAYS)) for r in functions),
        "depends": sum(len(r.of_kind(DEPENDS)) for r in functions),
        "errors": len(reports) - len(functions),
    }


def summary_line(reports: list[FunctionReport]) -> str:
    s = summary(reports)
    return f"{s['functions']} functions, {s['always']} always-fallback sites, {s['depends']} input-dependent sites"


def to_json(reports: list[FunctionReport], include_depends: bool = False) -> dict:
    """The version-1 JSON report (schema: docs/fallback-codes.md)."""
    return {
        "version": 1,
        "include_depends": include_depends,
        "functions": [r.to_json(include_depends) for r in reports if r.error is None],
        "errors": [{"file": r.file, "line": r.line, "message": r.error} for r in reports if r.error is not None],
        "summary": summary(reports),
    }


def format_text(reports: list[FunctionReport], include_depends: bool = False) -> str:
    lines: list[str] = []
    for r in reports:
        lines += _text_of(r, include_depends)
    errors = summary(reports)["errors"]
    if errors:
        lines.append(f"{errors} file(s) skipped: not read, parsed or analysed (listed above as `error:`)")
    lines.append(summary_line(reports))
    return "\n".join(lines) + "\n"


def _text_of(r: FunctionReport, include_depends: bool) -> list[str]:
    if r.error is not None:
        return [f"error: {r.error}"]
    shown = [s for s in r.sites if include_depends or s.kind == ALWAYS]
    hidden = len(r.sites) - len(shown)
    head = f"{r.file}:{r.line}: {r.qualname}"
    if not shown:
        more = f" ({hidden} input-dependent; --include-depends lists them)" if hidden else ""
        return [f"{head}: no always-fallback sites{more}"]
    out = [head]
    for s in shown:
        out += ["  " + line for line in format_site(s)]
    if hidden:
        out.append(f"  (+{hidden} input-dependent sites; --include-depends lists them)")
    return out


def format_site(s: ReportSite) -> list[str]:
    """``file:line:col: CODE [kind] title: cause``, the source line with a caret, the hint."""
    site, loc = s.site, s.site.loc
    out = [f"{loc}: {site.code.code} [{s.kind}] {site.code.title}: {site.cause}"]
    text = loc.source_line()
    if text.strip():
        stripped = text.lstrip()
        indent = len(text) - len(stripped)
        out += [f"    {stripped}", "    " + " " * max(_char_col(text, loc.col) - indent, 0) + "^"]
    out.append(f"  construct: {site.construct} (loop depth {site.loop_depth}); effect: {site.effect}")
    out.append(f"  hint: {site.hint or site.code.hint}")
    return out


def _char_col(text: str, byte_col: int) -> int:
    """A UTF-8 byte offset (what ast positions are) as a character offset."""
    return len(text.encode()[:byte_col].decode(errors="ignore"))


# ------------------------------------------------------------------ SARIF
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def to_sarif(reports: list[FunctionReport], include_depends: bool = False) -> dict:
    """A SARIF 2.1.0 log: one rule per FallbackCode, one result per listed site.

    Each skipped file is an error in ``invocations[0].toolExecutionNotifications``
    and makes ``executionSuccessful`` false.
    """
    from . import __version__

    codes = list(FallbackCode)
    results = [_sarif_result(r, s, codes) for r in reports if r.error is None
               for s in r.sites if include_depends or s.kind == ALWAYS]
    notes = [{"level": "error", "message": {"text": r.error}, "locations": [_sarif_location(r.file, r.line, 0)]}
             for r in reports if r.error is not None]
    driver = {"name": "ast2graph", "version": __version__, "rules": [_sarif_rule(c) for c in codes]}
    run = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results,
           "invocations": [{"executionSuccessful": not notes, "toolExecutionNotifications": notes}]}
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}


def _sarif_rule(code: FallbackCode) -> dict:
    return {"id": code.code, "name": "".join(p.title() for p in code.name.split("_")),
            "shortDescription": {"text": code.title}, "help": {"text": code.hint},
            "defaultConfiguration": {"level": "warning"}}


def _sarif_result(r: FunctionReport, s: ReportSite, codes: list[FallbackCode]) -> dict:
    site = s.site
    col = _char_col(site.loc.source_line(), site.loc.col)
    location = _sarif_location(site.loc.file, site.loc.line, col)
    location["logicalLocations"] = [{"fullyQualifiedName": r.qualname, "kind": "function"}]
    return {
        "ruleId": site.code.code, "ruleIndex": codes.index(site.code),
        "level": "warning" if s.kind == ALWAYS else "note",
        "message": {"text": f"{site.code.title}: {site.cause}. Hint: {site.hint or site.code.hint}"},
        "locations": [location],
        "properties": {"kind": s.kind, "construct": site.construct, "loopDepth": site.loop_depth,
                       "effect": site.effect},
    }


def _sarif_location(file: str, line: int, col: int) -> dict:
    """A file's URI and, when ``line`` is known (> 0), the region at ``line``/``col``."""
    physical: dict = {"artifactLocation": {"uri": _uri(file)}}
    if line > 0:
        physical["region"] = {"startLine": line, "startColumn": col + 1}
    return {"physicalLocation": physical}


def _uri(file: str) -> str:
    """An RFC 3986 URI reference: ``file://`` for an absolute path, else the
    percent-encoded POSIX relative path (``/`` kept; ``:`` encoded, so a first
    segment is never read as a scheme); undecodable names by their bytes."""
    path = Path(file)
    if path.is_absolute():
        return path.as_uri()
    return urllib.parse.quote_from_bytes(os.fsencode(path.as_posix()), safe="/")
