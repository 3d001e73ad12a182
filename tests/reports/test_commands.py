"""``judge audit`` and ``judge repro`` end to end, in a subprocess, on a self-test plugin backend.

The plugin registers three backends for NegElementwise: one correct, one that forgets the sign
flip, and one that is unavailable. A subprocess keeps them out of this process's registry.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = '''
import numpy as np
import judge


class Neg(judge.Backend):
    name = "selftest-neg"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind == "NegElementwise" else "runs NegElementwise only"

    def run(self, contract, call):
        return [np.negative(np.array(call.inputs[0].view()))]


class Wrong(Neg):
    name = "selftest-wrong"

    def run(self, contract, call):
        return [np.array(call.inputs[0].view())]  # forgets the sign flip


class Away(Neg):
    name = "selftest-away"

    def available(self):
        return "the self-test device is switched off"


for backend in (Neg(), Wrong(), Away()):
    judge.register_backend(backend)
'''


@pytest.fixture
def workspace(tmp_path, neg_fkc) -> Path:
    (tmp_path / "plugin_selftest.py").write_text(PLUGIN)
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "neg.fkc.md").write_text(neg_fkc())
    return tmp_path


def judge_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, JUDGE_PLUGINS=str(cwd / "plugin_selftest.py"))
    env.pop("CI", None)  # the suite's own CI settings do not apply to this small run
    return subprocess.run(
        [sys.executable, "-c", "from judge.cli import main; main()", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )


AUDIT = ("audit", "--contracts", "suite", "--profile", "ci", "--seed", "3")


def test_audit_of_a_conforming_backend_exits_0(workspace):
    res = judge_cli(workspace, *AUDIT, "--backend", "selftest-neg")
    assert res.returncode == 0, res.stderr
    assert "| selftest-neg | 1 | 0 | 0 | 0 | 0 | 1 |" in res.stdout
    out = workspace / "reports" / "out"
    for name in ("results.parquet", "results.csv", "results.json", "summary.md", "report.html"):
        assert (out / name).is_file() and f"{name}: reports/out/{name}" in res.stdout
    rows = json.loads((out / "results.json").read_text())["rows"]
    assert [(r["kernel"], r["backend"], r["verdict"]) for r in rows] == [
        ("neg_selftest", "selftest-neg", "pass")]
    assert rows[0]["cases"] > 0


def test_audit_failure_exits_1_and_repro_replays_the_case(workspace):
    res = judge_cli(workspace, *AUDIT, "--backend", "selftest-wrong", "--out", "out")
    assert res.returncode == 1, res.stderr
    assert "1 of 1 rows do not conform" in res.stderr
    [row] = json.loads((workspace / "out" / "results.json").read_text())["rows"]
    assert row["verdict"] == "fail" and row["counterexample"]
    case_id = row["counterexample"]
    assert (workspace / "out" / "cases" / f"{case_id}.npz").is_file()
    assert case_id in (workspace / "out" / "summary.md").read_text()
    assert f'id="case-{case_id}"' in (workspace / "out" / "report.html").read_text()

    rep = judge_cli(workspace, "repro", case_id, "--cases", "out/cases")
    assert rep.returncode == 1, rep.stderr
    assert rep.stdout.startswith(f"# Repro: neg_selftest on backend selftest-wrong (F32), "
                                 f"case {case_id}")
    assert "from judge.runner import replay_case" in rep.stdout
    assert f"# replayed {case_id} on selftest-wrong (F32): fail" in rep.stdout
    compile(rep.stdout, "repro.py", "exec")  # the printed text is a valid Python script

    by_path = judge_cli(workspace, "repro", f"out/cases/{case_id}.npz", "--no-script")
    assert by_path.returncode == 1 and by_path.stdout.startswith("# replayed")


def test_a_named_unavailable_backend_exits_2_with_the_reason(workspace):
    res = judge_cli(workspace, *AUDIT, "--backend", "selftest-away")
    assert res.returncode == 2
    assert "the self-test device is switched off" in res.stderr
    assert not (workspace / "reports").exists()


def test_unavailable_backends_are_listed_when_auditing_all(workspace):
    res = judge_cli(workspace, *AUDIT)
    assert "unavailable: selftest-away: the self-test device is switched off" in res.stderr
    meta = json.loads((workspace / "reports" / "out" / "results.json").read_text())["meta"]
    assert meta["unavailable"]["selftest-away"] == "the self-test device is switched off"
    summary = (workspace / "reports" / "out" / "summary.md").read_text()
    assert "- `selftest-away`: the self-test device is switched off" in summary


def test_usage_and_environment_errors_exit_2(workspace):
    missing_path = judge_cli(workspace, "audit", "--contracts", "no/such/dir")
    assert missing_path.returncode == 2 and "does not exist" in missing_path.stderr
    unknown = judge_cli(workspace, *AUDIT, "--backend", "no-such-backend")
    assert unknown.returncode == 2 and "unknown backend 'no-such-backend'" in unknown.stderr
    (workspace / "broken_plugin.py").write_text("raise RuntimeError('plugin is broken')\n")
    broken = judge_cli(workspace, *AUDIT, "--plugin", "broken_plugin.py")
    assert broken.returncode == 2
    assert "loading backends failed: RuntimeError: plugin is broken" in broken.stderr
    no_case = judge_cli(workspace, "repro", "neg_selftest-x-F32-000")
    assert no_case.returncode == 2 and "no recorded case 'neg_selftest-x-F32-000'" in \
        no_case.stderr


def test_gate_runs_an_audit_when_no_current_file_is_given(workspace):
    from judge.reports import write_audit
    from judge.results import AuditRun, ResultRow
    from judge.suite import load_paths

    [contract] = load_paths([workspace / "suite"]).contracts
    passing = ResultRow(suite="suite", file=contract.file, kernel=contract.kernel,
                        op_kind="NegElementwise", contract_backend="Cpu",
                        backend="selftest-wrong", device="cpu", dtype="F32",
                        revision=contract.revision, cases=40)
    base = write_audit(AuditRun([passing], [], {}, {}), workspace / "base")["results.json"]
    res = judge_cli(workspace, "gate", "--baseline", str(base), *AUDIT[1:],
                    "--backend", "selftest-wrong", "--out", "now")
    assert res.returncode == 1, res.stderr
    assert res.stdout.startswith("# Judge gate: FAIL: 1 regression")
    first = next(ln for ln in res.stdout.splitlines() if ln.startswith("| neg_selftest"))
    assert "| selftest-wrong | F32 | pass | fail |" in first
    assert (workspace / "now" / "results.json").is_file()
