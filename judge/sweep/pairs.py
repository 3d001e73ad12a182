"""Exhaustive 16-bit pair sweeps (``judge sweep --pairs``): every (x, y) of F16 or of BF16, 2^32
pairs, through a binary elementwise kernel.

Pair p (0 <= p < 2^32) is (x, y) = (p >> 16, p & 0xFFFF) as bit patterns; a chunk of 2^k pairs
(k = 24 by default: 256 chunks) is one kernel call through the backend adapter's ``run``, on
poison-filled outputs. The reference is certified and vectorised (``oracles.fast.pairs``: the
binary64 result rounded with its ties flagged, the pure oracle settling what the certificate
leaves open, a random sample cross-checked every chunk). Each chunk is scored by the rulebook's
chunk scorer (``judge.scoring.tally``), the checks, bounds and NaN rule of the search and the
other sweeps, and the verdict is ``judge.verdict``'s, known divergences included. Repeat
determinism is checked on the first chunk. ``chunks`` sweeps some of them (a sweep in parts).

Beside the rulebook's totals, a sweep keeps where the errors sit: per (biased exponent of x,
biased exponent of y), the pairs whose bits differ from the correctly rounded result and the
worst ULP distance (``exponent_grid``), drawn by ``judge.sweep.pair_report``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from judge import verdict
from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.executor import Finding
from judge.results import ResultRow
from judge.scoring import tally as scoring
from judge.scoring.rules import bound_kind, derived_bound
from judge.sweep.run import DERIVED_PARAMS, _shape_for, backend_supports, opdef_or_reason
from numerics.formats import get_format
from numerics.values import POISON_BITS

PAIRS = 1 << 32
FORMATS = ("F16", "BF16")


@dataclass
class PairSweep:
    row: ResultRow
    dtype: str
    metrics: dict = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    message: str = ""  # the unexpected findings, spelled out (empty on pass and xfail)
    off: np.ndarray | None = None  # [exponent of x, exponent of y] -> pairs off the right bits
    worst: np.ndarray | None = None  # [exponent of x, exponent of y] -> worst ULP distance
    case: object = None  # judge.cases.CaseRecord: the first failing pair of the first unexpected finding

    def summary(self) -> str:
        r, m = self.row, self.metrics
        what = "every pair" if r.cases == PAIRS else f"{m.get('chunks', 0)} chunk(s) of the pairs"
        lines = [
            f"{r.file}::{r.kernel}[{r.backend}-{self.dtype}]: {r.cases:,} pairs ({what}): "
            f"{r.verdict.upper()}" + (f" ({r.reason})" if r.reason else ""),
            f"  {m.get('worst', '')}",
            f"  ulp max {r.ulp_max:g} (bound {r.bound_ulp}), ulp-real max {r.ulp_real_max}; checks: "
            + (", ".join(f"{k} {v:,}" for k, v in m.get("checks", {}).items()) or "none failed"),
            f"  reference: {m.get('settled', 0)} tie(s) settled by the pure oracle, "
            f"{m.get('cross_checked', 0)} sampled pairs agree with it",
            f"  time {r.seconds:.1f} s: {m.get('pairs_per_s', 0):.3g} pairs/s end to end (adapter "
            f"{m.get('adapter_s', 0):.1f} s, reference {m.get('reference_s', 0):.1f} s, scoring "
            f"{m.get('scoring_s', 0):.1f} s)" + ("" if r.cases == PAIRS else
                                          f"; all 2^32 pairs: {m.get('full_estimate_s', 0) / 60:.0f} min"),
        ]
        lines += [f"  note: {n}" for n in self.notes]
        if self.message:
            lines.append(self.message)
        if r.counterexample:
            lines.append(f"  case id: {r.counterexample}  (replay: judge repro {r.counterexample})")
        return "\n".join(lines)


def pair_support(contract, backend, dtype: str, *, cross: bool = False) -> bool | str:
    """True if ``judge sweep --pairs`` can sweep this kernel in ``dtype`` on ``backend``."""
    from judge.strategies import input_dtypes
    from judge.sweep import pair_reference

    opdef = opdef_or_reason(contract)
    if isinstance(opdef, str):
        return opdef
    if dtype not in FORMATS:
        return f"a pair sweep covers {' and '.join(FORMATS)}; {dtype} is not one"
    if dtype not in contract.dtype_fan:
        return f"{contract.kernel} does not accept {dtype}"
    if not pair_reference.covered(contract.op_kind):
        return (f"{contract.op_kind} has no certified vectorised pair reference (covered: "
                f"{', '.join(pair_reference.covered_kinds())})")
    if input_dtypes(contract, dtype) != (dtype, dtype):
        return f"{contract.kernel} does not take two {dtype} operands"
    if any(f.name not in DERIVED_PARAMS for f in contract.op_params.fields):
        return f"{contract.kernel} takes op params; a sweep has no values for them"
    if backend.device != contract.device and not cross:
        return f"{backend.name} runs on {backend.device}, {contract.kernel} is a {contract.device} contract"
    return backend_supports(backend, contract, (dtype, dtype))


@dataclass
class _Run:
    contract: object
    backend: object
    opdef: object
    dtype: str
    tally: scoring.Tally
    off: np.ndarray
    worst: np.ndarray
    counts: dict = field(default_factory=lambda: dict.fromkeys(("unwritten", "settled", "cross_checked"), 0))
    times: dict = field(default_factory=lambda: dict.fromkeys(("adapter_s", "reference_s", "scoring_s"), 0.0))
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    fused: object = None  # judge.sweep.fused.FusedScorer with the pair kernel, where it scores
    resident: object = None  # the torch device where pairs are born and stay (judge.sweep.resident_pairs)


def sweep_pairs(contract, backend, dtype: str, *, chunk_log2: int = 24, chunks: list[int] | None = None,
                expectations=None, log=None, fused: bool | None = None, device: str | None = None) -> PairSweep:
    """Sweep every (x, y) pair of ``dtype`` (or the listed chunks of 2^chunk_log2 pairs).
    ``fused``: reference and scoring in one kernel per chunk (``judge.sweep.fused_pairs``: on
    the GPU for a CUDA backend, the C twin otherwise); None: fused for CUDA backends where
    cupy can compile it. A backend that takes device arrays gets its pairs born on ``device``
    (default: cuda for a CUDA backend) and keeps them there (``judge.sweep.resident_pairs``)."""

    n = 1 << chunk_log2
    order = chunks if chunks is not None else list(range(PAIRS // n))
    run = new_run(contract, backend, dtype)
    _warm(run)
    result = PairSweep(verdict.new_row(contract, backend, dtype), dtype)
    run.fused = _fused_scorer(run, fused, result.notes)  # compiled before the clock: once per kernel
    run.resident = _resident_device(run, device)
    if run.resident is not None:
        result.notes.append(f"device-resident: pairs born on {run.resident}, outputs checked and scored there")
    t0 = time.perf_counter()
    for step, c in enumerate(order):
        _chunk(run, result, c * n, n, first=step == 0)
        if log is not None:
            log(f"  chunk {step + 1}/{len(order)} (pairs from x=0x{(c * n) >> 16:04X}): worst so far "
                f"{run.tally.worst_ulp} ulp, {time.perf_counter() - t0:.1f} s")
    _finish(result, run, expectations, t0, len(order))
    return result


def _fused_scorer(run: _Run, fused: bool | None, notes: list[str]):
    """The fused pair scorer of this sweep, or None for the array passes (``fused_build.choose``)."""
    from judge.sweep import fused_pairs
    from judge.sweep.fused_build import choose

    where = "cuda" if run.backend.device == "cuda" else "cpu"
    missing = None if fused_pairs.covered(run.contract.op_kind) else \
        f"no fused pair kernel for {run.contract.op_kind} (covered: {', '.join(fused_pairs.covered_kinds())})"
    return choose(where, fused, notes, lambda: fused_pairs.scorer_for(run, where), missing,
                  "reference and scoring")


def _resident_device(run: _Run, device: str | None):
    """The torch device of a device-resident sweep, or None: the backend takes no device arrays,
    or torch (or its GPU) is missing here."""
    from judge.sweep.resident import takes_device_arrays

    if not takes_device_arrays(run.backend, None):
        return None
    try:
        import torch
    except ImportError:
        return None
    dev = torch.device(device or ("cuda" if run.backend.device == "cuda" else "cpu"))
    return dev if dev.type != "cuda" or torch.cuda.is_available() else None


def new_run(contract, backend, dtype: str) -> _Run:
    """An empty sweep of ``contract`` on ``backend`` in ``dtype`` (``score_chunk`` adds to it)."""
    import oracles

    fmt = get_format(dtype)
    side = 1 << fmt.exponent_bits
    return _Run(contract, backend, oracles.get(contract.op_kind), dtype, scoring.Tally(fmt),
                np.zeros((side, side), np.int64), np.zeros((side, side), np.int64))


def _warm(run: _Run) -> None:
    """Load the pure oracle's modules before the clock starts (a cost per process)."""
    from judge.sweep import pair_reference
    from oracles.fast import pure

    one = np.array([0x3C00 if run.dtype == "F16" else 0x3F80], np.uint16)
    pair_reference.reference(run.contract.op_kind, one, one, run.dtype, run.contract.semantics.values(),
                    pure(run.opdef.evaluate))


