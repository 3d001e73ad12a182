"""Judging one case: run the kernel on it, ask the oracle, score every output by the rulebook.

What the search (``judge.runner``) does to every generated case, and what replaying a recorded
case (``judge repro``, a known divergence's recorded counterexample) does to that one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from judge.api import Backend, TensorArg
from judge.cases import Case, CaseRecord
from judge.contracts.model import Contract
from judge.executor import Finding, execute, poison_expected
from judge.layouts import fast_paths_taken
from judge.scoring import Score, score_output


@dataclass
class CaseOutcome:
    findings: list[Finding]
    score: Score  # the first run's
    nondeterministic_runs: int = 0
    shape_dtype_errors: int = 0
    unwritten: int = 0
    backend_seconds: float = 0.0
    oracle_seconds: float = 0.0
    repeat_scores: list[Score] = field(default_factory=list)  # distinct repeats, where scored
    spread_ulp: float | None = None  # max ULP between any two runs (None: one run)
    spread_elements: int = 0
    paths: frozenset[str] = frozenset()  # the fast paths the call took (judge.layouts)


def judge_case(contract: Contract, backend: Backend, case: Case, opdef, *, repeats: int) -> CaseOutcome:
    """Execute one case and score it; returns every broken promise. Under a nondeterministic
    contract every repeat that gave other bits is scored too: each must lie within the bound."""
    ex = execute(backend, contract, case.inputs, case.params, repeats=repeats)
    score = Score()
    outcome = CaseOutcome(list(ex.findings), score, ex.nondeterministic_runs,
                          backend_seconds=ex.backend_seconds, spread_ulp=ex.spread_ulp,
                          spread_elements=ex.spread_elements,
                          paths=fast_paths_taken(ex.kernel_inputs))
    outcome.shape_dtype_errors = sum(f.check in ("dtype", "shape") for f in ex.findings)
    outcome.unwritten = sum(f.check == "unwritten" for f in ex.findings)
    if ex.outputs is None:
        return outcome
    start = time.perf_counter()
    oracle_outs = opdef.evaluate(case.values, case.params, ex.out_dtypes, contract.semantics.values())
    outcome.oracle_seconds = time.perf_counter() - start
    outcome.findings = [f for f in outcome.findings if not poison_expected(
        f, ex.outputs[f.output], oracle_outs[f.output].expected, ex.out_dtypes[f.output])]
    outcome.unwritten = sum(f.check == "unwritten" for f in outcome.findings)
    names = tuple(s.name for s in contract.inputs)

    def scored(outputs, into: Score) -> Score:
        for i, (obs, ref, dt) in enumerate(zip(outputs, oracle_outs, ex.out_dtypes, strict=True)):
            score_output(contract, opdef, contract.semantics, case.values, names, case.params, obs, ref, dt, i, into)
        return into

    outcome.findings.extend(scored(ex.outputs, score).findings)
    for k, outputs in enumerate(ex.repeat_outputs, start=2):
        again = scored(outputs, Score())
        outcome.repeat_scores.append(again)
        outcome.findings.extend(replace(f, message=f"{f.message}\n    (in a repeat run: the {_nth(k)} "
                                                   "distinct result of identical inputs)")
                                for f in again.findings)
    return outcome


def _nth(k: int) -> str:
    return f"{k}{'nd' if k == 2 else 'rd' if k == 3 else 'th'}"


def case_from_record(record: CaseRecord) -> Case:
    """The case a ``CaseRecord`` holds, with contiguous layouts."""
    from judge.layouts import CONTIGUOUS

    inputs = tuple(TensorArg(t.base, t.shape, t.strides, t.offset, t.dtype) for t in record.inputs)
    values = tuple(t.to_array() for t in inputs)
    return Case(record.dtype, inputs, values, tuple(CONTIGUOUS for _ in inputs), dict(record.params))


def recorded_case_shows(contract: Contract, backend: Backend, entry, opdef, repeats: int) -> bool:
    """Whether the entry's recorded counterexample (if any) still breaks the entry's check."""
    if not entry.case_file:
        return False
    record = CaseRecord.load(entry.case_file)
    if (record.kernel, record.backend, record.dtype) != (contract.kernel, backend.name, entry.dtype):
        return False
    try:
        outcome = judge_case(contract, backend, case_from_record(record), opdef, repeats=repeats)
    except Exception:  # noqa: BLE001 - a case that no longer runs does not show the divergence
        return False
    return any(f.check == entry.check for f in outcome.findings)
