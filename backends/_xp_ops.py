"""The OpKind table for numpy-API libraries (numpy with ml_dtypes, cupy).

One entry per OpKind: the library's natural kernel, wired the way a Fuel dispatch wrapper
wires it (f32 accumulator for half sums and means, op-param scalars rounded to T, the
NaN-ignoring extremum kernel where the contract says NaN-as-missing). Entries receive the
library through ``XpEnv`` so numpy and cupy share one table; what one of them spells
differently (erf, the NaN-ignoring max reduction) is a field of ``XpLib``.
"""

from __future__ import annotations

import functools
import math
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
from backends._xp_attn import XP_ATTN
from backends._xp_backward import XP_BACKWARD
from backends._xp_cast import XP_CAST
from backends._xp_conv import XP_CONV
from backends._xp_fused import XP_FUSED
from backends._xp_inplace import in_place_entries
from backends._xp_matmul import XP_MATMUL
from backends._xp_move import XP_MOVE
from backends._xp_norm import XP_NORM
from backends._xp_pad import XP_PAD
from backends._xp_quant import XP_QUANT
from backends._xp_scan import XP_SCAN
from backends._xp_scatter import XP_SCATTER
from backends._xp_slices import XP_SLICES


@dataclass(frozen=True)
class XpLib:
    """A numpy-API array library and the few kernels it names its own way.

    ``erf64``: elementwise erf of a float64 array; ``nan_extremum``: (array, axes, keepdims,
    "max"|"min"[, initial=True]) -> the NaN-ignoring extremum reduction the library documents
    (``initial``: folded from -inf / +inf, where the contract states that start); ``add_at``:
    (array, index tuple, values) -> the unbuffered ``array[index] += values`` in place, every
    repeated index adding once (numpy.add.at, cupyx.scatter_add).
    """

    name: str
    xp: Any
    erf64: Callable[[Any], Any]
    nan_extremum: Callable[[Any, tuple[int, ...], bool, str], Any]
    add_at: Callable[[Any, tuple, Any], None] | None = None


@dataclass(frozen=True)
class XpEnv:
    """What one entry needs: the library, the call, and the dtypes values live in.

    ``compute`` is the dtype float operands are held in (T itself, or float32 where the
    library has no T and the adapter widens, as cupy does for bf16); ``t`` is T's numpy dtype.
    """

    lib: XpLib
    op: OpCall
    compute: Any
    t: Any

    @property
    def xp(self):
        return self.lib.xp

    @property
    def acc(self):
        """Accumulator dtype: float32 for half inputs, else the compute dtype."""
        return self.xp.float32 if self.op.accumulates_in_f32 else self.compute

    def cst(self, value: float):
        """``cst(c)``: an op-param scalar rounded to T, held in the compute dtype."""
        return self.xp.asarray(cast_scalar(value, self.t), dtype=self.compute)


Entry = Callable[[XpEnv, Sequence[Any]], Any]


def _ufunc(name: str) -> Entry:
    def run(env: XpEnv, args: Sequence[Any]):
        return getattr(env.xp, name)(*args)

    def bound(env: XpEnv, args: Sequence[Any]):
        """The library call with its arguments bound: what ``judge measure`` repeats."""
        return functools.partial(getattr(env.xp, name), *args)

    run.__name__ = name
    run.bound = bound
    return run


def _extremum_binary(propagating: str, ignoring: str) -> Entry:
    def run(env: XpEnv, args: Sequence[Any]):
        return getattr(env.xp, ignoring if env.op.nan_ignore else propagating)(*args)

    return run


def _extremum_reduce(env: XpEnv, x, axes: tuple[int, ...], keepdims: bool, which: str):
    if env.op.nan_ignore and env.op.init == "identity":  # the contract's fold from -inf / +inf
        return env.lib.nan_extremum(x, axes, keepdims, which, initial=True)
    if env.op.nan_ignore:
        return env.lib.nan_extremum(x, axes, keepdims, which)
    return getattr(env.xp, which)(x, axis=axes, keepdims=keepdims)


