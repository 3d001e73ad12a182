"""The report's table of exhaustive F32 sweeps (``judge sweep --dtype F32``).

One row per kernel × backend: the worst integer ULP distance and the input that gave it, the
worst real-valued error, how many of the 2^32 inputs exceed the contract's bound, and the
throughput end to end beside the natural kernel's own. ``judge sweep --out DIR`` writes
``f32-sweeps.json`` there; a report written into that folder shows the table.
"""

from __future__ import annotations

import json
from pathlib import Path

FILE = "f32-sweeps.json"


def sweep_record(row, metrics: dict, notes: list[str]) -> dict:
    """What the table needs of one ``F32Sweep`` (row, metrics, notes)."""
    return {
        "kernel": row.kernel, "file": row.file, "op_kind": row.op_kind, "backend": row.backend,
        "verdict": row.verdict, "cases": row.cases, "ulp_max": row.ulp_max,
        "ulp_real_max": row.ulp_real_max, "bound_ulp": row.bound_ulp,
        "worst": metrics.get("worst", ""), "over_bound": metrics.get("over_bound", 0),
        "worst_ulp_input": metrics.get("worst_ulp_input", ""),
        "worst_real_input": metrics.get("worst_real_input", ""),
        "inputs_per_s": metrics.get("inputs_per_s"), "kernel_elems_per_s": metrics.get("kernel_elems_per_s"),
        "resident": any("device-resident" in n for n in notes), "seconds": row.seconds,
    }


def write_sweeps(records: list[dict], path: Path) -> Path:
    path.write_text(json.dumps({"format": "judge-f32-sweeps/1", "sweeps": records}, indent=1) + "\n")
    return path


def load_sweeps(path: Path) -> list[dict] | None:
    if not path.is_file():
        return None
    return json.loads(path.read_text()).get("sweeps", [])


def _rate(v) -> str:
    return "" if v is None else f"{v:.3g}/s"


def sweeps_view(records: list[dict]) -> list[dict]:
    """The table's rows, in kernel × backend order: {"verdict", "cells"}."""
    rows = []
    for r in sorted(records, key=lambda r: (r["kernel"], r["backend"])):
        cells = (r["kernel"], r["backend"], r["verdict"], f"{r['cases']:,}", f"{r.get('ulp_max')}",
                 r.get("worst_ulp_input", ""), f"{r.get('ulp_real_max')}",
                 r.get("worst_real_input", ""), f"{r.get('bound_ulp')}",
                 f"{r.get('over_bound', 0):,}", _rate(r.get("inputs_per_s")),
                 _rate(r.get("kernel_elems_per_s")),
                 "on device" if r.get("resident") else "through host")
        rows.append({"verdict": r["verdict"], "cells": [str(c) for c in cells]})
    return rows
