"""The checks a measurement makes: roofline fraction, memory against the contract, findings."""

from __future__ import annotations

import numpy as np
import pytest
from measure_testing import KnownCost

from judge.measure.fit import Fit
from judge.measure.memory import MemoryCheck, host_peak_bytes, promised_bytes
from judge.measure.roofline import Roofline
from judge.measure.run import Entry, SizePoint, apply_roofline
from judge.measure.timed import FunctionCall
from judge.measure.timing import SizeSample


def sample(n: int, median_ns: float) -> SizeSample:
    return SizeSample(n, [int(median_ns)] * 3, True)


# copies of 1 MB and 10 MB (2 and 20 MB moved) at 100 GB/s, of 100 MB at 50 GB/s
ROOF = Roofline("known-cost", "numpy.copyto", samples=[
    sample(10**6, 2e4), sample(10**7, 2e5), sample(10**8, 4e6)])


def entry_with_rate(contract, bytes_per_s: float, *, work_share: float = 0.9,
                    moved: float = 8e6) -> Entry:
    entry = Entry(contract, KnownCost(0, 0), "F32", work_name="bytes_moved",
                  work_expr="2 * n * dtype_bytes", unit="B")
    entry.fit = Fit(1000.0, 1e9 / bytes_per_s, 0.01, 0.02, 10, work_share)
    entry.points = [SizePoint(sample(int(moved / 8), moved / bytes_per_s * 1e9), moved, {})]
    return entry


@pytest.mark.parametrize("rate, fraction, finding", [
    (50e9, 0.5, None),
    (150e9, 1.5, "counts more bytes than the kernel can have moved"),
    (10e9, 0.1, "reaches 10% of the copy roofline"),
])
def test_roofline_fraction_and_its_findings(synthetic_contract, rate, fraction, finding):
    entry = entry_with_rate(synthetic_contract, rate)
    apply_roofline(entry, ROOF)
    assert entry.roofline_fraction == pytest.approx(fraction, rel=1e-4)
    if finding is None:
        assert entry.findings == []
    else:
        (text,) = entry.findings
        assert finding in text


def test_the_copy_is_compared_at_the_same_bytes_moved(synthetic_contract):
    assert ROOF.rate_at(2e6) == pytest.approx(1e11) and ROOF.rate_at(2e8) == pytest.approx(5e10)
    assert ROOF.rate_at(1e3) == pytest.approx(1e11) and ROOF.rate_at(1e9) == pytest.approx(5e10)
    entry = entry_with_rate(synthetic_contract, 45e9, moved=2e8)  # where the copy makes 50 GB/s
    apply_roofline(entry, ROOF)
    assert entry.roofline_fraction == pytest.approx(0.9) and entry.findings == []


def test_an_undetermined_rate_is_reported_not_judged(synthetic_contract):
    entry = entry_with_rate(synthetic_contract, 150e9, work_share=0.2)
    apply_roofline(entry, ROOF)
    assert entry.roofline_fraction == pytest.approx(1.5, rel=1e-4) and entry.findings == []


def test_host_bytes_of_a_call_that_allocates():
    size = 4 << 20
    nbytes, method = host_peak_bytes(FunctionCall(lambda: np.ones(size, dtype=np.uint8)))
    assert size <= nbytes < size + (1 << 20) and "tracemalloc" in method
    assert host_peak_bytes(FunctionCall(lambda: None))[0] < (1 << 20)


@pytest.mark.parametrize("measured, verdict", [
    (4_000_000, "as_promised"), (9_000_000, "above"), (1_000_000, "below"), (4_060_000, "as_promised"),
])
def test_memory_verdicts(synthetic_contract, measured, verdict):
    promised = promised_bytes(synthetic_contract.cost, "host_bytes",
                              {"n": 1_000_000, "dtype_bytes": 4})
    assert promised == 4_000_000
    assert MemoryCheck("host_bytes", promised, measured, "m").verdict == verdict
    assert promised_bytes(synthetic_contract.cost, "device_bytes", {}) == 0
    assert MemoryCheck("host_bytes", None, measured, "m").verdict == "unpromised"
