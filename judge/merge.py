"""Putting shard runs back together (``judge merge``): one audit, as if it had run unsharded.

Each shard run (``judge audit --shard K/N``) records the whole plan's item keys in its metadata.
The merge checks that the runs belong together (same seed, profile and plan), that no item is
judged twice and none is missing, and orders rows and cases as the unsharded run would.
"""

from __future__ import annotations

from pathlib import Path

from judge.results import AuditRun


class MergeError(Exception):
    """The runs cannot be merged: the message says which and why."""


def load_run(run_dir: str | Path) -> AuditRun:
    from judge.cases import CaseRecord
    from judge.reports.tables import load_meta, load_rows, load_samples

    run_dir = Path(run_dir)
    results = run_dir / "results.json"
    if not results.is_file():
        raise MergeError(f"{run_dir}: no results.json (not an audit output folder)")
    try:
        rows, meta = load_rows(results), load_meta(results)
    except ValueError as exc:
        raise MergeError(str(exc)) from exc
    cases = [CaseRecord.load(p) for p in sorted((run_dir / "cases").glob("*.npz"))]
    return AuditRun(rows, cases, load_samples(run_dir / "samples.npz"), meta)


def item_key(file: str, kernel: str, backend: str, dtype: str) -> str:
    """The item key (``judge.runner.Item.key``) of a row or case."""
    return f"{Path(file).name}::{kernel}[{backend}-{dtype}]"


def merge_runs(runs: list[AuditRun], names: list[str]) -> AuditRun:
    """One run holding every row of ``runs`` in plan order; ``MergeError`` if they do not fit."""
    for run, name in zip(runs, names, strict=True):
        stopped = run.meta.get("incomplete")
        if stopped:  # its missing rows would read as a missing shard
            raise MergeError(f"{name} is an incomplete audit ({stopped.get('finished')} of "
                             f"{stopped.get('items')} items, interrupted by {stopped.get('signal')}): "
                             f"finish it first with judge audit --resume {name}")
    first = runs[0].meta
    plan = first.get("plan")
    if not plan:
        raise MergeError(f"{names[0]}: its results.json records no plan (written by an older Judge?)")
    for run, name in zip(runs[1:], names[1:], strict=True):
        for field in ("seed", "profile", "plan"):
            if run.meta.get(field) != first.get(field):
                raise MergeError(f"{name} and {names[0]} differ in {field}: they are not shards of one audit")
    order = {key: i for i, key in enumerate(plan)}
    by_key: dict[str, tuple] = {}
    for run, name in zip(runs, names, strict=True):
        for row in run.rows:
            key = item_key(row.file, row.kernel, row.backend, row.dtype)
            if key in by_key:
                raise MergeError(f"{key} is in both {by_key[key][1]} and {name}: the shards overlap")
            by_key[key] = (row, name)
    missing = [key for key in plan if key not in by_key]
    if missing:
        raise MergeError(f"{len(missing)} of {len(plan)} items are in none of the runs "
                         f"(a shard is missing?), e.g. {missing[0]}")
    rows = [by_key[key][0] for key in sorted(by_key, key=lambda k: order.get(k, len(order)))]
    cases = sorted((c for run in runs for c in run.cases),
                   key=lambda c: order.get(item_key(c.file, c.kernel, c.backend, c.dtype), len(order)))
    samples = {k: v for run in runs for k, v in run.ulp_samples.items()}
    return AuditRun(rows, cases, samples, _merged_meta(runs, names))


def _merged_meta(runs: list[AuditRun], names: list[str]) -> dict:
    meta = dict(runs[0].meta)
    backends: list[str] = []
    for run in runs:
        backends += [b for b in run.meta.get("backends", []) if b not in backends]
    meta.update(
        backends=backends,
        devices={k: v for run in runs for k, v in run.meta.get("devices", {}).items()},
        fingerprints={k: v for run in runs for k, v in run.meta.get("fingerprints", {}).items()},
        not_applicable=list({(e["line"], e["kernel"], e["backend"], e["dtype"], e["check"]): e
                             for run in runs for e in run.meta.get("not_applicable", [])}.values()),
        unavailable={k: v for run in runs for k, v in run.meta.get("unavailable", {}).items()},
        started_at=min(run.meta.get("started_at", "") for run in runs),
        items=len(meta["plan"]),
        shard=None,
        merged_from=[f"{name} (shard {run.meta.get('shard')})" for run, name in zip(runs, names, strict=True)],
    )
    return meta
