"""Helpers of the cost-measurement tests: a contract file and a backend of known cost."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import judge
from judge.measure.timed import FunctionCall

LAYOUT = ("{ contiguous: required, strided: rejected, broadcast_stride0: rejected, "
          "start_offset: rejected, reverse_strides: rejected }")


def contract_text(*, kernel: str = "synthetic_neg", bytes_moved: str = "2 * n * dtype_bytes",
                  cls: str = "cheap_elementwise", dtypes: str = "[F32]") -> str:
    return f"""---
fkc_version: 1
provider: {{ name: synthetic, backend: Cpu, revision_base: "test" }}
---

# a contract of known cost

```fkc
kernel: {kernel}
op_kind: NegElementwise
blurb: "Negation, for cost tests."
backend: Cpu
kernel_revision_hash: auto
accept:
  inputs:
    - name: x
      dtypes: {dtypes}
      layout: {LAYOUT}
      rank: any
  op_params: {{ variant: None }}
return:
  outputs:
    - name: out
      dtype_rule: passthrough(x)
      shape_rule: same_as(x)
      layout_guarantee: contiguous
      aliasing: none
cost:
  provenance: judge_measured
  class: {cls}
  flops: "n"
  bytes_moved: "{bytes_moved}"
  overhead_ns: ~
  memory: {{ device_bytes: 0, host_bytes: "n * dtype_bytes", disk_bytes: 0 }}
precision:
  max_ulp: 0
determinism: bitwise
```
"""


def load_one(path: Path):
    from judge.suite import load_paths

    loaded = load_paths([path])
    assert not loaded.errors, loaded.errors
    (contract,) = loaded.contracts
    return contract


def wait_ns(duration_ns: float) -> None:
    """Sleep for ``duration_ns``. A sleeper, unlike a spinner, is woken promptly on a loaded
    machine (the scheduler favours tasks that slept), so its time is the duration plus a wake-up
    latency that does not grow with the duration: it lands in the overhead, never the slope."""
    time.sleep(duration_ns / 1e9)


class KnownCost(judge.Backend):
    """Each call waits ``overhead_ns + per_element_ns * n``; with ``via_timed`` it hands the
    Judge a ``TimedCall``, else it is timed through ``run``."""

    device = "cpu"

    def __init__(self, overhead_ns: float, per_element_ns: float, *, via_timed: bool = False,
                 name: str = "known-cost", jitter: float = 0.0) -> None:
        self.name = name
        self.overhead_ns = overhead_ns
        self.per_element_ns = per_element_ns
        self.via_timed = via_timed
        # each call's wait scaled by 1 + jitter * u, u uniform in [-1, 1]: the call-to-call
        # variation of a real kernel, which a bare sleeper lacks
        self.jitter = jitter
        self._rng = np.random.default_rng(0)

    def supports(self, contract, dtypes):
        return True

    def _wait(self, n: int) -> None:
        scale = 1.0 + self.jitter * self._rng.uniform(-1.0, 1.0) if self.jitter else 1.0
        wait_ns((self.overhead_ns + self.per_element_ns * n) * scale)

    def run(self, contract, call):
        self._wait(call.inputs[0].size)
        out = call.outputs[0]
        np.negative(call.inputs[0].view(), out=out.base.reshape(out.shape))
        return [out.base.reshape(out.shape)]

    def timed(self, contract, call):
        if not self.via_timed:
            return None
        n = call.inputs[0].size
        return FunctionCall(lambda: self._wait(n))
