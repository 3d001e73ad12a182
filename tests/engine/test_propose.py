"""``judge propose``: from an audit's rows, the precision block the evidence supports, written
into the contract file with the evidence as comments; the file still lints, ``audited`` stays
false, and an audit against the proposed bound passes on the backends it came from."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judge.results import AuditRun, ResultRow

ROOT = Path(__file__).resolve().parents[2]
BROKEN = ROOT / "tests" / "plugins" / "broken.py"
KERNELS = ("sum_reduce_cpu", "mean_reduce_cpu", "max_reduce_cpu")


def _row(kernel, backend, dtype, *, ulp, rel, abs_, used=0.1, cases=400, verdict="pass", bound="reduction"):
    return ResultRow(
        suite="contracts", file="contracts/reduce.fkc.md", kernel=kernel, op_kind="SumReduce",
        contract_backend="Cpu", backend=backend, device="cpu", dtype=dtype, revision="r",
        cases=cases, elements=10 * cases, ulp_max=ulp, rel_max=rel, abs_max=abs_, derived_bound=bound,
        bound_used=used, verdict=verdict, audited=False, ulp_max_case=f"{kernel}-{backend}-{dtype}-c4se")


def _plant(folder: Path) -> Path:
    """An audit of two backends: sums whose F64 rows are thousands of ulp off (a tiny result
    beside large terms) but close in relative terms; means a few ulp off; exact maxima."""
    from judge.reports.tables import write_json

    rows = []
    for backend in ("numpy", "torch-cpu"):
        rows += [
            _row("sum_reduce_cpu", backend, "F32", ulp=4.0, rel=4.2e-7, abs_=7.0),
            _row("sum_reduce_cpu", backend, "F64", ulp=26240.0, rel=3.64e-12, abs_=0.55),
            _row("sum_reduce_cpu", backend, "BF16", ulp=0.0, rel=2.755e-3, abs_=1272.0, used=0.72),
            _row("sum_reduce_cpu", backend, "F16", ulp=0.0, rel=3.2e-4, abs_=6.0),
            _row("mean_reduce_cpu", backend, "F32", ulp=8.0, rel=7.5e-7, abs_=1.0),
            _row("mean_reduce_cpu", backend, "F64", ulp=1.0, rel=1e-16, abs_=1e-3, cases=40),
            _row("mean_reduce_cpu", backend, "F16", ulp=0.0, rel=4.9e-4, abs_=0.9),
            *[_row("max_reduce_cpu", backend, d, ulp=0.0, rel=0.0, abs_=0.0, bound="exact", used=None)
              for d in ("F32", "F64", "BF16", "F16")],
        ]
    rows.append(_row("mean_reduce_cpu", "torch-cpu", "BF16", ulp=3.0, rel=0.1, abs_=9.0, verdict="fail"))
    folder.mkdir(parents=True)
    write_json(AuditRun(rows, [], {}, {"profile": "nightly", "started_at": "2026-12-01T00:00:00+00:00"}),
               folder / "results.json")
    return folder


def _added(diff: str) -> list[str]:
    return [ln[1:] for ln in diff.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


def test_a_planted_audit_gives_the_expected_blocks(tmp_path, cli, make_suite):
    contracts = make_suite(tmp_path / "contracts", "reduce.fkc.md", KERNELS)
    before = (contracts / "reduce.fkc.md").read_text()
    run = _plant(tmp_path / "run")
    shown = cli(tmp_path, "judge", "propose", str(run), "--contracts=contracts")
    assert shown.returncode == 0, shown.stderr
    assert (contracts / "reduce.fkc.md").read_text() == before  # a diff only, until --write
    added = _added(shown.stdout)
    # sums: F64 is 26240 ulp off, so ULP is the wrong measure; the relative error fits
    assert "  max_relative: 2.76e-03" in added
    # means: a few ulp everywhere; the failing BF16 row is left out and named
    assert "  max_ulp: 8" in added
    # maxima: exact by definition
    assert "  max_ulp: 0" in added
    text = "\n".join(added)
    assert "numpy F64 400 cases, pass: 2.624e+04 ulp (sum_reduce_cpu-numpy-F64-c4se)" in text
    assert "left out: torch-cpu BF16 is fail" in text
    assert "close: numpy BF16 uses 72% of the derived reduction bound" in text
    assert "thin: fewer than 100 cases" in text and "numpy F64 (40)" in text
    assert "thin: no passing row for BF16" in text  # the means' BF16
    assert not any("audited" in ln and "true" in ln for ln in added)

    written = cli(tmp_path, "judge", "propose", str(run), "--contracts=contracts", "--write")
    assert written.returncode == 0, written.stderr
    after = (contracts / "reduce.fkc.md").read_text()
    assert after.count("audited: false") == before.count("audited: false")
    assert cli(tmp_path, "judge", "lint", "contracts").returncode == 0
    again = cli(tmp_path, "judge", "propose", str(run), "--contracts=contracts", "--write")
    assert again.returncode == 0 and (contracts / "reduce.fkc.md").read_text() == after  # idempotent


def _unaudited(folder: Path, kernels: tuple[str, ...]) -> Path:
    """reference-elementwise.fkc.md's ``kernels``, their bounds cleared and ``audited: false``:
    held to the derived bound only, as a block no one has audited yet."""
    text = (ROOT / "suites" / "fuel" / "reference-elementwise.fkc.md").read_text()
    head = text[: text.index("\n## ")]
    keep = [s for s in text.split("\n## ")[1:] if s.split("\n", 1)[0].strip() in kernels]
    body = "".join("\n## " + s for s in keep)
    for key in ("max_ulp", "max_relative", "max_absolute"):
        body = re.sub(rf"^  {key}: .*$", f"  {key}: ~", body, flags=re.M)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reference-elementwise.fkc.md").write_text(head + body.replace("audited: true", "audited: false"))
    return folder


def test_an_audit_against_the_proposed_bounds_passes(tmp_path, cli, make_suite):
    """Real audits of mini-cpu: the sqrt and tanh-GELU blocks get a max_ulp, the sums keep their
    derived bound (their F32 rows are thousands of ulp and a relative 1e-3 off, at cancelling
    rows); with the edit written the files lint and the same audit passes."""
    make_suite(tmp_path / "contracts", "reduce.fkc.md", KERNELS[:2])  # what mini-cpu runs
    _unaudited(tmp_path / "contracts", ("sqrt", "gelu"))
    audit = ("judge", "audit", f"--plugin={BROKEN}", "--backend=mini-cpu", "--contracts=contracts",
             "--profile=ci", "-j", "1")
    first = cli(tmp_path, *audit, "--out=run")
    assert first.returncode == 0, first.stderr
    rows = json.loads((tmp_path / "run" / "results.json").read_text())["rows"]
    for r in rows:  # every worst-ULP case is kept, passing rows included
        assert r["verdict"] == "pass" and r["audited"] is False, r
        assert (tmp_path / "run" / "cases" / f"{r['ulp_max_case']}.npz").is_file(), r["kernel"]
    written = cli(tmp_path, "judge", "propose", "run", "--contracts=contracts", "--write")
    assert written.returncode == 0, written.stderr
    from judge.suite import load_paths

    loaded = {c.kernel: c for c in load_paths([tmp_path / "contracts"]).contracts}
    assert {k for k, c in loaded.items() if c.precision.declares_bound} == {"sqrt", "gelu"}
    assert all(c.precision.audited is False for c in loaded.values())
    assert "no fixed bound fits, the derived bound stays" in (tmp_path / "contracts" / "reduce.fkc.md").read_text()
    assert cli(tmp_path, "judge", "lint", "contracts").returncode == 0
    second = cli(tmp_path, *audit, "--out=again")
    assert second.returncode == 0, second.stdout + second.stderr
    again = json.loads((tmp_path / "again" / "results.json").read_text())["rows"]
    assert {r["verdict"] for r in again} == {"pass"}
    assert {r["derived_bound"] for r in again if r["kernel"] in ("sqrt", "gelu")} == {None}  # declared now


def test_a_second_audit_is_read_as_samples_and_a_sweep_as_every_input(tmp_path):
    """A GPU machine's nightly given beside a CPU machine's is more sampled evidence (its rows
    are thin at few cases, like the first run's); a ``judge sweep`` folder covers every input."""
    from judge.propose import load_evidence
    from judge.reports.tables import write_json

    def folder(name, profile, backend):
        path = tmp_path / name
        path.mkdir()
        row = _row("sum_reduce_cpu", backend, "F32", ulp=1.0, rel=1e-7, abs_=1.0, cases=40)
        write_json(AuditRun([row], [], {}, {"profile": profile}), path / "results.json")
        return path

    cpu, gpu, sweep = folder("cpu", "nightly", "numpy"), folder("gpu", "nightly", "cupy"), folder("sw", "sweep", "cupy")
    evidence = load_evidence([cpu], [gpu, sweep])
    assert [(e.row.backend, e.source, e.sweep) for e in evidence] == [
        ("numpy", str(cpu), False), ("cupy", str(gpu), False), ("cupy", str(sweep), True)]


def test_each_source_is_labelled_with_its_own_profile_and_start():
    """Evidence from a CPU machine's nightly and a GPU machine's, run hours apart: the comment
    names each folder with the run that made it, never the first run's date for both."""
    from judge.propose import Evidence, Proposal, comments

    rows = [_row("sum_reduce_cpu", b, "F32", ulp=1.0, rel=1e-7, abs_=1.0) for b in ("numpy", "cupy")]
    p = Proposal(contract=None, evidence=[Evidence(rows[0], "cpu-run"), Evidence(rows[1], "gpu-run")],
                 measure="max_ulp", value="1")
    head = comments(p, {"cpu-run": "nightly 2026-01-01T09:00", "gpu-run": "nightly 2026-01-01T14:00"})[0]
    assert "(cpu-run: nightly 2026-01-01T09:00, gpu-run: nightly 2026-01-01T14:00): max_ulp: 1" in head
    assert "(cpu-run, gpu-run): no bound" in comments(Proposal(contract=None, evidence=p.evidence))[0]
