"""Row kernels of the last axis for torch: ``torch.softmax`` / ``torch.log_softmax`` with
``dtype=torch.float32`` for half inputs, ``torch.nn.functional.rms_norm`` / ``layer_norm`` with
``normalized_shape=(last_dim,)`` and ``eps`` on the input widened to f32 for halves (the F32
accumulator the contracts name); results rounded to T once. Merged into ``TORCH_TABLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _row_kernel(fn):
    """Entry running ``fn(env, rows)`` (a scalar as a row of one); nothing to do when empty."""

    def run(env, args: Sequence[Any]):
        x = args[0]
        if x.numel() == 0:
            return x.clone()
        rows = x.reshape(x.shape or (1,))
        return fn(env, rows).reshape(x.shape).to(x.dtype)

    run.__name__ = fn.__name__
    return run


def _softmax(env, x):
    return env.torch.softmax(x, dim=-1, dtype=env.acc)


def _log_softmax(env, x):
    return env.torch.log_softmax(x, dim=-1, dtype=env.acc)


def _widened(env, x):
    return x.to(env.acc) if env.acc is not None else x


def _rms_norm(env, x):
    eps = float(env.op.params["eps"])
    return env.torch.nn.functional.rms_norm(_widened(env, x), (x.shape[-1],), eps=eps)


def _layer_norm(env, x):
    eps = float(env.op.params["eps"])
    return env.torch.nn.functional.layer_norm(_widened(env, x), (x.shape[-1],), eps=eps)


TORCH_NORM = {
    "SoftmaxLastDim": _row_kernel(_softmax),
    "LogSoftmaxLastDim": _row_kernel(_log_softmax),
    "RmsNormLastDim": _row_kernel(_rms_norm),
    "LayerNormLastDim": _row_kernel(_layer_norm),
}
