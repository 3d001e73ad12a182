"""The PR gate (SPEC §10): a current audit against a baseline, row by row.

Rows are matched on (kernel, backend, dtype, revision). For a matched row, a problem counts as a
regression only when the baseline row did not already have it (a row that failed before and
still fails is "still failing", not new). A row whose revision changed, or that the baseline
does not have, is re-judged: its own problems all count. Problems are:

- verdict ``fail`` or ``error`` (a new failure);
- a stale expectation (verdict ``fail``, reason starting "stale expectation"): always a
  regression, since the fix is to delete the entry from suites/expectations.toml;
- ``ulp_max`` above the contract's ``bound_ulp`` on a row that is not a known divergence
  (``xfail``) — a guard against any path where the verdict missed a bound.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from judge.reports.summary import FAILING, format_ulp, md_cell
from judge.results import ResultRow

STALE_PREFIX = "stale expectation"


class GateError(Exception):
    """The gate cannot run (bad git revision, unreadable file): exit code 2."""


@dataclass(frozen=True)
class Change:
    current: ResultRow | None
    baseline: ResultRow | None
    why: str

    @property
    def row(self) -> ResultRow:
        return self.current if self.current is not None else self.baseline


@dataclass(frozen=True)
class GateResult:
    regressions: tuple[Change, ...] = ()
    improvements: tuple[Change, ...] = ()
    rejudged: tuple[Change, ...] = ()  # revision changed or new row, and no problem found
    other_changes: tuple[Change, ...] = ()  # neither better nor worse (e.g. now unsupported)
    unchanged: dict[str, int] = field(default_factory=dict)  # verdict -> rows
    not_rerun: tuple[ResultRow, ...] = ()  # baseline rows with no current row

    @property
    def passed(self) -> bool:
        return not self.regressions


def is_stale(row: ResultRow) -> bool:
    return row.verdict == "fail" and row.reason.strip().lower().startswith(STALE_PREFIX)


def over_bound(row: ResultRow) -> bool:
    return (
        row.verdict != "xfail"
        and row.ulp_max is not None
        and row.bound_ulp is not None
        and row.ulp_max > row.bound_ulp
    )


def problems(row: ResultRow) -> dict[str, str]:
    """The row's problems judged alone: {category: description}."""
    found = {}
    if is_stale(row):
        found["stale"] = f"stale xfail: {row.reason}"
    elif row.verdict in FAILING:
        found["failing"] = f"{row.verdict}: {row.reason}" if row.reason else row.verdict
    if over_bound(row):
        found["bound"] = (f"ulp_max {format_ulp(row.ulp_max)} above the contract bound "
                          f"{format_ulp(row.bound_ulp)}")
    return found


def compare(baseline: list[ResultRow], current: list[ResultRow]) -> GateResult:
    exact = {r.key(): r for r in baseline}
    by_item: dict[tuple[str, ...], list[ResultRow]] = {}
    for r in baseline:
        by_item.setdefault(_item(r), []).append(r)
    regressions, improvements, rejudged, other = [], [], [], []
    unchanged: Counter = Counter()
    seen: set = set()
    for cur in current:
        base = exact.get(cur.key())
        found = problems(cur)
        if base is None:
            earlier = by_item.get(_item(cur), [])
            for r in earlier:
                seen.add(r.key())
            prior = earlier[0] if earlier else None
            label = "revision changed" if prior else "new row"
            if found:
                regressions.append(Change(cur, prior, f"{label}; " + "; ".join(found.values())))
            else:
                rejudged.append(Change(cur, prior, f"{label}; {cur.verdict}"))
            continue
        seen.add(base.key())
        old = problems(base)
        new = {k: v for k, v in found.items() if k == "stale" or k not in old}
        if new:
            regressions.append(Change(cur, base, "; ".join(new.values())))
        elif old and not found and cur.verdict != "unsupported":
            improvements.append(Change(cur, base, f"fixed: {'; '.join(old.values())}"))
        elif cur.verdict != base.verdict and not found:
            other.append(Change(cur, base, f"{base.verdict} → {cur.verdict}"
                                + (f" ({cur.reason})" if cur.reason else "")))
        elif _ulp_improved(base, cur):
            improvements.append(Change(cur, base, f"ulp_max {format_ulp(base.ulp_max)} → "
                                                  f"{format_ulp(cur.ulp_max)}"))
        else:
            unchanged[_bucket(cur)] += 1
    not_rerun = tuple(r for r in baseline if r.key() not in seen)
    return GateResult(
        regressions=tuple(regressions), improvements=tuple(improvements),
        rejudged=tuple(rejudged), other_changes=tuple(other),
        unchanged={k: v for k, v in sorted(unchanged.items()) if v}, not_rerun=not_rerun,
    )


