"""Exhaustive F32 sweeps (all 2^32 inputs) of unary kernels on a CUDA device.

The kernel under test runs through its backend adapter's ``run`` on ``KernelCall``s of 2^k
inputs (k = 28 by default: 16 calls), with poison-filled outputs; a backend that takes
device-resident calls keeps every chunk on the GPU (``judge.sweep.resident``). The reference is
the OpKind's F64 function on the GPU, certified before it is trusted
(``judge.sweep.f32_reference``). Each chunk is scored where it lives by the rulebook's array
scorer (``judge.scoring.tally`` over ``judge.scoring.vector``): the same checks, bounds
(max_ulp, max_relative, max_absolute, or the derived one) and NaN rule as the search and the
16-bit sweeps, with the F64 reference standing in for the exact value (its error, below 2^-50
relative, is far below the three reported decimals). The verdict is ``judge.verdict``'s, known
divergences (suites/expectations.toml) included. Repeat determinism is checked on the first
chunk.

Run through ``judge sweep --dtype F32`` (see scripts/gpu-sweep-f32.sh).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judge import verdict
from judge.api import KernelCall, TensorArg
from judge.executor import Finding
from judge.results import ResultRow
from judge.scoring import tally as scoring
from judge.scoring.rules import bound_kind, derived_bound
from judge.sweep import f32_reference
from judge.sweep.resident import resident_call, takes_device_arrays
from judge.sweep.run import backend_supports, opdef_or_reason
from numerics.formats import get_format
from numerics.values import POISON_BITS

F32 = get_format("F32")
POISON_F32 = POISON_BITS["F32"]
QUIET_F32 = 1 << (F32.mantissa_bits - 1)  # the quiet bit of a NaN

ALL_INPUTS = 1 << 32  # a sweep of fewer is a sweep in part (--chunks, --limit)


@dataclass
class F32Sweep:
    row: ResultRow
    metrics: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    message: str = ""  # the unexpected findings, spelled out (empty on pass and xfail)
    device: str = ""  # the backend's description

    def summary(self) -> str:
        r, m = self.row, self.metrics
        label = f"{r.file}::{r.kernel}[{r.backend}-F32]"
        what = "every F32 bit pattern" if r.cases == 1 << 32 else "a subset of the F32 bit patterns"
        lines = [
            f"{label}: {r.cases:,} inputs ({what}): {r.verdict.upper()}"
            + (f" ({r.reason})" if r.reason else ""),
            f"  {m.get('worst', '')}",
            f"  ulp max {r.ulp_max:g} (bound {r.bound_ulp}), p99 {r.ulp_p99}, ulp-real max "
            f"{r.ulp_real_max}; mismatches: NaN {r.nan_mismatch}, inf {r.inf_mismatch}, signed "
            f"zero {r.signed_zero_mismatch}, implausible {r.implausible}; over bound "
            f"{m.get('over_bound', 0):,}",
            f"  reference: {m.get('settled', 0)} element(s) within {f32_reference.MARGIN_F64_ULPS} F64 "
            f"ulps of an F32 rounding boundary settled by the pure oracle "
            f"({m.get('settled_changed', 0)} of them changed the F64-derived answer); "
            f"{m.get('cross_checked', 0)} sampled elements agree with the pure oracle",
            f"  time {r.seconds:.1f} s: {m.get('inputs_per_s', 0):.3g} inputs/s end to end "
            f"(adapter calls {m.get('adapter_s', 0):.1f} s, reference+scoring "
            f"{m.get('reference_s', 0):.1f} s, settling {m.get('settle_s', 0):.1f} s)",
        ]
        lines += [f"  note: {n}" for n in self.notes]
        if self.message:
            lines.append(self.message)
        return "\n".join(lines)


def sweep_support(contract, backend, *, cross: bool = False) -> bool | str:
    import oracles

    opdef = opdef_or_reason(contract)
    on_gpu = backend.device in ("cuda", "vulkan")
    if not on_gpu or isinstance(opdef, str):
        return opdef if on_gpu else (f"an exhaustive F32 sweep runs on a GPU backend (its "
                                     f"reference on CUDA); {backend.name} is {backend.device}")
    if opdef.f64_reference is None or opdef.arity != 1:
        covered = sorted(k for k in oracles.op_kinds() if oracles.get(k).f64_reference and oracles.get(k).arity == 1)
        return f"{contract.op_kind} has no certified F64 reference here (covered: {', '.join(covered)})"
    if "F32" not in contract.dtype_fan:
        return f"{contract.kernel} does not accept F32"
    if contract.device != backend.device and not cross:
        return (f"{contract.kernel} is a {contract.device} contract; pass --cross to judge "
                f"{backend.name} against it")
    try:
        import torch
    except ImportError:
        return "the F64 reference needs torch with CUDA"
    if not torch.cuda.is_available():
        return "torch sees no CUDA device for the F64 reference"
    return backend_supports(backend, contract, ("F32",))


@dataclass
class _Run:
    """One sweep in progress: where it runs, what it counted, how long each part took."""

    torch: object
    dev: object
    contract: object
    backend: object
    opdef: object
    rules: dict[str, str]
    resident: bool
    tally: scoring.Tally
    counts: dict = field(default_factory=lambda: dict.fromkeys(
        ("unwritten", "settled", "settled_changed", "cross_checked"), 0))
    unwritten_first: int | None = None
    times: dict = field(default_factory=lambda: dict.fromkeys(("adapter_s", "reference_s", "settle_s"), 0.0))
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    fused: object = None  # judge.sweep.fused.FusedScorer, where the fused path scores the chunks
    iota: object = None  # 0 .. n - 1 as int32 on the device, made once: each chunk's patterns are one add
    started: float = 0.0  # perf_counter when the first chunk began (the sweep's clock)

    def iota_of(self, n: int):
        if self.iota is None or self.iota.numel() < n:
            self.iota = self.torch.arange(n, dtype=self.torch.int32, device=self.dev)
        return self.iota[:n]

    def sync(self) -> None:
        if self.dev.type == "cuda":
            self.torch.cuda.synchronize()


def sweep_f32(contract, backend, *, chunk_log2: int = 28, chunks: list[int] | None = None,
              rules: dict[str, str] | None = None, log=None, device: str = "cuda",
              expectations=None, fused: bool | None = None) -> F32Sweep:
    """Sweep all 2^32 F32 inputs (or the listed chunks) of a unary kernel on ``backend``.

    ``device`` is where the reference runs; "cpu" (with torch's CPU libm, whose F64 error is
    as small) exists to test this module on machines without a GPU. ``fused``: score each chunk
    in one pass (``judge.sweep.fused``: NVRTC on CUDA, the C twin on the CPU); None: on CUDA
    where cupy can compile it, the array passes elsewhere.
    """
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    n = 1 << chunk_log2
    order = chunks if chunks is not None else list(range((1 << 32) // n))
    preload(contract, rules)
    result, run = sweep_chunks(contract, backend, order, chunk_log2=chunk_log2, rules=rules,
                               device=device, log=log, repeat_first=True, fused=fused)
    _finish(result, run, expectations, run.started)
    return result


def sweep_chunks(contract, backend, order: list[int], *, chunk_log2: int, rules=None, device="cuda",
                 log=None, repeat_first: bool = True, fused: bool | None = None) -> tuple[F32Sweep, _Run]:
    """Sweep the listed chunks: the unfinished (result, run) that ``_finish`` completes; one
    GPU's share of a sweep spread over several (``judge.sweep.multi_gpu``). ``repeat_first``:
    repeat the first chunk's call to check determinism."""
    import torch

    import oracles

    log = log or (lambda msg: None)
    dev = torch.device(device)
    n = 1 << chunk_log2
    rules = rules or contract.semantics.values()
    preload(contract, rules)
    result = F32Sweep(verdict.new_row(contract, backend, "F32"), device=backend.describe())
    run = _Run(torch, dev, contract, backend, oracles.get(contract.op_kind),
               rules, takes_device_arrays(backend, dev), scoring.Tally(F32))
    run.fused = _fused_scorer(run, fused, result.notes)  # compiled before the clock: once per kernel
    if run.resident:
        result.notes.append("device-resident: inputs, outputs, reference and scoring stayed on the GPU")
    if contract.device != backend.device:
        result.notes.append(f"contract {contract.file} (backend {contract.backend}) judged across devices")
    t0 = run.started = time.perf_counter()
    for step, c in enumerate(order):
        chunk = _sweep_chunk_fused if run.fused is not None else _sweep_chunk
        chunk(run, result, c * n, n, first=repeat_first and step == 0)
        log(f"  chunk {step + 1}/{len(order)} (inputs 0x{c * n:08X}..): worst so far "
            f"{run.tally.worst_ulp} ulp, settled {run.counts['settled']}, {time.perf_counter() - t0:.1f} s")
    return result, run


