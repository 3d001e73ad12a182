"""ULP-error histograms drawn directly as small inline SVG.

Written by hand rather than through matplotlib: an audit draws one plot per (kernel, dtype),
hundreds of them, and a hand-drawn step histogram takes about a millisecond and 3 kB where a
matplotlib SVG takes a quarter second and 15 kB, and carries element ids that collide once
many plots share one HTML page. The SVG holds no ids and no external references.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

BINS = 40
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
WIDTH, HEIGHT = 380, 230
LEFT, RIGHT, TOP, BOTTOM = 46, 20, 22, 34
FLOOR = -0.35  # log10 of the count axis' lower end


def ulp_histogram_svg(
    samples: dict[str, np.ndarray],
    *,
    title: str,
    bound_ulp: float | None = None,
) -> str:
    """One histogram of real-valued ULP errors, one step curve per backend, log count axis.

    ``samples`` maps backend name to its 1-D array of errors; non-finite values are dropped
    (special values are counted as mismatches elsewhere, not as errors in ulp).
    """
    clean = {name: _finite(values) for name, values in sorted(samples.items())}
    top = max((float(v.max()) for v in clean.values() if v.size), default=0.0)
    has_bound = bound_ulp is not None and math.isfinite(bound_ulp)
    if has_bound:
        top = max(top, float(bound_ulp))
    x_max = _nice_ceiling(top) if top > 0 else 1.0
    edges = np.linspace(0.0, x_max, BINS + 1)
    # equal-width bins given as (count, range) take numpy's fast path (no sort)
    counts = {name: np.histogram(v, bins=BINS, range=(0.0, x_max))[0] for name, v in clean.items()}
    peak = max((int(c.max()) for c in counts.values() if c.size), default=1)
    decades = max(1, math.ceil(math.log10(max(peak, 1)) + 1e-9))
    if 10**decades == peak:
        decades += 1

    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def sx(x: float) -> float:
        return LEFT + plot_w * (x / x_max)  # divide first: x near the F64 maximum

    def sy(count: float) -> float:
        # Log scale whose floor sits below 1, so a bin holding a single outlier stays visible;
        # an empty bin sits on the axis.
        if count <= 0:
            return TOP + plot_h
        return TOP + plot_h * (1 - (math.log10(count) - FLOOR) / (decades - FLOOR))

    parts = [
        f'<svg class="hist" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'role="img" font-family="sans-serif" font-size="9">',
        f"<title>{escape(title)}: error in ulp (real-valued), count on a log axis</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" '
        'stroke="#888" stroke-width="0.8"/>',
        f'<text x="{WIDTH / 2:.1f}" y="13" text-anchor="middle" font-size="10" '
        f'font-weight="bold">{escape(title)}</text>',
    ]
    for d in range(decades + 1):
        y = sy(10**d)
        parts.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" '
                     'stroke="#eee"/>')
        parts.append(f'<text x="{LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">1e{d}</text>')
    for x in _ticks(x_max):
        px = sx(x)
        parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{TOP + plot_h}" '
                     f'y2="{TOP + plot_h + 3}" stroke="#888"/>')
        parts.append(f'<text x="{px:.1f}" y="{TOP + plot_h + 13}" text-anchor="middle">'
                     f"{x:g}</text>")
    parts.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 4}" text-anchor="middle">'
                 "error (ulp, real-valued)</text>")
    parts.append(f'<text transform="translate(11 {TOP + plot_h / 2:.1f}) rotate(-90)" '
                 'text-anchor="middle">count (log)</text>')
    legend = []
    for i, (name, c) in enumerate(counts.items()):
        color = COLORS[i % len(COLORS)]
        if c.sum():
            parts.append(f'<path d="{_step_path(edges, c, sx, sy)}" fill="none" '
                         f'stroke="{color}" stroke-width="1.3"/>')
        legend.append((color, f"{name} (n={int(clean[name].size)})", ""))
    if has_bound:
        bx = sx(float(bound_ulp))
        parts.append(f'<line x1="{bx:.1f}" x2="{bx:.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
                     'stroke="#444" stroke-dasharray="4 3"/>')
        legend.append(("#444", f"bound {bound_ulp:g} ulp", ' stroke-dasharray="4 3"'))
    for i, (color, label, dash) in enumerate(legend):
        y = TOP + 10 + 11 * i
        x = LEFT + plot_w - 8
        parts.append(f'<line x1="{x - 112}" x2="{x - 100}" y1="{y - 3}" y2="{y - 3}" '
                     f'stroke="{color}" stroke-width="1.5"{dash}/>')
        parts.append(f'<text x="{x - 96}" y="{y}">{escape(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _step_path(edges: np.ndarray, counts: np.ndarray, sx, sy) -> str:
    base = sy(0)
    cmds = [f"M{sx(float(edges[0])):.1f},{base:.1f}"]
    for lo, hi, c in zip(edges[:-1], edges[1:], counts, strict=True):
        y = sy(float(c))
        cmds.append(f"L{sx(float(lo)):.1f},{y:.1f}L{sx(float(hi)):.1f},{y:.1f}")
    cmds.append(f"L{sx(float(edges[-1])):.1f},{base:.1f}")
    return "".join(cmds)


def _finite(values) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    return arr[np.isfinite(arr)]


def _nice_ceiling(x: float) -> float:
    """The smallest 1, 2, 2.5 or 5 × 10^k that is >= x (x itself where that overflows)."""
    exp = math.floor(math.log10(x))
    for m in (1, 2, 2.5, 5, 10):
        try:
            nice = m * 10.0**exp  # float: integer powers of ten outgrow int64 in F64 audits
        except OverflowError:
            return x
        if nice >= x:
            return nice if math.isfinite(nice) else x
    return x  # pragma: no cover - the loop always returns


def _ticks(x_max: float) -> list[float]:
    step = _nice_ceiling(x_max / 5)
    n = math.floor(x_max / step * (1 + 1e-9))  # ticks inside the axis only
    return [round(i * step, 12) for i in range(n + 1)]
