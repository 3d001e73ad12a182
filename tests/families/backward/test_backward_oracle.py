"""The backward references against two independent routes on generated rows:

- MPFR (gmpy2) at P and 2P bits, each formula arranged unlike the oracle's (the norms through
  y and mean(g·y) as autograd writes them, softmax distributed as y·g − y·s), rounded once by
  ``tests/oracle/oracle_mpfr.py``; a result counts only where both precisions agree off a tie;
- central finite differences of the forward definitions (mpmath at 200 bits, step 2^-70) of
  L(x) = Σ g·f(x) — only as a test of the references, never as an oracle.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import gmpy2
import mpmath
import numpy as np
import pytest

import oracles
from numerics.formats import get_format

FORMATS = ("F32", "F64", "F16", "BF16")
ROWS = ("SoftmaxLastDimBackward", "LogSoftmaxLastDimBackward", "RmsNormLastDimBackward",
        "LayerNormLastDimBackward")
EPS = 2.0**-17


def _to_format():
    path = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"
    spec = importlib.util.spec_from_file_location("backward_oracle_mpfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._to_format


def _inputs(kind: str, fmt: str, rng, n: int):
    t = get_format(fmt).numpy_dtype
    z = rng.normal(0, 2, n)
    g = rng.normal(0, 1, n) * 2.0 ** rng.integers(-3, 3)
    if kind == "SoftmaxLastDimBackward":
        first = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    elif kind == "LogSoftmaxLastDimBackward":
        first = z - z.max() - np.log(np.exp(z - z.max()).sum())
    else:
        first = z + rng.choice([0.0, 100.0, -7.0])
    return first.astype(t), g.astype(t)


def _mpfr_row(kind: str, a: list, g: list, i: int, eps):
    n = len(a)
    if kind == "SoftmaxLastDimBackward":
        s = sum((x * y for x, y in zip(g, a, strict=True)), gmpy2.mpfr(0))
        return a[i] * g[i] - a[i] * s
    if kind == "LogSoftmaxLastDimBackward":
        return g[i] - gmpy2.exp(a[i]) * sum(g, gmpy2.mpfr(0))
    if kind == "RmsNormLastDimBackward":
        r = gmpy2.sqrt(sum(x * x for x in a) / n + eps)
        y = [x / r for x in a]
        return (g[i] - y[i] * sum(gj * yj for gj, yj in zip(g, y, strict=True)) / n) / r
    mu = sum(a) / n
    sigma = gmpy2.sqrt(sum((x - mu) ** 2 for x in a) / n + eps)
    y = [(x - mu) / sigma for x in a]
    mean_gy = sum(gj * yj for gj, yj in zip(g, y, strict=True)) / n
    return (g[i] - sum(g) / n - y[i] * mean_gy) / sigma


def _mpfr_bits(kind, a, g, fmt, to_format, prec=300):
    out = []
    for i in range(len(a)):
        got = []
        for p in (prec, 2 * prec):
            with gmpy2.context(precision=p, emax=1 << 40, emin=-(1 << 40)):
                av, gv = [gmpy2.mpfr(float(v), 64) for v in a], [gmpy2.mpfr(float(v), 64) for v in g]
                got.append(to_format(_mpfr_row(kind, av, gv, i, gmpy2.mpfr(EPS, 64)), fmt))
        (b1, t1), (b2, t2) = got
        out.append(b1 if b1 == b2 and not (t1 or t2) else None)
    return out


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", ROWS)
def test_row_backward_matches_mpfr(kind, fmt):
    to_format = _to_format()
    rng = np.random.default_rng(sum(map(ord, kind + fmt)))
    f = get_format(fmt)
    compared = 0
    for _ in range(12):
        a, g = _inputs(kind, fmt, rng, int(rng.integers(1, 12)))
        out = oracles.get(kind).evaluate([a[None], g[None]], {"eps": EPS}, [fmt], {})[0]
        got = out.expected.reshape(-1).view(f.bits_dtype).tolist()
        for k, (mine, want) in enumerate(zip(got, _mpfr_bits(kind, a.tolist(), g.tolist(), fmt, to_format), strict=True)):
            if want is not None:
                compared += 1
                assert mine == want, f"{kind} {fmt} element {k} of {a.tolist()}, {g.tolist()}: 0x{mine:X} vs MPFR 0x{want:X}"
    assert compared > 50


def test_powi_backward_matches_mpfr():
    to_format = _to_format()
    rng = np.random.default_rng(7)
    for fmt in FORMATS:
        f = get_format(fmt)
        for n in (-3, -1, 2, 3, 5):
            x = (rng.uniform(-3, 3, 40)).astype(f.numpy_dtype)
            g = rng.normal(0, 1, 40).astype(f.numpy_dtype)
            out = oracles.get("PowIElementwiseBackward").evaluate([x, g], {"exp": n}, [fmt], {})[0]
            got = out.expected.view(f.bits_dtype).tolist()
            with gmpy2.context(precision=4000, emax=1 << 40, emin=-(1 << 40)):
                want = [to_format(gmpy2.mpfr(float(b)) * n * gmpy2.mpfr(float(a)) ** (n - 1), fmt)[0]
                        if a != 0 or n > 1 else None for a, b in zip(x, g, strict=True)]
            assert all(w is None or m == w for m, w in zip(got, want, strict=True)), (fmt, n)


def _forward(kind: str, xs: list, eps):
    """The forward definitions at mpmath's working precision (no rounding to a format)."""
    n = len(xs)
    if kind in ("SoftmaxLastDimBackward", "LogSoftmaxLastDimBackward"):
        m = max(xs)
        total = mpmath.fsum(mpmath.exp(x - m) for x in xs)
        if kind == "SoftmaxLastDimBackward":
            return [mpmath.exp(x - m) / total for x in xs]
        return [x - m - mpmath.log(total) for x in xs]
    if kind == "RmsNormLastDimBackward":
        r = mpmath.sqrt(mpmath.fsum(x * x for x in xs) / n + eps)
        return [x / r for x in xs]
    mu = mpmath.fsum(xs) / n
    sigma = mpmath.sqrt(mpmath.fsum((x - mu) ** 2 for x in xs) / n + eps)
    return [(x - mu) / sigma for x in xs]


