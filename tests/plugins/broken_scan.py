"""Test-only SelectiveScan / SsdChunkScan backends: a small correct CPU backend (a sequential
scan in numpy, its state in the accumulator: float32 for BF16/F16, T otherwise) and a variant
that carries its state in BF16 between steps, as a kernel that stores the state in a bfloat16
buffer to halve its memory does. Loadable as a ``--plugin`` file."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import judge

KINDS = ("SelectiveScan", "SsdChunkScan")


class MiniScan(judge.Backend):
    """Correct for both scans (F32/F64/F16/BF16): the recurrence step by step in numpy."""

    name = "mini-scan"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    @staticmethod
    def acc(x: np.ndarray):
        return np.float64 if x.dtype == np.float64 else np.float32

    def keep(self, h: np.ndarray) -> np.ndarray:
        """The state as it is stored between steps."""
        return h

    def run(self, contract, call):
        xs = [t.view() for t in call.inputs]
        acc = self.acc(xs[0])
        out = call.outputs[0]
        with np.errstate(all="ignore"):
            args = [x.astype(acc) for x in xs]
            if contract.op_kind == "SelectiveScan":
                y = self.selective(*args, softplus=bool(call.params["delta_softplus"]))
            else:
                y = self.ssd(*args)
            return [np.asarray(y).astype(out.base.dtype).reshape(out.shape)]

    def selective(self, u, delta, a, b, c, *, softplus: bool):
        if softplus:
            delta = np.logaddexp(np.zeros((), delta.dtype), delta)
        batch, seqlen, dim = u.shape
        h = np.zeros((batch, dim, a.shape[1]), u.dtype)
        y = np.zeros(u.shape, u.dtype)
        for t in range(seqlen):
            d = delta[:, t, :, None]
            h = self.keep(np.exp(d * a) * h + d * b[:, t, None, :] * u[:, t, :, None])
            y[:, t] = (h * c[:, t, None, :]).sum(axis=-1)
        return y

    def ssd(self, x, dt, a, b, c):
        batch, seqlen, heads, p = x.shape
        h = np.zeros((batch, heads, p, b.shape[-1]), x.dtype)
        y = np.zeros(x.shape, x.dtype)
        for t in range(seqlen):
            d = dt[:, t, :, None, None]
            h = self.keep(np.exp(d * a[:, None, None]) * h + d * x[:, t, :, :, None] * b[:, t, :, None, :])
            y[:, t] = (h * c[:, t, :, None, :]).sum(axis=-1)
        return y


class Bf16State(MiniScan):
    """Stores the state in bfloat16 after every step (8 significant bits, whatever T is)."""

    name = "broken-bf16-state-scan"

    def keep(self, h):
        return h.astype(ml_dtypes.bfloat16).astype(h.dtype)


BROKEN = (Bf16State,)


def backends() -> list[judge.Backend]:
    return [MiniScan(), *(cls() for cls in BROKEN)]
