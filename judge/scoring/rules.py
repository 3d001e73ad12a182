"""The rulebook (SPEC §4): what every check means, in one place, for every scorer.

Three scorers apply it: ``judge.scoring.exact`` (per element, exact arithmetic: the search's
generated cases), and ``judge.scoring.vector`` (whole arrays: the 16-bit sweeps on numpy and
the F32 sweeps on the GPU). ``tests/sweep/test_one_rulebook.py`` feeds the same outputs to all
three and requires the same verdicts.

Per output element, in this order:

1. ``nan``: NaN-ness must match the oracle (a result the contract admits aside). Under an
   unspecified NaN rule a mismatch is *reported*, never failed (``is_reported``). An op that
   copies bits has no NaN rule: there a NaN out of place is ``exact``, a wrong value.
2. An element equal to the correctly rounded result (or admitted) passes.
3. ``inf``: where the exact value is itself ±inf or NaN (no finite exact value), or the op is
   exact, ±inf must match the oracle exactly.
4. Which bound holds the element is ``bound_kind``:
   - ``exact`` (exact by definition, or ``determinism: bitwise``): bit for bit; a ±0 difference is
     ``signed_zero``, a flushed subnormal ``subnormal``, anything else ``exact``;
   - ``declared``: every declared bound: ``ulp`` (integer ULP distance > max_ulp) and ``bound``
     (|error| > max_absolute; |error| / |exact| > max_relative; an infinite error against a
     finite exact value when either is declared);
   - ``reduction`` (sums and means, nothing declared): ``reduction_bound``, the derived
     (n-1)·u_acc·Σ|x| + ulp (over n for a mean);
   - ``sanity`` (nothing declared): ``implausible``, an error beyond 2^(-p/2)·max(1, |exact|).
5. ``payload``: for ops that copy bits (``OpDef.copies_bits``), a NaN element must hold the
   oracle's NaN bit for bit (sign, quiet bit, payload); elsewhere NaN payloads are free.
6. A flushed subnormal (nonzero subnormal expected, zero observed, and that zero consistent with
   flushing: of the expected sign, or from a subnormal input of the same element; where the
   family is not elementwise, also no subnormal kept elsewhere in the output) is what broke,
   whichever bound it broke: its check is ``subnormal``. Any other zero is a wrong value.

Checks of a whole call, not of its elements: the executor's (``dtype``, ``shape``,
``unwritten``, ``input_modified``, ``outside_written``, ``in_place``, ``raised``,
``determinism``; ``judge.executor``), batch invariance (``batch_invariant``;
``judge.invariance``), and ``accepts_invalid``: an error input (SPEC §4 "Error inputs") that the
kernel did not refuse with an error and nothing written (``judge.refusal``). Every check is a
word of the expectations vocabulary (``judge.expectations.CHECKS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judge.executor import Finding
from numerics.formats import Format


@dataclass
class Counts:
    """What every scorer counts, under the row's column names: error maxima, mismatches of
    each kind, and the findings (failed, and reported under an unspecified rule)."""

    elements: int = 0
    rel_max: float = 0.0
    abs_max: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    signed_zero_mismatch: int = 0
    reported: list[Finding] = field(default_factory=list)  # mismatches under an unspecified rule
    implausible: int = 0

MAX_REPORTED = 3  # elements spelled out per failing check
BOUND_KINDS = ("exact", "declared", "reduction", "sanity")


def bound_kind(contract, opdef) -> str:
    """Which bound holds numeric elements: exact, declared, reduction or sanity."""
    if opdef.exact or contract.determinism == "bitwise":
        return "exact"
    if contract.precision.declares_bound:
        return "declared"
    if opdef.reduction_bound is not None:
        return "reduction"
    return "sanity"


def derived_bound(kind: str) -> str | None:
    """The row's ``derived_bound`` column: the bound the Judge derived, None when declared."""
    return None if kind == "declared" else kind


def is_reported(check: str, semantics) -> bool:
    """A failing check that is reported, not failed: a NaN mismatch under an unspecified NaN
    rule (the contract promises nothing about NaN there)."""
    return check == "nan" and semantics.nan.value == "unspecified"


