"""In-place OpKinds for torch: each mutates its target, ``args[0]``, a tensor over the
executor's ``outputs[0]`` (on the CPU, ``torch.from_numpy`` of the operand's own buffer, viewed
with its strides), with torch's own in-place kernel, and returns None.

torch's in-place GELU is ``torch._C._nn.gelu_`` (``torch.nn.functional.gelu`` has no
``inplace`` argument); SiLU's is ``torch.nn.functional.silu(x, inplace=True)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from backends._common import clamp_bounds

Entry = Callable[[Any, Sequence[Any]], Any]


def _method(name: str) -> Entry:
    def run(env, args):
        getattr(args[0], name)()

    run.__name__ = f"Tensor.{name}"
    return run


def _gelu(approximate: str) -> Entry:
    def run(env, args):
        env.torch._C._nn.gelu_(args[0], approximate=approximate)

    return run


def _silu(env, args):
    env.torch.nn.functional.silu(args[0], inplace=True)


def _powi(env, args):
    args[0].pow_(int(env.op.params["exp"]))


def _affine(env, args):
    p = env.op.params
    args[0].mul_(env.cst(float(p.get("mul", 1.0)))).add_(env.cst(float(p.get("add", 0.0))))


def _clamp(env, args):
    lo, hi = clamp_bounds(env.op.params)
    args[0].clamp_(env.cst(lo), env.cst(hi))


TORCH_INPLACE: dict[str, Entry] = {
    "InplaceAffine": _affine,
    "ClampInplace": _clamp,
    "PowIInplace": _powi,
    "ReluInplace": _method("relu_"),
    "SiluInplace": _silu,
    "GeluInplace": _gelu("tanh"),
    "TanhInplace": _method("tanh_"),
    "SigmoidInplace": _method("sigmoid_"),
    "NegInplace": _method("neg_"),
    "AbsInplace": _method("abs_"),
    "SqrInplace": _method("square_"),
    "SqrtInplace": _method("sqrt_"),
    "RsqrtInplace": _method("rsqrt_"),
    "RecipInplace": _method("reciprocal_"),
    "ExpInplace": _method("exp_"),
    "LogInplace": _method("log_"),
    "SinInplace": _method("sin_"),
    "CosInplace": _method("cos_"),
    "SignInplace": _method("sign_"),
    "FloorInplace": _method("floor_"),
    "CeilInplace": _method("ceil_"),
    "RoundInplace": _method("round_"),  # half to even
    "ErfInplace": _method("erf_"),
    "GeluErfInplace": _gelu("none"),
}