def _item(row: ResultRow) -> tuple[str, ...]:
    """A row's item across revisions. Kernel names repeat across devices, so the contract's
    backend is part of it."""
    return (row.kernel, row.contract_backend, row.backend, row.dtype)


def _bucket(row: ResultRow) -> str:
    return "still failing" if row.verdict in FAILING else row.verdict


def _ulp_improved(base: ResultRow, cur: ResultRow) -> bool:
    return (base.ulp_max is not None and cur.ulp_max is not None
            and cur.verdict == base.verdict and cur.ulp_max < base.ulp_max)


def gate_markdown(result: GateResult, *, baseline: str, current: str, note: str = "") -> str:
    n = len(result.regressions)
    title = f"FAIL: {n} regression{'s' if n != 1 else ''}" if n else "PASS: no regressions"
    out = [f"# Judge gate: {title}", "", f"baseline `{baseline}` · current `{current}`"
           + (f" · {note}" if note else ""), ""]
    out += [f"## Regressions ({n})", ""]
    out += [_change_table(result.regressions, counterexample=True) if n else "None.", ""]
    out += [f"## Improvements ({len(result.improvements)})", ""]
    out += [_change_table(result.improvements) if result.improvements else "None.", ""]
    if result.rejudged:
        out += [f"## Re-judged: revision changed or new ({len(result.rejudged)})", "",
                _change_table(result.rejudged), ""]
    if result.other_changes:
        out += [f"## Other changes ({len(result.other_changes)})", "",
                _change_table(result.other_changes), ""]
    out += ["## Unchanged", ""]
    if result.unchanged:
        out += ["| verdict | rows |", "|---|---:|"]
        out += [f"| {k} | {v} |" for k, v in result.unchanged.items()]
    else:
        out.append("No unchanged rows.")
    if result.not_rerun:
        out += ["", f"{len(result.not_rerun)} baseline rows were not judged in this run."]
    return "\n".join(out) + "\n"


def _change_table(changes: tuple[Change, ...], *, counterexample: bool = False) -> str:
    head = "| kernel | backend | dtype | baseline | current | why |"
    rule = "|---|---|---|---|---|---|"
    if counterexample:
        head, rule = head + " counterexample |", rule + "---|"
    lines = [head, rule]
    for c in changes:
        r = c.row
        cells = [md_cell(r.kernel), md_cell(r.backend), r.dtype,
                 _state(c.baseline), _state(c.current), md_cell(c.why)]
        if counterexample:
            cells.append(md_cell(c.current.counterexample if c.current else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _state(row: ResultRow | None) -> str:
    if row is None:
        return "—"
    return f"{row.verdict} ({format_ulp(row.ulp_max)} ulp)" if row.ulp_max else row.verdict


# --- --changed-since: which contracts changed since a git revision -------------------------


def changed_contracts(contracts: list, rev: str) -> list:
    """The contracts whose (kernel, revision hash) did not exist in their file at git ``rev``.

    A file absent at ``rev`` makes all its contracts changed; so does a file that no longer
    loads at ``rev`` (nothing to compare against). Raises ``GateError`` for an unknown revision.
    """
    from judge.suite import load_text

    old: set[tuple[str, str]] = set()
    for file in sorted({c.file for c in contracts}):
        text = git_show(rev, Path(file))
        if text is None:
            continue
        loaded = load_text(text, file)
        old |= {(c.kernel, c.revision) for c in getattr(loaded, "contracts", loaded)}
    return [c for c in contracts if (c.kernel, c.revision) not in old]


def git_show(rev: str, path: Path) -> str | None:
    """The text of ``path`` at git ``rev``; None if the file did not exist there."""
    path = path.resolve()
    top = _git(path.parent, "rev-parse", "--show-toplevel").strip()
    _git(Path(top), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
         error=f"{rev!r} is not a git revision in {top}")
    rel = path.relative_to(Path(top).resolve()).as_posix()
    exists = subprocess.run(["git", "-C", top, "cat-file", "-e", f"{rev}:{rel}"],
                            capture_output=True)
    if exists.returncode != 0:
        return None
    return _git(Path(top), "show", f"{rev}:{rel}")


def _git(cwd: Path, *args: str, error: str = "") -> str:
    try:
        proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise GateError("--changed-since needs git, which is not installed") from exc
    if proc.returncode != 0:
        raise GateError(error or f"git {' '.join(args)} in {cwd} failed: {proc.stderr.strip()}")
    return proc.stdout
