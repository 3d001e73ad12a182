"""Nondeterminism, measured (SPEC §4): a nondeterministic contract runs the profile's repeats of
each case, every repeat held to the bound, and their spread is a column; a contract that
promises the same bits fails the determinism check on the same backend."""

from __future__ import annotations

from contract_variants import variant

from judge.profiles import get_profile
from judge.runner import Item, run_item

REF = "reference-elementwise.fkc.md"
DETERMINISTIC = "determinism: same_hardware_bitwise"
BIT_STABLE = "bit_stable_on_same_hardware: true"


def _add(determinism: str):
    return variant(REF, "add", ("max_ulp: 0", "max_ulp: 1"),
                   (BIT_STABLE, f"bit_stable_on_same_hardware: {determinism != 'nondeterministic'}".lower()),
                   (DETERMINISTIC, f"determinism: {determinism}"))


def test_one_ulp_between_repeats_passes_a_nondeterministic_contract_with_spread_one(broken):
    result = run_item(Item(_add("nondeterministic"), broken.RepeatsOneUlp(), "F32"), get_profile("ci"))
    row = result.row
    assert row.verdict == "pass", result.message
    assert row.repeat_spread_ulp == 1
    assert row.repeat_spread_elements > 0
    assert row.nondeterministic_runs > 0


def test_the_same_backend_fails_a_deterministic_contract(broken):
    result = run_item(Item(_add("same_hardware_bitwise"), broken.RepeatsOneUlp(), "F32"), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail" and row.reason.startswith("determinism:"), row.reason
    assert row.repeat_spread_ulp == 1


def test_every_repeat_is_held_to_the_bound(broken):
    """max_ulp 0: the first run is correctly rounded, a repeat one ulp off breaks the bound."""
    contract = variant(REF, "add", ("bit_stable_on_same_hardware: true", "bit_stable_on_same_hardware: false"),
                       (DETERMINISTIC, "determinism: nondeterministic"))
    broken.RepeatsOneUlp.calls = 0  # the first run of the first case is the correct one
    result = run_item(Item(contract, broken.RepeatsOneUlp(), "F32"), get_profile("ci"))
    assert result.row.verdict == "fail" and result.row.reason.startswith("ulp:"), result.row.reason
    assert "in a repeat run" in result.message


def test_a_steady_backend_has_no_spread(broken):
    result = run_item(Item(_add("nondeterministic"), broken.MiniCpu(), "F32"), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.repeat_spread_ulp == 0 and result.row.repeat_spread_elements == 0


def test_the_profile_sets_the_number_of_runs():
    """ci runs a nondeterministic case 3 times, nightly 5: the backend sees that many calls."""
    from judge.drivers.search import repeats_for

    contract = _add("nondeterministic")
    assert [1 + repeats_for(contract, get_profile(p)) for p in ("ci", "nightly")] == [3, 5]
    assert 1 + repeats_for(_add("same_hardware_bitwise"), get_profile("nightly")) == 2
