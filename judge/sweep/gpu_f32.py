"""Exhaustive F32 sweeps (all 2^32 inputs) of unary kernels on a CUDA device.

The kernel under test runs through its backend adapter's ``run`` on ``KernelCall``s of 2^k
inputs (k = 28 by default: 16 calls), with poison-filled outputs. The reference is computed on
the GPU in F64 and certified before it is trusted:

*Why an F64 result may stand in for the exact value.* CUDA documents the maximum error of its
double-precision functions (CUDA C++ Programming Guide, "Mathematical Functions"): exp, log and
tanh within 1 ulp, sin, cos and erf within 2 ulp, sqrt correctly rounded. An F32 ulp is 2^29 F64
ulps. Let ``r`` be the F64 result and ``m`` the F32 rounding boundary (midpoint between two
adjacent F32 values, or the overflow threshold) nearest to it. When |r − m| exceeds
``MARGIN_F64_ULPS`` = 16 F64 ulps of r (eight times the largest documented error), the exact
value lies on the same side of every boundary as r, so rounding r to F32 gives the correctly
rounded result. Elements closer than that (a few hundred of 2^32 per function, one chance in
2^24) are *settled*: their inputs go to the pure oracle on the CPU, whose answer replaces the
F64-derived one. A random sample of every chunk is also checked against the pure oracle, so a
reference that breaks its documented bound shows up as a certification error, not as a verdict.

Scoring applies the contract's bound to the integer ULP distance against the correctly rounded
result: NaN-ness must match, ±inf must match wherever either side is infinite, and the ULP-real
error is |observed − r| / ulp_F32(r) (r approximates the exact value to 2^-52, far below the
three reported decimals). Repeat determinism is checked on the first chunk.

Run as ``python -m judge.sweep.gpu_f32`` (see scripts/gpu-sweep-f32.sh) or through
``judge sweep --dtype F32 --backend torch-cuda``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judge.api import KernelCall, TensorArg
from judge.results import ResultRow
from judge.sweep.resident import resident_call, takes_device_arrays

# OpKind -> (torch function evaluated in F64 as the reference, CUDA's documented F64 max ulp)
REFERENCES = {
    "ExpElementwise": ("exp", 1),
    "LogElementwise": ("log", 1),
    "SinElementwise": ("sin", 2),
    "CosElementwise": ("cos", 2),
    "TanhElementwise": ("tanh", 1),
    "ErfElementwise": ("erf", 2),
    "SqrtElementwise": ("sqrt", 0),
}
MARGIN_F64_ULPS = 16
CROSS_CHECK_PER_CHUNK = 64
POISON_F32 = 0x7FE5A5A5
QUIET_F32 = 1 << 22
H200_BANDWIDTH = 4.8e12  # bytes/s, HBM3e peak of one H200
HIST_BINS = 4096  # ULP distances counted exactly up to this; larger ones share the last bin


@dataclass
class F32Sweep:
    row: ResultRow
    metrics: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        r, m = self.row, self.metrics
        label = f"{r.file}::{r.kernel}[{r.backend}-F32]"
        what = "every F32 bit pattern" if r.cases == 1 << 32 else "a subset of the F32 bit patterns"
        lines = [
            f"{label}: {r.cases:,} inputs ({what}): {r.verdict.upper()}"
            + (f" ({r.reason})" if r.reason else ""),
            f"  {m.get('worst', '')}",
            f"  ulp max {r.ulp_max:g} (bound {r.bound_ulp}), p99 {r.ulp_p99:g}, ulp-real max "
            f"{r.ulp_real_max}; mismatches: NaN {r.nan_mismatch}, inf {r.inf_mismatch}, signed "
            f"zero {r.signed_zero_mismatch}, implausible {r.implausible}; over bound "
            f"{m.get('over_bound', 0):,}",
            f"  reference: {m.get('settled', 0)} element(s) within {MARGIN_F64_ULPS} F64 ulps of an "
            f"F32 rounding boundary settled by the pure oracle ({m.get('settled_changed', 0)} of "
            f"them changed the F64-derived answer); {m.get('cross_checked', 0)} sampled elements "
            f"agree with the pure oracle",
            f"  time {r.seconds:.1f} s: {m.get('inputs_per_s', 0):.3g} inputs/s end to end "
            f"(adapter calls {m.get('adapter_s', 0):.1f} s, reference+scoring "
            f"{m.get('reference_s', 0):.1f} s, settling {m.get('settle_s', 0):.1f} s)",
        ]
        if "kernel_bytes_per_s" in m:
            lines.append(
                f"  natural kernel alone on device-resident data ({m['kernel_call']}): "
                f"{m['kernel_elems_per_s']:.3g} elements/s, {m['kernel_bytes_per_s'] / 1e12:.2f} TB/s "
                f"moved (8 B/element) = {100 * m['kernel_bytes_per_s'] / H200_BANDWIDTH:.0f}% of "
                f"the H200's ~4.8 TB/s")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


# --- support --------------------------------------------------------------------------------------


def sweep_support(contract, backend, *, cross: bool = False) -> bool | str:
    if backend.device not in ("cuda", "vulkan"):
        return (f"an exhaustive F32 sweep runs on a GPU backend (its reference on CUDA); "
                f"{backend.name} is {backend.device}")
    if contract.op_kind not in REFERENCES:
        return (f"{contract.op_kind} has no certified F64 reference here (covered: "
                f"{', '.join(sorted(REFERENCES))})")
    if "F32" not in contract.dtype_fan:
        return f"{contract.kernel} does not accept F32"
    if contract.device != "cuda" and not cross:
        return (f"{contract.kernel} is a {contract.device} contract; pass --cross to judge "
                f"{backend.name} against it")
    try:
        import torch
    except ImportError:
        return "the F64 reference needs torch with CUDA"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device for the F64 reference"
    try:
        ok = backend.supports(contract, ("F32",))
    except Exception as exc:  # noqa: BLE001
        ok = f"supports() raised {type(exc).__name__}: {exc}"
    return ok


# --- the reference -----------------------------------------------------------------------------------


def reference_chunk(torch, op_kind: str, xg):
    """(correctly rounded F32 bits as int32 — except where flagged —, F64 reference, flagged mask)."""
    name, _ = REFERENCES[op_kind]
    ref = getattr(torch, name)(xg.double())
    r_bits, flagged = near_boundary(torch, ref)
    return r_bits, ref, flagged


def near_boundary(torch, ref):
    """(F32 rounding of ``ref`` as int32 bits, mask of elements within MARGIN_F64_ULPS F64 ulps
    of an F32 rounding boundary: a midpoint between adjacent F32 values or the overflow
    threshold)."""
    r = ref.float()
    rd = r.double()
    inf = torch.tensor(float("inf"), device=ref.device)
    up = torch.nextafter(r, inf).double()
    dn = torch.nextafter(r, -inf).double()
    mid_up = (rd + up) * 0.5
    mid_dn = (rd + dn) * 0.5
    # at ±max the neighbour is ±inf: the boundary is half an ulp beyond, mirroring the other side
    mid_up = torch.where(torch.isinf(up), rd + (rd - mid_dn), mid_up)
    mid_dn = torch.where(torch.isinf(dn), rd - (mid_up - rd), mid_dn)
    dist = torch.minimum((ref - mid_up).abs(), (ref - mid_dn).abs())
    # beyond the overflow threshold r is ±inf: the only boundary nearby is the threshold itself
    threshold = float(np.float64(np.finfo(np.float32).max) + 2.0**103)
    dist = torch.where(torch.isinf(r), ref.abs() - threshold, dist)
    # an F64 ulp of ref is at most |ref|·2^-52 (and at least 2^-1074)
    bound = (ref.abs() * 2.0**-52 + 2.0**-1074) * MARGIN_F64_ULPS
    flagged = torch.isfinite(ref) & (dist <= bound)
    return r.view(torch.int32), flagged


def pure_f32(op_kind: str, x_bits: np.ndarray, rules: dict[str, str]) -> np.ndarray:
    """The pure oracle's correctly rounded F32 bits for these inputs."""
    import oracles
    from oracles import fast

    x = np.ascontiguousarray(x_bits, dtype=np.uint32).view(np.float32)
    with fast.disabled():
        out = oracles.evaluate(op_kind, [x], {}, ["F32"], rules)[0]
    return np.ascontiguousarray(out.expected).view(np.int32).reshape(-1)


