"""Fixtures of the audit tests: one small workspace and its audit run from start to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from audit_runs import AUDIT, FILE, ROOT, judge, small_suite


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    cwd = tmp_path_factory.mktemp("audit")
    small_suite(cwd / "contracts")
    return cwd


@pytest.fixture(scope="module")
def uninterrupted(workspace) -> Path:
    """The outputs of the audit run from start to end (-j 2)."""
    res = judge(workspace, *AUDIT, "-j", "2", "--out", "whole")
    assert res.returncode == 1, res.stderr
    assert "3 of 24 rows do not conform" in res.stderr, res.stderr  # slow-wrong's abs rows only
    assert "RuntimeWarning" not in res.stderr, res.stderr
    return workspace / "whole"


@pytest.fixture(scope="session")
def suite_contract():
    """The embedded suite's ``neg`` contract (reference-elementwise.fkc.md)."""
    from judge.suite import load_paths

    loaded = load_paths([ROOT / "suites" / "fuel" / FILE])
    return next(c for c in loaded.contracts if c.kernel == "neg")
