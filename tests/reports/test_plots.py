"""ULP histograms: one curve per backend, log count axis, bound marker, nothing external."""

from __future__ import annotations

import re

import numpy as np
import pytest

from judge.reports.plots import ulp_histogram_svg


def test_one_step_curve_per_backend_and_a_bound_line():
    svg = ulp_histogram_svg({"numpy": np.full(10, 0.25), "torch-cpu": np.array([0.5, 2.0])},
                            title="exp_f32 · F32", bound_ulp=1.0)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count('<path d="M') == 2
    assert 'stroke-dasharray="4 3"' in svg and "bound 1 ulp" in svg
    assert "numpy (n=10)" in svg and "torch-cpu (n=2)" in svg
    assert "count (log)" in svg and ">1e1<" in svg


def test_counts_are_log_scaled_and_single_outliers_show():
    svg = ulp_histogram_svg({"a": np.array([0.1] * 1000 + [0.5] * 10 + [0.9])}, title="t")
    path = re.search(r'<path d="([^"]+)"', svg).group(1)
    heights = sorted({float(y) for y in re.findall(r",([\d.]+)", path)})
    assert len(heights) == 4  # the axis, and the bins of 1, 10 and 1000 elements
    top, ten, one, axis = heights
    assert one < axis, "a bin of one element must be drawn above the axis"
    # on a log axis 10 sits a third of the way from 1 to 1000
    assert abs((one - ten) / (one - top) - 1 / 3) < 0.01


def test_non_finite_errors_are_dropped_and_empty_input_still_draws():
    svg = ulp_histogram_svg({"a": np.array([np.inf, np.nan, 0.5])}, title="t")
    assert "a (n=1)" in svg
    empty = ulp_histogram_svg({"a": np.array([])}, title="<t&>")
    assert "&lt;t&amp;&gt;" in empty and "<path" not in empty


def test_svg_has_no_ids_or_references():
    svg = ulp_histogram_svg({"a": np.arange(5.0)}, title="t", bound_ulp=2)
    assert " id=" not in svg and "href" not in svg and "http" not in svg


@pytest.mark.parametrize("top", [3.0, 1e20, 1.2e308, 1.7976931348623157e308, 4e-3])
def test_any_finite_error_range_draws(top):
    svg = ulp_histogram_svg({"a": np.array([0.0, top / 2, top])}, title="t", bound_ulp=1e25)
    assert svg.count('<path d="M') == 1 and "nan" not in svg and "inf" not in svg
