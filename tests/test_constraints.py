"""The test environment is pinned: constraints.txt holds every distribution of the test run's
dependency closure at its installed version (scripts/bootstrap.sh installs with it), so a new
dependency or an unpinned upgrade shows here instead of as a verdict that moved."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pins(text: str) -> dict[str, str]:
    return dict(line.split("==", 1) for line in text.splitlines() if line and not line.startswith("#"))


def test_constraints_pin_the_installed_closure():
    frozen = subprocess.run([sys.executable, str(ROOT / "scripts" / "freeze-constraints.py")],
                            capture_output=True, text=True, check=True).stdout
    committed = _pins((ROOT / "constraints.txt").read_text())
    installed = _pins(frozen)
    assert set(installed) - set(committed) == set(), "unpinned: re-run scripts/freeze-constraints.py"
    moved = {k: (committed[k], v) for k, v in installed.items() if committed[k] != v}
    assert not moved, f"installed versions differ from constraints.txt (pinned, installed): {moved}"


def test_bootstrap_installs_with_the_constraints():
    script = (ROOT / "scripts" / "bootstrap.sh").read_text()
    assert "-c constraints.txt" in script and "JUDGE_CONSTRAINTS" in script
