from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "fuel"


@pytest.fixture(scope="session")
def broken():
    """The test-only backend plugin (tests/plugins/broken.py), imported once."""
    name = "judge_test_broken_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def suite():
    from judge.suite import load_paths

    loaded = load_paths([SUITE])
    assert not loaded.errors, loaded.errors

    def get(file: str, kernel: str):
        for c in loaded.contracts:
            if c.kernel == kernel and Path(c.file).name == file:
                return c
        raise LookupError(f"{file}::{kernel}")

    return get


# Modules whose test-only kernels compute and check nothing (the wrapper's refusals are not
# theirs to play): their items judge what is computed, with no error inputs. Error inputs have
# tests of their own (test_error_inputs.py, tests/families/invalid).
COMPUTE_ONLY = {"test_batch_invariance", "test_broken_backends", "test_broken_guards",
                "test_expectations", "test_fast_paths", "test_pytest_plugin", "test_repeats"}


@pytest.fixture(autouse=True)
def _compute_only(request, monkeypatch):
    if request.module.__name__.rsplit(".", 1)[-1] in COMPUTE_ONLY:
        monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")
