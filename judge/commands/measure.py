"""``judge measure``: cost bootstrapping (SPEC §12).

Selects contracts and backends as ``judge audit`` does, times every supported contract ×
backend × dtype, on each fast path the contract accepts (contiguous, strided, broadcast
inputs), over a geometric size range, fits ``time = overhead_ns + work / rate`` and
writes ``measured-cost.json`` and ``cost.html`` under ``--out``. With the same ``--out`` as an
audit, the audit's report.html shows the cost section too. Exit 0 when every supported item
was measured; 1 when one could not be (its entry says why) or a contract has errors; 2 on a
usage or environment error.
"""

from __future__ import annotations

import fnmatch
import sys

import click

from judge.commands.audit import (
    DEFAULT_OUT,
    AuditRequest,
    EnvironmentProblem,
    load_contracts,
    registrable,
)


@click.command("measure")
@click.option("--backend", "backends", multiple=True, metavar="B",
              help="Backend name, device class (cpu|cuda|vulkan) or all; repeatable. "
                   "Default: every available backend.")
@click.option("--contracts", type=click.Path(), default=None,
              help="Contract file or folder. Default: the embedded suite.")
@click.option("--plugin", "plugins", multiple=True, metavar="X",
              help="Backend plugin module or .py file; repeatable.")
@click.option("--out", type=click.Path(file_okay=False), default=DEFAULT_OUT, show_default=True,
              help="Folder for measured-cost.json and cost.html.")
@click.option("--kernel", "kernels", multiple=True, metavar="PATTERN",
              help="Only kernels whose name (or FILE::kernel) matches this glob; repeatable.")
@click.option("--dtype", "dtypes", multiple=True, metavar="D", help="Only these dtypes; repeatable.")
@click.option("--sizes", default=None, metavar="LO:HI",
              help="log2 of the smallest and largest element count. Default: 4:20 on cpu and "
                   "vulkan, 4:26 on cuda.")
@click.option("--budget", type=float, default=20.0, show_default=True,
              help="Seconds of timing per contract × backend × dtype (preparing inputs is "
                   "not counted); larger sizes that do not fit are not measured, and the output "
                   "says so.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the input values.")
@click.option("--gpus", default="1", metavar="N|all", show_default=True,
              help="Spread the contracts over this many visible GPUs, one process each (every "
                   "entry says which GPU timed it); all: every visible GPU.")
@click.option("--path", "paths", multiple=True, type=click.Choice(["contiguous", "strided", "broadcast"]),
              help="Only these fast paths; repeatable. Default: every one the contract accepts "
                   "(strided where an operand accepts a step, broadcast where one accepts stride 0).")
def command(backends, contracts, plugins, out, kernels, dtypes, sizes, budget, seed, gpus, paths) -> None:
    """Measure each kernel's cost model and write measured-cost.json and cost.html."""
    from judge.measure.output import write_measured_cost
    from judge.measure.run import MeasureOptions, measure
    from judge.measure.sizes import parse_log2_range, paths_for
    from judge.reports.cost import write_cost_page

    try:
        log2 = parse_log2_range(sizes) if sizes else None
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--sizes") from exc
    if budget <= 0:
        raise click.BadParameter("must be positive", param_hint="--budget")
    loaded = load_contracts(contracts)
    chosen_contracts = [c for c in registrable(loaded) if _selected(c, kernels)]
    if kernels and not chosen_contracts:
        raise EnvironmentProblem(f"no registrable kernel matches {', '.join(kernels)}")
    request = AuditRequest(tuple(backends), contracts, "ci", seed, tuple(plugins), out)
    chosen, missing = _select_backends(request)
    for name, why in sorted(missing.items()):
        click.echo(f"unavailable: {name}: {why}", err=True)
    if not chosen:
        raise EnvironmentProblem("no backend is available to measure with")
    options = MeasureOptions(log2=log2, item_budget_s=budget, seed=seed,
                             dtypes=tuple(dtypes) or None, paths=tuple(paths) or None)
    devices = {b.device for b in chosen}
    items = sum(1 for c in chosen_contracts if c.device in devices for d in c.dtype_fan
                for p in paths_for(c) if (not dtypes or d in dtypes) and (not paths or p in paths))
    click.echo(f"measuring {items} contract × dtype × fast path items on "
               f"{', '.join(b.name for b in chosen)}", err=True)
    from judge.commands.sweep import _gpus

    spread = _gpus(gpus)
    if len(spread) > 1:
        from judge.measure.multi_gpu import measure_on
        from judge.measure.output import write_cost_doc

        doc = measure_on(spread, chosen_contracts, tuple(b.name for b in chosen), tuple(plugins), options)
        json_path = write_cost_doc(doc, out)
        errors = [e for e in doc["entries"] if e["status"] == "error"]
    else:
        run = measure(chosen_contracts, chosen, options, progress=_progress, unavailable=missing)
        json_path = write_measured_cost(run, out)
        errors = [e for e in run.entries if e.error and e.fit is None and not e.unsupported]
    html_path = write_cost_page(json_path)
    click.echo(f"measured-cost.json: {json_path}")
    click.echo(f"         cost.html: {html_path}")
    if errors:
        click.echo(f"{len(errors)} item(s) could not be measured (see measured-cost.json)",
                   err=True)
    sys.exit(1 if errors or loaded.errors else 0)


def _select_backends(request: AuditRequest) -> tuple[list, dict[str, str]]:
    """The selected available backends, in this process: a sandbox (``judge audit``'s isolation)
    would add its round trip to every timed call. Exit 2 on a requested one that is missing."""
    import inspect

    from judge.registry import BackendSelectionError, default_registry

    try:
        registry = default_registry().load_all(request.plugins)
        in_process = ({"isolate": False}
                      if "isolate" in inspect.signature(registry.select).parameters else {})
        chosen, missing = registry.select(request.backends, **in_process)
    except BackendSelectionError as exc:
        raise EnvironmentProblem(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - a plugin that crashes on import
        raise EnvironmentProblem(f"loading backends failed: {type(exc).__name__}: {exc}") from exc
    missing = dict(missing)
    missing.update({f"({source})": why for source, why in registry.load_errors.items()})
    return chosen, missing


def _selected(contract, patterns) -> bool:
    if not patterns:
        return True
    names = (contract.kernel, f"{contract.file}::{contract.kernel}",
             f"{contract.location.file.rsplit('/', 1)[-1]}::{contract.kernel}")
    return any(fnmatch.fnmatchcase(name, p) for p in patterns for name in names)


def _progress(entry) -> None:
    if entry.unsupported:
        return
    if entry.fit is None:
        click.echo(f"{entry.key}: not measured: {entry.error}", err=True)
        return
    fit = entry.fit
    unit = {"B": "B/s", "flop": "flop/s", "elem": "elem/s"}[entry.unit]
    roof = (f", {entry.roofline_fraction:.0%} of copy" if entry.roofline_fraction is not None
            else "")
    click.echo(f"{entry.key}: overhead {fit.overhead_ns / 1e3:.2f} us, rate {fit.rate:.3g} "
               f"{unit}{roof}, fit rms {fit.rms_rel:.1%}, {len(entry.points)} sizes"
               + (" (truncated)" if entry.truncated else ""), err=True)
