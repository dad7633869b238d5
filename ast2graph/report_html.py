"""``ast2graph report --format html``: one self-contained page to look at.

Requires: the ``FunctionReport``s of ``report.report_path`` (sites with their
kind), the files they name (read again here as text, never imported), and the
SSA package's CFG of each function (``ssa.analyze``; a ``networkx.DiGraph``).
Produces: ``to_html(reports, include_depends)``: one HTML document with its
CSS inline and no script, link or remote resource: per function its source,
every line coloured by what happens to it —

* ``graph``: compiled into the graph (no site on the line);
* ``host``: stays in the graph as an ordered host callback (``print``,
  ``logging``: A2G014);
* ``control``: an ``if``/``for``/``while`` whose header runs as Python
  control flow around a compiled body;
* ``depends``: falls back for some inputs only (listed with ``--possible``);
* ``interpreted``: falls back whatever the inputs (the statement runs in
  Python);

with the code, kind, cause and hint of each site on hover (the ``title`` of
the line) and in a table, and the function's control-flow graph drawn: DOT
text made from the networkx graph, rendered to inline SVG when Graphviz's
``dot`` is installed, a plain listing of blocks and edges otherwise.
Invariants: everything taken from the user's files (source text, names,
causes) is HTML-escaped, so nothing of theirs becomes markup or code; a
function whose CFG cannot be built still gets its source and sites.
"""

from __future__ import annotations

import shutil
import subprocess
from html import escape
from pathlib import Path
from typing import Iterable

from .findings import ALWAYS, FunctionReport, ReportSite

# the worst class a line's sites give it wins
_RANK = {"graph": 0, "host": 1, "depends": 2, "control": 3, "interpreted": 4}
_LEGEND = (("graph", "compiled into the graph"),
           ("host", "in the graph as an ordered host callback (print, logging)"),
           ("control", "runs as Python control flow around a compiled body"),
           ("depends", "falls back for some inputs only"),
           ("interpreted", "falls back: runs in Python"))
