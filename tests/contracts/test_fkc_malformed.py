"""Malformed contracts: each gives a ContractError naming the exact file:line, kernel and field."""

from __future__ import annotations

import pytest
from fkc_testing import ADD, REDUCE, fkc_file

from judge.contracts import ContractError, loader
from judge.suite import load_text

FILE = "reduce.fkc.md"


def load(*blocks: str, front: str = ""):
    return loader.load_text(fkc_file(*blocks, front=front), FILE, defaults_for=lambda op_kind: {})


def mutate(block: str, old: str, new: str) -> str:
    assert block.count(old) == 1, f"{old!r} must occur once"
    return block.replace(old, new)


def line_of(text: str, needle: str, nth: int = 1) -> int:
    hits = [i + 1 for i, line in enumerate(text.splitlines()) if needle in line]
    return hits[nth - 1]


def only_error(result) -> ContractError:
    assert len(result.errors) == 1, [str(e) for e in result.errors]
    return result.errors[0]


def check(block: str, needle: str, field: str, message: str, kernel: str = "sum_reduce_cpu",
          nth: int = 1) -> ContractError:
    """The block fails to load with exactly one error at the line holding ``needle``."""
    result = load(block)
    error = only_error(result)
    line = line_of(fkc_file(block), needle, nth)
    assert (error.file, error.line, error.kernel, error.field) == (FILE, line, kernel, field)
    assert message in error.message
    assert str(error) == f"{FILE}:{line} {kernel} {field}: {error.message}"
    assert result.contracts == []  # never half-parsed
    return error


def test_good_blocks_load():
    result = load(REDUCE, ADD)
    assert result.errors == [] and result.warnings == []
    assert [c.kernel for c in result.contracts] == ["sum_reduce_cpu", "add_cpu"]


def test_bad_rank_message_matches_the_spec():
    error = check(mutate(REDUCE, "rank: any", "rank: 2..4"), "rank: 2..4",
                  "accept.inputs[0].rank", "")
    line = line_of(fkc_file(mutate(REDUCE, "rank: any", "rank: 2..4")), "rank: 2..4")
    assert str(error) == (f"reduce.fkc.md:{line} sum_reduce_cpu accept.inputs[0].rank: "
                          "'2..4' is not a rank (use any, N or A..=B)")


def test_negative_max_ulp():
    check(mutate(REDUCE, "max_ulp: ~", "max_ulp: -1"), "max_ulp: -1", "precision.max_ulp",
          "negative")


def test_unknown_dtype():
    check(mutate(REDUCE, "dtypes: [F32, F64]", "dtypes: [F32, F8]"), "dtypes: [F32, F8]",
          "accept.inputs[0].dtypes[1]", "unknown dtype 'F8'")


def test_bad_layout_value():
    check(mutate(REDUCE, "strided: rejected,", "strided: maybe,"), "strided: maybe",
          "accept.inputs[0].layout.strided", "'maybe' is not a strided value")


def test_contiguous_cannot_be_rejected():
    check(mutate(REDUCE, "contiguous: required", "contiguous: rejected"), "contiguous: rejected",
          "accept.inputs[0].layout.contiguous", "use required or accepted")


def test_missing_layout_flag():
    check(mutate(REDUCE, " reverse_strides: rejected", ""), "layout:",
          "accept.inputs[0].layout.reverse_strides", "missing layout flag")


def test_missing_accept():
    block = REDUCE.split("accept:")[0] + "return:" + REDUCE.split("return:")[1]
    check(block, "kernel: sum_reduce_cpu", "accept", "missing section")


def test_missing_return():
    block = REDUCE.split("return:")[0] + "cost:" + REDUCE.split("cost:")[1]
    check(block, "kernel: sum_reduce_cpu", "return", "missing section")


def test_same_as_unknown_operand():
    block = mutate(ADD, "shape_constraint: broadcast_to=lhs", "shape_constraint: same_as=bias")
    check(block, "same_as=bias", "accept.inputs[1].shape_constraint",
          "same_as=bias names an unknown operand", kernel="add_cpu")


