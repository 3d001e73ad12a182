"""One exhaustive sweep: a contract × backend × 16-bit dtype over a whole input set.

The kernel runs once on every input of the set in a single call (plus one repeat where the
contract promises determinism) through the harness's executor, so poison-filled outputs, input
immutability, dtype/shape rules and repeat determinism are checked exactly as for generated
cases. The oracle's answer comes from a cached table (``judge.sweep.tables``), re-checked against
the pure oracle on a random sample every time, and the output is scored by the vectorised scorer
(``judge.scoring.vector``), which applies the rulebook (``judge.scoring.rules``). The verdict is
the harness's (``judge.verdict``): an unexpected finding fails, a known divergence
(suites/expectations.toml) is an xfail, an expectation that no longer fails is stale.

One exhaustive-sweep subtlety: the executor's poison pattern is itself a quiet NaN bit pattern, so it
is also one of the 65,536 inputs (as are its signalling and negative twins), and a kernel that
propagates (or negates) NaN payloads writes the poison back at those positions. An output equal
to the poison where the same-format input at that position carries the poison's payload is
therefore not counted as unwritten (the generated cases, which never
contain the poison, check those kernels' writes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from judge import verdict
from judge.api import Backend, TensorArg, contiguous_strides
from judge.cases import CaseRecord
from judge.contracts.model import Contract
from judge.executor import Finding, execute, output_dtypes
from judge.expectations import Expectations
from judge.results import ResultRow
from judge.scoring.describe import describe, describe_bits
from judge.scoring.rules import bound_kind, derived_bound
from judge.scoring.vector import Expected, VectorScore, score_elementwise
from judge.sweep import tables
from judge.sweep.inputs import GRID_SIZE, SWEEP_FORMATS, as_values
from numerics.formats import get_format
from numerics.values import POISON_BITS

# Op-param fields the executor derives itself (element counts, fast-path flags): no choice to make.
DERIVED_PARAMS = {"n", "out_size", "flags", "input_shape"}


@dataclass
class SweepResult:
    row: ResultRow
    score: VectorScore | None = None
    findings: list[Finding] = field(default_factory=list)
    message: str = ""  # the failure message (empty on pass)
    worst: str = ""  # worst ULP element, spelled out
    case: CaseRecord | None = None
    timings: dict[str, float] = field(default_factory=dict)
    table_cached: bool = False
    input_set: str = ""


def rules_of(contract: Contract) -> dict[str, str]:
    return contract.semantics.values()


def opdef_or_reason(contract: Contract):
    """The contract's OpDef, or why the oracle has none."""
    import oracles

    try:
        return oracles.get(contract.op_kind or "")
    except KeyError as exc:
        return str(exc)


def backend_supports(backend: Backend, contract: Contract, dtypes: tuple[str, ...]) -> bool | str:
    """``backend.supports``; one that raises is reported, not fatal."""
    try:
        return backend.supports(contract, dtypes)
    except Exception as exc:  # noqa: BLE001 - a raising supports() is reported, not fatal
        return f"supports() raised {type(exc).__name__}: {exc}"


def sweep_support(contract: Contract, backend: Backend, dtype: str, *, cross: bool = False) -> bool | str:
    """True if this sweep can run, else why not (the reason goes into an ``unsupported`` row)."""
    from judge.strategies import input_dtypes

    if dtype not in SWEEP_FORMATS:
        return f"a CPU-side exhaustive sweep covers {', '.join(SWEEP_FORMATS)}; {dtype} is not one"
    if dtype not in contract.dtype_fan:
        return f"{contract.kernel} does not accept {dtype} (accepts {', '.join(contract.dtype_fan)})"
    if backend.device != contract.device and not cross:
        return (f"backend {backend.name} runs on {backend.device}; the contract is for "
                f"{contract.device} (pass --cross to judge it anyway)")
    opdef = opdef_or_reason(contract)
    if isinstance(opdef, str):
        return opdef
    if opdef.sweep_inputs is None:
        import oracles

        return (f"{contract.op_kind} ({oracles.family_of(contract.op_kind).name}) has no "
                f"exhaustive input set; sweeps cover elementwise unary, binary and compare ops")
    chosen = [f.name for f in contract.op_params.fields if f.name not in DERIVED_PARAMS]
    if chosen:
        return f"{contract.kernel} takes op params ({', '.join(chosen)}); a sweep has no values for them"
    in_dtypes = input_dtypes(contract, dtype)
    if any(d != dtype for d in in_dtypes):
        return f"mixed input dtypes {in_dtypes}: a sweep feeds every operand the same format"
    return backend_supports(backend, contract, in_dtypes)


