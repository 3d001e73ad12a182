"""Throughput of the natural F32 kernels alone, beside the exhaustive F32 sweeps that judged them.

``python3 benchmarks/f32_kernel_throughput.py DIR`` reads ``DIR/f32-sweep.json`` (written by
``judge sweep --dtype F32 --out DIR``, as scripts/gpu-sweep-f32.sh runs it), times each swept
library's own kernel (``torch.exp``, ``cupy.exp``, ...) on 2^28 device-resident inputs, and adds
what it measured to each sweep's metrics: the report's table of F32 sweeps then shows the
natural kernel's elements/s beside the sweep's inputs/s end to end. Needs a CUDA device.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

H200_BANDWIDTH = 4.8e12  # bytes/s, HBM3e peak of one H200


def kernel_throughput(library: str, name: str, n_log2: int = 28, reps: int = 10) -> dict:
    """Time ``library``'s F32 kernel ``name`` on device-resident data (no host copies)."""
    import torch

    n = 1 << n_log2
    x = torch.arange(0, n, dtype=torch.int64, device="cuda").to(torch.int32)
    x = (x & 0x3FFFFFFF).view(torch.float32)  # finite, positive inputs (log needs them)
    if library == "cupy":
        import cupy

        xs = cupy.from_dlpack(x)
        if name == "erf":
            from cupyx.scipy.special import erf as fn
        else:
            fn = getattr(cupy, name)

        def run():
            return fn(xs)
    else:
        fn = getattr(torch, name)

        def run():
            return fn(x)
    run()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        run()
    stop.record()
    torch.cuda.synchronize()
    seconds = start.elapsed_time(stop) / 1000 / reps
    return {"kernel_call": f"{library}.{name}", "kernel_seconds": seconds,
            "kernel_elems_per_s": n / seconds, "kernel_bytes_per_s": 8 * n / seconds}


def annotate(out: Path) -> list[str]:
    """Add the natural kernels' throughput to every CUDA sweep of ``out``; rewrite its outputs."""
    import oracles

    sweeps = json.loads((out / "f32-sweep.json").read_text())
    measured: dict[tuple[str, str], dict] = {}
    lines = []
    for sweep in sweeps:
        row = sweep["row"]
        if row["device"] != "cuda":
            continue
        library = "cupy" if row["backend"].startswith("cupy") else "torch"
        name = oracles.get(row["op_kind"]).f64_reference[0]
        if (library, name) not in measured:
            measured[library, name] = kernel_throughput(library, name)
        m = measured[library, name]
        sweep["metrics"].update(m)
        lines.append(f"{row['kernel']}[{row['backend']}-F32]: natural kernel alone on device-resident "
                     f"data ({m['kernel_call']}): {m['kernel_elems_per_s']:.3g} elements/s, "
                     f"{m['kernel_bytes_per_s'] / 1e12:.2f} TB/s moved (8 B/element) = "
                     f"{100 * m['kernel_bytes_per_s'] / H200_BANDWIDTH:.0f}% of the H200's ~4.8 TB/s")
    (out / "f32-sweep.json").write_text(json.dumps(sweeps, indent=2, default=str))
    _rewrite_report(out, sweeps)
    return lines


def _rewrite_report(out: Path, sweeps: list[dict]) -> None:
    from judge.merge import load_run
    from judge.reports import write_audit
    from judge.reports.f32_sweeps import FILE, sweep_record, write_sweeps
    from judge.results import ResultRow

    write_sweeps([sweep_record(ResultRow(**s["row"]), s["metrics"], s["notes"]) for s in sweeps], out / FILE)
    if (out / "results.json").is_file():
        write_audit(load_run(out), out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the --out folder of an F32 sweep")
    args = parser.parse_args(argv)
    for line in annotate(args.folder):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
