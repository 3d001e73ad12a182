"""`judge audit` and `pytest --backend` judge the same cases for the same seed: same rows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugins" / "broken.py"


def _small_suite(tmp_path: Path) -> Path:
    """The front matter plus the neg and sqrt sections of the reference suite file."""
    text = (ROOT / "suites" / "fuel" / "reference-elementwise.fkc.md").read_text()
    head = text[: text.index("\n## ")]
    keep = [s for s in text.split("\n## ")[1:] if s.startswith(("neg\n", "sqrt\n"))]
    d = tmp_path / "contracts"
    d.mkdir()
    (d / "small.fkc.md").write_text(head + "".join("\n## " + s for s in keep))
    return d


def test_audit_rows_match_pytest_rows(tmp_path):
    _small_suite(tmp_path)
    contracts = "contracts"  # the same spelling for both: item seeds derive from the item id
    backends = ["--backend=mini-cpu", "--backend=broken-extra-ulp"]
    audit = subprocess.run(
        [sys.executable, "-m", "judge.cli", "audit", f"--plugin={PLUGIN}", *backends,
         f"--contracts={contracts}", "--profile=ci", "--seed=7", f"--out={tmp_path / 'audit'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert audit.returncode == 1, audit.stdout + audit.stderr  # the broken backend fails
    pytest_run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--plugin={PLUGIN}", *backends,
         f"--contracts={contracts}", "--judge-profile=ci", "--judge-seed=7",
         f"--judge-report={tmp_path / 'pytest'}"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert pytest_run.returncode == 1, pytest_run.stdout + pytest_run.stderr

    def rows(folder):
        data = json.loads((tmp_path / folder / "results.json").read_text())
        table = data["rows"] if isinstance(data, dict) else data
        keep = ("kernel", "backend", "dtype", "verdict", "cases", "elements", "ulp_max", "counterexample")
        return sorted(tuple(r[k] for k in keep) for r in table)

    a, p = rows("audit"), rows("pytest")
    assert a == p
    assert {r[3] for r in a} == {"pass", "fail"}