def _shape_for(contract: Contract, n: int) -> tuple[int, ...]:
    """(n,) when rank 1 is accepted, else n padded with unit axes to the smallest accepted rank."""
    ranks = [spec.rank for spec in contract.inputs]
    if all(r.contains(1) for r in ranks):
        return (n,)
    lo = max(r.lo for r in ranks)
    return (n,) + (1,) * max(lo - 1, 0)


def _tensor(bits: np.ndarray, dtype: str, shape: tuple[int, ...]) -> TensorArg:
    values = as_values(bits, dtype).copy()
    return TensorArg(values, shape, contiguous_strides(shape), 0, dtype)


def sweep(contract: Contract, backend: Backend, dtype: str, *, processes: int = 2,
          grid_size: int = GRID_SIZE, expectations: Expectations | None = None,
          table_dir=None, on_build=None) -> SweepResult:
    """Sweep one kernel on one backend; never raises for a conformance failure."""
    import oracles

    t0 = time.perf_counter()
    row = verdict.new_row(contract, backend, dtype)
    result = SweepResult(row)
    opdef = oracles.get(contract.op_kind)
    out_dtype = output_dtypes(contract, (dtype,) * len(contract.inputs))[0]
    input_set = "all" if opdef.sweep_inputs == "all" else f"grid{grid_size}"
    result.input_set = input_set
    spec = tables.TableSpec.of(contract.op_kind, dtype, out_dtype, input_set, rules_of(contract))

    t = time.perf_counter()
    table = tables.get(spec, processes=processes, directory=table_dir, on_build=on_build)
    tables.cross_check(table)
    result.timings["table"] = time.perf_counter() - t
    result.table_cached = table.from_cache

    bits = tables.input_bits(spec)
    n = bits[0].size
    shape = _shape_for(contract, n)
    inputs = tuple(_tensor(b, dtype, shape) for b in bits)
    values = tuple(t.to_array() for t in inputs)
    repeats = 0 if contract.determinism == "nondeterministic" else 1
    ex = execute(backend, contract, inputs, {}, repeats=repeats)
    result.timings["backend"] = ex.backend_seconds
    findings = [f for f in ex.findings if f.check != "unwritten"]
    row.cases = n
    row.shape_dtype_errors = sum(f.check in ("dtype", "shape") for f in ex.findings)
    row.nondeterministic_runs = ex.nondeterministic_runs
    if ex.outputs is not None:
        unwritten = _unwritten(ex.outputs[0], bits, dtype, out_dtype)
        if unwritten is not None:
            findings.append(unwritten)
            row.unwritten_outputs = 1
        t = time.perf_counter()
        names = tuple(s.name for s in contract.inputs)
        expected = Expected(table.bits, table.hi, table.lo, table.has_exact, table.tiny, table.alt, table.has_alt)
        score = score_elementwise(contract, opdef, contract.semantics, values, names, {},
                                  ex.outputs[0], expected, out_dtype)
        result.timings["scoring"] = time.perf_counter() - t
        result.score = score
        findings.extend(score.findings)
        _fill_row(row, score, contract, opdef)
        result.worst = _worst(score, values, names, ex.outputs[0], table, out_dtype)
    _verdict(result, contract, backend, dtype, findings, expectations, values)
    row.seconds = round(time.perf_counter() - t0, 4)
    result.timings["total"] = row.seconds
    return result