def _relu(env, args):
    # No numpy-API relu exists: max(x, 0) with the ufunc whose documented NaN behaviour is the
    # contract's (fmax returns the non-NaN operand, i.e. 0, for NaN-to-zero / NaN-as-missing).
    fn = env.xp.fmax if env.op.nan in ("ignore", "to_zero") else env.xp.maximum
    return fn(args[0], env.cst(0.0))


def _step(env, args):
    return env.xp.heaviside(args[0], env.cst(0.0))


def _rsqrt(env, args):
    return env.xp.reciprocal(env.xp.sqrt(args[0]))


def _erf(env, args):
    # The contract widens to f64, calls the C library's erf and narrows to T.
    return env.lib.erf64(args[0].astype(env.xp.float64)).astype(env.compute)


def _gelu_erf(env, args):
    x = args[0].astype(env.xp.float64)
    y = 0.5 * x * (1.0 + env.lib.erf64(x / math.sqrt(2.0)))
    return y.astype(env.compute)


def _gelu_tanh(env, args):
    x = args[0]
    inner = env.cst(math.sqrt(2.0 / math.pi)) * (x + env.cst(0.044715) * x * x * x)
    return env.cst(0.5) * x * (env.cst(1.0) + env.xp.tanh(inner))


def _sigmoid_of(env, x):
    # Neither numpy nor cupy ships a sigmoid; this is the contract's split form, which keeps
    # exp from overflowing on the side where it would.
    xp, one = env.xp, env.cst(1.0)
    positive = one / (one + xp.exp(-x))
    e = xp.exp(x)
    negative = e / (one + e)
    return xp.where(x >= env.cst(0.0), positive, negative)


def _sigmoid(env, args):
    return _sigmoid_of(env, args[0])


def _silu(env, args):
    return args[0] * _sigmoid_of(env, args[0])


def _powi(env, args):
    # A Python int exponent keeps the result in T (numpy's weak-scalar promotion).
    return env.xp.power(args[0], int(env.op.params["exp"]))


def _affine(env, args):
    p = env.op.params
    if args[0].dtype.kind in "iu":
        xp = env.xp
        return int_affine(xp, args[0], float(p["mul"]), float(p["add"]), rint=xp.rint,
                          cast=lambda a, t: a.astype(t), float64=xp.float64, iinfo=xp.iinfo)
    return args[0] * env.cst(float(p.get("mul", 1.0))) + env.cst(float(p.get("add", 0.0)))


def _clamp(env, args):
    lo, hi = clamp_bounds(env.op.params)
    return env.xp.clip(args[0], env.cst(lo), env.cst(hi))


def _where(env, args):
    cond, a, b = args
    return env.xp.where(cond.astype(bool), a, b)


def _sum(env, args):
    x = args[0]
    axes, keepdim = reduce_dims(env.op.params, x.ndim)
    return env.xp.sum(x, axis=axes, dtype=env.acc, keepdims=keepdim).astype(env.compute)


def _mean(env, args):
    x = args[0]
    axes, keepdim = reduce_dims(env.op.params, x.ndim)
    return env.xp.mean(x, axis=axes, dtype=env.acc, keepdims=keepdim).astype(env.compute)


def _extremum(which: str) -> Entry:
    def run(env, args):
        x = args[0]
        axes, keepdim = reduce_dims(env.op.params, x.ndim)
        return _extremum_reduce(env, x, axes, keepdim, which)

    return run


def _arg(which: str) -> Entry:
    def run(env, args):
        x = args[0]
        dim, keepdim = single_dim(env.op.params, x.ndim)
        return getattr(env.xp, which)(x, axis=dim, keepdims=keepdim).astype(env.xp.uint32)

    return run


def _sum_to(env, args):
    x = args[0]
    axes = reduce_to_axes(env.op.params, x.shape)
    r = env.xp.sum(x, axis=axes, dtype=env.acc, keepdims=True).astype(env.compute)
    return r.reshape(env.op.out_shapes[0])


