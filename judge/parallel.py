"""Running many items at once: worker processes on one host, deterministic shards across hosts.

``run_items`` judges items in ``jobs`` worker processes (``concurrent.futures`` with the spawn
start method). Each worker judges whole items: it runs the Hypothesis search and the oracle, and
its backend calls go to sandboxes of its own (``judge.sandbox``), so a kernel that crashes ends
one item, never a worker. On a machine with CUDA devices each worker is pinned to one of them
(``CUDA_VISIBLE_DEVICES``), round robin. An item's verdict depends only on the item and the seed,
so the rows are the same for any number of workers. The cores are shared out: each worker's
libraries (torch's intra-op pool, OpenMP, the BLAS) get ``cores // jobs`` threads, at least one,
where the environment does not already say (``OMP_NUM_THREADS`` and the like); sixteen workers
each starting sixteen threads on sixteen cores made a nightly audit several times slower. The
thread count is in the torch fingerprint.

``Shard`` partitions items by a hash of their key, so ``--shard K/N`` on N machines covers every
item exactly once and ``judge merge`` can put the pieces back together.

``StopSignals`` turns SIGINT and SIGTERM into ``Interrupted`` in the main process, so the caller
can write what finished; ``run_items`` then ends its workers at once (each closes its sandboxes)
instead of waiting for the items they are judging. Workers ignore SIGINT: a Ctrl-C reaches the
whole process group, and the main process decides what happens.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
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
    collect: bool = False  # judge the whole budget, listing every unrecorded check (judge.runner)


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
                                    initializer=_start_worker,
                                    initargs=(setup, slots, worker_threads(jobs))) as pool:
            futures = {pool.submit(_judge, task): task for task in todo}
            retry = []
            try:
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
            except BaseException:  # interrupted, or the caller stopped early (GeneratorExit)
                _stop_workers(pool)
                raise
        todo = retry


def judge_all(setup: Setup, tasks: list[Task], jobs: int, finished: Callable,
              signals: StopSignals | None = None) -> str | None:
    """``run_items``, calling ``finished(task index, result)`` as each item finishes; return the
    name of the signal that stopped the judging (see ``StopSignals``), or None when all finished."""
    waiting = signals.interruptible if signals is not None else contextlib.nullcontext
    try:
        with contextlib.closing(run_items(setup, tasks, jobs)) as judged:
            while True:
                with waiting():  # a signal stops an item being judged, never one being recorded
                    done = next(judged, None)
                if signals is not None and signals.received:
                    # its Interrupted was raised where it was swallowed (a gc callback, a __del__,
                    # a library's cleanup) while this item was judged: the item may carry the
                    # mark of the cut, so it is not recorded (a resume judges it again), and the
                    # judging stops here all the same
                    return signal.Signals(signals.received[0]).name
                if done is None:
                    return None
                finished(*done)
    except Interrupted as stop:
        return stop.signal


def _stop_workers(pool, grace: float = 5.0) -> None:
    """End the pool's workers now: leaving the ``with`` block alone would wait for every item
    they are judging. SIGTERM first (a worker then closes its sandboxes), SIGKILL after
    ``grace`` seconds. Python 3.11 has no public way to reach a pool's processes (3.14 adds
    ``terminate_workers``), hence ``_processes``."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        with contextlib.suppress(Exception):  # already gone
            process.terminate()
    deadline = time.monotonic() + grace
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
    pool.shutdown(wait=False, cancel_futures=True)


def _serial(setup: Setup, tasks: list[Task]) -> Iterator[tuple[int, object]]:
    _WORKER.update(setup=setup)
    for task in tasks:
        yield task.index, _judge(task)


THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def worker_threads(jobs: int) -> int:
    """The library threads of each of ``jobs`` workers: their share of the usable cores."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, cores // max(1, jobs))


def _start_worker(setup: Setup, slots, threads: int = 0) -> None:
    slot = slots.get()
    if threads:  # before any sandbox starts: they inherit it (a user's setting stands)
        for name in THREAD_VARIABLES:
            os.environ.setdefault(name, str(threads))
    if setup.gpus:  # before any sandbox starts: they inherit it
        os.environ["CUDA_VISIBLE_DEVICES"] = setup.gpus[slot % len(setup.gpus)]
    # A Ctrl-C reaches every process of the group: the main process decides, the workers (and
    # the sandboxes they start, which inherit the ignored disposition) carry on until told.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _worker_stopped)
    _WORKER.update(setup=setup)


def _worker_stopped(signum, frame) -> None:
    """SIGTERM in a worker: its sandboxes go with it (they would otherwise finish their call)."""
    from judge.sandbox import close_all

    try:
        close_all()
    finally:
        os._exit(128 + signum)


def _judge(task: Task):
    setup = _WORKER["setup"]
    return setup.judge(setup, task)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived while items were being judged. A ``BaseException`` (like
    ``judge.sandbox.BackendDied``), so neither an item's own error handling nor Hypothesis
    takes it for a finding: it ends the judging wherever the main process is."""

    def __init__(self, signum: int) -> None:
        self.signal = signal.Signals(signum).name
        super().__init__(f"interrupted by {self.signal}")


class StopSignals:
    """While active (a context manager, main thread only), SIGINT and SIGTERM are noted, and the
    first one raises ``Interrupted`` inside ``interruptible()`` (judging, or waiting for the
    next item: what is lost there had not finished) or when such a block is next entered. So a
    finished item is never cut while it is recorded. Later signals are only counted: they come
    while the outputs of what finished are written, and stopping that would lose them."""

    WAIT = "judge: still writing the outputs of the finished items, one moment\n"

    def __init__(self) -> None:
        self.received: list[int] = []
        self._armed = False
        self._raised = False
        self._previous: dict = {}

    def __enter__(self) -> StopSignals:
        import threading

        if threading.current_thread() is threading.main_thread():  # handlers live there only
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous.clear()

    @contextlib.contextmanager
    def interruptible(self):
        self._raise_pending()
        self._armed = True
        try:
            yield
        finally:
            self._armed = False

    def _handle(self, signum, frame) -> None:
        self.received.append(signum)
        if self._raised:
            os.write(2, self.WAIT.encode())  # os.write: safe whatever the main thread was doing
        elif self._armed:
            self._raise_pending()

    def _raise_pending(self) -> None:
        if self.received and not self._raised:
            self._raised, self._armed = True, False
            raise Interrupted(self.received[0])
