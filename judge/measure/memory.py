"""Peak bytes of one call, and how they compare with the contract's ``memory`` expressions.

Host bytes: the larger of tracemalloc's peak (Python and numpy allocations; numpy reports its
buffers to tracemalloc) and the growth of the resident set while the call's result is held
(allocations tracemalloc cannot see: torch's CPU allocator, native libraries). Device bytes:
what the backend's ``TimedCall.peak_device_bytes`` reads from its allocator (torch.cuda's
max_memory_allocated, cupy's memory pool), or nothing where the device has no such statistic.
"""

from __future__ import annotations

import os
import tracemalloc
from dataclasses import dataclass

HOST_METHOD = "max(tracemalloc peak, RSS growth with the result held)"
SLACK_BYTES = 64 * 1024  # allocator granularity: below this a difference is not a finding
TOLERANCE = 0.25  # relative: measured within ±25% (plus the slack) is as promised


def _rss_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def host_peak_bytes(timed) -> tuple[int, str]:
    """(peak host bytes one call of ``timed`` allocates, how measured); see the module doc."""
    own = timed.peak_host_bytes()
    if own is not None:
        return own
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        rss0 = _rss_bytes()
        result = timed.launch()
        timed.sync()
        peak = tracemalloc.get_traced_memory()[1] - base
        rss1 = _rss_bytes()
        del result
    finally:
        if not was_tracing:
            tracemalloc.stop()
    grown = rss1 - rss0 if rss0 is not None and rss1 is not None else 0
    return max(0, peak, grown), HOST_METHOD


@dataclass(frozen=True)
class MemoryCheck:
    tier: str  # device_bytes | host_bytes
    promised: float | None  # the contract expression's value, None if it has none
    measured: int
    method: str

    @property
    def verdict(self) -> str:
        """as_promised | above | below | unpromised."""
        if self.promised is None:
            return "unpromised"
        if self.measured > self.promised * (1 + TOLERANCE) + SLACK_BYTES:
            return "above"
        if self.measured < self.promised * (1 - TOLERANCE) - SLACK_BYTES:
            return "below"
        return "as_promised"

    def to_json(self) -> dict:
        return {"tier": self.tier, "promised_bytes": self.promised, "measured_bytes": self.measured,
                "method": self.method, "verdict": self.verdict}


def promised_bytes(cost, tier: str, variables: dict[str, float]) -> float | None:
    """The contract's ``memory.<tier>`` at these cost variables, None if not given."""
    from judge.contracts.cost import evaluate

    value = cost.memory.get(tier)
    if value is None:
        return None
    if isinstance(value, int):
        return float(value)
    return float(evaluate(value, **variables))
