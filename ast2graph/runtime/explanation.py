"""What one recorded call of a converted function did: ``Explanation``.

Requires: the ``CallRecord`` of a call (``plans``) and the converted function.
Produces: ``Explanation`` (graphs run, fallback sites in the order first run,
decisions in source order, conversion time and seconds per named stage,
the IR and lowered source) with
its text, IPython and Jupyter displays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..fallback.sites import Decision, FallbackSite
from ..ir import print_graph
from ..pipeline import STAGES, format_seconds
from .plans import CallRecord, GraphPlan


@dataclass
class Explanation:
    """What one call of a converted function did."""

    function: Any   # the StaticFunction
    record: CallRecord
    result: Any
    seconds: float

    @property
    def graphs(self) -> list[GraphPlan]:
        return [p for p in self.record.plans if isinstance(p, GraphPlan)]

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def fallback_sites(self) -> list[FallbackSite]:
        sites: list[FallbackSite] = []
        for p in self.record.plans:   # each site once, in the order first run
            site = getattr(p, "site", None) or getattr(p, "split_site", None)
            if site is not None and not any((s.code, s.loc, s.cause) == (site.code, site.loc, site.cause) for s in sites):
                sites.append(site)
        if self.function.eager_reason is not None:
            sites.append(self.function.eager_reason)
        return sites

    @property
    def decisions(self) -> list[Decision]:
        """Every decision of the graphs run, in source order (file, line,
        column; the order they were made among equal positions)."""
        out: list[Decision] = []
        for p in self.graphs:
            out.extend(p.spec.decisions)
        return sorted(out, key=lambda d: (d.loc.file, d.loc.line, d.loc.col))

    @property
    def conversion_seconds(self) -> float:
        return sum(p.conversion_seconds for p in self.record.compiled if isinstance(p, GraphPlan))

    @property
    def stage_seconds(self) -> dict[str, float]:
        """Seconds per named stage (``pipeline.STAGES``): parse, resolve and
        ssa of the function (once, at conversion), then typeinfer, verify,
        lower and jit (or load: the executable came from ast2graph's store)
        summed over the segments this call compiled."""
        out = dict(self.function._state.stages)
        for p in self.record.compiled:
            for name, seconds in getattr(p, "stages", {}).items():
                out[name] = out.get(name, 0.0) + seconds
        return {name: out[name] for name in STAGES if name in out}

    @property
    def ir_text(self) -> str:
        return "\n\n".join(print_graph(p.spec.graph) for p in self.graphs)

    @property
    def lowered_source(self) -> str:
        return "\n\n".join(p.lowered_source for p in self.graphs)

    def __str__(self) -> str:
        fn = self.function
        lines = [f"ast2graph explain: {fn.name}",
                 f"  graphs run: {self.graph_count}; fallback sites: {len(self.fallback_sites)}; "
                 f"newly compiled segments: {len(self.record.compiled)}; recompiles so far: {fn.recompiles}; "
                 f"conversion time: {self.conversion_seconds * 1e3:.1f} ms"]
        if self.stage_seconds:
            lines.append("  stages: " + format_seconds(self.stage_seconds))
        if fn.recompile_reasons:
            lines.append("  recompile reasons (latest last): " + "; ".join(fn.recompile_reasons[-3:]))
        if self.decisions:
            lines.append("  decisions:")
            lines.extend("    " + d.format() for d in self.decisions)
        if self.fallback_sites:
            lines.append("  fallback sites:")
            for s in self.fallback_sites:
                lines.extend("    " + line for line in s.format().splitlines())
        return "\n".join(lines)

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:   # IPython's text display
        printer.text(str(self))

    def _repr_html_(self) -> str:
        """Jupyter's display: the summary, then the decisions and the fallback
        sites as tables (code, line, construct, cause, hint)."""
        from html import escape

        fn, sites = self.function, self.fallback_sites
        head = (f"<b>ast2graph explain: {escape(fn.name)}</b><br>graphs run: {self.graph_count}; fallback sites: "
                f"{len(sites)}; newly compiled segments: {len(self.record.compiled)}; recompiles so far: "
                f"{fn.recompiles}; conversion time: {self.conversion_seconds * 1e3:.1f} ms")
        if self.stage_seconds:
            head += f"<br>stages: {escape(format_seconds(self.stage_seconds))}"
        parts = [f"<div class='ast2graph-explain'>{head}"]

        def table(title: str, columns: tuple, rows: list) -> None:
            if not rows:
                return
            cells = "".join(f"<th>{escape(c)}</th>" for c in columns)
            body = "".join("<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
            parts.append(f"<details open><summary>{escape(title)} ({len(rows)})</summary>"
                         f"<table><tr>{cells}</tr>{body}</table></details>")

        table("fallback sites", ("code", "where", "construct", "cause", "hint"),
              [(s.code.code, f"{s.loc.file}:{s.loc.line}", s.construct, s.cause, s.hint or s.code.hint) for s in sites])
        table("decisions", ("where", "construct", "becomes", "why"),
              [(f"{d.loc.file}:{d.loc.line}", d.construct, d.mode, d.reason) for d in self.decisions])
        parts.append("</div>")
        return "".join(parts)