def _unwritten(out: np.ndarray, bits: list[np.ndarray], dtype: str, out_dtype: str) -> Finding | None:
    poison = POISON_BITS[out_dtype]
    held = np.ascontiguousarray(out).view(get_format(out_dtype).bits_dtype).reshape(-1) == poison
    if dtype == out_dtype:
        # a NaN input carrying the poison's payload (whatever its sign and quiet bit) comes back
        # as the poison from a kernel that propagates or negates NaNs: indistinguishable from an
        # unwritten element
        fmt = get_format(dtype)
        keep = ~((1 << (fmt.bits - 1)) | (1 << (fmt.mantissa_bits - 1)))
        for b in bits:
            held &= (b.reshape(-1).astype(np.int64) & keep) != (poison & keep)
    idx = np.flatnonzero(held)
    if not idx.size:
        return None
    return Finding("unwritten", f"output 0: {idx.size} element(s) still hold the poison pattern "
                   f"0x{poison:X} (never written), first at index {int(idx[0])}", 0, (int(idx[0]),))


def _fill_row(row: ResultRow, score: VectorScore, contract: Contract, opdef) -> None:
    row.elements = score.elements
    if score.ulp.size:
        row.ulp_max = float(score.ulp.max())
        row.ulp_p99 = float(np.percentile(score.ulp.astype(np.float64), 99))
    row.ulp_real_max = score.ulp_real_max()
    row.rel_max = score.rel_max
    row.abs_max = score.abs_max
    row.implausible = score.implausible
    row.nan_mismatch = score.nan_mismatch
    row.inf_mismatch = score.inf_mismatch
    row.signed_zero_mismatch = score.signed_zero_mismatch
    row.derived_bound = derived_bound(bound_kind(contract, opdef))


def _inputs_at(values, names, i: int) -> str:
    return ", ".join(f"{name}={describe(v.reshape(-1)[i])}" for name, v in zip(names, values, strict=True))


def _worst(score: VectorScore, values, names, observed, table, out_dtype: str) -> str:
    if not score.ulp.size:
        return "no finite output pairs to measure"
    fmt = get_format(out_dtype)
    j = int(np.argmax(score.ulp))
    i = int(score.ulp_index[j])
    obs = int(np.ascontiguousarray(observed).view(fmt.bits_dtype).reshape(-1)[i])
    if score.ulp[j] == 0:
        text = "every finite output is the correctly rounded value"
    else:
        text = (f"worst {int(score.ulp[j])} ulp at {_inputs_at(values, names, i)}: expected "
                f"{describe_bits(int(table.bits[i]), fmt)}, observed {describe_bits(obs, fmt)}")
    if score.ulp_real.size:
        k = int(np.argmax(score.ulp_real))
        text += (f"; ulp-real max {score.ulp_real_max():.3f} at "
                 f"{_inputs_at(values, names, int(score.ulp_real_index[k]))}")
    return text


def _verdict(result: SweepResult, contract, backend, dtype, findings, expectations, values) -> None:
    row = result.row
    result.findings = findings
    expected = verdict.sweep_divergences(expectations, contract, backend, dtype)
    unexpected, seen = verdict.split(findings, expected)
    row.verdict, row.reason = verdict.decide(unexpected, expected, seen)
    if unexpected:
        result.message = "\n".join(f"  [{f.check}] {f.message}" for f in unexpected)
        result.case = _counterexample(result, contract, backend, dtype, unexpected[0], values)
        if result.case is not None:
            row.counterexample = result.case.case_id
    elif verdict.is_stale(row.reason):
        result.message = row.reason


def _counterexample(result: SweepResult, contract, backend, dtype, finding: Finding, values):
    """A one-element case holding the first failing input, replayable by ``judge repro``."""
    score = result.score
    if score is not None and finding.check in score.failing:
        i = int(score.failing[finding.check][0])
    elif finding.index:
        i = int(finding.index[0])
    else:
        return None
    shape = _shape_for(contract, 1)
    inputs = tuple(TensorArg(np.ascontiguousarray(v.reshape(-1)[i:i + 1]), shape,
                             contiguous_strides(shape), 0, dtype) for v in values)
    return CaseRecord(contract.kernel, contract.file, backend.name, dtype, inputs, {},
                      finding.check, finding.message, None, {"sweep_element": i})
