"""``fuel-ref``: a second, independent reference backend for the Cpu contracts of the embedded suite.

Scalar Python over MPFR (gmpy2), written from the contracts' text and SPEC §4, never from the
Judge's oracle (it does not import ``oracles``): each element is computed in an MPFR context that
is the output format itself (precision, exponent range, subnormals, round-to-nearest-even), so
every MPFR function it calls is correctly rounded into that format. Composite functions (sigmoid,
silu, the GELUs) are evaluated at 256 bits (more where that lands on a rounding midpoint) and
rounded once. Sums whose contract fixes the order
("fixed fold order") fold left to right in the stated accumulator (F32 for BF16/F16 inputs);
means, whose order is free, are exact and rounded once.

Loadable as ``--plugin tests/plugins/reference.py --backend fuel-ref``; slow (one Python call per
element), meant for conformance runs of the harness itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

import gmpy2
import ml_dtypes
import numpy as np
from gmpy2 import mpfr

import judge

# (precision bits with the implicit one, largest normal exponent) of each float format
FORMATS = {"F64": (53, 1023), "F32": (24, 127), "F16": (11, 15), "BF16": (8, 127)}
NUMPY = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "BF16": ml_dtypes.bfloat16,
         "BOOL": np.bool_, "U32": np.uint32}
INF = math.inf


def context(fmt: str, rounding=gmpy2.RoundToNearest):
    """An MPFR context whose results are exactly the values of ``fmt`` (IEEE binary format)."""
    p, emax = FORMATS[fmt]
    return gmpy2.context(precision=p, emax=emax + 1, emin=(1 - emax) - p + 2, subnormalize=True,
                         round=rounding)


def _wide(precision: int):
    return gmpy2.context(precision=precision, emax=1 << 24, emin=-(1 << 24), round=gmpy2.RoundToNearest)


def _on_midpoint(fmt: str, w) -> bool:
    """Whether ``w`` is exactly halfway between two neighbours of ``fmt`` (rounding it once would
    then depend on bits the working precision lost)."""
    if not gmpy2.is_finite(w) or w == 0:
        return False
    with context(fmt, gmpy2.RoundDown):
        down = float(+w)
    with context(fmt, gmpy2.RoundUp):
        up = float(+w)
    if down == up:
        return False
    return Fraction(down + 0.0) + Fraction(up) == 2 * Fraction(*w.as_integer_ratio())


def rounded(fmt: str, compute: Callable[[], object]) -> float:
    """``compute()`` evaluated at a working precision that settles the rounding into ``fmt``
    (256 bits first, more where the wide value lands on a midpoint), then rounded once."""
    for precision in (256, 2048, 8192):
        with gmpy2.context(_wide(precision)):
            wide = compute()
        if not _on_midpoint(fmt, wide):
            break
    with context(fmt):
        return float(+wide)


def exact_in(fmt: str, fn: Callable[..., object], *args: float) -> float:
    """``fn`` evaluated in ``fmt``'s own context: correctly rounded by MPFR."""
    with context(fmt):
        return float(fn(*(mpfr(a) for a in args)))


def to_format(fmt: str, x: float) -> float:
    with context(fmt):
        return float(mpfr(x))


# --- elementwise ---------------------------------------------------------------------------------


def _sigmoid(x):
    return 1 / (1 + gmpy2.exp(-x))


def _gelu_tanh(x):
    z = gmpy2.sqrt(2 / gmpy2.const_pi()) * (x + mpfr("0.044715") * x**3)
    return x / (1 + gmpy2.exp(-2 * z))  # 0.5·x·(1 + tanh z) without cancelling for z << 0


def _gelu_erf(x):
    return x * gmpy2.erfc(-x / gmpy2.sqrt(2)) / 2  # 0.5·x·(1 + erf(x/√2)), no cancellation


def _limit(x: float, pos: float, neg: float) -> float | None:
    """The value at ±inf where a formula alone would give inf·0."""
    return pos if x == INF else neg if x == -INF else None


