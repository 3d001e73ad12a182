"""``judge measure`` against a plain timing of the same library call, in the same process.

Run: python benchmarks/measure_reference.py [--out DIR] [--sizes 4:28] [--kernel add_elementwise_cuda]

For the kernel's CUDA contract (default: the F32 add) this measures, after a warm-up that
brings the GPU to its working clocks:
  1. the reference: the library call itself (torch.add / cupy.add on two contiguous F32 arrays),
     each sample bracketed by CUDA events after a synchronize, warmed up, median of REPS; its
     model fitted by ``numpy.polyfit`` with weights 1/t; a device copy timed the same way;
  2. the Judge: ``judge.measure`` on torch-cuda and cupy (CUDA events, fitted model, copy roofline);
  3. the reference again. The Judge is compared with the mean of the two reference timings,
     taken on either side of it, so a drift of the device between phases shows as the spread of
     the two (``reference_spread``) instead of as a disagreement.
Then it prints, per backend, both overheads and rates, the rate at the largest size as a
fraction of the copy, and the largest per-size disagreement of the medians, and writes
``reference.json`` and the Judge's ``measured-cost.json`` under --out. With ``--cpu`` it does
the same with torch-cpu on the host clock (a dry run where no GPU is present).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

REPS = 50
WARMUP = 10
REFERENCE_CALLS = {"AddElementwise": ("add",), "MulElementwise": ("mul",)}


def event_timer(lib: str, device: str):
    """A function timing one call of ``fn`` (ns), from an idle device to its completion."""
    if lib == "torch" and device == "cuda":
        import torch

        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        def timed(fn) -> float:
            torch.cuda.synchronize()
            start.record()
            fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) * 1e6
        return timed
    if lib == "cupy":
        import cupy

        start, end = cupy.cuda.Event(), cupy.cuda.Event()

        def timed(fn) -> float:
            cupy.cuda.Device().synchronize()
            start.record()
            fn()
            end.record()
            end.synchronize()
            return cupy.cuda.get_elapsed_time(start, end) * 1e6
        return timed

    def timed(fn) -> float:
        t0 = time.perf_counter_ns()
        fn()
        return float(time.perf_counter_ns() - t0)
    return timed


def arrays(lib: str, device: str, n: int):
    if lib == "torch":
        import torch

        a = torch.rand(n, dtype=torch.float32, device=device) + 0.5
        b = torch.rand(n, dtype=torch.float32, device=device) + 0.5
        return a, b, torch.add, (lambda dst, src: dst.copy_(src)), torch.empty_like
    import cupy

    a = cupy.random.random(n, dtype=cupy.float32) + 0.5
    b = cupy.random.random(n, dtype=cupy.float32) + 0.5
    return a, b, cupy.add, (lambda dst, src: dst.__setitem__(Ellipsis, src)), cupy.empty_like


def median_ns(timed, fn) -> float:
    for _ in range(WARMUP):
        timed(fn)
    return statistics.median(timed(fn) for _ in range(REPS))


def warm_up(lib: str, device: str, seconds: float = 2.0) -> None:
    """Busy the device for a while, so both phases run at its working clocks."""
    if device != "cuda":
        return
    timed = event_timer(lib, device)
    a, b, add, _, _ = arrays(lib, device, 1 << 26)
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        timed(lambda: add(a, b))


def averaged(first: dict, second: dict) -> dict:
    """The two reference timings' mean per size, refitted; their spread alongside."""
    sizes = first["sizes"]
    t = np.array([(x + y) / 2 for x, y in zip(first["median_ns"], second["median_ns"], strict=True)])
    work = np.array([3 * 4 * n for n in sizes], dtype=np.float64)
    slope, intercept = np.polyfit(work, t, 1, w=1 / t)
    spread = max(abs(x / y - 1) for x, y in zip(first["median_ns"], second["median_ns"], strict=True))
    return {
        **first, "median_ns": t.tolist(), "overhead_ns": float(intercept),
        "rate_B_per_s": float(1e9 / slope), "largest_B_per_s": float(work[-1] / t[-1] * 1e9),
        "copy_B_per_s": (first["copy_B_per_s"] + second["copy_B_per_s"]) / 2,
        "before": first, "after": second, "reference_spread": spread,
        "overhead_spread": abs(first["overhead_ns"] / second["overhead_ns"] - 1),
    }


def reference(lib: str, device: str, sizes: list[int]) -> dict:
    """Plain event timing of ``lib``'s add at each size, fitted by numpy.polyfit (1/t weights)."""
    timed = event_timer(lib, device)
    times = []
    for n in sizes:
        a, b, add, _, _ = arrays(lib, device, n)
        times.append(median_ns(timed, lambda a=a, b=b, add=add: add(a, b)))
        del a, b
    work = np.array([3 * 4 * n for n in sizes], dtype=np.float64)
    t = np.array(times)
    slope, intercept = np.polyfit(work, t, 1, w=1 / t)
    n = sizes[-1]
    src, dst_like = arrays(lib, device, n)[0], arrays(lib, device, 1)[4]
    dst = dst_like(src)
    copy = arrays(lib, device, 1)[3]
    copy_ns = median_ns(timed, lambda: copy(dst, src))
    return {
        "sizes": sizes, "median_ns": times, "overhead_ns": float(intercept),
        "rate_B_per_s": float(1e9 / slope), "largest_B_per_s": float(work[-1] / t[-1] * 1e9),
        "copy_B_per_s": float(2 * 4 * n / copy_ns * 1e9),
    }


