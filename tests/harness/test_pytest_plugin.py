"""The pytest plugin end to end, in subprocesses: ids, verdicts, xdist, unavailable backends."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugins" / "broken.py"


def _contracts(tmp_path: Path) -> Path:
    """A small contract folder: two reference files copied from the embedded suite."""
    d = tmp_path / "contracts"
    d.mkdir()
    for name in ("reference-elementwise.fkc.md", "elementwise-binary.fkc.md"):
        shutil.copy(ROOT / "suites" / "fuel" / name, d / name)
    return d


def _run(tmp_path, *args):
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA",
           f"--plugin={PLUGIN}", "--judge-profile=ci", *args]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=900)


def _outcomes(stdout: str) -> dict[str, str]:
    out = {}
    for m in re.finditer(r"^(PASSED|FAILED|XFAIL|SKIPPED|ERROR) (\S+)", stdout, re.M):
        out[m.group(2)] = m.group(1)
    return out


@pytest.mark.slow
def test_serial_and_xdist_agree(tmp_path):
    contracts = _contracts(tmp_path)
    args = ["--backend=mini-cpu", "--backend=broken-nan-rule", f"--contracts={contracts}",
            "-k", "F32 and (maximum_elementwise_cpu or neg)"]
    serial = _run(tmp_path, *args)
    parallel = _run(tmp_path, *args, "-n", "2")
    a, b = _outcomes(serial.stdout), _outcomes(parallel.stdout)
    assert a, serial.stdout + serial.stderr
    assert a == b, (serial.stdout[-3000:], parallel.stdout[-3000:])
    assert "contracts/elementwise-binary.fkc.md::maximum_elementwise_cpu[broken-nan-rule-F32]" in a
    assert a["contracts/elementwise-binary.fkc.md::maximum_elementwise_cpu[broken-nan-rule-F32]"] == "FAILED"
    assert a["contracts/reference-elementwise.fkc.md::neg[mini-cpu-F32]"] == "PASSED"
    assert "minimal counterexample" in serial.stdout


def test_unavailable_backend_is_an_error(tmp_path):
    plugin = tmp_path / "gone.py"
    plugin.write_text(
        "import judge\n"
        "class Gone(judge.Backend):\n"
        "    name = 'gone'\n    device = 'cpu'\n"
        "    def available(self): return 'the gone library is not installed'\n"
        "    def supports(self, c, d): return True\n"
        "    def run(self, c, call): raise AssertionError\n"
        "judge.register_backend(Gone())\n"
    )
    r = subprocess.run([sys.executable, "-m", "pytest", f"--plugin={plugin}", "--backend=gone", "-q"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0
    assert "gone" in r.stderr and "the gone library is not installed" in r.stderr


def test_unknown_backend_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pytest", "--backend=no-such-backend", "-q"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "unknown backend 'no-such-backend'" in r.stderr


def test_plugin_from_environment(tmp_path):
    contracts = _contracts(tmp_path)
    import os

    env = dict(os.environ, JUDGE_PLUGINS=str(PLUGIN))
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--collect-only",
                        "--backend=mini-cpu", f"--contracts={contracts}"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "contracts/reference-elementwise.fkc.md::neg[mini-cpu-F32]" in r.stdout


def test_no_backend_collects_no_contracts(tmp_path):
    contracts = _contracts(tmp_path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "--collect-only", str(contracts)],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert "neg[" not in r.stdout


def test_a_contract_file_given_by_absolute_path_collects_from_another_directory(tmp_path):
    contracts = _contracts(tmp_path)
    elsewhere = tmp_path / "elsewhere" / "deeper"
    elsewhere.mkdir(parents=True)
    target = contracts / "reference-elementwise.fkc.md"
    result = _run(elsewhere, str(target), "--backend=mini-cpu", "-k", "neg and F32")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    outcomes = _outcomes(result.stdout)
    assert outcomes, result.stdout
    (nodeid,) = outcomes
    assert nodeid.endswith("reference-elementwise.fkc.md::neg[mini-cpu-F32]") and outcomes[nodeid] == "PASSED"
    # and relative to the rootdir when run from inside it, as pytest names any path
    inside = _run(tmp_path, "contracts/reference-elementwise.fkc.md", "--backend=mini-cpu", "-k", "neg and F32")
    assert list(_outcomes(inside.stdout)) == ["contracts/reference-elementwise.fkc.md::neg[mini-cpu-F32]"]
