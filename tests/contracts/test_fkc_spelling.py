"""The indented and the flattened spelling of one block give one tree (SPEC §3)."""

from __future__ import annotations

import yaml
from fkc_testing import fkc_file

from judge.contracts import loader
from judge.contracts.describe import tree_json
from judge.suite import load_text

FRONT = """
fkc_version: 1
provider:
name: fuel-dispatch
backend: Cpu # default backend
kernel_source: "portable-cpu"
revision_base: "git:0000"
"""

FLAT = """
kernel: reduce_sum_to_cpu
op_kind: ReduceSumTo
blurb: "Sum to a broadcast target."
entry_point: "x::y" # comment after a value
kernel_revision_hash: auto
accept:
inputs:
- name: input # the only input
dtypes: [F32, BF16]
layout: { contiguous: required, strided: rejected, broadcast_stride0: rejected, start_offset: rejected, reverse_strides: rejected }
rank: any
op_params:
variant: ReduceSumTo
fields:
input_shape: { kind: "Vec<usize>", constraint: "product == input.elem_count" }
output_shape: { kind: "Vec<usize>", constraint: "left-pad-1 to input rank; each axis == input size OR 1" }
return:
outputs:
- name: out
dtype_rule: passthrough(input)
shape_rule: reduce(input, output_shape, keepdim)
layout_guarantee: contiguous
aliasing: none
caps:
awkward_layout_strategy: requires_contiguous
fast_paths:
- { when: "all_inputs_contiguous", class: reduction }
in_place: false
cost:
provenance: judge_measured
class: reduction
flops: "in_elems"
overhead_ns: ~
memory: { device_bytes: 0, host_bytes: "n", disk_bytes: 0 }
precision:
bit_stable_on_same_hardware: true
max_ulp: ~
notes: "half accumulates in f32 then narrows on store."
determinism: same_hardware_bitwise
semantics:
nan: propagate
"""

INDENTED = """
# The same contract, written as properly indented YAML.
kernel: reduce_sum_to_cpu
op_kind: ReduceSumTo
blurb: "Sum to a broadcast target."
entry_point: x::y
kernel_revision_hash: auto
accept:
  inputs:
    - name: input
      dtypes:
        - F32
        - BF16
      layout:
        contiguous: required
        strided: rejected
        broadcast_stride0: rejected
        start_offset: rejected
        reverse_strides: rejected   # nothing awkward
      rank: any
  op_params:
    variant: ReduceSumTo
    fields:
      input_shape:
        kind: "Vec<usize>"
        constraint: "product == input.elem_count"
      output_shape: { kind: "Vec<usize>",
                      constraint: "left-pad-1 to input rank; each axis == input size OR 1" }
return:
  outputs:
  - name: out
    dtype_rule: passthrough(input)
    shape_rule: reduce(input, output_shape, keepdim)
    layout_guarantee: contiguous
    aliasing: none

caps:
  awkward_layout_strategy: requires_contiguous
  fast_paths:
    - when: all_inputs_contiguous
      class: reduction
  in_place: false
cost:
  provenance: judge_measured
  class: reduction
  flops: in_elems
  overhead_ns:
  memory:
    device_bytes: 0
    host_bytes: n
    disk_bytes: 0
precision:
  bit_stable_on_same_hardware: true
  max_ulp: ~
  notes: >
    half accumulates in f32
    then narrows on store.
determinism: same_hardware_bitwise
semantics: { nan: propagate }
"""

INDENTED_FRONT = """
fkc_version: 1
provider:
  name: fuel-dispatch
  backend: Cpu
  kernel_source: portable-cpu
  revision_base: "git:0000"
"""


def load_one(block: str, front: str):
    result = loader.load_text(fkc_file(block, front=front), "sum.fkc.md", defaults_for=lambda op_kind: {})
    assert result.errors == [] and result.warnings == [], [str(e) for e in result.errors]
    (contract,) = result.contracts
    return contract


def test_both_spellings_give_one_tree_and_one_revision():
    flat = load_one(FLAT, FRONT)
    indented = load_one(INDENTED, INDENTED_FRONT)
    assert (flat.spelling, indented.spelling) == ("flattened", "indented")
    assert tree_json(flat) == tree_json(indented)
    assert flat.revision == indented.revision
    assert flat.tree["backend"] == "Cpu" and flat.tree["kernel_source"] == "portable-cpu"
    assert flat.precision.notes == "half accumulates in f32 then narrows on store."
    assert flat.semantics.nan.source == indented.semantics.nan.source == "semantics"


def test_plain_yaml_would_lose_data_in_the_flattened_spelling():
    """Why the loader never hands a flattened block to a YAML parser whole."""
    plain = yaml.safe_load(FLAT)
    # Nesting is lost: accept is empty, the input is a bare name, its dtypes sit at the top.
    assert plain["accept"] is None and plain["inputs"] == [{"name": "input"}]
    assert plain["dtypes"] == ["F32", "BF16"]
    flat = load_one(FLAT, FRONT)
    assert flat.inputs[0].name == "input" and flat.op_params.variant == "ReduceSumTo"


def test_revision_changes_with_content_and_revision_base():
    base = load_one(FLAT, FRONT).revision
    assert load_one(FLAT.replace("[F32, BF16]", "[F32]"), FRONT).revision != base
    assert load_one(FLAT, FRONT.replace("git:0000", "git:0001")).revision != base
    assert load_one(FLAT.replace("# comment after a value", ""), FRONT).revision == base


def test_block_indented_as_a_whole_is_fine():
    shifted = "\n".join("    " + line if line else line for line in INDENTED.splitlines())
    assert tree_json(load_one(shifted, INDENTED_FRONT)) == tree_json(load_one(FLAT, FRONT))


def test_explicit_revision_hash_is_kept():
    contract = load_one(FLAT.replace("kernel_revision_hash: auto", "kernel_revision_hash: abc1"),
                        FRONT)
    assert contract.revision == "abc1"


def test_describe_only_block_may_lack_op_kind_and_clauses():
    block = "kernel: chassis\nregistrable: false # describe-only\nop_kind: ~\nblurb: \"A selector.\""
    contract = load_one(block, FRONT)
    assert contract.registrable is False and contract.describe_only
    assert contract.op_kind is None and contract.inputs == () and contract.outputs == ()
    assert contract.backend == "Cpu"  # from the front matter


def test_location_and_suite():
    result = load_text(fkc_file(FLAT, front=FRONT), "suites/fuel/sum.fkc.md", suite="suites/fuel")
    (contract,) = result.contracts
    assert contract.file == "suites/fuel/sum.fkc.md" and contract.suite == "suites/fuel"
    assert contract.test_id == "suites/fuel/sum.fkc.md::reduce_sum_to_cpu"
    text = fkc_file(FLAT, front=FRONT).splitlines()
    assert text[contract.location.line - 1] == "kernel: reduce_sum_to_cpu"
    assert contract.section == "block 0"


def test_contracts_hash_and_pickle():
    import pickle

    contract = load_one(FLAT, FRONT)
    again = pickle.loads(pickle.dumps(contract))
    assert again == contract and hash(again) == hash(contract)
    assert len({contract, again}) == 1
