"""What every built-in adapter shares: op-param decoding, the NaN rule, dtype policy.

Nothing here computes a value: these helpers turn a contract and its op params into the
arguments a library kernel takes (axes, keepdim, accumulator dtype), the way a Fuel dispatch
wrapper decodes ``OpParams`` before calling its kernel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from backends import _move_params, _scatter_params, _slice_params

FLOAT_DTYPES = ("F32", "F64", "F16", "BF16")
HALF_DTYPES = ("F16", "BF16")

@dataclass(frozen=True)
class OpCall:
    """One kernel invocation as the per-library op tables see it.

    ``dtype``: the FKC dtype T of the float operands; ``out_dtypes``/``out_shapes``: what the
    executor pre-allocated; ``nan``: the contract's derived NaN rule (propagate, ignore,
    to_zero, unspecified), which selects between a library's documented NaN-propagating and
    NaN-ignoring kernels (np.maximum / np.fmax) where it has both; ``init``: ``identity`` where
    the contract states that an extremum fold starts from -inf / +inf (passed as the library's
    initial value), else ``unspecified``.
    """

    op_kind: str
    dtype: str
    params: Mapping[str, Any]
    out_dtypes: tuple[str, ...]
    out_shapes: tuple[tuple[int, ...], ...]
    nan: str
    init: str = "unspecified"

    @property
    def nan_ignore(self) -> bool:
        """NaN-as-missing: the NaN-ignoring extremum kernel is the contract's semantics."""
        return self.nan == "ignore"

    @property
    def accumulates_in_f32(self) -> bool:
        """Half inputs sum/mean in an f32 accumulator (every Fuel backend promotes them)."""
        return self.dtype in HALF_DTYPES


def make_op_call(contract, call) -> OpCall:
    """Decode a contract and a ``KernelCall`` into an ``OpCall``."""
    floats = [a.dtype for a in call.inputs if a.dtype != "BOOL"]
    dtype = floats[0] if floats else call.outputs[0].dtype
    return OpCall(
        op_kind=contract.op_kind,
        dtype=dtype,
        params=dict(call.params),
        out_dtypes=tuple(o.dtype for o in call.outputs),
        out_shapes=tuple(tuple(o.shape) for o in call.outputs),
        nan=nan_rule(contract),
        init=_rule(contract, "init"),
    )


def _rule(contract, key: str) -> str:
    semantics = getattr(contract, "semantics", None)
    rule = getattr(semantics, key, None)
    return rule.value if rule is not None else "unspecified"


def nan_rule(contract) -> str:
    semantics = getattr(contract, "semantics", None)
    if semantics is None:
        return "unspecified"
    return semantics.nan.value


def reduce_dims(params: Mapping[str, Any], ndim: int) -> tuple[tuple[int, ...], bool]:
    """``OpParams::Reduce { dims, keepdim }`` as (axes, keepdim)."""
    dims = params.get("dims", ())
    if isinstance(dims, int):
        dims = (dims,)
    axes = tuple(int(d) for d in dims)
    for d in axes:
        if not 0 <= d < max(ndim, 1):
            raise ValueError(f"reduce dim {d} is outside 0..{ndim} (params {dict(params)})")
    return axes, bool(params.get("keepdim", False))


def single_dim(params: Mapping[str, Any], ndim: int) -> tuple[int, bool]:
    """``ArgMax/ArgMinDim``: exactly one dim."""
    axes, keepdim = reduce_dims(params, ndim)
    if len(axes) != 1:
        raise ValueError(f"Arg*Dim expects exactly one dim, got dims={list(axes)}")
    return axes[0], keepdim


def reduce_to_axes(params: Mapping[str, Any], in_shape: Sequence[int]) -> tuple[int, ...]:
    """The axes a broadcast-target reduction folds: those where the target has extent 1.

    ``output_shape`` is left-padded with 1s to the input rank (a target of lower rank means
    the leading axes are summed away, as in a broadcast-reverse gradient).
    """
    out_shape = tuple(int(s) for s in params.get("output_shape", in_shape))
    rank = len(in_shape)
    if len(out_shape) > rank:
        raise ValueError(f"output_shape {list(out_shape)} has higher rank than input {list(in_shape)}")
    padded = (1,) * (rank - len(out_shape)) + out_shape
    axes = []
    for i, (n_in, n_out) in enumerate(zip(in_shape, padded, strict=True)):
        if n_out == n_in:
            continue
        if n_out != 1:
            raise ValueError(
                f"output_shape {list(out_shape)} axis {i} is {n_out}; expected {n_in} or 1"
            )
        axes.append(i)
    return tuple(axes)


def padded_target(params: Mapping[str, Any], in_shape: Sequence[int]) -> tuple[int, ...]:
    out_shape = tuple(int(s) for s in params.get("output_shape", in_shape))
    return (1,) * (len(in_shape) - len(out_shape)) + out_shape


def clamp_bounds(params: Mapping[str, Any]) -> tuple[float, float]:
    """(lo, hi) of a Clamp: CPU contracts name them min/max, Vulkan ones lo/hi."""
    lo = params["min"] if "min" in params else params["lo"]
    hi = params["max"] if "max" in params else params["hi"]
    return float(lo), float(hi)


