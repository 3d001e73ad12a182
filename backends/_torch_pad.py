"""Pad and PadBackward for torch (CPU and CUDA), merged into ``_torch_ops.TORCH_TABLE``.

Pad is ``torch.nn.functional.pad``: ``constant`` over every axis at once with the fill element
as the Python scalar ``value`` F.pad takes (decoded from its bytes through the data's dtype);
``reflect`` and ``replicate``, which F.pad applies to trailing axes only, one axis at a time
with that axis viewed as the last of a 3-d tensor. PadBackward is the autograd of the same
calls: the gradient of every output position flows into the input position it read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from backends._conv_params import pad_args
from backends._move_params import fill_bytes


def _fill_value(env, x) -> float | int:
    """The fill element as the Python scalar F.pad takes."""
    import numpy as np

    raw = fill_bytes(env.op.params, x.element_size())
    return np.frombuffer(raw, dtype=np.dtype(env.t_numpy)).reshape(()).item()


def _padded(env, x, pads: list[tuple[int, int]], mode: str, fill):
    F = env.torch.nn.functional
    if mode == "constant":
        flat = [side for before, after in reversed(pads) for side in (before, after)]
        return F.pad(x, flat, mode="constant", value=fill)
    for axis, (before, after) in enumerate(pads):
        if before or after:
            moved = x.movedim(axis, -1)
            lead = moved.shape[:-1]
            # a batch of rows (torch takes an empty batch, not an empty channel axis)
            rows = moved.reshape(math.prod(lead), 1, moved.shape[-1])
            grown = F.pad(rows, (before, after), mode=mode)
            x = grown.reshape(*lead, grown.shape[-1]).movedim(-1, axis)
    return x


def _pad(env, args: Sequence[Any]):
    (x,) = args
    pads, mode = pad_args(env.op.params)
    return _padded(env, x, pads, mode, _fill_value(env, x) if mode == "constant" else None)


def _pad_backward(env, args: Sequence[Any]):
    torch = env.torch
    (g,) = args
    pads, mode = pad_args(env.op.params)
    in_shape = [int(v) for v in env.op.params["in_shape"]]
    with torch.enable_grad():
        leaf = torch.zeros(in_shape, dtype=g.dtype, device=g.device, requires_grad=True)
        out = _padded(env, leaf, pads, mode, 0.0)
        (grad,) = torch.autograd.grad(out, leaf, grad_outputs=g.contiguous())
    return grad


TORCH_PAD: dict = {
    "Pad": _pad,
    "PadBackward": _pad_backward,
}
