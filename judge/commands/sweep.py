"""``judge sweep``: exhaustive input sweeps of one kernel (SPEC §7).

BF16 and F16: unary kernels see every one of the 65,536 bit patterns; binary and comparison
kernels every pair of the documented grid subset (``judge.sweep.inputs``). F32: all 2^32 inputs
(or ``--chunks`` of them) of a unary kernel on a CUDA backend (``judge.sweep.gpu_f32``; with
``--out``, also f32-sweep.json and f32-sweep.md). Each (backend, dtype) gives one
result row scored by the harness's rules; ``--out`` writes the audit outputs for those rows.

Exit 0 when every row conforms (pass, xfail, unsupported), 1 on a failure, 2 on a usage or
environment problem (unknown or ambiguous kernel, unavailable backend, dtype not sweepable).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import click

from judge.commands.audit import CONFORMING, EnvironmentProblem, load_contracts


@click.command("sweep")
@click.option("--kernel", "kernels", required=True, multiple=True, metavar="K",
              help="Kernel name, or FILE::kernel when the name repeats across files; repeatable. "
                   "A shell-style pattern ('*', 'vulkan-elementwise.fkc.md::*') sweeps every "
                   "matching kernel that can be swept and lists the others with the reason.")
@click.option("--dtype", "dtypes", required=True, multiple=True, metavar="D",
              help="BF16 or F16 (any backend), F32 (CUDA backends); repeatable.")
@click.option("--backend", "backends", multiple=True, metavar="B",
              help="Backend name or device class; repeatable. Default: every available backend "
                   "on the contract's device.")
@click.option("--contracts", type=click.Path(), default=None,
              help="Contract file or folder. Default: the embedded suite.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Also write results.{parquet,csv,json}, summary.md, report.html, cases/ here.")
@click.option("--cross", is_flag=True, help="Also judge backends of another device than the contract's.")
@click.option("--plugin", "plugins", multiple=True, metavar="X", help="Backend plugin; repeatable.")
@click.option("--processes", type=click.IntRange(min=1), default=2, show_default=True,
              help="Processes for building an oracle table that is not cached yet.")
@click.option("--grid-size", type=click.IntRange(min=2), default=None,
              help="Binary kernels: size of the value grid whose every pair is swept (default 1024).")
@click.option("--pairs", is_flag=True,
              help="BF16/F16 binary kernels: every (x, y) pair of the format, 2^32 pairs in chunks "
                   "(instead of the pairs of the value grid).")
@click.option("--chunk-log2", type=click.IntRange(1, 32), default=None,
              help="F32 GPU sweeps and --pairs: log2 of the inputs per kernel call (default 28 "
                   "for F32, 24 for pairs).")
@click.option("--chunks", default=None, metavar="I,J,...",
              help="F32 GPU sweeps and --pairs: sweep only these chunks (numbers of 2^chunk-log2 "
                   "inputs; a sweep in parts).")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="F32 GPU sweeps and --pairs: sweep only the first N chunks (or the first N of --chunks).")
@click.option("--gpus", default="1", metavar="N|all", show_default=True,
              help="F32 GPU sweeps: spread each sweep over this many of the visible GPUs (one "
                   "process per GPU, chunks dealt round robin); all: every visible GPU.")
@click.option("--fused/--array-passes", "one_kernel", default=None,
              help="F32 GPU sweeps and --pairs: score each chunk in one fused kernel (reference, "
                   "certificate and rulebook; the default on CUDA where cupy can compile it, the C twin "
                   "on the CPU), or in the array passes.")
def command(kernels, dtypes, backends, contracts, out, cross, plugins, processes, grid_size,
            pairs, chunk_log2, chunks, limit, gpus, one_kernel) -> None:
    """Run each KERNEL on every input of the format and judge every output."""
    loaded = load_contracts(contracts)
    targets = pick_targets(loaded, kernels, dtypes)
    rows, cases, samples, used = [], [], {}, {}
    f32 = _F32Options(chunk_log2 or (24 if pairs else 28), _chunk_list(chunks, limit, chunk_log2, pairs),
                      out, pairs, gpus=_gpus(gpus), plugins=tuple(plugins), fused=one_kernel)
    other_device, announced = 0, False
    for contract, patterned in targets:
        quiet, announced = announced, True  # unavailable backends are named once
        if not patterned:
            chosen = pick_backends(contract, backends, plugins, cross, quiet=quiet)
        else:
            try:
                chosen = pick_backends(contract, backends, plugins, True, quiet=quiet)
            except EnvironmentProblem as exc:
                click.echo(f"not swept: {contract.file}::{contract.kernel}: {exc}", err=True)
                continue
            mine = [b for b in chosen if cross or b.device == contract.device]
            other_device += not mine
            chosen = mine
        for dtype in dtypes:
            for backend in chosen:
                if patterned and _not_sweepable(contract, backend, dtype, cross, f32.pairs):
                    continue
                used[backend.name] = backend
                row, text, case, sample = _guarded(contract, backend, dtype, processes, grid_size, cross, f32)
                if case is not None:
                    cases.append(case)
                if sample is not None:
                    samples[(contract.kernel, backend.name, dtype)] = sample
                rows.append(row)
                click.echo(text)
    if other_device:
        click.echo(f"not swept: {other_device} matching kernel(s) of another device than the chosen "
                   f"backends (pass --cross to judge them anyway)", err=True)
    if not rows:
        raise EnvironmentProblem(f"no kernel matching {', '.join(kernels)} can be swept in "
                                 f"{', '.join(dtypes)}")
    if len(rows) > 1:
        click.echo(_tally(rows))
    if out:
        _write(rows, cases, samples, out, list(used.values()))
    failing = [r for r in rows if r.verdict not in CONFORMING]
    sys.exit(1 if failing else 0)


@dataclass
class _F32Options:
    """The options of the sweeps in chunks: F32 on a GPU, and 16-bit pairs."""

    chunk_log2: int
    chunks: list[int] | None
    out: str | None
    pairs: bool = False
    results: list = field(default_factory=list)  # the sweeps so far (F32Sweep or PairSweep)
    gpus: tuple[str, ...] = ("0",)
    plugins: tuple[str, ...] = ()
    fused: bool | None = None  # F32: the fused kernel (None: where it can run)


def _chunk_list(chunks, limit, chunk_log2, pairs) -> list[int] | None:
    listed = [int(c) for c in chunks.split(",")] if chunks else None
    if limit is None:
        return listed
    if listed is None:
        listed = list(range((1 << 32) >> (chunk_log2 or (24 if pairs else 28))))
    return listed[:limit]


def _guarded(contract, backend, dtype, processes, grid_size, cross, f32: _F32Options):
    """``_one``; a sweep that raises is an error row naming the exception, and the run goes on
    to the next sweep."""
    from judge import verdict

    try:
        return _one(contract, backend, dtype, processes, grid_size, cross, f32)
    except (EnvironmentProblem, click.ClickException):
        raise
    except Exception as exc:  # noqa: BLE001 - a kernel (or its adapter) may raise anything
        import traceback

        where = traceback.extract_tb(exc.__traceback__)[-1]
        why = f"the sweep raised {type(exc).__name__}: {exc} (at {Path(where.filename).name}:{where.lineno})"
        row = verdict.new_row(contract, backend, dtype, verdict="error", reason=why)
        return row, f"{_label(contract, backend, dtype)}: ERROR: {why}", None, None


def _one(contract, backend, dtype, processes, grid_size, cross, f32: _F32Options):
    from judge.sweep.inputs import GRID_SIZE

    if f32.pairs:
        from judge.commands.sweep_pairs import one_pair_sweep

        row, text, case = one_pair_sweep(contract, backend, dtype, cross, f32, _expectations)
        return row, text, case, None
    if dtype == "F32":
        row, text = _gpu_f32(contract, backend, cross, f32)
        return row, text, None, None
    return _sixteen_bit(contract, backend, dtype, processes, grid_size or GRID_SIZE, cross)


def _is_pattern(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def pick_targets(loaded, kernels, dtypes):
    """(contract, matched-by-pattern) pairs in suite order; a pattern lists what it leaves out."""
    import fnmatch

    targets, seen = [], set()
    for spec in kernels:
        if not _is_pattern(spec):
            found = [(pick_contract(loaded, spec), False)]
        else:
            found = [(c, True) for c in loaded.contracts
                     if fnmatch.fnmatchcase(c.kernel, spec)
                     or fnmatch.fnmatchcase(f"{Path(c.file).name}::{c.kernel}", spec)]
            if not found:
                raise EnvironmentProblem(f"no contract matches {spec!r} (see `judge list`)")
            describe_only = [c for c, _ in found if not c.registrable]
            if describe_only:
                click.echo(f"not swept: {len(describe_only)} describe-only block(s) (registrable: false): "
                           + ", ".join(c.kernel for c in describe_only), err=True)
            found = [(c, p) for c, p in found if c.registrable]
        for contract, patterned in found:
            key = (contract.file, contract.kernel)
            if key in seen:
                continue
            seen.add(key)
            if not contract.registrable:
                raise EnvironmentProblem(
                    f"{contract.file}::{contract.kernel} is describe-only (registrable: false)")
            targets.append((contract, patterned))
    return targets


def _not_sweepable(contract, backend, dtype, cross, pairs=False) -> bool:
    """Under a pattern, a kernel that cannot be swept in ``dtype`` is named on stderr, not swept."""
    if pairs:
        from judge.sweep.pairs import pair_support

        ok = pair_support(contract, backend, dtype, cross=cross)
    elif dtype == "F32":
        from judge.sweep import gpu_f32

        ok = gpu_f32.sweep_support(contract, backend, cross=cross)
    else:
        from judge.sweep.run import sweep_support

        ok = sweep_support(contract, backend, dtype, cross=cross)
    if ok is True:
        return False
    click.echo(f"not swept: {_label(contract, backend, dtype)}: {ok}", err=True)
    return True


def _tally(rows) -> str:
    from collections import Counter

    counts = Counter(r.verdict for r in rows)
    inputs = sum(r.cases for r in rows)
    return (f"{len(rows)} sweeps, {inputs:,} inputs: "
            + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))


def pick_contract(loaded, kernel: str):
    matches = loaded.find(kernel)
    if len(matches) > 1:
        names = "\n  ".join(f"{c.file}::{c.kernel}" for c in matches)
        raise EnvironmentProblem(f"kernel {kernel!r} is ambiguous; name one of:\n  {names}")
    if not matches:
        raise EnvironmentProblem(f"no contract named {kernel!r} (see `judge list`)")
    return matches[0]


def pick_backends(contract, requested, plugins, cross, quiet=False):
    from judge.registry import BackendSelectionError, default_registry

    try:
        registry = default_registry().load_all(tuple(plugins))
        # Probed in child processes like every run, but swept in this one: a sweep hands the
        # kernel whole input grids (up to 2^24 elements a call), which a sandbox would copy twice.
        chosen, missing = registry.select(tuple(requested) or ("all",), strict=True, isolate=False)
    except BackendSelectionError as exc:
        raise EnvironmentProblem(str(exc)) from exc
    if not requested:  # the harness's default: every available backend of the contract's device
        chosen = [b for b in chosen if b.device == contract.device]
        missing = {n: w for n, w in missing.items()
                   if registry.backends[n].device == contract.device}
    for name, why in sorted(missing.items()):
        if not quiet:
            click.echo(f"unavailable: {name}: {why}", err=True)
    if not chosen:
        raise EnvironmentProblem(f"no available backend runs {contract.device} contracts")
    wrong = [b.name for b in chosen if b.device != contract.device]
    if wrong and not cross:
        raise EnvironmentProblem(
            f"{', '.join(wrong)} run on another device than {contract.kernel} ({contract.device}); "
            f"pass --cross to judge them against it anyway")
    return chosen


def _sixteen_bit(contract, backend, dtype, processes, grid_size, cross):
    import numpy as np

    from judge.runner import unsupported_row
    from judge.sweep.run import sweep, sweep_support

    if dtype not in ("BF16", "F16"):
        raise EnvironmentProblem(f"--dtype {dtype}: sweeps cover BF16 and F16 on any backend and "
                                 f"F32 on a CUDA backend")
    ok = sweep_support(contract, backend, dtype, cross=cross)
    if ok is not True:
        return unsupported_row(contract, backend, dtype, str(ok), 0), \
            f"{_label(contract, backend, dtype)}: unsupported: {ok}", None, None
    expectations = _expectations()

    def announce(spec, path):
        size = "65,536 inputs" if spec.input_set == "all" else f"the {spec.input_set} pairs"
        click.echo(f"building the {spec.op_kind} {spec.in_dtype} oracle table over {size} with "
                   f"{processes} process(es), once; cached as {path}", err=True)

    result = sweep(contract, backend, dtype, processes=processes, grid_size=grid_size,
                   expectations=expectations, on_build=announce)
    text = summary_text(contract, backend, dtype, result)
    sample = result.score.ulp_real[:20000] if result.score is not None else None
    return result.row, text, result.case, (np.asarray(sample) if sample is not None else None)


def summary_text(contract, backend, dtype, result) -> str:
    row, t = result.row, result.timings
    what = ("every bit pattern" if result.input_set == "all"
            else f"every pair of the {result.input_set[4:]}-value grid")
    lines = [
        f"{_label(contract, backend, dtype)}: {row.cases:,} inputs ({what}): {row.verdict.upper()}"
        + (f" ({row.reason})" if row.reason else ""),
        f"  {result.worst}" if result.worst else "",
        f"  ulp max {_num(row.ulp_max)} (bound {_num(row.bound_ulp)}), p99 {_num(row.ulp_p99)}, "
        f"ulp-real max {_num(row.ulp_real_max)}; mismatches: NaN {row.nan_mismatch}, "
        f"inf {row.inf_mismatch}, signed zero {row.signed_zero_mismatch}, implausible "
        f"{row.implausible}",
        f"  time: oracle table {t.get('table', 0):.2f} s ({'cached' if result.table_cached else 'built'}), "
        f"backend {t.get('backend', 0):.3f} s, scoring {t.get('scoring', 0):.3f} s, "
        f"total {t.get('total', 0):.2f} s",
    ]
    if result.message:
        lines.append(result.message)
    if row.counterexample:
        lines.append(f"  case id: {row.counterexample}  (replay: judge repro {row.counterexample})")
    return "\n".join(line for line in lines if line)


def _expectations():
    from judge.expectations import ExpectationsError, load_expectations

    try:
        return load_expectations()
    except ExpectationsError as exc:
        raise EnvironmentProblem(f"known divergences cannot be read: {exc}") from exc


def _gpu_f32(contract, backend, cross, f32: _F32Options):
    from judge.runner import unsupported_row
    from judge.sweep import gpu_f32

    ok = gpu_f32.sweep_support(contract, backend, cross=cross)
    if ok is not True:
        return unsupported_row(contract, backend, "F32", str(ok), 0), \
            f"{_label(contract, backend, 'F32')}: unsupported: {ok}"
    click.echo(f"sweeping {contract.kernel} on {backend.name} ({backend.describe()})", err=True)
    from judge.sweep.multi_gpu import sweep_f32_on

    result = sweep_f32_on(f32.gpus, contract, backend, plugins=f32.plugins,
                          chunk_log2=f32.chunk_log2, chunks=f32.chunks, expectations=_expectations(),
                          fused=f32.fused)
    f32.results.append(result)
    if f32.out:  # after every sweep, so a run cut short keeps what it finished
        gpu_f32.write_outputs(Path(f32.out), f32.results)
    return result.row, result.summary()


def _gpus(text: str) -> tuple[str, ...]:
    """The GPUs an F32 sweep spreads over: the first N visible ones, or all of them."""
    from judge.parallel import visible_gpus

    visible = visible_gpus() or ("0",)
    if text == "all":
        return visible
    try:
        n = int(text)
    except ValueError:
        raise click.BadParameter(f"{text!r} is neither a count nor 'all'", param_hint="--gpus") from None
    if not 1 <= n <= len(visible):
        raise click.BadParameter(f"{n} GPUs asked for, {len(visible)} visible", param_hint="--gpus")
    return visible[:n]


def _label(contract, backend, dtype) -> str:
    return f"{contract.file}::{contract.kernel}[{backend.name}-{dtype}]"


def _num(v) -> str:
    if v is None:
        return "-"
    return f"{v:g}" if isinstance(v, float) else str(v)


def _write(rows, cases, samples, out, chosen) -> None:
    from judge.reports import write_audit
    from judge.results import AuditRun
    from judge.verdict import run_meta

    meta = run_meta(profile="sweep", seed=None, backends=chosen, items=len(rows))
    paths = write_audit(AuditRun(rows, cases, samples, meta), out)
    for name, path in paths.items():
        click.echo(f"{name:>15}: {path}")
