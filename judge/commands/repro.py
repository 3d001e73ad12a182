"""``judge repro CASE_ID``: replay one recorded failing case (SPEC §7).

Finds ``cases/<CASE_ID>.npz`` (or takes a path), prints a standalone Python script that rebuilds
the call, then replays the case through the harness and prints the verdict. Exit 1 if the case
still fails, 2 if it cannot be found or replayed here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from judge.commands.audit import DEFAULT_OUT, EnvironmentProblem, harness_function

PASSING = ("pass", "xfail")


@click.command("repro")
@click.argument("case_id")
@click.option("--cases", "cases_dir", type=click.Path(file_okay=False),
              default=f"{DEFAULT_OUT}/cases", show_default=True,
              help="Folder of recorded cases (an audit's cases/).")
@click.option("--plugin", "plugins", multiple=True, metavar="X",
              help="Backend plugin module or .py file (for a case recorded on a plugin backend).")
@click.option("--no-script", is_flag=True, help="Replay only; do not print the script.")
def command(case_id: str, cases_dir: str, plugins: tuple[str, ...], no_script: bool) -> None:
    """Print the standalone repro script for CASE_ID and re-run the case."""
    from judge.cases import CaseRecord
    from judge.expectations import ExpectationsError, load_expectations
    from judge.registry import BackendSelectionError, default_registry

    path = find_case(case_id, Path(cases_dir))
    try:
        record = CaseRecord.load(path)
    except (OSError, ValueError, KeyError) as exc:
        raise EnvironmentProblem(f"{path}: not a readable case record ({exc})") from exc
    if not no_script:
        repro_script = harness_function("judge.repro", "repro_script")
        click.echo(repro_script(record))
    replay_case = harness_function("judge.runner", "replay_case")
    try:
        default_registry().load_all(plugins)
        expectations = load_expectations()
    except (BackendSelectionError, ExpectationsError) as exc:
        raise EnvironmentProblem(str(exc)) from exc
    try:
        verdict, message = replay_case(record, expectations=expectations)
    except LookupError as exc:  # the contract or backend of the case is not here
        raise EnvironmentProblem(f"cannot replay {record.case_id}: {exc}") from exc
    # Comment lines, so the printed script stays valid Python when redirected to a file.
    report = f"replayed {record.case_id} on {record.backend} ({record.dtype}): {verdict}"
    report += f": {message}" if message else ""
    click.echo("\n".join(f"# {line}" for line in report.splitlines()))
    sys.exit(0 if verdict in PASSING else 1)


def find_case(case_id: str, cases_dir: Path) -> Path:
    """The case file for an id or a path; exit 2 naming where it looked."""
    given = Path(case_id)
    candidates = [given] if given.suffix == ".npz" else []
    candidates += [cases_dir / f"{case_id}.npz", cases_dir / case_id]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    if cases_dir.is_dir():
        near = sorted(p.stem for p in cases_dir.glob("*.npz") if case_id in p.stem)[:5]
    else:
        near = []
    hint = f"; similar ids: {', '.join(near)}" if near else ""
    raise EnvironmentProblem(
        f"no recorded case {case_id!r}: looked for {', '.join(map(str, candidates))}{hint}"
    )