def preload(contract, rules=None) -> None:
    """Load the pure oracle (mpmath and the OpKind's module) before a clock starts: that is a
    cost per process, not per input."""
    rules = rules or contract.semantics.values()
    f32_reference.pure_f32(contract.op_kind, np.arange(0x3F800000, 0x3F800004, dtype=np.uint32), rules)


def _fused_scorer(run: _Run, fused: bool | None, notes: list[str]):
    """The fused scorer of this sweep, or None for the array passes (``fused_build.choose``)."""
    from judge.sweep import fused as fused_path
    from judge.sweep.fused_build import choose

    where = "cuda" if run.dev.type == "cuda" else "cpu"
    return choose(where, fused, notes, lambda: fused_path.FusedScorer(run.contract, run.opdef, where))


def _outputs_checked(run: _Run, result: F32Sweep, start: int, n: int, first: bool):
    """The kernel's outputs for inputs start .. start + n - 1 (int32 bits, with their inputs),
    after the repeat-determinism and unwritten-element checks."""
    torch, contract = run.torch, run.contract
    xb = bits_range(torch, start, n, run.dev, iota=run.iota_of(n))
    t = time.perf_counter()
    y = _kernel_outputs(run, xb, (n,))
    if first and contract.determinism != "nondeterministic":
        again = _kernel_outputs(run, xb, (n,))
        if not torch.equal(y.view(torch.int32), again.view(torch.int32)):
            result.row.nondeterministic_runs += 1
            result.notes.append(f"inputs 0x{start:08X}..: a repeat call gave different bits")
        del again
    run.sync()
    run.times["adapter_s"] += time.perf_counter() - t
    yb = y.view(torch.int32)
    poison = _i32(POISON_F32)
    # a NaN input carrying the poison's payload comes back as the poison from a kernel that
    # propagates NaNs: indistinguishable from an unwritten element, so not counted. One pass
    # first: whether any output holds the poison at all (almost never)
    count = 0
    if bool((yb == poison).any()):
        unwritten = (yb == poison) & ((xb | QUIET_F32) != poison)
        count = int(unwritten.sum())
    if count:
        run.counts["unwritten"] += count
        if run.unwritten_first is None:
            run.unwritten_first = start + int(torch.nonzero(unwritten)[0, 0])
    return xb, yb


