"""An interrupted audit loses nothing: killed mid-run it leaves readable outputs of what finished,
marked incomplete, and exits 2; ``--resume`` then judges only what is missing, and the outputs
equal those of the audit run from start to end (timing columns aside)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from audit_runs import AUDIT, TOTAL, command, judge, judge_env, results


def journal_items(out: Path) -> int:
    path = out / "journal" / "items.jsonl"
    return max(0, len(path.read_bytes().splitlines()) - 1) if path.is_file() else 0


def descendants(pid: int) -> set[int]:
    """The processes below ``pid`` (from /proc), to see that none outlives the audit."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def kill_after(cwd: Path, out: str, jobs: str, signum: int, finished: int = 2):
    """Start the audit, send ``signum`` once its journal holds ``finished`` items; return
    (exit code, stderr, the processes it had started)."""
    err = cwd / f"{out}.stderr"
    with err.open("w") as stderr:
        proc = subprocess.Popen(command(*AUDIT, "-j", jobs, "--out", out), cwd=cwd,
                                env=judge_env(), stdout=subprocess.DEVNULL, stderr=stderr)
        deadline = time.monotonic() + 120
        while journal_items(cwd / out) < finished and proc.poll() is None:
            assert time.monotonic() < deadline, "the audit finished no item in 120 s"
            time.sleep(0.05)
        children = descendants(proc.pid)
        proc.send_signal(signum)
        code = proc.wait(timeout=60)
    return code, err.read_text(), children


def case_files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "cases").glob("*.npz"))}


def samples(out: Path) -> dict[str, np.ndarray]:
    with np.load(out / "samples.npz") as data:
        return {name: data[name] for name in data.files}


@pytest.mark.parametrize("jobs, signum, resume_jobs", [("1", signal.SIGINT, "2"),
                                                       ("2", signal.SIGTERM, "1")],
                         ids=["j1-SIGINT", "j2-SIGTERM"])
def test_killed_audit_leaves_partial_outputs_and_resumes_to_the_whole_audit(
        workspace, uninterrupted, jobs, signum, resume_jobs):
    out = f"killed-j{jobs}"
    code, stderr, children = kill_after(workspace, out, jobs, signum)
    name = signal.Signals(signum).name
    assert code == 2, stderr
    assert f"interrupted by {name}" in stderr and f"judge audit --resume {out}" in stderr
    assert "RuntimeWarning" not in stderr and "Traceback" not in stderr, stderr
    deadline = time.monotonic() + 10
    while {pid for pid in children if Path(f"/proc/{pid}").exists()} and time.monotonic() < deadline:
        time.sleep(0.1)  # gone soon after the audit: workers and sandboxes alike
    assert not {pid for pid in children if Path(f"/proc/{pid}").exists()}

    part = workspace / out
    doc = json.loads((part / "results.json").read_text())
    incomplete = doc["meta"]["incomplete"]
    assert incomplete["signal"] == name and incomplete["items"] == TOTAL
    assert 2 <= incomplete["finished"] == len(doc["rows"]) < TOTAL
    summary = (part / "summary.md").read_text()
    assert "**Incomplete audit.**" in summary and f"judge audit --resume {out}" in summary
    assert 'id="incomplete"' in (part / "report.html").read_text()
    whole_rows, _ = results(uninterrupted)
    part_rows, _ = results(part)
    assert [row for row in part_rows if row not in whole_rows] == []  # what finished is final

    res = judge(workspace, "audit", "--resume", out, "-j", resume_jobs)
    assert res.returncode == 1, res.stderr  # as the whole audit: slow-wrong's abs rows fail
    assert f"{incomplete['finished'] - 6} finished before" in res.stderr  # 6 unsupported rows
    assert "RuntimeWarning" not in res.stderr, res.stderr
    assert results(part) == results(uninterrupted)
    assert case_files(part) == case_files(uninterrupted) and case_files(part)
    got, want = samples(part), samples(uninterrupted)
    assert got.keys() == want.keys()
    assert all(np.array_equal(got[k], want[k], equal_nan=True) for k in want)
    assert "incomplete" not in (part / "summary.md").read_text().lower()


def test_resume_refuses_the_journal_of_another_run(workspace, uninterrupted):
    res = judge(workspace, "audit", "--resume", "whole", "--seed", "7")
    assert res.returncode == 2
    assert "holds the journal of another run: seed 1 there, 7 here" in res.stderr


def test_resume_without_a_journal_exits_2(workspace):
    res = judge(workspace, "audit", "--resume", "nowhere")
    assert res.returncode == 2
    assert "there is no journal to resume" in res.stderr
