"""The pytest plugin (SPEC §7): ``pytest --backend=B`` collects ``*.fkc.md`` contract files.

Each registrable block × selected backend × dtype is one item, id
``suites/fuel/reduce.fkc.md::sum_reduce_cuda[cupy-F32]``. Without ``--backend`` the plugin stays
out of the way: contract files are not collected.
"""

from __future__ import annotations

import datetime as _dt
import os
import random
import sys
from pathlib import Path

import pytest

_STATE = pytest.StashKey[dict]()


def pytest_addoption(parser):
    g = parser.getgroup("judge", "the Judge: FKC contract conformance")
    g.addoption("--backend", action="append", default=[], metavar="B",
                help="backend name, device class (cpu|cuda|vulkan) or 'all'; repeatable. "
                     "Turns on collection of *.fkc.md contract files.")
    g.addoption("--contracts", action="append", default=[], metavar="PATH",
                help="contract files or folders (default: the embedded suite suites/fuel)")
    g.addoption("--plugin", action="append", default=[], dest="judge_plugins", metavar="X",
                help="backend plugin: module name or .py file path; repeatable")
    g.addoption("--judge-profile", default=None, choices=("dev", "ci", "nightly"),
                help="Hypothesis budget (default: ci when CI is set, else dev)")
    g.addoption("--judge-seed", type=int, default=None, help="seed for generated cases")
    g.addoption("--judge-report", default=None, metavar="DIR", help="also write the audit outputs here")
    g.addoption("--judge-expectations", default=None, metavar="FILE",
                help="known divergences (default: suites/expectations.toml)")
    g.addoption("--cross", action="store_true", default=False,
                help="also judge every selected backend against contracts of other devices")
    g.addoption("--judge-timeout", type=float, default=None, metavar="S",
                help="seconds one backend call may take before its worker is killed and the "
                     "item fails (default: 60 s plus 0.1 ms per element of the call)")


def pytest_configure(config):
    requested = tuple(config.getoption("backend") or ())
    if not requested:
        return
    from judge.contracts import default_suite_path
    from judge.expectations import ExpectationsError, load_expectations
    from judge.profiles import get_profile
    from judge.registry import BackendSelectionError, default_registry

    try:
        registry = default_registry().load_all(tuple(config.getoption("judge_plugins") or ()))
        # Backends are probed once per run, in child processes: xdist workers reuse the probes.
        registry.probed.update(getattr(config, "workerinput", {}).get("judge_probed", {}))
        selected, unavailable = registry.select(requested, timeout=config.getoption("judge_timeout"))
    except BackendSelectionError as exc:
        raise pytest.UsageError(f"judge: {exc}") from None
    if not selected:
        raise pytest.UsageError(
            "judge: none of the requested backends is available: "
            + "; ".join(f"{k}: {v}" for k, v in unavailable.items())
        )
    try:
        expectations = load_expectations(config.getoption("judge_expectations"))
    except ExpectationsError as exc:
        raise pytest.UsageError(f"judge: {exc}") from None
    profile_name = config.getoption("judge_profile") or ("ci" if os.environ.get("CI") else "dev")
    seed = config.getoption("judge_seed")
    if seed is None:
        seed = 0 if profile_name == "ci" else random.SystemRandom().randrange(2**31)
    state = {
        "backends": selected,
        "unavailable": unavailable,
        "profile": get_profile(profile_name),
        "seed": seed,
        "expectations": expectations,
        "cross": bool(config.getoption("cross")),
        "rows": [],
        "cases": {},
        "samples": {},
        "started_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
    }
    config.stash[_STATE] = state
    contracts = [str(p) for p in (config.getoption("contracts") or [default_suite_path()])]
    if getattr(config, "args_source", None) != pytest.Config.ArgsSource.ARGS:
        config.args = contracts
    config.addinivalue_line("markers", "judge: a contract conformance item")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """pytest-xdist: hand each worker the controller's backend probes."""
    from judge.registry import default_registry

    if node.config.stash.get(_STATE, None) is not None:
        node.workerinput["judge_probed"] = dict(default_registry().probed)


def pytest_unconfigure(config):
    if config.stash.get(_STATE, None) is not None:
        from judge.sandbox import close_all

        close_all()


def pytest_report_header(config):
    state = config.stash.get(_STATE, None)
    if state is None:
        return None
    lines = [f"judge: profile {state['profile'].name}, seed {state['seed']}, "
             f"expectations {state['expectations'].path} ({len(state['expectations'].entries)} entries)"]
    for b in state["backends"]:
        lines.append(f"judge: backend {b.name} [{b.device}]: {b.describe()}")
    for name, why in state["unavailable"].items():
        lines.append(f"judge: backend {name} unavailable: {why}")
    return lines


def pytest_collect_file(file_path: Path, parent):
    if not file_path.name.endswith(".fkc.md"):
        return None
    if parent.config.stash.get(_STATE, None) is None:
        return None
    return ContractFile.from_parent(parent, path=file_path)


