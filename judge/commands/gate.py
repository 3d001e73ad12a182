"""``judge gate``: compare a current audit with a baseline results file (SPEC §10).

The current rows come from ``--current FILE`` or, without it, from an audit run with the audit
options. With ``--cost-baseline``, the measured costs (``judge measure``'s measured-cost.json)
are compared too: a fitted overhead or rate worse than the baseline's by more than the measured
noise is a regression (``judge.measure.compare``). Prints the gate's Markdown (regressions
first); exit 1 on any regression, 2 when a file, revision or backend is unavailable.
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
@click.option("--cost-baseline", "cost_baseline", type=click.Path(dir_okay=False), default=None,
              help="Baseline measured-cost.json: also fail a kernel whose fitted overhead or rate "
                   "is worse by more than the noise measured from both runs' spreads.")
@click.option("--cost-current", "cost_current", type=click.Path(dir_okay=False), default=None,
              help="Current measured-cost.json (default: the one beside --current, or under --out).")
@audit_options(profile="ci")
def command(baseline, current, changed_since, cost_baseline, cost_current, backends, contracts,
            profile, seed, plugins, out, cross, jobs, timeout, shard, expectations) -> None:
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
    cost_ok = True
    if cost_baseline:
        cost_ok = _cost_gate(cost_baseline, cost_current or _beside(current, out))
    if contract_errors:
        click.echo(f"{contract_errors} contract error(s) (listed above) fail the gate", err=True)
    sys.exit(0 if result.passed and cost_ok and not contract_errors else 1)


def _beside(current: str | None, out: str) -> str:
    from pathlib import Path

    folder = Path(current).parent if current else Path(out)
    return str(folder / "measured-cost.json")


def _cost_gate(baseline: str, current: str) -> bool:
    """Print the cost section; whether no coefficient regressed."""
    from judge.measure.compare import compare_costs, cost_markdown, load_cost

    try:
        changes, notes = compare_costs(load_cost(baseline), load_cost(current))
    except ValueError as exc:
        raise EnvironmentProblem(f"{exc} (run judge measure, or pass --cost-current)") from exc
    click.echo("")
    click.echo(cost_markdown(changes, notes), nl=False)
    return not any(c.worse for c in changes)


def _load(load_rows, path: str) -> list:
    try:
        return load_rows(path)
    except OSError as exc:
        raise EnvironmentProblem(f"cannot read {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise EnvironmentProblem(str(exc)) from exc
