from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CRASHY = ROOT / "tests" / "plugins" / "crashy.py"


def small_suite(folder: Path, file: str, kernels: tuple[str, ...]) -> Path:
    """A copy of suite file ``file`` (same name, so the same item seeds) with only ``kernels``."""
    text = (ROOT / "suites" / "fuel" / file).read_text()
    head = text[: text.index("\n## ")]
    keep = [s for s in text.split("\n## ")[1:] if s.split("\n", 1)[0].strip() in kernels]
    assert len(keep) == len(kernels), f"{file}: sections {kernels} not all found"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / file).write_text(head + "".join("\n## " + s for s in keep))
    return folder


def run(cwd: Path, *args: str, env: dict | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    """A command of the Judge (``judge ...``) or pytest (``pytest ...``), as a user runs it."""
    cmd = [sys.executable, "-m", "judge.cli", *args[1:]] if args[0] == "judge" else \
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args[1:]]
    import os

    full_env = {**os.environ, **(env or {})}
    full_env.pop("CI", None)  # the profile is given explicitly
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env)


@pytest.fixture
def crashy_suite(tmp_path) -> Path:
    return small_suite(tmp_path / "contracts", "reference-elementwise.fkc.md", ("neg", "abs", "sqrt"))


@pytest.fixture
def cli():
    return run


@pytest.fixture
def make_suite():
    return small_suite


# Modules whose test-only backends compute and check nothing, or that run the stand-in libraries
# on a suite of their own without the suite's known divergences: they test isolation, baselines,
# proposals and the CLI, so their items judge what is computed, with no error inputs (those have
# tests of their own: tests/harness/test_error_inputs.py, tests/families/invalid).
COMPUTE_ONLY = {"test_baseline", "test_isolation", "test_propose"}


@pytest.fixture(autouse=True)
def _compute_only(request, monkeypatch):
    if request.module.__name__.rsplit(".", 1)[-1] in COMPUTE_ONLY:
        monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")
