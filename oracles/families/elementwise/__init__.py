"""The elementwise family: unary ops (NegElementwise ... RoundElementwise), Affine,
ClampElementwise, PowIElementwise, binary arithmetic and extrema, the six comparisons and Where.

Output element i depends on the input elements broadcast to i alone. A case draws one free shape
for the primary operand (Where's: its values, not its BOOL condition) and lets every operand
whose shape constraint is ``broadcast_to`` broadcast to it; the op params follow their
``ParamRule`` (``oracles.families.elementwise.params``). An OpKind of two or three operands
also has its special-value grid judged on every item (``oracles.drawing.special_value_grid``).
"""

from __future__ import annotations

from oracles.drawing import free_shapes, special_value_grid
from oracles.families.elementwise.table import rows
from oracles.family import Family, plan_by_rule

# The operand whose shape the others broadcast to, where it is not the first.
PRIMARY = {"Where": 1}


def draw_shapes(draw, contract, opdef, budget):
    return free_shapes(draw, contract, opdef, budget, primary=PRIMARY.get(opdef.op_kind, 0))


def size_plan(contract, opdef, n):
    return plan_by_rule(contract, opdef, n, rows=False)


def example_params(opdef, shape):
    return opdef.params.example(shape) if opdef.params else {}


FAMILY = Family(
    name="elementwise",
    rows=rows,
    draw_shapes=draw_shapes,
    elementwise=True,
    size_plan=size_plan,
    example_params=example_params,
    value_grid=special_value_grid,
)
