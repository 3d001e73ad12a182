"""Batch and position invariance (SPEC §4): a row's output bits computed alone, in the batch,
at another position and in a larger batch. Reported for every row whose family stacks rows;
a check that fails where the contract declares ``precision.batch_invariant: true``."""

from __future__ import annotations

from contract_variants import variant

from judge.profiles import get_profile
from judge.runner import Item, run_item

RED = "reduce.fkc.md"
AUDITED = "audited: false"


def _sum(declared: bool | None):
    edits = [] if declared is None else [(AUDITED, f"{AUDITED}\n  batch_invariant: {str(declared).lower()}")]
    return variant(RED, "sum_reduce_cpu", *edits)


def test_a_backend_that_sums_larger_batches_in_another_order_is_not_invariant(broken):
    result = run_item(Item(_sum(None), broken.BatchOrderSum(), "F32"), get_profile("ci"))
    row = result.row
    assert row.verdict == "pass", result.message  # reported, not failed: nothing is declared
    assert row.batch_invariance.startswith("varies: "), row.batch_invariance
    assert "in a larger batch" in row.batch_invariance
    case_id = row.batch_invariance.rsplit("(case ", 1)[1].rstrip(")")
    assert case_id in {c.case_id for c in result.extra_cases}  # saved, for the report and repro


def test_it_fails_a_contract_that_declares_invariance(broken):
    result = run_item(Item(_sum(True), broken.BatchOrderSum(), "F32"), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail" and row.reason.startswith("batch_invariant:"), row.reason
    assert "minimal counterexample" in result.message and result.case is not None


def test_a_backend_that_keeps_its_order_is_invariant(broken):
    result = run_item(Item(_sum(True), broken.SequentialSum(), "F32"), get_profile("ci"))
    row = result.row
    assert row.verdict == "pass", result.message
    assert row.batch_invariance.startswith("invariant ("), row.batch_invariance


def test_numpys_sum_over_several_axes_is_not_batch_invariant(broken):
    """numpy.sum over axes (0, 2) of a [3, k, 5, 1] input blocks its pairwise sums by the
    layout, so a row's sum changes with the rows beside it: a real batch dependence (MiniCpu
    sums with numpy.sum)."""
    result = run_item(Item(_sum(None), broken.MiniCpu(), "F32"), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.batch_invariance.startswith("varies: "), result.row.batch_invariance


def test_a_family_without_rows_reports_nothing(broken, suite):
    result = run_item(Item(suite("reference-elementwise.fkc.md", "neg"), broken.MiniCpu(), "F32"),
                      get_profile("ci"))
    assert result.row.batch_invariance == ""


def test_the_declaration_parses_lints_and_shows():
    from judge.contracts.describe import describe

    assert _sum(True).precision.batch_invariant is True
    assert _sum(None).precision.batch_invariant is None
    assert "batch_invariant: true" in describe(_sum(True))
    from contract_variants import variant_text

    from judge.suite import load_text

    bad = load_text(variant_text(RED, "sum_reduce_cpu", (AUDITED, f"{AUDITED}\n  batch_invariant: 3")), "x.fkc.md")
    assert any("batch_invariant" in str(e) for e in bad.errors)
    noisy = load_text(variant_text(RED, "sum_reduce_vulkan", (AUDITED.replace("false", "true"),
                                                             "audited: true\n  batch_invariant: true")), "x.fkc.md")
    assert any("batch_invariant" in str(w) for w in noisy.warnings), noisy.warnings
