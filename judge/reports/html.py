"""report.html: one self-contained page (inline CSS, inline SVG, no scripts, no network).

Sections: run header, scoreboard, unavailable backends, kernel × backend heatmap, ULP
histograms per kernel and dtype, determinism, special values, failing rows, failing cases with
their repro scripts.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import numpy as np

from judge.reports.plots import ulp_histogram_svg
from judge.reports.style import CSS
from judge.reports.summary import FAILING, format_ulp, scoreboard
from judge.results import VERDICTS, AuditRun, ResultRow

# Worst first: the verdict a heatmap cell shows when a kernel has several dtypes.
SEVERITY = {"error": 4, "fail": 3, "xfail": 2, "pass": 1, "unsupported": 0}


def render_report(run: AuditRun, *, repro: Callable[[object], str] | None = None,
                  cost: dict | None = None, sweeps: list | None = None) -> str:
    """The whole page. ``repro(record)`` returns a case's standalone script (or raises);
    ``cost`` is a measured-cost.json document, shown as the cost section (SPEC §12)."""
    meta = run.meta
    body = [
        "<h1>Judge audit report</h1>",
        _meta_line(meta),
        _section("Scoreboard", _scoreboard(run.rows), "scoreboard"),
        _section("Unavailable backends", _unavailable(meta.get("unavailable") or {}),
                 "unavailable"),
        _section("Kernel × backend", _heatmap(run.rows), "heatmap"),
        _section("ULP error histograms", _histograms(run), "histograms"),
        _section("Determinism", _determinism(run.rows), "determinism"),
        _section("Special values", _special_values(run.rows), "special-values"),
        _section("Failing rows", _failing_rows(run.rows), "failing"),
        _section("Failing cases", _cases(run.cases, repro), "cases"),
    ]
    if cost is not None:
        from judge.reports.cost import cost_section

        body.append(_section("Measured cost", cost_section(cost), "cost"))
    if sweeps:
        from judge.reports.f32_sweeps import sweeps_section

        body.append(_section("Exhaustive F32 sweeps", sweeps_section(sweeps), "f32-sweeps"))
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<title>Judge audit report</title>"
        f"<style>{CSS}</style></head><body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _section(title: str, content: str, anchor: str) -> str:
    return f'<section id="{anchor}"><h2>{escape(title)}</h2>\n{content}\n</section>'


def _meta_line(meta: dict) -> str:
    keys = ("started_at", "profile", "seed", "judge_version", "platform", "backends", "devices")
    items = [f"<b>{escape(k)}</b> {escape(_plain(meta[k]))}" for k in keys
             if meta.get(k) not in (None, "", [], {})]
    return f'<p class="meta">{" · ".join(items)}</p>'


def _plain(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def _table(headers: list[str], rows: list[str], *, cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _scoreboard(rows: list[ResultRow]) -> str:
    board = scoreboard(rows)
    if not board:
        return "<p>No rows were judged.</p>"
    lines = []
    for line in board:
        cells = "".join(
            f'<td class="num{" v-" + v if line.counts[v] and v != "pass" else ""}">'
            f"{line.counts[v]}</td>" for v in VERDICTS
        )
        lines.append(f"<tr><td>{escape(line.backend)}</td>{cells}"
                     f'<td class="num">{line.total}</td></tr>')
    totals = "".join(f'<td class="num">{sum(b.counts[v] for b in board)}</td>' for v in VERDICTS)
    lines.append(f"<tr><th>all</th>{totals}<td class=\"num\">{len(rows)}</td></tr>")
    return _table(["backend", *VERDICTS, "total"], lines, cls="scoreboard")


def _unavailable(unavailable: dict) -> str:
    if not unavailable:
        return "<p>None: every registered backend ran.</p>"
    items = "".join(f"<li><code>{escape(str(k))}</code>: {escape(str(v))}</li>"
                    for k, v in sorted(unavailable.items()))
    return f"<ul>{items}</ul>"


def _contract_of(row: ResultRow) -> tuple[str, str, str]:
    """Which contract a row judged: kernel names repeat across files (one per device)."""
    return (row.contract_backend, row.kernel, row.file)


def _heatmap(rows: list[ResultRow]) -> str:
    if not rows:
        return "<p>No rows.</p>"
    backends = sorted({r.backend for r in rows})
    cells: dict[tuple, list[ResultRow]] = {}
    for r in rows:
        cells.setdefault((_contract_of(r), r.backend), []).append(r)
    legend = "".join(f'<span class="v-{v}">{v}</span>' for v in VERDICTS)
    lines = []
    for contract in sorted({_contract_of(r) for r in rows}):
        device, kernel, file = contract
        tds = []
        for b in backends:
            group = cells.get((contract, b))
            if not group:
                tds.append('<td class="cell v-none">·</td>')
                continue
            worst = max(group, key=lambda r: SEVERITY.get(r.verdict, 5)).verdict
            ulps = [r.ulp_max for r in group if r.ulp_max is not None and r.ulp_max == r.ulp_max
                    and r.verdict not in ("error", "unsupported")]
            tip = "; ".join(f"{r.dtype}: {r.verdict}, ulp_max {format_ulp(r.ulp_max)}"
                            + (f" ({r.reason})" if r.reason else "") for r in group)
            text = format_ulp(max(ulps)) if ulps and worst not in ("error", "unsupported") \
                else worst
            tds.append(f'<td class="cell v-{escape(worst)}" title="{escape(tip)}">'
                       f"{escape(text)}</td>")
        lines.append(f"<tr><td><code>{escape(kernel)}</code></td>"
                     f'<td title="{escape(file)}">{escape(device)}</td>{"".join(tds)}</tr>')
    return (f'<p class="legend">Cell colour: worst verdict over the dtypes; text: worst '
            f"ulp_max (integer ULP distance). Hover for each dtype. {legend}</p>"
            + _table(["kernel", "contract", *backends], lines, cls="heatmap"))


def _histograms(run: AuditRun) -> str:
    """One plot per (contract, dtype), one curve per backend that ran it."""
    plots: dict[tuple, dict[str, np.ndarray]] = {}
    bounds: dict[tuple, float | None] = {}
    for r in run.rows:
        values = run.ulp_samples.get((r.kernel, r.backend, r.dtype))
        if values is None:
            continue
        key = (*_contract_of(r), r.dtype)
        plots.setdefault(key, {})[r.backend] = np.asarray(values, dtype=np.float64)
        bounds[key] = r.bound_ulp
    figures, exact = [], []
    for key, samples in sorted(plots.items()):
        device, kernel, _file, dtype = key
        finite = [v[np.isfinite(v)] for v in samples.values()]
        if not any(v.size for v in finite):
            continue
        if all(not v.size or float(np.abs(v).max()) == 0.0 for v in finite):
            exact.append(f"{kernel} {dtype} ({device})")
            continue
        title = f"{kernel} · {dtype} · {device}"
        try:
            svg = ulp_histogram_svg(samples, title=title, bound_ulp=bounds[key])
        except Exception as exc:  # noqa: BLE001 - one bad plot must not cost the whole report
            svg = (f'<p class="bad">The histogram of {escape(title)} could not be drawn: '
                   f"{escape(type(exc).__name__)}: {escape(str(exc))}</p>")
        figures.append(f"<figure>{svg}</figure>")
    if not figures and not exact:
        return "<p>No ULP samples were recorded.</p>"
    out = [f'<div class="hists">{"".join(figures)}</div>'] if figures else []
    if exact:
        out.append(f"<details><summary>{len(exact)} kernel/dtype pairs with every sample at "
                   "0 ulp (no histogram)</summary><p>"
                   + ", ".join(f"<code>{escape(e)}</code>" for e in exact) + "</p></details>")
    return "\n".join(out)


def _determinism(rows: list[ResultRow]) -> str:
    bad = [r for r in rows if r.nondeterministic_runs]
    if not bad:
        return (f'<p class="ok">No run-to-run differences in {len(rows)} rows '
                "(repeat runs are made where the contract promises bitwise results).</p>")
    lines = [f"<tr><td><code>{escape(r.kernel)}</code></td><td>{escape(r.backend)}</td>"
             f"<td>{r.dtype}</td><td class=\"num\">{r.nondeterministic_runs}</td>"
             f'<td class="v-{escape(r.verdict)}">{escape(r.verdict)}</td></tr>' for r in bad]
    return (f'<p class="bad">{len(bad)} rows returned different bits on repeated runs.</p>'
            + _table(["kernel", "backend", "dtype", "nondeterministic runs", "verdict"], lines))


def _special_values(rows: list[ResultRow]) -> str:
    bad = [r for r in rows if r.nan_mismatch or r.inf_mismatch or r.signed_zero_mismatch]
    if not bad:
        return f'<p class="ok">No NaN, ±inf or signed-zero mismatches in {len(rows)} rows.</p>'
    lines = [f"<tr><td><code>{escape(r.kernel)}</code></td><td>{escape(r.backend)}</td>"
             f"<td>{r.dtype}</td><td class=\"num\">{r.nan_mismatch}</td>"
             f'<td class="num">{r.inf_mismatch}</td><td class="num">{r.signed_zero_mismatch}</td>'
             f'<td class="v-{escape(r.verdict)}">{escape(r.verdict)}</td>'
             f"<td>{escape(r.reason)}</td></tr>" for r in bad]
    return (f"<p>{len(bad)} rows with special-value mismatches (a mismatch under an "
            "unspecified rule is reported, not failed).</p>"
            + _table(["kernel", "backend", "dtype", "NaN", "±inf", "signed zero", "verdict",
                      "reason"], lines))


def _failing_rows(rows: list[ResultRow]) -> str:
    bad = sorted((r for r in rows if r.verdict in FAILING),
                 key=lambda r: (r.kernel, r.backend, r.dtype))
    if not bad:
        return '<p class="ok">None: every judged row conforms.</p>'
    lines = []
    for r in bad:
        case = (f'<a href="#case-{escape(r.counterexample)}"><code>{escape(r.counterexample)}'
                "</code></a>" if r.counterexample else "—")
        lines.append(
            f"<tr><td><code>{escape(r.kernel)}</code></td><td>{escape(r.backend)}</td>"
            f'<td>{r.dtype}</td><td class="v-{escape(r.verdict)}">{escape(r.verdict)}</td>'
            f'<td class="num">{format_ulp(r.ulp_max)}</td>'
            f'<td class="num">{format_ulp(r.bound_ulp)}</td>'
            f"<td>{escape(r.reason)}</td><td>{case}</td></tr>"
        )
    return _table(["kernel", "backend", "dtype", "verdict", "ulp_max", "bound_ulp", "reason",
                   "counterexample"], lines)


def _cases(cases: list, repro: Callable[[object], str] | None) -> str:
    if not cases:
        return "<p>No failing cases were recorded.</p>"
    out = []
    for record in cases:
        case_id = record.case_id
        if repro is None:
            script = "# repro script unavailable: no script generator was given"
        else:
            try:
                script = repro(record)
            except Exception as exc:  # noqa: BLE001 - one bad case must not sink the report
                script = f"# repro script could not be generated: {type(exc).__name__}: {exc}"
        out.append(
            f'<details id="case-{escape(case_id)}"><summary><code>{escape(case_id)}</code> — '
            f"{escape(record.kernel)} on {escape(record.backend)} ({escape(record.dtype)}): "
            f"{escape(record.check or 'failed')}</summary>"
            f"<p>{escape(record.message)}</p>"
            f"<p>Replay: <code>judge repro {escape(case_id)}</code></p>"
            f"<pre><code>{escape(script)}</code></pre></details>"
        )
    return "\n".join(out)
