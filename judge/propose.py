"""``judge propose``: the precision block the evidence supports, as an edit of the contract file.

Evidence is the rows of audits (``results.json``: per backend and dtype the worst ULP distance
and the case that holds it, the largest relative and absolute errors, the share of the derived
bound used) and of exhaustive sweeps (the same rows, over every input). For each block (every
``audited: false`` one, and any other asked for) one bound is proposed, in the first measure
the evidence supports:

1. exact by definition: ``max_ulp: 0``;
2. ``max_ulp``, the largest worst-ULP distance, where every row's stays within
   min(2^(p/2), 4096) ulp (p the precision of the row's format): ULP is a kernel's accuracy
   there;
3. ``max_relative`` where ULP is the wrong measure (a tiny result beside large terms: a sum's
   cancellation, a saturated 2^63) but every relative error stays within 2^(-p/2);
4. ``max_absolute`` where only absolute errors stay within 2^(-p/2) (bounded results, such as
   probabilities, whose tiny ones lose their relative accuracy);
5. none: the derived bound stays, and the comments say why.

The format holds one bound per block, so the bound is the largest over backends and dtypes;
each backend's and dtype's observed maximum, with its case id, is written beside it as YAML
comments, with what makes the evidence thin (few cases, a backend or a dtype missing) and where
a backend comes close to the derived bound. ``audited: false`` stays: a person flips it.

    >>> evidence = load_evidence(["nightly/"], sweeps=["bf16-sweep/"])
    >>> proposals = propose(contracts, evidence, backends={"cpu": ["numpy", "torch-cpu"]})
    >>> text = apply_proposals(path.read_text(), [p for p in proposals if p.contract.file == path])
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from judge.contracts.patch import MARK, PrecisionEdit, apply

LONGEST_ROW = 4096  # oracles.family.Budget.long_row
THIN_CASES = 100  # fewer cases than this (a ci audit's 40) make a row's maximum thin evidence
CLOSE = 0.5  # a row that uses this share of its derived bound comes close to it
MEASURES = ("max_ulp", "max_relative", "max_absolute")


@dataclass(frozen=True)
class Evidence:
    """One row of an audit or a sweep, and where it came from."""

    row: object  # judge.results.ResultRow
    source: str  # the run folder
    sweep: bool = False  # every input of the format (an exhaustive sweep), not a sample


@dataclass
class Proposal:
    contract: object
    evidence: list[Evidence]
    measure: str | None = None  # one of MEASURES, or None: the derived bound stays
    value: str = ""  # as written in the file
    why: str = ""
    notes: list[str] = field(default_factory=list)

    def values(self) -> dict[str, str]:
        """The precision keys the edit sets: the measure, and the other two cleared."""
        if self.measure is None:
            return {}
        return {m: (self.value if m == self.measure else "~") for m in MEASURES}


def load_evidence(runs, sweeps=()) -> list[Evidence]:
    """The rows of each audit folder and each further folder (``ValueError`` naming a bad one).

    A further folder is an exhaustive sweep (``judge sweep --out``: its ``results.json`` says
    profile ``sweep``) or another audit, such as a GPU machine's nightly beside a CPU one's:
    its rows are samples, like the first run's."""
    from judge.reports.tables import load_meta, load_rows

    out = []
    for folder, maybe_sweep in [*((r, False) for r in runs), *((s, True) for s in sweeps)]:
        results = Path(folder) / "results.json"
        if not results.is_file():
            raise ValueError(f"{folder}: no results.json (is it the --out folder of an audit or a sweep?)")
        sweep = maybe_sweep and load_meta(results).get("profile") == "sweep"
        out += [Evidence(row, str(folder), sweep) for row in load_rows(results)]
    return out


