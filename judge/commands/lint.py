"""``judge lint [PATH...]``: load and validate contract files; report every error and warning.

A ``.toml`` path is a known-divergences file (SPEC §8); with no paths, the embedded suite and
``suites/expectations.toml`` are linted. An entry whose reason is still ``TODO`` (as ``judge
baseline`` drafts it) is an error: nobody commits a divergence unread.
Exit 1 on any contract or expectations error, 2 when a path cannot be read.
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
    from judge.expectations import default_expectations_path
    from judge.suite import load_paths

    tomls = [p for p in paths if p.endswith(".toml")]
    contract_paths = [p for p in paths if not p.endswith(".toml")]
    if not paths:
        tomls = [str(default_expectations_path())]
    expectation_errors = [e for path in tomls for e in expectation_problems(path)]
    for error in expectation_errors:
        click.echo(f"error: {error}")
    if tomls and not contract_paths and paths:
        click.echo(f"{_count(len(tomls), 'expectations file')}: "
                   f"{_count(len(expectation_errors), 'error')}")
        sys.exit(1 if expectation_errors else 0)
    try:
        result = load_paths(contract_paths or None)
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
    if tomls:
        click.echo(f"{_count(len(tomls), 'expectations file')}: "
                   f"{_count(len(expectation_errors), 'error')}")
    sys.exit(1 if result.errors or expectation_errors else 0)


def expectation_problems(path: str) -> list[str]:
    """What is wrong with a known-divergences file: what stops it loading, else each entry whose
    reason is a ``TODO`` draft, as ``FILE:LINE kernel backend dtype check: ...``."""
    from pathlib import Path

    from judge.expectations import ExpectationsError, load_expectations

    if not Path(path).is_file():
        return [f"{path}: no such expectations file"]
    try:
        loaded = load_expectations(path)
    except ExpectationsError as exc:
        return [str(exc)]
    return [f"{path}:{e.line} {e.kernel} {e.backend} {e.dtype} {e.check}: reason is a draft "
            f"({e.reason[:60]!r}); write why the library diverges" for e in loaded.entries if e.is_draft]


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