def test_broadcast_to_unknown_operand():
    block = mutate(ADD, "shape_constraint: broadcast_to=rhs", "shape_constraint: broadcast_to=x")
    check(block, "broadcast_to=x", "accept.inputs[0].shape_constraint",
          "broadcast_to=x names an unknown operand", kernel="add_cpu")


def test_shape_constraint_may_name_an_output_or_op_param():
    block = mutate(ADD, "shape_constraint: broadcast_to=rhs", "shape_constraint: broadcast_to=out")
    (contract,) = load(block).contracts
    assert contract.inputs[0].shape_constraint.ref == "out"
    red = mutate(REDUCE, "rank: any", "rank: any\nshape_constraint: \"same_as=out_shape\"")
    red = mutate(red, "dims: {", "output_shape: { kind: \"Vec<usize>\" }\ndims: {")
    (contract,) = load(red).contracts
    assert contract.inputs[0].shape_constraint.ref == "output_shape"


def test_dtype_rule_unknown_operand():
    check(mutate(REDUCE, "passthrough(input)", "passthrough(x)"), "passthrough(x)",
          "return.outputs[0].dtype_rule", "passthrough(x) names an unknown operand")


def test_fixed_dtype_rule_unknown_dtype():
    check(mutate(REDUCE, "passthrough(input)", "fixed(U16)"), "fixed(U16)",
          "return.outputs[0].dtype_rule", "unknown dtype")


def test_shape_rule_unknown_operand():
    check(mutate(REDUCE, "reduce(input, dims, keepdim)", "reduce(x, dims, keepdim)"),
          "reduce(x, dims", "return.outputs[0].shape_rule", "unknown operand 'x'")


def test_duplicate_kernel_name_in_one_file():
    result = load(REDUCE, ADD, REDUCE)
    error = only_error(result)
    text = fkc_file(REDUCE, ADD, REDUCE)
    assert (error.line, error.kernel, error.field) == (
        line_of(text, "kernel: sum_reduce_cpu", 2), "sum_reduce_cpu", "kernel")
    assert "duplicate kernel name" in error.message
    assert [c.kernel for c in result.contracts] == ["sum_reduce_cpu", "add_cpu"]


def test_unterminated_fence():
    text = fkc_file(ADD) + "\n## broken\n```fkc\n" + REDUCE.strip() + "\n"
    result = load_text(text, FILE)
    error = only_error(result)
    assert (error.line, error.kernel, error.field) == (line_of(text, "```fkc", 2),
                                                       "sum_reduce_cpu", "fence")
    assert "never closed" in error.message
    assert [c.kernel for c in result.contracts] == ["add_cpu"]


def test_bad_yaml():
    check(mutate(REDUCE, "dtypes: [F32, F64]", "dtypes: [F32, F64"), "dtypes: [F32, F64",
          "accept.inputs[0].dtypes", "bad YAML")


def test_block_half_indented_half_flattened():
    block = mutate(REDUCE, "accept:\ninputs:\n- name: input\n",
                   "accept:\n  inputs:\n  - name: input\n")
    check(block, "dtypes: [F32, F64]", "accept.inputs[0].dtypes",
          "mixes the indented and the flattened spelling")


def test_duplicate_key_in_flattened_block():
    check(mutate(REDUCE, "rank: any", "rank: any\nrank: 2"), "rank: 2",
          "accept.inputs[0].rank", "duplicate key 'rank'")


def test_duplicate_key_inside_a_flow_mapping():
    check(mutate(REDUCE, "keepdim: { kind: bool }", "keepdim: { kind: bool, kind: u32 }"),
          "keepdim: {", "accept.op_params.fields.keepdim", "duplicate key 'kind'")


def test_bad_determinism():
    check(mutate(REDUCE, "determinism: same_hardware_bitwise", "determinism: mostly"),
          "determinism: mostly", "determinism", "'mostly' is not a determinism claim")


def test_bad_cost_expression_never_evaluated():
    check(mutate(REDUCE, 'flops: "n_in"', 'flops: "__import__(\'os\')"'), "flops:",
          "cost.flops", "unknown variable '__import__'")


def test_bad_semantics_value():
    block = REDUCE + "semantics:\nnan: sometimes\n"
    check(block, "nan: sometimes", "semantics.nan", "'sometimes' is not a nan rule")


