"""Pad and PadBackward for numpy-API libraries (numpy, cupy), merged into ``_xp_ops.XP_TABLE``.

Pad is the library's own ``pad`` over every axis (``constant`` with the fill element decoded
from its bytes into a 0-d array of the data's dtype, never through a Python float; ``reflect``;
``edge`` for Replicate); it returns the library's array and the adapter stores its bits.
PadBackward has no library kernel: the gradient is folded back one axis at a time, each padded
position added (``add.at``, in the data's own dtype: the typed accumulation the contract states)
into the input position it read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends._conv_params import pad_args
from backends._move_params import fill_bytes

_NUMPY_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}


def _pad(env, args: Sequence[Any]):
    import numpy as np

    xp = env.xp
    (x,) = args
    pads, mode = pad_args(env.op.params)
    pads = pads or 0  # a rank-0 input: numpy reads an empty list as a float array
    if mode != "constant":
        return xp.pad(x, pads, mode=_NUMPY_MODES[mode])
    t = np.dtype(env.t)
    fill = np.frombuffer(fill_bytes(env.op.params, t.itemsize), dtype=t).reshape(())
    # a host scalar for both libraries: cupy.pad reads constant_values through numpy.array
    return xp.pad(x, pads, mode="constant", constant_values=fill)


def _sources(n: int, before: int, after: int, mode: str) -> list[int]:
    """The input index each padded position of one axis reads (before's, then after's)."""
    low = [before - p if mode == "reflect" else 0 for p in range(before)]
    high = [2 * (n - 1) - q if mode == "reflect" else n - 1 for q in range(n, n + after)]
    return low + high


def _fold_axis(env, g, axis: int, n: int, before: int, after: int, mode: str):
    """The gradient with ``axis`` folded from before + n + after back to n."""
    xp = env.xp
    moved = xp.moveaxis(g, axis, 0)
    inner = moved[before: before + n].copy()
    if mode != "constant" and before + after:
        padded = xp.concatenate((moved[:before], moved[before + n:]), axis=0)
        index = xp.asarray(_sources(n, before, after, mode), dtype=xp.intp)
        xp.add.at(inner, index, padded)
    return xp.moveaxis(inner, 0, axis)


def _pad_backward(env, args: Sequence[Any]):
    (g,) = args
    pads, mode = pad_args(env.op.params)
    in_shape = [int(v) for v in env.op.params["in_shape"]]
    g = g.astype(env.compute)
    for axis, ((before, after), n) in enumerate(zip(pads, in_shape, strict=True)):
        g = _fold_axis(env, g, axis, n, before, after, mode)
    return g


XP_PAD: dict = {
    "Pad": _pad,
    "PadBackward": _pad_backward,
}
