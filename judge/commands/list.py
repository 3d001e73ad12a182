"""``judge list``: the coverage matrix, contract x backend x dtype.

Each cell is ``runs`` or ``unsupported: <reason>`` (the backend's own ``supports()`` answer).
A backend is a column for a contract only on the contract's device, unless ``--cross``.
Unavailable backends are listed with the reason, and each selected backend's environment
fingerprint (SPEC §8) follows; ``--fingerprint`` prints only the fingerprints, as JSON.
"""

from __future__ import annotations

import sys

import click


def fan_dtypes(contract) -> list[tuple[str, tuple[str, ...]]]:
    """(fan dtype, input dtypes) per test item: inputs that list D get D, others their first."""
    items = []
    for dtype in contract.dtype_fan:
        items.append((dtype, tuple(dtype if dtype in spec.dtypes else spec.dtypes[0]
                                   for spec in contract.inputs)))
    return items


def cell(backend, contract, dtypes) -> str:
    try:
        answer = backend.supports(contract, dtypes)
    except Exception as exc:  # noqa: BLE001 - a broken adapter is shown, not fatal
        return f"unsupported: supports() raised {type(exc).__name__}: {exc}"
    if answer is True:
        return "runs"
    return f"unsupported: {answer or 'no reason given'}"


@click.command("list")
@click.option("--contracts", "contracts", type=click.Path(), default=None, multiple=True,
              help="Contract file or directory (default: the embedded suite). Repeatable.")
@click.option("--backend", "backends", multiple=True,
              help="Backend name, device class (cpu|cuda|vulkan) or all. Repeatable.")
@click.option("--plugin", "plugins", multiple=True, help="Plugin module or file. Repeatable.")
@click.option("--cross", is_flag=True, help="Also show backends of other devices.")
@click.option("--inventory", "inventory", is_flag=True,
              help="Coverage of Fuel's dispatch inventory: every OpKind with its contracts, "
                   "reference and backends, or why it is not covered.")
@click.option("--fingerprint", "only_fingerprint", is_flag=True,
              help="Print only each selected backend's environment fingerprint, as JSON "
                   "(the keys a known divergence's `where` scope can name).")
def command(contracts, backends, plugins, cross, inventory, only_fingerprint) -> None:
    """Which backend runs which contract at which dtype.

    One row per registrable contract x backend x dtype: "runs" or "unsupported: <reason>".
    """
    from judge.registry import BackendSelectionError, default_registry
    from judge.suite import load_paths

    try:
        result = load_paths(list(contracts) or None)
    except (OSError, UnicodeDecodeError) as exc:
        click.echo(f"judge list: cannot read contracts: {exc}", err=True)
        sys.exit(2)
    try:
        registry = default_registry().load_all(tuple(plugins))
        chosen, missing = registry.select(tuple(backends), strict=False)
    except BackendSelectionError as exc:
        click.echo(f"judge list: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - a broken adapter module is an environment error
        click.echo(f"judge list: loading backends failed: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    if only_fingerprint:
        import json

        from judge.verdict import fingerprint_of

        click.echo(json.dumps({b.name: fingerprint_of(b) for b in chosen}, indent=1, sort_keys=True))
        sys.exit(0)
    if inventory:
        _print_inventory(result.registrable, chosen)
        sys.exit(0)
    rows: list[tuple[str, str, str, str]] = []
    for contract in result.registrable:
        columns = [b for b in chosen if cross or b.device == contract.device]
        for dtype, dtypes in fan_dtypes(contract):
            for backend in columns:
                rows.append((f"{contract.file}::{contract.kernel}", dtype, backend.name,
                             cell(backend, contract, dtypes)))
            if not columns:
                rows.append((f"{contract.file}::{contract.kernel}", dtype, "-",
                             f"no selected, available backend for device {contract.device}"))
    _print_table(("CONTRACT", "DTYPE", "BACKEND", "STATUS"), rows)
    runs = sum(1 for r in rows if r[3] == "runs")
    click.echo(f"\n{len(result.registrable)} registrable contracts, {len(rows)} cells: {runs} run, "
               f"{len(rows) - runs} do not")
    for name, why in sorted(missing.items()):
        click.echo(f"unavailable backend {name}: {why}")
    _print_fingerprints([b for b in chosen if any(r[2] == b.name for r in rows)])
    for source, why in sorted(registry.load_errors.items()):
        click.echo(f"backend module not loaded ({source}): {why}")
    for error in result.errors:
        click.echo(f"contract error: {error}", err=True)
    sys.exit(1 if result.errors else 0)


def _print_inventory(contracts, chosen) -> None:
    from judge.inventory import coverage

    rows = coverage(contracts, chosen)
    table = [(r.op_kind, ",".join(r.devices),
              "; ".join(f"{d}: {', '.join(k)}" for d, k in sorted(r.contracts.items())) or "-",
              "yes" if r.reference else "no", ",".join(r.backends) or "-",
              "covered" + (f", {r.why_not()}" if r.why_not() else "") if r.covered else r.why_not())
             for r in rows]
    header = ("OPKIND", "FUEL DEVICES", "CONTRACTS", "REFERENCE", "BACKENDS", "STATUS")
    widths = [min(40, max(len(header[i]), *(len(t[i]) for t in table))) for i in range(5)]
    for line in (header, *table):
        click.echo("  ".join(line[i][:40].ljust(widths[i]) for i in range(5)) + "  " + line[5])
    covered = sum(r.covered for r in rows)
    click.echo(f"\n{covered} of {len(rows)} inventory OpKinds have a contract, a reference and "
               f"a backend that runs it; {len(rows) - covered} do not "
               f"(backends: {', '.join(b.name for b in chosen) or 'none'})")


def _print_fingerprints(chosen) -> None:
    from judge.verdict import fingerprint_of

    for backend in chosen:
        facts = fingerprint_of(backend)
        click.echo(f"environment of {backend.name}: "
                   + ", ".join(f"{k} {v}" for k, v in sorted(facts.items())))


def _print_table(header, rows) -> None:
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(3)]
    for row in (header, *rows):
        click.echo("  ".join(row[i].ljust(widths[i]) for i in range(3)) + "  " + row[3])