# --- the sweep ---------------------------------------------------------------------------------------


class _Acc:
    """Running totals over chunks."""

    def __init__(self, torch, device):
        self.torch = torch
        self.hist = torch.zeros(HIST_BINS + 1, dtype=torch.int64, device=device)  # last: beyond
        self.counts = dict.fromkeys(("nan", "inf", "signed_zero", "over_bound", "implausible",
                                     "unwritten", "settled", "settled_changed", "cross_checked"), 0)
        self.worst_ulp, self.worst_idx = -1, -1
        self.worst_real, self.worst_real_idx = -1.0, -1
        self.rel_max = 0.0
        self.abs_max = 0.0


def _bound_kind(contract) -> str:
    import oracles
    from judge.scoring import bound_kind

    return bound_kind(contract, oracles.get(contract.op_kind))


def _ordinal(torch, bits32):
    b = bits32.to(torch.int64)
    mag = b & 0x7FFFFFFF
    return torch.where(b < 0, -mag, mag)


def _score_chunk(torch, acc: _Acc, start: int, xb, y, r_bits, ref, contract) -> None:
    yb = y.view(torch.int32)
    r = r_bits.view(torch.float32)
    y_nan, r_nan = torch.isnan(y), torch.isnan(r)
    acc.counts["nan"] += int((y_nan != r_nan).sum())
    both = ~y_nan & ~r_nan
    differ = both & (yb != r_bits)
    y_inf, r_inf = torch.isinf(y), torch.isinf(r)
    acc.counts["inf"] += int((differ & (y_inf | r_inf)).sum())
    acc.counts["signed_zero"] += int((differ & (y == 0) & (r == 0)).sum())
    finite = both & ~y_inf & ~r_inf
    dist = torch.where(finite, (_ordinal(torch, yb) - _ordinal(torch, r_bits)).abs(),
                       torch.zeros((), dtype=torch.int64, device=y.device))
    # Almost every distance is 0 or 1: count those with reductions, and histogram only the rest
    # (a bincount over 2^28 values that all hit two bins serialises on their atomics).
    zero = finite & (dist == 0)
    acc.hist[0] += zero.sum()
    acc.hist[1] += (finite & (dist == 1)).sum()
    wide = dist[finite & (dist > 1)]
    if wide.numel():
        acc.hist += torch.bincount(wide.clamp(max=HIST_BINS), minlength=HIST_BINS + 1)
    top = int(dist.max())
    if top > acc.worst_ulp:
        acc.worst_ulp, acc.worst_idx = top, start + int(dist.argmax())
    kind = _bound_kind(contract)
    if kind == "exact":
        acc.counts["over_bound"] += int((finite & (dist > 0)).sum())
    elif contract.precision.max_ulp is not None:
        acc.counts["over_bound"] += int((finite & (dist > contract.precision.max_ulp)).sum())
    ok_ref = finite & torch.isfinite(ref)
    err = torch.where(ok_ref, (y.double() - ref).abs(), torch.zeros_like(ref))
    # ulp_F32(ref) = 2^(max(floor(log2|ref|), -126) - 23), built from ref's F64 exponent bits
    # (every F32-range value is a normal F64; zero's exponent field 0 clamps to -126 too).
    floor_log2 = ((ref.view(torch.int64) >> 52) & 0x7FF) - 1023
    ulp = ((floor_log2.clamp(min=-126) - 23 + 1023) << 52).view(torch.float64)
    real = torch.where(ok_ref, err / ulp, torch.zeros_like(ref))
    k = int(real.argmax())
    if float(real[k]) > acc.worst_real:
        acc.worst_real, acc.worst_real_idx = float(real[k]), start + k
    acc.abs_max = max(acc.abs_max, float(err.max()))
    nz = ok_ref & (ref != 0)  # no boolean gather: it would copy most of the chunk twice
    rel = torch.where(nz, err / torch.where(nz, ref.abs(), torch.ones_like(ref)), torch.zeros_like(ref))
    acc.rel_max = max(acc.rel_max, float(rel.max()))
    if kind == "sanity":
        limit = 2.0**-12 * torch.clamp(ref.abs(), min=1.0)
        acc.counts["implausible"] += int((finite & (err > limit)).sum())