def test_missing_backend_without_provider_default():
    check(mutate(REDUCE, "backend: Cpu\n", ""), "kernel: sum_reduce_cpu", "backend", "missing")


def test_bad_backend():
    check(mutate(REDUCE, "backend: Cpu", "backend: Tpu"), "backend: Tpu", "backend",
          "'Tpu' is not a backend")


def test_registrable_block_needs_an_op_kind():
    check(mutate(REDUCE, "op_kind: SumReduce\n", ""), "kernel: sum_reduce_cpu", "op_kind",
          "missing")


def test_inconsistent_indentation():
    block = "kernel: k\nop_kind: SumReduce\naccept:\n  inputs:\n    - name: input\n   bad: 1\n"
    result = load(block)
    error = only_error(result)
    assert (error.line, error.kernel) == (line_of(fkc_file(block), "bad: 1"), "k")
    assert "column" in error.message


def test_one_bad_block_does_not_hide_the_others():
    bad_rank = mutate(REDUCE, "rank: any", "rank: 2..4")
    bad_add = mutate(ADD, "dtypes: [F32]", "dtypes: [F31]", ) if ADD.count("dtypes: [F32]") == 1 \
        else ADD.replace("dtypes: [F32]", "dtypes: [F31]", 1)
    good = mutate(REDUCE, "kernel: sum_reduce_cpu", "kernel: sum_reduce_good")
    result = load(bad_rank, bad_add, good)
    text = fkc_file(bad_rank, bad_add, good)
    found = [(e.line, e.kernel, e.field) for e in result.errors]
    assert found == [
        (line_of(text, "rank: 2..4"), "sum_reduce_cpu", "accept.inputs[0].rank"),
        (line_of(text, "dtypes: [F31]"), "add_cpu", "accept.inputs[0].dtypes[0]"),
    ]
    assert [c.kernel for c in result.contracts] == ["sum_reduce_good"]
    assert result.blocks == 3


def test_all_errors_of_one_block_are_reported():
    block = mutate(mutate(REDUCE, "rank: any", "rank: 2..4"), "max_ulp: ~", "max_ulp: -3")
    result = load(block)
    assert [e.field for e in result.errors] == ["accept.inputs[0].rank", "precision.max_ulp"]


# -- warnings: the block still loads -------------------------------------------------------------


def only_warning(result):
    assert result.errors == [], [str(e) for e in result.errors]
    assert len(result.warnings) == 1, [str(w) for w in result.warnings]
    return result.warnings[0]


def test_unknown_key_is_a_warning():
    block = mutate(REDUCE, "layout_guarantee: contiguous", "layout_guarantee: contiguous\n"
                                                           "colour: blue")
    result = load(block)
    warning = only_warning(result)
    assert (warning.line, warning.field) == (line_of(fkc_file(block), "colour: blue"),
                                             "return.outputs[0].colour")
    assert "unknown key 'colour'" in warning.message
    assert result.contracts[0].tree["return"]["outputs"][0]["colour"] == "blue"


def test_bit_stable_disagreeing_with_determinism_warns_and_determinism_wins():
    block = mutate(REDUCE, "determinism: same_hardware_bitwise", "determinism: nondeterministic")
    result = load(block)
    warning = only_warning(result)
    assert (warning.line, warning.field) == (
        line_of(fkc_file(block), "bit_stable_on_same_hardware"),
        "precision.bit_stable_on_same_hardware")
    assert result.contracts[0].determinism == "nondeterministic"


def test_unknown_param_constraint_warns():
    block = mutate(REDUCE, "keepdim: { kind: bool }",
                   'keepdim: { kind: bool, constraint: "only on Tuesdays" }')
    result = load(block)
    warning = only_warning(result)
    assert (warning.line, warning.field) == (line_of(fkc_file(block), "only on Tuesdays"),
                                             "accept.op_params.fields.keepdim.constraint")
    field = result.contracts[0].op_params.field("keepdim")
    assert (field.constraint.kind, field.constraint.text) == ("unknown", "only on Tuesdays")


@pytest.mark.parametrize("rank, expected", [("any", (0, None)), ("3", (3, 3)),
                                            ("2..=4", (2, 4)), ("0..=0", (0, 0))])
