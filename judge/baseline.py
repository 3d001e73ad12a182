"""``judge baseline``: the known divergences an audit implies, as a reviewable edit (SPEC §8).

From one or more audit outputs (``results.json`` and ``cases/``) it drafts:

- every unrecorded failure as a new entry: its check, its case (copied to
  ``expectation-cases/``), the run's fingerprint as its scope and ``reason = "TODO: ..."``
  (which loads, so the draft can be tried, but ``judge lint`` refuses);
- every stale entry for removal, or, where another of the given runs still shows the
  divergence, narrowed to the fingerprint predicates that tell the two runs apart.

The file is edited with ``tomlkit``, so comments, order and layout elsewhere are kept; the
result is shown as a unified diff. This is how a new machine kind or library version is
brought up in one step: audit there, baseline, review the diff, fill in the reasons.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from judge import verdict
from judge.expectations import CASES_FOLDER, CHECKS, Expectations, load_expectations
from judge.verdict import COLLECTED_CASE

#: The fingerprint keys a draft is scoped on (those present in the run's fingerprint): the
#: library versions and what the library dispatched to, never the host's name or thread count.
DRAFT_KEYS = ("numpy", "ml_dtypes", "torch", "cupy", "kp", "cpu", "onednn_isa", "gpu",
              "compute_capability", "cuda", "driver", "vulkan_driver", "vulkan_driver_version")
_VERSION_KEYS = ("numpy", "ml_dtypes", "torch", "cupy", "kp", "cuda", "driver", "vulkan_driver_version")


@dataclass(frozen=True)
class Run:
    """One audit's rows and where its cases lie."""

    folder: Path
    rows: list
    meta: dict


@dataclass
class Plan:
    """What ``judge baseline`` proposes: new entries, removals and narrowings."""

    drafts: list[dict] = field(default_factory=list)  # new [[divergence]] tables
    removals: list = field(default_factory=list)  # judge.expectations.Expectation
    narrowings: list[tuple] = field(default_factory=list)  # (Expectation, added predicates)
    skipped: list[str] = field(default_factory=list)  # rows that cannot be drafted, and why
    cases: dict[str, Path] = field(default_factory=dict)  # case id -> its .npz in a run


def load_run(folder: str | Path) -> Run:
    from judge.reports.tables import load_meta, load_rows

    folder = Path(folder)
    results = folder / "results.json"
    if not results.is_file():
        raise FileNotFoundError(f"{folder}: no results.json (is it an audit's --out folder?)")
    return Run(folder, load_rows(results), load_meta(results))


def plan_baseline(runs: list[Run], expectations: Expectations) -> Plan:
    """The drafts, removals and narrowings these runs imply for ``expectations``."""
    plan = Plan()
    for run in runs:
        for row in run.rows:
            if row.verdict == "fail" and "stale expectation" in row.reason:
                _stale(plan, row, runs, expectations)
            if row.verdict == "error" or (row.verdict == "fail" and not verdict.is_stale(row.reason)):
                _draft(plan, row, run)
    return plan


def fingerprint_of_row(row) -> dict[str, str]:
    try:
        return json.loads(row.fingerprint) if row.fingerprint else {}
    except json.JSONDecodeError:
        return {}


def draft_scope(fingerprint: dict[str, str]) -> dict[str, str]:
    """The fingerprint's ``DRAFT_KEYS``, versions as ``==`` specifiers."""
    return {k: (f"=={fingerprint[k]}" if k in _VERSION_KEYS else fingerprint[k])
            for k in DRAFT_KEYS if fingerprint.get(k)}


def _draft(plan: Plan, row, run: Run) -> None:
    where = f"{row.kernel}[{row.backend}-{row.dtype}] in {run.folder}"
    found = _collected_checks(row.reason) or [(row.reason.split(":", 1)[0].strip(), row.reason,
                                               row.counterexample)]
    if row.verdict == "error" or any(check not in CHECKS for check, _, _ in found):
        plan.skipped.append(f"{where}: {row.verdict}, not a divergence of a check ({row.reason[:120]})")
        return
    scope = draft_scope(fingerprint_of_row(row))
    key = lambda t: (t["kernel"], t["backend"], t["dtype"], t["check"], json.dumps(t.get("where"), sort_keys=True))  # noqa: E731
    for check, seen, case_id in found:
        table = {"kernel": row.kernel, "backend": row.backend, "dtype": row.dtype, "check": check,
                 "reason": f"TODO: say why. Seen: {seen[:300]}"}
        if scope:
            table["where"] = scope
        case = run.folder / "cases" / f"{case_id}.npz"
        if case_id and case.is_file():
            table["case"] = case_id
            plan.cases[case_id] = case
        if all(key(t) != key(table) for t in plan.drafts):
            plan.drafts.append(table)


