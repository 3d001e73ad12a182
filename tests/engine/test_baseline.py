"""``judge baseline``: an audit's unrecorded failure becomes exactly one draft entry (scoped to
the run's fingerprint, with its case and a TODO reason that lint refuses), its stale entry is
proposed for removal, and with the edit written the same audit is green."""

from __future__ import annotations

import json
from pathlib import Path

from judge.expectations import load_expectations

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "plugins" / "broken.py"
KERNELS = ("add_elementwise_cpu", "maximum_elementwise_cpu")
STALE = """# planted: a divergence this backend does not have
[[divergence]]
kernel = "add_elementwise_cpu"
backend = "broken-nan-rule-f32"
dtype = "F32"
check = "nan"
reason = "planted stale entry"
"""


def _audit(cli, cwd, out, expectations):
    return cli(cwd, "judge", "audit", f"--plugin={BROKEN}", "--backend=broken-nan-rule-f32",
               "--contracts=contracts", "--profile=ci", "-j", "1", f"--out={out}",
               f"--expectations={expectations}")


def test_baseline_drafts_the_failure_and_removes_the_stale_entry(tmp_path, cli, make_suite):
    make_suite(tmp_path / "contracts", "elementwise-binary.fkc.md", KERNELS)
    exp = tmp_path / "suites" / "expectations.toml"
    exp.parent.mkdir()
    exp.write_text(STALE)
    first = _audit(cli, tmp_path, tmp_path / "run", exp)
    assert first.returncode == 1, first.stderr
    rows = {(r["kernel"], r["dtype"]): r for r in json.loads((tmp_path / "run" / "results.json").read_text())["rows"]}
    planted = rows[("maximum_elementwise_cpu", "F32")]
    assert planted["verdict"] == "fail" and planted["reason"].startswith("nan")
    assert rows[("add_elementwise_cpu", "F32")]["reason"].startswith("stale expectation")
    assert sum(r["verdict"] == "fail" for r in rows.values()) == 2

    shown = cli(tmp_path, "judge", "baseline", str(tmp_path / "run"), f"--expectations={exp}")
    assert shown.returncode == 0, shown.stderr
    assert "1 draft(s), 1 removal(s), 0 narrowing(s)" in shown.stderr
    assert exp.read_text() == STALE  # a diff only, until --write
    removed = [ln[1:] for ln in shown.stdout.splitlines() if ln.startswith("-") and not ln.startswith("---")]
    added = [ln[1:] for ln in shown.stdout.splitlines() if ln.startswith("+") and not ln.startswith("+++")]
    assert 'reason = "planted stale entry"' in removed and 'kernel = "add_elementwise_cpu"' in removed
    assert 'kernel = "maximum_elementwise_cpu"' in added

    written = cli(tmp_path, "judge", "baseline", str(tmp_path / "run"), f"--expectations={exp}", "--write")
    assert written.returncode == 0, written.stderr
    assert exp.read_text().startswith("# planted")  # the file's comments are kept
    (entry,) = load_expectations(exp).entries
    fingerprint = json.loads(planted["fingerprint"])
    assert (entry.kernel, entry.backend, entry.dtype, entry.check) == (
        "maximum_elementwise_cpu", "broken-nan-rule-f32", "F32", "nan")
    assert entry.reason.startswith("TODO") and entry.case == planted["counterexample"]
    assert entry.scope == {"numpy": f"=={fingerprint['numpy']}", "ml_dtypes": f"=={fingerprint['ml_dtypes']}"}
    assert Path(entry.case_file).is_file()

    lint = cli(tmp_path, "judge", "lint", str(exp))
    assert lint.returncode == 1 and "reason is a draft" in lint.stdout, lint.stdout

    again = _audit(cli, tmp_path, tmp_path / "again", exp)
    assert again.returncode == 0, again.stdout + again.stderr
    verdicts = {(r["kernel"], r["dtype"]): r["verdict"]
                for r in json.loads((tmp_path / "again" / "results.json").read_text())["rows"]}
    assert verdicts.pop(("maximum_elementwise_cpu", "F32")) == "xfail"
    assert set(verdicts.values()) == {"pass"}


