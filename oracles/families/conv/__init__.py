"""The conv family: Conv2D and ConvTranspose2D (NCHW, groups, asymmetric padding, stride,
dilation; the transposed one with output padding), each with and without a bias, and the
depthwise CausalConv1d with an optional fused SiLU. Every output element is an exact dot product
rounded once and held to the derived bound of a dot product in any order (``dot``), the SiLU
correctly rounded through mpmath (``silu``); the op params tie the operands' shapes
(``geometry``, ``draw``). Contracts name its output shapes ``conv(x, w)``,
``conv_transpose(x, w)`` and ``causal_conv(x, weight)`` (op params' out_shape, checked).
"""

from __future__ import annotations

import math

from oracles.families.conv.draw import conv_hints, draw_input, draw_shapes, long_case
from oracles.families.conv.evaluate import (
    evaluate_causal_conv1d,
    evaluate_conv2d,
    evaluate_conv_transpose2d,
)
from oracles.families.conv.geometry import causal_shape, conv_shape
from oracles.family import Family, OutputShapeRule
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}  # SPEC §4: the bound holds for any summation order


def rows() -> list[OpDef]:
    def row(kind: str, evaluate, domain: str) -> OpDef:
        return OpDef(kind, 3, False, SUMS, evaluate, hints=conv_hints, domain=domain, reduction_bound="sum")

    return [
        row("Conv2D", evaluate_conv2d,
            "x [N, Cin, H, W], w [Cout, Cin/groups, Kh, Kw], optional bias [Cout]; padding "
            "[top, bottom, left, right] of zeros; a padded tap may be skipped or multiplied"),
        row("ConvTranspose2D", evaluate_conv_transpose2d,
            "x [N, Cin, H, W], w [Cin, Cout/groups, Kh, Kw], optional bias [Cout]; output row i "
            "reads input rows h with h·stride + kh·dilation = i + top; output_padding extends "
            "the bottom and right"),
        row("CausalConv1d", evaluate_causal_conv1d,
            "x [batch, channels, seq_out + kernel − 1] left-padded by its caller, weight "
            "[channels, kernel], bias [channels]; depthwise; SiLU on store where use_silu "
            "(silu(−inf) = −0)"),
    ]


def size_plan(contract, opdef, n):
    """x of n elements: 16 channels where n allows (one otherwise) and 3×3 taps over a spatial
    extent as square as n allows; a causal kernel of 4 taps (fewer below 4 steps)."""
    channels = 16 if n % 16 == 0 else 1
    if opdef.op_kind == "CausalConv1d":
        seq_in = n // channels
        kernel = min(4, seq_in)
        return ([(1, channels, seq_in), (channels, kernel), (channels,)],
                {"batch": 1, "channels": channels, "seq_in": seq_in, "seq_out": seq_in - kernel + 1,
                 "kernel": kernel, "use_silu": False})
    area = n // channels
    h = math.gcd(area, 1 << (area.bit_length() // 2))  # a power of two near the square root
    w = area // h
    shape = (channels, channels, 3, 3)
    params = {"x_shape": [1, channels, h, w], "w_shape": list(shape), "out_shape": [1, channels, h, w],
              "stride": [1, 1], "padding": [1, 1, 1, 1], "dilation": [1, 1], "groups": 1}
    if opdef.op_kind == "ConvTranspose2D":
        params["output_padding"] = [0, 0]
    return [(1, channels, h, w), shape, (channels,)][:len(contract.inputs)], params


FAMILY = Family(
    name="conv",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    size_plan=size_plan,
    shape_rules={
        "conv": OutputShapeRule((2, 2), conv_shape(False)),
        "conv_transpose": OutputShapeRule((2, 2), conv_shape(True)),
        "causal_conv": OutputShapeRule((2, 2), causal_shape),
    },
)
