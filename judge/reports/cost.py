"""The cost section of the report (SPEC §12), drawn from ``measured-cost.json``.

Per backend: the roofline plot (achieved bytes/s of every kernel and dtype against bytes moved,
under the same-run device copy), and a table of fitted coefficients, achieved rates at the
largest size and their fraction of the copy's at the same bytes moved,
memory verdicts and findings. Per kernel: time against n on log-log axes, measured medians with
their inter-quartile range and the fitted model as a line. Plots are inline SVG drawn by hand
(no ids, no external references), like the ULP histograms. ``cost.html`` is the same section as
a page of its own.
"""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

from judge.reports.plots import COLORS
from judge.reports.style import CSS

WIDTH, HEIGHT = 420, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 22, 34


def load_measured(path: str | Path) -> dict | None:
    """The measured-cost document at ``path``, or None when there is none."""
    p = Path(path)
    return json.loads(p.read_text()) if p.is_file() else None


def write_cost_page(json_path: str | Path) -> Path:
    doc = load_measured(json_path)
    if doc is None:
        raise FileNotFoundError(f"{json_path} does not exist")
    page = Path(json_path).with_name("cost.html")
    page.write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>Judge measured cost</title><style>{CSS}</style></head><body>\n"
        "<h1>Judge measured cost</h1>\n" + cost_section(doc) + "\n</body></html>\n")
    return page


def cost_section(doc: dict) -> str:
    """The section's HTML (without its heading)."""
    entries = [e for e in doc.get("entries", []) if e["status"] != "unsupported"]
    libs = ", ".join(f"{k} {v}" for k, v in sorted(doc.get("libraries", {}).items()))
    parts = [f'<p class="meta">measured {escape(str(doc.get("started_at", "")))} in '
             f'{doc.get("seconds", 0):.0f} s · {escape(libs)} · '
             f'time(n) = overhead_ns + work(n) / rate, work from the contract\'s bytes_moved '
             f'(bandwidth classes) or flops (compute classes)</p>']
    if not entries:
        return parts[0] + "<p>No kernel was measured.</p>"
    for device in doc.get("devices", {}).values():
        backend = device["backend"]
        rows = [e for e in entries if e["backend"] == backend]
        roof = device["roofline"]
        parts.append(f"<h3>{escape(backend)}</h3><p class=\"meta\">{escape(device['describe'])}"
                     f" · device copy {_rate(roof['largest_bytes_per_s'], 'B')} at its "
                     f"largest size, {_rate(roof['bytes_per_s'], 'B')} fitted "
                     f"({escape(roof['source'])}, {escape(roof['clock'])})"
                     + (f" · {escape(roof['note'])}" if roof.get("note") else "") + "</p>")
        parts.append('<div class="hists">' + _figure(roofline_svg(backend, rows, roof)) + "</div>")
        parts.append(_table(rows))
    by_kernel: dict[tuple[str, str], list[dict]] = {}
    for e in entries:
        by_kernel.setdefault((e["file"], e["kernel"]), []).append(e)
    plots = [_figure(time_svg(kernel, rows)) for (_, kernel), rows in sorted(by_kernel.items())
             if any(r["sizes"] for r in rows)]
    parts.append("<h3>Time against n</h3>")
    parts.append('<div class="hists">' + "".join(plots) + "</div>")
    return "\n".join(parts)


def _figure(svg: str) -> str:
    return f"<figure>{svg}</figure>"


def _rate(value, unit: str) -> str:
    if value is None:
        return "-"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:.3g} {prefix}{unit}/s"
    return f"{value:.3g} {unit}/s"