def propose(contracts, evidence: list[Evidence], *, kernels=(), backends: dict | None = None) -> list[Proposal]:
    """A proposal for every ``audited: false`` block among ``contracts`` and every block named in
    ``kernels`` (a kernel or FILE::kernel); ``backends`` {device: backend names} says which
    backends a block could have evidence from."""
    by_block: dict[tuple[str, str], list[Evidence]] = {}
    for e in evidence:
        by_block.setdefault((Path(e.row.file).name, e.row.kernel), []).append(e)
    out = []
    for c in contracts:
        asked = c.kernel in kernels or f"{Path(c.file).name}::{c.kernel}" in kernels
        if not c.registrable or not (c.precision.audited is False or asked):
            continue
        p = Proposal(c, by_block.get((Path(c.file).name, c.kernel), []))
        decide(p)
        p.notes = notes(p, (backends or {}).get(c.device, ()))
        out.append(p)
    return out


def _precision_bits(dtype: str) -> int:
    from numerics.formats import get_format

    try:
        fmt = get_format(dtype)
    except (KeyError, ValueError):
        return 24
    return fmt.precision if fmt.is_float else 24


def decide(p: Proposal) -> None:
    """The measure and the bound of ``p`` from its passing rows (the numbered list above)."""
    rows = [e.row for e in p.evidence if e.row.verdict == "pass"]
    if not rows:
        p.why = "no passing row to learn from: nothing proposed"
        return
    if all(r.derived_bound == "exact" for r in rows):
        p.measure, p.value, p.why = "max_ulp", "0", "exact by definition: bit for bit"
        return
    half = {r.dtype: _precision_bits(r.dtype) / 2 for r in rows}
    wide = [r for r in rows if r.ulp_max is not None and r.ulp_max > _ulp_limit(half[r.dtype])]
    if not wide and any(r.ulp_max is not None for r in rows):
        top = max(r.ulp_max for r in rows if r.ulp_max is not None)
        p.measure, p.value = "max_ulp", str(int(top))
        p.why = "every row's worst element lies within min(2^(p/2), 4096) ulp: ULP measures this kernel"
        return
    because = (f"ULP is the wrong measure: {_name(wide[0])} reached {wide[0].ulp_max:.4g} ulp "
               "(a tiny result beside large terms, or a saturated distance)") if wide else \
        "no row measured a ULP distance"
    for measure, column in (("max_relative", "rel_max"), ("max_absolute", "abs_max")):
        values = [getattr(r, column) for r in rows]
        if all(v is not None and v <= 2 ** -half[r.dtype] for v, r in zip(values, rows, strict=True)):
            p.measure, p.value = measure, _ceil3(max(values))
            p.why = f"{because}; every {column} lies within 2^(-p/2)"
            return
        bad = max(rows, key=lambda r: getattr(r, column) or math.inf)
        because += f"; {column} reached {getattr(bad, column) or math.inf:.3g} ({_name(bad)})"
    p.why = f"{because}: no fixed bound fits, the derived bound stays"


def _ulp_limit(half_precision: float) -> float:
    """The most ULP that still measure a kernel's accuracy: half the format's bits (beyond that
    the sanity bound of SPEC §4 is reached), and no more than a sum of the longest generated
    row (4,096 terms) may lose without cancellation; above it the result is tiny beside its
    terms, and its ULP says nothing of the kernel."""
    return min(2.0 ** half_precision, float(LONGEST_ROW))


def _ceil3(x: float) -> str:
    """The smallest three-digit decimal above ``x`` (so the bound covers the float it reads)."""
    if x <= 0:
        return "0.0"
    x = math.nextafter(x, math.inf)
    e = math.floor(math.log10(x)) - 2
    m = math.ceil(x / 10.0 ** e - 1e-9)
    value = m * 10.0 ** e
    while value < x:  # guard the decimal rounding of 10^e
        m += 1
        value = m * 10.0 ** e
    return f"{value:.2e}"


def _name(row) -> str:
    return f"{row.backend} {row.dtype}"


