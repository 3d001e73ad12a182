"""Known divergences: listed failures xfail, stale entries fail, matching is exact."""

from __future__ import annotations

import pytest

from judge.expectations import ExpectationsError, load_expectations
from judge.profiles import get_profile
from judge.runner import Item, run_item

BIN = "elementwise-binary.fkc.md"


def _write(tmp_path, kernel, backend, check, dtype="F32", where=None):
    extra = f"where = {where}\n" if where else ""
    p = tmp_path / "expectations.toml"
    p.write_text(
        f'[[divergence]]\nkernel = "{kernel}"\nbackend = "{backend}"\ndtype = "{dtype}"\n'
        f'check = "{check}"\nreason = "test reason"\n{extra}'
    )
    return load_expectations(p)


def test_listed_failure_is_xfail(tmp_path, broken, suite):
    exp = _write(tmp_path, "maximum_elementwise_cpu", "broken-nan-rule", "nan")
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.WrongNanRule(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "xfail" and "test reason" in row.reason


def test_stale_entry_fails(tmp_path, broken, suite):
    exp = _write(tmp_path, "maximum_elementwise_cpu", "mini-cpu", "nan")
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.MiniCpu(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation")


@pytest.mark.parametrize("kernel, dtype, where", [
    ("maximum_elementwise", "F32", None),  # a prefix of the kernel name: no match
    ("maximum_elementwise_cpu", "F64", None),  # another dtype
    ("maximum_elementwise_cpu", "F32", '{ gpu = "some-gpu" }'),  # a key this backend lacks
    ("maximum_elementwise_cpu", "F32", '{ cpu_model = "AMD" }'),  # a prefix of the CPU's name
])
def test_matching_is_exact(tmp_path, broken, suite, kernel, dtype, where):
    exp = _write(tmp_path, kernel, "broken-nan-rule", "nan", dtype=dtype, where=where)
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.WrongNanRule(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("nan")


def test_a_listed_check_does_not_excuse_another(tmp_path, broken, suite):
    exp = _write(tmp_path, "neg", "broken-dtype", "shape")
    row = run_item(Item(suite("reference-elementwise.fkc.md", "neg"), broken.WrongDtype(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("dtype")


@pytest.mark.parametrize("body, message", [
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\n', "lacks reason"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nope"\nreason = "r"\n', "not one of"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\nreason = "r"\ncolour = 1\n', "unknown key"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\nreason = "r"\n'
     'device = "NVIDIA"\n', "a device is a scope now"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\nreason = "r"\n'
     'where = { colour = "red" }\n', "unknown fingerprint key 'colour'"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\nreason = "r"\n'
     'where = { torch = "two point eleven" }\n', "not a PEP 440 version specifier"),
    ("[[divergence]\n", "expectations.toml"),
])
def test_bad_expectations_file(tmp_path, body, message):
    p = tmp_path / "expectations.toml"
    p.write_text(body)
    with pytest.raises(ExpectationsError, match=message):
        load_expectations(p)


def test_shipped_expectations_load():
    exp = load_expectations()
    assert all(e.reason for e in exp.entries)


class _RareSlip:
    """neg that returns its input unchanged for the one value 1234.5: a divergence the search
    practically never meets, but a recorded counterexample shows every time."""

    @staticmethod
    def make(broken, slip: bool):
        import numpy as np

        class RareSlip(broken.MiniCpu):
            name = "rare-slip"

            def compute(self, contract, call, xs):
                out = super().compute(contract, call, xs)
                if slip:
                    out = np.where(xs[0] == 1234.5, xs[0], out)
                return out

        return RareSlip()


def _record_case(tmp_path, contract, backend_name):
    import numpy as np

    from judge.api import TensorArg
    from judge.cases import CaseRecord

    base = np.array([1.0, 1234.5], dtype=np.float32)
    record = CaseRecord(contract.kernel, contract.file, backend_name, "F32",
                        (TensorArg(base, (2,), (1,), 0, "F32"),), {}, "exact", "recorded by hand")
    folder = tmp_path / "expectation-cases"
    folder.mkdir(exist_ok=True)
    record.save(folder)
    return record.case_id


def _write_with_case(tmp_path, case_id):
    p = tmp_path / "expectations.toml"
    p.write_text('[[divergence]]\nkernel = "neg"\nbackend = "rare-slip"\ndtype = "F32"\ncheck = "exact"\n'
                 f'reason = "returns 1234.5 unchanged"\ncase = "{case_id}"\n')
    return load_expectations(p)


def test_a_recorded_case_keeps_a_rarely_met_divergence_listed(tmp_path, broken, suite):
    contract = suite("reference-elementwise.fkc.md", "neg")
    exp = _write_with_case(tmp_path, _record_case(tmp_path, contract, "rare-slip"))
    row = run_item(Item(contract, _RareSlip.make(broken, slip=True), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "xfail", row.reason
    # without the recorded case the same entry is stale: the search does not meet 1234.5
    (tmp_path / "bare").mkdir()
    bare = _write(tmp_path / "bare", "neg", "rare-slip", "exact")
    row = run_item(Item(contract, _RareSlip.make(broken, slip=True), "F32"), get_profile("ci"),
                   expectations=bare).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation")


def test_a_recorded_case_that_now_conforms_is_stale(tmp_path, broken, suite):
    contract = suite("reference-elementwise.fkc.md", "neg")
    exp = _write_with_case(tmp_path, _record_case(tmp_path, contract, "rare-slip"))
    row = run_item(Item(contract, _RareSlip.make(broken, slip=False), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation")


def test_a_missing_recorded_case_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "expectations.toml"
    p.write_text('\n[[divergence]]\nkernel = "neg"\nbackend = "b"\ndtype = "F32"\ncheck = "exact"\n'
                 'reason = "r"\ncase = "neg-b-F32-000000000000"\n')
    with pytest.raises(ExpectationsError, match=r"expectations.toml:2: recorded case .* not found"):
        load_expectations(p)


def _shipped_cases():
    exp = load_expectations()
    return [e for e in exp.entries if e.case_file]


@pytest.mark.parametrize("entry", _shipped_cases(), ids=lambda e: f"{e.kernel}-{e.backend}-{e.dtype}-{e.check}")
def test_every_shipped_recorded_case_still_shows_its_divergence(entry):
    import oracles
    from judge.cases import CaseRecord
    from judge.contracts import default_suite_path
    from judge.registry import default_registry
    from judge.runner import case_from_record, judge_case
    from judge.suite import load_paths

    backend = default_registry().load_all().backends[entry.backend]
    why = backend.available()
    if why is not True:
        pytest.skip(f"{entry.backend} unavailable here: {why}")
    from judge.fingerprint import describe_scope
    from judge.verdict import fingerprint_of

    if not entry.in_scope(fingerprint_of(backend)):
        pytest.skip(f"the entry holds where {describe_scope(entry.scope)}; not here")
    record = CaseRecord.load(entry.case_file)
    assert (record.kernel, record.backend, record.dtype) == (entry.kernel, entry.backend, entry.dtype)
    (contract,) = [c for c in load_paths([default_suite_path()]).contracts
                   if c.kernel == entry.kernel and c.device == backend.device]
    outcome = judge_case(contract, backend, case_from_record(record), oracles.get(contract.op_kind), repeats=1)
    assert entry.check in {f.check for f in outcome.findings}, [f.message for f in outcome.findings]


def test_a_case_recorded_on_another_checkout_replays_against_the_embedded_suite():
    import dataclasses

    from judge.cases import CaseRecord
    from judge.expectations import load_expectations
    from judge.runner import replay_case

    entry = next(e for e in load_expectations().entries if e.case_file and e.backend == "numpy")
    record = CaseRecord.load(entry.case_file)
    moved = dataclasses.replace(record, file="/elsewhere/checkout/suites/fuel/" + record.file.rsplit("/", 1)[-1])
    verdict, message = replay_case(moved, expectations=load_expectations())
    assert verdict == "xfail", message


# -- scopes (SPEC §8): the fingerprint is faked, so these hold on any machine --------------------

def _faked(backend, **facts):
    """``backend`` reporting ``facts`` as its fingerprint (over the host's)."""
    backend.fingerprint = lambda: dict(facts)
    return backend


@pytest.mark.parametrize("where", [
    '{ cpu = "AVX2" }',  # another instruction set
    '{ torch = ">=2.11,<2.13" }',  # another library version (the backend says 2.13.0+cpu)
    '{ cpu = "AVX512", torch = ">=2.14" }',  # one predicate of two fails
    '{ cpu_flags = ["avx512_bf16", "amx_tile"] }',  # a CPU feature this one lacks
])
def test_an_entry_scoped_elsewhere_is_inactive(tmp_path, broken, suite, where):
    facts = {"cpu": "AVX512", "torch": "2.13.0+cpu", "cpu_flags": "avx2 avx512f avx512_bf16"}
    contract = suite(BIN, "maximum_elementwise_cpu")
    exp = _write(tmp_path, "maximum_elementwise_cpu", "broken-nan-rule", "nan", where=where)
    # the divergence shows, but the entry does not hold here: an unrecorded failure, not an xfail
    row = run_item(Item(contract, _faked(broken.WrongNanRule(), **facts), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("nan"), row.reason
    # a backend without the divergence passes: the entry is not stale where it does not hold
    exp = _write(tmp_path, "maximum_elementwise_cpu", "mini-cpu", "nan", where=where)
    row = run_item(Item(contract, _faked(broken.MiniCpu(), **facts), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "pass", row.reason


@pytest.mark.parametrize("where", [
    '{ cpu = "AVX512" }',
    '{ cpu = ["AVX2", "AVX512"], torch = ">=2.11,<2.14" }',
    '{ torch = "==2.13.0" }',  # the local label +cpu is the same release
    '{ cpu_flags = ["avx512_bf16", "!amx_tile"] }',
])
def test_an_entry_in_scope_applies(tmp_path, broken, suite, where):
    facts = {"cpu": "AVX512", "torch": "2.13.0+cpu", "cpu_flags": "avx2 avx512f avx512_bf16"}
    contract = suite(BIN, "maximum_elementwise_cpu")
    exp = _write(tmp_path, "maximum_elementwise_cpu", "broken-nan-rule", "nan", where=where)
    row = run_item(Item(contract, _faked(broken.WrongNanRule(), **facts), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "xfail", row.reason
    exp = _write(tmp_path, "maximum_elementwise_cpu", "mini-cpu", "nan", where=where)
    row = run_item(Item(contract, _faked(broken.MiniCpu(), **facts), "F32"), get_profile("ci"),
                   expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation"), row.reason


def test_an_in_scope_entry_whose_recorded_case_stopped_failing_is_stale(tmp_path, broken, suite):
    contract = suite("reference-elementwise.fkc.md", "neg")
    case_id = _record_case(tmp_path, contract, "rare-slip")
    p = tmp_path / "expectations.toml"
    p.write_text('[[divergence]]\nkernel = "neg"\nbackend = "rare-slip"\ndtype = "F32"\n'
                 'check = "exact"\nreason = "returns 1234.5 unchanged"\n'
                 f'where = {{ numpy = ">=1.26" }}\ncase = "{case_id}"\n')
    exp = load_expectations(p)
    fixed = _faked(_RareSlip.make(broken, slip=False), numpy="2.0.0")
    row = run_item(Item(contract, fixed, "F32"), get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation"), row.reason
    old = _faked(_RareSlip.make(broken, slip=False), numpy="1.25.0")  # out of scope: inactive
    assert run_item(Item(contract, old, "F32"), get_profile("ci"), expectations=exp).row.verdict == "pass"


def test_an_audit_lists_the_entries_not_applicable_here(tmp_path, broken, suite):
    from judge.reports.summary import summary_markdown
    from judge.runner import run_audit

    contract = suite(BIN, "maximum_elementwise_cpu")
    exp = _write(tmp_path, "maximum_elementwise_cpu", "mini-cpu", "nan", where='{ cpu = "AVX2" }')
    backend = _faked(broken.MiniCpu(), cpu="AVX512")
    run = run_audit([contract], [backend], profile=get_profile("ci"), expectations=exp)
    f32 = [r for r in run.rows if r.dtype == "F32"]
    assert [r.verdict for r in f32] == ["pass"]
    assert '"cpu": "AVX512"' in f32[0].fingerprint
    assert run.meta["fingerprints"]["mini-cpu"]["cpu"] == "AVX512"
    (entry,) = run.meta["not_applicable"]
    assert (entry["kernel"], entry["dtype"], entry["check"], entry["scope"]) == (
        "maximum_elementwise_cpu", "F32", "nan", "cpu AVX2")
    assert "## Not applicable here (1)" in summary_markdown(run)
