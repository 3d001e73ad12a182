"""Verdicts (SPEC §8, §9): findings against known divergences, and the rows and run metadata
that carry them — built here once, for the search, the 16-bit sweeps and the F32 sweeps.

A finding is a broken promise (``judge.executor.Finding``, named by its check). Against the
known divergences of ``suites/expectations.toml`` that apply to the item:

- an unexpected finding fails the item (its reason names the first);
- an expected check that never showed is *stale*: the item fails, so the entry gets removed;
- expected checks that showed, and nothing else: xfail;
- no finding: pass.

Findings the rulebook only *reports* (``judge.scoring.rules.is_reported``) never reach here.
"""

from __future__ import annotations

import datetime as _dt

from judge.expectations import Expectation, Expectations
from judge.results import ResultRow


def known_divergences(expectations: Expectations | None, contract, backend, dtype: str) -> dict[str, Expectation]:
    """{check: entry} of the known divergences that apply to this item, on this backend's
    environment (entries scoped elsewhere are not applicable here)."""
    return (expectations or Expectations()).for_item(contract.kernel, backend.name, dtype,
                                                     fingerprint_of(backend))


# What an exhaustive sweep sees: its outputs' values, a repeat call's bits and elements left
# unwritten. It runs no error input, guard, alias or batch, so a known divergence of another check
# is not judged by a sweep: neither seen nor stale there.
SWEEP_CHECKS = frozenset({"nan", "inf", "signed_zero", "subnormal", "exact", "ties", "ulp", "bound",
                          "implausible", "determinism", "unwritten", "payload"})


def sweep_divergences(expectations: Expectations | None, contract, backend, dtype: str) -> dict[str, Expectation]:
    """``known_divergences`` of the checks a sweep judges (``SWEEP_CHECKS``)."""
    found = known_divergences(expectations, contract, backend, dtype)
    return {check: e for check, e in found.items() if check in SWEEP_CHECKS}


def sweep_expected(expectations: Expectations | None, contract, backend, dtype: str, findings, *,
                   whole: bool, notes: list[str]) -> dict[str, Expectation]:
    """The known divergences a sweep judges: those of the checks it can see
    (``sweep_divergences``), and for a sweep of part of the inputs (``--chunks``, ``--limit``;
    ``whole`` False) only those it saw: one it did not see may sit in the inputs it left out, so
    it is not stale there (a note says so)."""
    expected = sweep_divergences(expectations, contract, backend, dtype)
    if whole:
        return expected
    checks = {f.check for f in findings}
    unseen = sorted(set(expected) - checks)
    if unseen:
        notes.append(f"a sweep in part: known {', '.join(unseen)} not seen in these inputs, not judged stale")
    return {check: e for check, e in expected.items() if check in checks}


def not_applicable_entries(expectations: Expectations | None, items) -> list[dict]:
    """The report's "not applicable here" list: for (kernel, backend, dtype) items, every entry
    naming one of them whose scope does not hold on that backend's environment."""
    from judge.fingerprint import describe_scope

    out, seen = [], set()
    for kernel, backend, dtype in items:
        found = (expectations or Expectations()).inactive(kernel, backend.name, dtype, fingerprint_of(backend))
        for e in found:
            if (e.line, e.kernel, e.backend, e.dtype, e.check) not in seen:
                seen.add((e.line, e.kernel, e.backend, e.dtype, e.check))
                out.append({"kernel": e.kernel, "backend": e.backend, "dtype": e.dtype,
                            "check": e.check, "scope": describe_scope(e.scope), "line": e.line})
    return out


def fingerprint_of(backend) -> dict[str, str]:
    """The backend's environment fingerprint, host facts included (``judge.fingerprint``)."""
    from judge.fingerprint import of_backend

    return of_backend(backend)


def split(findings, expected: dict[str, Expectation]) -> tuple[list, set[str]]:
    """(unexpected findings, checks of the expected ones seen)."""
    unexpected = [f for f in findings if f.check not in expected]
    return unexpected, {f.check for f in findings if f.check in expected}


# How a collecting search's row names the case of each check in its reason ("... (case ID)").
COLLECTED_CASE = "(case {})"


def reason_of(finding) -> str:
    """A finding's one-line reason, led by its check."""
    head = finding.message.splitlines()[0] if finding.message else ""
    return head if head.startswith(f"{finding.check}:") else f"{finding.check}: {head}"


def decide(unexpected, expected: dict[str, Expectation], seen) -> tuple[str, str]:
    """(verdict, reason) of an item from its unexpected findings and the expected checks seen."""
    if unexpected:
        return "fail", reason_of(unexpected[0])
    stale = sorted(set(expected) - set(seen))
    if stale:
        return "fail", "stale expectation: " + "; ".join(
            f"{c} (expected because: {expected[c].reason}) no longer fails" for c in stale)
    if seen:
        return "xfail", "; ".join(f"{c}: {expected[c].reason}" for c in sorted(seen))
    return "pass", ""


def is_stale(reason: str) -> bool:
    return reason.startswith("stale expectation")


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def judge_version() -> str:
    from judge import __version__

    return __version__


def new_row(contract, backend, dtype: str, *, seed: int | None = None, verdict: str = "pass",
            reason: str = "") -> ResultRow:
    """The row of one contract × backend × dtype before anything is measured."""
    import json

    return ResultRow(
        suite=contract.suite, file=contract.file, kernel=contract.kernel, op_kind=contract.op_kind or "",
        contract_backend=contract.backend, backend=backend.name, device=backend.device, dtype=dtype,
        revision=contract.revision, bound_ulp=contract.precision.max_ulp,
        audited=contract.precision.audited, verdict=verdict,
        reason=reason, seed=seed, judge_version=judge_version(), started_at=now(),
        fingerprint=json.dumps(fingerprint_of(backend), sort_keys=True),
    )


def run_meta(*, profile: str, seed: int | None, backends, unavailable: dict | None = None,
             items: int | None = None, started_at: str | None = None, **extra) -> dict:
    """The run metadata of an audit, a sweep or a pytest run (``AuditRun.meta``)."""
    import platform

    meta = {
        "seed": seed, "profile": profile, "backends": [b.name for b in backends],
        "devices": {b.name: b.describe() for b in backends},
        "fingerprints": {b.name: fingerprint_of(b) for b in backends},
        "unavailable": dict(unavailable or {}),
        "judge_version": judge_version(), "started_at": started_at or now(),
        "platform": platform.platform(), "python": platform.python_version(),
    }
    if items is not None:
        meta["items"] = items
    meta.update(extra)
    return meta
