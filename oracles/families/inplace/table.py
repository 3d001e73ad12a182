"""The in-place OpKinds and the out-of-place twin each delegates to: one entry per OpKind."""

from __future__ import annotations

from dataclasses import replace

from oracles.opdef import OpDef

# In-place OpKind -> the out-of-place OpKind whose result it must equal.
TWINS: dict[str, str] = {
    "InplaceAffine": "Affine",
    "ClampInplace": "ClampElementwise",
    "PowIInplace": "PowIElementwise",
    "ReluInplace": "ReluElementwise",
    "SiluInplace": "SiluElementwise",
    "GeluInplace": "GeluElementwise",
    "TanhInplace": "TanhElementwise",
    "SigmoidInplace": "SigmoidElementwise",
    "NegInplace": "NegElementwise",
    "AbsInplace": "AbsElementwise",
    "SqrInplace": "SqrElementwise",
    "SqrtInplace": "SqrtElementwise",
    "RsqrtInplace": "RsqrtElementwise",
    "RecipInplace": "RecipElementwise",
    "ExpInplace": "ExpElementwise",
    "LogInplace": "LogElementwise",
    "SinInplace": "SinElementwise",
    "CosInplace": "CosElementwise",
    "SignInplace": "SignElementwise",
    "FloorInplace": "FloorElementwise",
    "CeilInplace": "CeilElementwise",
    "RoundInplace": "RoundElementwise",
    "ErfInplace": "ErfElementwise",
    "GeluErfInplace": "GeluErfElementwise",
}


def rows() -> list[OpDef]:
    """Each twin's row under its in-place name (the same evaluation and rules)."""
    from oracles.families.elementwise.table import rows as elementwise_rows

    twins = {row.op_kind: row for row in elementwise_rows()}
    return [_in_place(kind, twins[twin]) for kind, twin in TWINS.items()]


def _in_place(kind: str, twin: OpDef) -> OpDef:
    note = f"in place; the result of {twin.op_kind}"
    return replace(twin, op_kind=kind, domain=f"{note}: {twin.domain}" if twin.domain else note,
                   f64_reference=None)