class ContractFile(pytest.File):
    def collect(self):
        from judge.runner import plan_items
        from judge.suite import load_text

        state = self.config.stash[_STATE]
        # Read by its absolute path, from any working directory; named as pytest names it
        # (relative to the rootdir where it lies inside it), which is what ids and messages show.
        rel = os.path.relpath(self.path, self.config.rootpath)
        name = str(self.path) if rel.startswith("..") else rel
        loaded = load_text(self.path.read_text(encoding="utf-8"), name, suite=os.path.dirname(name))
        if loaded.errors:
            yield ContractErrorItem.from_parent(self, name="contract-errors", errors=loaded.errors)
        for contract, backend, dtype, ok in plan_items(loaded.contracts, state["backends"], cross=state["cross"]):
            yield ContractItem.from_parent(
                self, name=f"{contract.kernel}[{backend.name}-{dtype}]",
                contract=contract, backend=backend, dtype=dtype, supported=ok,
            )


class ContractErrorItem(pytest.Item):
    def __init__(self, *, errors, **kw):
        super().__init__(**kw)
        self.errors = errors

    def runtest(self):
        raise ContractFileError("\n".join(str(e) for e in self.errors))

    def repr_failure(self, excinfo):
        return str(excinfo.value)

    def reportinfo(self):
        return self.path, 0, "contract errors"


class ContractFileError(Exception):
    pass


class JudgeItemFailure(Exception):
    pass


class ContractItem(pytest.Item):
    def __init__(self, *, contract, backend, dtype, supported, **kw):
        super().__init__(**kw)
        self.contract, self.backend, self.dtype, self.supported = contract, backend, dtype, supported
        self.add_marker("judge")

    def runtest(self):
        from judge.runner import Item, run_item, unsupported_row

        state = self.config.stash[_STATE]
        if self.supported is not True:
            row = unsupported_row(self.contract, self.backend, self.dtype, str(self.supported), state["seed"])
            self.user_properties.append(("judge_row", row.as_dict()))
            pytest.skip(f"unsupported by {self.backend.name}: {self.supported}")
        database = None
        if state["profile"].use_database:
            from hypothesis.database import DirectoryBasedExampleDatabase

            database = DirectoryBasedExampleDatabase(str(self.config.rootpath / ".hypothesis" / "judge"))
        result = run_item(Item(self.contract, self.backend, self.dtype), state["profile"],
                          seed=state["seed"], expectations=state["expectations"], database=database)
        self.user_properties.append(("judge_row", result.row.as_dict()))
        if self.config.getoption("judge_report"):
            cases = [_case_payload(c) for c in result.all_cases()]
            if cases:
                self.user_properties.append(("judge_cases", cases))
            self.user_properties.append(("judge_samples", result.ulp_samples[:2000]))
        verdict = result.row.verdict
        if verdict == "xfail":
            pytest.xfail(result.row.reason)
        if verdict in ("fail", "error"):
            raise JudgeItemFailure(result.message or result.row.reason)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, JudgeItemFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.contract.location.line - 1, self.name


def _case_payload(record) -> str:
    import base64

    return base64.b64encode(record.to_bytes()).decode()


def pytest_runtest_logreport(report):
    if report.when != "call":
        return
    props = dict(report.user_properties)
    row = props.get("judge_row")
    if row is None:
        return
    _COLLECTED.append((row, props.get("judge_cases") or [], props.get("judge_samples")))


_COLLECTED: list = []


def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_STATE, None)
    out = session.config.getoption("judge_report", None)
    if state is None or not out or hasattr(session.config, "workerinput"):
        return
    _write_report(session.config, state, Path(out))


def _not_applicable(state, rows) -> list[dict]:
    """The known divergences scoped elsewhere that name a judged row."""
    from judge.verdict import not_applicable_entries

    by_name = {b.name: b for b in state["backends"]}
    items = {(r.kernel, r.backend, r.dtype) for r in rows if r.backend in by_name}
    return not_applicable_entries(state["expectations"],
                                  [(k, by_name[b], d) for k, b, d in sorted(items)])


def _write_report(config, state, out: Path) -> None:
    import base64

    import numpy as np

    from judge.cases import CaseRecord
    from judge.results import AuditRun, ResultRow

    rows, cases, samples = [], [], {}
    for row, cases_b64, sample in _COLLECTED:
        r = ResultRow(**row)
        rows.append(r)
        cases += [CaseRecord.from_bytes(base64.b64decode(c)) for c in cases_b64]
        if sample is not None:
            samples[(r.kernel, r.backend, r.dtype)] = np.asarray(sample, dtype=np.float64)
    from judge.reports import write_audit
    from judge.verdict import run_meta

    meta = run_meta(profile=state["profile"].name, seed=state["seed"], backends=state["backends"],
                    unavailable=state["unavailable"], items=len(rows),
                    started_at=state.get("started_at"), source="pytest",
                    not_applicable=_not_applicable(state, rows))

    paths = write_audit(AuditRun(rows, cases, samples, meta), out)
    line = f"judge: audit report written to {paths.get('report.html', out)}"
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(line)
    else:
        print(line, file=sys.stderr)
