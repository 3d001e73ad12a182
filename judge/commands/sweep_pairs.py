"""``judge sweep --pairs``: one exhaustive 16-bit pair sweep as the sweep command runs it (its
row and its summary), and its outputs under ``--out`` (``judge.sweep.pair_report``)."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def one_pair_sweep(contract, backend, dtype, cross, options, expectations):
    """(row, summary text, the counterexample case or None) of sweeping every pair (or
    ``options.chunks``) of ``dtype``."""
    from judge.runner import unsupported_row
    from judge.sweep import pair_report
    from judge.sweep.pairs import pair_support, sweep_pairs

    label = f"{contract.file}::{contract.kernel}[{backend.name}-{dtype}]"
    ok = pair_support(contract, backend, dtype, cross=cross)
    if ok is not True:
        return unsupported_row(contract, backend, dtype, str(ok), 0), f"{label}: unsupported: {ok}", None
    click.echo(f"sweeping the {dtype} pairs of {contract.kernel} on {backend.name}", err=True)
    result = sweep_pairs(contract, backend, dtype, chunk_log2=options.chunk_log2, chunks=options.chunks,
                         expectations=expectations(), fused=options.fused,
                         log=lambda msg: print(msg, file=sys.stderr, flush=True))
    options.results.append(result)
    if options.out:  # after every sweep, so a run cut short keeps what it finished
        pair_report.write_outputs(Path(options.out), options.results)
    return result.row, result.summary(), result.case
