"""Running items: one contract × backend × dtype, judged over Hypothesis-generated cases.

``run_item`` is what both the pytest plugin and ``judge audit`` call, so their verdicts agree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from judge import verdict
from judge.api import Backend
from judge.cases import CaseRecord
from judge.contracts.model import Contract
from judge.drivers import engine
from judge.drivers.case import case_from_record, judge_case
from judge.drivers.search import JudgeFailure, Search, repeats_for
from judge.executor import Finding
from judge.expectations import Expectations
from judge.profiles import Profile, get_profile
from judge.results import AuditRun, ResultRow
from judge.sandbox import BackendDied
from judge.scoring.rules import bound_kind, derived_bound
from judge.strategies import Case


@dataclass(frozen=True)
class Item:
    contract: Contract
    backend: Backend
    dtype: str

    @property
    def name(self) -> str:
        return f"{self.contract.kernel}[{self.backend.name}-{self.dtype}]"

    @property
    def nodeid(self) -> str:
        return f"{self.contract.file}::{self.name}"

    @property
    def key(self) -> str:
        """What seeds this item's search: the contract file's name, not its path, so a checkout
        anywhere (CI, a laptop, a GPU box) and either spelling of the path generate the same cases."""
        return f"{Path(self.contract.file).name}::{self.name}"


@dataclass
class ItemResult:
    row: ResultRow
    message: str = ""  # the full failure message with the minimal counterexample
    case: CaseRecord | None = None
    ulp_samples: list[float] = field(default_factory=list)
    overhead_seconds: float = 0.0  # the Judge's own time (not backend, not oracle)
    warnings: list[str] = field(default_factory=list)  # Python warnings raised while judging
    # Passing cases the row names (its worst-ULP case, its batch invariance counterexample),
    # saved in cases/ beside the failing one.
    extra_cases: list[CaseRecord] = field(default_factory=list)

    def all_cases(self) -> list[CaseRecord]:
        """Every case to save, the failing one last (it wins where the ids coincide)."""
        return [*self.extra_cases, *([self.case] if self.case is not None else [])]


def format_failure(item: Item, case: Case, findings: list[Finding], record: CaseRecord | None) -> str:
    c = item.contract
    names = tuple(s.name for s in c.inputs) + tuple(f"extra operand {i}" for i in range(len(c.inputs), len(case.inputs)))
    head = (f"{c.file}:{c.location.line} {c.kernel} on {item.backend.name} ({item.dtype}) broke its "
            f"contract; minimal counterexample:\n{case.describe(names[:len(case.inputs)])}")
    body = "\n".join(f"  [{f.check}] {f.message}" for f in findings)
    tail = ""
    if record is not None:
        tail = f"\n  case id: {record.case_id}  (replay: judge repro {record.case_id})"
    return f"{head}\n{body}{tail}"


def run_item(item: Item, profile: Profile, *, seed: int = 0, expectations: Expectations | None = None,
             database=None, collect: bool = False) -> ItemResult:
    """Judge one item over generated cases; never raises for a conformance failure.
    ``collect``: judge the whole budget, listing every unrecorded check met (``_collected``)."""
    import oracles

    t0 = time.perf_counter()
    result = ItemResult(empty_row(item, seed))
    row = result.row
    try:
        opdef = oracles.get(item.contract.op_kind)
    except KeyError as exc:
        row.verdict, row.reason = "error", str(exc)
        return result
    row.derived_bound = derived_bound(bound_kind(item.contract, opdef))
    search = Search(item, profile, seed, database, opdef, result,
                    verdict.known_divergences(expectations, item.contract, item.backend, item.dtype),
                    invariance=_invariance(item, opdef, profile), collect=collect)
    try:
        with engine.shrink_cap(profile.shrink_seconds), engine.no_local_constants():
            search.run()
        search.conclude()
    except JudgeFailure:
        search.conclude()
        _failed(result, item, search.failing, seed)
    except BackendDied as died:
        _died(result, item, search.running, died, seed)
    except Exception as exc:  # noqa: BLE001 - a harness or oracle error is reported as such
        row.verdict = "error"
        row.reason = f"{type(exc).__name__}: {exc}"
        result.message = f"{item.nodeid}: the Judge could not run this item: {row.reason}"
    else:
        row.verdict, row.reason = verdict.decide([], search.expected, search.seen)
        if search.collected:
            _collected(result, item, search.collected, seed)
        elif verdict.is_stale(row.reason):
            result.message = f"{item.nodeid}: {row.reason}"
    if search.ulps:
        arr = np.asarray(search.ulps, dtype=np.float64)
        row.ulp_max = float(arr.max())
        row.ulp_p99 = float(np.percentile(arr, 99))
    row.seconds = round(time.perf_counter() - t0, 4)
    result.overhead_seconds = max(0.0, row.seconds - search.timing["backend"] - search.timing["oracle"])
    return result


def _invariance(item: Item, opdef, profile: Profile):
    """The batch invariance check of the item, where its OpKind's family stacks rows."""
    import oracles
    from oracles.family import Family

    family = oracles.family_of(item.contract.op_kind)
    if family.batch_rows is Family.batch_rows:  # the default: not applicable
        return None
    from judge.invariance import Invariance

    return Invariance(item.contract, item.backend, opdef, family, profile.invariance_cases)


