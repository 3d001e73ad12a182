"""The op table: for each OpKind, which kernel family runs it, its op id in that family's
selector, which dtypes the shaders implement, and how its params are packed.

Families: ``unary`` (strided F32/F16/F64 selector; BF16 is the contiguous pair-thread kernel),
``binary`` (per-operand strided, all four float dtypes), ``reduce`` (F32, contiguous, any axes),
``argreduce`` (contiguous, one axis, U32 out), ``move`` (data movement: any element size, bits),
``rows`` (last-axis softmax and norms: F32, contiguous, one workgroup per row), ``matmul`` (F32,
and the mixed-precision keys of ``OpEntry.mixed``, each its own program).
"""

from __future__ import annotations

from dataclasses import dataclass

from backends._move_params import MOVE_KINDS

WIDE = ("F32", "F16", "F64")
FLOATS = ("F32", "F16", "F64", "BF16")


@dataclass(frozen=True)
class OpEntry:
    family: str
    op_id: int
    dtypes: tuple[str, ...]
    params: str = "none"  # "none" | "affine" | "clamp" | "powi": see backends.kompute.params
    # Keys (input dtypes..., output dtype) of kernels beyond the plain ones: each its own program.
    mixed: tuple[tuple[str, ...], ...] = ()


def _unary(op_id: int) -> OpEntry:
    return OpEntry("unary", op_id, FLOATS)


OPS: dict[str, OpEntry] = {
    "NegElementwise": _unary(0),
    "SqrElementwise": _unary(1),
    "SqrtElementwise": _unary(2),
    "ExpElementwise": _unary(3),
    "LogElementwise": _unary(4),
    "SinElementwise": _unary(5),
    "CosElementwise": _unary(6),
    "TanhElementwise": _unary(7),
    "SigmoidElementwise": _unary(8),
    "SiluElementwise": _unary(9),
    "GeluElementwise": _unary(10),
    "ReluElementwise": _unary(11),
    "StepElementwise": _unary(12),
    "AbsElementwise": _unary(13),
    "SignElementwise": _unary(14),
    "RecipElementwise": _unary(15),
    "Affine": OpEntry("unary", 16, FLOATS, "affine"),
    "ClampElementwise": OpEntry("unary", 17, ("F32",), "clamp"),
    "PowIElementwise": OpEntry("unary", 18, ("F32",), "powi"),
    "AddElementwise": OpEntry("binary", 0, FLOATS),
    "SubElementwise": OpEntry("binary", 1, FLOATS),
    "MulElementwise": OpEntry("binary", 2, FLOATS),
    "DivElementwise": OpEntry("binary", 3, FLOATS),
    "MaximumElementwise": OpEntry("binary", 4, FLOATS),
    "MinimumElementwise": OpEntry("binary", 5, FLOATS),
    "SumReduce": OpEntry("reduce", 0, ("F32",)),
    "MaxReduce": OpEntry("reduce", 1, ("F32",)),
    "MinReduce": OpEntry("reduce", 2, ("F32",)),
    "MeanReduce": OpEntry("reduce", 3, ("F32",)),
    "ArgMaxDim": OpEntry("argreduce", 0, FLOATS),
    "ArgMinDim": OpEntry("argreduce", 1, FLOATS),
    "MatMul": OpEntry("matmul", 0, ("F32",), mixed=(
        ("F32", "BF16", "F32"), ("BF16", "BF16", "F32"), ("BF16", "BF16", "BF16"),
        ("F16", "F16", "F16"), ("F16", "F16", "F32"))),  # programs matmul_<lhs>_<rhs>_<out>
    "CumSum": OpEntry("cumsum", 0, FLOATS),
    "Cast": OpEntry("cast", 0, ("F32", "F16", "BF16", "F64", "F8E4M3")),  # pairs: backends.kompute.cast.PAIRS
    "SoftmaxLastDim": OpEntry("rows", 0, ("F32",)),
    "RmsNormLastDim": OpEntry("rows", 1, ("F32",)),
    "LayerNormLastDim": OpEntry("rows", 2, ("F32",)),
    **{kind: OpEntry("move", i, (*FLOATS, "U8", "U32", "I16", "I32", "I64")) for i, kind in enumerate(MOVE_KINDS)},
}


def program_name(entry: OpEntry, dtype: str) -> str:
    return f"{entry.family}_{dtype.lower()}"


def key_program(entry: OpEntry, key: tuple[str, ...]) -> str | None:
    """The program of a mixed key (``matmul_bf16_bf16_f32``), or None where the key has none."""
    return f"{entry.family}_{'_'.join(k.lower() for k in key)}" if key in entry.mixed else None
