"""judge measure over several GPUs (faked: the backends are on the CPU and CUDA_VISIBLE_DEVICES
is all a process learns of its GPU): the contracts are dealt to one process per GPU, each
process sees only its own GPU, and the merged document holds every entry once, tagged."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_each_gpu_process_measures_its_share_and_sees_only_its_gpu(tmp_path):
    common = [sys.executable, "-m", "judge.cli", "measure", "--backend", "numpy", "--sizes", "4:6",
              "--budget", "1", "--dtype", "F32", "--kernel", "neg", "--kernel", "abs", "--kernel", "exp"]
    env = {"CUDA_VISIBLE_DEVICES": "4,6", "PATH": "/usr/bin:/bin"}
    import os

    env = {**os.environ, **env}
    one = subprocess.run([*common, "--out", str(tmp_path / "one")], capture_output=True, text=True, env=env)
    two = subprocess.run([*common, "--gpus", "all", "--out", str(tmp_path / "two")],
                         capture_output=True, text=True, env=env)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    a = json.loads((tmp_path / "one" / "measured-cost.json").read_text())
    b = json.loads((tmp_path / "two" / "measured-cost.json").read_text())
    key = lambda e: (e["kernel"], e["backend"], e["dtype"], e["status"])  # noqa: E731
    assert sorted(map(key, a["entries"])) == sorted(map(key, b["entries"]))
    assert {e["gpu"] for e in b["entries"]} == {"4", "6"}
    assert {g: v["visible"] for g, v in b["gpus"].items()} == {"4": "4", "6": "6"}
    assert (tmp_path / "two" / "cost.html").is_file()
