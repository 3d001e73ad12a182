"""``judge measure`` against a plain timing of the same library call, in the same process.

Run: python benchmarks/measure_reference.py [--out DIR] [--sizes 4:28] [--kernel add_elementwise_cuda]

For the kernel's CUDA contract (default: the F32 add) this runs ``judge.measure`` on torch-cuda
and cupy (CUDA events, fitted model, copy roofline) after a warm-up that brings the GPU to its
working clocks, and pairs every size the Judge times with a plain timing of the library call
itself (torch.add / cupy.add on two contiguous F32 arrays; each sample bracketed by CUDA events
after a synchronize, warmed up, median of REPS), taken right before and right after the Judge
times that size. A launch-bound call on a shared host drifts by tens of percent over seconds;
timed this way, both sides see the same drift, and the plain timing's before/after spread says
how large it was. Both sides are fitted by the Judge's own ``fit_cost`` (weights 1/t).
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


class Paired:
    """Wraps the Judge's per-size timing: the plain call is timed before and after each size."""

    def __init__(self, device: str) -> None:
        self.device = device
        self.plain: dict[tuple[str, int], tuple[float, float]] = {}

    def install(self):
        import judge.measure.run as run

        inner = run.time_size

        def paired(timed, n, policy):
            lib = "cupy" if type(timed).__name__ == "CupyCall" else "torch"
            before = self.plain_median(lib, n)
            sample = inner(timed, n, policy)
            self.plain[lib, n] = (before, self.plain_median(lib, n))
            return sample

        run.time_size = paired

    def plain_median(self, lib: str, n: int) -> float:
        a, b, add, _, _ = arrays(lib, self.device, n)
        return median_ns(event_timer(lib, self.device), lambda: add(a, b))


def reference(paired: Paired, lib: str, device: str, sizes: list[int]) -> dict:
    """The plain timings paired with the Judge's sizes, fitted like the Judge's, and a device
    copy of the largest size's bytes timed the same way."""
    from judge.measure.fit import fit_cost

    before = [paired.plain[lib, n][0] for n in sizes]
    after = [paired.plain[lib, n][1] for n in sizes]
    t = [(x + y) / 2 for x, y in zip(before, after, strict=True)]
    work = [3 * 4 * n for n in sizes]
    fit, fit_before, fit_after = fit_cost(work, t), fit_cost(work, before), fit_cost(work, after)
    timed = event_timer(lib, device)
    src, dst_like, copy = arrays(lib, device, sizes[-1])[0], arrays(lib, device, 1)[4], arrays(lib, device, 1)[3]
    dst = dst_like(src)
    copy_ns = median_ns(timed, lambda: copy(dst, src))
    return {
        "sizes": sizes, "median_ns": t, "overhead_ns": fit.overhead_ns, "rate_B_per_s": fit.rate,
        "largest_B_per_s": work[-1] / t[-1] * 1e9, "copy_B_per_s": 2 * 4 * sizes[-1] / copy_ns * 1e9,
        "before": {"median_ns": before, "overhead_ns": fit_before.overhead_ns},
        "after": {"median_ns": after, "overhead_ns": fit_after.overhead_ns},
        "reference_spread": max(abs(x / y - 1) for x, y in zip(before, after, strict=True)),
        "overhead_spread": abs(fit_before.overhead_ns / fit_after.overhead_ns - 1),
    }


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
    for lib in set(libs.values()):
        warm_up(lib, device)
    paired = Paired(device)
    paired.install()
    run = measure([contract], backends, MeasureOptions(log2=(lo, hi), item_budget_s=120,
                                                       dtypes=("F32",)))
    out = Path(args.out)
    write_measured_cost(run, out)
    report = {}
    for entry in run.entries:
        lib = libs[entry.backend.name]
        points = [p.sample.n for p in entry.points]
        ref = reference(paired, lib, device, points)
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
