"""Loading every seed contract file (131 blocks): must stay well under a second.

Run: ``python3 -m pytest benchmarks/bench_load.py --benchmark-only``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SEEDS = Path(__file__).resolve().parents[1].parent / "shared" / "seeds"


@pytest.fixture
def seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.skip(f"seed contracts not present at {SEEDS}")
    return SEEDS


def test_load_all_seed_files(benchmark, seeds):
    from judge.suite import load_paths

    result = benchmark(load_paths, [seeds])
    assert result.errors == [] and len(result.contracts) == 131
    assert benchmark.stats.stats.median < 1.0


def test_load_one_block(benchmark):
    from judge.suite import load_text

    text = "```fkc\nkernel: k\nregistrable: false\nbackend: Cpu\n```\n"
    result = benchmark(load_text, text, "one.fkc.md")
    assert len(result.contracts) == 1