def bits_range(torch, start: int, n: int, device, *, iota=None):
    """The F32 bit patterns start .. start + n - 1 as int32 (the patterns from 2^31 up are
    negative), made in int32 where the range does not cross 2^31: as ``iota`` (0 .. n - 1, int32,
    on ``device``) plus the first pattern where it is given: one add (an arange of 2^28 int32 on
    an H200 took 2.5 ms a chunk)."""
    lo = start - (1 << 32) if start >= 1 << 31 else start
    if lo + n <= 1 << 31:
        if iota is not None:
            return torch.add(iota[:n], lo)
        return torch.arange(lo, lo + n, dtype=torch.int32, device=device)
    return torch.arange(start, start + n, dtype=torch.int64, device=device).to(torch.int32)


def _sweep_chunk_fused(run: _Run, result: F32Sweep, start: int, n: int, *, first: bool) -> None:
    """One chunk through the fused scorer: score all but the flagged elements, settle those,
    cross-check a sample, score the settled ones into the same totals (judge.sweep.fused)."""
    xb, yb = _outputs_checked(run, result, start, n, first)
    del xb
    engine = run.fused.engine
    y = yb if engine.where == "cuda" else yb.cpu().numpy()
    t = time.perf_counter()
    run.sync()
    stats, flagged = engine.score_listing(start, n, y)
    run.times["reference_s"] += time.perf_counter() - t
    t = time.perf_counter()
    settled_bits = np.zeros(0, np.uint32)
    if flagged.size:
        _, bits, _ = engine.ref_at(start + flagged.astype(np.uint64))
        settled_bits = f32_reference.pure_f32(run.contract.op_kind, (start + flagged).astype(np.uint32),
                                              run.rules).view(np.uint32)
        run.counts["settled"] += int(flagged.size)
        run.counts["settled_changed"] += int((settled_bits != bits).sum())
    settled = dict(zip(flagged.tolist(), settled_bits.tolist(), strict=True))
    sample = run.rng.integers(0, n, size=f32_reference.CROSS_CHECK_PER_CHUNK)
    _, bits, flag = engine.ref_at(start + sample.astype(np.uint64))
    got = np.asarray([settled.get(int(i), int(b)) if f else int(b) for i, b, f in zip(sample, bits, flag, strict=True)],
                     np.uint32).view(np.int32)
    f32_reference.check_sample(run.contract.op_kind, start, sample, got, run.rules, run.counts)
    run.times["settle_s"] += time.perf_counter() - t
    t = time.perf_counter()
    if flagged.size:
        from judge.sweep.fused_totals import merge

        stats = merge(stats, engine.score_listed(start, y, flagged, settled_bits))
    run.fused.add(run.tally, start, n, stats, run.fused.f32_element(start, settled, lambda i: int(y[i])),
                  describe_input)
    run.times["reference_s"] += time.perf_counter() - t


