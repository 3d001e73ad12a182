"""Test-only backends that take their time, so a signal sent to an audit lands while it runs.

``slow`` is correct for neg, abs and sqrt (numpy's, which round correctly) on the CPU;
``slow-wrong`` forgets the sign flip of abs, so its abs rows fail and leave cases. Both refuse
an error input (another operand count, dtype or shape) as a kernel should. Every call
sleeps ``JUDGE_TEST_SLEEP`` seconds (default 0.005). Neither runs BF16. Loadable as a ``--plugin``
file.
"""

from __future__ import annotations

import os
import time

import numpy as np

import judge

OPS = {"NegElementwise": np.negative, "AbsElementwise": np.abs, "SqrtElementwise": np.sqrt}


class Slow(judge.Backend):
    name = "slow"
    device = "cpu"

    def supports(self, contract, dtypes):
        if "BF16" in dtypes:  # the slowest items to judge: left out to keep the tests short
            return f"{self.name} has no BF16"
        return True if contract.op_kind in OPS else f"{self.name} has no {contract.op_kind}"

    def op(self, contract):
        return OPS[contract.op_kind]

    def run(self, contract, call):
        time.sleep(float(os.environ.get("JUDGE_TEST_SLEEP", "0.005")))
        out = call.outputs[0]
        if len(call.inputs) != 1:
            raise ValueError(f"{contract.kernel} takes 1 operand, not {len(call.inputs)}")
        if (call.inputs[0].dtype, call.inputs[0].shape) != (call.output_dtypes[0], out.shape):
            raise ValueError(f"{contract.kernel}: the operand's dtype or shape is not the output's")
        x = call.inputs[0].view()
        with np.errstate(all="ignore"):
            out.base[...] = self.op(contract)(x).reshape(-1)
        return [out.base.reshape(out.shape)]


class SlowWrong(Slow):
    name = "slow-wrong"

    def op(self, contract):
        return np.positive if contract.op_kind == "AbsElementwise" else OPS[contract.op_kind]


for _cls in (Slow, SlowWrong):
    judge.register_backend(_cls())
