"""The exhaustive pair sweep's CPU twin: on a chunk of 2^16 (x, y) pairs, the vectorised pair
scorer (the certified reference of ``oracles.fast.pairs`` and the chunk scorer of
``judge.scoring.tally``) gives what the rulebook's exact scorer gives with the pure oracle,
element by element (which check each element fails, its ULP distance), for every bound kind;
and a planted off-by-one in the reference's tie flagging is caught by that comparison."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

import judge.scoring.exact as exact
import judge.scoring.tally as tally_module
import oracles
from judge.scoring import Score, score_output
from judge.sweep import pairs
from numerics.formats import get_format
from oracles.fast import pairs as reference

BOUNDS = {  # bound kind -> contract changes that give it
    "exact": {"determinism": "bitwise"},
    "declared ulp": {"precision": {"max_ulp": 1}},
    "declared relative and absolute": {"precision": {"max_relative": 2e-3, "max_absolute": 1e-2}},
    "sanity": {},
}
CHUNKS = [  # (kernel, dtype, x): the chunk of every y against one x
    ("add_elementwise_cpu", "F16", 0x3C01),  # 1 + ulp: exact ties (1 + ulp + ulp/2) round to even
    ("div_elementwise_cpu", "BF16", 0x0001),  # the smallest subnormal: quotients flush and tie
    ("maximum_elementwise_cpu", "F16", 0x8000),  # -0: either zero of max(-0, +0) is admitted
    ("minimum_elementwise_cpu", "BF16", 0x0000),  # +0, against every y
    ("rem_elementwise_cpu", "BF16", 0xC2F7),  # -123.5 floored: sums with the divisor that round
]


def _contract(suite, kernel, changes):
    (c,) = [c for c in suite.find(kernel) if c.file.endswith("elementwise-binary.fkc.md")]
    if "precision" in changes:
        bounds = {"max_ulp": None, "max_relative": None, "max_absolute": None, **changes["precision"]}
        c = dataclasses.replace(c, precision=dataclasses.replace(c.precision, **bounds))
    if "determinism" in changes:
        c = dataclasses.replace(c, determinism=changes["determinism"])
    return c


def _faults(bits: np.ndarray, dtype: str) -> np.ndarray:
    """Faults of every kind the rulebook tells apart, at random positions."""
    fmt = get_format(dtype)
    rng = np.random.default_rng(7)
    out = bits.astype(np.int64)
    inf, sign = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits, 1 << (fmt.bits - 1)
    mag, pick = out & (sign - 1), lambda p: rng.random(out.size) < p  # noqa: E731
    finite = mag < inf - 4
    out = np.where(finite & pick(0.05), out + 1, out)  # 1 ulp
    out = np.where(finite & pick(0.02), out + 3, out)  # 3 ulp
    out = np.where(pick(0.005), inf | 0x11, out)  # NaN for a number
    out = np.where((mag > inf) & pick(0.3), 0x10, out)  # a number for NaN
    out = np.where((mag == 0) & pick(0.5), out ^ sign, out)  # the other zero
    out = np.where((mag < 1 << fmt.mantissa_bits) & (mag > 0) & pick(0.5), out & sign, out)  # flushed
    out = np.where(pick(0.005), inf | (out & sign), out)  # infinity
    out = np.where(finite & pick(0.005), out ^ (1 << (fmt.bits - 3)), out)  # garbage
    return out.astype(fmt.bits_dtype)


def _chunk(x: int):
    start = x << 16
    return start, *pairs._pair_bits(start, 1 << 16)


def _rulebook(monkeypatch, contract, dtype, a_bits, b_bits, observed):
    """The exact scorer with the pure oracle: (each element's failed checks, ULP distances)."""
    fmt = get_format(dtype)
    failed = set()
    fail = exact._Output.fail
    monkeypatch.setattr(exact._Output, "fail", lambda out, check, i, why: (failed.add((check, i)), fail(out, check, i, why)))
    values = tuple(b.view(fmt.numpy_dtype) for b in (a_bits, b_bits))
    opdef = oracles.get(contract.op_kind)
    ref = oracles.fast.pure(opdef.evaluate)(list(values), {}, [dtype], contract.semantics.values())[0]
    score = Score()
    score_output(contract, opdef, contract.semantics, values, ("lhs", "rhs"), {},
                 observed.view(fmt.numpy_dtype), ref, dtype, 0, score)
    monkeypatch.setattr(exact._Output, "fail", fail)
    top = tally_module.HIST_BINS  # the chunk scorer's histogram: larger distances share its last bin
    return failed, Counter(min(d, top) for d in score.ulp), score


def _pair_scorer(monkeypatch, contract, dtype, start, a_bits, b_bits, observed):
    failed = set()
    count = tally_module._count_hits

    def spy(tally, ops, cls, first, d, *rest):
        failed.update((h.check, int(d[i])) for h in cls.hits for i in np.flatnonzero(h.mask))
        return count(tally, ops, cls, first, d, *rest)

    monkeypatch.setattr(tally_module, "_count_hits", spy)
    run = pairs.new_run(contract, None, dtype)
    pairs.score_chunk(run, start, a_bits, b_bits, observed)
    monkeypatch.setattr(tally_module, "_count_hits", count)
    hist = run.tally.histogram()
    return failed, Counter({int(k): v for k, v in hist.items()}), run


def _differences(monkeypatch, suite, kernel, dtype, x, bound) -> list[str]:
    contract = _contract(suite, kernel, BOUNDS[bound])
    start, a_bits, b_bits = _chunk(x)
    rules = contract.semantics.values()
    opdef = oracles.get(contract.op_kind)
    truth = np.asarray(oracles.fast.pure(opdef.evaluate)(
        [a_bits.view(get_format(dtype).numpy_dtype), b_bits.view(get_format(dtype).numpy_dtype)], {},
        [dtype], rules)[0].expected).view(get_format(dtype).bits_dtype)
    observed = _faults(truth, dtype)
    slow, slow_ulps, score = _rulebook(monkeypatch, contract, dtype, a_bits, b_bits, observed)
    fast, fast_ulps, run = _pair_scorer(monkeypatch, contract, dtype, start, a_bits, b_bits, observed)
    out = [f"{check} at pair {i}: rulebook only" for check, i in sorted(slow - fast)]
    out += [f"{check} at pair {i}: pair scorer only" for check, i in sorted(fast - slow)]
    if slow_ulps != fast_ulps:
        out.append(f"ULP distances differ: {sorted((slow_ulps - fast_ulps).items())[:5]} "
                   f"vs {sorted((fast_ulps - slow_ulps).items())[:5]}")
    mismatch = {"nan": score.nan_mismatch, "inf": score.inf_mismatch,
                "signed_zero": score.signed_zero_mismatch, "implausible": score.implausible}
    if mismatch != run.tally.mismatches:
        out.append(f"mismatch counts {mismatch} vs {run.tally.mismatches}")
    if score.ulp_real and round(max(score.ulp_real), 3) != round(run.tally.worst_real, 3):
        out.append(f"worst ulp-real {max(score.ulp_real)} vs {run.tally.worst_real}")
    return out


@pytest.mark.parametrize("bound", list(BOUNDS))
@pytest.mark.parametrize("kernel, dtype, x", CHUNKS, ids=[f"{c[0]}-{c[1]}" for c in CHUNKS])
def test_pair_scorer_equals_the_rulebook_element_by_element(monkeypatch, suite, kernel, dtype, x, bound):
    assert _differences(monkeypatch, suite, kernel, dtype, x, bound) == []


def _off_by_one(rem, half):
    return rem == half - np.uint64(1)


def test_a_planted_off_by_one_in_the_tie_flagging_is_caught(monkeypatch, suite):
    """By the twin comparison (the sweep's own sampled cross-check left out), and, in a sweep, by
    that cross-check."""
    monkeypatch.setattr(reference, "_on_boundary", _off_by_one)
    monkeypatch.setattr(reference, "cross_check", lambda *args, **kw: None)
    found = _differences(monkeypatch, suite, "add_elementwise_cpu", "F16", 0x3C01, "exact")
    assert any("exact at pair" in d for d in found), found
    monkeypatch.undo()
    monkeypatch.setattr(reference, "_on_boundary", _off_by_one)
    (contract,) = [c for c in suite.find("add_elementwise_cpu")]
    start, a_bits, b_bits = _chunk(0x3C01)
    with pytest.raises(reference.FastPathMismatch):
        pairs.score_chunk(pairs.new_run(contract, None, "F16"), start, a_bits, b_bits, a_bits)


def test_the_reference_is_the_pure_oracle_on_every_pair_of_a_chunk():
    for op_kind, dtype, x in [("MulElementwise", "BF16", 0x3F81), ("SubElementwise", "BF16", 0x7F7F),
                              ("DivElementwise", "F16", 0x0400), ("MaximumElementwise", "BF16", 0x8000),
                              ("MinimumElementwise", "F16", 0x0000), ("RemElementwise", "BF16", 0x8001),
                              ("RemElementwise", "F16", 0xFBFF), ("RemElementwise", "BF16", 0x7F7F)]:
        start, a_bits, b_bits = _chunk(x)
        evaluate = oracles.fast.pure(oracles.get(op_kind).evaluate)
        bits, _, _ = reference.reference(op_kind, a_bits, b_bits, dtype, {"nan": "propagate"}, evaluate)
        fmt = get_format(dtype)
        truth = np.asarray(evaluate([a_bits.view(fmt.numpy_dtype), b_bits.view(fmt.numpy_dtype)], {},
                                    [dtype], {"nan": "propagate"})[0].expected).view(fmt.bits_dtype)
        values = reference.values_of(dtype)
        assert ((bits == truth) | (np.isnan(values[bits]) & np.isnan(values[truth]))).all(), op_kind


def test_judge_sweep_pairs_runs_in_parts(tmp_path):
    from judge.cli import main

    out = tmp_path / "pairs"
    result = CliRunner().invoke(main, ["sweep", "--pairs", "--kernel", "elementwise-binary.fkc.md::mul_elementwise_cpu",
                                       "--dtype", "BF16", "--backend", "numpy", "--chunk-log2", "16",
                                       "--chunks", str(0x3F80), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "65,536 pairs" in result.output
    table = (out / "pair-sweep.md").read_text()
    assert "| mul_elementwise_cpu | numpy | BF16 | pass | 65,536 |" in table
    assert (out / "pair-mul_elementwise_cpu-numpy-BF16.svg").read_text().startswith("<?xml")


def test_a_sweep_in_part_judges_no_known_divergence_stale_that_it_could_not_see(suite, monkeypatch):
    from backends.numpy_backend import NumpyBackend
    from judge.expectations import Expectation, Expectations

    (contract,) = suite.find("mul_elementwise_cpu")
    known = Expectations((Expectation(contract.kernel, "numpy", "BF16", "nan", "planted: not in this chunk"),))
    part = pairs.sweep_pairs(contract, NumpyBackend(), "BF16", chunk_log2=16, chunks=[0x3F80], expectations=known)
    assert part.row.verdict == "pass" and any("not judged stale" in n for n in part.notes), part.summary()
    monkeypatch.setattr(pairs, "PAIRS", 1 << 16)  # the chunk is every pair there is: stale
    whole = pairs.sweep_pairs(contract, NumpyBackend(), "BF16", chunk_log2=16, chunks=[0x3F80], expectations=known)
    assert whole.row.verdict == "fail" and whole.row.reason.startswith("stale expectation")
