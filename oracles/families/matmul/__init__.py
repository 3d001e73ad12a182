"""The matmul family: MatMul, batched, where an rhs batch axis may divide the lhs one
(grouped-query attention): exact rational dot products rounded once, held to the derived bound
of a dot product in any order (``oracles.families.matmul.evaluate``).

Its operands' shapes are tied through the op params and drawn with them; its long case lays a
long k (``oracles.families.matmul.draw``). Contracts name its output shape ``matmul(lhs, rhs)``:
[..lhs batch.., m, n].
"""

from __future__ import annotations

from oracles import hints
from oracles.families.matmul.draw import draw_shapes, long_case
from oracles.families.matmul.evaluate import SUMS, evaluate_matmul, matmul_out_shape
from oracles.family import BatchRows, Family, OutputShapeRule
from oracles.opdef import OpDef


def rows() -> list[OpDef]:
    return [
        OpDef("MatMul", 2, False, SUMS, evaluate_matmul, hints=hints.summation,
              domain="out[b, i, j] = Σ_k lhs[b, i, k]·rhs[b', k, j]; b' = b / (lhs_dim / rhs_dim) "
                     "per batch axis; inf·0 = NaN; integer operands: an exact sum, stored by the "
                     "overflow rule",
              reduction_bound="sum"),
    ]


def batch_rows(contract, opdef, shapes, params):
    """The lhs rows (its m axis, for every batch) against the whole rhs: an output row is one
    lhs row's products, whatever else is in the batch."""
    axis = len(shapes[0]) - 2
    return BatchRows((axis, None), (axis,), lambda count: {**params, "m": count})


FAMILY = Family(
    name="matmul",
    rows=rows,
    draw_shapes=draw_shapes,
    long_case=long_case,
    long_share=2,  # a product is cheap to judge even over a long k, and the bugs of a split or
    # a narrow accumulator show on few of its patterns: half the cases are long
    shape_rules={"matmul": OutputShapeRule((2, 2), matmul_out_shape)},
    batch_rows=batch_rows,
)
