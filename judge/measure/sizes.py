"""What is measured at size n: the geometric size range, and for one contract the shapes, op
params and contiguous inputs of a call whose primary input holds n elements.

Shapes follow the contract's accept clause: the lowest rank it accepts (at least 1; a reduction
takes rank 2 where it may, reducing the last axis of 256 elements), every operand of the
primary shape (``same_as`` and ``broadcast_to`` both hold), reductions' op params chosen over
the last axis. Values are drawn uniformly from [0.5, 1.5): inside every elementwise domain
(log, sqrt, recip, pow), never subnormal, so no slow path is timed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.contracts.model import Contract

# log2 of the default smallest and largest primary input, per device class: a CPU (and Mesa's
# lavapipe, which runs Vulkan on the CPU) stops at 2^20 elements, a CUDA device goes to 2^26.
DEFAULT_LOG2 = {"cpu": (4, 20), "vulkan": (4, 20), "cuda": (4, 26)}
REDUCED_AXIS = 256  # elements along the reduced (last) axis of a rank-2 reduction input


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


def _primary_shape(contract: Contract, n: int, reduces: bool) -> tuple[int, ...]:
    rank_range = contract.inputs[0].rank
    rank = max(rank_range.lo, 2 if reduces else 1)
    if rank_range.hi is not None:
        rank = min(rank, rank_range.hi)
    if rank == 0:
        raise ValueError(f"{contract.kernel}: accepts only rank 0, which has no size to vary")
    if rank == 1:
        return (n,)
    inner = min(n, REDUCED_AXIS)
    return (1,) * (rank - 2) + (n // inner, inner)


# Op params of the OpKinds that work along the last axis: (rows, row length, axis) -> params.
_ROWS = {
    "cumsum": lambda rows, length, axis: {"outer_count": rows, "dim_size": length,
                                          "inner_count": 1, "axis": axis},
    "softmax_last_dim": lambda rows, length, axis: {"outer_count": rows, "last_dim": length},
    "norm_last_dim": lambda rows, length, axis: {"outer_count": rows, "last_dim": length,
                                                 "eps": 2.0**-20},
}


def plan_call(contract: Contract, dtype: str, n: int) -> Plan:
    """The call measured at size ``n`` for dtype ``dtype`` (raises ValueError if none fits)."""
    import oracles
    from judge.strategies import input_dtypes

    opdef = oracles.get(contract.op_kind)
    if opdef.draw_shapes is not None and opdef.params not in _ROWS:
        raise ValueError(f"{contract.kernel}: {contract.op_kind} draws its own operand shapes and "
                         "op params; there is no size plan for it yet")
    key = opdef.params
    reduces = key in ("reduce_dims", "single_dim", "reduce_to", "reduce_to_backward", *_ROWS)
    shape = _primary_shape(contract, n, reduces)
    last = len(shape) - 1
    fields = contract.op_params
    if key == "none":
        params: dict[str, Any] = {}
    elif key in ("reduce_dims", "single_dim"):
        params = {"dims": [last], "keepdim": False}
    elif key in ("reduce_to", "reduce_to_backward"):
        params = {"input_shape": list(shape),
                  "output_shape": [1 if a == last else s for a, s in enumerate(shape)]}
    elif key == "affine":
        params = {"mul": _fixed(fields, "mul", 2.0), "add": _fixed(fields, "add", 0.5)}
    elif key == "clamp":
        names = ("lo", "hi") if fields.field("lo") is not None else ("min", "max")
        params = {names[0]: 0.75, names[1]: 1.25}
    elif key == "powi":
        params = {"exp": 3}
    elif key in _ROWS:  # along the last axis, in rows of its extent
        params = _ROWS[key](math.prod(shape[:-1]), shape[-1], last)
    else:
        raise ValueError(f"{contract.kernel}: no size plan for op-param generator {key!r}")
    shapes = []
    for i, _spec in enumerate(contract.inputs):
        if key == "reduce_to_backward" and i > 0:
            shapes.append(tuple(params["output_shape"]))
        else:
            shapes.append(shape)
    return Plan(n, tuple(shapes), tuple(input_dtypes(contract, dtype)), params)


def _fixed(fields, name: str, default: float) -> float:
    f = fields.field(name)
    if f is not None and f.constraint is not None:
        for part in (f.constraint, *f.constraint.parts):
            if part.kind == "eq":
                return float(part.value)
    return default


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
