"""ULP histograms and cost plots: drawn by matplotlib's SVG backend, inlined without anything
external, one curve per backend, log count axis, bound marker, ids that never clash."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from judge.reports.plots import FLOOR, clean_svg, step_heights, ulp_histogram_svg


def test_one_step_curve_per_backend_and_a_bound_line():
    svg = ulp_histogram_svg({"numpy": np.full(10, 0.25), "torch-cpu": np.array([0.5, 2.0])},
                            title="exp_f32 · F32", bound_ulp=1.0)
    assert svg.startswith('<svg class="plot hist" role="img"') and svg.endswith("</svg>")
    assert "<title>exp_f32 · F32: error in ulp" in svg
    assert len(re.findall(r'<g id="[\w-]+patch_\d+">\s*<path d="M[^"]*" clip-path', svg)) == 2
    assert "stroke-dasharray" in svg and "bound 1 ulp" in svg
    assert "numpy (n=10)" in svg and "torch-cpu (n=2)" in svg
    assert "count (log)" in svg and ">1e1<" in svg


def test_text_stays_text_and_tick_labels_avoid_mathtext():
    svg = ulp_histogram_svg({"a": np.array([0.1] * 1000 + [0.5])}, title="t")
    assert "<text" in svg and "font-family" in svg  # svg.fonttype none: no glyph paths
    assert ">1e3<" in svg and "mathdefault" not in svg and "10^" not in svg


def test_an_empty_bin_sits_on_the_floor_and_a_single_outlier_above_it():
    heights = step_heights(np.array([1000, 10, 1, 0]))
    assert list(heights[:3]) == [1000, 10, 1] and heights[3] == FLOOR < 1


def test_non_finite_errors_are_dropped_and_empty_input_still_draws():
    svg = ulp_histogram_svg({"a": np.array([np.inf, np.nan, 0.5])}, title="t")
    assert "a (n=1)" in svg
    empty = ulp_histogram_svg({"a": np.array([])}, title="<t&>")
    assert "&lt;t&amp;&gt;" in empty and "<script" not in empty and "a (n=0)" in empty


def test_svg_is_an_inline_element_with_nothing_external():
    svg = ulp_histogram_svg({"a": np.arange(5.0)}, title="t", bound_ulp=2)
    assert not re.search(r"https?:|<\?xml|<!DOCTYPE|<metadata|xmlns|<style", svg)
    refs = re.findall(r'(?:href="|url\()#([\w-]+)', svg)
    ids = set(re.findall(r' id="([\w-]+)"', svg))
    assert refs and set(refs) <= ids, "every in-plot reference points at an id of the plot"


def test_two_plots_never_share_an_id():
    a = ulp_histogram_svg({"a": np.arange(5.0)}, title="one")
    b = ulp_histogram_svg({"a": np.arange(5.0)}, title="two")
    ids_a, ids_b = (set(re.findall(r' id="([\w-]+)"', s)) for s in (a, b))
    assert ids_a and ids_b and not ids_a & ids_b


def test_clean_svg_prefixes_ids_and_references_alike():
    raw = ('<?xml version="1.0"?>\n<!DOCTYPE svg>\n<svg xmlns="http://www.w3.org/2000/svg" '
           'width="1pt"><metadata><x/></metadata><defs><path id="m1"/></defs>'
           '<use xlink:href="#m1"/><g clip-path="url(#c1)" id="c1"/></svg>')
    out = clean_svg(raw, css_class="plot", title="t")
    prefix = re.search(r'id="(p[0-9a-f]{10}-)m1"', out).group(1)
    assert f'xlink:href="#{prefix}m1"' in out and f"url(#{prefix}c1)" in out
    assert out.startswith('<svg class="plot" role="img" width="1pt"><title>t</title>')


@pytest.mark.parametrize("top", [3.0, 1e20, 1.2e308, 1.7976931348623157e308, 4e-3])
def test_any_finite_error_range_draws(top):
    svg = ulp_histogram_svg({"a": np.array([0.0, top / 2, top])}, title="t", bound_ulp=1e25)
    assert "a (n=3)" in svg and "nan" not in svg.lower() and "inf" not in svg.lower()


def test_matplotlib_is_imported_by_the_first_plot_not_before():
    code = ("import sys, judge.reports, judge.reports.html, judge.reports.cost, "
            "judge.reports.plots; assert 'matplotlib' not in sys.modules, 'imported early'; "
            "import numpy as np; judge.reports.plots.ulp_histogram_svg({'a': np.ones(3)}, "
            "title='t'); assert 'matplotlib' in sys.modules; "
            "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot switches global state'")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
