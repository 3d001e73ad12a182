"""``judge audit``: the nightly precision audit (SPEC §7, §9).

Loads the contracts, selects the backends, runs every registrable contract on every selected
backend and writes the audit outputs. Exit 0 when every row is pass, xfail or unsupported; 1 on a
conformance failure or a contract error; 2 when a requested backend or path is unavailable, or
when SIGINT or SIGTERM stopped the run (the outputs of what finished are written, marked
incomplete, and ``--resume DIR`` finishes it from its journal, ``judge.journal``).
The option set and the run itself are shared with ``judge gate`` (which audits when no
``--current`` file is given).
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import click

CONFORMING = ("pass", "xfail", "unsupported")
DEFAULT_OUT = "reports/out"  # SPEC §2: audits write under reports/ (git-ignored)
PROFILES = ("dev", "ci", "nightly")


class EnvironmentProblem(click.ClickException):
    """A requested backend, plugin or path is unavailable (exit code 2)."""

    exit_code = 2


class AuditInterrupted(EnvironmentProblem):
    """SIGINT or SIGTERM stopped the run after its finished items were written (exit code 2:
    the environment ended the run, SPEC §7)."""


@dataclass(frozen=True)
class AuditRequest:
    backends: tuple[str, ...]
    contracts: str | None
    profile: str
    seed: int
    plugins: tuple[str, ...]
    out: str
    cross: bool = False
    jobs: int | None = None  # None: one per core
    timeout: float | None = None  # per backend call; None: derived from the call's size
    shard: str | None = None  # "K/N"
    expectations: str | None = None  # the known divergences (default: suites/expectations.toml)
    collect: bool = False  # judge every item's whole budget, listing each unrecorded check

    def identity(self) -> dict:
        """The options that decide what is judged and how (a journal's ``request``): not -j,
        which changes no row, and not --out."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in vars(self).items() if name not in ("jobs", "out")}


def audit_options(func=None, *, profile: str = "nightly"):
    """The audit options, shared by ``judge audit`` and ``judge gate`` (whose default profile
    is the derandomised ``ci``, so a PR is judged on the same cases every time)."""
    if func is None:
        return lambda f: audit_options(f, profile=profile)
    options = [
        click.option("--backend", "backends", multiple=True, metavar="B",
                     help="Backend name, device class (cpu|cuda|vulkan) or all; repeatable. "
                          "Default: every available backend."),
        click.option("--contracts", type=click.Path(), default=None,
                     help="Contract file or folder. Default: the embedded suite."),
        click.option("--profile", type=click.Choice(PROFILES), default=profile,
                     show_default=True, help="Hypothesis budget."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of every generated case."),
        click.option("--plugin", "plugins", multiple=True, metavar="X",
                     help="Backend plugin module or .py file; repeatable."),
        click.option("--out", type=click.Path(file_okay=False), default=DEFAULT_OUT,
                     show_default=True, help="Folder for the audit outputs."),
        click.option("--cross", is_flag=True,
                     help="Also judge each backend against contracts of other devices."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Worker processes (default: one per core; on CUDA each worker is "
                          "pinned to one visible GPU, round robin)."),
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="S", help="Seconds one backend call may take before its worker is "
                                       "killed and the item is an error (default: 60 s plus "
                                       "0.1 ms per element of the call)."),
        click.option("--shard", default=None, metavar="K/N",
                     help="Judge only the K-th of N deterministic partitions of the items "
                          "(by item key); put the pieces together with judge merge."),
        click.option("--expectations", type=click.Path(dir_okay=False), default=None,
                     metavar="FILE", help="Known divergences (default: suites/expectations.toml)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("audit")
@audit_options
@click.option("--resume", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Finish the interrupted audit whose outputs are in DIR: judge only the items "
                   "its journal (DIR/journal/) lacks, with the options it ran with (-j may "
                   "change), then write every output to DIR as an uninterrupted run would.")
@click.option("--collect", is_flag=True,
              help="Judge each item's whole budget: a failing check does not end its search, and "
                   "the row names every unrecorded check it met, each with the first case that "
                   "showed it (not shrunk), so `judge baseline` drafts them all in one step.")
@click.pass_context
def command(ctx, backends, contracts, profile, seed, plugins, out, cross, jobs, timeout, shard,
            expectations, resume, collect) -> None:
    """Run the precision audit and write results.{parquet,csv,json}, summary.md, report.html
    and cases/ under --out. Backend calls run in sandboxed worker processes: a kernel that
    crashes or hangs makes its row an error and the audit goes on.

    Each item is written to a journal under --out as it finishes. SIGINT or SIGTERM stops the
    run: the outputs of the finished items are written, marked incomplete, and the exit code
    is 2; `judge audit --resume DIR` then judges only what is missing."""
    request = AuditRequest(tuple(backends), contracts, profile, seed, tuple(plugins), out, cross,
                           jobs, timeout, shard, expectations, collect)
    if resume is not None:
        request = resumed_request(ctx, request, resume)
    loaded = load_contracts(request.contracts)
    run, paths = run_and_write(request, registrable(loaded), resume=resume is not None)
    from judge.reports.summary import scoreboard_markdown

    click.echo(scoreboard_markdown(run.rows))
    click.echo("")
    width = max(map(len, paths))
    for name, path in paths.items():
        click.echo(f"{name:>{width}}: {path}")
    failing = [r for r in run.rows if r.verdict not in CONFORMING]
    if loaded.errors:
        click.echo(f"{len(loaded.errors)} contract error(s); see above", err=True)
    if failing:
        click.echo(f"{len(failing)} of {len(run.rows)} rows do not conform "
                   f"(see {paths['summary.md']})", err=True)
    sys.exit(1 if failing or loaded.errors else 0)


def load_contracts(path: str | None):
    """Load contract files (default: the embedded suite); print contract errors to stderr."""
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    target = Path(path) if path else Path(default_suite_path())
    if not target.exists():
        raise EnvironmentProblem(f"contract path {str(target)!r} does not exist")
    loaded = load_paths([target])
    for error in loaded.errors:
        click.echo(f"contract error: {error}", err=True)
    return loaded


def registrable(loaded) -> list:
    return [c for c in loaded.contracts if c.registrable]


def resumed_request(ctx: click.Context, given: AuditRequest, folder: str) -> AuditRequest:
    """The request of the interrupted run whose outputs are in ``folder`` (from its journal),
    with this call's -j; exit 2 when an option given on this command line contradicts it."""
    from click.core import ParameterSource

    from judge.journal import JournalError, read_header

    try:
        recorded = read_header(folder)["request"]
        request = AuditRequest(**{**recorded, "backends": tuple(recorded["backends"]),
                                  "plugins": tuple(recorded["plugins"]), "out": folder,
                                  "jobs": given.jobs})
    except JournalError as exc:
        raise EnvironmentProblem(str(exc)) from None
    except (KeyError, TypeError) as exc:
        raise EnvironmentProblem(f"{folder}: its journal names no run this Judge can resume "
                                 f"({type(exc).__name__}: {exc})") from None
    given_here = {name for name in ctx.params
                  if ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE,
                                                        ParameterSource.ENVIRONMENT)}
    mine, theirs = given.identity(), request.identity()
    clash = [f"{name} {theirs[name]!r} there, {mine[name]!r} here" for name in sorted(mine)
             if name in given_here and mine[name] != theirs[name]]
    if "out" in given_here and Path(given.out).resolve() != Path(folder).resolve():
        clash.append(f"out {folder!r} there (a resumed run writes where it began), {given.out!r} here")
    if clash:
        raise EnvironmentProblem(f"{folder} holds the journal of another run: " + "; ".join(clash))
    return request


def select_backends(request: AuditRequest) -> tuple[list, dict[str, str]]:
    """Selected available backends and {name: why unavailable}; exit 2 on a named one."""
    from judge.registry import BackendSelectionError, default_registry

    try:
        registry = default_registry().load_all(request.plugins)
        chosen, missing = registry.select(request.backends, timeout=request.timeout)
    except BackendSelectionError as exc:
        raise EnvironmentProblem(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - a plugin that crashes on import is an environment error
        raise EnvironmentProblem(f"loading backends failed: {type(exc).__name__}: {exc}") from exc
    missing = dict(missing)
    missing.update({f"({source})": why for source, why in registry.load_errors.items()})
    return chosen, missing


def run_and_write(request: AuditRequest, contracts: list, *, resume: bool = False):
    """Run the audit on ``contracts`` and write its outputs; return (AuditRun, paths). With
    ``resume``, the items the journal under ``request.out`` holds are not judged again. A run
    that SIGINT or SIGTERM stopped writes what finished, then exits 2 (``AuditInterrupted``)."""
    from judge.expectations import ExpectationsError, load_expectations
    from judge.parallel import Shard, default_jobs

    try:
        shard = Shard.parse(request.shard) if request.shard else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--shard") from None
    jobs = request.jobs or default_jobs()
    chosen, missing = select_backends(request)
    for name, why in sorted(missing.items()):
        click.echo(f"unavailable: {name}: {why}", err=True)
    if not chosen:
        raise EnvironmentProblem("no backend is available to audit with")
    try:
        expectations = load_expectations(request.expectations)
    except ExpectationsError as exc:
        raise EnvironmentProblem(f"known divergences cannot be read: {exc}") from exc
    journal = open_journal(request, contracts, chosen, expectations, shard, resume=resume)
    total = len(journal.header["items"])
    click.echo(f"auditing {len(contracts)} contracts, {total} items on "
               f"{', '.join(b.name for b in chosen)} (profile {request.profile}, "
               f"seed {request.seed}, {jobs} worker{'s' if jobs > 1 else ''}"
               f"{f', shard {shard}' if shard else ''}"
               f"{f', {len(journal.finished)} finished before' if resume else ''})", err=True)
    try:
        run, paths = judge_and_write(request, contracts, chosen, journal, total,
                                     expectations=expectations, unavailable=missing, jobs=jobs,
                                     shard=shard, collect=request.collect)
    finally:
        journal.close()
    report_warnings(journal)
    stopped = run.meta.get("incomplete")
    if stopped:
        raise AuditInterrupted(f"the audit was interrupted by {stopped['signal']}: the "
                          f"{stopped['finished']} finished items of {stopped['items']} are "
                          f"written under {request.out}, marked incomplete; finish it with: "
                          f"{stopped['resume']}")
    return run, paths


def judge_and_write(request: AuditRequest, contracts, chosen, journal, total: int, **options):
    """Judge under a progress bar, SIGINT and SIGTERM stopping the judging (not the writing:
    a second signal waits for it), then write the outputs; return (AuditRun, paths)."""
    from judge.parallel import StopSignals
    from judge.profiles import get_profile
    from judge.reports import write_audit

    run_audit = harness_function("judge.runner", "run_audit")
    with StopSignals() as signals:
        try:
            with Progress(total) as progress:
                run = run_audit(contracts, chosen, profile=get_profile(request.profile), seed=request.seed,
                                progress=progress, cross=request.cross, journal=journal,
                                signals=signals, **options)
        finally:
            from judge.sandbox import close_all

            close_all()
        if run.meta.get("incomplete"):
            run.meta["incomplete"]["resume"] = f"judge audit --resume {shlex.quote(request.out)}"
        return run, write_audit(run, request.out)


def open_journal(request: AuditRequest, contracts, chosen, expectations, shard, *, resume: bool):
    """The run's journal under --out: a new one, or (``resume``) the interrupted run's, which must
    be of this very run (exit 2 otherwise, saying how it differs)."""
    from judge.journal import Journal, JournalError, run_header
    from judge.runner import Item, plan_items

    plan, items = [], {}
    for contract, backend, dtype, _ in plan_items(contracts, chosen, cross=request.cross):
        key = Item(contract, backend, dtype).key
        plan.append(key)
        if shard is None or shard.holds(key):
            items[key] = contract.revision
    header = run_header(request=request.identity(), backends=chosen, plan=plan, items=items,
                        expectations=expectations)
    try:
        return Journal.resume(request.out, header) if resume else Journal.start(request.out, header)
    except JournalError as exc:
        raise EnvironmentProblem(str(exc)) from None
    except OSError as exc:
        raise EnvironmentProblem(f"cannot write the journal under {request.out}: "
                                 f"{exc.strerror or exc}") from None


def report_warnings(journal) -> None:
    """One line for the Python warnings raised while judging, kept out of the terminal (they
    change no verdict, and printed as they come they would bury the progress bar)."""
    count, path = journal.write_warnings()
    if count:
        click.echo(f"{count} Python warning(s) raised while judging (by libraries, kernels or "
                   f"the oracle; no verdict depends on them): {path}", err=True)


def harness_function(module: str, name: str):
    """``module.name``, or exit 2 saying why this installation cannot provide it."""
    import importlib

    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise EnvironmentProblem(f"{module}.{name} is not available: {exc}") from exc


class Progress:
    """The audit's progress callback, called with each finished result row: a tqdm bar when
    tqdm is installed, else a plain counter on stderr (a line per 5%, so logs stay short)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self._bar = None
        self._plain = False

    def __enter__(self) -> Progress:
        try:
            from tqdm import tqdm
        except ImportError:
            self._plain = True
        else:
            self._bar = tqdm(total=self.total, unit="item", file=sys.stderr, dynamic_ncols=True)
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()

    def __call__(self, row) -> None:
        self.done += 1
        label = f"{row.kernel}[{row.backend}-{row.dtype}] {row.verdict}"
        if self._bar is not None:
            self._bar.set_postfix_str(label, refresh=False)
            self._bar.update(1)
            return
        step = max(1, self.total // 20)
        if self.done % step == 0 or self.done == self.total or row.verdict not in CONFORMING:
            click.echo(f"[{self.done}/{self.total}] {label}", err=True)