def sweep_f32(contract, backend, *, chunk_log2: int = 28, chunks: list[int] | None = None,
              rules: dict[str, str] | None = None, log=None, device: str = "cuda") -> F32Sweep:
    """Sweep all 2^32 F32 inputs (or the listed chunks) of a unary kernel on ``backend``.

    ``device`` is where the reference runs; "cpu" (with torch's CPU libm, whose F64 error is
    as small) exists to test this module on machines without a GPU.
    """
    import torch

    from judge.sweep.run import rules_of

    rules = rules or rules_of(contract)
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    dev = torch.device(device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    n = 1 << chunk_log2
    order = chunks if chunks is not None else list(range((1 << 32) // n))
    t0 = time.perf_counter()
    row = ResultRow(
        suite=contract.suite, file=contract.file, kernel=contract.kernel,
        op_kind=contract.op_kind, contract_backend=contract.backend, backend=backend.name,
        device=backend.device, dtype="F32", revision=contract.revision,
        bound_ulp=contract.precision.max_ulp, judge_version=_version(),
        started_at=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    )
    result = F32Sweep(row)
    acc = _Acc(torch, dev)
    times = {"adapter_s": 0.0, "reference_s": 0.0, "settle_s": 0.0}
    rng = np.random.default_rng(0)
    shape = (n,)
    resident = takes_device_arrays(backend, dev)
    if resident:
        result.notes.append("device-resident: inputs, outputs, reference and scoring stayed on the GPU")
    for step, c in enumerate(order):
        start = c * n
        xb = torch.arange(start, start + n, dtype=torch.int64, device=dev).to(torch.int32)
        t = time.perf_counter()
        y = _kernel_outputs(torch, backend, contract, xb, shape, resident)
        if step == 0 and contract.determinism != "nondeterministic":
            again = _kernel_outputs(torch, backend, contract, xb, shape, resident)
            if not torch.equal(y.view(torch.int32), again.view(torch.int32)):
                row.nondeterministic_runs += 1
                result.notes.append(f"chunk {c}: a repeat call gave different bits")
            del again
        sync()
        times["adapter_s"] += time.perf_counter() - t
        t = time.perf_counter()
        unwritten = (y.view(torch.int32) == _i32(POISON_F32)) & ((xb | QUIET_F32) != _i32(POISON_F32))
        acc.counts["unwritten"] += int(unwritten.sum())
        r_bits, ref, flagged = reference_chunk(torch, contract.op_kind, xb.view(torch.float32))
        sync()
        times["reference_s"] += time.perf_counter() - t
        t = time.perf_counter()
        idx = torch.nonzero(flagged).flatten()
        if idx.numel():
            settled = pure_f32(contract.op_kind, xb[idx].cpu().numpy().view(np.uint32), rules)
            before = r_bits[idx].cpu().numpy()
            acc.counts["settled"] += int(idx.numel())
            acc.counts["settled_changed"] += int((settled != before).sum())
            r_bits[idx] = torch.from_numpy(settled).to(dev)
        sample = rng.integers(0, n, size=CROSS_CHECK_PER_CHUNK)
        want = pure_f32(contract.op_kind, (sample + start).astype(np.uint32), rules)
        got = r_bits[torch.from_numpy(sample).to(dev)].cpu().numpy()
        differ = (want != got) & ~(_is_nan32(want) & _is_nan32(got))  # payloads aside
        if differ.any():
            j = int(np.flatnonzero(differ)[0])
            raise AssertionError(
                f"F64 reference for {contract.op_kind} disagrees with the pure oracle at input "
                f"0x{int(sample[j] + start):08X}: 0x{int(got[j]) & 0xFFFFFFFF:08X} vs "
                f"0x{int(want[j]) & 0xFFFFFFFF:08X}; the certification margin does not hold")
        acc.counts["cross_checked"] += CROSS_CHECK_PER_CHUNK
        times["settle_s"] += time.perf_counter() - t
        t = time.perf_counter()
        _score_chunk(torch, acc, start, xb, y, r_bits, ref, contract)
        sync()
        times["reference_s"] += time.perf_counter() - t
        del y, r_bits, ref, flagged, xb
        log(f"  chunk {step + 1}/{len(order)} (inputs 0x{start:08X}..): worst so far "
            f"{acc.worst_ulp} ulp, settled {acc.counts['settled']}, {time.perf_counter() - t0:.1f} s")
    _finish(result, acc, contract, len(order) * n, times, t0)
    return result


def _is_nan32(bits: np.ndarray) -> np.ndarray:
    return (bits & 0x7FFFFFFF) > 0x7F800000


def _i32(u: int) -> int:
    return u - (1 << 32) if u >= 1 << 31 else u


def _kernel_outputs(torch, backend, contract, xb, shape, resident: bool):
    """The backend's outputs for the inputs with bits ``xb``, as a flat float32 device tensor."""
    if resident:
        return resident_call(torch, backend, contract, xb, shape)
    y_host = _adapter_call(backend, contract, xb.cpu().numpy().view(np.float32), shape)
    return torch.from_numpy(y_host).to(xb.device)


def _adapter_call(backend, contract, x_host: np.ndarray, shape) -> np.ndarray:
    base_out = np.full(x_host.size, POISON_F32, dtype=np.uint32).view(np.float32)
    out = TensorArg(base_out, shape, (1,), 0, "F32")
    call = KernelCall([TensorArg(x_host, shape, (1,), 0, "F32")], {}, [out], ["F32"], "f32-sweep")
    result = backend.run(contract, call)
    y = np.asarray(result[0] if result is not None else base_out)
    if y.dtype != np.float32 or y.shape != tuple(shape):
        raise AssertionError(f"{backend.name} returned {y.dtype} {y.shape}, expected float32 {shape}")
    return np.ascontiguousarray(y).reshape(-1)


def _describe_input(i: int) -> str:
    v = np.asarray([i], dtype=np.uint32).view(np.float32)[0]
    return f"x={float(v)!r} (0x{i:08X})"


def _finish(result: F32Sweep, acc: _Acc, contract, total: int, times: dict, t0: float) -> None:
    row, c = result.row, acc.counts
    hist = acc.hist.cpu().numpy()
    finite = int(hist.sum())
    row.cases = row.elements = total
    row.ulp_max = float(acc.worst_ulp)
    cum = np.cumsum(hist)
    p99 = int(np.searchsorted(cum, 0.99 * finite)) if finite else None
    row.ulp_p99 = None if p99 is None else (float(p99) if p99 < HIST_BINS else math.inf)
    row.ulp_real_max = round(acc.worst_real, 3)
    row.rel_max, row.abs_max = acc.rel_max, acc.abs_max
    row.nan_mismatch, row.inf_mismatch = c["nan"], c["inf"]
    row.signed_zero_mismatch, row.implausible = c["signed_zero"], c["implausible"]
    row.unwritten_outputs = c["unwritten"]
    kind = _bound_kind(contract)
    row.derived_bound = None if kind == "declared" else kind
    checks = {"nan": c["nan"], "inf": c["inf"], "ulp": c["over_bound"],
              "implausible": c["implausible"], "unwritten": c["unwritten"],
              "determinism": row.nondeterministic_runs}
    failing = {k: v for k, v in checks.items() if v}
    row.verdict = "fail" if failing else "pass"
    row.reason = "; ".join(f"{k}: {v:,} element(s)" for k, v in failing.items())
    row.seconds = round(time.perf_counter() - t0, 3)
    result.metrics.update(times)
    result.metrics.update({k: v for k, v in c.items()})
    result.metrics["ulp_histogram"] = {str(i): int(v) for i, v in enumerate(hist) if v}
    result.metrics["inputs_per_s"] = total / max(row.seconds, 1e-9)
    worst = (f"worst {acc.worst_ulp} ulp at {_describe_input(acc.worst_idx)}" if acc.worst_ulp
             else "every finite output is the correctly rounded value")
    result.metrics["worst"] = (f"{worst}; ulp-real max {acc.worst_real:.3f} at "
                               f"{_describe_input(acc.worst_real_idx)}")
    result.metrics["worst_ulp_input"] = _describe_input(acc.worst_idx) if acc.worst_ulp else ""
    result.metrics["worst_real_input"] = _describe_input(acc.worst_real_idx)


# --- throughput of the natural kernel alone --------------------------------------------------------


def kernel_throughput(library: str, op_kind: str, n_log2: int = 28, reps: int = 10) -> dict:
    """Time the library's own F32 kernel on device-resident data (no host copies)."""
    import torch

    name = REFERENCES[op_kind][0]
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
        call = f"cupy.{name}"

        def run():
            return fn(xs)
    else:
        fn = getattr(torch, name)
        call = f"torch.{name}"

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
    return {"kernel_call": call, "kernel_seconds": seconds, "kernel_elems_per_s": n / seconds,
            "kernel_bytes_per_s": 8 * n / seconds}


# --- command line ------------------------------------------------------------------------------------


def _backend(name: str):
    """The registered adapter, or a direct call of the library's kernel when none is registered."""
    from judge.registry import default_registry

    registry = default_registry().load_all()
    backend = registry.backends.get(name)
    if backend is not None:
        return backend, None
    if name == "cupy":
        why = registry.load_errors.get("backends.cupy_backend", "not registered")
        return DirectCupy(), f"no cupy adapter ({why}): cupy's ufuncs are called directly"
    raise SystemExit(f"backend {name!r} is not registered")


class DirectCupy:
    """cupy's natural kernels, called directly (only where the cupy adapter is missing)."""

    name = "cupy"
    device = "cuda"

    def supports(self, contract, dtypes):
        return True

    def describe(self) -> str:
        import cupy

        return f"cupy {cupy.__version__} (direct)"

    def run(self, contract, call):
        import cupy

        name = REFERENCES[contract.op_kind][0]
        fn = getattr(cupy, name)
        x = cupy.asarray(call.inputs[0].view())
        return [cupy.asnumpy(fn(x))]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m judge.sweep.gpu_f32", description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default=",".join(REFERENCES[k][0] for k in REFERENCES))
    parser.add_argument("--backends", default="torch-cuda,cupy")
    parser.add_argument("--contracts", default=None, help="default: the embedded suite's reference file")
    parser.add_argument("--chunk-log2", type=int, default=28)
    parser.add_argument("--chunks", default=None, help="comma-separated chunk numbers (default: all)")
    parser.add_argument("--out", default=None, help="folder for f32-sweep.json and f32-sweep.md")
    args = parser.parse_args(argv)
    from judge.contracts import default_suite_path, load_paths

    path = args.contracts or str(Path(default_suite_path()) / "reference-elementwise.fkc.md")
    loaded = load_paths([path])
    chunks = [int(c) for c in args.chunks.split(",")] if args.chunks else None
    reports, texts, results = [], [], []
    for bname in args.backends.split(","):
        backend, note = _backend(bname)
        for kernel in args.kernels.split(","):
            matches = loaded.find(kernel)
            if len(matches) != 1:
                raise SystemExit(f"kernel {kernel!r}: {len(matches)} contracts match in {path}")
            contract = matches[0]
            ok = sweep_support(contract, backend, cross=True)
            if ok is not True:
                texts.append(f"{kernel}[{bname}-F32]: unsupported: {ok}")
                continue
            print(f"sweeping {contract.kernel} on {bname} ({backend.describe()})", file=sys.stderr, flush=True)
            res = sweep_f32(contract, backend, chunk_log2=args.chunk_log2, chunks=chunks)
            if note:
                res.notes.append(note)
            res.notes.append(f"contract {contract.file} (backend {contract.backend}) judged across devices")
            if backend.device == "cuda":
                res.metrics.update(kernel_throughput("cupy" if bname == "cupy" else "torch", contract.op_kind))
            texts.append(res.summary())
            print(texts[-1], flush=True)
            reports.append({"row": res.row.as_dict(), "metrics": res.metrics, "notes": res.notes,
                            "device": backend.describe()})
            results.append(res)
            if args.out:  # after every sweep, so a run cut short keeps what it finished
                _write(Path(args.out), reports, texts, results)
    failing = [r for r in reports if r["row"]["verdict"] not in ("pass", "xfail")]
    return 1 if failing else 0


def _write(out: Path, reports: list, texts: list, results: list) -> None:
    """f32-sweep.json (everything measured) and .md (the summaries), plus an audit report whose
    table of exhaustive sweeps shows them all."""
    from judge.reports import write_audit
    from judge.reports.f32_sweeps import FILE, sweep_record, write_sweeps
    from judge.results import AuditRun

    out.mkdir(parents=True, exist_ok=True)
    (out / "f32-sweep.json").write_text(json.dumps(reports, indent=2, default=str))
    (out / "f32-sweep.md").write_text("\n\n".join(texts) + "\n")
    write_sweeps([sweep_record(r.row, r.metrics, r.notes) for r in results], out / FILE)
    meta = {"profile": "f32-sweep", "judge_version": _version(),
            "devices": {rep["row"]["backend"]: rep["device"] for rep in reports},
            "started_at": results[0].row.started_at if results else ""}
    write_audit(AuditRun([r.row for r in results], [], {}, meta), out)


def _version() -> str:
    from judge import __version__

    return __version__


if __name__ == "__main__":
    sys.exit(main())
