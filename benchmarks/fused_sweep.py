"""The fused F32 sweep against the array passes, on a CUDA device: same verdict, rate end to end.

    python3 benchmarks/fused_sweep.py [--kernels exp,log,...] [--backends torch-cuda,cupy]
                                      [--chunks N] [--out DIR]

For each kernel of the embedded suite's reference contracts and each backend, sweeps every F32
input (or the first N chunks of 2^28) twice: through the array passes (``fused=False``) and
through the fused kernel (``judge.sweep.fused``). It prints, per sweep, inputs/s end to end of
both, the natural kernel's own elements/s (``f32_kernel_throughput.kernel_throughput``) and
whether the two sweeps agree on every column of the result row and every metric (times aside):
verdict, counts, histogram, worst cases and messages. Exit 1 on any disagreement. ``--out``
writes fused-sweep.json and fused-sweep.md there. The rates are steady-state: each kernel is
first swept untimed on one chunk of 2^16 inputs through both paths, so NVRTC's compile of the
fused kernel and the first launches are not in the figure of whichever backend comes first
(``--cold`` keeps them in).

    python3 benchmarks/fused_sweep.py --pairs [--kernels add,sub,mul,div,pow,maximum,minimum,rem]
                                      [--dtypes F16,BF16]
                                      [--backends torch-cuda,cupy] [--chunks N] [--array-chunks M]

does the same for the 16-bit pair sweeps (``judge sweep --pairs``) of the embedded suite's CUDA
binary contracts. The fused pair kernel (``judge.sweep.fused_pairs``; on numpy or torch-cpu its C
twin) sweeps every (x, y) pair (or the first N chunks of 2^24) for the verdict and the rate. The
array passes build their reference on the host at a few million pairs/s (about 13 minutes for
2^32 pairs), so they sweep only M chunks spread over the range (default 4, 2^26 pairs: x's zeros
and subnormals, its negative NaNs and two chunks between), and the fused kernel sweeps the same M
chunks again: the two are compared there on the row, the metrics and the exponent grids of where
the errors sit. ``--array-chunks 256`` compares every pair.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

TIMES = {"seconds", "started_at", "finished_at"}
TIMED_METRICS = {"adapter_s", "reference_s", "settle_s", "inputs_per_s", "wall_s", "scoring_s", "pairs_per_s",
                 "full_estimate_s"}


def _differences(a, b) -> list[str]:
    ra, rb = a.row.as_dict(), b.row.as_dict()
    out = [f"row {k}: {ra[k]!r} != {rb[k]!r}" for k in ra if k not in TIMES and ra[k] != rb.get(k)]
    out += [f"metric {k}: {a.metrics[k]!r} != {b.metrics.get(k)!r}" for k in a.metrics
            if k not in TIMED_METRICS and a.metrics[k] != b.metrics.get(k)]
    if a.message != b.message:
        out.append(f"message: {a.message!r} != {b.message!r}")
    return out


def _both_ways(sweep, cold: bool, warm: dict, **kw):
    """(array passes, fused) results of ``sweep(fused=..., **kw)``, each timed as ``wall_s``;
    unless ``cold``, both paths first sweep untimed with ``warm`` over ``kw`` (one small chunk:
    the fused kernel's compile and the first launches)."""
    for fused in () if cold else (False, True):
        sweep(fused=fused, **{**kw, **warm})
    return _timed(sweep, fused=False, **kw), _timed(sweep, fused=True, **kw)


def _timed(sweep, **kw):
    """``sweep(**kw)`` with its wall time as the metric ``wall_s``."""
    t = time.perf_counter()
    run = sweep(**kw)
    run.metrics["wall_s"] = time.perf_counter() - t
    return run


def _pair_differences(a, b) -> list[str]:
    out = _differences(a, b)
    for grid in ("off", "worst"):
        ga, gb = getattr(a, grid), getattr(b, grid)
        if (ga is None) != (gb is None) or (ga is not None and not (ga == gb).all()):
            out.append(f"exponent grid {grid} differs")
    return out


def _spread(total: int, m: int) -> list[int]:
    """``m`` chunk numbers spread evenly over ``0 .. total - 1``, both ends included: with the
    2^24-pair chunks of a 16-bit format, x's zeros and subnormals in the first, its negative NaNs
    in the last."""
    m = max(1, min(m, total))
    return sorted({round(i * (total - 1) / max(m - 1, 1)) for i in range(m)})


def pairs_main(args, suite, backends, expectations) -> int:
    from judge.sweep.pairs import PAIRS, pair_support, sweep_pairs

    chunks = list(range(args.chunks or PAIRS >> 24))  # sweep_pairs' default chunks of 2^24 pairs
    compared = _spread(len(chunks), args.array_chunks)
    records, bad, rate = [], 0, "pairs_per_s"
    print(f"array passes and fused kernel compared on {len(compared)} chunk(s) of 2^24 pairs (x from "
          f"{', '.join(f'0x{c:02X}00' for c in compared)}); "
          f"the verdict and the fused rate are over {'every pair' if not args.chunks else f'{len(chunks)} chunk(s)'}")
    print("| kernel | backend | dtype | verdict | worst ulp | at (x, y) | failing elements per check "
          "| array passes pairs/s | fused pairs/s | fused wall s | speed-up | same result |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.kernels.split(","):
        for bname in args.backends.split(","):
            backend = backends[bname]
            (contract,) = suite.find(f"{name}_elementwise_{backend.device}")  # on the CPU: the C twin
            for dtype in args.dtypes.split(","):
                ok = pair_support(contract, backend, dtype)
                if ok is not True:
                    print(f"| {name} | {bname} | {dtype} | not swept: {ok} ||||||||")
                    continue
                sweep = partial(sweep_pairs, contract, backend, dtype, expectations=expectations)
                a, fa = _both_ways(sweep, args.cold, {"chunk_log2": 16, "chunks": [0x3C00]}, chunks=compared)
                diff = _pair_differences(a, fa)
                f = fa if chunks == compared else _timed(sweep, fused=True, chunks=chunks)
                bad += bool(diff)
                records.append({"kernel": name, "backend": bname, "dtype": dtype, "verdict": f.row.verdict,
                                "ulp_max": f.row.ulp_max, "pairs": f.row.cases, "compared_pairs": a.row.cases,
                                "array_pairs_per_s": a.metrics[rate], "fused_pairs_per_s": f.metrics[rate],
                                "array_seconds": a.row.seconds, "fused_seconds": f.row.seconds,
                                "worst": f.metrics.get("worst"), "checks": f.metrics.get("checks"),
                                "differences": diff, "notes": f.notes})
                checks = "; ".join(f"{k} {v:,}" for k, v in f.metrics.get("checks", {}).items()) or "none"
                print(f"| {name} | {bname} | {dtype} | {f.row.verdict} | {f.row.ulp_max:g} "
                      f"| {f.metrics.get('worst_ulp_input') or '-'} | {checks} "
                      f"| {a.metrics[rate]:.3g} | {f.metrics[rate]:.3g} | {f.row.seconds:.2f} "
                      f"| {f.metrics[rate] / a.metrics[rate]:.1f}x | {'yes' if not diff else 'NO'} |", flush=True)
                for line in diff:
                    print(f"    differs: {line}", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "fused-pairs.json").write_text(json.dumps(records, indent=2, default=str))
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default=None, help="default exp,log,sin,cos,tanh,erf,sqrt "
                        "(with --pairs: add,sub,mul,div,pow,maximum,minimum,rem)")
    parser.add_argument("--backends", default="torch-cuda")
    parser.add_argument("--pairs", action="store_true", help="the 16-bit pair sweeps instead of F32")
    parser.add_argument("--dtypes", default="F16,BF16", help="with --pairs")
    parser.add_argument("--chunks", type=int, default=None,
                        help="only the first N chunks (of 2^28 inputs, or of 2^24 pairs)")
    parser.add_argument("--array-chunks", type=int, default=4,
                        help="with --pairs: the array passes sweep, and the two paths are compared on, "
                             "M chunks of 2^24 pairs spread over the range (default 4; 256 is every pair)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--cold", action="store_true", help="no untimed warm-up sweep before each kernel")
    args = parser.parse_args()
    if args.kernels is None:
        args.kernels = "add,sub,mul,div,pow,maximum,minimum,rem" if args.pairs else "exp,log,sin,cos,tanh,erf,sqrt"

    from f32_kernel_throughput import kernel_throughput

    from judge.contracts import default_suite_path
    from judge.expectations import load_expectations
    from judge.registry import default_registry
    from judge.suite import load_paths
    from judge.sweep import gpu_f32

    suite = load_paths([default_suite_path()])
    backends = default_registry().load_all(()).backends
    expectations = load_expectations()
    if args.pairs:
        return pairs_main(args, suite, backends, expectations)
    chunks = list(range(args.chunks)) if args.chunks else None
    records, bad = [], 0
    print("| kernel | backend | verdict | worst ulp | array passes inputs/s | fused inputs/s | speed-up "
          "| natural kernel elements/s | settled | same result |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.kernels.split(","):
        (contract,) = [c for c in suite.find(name) if c.backend == "Cpu" and "reference" in c.file]
        for bname in args.backends.split(","):
            backend = backends[bname]
            a, f = _both_ways(partial(gpu_f32.sweep_f32, contract, backend), args.cold,
                              {"chunk_log2": 16, "chunks": [0x3F80]}, chunks=chunks, expectations=expectations,
                              log=lambda msg: None)
            diff = _differences(a, f)
            bad += bool(diff)
            library = "cupy" if bname.startswith("cupy") else "torch"
            natural = kernel_throughput(library, name)
            rec = {"kernel": name, "backend": bname, "verdict": f.row.verdict, "ulp_max": f.row.ulp_max,
                   "inputs": f.row.cases, "array_inputs_per_s": a.metrics["inputs_per_s"],
                   "fused_inputs_per_s": f.metrics["inputs_per_s"], "fused_seconds": f.row.seconds,
                   "array_seconds": a.row.seconds, "fused_times": {k: f.metrics[k] for k in TIMED_METRICS if k in f.metrics},
                   "natural_elems_per_s": natural["kernel_elems_per_s"], "settled": f.metrics["settled"],
                   "settled_changed": f.metrics["settled_changed"], "worst": f.metrics["worst"],
                   "differences": diff, "notes": f.notes}
            records.append(rec)
            print(f"| {name} | {bname} | {f.row.verdict} | {f.row.ulp_max:g} | {a.metrics['inputs_per_s']:.3g} "
                  f"| {f.metrics['inputs_per_s']:.3g} | {f.metrics['inputs_per_s'] / a.metrics['inputs_per_s']:.1f}x "
                  f"| {natural['kernel_elems_per_s']:.3g} | {f.metrics['settled']} "
                  f"| {'yes' if not diff else 'NO'} |", flush=True)
            for line in diff:
                print(f"    differs: {line}", flush=True)
            print(f"    {f.metrics['worst']}; fused times {rec['fused_times']}", flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "fused-sweep.json").write_text(json.dumps(records, indent=2, default=str))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
