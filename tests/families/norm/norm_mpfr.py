"""An independent reference for the row ops: MPFR through gmpy2, each formula arranged unlike the
oracle's (softmax as 1 / (1 + Σ_{j≠i} e^{x_j − x_i}), log-softmax as −log1p of that sum, the norms in
binary floating point at a high precision rather than in rationals), evaluated at P and 2P bits
and rounded once; a result is accepted only where both precisions give the same bits off a tie.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import gmpy2

_HELPER = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"


def _to_format():
    name = "judge_test_oracle_mpfr"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _HELPER)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]._to_format


def _softmax(xs, i, eps, log):
    others = sum((gmpy2.exp(x - xs[i]) for j, x in enumerate(xs) if j != i), gmpy2.mpfr(0))
    return 0 - gmpy2.log1p(others) if log else 1 / (1 + others)  # 0 - 0 is +0, as x_i - x_i is


def _rms(xs, i, eps, log):
    return xs[i] / gmpy2.sqrt(sum(x * x for x in xs) / len(xs) + eps)


def _layer(xs, i, eps, log):
    mu = sum(xs) / len(xs)
    var = sum((x - mu) ** 2 for x in xs) / len(xs)
    return (xs[i] - mu) / gmpy2.sqrt(var + eps)


FORMULAS = {
    "SoftmaxLastDim": (_softmax, False),
    "LogSoftmaxLastDim": (_softmax, True),
    "RmsNormLastDim": (_rms, False),
    "LayerNormLastDim": (_layer, False),
}


def row_bits(op_kind: str, row: list[float], eps: float, fmt: str, prec: int = 400) -> list[int | None]:
    """Bits of each element of one finite row (None where the two precisions disagree)."""
    fn, log = FORMULAS[op_kind]
    to_format = _to_format()
    out = []
    for i in range(len(row)):
        got = []
        for p in (prec, 2 * prec):
            with gmpy2.context(precision=p, emax=1 << 40, emin=-(1 << 40)):
                xs = [gmpy2.mpfr(v, 64) for v in row]
                got.append(to_format(fn(xs, i, gmpy2.mpfr(eps, 64), log), fmt))
        (b1, tie1), (b2, tie2) = got
        out.append(b1 if b1 == b2 and not (tie1 or tie2) else None)
    return out
