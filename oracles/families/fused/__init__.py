"""The fused family: FusedLinear (lhs @ rhs + bias, the bias added before the one rounding) and
FusedSoftmaxCrossEntropy (a stable log-softmax, the negative log-likelihood of each row's target
and an ignore_index mask in one pass; F32 out whatever the logits' dtype).

FusedLinear's exact dot products and derived bound are MatMul's with the bias as one more term
(``oracles.families.fused.linear``); the cross-entropy is correctly rounded through mpmath and
held to a bound derived from the vocabulary, the rows summed and the accumulator
(``oracles.families.fused.cross_entropy``). Contracts name the cross-entropy's output shape
``cross_entropy(logits, targets)``: [] for a mean or a sum, [n_rows] for none.
"""

from __future__ import annotations

from oracles import hints
from oracles.families.fused import cross_entropy, draw, linear
from oracles.family import Family, OutputShapeRule
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}  # the bound holds for any summation order

LINEAR_DOMAIN = ("out[b, i, j] = Σ_k lhs[b, i, k]·rhs[b', k, j] + bias[j], one rounding; b' as MatMul's "
                 "(GQA-divisible batch axes); inf·0 = NaN")
CE_DOMAIN = ("logits [n_rows, vocab], targets I64 in 0..vocab or ignore_index; loss_i = logsumexp(x_i) − "
             "x_i[t_i]; none: per row (+0 where ignored), sum, or mean over the rows not ignored (NaN "
             "if none); a NaN or +inf in a counted row makes its loss NaN, a −inf target +inf; F32 out")


def rows() -> list[OpDef]:
    return [
        OpDef("FusedLinear", 3, False, SUMS, linear.evaluate_linear, hints=hints.summation,
              domain=LINEAR_DOMAIN, reduction_bound="sum"),
        OpDef("FusedSoftmaxCrossEntropy", 2, False, {"nan": "propagate"},
              cross_entropy.evaluate_cross_entropy, domain=CE_DOMAIN, reduction_bound="sum"),
    ]


def _draw_shapes(draw_, contract, opdef, budget):
    if opdef.op_kind == "FusedLinear":
        return linear.draw_shapes(draw_, contract, opdef, budget)
    return draw.draw_shapes(draw_, contract, opdef, budget)


def _draw_input(opdef, i, dtype, shapes, params):
    return None if opdef.op_kind == "FusedLinear" else draw.draw_input(opdef, i, dtype, shapes, params)


def _long_case(contract, opdef, dtypes, longest, operand):
    if opdef.op_kind == "FusedLinear":
        return linear.long_case(contract, opdef, dtypes, longest, operand)
    return draw.long_case(contract, opdef, dtypes, longest, operand)


FAMILY = Family(
    name="fused",
    rows=rows,
    draw_shapes=_draw_shapes,
    draw_input=_draw_input,
    long_case=_long_case,
    shape_rules={"cross_entropy": OutputShapeRule((2, 2), cross_entropy.output_shape)},
)