def test_rank_forms(rank, expected):
    (contract,) = load(mutate(REDUCE, "rank: any", f"rank: {rank}")).contracts
    assert (contract.inputs[0].rank.lo, contract.inputs[0].rank.hi) == expected


@pytest.mark.parametrize("rank", ["2..4", "4..=2", "-1", "some", "2..="])
def test_bad_rank_forms(rank):
    result = load(mutate(REDUCE, "rank: any", f"rank: {rank}"))
    assert [e.field for e in result.errors] == ["accept.inputs[0].rank"]


def test_caps_in_place_without_an_aliased_output_warns():
    block = mutate(REDUCE, "cost:", "caps:\nin_place: true\ncost:")
    warning = only_warning(load(block))
    assert (warning.line, warning.field) == (line_of(fkc_file(block), "in_place: true"),
                                             "caps.in_place")


def test_bad_front_matter_is_a_file_error_and_blocks_still_load():
    result = load(ADD, front="fkc_version: 1\nprovider:\nbackend: [Cpu")
    error = only_error(result)
    assert (error.line, error.kernel, error.field) == (4, None, "front matter.provider.backend")
    assert "bad YAML" in error.message
    assert [c.kernel for c in result.contracts] == ["add_cpu"]


def test_unclosed_front_matter():
    result = load_text("---\nfkc_version: 1\n# no closing line\n", FILE)
    error = only_error(result)
    assert (error.line, error.field) == (1, "front matter")
    assert "never closed" in error.message


def test_provider_defaults_fill_backend_and_source():
    block = mutate(ADD, "backend: Cpu\n", "")
    result = load(block, front="provider:\nbackend: Cuda\nkernel_source: \"baracuda\"")
    (contract,) = result.contracts
    assert (contract.backend, contract.kernel_source, contract.device) == ("Cuda", "baracuda",
                                                                            "cuda")
    assert contract.tree["backend"] == "Cuda"


def test_block_mapping_on_the_key_line_is_bad_yaml():
    check(mutate(REDUCE, "- name: out", "- name: out: x"), "- name: out: x",
          "return.outputs[0].name", "bad YAML")


def test_collection_as_a_mapping_key_is_bad_yaml():
    check(mutate(REDUCE, "dtypes: [F32, F64]", "dtypes: {[F32]: 1}"), "dtypes: {[F32]",
          "accept.inputs[0].dtypes", "bad YAML")


def test_op_kind_without_an_oracle_definition_warns():
    block = mutate(REDUCE, "op_kind: SumReduce", "op_kind: SumReduse")
    result = loader.load_text(fkc_file(block), FILE, defaults_for=lambda op_kind: None)
    warning = only_warning(result)
    assert (warning.line, warning.field) == (line_of(fkc_file(block), "op_kind: SumReduse"),
                                             "op_kind")
    assert "no definition for OpKind 'SumReduse'" in warning.message


def test_unknown_param_kind_warns():
    block = mutate(REDUCE, "keepdim: { kind: bool }", "keepdim: { kind: boolean }")
    warning = only_warning(load(block))
    assert (warning.line, warning.field) == (line_of(fkc_file(block), "kind: boolean"),
                                             "accept.op_params.fields.keepdim.kind")


def test_unknown_fkc_version_warns():
    warning = only_warning(load(ADD, front="fkc_version: 7"))
    assert (warning.line, warning.field) == (2, "fkc_version")


def test_duplicate_kernel_name_after_a_broken_block():
    broken = mutate(REDUCE, "rank: any", "rank: 2..4")
    result = load(broken, REDUCE)
    text = fkc_file(broken, REDUCE)
    assert [(e.line, e.field) for e in result.errors] == [
        (line_of(text, "rank: 2..4"), "accept.inputs[0].rank"),
        (line_of(text, "kernel: sum_reduce_cpu", 2), "kernel"),
    ]
    assert result.contracts == []


def test_errors_survive_pickling_for_xdist_workers():
    import pickle

    error = only_error(load(mutate(REDUCE, "rank: any", "rank: 2..4")))
    again = pickle.loads(pickle.dumps(error))
    assert (again.file, again.line, again.kernel, again.field, again.message) == (
        error.file, error.line, error.kernel, error.field, error.message)
    assert str(again) == str(error)