def _failed(result: ItemResult, item: Item, failing: tuple, seed: int) -> None:
    """The item broke its contract on ``failing`` = (minimal case, unexpected findings)."""
    case, findings = failing
    c, row = item.contract, result.row
    record = CaseRecord(c.kernel, c.file, item.backend.name, item.dtype, case.inputs,
                        dict(case.params), findings[0].check, findings[0].message, seed)
    result.case = record
    result.message = format_failure(item, case, findings, record)
    row.verdict, row.reason = verdict.decide(findings, {}, ())
    row.counterexample = record.case_id


def _collected(result: ItemResult, item: Item, collected: dict, seed: int) -> None:
    """A collecting search met unrecorded checks: the row fails naming each, with the first
    case that showed it (kept, not shrunk), for ``judge baseline`` to draft them all at once."""
    c, row = item.contract, result.row
    parts, records = [], {}
    stale = [row.reason] if verdict.is_stale(row.reason) else []
    for check, (case, finding) in sorted(collected.items()):
        rec = CaseRecord(c.kernel, c.file, item.backend.name, item.dtype, case.inputs, dict(case.params),
                         check, finding.message, seed)
        records.setdefault(rec.case_id, rec)
        parts.append(f"{verdict.reason_of(finding)} {verdict.COLLECTED_CASE.format(rec.case_id)}")
    first, *rest = records.values()
    result.case = first
    result.extra_cases.extend(rest)
    row.verdict, row.reason, row.counterexample = "fail", "; ".join(parts + stale), first.case_id
    result.message = (f"{c.file}:{c.location.line} {c.kernel} on {item.backend.name} ({item.dtype}) "
                      f"broke its contract on {len(parts)} unrecorded check(s), each with the first "
                      f"case that showed it (collected, not shrunk):\n" + "\n".join(f"  {p}" for p in parts))


def empty_row(item: Item, seed: int) -> ResultRow:
    """The row of ``item`` before anything is judged (verdict pass, no counts)."""
    return verdict.new_row(item.contract, item.backend, item.dtype, seed=seed)


def _died(result: ItemResult, item: Item, case: Case | None, died: BackendDied, seed: int) -> None:
    """The item's worker crashed or hung: an ``error`` row naming the signal or the timeout,
    and the case it was running saved for ``judge repro`` (which replays it in a sandbox too)."""
    row = result.row
    row.verdict = "error"
    row.reason = died.reason
    if case is None:  # died before any generated case ran (e.g. replaying a recorded one)
        result.message = f"{item.nodeid}: {died.reason}"
        return
    c = item.contract
    record = CaseRecord(c.kernel, c.file, item.backend.name, item.dtype, case.inputs, dict(case.params),
                        died.check, died.reason, seed)
    result.case = record
    row.counterexample = record.case_id
    row.reason = f"{died.reason}, on case {record.case_id}"
    result.message = format_failure(item, case, [Finding(died.check, died.reason)], record)


