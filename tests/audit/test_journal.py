"""The journal, the signals that stop an audit, and what the audit's terminal is spared, unit by unit."""

from __future__ import annotations

import os
import signal
import types
import warnings

import numpy as np
import pytest

from judge.api import TensorArg
from judge.cases import CaseRecord
from judge.journal import Journal, JournalError, journal_path, run_header
from judge.parallel import Interrupted, StopSignals
from judge.results import AuditRun, ResultRow
from judge.runner import ItemResult

KEY = "neg.fkc.md::neg[numpy-F32]"


def backend(name="numpy", describe="numpy 2.x"):
    return types.SimpleNamespace(name=name, describe=lambda: describe)


def header(**changes) -> dict:
    request = {"backends": ["numpy"], "contracts": "suite", "profile": "ci", "seed": 1,
               "plugins": [], "cross": False, "timeout": None, "shard": None}
    request.update(changes.pop("request", {}))
    fields = dict(request=request, backends=[backend()], plan=[KEY, "neg.fkc.md::neg[numpy-F16]"],
                  items={KEY: "rev-1", "neg.fkc.md::neg[numpy-F16]": "rev-1"}, expectations=None)
    fields.update(changes)
    return run_header(**fields)


def row(**kw) -> ResultRow:
    base = dict(suite="suite", file="suite/neg.fkc.md", kernel="neg", op_kind="NegElementwise",
                contract_backend="Cpu", backend="numpy", device="cpu", dtype="F32",
                revision="rev-1", cases=40, elements=900, ulp_max=3.0, ulp_p99=1.0,
                ulp_real_max=2.75, verdict="fail", reason="ulp: 3 > 1", seed=1, seconds=0.5)
    base.update(kw)
    return ResultRow(**base)


def result() -> ItemResult:
    case = CaseRecord("neg", "suite/neg.fkc.md", "numpy", "F32",
                      (TensorArg(np.array([1.5, -0.0, np.inf, np.nan], np.float32), (4,), (1,), 0,
                                 "F32"),), {}, "ulp", "element 0 is off", 1)
    res = ItemResult(row(counterexample=case.case_id), "the message", case,
                     [0.0, 0.5, 2.75, float("inf")], warnings=["RuntimeWarning: overflow (x.py:3)"])
    return res


def test_a_finished_item_reads_back_as_it_was_written(tmp_path):
    journal = Journal.start(tmp_path, header())
    written = result()
    journal.record(KEY, written)
    journal.close()
    assert (tmp_path / "cases" / f"{written.case.case_id}.npz").is_file()  # at once, not at the end

    again = Journal.resume(tmp_path, header())
    assert again.started_at == journal.started_at  # a resumed run began when the first did
    read = again.finished[KEY]
    assert read.row == written.row and read.message == written.message
    assert read.case.to_bytes() == written.case.to_bytes()
    assert np.array_equal(read.ulp_samples, written.ulp_samples)
    assert read.warnings == written.warnings
    count, path = again.write_warnings()
    assert count == 1 and f"{KEY}: RuntimeWarning" in path.read_text()
    again.close()


def test_a_torn_last_line_is_dropped_and_appending_goes_on(tmp_path):
    journal = Journal.start(tmp_path, header())
    journal.record(KEY, result())
    journal.close()
    with journal_path(tmp_path).open("ab") as f:
        f.write(b'{"key": "neg.fkc.md::neg[numpy-F16]", "row": {"ker')  # killed while writing
    again = Journal.resume(tmp_path, header())
    assert list(again.finished) == [KEY]
    other = result()
    other.row.dtype = "F16"
    again.record("neg.fkc.md::neg[numpy-F16]", other)
    again.close()
    assert set(Journal.resume(tmp_path, header()).finished) == {KEY, "neg.fkc.md::neg[numpy-F16]"}


def test_an_item_whose_case_file_is_gone_is_judged_again(tmp_path):
    journal = Journal.start(tmp_path, header())
    written = result()
    journal.record(KEY, written)
    journal.close()
    (tmp_path / "cases" / f"{written.case.case_id}.npz").unlink()
    assert Journal.resume(tmp_path, header()).finished == {}


@pytest.mark.parametrize("changes, said", [
    (dict(request={"seed": 2}), "option seed: 1 there, 2 here"),
    (dict(request={"profile": "nightly"}), "option profile: 'ci' there, 'nightly' here"),
    (dict(backends=[backend(describe="numpy 3.0")]), "backend numpy: 'numpy 2.x' there, 'numpy 3.0' here"),
    (dict(items={KEY: "rev-2", "neg.fkc.md::neg[numpy-F16]": "rev-1"}),
     f"1 items of revised contracts, e.g. {KEY}"),
    (dict(items={KEY: "rev-1"}), "1 items gone, e.g. neg.fkc.md::neg[numpy-F16]"),
    (dict(expectations=types.SimpleNamespace(entries=("another",))), "expectations: "),
], ids=["seed", "profile", "device", "revised", "gone", "expectations"])
def test_a_journal_of_another_run_is_refused(tmp_path, changes, said):
    Journal.start(tmp_path, header()).close()
    with pytest.raises(JournalError, match="is the journal of another run") as refused:
        Journal.resume(tmp_path, header(**changes))
    assert said in str(refused.value)