def _composite(formula, at_inf: tuple[float, float]):
    def run(fmt, x):
        if x != x:
            return x
        lim = _limit(x, *at_inf)
        if lim is not None:
            return lim
        if x == 0:
            return 0.5 if formula is _sigmoid else x  # sigmoid(±0) = 1/2; the others keep ±0
        return rounded(fmt, lambda: formula(mpfr(x)))

    return run


def _rsqrt(fmt, x):
    if x == 0:
        return math.copysign(INF, x)  # 1/sqrt(±0) = 1/±0 (IEEE 754 rSqrt)
    return exact_in(fmt, gmpy2.rec_sqrt, x)


def _sign(fmt, x):
    return x if x != x else 1.0 if x > 0 else -1.0 if x < 0 else 0.0  # sign(±0) = +0


UNARY: dict[str, Callable] = {
    "NegElementwise": lambda fmt, x: -x,
    "AbsElementwise": lambda fmt, x: abs(x),
    "SignElementwise": _sign,
    "ReluElementwise": lambda fmt, x: x if x > 0 else 0.0,  # NaN > 0 is false: 0
    "StepElementwise": lambda fmt, x: 1.0 if x > 0 else 0.0,
    "SqrElementwise": lambda fmt, x: exact_in(fmt, lambda a: a * a, x),
    "SqrtElementwise": lambda fmt, x: exact_in(fmt, gmpy2.sqrt, x),
    "RsqrtElementwise": _rsqrt,
    "RecipElementwise": lambda fmt, x: exact_in(fmt, lambda a: 1 / a, x),
    "ExpElementwise": lambda fmt, x: exact_in(fmt, gmpy2.exp, x),
    "LogElementwise": lambda fmt, x: exact_in(fmt, gmpy2.log, x),
    "SinElementwise": lambda fmt, x: exact_in(fmt, gmpy2.sin, x),
    "CosElementwise": lambda fmt, x: exact_in(fmt, gmpy2.cos, x),
    "TanhElementwise": lambda fmt, x: exact_in(fmt, gmpy2.tanh, x),
    "ErfElementwise": lambda fmt, x: exact_in(fmt, gmpy2.erf, x),
    "FloorElementwise": lambda fmt, x: exact_in(fmt, gmpy2.rint_floor, x),
    "CeilElementwise": lambda fmt, x: exact_in(fmt, gmpy2.rint_ceil, x),
    "RoundElementwise": lambda fmt, x: exact_in(fmt, gmpy2.rint, x),  # ties to even
    "SigmoidElementwise": _composite(_sigmoid, (1.0, 0.0)),
    "SiluElementwise": _composite(lambda a: a * _sigmoid(a), (INF, -0.0)),
    "GeluElementwise": _composite(_gelu_tanh, (INF, -0.0)),
    "GeluErfElementwise": _composite(_gelu_erf, (INF, -0.0)),
}


def _floored_rem(fmt, a, b):
    """a − floor(a/b)·b: sign of the divisor (C fmod, then moved into the divisor's sign)."""
    if a != a or b != b or math.isinf(a) or b == 0:
        return math.nan
    if math.isinf(b):
        if a == 0:
            return math.copysign(0.0, b)
        return a if (a < 0) == (b < 0) else b
    r = exact_in(fmt, gmpy2.fmod, a, b)
    if r == 0:
        return math.copysign(0.0, b)
    if (r < 0) != (b < 0):
        return exact_in(fmt, lambda u, v: u + v, r, b)
    return r


def _extremum(largest: bool):
    def run(fmt, a, b, rules):
        if a != a or b != b:
            if rules["nan"] == "ignore":
                return b if a != a else a
            return math.nan
        if largest:
            return a if a > b else b  # equal zeros: either is one of the two operands
        return a if a < b else b

    return run


BINARY: dict[str, Callable] = {
    "AddElementwise": lambda fmt, a, b, r: exact_in(fmt, lambda u, v: u + v, a, b),
    "SubElementwise": lambda fmt, a, b, r: exact_in(fmt, lambda u, v: u - v, a, b),
    "MulElementwise": lambda fmt, a, b, r: exact_in(fmt, lambda u, v: u * v, a, b),
    "DivElementwise": lambda fmt, a, b, r: exact_in(fmt, lambda u, v: u / v, a, b),
    "PowElementwise": lambda fmt, a, b, r: exact_in(fmt, lambda u, v: u**v, a, b),  # C99 Annex F
    "RemElementwise": lambda fmt, a, b, r: _floored_rem(fmt, a, b),
    "MaximumElementwise": _extremum(True),
    "MinimumElementwise": _extremum(False),
}