def _sweep_chunk(run: _Run, result: F32Sweep, start: int, n: int, *, first: bool) -> None:
    torch, contract = run.torch, run.contract
    xb, yb = _outputs_checked(run, result, start, n, first)
    t = time.perf_counter()
    r_bits, ref, flagged = f32_reference.reference_chunk(torch, run.opdef, xb.view(torch.float32))
    run.sync()
    run.times["reference_s"] += time.perf_counter() - t
    t = time.perf_counter()
    f32_reference.settle(torch, contract.op_kind, xb, r_bits, flagged, run.rules, run.counts)
    f32_reference.cross_check(torch, contract.op_kind, start, r_bits, run.rng, run.rules, run.counts)
    run.times["settle_s"] += time.perf_counter() - t
    t = time.perf_counter()
    scoring.add_chunk(run.tally, start, xb, yb, r_bits, ref, kind=bound_kind(contract, run.opdef),
                      precision=contract.precision, rules=contract.semantics, describe_input=describe_input)
    run.sync()
    run.times["reference_s"] += time.perf_counter() - t


def _i32(u: int) -> int:
    return u - (1 << 32) if u >= 1 << 31 else u


def _kernel_outputs(run: _Run, xb, shape):
    """The backend's outputs for the inputs with bits ``xb``, as a flat float32 device tensor."""
    if run.resident:
        return resident_call(run.torch, run.backend, run.contract, [xb.view(run.torch.float32)], shape, "F32",
                             "f32-sweep")
    y_host = _adapter_call(run.backend, run.contract, xb.cpu().numpy().view(np.float32), shape)
    return run.torch.from_numpy(y_host).to(xb.device)


def _adapter_call(backend, contract, x_host: np.ndarray, shape) -> np.ndarray:
    base_out = np.full(x_host.size, POISON_F32, dtype=np.uint32).view(np.float32)
    out = TensorArg(base_out, shape, (1,), 0, "F32")
    call = KernelCall([TensorArg(x_host, shape, (1,), 0, "F32")], {}, [out], ["F32"], "f32-sweep")
    result = backend.run(contract, call)
    y = np.asarray(result[0] if result is not None else base_out)
    if y.dtype != np.float32 or y.shape != tuple(shape):
        raise AssertionError(f"{backend.name} returned {y.dtype} {y.shape}, expected float32 {shape}")
    return np.ascontiguousarray(y).reshape(-1)


def describe_input(bits: int) -> str:
    bits &= 0xFFFFFFFF
    v = np.asarray([bits], dtype=np.uint32).view(np.float32)[0]
    return f"x={float(v)!r} (0x{bits:08X})"