_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.1em;margin-top:2em}h3{font-size:1em}
pre.src{background:#fafafa;border:1px solid #ddd;padding:.4em 0;overflow-x:auto;line-height:1.35}
pre.src>span{display:block;padding:0 .6em;white-space:pre}
span.graph{background:#e8f6e8}span.host{background:#e3efff}span.control{background:#fff3cd}
span.depends{background:#ffe4c4}span.interpreted{background:#f8d0d0}
span[title]{cursor:help}
.ln{color:#999;display:inline-block;width:3.5em;user-select:none}
.legend span{display:inline-block;padding:.1em .5em;margin-right:.5em;border:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;
vertical-align:top;font-size:.9em}
.cfg svg{max-width:100%;height:auto}pre.cfg{background:#f4f4f4;padding:.5em}
"""


def line_class(site: ReportSite) -> str:
    """What a site does to its line (see the module docstring)."""
    s = site.site
    if s.code.code == "A2G014":
        return "host"
    if site.kind != ALWAYS:
        return "depends"
    if s.construct in ("if", "for", "while") and "control flow" in s.effect:
        return "control"
    return "interpreted"


def _tooltip(sites: list[ReportSite]) -> str:
    return "\n".join(f"{s.site.code.code} [{s.kind}] {s.site.code.title}: {s.site.cause}\n"
                     f"hint: {s.site.hint or s.site.code.hint}" for s in sites)


def _function_lines(report: FunctionReport, lines: list[str], end: int) -> list[str]:
    by_line: dict[int, list[ReportSite]] = {}
    for s in report.sites:
        by_line.setdefault(s.site.loc.line, []).append(s)
    # a site of the whole function (a generator, async def): every line runs in Python
    whole = any(s.kind == ALWAYS and s.site.construct == "function" for s in report.sites)
    out = []
    for n in range(report.line, min(end, len(lines)) + 1):
        sites = by_line.get(n, [])
        cls = max((line_class(s) for s in sites), key=_RANK.__getitem__, default="interpreted" if whole else "graph")
        title = f' title="{escape(_tooltip(sites))}"' if sites else ""
        out.append(f'<span class="{cls}"{title}><span class="ln">{n}</span>{escape(lines[n - 1])}</span>')
    return out


def _site_table(sites: list[ReportSite]) -> str:
    if not sites:
        return "<p>No fallback site: one graph whatever the inputs.</p>"
    rows = "".join(
        f"<tr><td>{s.site.loc.line}:{s.site.loc.col + 1}</td><td>{escape(s.site.code.code)}</td>"
        f"<td>{escape(s.kind)}</td><td>{escape(s.site.construct)}</td><td>{escape(s.site.cause)}</td>"
        f"<td>{escape(s.site.hint or s.site.code.hint)}</td></tr>" for s in sites)
    return ("<table><tr><th>line</th><th>code</th><th>kind</th><th>construct</th><th>cause</th><th>hint</th></tr>"
            f"{rows}</table>")


def cfg_dot(cfg: object, name: str) -> str:
    """The DOT text of a function's CFG (``ssa.cfg.CFG``, its ``graph`` a
    networkx DiGraph): one box per block listing its statements' lines."""
    from .ssa.dump import entry_line, entry_text

    def quote(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + '"'

    out = [f"digraph {quote(name)} {{", '  node [shape=box, fontname="monospace", fontsize=10];']
    for b in cfg.block_ids():
        tags = " (entry)" if b == cfg.entry else " (exit)" if b == cfg.exit else ""
        body = [f"b{b}{tags}"] + [f"{entry_line(e)}: {entry_text(e)}"[:80] for e in cfg.block(b).stmts][:12]
        out.append(f"  b{b} [label={quote(chr(10).join(body) + chr(10))}];")
    out += [f"  b{u} -> b{v};" for u, v in cfg.graph.edges()]
    out.append("}")
    return "\n".join(out) + "\n"


def _render_svg(dot: str) -> str | None:
    """Graphviz's SVG of ``dot``, or None when ``dot`` is missing or fails."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot, capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    svg = done.stdout
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else None


def _cfg_section(node: object, qualname: str) -> str:
    from .ssa.dump import cfg_text
    from .parser.locate import normalise
    from .ssa import analyze

    try:
        cfg = analyze(normalise(node)).cfg
    except Exception as e:  # noqa: BLE001 - the page still shows the source and its sites
        return f"<p>control-flow graph not available: {escape(type(e).__name__)}: {escape(str(e))}</p>"
    dot = cfg_dot(cfg, qualname)
    svg = _render_svg(dot)
    if svg is not None:
        drawing = f'<div class="cfg">{svg}</div>'
    else:
        drawing = (f'<pre class="cfg">{escape(cfg_text(cfg))}</pre>'
                   "<p>(install Graphviz's <code>dot</code> to draw it)</p>")
    return (f"<details open><summary>control-flow graph</summary>{drawing}"
            f"<details><summary>DOT</summary><pre>{escape(dot)}</pre></details></details>")


def _file_sections(path: str, reports: list[FunctionReport], include_depends: bool) -> list[str]:
    from .report import iter_functions, load_file

    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        entries = {e.qualname: e.node for e in iter_functions(load_file(path).module)}
    except Exception as e:  # noqa: BLE001 - the report listed it; show what can be shown
        return [f"<h2>{escape(path)}</h2><p>cannot be shown: {escape(str(e))}</p>"]
    lines = text.splitlines()
    out = [f"<h2>{escape(path)}</h2>"]
    for r in reports:
        if r.error is not None:
            out.append(f"<p>skipped: {escape(r.error)}</p>")
            continue
        shown = FunctionReport(r.qualname, r.file, r.line,
                               [s for s in r.sites if include_depends or s.kind == ALWAYS])
        node = entries.get(r.qualname)
        end = getattr(node, "end_lineno", None) or r.line
        counts = f"{len(shown.of_kind(ALWAYS))} always, {len(r.sites) - len(r.of_kind(ALWAYS))} input-dependent"
        out.append(f'<h3 id="{escape(r.qualname)}">{escape(r.qualname)} '
                   f"<small>(line {r.line}; {counts})</small></h3>")
        out.append('<pre class="src">' + "".join(_function_lines(shown, lines, end)) + "</pre>")
        out.append(_site_table(shown.sites))
        if node is not None:
            out.append(_cfg_section(node, r.qualname))
    return out


def to_html(reports: Iterable[FunctionReport], include_depends: bool = False) -> str:
    """The whole page (see the module docstring)."""
    from .report import summary_line

    reports = list(reports)
    by_file: dict[str, list[FunctionReport]] = {}
    for r in reports:
        by_file.setdefault(r.file, []).append(r)
    legend = "".join(f'<span class="{cls}" style="display:inline-block">{escape(cls)}: {escape(text)}</span>'
                     for cls, text in _LEGEND)
    body = [f"<h1>ast2graph report</h1><p>{escape(summary_line(reports))}"
            f"{'' if include_depends else ' (input-dependent sites hidden: --possible shows them)'}</p>",
            f'<p class="legend">{legend}</p><p>Hover a coloured line for its sites.</p>']
    for path, rs in by_file.items():
        body += _file_sections(path, rs, include_depends)
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>ast2graph report</title>"
            f"<style>{_CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n")
