"""Op-param constraint vocabulary (SPEC §3): constraint text -> ``ParamConstraint``.

One table entry per recognised phrase. A text that joins several phrases with ``;`` gives a
constraint of kind ``all`` whose ``parts`` are the phrases; a phrase outside the vocabulary gives
kind ``unknown`` (the loader turns that into a lint warning and the OpKind's generator decides).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from judge.contracts.model import ParamConstraint


@dataclass(frozen=True)
class ConstraintPhrase:
    kind: str
    pattern: str  # matched against the whole whitespace-normalised phrase, ignoring case
    value: Callable[[re.Match], object]
    example: str


def _none(match: re.Match) -> None:
    return None


VOCABULARY: tuple[ConstraintPhrase, ...] = (
    ConstraintPhrase("eq", r"==\s*([-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?)",
                     lambda m: float(m.group(1)), "== 1.0"),
    ConstraintPhrase("ge_field", r">=\s*([a-z_]\w*)", lambda m: m.group(1), ">= min"),
    ConstraintPhrase("sorted_unique_dims", r"sorted ascending, unique, each in 0\.\.input_rank",
                     _none, "sorted ascending, unique, each in 0..input_rank"),
    ConstraintPhrase("single_dim",
                     r"exactly one dim; dim in 0\.\.input_rank; input_shape\[dim\] != 0",
                     _none, "exactly one dim; dim in 0..input_rank; input_shape[dim] != 0"),
    ConstraintPhrase("product_eq_elem_count", r"product == (\w+)\.elem_count",
                     lambda m: m.group(1), "product == input.elem_count"),
    ConstraintPhrase("left_pad_broadcast",
                     r"left-pad-1 to input rank; each axis == input size or 1",
                     _none, "left-pad-1 to input rank; each axis == input size OR 1"),
)

_CHAIN = r"product == (\w+)\.elem_count((?: == \w+\.elem_count)+)$"


@cache
def _compiled() -> tuple[tuple[ConstraintPhrase, re.Pattern], ...]:
    return tuple((p, re.compile(p.pattern + r"$", re.IGNORECASE)) for p in VOCABULARY)


def parse_constraint(text: str) -> ParamConstraint:
    norm = " ".join(str(text).split())
    whole = _match(norm)
    if whole is not None:
        return whole
    segments = [s.strip() for s in norm.split(";")]
    parts: list[ParamConstraint] = []
    i = 0
    while i < len(segments):
        # Longest run of segments that is one phrase (some phrases contain ';' themselves).
        for j in range(len(segments), i, -1):
            found = _match("; ".join(segments[i:j]))
            if found is not None:
                parts.append(found)
                i = j
                break
        else:
            parts.append(ParamConstraint("unknown", None, segments[i]))
            i += 1
    if len(parts) == 1:
        return parts[0] if parts[0].kind != "unknown" else ParamConstraint("unknown", None, norm)
    return ParamConstraint("all", None, norm, tuple(parts))


def _match(phrase: str) -> ParamConstraint | None:
    for entry, regex in _compiled():
        match = regex.match(phrase)
        if match:
            return ParamConstraint(entry.kind, entry.value(match), phrase)
    chain = re.match(_CHAIN, phrase, re.IGNORECASE)
    if chain:
        # "product == x.elem_count == out.elem_count": the product equals both counts.
        names = [chain.group(1), *re.findall(r"(\w+)\.elem_count", chain.group(2))]
        parts = tuple(ParamConstraint("product_eq_elem_count", n, f"product == {n}.elem_count")
                      for n in names)
        return ParamConstraint("all", None, phrase, parts)
    return None


def unknown_parts(constraint: ParamConstraint) -> list[ParamConstraint]:
    if constraint.kind == "unknown":
        return [constraint]
    return [p for p in constraint.parts if p.kind == "unknown"]
