"""Rope and the convolutions for torch (CPU and CUDA), merged into ``_torch_ops.TORCH_TABLE``.

BF16 and F16 operands are widened to the float32 accumulator first and the result rounded to T
once, as a Fuel wrapper passes them:

- Rope: ``x·cos + rotate(x)·sin`` (torch has no rope kernel; rotate_half with ``torch.cat``,
  interleaved pairs with ``torch.stack``);
- Conv2D: ``torch.nn.functional.conv2d``; a padding that differs between the two sides of an
  axis (which conv2d's own argument cannot say) goes through ``F.pad`` first;
- ConvTranspose2D: ``F.conv_transpose2d``; asymmetric padding crops its unpadded output
  (output padding at the bottom and right, as torch places it);
- CausalConv1d: ``F.conv1d`` with ``groups=channels`` on the pre-padded input, ``F.silu`` where
  asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends._conv_params import causal_args, conv_args, rope_interleaved


def _widened(env, args):
    return [a.to(env.acc) if env.acc is not None else a for a in args]


def _rope(env, args: Sequence[Any]):
    torch = env.torch
    x, cos, sin = _widened(env, args)
    d = x.shape[-1]
    if rope_interleaved(env.op.params):
        rotated = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).reshape(x.shape)
    else:
        rotated = torch.cat((-x[..., d // 2:], x[..., : d // 2]), dim=-1)
    return (x * cos + rotated * sin).to(args[0].dtype)


def _conv2d(env, args: Sequence[Any]):
    F = env.torch.nn.functional
    a = conv_args(env.op.params)
    x, w, *bias = _widened(env, args)
    bias = bias[0] if bias else None
    if a.symmetric:
        out = F.conv2d(x, w, bias, a.stride, (a.top, a.left), a.dilation, a.groups)
    else:
        x = F.pad(x, (a.left, a.right, a.top, a.bottom))
        out = F.conv2d(x, w, bias, a.stride, 0, a.dilation, a.groups)
    return out.to(args[0].dtype)


def _conv_transpose2d(env, args: Sequence[Any]):
    F = env.torch.nn.functional
    a = conv_args(env.op.params)
    x, w, *bias = _widened(env, args)
    bias = bias[0] if bias else None
    if a.symmetric:
        out = F.conv_transpose2d(x, w, bias, a.stride, (a.top, a.left), a.output_padding, a.groups, a.dilation)
    else:  # unpadded, with the output padding the crop still reaches, then cropped
        extra = (max(0, a.output_padding[0] - a.bottom), max(0, a.output_padding[1] - a.right))
        full = F.conv_transpose2d(x, w, bias, a.stride, 0, extra, a.groups, a.dilation)
        out = full[:, :, a.top: a.top + a.out_hw[0], a.left: a.left + a.out_hw[1]]
    return out.to(args[0].dtype)


def _causal_conv1d(env, args: Sequence[Any]):
    F = env.torch.nn.functional
    kernel, seq_out, silu = causal_args(env.op.params)
    x, w, bias = _widened(env, args)
    out = F.conv1d(x, w.unsqueeze(1), bias, groups=x.shape[1])
    if silu:
        out = F.silu(out)
    return out.to(args[0].dtype)


TORCH_CONV: dict = {
    "Rope": _rope,
    "Conv2D": _conv2d,
    "ConvTranspose2D": _conv_transpose2d,
    "CausalConv1d": _causal_conv1d,
}