def test_no_journal_or_not_a_journal_is_refused(tmp_path):
    with pytest.raises(JournalError, match="there is no journal to resume"):
        Journal.resume(tmp_path, header())
    journal_path(tmp_path).parent.mkdir()
    journal_path(tmp_path).write_text('{"rows": []}\n')
    with pytest.raises(JournalError, match="is not a journal of this Judge"):
        Journal.resume(tmp_path, header())


def test_a_signal_waits_outside_the_interruptible_part():
    with StopSignals() as signals:
        os.kill(os.getpid(), signal.SIGTERM)  # while a finished item is recorded, say
        assert signals.received == [signal.SIGTERM]
        with pytest.raises(Interrupted, match="interrupted by SIGTERM"), signals.interruptible():
            pytest.fail("the pending signal is raised before the block runs")
        os.kill(os.getpid(), signal.SIGINT)  # while the outputs are written: only counted
        assert signals.received == [signal.SIGTERM, signal.SIGINT]
    assert signal.getsignal(signal.SIGTERM) is not signals._handle  # handlers put back


def test_a_signal_stops_the_interruptible_part_at_once():
    with StopSignals() as signals, pytest.raises(Interrupted) as stopped, signals.interruptible():
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(100):  # the handler runs between two bytecodes of this loop
            pass
        pytest.fail("not interrupted")
    assert stopped.value.signal == "SIGINT"


def test_warnings_raised_while_judging_go_into_the_result(suite_contract, monkeypatch):
    """Printed, they would bury the progress bar: the item's result keeps them instead."""
    monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")  # the kernel below computes and checks nothing
    from judge.parallel import Setup, Task
    from judge.profiles import get_profile
    from judge.runner import harness_died, judge_task

    class Warns:
        name, device = "warns", "cpu"

        def supports(self, contract, dtypes):
            return True

        def describe(self):
            return "warns"

        def run(self, contract, call):
            warnings.warn("the kernel's own remark", RuntimeWarning, stacklevel=1)
            x = call.inputs[0].view()
            return [np.negative(np.array(x))]

    setup = Setup((suite_contract,), (Warns(),), get_profile("ci"), 0, None, judge=judge_task,
                  died=harness_died)
    with warnings.catch_warnings(record=True) as escaped:
        warnings.simplefilter("always")
        res = judge_task(setup, Task(0, 0, 0, "F32"))
    assert res.row.verdict == "pass", res.message
    assert not escaped
    [said] = res.warnings
    assert said.startswith("RuntimeWarning: the kernel's own remark (test_journal.py:") and "(×" in said


def test_the_judge_widens_signalling_nans_without_a_warning():
    from judge.scoring.exact import _input_at
    from judge.scoring.rules import nan_involved

    snan = np.array([0x7F800001, 0x3F800000], np.uint32).view(np.float32)  # a signalling NaN, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mask = nan_involved(types.SimpleNamespace(elementwise=True), None, (snan,), {}, (2,))
        text = _input_at((snan,), ("x",), (0,), (), False)
    assert mask.tolist() == [True, False] and text == "x=[nan, 1.0]"


def test_merge_refuses_an_incomplete_shard():
    from judge.merge import MergeError, merge_runs

    meta = {"seed": 1, "profile": "ci", "plan": [KEY],
            "incomplete": {"signal": "SIGTERM", "finished": 0, "items": 1}}
    with pytest.raises(MergeError, match="shard-1 is an incomplete audit .* judge audit --resume shard-1"):
        merge_runs([AuditRun([], [], {}, meta)], ["shard-1"])


def test_summary_and_report_say_the_audit_is_incomplete():
    from judge.reports.html import render_report
    from judge.reports.summary import summary_markdown

    meta = {"seed": 1, "profile": "ci", "incomplete": {
        "signal": "SIGTERM", "finished": 1, "items": 24, "resume": "judge audit --resume out"}}
    run = AuditRun([row()], [], {}, meta)
    text = summary_markdown(run)
    assert ("> **Incomplete audit.** Interrupted by SIGTERM: 1 of 24 items finished; the other rows "
            "are missing. Finish it with `judge audit --resume out`.") in text
    page = render_report(run)
    assert '<p class="incomplete" id="incomplete"><b>Incomplete audit.</b> Interrupted by SIGTERM' in page
    assert 'id="incomplete"' not in render_report(AuditRun([row()], [], {}, {"seed": 1}))
    assert "Incomplete" not in summary_markdown(AuditRun([row()], [], {}, {"seed": 1}))