def split_reported(findings, semantics) -> tuple[list, list]:
    """(failed, reported) findings of one scored output."""
    failed = [f for f in findings if not is_reported(f.check, semantics)]
    reported = [f for f in findings if is_reported(f.check, semantics)]
    return failed, reported


def sanity_factor(fmt: Format) -> float:
    """2^(-p/2): the sanity bound is this times max(1, |exact|)."""
    return 2.0 ** (-fmt.precision / 2)


def sanity_text(fmt: Format) -> str:
    return f"error beyond the sanity bound 2^(-p/2)·max(1,|exact|) (p={fmt.precision})"


def flushed(observed, expected, fmt: Format, subnormal_input=None):
    """A flush to zero (scalars or arrays of any array module): a nonzero subnormal expected, a
    zero observed, and that zero consistent with flushing: it keeps the expected value's sign
    (what flushing the result gives), or ``subnormal_input`` holds there (an input of the same
    element was a nonzero subnormal, flushed on its way in whatever the sign). A zero of the
    other sign, from normal inputs, is a wrong value, not a flush."""
    from judge.scoring.xp import ops_for

    xp = ops_for(observed).xp
    tiny = (observed == 0) & (expected != 0) & (abs(expected) < 2.0 ** fmt.emin)
    consistent = xp.signbit(observed) == xp.signbit(expected)
    if subnormal_input is not None:
        consistent = consistent | subnormal_input
    return tiny & consistent


def subnormal_inputs(values: tuple[np.ndarray, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    """Output elements of an elementwise OpKind with a nonzero subnormal among their inputs."""
    from numerics.formats import dtype_name, get_format

    out = np.zeros(out_shape, bool)
    for v in values:
        if v.dtype.kind == "f" or v.dtype.name == "bfloat16":
            with np.errstate(invalid="ignore"):
                w = np.abs(v.astype(np.float64))
            tiny = 2.0 ** get_format(dtype_name(v.dtype)).emin
            out = out | np.broadcast_to((w > 0) & (w < tiny), out_shape)
    return out


def keeps_subnormals(observed: np.ndarray, fmt: Format) -> bool:
    """Whether an output holds a nonzero subnormal: a kernel that leaves one does not flush, so
    a zero elsewhere in it (where its family cannot say which input it came from) is a wrong
    value, such as a misplaced copy, not a flush."""
    with np.errstate(invalid="ignore"):
        w = np.abs(np.asarray(observed, dtype=np.float64))
    return bool(((w > 0) & (w < 2.0 ** fmt.emin)).any())


def nan_involved(family, opdef, values: tuple[np.ndarray, ...], params: dict,
                 out_shape: tuple[int, ...]) -> np.ndarray:
    """Output elements that a NaN input contributes to (to tell NaN-rule failures apart): where
    the OpKind's family is elementwise, the outputs each NaN broadcasts to; elsewhere, those its
    family says the NaN reaches (``Family.reach``)."""
    masks = [_nan_mask(v) if v.dtype.kind == "f" or v.dtype.name == "bfloat16"
             else np.zeros(v.shape, bool) for v in values]
    if family.elementwise:
        out = np.zeros(out_shape, bool)
        for m in masks:
            out = out | np.broadcast_to(m, out_shape)
        return out
    return np.asarray(family.reach(opdef, masks, params, out_shape))


def _nan_mask(v: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):  # a signalling NaN widens to a quiet one: still NaN
        return np.isnan(v.astype(np.float64))


def rule_note(rules, key: str) -> str:
    """The edge rule that decided which results are admitted, and the contract text it came from."""
    from judge.contracts.model import RULE_MEANINGS

    rule = rules.get(key) if hasattr(rules, key) else None
    if rule is None or rule.value == "unspecified":
        return ""
    quote = f": {rule.evidence!r}" if rule.source in ("blurb", "notes") else ""
    return f"; {key} {rule.value} (from {rule.source}{quote}; admits {RULE_MEANINGS.get((key, rule.value), '')})"
