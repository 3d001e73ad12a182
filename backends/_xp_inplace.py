"""In-place OpKinds for numpy-API libraries: each mutates its target, ``args[0]``, a writable
view of the executor's ``outputs[0]`` (the operand's own memory), and returns None.

Where the library has the kernel, it is called with ``out=`` the target (``np.exp(x, out=x)``;
ml_dtypes' BF16 loops compute in F32 and round on store, as they do out of place). Where it has
none (sigmoid, SiLU, the GELUs, erf), the out-of-place entry of the same table computes the
result and it is stored into the target, which is all an in-place wrapper over it could do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from backends._common import clamp_bounds

Entry = Callable[[Any, Sequence[Any]], Any]


def _ufunc(name: str) -> Entry:
    def run(env, args):
        x = args[0]
        getattr(env.xp, name)(x, out=x)

    run.__name__ = f"{name}(x, out=x)"
    return run


def _round(env, args):
    env.xp.round(args[0], out=args[0])  # half to even, as out of place


def _rsqrt(env, args):
    x = args[0]
    env.xp.sqrt(x, out=x)
    env.xp.reciprocal(x, out=x)


def _relu(env, args):
    # The out-of-place entry's choice: fmax (a NaN gives 0) for NaN-to-zero / NaN-as-missing.
    x = args[0]
    fn = env.xp.fmax if env.op.nan in ("ignore", "to_zero") else env.xp.maximum
    fn(x, env.cst(0.0), out=x)


def _powi(env, args):
    x = args[0]
    env.xp.power(x, int(env.op.params["exp"]), out=x)


def _affine(env, args):
    x, p = args[0], env.op.params
    env.xp.multiply(x, env.cst(float(p.get("mul", 1.0))), out=x)
    env.xp.add(x, env.cst(float(p.get("add", 0.0))), out=x)


def _clamp(env, args):
    x = args[0]
    lo, hi = clamp_bounds(env.op.params)
    env.xp.clip(x, env.cst(lo), env.cst(hi), out=x)


NATIVE: dict[str, Entry] = {
    "InplaceAffine": _affine,
    "ClampInplace": _clamp,
    "PowIInplace": _powi,
    "ReluInplace": _relu,
    "TanhInplace": _ufunc("tanh"),
    "NegInplace": _ufunc("negative"),
    "AbsInplace": _ufunc("absolute"),
    "SqrInplace": _ufunc("square"),
    "SqrtInplace": _ufunc("sqrt"),
    "RsqrtInplace": _rsqrt,
    "RecipInplace": _ufunc("reciprocal"),
    "ExpInplace": _ufunc("exp"),
    "LogInplace": _ufunc("log"),
    "SinInplace": _ufunc("sin"),
    "CosInplace": _ufunc("cos"),
    "SignInplace": _ufunc("sign"),
    "FloorInplace": _ufunc("floor"),
    "CeilInplace": _ufunc("ceil"),
    "RoundInplace": _round,
}
# No in-place kernel in the library: the out-of-place entry's result, stored into the target.
STORED: dict[str, str] = {
    "SiluInplace": "SiluElementwise",
    "GeluInplace": "GeluElementwise",
    "SigmoidInplace": "SigmoidElementwise",
    "ErfInplace": "ErfElementwise",
    "GeluErfInplace": "GeluErfElementwise",
}


def _stored(entry: Entry) -> Entry:
    def run(env, args):
        x = args[0]
        x[...] = entry(env, [x])

    return run


def in_place_entries(table: Mapping[str, Entry]) -> dict[str, Entry]:
    """The in-place entries, the stored ones over ``table``'s out-of-place entries."""
    return {**NATIVE, **{kind: _stored(table[twin]) for kind, twin in STORED.items()}}
