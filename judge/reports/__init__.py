"""Audit outputs (SPEC §9): result tables, summary.md, report.html and recorded cases.

``write_audit(run, out_dir)`` writes them all and returns {name: path}. Heavy imports (pandas)
happen inside the writers, never at import time.
"""

from __future__ import annotations

from pathlib import Path

from judge.results import AuditRun

OUTPUT_NAMES = ("results.parquet", "results.csv", "results.json", "summary.md", "cases",
                "samples.npz", "report.html")


def write_audit(run: AuditRun, out_dir: str | Path) -> dict[str, Path]:
    """Write every audit output of ``run`` under ``out_dir``; return {file name: path}."""
    from judge.reports import html, summary, tables

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {name: out / name for name in OUTPUT_NAMES}
    tables.write_parquet(run.rows, paths["results.parquet"])
    tables.write_csv(run.rows, paths["results.csv"])
    tables.write_json(run, paths["results.json"])
    paths["summary.md"].write_text(summary.summary_markdown(run))
    paths["cases"].mkdir(exist_ok=True)
    for record in run.cases:
        record.save(paths["cases"])
    tables.write_samples(run.ulp_samples, paths["samples.npz"])
    from judge.reports.cost import load_measured
    from judge.reports.f32_sweeps import FILE, load_sweeps

    cost = load_measured(out / "measured-cost.json")  # written by ``judge measure``, if it ran
    sweeps = load_sweeps(out / FILE)  # written by ``judge sweep --dtype F32``, if it ran
    paths["report.html"].write_text(html.render_report(run, repro=repro_generator(), cost=cost,
                                                       sweeps=sweeps))
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
