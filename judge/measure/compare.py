"""Cost in the gate (SPEC §10): a kernel whose fitted overhead or rate got worse than the
baseline's by more than the noise.

The noise is measured, never assumed: every size of a ``measured-cost.json`` entry keeps its
median and inter-quartile range, so the fit is repeated through the lower and the upper
quartiles. Half the distance between those two fits, relative to the fitted value, is the
coefficient's spread (never less than the fit's own rms residual). A coefficient regresses when
the current value, lowered by ``K`` spreads of its own, still lies above the baseline raised by
``K`` spreads of the baseline's: both intervals must part. Rates are compared only where both
runs determined them (the work, not the overhead, dominated the largest size). Entries are
compared per kernel, backend, dtype, revision and fast path (contiguous, strided, broadcast).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from judge.measure.fit import fit_cost

K = 3.0  # spreads on each side: the intervals of an unchanged kernel overlap on a noisy host


@dataclass(frozen=True)
class Coefficient:
    name: str  # "overhead" | "rate"
    value: float  # ns (overhead) or ns per unit of work (the inverse rate): larger is worse
    spread: float  # relative

    def interval(self) -> tuple[float, float]:
        return self.value * (1 - K * self.spread), self.value * (1 + K * self.spread)


@dataclass(frozen=True)
class CostChange:
    key: tuple[str, str, str, str, str]  # kernel, backend, dtype, revision, fast path
    coefficient: str
    baseline: Coefficient
    current: Coefficient

    @property
    def ratio(self) -> float:
        return self.current.value / self.baseline.value if self.baseline.value > 0 else math.inf

    @property
    def worse(self) -> bool:
        return self.current.interval()[0] > self.baseline.interval()[1]

    def describe(self) -> str:
        what = "overhead" if self.coefficient == "overhead" else "time per unit of work (1/rate)"
        return (f"{what} {self.ratio:.2f}× the baseline's ({_fmt(self.current)} vs "
                f"{_fmt(self.baseline)}; spread ±{K:g}×{self.current.spread:.1%} vs "
                f"±{K:g}×{self.baseline.spread:.1%})")


def _fmt(c: Coefficient) -> str:
    return f"{c.value:.4g} ns" if c.name == "overhead" else f"{c.value:.4g} ns/unit"


def coefficients(entry: dict) -> dict[str, Coefficient]:
    """The entry's comparable coefficients with their measured spreads."""
    if entry.get("status") != "measured" or not entry.get("sizes"):
        return {}
    sizes = entry["sizes"]
    work = [s["work"] for s in sizes]
    try:
        low = fit_cost(work, [s["q1_ns"] for s in sizes])
        high = fit_cost(work, [s["q3_ns"] for s in sizes])
    except ValueError:
        return {}
    floor = entry.get("fit_rms_rel") or 0.0
    out = {}
    overhead = entry.get("overhead_ns") or 0.0
    if overhead > 0:
        out["overhead"] = Coefficient("overhead", overhead,
                                      max(abs(high.overhead_ns - low.overhead_ns) / (2 * overhead), floor))
    slope = entry.get("ns_per_unit") or 0.0
    if slope > 0 and entry.get("rate_determined"):
        out["rate"] = Coefficient("rate", slope,
                                  max(abs(high.ns_per_unit - low.ns_per_unit) / (2 * slope), floor))
    return out


def compare_costs(baseline: dict, current: dict) -> tuple[list[CostChange], list[str]]:
    """(every compared coefficient, notes on entries that could not be compared)."""
    base = {_key(e): e for e in baseline.get("entries", [])}
    changes, notes = [], []
    for entry in current.get("entries", []):
        key = _key(entry)
        old = base.get(key)
        if old is None:
            notes.append(f"{_name(key)}: not in the cost baseline (new, or its revision changed)")
            continue
        mine, theirs = coefficients(entry), coefficients(old)
        if not mine or not theirs:
            notes.append(f"{_name(key)}: not measured in both runs")
        for name in sorted(set(mine) & set(theirs)):
            changes.append(CostChange(key, name, theirs[name], mine[name]))
    return changes, notes


def load_cost(path: str | Path) -> dict:
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a readable measured-cost.json ({exc})") from exc
    if not isinstance(doc, dict) or "entries" not in doc:
        raise ValueError(f"{path}: no entries (is it a measured-cost.json of judge measure?)")
    return doc


def cost_markdown(changes: list[CostChange], notes: list[str]) -> str:
    worse = [c for c in changes if c.worse]
    lines = [f"## Cost ({len(worse)} regression{'s' if len(worse) != 1 else ''} of "
             f"{len(changes)} coefficients compared)", ""]
    lines += [f"- **{_name(c.key)}**: {c.describe()}" for c in worse] or ["No cost regression."]
    lines += [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def _key(entry: dict) -> tuple[str, str, str, str, str]:
    """An entry's identity: kernel, backend, dtype, revision and fast path (an entry written
    before paths were measured is the contiguous one)."""
    return (entry["kernel"], entry["backend"], entry["dtype"], entry.get("revision", ""),
            entry.get("path") or "contiguous")


def _name(key) -> str:
    path = "" if key[4] == "contiguous" else f", {key[4]} inputs"
    return f"{key[0]}[{key[1]}-{key[2]}{path}]"
