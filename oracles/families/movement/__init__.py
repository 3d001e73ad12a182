"""The movement family (data movement): Concat, IndexSelect, Gather, Flip, Roll, Triu, Tril,
MaskedFill. They copy bits, so their outputs must carry the inputs' bits exactly, NaN payloads
and signed zeros included (``oracles.families.movement.evaluate``).

Each OpKind draws its operands' shapes with the op params Fuel's dispatch would pass, its
indices within their axis and its masks (``oracles.families.movement.draw``). Contracts name
two of its output shapes: ``concat(a, b, ...)`` joins along the op params' axis,
``index_select(source, indices)`` replaces the selected axis by the index count.
"""

from __future__ import annotations

from oracles.families.movement import evaluate as m
from oracles.families.movement.draw import draw_input, draw_shapes
from oracles.families.movement.refuse import break_rule
from oracles.family import Family, OutputShapeRule
from oracles.opdef import OpDef, copy_row


def rows() -> list[OpDef]:
    return [
        copy_row("Concat", 3, m.concat, "N = 3 inputs joined along axis; bits copied"),
        copy_row("IndexSelect", 2, m.index_select, "rank-1 U32 indices (repeats allowed) along one axis"),
        copy_row("Gather", 2, m.gather, "U32 indices of output_shape along dim"),
        copy_row("Flip", 1, m.flip, "reversed along axis"),
        copy_row("Roll", 1, m.roll, "cyclic shift by shift (signed, wraps) along axis"),
        copy_row("Triu", 1, m.triangular(True), "keep col - row >= diagonal, zero bits elsewhere"),
        copy_row("Tril", 1, m.triangular(False), "keep col - row <= diagonal, zero bits elsewhere"),
        copy_row("MaskedFill", 2, m.masked_fill, "fill_bytes where the U8 mask is nonzero"),
    ]


FAMILY = Family(
    name="movement",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    shape_rules={
        "concat": OutputShapeRule((1, None), m.concat_shape),
        "index_select": OutputShapeRule((2, 2), m.index_select_shape),
    },
    break_rule=break_rule,
)
