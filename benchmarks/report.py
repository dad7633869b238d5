"""Writes ``benchmarks.md`` and ``benchmarks.png`` from ``run.py``'s results."""

from __future__ import annotations

from pathlib import Path


def write(folder: Path, sections: list[tuple[str, list[str]]], command: str, elapsed: float, date: str,
          machine: list[str], rows: list, conv_rows: list, lengths, probe_rows: list, quick: bool) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    md, png = folder / "benchmarks.md", folder / "benchmarks.png"
    out = ["# ast2graph benchmarks", "",
           "Every figure below comes from one run of one command, from the repository root "
           "(after `pip install -e '.[bench]'`, which adds AutoGraph's standalone package `diastatic-malt` and matplotlib):",
           "", "```", command, "```", "",
           f"Run on {date}, {elapsed:.0f} s" + (" (`--quick`: smaller sizes, fewer repetitions)" if quick else "") + ".",
           "", "Machine:", ""] + [f"* {line}" for line in machine] + [
           "", "Absolute times on this VM vary up to 2x between runs; ratios (measured interleaved in one process) less. "
               "The command exits non-zero when a result differs from eager or ast2graph made other than one graph.",
           "", f"![ratios per program and conversion time against function length]({png.name})"]
    for title, lines in sections:
        out += ["", f"## {title}", ""] + lines
    md.write_text("\n".join(out) + "\n")
    chart(png, rows, conv_rows, lengths, probe_rows)
    return md, png


def chart(path: Path, rows: list, conv_rows: list, lengths, probe_rows: list) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    rows = [r for r in rows if r.static]
    names = [r.name.split(" (")[0] for r in rows]
    y = np.arange(len(rows))
    fig, axes = plt.subplots(2, 2, figsize=(15, 11))

    ax = axes[0, 0]
    vals = [r.ratio_hand or 0 for r in rows]
    ax.barh(y, vals, color=["tab:green" if v <= 1.05 else "tab:orange" for v in vals])
    ax.axvline(1.0, color="black", lw=0.8)
    ax.axvline(1.05, color="tab:red", ls="--", lw=1, label="goal 1.05x")
    for k, v in enumerate(vals):
        ax.text(v, k, f" {v:.2f}x", va="center", fontsize=8)
    ax.set_yticks(y, names, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("ast2graph / hand-written jax.jit + lax (warm call time; lower is better)")
    ax.set_title("ast2graph against hand-written JAX")
    ax.legend(loc="lower right")

    ax = axes[0, 1]
    vals = [r.ratio_eager or 0 for r in rows]
    ax.barh(y, vals, color="tab:blue")
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", lw=0.8)
    for k, v in enumerate(vals):
        ax.text(v, k, f" {v:.0f}x" if v >= 10 else f" {v:.1f}x", va="center", fontsize=8)
    ax.set_yticks(y, names, fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("eager / ast2graph (speed-up over eager, log scale)")
    ax.set_title("ast2graph against eager execution")

    ax = axes[1, 0]
    cr = [r for r in conv_rows if r.a2g_cold]
    yc = np.arange(len(cr))
    h = 0.27
    ax.barh(yc - h, [r.a2g_cold * 1e3 for r in cr], h, label="ast2graph, cold (file parsed again)", color="tab:blue")
    ax.barh(yc, [r.a2g_file * 1e3 if r.a2g_file else 0 for r in cr], h, label="ast2graph, file parsed",
            color="tab:cyan")
    ax.barh(yc + h, [r.malt * 1e3 if r.malt else 0 for r in cr], h, label="AutoGraph (diastatic-malt)",
            color="tab:gray")
    ax.set_yticks(yc, [r.name.split(" (")[0] for r in cr], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlabel("conversion time, ms (XLA excluded)")
    ax.set_title("Conversion time: ast2graph against AutoGraph")
    ax.legend(loc="lower right", fontsize=8)

    ax = axes[1, 1]
    pts = sorted([(r.n_lines, r.a2g) for r in probe_rows if r.a2g] + [(r.n_lines, r.a2g) for r in lengths.rows])
    xs = np.array([p[0] for p in pts], float)
    ax.plot(xs, [p[1] for p in pts], "o-", color="tab:blue", label="ast2graph (measured)")
    a, b, r2 = lengths.fit_a2g
    lo = min(r.n_lines for r in lengths.rows)
    grid = np.geomspace(lo, xs.max(), 50)
    fit = a + b * grid
    keep = fit > 0.5 * min(r.a2g for r in lengths.rows)   # near its zero crossing a line dives on a log axis
    grid, fit = grid[keep], fit[keep]
    ax.plot(grid, fit, "--", color="tab:red",
            label=f"ast2graph linear fit, {lo:,}+ lines: {b * 1000:.2f} s per 1,000 lines (R² {r2:.3f})")
    ag = [(r.n_lines, r.malt) for r in probe_rows if r.malt is not None]
    if ag:
        ax.plot([p[0] for p in ag], [p[1] for p in ag], "s-", color="tab:gray", label="AutoGraph (diastatic-malt)")
    missed = [r for r in probe_rows if r.malt is None and "did not finish" in r.malt_note]
    if missed:
        ax.annotate(f"AutoGraph: {missed[0].n_lines} lines {missed[0].malt_note}", xy=(missed[0].n_lines, ag[-1][1] if ag else 1),
                    xytext=(8, -4), textcoords="offset points", fontsize=8, color="tab:gray")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("lines of the generated function (log scale)")
    ax.set_ylabel("conversion time, s (log scale)")
    ax.set_title(f"Conversion time vs function length (ast2graph: log-log slope {lengths.exp_a2g:.2f})")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(alpha=0.3, which="both")

    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
