"""Backward kernels for torch, merged into ``TORCH_TABLE``: torch's own gradient of each
forward, on operands widened to f32 for halves (the accumulator the contracts name), the result
rounded to T once.

Softmax and log-softmax call the backward kernels autograd itself dispatches to
(``torch._softmax_backward_data`` / ``torch._log_softmax_backward_data``, given the forward's
output); the norms and PowI run ``torch.autograd.grad`` through ``torch.nn.functional.rms_norm``,
``layer_norm`` (``normalized_shape=(last_dim,)``, no affine) and ``torch.pow(x, n)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _widened(env, t):
    return t.to(env.acc) if env.acc is not None else t


def _rows(fn):
    """Entry running ``fn(env, a, g)`` on the widened operands (a scalar as a row of one)."""

    def run(env, args: Sequence[Any]):
        a, g = args
        if a.numel() == 0:
            return a.clone()
        shape = a.shape or (1,)
        out = fn(env, _widened(env, a).reshape(shape), _widened(env, g).reshape(shape))
        return out.reshape(a.shape).to(a.dtype)

    run.__name__ = fn.__name__
    return run


def _softmax_backward(env, y, g):
    return env.torch._softmax_backward_data(g, y, -1, y.dtype)


def _log_softmax_backward(env, y, g):
    return env.torch._log_softmax_backward_data(g, y, -1, y.dtype)


def _autograd(env, forward, x, g):
    """d(forward(x))/dx applied to g, by torch's autograd (the adapter runs under no_grad)."""
    with env.torch.enable_grad():
        leaf = x.detach().requires_grad_(True)
        (grad,) = env.torch.autograd.grad(forward(leaf), leaf, g)
    return grad


def _rms_norm_backward(env, x, g):
    eps = float(env.op.params["eps"])
    return _autograd(env, lambda t: env.torch.nn.functional.rms_norm(t, (t.shape[-1],), eps=eps), x, g)


def _layer_norm_backward(env, x, g):
    eps = float(env.op.params["eps"])
    return _autograd(env, lambda t: env.torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=eps), x, g)


def _powi_backward(env, args: Sequence[Any]):
    x, g = args
    n = int(env.op.params["exp"])
    return _autograd(env, lambda t: env.torch.pow(t, n), _widened(env, x), _widened(env, g)).to(x.dtype)


TORCH_BACKWARD = {
    "SoftmaxLastDimBackward": _rows(_softmax_backward),
    "LogSoftmaxLastDimBackward": _rows(_log_softmax_backward),
    "RmsNormLastDimBackward": _rows(_rms_norm_backward),
    "LayerNormLastDimBackward": _rows(_layer_norm_backward),
    "PowIElementwiseBackward": _powi_backward,
}
