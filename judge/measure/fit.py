"""The least-squares fit of ``time(n) = overhead_ns + work(n) / rate``.

Times span decades across the size range, so the fit minimises relative residuals (weighted
least squares with weights 1/t): a 1 µs point and a 10 ms point count alike. Both coefficients
are kept non-negative: where the unconstrained optimum has a negative overhead (or a negative
slope) the constrained optimum lies on that boundary and is refitted there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

RATE_SHARE = 0.5  # the work must take this share of the largest size's time to fix the rate


@dataclass(frozen=True)
class Fit:
    overhead_ns: float
    ns_per_unit: float  # 1 / rate, in ns per unit of work (byte or flop)
    rms_rel: float  # root-mean-square relative residual
    max_rel: float  # largest relative residual
    points: int
    work_share: float = 1.0  # of the fitted time at the largest work, the part the work takes

    @property
    def rate_determined(self) -> bool:
        """Whether work, not overhead, dominates the largest size (else the rate is a guess)."""
        return self.work_share >= RATE_SHARE

    @property
    def rate(self) -> float:
        """Work units per second (bytes/s or flop/s); inf when the slope is zero."""
        return 1e9 / self.ns_per_unit if self.ns_per_unit > 0 else math.inf

    def predict_ns(self, work) -> np.ndarray:
        return self.overhead_ns + self.ns_per_unit * np.asarray(work, dtype=np.float64)


def fit_cost(work, times_ns) -> Fit:
    """Fit ``times_ns ≈ overhead + ns_per_unit * work`` (at least two distinct works)."""
    w = np.asarray(work, dtype=np.float64)
    t = np.asarray(times_ns, dtype=np.float64)
    if w.shape != t.shape or w.ndim != 1:
        raise ValueError("work and times must be 1-D arrays of one length")
    if len(np.unique(w)) < 2:
        raise ValueError(f"a cost fit needs at least two distinct sizes, got {len(np.unique(w))}")
    if not (np.all(np.isfinite(t)) and np.all(t > 0)):
        raise ValueError("times must be finite and positive")
    inv = 1.0 / t  # row weights: residual / t
    design = np.column_stack([inv, w * inv])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    if a < 0:
        a, b = 0.0, float(np.sum(w * inv) / np.sum((w * inv) ** 2))
    if b < 0:
        a, b = float(np.sum(inv) / np.sum(inv**2)), 0.0
    rel = (a + b * w - t) / t
    top = a + b * float(w.max())
    return Fit(float(a), float(b), float(np.sqrt(np.mean(rel**2))), float(np.max(np.abs(rel))),
               len(t), float(b * float(w.max()) / top) if top > 0 else 0.0)
