"""Rope and the convolutions for numpy-API libraries (numpy, cupy), merged into
``_xp_ops.XP_TABLE``. Neither library has these kernels, so each is composed as a Fuel
wrapper would compose it, every operand held in the accumulator dtype (float32 for BF16/F16) and
the result rounded to T once:

- Rope: ``x·cos + rotate(x)·sin`` with rotate_half (``concatenate``) or interleaved pairs
  (``stack``), the [seq, head_dim] tables broadcast over the outer axes;
- Conv2D: the input padded with zeros (``pad``, each side its own), then one ``einsum`` over the
  group's channels per kernel tap, summed over the taps;
- ConvTranspose2D: each tap's ``einsum`` scattered into a strided slice of the full output,
  which is then cropped by the padding (output padding lands at the bottom and right);
- CausalConv1d: the taps summed over shifted windows of the pre-padded input, plus the bias,
  then SiLU as x·sigmoid(x) in the split form (no overflowing exp) where asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends._conv_params import causal_args, conv_args, rope_interleaved


def _rope(env, args: Sequence[Any]):
    xp = env.xp
    x, cos, sin = (a.astype(env.acc) for a in args)
    d = x.shape[-1]
    if rope_interleaved(env.op.params):
        rotated = xp.stack((-x[..., 1::2], x[..., 0::2]), axis=-1).reshape(x.shape)
    else:
        rotated = xp.concatenate((-x[..., d // 2:], x[..., : d // 2]), axis=-1)
    return (x * cos + rotated * sin).astype(env.compute)


def _grouped(w, groups: int):
    """A [Cout, Cin/g, Kh, Kw] weight as [g, Cout/g, Cin/g, Kh, Kw]."""
    return w.reshape(groups, w.shape[0] // groups, *w.shape[1:])


def _conv2d(env, args: Sequence[Any]):
    xp, a = env.xp, conv_args(env.op.params)
    x, w = args[0].astype(env.acc), args[1].astype(env.acc)
    x = xp.pad(x, ((0, 0), (0, 0), (a.top, a.bottom), (a.left, a.right)))
    n, cin = x.shape[:2]
    (ho, wo), (kh_n, kw_n) = a.out_hw, w.shape[2:]
    wg = _grouped(w, a.groups)
    out = xp.zeros((n, a.groups, wg.shape[1], ho, wo), dtype=env.acc)
    for kh in range(kh_n):
        for kw in range(kw_n):
            r, c = kh * a.dilation[0], kw * a.dilation[1]
            window = x[:, :, r: r + a.stride[0] * (ho - 1) + 1: a.stride[0], c: c + a.stride[1] * (wo - 1) + 1: a.stride[1]]
            window = window.reshape(n, a.groups, cin // a.groups, ho, wo)
            out += xp.einsum("ngchw,goc->ngohw", window, wg[:, :, :, kh, kw])
    return _biased(env, out.reshape(n, w.shape[0], ho, wo), args)


def _biased(env, out, args):
    if len(args) > 2:
        out = out + args[2].astype(env.acc).reshape(1, -1, 1, 1)
    return out.astype(env.compute)


def _conv_transpose2d(env, args: Sequence[Any]):
    xp, a = env.xp, conv_args(env.op.params)
    x, w = args[0].astype(env.acc), args[1].astype(env.acc)
    n, cin, h, wd = x.shape
    kh_n, kw_n = w.shape[2:]
    ho, wo = a.out_hw
    full_h = max((h - 1) * a.stride[0] + a.dilation[0] * (kh_n - 1) + 1, a.top + ho)
    full_w = max((wd - 1) * a.stride[1] + a.dilation[1] * (kw_n - 1) + 1, a.left + wo)
    cpg = cin // a.groups
    xg = x.reshape(n, a.groups, cpg, h, wd)
    wg = w.reshape(a.groups, cpg, w.shape[1], kh_n, kw_n)  # [g, Cin/g, Cout/g, Kh, Kw]
    full = xp.zeros((n, a.groups, w.shape[1], full_h, full_w), dtype=env.acc)
    for kh in range(kh_n):
        for kw in range(kw_n):
            r, c = kh * a.dilation[0], kw * a.dilation[1]
            rows = slice(r, r + a.stride[0] * (h - 1) + 1, a.stride[0])
            cols = slice(c, c + a.stride[1] * (wd - 1) + 1, a.stride[1])
            full[:, :, :, rows, cols] += xp.einsum("ngchw,gco->ngohw", xg, wg[:, :, :, kh, kw])
    out = full.reshape(n, a.groups * w.shape[1], full_h, full_w)[:, :, a.top: a.top + ho, a.left: a.left + wo]
    return _biased(env, out, args)


def _sigmoid(xp, z):
    """1 / (1 + e^-z) for z >= 0, e^z / (1 + e^z) below: exp never overflows."""
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1 / (1 + e), e / (1 + e))


def _causal_conv1d(env, args: Sequence[Any]):
    xp = env.xp
    kernel, seq_out, silu = causal_args(env.op.params)
    x, w, bias = (a.astype(env.acc) for a in args)
    out = xp.zeros(x.shape[:2] + (seq_out,), dtype=env.acc)
    for j in range(kernel):
        out += w[:, j].reshape(1, -1, 1) * x[:, :, j: j + seq_out]
    out = out + bias.reshape(1, -1, 1)
    if silu:
        out = out * _sigmoid(xp, out)
    return out.astype(env.compute)


XP_CONV: dict = {
    "Rope": _rope,
    "Conv2D": _conv2d,
    "ConvTranspose2D": _conv_transpose2d,
    "CausalConv1d": _causal_conv1d,
}
