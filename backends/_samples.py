"""Small hand-built ``KernelCall``s for any contract, for adapter smoke tests on CPU and GPU.

Values are benign (no NaN, no overflow, no ties) so that a plain float64 expectation decides
whether an adapter wired an OpKind at all; edge-value semantics are the Judge's business.
Layouts: ``contiguous``, ``strided`` (every float operand a transposed view) and ``broadcast``
(the last float operand stride-0 along its first axis).
"""

from __future__ import annotations

from typing import Any

SHAPE = (2, 3)
VALUES = ((0.5, -1.25, 2.0), (3.0, -0.75, 1.5))
OTHER = ((1.5, 0.25, -2.0), (0.75, 1.25, 0.5))
COND = ((True, False, True), (False, True, False))
LAYOUTS = ("contiguous", "strided", "broadcast")


def sample_params(contract, in_shape: tuple[int, ...] = SHAPE) -> dict[str, Any]:
    """Op params within the contract's constraints for an input of ``in_shape``."""
    kind = contract.op_kind
    params: dict[str, Any] = {}
    if kind in ("SumReduce", "MaxReduce", "MinReduce", "MeanReduce", "ArgMaxDim", "ArgMinDim"):
        params = {"dims": [len(in_shape) - 1], "keepdim": False}
    elif kind in ("ReduceSumTo", "ReduceMaxTo"):
        params = {"input_shape": list(in_shape), "output_shape": [1, *in_shape[1:]]}
    elif kind == "ReduceMaxToBackward":
        params = {"input_shape": list(in_shape), "output_shape": [*in_shape[:-1], 1]}
    elif kind == "PowIElementwise":
        params = {"exp": 3}
    elif kind == "Affine":
        params = {"mul": 2.0, "add": 0.5}
    elif kind == "ClampElementwise":
        params = {"min": -1.0, "max": 2.0}
    for f in contract.op_params.fields:
        if f.constraint is not None and f.constraint.kind == "eq":
            params[f.name] = float(f.constraint.value)
        elif f.name in ("lo", "hi") and f.name not in params:
            params[f.name] = {"lo": -1.0, "hi": 2.0}[f.name]
        elif f.name in ("n", "out_size"):
            params[f.name] = in_shape[0] * in_shape[1]
        elif f.name == "flags":
            params[f.name] = 1
    return params


def tensor(values, dtype: str, layout: str = "contiguous"):
    """A ``TensorArg`` holding ``values`` (2-D) in ``layout``."""
    import numpy as np

    from judge.api import TensorArg, contiguous_strides
    from judge.formats import get_format

    a = np.asarray(values, dtype=np.float64 if dtype != "BOOL" else bool)
    a = a.astype(get_format(dtype).numpy_dtype)
    if layout == "strided" and a.ndim == 2:
        base = np.ascontiguousarray(a.T).reshape(-1)  # column-major storage, read transposed
        return TensorArg(base, a.shape, (1, a.shape[0]), 0, dtype)
    if layout == "broadcast" and a.ndim == 2:
        base = np.ascontiguousarray(a[0]).reshape(-1)  # one row, repeated with stride 0
        return TensorArg(base, a.shape, (0, 1), 0, dtype)
    base = np.ascontiguousarray(a).reshape(-1)
    return TensorArg(base, a.shape, contiguous_strides(a.shape), 0, dtype)


def broadcast_rows(values):
    """What a ``broadcast`` layout of ``values`` holds: its first row, repeated."""
    return tuple(values[0] for _ in values)


def sample_inputs(contract, dtype: str, layout: str = "contiguous") -> list:
    kind = contract.op_kind
    names = [spec.name for spec in contract.inputs]
    float_count = sum(1 for spec in contract.inputs if spec.dtypes != ("BOOL",))
    inputs = []
    seen_float = 0
    for name, spec in zip(names, contract.inputs, strict=True):
        if spec.dtypes == ("BOOL",):
            inputs.append(tensor(COND, "BOOL"))
            continue
        seen_float += 1
        values = VALUES if seen_float == 1 else OTHER
        if kind == "ReduceMaxToBackward" and name != names[0]:
            inputs.append(tensor(((1.0,), (2.0,)), dtype))
            continue
        this_layout = layout
        if layout == "broadcast" and seen_float != float_count:
            this_layout = "contiguous"
        inputs.append(tensor(values, dtype, this_layout))
    return inputs


def sample_call(contract, dtype: str, layout: str = "contiguous"):
    """A ``KernelCall`` for ``contract`` with float dtype ``dtype``, outputs poison-filled."""
    from judge.api import KernelCall
    from judge.executor import output_dtypes, output_shapes, poison_output

    inputs = sample_inputs(contract, dtype, layout)
    params = sample_params(contract)
    out_dtypes = output_dtypes(contract, tuple(t.dtype for t in inputs))
    out_shapes = output_shapes(contract, [t.shape for t in inputs], params)
    outputs = [poison_output(s, d) for s, d in zip(out_shapes, out_dtypes, strict=True)]
    return KernelCall(inputs, params, outputs, list(out_dtypes), f"{contract.kernel}-{dtype}-{layout}")
