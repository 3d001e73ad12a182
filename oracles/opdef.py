"""The shape of one oracle table entry."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracles.output import OracleOutput


@dataclass(frozen=True)
class OpDef:
    """Everything the Judge knows about one OpKind, in one place.

    op_kind: the FKC OpKind name ("ExpElementwise").
    family: "unary" | "binary" | "compare" | "where" | "reduce" | "argreduce" | "reduce_to"
        | "reduce_to_backward" | "affine" | "clamp" | "powi" | "move" (data movement) | "other".
    arity: number of tensor inputs.
    exact: exact by definition (SPEC §4 list): must match the oracle bit for bit.
    defaults: default semantic rules {"nan": ..., "ties": ..., "rounding": ..., "remainder": ...}
        using the vocabulary of ``judge.contracts.model.SEMANTIC_VALUES``.
    nan_rules: the NaN rules this OpKind can be evaluated under (e.g. extrema: propagate, ignore);
        empty where no NaN rule applies (comparisons are IEEE: a NaN operand is unordered).
    params: key of the op-param generator in ``oracles.params`` ("none", "reduce_dims",
        "single_dim", "reduce_to", "reduce_to_backward", "affine", "clamp", "powi").
    hints: function (format name) -> list of Python floats worth testing for this op
        (e.g. exp near its overflow threshold), all representable in that format.
    evaluate: function (inputs, params, out_dtypes, rules) -> list[OracleOutput]; ``inputs`` are
        logical contiguous numpy arrays (BF16 as ml_dtypes.bfloat16, BOOL as bool), ``params``
        the op params by contract field name, ``rules`` the derived semantics values.
    domain: optional human note on the domain (for ``judge show``).
    reduction_bound: "sum" | "mean" where SPEC §4's derived reduction bound (n-1)·u_acc·Σ|x|
        (divided by n for a mean) holds when the contract declares no bound; None otherwise.
    sweep_inputs: what an exhaustive 16-bit sweep feeds it: "all" (every bit pattern) or "grid"
        (every pair of the documented value grid); None where it is not swept.
    f64_reference: (torch function evaluated in F64, the F64 max ulp CUDA documents for it) for
        exhaustive F32 sweeps on a GPU, which certify that reference; None where there is none.
    nonempty: the result of an empty reduction is undefined (no identity element: extrema,
        arg-extrema, a mean, a max's backward), so generated cases never reduce an empty axis.
    draw_shapes: for OpKinds whose operands' shapes depend on each other or on the params
        (matmul, concat, gather): a function (contract, budget) -> Hypothesis strategy of
        (input shapes, op params); None: the family's default (``judge.strategies``).
    out_shape: for the OpKind-defined shape rules (``OP_SHAPE_RULES`` in the contracts): a
        function (the shapes of the operands the rule names, op params) -> output shape.
    draw_input: for operands whose values are not free (indices within an axis, a mask): a
        function (input position, dtype, shapes, params) -> Hypothesis strategy of the stored
        array (logical shape, C order), or None where the default value generator applies.
    copies_bits: the op moves its inputs' bits without arithmetic (concat, gather, flip, ...):
        its outputs must carry them exactly, NaN payloads included (the ``payload`` check).
    """

    op_kind: str
    family: str
    arity: int
    exact: bool
    defaults: Mapping[str, str]
    evaluate: Callable[[Sequence[np.ndarray], Mapping[str, Any], Sequence[str], Mapping[str, str]], list[OracleOutput]]
    params: str = "none"
    hints: Callable[[str], list[float]] = field(default=lambda fmt: [])
    nan_rules: tuple[str, ...] = ("propagate",)
    domain: str = ""
    reduction_bound: str | None = None
    sweep_inputs: str | None = None
    f64_reference: tuple[str, int] | None = None
    nonempty: bool = False
    draw_shapes: Callable[[Any, Any], Any] | None = None
    out_shape: Callable[[Sequence[tuple[int, ...]], Mapping[str, Any]], tuple[int, ...]] | None = None
    draw_input: Callable[[int, str, Sequence[tuple[int, ...]], Mapping[str, Any]], Any] | None = None
    copies_bits: bool = False

    def __post_init__(self):  # the certified vectorised fast path of SPEC §6 (oracles.fast)
        from oracles.fast import accelerate

        object.__setattr__(self, "evaluate", accelerate(self.op_kind, self.evaluate))