def unsupported_row(contract: Contract, backend: Backend, dtype: str, reason: str, seed: int | None) -> ResultRow:
    return verdict.new_row(contract, backend, dtype, seed=seed, verdict="unsupported", reason=reason)


def plan_items(contracts, backends, *, cross: bool = False):
    """Yield (contract, backend, dtype, supported: True | reason) for every registrable pairing."""
    from judge.strategies import input_dtypes

    for contract in contracts:
        if not contract.registrable:
            continue
        for backend in backends:
            if backend.device != contract.device and not cross:
                continue
            for dtype in contract.dtype_fan:
                try:
                    ok = backend.supports(contract, input_dtypes(contract, dtype))
                except Exception as exc:  # noqa: BLE001
                    ok = f"supports() raised {type(exc).__name__}: {exc}"
                yield contract, backend, dtype, ok


def judge_task(setup, task) -> ItemResult:
    """One ``judge.parallel.Task``: the item it names, judged. Python warnings raised meanwhile
    (by a library, a kernel run in process, the oracle) go into the result, not to the
    terminal, where they would bury the progress bar: a kernel is judged by its results."""
    import warnings
    from collections import Counter

    item = Item(setup.contracts[task.contract], setup.backends[task.backend], task.dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run_item(item, setup.profile, seed=setup.seed, expectations=setup.expectations,
                          collect=setup.collect)
    seen = Counter(f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})"
                   for w in caught)
    result.warnings = [text if n == 1 else f"{text} (×{n})" for text, n in seen.items()]
    return result


def harness_died(setup, task) -> ItemResult:
    """The row of an item whose harness worker died twice (not its kernel: that has a sandbox)."""
    item = Item(setup.contracts[task.contract], setup.backends[task.backend], task.dtype)
    row = empty_row(item, setup.seed)
    row.verdict = "error"
    row.reason = "the harness worker judging this item died twice (out of memory?)"
    return ItemResult(row, message=f"{item.nodeid}: {row.reason}")


def run_audit(contracts, backends, *, profile: Profile, seed: int = 0, expectations: Expectations | None = None,
              progress=None, cross: bool = False, unavailable: dict[str, str] | None = None,
              jobs: int = 1, shard=None, journal=None, signals=None, collect: bool = False) -> AuditRun:
    """Judge every registrable contract × backend × dtype (of ``shard``, a ``judge.parallel.Shard``,
    if given) in ``jobs`` worker processes; collect rows, cases and ULP samples in plan order.

    ``journal`` (a ``judge.journal.Journal``) holds what an interrupted run finished, which is
    not judged again, and records each item as it finishes. Under ``signals`` (a
    ``judge.parallel.StopSignals``) SIGINT or SIGTERM ends the judging: the run then holds the
    rows that finished, and ``meta["incomplete"]`` says how many of how many items, and why."""
    from judge.parallel import Setup, Task, judge_all, visible_gpus

    plan = [(c, b, d, ok) for c, b, d, ok in plan_items(contracts, backends, cross=cross)]
    keys = [Item(c, b, d).key for c, b, d, _ in plan]
    if shard is not None:
        plan = [p for p, key in zip(plan, keys, strict=True) if shard.holds(key)]
    held = [Item(c, b, d).key for c, b, d, _ in plan]
    started = getattr(journal, "started_at", None) or verdict.now()  # a resumed run's first start
    finished = journal.finished if journal is not None else {}
    rows: list = [None] * len(plan)
    results: dict[int, ItemResult] = {}
    used_contracts = list({id(c): c for c, *_ in plan}.values())
    tasks = []
    for i, (contract, backend, dtype, ok) in enumerate(plan):
        if ok is True and held[i] not in finished:
            tasks.append(Task(i, used_contracts.index(contract), backends.index(backend), dtype))
            continue
        if ok is True:  # finished by the interrupted run this one resumes
            results[i] = finished[held[i]]
        rows[i] = results[i].row if ok is True else unsupported_row(contract, backend, dtype, str(ok), seed)
        if progress is not None:
            progress(rows[i])
    gpus = visible_gpus() if any(b.device == "cuda" for b in backends) else ()
    setup = Setup(tuple(used_contracts), tuple(backends), profile, seed, expectations,
                  judge=judge_task, died=harness_died, gpus=gpus, collect=collect)

    def finished_now(i: int, res: ItemResult) -> None:
        rows[i], results[i] = res.row, res
        if journal is not None:
            journal.record(held[i], res)
        if progress is not None:
            progress(res.row)

    stopped = judge_all(setup, tasks, jobs, finished_now, signals)
    cases = [case for i in sorted(results) for case in results[i].all_cases()]
    samples = {(r.kernel, r.backend, r.dtype): np.asarray(results[i].ulp_samples, dtype=np.float64)
               for i, r in ((i, results[i].row) for i in sorted(results))}
    meta = verdict.run_meta(
        profile=profile.name, seed=seed, backends=backends, unavailable=unavailable, items=len(plan),
        started_at=started, jobs=jobs, shard=str(shard) if shard is not None else None,
        plan=keys,  # every item key of the unsharded plan, in order: what `judge merge` sorts by
        not_applicable=verdict.not_applicable_entries(expectations, [(c.kernel, b, d) for c, b, d, _ in plan]),
    )
    done = [r for r in rows if r is not None]
    if stopped is not None:
        meta["incomplete"] = {"signal": stopped, "finished": len(done), "items": len(plan)}
    return AuditRun(done, cases, samples, meta)


