"""Op params reach the values where family bugs live: integer params draw the boundaries where a
narrowed type wraps, fills draw special values as often as array elements hold them."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from numerics.values import int_param, int_param_edges, param_bits


def _draws(strategy, n: int = 300) -> list:
    """n draws, each beside other choices (as in a case): Hypothesis never repeats an example,
    so a strategy drawn alone would run out of its small branches."""
    seen = []

    @settings(max_examples=n, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(strategy, st.integers(0, 2**40))
    def collect(v, _):
        seen.append(v)

    collect()
    return seen


def test_the_edges_of_an_i64_param_that_counts_along_an_axis():
    edges = set(int_param_edges("i64", axis=3))
    assert {2**31, -(2**31) - 1, 2**32, -(2**32), 2**63 - 1, -(2**63)} <= edges
    assert {2**31 + 1, 2**32 + 2, -(2**32) - 2} <= edges  # multiples of 3 at the boundaries
    assert all(-(2**63) <= e < 2**63 for e in edges)


def test_an_i32_param_keeps_to_its_kind():
    edges = int_param_edges("i32")
    assert {2**31 - 1, -(2**31)} <= set(edges) and all(-(2**31) <= e < 2**31 for e in edges)
    assert int_param_edges("f64") == ()


def test_a_shift_beyond_32_bits_is_drawn_often():
    shifts = _draws(int_param("i64", st.integers(-7, 7), axis=5))
    beyond = [s for s in shifts if not -(2**31) <= s < 2**31]
    assert len(beyond) >= 0.2 * len(shifts)  # (at main: 3 roll cases in 240)


def test_fills_are_special_as_often_as_array_elements():
    fills = np.array(_draws(param_bits("F64"), 400), dtype=np.uint64)
    negative_zero = (fills == np.uint64(1 << 63)).mean()
    nan = ((fills & np.uint64((1 << 63) - 1)) > np.uint64(0x7FF0 << 48)).mean()
    assert negative_zero >= 0.05 and nan >= 0.15, (negative_zero, nan)
