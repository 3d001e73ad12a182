"""ScatterAdd and IndexAdd: out = base with every src element added into the base element its
index names, each output element the exact sum of base and its contributions rounded once.

Geometry is plain index arithmetic over Fuel's op params (``targets_*``): which output element
each src element lands on. Every value is a multiple of the smallest subnormal of its format,
so each output's sum is an integer times 2^qmin, formed exactly as a Python integer. IEEE
specials follow the additions a kernel performs: a NaN gives NaN, +inf and -inf together give
NaN, otherwise an infinite term gives that infinity.

Duplicate indices make an output an order-dependent sum in the kernel. An element with two or
more contributions carries ``terms`` (n, Σ|x|), n = 1 + contributions, for SPEC §4's derived
bound (n-1)·u_acc·Σ|x| + ulp (u_acc: F32 for BF16/F16, the own format otherwise), and admits the
±inf / NaN some order's partial sums can reach. An element with at most one contribution is a
copy or one rounded add: its terms are (1, Σ|x|), the bound's single ulp and no order term.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from numerics.formats import dtype_name
from numerics.rounding import float_spec
from oracles.output import OracleOutput, float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import INF, acc_format, overflow_admitted, result, special


def _index_list(indices: np.ndarray, bound: int) -> list[int]:
    idx = [int(v) for v in np.asarray(indices).reshape(-1).tolist()]
    bad = [k for k in idx if not 0 <= k < bound]
    if bad:
        raise ValueError(f"indices {bad[:4]} are outside 0..{bound}")
    return idx


def _shape(params: Mapping, key: str) -> tuple[int, ...]:
    try:
        return tuple(int(s) for s in params[key])
    except KeyError as e:
        raise ValueError(f"ScatterAdd params need base_shape, src_shape and dim (got {dict(params)})") from e


def scatter_geometry(shapes: Sequence[tuple[int, ...]], params: Mapping) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(base shape, src shape, dim), checked against the operands and each other."""
    base, src, dim = _shape(params, "base_shape"), _shape(params, "src_shape"), int(params["dim"])
    if (tuple(shapes[0]), tuple(shapes[1]), tuple(shapes[2])) != (base, src, src):
        raise ValueError(f"ScatterAdd params {dict(params)} do not match base {shapes[0]}, "
                         f"indices {shapes[1]} and src {shapes[2]}")
    if not 0 <= dim < len(base) or len(src) != len(base) or any(
            b != s for d, (b, s) in enumerate(zip(base, src, strict=True)) if d != dim):
        raise ValueError(f"ScatterAdd: src {list(src)} must equal base {list(base)} except along dim {dim}")
    return base, src, dim


def targets_scatter(shapes, indices: np.ndarray, params: Mapping) -> list[int]:
    """The base element (flat, C order) each src element (flat) is added into."""
    base, src, dim = scatter_geometry(shapes, params)
    idx = _index_list(indices, base[dim])
    strides = [math.prod(base[d + 1:]) for d in range(len(base))]
    return [sum((k if d == dim else a) * strides[d] for d, a in enumerate(at))
            for at, k in zip(itertools.product(*(range(s) for s in src)), idx, strict=True)]


def index_geometry(shapes, params: Mapping) -> tuple[int, int, int, int]:
    """(outer, base_dim_size, n_indices, inner), checked against the operands."""
    try:
        outer, size, n, inner = (int(params[k]) for k in
                                 ("outer_count", "base_dim_size", "n_indices", "inner_count"))
    except KeyError as e:
        raise ValueError(f"IndexAdd params need outer_count, base_dim_size, n_indices and "
                         f"inner_count (got {dict(params)})") from e
    base_n, idx_n, src_n = (math.prod(s) for s in shapes[:3])
    if (base_n, idx_n, src_n) != (outer * size * inner, n, outer * n * inner):
        raise ValueError(f"IndexAdd params {dict(params)} do not match base {shapes[0]}, "
                         f"indices {shapes[1]} and src {shapes[2]}")
    return outer, size, n, inner


def targets_index(shapes, indices: np.ndarray, params: Mapping) -> list[int]:
    """out[o, indices[j], i] += src[o, j, i]: the base element of each src element (flat)."""
    outer, size, n, inner = index_geometry(shapes, params)
    idx = _index_list(indices, size)
    return [(o * size + idx[j]) * inner + i for o in range(outer) for j in range(n) for i in range(inner)]


class _Acc:
    """One output element's exact running sum (integers in units of 2^qmin) and its specials."""

    __slots__ = ("total", "pos", "neg", "nan", "pos_inf", "neg_inf", "neg_zero", "count")

    def __init__(self) -> None:
        self.total = self.pos = self.neg = self.count = 0
        self.nan = self.pos_inf = self.neg_inf = False
        self.neg_zero = True

    def add(self, v: float, unit: int) -> None:
        self.count += 1
        self.neg_zero &= v == 0 and math.copysign(1.0, v) < 0
        if not math.isfinite(v):
            self.nan |= v != v
            self.pos_inf |= v == INF
            self.neg_inf |= v == -INF
        elif v:
            n, d = v.as_integer_ratio()
            t = n * (unit // d)
            self.total += t
            if t > 0:
                self.pos += t
            else:
                self.neg -= t


def accumulate(base: np.ndarray, src: np.ndarray, targets: list[int], out_dtypes) -> OracleOutput:
    """base plus each src element at its target, exact, rounded once per output element."""
    fmt, s = output_spec(out_dtypes)
    name = dtype_name(base.dtype)
    unit = 1 << -float_spec(name).qmin
    acc = acc_format(base.dtype)
    sums = [_Acc() for _ in range(base.size)]
    for a, v in zip(sums, as_floats(base), strict=True):
        a.add(v, unit)
    for t, v in zip(targets, as_floats(src), strict=True):
        sums[t].add(v, unit)
    results, terms = [], []
    for a in sums:
        ordered = a.count > 2  # two or more contributions: the kernel's order is free
        admitted = () if a.nan or not ordered else overflow_admitted(
            Fraction(a.pos, unit), Fraction(a.neg, unit), a.pos_inf, a.neg_inf, a.count, acc)
        results.append(result(special(a.nan, a.pos_inf, a.neg_inf), a.total, unit, a.neg_zero, admitted, s))
        terms.append((a.count if ordered else 1, Fraction(a.pos + a.neg, unit)))
    shape = tuple(base.shape)
    return float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=acc)


def _operands(inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    base, indices, src = (np.asarray(x) for x in inputs[:3])
    return base, indices, src, [tuple(np.shape(x)) for x in (base, indices, src)]


def scatter_add(inputs, params, out_dtypes, rules):
    """out = base; out[..., indices[..., j, ...], ...] += src[..., j, ...] along dim."""
    base, indices, src, shapes = _operands(inputs)
    return [accumulate(base, src, targets_scatter(shapes, indices, params or {}), out_dtypes)]


def index_add(inputs, params, out_dtypes, rules):
    """out = base; out[o, indices[j], i] += src[o, j, i]."""
    base, indices, src, shapes = _operands(inputs)
    return [accumulate(base, src, targets_index(shapes, indices, params or {}), out_dtypes)]