COMPARE: dict[str, Callable[[float, float], bool]] = {
    "EqualElementwise": lambda a, b: a == b,
    "NotEqualElementwise": lambda a, b: a != b,
    "LessElementwise": lambda a, b: a < b,
    "LessEqualElementwise": lambda a, b: a <= b,
    "GreaterElementwise": lambda a, b: a > b,
    "GreaterEqualElementwise": lambda a, b: a >= b,
}


def _clamp(fmt, x, params):
    lo, hi = to_format(fmt, float(params["min"])), to_format(fmt, float(params["max"]))
    y = lo if x < lo else x  # two comparison-selects, no arithmetic on x
    return hi if y > hi else y


def _affine(fmt, x, params):
    mul, add = to_format(fmt, float(params["mul"])), to_format(fmt, float(params["add"]))
    return exact_in(fmt, gmpy2.fma, x, mul, add)


def _powi(fmt, x, params):
    n = int(params["exp"])
    with context(fmt):
        return float(mpfr(x) ** n)


PARAM_UNARY = {"ClampElementwise": _clamp, "Affine": _affine, "PowIElementwise": _powi}


# --- reductions ----------------------------------------------------------------------------------


def _groups(shape: Sequence[int], axes: Sequence[int]) -> tuple[list[tuple], list[list[tuple]]]:
    """Output index (over the kept axes) and, for each, the input indices in C order over the
    reduced axes."""
    kept = [a for a in range(len(shape)) if a not in axes]
    outs, members = [], []
    for k in np.ndindex(*[shape[a] for a in kept]):
        outs.append(k)
        rows = []
        for r in np.ndindex(*[shape[a] for a in axes]):
            idx = [0] * len(shape)
            for a, v in zip(kept, k, strict=True):
                idx[a] = v
            for a, v in zip(axes, r, strict=True):
                idx[a] = v
            rows.append(tuple(idx))
        members.append(rows)
    return outs, members


def _acc(fmt: str) -> str:
    return "F32" if fmt in ("F16", "BF16") else fmt


def _fold_sum(fmt: str, values: list[float]) -> float:
    """Left-to-right sum in the accumulator, each partial sum rounded there; narrowed on store."""
    acc = _acc(fmt)
    with context(acc):
        total = mpfr(0)
        for v in values:
            total = total + mpfr(v)
        total = float(total)
    return to_format(fmt, total)


def _exact_mean(fmt: str, values: list[float]) -> float:
    """The exact mean, rounded once (the contract leaves the order of summation free)."""
    if not values or any(v != v for v in values) or (INF in values and -INF in values):
        return math.nan
    if INF in values or -INF in values:
        return INF if INF in values else -INF
    total = sum((Fraction(v) for v in values), start=Fraction(0))
    if total == 0:  # an exact zero sum is +0 unless every term is -0
        return -0.0 if all(math.copysign(1.0, v) < 0 for v in values) else 0.0
    with context(fmt):
        return float(mpfr(gmpy2.mpq(total.numerator, total.denominator * len(values))))


def _fold_extremum(values: list[float], largest: bool, rules) -> float:
    init = rules.get("init") == "identity"
    best = (-INF if largest else INF) if init else None
    for v in values:
        if v != v:
            if rules["nan"] == "ignore":
                continue
            return math.nan
        if best is None or (v > best if largest else v < best):
            best = v
    return math.nan if best is None else best


def _argext(values: list[float], largest: bool) -> int:
    best_i = -1
    for i, v in enumerate(values):  # NaN never wins; the first index wins ties
        if v != v:
            continue
        if best_i < 0 or (v > values[best_i] if largest else v < values[best_i]):
            best_i = i
    return max(best_i, 0)


def _reduce_axes(params, ndim) -> tuple[tuple[int, ...], bool]:
    dims = params.get("dims", ())
    dims = (dims,) if isinstance(dims, int) else tuple(int(d) for d in dims)
    return dims, bool(params.get("keepdim", False))


