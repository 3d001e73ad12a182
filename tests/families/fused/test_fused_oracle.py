"""The fused oracle against MPFR (gmpy2), written from the contract's text: FusedLinear as the sum
of the products and the bias at a precision that holds it exactly, rounded once; the cross-entropy
as log(Σ_j e^{x_j}) − x_t per row at 1200 bits (arranged as log Σ e^{x_j − x_t}, unlike the
oracle's max shift), summed or averaged over the rows not ignored, rounded once into F32."""

from __future__ import annotations

import importlib.util
import math
from functools import cache
from pathlib import Path

import gmpy2
import numpy as np
import pytest

import oracles
from numerics.formats import get_format
from numerics.rounding import array_to_bits

FORMATS = ["F32", "F64", "F16", "BF16"]
WIDE = 4800  # F64 products span 2^-2148 .. 2^2048: their sums are exact at this width
PREC = 1200


@cache
def _to_format():
    path = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"
    spec = importlib.util.spec_from_file_location("fused_oracle_mpfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._to_format


def _values(rng, fmt: str, shape, specials: bool) -> np.ndarray:
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-4, 5, shape)
    if specials:
        pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0 ** (get_format(fmt).emin - 1)])
        x = np.where(rng.random(shape) < 0.12, rng.choice(pool, shape), x)
    return x.astype(get_format(fmt).numpy_dtype)


def _same(got: int, want: int, fmt: str) -> bool:
    f = get_format(fmt)
    as_float = [float(np.array([v], f.bits_dtype).view(f.numpy_dtype)[0]) for v in (got, want)]
    return got == want or all(math.isnan(v) for v in as_float)


def _linear_reference(a, b, bias, fmt) -> list[int]:
    m, k = a.shape
    bits = []
    with gmpy2.context(precision=WIDE):
        for i in range(m):
            for j in range(b.shape[1]):
                total = gmpy2.mpfr(float(bias[j]), 64)
                for t in range(k):  # bias first: -0 + -0 products stays -0, as IEEE sums
                    total = total + gmpy2.mpfr(float(a[i, t]), 64) * gmpy2.mpfr(float(b[t, j]), 64)
                bits.append(_to_format()(total, fmt)[0])
    return bits


@pytest.mark.parametrize("fmt", FORMATS)
def test_fused_linear_matches_mpfr(fmt):
    rng = np.random.default_rng(sum(map(ord, fmt)))
    compared = bad = 0
    for trial in range(40):
        m, n, k = (int(v) for v in rng.integers(0, 5, 3))
        a, b = _values(rng, fmt, (m, k), trial % 2), _values(rng, fmt, (k, n), trial % 2)
        bias = _values(rng, fmt, (n,), trial % 2)
        params = {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}
        out = oracles.evaluate("FusedLinear", [a, b, bias], params, [fmt], {})[0]
        got = array_to_bits(out.expected, fmt).reshape(-1).tolist()
        for g, w, t in zip(got, _linear_reference(a, b, bias, fmt), out.terms.reshape(-1).tolist(), strict=True):
            compared += 1
            bad += not _same(g, w, fmt) or t[0] != k + 2
    assert compared > 100 and bad == 0


def test_fused_linear_batches_and_k_zero():
    a = np.arange(12, dtype=np.float32).reshape(2, 2, 3)  # lhs batch 2 reads rhs batch 0 (GQA)
    b = np.ones((1, 3, 2), np.float32)
    bias = np.array([0.5, -1.0], np.float32)
    params = {"lhs_batch_dims": [2], "rhs_batch_dims": [1], "m": 2, "n": 2, "k": 3}
    out = oracles.evaluate("FusedLinear", [a, b, bias], params, ["F32"], {})[0].expected
    assert out.tolist() == [[[3.5, 2.0], [12.5, 11.0]], [[21.5, 20.0], [30.5, 29.0]]]
    empty = oracles.evaluate("FusedLinear", [np.zeros((2, 0), np.float32), np.zeros((0, 2), np.float32),
                                             np.array([-0.0, 2.0], np.float32)],
                             {**params, "lhs_batch_dims": [], "rhs_batch_dims": [], "k": 0}, ["F32"], {})[0]
    assert empty.expected.tolist() == [[-0.0, 2.0], [-0.0, 2.0]] and np.signbit(empty.expected[:, 0]).all()


