from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def broken_cast():
    """The test-only Cast backends (tests/plugins/broken_cast.py), imported once."""
    name = "judge_test_broken_cast_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_cast.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def cast_contract():
    """A contract of suites/fuel/cast.fkc.md by kernel name."""
    from judge.suite import load_paths

    loaded = load_paths([ROOT / "suites" / "fuel" / "cast.fkc.md"])
    assert not loaded.errors, loaded.errors
    by_name = {c.kernel: c for c in loaded.contracts}
    return by_name.__getitem__
