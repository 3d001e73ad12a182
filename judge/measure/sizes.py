"""What is measured at size n: the geometric size range, and for one contract the shapes, op
params and inputs of a call whose primary input holds n elements, on each fast path the
contract accepts (contiguous, strided, broadcast).

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


# The layouts a call is measured in, one entry each: the fast paths a contract declares
# (caps.fast_paths: all_inputs_contiguous, any_input_strided, any_input_broadcast).
PATHS = ("contiguous", "strided", "broadcast")


def paths_for(contract: Contract) -> list[str]:
    """The paths the contract accepts: contiguous always; strided where an operand accepts a
    step; broadcast where one accepts a stride-0 axis."""
    out = ["contiguous"]
    if any(s.layout.strided for s in contract.inputs):
        out.append("strided")
    if any(s.layout.broadcast_stride0 for s in contract.inputs):
        out.append("broadcast")
    return out


def _operand(rng, shape, dtype: str, layout: str) -> TensorArg:
    """One input of ``shape``: contiguous; ``strided``, every other element of a buffer twice
    as long; ``broadcast``, one slice repeated along the first axis longer than 1 (stride 0; a
    whole vector of one value at rank 1)."""
    from numerics.formats import get_format

    fmt = get_format(dtype)

    def values(count: int):
        if dtype == "BOOL":
            return (rng.random(count) < 0.5).astype(fmt.numpy_dtype)
        return rng.uniform(0.5, 1.5, count).astype(fmt.numpy_dtype)

    size = int(np.prod(shape, dtype=np.int64))
    strides = contiguous_strides(shape)
    if layout == "strided" and shape:
        return TensorArg(values(2 * size), shape, tuple(2 * s for s in strides), 0, dtype)
    wide = [a for a, n in enumerate(shape) if n > 1]
    if layout == "broadcast" and wide:
        axis = wide[0]
        kept = shape[:axis] + (1,) + shape[axis + 1:]
        inner = contiguous_strides(kept)
        return TensorArg(values(int(np.prod(kept, dtype=np.int64))), shape,
                         tuple(0 if a == axis else st for a, st in enumerate(inner)), 0, dtype)
    return TensorArg(values(size), shape, strides, 0, dtype)


def _layouts(contract: Contract, path: str) -> list[str]:
    """Each operand's layout on ``path``: strided, every operand that accepts a step; broadcast,
    the last operand that accepts stride 0 (a bias or a scale, as calls broadcast them)."""
    specs = contract.inputs
    if path == "strided":
        return ["strided" if s.layout.strided else "contiguous" for s in specs]
    if path == "broadcast":
        last = max((i for i, s in enumerate(specs) if s.layout.broadcast_stride0), default=None)
        return ["broadcast" if i == last else "contiguous" for i in range(len(specs))]
    return ["contiguous"] * len(specs)


def make_call(contract: Contract, plan: Plan, seed: int = 0, path: str = "contiguous") -> KernelCall:
    """A ``KernelCall`` with inputs laid out for ``path`` (one of ``PATHS``) and poison-filled
    outputs, as the executor would pass them."""
    from judge.executor import derived_params, output_dtypes, output_shapes, poison_output

    rng = np.random.default_rng(seed)
    inputs = [_operand(rng, shape, dtype, layout) for shape, dtype, layout
              in zip(plan.shapes, plan.dtypes, _layouts(contract, path), strict=True)]
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