def _executor_findings(run: _Run, row: ResultRow) -> list[Finding]:
    """What the executor checks of a generated case, over the sweep: writes and determinism."""
    out = []
    if run.counts["unwritten"]:
        out.append(Finding("unwritten", f"output 0: {run.counts['unwritten']:,} element(s) still hold "
                           f"the poison pattern 0x{POISON_F32:X} (never written), first at "
                           f"{describe_input(run.unwritten_first)}"))
    if row.nondeterministic_runs:
        out.append(Finding("determinism", "a repeat call on the same inputs gave different bits"))
    return out


def _finish(result: F32Sweep, run: _Run, expectations, t0: float) -> None:
    row, tally = result.row, run.tally
    row.cases = row.elements = tally.elements
    row.ulp_max = float(max(tally.worst_ulp, 0))
    row.ulp_p99 = tally.ulp_p99()
    row.ulp_real_max = round(tally.worst_real, 3) if tally.worst_real >= 0 else None
    row.rel_max, row.abs_max = tally.rel_max, tally.abs_max
    row.nan_mismatch, row.inf_mismatch = tally.mismatches["nan"], tally.mismatches["inf"]
    row.signed_zero_mismatch = tally.mismatches["signed_zero"]
    row.implausible = tally.mismatches["implausible"]
    row.unwritten_outputs = run.counts["unwritten"]
    row.derived_bound = derived_bound(bound_kind(run.contract, run.opdef))
    failed, reported = scoring.findings(tally, run.contract.semantics)
    findings = _executor_findings(run, row) + failed
    expected = verdict.sweep_expected(expectations, run.contract, run.backend, "F32", findings,
                                      whole=tally.elements >= ALL_INPUTS, notes=result.notes)
    unexpected, seen = verdict.split(findings, expected)
    row.verdict, row.reason = verdict.decide(unexpected, expected, seen)
    result.message = "\n".join(f"  [{f.check}] {f.message}" for f in unexpected)
    result.notes += [f"reported, not failed (no {f.check.upper()} rule stated): {f.message.splitlines()[0]}"
                     for f in reported]
    row.seconds = round(time.perf_counter() - t0, 3)
    _metrics(result, run)


def _metrics(result: F32Sweep, run: _Run) -> None:
    m, tally, row = result.metrics, run.tally, result.row
    m.update(run.times)
    m.update(run.counts)
    m.update({k: v for k, v in tally.mismatches.items()})
    m["over_bound"] = tally.over_bound
    m["ulp_histogram"] = tally.histogram()
    m["inputs_per_s"] = row.cases / max(row.seconds, 1e-9)
    worst = (f"worst {tally.worst_ulp} ulp at {describe_input(tally.worst_idx)}" if tally.worst_ulp > 0
             else "every finite output is the correctly rounded value")
    real = (f"; ulp-real max {tally.worst_real:.3f} at {describe_input(tally.worst_real_idx)}"
            if tally.worst_real_idx >= 0 else "")
    m["worst"] = worst + real
    m["worst_ulp_input"] = describe_input(tally.worst_idx) if tally.worst_ulp > 0 else ""
    m["worst_real_input"] = describe_input(tally.worst_real_idx) if tally.worst_real_idx >= 0 else ""


def write_outputs(out: Path, results: list[F32Sweep]) -> None:
    """f32-sweep.json (everything measured), f32-sweep.md (the summaries) and the report's table
    of exhaustive sweeps (f32-sweeps.json), rewritten after every sweep so that a run cut short
    keeps what it finished."""
    from judge.reports.f32_sweeps import FILE, sweep_record, write_sweeps

    out.mkdir(parents=True, exist_ok=True)
    reports = [{"row": r.row.as_dict(), "metrics": r.metrics, "notes": r.notes, "device": r.device}
               for r in results]
    (out / "f32-sweep.json").write_text(json.dumps(reports, indent=2, default=str))
    (out / "f32-sweep.md").write_text("\n\n".join(r.summary() for r in results) + "\n")
    write_sweeps([sweep_record(r.row, r.metrics, r.notes) for r in results], out / FILE)
