"""Test-only backends that take their process down: one aborts, one segfaults, one hangs.

Each is correct for neg and abs and misbehaves only on sqrt, so an audit with them must turn
exactly the sqrt rows into ``error`` and leave every other row as the well-behaved twin
(``steady``) gives it. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

import numpy as np

import judge

OPS = {"NegElementwise": np.negative, "AbsElementwise": np.abs, "SqrtElementwise": np.sqrt}


class Steady(judge.Backend):
    """Correct neg, abs and sqrt (numpy's, which round correctly) on the CPU."""

    name = "steady"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in OPS else f"{self.name} has no {contract.op_kind}"

    def misbehave(self) -> None:
        """What this backend does to its process when asked for a square root (unless
        ``JUDGE_TEST_CALM`` is set: then the misbehaving backends are their steady twin)."""

    def run(self, contract, call):
        if contract.op_kind == "SqrtElementwise":
            self.misbehave()
        x = call.inputs[0].view()
        out = call.outputs[0]
        with np.errstate(all="ignore"):
            out.base[...] = OPS[contract.op_kind](x).reshape(-1)
        return [out.base.reshape(out.shape)]


class Aborts(Steady):
    name = "aborts"

    def misbehave(self) -> None:
        if not os.environ.get("JUDGE_TEST_CALM"):
            os.abort()


class Segfaults(Steady):
    name = "segfaults"

    def misbehave(self) -> None:
        if not os.environ.get("JUDGE_TEST_CALM"):
            ctypes.string_at(0)


class Hangs(Steady):
    name = "hangs"

    def misbehave(self) -> None:
        if not os.environ.get("JUDGE_TEST_CALM"):
            time.sleep(10**6)


class DiesProbing(Steady):
    """A driver that aborts the process when asked whether a device is there (as kp does)."""

    name = "dies-probing"

    def available(self):
        sys.stderr.write("fake driver: no device node /dev/fake0\n")
        sys.stderr.flush()
        os.abort()


for _cls in (Steady, Aborts, Segfaults, Hangs, DiesProbing):
    judge.register_backend(_cls())
