"""Per-call overhead of the kompute adapter (pytest-benchmark).

The suite runs hundreds of small cases, so what matters is the cost of one small call once its
pipeline exists: host packing, the metadata block, one submit of the recorded sequence and the
copy back. Run with ``pytest tests/backends/test_kompute_bench.py --benchmark-only``.
"""

from __future__ import annotations

import numpy as np
import pytest

from backends.kompute.ops import OPS
from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.executor import poison_output


class _Contract:
    """The two fields the adapter reads from a contract."""

    def __init__(self, op_kind: str):
        assert op_kind in OPS
        self.op_kind = op_kind
        self.kernel = op_kind


def _call(n_inputs: int, shape=(16, 64), strides=None) -> KernelCall:
    x = np.linspace(-2, 2, int(np.prod(shape)), dtype=np.float32)
    inputs = [TensorArg(x, shape, strides or contiguous_strides(shape), 0, "F32")
              for _ in range(n_inputs)]
    return KernelCall(inputs, {}, [poison_output(shape, "F32")], ["F32"])


@pytest.mark.parametrize(("op_kind", "n_inputs"), [("ExpElementwise", 1),
                                                   ("AddElementwise", 2)])
def test_small_call_overhead(benchmark, kompute, op_kind, n_inputs):
    contract = _Contract(op_kind)
    call = _call(n_inputs)
    kompute.run(contract, call)  # build the pipeline outside the timing
    (out,) = benchmark(kompute.run, contract, call)
    assert out.shape == (16, 64)


def test_strided_reduce_call_overhead(benchmark, kompute):
    contract = _Contract("SumReduce")
    x = np.ones(16 * 64, dtype=np.float32)
    call = KernelCall([TensorArg(x, (16, 64), (64, 1), 0, "F32")], {"dims": [1]},
                      [poison_output((16,), "F32")], ["F32"])
    kompute.run(contract, call)
    (out,) = benchmark(kompute.run, contract, call)
    assert (out == 64).all()