def _max_to(env, args):
    x = args[0]
    axes = reduce_to_axes(env.op.params, x.shape)
    return _extremum_reduce(env, x, axes, True, "max").reshape(env.op.out_shapes[0])


def _max_to_backward(env, args):
    # No numpy-API library has this kernel: composed as the contract describes it (forward
    # max, equality mask, tie count clamped to 1, upstream shared among the ties), in the
    # accumulator dtype (f32 for halves), narrowed on store.
    xp = env.xp
    x, upstream = (a.astype(env.acc) for a in args)
    axes = reduce_to_axes(env.op.params, x.shape)
    upstream = upstream.reshape(padded_target(env.op.params, x.shape))
    m = _extremum_reduce(env, x, axes, True, "max")
    mask = x == m
    count = xp.maximum(xp.sum(mask, axis=axes, keepdims=True, dtype=env.acc), 1)
    grad = xp.where(mask, upstream / count, xp.zeros((), dtype=env.acc))
    return grad.astype(env.compute)


_COMPARE = {
    "EqualElementwise": "equal",
    "NotEqualElementwise": "not_equal",
    "LessElementwise": "less",
    "LessEqualElementwise": "less_equal",
    "GreaterElementwise": "greater",
    "GreaterEqualElementwise": "greater_equal",
}

XP_TABLE: dict[str, Entry] = {
    "NegElementwise": _ufunc("negative"),
    "ReluElementwise": _relu,
    "SqrElementwise": _ufunc("square"),
    "SqrtElementwise": _ufunc("sqrt"),
    "ExpElementwise": _ufunc("exp"),
    "SignElementwise": _ufunc("sign"),
    "LogElementwise": _ufunc("log"),
    "SinElementwise": _ufunc("sin"),
    "CosElementwise": _ufunc("cos"),
    "AbsElementwise": _ufunc("absolute"),
    "RecipElementwise": _ufunc("reciprocal"),
    "TanhElementwise": _ufunc("tanh"),
    "FloorElementwise": _ufunc("floor"),
    "CeilElementwise": _ufunc("ceil"),
    "ErfElementwise": _erf,
    "GeluErfElementwise": _gelu_erf,
    "RoundElementwise": _ufunc("round"),  # numpy/cupy round: half to even
    "SigmoidElementwise": _sigmoid,
    "SiluElementwise": _silu,
    "GeluElementwise": _gelu_tanh,
    "StepElementwise": _step,
    "RsqrtElementwise": _rsqrt,
    "PowIElementwise": _powi,
    "Affine": _affine,
    "ClampElementwise": _clamp,
    "AddElementwise": _ufunc("add"),
    "SubElementwise": _ufunc("subtract"),
    "MulElementwise": _ufunc("multiply"),
    "DivElementwise": _ufunc("divide"),
    "MaximumElementwise": _extremum_binary("maximum", "fmax"),
    "MinimumElementwise": _extremum_binary("minimum", "fmin"),
    "PowElementwise": _ufunc("power"),
    "RemElementwise": _ufunc("remainder"),  # floored: sign of the divisor
    **{kind: _ufunc(name) for kind, name in _COMPARE.items()},
    "Where": _where,
    "SumReduce": _sum,
    "MeanReduce": _mean,
    "MaxReduce": _extremum("max"),
    "MinReduce": _extremum("min"),
    "ArgMaxDim": _arg("argmax"),
    "ArgMinDim": _arg("argmin"),
    "ReduceSumTo": _sum_to,
    "ReduceMaxTo": _max_to,
    "ReduceMaxToBackward": _max_to_backward,
    **XP_MATMUL,
    **XP_CAST,
    **XP_MOVE,
    **XP_NORM,
    **XP_BACKWARD,
    **XP_QUANT,
    **XP_CONV,
    **XP_PAD,
    **XP_ATTN,
    **XP_SCAN,
    **XP_FUSED,
    **XP_SCATTER,
    **XP_SLICES,
}
XP_TABLE.update(in_place_entries(XP_TABLE))
