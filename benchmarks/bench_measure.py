"""The cost of measuring: the timing loop's own overhead per sample, and the fit.

Run: pytest benchmarks/bench_measure.py --benchmark-only
``test_sample_overhead`` samples a call that does nothing, so its median is the floor under
every CPU figure ``judge measure`` reports (``extra_info['floor_ns']``); a fitted overhead near
that floor is the Judge's, not the kernel's. ``test_fit`` fits 25 sizes, as a CUDA range has.
"""

from __future__ import annotations

import numpy as np

from judge.measure.fit import fit_cost
from judge.measure.timed import FunctionCall
from judge.measure.timing import TimingPolicy, time_size


def test_sample_overhead(benchmark):
    timed = FunctionCall(lambda: None)
    policy = TimingPolicy(warmup_ns=0, min_reps=200, max_reps=200, batch=50)
    sample = benchmark(time_size, timed, 1, policy)
    benchmark.extra_info["floor_ns"] = sample.median_ns


def test_fit(benchmark):
    work = 12.0 * 2.0 ** np.arange(4, 29)
    times = (1.4e4 + work / 4.3e3) * (1 + 0.02 * np.random.default_rng(0).standard_normal(25))
    fit = benchmark(fit_cost, work, times)
    assert abs(fit.overhead_ns / 1.4e4 - 1) < 0.1