def _at(ref: dict, sizes: list[int]) -> dict:
    """``ref`` restricted to the sizes the Judge measured (refitted if it measured fewer)."""
    if list(ref["sizes"]) == list(sizes):
        return ref
    keep = [ref["sizes"].index(n) for n in sizes]
    t = np.array([ref["median_ns"][i] for i in keep])
    work = np.array([3 * 4 * n for n in sizes], dtype=np.float64)
    slope, intercept = np.polyfit(work, t, 1, w=1 / t) if len(sizes) > 1 else (t[0] / work[0], 0.0)
    return {**ref, "sizes": sizes, "median_ns": t.tolist(), "overhead_ns": float(intercept),
            "rate_B_per_s": float(1e9 / slope), "largest_B_per_s": float(work[-1] / t[-1] * 1e9)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="measure-reference")
    parser.add_argument("--sizes", default="4:28")
    parser.add_argument("--kernel", default="add_elementwise_cuda")
    parser.add_argument("--cpu", action="store_true", help="torch-cpu on the host clock")
    args = parser.parse_args()

    from judge.contracts import default_suite_path
    from judge.measure.output import write_measured_cost
    from judge.measure.run import MeasureOptions, measure
    from judge.measure.sizes import parse_log2_range, size_range
    from judge.registry import default_registry
    from judge.suite import load_paths

    lo, hi = parse_log2_range(args.sizes)
    sizes = size_range(lo, hi)
    kernel = args.kernel.replace("_cuda", "_cpu") if args.cpu else args.kernel
    (contract,) = [c for c in load_paths([Path(default_suite_path())]).contracts
                   if c.kernel == kernel]
    registry = default_registry().load_all()
    names = ("torch-cpu",) if args.cpu else ("torch-cuda", "cupy")
    backends = [registry.backends[name] for name in names]
    device = "cpu" if args.cpu else "cuda"
    libs = {name: "torch" if name.startswith("torch") else "cupy" for name in names}
    sizes_of = size_range(lo, hi)
    for lib in set(libs.values()):
        warm_up(lib, device)
    before = {name: reference(libs[name], device, sizes_of) for name in names}
    run = measure([contract], backends, MeasureOptions(log2=(lo, hi), item_budget_s=120,
                                                       dtypes=("F32",)))
    out = Path(args.out)
    write_measured_cost(run, out)
    report = {}
    for entry in run.entries:
        lib = libs[entry.backend.name]
        points = [p.sample.n for p in entry.points]
        ref = averaged(_at(before[entry.backend.name], points), reference(lib, device, points))
        judge_medians = [p.sample.median_ns for p in entry.points]
        ratios = [j / r for j, r in zip(judge_medians, ref["median_ns"], strict=True)]
        roof = run.rooflines[entry.backend.name]
        top = entry.points[-1]
        row = {
            "backend": entry.backend.name, "describe": entry.backend.describe(),
            "judge": {
                "overhead_ns": entry.fit.overhead_ns, "rate_B_per_s": entry.fit.rate,
                "largest_B_per_s": top.work / top.sample.median_ns * 1e9,
                "copy_B_per_s": roof.rate_at(top.work), "roofline_fraction": entry.roofline_fraction,
                "fit_rms_rel": entry.fit.rms_rel, "median_ns": judge_medians,
                "device_bytes": top.device_bytes, "findings": entry.findings,
            },
            "reference": ref,
            "median_ratio": ratios,
            "largest_ratio": ratios[-1],
            "worst_ratio_work_bound": max(
                (abs(r - 1) for r, p in zip(ratios, entry.points, strict=True)
                 if entry.fit.ns_per_unit * p.work >= entry.fit.overhead_ns), default=None),
        }
        report[entry.backend.name] = row
        j, r = row["judge"], row["reference"]
        print(f"{entry.backend.name} {contract.kernel} F32, n = 2^{lo}..2^{hi} ({entry.backend.describe()})")
        print(f"  judge:     overhead {j['overhead_ns'] / 1e3:7.2f} us  rate {j['rate_B_per_s'] / 1e12:6.3f} TB/s"
              f"  at 2^{hi}: {j['largest_B_per_s'] / 1e12:6.3f} TB/s  copy {j['copy_B_per_s'] / 1e12:6.3f} TB/s (same bytes)"
              f"  fraction {j['roofline_fraction']:.0%}  fit rms {j['fit_rms_rel']:.1%}")
        print(f"  reference: overhead {r['overhead_ns'] / 1e3:7.2f} us  rate {r['rate_B_per_s'] / 1e12:6.3f} TB/s"
              f"  at 2^{hi}: {r['largest_B_per_s'] / 1e12:6.3f} TB/s  copy {r['copy_B_per_s'] / 1e12:6.3f} TB/s")
        print(f"  judge/reference: overhead {j['overhead_ns'] / r['overhead_ns']:.3f}, rate "
              f"{j['rate_B_per_s'] / r['rate_B_per_s']:.3f}, median at 2^{hi} {ratios[-1]:.3f}, "
              f"median per size {min(ratios):.3f}..{max(ratios):.3f}")
        print(f"  reference before/after the Judge: per-size spread {r['reference_spread']:.1%}, "
              f"overhead {r['before']['overhead_ns'] / 1e3:.2f} / {r['after']['overhead_ns'] / 1e3:.2f} us")
        print(f"  device bytes per call at 2^{hi}: {j['device_bytes']} (contract: n * dtype_bytes = "
              f"{4 * sizes[-1]})")
    (out / "reference.json").write_text(json.dumps(report, indent=1, default=float))


if __name__ == "__main__":
    main()