def replay_case(record: CaseRecord, *, contracts_path=None, expectations: Expectations | None = None):
    """Re-run one recorded case in a sandbox: returns (verdict, message), verdict pass | fail |
    xfail | error (the case crashed or hung its worker)."""
    import oracles
    from judge.registry import default_registry
    from judge.suite import load_paths

    source = contracts_path or record.file
    if contracts_path is None and not Path(source).exists():
        # recorded on another checkout: the embedded suite's file of the same name
        from judge.contracts import default_suite_path

        source = Path(default_suite_path()) / Path(record.file).name
    loaded = load_paths([source])
    matches = [c for c in loaded.contracts if c.kernel == record.kernel]
    if not matches:
        raise LookupError(f"kernel {record.kernel!r} not found in {contracts_path or record.file}")
    contract = matches[0]
    registry = default_registry().load_all()
    if record.backend not in registry.backends:
        raise LookupError(f"backend {record.backend!r} is not registered")
    why = registry.availability([record.backend])[record.backend]
    if why is not True:
        raise LookupError(f"backend {record.backend!r} is unavailable: {why}")
    backend = registry.handle(record.backend)  # a case that crashes its worker cannot kill us
    case = case_from_record(record)
    item = Item(contract, backend, record.dtype)
    opdef = oracles.get(contract.op_kind)
    check = _invariance(item, opdef, get_profile("ci"))
    try:
        outcome = judge_case(contract, backend, case, opdef, repeats=repeats_for(contract, get_profile("ci")))
        if check is not None and not outcome.findings:  # a batch invariance counterexample too
            outcome.findings += [f for f in [check.check(case)] if f is not None]
    except BackendDied as died:
        return "error", format_failure(item, case, [Finding(died.check, died.reason)], record)
    finally:
        backend.close()
    expected = verdict.known_divergences(expectations, contract, backend, record.dtype)
    unexpected, _ = verdict.split(outcome.findings, expected)
    if unexpected:
        return "fail", format_failure(item, case, unexpected, record)
    if outcome.findings:
        return "xfail", format_failure(item, case, outcome.findings, record)
    varies = f"; its rows are not batch invariant: {check.varies}" if check is not None and check.varies else ""
    return "pass", f"{item.nodeid}: the recorded case now conforms{varies}"