def _table(rows: list[dict]) -> str:
    head = ["kernel", "dtype", "overhead µs", "fitted rate", "at largest n", "of copy", "fit rms",
            "sizes", "memory", "findings"]
    body = []
    for e in sorted(rows, key=lambda r: (r["kernel"], r["dtype"])):
        if e["status"] != "measured":
            body.append(f"<tr><td>{escape(e['kernel'])}</td><td>{escape(e['dtype'])}</td>"
                        f'<td colspan="8" class="bad">not measured: {escape(e["reason"])}</td>'
                        "</tr>")
            continue
        frac = e["roofline_fraction"]
        sizes = e["sizes"]
        mem = "; ".join(f"{m['tier']} {m['measured_bytes']} B {m['verdict']}"
                        for m in e["memory"])
        span = f"2^{int(math.log2(sizes[0]['n']))}..2^{int(math.log2(sizes[-1]['n']))}"
        if e.get("truncated"):
            span += " (truncated)"
        findings = "<br>".join(escape(f) for f in e["findings"])
        body.append(
            f"<tr><td>{escape(e['kernel'])}</td><td>{escape(e['dtype'])}</td>"
            f'<td class="num">{e["overhead_ns"] / 1e3:.2f}</td>'
            f'<td class="num">{_rate(e["rate_per_s"], e["unit"])}</td>'
            f'<td class="num">{_rate(e["largest_rate_per_s"], e["unit"])}</td>'
            f'<td class="num">{"-" if frac is None else f"{frac:.0%}"}</td>'
            f'<td class="num">{e["fit_rms_rel"]:.1%}</td><td>{span}</td>'
            f"<td>{escape(mem)}</td><td>{findings}</td></tr>")
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    return f'<table class="cost"><tr>{header}</tr>{"".join(body)}</table>'


class _LogAxes:
    """Log-log axes over the given data ranges, decade grid lines, SVG text."""

    def __init__(self, xs, ys, title: str, xlabel: str, ylabel: str) -> None:
        self.x0, self.x1 = _decades(xs)
        self.y0, self.y1 = _decades(ys)
        self.w, self.h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
        self.parts = [
            f'<svg class="cost-plot" width="{WIDTH}" height="{HEIGHT}" '
            f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" font-family="sans-serif" font-size="9">',
            f"<title>{escape(title)}: {escape(ylabel)} against {escape(xlabel)}, log-log</title>",
            f'<rect x="{LEFT}" y="{TOP}" width="{self.w}" height="{self.h}" fill="#fff" '
            'stroke="#888" stroke-width="0.8"/>',
            f'<text x="{WIDTH / 2:.1f}" y="13" text-anchor="middle" font-size="10" '
            f'font-weight="bold">{escape(title)}</text>',
            f'<text x="{LEFT + self.w / 2:.1f}" y="{HEIGHT - 4}" text-anchor="middle">'
            f"{escape(xlabel)}</text>",
            f'<text transform="translate(11 {TOP + self.h / 2:.1f}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>',
        ]
        for d in range(self.x0, self.x1 + 1):
            x = self.sx(10.0**d)
            self.parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + self.h}" '
                              f'stroke="#eee"/><text x="{x:.1f}" y="{TOP + self.h + 12}" '
                              f'text-anchor="middle">1e{d}</text>')
        for d in range(self.y0, self.y1 + 1):
            y = self.sy(10.0**d)
            self.parts.append(f'<line x1="{LEFT}" x2="{LEFT + self.w}" y1="{y:.1f}" y2="{y:.1f}" '
                              f'stroke="#eee"/><text x="{LEFT - 4}" y="{y + 3:.1f}" '
                              f'text-anchor="end">1e{d}</text>')
        self.legend: list[tuple[str, str, str]] = []

    def sx(self, x: float) -> float:
        return LEFT + self.w * (math.log10(x) - self.x0) / (self.x1 - self.x0)

    def sy(self, y: float) -> float:
        return TOP + self.h * (1 - (math.log10(y) - self.y0) / (self.y1 - self.y0))

    def line(self, xs, ys, color: str, width: float = 1.2, dash: str = "") -> None:
        pts = [(x, y) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
        if len(pts) < 2:
            return
        d = "M" + "L".join(f"{self.sx(x):.1f},{self.sy(y):.1f}" for x, y in pts)
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        self.parts.append(f'<path d="{d}" fill="none" stroke="{color}" '
                          f'stroke-width="{width}"{extra}/>')

    def points(self, xs, lows, mids, highs, color: str) -> None:
        for x, lo, mid, hi in zip(xs, lows, mids, highs, strict=True):
            if x <= 0 or mid <= 0:
                continue
            px = self.sx(x)
            if lo > 0 and hi > lo:
                self.parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{self.sy(hi):.1f}" '
                                  f'y2="{self.sy(lo):.1f}" stroke="{color}"/>')
            self.parts.append(f'<circle cx="{px:.1f}" cy="{self.sy(mid):.1f}" r="1.8" '
                              f'fill="{color}"/>')

    def svg(self) -> str:
        for i, (color, label, dash) in enumerate(self.legend[:12]):
            y = TOP + 10 + 10 * i
            x = LEFT + 8
            extra = f' stroke-dasharray="{dash}"' if dash else ""
            self.parts.append(f'<line x1="{x}" x2="{x + 12}" y1="{y - 3}" y2="{y - 3}" '
                              f'stroke="{color}" stroke-width="1.5"{extra}/>'
                              f'<text x="{x + 16}" y="{y}">{escape(label)}</text>')
        return "".join(self.parts) + "</svg>"


