"""The cost section of report.html: present when measured-cost.json is, drawn as inline SVG,
and rendered by headless Chromium without console errors (like the rest of the report)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from measure_testing import KnownCost

from judge.measure.output import write_measured_cost
from judge.measure.run import MeasureOptions, measure
from judge.measure.timing import TimingPolicy
from judge.reports import write_audit
from judge.results import AuditRun


def _report_browser():
    """tests/reports/report_browser.py, the browser look every report test shares."""
    path = Path(__file__).parents[1] / "reports" / "report_browser.py"
    spec = importlib.util.spec_from_file_location("report_browser_for_cost", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


browser = _report_browser()


@pytest.fixture
def chromium():
    return browser.find_chromium()  # skips loudly without the browser, fails under CI


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
    assert section.count('<svg class="plot cost-plot"') == 3
    assert section.count("<title>roofline: known-") == 2 and "synthetic_neg" in section
    assert section.count("<tr><td>synthetic_neg</td>") == 4  # 2 backends × 2 dtypes


def test_report_has_no_cost_section_without_a_measurement(tmp_path):
    run = AuditRun(rows=[], cases=[], ulp_samples={}, meta={})
    page = write_audit(run, tmp_path / "audit")["report.html"].read_text()
    assert 'id="cost"' not in page and "cost-plot" not in page


def test_cost_section_renders_in_chromium(chromium, tmp_path, measured_run):
    page = audit_with_cost(tmp_path / "audit", measured_run)
    seen = browser.look(chromium, page, tmp_path)
    sections = ["scoreboard", "unavailable", "environment", "heatmap", "histograms", "determinism",
                "invariance", "fast-paths", "special-values", "failing", "cases", "cost"]
    assert browser.problems(seen, sections=sections, plots={"cost": 3}) == []
    # every measured size is a marker: 2 backends x 2 dtypes x 7 sizes
    assert sum(p["marks"] for p in seen.plots if "roofline" not in str(p)) >= 2 * 2 * 7
