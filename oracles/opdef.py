"""The shape of one oracle table entry, and of the op-param rule an entry may carry."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracles.output import OracleOutput

Shape = tuple[int, ...]


@dataclass(frozen=True)
class ParamRule:
    """How an OpKind's op params follow from the shape of its primary operand.

    draw: (draw, shape, the contract's op params, nonempty) -> the params of a generated case,
        drawn with Hypothesis' ``draw``; the contract's field constraints (``== 1.0``) win over
        what the rule would draw. ``nonempty``: no reduced axis may be empty.
    measure: (shape, the contract's op params) -> the params of a call ``judge measure`` times.
    example: shape -> one benign set for a hand-built call (adapter smoke tests), or None where
        the family builds no such call.

    >>> from oracles.families.reductions.params import REDUCE_DIMS
    >>> REDUCE_DIMS.measure((16, 256), None)
    {'dims': [1], 'keepdim': False}
    """

    draw: Callable[[Any, Shape, Any, bool], dict[str, Any]]
    measure: Callable[[Shape, Any], dict[str, Any]]
    example: Callable[[Shape], dict[str, Any]] | None = None


@dataclass(frozen=True)
class OpDef:
    """Everything the oracle table knows about one OpKind, in one place. Its family
    (``oracles.family.Family``, found with ``oracles.family_of``) knows how to draw its cases,
    how its outputs map to its inputs and what ``judge measure`` times.

    The families and their OpKinds (one package each under ``oracles/families/``):

    - ``elementwise``: the unary ops (NegElementwise ... RoundElementwise), Affine,
      ClampElementwise, PowIElementwise, the binary arithmetic ops, MaximumElementwise and
      MinimumElementwise, the six comparisons and Where;
    - ``reductions``: SumReduce, MeanReduce, MaxReduce, MinReduce, ReduceSumTo, ReduceMaxTo,
      ReduceMaxToBackward, ArgMaxDim, ArgMinDim;
    - ``matmul``: MatMul (batched, grouped-query batch axes);
    - ``cumsum``: CumSum;
    - ``cast``: Cast;
    - ``movement``: Concat, IndexSelect, Gather, Flip, Roll, Triu, Tril, MaskedFill;
    - ``lastdim``: SoftmaxLastDim, LogSoftmaxLastDim, RmsNormLastDim, LayerNormLastDim;
    - ``attention``: FlashAttn, FlashAttnBackwardQ, FlashAttnBackwardK, FlashAttnBackwardV, PagedAttn.

    op_kind: the FKC OpKind name ("ExpElementwise").
    arity: number of tensor inputs.
    exact: exact by definition (SPEC §4 list): must match the oracle bit for bit.
    defaults: default semantic rules {"nan": ..., "ties": ..., "rounding": ..., "remainder": ...}
        using the vocabulary of ``judge.contracts.model.SEMANTIC_VALUES``.
    evaluate: function (inputs, params, out_dtypes, rules) -> list[OracleOutput]; ``inputs`` are
        logical contiguous numpy arrays (BF16 as ml_dtypes.bfloat16, BOOL as bool), ``params``
        the op params by contract field name, ``rules`` the derived semantics values.
    params: the ``ParamRule`` its op params follow; None where it takes none, or where its
        family draws them together with the operands' shapes (MatMul, CumSum, Cast, movement).
    hints: function (format name) -> list of Python floats worth testing for this op
        (e.g. exp near its overflow threshold), all representable in that format.
    nan_rules: the NaN rules this OpKind can be evaluated under (e.g. extrema: propagate, ignore);
        empty where no NaN rule applies (comparisons are IEEE: a NaN operand is unordered).
    domain: optional human note on the domain (for ``judge show``).
    reduction_bound: "sum" | "mean" where SPEC §4's derived reduction bound (n-1)·u_acc·Σ|x|
        (divided by n for a mean) holds when the contract declares no bound; None otherwise.
    sweep_inputs: what an exhaustive 16-bit sweep feeds it: "all" (every bit pattern) or "grid"
        (every pair of the documented value grid); None where it is not swept.
    f64_reference: (the C library's function evaluated in F64, the F64 max ulp CUDA documents
        for it), which the exhaustive sweeps certify: the F32 sweeps on a GPU of a unary OpKind,
        the 16-bit pair sweeps of a binary one; None where there is none.
    nonempty: the result of an empty reduction is undefined (no identity element: extrema,
        arg-extrema, a mean, a max's backward), so generated cases never reduce an empty axis.
    copies_bits: the op moves its inputs' bits without arithmetic (concat, gather, flip, ...):
        its outputs must carry them exactly, NaN payloads included (the ``payload`` check).
    """

    op_kind: str
    arity: int
    exact: bool
    defaults: Mapping[str, str]
    evaluate: Callable[[Sequence[np.ndarray], Mapping[str, Any], Sequence[str], Mapping[str, str]], list[OracleOutput]]
    params: ParamRule | None = None
    hints: Callable[[str], list[float]] = field(default=lambda fmt: [])
    nan_rules: tuple[str, ...] = ("propagate",)
    domain: str = ""
    reduction_bound: str | None = None
    sweep_inputs: str | None = None
    f64_reference: tuple[str, int] | None = None
    nonempty: bool = False
    copies_bits: bool = False

    def __post_init__(self):  # the certified vectorised fast path of SPEC §6 (oracles.fast)
        from oracles.fast import accelerate

        object.__setattr__(self, "evaluate", accelerate(self.op_kind, self.evaluate))


COPY = {"nan": "propagate"}  # a copy carries a NaN (and its payload) through unchanged


def copy_row(kind: str, arity: int, evaluate, domain: str) -> OpDef:
    """The row of an OpKind that moves bits without arithmetic: exact, NaN carried through."""
    return OpDef(kind, arity, True, COPY, evaluate, nan_rules=("propagate",), domain=domain,
                 copies_bits=True)
