"""Test-only in-place SiLU backends: a small correct one and three broken variants, each a mistake
an in-place kernel makes that an out-of-place one cannot:

- ``TwoPassSilu``: silu(x) = sign(x) · |x|·σ(x) in two passes over the output, the second reading
  x for its sign after the first has overwritten it. Correct into a separate output; in place it
  reads |silu(x)| back and every negative x comes out positive.
- ``ReturnsFresh``: the correct result in a fresh array, returned; the target is never written.
- ``ClobbersPastEnd``: correct in place, then also writes the element just past the target's last
  one in the same buffer (a vector tail that stores a whole lane).

Each reads ``inputs[0]`` and writes ``outputs[0]`` as views with their own strides and offset, so
it also runs where the executor hands them separate buffers. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("SiluInplace", "SiluElementwise")


def _view(arg, writeable: bool = False) -> np.ndarray:
    if arg.size == 0:
        return np.empty(arg.shape, dtype=arg.base.dtype)
    item = arg.base.itemsize
    return np.lib.stride_tricks.as_strided(arg.base[arg.offset:], shape=arg.shape,
                                           strides=tuple(s * item for s in arg.strides),
                                           writeable=writeable)


def abs_silu(x: np.ndarray) -> np.ndarray:
    """|x|·σ(x) in float64 (σ in its split form, exact enough to round once into F32)."""
    x = x.astype(np.float64)
    e = np.exp(-np.abs(x))
    sigma = np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return np.where(np.isneginf(x), 0.0, np.abs(x) * sigma)


class MiniInplace(judge.Backend):
    """Correct: reads x whole, then writes silu(x) into the target in one store."""

    name = "mini-inplace"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        x = _view(call.inputs[0]).copy()
        out = _view(call.outputs[0], writeable=True)
        with np.errstate(all="ignore"):
            out[...] = np.copysign(abs_silu(x), x.astype(np.float64)).astype(out.dtype)
        return None


class TwoPassSilu(MiniInplace):
    def run(self, contract, call):
        x = _view(call.inputs[0])  # a live view: in place, it is the output's memory
        out = _view(call.outputs[0], writeable=True)
        with np.errstate(all="ignore"):
            out[...] = abs_silu(x).astype(out.dtype)  # pass 1: the magnitude
            out[...] = np.copysign(out, x)  # pass 2: x's sign, read again
        return None


class ReturnsFresh(MiniInplace):
    def run(self, contract, call):
        x = _view(call.inputs[0]).copy()
        with np.errstate(all="ignore"):
            return [np.copysign(abs_silu(x), x.astype(np.float64)).astype(x.dtype)]


class ClobbersPastEnd(MiniInplace):
    def run(self, contract, call):
        super().run(contract, call)
        out = call.outputs[0]
        last = out.offset + sum((n - 1) * s for n, s in zip(out.shape, out.strides, strict=True) if n)
        end = last + 1 if out.size else out.offset
        if end < out.base.size:
            out.base[end] = out.base.dtype.type(0.0)
        return None
