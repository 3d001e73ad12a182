"""The two Hypothesis internals the search relies on are there, in the pinned versions.

These fail (never skip) when a Hypothesis upgrade removes or renames them: the search would
otherwise lose bounded shrinking or seed-only generation (judge/drivers/engine.py says why).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import hypothesis
import pytest

from judge.drivers import engine

ROOT = Path(__file__).resolve().parents[2]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def test_the_pin_in_pyproject_is_the_engine_s():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (spec,) = [d for d in deps if d.startswith("hypothesis")]
    assert spec == f"hypothesis{engine.PINNED}", spec


def test_the_installed_hypothesis_is_within_the_pin():
    low, high = re.match(r">=([\d.]+),<([\d.]+)", engine.PINNED).groups()
    assert _version(low) <= _version(hypothesis.__version__) < _version(high), (
        f"Hypothesis {hypothesis.__version__} is outside the pin {engine.PINNED}: check that "
        f"judge/drivers/engine.py's internals still mean the same, then move the pin")


def test_the_shrink_time_knob_exists_and_is_restored():
    knob = engine.shrink_knob()
    before = knob.MAX_SHRINKING_SECONDS
    with engine.shrink_cap(7):
        assert knob.MAX_SHRINKING_SECONDS == 7
    assert knob.MAX_SHRINKING_SECONDS == before


def test_local_constants_are_emptied_and_restored():
    providers = engine.local_constants_knob()
    original = providers._get_local_constants
    with engine.no_local_constants():
        constants = providers._get_local_constants()
        assert isinstance(constants, providers.Constants)
        assert not any(len(getattr(constants, f)) for f in vars(constants) if hasattr(getattr(constants, f), "__len__"))
    assert providers._get_local_constants is original


def test_a_missing_internal_is_an_error_not_a_fallback(monkeypatch):
    from hypothesis.internal.conjecture import engine as hypothesis_engine
    from hypothesis.internal.conjecture import providers

    monkeypatch.delattr(hypothesis_engine, "MAX_SHRINKING_SECONDS")
    with pytest.raises(engine.MissingHypothesisInternal, match="pinned to hypothesis"):
        with engine.shrink_cap(7):
            pass
    monkeypatch.delattr(providers, "_get_local_constants")
    with pytest.raises(engine.MissingHypothesisInternal, match="_get_local_constants"):
        with engine.no_local_constants():
            pass


def test_each_item_keeps_its_own_saved_examples():
    from hypothesis.database import InMemoryExampleDatabase

    shared = InMemoryExampleDatabase()
    a, b = engine.item_database(shared, "a.fkc.md::k[x-F32]"), engine.item_database(shared, "b.fkc.md::k[x-F32]")
    a.save(b"key", b"case")
    assert list(a.fetch(b"key")) == [b"case"] and list(b.fetch(b"key")) == []
