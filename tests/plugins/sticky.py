"""Test-only backends whose refused error leaves their "device" unusable, as a CUDA device-side
assert does: after an input holding 1234, every later call of the process raises.

``Sticky`` says so through ``Backend.context_lost``; ``SilentSticky`` does not. Loadable as a
``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

TRIGGER = 1234.0
_POISONED = False  # the process's "device context", lost for good once set


class Sticky(judge.Backend):
    """numpy's neg, until an input holds TRIGGER: that call and every later one raise."""

    name = "sticky"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind == "NegElementwise" else f"{self.name} has neg only"

    def run(self, contract, call):
        global _POISONED
        x = call.inputs[0].to_array()
        if _POISONED:
            raise RuntimeError("device-side assert triggered (an earlier call)")
        if (x == TRIGGER).any():
            _POISONED = True
            raise RuntimeError("device-side assert triggered")
        return [np.negative(x)]

    def context_lost(self) -> bool:
        return _POISONED


class SilentSticky(Sticky):
    """The same, without saying that its context is lost."""

    name = "silent-sticky"

    def context_lost(self) -> bool:
        return False
