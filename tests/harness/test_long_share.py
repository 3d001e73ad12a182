"""Long rows keep each pattern's share when the search targets: a family's long cases are drawn in
a search of their own (one case in its ``long_share``), never targeted, so neither the short
cases' worst error nor one long case's error can crowd the others out."""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import judge.drivers.search as search
from judge.profiles import get_profile
from judge.runner import Item, run_item

ROOT = Path(__file__).resolve().parents[2]


def _matmul_plugin():
    name = "judge_test_broken_matmul_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_matmul.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _pattern(row: np.ndarray) -> str:
    """Which ``numerics.long_rows`` pattern a long row follows, read from its values."""
    row = row.astype(np.float64)
    half = row.size // 2
    if (row == row[0]).all():
        return "equal"
    if (row[1:] == row[1]).all():
        return "large_then_small"
    if (row[: half - 1] > 0).all() and (row[half + 1:] < 0).all():
        return "halves"
    if abs(row.sum()) < 1e-3 * np.abs(row).sum():
        return "cancelling"
    return "random"


def _cases(monkeypatch, contract, backend, dtype):
    seen = []
    judge = search.judge_case

    def spy(contract, backend, case, opdef, *, repeats):
        seen.append(case)
        return judge(contract, backend, case, opdef, repeats=repeats)

    monkeypatch.setattr(search, "judge_case", spy)
    row = run_item(Item(contract, backend, dtype), get_profile("ci")).row
    return row, [c for c in seen if c.long], [c for c in seen if not c.long]


@pytest.mark.parametrize("dtype", ["F64", "BF16"])
def test_a_targeted_search_keeps_every_long_pattern(monkeypatch, suite, dtype):
    """numpy's matmul errs by an ulp here and there, so the short cases are targeted; the long
    ones still spread over the patterns, a different row each time."""
    contract = suite("matmul.fkc.md", "matmul_cpu")
    row, long, short = _cases(monkeypatch, contract, _matmul_plugin().MiniMatmulCpu(), dtype)
    assert row.verdict == "pass", row.reason
    examples = get_profile("ci").max_examples
    assert len(long) == examples // 2 and len(short) >= examples // 2 - 1
    patterns = Counter(_pattern(np.asarray(c.values[0])[0]) for c in long)
    assert len(patterns) >= 4, patterns
    assert max(patterns.values()) <= len(long) // 2, patterns
    repeats = Counter(np.asarray(c.values[0]).tobytes() for c in long)
    assert max(repeats.values()) <= len(long) // 4  # (at main, one row was 16 of 40 cases)


def test_a_cumsum_gets_its_long_rows_whatever_the_targeting(monkeypatch, suite):
    contract = suite("cumsum.fkc.md", "cumsum_cpu")
    row, long, _ = _cases(monkeypatch, contract, _matmul_plugin().MiniMatmulCpu(), "BF16")
    assert len(long) == get_profile("ci").max_examples // 4
    assert all(max(np.asarray(c.values[0]).shape) >= 256 for c in long)
