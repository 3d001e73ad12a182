"""Derived semantics (SPEC §4): NaN rule, tie rule, rounding and remainder convention, and the
edge rules (sign of zero in extrema and clamp, the start of an extremum fold, summation order).

Each rule is decided, in this order, by the block's ``semantics:`` mapping, a recognised phrase
in ``blurb``, then in ``precision.notes``, then the OpKind's default (handed in by the caller:
``judge.suite`` joins in the oracle's; this package never imports ``oracles``); else it is
``unspecified``. The phrase vocabulary is the table below: one entry per phrase, tried in table
order, so a more specific phrase is listed before a more general one (relu's "NaN > 0 is false"
before "NaN passes through"; "NaN-propagating" before "NaN-as-missing", because notes that were
corrected still mention the old claim).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from judge.contracts.model import SEMANTIC_VALUES, Rule, Semantics

RULE_KEYS = tuple(SEMANTIC_VALUES)


@dataclass(frozen=True)
class Phrase:
    key: str  # nan | ties | rounding | remainder | zeros | init | order
    value: str
    pattern: str  # case-insensitive regular expression
    example: str  # a phrase it recognises, for the docs and tests


VOCABULARY: tuple[Phrase, ...] = (
    # NaN rule
    Phrase("nan", "to_zero", r"NaN\s*>\s*0 is false", "NaN > 0 is false => returns 0"),
    Phrase("nan", "propagate", r"NaN[- ]propagating", "NaN-propagating"),
    Phrase("nan", "propagate", r"NaN if either operand is NaN", "NaN if either operand is NaN"),
    Phrase("nan", "ignore", r"NaN[- ]as[- ]missing", "NaN-as-missing"),
    Phrase("nan", "ignore", r"NaN (?:candidates )?never", "NaN never wins"),
    Phrase("nan", "propagate", r"NaN(?:/inf)? pass(?:es)? through", "NaN/inf pass through"),
    # tie rule
    Phrase("ties", "first_index", r"(?:first|lowest|lower)(?:/lowest)? index", "first/lowest index"),
    Phrase("ties", "fair_share", r"fair[- ]share", "fair-share on ties"),
    Phrase("ties", "half_to_even", r"ties (?:at exact \.5 )?go to the even", "ties go to the even"),
    # rounding of round-to-integer ops
    Phrase("rounding", "half_to_even", r"(?:round[- ])?half[- ]to[- ]even|banker'?s rounding",
           "round-half-to-even"),
    Phrase("rounding", "half_away_from_zero", r"half[- ]away[- ]from[- ]zero",
           "half-away-from-zero"),
    # remainder convention
    Phrase("remainder", "floored", r"sign[- ]of[- ](?:the[- ])?divisor", "sign of the divisor"),
    Phrase("remainder", "floored", r"sign matches (?:the )?divisor", "sign matches divisor"),
    Phrase("remainder", "floored", r"floored", "floored remainder"),
    Phrase("remainder", "truncated", r"sign[- ]of[- ](?:the[- ])?dividend", "sign of the dividend"),
    # "truncat" alone would also match "avoids intermediate truncation" in a multiply's notes,
    # so it only counts next to what it qualifies.
    Phrase("remainder", "truncated", r"truncat\w* (?:mod|remainder|division)",
           "truncated remainder"),
    # sign of zero in extrema and clamp
    Phrase("zeros", "ordered", r"-0(?:\.0)? orders below \+0", "-0 orders below +0"),
    Phrase("zeros", "unordered", r"returns? (?:bitwise )?one of the (?:two )?(?:input )?operands",
           "returns one of the two operands"),
    Phrase("zeros", "unordered", r"comparison[- ]selects?", "two exact comparison-selects"),
    # the start of an extremum fold
    Phrase("init", "identity", r"[-+]inf`? init|inits? to `?[-+]inf", "-inf init"),
    # summation order
    Phrase("order", "fixed", r"fixed (?:left-to-right )?fold(?: order)?|left-to-right fold",
           "fixed fold order"),
    Phrase("order", "free", r"order (?:is )?(?:not (?:guaranteed )?bit-stable|scheduler-determined)"
           r"|scheduler-(?:determined|dependent) order", "accumulation order is scheduler-determined"),
)

@cache
def _compiled() -> tuple[tuple[Phrase, re.Pattern], ...]:
    return tuple((p, re.compile(p.pattern, re.IGNORECASE)) for p in VOCABULARY)


def phrase_rule(key: str, text: str | None) -> tuple[str, str] | None:
    """(value, matched text) of the first vocabulary entry for ``key`` found in ``text``."""
    if not text:
        return None
    for phrase, regex in _compiled():
        if phrase.key != key:
            continue
        match = regex.search(text)
        if match:
            return phrase.value, match.group(0)
    return None


def derive(
    declared: Mapping[str, str] | None,
    blurb: str | None,
    notes: str | None,
    defaults: Mapping[str, str] | None,
) -> Semantics:
    """The four rules with their sources. ``declared`` values are assumed validated;
    ``defaults`` are the OpKind's, None when it has none."""
    rules: dict[str, Rule] = {}
    for key in RULE_KEYS:
        rules[key] = _decide(key, declared or {}, blurb, notes, defaults)
    return Semantics(**rules)


def _decide(key, declared, blurb, notes, defaults) -> Rule:
    if declared.get(key) is not None:
        return Rule(str(declared[key]), "semantics", f"semantics.{key}")
    for source, text in (("blurb", blurb), ("notes", notes)):
        found = phrase_rule(key, text)
        if found is not None:
            return Rule(found[0], source, found[1])
    value = (defaults or {}).get(key)
    if value is not None:
        return Rule(str(value), "default", "oracles default for the OpKind")
    return Rule("unspecified", "unspecified", "")
