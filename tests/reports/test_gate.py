"""The gate: new failures, stale xfails and over-bound ULP are regressions; revisions re-judged."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.gate import compare, gate_markdown
from judge.reports import write_audit
from judge.results import AuditRun


def _rows(row):
    return [
        row("exp_f32", "numpy", ulp_max=1.0, bound_ulp=1.0),
        row("exp_f32", "torch-cpu", ulp_max=1.0, bound_ulp=1.0),
        row("relu_f32", "torch-cpu", verdict="xfail", reason="known: relu(-0.0) is +0.0"),
        row("sum_reduce_cpu", "numpy", dtype="BF16", verdict="fail", reason="ulp 9 > bound",
            ulp_max=9.0, bound_ulp=1.0),
    ]


def test_identical_runs_pass(row):
    result = compare(_rows(row), _rows(row))
    assert result.passed and not result.improvements
    assert result.unchanged == {"pass": 2, "still failing": 1, "xfail": 1}


def test_a_new_failure_is_a_regression(row):
    current = _rows(row)
    current[1] = replace(current[1], verdict="fail", ulp_max=4.0, reason="ulp 4 > max_ulp 1",
                         counterexample="exp_f32-torch-cpu-F32-abc")
    result = compare(_rows(row), current)
    assert not result.passed
    [reg] = result.regressions
    assert reg.current.backend == "torch-cpu" and "fail: ulp 4 > max_ulp 1" in reg.why
    assert "ulp_max 4 above the contract bound 1" in reg.why


def test_a_new_error_is_a_regression(row):
    current = _rows(row)
    current[0] = replace(current[0], verdict="error", reason="adapter raised")
    assert [c.current.kernel for c in compare(_rows(row), current).regressions] == ["exp_f32"]


def test_a_stale_xfail_is_a_regression_even_if_the_baseline_was_stale(row):
    current = _rows(row)
    current[2] = replace(current[2], verdict="fail",
                         reason="stale expectation: signed_zero no longer fails")
    result = compare(_rows(row), current)
    assert [c.why for c in result.regressions] == [
        "stale xfail: stale expectation: signed_zero no longer fails"]
    assert not compare(current, current).passed


def test_ulp_above_the_bound_is_a_regression_even_when_the_verdict_missed_it(row):
    current = _rows(row)
    current[0] = replace(current[0], ulp_max=2.0)
    [reg] = compare(_rows(row), current).regressions
    assert reg.why == "ulp_max 2 above the contract bound 1"


def test_xfail_rows_may_exceed_the_bound(row):
    current = _rows(row)
    current[2] = replace(current[2], ulp_max=5.0, bound_ulp=0.0)
    assert compare(_rows(row), current).passed


def test_a_fix_is_an_improvement(row):
    current = _rows(row)
    current[3] = replace(current[3], verdict="pass", ulp_max=1.0, reason="")
    result = compare(_rows(row), current)
    assert result.passed
    assert [c.current.kernel for c in result.improvements] == ["sum_reduce_cpu"]


def test_a_changed_revision_is_rejudged_not_compared(row):
    baseline = _rows(row)
    # A baseline failure does not excuse a failing new revision ...
    current = [replace(r, revision="rev-new") if r.kernel == "sum_reduce_cpu" else r
               for r in baseline]
    result = compare(baseline, current)
    [reg] = result.regressions
    assert reg.why.startswith("revision changed; fail: ulp 9 > bound")
    # ... and a passing new revision is listed as re-judged, not as an improvement.
    current[3] = replace(current[3], verdict="pass", ulp_max=0.0, reason="")
    result = compare(baseline, current)
    assert result.passed and not result.improvements
    assert [c.current.kernel for c in result.rejudged] == ["sum_reduce_cpu"]
    assert result.rejudged[0].baseline.revision == "rev-sum_reduce_cpu"
    assert not result.not_rerun


def test_rows_new_to_the_baseline_are_judged_alone(row):
    current = _rows(row) + [row("tanh_f32", "numpy", verdict="fail", reason="nan mismatch")]
    [reg] = compare(_rows(row), current).regressions
    assert reg.baseline is None and reg.why == "new row; fail: nan mismatch"


def test_markdown_lists_regressions_first(row):
    current = _rows(row)
    current[0] = replace(current[0], verdict="fail", reason="boom", counterexample="case-1")
    current[3] = replace(current[3], verdict="pass", reason="", ulp_max=0.0)
    text = gate_markdown(compare(_rows(row), current), baseline="b.json", current="c.json")
    assert text.startswith("# Judge gate: FAIL: 1 regression\n")
    reg, imp, unch = (text.index(h) for h in ("## Regressions (1)", "## Improvements (1)",
                                              "## Unchanged"))
    assert reg < imp < unch
    first_row = text.splitlines()[text.splitlines().index("## Regressions (1)") + 4]
    assert first_row.startswith("| exp_f32 | numpy | F32 | pass (1 ulp) | fail (1 ulp) |")
    assert first_row.endswith("| case-1 |")


# --- the command -----------------------------------------------------------------------------


def _write(tmp_path, name, rows):
    return write_audit(AuditRun(rows, [], {}, {"seed": 0}), tmp_path / name)["results.json"]


def test_gate_command_exit_codes(row, tmp_path):
    base = _write(tmp_path, "base", _rows(row))
    same = _write(tmp_path, "same", _rows(row))
    worse_rows = _rows(row)
    worse_rows[1] = replace(worse_rows[1], verdict="fail", reason="ulp 4 > max_ulp 1")
    worse = _write(tmp_path, "worse", worse_rows)
    runner = CliRunner()

    ok = runner.invoke(main, ["gate", "--baseline", str(base), "--current", str(same)])
    assert ok.exit_code == 0, ok.output
    assert ok.output.startswith("# Judge gate: PASS: no regressions")

    bad = runner.invoke(main, ["gate", "--baseline", str(base), "--current", str(worse)])
    assert bad.exit_code == 1, bad.output
    lines = bad.output.splitlines()
    assert lines[0] == "# Judge gate: FAIL: 1 regression"
    first_table_row = next(ln for ln in lines if ln.startswith("| exp_f32"))
    assert "torch-cpu" in first_table_row and "ulp 4 > max_ulp 1" in first_table_row

    csv_current = worse.with_name("results.csv")
    assert runner.invoke(main, ["gate", "--baseline", str(base), "--current",
                                str(csv_current)]).exit_code == 1


def test_gate_command_unreadable_files_exit_2(row, tmp_path):
    base = _write(tmp_path, "base", _rows(row))
    runner = CliRunner()
    missing = runner.invoke(main, ["gate", "--baseline", str(tmp_path / "nope.json"),
                                   "--current", str(base)])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps({"rows": [{"kernel": "x"}]}))
    bad = runner.invoke(main, ["gate", "--baseline", str(junk), "--current", str(base)])
    assert bad.exit_code == 2 and "missing column(s)" in bad.output


# --- --changed-since -----------------------------------------------------------------------



def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def contract_repo(tmp_path, neg_fkc):
    repo = tmp_path / "repo"
    (repo / "suite").mkdir(parents=True)
    (repo / "suite" / "one.fkc.md").write_text(neg_fkc(kernel="neg_one", blurb="Neg."))
    (repo / "suite" / "two.fkc.md").write_text(neg_fkc(kernel="neg_two", blurb="Neg."))
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x",
         "--allow-empty")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "contracts")
    return repo


def test_changed_since_finds_changed_and_new_blocks(contract_repo, neg_fkc, monkeypatch):
    pytest.importorskip("judge.contracts", reason="the contract loader is not importable")
    from judge.gate import GateError, changed_contracts
    from judge.suite import load_paths

    monkeypatch.chdir(contract_repo)
    suite = contract_repo / "suite"
    loaded = load_paths([suite])
    assert not loaded.errors, loaded.errors
    assert changed_contracts(loaded.contracts, "HEAD") == []
    assert {c.kernel for c in changed_contracts(loaded.contracts, "HEAD~1")} == {
        "neg_one", "neg_two"}  # files absent at HEAD~1: everything is new

    (suite / "two.fkc.md").write_text(neg_fkc(kernel="neg_two", blurb="Neg, rewritten."))
    loaded = load_paths([suite])
    assert [c.kernel for c in changed_contracts(loaded.contracts, "HEAD")] == ["neg_two"]
    with pytest.raises(GateError, match="'no-such-rev' is not a git revision"):
        changed_contracts(loaded.contracts, "no-such-rev")


def test_changed_since_filters_the_current_rows(contract_repo, neg_fkc, row, tmp_path,
                                                monkeypatch):
    pytest.importorskip("judge.contracts", reason="the contract loader is not importable")
    from judge.suite import load_paths

    monkeypatch.chdir(contract_repo)
    suite = contract_repo / "suite"
    (suite / "two.fkc.md").write_text(neg_fkc(kernel="neg_two", blurb="Neg, rewritten."))
    revs = {c.kernel: c.revision for c in load_paths([suite]).contracts}
    baseline = [row("neg_one", revision="old-1"), row("neg_two", revision="old-2")]
    # neg_one fails in the current file but did not change: --changed-since does not judge it
    current = [row("neg_one", revision=revs["neg_one"], verdict="fail", reason="x"),
               row("neg_two", revision=revs["neg_two"])]
    base = _write(tmp_path, "base", baseline)
    cur = _write(tmp_path, "cur", current)
    runner = CliRunner()
    args = ["gate", "--baseline", str(base), "--current", str(cur), "--contracts", str(suite)]
    assert runner.invoke(main, args).exit_code == 1
    res = runner.invoke(main, args + ["--changed-since", "HEAD"])
    assert res.exit_code == 0, res.output
    assert "1 contracts changed since `HEAD`" in res.output
    assert "## Re-judged: revision changed or new (1)" in res.output
    bad = runner.invoke(main, args + ["--changed-since", "nope"])
    assert bad.exit_code == 2 and "'nope' is not a git revision" in bad.output


def test_changed_since_with_nothing_changed_judges_nothing(contract_repo, row, tmp_path,
                                                          monkeypatch):
    pytest.importorskip("judge.contracts", reason="the contract loader is not importable")
    monkeypatch.chdir(contract_repo)
    base = _write(tmp_path, "base", [row("neg_one"), row("neg_two")])
    res = CliRunner().invoke(main, ["gate", "--baseline", str(base), "--contracts", "suite",
                                    "--changed-since", "HEAD"])
    assert res.exit_code == 0, res.output
    assert "current `(nothing to judge)` · 0 contracts changed since `HEAD`" in res.output
    assert "2 baseline rows were not judged in this run." in res.output
