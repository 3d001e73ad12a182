"""The geometry of the convolutions, from Fuel's op params, checked against the operands.

Conv2D and ConvTranspose2D take NCHW activations and ``stride`` [sh, sw], ``padding`` [top,
bottom, left, right] (each side its own: asymmetric padding), ``dilation`` [dh, dw] and
``groups``; the transposed one also ``output_padding`` [oph, opw], the extra rows and columns
at the bottom and right of its output. CausalConv1d is depthwise over [batch, channels,
seq_in] with a [channels, kernel] weight; its input already carries kernel − 1 zeros on the left,
so seq_in = seq_out + kernel − 1.

    >>> conv2d_out(5, 3, 2, (1, 0), 1)   # H=5, Kh=3, stride 2, top 1 bottom 0, dilation 1
    2
    >>> transposed_out(2, 3, 2, (1, 0), 1, 1)   # H=2, Kh=3, stride 2, top 1, output_padding 1
    5
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


def conv2d_out(size: int, k: int, stride: int, pads: tuple[int, int], dilation: int) -> int:
    """Output extent of a direct convolution along one axis (floor division, as torch)."""
    span = size + pads[0] + pads[1] - dilation * (k - 1) - 1
    return span // stride + 1 if span >= 0 else 0


def transposed_out(size: int, k: int, stride: int, pads: tuple[int, int], dilation: int,
                   extra: int) -> int:
    """Output extent of a transposed convolution along one axis."""
    return (size - 1) * stride - pads[0] - pads[1] + dilation * (k - 1) + extra + 1


@dataclass(frozen=True)
class Conv:
    """One Conv2D / ConvTranspose2D call: shapes, stride, (top, bottom), (left, right), dilation,
    groups and output padding; ``transposed`` selects the weight layout and the geometry."""

    x: tuple[int, int, int, int]
    w: tuple[int, int, int, int]
    out: tuple[int, int, int, int]
    stride: tuple[int, int]
    pad_h: tuple[int, int]
    pad_w: tuple[int, int]
    dilation: tuple[int, int]
    groups: int
    output_padding: tuple[int, int] = (0, 0)
    transposed: bool = False

    @property
    def cin_per_group(self) -> int:
        return self.x[1] // self.groups

    @property
    def cout_per_group(self) -> int:
        return self.out[1] // self.groups

    def expected_out(self) -> tuple[int, int, int, int]:
        (n, _, h, w), (kh, kw) = self.x, self.w[2:]
        if self.transposed:
            cout = self.w[1] * self.groups
            return (n, cout, transposed_out(h, kh, self.stride[0], self.pad_h, self.dilation[0], self.output_padding[0]),
                    transposed_out(w, kw, self.stride[1], self.pad_w, self.dilation[1], self.output_padding[1]))
        return (n, self.w[0], conv2d_out(h, kh, self.stride[0], self.pad_h, self.dilation[0]),
                conv2d_out(w, kw, self.stride[1], self.pad_w, self.dilation[1]))


def _pair(params: Mapping[str, Any], name: str, default: int) -> tuple[int, int]:
    v = params.get(name, [default, default])
    v = [v, v] if isinstance(v, int) else list(v)
    if len(v) != 2:
        raise ValueError(f"{name} {v} is not a pair [h, w]")
    return int(v[0]), int(v[1])


def conv_of(params: Mapping[str, Any], shapes: Sequence[tuple[int, ...]], *, transposed: bool) -> Conv:
    """The call's geometry, checked: operand shapes equal x_shape / w_shape (bias [Cout]),
    channels divide into the groups, out_shape is what the geometry gives."""
    pad = [int(p) for p in params.get("padding", [0, 0, 0, 0])]
    if len(pad) != 4 or min(pad) < 0:
        raise ValueError(f"padding {pad} is not [top, bottom, left, right] of non-negative sides")
    c = Conv(tuple(int(v) for v in params["x_shape"]), tuple(int(v) for v in params["w_shape"]),
             tuple(int(v) for v in params["out_shape"]), _pair(params, "stride", 1),
             (pad[0], pad[1]), (pad[2], pad[3]), _pair(params, "dilation", 1), int(params.get("groups", 1)),
             _pair(params, "output_padding", 0) if transposed else (0, 0), transposed)
    what = "ConvTranspose2D" if transposed else "Conv2D"
    if tuple(shapes[0]) != c.x or tuple(shapes[1]) != c.w:
        raise ValueError(f"{what} x_shape {list(c.x)} / w_shape {list(c.w)} do not match the operands "
                         f"{[list(s) for s in shapes[:2]]}")
    g, cin, wc = c.groups, c.x[1], c.w[0 if transposed else 1]
    if g < 1 or cin % g or (transposed and wc != cin) or (not transposed and (c.w[0] % g or wc * g != cin)):
        raise ValueError(f"{what}: groups {g} do not divide x channels {cin} and weight {list(c.w)}")
    if min(c.stride) < 1 or min(c.dilation) < 1:
        raise ValueError(f"{what}: stride {list(c.stride)} and dilation {list(c.dilation)} must be >= 1")
    if c.expected_out() != c.out:
        raise ValueError(f"{what}: out_shape {list(c.out)} is not the {list(c.expected_out())} the geometry gives")
    if len(shapes) > 2 and tuple(shapes[2]) != (c.out[1],):
        raise ValueError(f"{what}: bias {list(shapes[2])} is not [{c.out[1]}]")
    return c


def conv_shape(transposed: bool):
    """The ``conv(x, w)`` / ``conv_transpose(x, w)`` output shape rule: out_shape, checked."""

    def shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
        return conv_of(params, shapes, transposed=transposed).out

    return shape


@dataclass(frozen=True)
class Causal:
    batch: int
    channels: int
    seq_in: int
    seq_out: int
    kernel: int
    silu: bool


def causal_of(params: Mapping[str, Any], shapes: Sequence[tuple[int, ...]]) -> Causal:
    """CausalConv1d's geometry, checked: x [batch, channels, seq_in], weight [channels, kernel],
    bias [channels], seq_in = seq_out + kernel − 1."""
    c = Causal(*(int(params[k]) for k in ("batch", "channels", "seq_in", "seq_out", "kernel")),
               bool(int(params.get("use_silu", 0))))
    want = [(c.batch, c.channels, c.seq_in), (c.channels, c.kernel), (c.channels,)]
    if [tuple(s) for s in shapes[:3]] != want[:len(shapes)]:
        raise ValueError(f"CausalConv1d params {dict(params)} do not match the operands {[list(s) for s in shapes]}")
    if c.kernel < 1 or c.seq_in != c.seq_out + c.kernel - 1:
        raise ValueError(f"CausalConv1d: seq_in {c.seq_in} must be seq_out {c.seq_out} + kernel {c.kernel} - 1")
    return c


def causal_shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
    """The ``causal_conv(x, weight)`` output shape rule: [batch, channels, seq_out]."""
    c = causal_of(params, shapes)
    return (c.batch, c.channels, c.seq_out)
