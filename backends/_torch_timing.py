"""Cost measurement with torch (``judge measure``): the library call on resident tensors.

On CUDA each sample is bracketed by CUDA events on the current stream, after a synchronize,
so it spans the call from an idle device to the end of its last kernel (launch overhead
included, as a dispatcher pays it); peak device bytes come from torch.cuda's allocator
statistics. On the CPU the Judge's host clock applies, and host bytes are the allocations the
torch profiler records (torch's CPU allocator is invisible to tracemalloc).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from judge.measure.timed import TimedCall


@contextmanager
def _quiet_stderr():
    """File descriptor 2 to /dev/null: the profiler's native layer logs each start and stop."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


class TorchCall(TimedCall):
    def __init__(self, torch, launch, device: str) -> None:
        self.torch = torch
        self._launch = launch
        self.cuda = device == "cuda"
        self.clock = "cuda_event" if self.cuda else "perf_counter_ns"
        if self.cuda:
            self._start = torch.cuda.Event(enable_timing=True)
            self._end = torch.cuda.Event(enable_timing=True)

    def launch(self):
        # No no_grad() context: its entry and exit would be timed with every call, and tensors
        # made from host buffers never require grad, so autograd records nothing anyway.
        return self._launch()

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize()

    def time_ns(self) -> int:
        if not self.cuda:
            return super().time_ns()
        self.torch.cuda.synchronize()
        self._start.record()
        self.launch()
        self._end.record()
        self._end.synchronize()
        return int(round(self._start.elapsed_time(self._end) * 1e6))

    def peak_device_bytes(self):
        if not self.cuda:
            return None
        cuda = self.torch.cuda
        cuda.synchronize()
        cuda.reset_peak_memory_stats()
        base = cuda.memory_allocated()
        result = self.launch()
        cuda.synchronize()
        peak = cuda.max_memory_allocated() - base
        del result
        return max(0, peak), "torch.cuda.max_memory_allocated"

    def peak_host_bytes(self):
        if self.cuda:
            return None
        from torch.profiler import ProfilerActivity, profile

        with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU],
                                      profile_memory=True) as prof:
            result = self.launch()
        del result
        allocated = sum(e.cpu_memory_usage for e in prof.events()
                        if not e.cpu_children and e.cpu_memory_usage > 0)
        return allocated, "sum of torch CPU allocations during the call (torch.profiler)"


def copy_call(torch, nbytes: int, device: str) -> TorchCall:
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    return TorchCall(torch, lambda: dst.copy_(src), device)
