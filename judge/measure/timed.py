"""``TimedCall``: one kernel call made ready to repeat, what a backend hands the Judge to time.

A backend may implement ``Backend.timed(contract, call)`` (and ``Backend.timed_copy(nbytes)``
for the bandwidth roofline) to return a ``TimedCall`` whose inputs already live on the device,
so that a repeat times the library call alone: no uploads, no downloads. A backend that does
not is timed through its plain ``run`` (``RunCall``), transfers included, and the output says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


class TimedCall:
    """One call, repeatable. Subclasses override ``launch`` and, on an asynchronous device,
    ``sync`` and ``time_ns`` (device events) and ``peak_device_bytes``.

    ``clock`` names how ``time_ns`` measures, for the output file.
    """

    clock = "perf_counter_ns"

    def launch(self) -> Any:
        """Issue the call once; return its result (held while memory is measured)."""
        raise NotImplementedError

    def sync(self) -> None:
        """Wait until everything issued so far has finished on the device."""

    def time_ns(self) -> int:
        """Duration of one call from an idle device to its completion, in nanoseconds."""
        self.sync()
        start = time.perf_counter_ns()
        self.launch()
        self.sync()
        return time.perf_counter_ns() - start

    def peak_device_bytes(self) -> tuple[int, str] | None:
        """(peak device bytes one call allocates beyond its resident inputs, how measured), or
        None when the device has no allocator statistics to read."""
        return None

    def peak_host_bytes(self) -> tuple[int, str] | None:
        """(peak host bytes of one call, how measured) where the library can say better than
        the Judge's tracemalloc and resident-set reading; None by default."""
        return None

    def close(self) -> None:
        """Release what ``launch`` holds (device buffers, sequences)."""


class FunctionCall(TimedCall):
    """A ``TimedCall`` from a launch function and an optional sync function."""

    def __init__(self, launch: Callable[[], Any], sync: Callable[[], None] | None = None,
                 *, clock: str = "perf_counter_ns") -> None:
        self._launch = launch
        self._sync = sync
        self.clock = clock

    def launch(self) -> Any:
        return self._launch()

    def sync(self) -> None:
        if self._sync is not None:
            self._sync()


class RunCall(TimedCall):
    """The fallback: ``backend.run(contract, call)`` end to end on the host clock.

    The same ``KernelCall`` (inputs and pre-allocated outputs) is reused by every repeat, so a
    repeat costs what the adapter's ``run`` costs: on a device backend that includes moving the
    operands there and back, which the output marks with ``clock = "run_perf_counter_ns"``.
    """

    clock = "run_perf_counter_ns"

    def __init__(self, backend, contract, call) -> None:
        self.backend = backend
        self.contract = contract
        self.call = call

    def launch(self) -> Any:
        return self.backend.run(self.contract, self.call)
