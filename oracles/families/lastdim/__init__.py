"""The lastdim family, the row ops of the last axis: SoftmaxLastDim, LogSoftmaxLastDim,
RmsNormLastDim, LayerNormLastDim (no affine).

Correctly rounded through mpmath (softmax) or exact rationals (norms), each row held to a bound
derived from the row length and the accumulator (F32 for BF16/F16), which a softmax without the
max shift or a one-pass variance breaks. Their cases, params and long rows are in
``oracles.families.lastdim.draw``.
"""

from __future__ import annotations

import math

from oracles.families.lastdim.draw import (
    NORM,
    SOFTMAX,
    draw_input,
    draw_shapes,
    long_case,
    norm_hints,
    softmax_hints,
)
from oracles.families.lastdim.evaluate import row_op
from oracles.family import BatchRows, Family, plan_by_rule
from oracles.opdef import OpDef

ROWS = {"nan": "propagate"}

SOFTMAX_DOMAIN = ("rows of the last axis; a NaN or +inf in a row, or a row of only -inf, makes the "
                  "row NaN; -inf beside a finite maximum gives +0 (log-softmax: -inf)")
NORM_DOMAIN = ("rows of the last axis, no affine; eps > 0 is added before the square root; a NaN "
               "makes the row NaN; ±inf: RmsNorm gives ±0 for finite x and NaN for the infinite "
               "ones, LayerNorm a NaN row; an overflowed sum of squares (±0, or NaN) is admitted "
               "where the accumulator can overflow")


def rows() -> list[OpDef]:
    def row(kind, op_kind, params, hint, domain):
        return OpDef(op_kind, 1, False, ROWS, row_op(kind), params=params, hints=hint,
                     domain=domain, reduction_bound="sum")

    return [
        row("softmax", "SoftmaxLastDim", SOFTMAX, softmax_hints, SOFTMAX_DOMAIN),
        row("log_softmax", "LogSoftmaxLastDim", SOFTMAX, softmax_hints, SOFTMAX_DOMAIN),
        row("rms", "RmsNormLastDim", NORM, norm_hints, NORM_DOMAIN),
        row("layer", "LayerNormLastDim", NORM, norm_hints,
            NORM_DOMAIN + "; the population variance (divided by n)"),
    ]


def size_plan(contract, opdef, n):
    return plan_by_rule(contract, opdef, n, rows=True)


def batch_rows(contract, opdef, shapes, params):
    """Rows of the last axis, stacked along the first (``outer_count`` follows the count)."""
    shape = shapes[0]
    if len(shape) < 2:
        return None
    return BatchRows((0,), (0,), lambda count: {**params, "outer_count": count * math.prod(shape[1:-1])})


FAMILY = Family(
    name="lastdim",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    size_plan=size_plan,
    batch_rows=batch_rows,
)
