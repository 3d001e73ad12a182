"""The phrase vocabularies: derived semantics, op-param constraints and cost expressions."""

from __future__ import annotations

import pytest

from judge.contracts import cost
from judge.contracts.model import SEMANTIC_VALUES
from judge.contracts.params import VOCABULARY as CONSTRAINTS
from judge.contracts.params import parse_constraint
from judge.contracts.semantics import derive, phrase_rule, vocabulary


@pytest.mark.parametrize("phrase", vocabulary(), ids=lambda p: f"{p.key}-{p.example}")
def test_every_semantic_phrase_is_recognised(phrase):
    assert phrase.value in SEMANTIC_VALUES[phrase.key]
    text = f"Some prose; {phrase.example}; more prose."
    assert phrase_rule(phrase.key, text)[0] == phrase.value


def test_order_semantics_then_blurb_then_notes_then_default():
    defaults = {"nan": "propagate", "ties": "first_index"}
    rules = derive({"nan": "to_zero"}, "NaN-as-missing", "NaN-propagating", defaults)
    assert (rules.nan.value, rules.nan.source) == ("to_zero", "semantics")
    rules = derive({}, "max, NaN-as-missing", "NaN-propagating", defaults)
    assert (rules.nan.value, rules.nan.source, rules.nan.evidence) == (
        "ignore", "blurb", "NaN-as-missing")
    rules = derive({}, "max", "NaN-propagating (torch parity)", defaults)
    assert (rules.nan.value, rules.nan.source) == ("propagate", "notes")
    rules = derive({}, "max", "exact", defaults)
    assert (rules.nan.value, rules.nan.source) == ("propagate", "default")
    assert (rules.ties.value, rules.ties.source) == ("first_index", "default")
    assert (rules.remainder.value, rules.remainder.source) == ("unspecified", "unspecified")


def test_corrected_note_keeps_the_current_claim():
    note = ("NaN-propagating (torch parity) - NaN if either operand is NaN. Corrected: this note "
            "previously said NaN-as-missing.")
    assert derive({}, None, note, None).nan.value == "propagate"


def test_truncation_in_a_multiply_note_is_not_a_remainder_rule():
    note = "bf16/f16 widen to f32 then narrow (avoids intermediate truncation)."
    assert derive({}, None, note, None).remainder.value == "unspecified"
    assert phrase_rule("remainder", "C-style truncated remainder") == ("truncated",
                                                                       "truncated remainder")


def test_relu_nan_rule_comes_from_its_comparison():
    note = "Exact select: passes x or +0.0. NaN passes through (NaN > 0 is false => returns 0)."
    assert derive({}, None, note, None).nan.value == "to_zero"


def test_oracle_defaults_come_from_the_oracle_table():
    from judge.suite import load_text, opkind_defaults

    assert opkind_defaults("NoSuchOpKind") is None
    assert opkind_defaults("ArgMaxDim") == {"nan": "ignore", "ties": "first_index"}
    text = ("```fkc\nkernel: argmax\nregistrable: false\nop_kind: ArgMaxDim\nbackend: Cpu\n"
            "blurb: argmax\n```\n")
    (contract,) = load_text(text, "argmax.fkc.md").contracts
    assert (contract.semantics.ties.value, contract.semantics.ties.source) == ("first_index",
                                                                              "default")


@pytest.mark.parametrize("entry", CONSTRAINTS, ids=lambda e: e.kind)
def test_every_constraint_phrase_is_recognised(entry):
    assert parse_constraint(entry.example).kind == entry.kind


def test_constraint_values_and_parts():
    assert parse_constraint("== 1.0").value == 1.0
    assert parse_constraint(">= min").value == "min"
    assert parse_constraint("product == input.elem_count").value == "input"
    both = parse_constraint("product == upstream.elem_count; left-pad-1 to input rank; "
                            "each axis == input size OR 1")
    assert both.kind == "all"
    assert [p.kind for p in both.each()] == ["product_eq_elem_count", "left_pad_broadcast"]
    chain = parse_constraint("product == x.elem_count == out.elem_count")
    assert [(p.kind, p.value) for p in chain.each()] == [("product_eq_elem_count", "x"),
                                                          ("product_eq_elem_count", "out")]
    assert parse_constraint("positive, please").kind == "unknown"
    mixed = parse_constraint("== 2; prime")
    assert [p.kind for p in mixed.each()] == ["eq", "unknown"]


@pytest.mark.parametrize("text, value", [
    ("n", 10), ("2 * n", 20), ("(n_in + n_out) * dtype_bytes", 48),
    ("n + 3 * n * dtype_bytes", 130),
    ("n_in * dtype_bytes + n_out * 4", 48), ("-n + 2", -8), ("n / 4", 2.5), ("1.5e1", 15.0),
    ("in_elems - out_elems", 1),
])
def test_cost_expressions(text, value):
    env = dict(n=10, n_in=10, n_out=2, dtype_bytes=4, in_elems=3, out_elems=2)
    assert cost.evaluate(text, **env) == value
    assert cost.evaluate(cost.parse(text), **env) == value


@pytest.mark.parametrize("text", ["n **", "__import__('os')", "n ** 2", "(n", "n)", "", "m * 2",
                                  "n; 1"])
def test_bad_cost_expressions(text):
    with pytest.raises(cost.CostSyntaxError):
        cost.parse(text)


def test_cost_variable_without_a_value():
    with pytest.raises(KeyError, match="n_out"):
        cost.evaluate("n_in + n_out", n_in=1)
