"""The bandwidth roofline: a plain device-to-device copy, timed in the same run.

The backend supplies the copy (``Backend.timed_copy(nbytes)``: torch's ``copy_``, a CUDA
device-to-device copy, Vulkan's buffer copy); on the CPU device class the host is the device,
so where a backend has none the Judge copies with ``numpy.copyto``. A copy of N bytes moves 2N
(read and write), counted as ``bytes_moved`` counts a kernel's operands. The copy is fitted with
the same model over the same sizes. A kernel's roofline fraction compares achieved rates where
they are least blurred by overhead and caches: the kernel's bytes per second at its largest
size against the copy's at the same number of bytes moved.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from judge.measure.fit import Fit, fit_cost
from judge.measure.timed import FunctionCall, TimedCall
from judge.measure.timing import SizeSample, TimingPolicy, time_size


@dataclass
class Roofline:
    backend: str
    source: str  # "backend" | "numpy.copyto" | "none"
    clock: str = ""
    samples: list[SizeSample] = field(default_factory=list)
    fit: Fit | None = None
    note: str = ""

    @property
    def bytes_per_s(self) -> float | None:
        return self.fit.rate if self.fit is not None else None

    def rate_at(self, bytes_moved: float) -> float | None:
        """The copy's achieved bytes/s at ``bytes_moved`` (log-log interpolation between the
        copies timed; the nearest end outside them)."""
        if not self.samples:
            return None
        moved = np.array([2.0 * s.n for s in self.samples])
        rates = moved / np.array([s.median_ns for s in self.samples]) * 1e9
        return float(np.exp(np.interp(np.log(bytes_moved), np.log(moved), np.log(rates))))

    @property
    def largest_bytes_per_s(self) -> float | None:
        """The copy's achieved rate at the largest size timed."""
        if not self.samples:
            return None
        top = self.samples[-1]
        return 2 * top.n / top.median_ns * 1e9

    @property
    def best_bytes_per_s(self) -> float | None:
        """The highest rate one size reached (2 × bytes / median time)."""
        if not self.samples:
            return None
        return max(2 * s.n / s.median_ns * 1e9 for s in self.samples)


def host_copy(nbytes: int) -> TimedCall:
    src = np.ones(nbytes, dtype=np.uint8)
    dst = np.empty_like(src)
    return FunctionCall(lambda: np.copyto(dst, src), clock="perf_counter_ns")


def copy_call(backend, nbytes: int) -> tuple[TimedCall | None, str]:
    timed_copy = getattr(backend, "timed_copy", None)
    timed = timed_copy(nbytes) if timed_copy is not None else None
    if timed is not None:
        return timed, "backend"
    if backend.device == "cpu":
        return host_copy(nbytes), "numpy.copyto"
    return None, "none"


def measure_roofline(backend, nbytes_sizes: list[int], policy: TimingPolicy,
                     budget_ns: int) -> Roofline:
    """Time the copy over ``nbytes_sizes`` (ascending) within ``budget_ns``; fit it."""
    import time

    spent = 0  # timing only, as for kernels: making buffers and pipelines is not counted
    roof = Roofline(backend.name, "none")
    for index, nbytes in enumerate(nbytes_sizes):
        left = budget_ns - spent
        if left <= 0 and roof.samples:
            roof.note = f"copies above {roof.samples[-1].n} bytes did not fit the time budget"
            break
        share = max(left, 0) // (len(nbytes_sizes) - index)  # an equal share of what is left
        size_policy = replace(policy, budget_ns=int(min(policy.budget_ns, share)))
        timed, source = copy_call(backend, nbytes)
        if timed is None:
            roof.note = f"{backend.name} offers no device copy (Backend.timed_copy)"
            return roof
        roof.source = source
        try:
            roof.clock = timed.clock
            began = time.perf_counter_ns()
            roof.samples.append(time_size(timed, nbytes, size_policy))
            spent += time.perf_counter_ns() - began
        finally:
            timed.close()
    if len(roof.samples) >= 2:
        roof.fit = fit_cost([2 * s.n for s in roof.samples], [s.median_ns for s in roof.samples])
    return roof
