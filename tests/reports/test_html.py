"""report.html: one self-contained page with every section the audit promises."""

from __future__ import annotations

import re

import pytest

from judge.reports.html import render_report


@pytest.fixture
def page(audit_run) -> str:
    return render_report(audit_run, repro=lambda rec: f"# script for {rec.case_id}\nprint(1)")


def test_page_is_self_contained(page):
    assert not re.search(r"https?:", page), "report.html must not reference the network"
    assert "<script" not in page and "<link" not in page and "<iframe" not in page
    assert not re.search(r"""\b(src|href)=["'](?!#)""", page), "only in-page links allowed"
    assert "<style>" in page


def test_sections_are_present(page):
    for anchor in ("scoreboard", "unavailable", "environment", "heatmap", "histograms",
                   "determinism", "invariance", "fast-paths", "special-values", "failing", "cases"):
        assert f'<section id="{anchor}">' in page
    assert '<table class="scoreboard">' in page
    assert "cupy is not installed" in page


def test_environment_shows_each_fingerprint_and_the_entries_not_applicable(page):
    env = page.split('<section id="environment">')[1].split("</section>")[0]
    assert "<th>numpy</th><th>torch-cpu</th>" in env
    assert "<td><code>cpu</code></td><td>AVX512_ICL</td><td>AVX2</td>" in env
    assert "Not applicable here (1)" in env and "onednn_isa avx512_core_bf16" in env


def test_heatmap_shows_worst_verdict_and_worst_ulp(page):
    heat = page[page.index('<section id="heatmap">'):page.index('<section id="histograms">')]
    cell = re.search(r'<code>exp_f32</code></td><td title="[^"]*">Cpu</td>(.*?)</tr>',
                     heat).group(1)
    numpy_cell, torch_cell = re.findall(r'<td class="cell v-(\w+)"[^>]*>([^<]*)</td>', cell)
    assert numpy_cell == ("pass", "1") and torch_cell == ("fail", "3")


def test_histograms_per_kernel_and_dtype(page):
    hist = page[page.index('<section id="histograms">'):page.index('<section id="determinism">')]
    assert hist.count('<svg class="plot hist"') == 2  # exp_f32 F32 and sum_reduce_cpu BF16
    assert "exp_f32 · F32 · Cpu" in hist and "sum_reduce_cpu · BF16 · Cpu" in hist
    # relu's samples are all exactly 0 ulp: listed, not plotted
    assert "1 kernel/dtype pairs with every sample at 0 ulp" in hist
    assert "<code>relu_f32 F32 (Cpu)</code>" in hist


def test_same_kernel_name_on_two_devices_stays_apart(audit_run, row):
    import numpy as np

    audit_run.rows.append(row("exp_f32", "kompute", contract_backend="Vulkan", device="vulkan",
                              file="suites/fuel/vulkan.fkc.md", ulp_max=7.0, verdict="fail"))
    audit_run.ulp_samples[("exp_f32", "kompute", "F32")] = np.array([6.5, 7.0])
    page = render_report(audit_run)
    heat = page[page.index('<section id="heatmap">'):page.index('<section id="histograms">')]
    assert heat.count("<code>exp_f32</code>") == 2
    vulkan = re.search(r'<code>exp_f32</code></td><td title="suites/fuel/vulkan.fkc.md">Vulkan'
                       r"</td>(.*?)</tr>", heat).group(1)
    assert re.findall(r'class="cell v-(\w+)"', vulkan) == ["fail", "none", "none"]  # kompute first
    assert "exp_f32 · F32 · Vulkan" in page and "exp_f32 · F32 · Cpu" in page


