"""summary.md: scoreboard per backend, failing rows first, unavailable backends with why."""

from __future__ import annotations

from judge.reports.summary import scoreboard, summary_markdown


def test_scoreboard_counts_per_backend(audit_run):
    board = {line.backend: line.counts for line in scoreboard(audit_run.rows)}
    assert board["numpy"] == {"pass": 3, "fail": 0, "xfail": 0, "error": 1, "unsupported": 0}
    assert board["torch-cpu"] == {"pass": 0, "fail": 2, "xfail": 1, "error": 0, "unsupported": 1}


def test_summary_lists_failures_first_with_reason_and_case(audit_run):
    text = summary_markdown(audit_run)
    lines = text.splitlines()
    assert lines.index("## Scoreboard") < lines.index("## Failures (3)")
    assert "| numpy | 3 | 0 | 0 | 1 | 0 | 4 |" in lines
    failure_rows = [ln for ln in lines if ln.startswith("| ") and "| backend |" not in ln and (" fail |" in ln
                                                                   or " error |" in ln)]
    assert len(failure_rows) == 3
    case_id = audit_run.cases[0].case_id
    exp_row = next(ln for ln in failure_rows if ln.startswith("| exp_f32 "))
    assert "ulp 3 > max_ulp 1" in exp_row and case_id in exp_row
    # failures come before known divergences and passing rows are not listed
    assert text.index("## Failures") < text.index("## Known divergences (xfail, 1)")
    assert "| relu_f32 | numpy |" not in text
    assert "- `cupy`: cupy is not installed (No module named 'cupy')" in lines


def test_summary_of_a_clean_run(audit_run):
    audit_run.rows = [r for r in audit_run.rows if r.verdict == "pass"]
    audit_run.meta["unavailable"] = {}
    text = summary_markdown(audit_run)
    assert "## Failures (0)" in text and "None: every judged row conforms." in text
    assert "## Unavailable backends (0)" in text


def test_pipes_in_reasons_do_not_break_the_table(audit_run):
    audit_run.rows[1].reason = "a|b\nc"
    assert "| a\\|b c |" in summary_markdown(audit_run)
