from __future__ import annotations

from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parents[2] / "suites" / "fuel"


@pytest.fixture(scope="session")
def suite():
    """suite(file, kernel): a contract of the embedded suite."""
    from judge.suite import load_paths

    loaded = load_paths([SUITE])
    assert not loaded.errors, loaded.errors

    def get(file: str, kernel: str):
        for c in loaded.contracts:
            if c.kernel == kernel and Path(c.file).name == file:
                return c
        raise LookupError(f"{file}::{kernel}")

    return get
