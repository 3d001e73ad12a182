"""``judge lint [PATH...]``: load and validate contract files; report every error and warning.

Exit 1 on any contract error, 2 when a path cannot be read.
"""

from __future__ import annotations

import sys

import click


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
def command(paths: tuple[str, ...]) -> None:
    """Validate contract files (default: the embedded suite).

    Prints every error and warning as FILE:LINE KERNEL FIELD: MESSAGE, then a summary.
    Exit 1 on any contract error, 2 when a path cannot be read.
    """
    from judge.suite import load_paths

    try:
        result = load_paths(list(paths) or None)
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"judge lint: cannot read contracts: {exc}", err=True)
        sys.exit(2)
    for error in result.errors:
        click.echo(f"error: {error}")
    for warning in result.warnings:
        click.echo(f"warning: {warning}")
    click.echo(
        f"{_count(result.blocks, 'block')} ({len(result.registrable)} registrable, "
        f"{len(result.describe_only)} describe-only) in {_count(len(result.files), 'file')}: "
        f"{_count(len(result.errors), 'error')}, {_count(len(result.warnings), 'warning')}"
    )
    sys.exit(1 if result.errors else 0)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
