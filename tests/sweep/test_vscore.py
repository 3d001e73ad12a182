"""The vector scorer gives what the exact scorer (``judge.scoring.score_output``) gives, element for element.

Each scenario evaluates the pure oracle on a sample of inputs, injects faults into a copy of its
answer (ULP errors, wrong NaN-ness, infinities, flipped zeros, garbage), and scores the result
with both scorers: counts, ULP distances, ULP-real errors, maxima and the failing checks (in
order, with their element counts) must agree.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracles
from judge.scoring import Score, score_output
from judge.scoring.vector import Expected, score_elementwise
from judge.sweep.inputs import all_bits, as_values, grid_pairs
from judge.sweep.run import rules_of
from judge.sweep.tables import expected_arrays
from numerics.formats import get_format


def _sample_bits(dtype: str, n: int, seed: int) -> np.ndarray:
    fmt = get_format(dtype)
    inf = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    one = fmt.emax << fmt.mantissa_bits
    special = [0, 1 << (fmt.bits - 1), inf, inf | (1 << (fmt.bits - 1)), inf | 1, inf + 0x40,
               one, one | (1 << (fmt.bits - 1)), inf - 1, 1, inf - 1 - (1 << fmt.mantissa_bits)]
    rng = np.random.default_rng(seed)
    return np.concatenate([np.asarray(special, np.uint16),
                           rng.choice(all_bits(dtype), n, replace=False)])


def _inject(bits: np.ndarray, dtype: str, seed: int) -> np.ndarray:
    """Faults of every kind the scorer distinguishes, at random positions."""
    fmt = get_format(dtype)
    rng = np.random.default_rng(seed)
    out = bits.astype(np.int64)
    n = out.size
    inf = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    sign = 1 << (fmt.bits - 1)
    mag = out & (sign - 1)
    finite = mag < inf
    pick = lambda p: rng.random(n) < p  # noqa: E731
    out = np.where(finite & pick(0.05) & (mag < inf - 4), out + 1, out)  # 1 ulp
    out = np.where(finite & pick(0.02) & (mag < inf - 4), out + 3, out)  # 3 ulp
    out = np.where(pick(0.01), inf | 0x11, out)  # NaN where a number is expected
    out = np.where((mag > inf) & pick(0.3), 0x10, out)  # a number where NaN is expected
    out = np.where((mag == 0) & pick(0.5), out ^ sign, out)  # the other zero
    out = np.where(pick(0.01), inf | (out & sign), out)  # infinity
    out = np.where((mag == inf) & pick(0.5), (inf - 1) | (out & sign), out)  # max finite for inf
    out = np.where(finite & pick(0.01), out ^ (1 << (fmt.bits - 3)), out)  # garbage
    return out.astype(fmt.bits_dtype)


def _both(contract, dtype: str, in_bits: list[np.ndarray], observed_bits_fn, out_dtype=None):
    opdef = oracles.get(contract.op_kind)
    out_dtype = out_dtype or dtype
    values = tuple(as_values(b, dtype) for b in in_bits)
    names = tuple(s.name for s in contract.inputs)[: len(values)]
    ref = oracles.evaluate(contract.op_kind, list(values), {}, [out_dtype], rules_of(contract))[0]
    bits, hi, lo, has, tiny = expected_arrays(ref, out_dtype)
    fmt = get_format(out_dtype)
    # score_output's float() of an error overflows where the error or |observed| / |exact| passes
    # F64's range (a finite output against exp(1000), a nonzero one against exp(-740)): those
    # elements keep their correct bits here
    injected = observed_bits_fn(bits)
    with np.errstate(all="ignore"):
        obs = injected.view(fmt.numpy_dtype).astype(np.float64) if fmt.is_float else 0 * hi
        overflow = tiny | (has & (np.isinf(hi) | (np.abs(obs) > np.abs(hi) * 1e300)))
    observed = np.where(overflow, bits, injected).astype(bits.dtype).view(fmt.numpy_dtype)
    slow = Score()
    score_output(contract, opdef, contract.semantics, values, names, {}, observed, ref, out_dtype,
                 0, slow)
    fast = score_elementwise(contract, opdef, contract.semantics, values, names, {}, observed,
                             Expected(bits, hi, lo, has, tiny), out_dtype)
    return slow, fast


def _assert_same(slow: Score, fast) -> None:
    assert slow.elements == fast.elements
    assert slow.ulp == fast.ulp.tolist()
    assert slow.ulp_real == fast.ulp_real_rounded()
    assert slow.rel_max == pytest.approx(fast.rel_max, rel=1e-12)
    assert slow.abs_max == pytest.approx(fast.abs_max, rel=1e-12)
    for name in ("nan_mismatch", "inf_mismatch", "signed_zero_mismatch", "implausible"):
        assert getattr(slow, name) == getattr(fast, name), name
    heads = lambda fs: [(f.check, f.message.splitlines()[0]) for f in fs]  # noqa: E731
    assert heads(slow.findings) == heads(fast.findings)
    assert heads(slow.reported) == heads(fast.reported)


@pytest.mark.parametrize("kernel, dtype, file_part", [
    ("exp", "BF16", "reference"),  # declared max_ulp 1
    ("tanh", "F16", "reference"),
    ("exp", "F16", "vulkan"),  # no bound declared: the sanity bound
    ("neg", "BF16", "reference"),  # exact by definition
    ("sqrt", "F16", "reference"),  # max_ulp 0, NaN for negatives
])
@pytest.mark.parametrize("seed", [0, 1])
def test_unary_scores_agree(suite, kernel, dtype, file_part, seed):
    (contract,) = [c for c in suite.find(kernel) if file_part in c.file]
    slow, fast = _both(contract, dtype, [_sample_bits(dtype, 1500, seed)],
                       lambda b: _inject(b, dtype, seed + 10))
    assert fast.findings, "the injected faults must fail the contract"
    _assert_same(slow, fast)


def test_correct_outputs_score_clean(suite):
    (contract,) = [c for c in suite.find("exp") if "reference" in c.file]
    slow, fast = _both(contract, "BF16", [_sample_bits("BF16", 1000, 3)], lambda b: b)
    assert not fast.findings and fast.nan_mismatch == 0
    _assert_same(slow, fast)


def test_declared_absolute_and_relative_bounds_agree(suite):
    (contract,) = [c for c in suite.find("exp") if "reference" in c.file]
    precision = dataclasses.replace(contract.precision, max_ulp=None, max_relative=2e-3,
                                    max_absolute=0.5)
    loose = dataclasses.replace(contract, precision=precision)
    slow, fast = _both(loose, "BF16", [_sample_bits("BF16", 1500, 4)], lambda b: _inject(b, "BF16", 5))
    assert any(f.check == "bound" for f in fast.findings)
    _assert_same(slow, fast)


def test_binary_grid_scores_agree(reference):
    a, b = grid_pairs("F16", 64)
    keep = np.random.default_rng(6).choice(a.size, 3000, replace=False)
    slow, fast = _both(reference("add"), "F16", [a[keep], b[keep]], lambda x: _inject(x, "F16", 7))
    assert fast.findings
    _assert_same(slow, fast)


def test_comparison_scores_agree(suite):
    (contract,) = suite.find("less_elementwise_cpu")
    a, b = grid_pairs("BF16")
    keep = np.random.default_rng(8).choice(a.size, 3000, replace=False)

    def flip(bits):
        out = bits.copy()
        out[::97] ^= 1
        return out

    slow, fast = _both(contract, "BF16", [a[keep], b[keep]], flip, out_dtype="BOOL")
    assert [f.check for f in fast.findings] == [f.check for f in slow.findings] != []
    _assert_same(slow, fast)


def test_a_nan_mismatch_under_an_unspecified_rule_is_reported_by_both(suite):
    # the Vulkan sign contract states no NaN rule: a number for a NaN input is reported, not failed
    (contract,) = [c for c in suite.find("sign") if "vulkan" in c.file]
    assert contract.semantics.get("nan").value == "unspecified"
    bits = all_bits("F16")
    zero_for_nan = lambda b: np.where(np.isnan(b.view(np.float16)), 0, b).astype(b.dtype)  # noqa: E731
    slow, fast = _both(contract, "F16", [bits], zero_for_nan)
    assert not fast.findings and [f.check for f in fast.reported] == ["nan"]
    _assert_same(slow, fast)
