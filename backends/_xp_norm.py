"""Row kernels of the last axis for numpy-API libraries (numpy, cupy): softmax, log-softmax,
RMS norm and layer norm, written as a careful Fuel wrapper is: the row maximum subtracted before
exponentiating, a two-pass variance, half-precision rows held in an f32 accumulator and rounded
to T once at the end. Merged into ``XP_TABLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _row_kernel(fn):
    """Entry running ``fn(env, rows)`` on the input in the accumulator dtype (a scalar as a row
    of one), its result rounded to T once."""

    def run(env, args: Sequence[Any]):
        x = args[0]
        if x.size == 0:
            return x.astype(env.compute)
        rows = x.astype(env.acc).reshape(x.shape or (1,))
        return fn(env, rows).reshape(x.shape).astype(env.compute)

    run.__name__ = fn.__name__
    return run


def _softmax(env, x):
    e = env.xp.exp(x - env.xp.max(x, axis=-1, keepdims=True))
    return e / env.xp.sum(e, axis=-1, keepdims=True)


def _log_softmax(env, x):
    shifted = x - env.xp.max(x, axis=-1, keepdims=True)
    return shifted - env.xp.log(env.xp.sum(env.xp.exp(shifted), axis=-1, keepdims=True))


def _eps(env):
    return env.xp.asarray(float(env.op.params["eps"]), dtype=env.acc)


def _rms_norm(env, x):
    mean_square = env.xp.mean(x * x, axis=-1, keepdims=True)
    return x / env.xp.sqrt(mean_square + _eps(env))


def _layer_norm(env, x):
    centred = x - env.xp.mean(x, axis=-1, keepdims=True)
    var = env.xp.mean(centred * centred, axis=-1, keepdims=True)
    return centred / env.xp.sqrt(var + _eps(env))


XP_NORM = {
    "SoftmaxLastDim": _row_kernel(_softmax),
    "LogSoftmaxLastDim": _row_kernel(_log_softmax),
    "RmsNormLastDim": _row_kernel(_rms_norm),
    "LayerNormLastDim": _row_kernel(_layer_norm),
}
