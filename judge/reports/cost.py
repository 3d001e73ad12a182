"""The cost section of the report (SPEC §12), drawn from ``measured-cost.json``.

Per backend: the roofline plot (achieved bytes/s of every kernel and dtype against bytes moved,
under the same-run device copy), and a table of fitted coefficients, achieved rates at the
largest size and their fraction of the copy's at the same bytes moved, memory verdicts and
findings. Per kernel: time against n on log-log axes. ``cost_view`` turns the document into
what ``reports/templates/sections/cost.html.j2`` shows; ``cost.html`` is the same section as a
page of its own (``judge measure``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from judge.reports.cost_plots import path_label, rate_text


def load_measured(path: str | Path) -> dict | None:
    """The measured-cost document at ``path``, or None when there is none."""
    p = Path(path)
    return json.loads(p.read_text()) if p.is_file() else None


def write_cost_page(json_path: str | Path) -> Path:
    """``cost.html`` beside ``json_path``: the cost section as a page of its own."""
    from judge.reports.assets import render

    doc = load_measured(json_path)
    if doc is None:
        raise FileNotFoundError(f"{json_path} does not exist")
    page = Path(json_path).with_name("cost.html")
    page.write_text(render("cost.html.j2", cost=cost_view(doc)))
    return page


def cost_section(doc: dict) -> str:
    """The section's HTML without its heading (what ``cost.html`` shows under its title)."""
    from judge.reports.assets import render

    return render("sections/cost.html.j2", cost=cost_view(doc))


def cost_view(doc: dict) -> dict:
    """What the cost template shows: a header line, a block per device, the time plots."""
    from judge.reports.cost_plots import roofline_svg, time_svg
    from judge.reports.plots import drawn

    entries = [e for e in doc.get("entries", []) if e["status"] != "unsupported"]
    libs = ", ".join(f"{k} {v}" for k, v in sorted(doc.get("libraries", {}).items()))
    header = (f"measured {doc.get('started_at', '')} in {doc.get('seconds', 0):.0f} s · {libs} · "
              "time(n) = overhead_ns + work(n) / rate, work from the contract's bytes_moved "
              "(bandwidth classes) or flops (compute classes)")
    if not entries:
        return {"header": header, "devices": [], "time_plots": []}
    devices = []
    for device in doc.get("devices", {}).values():
        backend, roof = device["backend"], device["roofline"]
        rows = [e for e in entries if e["backend"] == backend]
        devices.append({
            "backend": backend, "describe": _device_line(device),
            "roofline": drawn(f"roofline of {backend}", roofline_svg, backend, rows, roof),
            "rows": [_row(e) for e in sorted(rows, key=lambda r: (r["kernel"], r["dtype"]))],
        })
    by_kernel: dict[tuple[str, str], list[dict]] = {}
    for e in entries:
        by_kernel.setdefault((e["file"], e["kernel"]), []).append(e)
    plots = [drawn(f"time plot of {kernel}", time_svg, kernel, rows)
             for (_, kernel), rows in sorted(by_kernel.items()) if any(r["sizes"] for r in rows)]
    return {"header": header, "devices": devices, "time_plots": plots}


def _device_line(device: dict) -> str:
    roof = device["roofline"]
    note = f" · {roof['note']}" if roof.get("note") else ""
    return (f"{device['describe']} · device copy {rate_text(roof['largest_bytes_per_s'], 'B')} "
            f"at its largest size, {rate_text(roof['bytes_per_s'], 'B')} fitted "
            f"({roof['source']}, {roof['clock']}){note}")


def _row(e: dict) -> dict:
    """One table row of the cost section."""
    row = {"kernel": e["kernel"] + path_label(e), "dtype": e["dtype"], "measured": e["status"] == "measured",
           "reason": e.get("reason") or ""}
    if not row["measured"]:
        return row
    frac, sizes = e["roofline_fraction"], e["sizes"]
    span = f"2^{int(math.log2(sizes[0]['n']))}..2^{int(math.log2(sizes[-1]['n']))}"
    row.update(
        overhead_us=f"{e['overhead_ns'] / 1e3:.2f}",
        rate=rate_text(e["rate_per_s"], e["unit"]),
        largest_rate=rate_text(e["largest_rate_per_s"], e["unit"]),
        fraction="-" if frac is None else f"{frac:.0%}",
        fit_rms="-" if e["fit_rms_rel"] is None else f"{e['fit_rms_rel']:.1%}",
        span=span + (" (truncated)" if e.get("truncated") else ""),
        memory="; ".join(f"{m['tier']} {m['measured_bytes']} B {m['verdict']}"
                         for m in e["memory"]),
        findings=list(e["findings"]),
    )
    return row
