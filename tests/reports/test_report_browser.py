"""report.html in a real browser: headless Chromium, networking off, loads it with no console
errors and shows every section and every plot, the cost section and the F32 sweep table
included when their files are there. The same look finds what a broken page or a broken
template gets wrong: a missing section, an external URL, a missing asset, a hidden plot.
"""

from __future__ import annotations

import json
import shutil

import pytest
from report_browser import browse, look, problems
from report_inputs import f32_sweep_records, measured_cost_doc

from judge.reports import assets, write_audit
from judge.reports.f32_sweeps import FILE, write_sweeps

CORE = ["scoreboard", "unavailable", "environment", "heatmap", "histograms", "determinism", "invariance",
        "fast-paths", "special-values",
        "failing", "cases"]


def full_audit(out):
    """The fixture run's outputs with measured-cost.json and f32-sweeps.json beside them."""
    out.mkdir(parents=True)
    doc = measured_cost_doc()
    from judge.measure.schema import validate

    validate(doc)  # the same file judge measure writes
    (out / "measured-cost.json").write_text(json.dumps(doc))
    write_sweeps(f32_sweep_records(), out / FILE)
    return doc


def test_the_console_check_catches_script_errors(chromium, tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<p>x</p><script>console.error("c1"); throw new Error("u1")</script>')
    _, errors = browse(chromium, page, tmp_path / "profile", "--dump-dom")
    assert any('"c1"' in e for e in errors) and any("Uncaught Error: u1" in e for e in errors)


def test_every_section_and_plot_shows_offline(chromium, audit_run, tmp_path):
    full_audit(tmp_path / "audit")
    page = write_audit(audit_run, tmp_path / "audit")["report.html"]
    seen = look(chromium, page, tmp_path)
    # histograms: exp_f32 F32 and sum_reduce_cpu BF16; cost: a roofline per backend (2) and
    # time against n for the one kernel
    assert problems(seen, sections=[*CORE, "cost", "f32-sweeps"],
                    plots={"histograms": 2, "cost": 3}) == []
    assert '<table class="f32-sweeps">' in seen.dom and "torch-cuda" in seen.dom
    assert "not measured: adapter raised RuntimeError: out of memory" in seen.dom
    assert "exp_f32-torch-cpu-F32" in seen.dom


def test_the_look_catches_what_a_broken_page_gets_wrong(chromium, tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><head><link rel="stylesheet" href="https://cdn.example.com/a.css">'
        '<style>.x { background: url(missing.png) }</style></head><body>'
        '<section id="scoreboard"><h2>Scoreboard</h2><img src="http://10.1.2.3/p.png"></section>'
        '<section id="cost" style="display: none"><h2>Cost</h2>'
        '<svg width="100" height="50"><path d="M0 0L9 9"/><text>t</text></svg></section>'
        '<section id="histograms"><h2>h</h2><svg width="0" height="0" id="d"></svg>'
        '<p id="d">twice</p></section></body></html>')
    found = "\n".join(problems(look(chromium, page, tmp_path),
                               sections=["scoreboard", "cost", "histograms", "failing"],
                               plots={"cost": 1, "histograms": 1}))
    assert "section 'failing' is missing" in found
    assert "section 'cost' is not shown" in found
    assert "a plot in 'histograms' is not drawn" in found and "a plot in 'cost' is not drawn" in found
    assert "the page fetched https://cdn.example.com/a.css" in found
    assert "LINK href=https://cdn.example.com/a.css" in found
    assert "IMG src=http://10.1.2.3/p.png" in found and "broken img" in found
    assert "url(\"missing.png\")" in found
    assert "duplicate id 'd'" in found


@pytest.fixture
def template_copy(tmp_path, monkeypatch):
    """A copy of reports/ that the report is rendered from, to be broken by the test."""
    folder = tmp_path / "reports-copy"
    shutil.copytree(assets.checkout_dir(), folder)
    assets.environment.cache_clear()
    monkeypatch.setattr(assets, "checkout_dir", lambda: folder)
    yield folder
    assets.environment.cache_clear()


def test_a_template_that_drops_a_section_or_reaches_out_is_caught(chromium, audit_run, tmp_path,
                                                                  template_copy):
    report = template_copy / "templates" / "report.html.j2"
    text = report.read_text()
    cost = '{% call section("cost", "Measured cost") %}'
    assert cost in text
    report.write_text(text.replace(cost, '<img src="https://cdn.example.com/logo.png">' + cost)
                      .replace('{% include "sections/cost.html.j2" %}', ""))
    full_audit(tmp_path / "audit")
    page = write_audit(audit_run, tmp_path / "audit")["report.html"]
    found = problems(look(chromium, page, tmp_path), sections=[*CORE, "cost", "f32-sweeps"],
                     plots={"histograms": 2, "cost": 3})
    assert "section 'cost' shows 0 plots, expected 3" in found
    assert "the page fetched https://cdn.example.com/logo.png" in found


def test_a_template_that_inlines_a_missing_asset_fails_to_render(audit_run, tmp_path,
                                                                 template_copy):
    (template_copy / "static" / "report.css").unlink()
    with pytest.raises(assets.ReportAssetsMissing, match="inlines 'report.css'"):
        write_audit(audit_run, tmp_path / "audit")