# The dtypes an adapter wires an OpKind for, where they are not the four float formats
# (BOOL conditions, U32 indices, U8 masks, integer data moved byte for byte, casts).
DTYPES_BY_KIND: dict[str, tuple[str, ...]] = {
    "Where": (*FLOAT_DTYPES, "BOOL"),
    "PagedAttn": (*FLOAT_DTYPES, "U32"),  # the block table and context lengths
    "Cast": (*FLOAT_DTYPES, "F8E4M3", "I32", "U32", "I64", "U8"),
    "FusedSoftmaxCrossEntropy": (*FLOAT_DTYPES, "I64"),  # I64 targets
    **{kind: (*FLOAT_DTYPES, "U8", "U32", "I16", "I32", "I64") for kind in _move_params.MOVE_KINDS},
    "QMatMul": ("F32", "U32"),  # activations, GGUF weight blocks as words
    "Nf4Matmul": ("F32", "F16", "BF16", "U8"),  # activations, packed nibbles, F32 absmax
    "Pad": (*FLOAT_DTYPES, "U8", "U32"),
    "MatMul": (*FLOAT_DTYPES, "I8", "U8"),  # integer operands: an I32 accumulator
    "Affine": (*FLOAT_DTYPES, "I32", "I64", "U8"),  # integer x: F64 math, rounded and clamped
    **{kind: (*FLOAT_DTYPES, "U32") for kind in _scatter_params.SCATTER_KINDS},  # U32 indices
    **{kind: (*FLOAT_DTYPES, *_slice_params.SLICE_DTYPES) for kind in _slice_params.SLICE_KINDS},
}
# Kernels that move bits without arithmetic: an adapter without T (cupy's BF16) moves their bit
# patterns instead of widening, which would quiet a signalling NaN.
BIT_COPIES = (*_move_params.MOVE_KINDS, *_slice_params.SLICE_KINDS, "Pad")


def check_dtypes(op_kind: str | None, dtypes: Sequence[str], *, library: str, wired) -> bool | str:
    """True if ``op_kind`` is in the adapter's table ``wired`` and ``dtypes`` are covered."""
    if op_kind not in wired:
        return f"{library} adapter has no kernel wired for OpKind {op_kind!r}"
    allowed = DTYPES_BY_KIND.get(op_kind, FLOAT_DTYPES)
    bad = [d for d in dtypes if d not in allowed]
    if bad:
        return f"{library} adapter wires {op_kind} for {', '.join(allowed)} only, not {bad}"
    return True


def int_affine(xp, x, mul: float, add: float, *, rint, cast, float64, iinfo):
    """Affine on an integer tensor the way a numpy-API or torch program writes it (``cast``:
    (array, dtype) -> the array converted, ``astype`` or ``to``): ``mul·x + add`` in float64 (exact while |mul·x| stays below 2^53), rounded half to even (``rint``), clamped
    to T's range and cast back. T's largest I64 rounds up to 2^63 in float64, which no cast
    holds, so the ends are written as integers where a result reaches them."""
    info = iinfo(x.dtype)
    y = rint(cast(x, float64) * mul + add)
    high, low = y >= float(info.max), y <= float(info.min)
    inside = cast(xp.where(high | low, 0.0, y), x.dtype)
    return xp.where(high, info.max, xp.where(low, info.min, inside))


def cast_scalar(value: float, np_dtype) -> float:
    """``cst(c)``: the op-param scalar rounded to the tensor dtype T, as a Python float."""
    import numpy as np

    return float(np.asarray(value, dtype=np.float64).astype(np_dtype))


class AdapterError(RuntimeError):
    """The library returned something the adapter cannot hand back as the contract's output."""


def store_outputs(call, results: Sequence[Any]) -> list:
    """Store host results into the executor's pre-allocated outputs, as ``out=`` would.

    A result of the output's shape is written with numpy's ``same_kind`` casting (the narrowing
    store a wrapper's ``out=`` performs, e.g. an f32 result into a BF16 output). A result that
    cannot be stored that way (wrong shape, or a cast across kinds) is handed back unchanged,
    so the Judge's shape and dtype checks report what the library returned.
    """
    import numpy as np

    if len(results) != len(call.outputs):
        raise AdapterError(f"{len(results)} results for {len(call.outputs)} outputs")
    stored = []
    for out, result in zip(call.outputs, results, strict=True):
        result = np.asarray(result)
        target = out.base[out.offset : out.offset + out.size].reshape(out.shape)
        storable = result.shape == tuple(out.shape) and np.can_cast(
            result.dtype, target.dtype, casting="same_kind"
        )
        if storable and target.flags.writeable:
            np.copyto(target, result, casting="same_kind")
            stored.append(target)
        elif storable:  # a read-only output buffer: hand back a replacement instead
            stored.append(result.astype(target.dtype))
        else:
            stored.append(result)
    return stored


def in_place(contract) -> bool:
    """The contract declares its output in place of an input (``aliasing: in_place(x)``): the
    executor hands the target as ``outputs[0]``, over the input's own memory."""
    return any(getattr(o, "aliasing", "none") != "none" for o in getattr(contract, "outputs", ()))


def other_inputs(contract, call) -> list:
    """The inputs of an in-place call besides the one its output is declared in place of (a
    slab write's source, a ring's position), in contract order; the target itself reaches the
    kernel as ``outputs[0]``."""
    targets = {getattr(o, "aliasing", "none") for o in contract.outputs}
    return [arg for spec, arg in zip(contract.inputs, call.inputs, strict=True) if spec.name not in targets]


def writable_view(arg):
    """A writable numpy view of a ``TensorArg`` (its shape, strides and offset; no copy)."""
    import numpy as np

    if arg.size == 0:
        return np.empty(arg.shape, dtype=arg.base.dtype)
    item = arg.base.itemsize
    return np.lib.stride_tricks.as_strided(
        arg.base[arg.offset:], shape=arg.shape, strides=tuple(s * item for s in arg.strides),
        writeable=True)
