"""Fixtures of the sweep tests: one table folder per session, so each table is built once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory):
    """A JUDGE_CACHE_DIR for the session (tables go to its tables/ folder)."""
    return tmp_path_factory.mktemp("judge-cache")


@pytest.fixture(scope="session")
def table_dir(cache_root):
    path = cache_root / "tables"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(scope="session")
def suite():
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    return load_paths([default_suite_path()])


@pytest.fixture(scope="session")
def reference(suite):
    """The reference (Cpu) contract of a kernel name."""

    def pick(kernel: str):
        (contract,) = [c for c in suite.find(kernel) if c.backend == "Cpu"]
        return contract

    return pick


@pytest.fixture(scope="session")
def exp_bf16_table(table_dir):
    from judge.sweep import tables

    spec = tables.TableSpec.of("ExpElementwise", "BF16", "BF16", "all", {
        "nan": "propagate", "ties": "unspecified", "rounding": "unspecified",
        "remainder": "unspecified"})
    return tables.get(spec, processes=2, directory=table_dir)
