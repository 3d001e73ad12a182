"""report.html: one self-contained page (inline CSS, inline SVG, no scripts, no network).

The markup lives in ``reports/templates`` (``report.html.j2`` and one template per section);
this module turns an ``AuditRun`` into what they show. Sections: run header, scoreboard,
unavailable backends, kernel × backend heatmap, ULP histograms per kernel and dtype,
determinism and the spread between repeats, batch invariance, fast paths, special values,
failing rows, failing cases with their repro scripts, and, when their files are there, the
measured cost and the exhaustive F32 sweeps.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from judge.reports.plots import drawn, ulp_histogram_svg
from judge.reports.summary import FAILING, format_ulp, incomplete_text, scoreboard
from judge.results import VERDICTS, AuditRun, ResultRow

# Worst first: the verdict a heatmap cell shows when a kernel has several dtypes.
SEVERITY = {"error": 4, "fail": 3, "xfail": 2, "pass": 1, "unsupported": 0}
META_KEYS = ("started_at", "profile", "seed", "judge_version", "platform", "backends", "devices")


def render_report(run: AuditRun, *, repro: Callable[[object], str] | None = None,
                  cost: dict | None = None, sweeps: list | None = None) -> str:
    """The whole page. ``repro(record)`` returns a case's standalone script (or raises);
    ``cost`` is a measured-cost.json document, shown as the cost section (SPEC §12);
    ``sweeps`` the records of f32-sweeps.json, shown as the F32 sweep table."""
    from judge.reports.assets import render

    rows = run.rows
    context = {
        "verdicts": list(VERDICTS),
        "meta_items": meta_items(run.meta),
        "incomplete": incomplete_text(run.meta["incomplete"]).replace("`", "")
        if run.meta.get("incomplete") else None,
        "scoreboard": scoreboard(rows),
        "unavailable": {str(k): str(v) for k, v in (run.meta.get("unavailable") or {}).items()},
        "environment": environment(run.meta),
        "heatmap": heatmap(rows),
        "histograms": histograms(run),
        "determinism": {"rows": [r for r in rows if r.nondeterministic_runs],
                        "spread": [r for r in rows if r.repeat_spread_elements],
                        "measured": sum(r.repeat_spread_ulp is not None for r in rows),
                        "total": len(rows)},
        "invariance": invariance(rows),
        "fast_paths": fast_paths(rows),
        "special_values": {"rows": [r for r in rows if r.nan_mismatch or r.inf_mismatch
                                    or r.signed_zero_mismatch], "total": len(rows)},
        "failing": sorted((r for r in rows if r.verdict in FAILING),
                          key=lambda r: (r.kernel, r.backend, r.dtype)),
        "cases": [case_view(record, repro) for record in run.cases if record.check],  # failing ones
        "cost": None,
        "sweeps": [],
    }
    if cost is not None:
        from judge.reports.cost import cost_view

        context["cost"] = cost_view(cost)
    if sweeps:
        from judge.reports.f32_sweeps import sweeps_view

        context["sweeps"] = sweeps_view(sweeps)
    return render("report.html.j2", **context)


def meta_items(meta: dict) -> list[tuple[str, str]]:
    """The run header: (key, plain text) for each run fact that is set."""
    return [(k, _plain(meta[k])) for k in META_KEYS if meta.get(k) not in (None, "", [], {})]


def _plain(value) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value))
    return str(value)


def environment(meta: dict) -> dict:
    """The fingerprint table (a column per backend) and the entries not applicable here."""
    values = {str(k): dict(v) for k, v in (meta.get("fingerprints") or {}).items()}
    keys = sorted({k for v in values.values() for k in v})
    return {"backends": sorted(values), "facts": keys, "by_backend": values,
            "not_applicable": list(meta.get("not_applicable") or [])}


def _contract_of(row: ResultRow) -> tuple[str, str, str]:
    """Which contract a row judged: kernel names repeat across files (one per device)."""
    return (row.contract_backend, row.kernel, row.file)


def heatmap(rows: list[ResultRow]) -> dict:
    """{"backends", "lines"}: a line per contract, a cell per backend (None: not run there)."""
    backends = sorted({r.backend for r in rows})
    cells: dict[tuple, list[ResultRow]] = {}
    for r in rows:
        cells.setdefault((_contract_of(r), r.backend), []).append(r)
    lines = []
    for contract in sorted({_contract_of(r) for r in rows}):
        device, kernel, file = contract
        lines.append({"kernel": kernel, "device": device, "file": file,
                      "cells": [_cell(cells.get((contract, b))) for b in backends]})
    return {"backends": backends, "lines": lines}


def decided_by(row: ResultRow) -> str:
    """Which measure decided the row's verdict: "ulp" (exact, or a declared max_ulp) or
    "share" (a derived bound, or only max_relative / max_absolute declared: the share of the
    bound used; a ULP count there may be a tiny result's, or saturated, and says nothing)."""
    if row.derived_bound in ("reduction", "sanity"):
        return "share"
    if row.derived_bound is None and row.bound_ulp is None and row.bound_used is not None:
        return "share"
    return "ulp"


def _cell(group: list[ResultRow] | None) -> dict | None:
    """The worst verdict of a contract on a backend over its dtypes, and the worst value of the
    measure that decided it (a ULP count, or the share of the bound used, as a percentage);
    hatched where the contract is not audited."""
    if not group:
        return None
    worst = max(group, key=lambda r: SEVERITY.get(r.verdict, 5)).verdict
    judged = [r for r in group if r.verdict not in ("error", "unsupported")]
    share = any(decided_by(r) == "share" for r in judged)
    values = [v for v in (r.bound_used if share else r.ulp_max for r in judged) if v is not None and v == v]
    tip = "; ".join(f"{r.dtype}: {r.verdict}, {_measure_text(r)}" + (f" ({r.reason})" if r.reason else "")
                    for r in group)
    if not values or worst in ("error", "unsupported"):
        text = worst
    else:
        text = _share(max(values)) if share else format_ulp(max(values))
    unaudited = any(r.audited is False for r in group)
    if unaudited:
        tip += "; audited: false (held to the derived bound only, or to a bound not yet reviewed)"
    return {"verdict": worst, "text": text, "tip": tip, "unaudited": unaudited}


def _share(value: float) -> str:
    """A share of a bound as a percentage, three digits (0.0001%, 48.2%, 100%, 8.39e+06%)."""
    return f"{value * 100:.3g}%"


def _measure_text(r: ResultRow) -> str:
    if decided_by(r) == "share":
        used = _share(r.bound_used) if r.bound_used is not None else "—"
        bound = f"the derived {r.derived_bound} bound" if r.derived_bound else "the declared bound"
        return f"{used} of {bound} used (ulp_max {format_ulp(r.ulp_max)})"
    return f"ulp_max {format_ulp(r.ulp_max)}"


def invariance(rows: list[ResultRow]) -> dict:
    """The batch invariance property of every row it applies to, those that vary first."""
    shown = [r for r in rows if r.batch_invariance]
    shown.sort(key=lambda r: (not r.batch_invariance.startswith("varies"), r.kernel, r.backend, r.dtype))
    return {"rows": shown, "varies": sum(r.batch_invariance.startswith("varies") for r in shown)}


def fast_paths(rows: list[ResultRow]) -> dict:
    """Cases per declared fast path, per row; a path no case took is a warning."""
    lines, warnings = [], []
    for r in rows:
        if not r.fast_path_cases or r.verdict == "unsupported":
            continue
        counts = dict(part.split("=") for part in r.fast_path_cases.split())
        lines.append({"row": r, "counts": counts})
        warnings += [f"{r.kernel} [{r.backend} {r.dtype}]: no case took {path}"
                     for path, n in counts.items() if n == "0"]
    from judge.layouts import FAST_PATHS

    return {"lines": lines, "warnings": warnings, "paths": list(FAST_PATHS)}


def histograms(run: AuditRun) -> dict:
    """{"figures", "exact"}: a plot per (contract, dtype), one curve per backend that ran it;
    pairs whose every sample is 0 ulp are listed instead of drawn."""
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
        figures.append(drawn(f"histogram of {title}", ulp_histogram_svg, samples, title=title,
                             bound_ulp=bounds[key]))
    return {"figures": figures, "exact": exact}


def case_view(record, repro: Callable[[object], str] | None) -> dict:
    """A failing case with its repro script (or why there is none)."""
    if repro is None:
        script = "# repro script unavailable: no script generator was given"
    else:
        try:
            script = repro(record)
        except Exception as exc:  # noqa: BLE001 - one bad case must not sink the report
            script = f"# repro script could not be generated: {type(exc).__name__}: {exc}"
    return {"case_id": record.case_id, "kernel": record.kernel, "backend": record.backend,
            "dtype": record.dtype, "check": record.check or "failed",
            "message": record.message, "script": script}
