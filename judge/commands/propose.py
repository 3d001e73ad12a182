"""``judge propose RUN_DIR [SWEEP_DIR...]``: the precision block the evidence supports (SPEC §7).

Prints the edit of each contract file as a unified diff (comments and layout kept, the evidence
as YAML comments in each block, ``audited`` left for a person to flip) and a table of the
proposals on stderr; ``--write`` applies it. Exit 0 (also when nothing is to change), 2 when a
run folder or a contract file cannot be read, or an edited file would not load.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click


@click.command("propose")
@click.argument("run", type=click.Path(file_okay=False))
@click.argument("sweeps", nargs=-1, type=click.Path(file_okay=False))
@click.option("--contracts", type=click.Path(), default=None,
              help="Contract file or folder to edit. Default: the embedded suite.")
@click.option("--kernel", "kernels", multiple=True, metavar="K",
              help="Also propose for this block (a kernel or FILE::kernel), audited or not; repeatable.")
@click.option("--write", "write_files", is_flag=True,
              help="Apply the edit to the contract files (default: print the diff only).")
def command(run: str, sweeps: tuple[str, ...], contracts: str | None, kernels: tuple[str, ...],
            write_files: bool) -> None:
    """Propose precision blocks from an audit (RUN: its --out folder) and exhaustive sweeps.

    Further folders (SWEEPS) are `judge sweep --out` folders or other audits, such as a GPU
    machine's nightly beside a CPU machine's; each is read as what its results.json says it is.

    For every `audited: false` block, and each --kernel, the bound the evidence supports
    (max_ulp, or max_relative / max_absolute where ULP is the wrong measure, or none), with
    every backend's and dtype's observed maximum and its case id beside it, and where the
    evidence is thin or a backend comes close to the derived bound.
    """
    from judge.propose import load_evidence, propose
    from judge.suite import load_paths

    try:
        evidence = load_evidence([run], sweeps)
        loaded = load_paths([contracts] if contracts else None)
    except (OSError, ValueError) as exc:
        click.echo(f"judge propose: {exc}", err=True)
        sys.exit(2)
    if loaded.errors:
        for error in loaded.errors:
            click.echo(f"error: {error}", err=True)
        sys.exit(2)
    proposals = propose(loaded.contracts, evidence, kernels=kernels, backends=_device_backends(evidence))
    for kernel in kernels:
        if not any(kernel in (p.contract.kernel, f"{Path(p.contract.file).name}::{p.contract.kernel}")
                   for p in proposals):
            click.echo(f"judge propose: no registrable block {kernel!r} in the contracts", err=True)
            sys.exit(2)
    _edit(proposals, write_files, when={str(f): _when(f) for f in (run, *sweeps)})
    _table(proposals)


def _device_backends(evidence) -> dict[str, list[str]]:
    """{device: backends} a block could hear from: every registered backend of the device (a
    built-in the run did not judge, or found unavailable, is missing evidence) and every one
    the runs judged."""
    out: dict[str, set[str]] = {}
    for name, device in _registered().items():
        out.setdefault(device, set()).add(name)
    for e in evidence:
        out.setdefault(e.row.device, set()).add(e.row.backend)
    return {d: sorted(names) for d, names in out.items()}


def _registered() -> dict[str, str]:
    from judge.registry import default_registry

    return {name: b.device for name, b in default_registry().load_all().backends.items()}


def _when(folder: str) -> str:
    """A run's profile and start, as its results.json says."""
    from judge.reports.tables import load_meta

    meta = load_meta(Path(folder) / "results.json")
    return " ".join(str(meta[k]) for k in ("profile", "started_at") if meta.get(k))


def _edit(proposals, write_files: bool, when: dict[str, str]) -> None:
    import difflib

    from judge.propose import apply_proposals
    from judge.suite import load_text

    for file in dict.fromkeys(p.contract.file for p in proposals):
        path = Path(file)
        before = path.read_text(encoding="utf-8")
        after = apply_proposals(before, [p for p in proposals if p.contract.file == file], when)
        click.echo("".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                                fromfile=file, tofile=f"{file} (proposed)")), nl=False)
        check = load_text(after, file)
        if check.errors:  # never leave a file that does not load
            click.echo(f"judge propose: the edited {file} would not load: {check.errors[0]}", err=True)
            sys.exit(2)
        if write_files and after != before:
            path.write_text(after, encoding="utf-8")
            click.echo(f"written: {file}", err=True)


def _table(proposals) -> None:
    for p in proposals:
        bound = f"{p.measure}: {p.value}" if p.measure else "no bound (derived stays)"
        thin = sum(n.startswith("thin:") for n in p.notes)
        close = sum(n.startswith("close:") for n in p.notes)
        click.echo(f"{p.contract.kernel:34} {bound:26} {len(p.evidence):3} rows, {thin} thin, "
                   f"{close} close  {p.why}", err=True)
    click.echo(f"{len(proposals)} block(s); audited stays false: flip it once the evidence is read",
               err=True)
