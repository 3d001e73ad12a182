"""Fast paths (caps.fast_paths): the audit counts the cases that took each declared path, as the
executor hands the operands to the kernel; a declared path no case took is a warning."""

from __future__ import annotations

from contract_variants import variant

from judge.profiles import get_profile
from judge.runner import Item, run_item

VK = "vulkan-elementwise.fkc.md"
ACCEPTS = "layout: { contiguous: accepted, strided: accepted, broadcast_stride0: accepted,"


def _counts(row) -> dict[str, int]:
    return {k: int(v) for k, v in (part.split("=") for part in row.fast_path_cases.split())}


def test_every_declared_path_is_counted(broken):
    result = run_item(Item(variant(VK, "neg"), broken.MiniCpu(), "F32"), get_profile("ci"))
    counts = _counts(result.row)
    assert set(counts) == {"all_inputs_contiguous", "any_input_strided", "any_input_broadcast"}
    assert all(n > 0 for n in counts.values()), counts
    assert sum(counts.values()) >= result.row.cases  # every call takes one path at least


def test_a_path_the_layout_rejects_is_never_taken(broken):
    """Declared, but the operand rejects stride 0: the executor materialises every broadcast
    operand, so no case reaches the kernel's broadcast path (the report warns)."""
    from judge.reports.html import fast_paths

    contract = variant(VK, "neg", (ACCEPTS, "layout: { contiguous: accepted, strided: accepted, broadcast_stride0: rejected,"))
    row = run_item(Item(contract, broken.MiniCpu(), "F32"), get_profile("ci")).row
    assert _counts(row)["any_input_broadcast"] == 0 and _counts(row)["any_input_strided"] > 0
    assert fast_paths([row])["warnings"] == ["neg [mini-cpu F32]: no case took any_input_broadcast"]