def _row_loss(row: list[float], target: int):
    """−log softmax(row)[target] in MPFR, with the contract's special values."""
    if any(v != v or v == math.inf for v in row) or all(v == -math.inf for v in row):
        return gmpy2.nan()
    if row[target] == -math.inf:
        return gmpy2.inf()
    with gmpy2.context(precision=PREC):
        xt = gmpy2.mpfr(row[target], 64)
        return gmpy2.log(sum((gmpy2.exp(gmpy2.mpfr(v, 64) - xt) for v in row if v != -math.inf), gmpy2.mpfr(0)))


def _cross_entropy_reference(logits, targets, reduction: str, ignore: int) -> list[int]:
    counted = [(i, int(t)) for i, t in enumerate(targets) if int(t) != ignore]
    losses = {i: _row_loss(logits[i].astype(np.float64).tolist(), t) for i, t in counted}
    to_f32 = _to_format()
    if reduction == "none":
        return [to_f32(losses.get(i, gmpy2.mpfr(0)), "F32")[0] for i in range(len(targets))]
    with gmpy2.context(precision=PREC):
        total = sum(losses.values(), gmpy2.mpfr(0))
        if reduction == "mean":
            total = total / len(counted) if counted else gmpy2.nan()
    return [to_f32(total, "F32")[0]]


@pytest.mark.parametrize("fmt", FORMATS)
def test_cross_entropy_matches_mpfr(fmt):
    rng = np.random.default_rng(3 + sum(map(ord, fmt)))
    compared = bad = 0
    for trial in range(60):
        n_rows, vocab = int(rng.integers(0, 5)), int(rng.integers(1, 7))
        logits = _values(rng, fmt, (n_rows, vocab), trial % 3 == 2)
        ignore = -100 if trial % 2 else int(rng.integers(0, vocab))
        targets = rng.integers(0, vocab, n_rows)
        targets[rng.random(n_rows) < 0.3] = ignore
        reduction = ("mean", "sum", "none")[trial % 3]
        params = {"n_rows": n_rows, "vocab": vocab, "reduction": reduction, "ignore_index": ignore}
        out = oracles.evaluate("FusedSoftmaxCrossEntropy", [logits, targets.astype(np.int64)], params,
                               ["F32"], {})[0]
        assert out.expected.dtype == np.float32
        assert out.expected.shape == ((n_rows,) if reduction == "none" else ())
        got = array_to_bits(out.expected, "F32").reshape(-1).tolist()
        for g, w in zip(got, _cross_entropy_reference(logits, targets, reduction, ignore), strict=True):
            compared += 1
            bad += not _same(g, w, "F32")
    assert compared > 60 and bad == 0


def test_cross_entropy_ignored_rows_and_empty_means():
    logits = np.array([[np.nan, 1.0], [0.0, 0.0]], np.float32)
    targets = np.array([-100, 1], np.int64)
    run = lambda reduction, t=targets: oracles.evaluate(  # noqa: E731
        "FusedSoftmaxCrossEntropy", [logits, t],
        {"n_rows": 2, "vocab": 2, "reduction": reduction, "ignore_index": -100}, ["F32"], {})[0].expected
    assert run("none").tolist() == [0.0, pytest.approx(math.log(2))]  # the NaN row is masked out
    assert float(run("mean")) == pytest.approx(math.log(2))
    assert math.isnan(float(run("mean", np.array([-100, -100], np.int64))))  # 0/0
    assert float(run("sum", np.array([-100, -100], np.int64))) == 0.0
    assert oracles.output_shape("cross_entropy", [(2, 2), (2,)], {"n_rows": 2, "reduction": "none"}) == (2,)
    assert oracles.output_shape("cross_entropy", [(2, 2), (2,)], {"n_rows": 2, "reduction": "sum"}) == ()
