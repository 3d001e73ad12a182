"""Fuel's op params of the rope, convolution and pad kernels decoded into the arguments a
library kernel takes (shared by the numpy-API and torch tables): the rope pairing, a
convolution's stride / padding sides / dilation / groups, a pad's per-axis sides, mode and
fill element.

    >>> conv_args({"stride": [2, 1], "padding": [1, 0, 2, 2], "dilation": [1, 1], "groups": 1,
    ...            "out_shape": [1, 1, 3, 4]}).symmetric
    False
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

PAD_MODES = {0: "constant", 1: "reflect", 2: "replicate"}
CONV_KINDS = ("Conv2D", "ConvTranspose2D", "CausalConv1d")
PAD_KINDS = ("Pad", "PadBackward")


def rope_interleaved(params: Mapping[str, Any]) -> bool:
    """Rope: pairs (2m, 2m + 1) where the call says ``interleaved``, else (i, i + head_dim/2)."""
    return bool(int(float(params.get("interleaved", 0) or 0)))


@dataclass(frozen=True)
class ConvArgs:
    stride: tuple[int, int]
    top: int
    bottom: int
    left: int
    right: int
    dilation: tuple[int, int]
    groups: int
    output_padding: tuple[int, int]
    out_hw: tuple[int, int]

    @property
    def symmetric(self) -> bool:
        """Each axis padded alike on both sides: what a library's own padding argument takes."""
        return self.top == self.bottom and self.left == self.right


def conv_args(params: Mapping[str, Any]) -> ConvArgs:
    """Conv2D / ConvTranspose2D: padding is [top, bottom, left, right]."""
    top, bottom, left, right = (int(p) for p in params.get("padding", [0, 0, 0, 0]))
    pair = lambda name, d: tuple(int(v) for v in params.get(name, [d, d]))  # noqa: E731
    out = [int(v) for v in params["out_shape"]]
    return ConvArgs(pair("stride", 1), top, bottom, left, right, pair("dilation", 1),
                    int(params.get("groups", 1)), pair("output_padding", 0), (out[2], out[3]))


def causal_args(params: Mapping[str, Any]) -> tuple[int, int, bool]:
    """CausalConv1d: (kernel, seq_out, use_silu)."""
    return int(params["kernel"]), int(params["seq_out"]), bool(int(params.get("use_silu", 0)))


def pad_args(params: Mapping[str, Any]) -> tuple[list[tuple[int, int]], str]:
    """Pad / PadBackward: per-axis (before, after) and the mode's name."""
    mode = int(params.get("mode_tag", 0))
    if mode not in PAD_MODES:
        raise ValueError(f"mode_tag {mode} is not 0 (Constant), 1 (Reflect) or 2 (Replicate)")
    return [(int(b), int(a)) for b, a in params["padding"]], PAD_MODES[mode]
