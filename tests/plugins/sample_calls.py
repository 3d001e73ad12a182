"""Small hand-built ``KernelCall``s for any contract, for adapter smoke tests on CPU and GPU.

Values are benign (no NaN, no overflow, no ties) so that a plain float64 expectation decides
whether an adapter wired an OpKind at all; edge-value semantics are the Judge's business.
Layouts: ``contiguous``, ``strided`` (every float operand a transposed view) and ``broadcast``
(the last float operand stride-0 along its first axis). Op params are the OpKind's example
params (``oracles.example_params``, its family's), with the contract's own fixed
field values on top.
"""

from __future__ import annotations

from typing import Any

import numpy as np

SHAPE = (2, 3)
VALUES = ((0.5, -1.25, 2.0), (3.0, -0.75, 1.5))
OTHER = ((1.5, 0.25, -2.0), (0.75, 1.25, 0.5))
COND = ((True, False, True), (False, True, False))
LAYOUTS = ("contiguous", "strided", "broadcast")


def hand_built(contract) -> bool:
    """Whether a hand-built call can exercise ``contract``: not for OpKinds whose family ties
    operand shapes and op params together (``Family.example_params`` is None: matmul, the
    data-movement family, ...); the suite run, through the family's own generator, and the
    family tests cover those."""
    import oracles

    return oracles.example_params(contract.op_kind, SHAPE) is not None


def sample_params(contract, in_shape: tuple[int, ...] = SHAPE) -> dict[str, Any]:
    """Op params within the contract's constraints for an input of ``in_shape``."""
    import oracles

    params = oracles.example_params(contract.op_kind, in_shape)
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
    from judge.api import TensorArg, contiguous_strides
    from numerics.formats import get_format

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


def sample_inputs(contract, dtype: str, params: dict[str, Any], layout: str = "contiguous") -> list:
    """One operand per input: ``VALUES`` then ``OTHER``; a condition gets ``COND``; an operand
    shaped by an op param (``same_as=output_shape``: a backward's upstream) gets 1, 2, ... in
    that shape."""
    float_count = sum(1 for spec in contract.inputs if spec.dtypes != ("BOOL",))
    inputs = []
    seen_float = 0
    for spec in contract.inputs:
        if spec.dtypes == ("BOOL",):
            inputs.append(tensor(COND, "BOOL"))
            continue
        seen_float += 1
        sc = spec.shape_constraint
        if sc is not None and sc.kind == "same_as" and sc.ref in params:
            shape = tuple(params[sc.ref])
            inputs.append(tensor(np.arange(1.0, np.prod(shape) + 1).reshape(shape), dtype))
            continue
        values = VALUES if seen_float == 1 else OTHER
        this_layout = layout
        if layout == "broadcast" and seen_float != float_count:
            this_layout = "contiguous"
        inputs.append(tensor(values, dtype, this_layout))
    return inputs


def sample_call(contract, dtype: str, layout: str = "contiguous"):
    """A ``KernelCall`` for ``contract`` with float dtype ``dtype``, outputs poison-filled (an
    output declared in place is its input's own memory, as the executor hands it)."""
    from judge.aliasing import aliases
    from judge.executor import output_dtypes, output_shapes, prepare_call

    params = sample_params(contract)
    inputs = sample_inputs(contract, dtype, params, layout)
    out_dtypes = output_dtypes(contract, tuple(t.dtype for t in inputs))
    out_shapes = output_shapes(contract, [t.shape for t in inputs], params)
    return prepare_call(tuple(inputs), params, out_shapes, out_dtypes,
                        f"{contract.kernel}-{dtype}-{layout}", aliases(contract))
