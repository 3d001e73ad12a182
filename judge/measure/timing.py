"""Timing one size: warm up, then repeat until the median is stable; report the spread.

Each sample is one call from an idle device to its completion (``TimedCall.time_ns``: CUDA
events on CUDA, fenced wall time on Vulkan, ``perf_counter_ns`` on the CPU). Samples come in
batches; the run stops once the median of all samples moved by at most ``tol`` (relative)
after each of the last three batches and ``min_reps`` samples are in, or when the repeat or time
budget is spent (the sample then says it is not stable).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class TimingPolicy:
    warmup_ns: int = 20_000_000  # warm-up time per size (at least WARMUP_CALLS calls)
    min_reps: int = 20
    max_reps: int = 200
    batch: int = 5
    tol: float = 0.02  # relative change of the median that counts as stable
    budget_ns: int = 2_000_000_000  # time for one size, warm-up included


WARMUP_CALLS = 3
CALM_BATCHES = 3  # batches in a row that moved the median by at most tol


@dataclass
class SizeSample:
    """The timing of one size: every sample and its summary."""

    n: int
    times_ns: list[int] = field(default_factory=list)
    stable: bool = False

    @property
    def reps(self) -> int:
        return len(self.times_ns)

    @property
    def median_ns(self) -> float:
        return float(np.median(self.times_ns))

    @property
    def q1_ns(self) -> float:
        return float(np.percentile(self.times_ns, 25))

    @property
    def q3_ns(self) -> float:
        return float(np.percentile(self.times_ns, 75))

    @property
    def min_ns(self) -> float:
        return float(min(self.times_ns))

    @property
    def spread(self) -> float:
        """Inter-quartile range over the median."""
        med = self.median_ns
        return (self.q3_ns - self.q1_ns) / med if med > 0 else 0.0


def time_size(timed, n: int, policy: TimingPolicy = TimingPolicy()) -> SizeSample:
    """Warm up ``timed`` and sample it until its median is stable (see the module doc)."""
    start = time.perf_counter_ns()
    calls = 0
    while calls < WARMUP_CALLS or time.perf_counter_ns() - start < policy.warmup_ns:
        timed.time_ns()
        calls += 1
        if time.perf_counter_ns() - start > policy.budget_ns // 4:
            break
    sample = SizeSample(n)
    previous: float | None = None
    calm = 0
    while sample.reps < policy.max_reps:
        sample.times_ns.extend(timed.time_ns() for _ in range(policy.batch))
        median = sample.median_ns
        if previous is not None and abs(median - previous) <= policy.tol * previous:
            calm += 1
        else:
            calm = 0
        previous = median
        if calm >= CALM_BATCHES and sample.reps >= policy.min_reps:
            sample.stable = True
            break
        if time.perf_counter_ns() - start > policy.budget_ns:
            break
    return sample
