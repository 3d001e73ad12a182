"""The scan oracle against independent routes (``scan_mpfr``: MPFR, written from mamba_ssm's
definitions): SelectiveScan's sequential recurrence, Mamba-2's recurrence and ssd_minimal's
chunked form must all round to the oracle's bits; the oracle's SsdChunkScan does not depend on
chunk_size and equals its SelectiveScan on the same lanes; exact cases (ties, cancellations to
zero) are settled exactly; special values reach what the contract says."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scan_mpfr

import oracles
from numerics.formats import get_format
from numerics.rounding import array_to_bits
from numerics.ulp import as_fraction

FORMATS = ["F32", "F64", "BF16", "F16"]


def _cast(x, fmt):
    return np.asarray(x, np.float64).astype(get_format(fmt).numpy_dtype)


def _selective_inputs(rng, fmt, batch=2, seqlen=6, dim=2, n=3, softplus=False):
    u = rng.standard_normal((batch, seqlen, dim)) * 2.0 ** rng.integers(-3, 4, (batch, seqlen, dim))
    delta = rng.standard_normal((batch, seqlen, dim)) if softplus else rng.uniform(0, 1.5, (batch, seqlen, dim))
    a = -rng.uniform(0, 3, (dim, n))
    b, c = rng.standard_normal((batch, seqlen, n)), rng.standard_normal((batch, seqlen, n))
    return [_cast(v, fmt) for v in (u, delta, a, b, c)]


def _ssd_inputs(rng, fmt, batch=1, seqlen=8, heads=2, p=2, n=2):
    x = rng.standard_normal((batch, seqlen, heads, p))
    dt = rng.uniform(0, 1, (batch, seqlen, heads))
    a = -rng.uniform(0, 2, heads)
    b, c = rng.standard_normal((batch, seqlen, heads, n)), rng.standard_normal((batch, seqlen, heads, n))
    return [_cast(v, fmt) for v in (x, dt, a, b, c)]


def _selective(inputs, softplus):
    batch, seqlen, dim = inputs[0].shape
    params = {"batch": batch, "seqlen": seqlen, "dim": dim, "dstate": inputs[2].shape[1],
              "delta_softplus": softplus}
    return oracles.evaluate("SelectiveScan", inputs, params, [inputs[0].dtype], {})[0]


def _ssd(inputs, chunk):
    batch, seqlen, heads, p = inputs[0].shape
    params = {"batch": batch, "seqlen": seqlen, "heads": heads, "head_dim": p,
              "state_dim": inputs[3].shape[-1], "chunk_size": chunk}
    return oracles.evaluate("SsdChunkScan", inputs, params, [inputs[0].dtype], {})[0]


def _bits(out, fmt):
    return array_to_bits(out.expected, fmt).reshape(-1).tolist()


def _mpfr_bits(values, fmt):
    return [scan_mpfr.to_bits(v, fmt) for v in values.reshape(-1)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("softplus", [False, True])
def test_selective_scan_matches_mpfr(fmt, softplus):
    rng = np.random.default_rng(sum(map(ord, fmt)) + softplus)
    compared = 0
    for _ in range(3):
        inputs = _selective_inputs(rng, fmt, softplus=softplus)
        want = _mpfr_bits(scan_mpfr.selective(*inputs, softplus), fmt)
        assert _bits(_selective(inputs, softplus), fmt) == want
        compared += len(want)
    assert compared >= 72


@pytest.mark.parametrize("fmt", FORMATS)
def test_ssd_sequential_and_chunked_references_round_to_the_oracle(fmt):
    """The oracle scans sequentially; MPFR's sequential and chunked forms (chunks of 1, 2, 4, 8)
    must give its bits, and so must the oracle asked with any chunk_size."""
    rng = np.random.default_rng(11 + sum(map(ord, fmt)))
    inputs = _ssd_inputs(rng, fmt)
    got = _bits(_ssd(inputs, 2), fmt)
    assert _mpfr_bits(scan_mpfr.ssd_sequential(*inputs), fmt) == got
    for q in (1, 2, 4, 8):
        assert _mpfr_bits(scan_mpfr.ssd_chunked(*inputs, q), fmt) == got, f"chunks of {q}"
        assert _bits(_ssd(inputs, q), fmt) == got


def test_ssd_is_the_selective_scan_of_its_lanes():
    """A (batch, head, p) lane of SsdChunkScan is a SelectiveScan channel with delta = dt, a row
    of a = a[head], u = x[..., p] and no softplus: the two oracles agree bit for bit."""
    rng = np.random.default_rng(5)
    x, dt, a, b, c = _ssd_inputs(rng, "F32", batch=1, seqlen=6, heads=1, p=2, n=3)
    ssd = _ssd([x, dt, a, b, c], 3).expected
    for j in range(2):
        lane = [x[:, :, 0, j:j + 1], dt[:, :, 0:1], np.full((1, 3), a[0], np.float32), b[:, :, 0], c[:, :, 0]]
        sel = _selective(lane, False).expected
        assert array_to_bits(sel[:, :, 0], "F32").tolist() == array_to_bits(ssd[:, :, 0, j], "F32").tolist()


def test_exact_cases_are_settled_exactly():
    """a = 0 leaves a rational output, here a tie of BF16 (1 + 2^-8, to even: 1.0); channels
    that cancel exactly give 0, with and without softplus; no step at all gives 0."""
    bf = get_format("BF16").numpy_dtype
    u = np.array([[[1.0], [2.0**-8]]], bf)
    ones = np.ones((1, 2, 1), bf)
    out = _selective([u, ones, np.zeros((1, 1), bf), ones, ones], False)
    assert out.expected.astype(np.float64).ravel().tolist() == [1.0, 1.0]
    assert scan_mpfr.to_bits(scan_mpfr.selective(u, ones, np.zeros((1, 1), bf), ones, ones, False)[0, 1, 0], "BF16") \
        == array_to_bits(out.expected, "BF16").ravel()[1]
    b = np.array([[[1.5, 3.0], [0.25, 0.5]]], np.float32)  # column 1 = 2 · column 0
    c = np.array([[[1.0, -0.5], [-2.0, 1.0]]], np.float32)  # and C cancels it
    a = np.array([[-0.75, -0.75]], np.float32)
    u, delta = np.array([[[0.3], [-1.7]]], np.float32), np.array([[[0.5], [1.25]]], np.float32)
    for softplus in (False, True):
        out = _selective([u, delta, a, b, c], softplus)
        assert (out.expected == 0).all(), softplus
        assert all(scan_mpfr.to_bits(v, "F32") & 0x7FFFFFFF == 0
                   for v in scan_mpfr.selective(u, delta, a, b, c, softplus).ravel())
    no_step = _selective([u, np.zeros_like(delta), a, b, c], False)
    assert (no_step.expected == 0).all()


def test_special_values_reach_what_the_contract_says():
    """A NaN drive makes its lane NaN from its step on; a NaN readout its own step in every lane;
    an infinite drive makes the lanes it enters NaN or ±inf (both admitted); a NaN decay makes
    its lane NaN from the start."""
    rng = np.random.default_rng(3)
    u, delta, a, b, c = _selective_inputs(rng, "F32", batch=1, seqlen=4, dim=2, n=2)
    u[0, 2, 0] = np.nan
    c[0, 0, 1] = np.nan
    b[0, 1, 0] = np.inf
    out = _selective([u, delta, a, b, c], False)
    assert np.isnan(out.expected.astype(np.float64)).all()
    infs = (math.inf, -math.inf)
    assert [out.admitted[0, t, 0] for t in range(4)] == [(), infs, (), ()]
    assert [out.admitted[0, t, 1] for t in range(4)] == [(), infs, infs, infs]
    u, delta, a, b, c = _selective_inputs(rng, "F32", batch=1, seqlen=3, dim=2, n=2)
    a[1, 0] = np.nan
    nan = np.isnan(_selective([u, delta, a, b, c], False).expected[0].astype(np.float64))
    assert nan[:, 1].all() and not nan[:, 0].any()


def test_a_sum_that_can_overflow_admits_infinities():
    big = np.float32(3e38)
    inputs = [np.full((1, 2, 1), big, np.float32), np.full((1, 2, 1), 2.0, np.float32),
              np.full((1, 1), -1e-3, np.float32), np.ones((1, 2, 1), np.float32), np.ones((1, 2, 1), np.float32)]
    out = _selective(inputs, False)
    assert math.inf in out.admitted[0, 1, 0] and math.isinf(float(out.expected[0, 1, 0]))
    small = [v / np.float32(1e30) if k in (0,) else v for k, v in enumerate(inputs)]
    assert _selective(small, False).admitted is None


def test_params_must_match_the_operands():
    rng = np.random.default_rng(0)
    inputs = _ssd_inputs(rng, "F32", seqlen=6)
    with pytest.raises(ValueError, match="divide"):
        _ssd(inputs, 4)
    sel = _selective_inputs(rng, "F32")
    with pytest.raises(ValueError, match="shape"):
        oracles.evaluate("SelectiveScan", sel, {"batch": 2, "seqlen": 5, "dim": 2, "dstate": 3,
                                                "delta_softplus": False}, ["F32"], {})


def test_extreme_steps_and_decays_stay_cheap_and_scorable():
    """Steps and decays near the format's range make terms like e^(-10^308) (a huge step times
    a decay; softplus of a huge negative step): the oracle rounds such outputs without forming
    them exactly, and the exact values it reports are small enough for the scorer's Fractions."""
    big, tiny = 1.7976931348623157e308, 5e-324
    cases = [  # (inputs, softplus): the ci search's failing case, then the worst of a stress run
        ([[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]], [[[-big, -6.7e-3, tiny], [-6.0, -6.0, 3.9e-3]]],
         [[-0.0], [-0.0], [-0.0]], [[[1.04], [-0.0635]]], [[[-1.0], [-1.0]]], True),
        ([[[-1.0]]], [[[-1e10]]], [[-big, -big]], [[[-1e10, -3.0]]], [[[-2.2e-308, 0.0]]], True),
        ([[[3.0]]], [[[-big]]], [[-tiny, -3.0]], [[[big, -big]]], [[[-0.0, 3.0]]], True),
        ([[[1.0], [1.0]]], [[[1e10], [1e5]]], [[-1e10]], [[[1.0], [1.0]]], [[[1.0], [1.0]]], False),
    ]
    for *operands, softplus in cases:
        out = _selective([np.asarray(v, np.float64) for v in operands], softplus)
        for ex in out.exact.reshape(-1):
            assert abs(as_fraction(ex).denominator).bit_length() < 40000
    # channels 0 and 1 cancel exactly, channel 2 leaves e^(-1e310): y_1 ~ 2^(-1.4e310) beside an
    # error bound near 2^(-60) (an exact y_1 - E shifted a mantissa by 1.4e310 bits)
    cancel = _selective([np.ones((1, 2, 1)), np.array([[[1.0], [1e10]]]), np.array([[0.0, 0.0, -1e300]]),
                         np.array([[[1.0, -1.0, 1.0], [1.0, -1.0, 0.0]]]), np.ones((1, 2, 3))], False)
    assert cancel.expected.ravel().tolist() == [1.0, 0.0]
    x = np.array([[[[1.0]], [[1.0]]]])
    ssd = _ssd([x, np.array([[[1e10], [1e5]]]), np.array([-1e10]), np.ones((1, 2, 1, 2)),
                np.ones((1, 2, 1, 2))], 1)
    assert ssd.expected.ravel().tolist() == [2e10, 2e5]


@pytest.mark.parametrize("decay", [-60.0, -200.0, -3e38])
def test_a_boundary_with_a_vanishing_tail_rounds_towards_the_tail(decay):
    """y_1 = (1 + 2^-12)^2 ± e^(decay): the rational part is an F32 midpoint (1 + 2^-11 + 2^-24)
    and the rest, e^(-3e38) at the extreme, decides the rounding by its sign alone."""
    v = np.float32(1 + 2.0**-12)
    for sign, ulps in ((1.0, 4097), (-1.0, 4096)):
        inputs = [np.array([[[sign], [v]]], np.float32), np.ones((1, 2, 1), np.float32),
                  np.array([[decay]], np.float32), np.array([[[1.0], [v]]], np.float32),
                  np.ones((1, 2, 1), np.float32)]
        out = _selective(inputs, False)
        assert (float(out.expected[0, 1, 0]) - 1) * 2**23 == ulps
        if decay > -1000:
            want = scan_mpfr.selective(*inputs, False)[0, 1, 0]
            assert scan_mpfr.to_bits(want, "F32") == _bits(out, "F32")[1]
