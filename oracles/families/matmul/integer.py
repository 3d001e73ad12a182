"""Integer MatMul (I8, U8): exact integer dot products, then the store into the output format.

The sum of k products is formed exactly as a Python integer. The kernels accumulate in I32; the
drawing keeps k·max|a·b| within I32 (``accumulator_k_limit``), so the exact sum is the
accumulator's. The contract states the store (no default: a float MatMul has none): under
``overflow: saturate`` a sum past the output format's range is clamped to
its nearest end; under ``wrap`` it is taken modulo 2^bits.
(``numerics.rounding.store_int``).
"""

from __future__ import annotations

from numerics.rounding import int_range, ints_to_array, store_int
from oracles.output import OracleOutput, out_format, resolve_rule

ACCUMULATOR = "I32"
OVERFLOW_RULES = ("saturate", "wrap")


def accumulator_k_limit(dtype: str) -> int:
    """The longest k whose dot product cannot leave the I32 accumulator, for operands of
    ``dtype``: (2^31 - 1) // the largest |a·b|."""
    lo, hi = int_range(dtype)
    biggest = max(lo * lo, hi * hi)
    return int_range(ACCUMULATOR)[1] // biggest


def evaluate_int_matmul(lhs, rhs, dims, out_dtypes, rules, defaults) -> list[OracleOutput]:
    """out[b, i, j] = Σ_t lhs[b, i, t]·rhs[b', t, j] exactly, stored by the overflow rule."""
    lb, rb, m, n, k = dims
    fmt = out_format(out_dtypes)
    rule = resolve_rule(rules, "overflow", defaults, OVERFLOW_RULES)
    a = [int(v) for v in lhs.reshape(-1)]
    b = [int(v) for v in rhs.reshape(-1)]
    values = []
    for bi in _batch_indices(lb):
        li = _ravel(bi, lb)
        ri = _ravel(tuple(i // (ld // r) for i, ld, r in zip(bi, lb, rb, strict=True)), rb)
        for i in range(m):
            row = a[(li * m + i) * k:(li * m + i + 1) * k]
            for j in range(n):
                col = b[ri * k * n + j:(ri + 1) * k * n:n]
                total = sum(x * y for x, y in zip(row, col, strict=True))
                values.append(store_int(total, fmt, rule))
    return [OracleOutput(expected=ints_to_array(values, fmt, (*lb, m, n)))]


def _batch_indices(dims: tuple[int, ...]):
    import itertools

    return itertools.product(*(range(d) for d in dims))


def _ravel(index: tuple[int, ...], dims: tuple[int, ...]) -> int:
    flat = 0
    for i, d in zip(index, dims, strict=True):
        flat = flat * d + i
    return flat
