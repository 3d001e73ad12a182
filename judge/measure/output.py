"""``measured-cost.json``: what a dispatcher consumes (SPEC §12).

``costs[revision][device_key][dtype]`` holds the fitted coefficients of one kernel revision on
one device (``device_key`` is ``backend@device description``) with contiguous inputs, and
under ``paths`` those of its strided and broadcast fast paths; ``devices[device_key]`` says
which libraries and which roofline; ``entries`` lists every measured item with its sizes,
spread, memory and findings. ``schema.SCHEMA`` is the JSON Schema of the file.
"""

from __future__ import annotations

import json
import math
import platform
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

FORMAT = "judge-measured-cost/1"
LIBRARIES = ("numpy", "ml_dtypes", "torch", "cupy", "cupy-cuda12x", "cupy-cuda13x", "kp")


def library_versions() -> dict[str, str]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            continue
    return out


def _num(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def device_key(backend) -> str:
    return f"{backend.name}@{_describe(backend)}"


def _describe(backend) -> str:
    try:
        return backend.describe()
    except Exception as exc:  # noqa: BLE001 - a describe() that fails must not lose the run
        return f"{backend.name} (describe() raised {type(exc).__name__})"


def entry_json(entry) -> dict:
    fit = entry.fit
    return {
        "kernel": entry.contract.kernel,
        "file": entry.contract.file,
        "revision": entry.contract.revision,
        "op_kind": entry.contract.op_kind,
        "backend": entry.backend.name,
        "device": entry.backend.device,
        "dtype": entry.dtype,
        "path": entry.path,
        "class": entry.contract.cost.cls,
        "provenance": entry.contract.cost.provenance,
        "status": ("unsupported" if entry.unsupported else "error" if entry.fit is None
                   else "measured"),
        "reason": entry.unsupported or entry.error,
        "work": entry.work_name,
        "work_expr": entry.work_expr,
        "unit": entry.unit,
        "clock": entry.clock,
        "overhead_ns": _num(fit.overhead_ns) if fit else None,
        "ns_per_unit": _num(fit.ns_per_unit) if fit else None,
        "rate_per_s": _num(fit.rate) if fit else None,
        "fit_rms_rel": _num(fit.rms_rel) if fit else None,
        "fit_max_rel": _num(fit.max_rel) if fit else None,
        "rate_determined": fit.rate_determined if fit else False,
        "largest_rate_per_s": (_num(entry.points[-1].work / entry.points[-1].sample.median_ns
                                    * 1e9) if entry.points else None),
        "roofline_fraction": _num(entry.roofline_fraction),
        "truncated": entry.truncated or None,
        "sizes": [{
            "n": p.sample.n, "work": p.work, "reps": p.sample.reps, "stable": p.sample.stable,
            "median_ns": p.sample.median_ns, "q1_ns": p.sample.q1_ns, "q3_ns": p.sample.q3_ns,
            "min_ns": p.sample.min_ns, "spread": p.sample.spread,
            "host_bytes": p.host_bytes, "device_bytes": p.device_bytes,
        } for p in entry.points],
        "memory": [m.to_json() for m in entry.memory],
        "findings": list(entry.findings),
    }


def roofline_json(roof) -> dict:
    return {
        "source": roof.source,
        "clock": roof.clock,
        "bytes_per_s": _num(roof.bytes_per_s),
        "best_bytes_per_s": _num(roof.best_bytes_per_s),
        "largest_bytes_per_s": _num(roof.largest_bytes_per_s),
        "overhead_ns": _num(roof.fit.overhead_ns) if roof.fit else None,
        "fit_rms_rel": _num(roof.fit.rms_rel) if roof.fit else None,
        "rate_determined": roof.fit.rate_determined if roof.fit else False,
        "note": roof.note,
        "sizes": [{"bytes": s.n, "median_ns": s.median_ns, "q1_ns": s.q1_ns, "q3_ns": s.q3_ns,
                   "reps": s.reps, "stable": s.stable} for s in roof.samples],
    }


def measured_cost(run) -> dict:
    """The whole file as a JSON-ready dict."""
    from judge import __version__ as judge_version

    libraries = library_versions()
    backends = {e.backend.name: e.backend for e in run.entries}
    devices = {}
    keys = {}
    for name, roof in run.rooflines.items():
        backend = backends.get(name) or next((e.backend for e in run.entries
                                              if e.backend.name == name), None)
        if backend is None:
            continue
        keys[name] = device_key(backend)
        devices[keys[name]] = {"backend": name, "device_class": backend.device,
                               "describe": _describe(backend), "roofline": roofline_json(roof)}
    entries = [entry_json(e) for e in run.entries]
    costs = _costs(run, entries, keys)
    lo_hi = run.options.log2
    return {
        "format": FORMAT,
        "judge_version": judge_version,
        "started_at": run.started_at,
        "seconds": round(run.seconds, 3),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "libraries": libraries,
        "options": {"log2_sizes": list(lo_hi) if lo_hi else None,
                    "item_budget_s": run.options.item_budget_s,
                    "tol": run.options.policy.tol, "min_reps": run.options.policy.min_reps,
                    "max_reps": run.options.policy.max_reps,
                    "warmup_ns": run.options.policy.warmup_ns},
        "unavailable": dict(run.unavailable),
        "devices": devices,
        "costs": costs,
        "entries": entries,
    }


def _cost(row: dict) -> dict:
    return {key: row[key] for key in ("kernel", "overhead_ns", "work", "work_expr", "ns_per_unit",
                                      "rate_per_s", "largest_rate_per_s", "fit_rms_rel",
                                      "roofline_fraction")} | {
        "sizes": [row["sizes"][0]["n"], row["sizes"][-1]["n"]]}


def _costs(run, entries: list[dict], keys: dict[str, str]) -> dict:
    """``costs[revision][device key][dtype]``: the contiguous path's coefficients, where a
    dispatcher has always read them, and each other measured path's under ``paths``."""
    costs: dict = {}
    measured = [(e, row) for e, row in zip(run.entries, entries, strict=True) if row["status"] == "measured"]
    for e, row in sorted(measured, key=lambda er: er[1]["path"] != "contiguous"):
        by_dtype = costs.setdefault(row["revision"], {}).setdefault(
            keys.get(e.backend.name) or device_key(e.backend), {})
        if row["path"] == "contiguous":
            by_dtype[row["dtype"]] = _cost(row)
        elif row["dtype"] in by_dtype:  # a path beside the contiguous one it is compared with
            by_dtype[row["dtype"]].setdefault("paths", {})[row["path"]] = _cost(row)
    return costs


def write_measured_cost(run, out_dir) -> Path:
    return write_cost_doc(measured_cost(run), out_dir)


def write_cost_doc(doc: dict, out_dir) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "measured-cost.json"
    path.write_text(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    return path