def test_a_row_held_to_a_derived_bound_shows_the_share_used_and_is_hatched_if_unaudited(page):
    """Its ULP count (here a saturated 2^63) says nothing: the share of the bound decided it."""
    heat = page[page.index('<section id="heatmap">'):page.index('<section id="histograms">')]
    line = re.search(r"<code>sum_reduce_cpu</code>.*?</tr>", heat, flags=re.S).group(0)
    cells = re.findall(r'<td class="cell v-(\w+)( unaudited)?"[^>]*>([^<]*)</td>', line)
    assert cells == [("pass", " unaudited", "25%"), ("fail", " unaudited", "50%")]
    assert "25% of the derived reduction bound used (ulp_max 9.22337e+18)" in line  # the tip
    assert "held to the derived bound only" in heat
    exp = re.search(r"<code>exp_f32</code>.*?</tr>", heat, flags=re.S).group(0)
    assert "unaudited" not in exp  # audited, or not said: no hatching


def test_spread_invariance_and_fast_path_sections(page):
    det = page[page.index('<section id="determinism">'):page.index('<section id="invariance">')]
    assert "Spread between repeats" in det and '<td class="num">1</td><td class="num">3</td>' in det
    inv = page[page.index('<section id="invariance">'):page.index('<section id="fast-paths">')]
    assert "1 of 2" in inv and "varies: row 1 of 4 computed in a larger batch (case c-1)" in inv
    assert inv.index("varies:") < inv.index("invariant (10 cases)")  # what varies comes first
    fast = page[page.index('<section id="fast-paths">'):page.index('<section id="special-values">')]
    assert "sum_reduce_cpu [numpy BF16]: no case took any_input_strided" in fast
    assert "torch-cpu BF16]: no case" not in fast


def test_determinism_and_special_value_sections_list_their_rows(page):
    det = page[page.index('<section id="determinism">'):page.index('<section id="invariance')]
    assert "1 rows returned different bits" in det and "sum_reduce_cpu" in det
    special = page[page.index('<section id="special-values">'):page.index('<section id="failing')]
    assert "relu_f32" in special and "argmax_cpu" in special and "exp_f32" not in special


def test_failing_cases_carry_their_repro_script(page, audit_run):
    case_id = audit_run.cases[0].case_id
    assert f'<details id="case-{case_id}">' in page
    assert f"# script for {case_id}" in page
    assert f'<a href="#case-{case_id}">' in page


def test_a_repro_that_cannot_be_generated_says_why(audit_run):
    def broken(record):
        raise RuntimeError("no generator here")

    page = render_report(audit_run, repro=broken)
    assert "repro script could not be generated: RuntimeError: no generator here" in page


def test_clean_run_says_so(audit_run):
    audit_run.rows = [r for r in audit_run.rows if r.verdict == "pass"
                      and not r.nondeterministic_runs]
    audit_run.cases = []
    page = render_report(audit_run)
    assert "No run-to-run differences" in page and "No NaN, ±inf or signed-zero" in page
    assert "No failing cases were recorded." in page


def test_text_is_escaped(audit_run):
    audit_run.rows[1].reason = "<script>alert(1)</script>"
    page = render_report(audit_run)
    assert "<script>" not in page and "&lt;script&gt;" in page


def test_a_plot_that_cannot_be_drawn_says_so_and_the_rest_renders(audit_run, monkeypatch):
    from markupsafe import Markup

    import judge.reports.html as html

    def broken(samples, *, title, bound_ulp=None):
        if title.startswith("exp_f32"):
            raise ValueError("bad range")
        return Markup('<svg class="plot hist"></svg>')

    monkeypatch.setattr(html, "ulp_histogram_svg", broken)
    page = render_report(audit_run)
    assert "The histogram of exp_f32 · F32 · Cpu could not be drawn: ValueError: bad range" in page
    assert page.count('<svg class="plot hist"') == 1


def test_without_matplotlib_each_plot_says_why_and_the_page_still_renders(audit_run,
                                                                          monkeypatch):
    import sys

    from report_inputs import measured_cost_doc

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if it were not installed
    page = render_report(audit_run, cost=measured_cost_doc())
    # two histograms, a roofline per backend and the kernel's time plot
    assert page.count("could not be drawn: ModuleNotFoundError") == 2 + 2 + 1
    assert "The roofline of known-a could not be drawn" in page
    assert "install the audit extra: fuel-judge[audit]" in page
    assert "<svg" not in page and '<section id="cost">' in page
