"""Fixtures of the cost-measurement tests."""

from __future__ import annotations

import pytest
from measure_testing import contract_text, load_one


@pytest.fixture
def synthetic_contract(tmp_path):
    path = tmp_path / "synthetic.fkc.md"
    path.write_text(contract_text())
    return load_one(path)
