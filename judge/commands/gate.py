"""``judge gate``: compare a current audit with a baseline results file (SPEC §10).

The current rows come from ``--current FILE`` or, without it, from an audit run with the audit
options. Prints the gate's Markdown (regressions first); exit 1 on any regression, 2 when a file,
revision or backend is unavailable.
"""

from __future__ import annotations

import sys

import click

from judge.commands.audit import (
    AuditRequest,
    EnvironmentProblem,
    audit_options,
    load_contracts,
    registrable,
    run_and_write,
)


@click.command("gate")
@click.option("--baseline", required=True, type=click.Path(dir_okay=False),
              help="Baseline results.json (or .csv/.parquet) of an earlier audit.")
@click.option("--current", type=click.Path(dir_okay=False), default=None,
              help="Current results file; without it, an audit is run with the options below.")
@click.option("--changed-since", "changed_since", metavar="REV", default=None,
              help="Judge only contracts whose block revision changed since git REV.")
@audit_options(profile="ci")
def command(baseline, current, changed_since, backends, contracts, profile, seed, plugins, out,
            cross, jobs, timeout, shard, expectations) -> None:
    """Fail (exit 1) on a new failure or error, a stale xfail, or ulp_max above the bound."""
    from judge.gate import GateError, changed_contracts, compare, gate_markdown
    from judge.reports.tables import load_rows

    base_rows = _load(load_rows, baseline)
    note = ""
    contract_errors = 0
    try:
        if changed_since or current is None:
            loaded = load_contracts(contracts)
            judged = registrable(loaded)
            contract_errors = len(loaded.errors)
            if changed_since:
                judged = changed_contracts(judged, changed_since)
                note = f"{len(judged)} contracts changed since `{changed_since}`"
        if current is not None:
            cur_rows = _load(load_rows, current)
            if changed_since:
                wanted = {(c.kernel, c.revision) for c in judged}
                cur_rows = [r for r in cur_rows if (r.kernel, r.revision) in wanted]
            label = current
        else:
            request = AuditRequest(tuple(backends), contracts, profile, seed, tuple(plugins),
                                   out, cross, jobs, timeout, shard, expectations)
            cur_rows = run_and_write(request, judged)[0].rows if judged else []
            label = f"{out}/results.json" if judged else "(nothing to judge)"
    except GateError as exc:
        raise EnvironmentProblem(str(exc)) from exc
    result = compare(base_rows, cur_rows)
    click.echo(gate_markdown(result, baseline=baseline, current=label, note=note), nl=False)
    if contract_errors:
        click.echo(f"{contract_errors} contract error(s) (listed above) fail the gate", err=True)
    sys.exit(0 if result.passed and not contract_errors else 1)


def _load(load_rows, path: str) -> list:
    try:
        return load_rows(path)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise EnvironmentProblem(str(exc)) from exc
