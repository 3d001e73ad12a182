"""summary.md: the scoreboard for humans and PR comments.

Failing rows come first (with their reason and counterexample id), so the first screen of a PR
comment says what is wrong; known divergences and unavailable backends follow.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from judge.results import VERDICTS, AuditRun, ResultRow

FAILING = ("fail", "error")
# Long lists are cut so a PR comment stays readable; the full list is in results.csv.
MAX_LISTED = 200


@dataclass(frozen=True)
class ScoreLine:
    backend: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def scoreboard(rows: list[ResultRow]) -> list[ScoreLine]:
    """Verdict counts per backend, backends in name order."""
    per: dict[str, Counter] = {}
    for r in rows:
        per.setdefault(r.backend, Counter())[r.verdict] += 1
    return [
        ScoreLine(name, {v: per[name].get(v, 0) for v in VERDICTS}) for name in sorted(per)
    ]


def scoreboard_markdown(rows: list[ResultRow]) -> str:
    lines = ["| backend | " + " | ".join(VERDICTS) + " | total |",
             "|---|" + "---:|" * (len(VERDICTS) + 1)]
    board = scoreboard(rows)
    for line in board:
        cells = [str(line.counts[v]) for v in VERDICTS]
        lines.append(f"| {line.backend} | " + " | ".join(cells) + f" | {line.total} |")
    if board:
        totals = [str(sum(line.counts[v] for line in board)) for v in VERDICTS]
        lines.append("| **all** | " + " | ".join(totals) + f" | {len(rows)} |")
    return "\n".join(lines)


def md_cell(text: object) -> str:
    """Text safe inside a Markdown table cell (pipes escaped, one line)."""
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ").strip()


def row_table(rows: list[ResultRow], *, limit: int = MAX_LISTED) -> str:
    head = ["| kernel | backend | dtype | verdict | ulp_max | reason | counterexample |",
            "|---|---|---|---|---:|---|---|"]
    body = [
        f"| {md_cell(r.kernel)} | {md_cell(r.backend)} | {r.dtype} | {r.verdict} | "
        f"{format_ulp(r.ulp_max)} | {md_cell(r.reason)} | {md_cell(r.counterexample)} |"
        for r in rows[:limit]
    ]
    more = [f"\n… and {len(rows) - limit} more (see results.csv)"] if len(rows) > limit else []
    return "\n".join(head + body + more)


def format_ulp(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return f"{value:g}"


def summary_markdown(run: AuditRun) -> str:
    meta = run.meta
    rows = sorted(run.rows, key=lambda r: (r.verdict not in FAILING, r.kernel, r.backend, r.dtype))
    failing = [r for r in rows if r.verdict in FAILING]
    xfails = [r for r in rows if r.verdict == "xfail"]
    out = [
        "# Judge audit",
        "",
        " · ".join(
            f"{label} {meta[key]}"
            for label, key in (("started", "started_at"), ("profile", "profile"),
                               ("seed", "seed"), ("judge", "judge_version"))
            if meta.get(key) not in (None, "")
        ),
        "",
        *([f"> **Incomplete audit.** {incomplete_text(meta['incomplete'])}", ""]
          if meta.get("incomplete") else []),
        "## Scoreboard",
        "",
        scoreboard_markdown(run.rows),
        "",
        f"## Failures ({len(failing)})",
        "",
        row_table(failing) if failing else "None: every judged row conforms.",
    ]
    if xfails:
        out += ["", f"## Known divergences (xfail, {len(xfails)})", "", row_table(xfails)]
    unavailable = meta.get("unavailable") or {}
    out += ["", f"## Unavailable backends ({len(unavailable)})", ""]
    out += [f"- `{name}`: {md_cell(why)}" for name, why in sorted(unavailable.items())] or ["None."]
    fingerprints = meta.get("fingerprints") or {}
    if fingerprints:
        out += ["", "## Environment", ""]
        out += [f"- `{name}`: " + ", ".join(f"{k} {md_cell(v)}" for k, v in sorted(fp.items()))
                for name, fp in sorted(fingerprints.items())]
    inactive = meta.get("not_applicable") or []
    if inactive:
        out += ["", f"## Not applicable here ({len(inactive)})", "",
                "Known divergences scoped to other environments (neither xfail nor stale here):", ""]
        out += [f"- {e['kernel']} · {e['backend']} · {e['dtype']} · {e['check']}: holds where "
                f"{md_cell(e['scope'])}" for e in inactive[:MAX_LISTED]]
    return "\n".join(out) + "\n"


def incomplete_text(incomplete: dict) -> str:
    """What an interrupted run's outputs hold, and how to finish it (``meta["incomplete"]``)."""
    text = (f"Interrupted by {incomplete.get('signal', 'a signal')}: "
            f"{incomplete.get('finished', '?')} of {incomplete.get('items', '?')} items finished; "
            f"the other rows are missing.")
    if incomplete.get("resume"):
        text += f" Finish it with `{incomplete['resume']}`."
    return text
