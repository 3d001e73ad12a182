"""Backward kernels for numpy-API libraries (numpy, cupy), merged into ``XP_TABLE``. Neither
library has a gradient kernel, so each is composed from its formula the way a Fuel wrapper
writes it: operands widened to the accumulator (f32 for halves), the row sums taken there,
the result rounded to T once.

softmax: y·(g − Σg·y); log-softmax: g − exp(y)·Σg; RMS norm: g/r − x·Σ(g·x)/(n·r·q) with
q = mean(x²) + eps, r = √q; layer norm: (g − mean(g) − ŷ·mean(g·ŷ))/σ with a two-pass variance;
PowI: g·n·x^(n−1), zeros for n = 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _rows(fn):
    """Entry running ``fn(env, a, g)`` on both operands in the accumulator dtype (a scalar as a
    row of one), its result rounded to T once."""

    def run(env, args: Sequence[Any]):
        a, g = args
        if a.size == 0:
            return a.astype(env.compute)
        shape = a.shape or (1,)
        out = fn(env, a.astype(env.acc).reshape(shape), g.astype(env.acc).reshape(shape))
        return out.reshape(a.shape).astype(env.compute)

    run.__name__ = fn.__name__
    return run


def _sum(env, v):
    return env.xp.sum(v, axis=-1, keepdims=True)


def _mean(env, v):
    return env.xp.mean(v, axis=-1, keepdims=True)


def _eps(env):
    return env.xp.asarray(float(env.op.params["eps"]), dtype=env.acc)


def _softmax_backward(env, y, g):
    return y * (g - _sum(env, g * y))


def _log_softmax_backward(env, y, g):
    return g - env.xp.exp(y) * _sum(env, g)


def _rms_norm_backward(env, x, g):
    q = _mean(env, x * x) + _eps(env)
    r = env.xp.sqrt(q)
    return g / r - x * (_sum(env, g * x) / (x.shape[-1] * r * q))


def _layer_norm_backward(env, x, g):
    centred = x - _mean(env, x)
    inv = 1 / env.xp.sqrt(_mean(env, centred * centred) + _eps(env))
    y = centred * inv
    return inv * (g - _mean(env, g) - y * _mean(env, g * y))


def _powi_backward(env, args: Sequence[Any]):
    x, g = (a.astype(env.acc) for a in args)
    n = int(env.op.params["exp"])
    if n == 0:  # the forward is constant: zeros, upstream unread
        return env.xp.zeros(x.shape, dtype=env.compute)
    return (g * env.xp.asarray(n, dtype=env.acc) * env.xp.power(x, n - 1)).astype(env.compute)


XP_BACKWARD = {
    "SoftmaxLastDimBackward": _rows(_softmax_backward),
    "LogSoftmaxLastDimBackward": _rows(_log_softmax_backward),
    "RmsNormLastDimBackward": _rows(_rms_norm_backward),
    "LayerNormLastDimBackward": _rows(_layer_norm_backward),
    "PowIElementwiseBackward": _powi_backward,
}