def _collected_checks(reason: str) -> list[tuple[str, str, str]]:
    """(check, what was seen, case id) of each check a collecting audit's row names
    (``judge.runner._collected``); [] for any other row."""
    case = re.escape(COLLECTED_CASE).replace(re.escape("{}"), r"([\w.-]+)")
    return [(m.group(1), m.group(0)[:m.start(2) - m.start(0)].rsplit(" (", 1)[0], m.group(2))
            for m in re.finditer(rf"(\w+): [^;]*? {case}", reason)]


def _stale(plan: Plan, row, runs: list[Run], expectations: Expectations) -> None:
    here = fingerprint_of_row(row)
    for entry in expectations.for_item(row.kernel, row.backend, row.dtype, here).values():
        if not re.search(rf"\b{re.escape(entry.check)} \(expected because:", row.reason):
            continue
        if any(entry is e for e, _ in plan.narrowings) or any(entry is e for e in plan.removals):
            continue
        shown = _shown_elsewhere(entry, runs)
        added = _telling_apart(here, shown) if shown is not None else {}
        if added:
            plan.narrowings.append((entry, added))
        else:
            plan.removals.append(entry)


def _shown_elsewhere(entry, runs: list[Run]) -> dict | None:
    """The fingerprint of a run where ``entry``'s divergence still shows (an xfail naming it)."""
    for run in runs:
        for row in run.rows:
            if ((row.kernel, row.backend, row.dtype) == (entry.kernel, entry.backend, entry.dtype)
                    and row.verdict == "xfail" and re.search(rf"\b{re.escape(entry.check)}:", row.reason)):
                return fingerprint_of_row(row)
    return None


def _telling_apart(stale_here: dict, shown: dict) -> dict:
    """Predicates that hold where the divergence shows and not where it went stale."""
    added = {k: v for k, v in draft_scope(shown).items() if draft_scope(stale_here).get(k) != v}
    flags = set(shown.get("cpu_flags", "").split()) - set(stale_here.get("cpu_flags", "").split())
    if flags:
        added["cpu_flags"] = sorted(flags)
    return added


def apply(plan: Plan, text: str) -> str:
    """The expectations file's text with the plan applied (tomlkit keeps everything else)."""
    import tomlkit

    doc = tomlkit.parse(text)
    tables = doc.get("divergence")
    if tables is None:
        tables = tomlkit.aot()
        doc.append("divergence", tables)
    starts = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == "[[divergence]]"]
    by_line = dict(zip(starts, range(len(starts)), strict=False))
    for entry, added in plan.narrowings:
        table = tables[by_line[entry.line]]
        scope = tomlkit.inline_table()
        scope.update({**entry.scope, **added})
        table["where"] = scope
    for index in sorted((by_line[e.line] for e in plan.removals), reverse=True):
        del tables[index]
    for draft in plan.drafts:
        table = tomlkit.table()
        for key, value in draft.items():
            if key == "where":
                value = _inline(value)
            table[key] = value
        tables.append(table)
    out = tomlkit.dumps(doc)
    # A blank line before every table, as the file is written by hand.
    out = re.sub(r"(?<=[^\n])\n(\[\[divergence\]\])", r"\n\n\1", out)
    return out if out.endswith("\n") or not out else out + "\n"


def _inline(mapping: dict):
    import tomlkit

    scope = tomlkit.inline_table()
    scope.update(mapping)
    return scope


def diff(before: str, after: str, path: str) -> str:
    import difflib

    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=path, tofile=f"{path} (baseline)"))


def write(plan: Plan, path: Path, text: str) -> None:
    """Write the edited file and copy the drafts' cases beside it; the result must load."""
    import shutil

    folder = path.parent / CASES_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    for case_id, source in plan.cases.items():
        shutil.copyfile(source, folder / f"{case_id}.npz")
    path.write_text(text)
    load_expectations(path)
