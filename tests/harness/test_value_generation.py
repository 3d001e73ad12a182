"""The value generator's power: what share of generated arrays hold the values kernels get wrong.

A generator change that makes a bug class rare shows here as a number below its floor (the
catch-rate benchmark measures the same over whole searches). Drawn with a fixed seed, so each
share is the same on every run.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from numerics.values import uniform, value_array

RUNS = dict(max_examples=1000, deadline=None, database=None, phases=[Phase.generate],
            suppress_health_check=list(HealthCheck))


def _shares(dtype: str) -> dict[str, float]:
    seen = {"nan": 0, "inf": 0, "neg_zero": 0, "subnormal": 0, "ties": 0, "finite_spread": 0}
    total = [0]

    @settings(**RUNS)
    @given(st.integers(2, 24).flatmap(lambda n: value_array(dtype, (n,))))
    def collect(a):
        x = a.astype(np.float64)
        bits = a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16)
        total[0] += 1
        seen["nan"] += bool(np.isnan(x).any())
        seen["inf"] += bool(np.isinf(x).any())
        seen["neg_zero"] += bool(((x == 0) & np.signbit(x)).any())
        seen["subnormal"] += bool(((x != 0) & (np.abs(x) < np.finfo(a.dtype).tiny)).any())
        seen["ties"] += len(np.unique(bits)) < len(bits)
        finite = np.abs(x[np.isfinite(x) & (x != 0)])
        seen["finite_spread"] += bool(finite.size >= 2 and finite.max() / finite.min() > 2)

    with np.errstate(invalid="ignore"):
        seed(0)(collect)()
    return {k: v / total[0] for k, v in seen.items()}


@pytest.mark.parametrize("dtype", ["F32", "F16"])
def test_special_values_are_common(dtype):
    shares = _shares(dtype)
    floors = {"nan": 0.3, "inf": 0.3, "neg_zero": 0.15, "subnormal": 0.3, "ties": 0.4, "finite_spread": 0.3}
    low = {k: round(v, 3) for k, v in shares.items() if v < floors[k]}
    assert not low, f"shares below their floors {floors}: {low}"


def test_packed_choices_are_uniform():
    """Hypothesis draws a bounded integer log-scaled beyond 256 values: a packed choice drawn
    that way would leave its high part (the overwrite count, the mixed sources) almost always
    zero. ``uniform`` reaches every part of its range alike."""
    values = []

    @settings(**RUNS)
    @given(st.integers(0, 3).flatmap(lambda _: uniform(100_000)))
    def collect(v):
        values.append(v)

    seed(0)(collect)()
    counts = np.histogram(values, bins=5, range=(0, 100_000))[0] / len(values)
    assert counts.min() > 0.12, f"fifths of the range drawn {counts.round(3)}"