@pytest.mark.parametrize("kind", ROWS)
def test_row_backward_is_the_derivative_of_the_forward(kind):
    """Σ g·f(x) differentiated by central differences agrees with the reference within 4 ulp
    of F64 (the reference is fed f(x) rounded to F64 where it takes the forward's output)."""
    rng = np.random.default_rng(len(kind))
    mpmath.mp.prec = 200
    h = mpmath.mpf(2) ** -70
    for _ in range(6):
        n = int(rng.integers(2, 9))
        x, g = rng.normal(0, 2, n), rng.normal(0, 1, n)
        xs = [mpmath.mpf(float(v)) for v in x]
        first = x if "Norm" in kind else np.array([float(v) for v in _forward(kind, xs, EPS)])
        out = oracles.get(kind).evaluate([first[None], g[None]], {"eps": EPS}, ["F64"], {})[0]
        got = out.expected.reshape(-1)
        for i in range(n):
            up = [v + (h if j == i else 0) for j, v in enumerate(xs)]
            down = [v - (h if j == i else 0) for j, v in enumerate(xs)]
            fd = (mpmath.fsum(gj * y for gj, y in zip(g, _forward(kind, up, EPS), strict=True))
                  - mpmath.fsum(gj * y for gj, y in zip(g, _forward(kind, down, EPS), strict=True))) / (2 * h)
            scale = max(1.0, float(np.abs(got).max()))
            assert abs(float(fd) - got[i]) <= 4 * math.ulp(scale), (kind, i, float(fd), got[i])


def test_powi_backward_is_the_derivative_of_the_forward():
    mpmath.mp.prec = 200
    h = mpmath.mpf(2) ** -70
    for n in (-2, 1, 2, 3, 7):
        for x in (0.75, -1.5, 2.0, 3.25):
            out = oracles.get("PowIElementwiseBackward").evaluate(
                [np.array([x]), np.array([1.5])], {"exp": n}, ["F64"], {})[0]
            fd = 1.5 * ((mpmath.mpf(x) + h) ** n - (mpmath.mpf(x) - h) ** n) / (2 * h)
            assert abs(float(fd) - out.expected[0]) <= 2 * math.ulp(out.expected[0]), (n, x)


SPECIAL = [
    # (kind, first operand, grad, params, expected)
    ("SoftmaxLastDimBackward", [0.5, 0.5], [1.0, math.nan], {}, [math.nan, math.nan]),
    ("SoftmaxLastDimBackward", [0.25, 0.5], [math.inf, 1.0], {}, [math.nan, -math.inf]),
    ("LogSoftmaxLastDimBackward", [-math.inf, 0.0], [2.0, 1.0], {}, [2.0, -2.0]),
    ("RmsNormLastDimBackward", [1.0, math.inf], [1.0, 1.0], {"eps": EPS}, [math.nan, math.nan]),
    ("LayerNormLastDimBackward", [1.0, 2.0], [1.0, math.nan], {"eps": EPS}, [math.nan, math.nan]),
    ("PowIElementwiseBackward", [math.nan, 0.0], [math.nan, 2.0], {"exp": 0}, [0.0, 0.0]),
    ("PowIElementwiseBackward", [math.nan, math.inf], [2.0, 3.0], {"exp": 1}, [2.0, 3.0]),
    ("PowIElementwiseBackward", [0.0, -0.0], [1.0, 1.0], {"exp": -1}, [-math.inf, -math.inf]),
]


@pytest.mark.parametrize("kind, first, grad, params, expected", SPECIAL)
def test_special_values(kind, first, grad, params, expected):
    shape = (1, len(first)) if kind in ROWS else (len(first),)
    a, g = (np.array(v, np.float32).reshape(shape) for v in (first, grad))
    got = oracles.get(kind).evaluate([a, g], params, ["F32"], {})[0].expected.reshape(-1).astype(np.float64)
    want = np.array(expected)
    assert np.array_equal(np.isnan(got), np.isnan(want)), got
    assert np.array_equal(got[~np.isnan(want)], want[~np.isnan(want)]), got
