"""The report's plots, drawn by matplotlib's SVG backend and inlined into the page.

No pyplot and no global backend switch: each plot is a ``Figure`` on its own SVG canvas, so a
report never touches the caller's matplotlib state, and matplotlib is imported by the first
plot, never before. Text stays text (``svg.fonttype: none``); tick labels are plain ``1e3``
rather than mathtext, whose parser would take most of the drawing time. The ids matplotlib
writes are prefixed per plot, so hundreds of plots share one page without clashing; the XML
prolog, DOCTYPE, metadata, embedded style sheet and namespace URLs are dropped (an inline SVG
in HTML needs none of them).
"""

from __future__ import annotations

import hashlib
import io
import math
import re
from contextlib import contextmanager

import numpy as np

BINS = 40
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf",
          "#e377c2", "#7f7f7f", "#bcbd22")
FLOOR = 10 ** -0.35  # the count axis' lower end: a bin of one element stays visible above it
RC = {
    "svg.fonttype": "none", "svg.hashsalt": "judge-report", "font.size": 7,
    # matplotlib's own font (its metrics lay the text out); a browser without it uses sans-serif
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans"],
    "axes.titlesize": 8, "axes.titleweight": "bold", "legend.fontsize": 6, "legend.frameon": False, "axes.linewidth": 0.6,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "axes.edgecolor": "#888",
}
NO_METADATA = {"Creator": None, "Date": None, "Format": None, "Type": None}


@contextmanager
def figure(width_in: float = 3.8, height_in: float = 2.3, *, left: float = 0.13):
    """A figure with one axes on an SVG canvas: ``with figure() as (fig, ax): ...``."""
    import matplotlib
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    with matplotlib.rc_context(RC):
        fig = Figure(figsize=(width_in, height_in))
        FigureCanvasSVG(fig)
        fig.subplots_adjust(left=left, right=0.97, top=0.89, bottom=0.17)
        yield fig, fig.add_subplot()


def inline_svg(fig, *, css_class: str, title: str):
    """``fig`` as an inline ``<svg class=...>`` element (markupsafe ``Markup``)."""
    from markupsafe import Markup, escape

    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata=NO_METADATA)
    return Markup(clean_svg(buf.getvalue(), css_class=css_class, title=str(escape(title))))


def clean_svg(svg: str, *, css_class: str, title: str) -> str:
    """Matplotlib's SVG document as an element for an HTML page (``title`` already escaped)."""
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.S)
    svg = re.sub(r"<style[^>]*>.*?</style>\s*", "", svg, flags=re.S)
    svg = re.sub(r"\n\s+", "\n", svg).replace("<defs>\n</defs>\n", "")
    prefix = "p" + hashlib.sha1(svg.encode()).hexdigest()[:10] + "-"
    svg = re.sub(r'( id="|href="#|url\(#)', rf"\g<1>{prefix}", svg)
    root_end = svg.index(">")
    attrs = re.sub(r'\s+(xmlns(:\w+)?|version)="[^"]*"', "", svg[len("<svg"):root_end])
    return (f'<svg class="{css_class}" role="img"{attrs}><title>{title}</title>'
            + svg[root_end + 1:].strip())


def drawn(what: str, draw, *args, **kwargs):
    """``draw(*args, **kwargs)``, or a line saying why the WHAT could not be drawn: one bad plot
    must not cost the whole report (matplotlib missing, a range it cannot draw, ...)."""
    from markupsafe import Markup

    try:
        return draw(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - reported on the page, in place of the plot
        hint = " (install the audit extra: fuel-judge[audit])" if isinstance(exc, ImportError) \
            else ""
        return Markup('<p class="bad">The {} could not be drawn: {}: {}{}</p>').format(
            what, type(exc).__name__, str(exc), hint)


def log_ticks(axis, *, minor: bool = True) -> None:
    """Decade ticks labelled ``1e3`` on a log axis (no mathtext)."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    axis.set_major_locator(LogLocator(base=10, numticks=8))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"1e{round(math.log10(v))}"))
    if minor:
        axis.set_minor_formatter(NullFormatter())
    else:
        axis.set_minor_locator(NullLocator())


def ulp_histogram_svg(samples: dict[str, np.ndarray], *, title: str,
                      bound_ulp: float | None = None):
    """One histogram of real-valued ULP errors, one step curve per backend, log count axis.

    ``samples`` maps backend name to its 1-D array of errors; non-finite values are dropped
    (special values are counted as mismatches elsewhere, not as errors in ulp).
    """
    clean = {name: finite(values) for name, values in sorted(samples.items())}
    has_bound = bound_ulp is not None and math.isfinite(bound_ulp)
    top = max([float(v.max()) for v in clean.values() if v.size]
              + ([float(bound_ulp)] if has_bound else []), default=0.0)
    x_max = nice_ceiling(top) if top > 0 else 1.0
    scale, unit = axis_scale(x_max)
    counts = {name: np.histogram(v, bins=BINS, range=(0.0, x_max))[0]
              for name, v in clean.items()}
    edges = np.linspace(0.0, x_max / scale, BINS + 1)
    with figure() as (fig, ax):
        for i, (name, c) in enumerate(counts.items()):
            color, label = COLORS[i % len(COLORS)], f"{name} (n={int(clean[name].size)})"
            if c.sum():
                ax.stairs(step_heights(c), edges, baseline=FLOOR, color=color, lw=1.2,
                          label=label)
            else:
                ax.plot([], [], color=color, label=label)
        if has_bound:
            ax.axvline(float(bound_ulp) / scale, color="#444", lw=1, ls=(0, (4, 3)),
                       label=f"bound {bound_ulp:g} ulp")
        peak = max((int(c.max()) for c in counts.values() if c.size), default=1)
        decades = max(1, math.ceil(math.log10(max(peak, 1)) + 1e-9))
        decades += 10**decades == peak
        ax.set_yscale("log")
        ax.set_ylim(FLOOR, 10.0**decades)
        log_ticks(ax.yaxis, minor=False)
        ax.set_xlim(0.0, x_max / scale)
        ax.set_title(title)
        ax.set_xlabel(f"error ({unit}, real-valued)")
        ax.set_ylabel("count (log)")
        ax.grid(axis="y", color="#eee", lw=0.6)
        ax.legend(loc="upper right")
        return inline_svg(fig, css_class="plot hist",
                          title=f"{title}: error in ulp (real-valued), count on a log axis")


def step_heights(counts: np.ndarray) -> np.ndarray:
    """Bin heights for a log axis: an empty bin sits on the axis' floor, a bin of one above it."""
    return np.where(counts > 0, counts, FLOOR).astype(np.float64)


def axis_scale(x_max: float) -> tuple[float, str]:
    """(divisor, unit label) that keep the x axis' numbers small: ``ulp ×1e300`` past 1e5."""
    if x_max < 1e5:
        return 1.0, "ulp"
    exp = math.floor(math.log10(x_max))
    return 10.0**exp, f"ulp ×1e{exp}"


def finite(values) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64).ravel()
    return arr[np.isfinite(arr)]


def nice_ceiling(x: float) -> float:
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
