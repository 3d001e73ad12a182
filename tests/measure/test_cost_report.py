"""The cost section of report.html: present when measured-cost.json is, drawn as inline SVG,
and rendered by headless Chromium without console errors (like the rest of the report)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from measure_testing import KnownCost

from judge.measure.output import write_measured_cost
from judge.measure.run import MeasureOptions, measure
from judge.measure.timing import TimingPolicy
from judge.reports import write_audit
from judge.results import AuditRun

CHROMIUM = Path("/usr/bin/chromium")
CONSOLE_LINE = re.compile(r":CONSOLE[:(]|Uncaught")


@pytest.fixture(scope="module")
def measured_run(tmp_path_factory):
    from measure_testing import contract_text, load_one

    folder = tmp_path_factory.mktemp("contract")
    (folder / "c.fkc.md").write_text(contract_text(dtypes="[F32, F64]"))
    contract = load_one(folder / "c.fkc.md")
    policy = TimingPolicy(warmup_ns=0, min_reps=5, max_reps=5, batch=5)
    backends = [KnownCost(200_000, 100, via_timed=True, name="known-a"),
                KnownCost(300_000, 50, via_timed=True, name="known-b")]
    return measure([contract], backends, MeasureOptions(log2=(4, 10), item_budget_s=5,
                                                        policy=policy))


def audit_with_cost(out: Path, measured_run) -> Path:
    write_measured_cost(measured_run, out)
    run = AuditRun(rows=[], cases=[], ulp_samples={}, meta={"profile": "ci"})
    return write_audit(run, out)["report.html"]


def test_report_has_the_cost_section_when_measured(tmp_path, measured_run):
    page = audit_with_cost(tmp_path / "audit", measured_run).read_text()
    section = page[page.index('<section id="cost">'):]
    assert "<h2>Measured cost</h2>" in section
    # a roofline per backend, then time against n for the one kernel
    assert section.count('<svg class="cost-plot"') == 3
    assert section.count("<title>roofline: known-") == 2 and "synthetic_neg" in section
    assert section.count("<tr><td>synthetic_neg</td>") == 4  # 2 backends × 2 dtypes


def test_report_has_no_cost_section_without_a_measurement(tmp_path):
    run = AuditRun(rows=[], cases=[], ulp_samples={}, meta={})
    page = write_audit(run, tmp_path / "audit")["report.html"].read_text()
    assert 'id="cost"' not in page and "cost-plot" not in page


def test_cost_section_renders_in_chromium(tmp_path, measured_run):
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} is not installed; the browser check of the cost section did "
                    "not run")
    page = audit_with_cost(tmp_path / "audit", measured_run)
    proc = subprocess.run(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", page.resolve().as_uri()],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert [ln for ln in proc.stderr.splitlines() if CONSOLE_LINE.search(ln)] == []
    dom = proc.stdout
    assert '<section id="cost">' in dom and dom.count('<svg class="cost-plot"') == 3
    assert dom.count("<circle") >= 2 * 2 * 7  # every measured size is a point
