"""What is measured at size n: the geometric size range, and for one contract the shapes, op
params and contiguous inputs of a call whose primary input holds n elements.

Shapes and op params are the OpKind family's size plan (``oracles.family.Family.size_plan``):
the lowest rank the contract accepts (at least 1; an OpKind that folds rows takes rank 2 where
it may, rows of 256 elements), every operand of the primary shape unless the family says
otherwise, op params chosen over the last axis. Values are drawn uniformly from [0.5, 1.5):
inside every elementwise domain (log, sqrt, recip, pow), never subnormal, so no slow path is
timed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.contracts.model import Contract

# log2 of the default smallest and largest primary input, per device class: a CPU (and Mesa's
# lavapipe, which runs Vulkan on the CPU) stops at 2^20 elements, a CUDA device goes to 2^26.
DEFAULT_LOG2 = {"cpu": (4, 20), "vulkan": (4, 20), "cuda": (4, 26)}


def size_range(lo: int, hi: int) -> list[int]:
    """2^lo, 2^(lo+1), ..., 2^hi."""
    if not 0 <= lo <= hi <= 34:
        raise ValueError(f"size range 2^{lo}..2^{hi} is not 0 <= lo <= hi <= 34")
    return [1 << k for k in range(lo, hi + 1)]


def parse_log2_range(text: str) -> tuple[int, int]:
    """``"4:20"`` -> (4, 20): the log2 of the smallest and largest size."""
    try:
        lo, hi = (int(part) for part in text.split(":"))
    except ValueError:
        raise ValueError(f"{text!r} is not a size range (write LO:HI, the log2 of the smallest "
                         "and largest element count, e.g. 4:20)") from None
    try:
        size_range(lo, hi)
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None
    return lo, hi


@dataclass(frozen=True)
class Plan:
    """One call of ``contract`` at size ``n``: operand shapes and dtypes, op params."""

    n: int
    shapes: tuple[tuple[int, ...], ...]
    dtypes: tuple[str, ...]
    params: dict[str, Any]


def plan_call(contract: Contract, dtype: str, n: int) -> Plan:
    """The call measured at size ``n`` for dtype ``dtype`` (raises ValueError if none fits): its
    shapes and op params are the OpKind family's size plan (``Family.size_plan``)."""
    import oracles
    from judge.strategies import input_dtypes

    opdef = oracles.get(contract.op_kind)
    family = oracles.family_of(contract.op_kind)
    if family.size_plan is None:
        raise ValueError(f"{contract.kernel}: {contract.op_kind} ties its operands' shapes to its "
                         "op params; there is no size plan for it yet")
    shapes, params = family.size_plan(contract, opdef, n)
    return Plan(n, tuple(tuple(s) for s in shapes), tuple(input_dtypes(contract, dtype)), params)


def make_call(contract: Contract, plan: Plan, seed: int = 0) -> KernelCall:
    """A ``KernelCall`` with contiguous inputs and poison-filled outputs, as the executor
    would pass them."""
    from judge.executor import derived_params, output_dtypes, output_shapes, poison_output
    from numerics.formats import get_format

    rng = np.random.default_rng(seed)
    inputs = []
    for shape, dtype in zip(plan.shapes, plan.dtypes, strict=True):
        size = int(np.prod(shape, dtype=np.int64))
        fmt = get_format(dtype)
        if dtype == "BOOL":
            base = (rng.random(size) < 0.5).astype(fmt.numpy_dtype)
        else:
            base = rng.uniform(0.5, 1.5, size).astype(fmt.numpy_dtype)
        inputs.append(TensorArg(base, shape, contiguous_strides(shape), 0, dtype))
    out_dtypes = output_dtypes(contract, plan.dtypes)
    out_shapes = output_shapes(contract, list(plan.shapes), plan.params)
    params = derived_params(contract, plan.params, tuple(inputs), out_shapes)
    outputs = [poison_output(s, d) for s, d in zip(out_shapes, out_dtypes, strict=True)]
    return KernelCall(inputs, params, outputs, list(out_dtypes), f"measure-{plan.n}")


def cost_variables(call: KernelCall, dtype: str) -> dict[str, float]:
    """The cost-expression variables of ``call``: n (elements written), n_in / in_elems (the
    primary input's elements), n_out / out_elems (the first output's), dtype_bytes."""
    from numerics.formats import get_format

    n_in = float(call.inputs[0].size)
    n_out = float(call.outputs[0].size) if call.outputs else n_in
    return {"n": n_out, "n_in": n_in, "in_elems": n_in, "n_out": n_out, "out_elems": n_out,
            "dtype_bytes": float(get_format(dtype).numpy_dtype.itemsize)}
