"""An exhaustive F32 sweep spread over the GPUs of one host: one process per GPU.

The chunks are dealt round robin; each process is pinned to its GPU before anything imports a
GPU library (``CUDA_VISIBLE_DEVICES`` holds that one device, so it cannot touch another), runs
``gpu_f32.sweep_chunks`` over its share and hands back its tally (histogram in host memory),
counts and times. The parent merges the tallies (``judge.scoring.tally.merge``) and finishes
the sweep as one: the verdict, histogram and worst cases equal a one-GPU sweep's; the adapter,
reference and settling times are summed over the GPUs (device seconds), the wall time is the
parent's.

    result = sweep_f32_on(("0", "1"), contract, "torch-cuda", chunk_log2=28)
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field


@dataclass
class Part:
    """One GPU's share of a sweep, as it crosses back to the parent."""

    gpu: str
    visible: str  # CUDA_VISIBLE_DEVICES as the process saw it
    chunks: list[int]
    tally: object
    counts: dict
    times: dict
    unwritten_first: int | None
    notes: list[str] = field(default_factory=list)
    nondeterministic_runs: int = 0


def split_chunks(order: list[int], gpus: tuple[str, ...]) -> list[list[int]]:
    """The chunks of each GPU, dealt round robin (each GPU gets every len(gpus)-th chunk)."""
    return [order[i::len(gpus)] for i in range(len(gpus))]


def _pin(gpu: str) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = gpu


def sweep_part(gpu: str, contract, backend_name: str, plugins: tuple[str, ...], chunks: list[int],
               chunk_log2: int, device: str, repeat_first: bool, fused: bool | None = None) -> Part:
    """Run in a process pinned to ``gpu``: this GPU's chunks, unfinished."""
    from judge.registry import default_registry
    from judge.scoring.tally import to_host
    from judge.sweep import gpu_f32

    backend = default_registry().load_all(plugins).backends[backend_name]
    result, run = gpu_f32.sweep_chunks(contract, backend, chunks, chunk_log2=chunk_log2,
                                       device=device, repeat_first=repeat_first, fused=fused)
    return Part(gpu, os.environ.get("CUDA_VISIBLE_DEVICES", ""), chunks, to_host(run.tally),
                dict(run.counts), dict(run.times), run.unwritten_first, result.notes,
                result.row.nondeterministic_runs)


def sweep_f32_on(gpus: tuple[str, ...], contract, backend, *, plugins: tuple[str, ...] = (),
                 chunk_log2: int = 28, chunks: list[int] | None = None, device: str = "cuda",
                 expectations=None, log=None, fused: bool | None = None):
    """Sweep ``contract`` on ``backend`` (a registered backend; its name is what the processes
    look up) over ``gpus``, one process each; on one GPU, in this process."""
    from judge.sweep import gpu_f32

    if len(gpus) <= 1:
        return gpu_f32.sweep_f32(contract, backend, chunk_log2=chunk_log2, chunks=chunks,
                                 device=device, expectations=expectations, log=log, fused=fused)
    order = chunks if chunks is not None else list(range((1 << 32) >> chunk_log2))
    t0 = time.perf_counter()
    parts = _run_parts(gpus, contract, backend.name, plugins, order, chunk_log2, device, fused)
    return finish(contract, backend, parts, t0, expectations=expectations, device=device)


def _run_parts(gpus, contract, name, plugins, order, chunk_log2, device, fused=None) -> list[Part]:
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    shares = split_chunks(order, gpus)
    futures = []
    for gpu, share in zip(gpus, shares, strict=True):
        if not share:
            continue
        # a pool of one per GPU: its initializer pins the process before the task imports torch
        pool = cf.ProcessPoolExecutor(1, mp_context=ctx, initializer=_pin, initargs=(gpu,))
        futures.append((pool, pool.submit(sweep_part, gpu, contract, name, plugins, share,
                                          chunk_log2, device, order[0] in share, fused)))
    parts = []
    for pool, future in futures:
        parts.append(future.result())
        pool.shutdown()
    return parts


def finish(contract, backend, parts: list[Part], t0: float, *, expectations=None, device="cuda"):
    """The parts merged and judged as one sweep (``gpu_f32._finish``)."""
    import oracles
    from judge import verdict
    from judge.scoring.tally import merge
    from judge.sweep import gpu_f32

    result = gpu_f32.F32Sweep(verdict.new_row(contract, backend, "F32"), device=backend.describe())
    run = gpu_f32._Run(None, None, contract, backend, oracles.get(contract.op_kind),
                       contract.semantics.values(), False, merge([p.tally for p in parts]))
    for p in parts:
        for key, value in p.counts.items():
            run.counts[key] += value
        for key, value in p.times.items():
            run.times[key] += value
        if p.unwritten_first is not None and (run.unwritten_first is None
                                              or p.unwritten_first < run.unwritten_first):
            run.unwritten_first = p.unwritten_first
        result.row.nondeterministic_runs += p.nondeterministic_runs
        result.notes += [n for n in p.notes if n not in result.notes]
    result.notes.append("spread over GPUs " + ", ".join(f"{p.gpu} ({len(p.chunks)} chunks)" for p in parts))
    gpu_f32._finish(result, run, expectations, t0)
    result.metrics["gpus"] = {p.gpu: {"visible": p.visible, "chunks": p.chunks} for p in parts}
    return result
