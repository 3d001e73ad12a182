"""Audit outputs (SPEC §9): result tables, summary.md, report.html and recorded cases.

``write_audit(run, out_dir)`` writes them all and returns {name: path}. Heavy imports (pandas)
happen inside the writers, never at import time.
"""

from __future__ import annotations

from pathlib import Path

from judge.results import AuditRun

OUTPUT_NAMES = ("parquet", "csv", "json", "summary", "html", "cases")


def write_audit(run: AuditRun, out_dir: str | Path) -> dict[str, Path]:
    """Write every audit output of ``run`` under ``out_dir``; return {name: path}."""
    from judge.reports import html, summary, tables

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "parquet": tables.write_parquet(run.rows, out / "results.parquet"),
        "csv": tables.write_csv(run.rows, out / "results.csv"),
        "json": tables.write_json(run, out / "results.json"),
    }
    paths["summary"] = out / "summary.md"
    paths["summary"].write_text(summary.summary_markdown(run))
    cases_dir = out / "cases"
    cases_dir.mkdir(exist_ok=True)
    for record in run.cases:
        record.save(cases_dir)
    paths["cases"] = cases_dir
    paths["html"] = out / "report.html"
    paths["html"].write_text(html.render_report(run, repro=repro_generator()))
    return paths


def repro_generator():
    """``judge.repro.repro_script`` if it can be imported, else a function that says why not."""
    try:
        from judge.repro import repro_script
    except ImportError as exc:
        reason = f"judge.repro cannot be imported ({exc})"

        def unavailable(record) -> str:
            raise RuntimeError(reason)

        return unavailable
    return repro_script