def _pair_bits(start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    p = np.arange(start, start + n, dtype=np.int64)
    return (p >> 16).astype(np.uint16), (p & 0xFFFF).astype(np.uint16)


def _chunk(run: _Run, result: PairSweep, start: int, n: int, *, first: bool) -> None:
    if run.resident is not None:
        return _chunk_resident(run, result, start, n, first=first)
    a_bits, b_bits = _pair_bits(start, n)
    t = time.perf_counter()
    y = _kernel_outputs(run, a_bits, b_bits)
    if first and run.contract.determinism != "nondeterministic":
        if not np.array_equal(y, _kernel_outputs(run, a_bits, b_bits)):
            result.row.nondeterministic_runs += 1
            result.notes.append(f"pairs from 0x{start:08X}: a repeat call gave different bits")
    run.times["adapter_s"] += time.perf_counter() - t
    _unwritten(run, y, a_bits, b_bits, start)
    if run.fused is not None:
        from judge.sweep import fused_pairs

        fused_pairs.score_chunk(run, run.fused, start, n, y, describe_pair(run.dtype))
    else:
        score_chunk(run, start, a_bits, b_bits, y)


def _chunk_resident(run: _Run, result: PairSweep, start: int, n: int, *, first: bool) -> None:
    """``_chunk`` with the pairs, the outputs and their checks on the device."""
    import torch

    from judge.sweep import resident_pairs as rp

    dev, dtype = run.resident, run.dtype
    shape = _shape_for(run.contract, n)
    t = time.perf_counter()
    inputs = rp.pair_inputs(torch, dev, start, n, dtype)
    y = rp.pair_call(torch, run.backend, run.contract, inputs, shape, dtype)
    if first and run.contract.determinism != "nondeterministic":
        if not torch.equal(y, rp.pair_call(torch, run.backend, run.contract, inputs, shape, dtype)):
            result.row.nondeterministic_runs += 1
            result.notes.append(f"pairs from 0x{start:08X}: a repeat call gave different bits")
    count, first_unwritten = rp.unwritten(
        torch, y, start, dtype,
        lambda pair=inputs: rp.pair_call(torch, run.backend, run.contract, pair, shape, dtype, rp.second_fill(dtype)))
    del inputs
    run.times["adapter_s"] += time.perf_counter() - t
    if count:
        run.counts["unwritten"] += count
        run.counts.setdefault("unwritten_first", first_unwritten)
    if run.fused is None:
        score_chunk(run, start, *_pair_bits(start, n), y.cpu().numpy().view(np.uint16))
        return
    from judge.sweep import fused_pairs

    if run.fused.engine.where == "cuda":
        import cupy

        y_bits = cupy.from_dlpack(y).view(cupy.uint16)
    else:
        y_bits = y.cpu().numpy().view(np.uint16)
    fused_pairs.score_chunk(run, run.fused, start, n, y_bits, describe_pair(dtype))


def score_chunk(run: _Run, start: int, a_bits, b_bits, y) -> None:
    """Score the output bits ``y`` of the pairs (a_bits[i], b_bits[i]), pair numbers ``start``
    on, against the certified reference: the rulebook's totals and the exponent grid."""
    from judge.sweep import pair_reference
    from oracles.fast import pairs, pure

    fmt = get_format(run.dtype)
    t = time.perf_counter()
    rules = run.contract.semantics.values()
    evaluate = pure(run.opdef.evaluate)
    bits, hi, lo = pair_reference.reference(run.contract.op_kind, a_bits, b_bits, run.dtype, rules, evaluate,
                                            run.counts)
    pairs.cross_check(run.contract.op_kind, a_bits, b_bits, bits, run.dtype, rules, evaluate, run.rng, run.counts)
    alternative = pair_reference.admitted(run.contract.op_kind, a_bits, b_bits, run.dtype, rules)
    if alternative is not None:  # a result the contract admits beside the oracle's is the expected one there
        alt, has_alt = alternative
        bits = np.where(has_alt & (y == alt), y, bits)
    run.times["reference_s"] += time.perf_counter() - t
    t = time.perf_counter()
    subnormal = _subnormal(a_bits, fmt) | _subnormal(b_bits, fmt)
    packed = (a_bits.astype(np.int64) << 16) | b_bits
    scoring.add_chunk(run.tally, start, packed, y, bits, hi, lo=lo, subnormal_input=subnormal,
                      kind=bound_kind(run.contract, run.opdef), precision=run.contract.precision,
                      rules=run.contract.semantics, describe_input=describe_pair(run.dtype))
    _exponent_grid(run, a_bits, b_bits, y, bits, fmt)
    run.times["scoring_s"] += time.perf_counter() - t


def _kernel_outputs(run: _Run, a_bits, b_bits, fill: int | None = None) -> np.ndarray:
    """The backend's output bits for the pairs, flat (the adapter's ``run``, as a sweep calls it),
    into an output holding the poison (or the bits ``fill``)."""
    fmt = get_format(run.dtype)
    shape = _shape_for(run.contract, a_bits.size)
    strides = contiguous_strides(shape)
    args = [TensorArg(x.view(fmt.numpy_dtype), shape, strides, 0, run.dtype) for x in (a_bits, b_bits)]
    fill = POISON_BITS[run.dtype] if fill is None else fill
    base = np.full(a_bits.size, fill, dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    out = TensorArg(base, shape, strides, 0, run.dtype)
    returned = run.backend.run(run.contract, KernelCall(args, {}, [out], [run.dtype], "pair-sweep"))
    y = np.asarray(returned[0] if returned is not None else base)
    if y.dtype != fmt.numpy_dtype or y.size != a_bits.size:
        raise AssertionError(f"{run.backend.name} returned {y.dtype} {y.shape}, expected {run.dtype} {shape}")
    return np.ascontiguousarray(y).reshape(-1).view(fmt.bits_dtype)


def _subnormal(bits: np.ndarray, fmt) -> np.ndarray:
    exponent = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    return ((bits & exponent) == 0) & ((bits & ((1 << fmt.mantissa_bits) - 1)) != 0)


def _unwritten(run: _Run, y, a_bits, b_bits, start: int) -> None:
    """Outputs still holding the poison (``resident_pairs.held_poison``) and, on a second call
    into another fill (made only where some do), that fill (``resident_pairs.second_fill``):
    counted with the first's pair number."""
    from judge.sweep.resident_pairs import held_poison, second_fill

    held = held_poison(y, a_bits, b_bits, run.dtype)
    if held.any():
        fill = second_fill(run.dtype)
        held &= _kernel_outputs(run, a_bits, b_bits, fill) == fill
    count = int(held.sum())
    if count:
        run.counts["unwritten"] += count
        run.counts.setdefault("unwritten_first", start + int(np.flatnonzero(held)[0]))


def _exponent_grid(run: _Run, a_bits, b_bits, y, bits, fmt) -> None:
    """Per (exponent of x, exponent of y): pairs whose bits differ (two NaNs never do), and the
    worst ULP distance among those with both results finite."""
    from numerics.ulp import ulp_distance

    table = _values(run.dtype)
    differ = np.flatnonzero((y != bits) & ~(np.isnan(table[y]) & np.isnan(table[bits])))
    if not differ.size:
        return
    ex = (a_bits[differ] >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    ey = (b_bits[differ] >> fmt.mantissa_bits) & ((1 << fmt.exponent_bits) - 1)
    np.add.at(run.off, (ex, ey), 1)
    finite = np.isfinite(table[y[differ]]) & np.isfinite(table[bits[differ]])
    dist = np.where(finite, ulp_distance(y[differ], bits[differ], fmt), 0).astype(np.int64)
    np.maximum.at(run.worst, (ex, ey), dist)


def _values(dtype: str) -> np.ndarray:
    from oracles.fast.pairs import values_of

    return values_of(dtype)


def pair_case(contract, backend, dtype: str, pair: int, finding: Finding):
    """The one-element case of pair number ``pair`` (x = pair >> 16, y = pair & 0xFFFF), replayable
    by ``judge repro`` and citable by a known divergence's ``case``."""
    from judge.cases import CaseRecord

    fmt = get_format(dtype)
    shape = _shape_for(contract, 1)
    inputs = tuple(TensorArg(np.array([bits], fmt.bits_dtype).view(fmt.numpy_dtype).reshape(shape), shape,
                             contiguous_strides(shape), 0, dtype) for bits in ((pair >> 16) & 0xFFFF, pair & 0xFFFF))
    return CaseRecord(contract.kernel, contract.file, backend.name, dtype, inputs, {}, finding.check,
                      finding.message, None, {"pair": f"0x{pair:08X}"})


def describe_pair(dtype: str):
    table = _values(dtype)

    def describe(packed: int) -> str:
        a, b = (int(packed) >> 16) & 0xFFFF, int(packed) & 0xFFFF
        return f"(x, y) = ({float(table[a])!r} (0x{a:04X}), {float(table[b])!r} (0x{b:04X}))"

    return describe


def _finish(result: PairSweep, run: _Run, expectations, t0: float, chunks: int) -> None:
    row, tally = result.row, run.tally
    row.cases = row.elements = tally.elements
    row.ulp_max = float(max(tally.worst_ulp, 0))
    row.ulp_p99 = tally.ulp_p99()
    row.ulp_real_max = round(tally.worst_real, 3) if tally.worst_real >= 0 else None
    row.rel_max, row.abs_max = tally.rel_max, tally.abs_max
    row.nan_mismatch, row.inf_mismatch = tally.mismatches["nan"], tally.mismatches["inf"]
    row.signed_zero_mismatch, row.implausible = tally.mismatches["signed_zero"], tally.mismatches["implausible"]
    row.unwritten_outputs = run.counts["unwritten"]
    row.derived_bound = derived_bound(bound_kind(run.contract, run.opdef))
    failed, reported = scoring.findings(tally, run.contract.semantics)
    describe = describe_pair(run.dtype)
    if run.counts["unwritten"]:
        failed.insert(0, Finding("unwritten", f"output 0: {run.counts['unwritten']:,} element(s) still hold "
                                 f"the poison (never written), first at {describe(run.counts['unwritten_first'])}"))
    if row.nondeterministic_runs:
        failed.insert(0, Finding("determinism", "a repeat call on the same pairs gave different bits"))
    expected = verdict.sweep_expected(expectations, run.contract, run.backend, run.dtype, failed,
                                      whole=tally.elements >= PAIRS, notes=result.notes)
    unexpected, seen = verdict.split(failed, expected)
    row.verdict, row.reason = verdict.decide(unexpected, expected, seen)
    result.message = "\n".join(f"  [{f.check}] {f.message}" for f in unexpected)
    if unexpected:
        first = run.counts.get("unwritten_first") if unexpected[0].check == "unwritten" else tally.at.get(unexpected[0].check)
        if first is not None:
            result.case = pair_case(run.contract, run.backend, run.dtype, int(first), unexpected[0])
            row.counterexample = result.case.case_id
    result.notes += [f"reported, not failed: {f.message.splitlines()[0]}" for f in reported]
    row.seconds = round(time.perf_counter() - t0, 3)
    result.off, result.worst = run.off, run.worst
    m = result.metrics
    m.update(run.times)
    m.update({k: v for k, v in run.counts.items() if k != "unwritten_first"})
    m.update(chunks=chunks, checks=dict(tally.counts), over_bound=tally.over_bound,
             ulp_histogram=tally.histogram(), pairs_per_s=row.cases / max(row.seconds, 1e-9))
    m["full_estimate_s"] = PAIRS / m["pairs_per_s"]
    m["worst_ulp_input"] = describe(tally.worst_idx) if tally.worst_ulp > 0 else ""
    m["worst_real_input"] = describe(tally.worst_real_idx) if tally.worst_real_idx >= 0 else ""
    m["worst"] = (f"worst {tally.worst_ulp} ulp at {m['worst_ulp_input']}" if tally.worst_ulp > 0
                  else "every finite output is the correctly rounded value")
