"""The reference backend computes through the oracle and checks nothing a wrapper checks: its
items judge what it computes, with no error inputs."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _compute_only(monkeypatch):
    monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")
