"""Cost measurement with cupy (``judge measure``): the library call on resident arrays.

Each sample is bracketed by CUDA events on the current stream after a synchronize. Device
bytes: every allocation the call makes is routed through a counting allocator over cupy's
memory pool; their sum bounds the call's peak from above and equals it when the call frees
nothing before it returns (one output, as for elementwise kernels).
"""

from __future__ import annotations

from judge.measure.timed import TimedCall


class CupyCall(TimedCall):
    clock = "cuda_event"

    def __init__(self, cupy, launch) -> None:
        self.cupy = cupy
        self._launch = launch
        self._start = cupy.cuda.Event()
        self._end = cupy.cuda.Event()

    def launch(self):
        return self._launch()

    def sync(self) -> None:
        self.cupy.cuda.Device().synchronize()

    def time_ns(self) -> int:
        self.sync()
        self._start.record()
        self._launch()
        self._end.record()
        self._end.synchronize()
        return int(round(self.cupy.cuda.get_elapsed_time(self._start, self._end) * 1e6))

    def peak_device_bytes(self):
        cupy = self.cupy
        pool = cupy.get_default_memory_pool()
        total = [0]

        def counting(size: int):
            total[0] += size
            return pool.malloc(size)

        self.sync()
        cupy.cuda.set_allocator(counting)
        try:
            result = self._launch()
            self.sync()
        finally:
            cupy.cuda.set_allocator(pool.malloc)
        del result
        return total[0], "sum of cupy allocations during the call"


def copy_call(cupy, nbytes: int) -> CupyCall:
    src = cupy.ones(nbytes, dtype=cupy.uint8)
    dst = cupy.empty_like(src)
    return CupyCall(cupy, lambda: dst.data.copy_from_device_async(src.data, nbytes))
