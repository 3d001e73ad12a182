"""The least-squares fit of time(n) = overhead_ns + work(n) / rate."""

from __future__ import annotations

import numpy as np
import pytest

from judge.measure.fit import fit_cost

WORK = 2.0 ** np.arange(4, 21)


def test_exact_data_gives_exact_coefficients():
    fit = fit_cost(WORK, 5000 + 0.25 * WORK)
    assert fit.overhead_ns == pytest.approx(5000, rel=1e-9)
    assert fit.ns_per_unit == pytest.approx(0.25, rel=1e-9)
    assert fit.rate == pytest.approx(4e9, rel=1e-9)
    assert fit.rms_rel < 1e-12 and fit.points == len(WORK)


def test_relative_weighting_keeps_a_small_overhead_under_large_times():
    # An unweighted fit lets the largest times swamp a 1 µs overhead; relative residuals do not.
    rng = np.random.default_rng(1)
    times = (1000 + 0.01 * WORK) * (1 + 0.01 * rng.standard_normal(len(WORK)))
    fit = fit_cost(WORK, times)
    assert fit.overhead_ns == pytest.approx(1000, rel=0.05)
    assert fit.ns_per_unit == pytest.approx(0.01, rel=0.05)


def test_coefficients_stay_non_negative():
    fit = fit_cost(WORK, 0.5 * WORK * (1 - 0.2 * (WORK < 100)))  # optimum overhead < 0
    assert fit.overhead_ns == 0.0 and fit.ns_per_unit > 0
    flat = fit_cost(WORK, 3000 - 1e-4 * WORK)  # optimum slope < 0
    assert flat.ns_per_unit == 0.0 and flat.rate == float("inf")
    assert flat.overhead_ns == pytest.approx(3000, rel=0.05)


def test_a_time_that_is_not_linear_in_work_shows_in_the_fit_error():
    assert fit_cost(WORK, 100 + WORK**1.5).rms_rel > 0.3
    assert fit_cost(WORK, 100 + WORK).rms_rel < 1e-9


@pytest.mark.parametrize("work, times, what", [
    ([8.0, 8.0], [1.0, 2.0], "two distinct sizes"),
    ([1.0, 2.0], [1.0, 0.0], "finite and positive"),
    ([1.0, 2.0, 3.0], [1.0, 2.0], "one length"),
])
def test_bad_input_is_refused(work, times, what):
    with pytest.raises(ValueError, match=what):
        fit_cost(work, times)
