"""The rope family: Rope, the rotary position embedding out = x·cos + rotate(x)·sin over the last
axis, with cos/sin tables of [seq, head_dim] shared by every outer index, in either pairing
(rotate_half or interleaved, fixed by the contract's ``interleaved`` op param): two exact
products and a sum rounded once, held to the derived bound of a dot product of length two
(``oracles.families.rope.evaluate``).
"""

from __future__ import annotations

from oracles.families.rope.draw import draw_shapes, rope_hints, size_plan
from oracles.families.rope.evaluate import evaluate_rope
from oracles.family import Family
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}  # a sum of two products, in either order


def rows() -> list[OpDef]:
    return [
        OpDef("Rope", 3, False, SUMS, evaluate_rope, hints=rope_hints,
              domain="x [..outer.., seq, head_dim], cos/sin [seq, head_dim]; out[i] = x[i]·cos[i] "
                     "+ sign·x[j]·sin[i] with (j, sign) = (i ± d/2, ∓) for rotate_half, "
                     "(i ± 1, ∓) for interleaved pairs; inf·0 = NaN",
              reduction_bound="sum"),
    ]


FAMILY = Family(
    name="rope",
    rows=rows,
    draw_shapes=draw_shapes,
    size_plan=size_plan,
)
