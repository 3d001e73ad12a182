"""``judge merge RUN_DIR... --out DIR``: one audit's outputs from shard runs (SPEC §7, §9).

Exit 0 when every merged row conforms, 1 when some do not, 2 when the runs cannot be merged.
"""

from __future__ import annotations

import sys

import click

from judge.commands.audit import CONFORMING, DEFAULT_OUT, EnvironmentProblem


@click.command("merge")
@click.argument("run_dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("--out", type=click.Path(file_okay=False), default=DEFAULT_OUT, show_default=True,
              help="Folder for the merged audit outputs.")
def command(run_dirs: tuple[str, ...], out: str) -> None:
    """Merge the outputs of `judge audit --shard K/N` runs into one audit."""
    from judge.merge import MergeError, load_run, merge_runs
    from judge.reports import write_audit
    from judge.reports.summary import scoreboard_markdown

    try:
        run = merge_runs([load_run(d) for d in run_dirs], list(run_dirs))
    except MergeError as exc:
        raise EnvironmentProblem(str(exc)) from exc
    paths = write_audit(run, out)
    click.echo(scoreboard_markdown(run.rows))
    click.echo(f"\nmerged {len(run_dirs)} runs, {len(run.rows)} rows: {paths['report.html']}")
    failing = [r for r in run.rows if r.verdict not in CONFORMING]
    sys.exit(1 if failing else 0)
