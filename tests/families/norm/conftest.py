"""Fixtures of the row-op family tests: the broken-backend plugin and the suite's contracts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
FILE = ROOT / "suites" / "fuel" / "softmax-norm.fkc.md"


@pytest.fixture(scope="session")
def broken_norm():
    """tests/plugins/broken_norm.py, imported once."""
    name = "judge_test_broken_norm_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_norm.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def norm_contract():
    from judge.suite import load_paths

    loaded = load_paths([FILE])
    assert not loaded.errors, loaded.errors
    by_kernel = {c.kernel: c for c in loaded.contracts}
    return by_kernel.__getitem__