def test_a_stale_entry_still_shown_by_another_run_is_narrowed_to_that_run(tmp_path):
    from judge.baseline import Run, apply, plan_baseline
    from judge.results import ResultRow

    text = STALE.replace("add_elementwise_cpu", "gelu_erf").replace("broken-nan-rule-f32", "torch-cpu")
    exp = tmp_path / "expectations.toml"
    exp.write_text(text)
    entries = load_expectations(exp)

    def row(verdict, reason, **facts):
        return ResultRow("s", "f.fkc.md", "gelu_erf", "GeluErfElementwise", "Cpu", "torch-cpu", "cpu",
                         "F32", "r", verdict=verdict, reason=reason,
                         fingerprint=json.dumps({"cpu_model": "x", **facts}))

    avx2 = row("fail", "stale expectation: nan (expected because: planted stale entry) no longer fails",
               torch="2.13.0+cpu", cpu="AVX2", cpu_flags="avx2 fma")
    avx512 = row("xfail", "nan: planted stale entry", torch="2.13.0+cpu", cpu="AVX512",
                 cpu_flags="avx2 fma avx512f avx512_bf16")
    plan = plan_baseline([Run(tmp_path / "a", [avx2], {}), Run(tmp_path / "b", [avx512], {})], entries)
    assert not plan.drafts and not plan.removals
    ((entry, added),) = plan.narrowings
    assert added == {"cpu": "AVX512", "cpu_flags": ["avx512_bf16", "avx512f"]}
    exp.write_text(apply(plan, text))
    (narrowed,) = load_expectations(exp).entries
    assert narrowed.scope == added
    # alone, the stale run proposes removal
    plan = plan_baseline([Run(tmp_path / "a", [avx2], {})], entries)
    assert [e.kernel for e in plan.removals] == ["gelu_erf"] and not plan.narrowings


def test_a_collecting_audit_drafts_every_unrecorded_check_of_a_row_at_once(tmp_path, cli, make_suite):
    """A backend with two unrelated bugs on one row: a plain audit names the first check only
    (its search ends there), `--collect` names both, each with the first case that showed it;
    baseline drafts both with their cases, and with them written the plain audit is green."""
    make_suite(tmp_path / "contracts", "elementwise-binary.fkc.md", ("maximum_elementwise_cpu",))
    exp = tmp_path / "suites" / "expectations.toml"
    exp.parent.mkdir()
    exp.write_text("")

    def audit(out, *extra):
        return cli(tmp_path, "judge", "audit", f"--plugin={BROKEN}", "--backend=broken-two-bugs-f32",
                   "--contracts=contracts", "--profile=ci", "-j", "1", f"--out={tmp_path / out}",
                   f"--expectations={exp}", *extra)

    def f32_row(out):
        rows = json.loads((tmp_path / out / "results.json").read_text())["rows"]
        return next(r for r in rows if r["dtype"] == "F32")

    assert audit("plain").returncode == 1
    plain = f32_row("plain")
    assert plain["reason"].split(":")[0] in ("nan", "signed_zero") and "(case " not in plain["reason"]
    collecting = audit("collect", "--collect")
    assert collecting.returncode == 1, collecting.stderr
    row = f32_row("collect")
    named = {part.split(":")[0]: part.rsplit("(case ", 1)[1].rstrip(")") for part in row["reason"].split("; ")}
    assert set(named) == {"nan", "signed_zero"}, row["reason"]
    for case_id in named.values():
        assert (tmp_path / "collect" / "cases" / f"{case_id}.npz").is_file()

    written = cli(tmp_path, "judge", "baseline", str(tmp_path / "collect"), f"--expectations={exp}", "--write")
    assert written.returncode == 0 and "2 draft(s), 0 removal(s)" in written.stderr, written.stderr
    entries = load_expectations(exp).entries
    assert {(e.check, e.case) for e in entries} == set(named.items())
    assert all(Path(e.case_file).is_file() for e in entries)

    again = audit("again")
    assert again.returncode == 0, again.stdout + again.stderr
    assert f32_row("again")["verdict"] == "xfail"
