"""Test-only backends that touch memory just outside their buffers, each the way a kernel bound
through raw pointers does it, and the correct stand-in they wrap:

- ``PairWriter``: loads and stores its 16-bit elements two at a time, as 32-bit words, and rounds
  the count of pairs up: on an odd length the last pair reads the element past the input's end
  and stores one past the output's end.
- ``WordStoreF16``: computes element by element but stores whole 32-bit words, the last one
  zero-padded: on an odd length two bytes past the output's end become zero (a 4-byte store
  where the contract's access granule is smaller).
- ``AlignedLoads``: loads from an 8-byte aligned address, starting one element early when the
  first element is not aligned, and forgets to skip the lead: given a misaligned base it reads
  the element before its base and every result is shifted by one.

Each computes with the numpy backend's own kernel (``backends.numpy_backend``), so the only fault
is the memory access. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import ctypes

import numpy as np

import judge
from backends.numpy_backend import NumpyBackend


def _address(arg, element: int = 0) -> int:
    """The address of the view's element ``element`` (counted from its first), as C sees it."""
    return arg.base.ctypes.data + (arg.offset + element) * arg.base.itemsize


def _memory(address: int, count: int, dtype) -> np.ndarray:
    """``count`` elements from ``address``, wherever they lie: no bounds, like a raw pointer."""
    dtype = np.dtype(dtype)
    return np.frombuffer((ctypes.c_uint8 * (count * dtype.itemsize)).from_address(address), dtype=dtype)


def _dense(arg, start: int, count: int) -> judge.TensorArg:
    """A contiguous 1-D argument over ``count`` raw elements from the view's element ``start``."""
    flat = _memory(_address(arg, start), count, arg.base.dtype)
    return judge.TensorArg(flat, (count,), (1,), 0, arg.dtype)


class MiniNumpy(NumpyBackend):
    """Correct: the numpy backend under its own name."""

    name = "mini-numpy"


class PairWriter(MiniNumpy):
    name = "pair-writer"

    def run(self, contract, call):
        (x,), (out,) = call.inputs, call.outputs
        pairs = -(-x.size // 2)
        wide = judge.KernelCall([_dense(x, 0, 2 * pairs)], call.params, [_dense(out, 0, 2 * pairs)],
                                call.output_dtypes, call.case_id)
        super().run(contract, wide)  # stores into the 2·pairs elements from the output's address
        return None


class WordStoreF16(MiniNumpy):
    name = "word-store-f16"

    def run(self, contract, call):
        (result,) = super().run(contract, call)
        out = call.outputs[0]
        halves = np.zeros(2 * -(-out.size // 2), dtype=np.uint16)
        halves[:out.size] = np.ascontiguousarray(result).reshape(-1).view(np.uint16)
        words = _memory(_address(out), halves.size // 2, np.uint32)
        words[...] = halves.view(np.uint32)
        return None


class AlignedLoads(MiniNumpy):
    name = "aligned-loads"

    def run(self, contract, call):
        x = call.inputs[0]
        lead = _address(x) % 8 // x.base.itemsize  # elements past the 8-byte boundary
        shifted = judge.TensorArg(_memory(_address(x, -lead), x.size, x.base.dtype), x.shape,
                                  judge.api.contiguous_strides(x.shape), 0, x.dtype)
        return super().run(contract, judge.KernelCall([shifted, *call.inputs[1:]], call.params,
                                                      call.outputs, call.output_dtypes, call.case_id))
