"""Oracle tables: the pure oracle evaluated once over a sweep's whole input set, cached on disk.

A table holds, per input element, exactly what scoring needs: the correctly rounded output bits
and the oracle's exact value as a double-double ``hi + lo`` (``hi`` = the exact value correctly
rounded to F64, ``lo`` = the remainder rounded to F64; about 106 bits, far beyond the 8..11 bits
of a 16-bit format, so ULP-real errors come out as the pure path's to three decimals).
``has_exact`` is False where the oracle has no exact value (a NaN or ±inf result); ``tiny`` marks
exact values that are nonzero but below F64's smallest subnormal (stored as hi = lo = 0: for
scoring they differ from zero only in the relative error, which is 1 against an observed 0).

Tables are keyed by op kind, input set (``all`` bit patterns or a ``grid<N>`` pair grid), input
and output format, the semantic rules, and a digest of the oracle's source files (every module
of ``oracles`` and ``numerics``): editing the oracle invalidates every table built from it. The cache
folder is ``$JUDGE_CACHE_DIR/tables`` when that variable is set, else
``~/.cache/fuel-judge/tables``. Files are written atomically (temporary name, then rename), so
concurrent builders at worst build twice.

Building uses a ``spawn`` process pool (the oracle is pure Python and CPU-bound); chunks of every
requested table go through one pool, so many small tables keep every core busy.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from numerics.formats import get_format

TABLE_FORMAT = 3  # bump when the stored arrays change; part of every file name
CHUNK = 4096  # elements per pool task: small enough to balance, large enough to amortise pickling
SAMPLE_CHECK = 48  # elements re-evaluated by the pure oracle every time a table is used


@dataclass(frozen=True)
class TableSpec:
    """What a table is of: one OpKind over one input set under one set of rules."""

    op_kind: str
    in_dtype: str  # format of every input
    out_dtype: str
    input_set: str  # "all" (every bit pattern, unary) or "grid<N>" (pairs of the N-value grid)
    rules: tuple[tuple[str, str], ...]  # sorted (key, value) of the semantic rules

    @classmethod
    def of(cls, op_kind: str, in_dtype: str, out_dtype: str, input_set: str,
           rules: dict[str, str]) -> TableSpec:
        # an unspecified rule decides nothing: leaving it out keeps the key of a table stable
        # when the rule vocabulary grows
        decided = {k: v for k, v in rules.items() if v != "unspecified"}
        return cls(op_kind, in_dtype, out_dtype, input_set, tuple(sorted(decided.items())))

    def rules_dict(self) -> dict[str, str]:
        return dict(self.rules)

    def file_name(self, oracle_digest: str) -> str:
        rules = hashlib.sha256(json.dumps(self.rules).encode()).hexdigest()[:10]
        return (f"{self.op_kind}.{self.input_set}.{self.in_dtype}-{self.out_dtype}."
                f"{rules}.{oracle_digest[:16]}.v{TABLE_FORMAT}.npz")


@dataclass(frozen=True)
class OracleTable:
    """The oracle's answer for every element of a sweep's input set."""

    spec: TableSpec
    bits: np.ndarray  # correctly rounded output bits (the output format's bits dtype)
    hi: np.ndarray  # float64: exact value rounded to F64 (NaN where has_exact is False)
    lo: np.ndarray  # float64: exact − hi, rounded to F64
    has_exact: np.ndarray  # bool
    tiny: np.ndarray  # bool: exact nonzero, below F64's range
    oracle_digest: str
    build_seconds: float = 0.0
    from_cache: bool = False
    path: Path | None = field(default=None, compare=False)
    # a further result the contract admits (``OracleOutput.admitted``: either zero of an equal pair
    # under unordered zeros), as output bits where has_alt; None: no element has one
    alt: np.ndarray | None = None
    has_alt: np.ndarray | None = None

    @property
    def size(self) -> int:
        return int(self.bits.size)

    def expected(self) -> np.ndarray:
        """The correctly rounded outputs as an array of the output format's dtype."""
        return self.bits.view(get_format(self.spec.out_dtype).numpy_dtype)


# --- where tables live and what invalidates them -------------------------------------------------


def cache_dir() -> Path:
    root = os.environ.get("JUDGE_CACHE_DIR")
    base = Path(root) if root else Path.home() / ".cache" / "fuel-judge"
    return base / "tables"


