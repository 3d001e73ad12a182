"""Audit outputs (SPEC §9): result tables, summary.md, report.html and recorded cases.

``write_audit(run, out_dir)`` writes them all and returns {name: path}. Heavy imports (pandas)
happen inside the writers, never at import time. Each file is written beside its place and
renamed into it, so a run stopped while writing (a second Ctrl-C, a kill) leaves every output
either as it was or whole, never cut short.
"""

from __future__ import annotations

import os
from collections.abc import Callable
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
    atomic_write(paths["results.parquet"], lambda p: tables.write_parquet(run.rows, p))
    atomic_write(paths["results.csv"], lambda p: tables.write_csv(run.rows, p))
    atomic_write(paths["results.json"], lambda p: tables.write_json(run, p))
    atomic_write(paths["summary.md"], lambda p: p.write_text(summary.summary_markdown(run)))
    paths["cases"].mkdir(exist_ok=True)
    for record in run.cases:
        save_case(record, paths["cases"])
    atomic_write(paths["samples.npz"], lambda p: tables.write_samples(run.ulp_samples, p))
    from judge.reports.cost import load_measured
    from judge.reports.f32_sweeps import FILE, load_sweeps

    cost = load_measured(out / "measured-cost.json")  # written by ``judge measure``, if it ran
    sweeps = load_sweeps(out / FILE)  # written by ``judge sweep --dtype F32``, if it ran
    page = html.render_report(run, repro=repro_generator(), cost=cost, sweeps=sweeps)
    atomic_write(paths["report.html"], lambda p: p.write_text(page))
    return paths


def atomic_write(path: Path, write: Callable[[Path], object]) -> Path:
    """``write(temporary path)``, flushed to disk, then renamed to ``path`` (a rename within a
    folder is atomic: readers see the old file or the new one, whole)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        write(tmp)
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def save_case(record, folder: Path) -> Path:
    """A failing case as ``folder/<case id>.npz`` (the file ``CaseRecord.save`` writes), atomically."""
    folder.mkdir(parents=True, exist_ok=True)
    return atomic_write(folder / f"{record.case_id}.npz", lambda p: p.write_bytes(record.to_bytes()))


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
