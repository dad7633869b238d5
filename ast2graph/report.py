"""Static fallback report: which sites of a file's functions run in Python.

Requires: a path to a ``.py`` file or a directory of them; ``gast`` (the file
text is parsed, never imported or executed); ``survey`` (the compiler's own
abstract interpreter, typeinfer's ``specialize``, run on abstract arguments:
one place decides what falls back, the run and the report; issue 17).
Produces: ``report_path(path, qualname=None, max_file_size=MAX_FILE_SIZE)
-> list[FunctionReport]``; each ``FunctionReport`` holds ``ReportSite``s (a
``FallbackSite`` plus ``kind``: ``"always"`` -- falls back under the
arguments the survey settled on, the kinds eager accepts -- or
``"depends"`` -- falls back only under another assumption its cause names,
e.g. a parameter that is a traced array rather than a Python number).
``ReportError`` for a missing path, a named file that cannot be read, parsed
or analysed (larger than ``max_file_size`` bytes, nested too deeply) or an
unknown qualname. ``to_json``/``to_sarif``/``format_text`` render a report
(schema: docs/fallback-codes.md).
Invariants: the user's files are never imported or executed (see
``survey.py``: functions and methods are rebuilt from their own ``def`` text);
only well-known library modules (``survey.KNOWN_ROOTS``) are imported to
resolve names the file imports, and only from the installed environment:
while a file is reported ``sys.path`` holds only the library folders of the
installation (stdlib, site-packages), never the working directory or the
file's folder, so a user's ``cmath.py`` next to the file cannot shadow the
library (a module already in ``sys.modules`` is used as is). The report
survives any input CPython compiles: it runs in a thread with a large stack
and a raised recursion limit (``on_deep_stack``), and a file nested deeper
still, or one that exhausts memory, is a ``ReportError`` naming it, never a
traceback. Every site names a line of the user's file. A trailing
``# ast2graph: ignore[CODE, ...]`` (or a bare ``# ast2graph: ignore``) on a
site's line removes that site. In directory mode such a file becomes an error
entry (``FunctionReport.error``), not a crash, and the other files are still
reported.
"""

from __future__ import annotations

import importlib.util
import io
import linecache
import os
import re
import tokenize
import urllib.parse
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import gast

from .fallback.sites import FallbackCode, FallbackSite
from .findings import (ALWAYS, DEPENDS, FunctionReport, ReportError, ReportSite,  # noqa: F401 (named through here)
                       installed_libraries_only, on_deep_stack, too_deep_is_error)

MAX_FILE_SIZE = 10_000_000  # bytes; a 50 MB list display took 125 s and 9.6 GiB to report
_SKIP_DIRS = frozenset({"__pycache__", "site-packages", "node_modules"})
_IGNORE = re.compile(r"#\s*ast2graph:\s*ignore(?:\[([^\]]*)\])?")


# =================================================================== files
@dataclass
class _File:
    path: str
    module: gast.Module
    suppressed: dict[int, frozenset[str] | None]
    text: str


def report_path(path: str, qualname: str | None = None,
                max_file_size: int | None = MAX_FILE_SIZE) -> list[FunctionReport]:
    """Every function's sites in ``path`` (a file, or every .py file under a folder).

    A file larger than ``max_file_size`` bytes (None or 0: no limit) is not read.
    """
    return on_deep_stack(_report_path, path, qualname, max_file_size)


def _report_path(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    if os.path.isdir(path):
        reports = [r for f in _python_files(path) for r in _report_file_or_error(f, qualname, max_file_size)]
    elif os.path.exists(path):
        reports = report_file(path, qualname, max_file_size)
    else:
        raise ReportError(f"{path}: no such file or directory")
    if qualname and not any(r.error is None for r in reports):
        raise ReportError(f"{path}: no function or method named {qualname!r} (the report reads module-level "
                          "functions and the methods of module-level classes)")
    return reports


def report_file(path: str, qualname: str | None = None,
                max_file_size: int | None = MAX_FILE_SIZE) -> list[FunctionReport]:
    """The sites of every function of one file; ReportError if it cannot be read, parsed or analysed."""
    return on_deep_stack(_report_file_isolated, path, qualname, max_file_size)


def _report_file_isolated(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    with installed_libraries_only(os.path.dirname(os.path.abspath(path))), too_deep_is_error(path):
        return _report_file(path, qualname, max_file_size)


def _report_file(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    from .survey import survey_file

    source = load_file(path, max_file_size)
    reports = survey_file(path, qualname, source.text)
    for r in reports:
        r.sites = [s for s in r.sites if not _is_suppressed(source, s.site)]
    return reports


def _report_file_or_error(path: str, qualname: str | None, max_file_size: int | None) -> list[FunctionReport]:
    try:
        return report_file(path, qualname, max_file_size)
    except ReportError as e:
        return [FunctionReport("<module>", path, e.line, [], str(e))]


def _python_files(root: str) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        yield from (os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))


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
    kept = _PARSED.get((path, text))
    if kept is not None:   # the same text as a moment ago (the report reads a file once per function)
        linecache.checkcache(path)
        return kept
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
    parsed = _PARSED[(path, text)] = _File(path, module, _suppressions(text), text)
    if len(_PARSED) > 16:
        _PARSED.pop(next(iter(_PARSED)))
    return parsed


# ``load_file``'s results by (path, text): the file is read on every call, parsed again only when its
# text changed (a report of one function at a time parses the file once)
_PARSED: dict[tuple[str, str], _File] = {}


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
