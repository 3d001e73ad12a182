"""``judge baseline RUN_DIR...``: draft known-divergence entries from audits (SPEC §8).

Prints the edit to ``suites/expectations.toml`` as a unified diff; ``--write`` applies it and
copies the drafted entries' cases to ``expectation-cases/``. Exit 0 (also when nothing is to
change), 2 when a run folder or the expectations file cannot be read.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("baseline")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--expectations", "expectations_path", type=click.Path(dir_okay=False), default=None,
              help="The known divergences to edit (default: suites/expectations.toml).")
@click.option("--write", "write_file", is_flag=True,
              help="Apply the edit and copy the drafted cases (default: print the diff only).")
def command(runs: tuple[str, ...], expectations_path: str | None, write_file: bool) -> None:
    """Draft expectation entries from audit outputs (RUN_DIR: an audit's --out folder).

    Every unrecorded failure becomes a draft entry scoped to the run's environment fingerprint,
    with its case and reason = "TODO: ..." for a person to write (judge lint refuses TODO).
    Every stale entry is proposed for removal, or narrowed to the environment of another given
    run that still shows it (pass the audits of several machines at once). Several runs let a
    team bring up a new machine kind or library version in one reviewed diff.
    """
    from judge.baseline import apply, diff, load_run, plan_baseline, write
    from judge.expectations import ExpectationsError, default_expectations_path, load_expectations

    path = Path(expectations_path) if expectations_path else default_expectations_path()
    try:
        loaded = [load_run(folder) for folder in runs]
        text = path.read_text() if path.exists() else ""
        expectations = load_expectations(path)
    except (OSError, ValueError, ExpectationsError) as exc:
        click.echo(f"judge baseline: {exc}", err=True)
        sys.exit(2)
    plan = plan_baseline(loaded, expectations)
    after = apply(plan, text)
    click.echo(diff(text, after, str(path)), nl=False)
    for line in plan.skipped:
        click.echo(f"not drafted: {line}", err=True)
    click.echo(f"{len(plan.drafts)} draft(s), {len(plan.removals)} removal(s), "
               f"{len(plan.narrowings)} narrowing(s) for {path}", err=True)
    if write_file and after != text:
        try:
            write(plan, path, after)
        except ExpectationsError as exc:  # never leave a file that does not load
            path.write_text(text)
            click.echo(f"judge baseline: the edited file does not load, left as it was: {exc}", err=True)
            sys.exit(2)
        click.echo(f"written: {path} (fill in every TODO reason; judge lint refuses them)", err=True)
