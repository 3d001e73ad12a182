"""``judge measure`` over the GPUs of one host: one process per GPU, the contracts dealt round
robin, each process pinned to its GPU before any GPU library loads (``CUDA_VISIBLE_DEVICES``
holds that one device). Each process times its share and its own roofline; the parent merges
their ``measured-cost.json`` documents, every entry tagged with the GPU that timed it.

    doc = measure_on(("0", "1"), contracts, ("torch-cuda", "cupy"), (), options)
"""

from __future__ import annotations

import os


def _pin(gpu: str) -> None:
    os.environ["CUDA_VISIBLE_DEVICES"] = gpu


def measure_share(gpu: str, contracts, backend_names: tuple[str, ...], plugins: tuple[str, ...],
                  options) -> dict:
    """Run in a process pinned to ``gpu``: the measured-cost document of its contracts."""
    from judge.measure.output import measured_cost
    from judge.measure.run import measure
    from judge.registry import default_registry

    registry = default_registry().load_all(plugins)
    chosen, missing = registry.select(backend_names, isolate=False)
    doc = measured_cost(measure(contracts, chosen, options, unavailable=missing))
    for entry in doc["entries"]:
        entry["gpu"] = gpu
    doc["gpus"] = {gpu: {"visible": os.environ.get("CUDA_VISIBLE_DEVICES", ""),
                         "kernels": sorted({e["kernel"] for e in doc["entries"]})}}
    return doc


def measure_on(gpus: tuple[str, ...], contracts, backend_names: tuple[str, ...],
               plugins: tuple[str, ...], options) -> dict:
    """The merged measured-cost document of ``contracts`` timed over ``gpus``."""
    import concurrent.futures as cf
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    jobs = []
    for i, gpu in enumerate(gpus):
        share = contracts[i::len(gpus)]
        if share:
            pool = cf.ProcessPoolExecutor(1, mp_context=ctx, initializer=_pin, initargs=(gpu,))
            jobs.append((pool, pool.submit(measure_share, gpu, share, backend_names, plugins, options)))
    docs = []
    for pool, future in jobs:
        docs.append(future.result())
        pool.shutdown()
    return merge_docs(docs, [c.kernel for c in contracts])


def merge_docs(docs: list[dict], order: list[str]) -> dict:
    """One document: the first's header, every entry (in the contracts' order), costs, devices
    and GPUs of all; the run took as long as the slowest share."""
    rank = {k: i for i, k in enumerate(order)}
    merged = dict(docs[0])
    merged["entries"] = sorted((e for d in docs for e in d["entries"]),
                               key=lambda e: (rank.get(e["kernel"], len(rank)), e["backend"], e["dtype"]))
    merged["seconds"] = max(d["seconds"] for d in docs)
    merged["unavailable"] = {k: v for d in docs for k, v in d["unavailable"].items()}
    merged["devices"] = {k: v for d in docs for k, v in d["devices"].items()}
    merged["gpus"] = {k: v for d in docs for k, v in d.get("gpus", {}).items()}
    costs: dict = {}
    for d in docs:
        for revision, by_device in d["costs"].items():
            for key, by_dtype in by_device.items():
                costs.setdefault(revision, {}).setdefault(key, {}).update(by_dtype)
    merged["costs"] = costs
    return merged