def _to_axes(params, shape) -> tuple[int, ...]:
    target = tuple(int(n) for n in params["output_shape"])
    padded = (1,) * (len(shape) - len(target)) + target
    return tuple(a for a, (i, o) in enumerate(zip(shape, padded, strict=True)) if o == 1 and i != 1)


# --- the backend -----------------------------------------------------------------------------------

ELEMENTWISE = set(UNARY) | set(BINARY) | set(COMPARE) | set(PARAM_UNARY) | {"Where"}
REDUCTIONS = {"SumReduce", "MeanReduce", "MaxReduce", "MinReduce", "ArgMaxDim", "ArgMinDim",
              "ReduceSumTo", "ReduceMaxTo", "ReduceMaxToBackward"}


class FuelRef(judge.Backend):
    name = "fuel-ref"
    device = "cpu"

    def available(self):
        return True

    def supports(self, contract, dtypes):
        if contract.op_kind in ELEMENTWISE | REDUCTIONS:
            return True
        return f"fuel-ref has no {contract.op_kind}"

    def run(self, contract, call):
        rules = {k: contract.semantics.get(k).value for k in ("nan", "init")}
        xs = [np.asarray(t.view()) for t in call.inputs]
        out = call.outputs[0]
        fmt = out.dtype
        kind = contract.op_kind
        if kind in REDUCTIONS:
            return self._reduce(kind, fmt, xs, dict(call.params), rules, call)
        shape = tuple(out.shape)
        ins = [np.broadcast_to(x, shape) for x in xs]
        result = np.empty(shape, dtype=NUMPY[fmt])
        params = dict(call.params)
        for idx in np.ndindex(*shape):
            vals = [x[idx] for x in ins]
            if kind == "Where":
                result[idx] = vals[1] if bool(vals[0]) else vals[2]  # the chosen operand, bit for bit
                continue
            f = [float(v) for v in vals]
            if kind in UNARY:
                y = UNARY[kind](fmt, f[0])
            elif kind in PARAM_UNARY:
                y = PARAM_UNARY[kind](fmt, f[0], params)
            elif kind in COMPARE:
                y = COMPARE[kind](f[0], f[1])
            else:
                y = BINARY[kind](fmt, f[0], f[1], rules)
            result[idx] = y
        return [result]

    def _reduce(self, kind, fmt, xs, params, rules, call):
        x = xs[0]
        if kind in ("ReduceSumTo", "ReduceMaxTo", "ReduceMaxToBackward"):
            x = x.reshape(tuple(int(n) for n in params["input_shape"]))
            axes, keepdim = _to_axes(params, x.shape), True
        else:
            axes, keepdim = _reduce_axes(params, x.ndim)
        outs, members = _groups(x.shape, axes)
        values = [[float(x[i]) for i in row] for row in members]
        if kind == "ReduceMaxToBackward":
            upstream = xs[1].reshape(-1)
            grad = np.zeros(x.shape, dtype=NUMPY[fmt])
            for j, row in enumerate(members):
                m = _fold_extremum(values[j], True, rules)
                winners = [i for i, v in zip(row, values[j], strict=True) if v == m]
                for i in winners:
                    grad[i] = exact_in(fmt, lambda u, n: u / n, float(upstream[j]), float(len(winners)))
            return [grad.reshape(call.outputs[0].shape)]
        if kind in ("ArgMaxDim", "ArgMinDim"):
            flat = [_argext(v, kind == "ArgMaxDim") for v in values]
            return [np.array(flat, dtype=np.uint32).reshape(call.outputs[0].shape)]
        if kind in ("SumReduce", "ReduceSumTo"):
            flat = [_fold_sum(fmt, v) for v in values]  # the contracts fix a left-to-right fold
        elif kind == "MeanReduce":
            flat = [_exact_mean(fmt, v) for v in values]
        else:
            flat = [_fold_extremum(v, kind in ("MaxReduce", "ReduceMaxTo"), rules) for v in values]
        return [np.array(flat, dtype=np.float64).astype(NUMPY[fmt]).reshape(call.outputs[0].shape)]


judge.register_backend(FuelRef())
