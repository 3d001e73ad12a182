"""Oracle throughput, elements per second, by OpKind class (pytest-benchmark).

Run: ``python3 -m pytest benchmarks/bench_oracle.py --benchmark-only``; each row's
``extra_info`` carries ``elements_per_second`` (also printed with ``-s``). Every round starts with
an empty transcendental memo: the numbers are cold evaluation cost.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from numerics.formats import get_format

N = 4096

CASES = {
    # class: [(op_kind, arity, params, out dtype or None for the input's)]
    "exact-arithmetic": [
        ("AddElementwise", 2, {}, None),
        ("MulElementwise", 2, {}, None),
        ("DivElementwise", 2, {}, None),
        ("SqrtElementwise", 1, {}, None),
        ("MaximumElementwise", 2, {}, None),
        ("RoundElementwise", 1, {}, None),
        ("Affine", 1, {"mul": 0.5, "add": 1.25}, None),
        ("LessElementwise", 2, {}, "BOOL"),
    ],
    "transcendental": [
        ("ExpElementwise", 1, {}, None),
        ("LogElementwise", 1, {}, None),
        ("SinElementwise", 1, {}, None),
        ("TanhElementwise", 1, {}, None),
        ("GeluElementwise", 1, {}, None),
        ("GeluErfElementwise", 1, {}, None),
        ("PowElementwise", 2, {}, None),
    ],
    "reduction": [
        ("SumReduce", 1, {"dims": [1], "keepdim": False}, None),
        ("MeanReduce", 1, {"dims": [0], "keepdim": False}, None),
        ("MaxReduce", 1, {"dims": [1], "keepdim": False}, None),
        ("ArgMaxDim", 1, {"dims": [1], "keepdim": False}, "U32"),
        ("ReduceSumTo", 1, {"input_shape": [64, 64], "output_shape": [1, 64]}, None),
    ],
}

ROWS = [(cls, *case) for cls, cases in CASES.items() for case in cases]


def _cold() -> None:
    """Empty the transcendental memo so every round measures evaluation, not cache hits."""
    from oracles import transcendental

    for fn in vars(transcendental).values():
        if hasattr(fn, "cache_clear"):
            fn.cache_clear()


def _inputs(op_kind: str, arity: int, fmt: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    dt = get_format(fmt).numpy_dtype
    out = []
    for _ in range(arity):
        x = rng.standard_normal(N) * 4
        if op_kind in ("LogElementwise", "SqrtElementwise", "PowElementwise") and not out:
            x = np.abs(x)
        out.append(x.astype(dt).reshape(64, 64))
    return out


@pytest.mark.parametrize("fmt", ["F32", "F64", "BF16"])
@pytest.mark.parametrize(("cls", "op_kind", "arity", "params", "out"), ROWS,
                         ids=[f"{r[0]}:{r[1]}" for r in ROWS])
def test_oracle_throughput(benchmark, cls, op_kind, arity, params, out, fmt):
    inputs = _inputs(op_kind, arity, fmt)
    result = benchmark.pedantic(oracles.evaluate, args=(op_kind, inputs, params, [out or fmt], {}),
                                setup=_cold, rounds=5, warmup_rounds=1)
    assert result and result[0].expected.size > 0
    rate = N / benchmark.stats.stats.mean
    benchmark.extra_info["elements_per_second"] = round(rate)
    benchmark.extra_info["class"] = cls
    print(f"{cls:16s} {op_kind:20s} {fmt:4s} {rate:10.0f} elements/s")
