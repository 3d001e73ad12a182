"""The pad family: Pad over every axis (Constant with a fill element, Reflect, Replicate), which
copies bits, and PadBackward, which sums each output position's gradient into the input position
it read (``oracles.families.pad.evaluate``); cases, fills and the long replicated sums in
``oracles.families.pad.draw``. Contracts name their output shapes ``pad(x)`` (in_shape grown by
the padding) and ``pad_backward(grad_out)`` (in_shape).
"""

from __future__ import annotations

from oracles.families.pad.draw import draw_input, draw_shapes, long_case, size_plan
from oracles.families.pad.evaluate import (
    evaluate_pad,
    evaluate_pad_backward,
    pad_backward_shape,
    pad_shape,
)
from oracles.family import Family, OutputShapeRule
from oracles.opdef import COPY, OpDef

SUMS = {"nan": "propagate", "order": "free"}  # the gradients of one input, in any order


def rows() -> list[OpDef]:
    return [
        OpDef("Pad", 1, True, COPY, evaluate_pad, copies_bits=True,
              domain="per axis (before, after); mode_tag 0 Constant (fill_bytes), 1 Reflect "
                     "(no edge repeat, padding <= n - 1), 2 Replicate; bits copied"),
        OpDef("PadBackward", 1, False, SUMS, evaluate_pad_backward, reduction_bound="sum",
              domain="grad_in[q] = Σ grad_out[p] over the output positions p that read input q "
                     "(one under Constant); accumulated in the data's format"),
    ]


FAMILY = Family(
    name="pad",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    size_plan=size_plan,
    shape_rules={
        "pad": OutputShapeRule((1, 1), pad_shape),
        "pad_backward": OutputShapeRule((1, 1), pad_backward_shape),
    },
)
