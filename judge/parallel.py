"""Running many items at once: worker processes on one host, deterministic shards across hosts.

``run_items`` judges items in ``jobs`` worker processes (``concurrent.futures`` with the spawn
start method). Each worker judges whole items: it runs the Hypothesis search and the oracle, and
its backend calls go to sandboxes of its own (``judge.sandbox``), so a kernel that crashes ends
one item, never a worker. On a machine with CUDA devices each worker is pinned to one of them
(``CUDA_VISIBLE_DEVICES``), round robin. An item's verdict depends only on the item and the seed,
so the rows are the same for any number of workers.

``Shard`` partitions items by a hash of their key, so ``--shard K/N`` on N machines covers every
item exactly once and ``judge merge`` can put the pieces back together.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_WORKER: dict = {}  # what a worker process judges with (set by _start_worker)


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` with 1 ≤ K ≤ N; ``ValueError`` saying what is wrong otherwise."""
        try:
            k, n = (int(part) for part in text.split("/"))
        except ValueError:
            raise ValueError(f"shard {text!r} is not K/N (for example 2/3)") from None
        if not 1 <= k <= n:
            raise ValueError(f"shard {text!r}: K must be between 1 and N")
        return cls(k, n)

    def holds(self, key: str) -> bool:
        return zlib.crc32(key.encode()) % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def default_jobs() -> int:
    """One worker per core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def visible_gpus() -> tuple[str, ...]:
    """The CUDA devices a worker can be pinned to: ``CUDA_VISIBLE_DEVICES``, else nvidia-smi's."""
    import subprocess

    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return tuple(d.strip() for d in env.split(",") if d.strip())
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(str(i) for i, line in enumerate(out.stdout.splitlines()) if line.startswith("GPU "))


@dataclass(frozen=True)
class Task:
    index: int  # position in the caller's list
    contract: int  # index into the setup's contracts
    backend: int  # index into the setup's backends
    dtype: str


@dataclass(frozen=True)
class Setup:
    """Everything a worker needs, sent once when it starts."""

    contracts: tuple
    backends: tuple  # judge.sandbox.IsolatedBackend handles (picklable) or plain backends
    profile: object
    seed: int
    expectations: object
    judge: Callable  # (setup, task) -> the judged item's result; module level, so it pickles
    died: Callable  # (setup, task) -> the result of an item whose harness worker died twice
    gpus: tuple[str, ...] = ()


def run_items(setup: Setup, tasks: list[Task], jobs: int) -> Iterator[tuple[int, object]]:
    """Yield (task index, ItemResult) as items finish, in ``jobs`` worker processes."""
    if jobs <= 1 or len(tasks) <= 1:
        yield from _serial(setup, tasks)
        return
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    todo = list(tasks)
    broken_once: set[int] = set()
    while todo:
        slots = ctx.Queue()
        for i in range(jobs):
            slots.put(i)
        with cf.ProcessPoolExecutor(max_workers=min(jobs, len(todo)), mp_context=ctx,
                                    initializer=_start_worker, initargs=(setup, slots)) as pool:
            futures = {pool.submit(_judge, task): task for task in todo}
            retry = []
            for future in cf.as_completed(futures):
                task = futures[future]
                try:
                    yield task.index, future.result()
                except cf.process.BrokenProcessPool:
                    if task.index in broken_once:
                        yield task.index, setup.died(setup, task)
                    else:
                        broken_once.add(task.index)
                        retry.append(task)
        todo = retry


def _serial(setup: Setup, tasks: list[Task]) -> Iterator[tuple[int, object]]:
    _WORKER.update(setup=setup)
    for task in tasks:
        yield task.index, _judge(task)


def _start_worker(setup: Setup, slots) -> None:
    slot = slots.get()
    if setup.gpus:  # before any sandbox starts: they inherit it
        os.environ["CUDA_VISIBLE_DEVICES"] = setup.gpus[slot % len(setup.gpus)]
    _WORKER.update(setup=setup)


def _judge(task: Task):
    setup = _WORKER["setup"]
    return setup.judge(setup, task)
