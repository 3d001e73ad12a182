"""The cost section's plots (SPEC §12), drawn by matplotlib like the ULP histograms.

``time_svg``: time per call against n for one kernel, log-log, measured medians with their
inter-quartile range and the fitted model as a line, a colour per backend × dtype.
``roofline_svg``: achieved bytes/s against bytes moved for one backend, every kernel × dtype
under the same-run device copy.
"""

from __future__ import annotations

import math

import numpy as np

from judge.reports.plots import COLORS, figure, inline_svg, log_ticks

LEGEND_MAX = 10  # lines past this are drawn but not named in the legend


def rate_text(value: float | None, unit: str) -> str:
    """``4.32 TB/s``: a rate with an SI prefix; ``-`` when there is none."""
    if value is None:
        return "-"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}/s"
    return f"{value:.3g} {unit}/s"


def path_label(entry: dict) -> str:
    """" strided" or " broadcast" for an entry measured on that path ("" for contiguous)."""
    path = entry.get("path") or "contiguous"
    return "" if path == "contiguous" else f" {path}"


def _log_log(ax, *, title: str, xlabel: str, ylabel: str, legend: str) -> None:
    ax.set_xscale("log")
    ax.set_yscale("log")
    _whole_decades(ax)
    log_ticks(ax.xaxis)
    log_ticks(ax.yaxis)
    ax.grid(which="major", color="#eee", lw=0.6)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc=legend)


def _whole_decades(ax) -> None:
    """Axis limits widened to whole decades, so each axis has at least two labelled ticks
    (times that vary by less than ten times would otherwise get none)."""
    ax.relim()
    ax.autoscale_view()
    for get, put in ((ax.get_xlim, ax.set_xlim), (ax.get_ylim, ax.set_ylim)):
        lo, hi = get()
        if not (0 < lo <= hi < math.inf):
            continue
        lo, hi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        put(10.0**lo, 10.0 ** max(hi, lo + 1))


def time_svg(kernel: str, rows: list[dict]):
    """Time against n (log-log) for one kernel: a colour per backend × dtype."""
    rows = sorted((r for r in rows if r["sizes"]), key=lambda r: (r["backend"], r["dtype"]))
    with figure(4.2, 2.6, left=0.14) as (fig, ax):
        for i, r in enumerate(rows):
            color = COLORS[i % len(COLORS)]
            n = np.array([s["n"] for s in r["sizes"]], dtype=np.float64)
            mid = np.array([s["median_ns"] for s in r["sizes"]], dtype=np.float64)
            low = np.clip(mid - [s["q1_ns"] for s in r["sizes"]], 0, None)
            high = np.clip(np.array([s["q3_ns"] for s in r["sizes"]]) - mid, 0, None)
            ax.errorbar(n, mid, yerr=[low, high], fmt="o", ms=2.5, color=color, elinewidth=0.8,
                        label=f"{r['backend']} {r['dtype']}{path_label(r)}" if i < LEGEND_MAX else None)
            if r["overhead_ns"] is not None:
                work = np.array([s["work"] for s in r["sizes"]], dtype=np.float64)
                ax.plot(n, r["overhead_ns"] + r["ns_per_unit"] * work, color=color, lw=1)
        _log_log(ax, title=kernel, xlabel="n (elements of the primary input)",
                 ylabel="time per call (ns)", legend="upper left")
        return inline_svg(fig, css_class="plot cost-plot",
                          title=f"{kernel}: time per call against n, log-log")


def roofline_svg(backend: str, rows: list[dict], roof: dict):
    """Achieved bytes/s against bytes moved, each kernel × dtype under the copy's curve."""
    rows = sorted((r for r in rows if r["sizes"] and r["unit"] == "B"),
                  key=lambda r: (r["kernel"], r["dtype"]))
    copy = [(2 * s["bytes"], 2 * s["bytes"] / s["median_ns"] * 1e9) for s in roof["sizes"]]
    with figure(4.2, 2.6, left=0.14) as (fig, ax):
        if copy:
            ax.plot(*zip(*copy, strict=True), color="#000", lw=2.2, label="device copy")
        for i, r in enumerate(rows):
            sizes = [s for s in r["sizes"] if s["work"] > 0]
            ax.plot([s["work"] for s in sizes],
                    [s["work"] / s["median_ns"] * 1e9 for s in sizes],
                    color=COLORS[i % len(COLORS)], lw=1.0,
                    label=f"{r['kernel']} {r['dtype']}{path_label(r)}" if i < LEGEND_MAX else None)
        if roof.get("largest_bytes_per_s"):
            ax.axhline(roof["largest_bytes_per_s"], color="#000", lw=0.8, ls=(0, (4, 3)),
                       label=f"copy at its largest size "
                             f"{rate_text(roof['largest_bytes_per_s'], 'B')}")
        _log_log(ax, title=f"roofline: {backend}", xlabel="bytes moved per call",
                 ylabel="achieved bytes/s", legend="lower right")
        return inline_svg(fig, css_class="plot cost-plot",
                          title=f"roofline: {backend}: achieved bytes/s against bytes moved, "
                                "log-log")