def oracle_digest() -> str:
    """sha256 over the oracle's source files and the numerics it rounds with (every family
    package and the lower floor: a table is only as current as the code that computed it)."""
    import numerics
    import oracles

    h = hashlib.sha256()
    for package in (oracles, numerics):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            h.update(f"{package.__name__}/{path.relative_to(root).as_posix()}".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


# --- input sets ------------------------------------------------------------------------------------


def input_bits(spec: TableSpec) -> list[np.ndarray]:
    """The input bit arrays of a table's input set (one per operand)."""
    from judge.sweep.inputs import all_bits, grid_pairs

    if spec.input_set == "all":
        return [all_bits(spec.in_dtype)]
    if spec.input_set.startswith("grid"):
        a, b = grid_pairs(spec.in_dtype, int(spec.input_set[4:]))
        return [a, b]
    raise ValueError(f"unknown input set {spec.input_set!r} (expected 'all' or 'grid<N>')")


# --- converting the oracle's output ------------------------------------------------------------------


def _fraction(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    mpf = getattr(x, "_mpf_", None)
    if mpf is not None:
        sign, man, exp, _bc = mpf
        v = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
        return -v if sign else v
    return Fraction(x)


def _to_float(q: Fraction) -> float:
    try:
        return float(q)  # Fraction.__float__ is correctly rounded
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def double_double(exact) -> tuple[float, float]:
    """(hi, lo) of an exact value: hi = RN64(exact), lo = RN64(exact − hi)."""
    q = _fraction(exact)
    hi = _to_float(q)
    if math.isinf(hi):
        return hi, 0.0
    return hi, _to_float(q - Fraction(hi))


def expected_arrays(output, out_dtype: str) -> tuple[np.ndarray, ...]:
    """(bits, hi, lo, has_exact, tiny) of one ``OracleOutput``, flattened."""
    fmt = get_format(out_dtype)
    bits = np.ascontiguousarray(np.asarray(output.expected)).view(fmt.bits_dtype).reshape(-1).copy()
    n = bits.size
    hi = np.full(n, np.nan)
    lo = np.full(n, np.nan)
    has = np.zeros(n, dtype=bool)
    tiny = np.zeros(n, dtype=bool)
    if output.exact is not None:
        for i, ex in enumerate(np.asarray(output.exact, dtype=object).reshape(-1)):
            if ex is not None:
                hi[i], lo[i] = double_double(ex)
                has[i] = True
                tiny[i] = hi[i] == 0 and _fraction(ex) != 0
    return bits, hi, lo, has, tiny


def admitted_arrays(output, out_dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """(alt, has_alt) of one ``OracleOutput``, flattened: the bits of the further result the
    contract admits at each element (either zero of an equal pair; a NaN is already any NaN)."""
    fmt = get_format(out_dtype)
    n = int(np.asarray(output.expected).size)
    alt, has = np.zeros(n, fmt.bits_dtype), np.zeros(n, bool)
    if output.admitted is None:
        return alt, has
    for i, alts in enumerate(np.asarray(output.admitted, dtype=object).reshape(-1)):
        others = [a for a in alts or () if a == a]
        if len(others) > 1 or any(a != 0 for a in others):
            # the search does not measure an admitted non-zero (an overflowed sum's ±inf); a
            # table would, so it holds only what both judge alike: the other zero
            raise ValueError(f"element {i} admits {others!r}; a table holds one admitted zero")
        if others:
            alt[i] = np.array([others[0]], fmt.numpy_dtype).view(fmt.bits_dtype)[0]
            has[i] = True
    return alt, has


def evaluate_pure(spec: TableSpec, bits: Sequence[np.ndarray]):
    """The pure oracle on these input bits: (bits, hi, lo, has_exact, tiny, alt, has_alt)."""
    import oracles
    from oracles import fast

    fmt = get_format(spec.in_dtype)
    values = [np.ascontiguousarray(b, dtype=fmt.bits_dtype).view(fmt.numpy_dtype) for b in bits]
    with fast.disabled():  # a table is the pure path's answer, whatever the fast path would say
        outs = oracles.evaluate(spec.op_kind, values, {}, [spec.out_dtype], spec.rules_dict())
    return expected_arrays(outs[0], spec.out_dtype) + admitted_arrays(outs[0], spec.out_dtype)


def _chunk_task(task):
    """Pool worker: (table index, start, spec, input bit slices) -> (index, start, arrays)."""
    index, start, spec, bits = task
    return index, start, evaluate_pure(spec, bits)


# --- building and loading ------------------------------------------------------------------------------


def build(specs: Sequence[TableSpec], *, processes: int = 2, progress=None) -> list[OracleTable]:
    """Evaluate every table with the pure oracle (no cache), chunks spread over a process pool.

    ``build_seconds`` of each table is the wall time from the start until its last chunk arrived.
    """
    digest = oracle_digest()
    inputs = [input_bits(s) for s in specs]
    arrays = []
    tasks = []
    for k, (spec, bits) in enumerate(zip(specs, inputs, strict=True)):
        n = bits[0].size
        out_bits = get_format(spec.out_dtype).bits_dtype
        arrays.append([np.zeros(n, out_bits), np.full(n, np.nan), np.full(n, np.nan),
                       np.zeros(n, bool), np.zeros(n, bool), np.zeros(n, out_bits), np.zeros(n, bool)])
        tasks.extend((k, s, spec, [b[s:s + CHUNK] for b in bits]) for s in range(0, n, CHUNK))
    remaining = [sum(1 for t in tasks if t[0] == k) for k in range(len(specs))]
    done_at = [0.0] * len(specs)
    t0 = time.perf_counter()
    for k, start, parts in _run_tasks(tasks, processes):
        for dst, src in zip(arrays[k], parts, strict=True):
            dst[start:start + src.size] = src
        remaining[k] -= 1
        if remaining[k] == 0:
            done_at[k] = time.perf_counter() - t0
            if progress is not None:
                progress(specs[k], done_at[k])
    return [OracleTable(spec, *arr[:5], oracle_digest=digest, build_seconds=round(sec, 3), alt=arr[5],
                        has_alt=arr[6])
            for spec, arr, sec in zip(specs, arrays, done_at, strict=True)]


def _run_tasks(tasks, processes: int) -> Iterable:
    if processes <= 1 or len(tasks) <= 1:
        yield from map(_chunk_task, tasks)
        return
    import multiprocessing

    # spawn, not fork: the parent may hold torch's or a BLAS's threads, which fork does not copy
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(processes) as pool:
        yield from pool.imap_unordered(_chunk_task, tasks)


def save(table: OracleTable, directory: Path | None = None) -> Path:
    directory = directory or cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / table.spec.file_name(table.oracle_digest)
    meta = {
        "op_kind": table.spec.op_kind,
        "in_dtype": table.spec.in_dtype,
        "out_dtype": table.spec.out_dtype,
        "input_set": table.spec.input_set,
        "rules": list(map(list, table.spec.rules)),
        "oracle_digest": table.oracle_digest,
        "build_seconds": table.build_seconds,
    }
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        np.savez(fh, bits=table.bits, hi=table.hi, lo=table.lo, has_exact=table.has_exact,
                 tiny=table.tiny, alt=table.alt, has_alt=table.has_alt,
                 meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    os.replace(tmp, path)
    return path


def load(spec: TableSpec, directory: Path | None = None) -> OracleTable | None:
    """The cached table for ``spec`` built by the current oracle, or None."""
    digest = oracle_digest()
    path = (directory or cache_dir()) / spec.file_name(digest)
    if not path.is_file():
        return None
    with np.load(path) as data:
        meta = json.loads(bytes(data["meta"]).decode())
        if meta["oracle_digest"] != digest or tuple(map(tuple, meta["rules"])) != spec.rules:
            return None
        return OracleTable(spec, data["bits"], data["hi"], data["lo"], data["has_exact"], data["tiny"],
                           oracle_digest=digest, build_seconds=meta["build_seconds"],
                           from_cache=True, path=path, alt=data["alt"], has_alt=data["has_alt"])


def get(spec: TableSpec, *, processes: int = 2, directory: Path | None = None,
        on_build=None) -> OracleTable:
    """The table for ``spec``: from the cache, else built with the pure oracle and cached.

    ``on_build(spec, path)`` is called before a build starts (builds take seconds to minutes).
    """
    table = load(spec, directory)
    if table is not None:
        return table
    if on_build is not None:
        on_build(spec, (directory or cache_dir()) / spec.file_name(oracle_digest()))
    (table,) = build([spec], processes=processes)
    path = save(table, directory)
    return OracleTable(table.spec, table.bits, table.hi, table.lo, table.has_exact, table.tiny,
                       oracle_digest=table.oracle_digest, build_seconds=table.build_seconds,
                       path=path, alt=table.alt, has_alt=table.has_alt)


class TableMismatch(AssertionError):
    """A cached table disagrees with a fresh pure evaluation."""


def cross_check(table: OracleTable, *, sample: int = SAMPLE_CHECK, seed: int = 0) -> int:
    """Re-evaluate ``sample`` random elements (and the first and last) with the pure oracle.

    Raises ``TableMismatch`` naming the first element that differs; returns how many were checked.
    """
    rng = np.random.default_rng(seed)
    n = table.size
    idx = np.unique(np.concatenate([[0, n - 1], rng.integers(0, n, size=min(sample, n))]))
    bits = [b[idx] for b in input_bits(table.spec)]
    fresh = evaluate_pure(table.spec, bits)
    mine = (table.bits[idx], table.hi[idx], table.lo[idx], table.has_exact[idx], table.tiny[idx])
    if table.alt is not None:
        mine += (table.alt[idx], table.has_alt[idx])
    names = ("bits", "hi", "lo", "has_exact", "tiny", "alt", "has_alt")
    for name, a, b in zip(names, mine, fresh, strict=True):
        same = (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
        if not np.all(same):
            j = int(np.flatnonzero(~same)[0])
            inputs = ", ".join(f"0x{int(x[j]):X}" for x in bits)
            raise TableMismatch(
                f"oracle table {table.spec.file_name(table.oracle_digest)} ({table.path}): "
                f"element {int(idx[j])} (inputs {inputs}) {name} is {a[j]!r} in the table but "
                f"{b[j]!r} from the pure oracle; delete the file to rebuild it"
            )
    return int(idx.size)
