from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CONTRACTS = ROOT / "suites" / "fuel" / "data-movement.fkc.md"


@pytest.fixture(scope="session")
def broken_move():
    """The test-only data-movement backends (tests/plugins/broken_move.py), imported once."""
    name = "judge_test_broken_move_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_move.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def move_contract():
    """kernel name -> contract of suites/fuel/data-movement.fkc.md."""
    from judge.suite import load_paths

    loaded = load_paths([CONTRACTS])
    assert not loaded.errors, loaded.errors
    by_name = {c.kernel: c for c in loaded.contracts}
    return by_name.__getitem__
