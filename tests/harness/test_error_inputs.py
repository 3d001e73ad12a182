"""Error inputs (SPEC §4) in the harness: the rules a contract implies and states, one broken
per input, and what counts as a refusal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import judge
from judge.drivers import invalid
from judge.profiles import get_profile
from judge.refusal import refused
from judge.suite import load_paths

SUITE = Path(__file__).resolve().parents[2] / "suites" / "fuel"


def contract(kernel: str):
    loaded = load_paths([SUITE / "data-movement.fkc.md", SUITE / "quant-matmul.fkc.md"])
    return next(c for c in loaded.contracts if c.kernel == kernel)


def test_stated_rules_come_first_and_implicit_ones_fill_in():
    rules = [(r.kind, r.input, r.stated) for r in invalid.rules_of(contract("qmatmul_cpu"))]
    assert rules == [("dtype", "weight", True), ("operand_count", None, False),
                     ("dtype", "activations", False)]
    # concat's inputs take every dtype an error input could carry: no implicit dtype rule
    kinds = [r.kind for r in invalid.rules_of(contract("concat_cpu"))]
    assert kinds == ["param_length", "operand_count"]


def test_each_error_input_breaks_its_rule_and_keeps_the_rest():
    import oracles

    c = contract("index_select_cpu")
    opdef, family = oracles.get(c.op_kind), oracles.family_of(c.op_kind)
    bases = invalid.draw_bases(c, "F32", get_profile("ci"), 7, "k", 6)
    base = next(b for b in bases if b.values[1].size)
    rng = np.random.default_rng(0)
    rules = {r.kind: r for r in invalid.rules_of(c)}
    fewer = invalid.break_case(c, opdef, family, rules["operand_count"], base, 0, rng)
    more = invalid.break_case(c, opdef, family, rules["operand_count"], base, 1, rng)
    assert (len(fewer.case.inputs), len(more.case.inputs)) == (1, 3)
    wrong = invalid.break_case(c, opdef, family, rules["dtype"], base, 0, rng)
    assert wrong.case.inputs[1].dtype != "U32" and wrong.case.inputs[0].dtype == "F32"
    out = invalid.break_case(c, opdef, family, rules["index_range"], base, 0, rng)
    size = base.params["source_dim_size"]
    assert (out.case.values[1] >= size).sum() == 1 and out.case.params == base.params
    np.testing.assert_array_equal(out.case.values[0], base.values[0])


class _Kernel(judge.Backend):
    name, device = "probe", "cpu"

    def __init__(self, how: str) -> None:
        self.how = how

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        if self.how in ("writes then raises", "returns"):
            call.outputs[0].base[...] = 0
        if self.how != "returns":
            raise ValueError("operand count 1, expected 2")
        return None


@pytest.mark.parametrize("how, outcome", [
    ("raises", None),
    ("returns", "returned without an error, and wrote"),
    ("writes then raises", "raised (ValueError: operand count 1, expected 2) but first wrote"),
])
def test_a_refusal_is_an_error_with_nothing_written(how, outcome):
    c = contract("flip_cpu")
    x = judge.TensorArg(np.zeros(4, np.float32), (4,), (1,), 0, "F32")
    found = refused(_Kernel(how), c, (x, x), {}, [(4,)], ["F32"], what="2 operand(s) where it takes 1",
                    shown="  x: F32 shape=[4]")
    if outcome is None:
        assert found == []
    else:
        (f,) = found
        assert f.check == "accepts_invalid" and outcome in f.message and "x: F32 shape=[4]" in f.message


@pytest.mark.parametrize("error_inputs, verdict", [(2, "xfail"), (0, "pass")])
def test_a_known_acceptance_is_judged_only_where_error_inputs_run(error_inputs, verdict):
    """numpy's flip takes an extra operand (a known accepts_invalid): with error inputs it is an
    expected failure; in a run without them the entry is not judged, so it is not stale."""
    from dataclasses import replace

    from judge.expectations import load_expectations
    from judge.registry import default_registry
    from judge.runner import Item, run_item

    numpy = default_registry().load_all().select(("numpy",), isolate=False)[0][0]
    profile = replace(get_profile("dev"), max_examples=5, error_inputs=error_inputs)
    row = run_item(Item(contract("flip_cpu"), numpy, "F32"), profile, seed=0,
                   expectations=load_expectations()).row
    assert row.verdict == verdict, row.reason


def test_the_implied_rules_are_covered_whole_whatever_the_profile():
    """Every wrong dtype once and one operand fewer and one more, at every profile: what ci
    finds, nightly finds too."""
    import oracles

    c = contract("index_select_cpu")
    opdef, family = oracles.get(c.op_kind), oracles.family_of(c.op_kind)
    rules = {r.kind: r for r in invalid.rules_of(c)}
    wrong = invalid.wrong_dtypes(c.inputs[1].dtypes)  # the indices' (the source takes every dtype)
    assert rules["dtype"].input == "indices" and len(wrong) == 8
    for per_rule in (1, 2, 4):
        assert invalid.cases_for(c, rules["dtype"], per_rule) == len(wrong)
        assert invalid.cases_for(c, rules["operand_count"], per_rule) == 2
        assert invalid.cases_for(c, rules["index_range"], per_rule) == per_rule
    base = next(b for b in invalid.draw_bases(c, "F32", get_profile("ci"), 7, "k", 6) if b.values[1].size)
    rng = np.random.default_rng(0)
    made = {invalid.break_case(c, opdef, family, rules["dtype"], base, k, rng).case.inputs[1].dtype
            for k in range(len(wrong))}
    assert made == set(wrong)


@pytest.mark.parametrize("kernel", ["index_select_cpu", "flip_cpu", "concat_cpu"])
def test_the_implied_rules_break_the_same_cases_at_every_profile(monkeypatch, kernel):
    """Whether a kernel accepts an error input can depend on the case it was made from (torch's
    silu reads an extra one-element operand as its inplace flag), so the implied rules' error
    inputs are made from one draw at every profile; a stated rule uses the profile's own."""
    import oracles

    c = contract(kernel)
    made: dict[str, list] = {}

    def record(profile_name):
        def run_error(contract_, backend, error):
            implied = error.rule.kind in invalid.IMPLIED
            made.setdefault(profile_name, []).append(
                (error.how, implied, [np.asarray(v).tobytes() for v in error.case.values] if implied else None))
            return []
        return run_error

    for name in ("dev", "ci", "nightly"):
        monkeypatch.setattr(invalid, "run_error", record(name))
        invalid.judge_errors(c, None, c.dtype_fan[0], oracles.get(c.op_kind), get_profile(name), 0, "k", {}, {})
    implied = {name: [m for m in cases if m[1]] for name, cases in made.items()}
    assert implied["ci"] and implied["dev"] == implied["ci"] == implied["nightly"]
