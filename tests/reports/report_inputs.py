"""The optional inputs of report.html for the report tests: a measured-cost.json document and
F32 sweep records, made the way their writers make them."""

from __future__ import annotations


def measured_cost_doc() -> dict:
    """A small measured-cost.json document (two CPU backends, one kernel in two dtypes, one
    item that could not be measured), valid against ``judge.measure.schema``."""
    def sizes(overhead_ns: float, per_elem_ns: float) -> list[dict]:
        out = []
        for k in range(4, 11):
            n = 2**k
            t = overhead_ns + per_elem_ns * n
            out.append({"n": n, "work": 8.0 * n, "reps": 5, "stable": True, "median_ns": t,
                        "q1_ns": 0.95 * t, "q3_ns": 1.05 * t, "min_ns": 0.9 * t, "spread": 0.1,
                        "host_bytes": 4 * n, "device_bytes": None})
        return out

    def entry(backend: str, dtype: str, overhead: float, per: float, **kw) -> dict:
        base = {
            "kernel": "synthetic_neg", "file": "suite/c.fkc.md", "revision": "rev-1",
            "backend": backend, "device": "cpu", "dtype": dtype, "status": "measured",
            "reason": "", "work": "bytes_moved", "work_expr": "2 * n * dtype_bytes", "unit": "B",
            "clock": "perf_counter_ns", "overhead_ns": overhead, "ns_per_unit": per / 8,
            "rate_per_s": 8e9 / per, "largest_rate_per_s": 7e9 / per, "fit_rms_rel": 0.01,
            "roofline_fraction": 0.5, "truncated": None, "sizes": sizes(overhead, per),
            "memory": [{"tier": "host_bytes", "promised_bytes": 4096, "measured_bytes": 4096,
                        "method": "tracemalloc", "verdict": "as_promised"}],
            "findings": [f"{backend} reaches half the copy"],
        }
        base.update(kw)
        return base

    def device(backend: str) -> dict:
        copy = [{"bytes": 2**k, "median_ns": 1000 + 0.05 * 2**k, "q1_ns": 990, "q3_ns": 1010,
                 "reps": 5, "stable": True} for k in range(8, 16)]
        roof = {"source": "numpy.copyto", "clock": "perf_counter_ns", "bytes_per_s": 2e10,
                "best_bytes_per_s": 2.1e10, "largest_bytes_per_s": 1.9e10, "overhead_ns": 1000.0,
                "sizes": copy}
        return {"backend": backend, "device_class": "cpu", "describe": f"{backend} on the host",
                "roofline": roof}

    entries = [entry("known-a", "F32", 200_000, 100), entry("known-a", "F64", 210_000, 110),
               entry("known-b", "F32", 300_000, 50),
               entry("known-b", "F64", 1, 1, status="error", overhead_ns=None, ns_per_unit=None,
                     rate_per_s=None, largest_rate_per_s=None, fit_rms_rel=None,
                     roofline_fraction=None, sizes=[], memory=[], findings=[],
                     reason="adapter raised RuntimeError: out of memory")]
    costs = {"rev-1": {f"{e['backend']}@{e['backend']} on the host": {e["dtype"]: {
        "kernel": e["kernel"], "overhead_ns": e["overhead_ns"], "work": e["work"],
        "work_expr": e["work_expr"], "ns_per_unit": e["ns_per_unit"],
        "rate_per_s": e["rate_per_s"], "largest_rate_per_s": e["largest_rate_per_s"],
        "fit_rms_rel": e["fit_rms_rel"], "roofline_fraction": e["roofline_fraction"],
        "sizes": [16, 1024]}} for e in entries if e["status"] == "measured"}}
    return {"format": "judge-measured-cost/1", "judge_version": "0.1.0",
            "started_at": "2026-12-02T11:00:00Z", "seconds": 3.0, "platform": "Linux-x86_64",
            "python": "3.11", "libraries": {"numpy": "2.0"}, "options": {"log2_sizes": [4, 10]},
            "unavailable": {}, "devices": {f"{b}@{b} on the host": device(b)
                                           for b in ("known-a", "known-b")},
            "costs": costs, "entries": entries}


def f32_sweep_records() -> list[dict]:
    """Two rows of f32-sweeps.json, made by the writer's own ``sweep_record``."""
    from types import SimpleNamespace

    from judge.reports.f32_sweeps import sweep_record

    records = []
    for backend, verdict, worst in (("cupy", "pass", 1.0), ("torch-cuda", "fail", 3.0)):
        row = SimpleNamespace(kernel="exp_f32", file="suites/fuel/exp.fkc.md",
                              op_kind="ExpElementwise", backend=backend, verdict=verdict,
                              cases=2**32, ulp_max=worst, ulp_real_max=worst - 0.4,
                              bound_ulp=1.0, seconds=12.5)
        metrics = {"worst": "0x3f800001", "over_bound": 0 if verdict == "pass" else 17,
                   "worst_ulp_input": "0x42b17218", "worst_real_input": "0x42b17217",
                   "inputs_per_s": 3.4e8, "kernel_elems_per_s": 9.1e9}
        records.append(sweep_record(row, metrics, ["device-resident"]))
    return records
