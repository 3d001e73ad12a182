"""The seed contracts load with zero errors, and both spellings of every block agree."""

from __future__ import annotations

import dataclasses
import re

from click.testing import CliRunner
from fkc_testing import fkc_file, indented_lines, seeds_dir

from judge.cli import main
from judge.contracts.blocktree import parse_block
from judge.contracts.describe import tree_json
from judge.contracts.markdown import split_markdown
from judge.contracts.schema import BLOCK
from judge.suite import load_paths, load_text

_KEY_LINE = re.compile(r"^(- )?[A-Za-z_]\w*:")


def test_seed_counts():
    result = load_paths([seeds_dir()])
    assert result.errors == []
    assert result.blocks == 131
    assert len(result.contracts) == 131
    assert len(result.registrable) == 128
    assert sorted(c.kernel for c in result.describe_only) == ["add_assign_scaled", "binary",
                                                              "unary"]
    assert len(result.files) == 4  # dispatch-inventory.md is prose, not a contract file
    assert all(c.spelling == "flattened" for c in result.contracts)


def test_lint_cli_on_seeds():
    run = CliRunner().invoke(main, ["lint", str(seeds_dir())])
    assert run.exit_code == 0, run.output
    last = run.output.strip().splitlines()[-1]
    assert re.fullmatch(r"131 blocks \(128 registrable, 3 describe-only\) in 4 files: "
                        r"0 errors, \d+ warnings", last), last


def test_every_key_line_lands_in_the_tree():
    """No source line is dropped: each key line of a seed block is a key (or item) of the tree."""
    for path in sorted(seeds_dir().glob("*.fkc.md")):
        raw = split_markdown(path.read_text(), str(path))
        for block in raw.blocks:
            parsed = parse_block(block.lines, block.first_line, BLOCK)
            source = {block.first_line + i for i, line in enumerate(block.lines)
                      if _KEY_LINE.match(line) or line.startswith("- ")}
            assert source == set(parsed.lines.values()), (path.name, block.first_line)


def test_flattened_nesting_of_a_known_block():
    block = next(c for c in load_paths([seeds_dir()]).contracts
                 if c.kernel == "reduce_sum_to_cpu")
    tree = block.tree
    assert list(tree) == ["kernel", "op_kind", "blurb", "backend", "kernel_source", "entry_point",
                          "kernel_revision_hash", "accept", "return", "caps", "cost", "precision",
                          "determinism"]
    assert [i["name"] for i in tree["accept"]["inputs"]] == ["input"]
    assert tree["accept"]["op_params"]["variant"] == "ReduceSumTo"
    assert list(tree["accept"]["op_params"]["fields"]) == ["input_shape", "output_shape"]
    assert tree["return"]["outputs"][0]["shape_rule"] == "reduce(input, output_shape, keepdim)"
    assert tree["caps"]["fast_paths"] == [{"when": "all_inputs_contiguous", "class": "reduction"}]
    assert "class" in tree["cost"] and "class" not in tree["caps"]
    assert tree["precision"]["max_ulp"] is None


def _relined(contract, twin):
    """The contract's inputs with the twin's line numbers (lines differ between spellings)."""
    return tuple(dataclasses.replace(a, line=b.line) for a, b in zip(contract.inputs, twin.inputs,
                                                                       strict=True))


def _reindented_equal(dash_under_key: bool, flow_leaves: bool) -> None:
    loaded = load_paths([seeds_dir()])
    mismatched = []
    for contract in loaded.contracts:
        text = "\n".join(indented_lines(contract.tree, dash_under_key=dash_under_key,
                                        flow_leaves=flow_leaves))
        base = next(f.provider.revision_base for f in loaded.files if f.path == contract.file)
        front = f"provider:\n  revision_base: {base!r}"
        again = load_text(fkc_file(text, front=front), "reindented.fkc.md")
        assert again.errors == [], (contract.kernel, [str(e) for e in again.errors])
        (twin,) = again.contracts
        assert twin.spelling == "indented"
        same = (tree_json(twin) == tree_json(contract), twin.revision == contract.revision,
                twin.semantics == contract.semantics, twin.inputs == _relined(contract, twin))
        if not all(same):
            mismatched.append((contract.kernel, same))
    assert mismatched == []
    assert len(loaded.contracts) == 131


def test_reindented_seed_blocks_give_the_same_tree():
    _reindented_equal(dash_under_key=False, flow_leaves=True)


def test_reindented_block_style_gives_the_same_tree():
    _reindented_equal(dash_under_key=True, flow_leaves=False)
