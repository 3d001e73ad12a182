"""The OpKind table for torch (CPU and CUDA alike).

One entry per OpKind: torch's natural kernel (torch.relu, torch.nn.functional.gelu with
approximate="tanh", torch.remainder, torch.round, torch.argmax, ...), wired as a Fuel dispatch
wrapper would: ``dtype=torch.float32`` for half sums and means, op-param scalars rounded to T,
``torch.fmax``/``torch.fmin`` where the contract says NaN-as-missing. torch has no NaN-ignoring
max reduction, so MaxReduce/ReduceMaxTo call ``torch.amax`` whatever the contract's NaN rule.

One wiring note: torch reads ``dim=()`` / ``dim=[]`` as "every dim", so a reduction with no axes
to fold (a ReduceSumTo whose target is the input shape, or Reduce with ``dims=[]``) does not
call the reduction at all; Fuel's op params mean "fold nothing" there.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from backends._common import (
    OpCall,
    cast_scalar,
    clamp_bounds,
    int_affine,
    padded_target,
    reduce_dims,
    reduce_to_axes,
    single_dim,
)
from backends._torch_attn import TORCH_ATTN
from backends._torch_backward import TORCH_BACKWARD
from backends._torch_cast import TORCH_CAST
from backends._torch_conv import TORCH_CONV
from backends._torch_fused import TORCH_FUSED
from backends._torch_inplace import TORCH_INPLACE
from backends._torch_matmul import TORCH_MATMUL
from backends._torch_move import TORCH_MOVE
from backends._torch_norm import TORCH_NORM
from backends._torch_pad import TORCH_PAD
from backends._torch_quant import TORCH_QUANT
from backends._torch_scan import TORCH_SCAN
from backends._torch_scatter import TORCH_SCATTER
from backends._torch_slices import TORCH_SLICES


@dataclass(frozen=True)
class TorchEnv:
    torch: Any
    op: OpCall
    t_numpy: Any  # numpy dtype of T, for rounding op-param scalars to T

    @property
    def acc(self):
        return self.torch.float32 if self.op.accumulates_in_f32 else None

    def cst(self, value: float) -> float:
        """``cst(c)``: the scalar rounded to T (exact in torch's opmath type)."""
        return cast_scalar(value, self.t_numpy)


Entry = Callable[[TorchEnv, Sequence[Any]], Any]


def _fn(path: str, **kwargs) -> Entry:
    def resolve(env: TorchEnv):
        obj = env.torch
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    def run(env: TorchEnv, args: Sequence[Any]):
        return resolve(env)(*args, **kwargs)

    def bound(env: TorchEnv, args: Sequence[Any]):
        """The library call with its arguments bound: what ``judge measure`` repeats."""
        return functools.partial(resolve(env), *args, **kwargs)

    run.__name__ = path
    run.bound = bound
    return run


def _extremum_binary(propagating: str, ignoring: str) -> Entry:
    def run(env, args):
        return getattr(env.torch, ignoring if env.op.nan_ignore else propagating)(*args)

    return run


def _fold(env, x, axes, keepdim, fn: str):
    """Sum or mean over ``axes`` with the f32 accumulator for halves."""
    if not axes:
        return x
    kwargs = {"dtype": env.acc} if env.acc is not None else {}
    return getattr(env.torch, fn)(x, dim=axes, keepdim=keepdim, **kwargs).to(x.dtype)


def _amax_like(env, x, axes, keepdim, which: str):
    if not axes:
        return x
    return getattr(env.torch, which)(x, dim=axes, keepdim=keepdim)


def _step(env, args):
    x = args[0]
    return env.torch.heaviside(x, env.torch.zeros((), dtype=x.dtype, device=x.device))


def _powi(env, args):
    return env.torch.pow(args[0], int(env.op.params["exp"]))


def _affine(env, args):
    p = env.op.params
    if not args[0].dtype.is_floating_point:
        torch = env.torch
        return int_affine(torch, args[0], float(p["mul"]), float(p["add"]), rint=torch.round,
                          cast=lambda a, t: a.to(t), float64=torch.float64, iinfo=torch.iinfo)
    return args[0] * env.cst(float(p.get("mul", 1.0))) + env.cst(float(p.get("add", 0.0)))


def _clamp(env, args):
    lo, hi = clamp_bounds(env.op.params)
    return env.torch.clamp(args[0], env.cst(lo), env.cst(hi))


def _where(env, args):
    cond, a, b = args
    return env.torch.where(cond.to(env.torch.bool), a, b)


def _reduce(fn: str) -> Entry:
    def run(env, args):
        x = args[0]
        axes, keepdim = reduce_dims(env.op.params, x.ndim)
        return _fold(env, x, axes, keepdim, fn)

    return run


def _extremum(which: str) -> Entry:
    def run(env, args):
        x = args[0]
        axes, keepdim = reduce_dims(env.op.params, x.ndim)
        return _amax_like(env, x, axes, keepdim, which)

    return run


def _arg(which: str) -> Entry:
    def run(env, args):
        x = args[0]
        dim, keepdim = single_dim(env.op.params, x.ndim)
        return getattr(env.torch, which)(x, dim=dim, keepdim=keepdim)

    return run


def _sum_to(env, args):
    x = args[0]
    axes = reduce_to_axes(env.op.params, tuple(x.shape))
    return _fold(env, x, axes, True, "sum").reshape(env.op.out_shapes[0])


def _max_to(env, args):
    x = args[0]
    axes = reduce_to_axes(env.op.params, tuple(x.shape))
    return _amax_like(env, x, axes, True, "amax").reshape(env.op.out_shapes[0])


def _max_to_backward(env, args):
    # torch's own gradient of amax: it shares the upstream gradient evenly among tied maxima.
    # Halves run the whole backward in f32, as the contract states, and narrow on store.
    torch = env.torch
    x, upstream = args
    work = env.acc or x.dtype
    axes = reduce_to_axes(env.op.params, tuple(x.shape))
    upstream = upstream.to(work).reshape(padded_target(env.op.params, tuple(x.shape)))
    with torch.enable_grad():
        leaf = x.detach().to(work).requires_grad_(True)
        out = torch.amax(leaf, dim=axes, keepdim=True) if axes else leaf * 1
        (grad,) = torch.autograd.grad(out, leaf, grad_outputs=upstream.expand_as(out))
    return grad.to(x.dtype)


_UNARY = {
    "NegElementwise": "neg",
    "ReluElementwise": "relu",
    "SqrElementwise": "square",
    "SqrtElementwise": "sqrt",
    "ExpElementwise": "exp",
    "SignElementwise": "sign",
    "LogElementwise": "log",
    "SinElementwise": "sin",
    "CosElementwise": "cos",
    "AbsElementwise": "abs",
    "RecipElementwise": "reciprocal",
    "TanhElementwise": "tanh",
    "FloorElementwise": "floor",
    "CeilElementwise": "ceil",
    "ErfElementwise": "erf",
    "RoundElementwise": "round",  # half to even
    "SigmoidElementwise": "sigmoid",
    "RsqrtElementwise": "rsqrt",
}
_BINARY = {
    "AddElementwise": "add",
    "SubElementwise": "sub",
    "MulElementwise": "mul",
    "DivElementwise": "div",
    "PowElementwise": "pow",
    "RemElementwise": "remainder",  # floored: sign of the divisor
    "EqualElementwise": "eq",
    "NotEqualElementwise": "ne",
    "LessElementwise": "lt",
    "LessEqualElementwise": "le",
    "GreaterElementwise": "gt",
    "GreaterEqualElementwise": "ge",
}

TORCH_TABLE: dict[str, Entry] = {
    **{kind: _fn(name) for kind, name in _UNARY.items()},
    **{kind: _fn(name) for kind, name in _BINARY.items()},
    "GeluErfElementwise": _fn("nn.functional.gelu", approximate="none"),
    "GeluElementwise": _fn("nn.functional.gelu", approximate="tanh"),
    "SiluElementwise": _fn("nn.functional.silu"),
    "StepElementwise": _step,
    "PowIElementwise": _powi,
    "Affine": _affine,
    "ClampElementwise": _clamp,
    "MaximumElementwise": _extremum_binary("maximum", "fmax"),
    "MinimumElementwise": _extremum_binary("minimum", "fmin"),
    "Where": _where,
    "SumReduce": _reduce("sum"),
    "MeanReduce": _reduce("mean"),
    "MaxReduce": _extremum("amax"),
    "MinReduce": _extremum("amin"),
    "ArgMaxDim": _arg("argmax"),
    "ArgMinDim": _arg("argmin"),
    "ReduceSumTo": _sum_to,
    "ReduceMaxTo": _max_to,
    "ReduceMaxToBackward": _max_to_backward,
    **TORCH_MATMUL,
    **TORCH_CAST,
    **TORCH_MOVE,
    **TORCH_NORM,
    **TORCH_BACKWARD,
    **TORCH_QUANT,
    **TORCH_CONV,
    **TORCH_PAD,
    **TORCH_ATTN,
    **TORCH_SCAN,
    **TORCH_FUSED,
    **TORCH_SCATTER,
    **TORCH_SLICES,
    **TORCH_INPLACE,
}