def _decades(values) -> tuple[int, int]:
    vals = [v for v in values if v and v > 0 and math.isfinite(v)] or [1.0]
    lo, hi = math.floor(math.log10(min(vals))), math.ceil(math.log10(max(vals)))
    return lo, max(hi, lo + 1)


def time_svg(kernel: str, rows: list[dict]) -> str:
    """Time against n (log-log) for one kernel: a color per backend × dtype."""
    rows = [r for r in rows if r["sizes"]]
    xs = [s["n"] for r in rows for s in r["sizes"]]
    ys = [v for r in rows for s in r["sizes"] for v in (s["q1_ns"], s["q3_ns"], s["median_ns"])]
    axes = _LogAxes(xs, ys, kernel, "n (elements of the primary input)", "time per call (ns)")
    for i, r in enumerate(sorted(rows, key=lambda r: (r["backend"], r["dtype"]))):
        color = COLORS[i % len(COLORS)]
        sizes = r["sizes"]
        axes.points([s["n"] for s in sizes], [s["q1_ns"] for s in sizes],
                    [s["median_ns"] for s in sizes], [s["q3_ns"] for s in sizes], color)
        if r["overhead_ns"] is not None:
            axes.line([s["n"] for s in sizes],
                      [r["overhead_ns"] + r["ns_per_unit"] * s["work"] for s in sizes], color)
        axes.legend.append((color, f"{r['backend']} {r['dtype']}", ""))
    return axes.svg()


def roofline_svg(backend: str, rows: list[dict], roof: dict) -> str:
    """Achieved bytes/s against bytes moved, each kernel × dtype under the copy's curve."""
    rows = [r for r in rows if r["sizes"] and r["unit"] == "B"]
    copy = [(2 * s["bytes"], 2 * s["bytes"] / s["median_ns"] * 1e9) for s in roof["sizes"]]
    pts = [(s["work"], s["work"] / s["median_ns"] * 1e9) for r in rows for s in r["sizes"]
           if s["work"] > 0]
    axes = _LogAxes([p[0] for p in copy + pts], [p[1] for p in copy + pts],
                    f"roofline: {backend}", "bytes moved per call", "achieved bytes/s")
    if copy:
        axes.line([c[0] for c in copy], [c[1] for c in copy], "#000", 2.2)
        axes.legend.append(("#000", "device copy", ""))
    if roof.get("largest_bytes_per_s"):
        xs = [p[0] for p in copy + pts]
        axes.line([min(xs), max(xs)], [roof["largest_bytes_per_s"]] * 2, "#000", 0.8, "4 3")
        axes.legend.append(("#000", f"copy at its largest size "
                                    f"{_rate(roof['largest_bytes_per_s'], 'B')}", "4 3"))
    for i, r in enumerate(sorted(rows, key=lambda r: (r["kernel"], r["dtype"]))):
        color = COLORS[i % len(COLORS)]
        sizes = [s for s in r["sizes"] if s["work"] > 0]
        axes.line([s["work"] for s in sizes], [s["work"] / s["median_ns"] * 1e9 for s in sizes],
                  color, 1.0)
        if i < 10:
            axes.legend.append((color, f"{r['kernel']} {r['dtype']}", ""))
    return axes.svg()
