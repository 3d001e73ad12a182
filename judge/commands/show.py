"""``judge show KERNEL``: the parsed contract, its derived semantics and where each rule came from.

KERNEL is a kernel name, or ``FILE::kernel`` where names repeat across files (exit 2 listing the
candidates when ambiguous). ``--json`` prints the normalised block tree.
"""

from __future__ import annotations

import difflib
import sys

import click


@click.command("show")
@click.argument("kernel")
@click.option("--contracts", "contracts", type=click.Path(), default=None, multiple=True,
              help="Contract file or directory (default: the embedded suite). Repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print the normalised tree as JSON.")
def command(kernel: str, contracts: tuple[str, ...], as_json: bool) -> None:
    """Show one contract as the Judge understands it.

    KERNEL is a kernel name, or FILE::kernel where a name repeats across files. The output
    includes the derived NaN, tie, rounding and remainder rules and the source of each.
    """
    from judge.contracts.describe import describe, tree_json
    from judge.suite import load_paths

    try:
        result = load_paths(list(contracts) or None)
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"judge show: cannot read contracts: {exc}", err=True)
        sys.exit(2)
    matches = result.find(kernel)
    if len(matches) > 1:
        click.echo(f"judge show: {kernel!r} is ambiguous; name one of:", err=True)
        for c in matches:
            click.echo(f"  {c.file}::{c.kernel}", err=True)
        sys.exit(2)
    if not matches:
        name = kernel.rsplit("::", 1)[-1]
        broken = [e for e in result.errors if e.kernel == name]
        if broken:
            click.echo(f"judge show: {kernel!r} did not load:", err=True)
            for error in broken:
                click.echo(f"  error: {error}", err=True)
            sys.exit(1)
        names = sorted({c.kernel for c in result.contracts})
        close = difflib.get_close_matches(name, names, n=5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        click.echo(f"judge show: no contract named {kernel!r} among {len(names)} kernels"
                   f"{hint}", err=True)
        sys.exit(2)
    contract = matches[0]
    click.echo(tree_json(contract) if as_json else describe(contract))
