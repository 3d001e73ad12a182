"""Workers and shards change how fast an audit runs, never what it finds."""

from __future__ import annotations

import json
import os
import queue

import pytest

from judge.parallel import Shard

TIMING = ("seconds", "started_at")
KERNELS = ("sum_reduce_cpu", "max_reduce_cpu", "argmax_dim_cpu")


def _rows(out) -> list[dict]:
    doc = json.loads((out / "results.json").read_text())
    return [{k: v for k, v in r.items() if k not in TIMING} for r in doc["rows"]]


@pytest.fixture
def workspace(tmp_path, make_suite):
    make_suite(tmp_path / "contracts", "reduce.fkc.md", KERNELS)
    return tmp_path


def _audit(cli, cwd, out, *extra):
    result = cli(cwd, "judge", "audit", "--backend=numpy", "--backend=torch-cpu", "--contracts=contracts",
                 "--profile=ci", "--seed=3", f"--out={out}", *extra)
    assert result.returncode in (0, 1), result.stderr
    return result


def test_rows_do_not_depend_on_workers_or_shards(workspace, cli):
    _audit(cli, workspace, workspace / "j1", "-j", "1")
    _audit(cli, workspace, workspace / "j2", "-j", "2")
    serial = _rows(workspace / "j1")
    assert len(serial) == len(KERNELS) * 4 * 2
    assert {r["verdict"] for r in serial} <= {"pass", "xfail", "fail"}
    assert _rows(workspace / "j2") == serial

    shards = [workspace / f"s{k}" for k in (1, 2, 3)]
    sizes = []
    for k, out in enumerate(shards, start=1):
        _audit(cli, workspace, out, "-j", "1", "--shard", f"{k}/3")
        sizes.append(len(_rows(out)))
    assert sum(sizes) == len(serial) and all(sizes), sizes  # a partition: every item once
    merged = cli(workspace, "judge", "merge", *map(str, shards), f"--out={workspace / 'merged'}")
    assert merged.returncode in (0, 1), merged.stderr
    assert _rows(workspace / "merged") == serial
    for name in ("results.csv", "results.parquet", "report.html", "summary.md", "samples.npz"):
        assert (workspace / "merged" / name).is_file()
    assert sorted(p.name for p in (workspace / "merged" / "cases").iterdir()) == \
        sorted(p.name for p in (workspace / "j1" / "cases").iterdir())
    summary = (workspace / "merged" / "summary.md").read_text().splitlines()
    unsharded = (workspace / "j1" / "summary.md").read_text().splitlines()
    assert [ln for ln in summary if "started" not in ln] == [ln for ln in unsharded if "started" not in ln]

    overlap = cli(workspace, "judge", "merge", str(shards[0]), str(shards[0]), f"--out={workspace / 'bad'}")
    assert overlap.returncode == 2 and "overlap" in overlap.stderr
    missing = cli(workspace, "judge", "merge", str(shards[0]), str(shards[1]), f"--out={workspace / 'bad'}")
    assert missing.returncode == 2 and "in none of the runs" in missing.stderr


def test_shards_partition_keys_deterministically():
    keys = [f"reduce.fkc.md::k{i}[numpy-F32]" for i in range(300)]
    parts = [[k for k in keys if Shard(i, 4).holds(k)] for i in range(1, 5)]
    assert sorted(sum(parts, [])) == sorted(keys)
    assert all(40 < len(p) < 110 for p in parts)  # spread, not all in one
    assert Shard.parse("2/4") == Shard(2, 4) and str(Shard(2, 4)) == "2/4"


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3", "1/0"])
def test_bad_shards_are_refused_with_the_reason(text):
    with pytest.raises(ValueError, match="shard"):
        Shard.parse(text)


def test_each_worker_is_pinned_to_one_visible_gpu_round_robin(monkeypatch):
    from judge import parallel

    setup = parallel.Setup(contracts=(), backends=(), profile=None, seed=0, expectations=None,
                           judge=None, died=None, gpus=("3", "5"))
    pinned = []
    for slot in range(4):
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
        slots = queue.Queue()
        slots.put(slot)
        parallel._start_worker(setup, slots)
        pinned.append(os.environ["CUDA_VISIBLE_DEVICES"])
    assert pinned == ["3", "5", "3", "5"]
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "2,7")
    assert parallel.visible_gpus() == ("2", "7")


def test_workers_share_the_cores_out_unless_the_environment_says(monkeypatch):
    from judge import parallel

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    assert [parallel.worker_threads(j) for j in (1, 2, 16, 32)] == [16, 8, 1, 1]
    setup = parallel.Setup(contracts=(), backends=(), profile=None, seed=0, expectations=None,
                           judge=None, died=None)
    for name in parallel.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")  # the user's word stands
    slots = queue.Queue()
    slots.put(0)
    parallel._start_worker(setup, slots, parallel.worker_threads(8))
    assert os.environ["OMP_NUM_THREADS"] == os.environ["OPENBLAS_NUM_THREADS"] == "2"
    assert os.environ["MKL_NUM_THREADS"] == "3"


def _swallowing_judge(setup, task):
    """Item 1 takes SIGINT where its Interrupted is swallowed, as in a gc callback."""
    import os
    import signal

    from judge.parallel import Interrupted

    if task.index == 1:
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except Interrupted:
            pass
    return task.index


def test_a_signal_whose_interrupt_was_swallowed_stops_the_judging_and_drops_that_item():
    """The item that swallowed the cut may carry its mark: it is judged again on resume, never
    recorded (what finished is final)."""
    from judge.parallel import Setup, StopSignals, Task, judge_all

    setup = Setup((), (), None, 0, None, judge=_swallowing_judge, died=_swallowing_judge)
    done = []
    with StopSignals() as signals:
        stopped = judge_all(setup, [Task(i, 0, 0, "F32") for i in range(5)], 1,
                            lambda i, result: done.append(result), signals)
    assert stopped == "SIGINT" and done == [0]
