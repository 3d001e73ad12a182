"""The search of one item: Hypothesis draws cases, each is judged (``judge.drivers.case``), and
what it measured is added to the item's row.

Besides each case's verdict the search keeps what a row says of the whole item: the case
holding the worst-ULP element (saved even when the row passes, for ``judge propose``), the
spread between repeats, which declared fast paths the cases took, and the batch invariance
property (``judge.invariance``). None of these draws from Hypothesis: the cases drawn for an
item are the same with them or without.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from judge import verdict
from judge.cases import Case, CaseRecord
from judge.drivers import engine, grid, invalid
from judge.drivers.case import CaseOutcome, judge_case, recorded_case_shows
from judge.layouts import FAST_PATHS
from judge.refusal import CHECK
from judge.strategies import case_strategy, search_parts

MAX_SAMPLES = 20000
STALE_RETRIES = 2  # extra searches before a known divergence that did not show is stale


class JudgeFailure(AssertionError):
    """A broken contract promise on one case (what Hypothesis shrinks)."""


def repeats_for(contract, profile) -> int:
    """Extra runs of each case: a nondeterministic contract runs ``profile.repeats`` times in
    all (each held to the bound, their spread measured); any other twice (same bits or fail)."""
    return max(profile.repeats - 1, 1) if contract.determinism == "nondeterministic" else 1


@dataclass
class Search:
    """The Hypothesis search of one item: every case judged, the known divergences seen."""

    item: object  # judge.runner.Item
    profile: object
    seed: int
    database: object
    opdef: object
    result: object  # judge.runner.ItemResult
    expected: dict
    invariance: object = None  # judge.invariance.Invariance, where the family has rows
    seen: dict[str, str] = field(default_factory=dict)  # expected check -> where it showed
    ulps: list[int] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=lambda: {"backend": 0.0, "oracle": 0.0})
    running: Case | None = None  # what a dying worker was running
    # Collecting (``judge audit --collect``): an unexpected finding does not end the search; the
    # first case of each failing check is kept instead, so the whole budget runs, on the cases a
    # run with all of them recorded would draw.
    collect: bool = False
    collected: dict = field(default_factory=dict)  # check -> (first case, its finding)
    failing: tuple | None = None  # (case, unexpected findings) of the first failing case
    worst: tuple[int, Case] | None = None  # (ULP, case) of the worst-ULP element so far
    paths: Counter = field(default_factory=Counter)  # fast path -> cases that took it

    @property
    def repeats(self) -> int:
        return repeats_for(self.item.contract, self.profile)

    def judge(self, case: Case) -> tuple[CaseOutcome, list]:
        """Judge one case and count it in the row: (outcome, its unexpected findings)."""
        self.running = case
        outcome = judge_case(self.item.contract, self.item.backend, case, self.opdef, repeats=self.repeats)
        record(self.result, outcome, self.ulps)
        self.timing["backend"] += outcome.backend_seconds
        self.timing["oracle"] += outcome.oracle_seconds
        self.paths.update(outcome.paths)
        top = max((u for s in (outcome.score, *outcome.repeat_scores) for u in s.ulp), default=None)
        if top is not None and (self.worst is None or top > self.worst[0]):
            self.worst = (top, case)
        findings = list(outcome.findings)
        if self.invariance is not None and not findings:
            broken = self.invariance.check(case)
            findings += [broken] if broken is not None else []
        unexpected, _ = verdict.split(findings, self.expected)
        for f in findings:
            if f.check in self.expected:
                self.seen.setdefault(f.check, f.message)
        return outcome, unexpected

    def body(self, case: Case) -> None:
        outcome, unexpected = self.judge(case)
        if not case.long:  # a long case has a search of its own, never a target
            engine.aim(outcome.score.aim())
        if unexpected:
            self.fail(case, unexpected)

    def fail(self, case: Case, unexpected: list) -> None:
        """``case`` broke a promise no entry records: the search ends there, or, collecting,
        the first case of each such check is kept and the search goes on."""
        if not self.collect:
            self.failing = (case, unexpected)
            raise JudgeFailure(unexpected[0].message)
        for f in unexpected:
            self.collected.setdefault(f.check, (case, f))

    def grid(self) -> None:
        """The special-value grid: one deterministic case beside the search (judge.drivers.grid)."""
        failing = grid.judge_grid(self.item.contract, self.item.backend, self.item.dtype, self.opdef,
                                  self.repeats, self.expected, self.judge)
        if failing is not None:
            self.fail(*failing)

    def errors(self) -> None:
        """The error inputs: cases the kernel must refuse (judge.drivers.invalid)."""
        item = self.item
        if not invalid.applies(item.contract, item.dtype, self.profile):
            # No error inputs on this item (another dtype's, or a profile with none): a known
            # accepts_invalid is not judged here, so it is neither seen nor stale.
            self.expected = {c: e for c, e in self.expected.items() if c != CHECK}
            return
        # A known accepts_invalid that these error inputs did not show gets other seeds first.
        for extra in range(STALE_RETRIES + 1):
            failing = invalid.judge_errors(item.contract, item.backend, item.dtype, self.opdef,
                                           self.profile, item_seed(item, self.seed + extra), item.key,
                                           self.expected, self.seen)
            if failing is not None:
                self.fail(*failing)
                if self.collect:
                    break
            if CHECK not in self.expected or CHECK in self.seen:
                break

    def attempt(self, extra: int, examples: int) -> None:
        item, profile = self.item, self.profile
        for long, count in search_parts(item.contract, examples, profile.budget):
            engine.run_seeded(self.body, case_strategy(item.contract, item.dtype, profile.budget, long),
                              seed=item_seed(item, self.seed + extra) ^ (0x10A6 if long else 0),
                              examples=count, key=item.key + (":long" if long else ""),
                              database=self.database if profile.use_database and not extra else None)

    def run(self) -> None:
        contract, backend = self.item.contract, self.item.backend
        self.grid()
        self.errors()
        self.attempt(0, self.profile.max_examples)
        # An entry's recorded counterexample settles it before any further search.
        for check in sorted(set(self.expected) - set(self.seen)):
            if recorded_case_shows(contract, backend, self.expected[check], self.opdef, self.repeats):
                self.seen[check] = f"recorded case {Path(self.expected[check].case_file).stem}"
        # A known divergence is a sampled event: before calling an entry stale, look again,
        # with more cases and other seeds (deterministic for a given seed).
        for extra in range(1, STALE_RETRIES + 1):
            if not set(self.expected) - set(self.seen):
                break
            self.attempt(extra, 2 * self.profile.max_examples)

    def conclude(self) -> None:
        """Write what the whole search measured into the row: the worst-ULP case (kept with
        the row's cases), the fast paths taken, the batch invariance property."""
        row, c = self.result.row, self.item.contract
        if self.worst is not None:
            ulp, case = self.worst
            kept = self._keep(case, "", f"the row's worst-ULP element: {ulp} ulp")
            row.ulp_max_case = kept.case_id
        declared = [p for p in FAST_PATHS if any(fp.get("when") == p for fp in c.caps.fast_paths)]
        row.fast_path_cases = " ".join(f"{p}={self.paths.get(p, 0)}" for p in declared)
        if self.invariance is not None:
            case_id = ""
            if self.invariance.case is not None:
                case_id = self._keep(self.invariance.case, "", self.invariance.varies).case_id
            row.batch_invariance = self.invariance.status(case_id)

    def _keep(self, case: Case, check: str, message: str) -> CaseRecord:
        c, b = self.item.contract, self.item.backend
        kept = CaseRecord(c.kernel, c.file, b.name, self.item.dtype, case.inputs, dict(case.params),
                          check, message, self.seed)
        self.result.extra_cases.append(kept)
        return kept


def item_seed(item, seed: int) -> int:
    import zlib

    return (zlib.crc32(item.key.encode()) ^ (seed * 0x9E3779B1)) & 0xFFFFFFFF


def record(result, outcome: CaseOutcome, ulps: list[int]) -> None:
    """Add one case's measurements (every scored run's) to the item's row."""
    row = result.row
    row.cases += 1
    row.elements += outcome.score.elements
    for s in (outcome.score, *outcome.repeat_scores):
        ulps.extend(s.ulp)
        if len(result.ulp_samples) < MAX_SAMPLES:
            result.ulp_samples.extend(s.ulp_real[: MAX_SAMPLES - len(result.ulp_samples)])
        if s.ulp_real:
            row.ulp_real_max = max(row.ulp_real_max or 0.0, max(s.ulp_real))
        row.rel_max = max(row.rel_max or 0.0, s.rel_max)
        row.abs_max = max(row.abs_max or 0.0, s.abs_max)
        if s.bound_used is not None:
            row.bound_used = max(row.bound_used or 0.0, s.bound_used)
        row.implausible += s.implausible
        row.nan_mismatch += s.nan_mismatch
        row.inf_mismatch += s.inf_mismatch
        row.signed_zero_mismatch += s.signed_zero_mismatch
    row.nondeterministic_runs += outcome.nondeterministic_runs
    if outcome.spread_ulp is not None:
        row.repeat_spread_ulp = max(row.repeat_spread_ulp or 0.0, outcome.spread_ulp)
        row.repeat_spread_elements += outcome.spread_elements
    row.unwritten_outputs += outcome.unwritten
    row.shape_dtype_errors += outcome.shape_dtype_errors

