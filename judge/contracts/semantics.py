"""Derived semantics (SPEC §4): NaN rule, tie rule, rounding and remainder convention, and the
edge rules (sign of zero in extrema and clamp, the start of an extremum fold, summation order).

Each rule is decided, in this order, by the block's ``semantics:`` mapping, a recognised phrase
in ``blurb``, then in ``precision.notes``, then the OpKind's default (handed in by the caller:
``judge.suite`` joins in the oracle's; this package never imports ``oracles``); else it is
``unspecified``. The phrase vocabulary is data (``vocabulary.toml``): one entry per phrase, tried
in file order, so a more specific phrase is listed before a more general one (relu's "NaN > 0 is false"
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


@cache
def vocabulary() -> tuple[Phrase, ...]:
    """The phrase vocabulary (``vocabulary.toml`` beside this module), in the order it is tried."""
    return tuple(Phrase(**entry) for entry in vocabulary_file()["phrase"])


@cache
def vocabulary_file() -> dict:
    """``vocabulary.toml``: the phrases of semantic rules and the cost classes."""
    import tomllib
    from importlib.resources import files

    return tomllib.loads(files("judge.contracts").joinpath("vocabulary.toml").read_text())

@cache
def _compiled() -> tuple[tuple[Phrase, re.Pattern], ...]:
    return tuple((p, re.compile(p.pattern, re.IGNORECASE)) for p in vocabulary())


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
