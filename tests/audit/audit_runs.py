"""Audits run as a user runs them (``python -m judge.cli audit`` in a subprocess) on a small copy
of one suite file and the slow test backends (tests/plugins/slow.py), so a signal lands mid-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SLOW = ROOT / "tests" / "plugins" / "slow.py"
FILE = "reference-elementwise.fkc.md"
KERNELS = ("neg", "abs", "sqrt")
# 3 kernels × 4 dtypes × 2 backends: 24 items, 18 judged (BF16 is unsupported), 3 failing.
AUDIT = ("audit", "--contracts", "contracts", "--plugin", str(SLOW), "--backend", "slow",
         "--backend", "slow-wrong", "--profile", "ci", "--seed", "1")
TOTAL = 24


def small_suite(folder: Path) -> Path:
    """A copy of the suite file with only ``KERNELS`` (same file name, so the same item seeds)."""
    text = (ROOT / "suites" / "fuel" / FILE).read_text()
    head = text[: text.index("\n## ")]
    keep = [s for s in text.split("\n## ")[1:] if s.split("\n", 1)[0].strip() in KERNELS]
    assert len(keep) == len(KERNELS)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE).write_text(head + "".join("\n## " + s for s in keep))
    return folder


def judge_env() -> dict:
    env = {**os.environ, "JUDGE_TEST_SLEEP": "0.002", "PYTHONWARNINGS": "default"}
    env.pop("CI", None)  # the profile is given explicitly
    return env


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "judge.cli", *args]


def judge(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(command(*args), cwd=cwd, env=judge_env(), capture_output=True,
                          text=True, timeout=timeout)


def results(out: Path) -> tuple[list[dict], dict]:
    """(rows, meta) of ``out/results.json``, the timing columns and timing metadata left out."""
    doc = json.loads((out / "results.json").read_text())
    rows = [{k: v for k, v in r.items() if k not in ("seconds", "started_at")} for r in doc["rows"]]
    meta = {k: v for k, v in doc["meta"].items() if k not in ("started_at", "jobs")}
    return rows, meta
