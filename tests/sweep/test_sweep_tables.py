"""Oracle tables: built by the pure oracle, cached, invalidated, and verified against MPFR."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from judge.sweep import tables
from judge.sweep.inputs import all_bits, as_values
from numerics.formats import get_format

gmpy2 = pytest.importorskip("gmpy2", reason="MPFR cross-checks need gmpy2 (the test extra)")

RULES = {"nan": "propagate", "ties": "unspecified", "rounding": "unspecified",
         "remainder": "unspecified"}


def mpfr_round(fn, x: float, dtype: str) -> float:
    """fn(x) correctly rounded by MPFR into the format (subnormals, overflow to inf)."""
    fmt = get_format(dtype)
    with gmpy2.context(precision=53):
        arg = gmpy2.mpfr(x)
    with gmpy2.context(precision=fmt.precision, emax=fmt.emax + 1,
                       emin=fmt.emin - fmt.precision + 2, subnormalize=True):
        return float(fn(arg))


def test_table_matches_mpfr_on_a_sample(exp_bf16_table):
    t = exp_bf16_table
    rng = np.random.default_rng(1)
    idx = np.concatenate([rng.integers(0, 65536, 2000), [0x42B1, 0x42B2, 0xC2C8, 0x0001, 0x3F80]])
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten as they widen
        x = as_values(all_bits("BF16")[idx], "BF16").astype(np.float64)
    expected = t.expected()[idx].astype(np.float64)
    checked = 0
    for xi, want in zip(x.tolist(), expected.tolist(), strict=True):
        if math.isnan(xi):
            assert math.isnan(want)
            continue
        got = mpfr_round(gmpy2.exp, xi, "BF16")
        assert got == want, (xi, got, want)
        checked += 1
    assert checked > 1900


def test_table_exact_values_match_mpfr_to_far_below_an_ulp(exp_bf16_table):
    t = exp_bf16_table
    rng = np.random.default_rng(2)
    for i in rng.integers(0, 65536, 300).tolist():
        if not t.has_exact[i]:
            continue
        x = float(as_values(np.array([i], np.uint16), "BF16").astype(np.float64)[0])
        with gmpy2.context(precision=200):
            truth = Fraction(*gmpy2.exp(gmpy2.mpfr(x)).as_integer_ratio())
        if truth > Fraction(2) ** 1000:  # beyond float64: the table holds inf
            assert math.isinf(t.hi[i])
            continue
        if x < -2000:  # the oracle reports the limit 0 there (documented in its exp)
            assert t.hi[i] == 0
            continue
        if truth < Fraction(2) ** -1074:  # below float64: hi = lo = 0, marked tiny
            assert t.hi[i] == 0 and t.tiny[i]
            continue
        stored = Fraction(t.hi[i]) + Fraction(t.lo[i])
        assert abs(stored - truth) <= abs(truth) * Fraction(1, 2**30), x


def test_cache_equals_a_fresh_pure_evaluation(exp_bf16_table, table_dir):
    spec = exp_bf16_table.spec
    loaded = tables.load(spec, table_dir)
    assert loaded is not None and loaded.from_cache
    assert np.array_equal(loaded.bits, exp_bf16_table.bits)
    assert tables.cross_check(loaded, sample=200, seed=7) >= 200
    idx = np.arange(0x3F00, 0x3F40)
    fresh = tables.evaluate_pure(spec, [all_bits("BF16")[idx]])
    assert np.array_equal(fresh[0], loaded.bits[idx])
    assert np.array_equal(fresh[1], loaded.hi[idx]) and np.array_equal(fresh[2], loaded.lo[idx])


def test_a_corrupted_table_fails_the_cross_check(exp_bf16_table):
    t = exp_bf16_table
    bits = t.bits.copy()
    bits[:] ^= 1  # every element off by one ulp: any sample catches it
    bad = tables.OracleTable(t.spec, bits, t.hi, t.lo, t.has_exact, t.tiny, t.oracle_digest)
    with pytest.raises(tables.TableMismatch, match="pure oracle"):
        tables.cross_check(bad)


def test_changed_oracle_or_rules_miss_the_cache(exp_bf16_table, table_dir, monkeypatch):
    spec = exp_bf16_table.spec
    other_rules = tables.TableSpec.of(spec.op_kind, spec.in_dtype, spec.out_dtype, spec.input_set,
                                      {**RULES, "nan": "ignore"})
    assert other_rules.file_name("d") != spec.file_name("d")
    assert tables.load(other_rules, table_dir) is None
    monkeypatch.setattr(tables, "oracle_digest", lambda: "0" * 64)
    assert tables.load(spec, table_dir) is None


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("JUDGE_CACHE_DIR", str(tmp_path))
    assert tables.cache_dir() == tmp_path / "tables"
    monkeypatch.delenv("JUDGE_CACHE_DIR")
    assert tables.cache_dir().parts[-3:] == (".cache", "fuel-judge", "tables")


def test_oracle_digest_covers_the_oracle_sources():
    import oracles

    digest = tables.oracle_digest()
    assert len(digest) == 64 and digest == tables.oracle_digest()
    assert oracles.__file__  # the digest reads oracles/*.py next to it


def test_double_double_keeps_106_bits():
    q = Fraction(1, 3)
    hi, lo = tables.double_double(q)
    assert hi == 1 / 3 and abs(Fraction(hi) + Fraction(lo) - q) < q * Fraction(1, 2**105)
    assert tables.double_double(Fraction(10) ** 400) == (math.inf, 0.0)


def test_parallel_build_equals_serial_build():
    spec = tables.TableSpec.of("NegElementwise", "F16", "F16", "grid64", RULES)
    (serial,) = tables.build([spec], processes=1)
    (parallel,) = tables.build([spec], processes=2)
    assert np.array_equal(serial.bits, parallel.bits)
    assert np.array_equal(serial.hi, parallel.hi, equal_nan=True)