def notes(p: Proposal, device_backends) -> list[str]:
    """What makes the evidence thin, and where a backend comes close to its derived bound."""
    c, out = p.contract, []
    rows = [e.row for e in p.evidence]
    missing = sorted(set(device_backends) - {r.backend for r in rows if r.verdict != "unsupported"})
    if missing:
        out.append(f"thin: no evidence from {', '.join(missing)}")
    dtypes = [d for d in c.dtype_fan if not any(r.dtype == d and r.verdict == "pass" for r in rows)]
    if dtypes:
        out.append(f"thin: no passing row for {', '.join(dtypes)}")
    few = [f"{_name(e.row)} ({e.row.cases})" for e in p.evidence
           if e.row.verdict == "pass" and not e.sweep and e.row.cases < THIN_CASES]
    if few:
        out.append(f"thin: fewer than {THIN_CASES} cases (a nightly audit draws 400): {', '.join(few)}")
    for e in p.evidence:
        r = e.row
        if r.verdict not in ("pass", "unsupported"):
            out.append(f"left out: {_name(r)} is {r.verdict} ({r.reason[:100]})")
        if r.verdict == "pass" and r.derived_bound in ("reduction", "sanity") and (r.bound_used or 0) >= CLOSE:
            out.append(f"close: {_name(r)} uses {r.bound_used:.0%} of the derived {r.derived_bound} bound")
    stale = sorted({r.revision for r in rows if r.revision and r.revision != c.revision})
    if stale:
        out.append(f"stale: the rows judged revision {', '.join(stale)}, not the block as it reads now")
    return list(dict.fromkeys(out))


def per_dtype(p: Proposal) -> str:
    """The bound each dtype alone would need (the format holds one per block: the largest)."""
    if p.measure is None:
        return ""
    column = {"max_ulp": "ulp_max", "max_relative": "rel_max", "max_absolute": "abs_max"}[p.measure]
    need: dict[str, float] = {}
    for e in p.evidence:
        v = getattr(e.row, column)
        if e.row.verdict == "pass" and v is not None:
            need[e.row.dtype] = max(need.get(e.row.dtype, 0.0), v)
    return ", ".join(f"{d} {v:.4g}" for d, v in need.items())


def comments(p: Proposal, when: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The YAML comments written under ``precision:``: the proposal, the evidence (each source
    with what ``when`` says of it: its profile and start), the notes."""
    when = when or {}
    sources = ", ".join(f"{s}: {when[s]}" if when.get(s) else s
                        for s in dict.fromkeys(e.source for e in p.evidence)) or "no run"
    head = f"{MARK} ({sources}): "
    head += f"{p.measure}: {p.value}" if p.measure else "no bound"
    lines = [head, f"  why: {p.why}"]
    if per_dtype(p):
        lines.append(f"  per dtype: {per_dtype(p)}")
    lines.append("  backend dtype, cases, verdict: worst ulp (its case), rel_max, abs_max, "
                 "share of the derived bound used")
    for e in sorted(p.evidence, key=lambda e: (e.row.backend, e.row.dtype)):
        r = e.row
        if r.verdict == "unsupported":
            continue
        cases = "every input" if e.sweep else f"{r.cases} cases"
        ulp = "-" if r.ulp_max is None else f"{r.ulp_max:.4g} ulp"
        case = f" ({r.ulp_max_case or r.counterexample})" if (r.ulp_max_case or r.counterexample) else ""
        used = f"{r.bound_used:.1%} of {r.derived_bound}" if r.bound_used is not None and r.derived_bound \
            else "-"
        lines.append(f"  {r.backend} {r.dtype} {cases}, {r.verdict}: {ulp}{case}, rel {_g(r.rel_max)}, "
                     f"abs {_g(r.abs_max)}, {used}")
    lines += [f"  {n}" for n in p.notes]
    lines.append("  audited stays false until a person has read this evidence")
    return tuple(lines)


def _g(value) -> str:
    return "-" if value is None else f"{value:.3g}"


def apply_proposals(text: str, proposals: list[Proposal], when: Mapping[str, str] | None = None) -> str:
    """The file's text with every proposal's edit made (later blocks first, so earlier line
    numbers hold); ``when`` {source folder: its profile and start} labels the evidence."""
    for p in sorted(proposals, key=lambda p: p.contract.location.line, reverse=True):
        if p.evidence:  # a block no run judged is left as it is
            text = apply(text, PrecisionEdit(p.contract.location.line, p.values(), comments(p, when)))
    return text
