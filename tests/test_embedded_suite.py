"""The embedded suite (suites/fuel) states the same machine facts as the seed contracts (SPEC §3).

The suite holds the seed files' twins and the contracts of the further kernel families, written
from the dispatch inventory (they have no seed block to match; the rules on prose and explicit
semantics hold for them too). Seed and suite blocks are paired by file name and kernel name. Their normalised trees must agree
once prose (blurb, notes), the suite-only ``semantics`` mapping and the content-derived revision
hash are set aside; so must the typed fields the harness acts on.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from judge.contracts.model import SEMANTIC_VALUES, Contract
from judge.suite import load_paths

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "suites" / "fuel"
SEEDS = REPO.parent / "shared" / "seeds"

# Keys that carry prose, suite-only extensions or a hash of the block text: never facts to match.
NON_FACT_KEYS = frozenset({"blurb", "notes", "note", "semantics", "kernel_revision_hash"})
FLOAT_DTYPES = frozenset({"F32", "F64", "F16", "BF16"})
# The suite files written for the seed kernels; files of further kernel families sit beside them
# and have no seed to be compared with.
SEED_TWINS = (
    "elementwise-binary.fkc.md",
    "reduce.fkc.md",
    "reference-elementwise.fkc.md",
    "vulkan-elementwise.fkc.md",
)
# The families beyond the seeds, from the dispatch inventory.
FAMILY_FILES = ("affine-int.fkc.md", "attention.fkc.md", "backward.fkc.md", "cast.fkc.md", "conv.fkc.md", "cumsum.fkc.md",
                "data-movement.fkc.md", "fused.fkc.md", "inplace.fkc.md", "matmul.fkc.md",
                "matmul-mixed-vulkan.fkc.md", "pad.fkc.md",
                "quant-matmul.fkc.md", "rope.fkc.md", "scans.fkc.md", "scatter.fkc.md", "scatter-add-cuda.fkc.md",
                "slices.fkc.md", "softmax-norm.fkc.md", "unary-cuda.fkc.md")


# --- helpers -------------------------------------------------------------------------------------


def fact_tree(tree: Any) -> Any:
    """``tree`` without prose, extension and hash keys (at any depth)."""
    if isinstance(tree, dict):
        return {k: fact_tree(v) for k, v in tree.items() if k not in NON_FACT_KEYS}
    if isinstance(tree, list):
        return [fact_tree(v) for v in tree]
    return tree


def tree_differences(expected: Any, observed: Any, path: str = "") -> list[str]:
    """Every place where two fact trees differ, as ``path: expected X, found Y``."""
    if isinstance(expected, dict) and isinstance(observed, dict):
        out: list[str] = []
        for key in list(expected) + [k for k in observed if k not in expected]:
            sub = f"{path}.{key}" if path else str(key)
            if key not in observed:
                out.append(f"{sub}: expected {expected[key]!r}, key missing")
            elif key not in expected:
                out.append(f"{sub}: unexpected key with {observed[key]!r}")
            else:
                out += tree_differences(expected[key], observed[key], sub)
        return out
    if isinstance(expected, list) and isinstance(observed, list):
        if len(expected) != len(observed):
            return [f"{path}: expected {len(expected)} entries, found {len(observed)}"]
        out = []
        for i, (a, b) in enumerate(zip(expected, observed, strict=True)):
            out += tree_differences(a, b, f"{path}[{i}]")
        return out
    if expected != observed or type(expected) is not type(observed):
        return [f"{path}: expected {expected!r}, found {observed!r}"]
    return []


def typed_facts(contract: Contract) -> dict[str, Any]:
    """The typed fields the harness acts on, with locations, prose and hashes blanked."""
    return {
        "kernel": contract.kernel,
        "registrable": contract.registrable,
        "op_kind": contract.op_kind,
        "backend": contract.backend,
        "kernel_source": contract.kernel_source,
        "entry_point": contract.entry_point,
        "inputs": tuple(dataclasses.replace(i, line=0) for i in contract.inputs),
        "op_params": dataclasses.replace(
            contract.op_params,
            fields=tuple(dataclasses.replace(f, note=None) for f in contract.op_params.fields),
        ),
        "outputs": tuple(dataclasses.replace(o, line=0) for o in contract.outputs),
        "caps": dataclasses.replace(
            contract.caps,
            fast_paths=tuple(
                {k: v for k, v in fp.items() if k not in NON_FACT_KEYS}
                for fp in contract.caps.fast_paths
            ),
        ),
        "cost": contract.cost,
        "precision": dataclasses.replace(contract.precision, notes=None),
        "determinism": contract.determinism,
    }


def keyed(contracts: list[Contract]) -> dict[tuple[str, str], Contract]:
    """Contracts by (file name, kernel); a repeated key is a test failure, not a silent merge."""
    out: dict[tuple[str, str], Contract] = {}
    for c in contracts:
        key = (Path(c.file).name, c.kernel)
        assert key not in out, f"{key} appears twice (lines {out[key].location}, {c.location})"
        out[key] = c
    return out


def fact_mismatches(
    seeds: dict[tuple[str, str], Contract], suite: dict[tuple[str, str], Contract]
) -> list[str]:
    """All differences in machine facts between paired seed and suite contracts."""
    problems = []
    for key, seed in sorted(seeds.items()):
        mine = suite.get(key)
        if mine is None:
            problems.append(f"{key[0]}::{key[1]}: no suite contract")
            continue
        where = f"{key[0]}::{key[1]} (suite {mine.location}, seed {seed.location})"
        for diff in tree_differences(fact_tree(seed.tree), fact_tree(mine.tree)):
            problems.append(f"{where} tree {diff}")
        a, b = typed_facts(seed), typed_facts(mine)
        for field, value in a.items():
            if b[field] != value:
                problems.append(f"{where} {field}: expected {value!r}, found {b[field]!r}")
    for key in sorted(set(suite) - set(seeds)):
        problems.append(f"{key[0]}::{key[1]}: suite contract without a seed block")
    return problems


def missing_nan_rules(contracts: list[Contract]) -> list[str]:
    """Registrable contracts that can see a NaN input but state no explicit ``semantics.nan``."""
    out = []
    for c in contracts:
        if not c.registrable or not any(FLOAT_DTYPES & set(i.dtypes) for i in c.inputs):
            continue
        stated = (c.tree.get("semantics") or {}).get("nan")
        if stated not in SEMANTIC_VALUES["nan"] or c.semantics.nan.source != "semantics":
            out.append(f"{c.location} {c.kernel}: semantics.nan is {stated!r}")
    return out


def prose_lines(path: Path) -> list[str]:
    """The long prose lines of a Markdown contract file: outside front matter and fences."""
    out, fenced = [], False
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index("---", 1) + 1 if lines and lines[0] == "---" else 0
    for line in lines[start:]:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and len(line.strip()) >= 40:
            out.append(line.strip())
    return out


def copied_prose_lines(seed_dir: Path, suite_dir: Path) -> list[str]:
    """Lines of suite files that repeat a long prose line of a seed file verbatim."""
    seed_lines = {line for path in seed_dir.glob("*.md") for line in prose_lines(path)}
    out = []
    for path in sorted(suite_dir.glob("*.fkc.md")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip() in seed_lines:
                out.append(f"{path.name}:{n}: {line.strip()[:60]}")
    return out


# --- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def suite_result():
    return load_paths([SUITE])


@pytest.fixture(scope="module")
def twins(suite_result):
    """The suite's contracts in the seed files' twins."""
    return [c for c in suite_result.contracts if Path(c.file).name in SEED_TWINS]


@pytest.fixture(scope="module")
def seed_result():
    if not SEEDS.is_dir():
        pytest.skip(f"seed contracts not present at {SEEDS}; nothing to compare the suite with")
    return load_paths([SEEDS])


# --- the suite itself ----------------------------------------------------------------------------


def test_suite_loads_without_errors(suite_result, twins):
    assert [str(e) for e in suite_result.errors] == []
    registrable = [c for c in twins if c.registrable]
    assert (len(twins), len(registrable)) == (131, 128)
    assert sorted(c.kernel for c in suite_result.contracts if not c.registrable) == [
        "add_assign_scaled",
        "binary",
        "unary",
    ]


def test_suite_files_are_the_seed_files_and_the_families():
    names = sorted(p.name for p in SUITE.glob("*.fkc.md"))
    assert names == sorted(SEED_TWINS + FAMILY_FILES)


def test_registrable_suite_contracts_state_their_nan_rule(suite_result):
    assert missing_nan_rules(suite_result.contracts) == []


def test_suite_semantics_use_the_known_vocabulary(suite_result):
    bad = []
    for c in suite_result.contracts:
        for key, value in (c.tree.get("semantics") or {}).items():
            if value not in SEMANTIC_VALUES.get(key, ()):
                bad.append(f"{c.location} {c.kernel}: semantics.{key} = {value!r}")
    assert bad == []


def test_suite_rules_that_the_seeds_state(suite_result):
    """Spot checks of rules the seed prose states, including the maximum/minimum change."""
    by_key = keyed(suite_result.contracts)

    def rule(file: str, kernel: str, key: str) -> str:
        return by_key[(file, kernel)].semantics.get(key).value

    eb, red, ref, vk = (
        "elementwise-binary.fkc.md",
        "reduce.fkc.md",
        "reference-elementwise.fkc.md",
        "vulkan-elementwise.fkc.md",
    )
    assert rule(eb, "maximum_elementwise_cpu", "nan") == "propagate"
    assert rule(eb, "minimum_elementwise_cuda", "nan") == "propagate"
    assert rule(eb, "maximum_elementwise_vulkan", "nan") == "ignore"
    assert rule(ref, "maximum", "nan") == "ignore"
    assert rule(vk, "minimum", "nan") == "ignore"
    assert rule(red, "max_reduce_cpu", "nan") == "ignore"
    assert rule(red, "argmax_dim_cpu", "nan") == "ignore"
    assert rule(red, "argmin_dim_vulkan", "ties") == "first_index"
    assert rule(red, "reduce_max_to_backward_cpu", "ties") == "fair_share"
    assert rule(ref, "round", "rounding") == "half_to_even"
    assert rule(ref, "rem", "remainder") == "floored"
    assert rule(eb, "rem_elementwise_cuda", "remainder") == "floored"
    assert rule(ref, "relu", "nan") == "to_zero"
    assert rule(vk, "step_bf16", "nan") == "to_zero"


# --- suite against seeds -------------------------------------------------------------------------


def test_seeds_load_as_the_suite_expects(seed_result):
    assert [str(e) for e in seed_result.errors] == []
    assert len(seed_result.contracts) == 131


def test_every_seed_block_has_a_suite_twin_with_the_same_facts(seed_result, twins):
    seeds, suite = keyed(seed_result.contracts), keyed(twins)
    assert len(seeds) == 131
    problems = fact_mismatches(seeds, suite)
    assert problems == [], "\n".join(problems[:40])


def test_suite_files_declare_the_seed_providers(seed_result, suite_result):
    def providers(result):
        return {Path(f.path).name: (f.fkc_version, f.provider) for f in result.files}

    assert {k: v for k, v in providers(suite_result).items() if k in SEED_TWINS} \
        == providers(seed_result)


def test_suite_prose_is_its_own(seed_result, suite_result):
    """Blurbs, notes and section text are written for the suite, never copied from a seed."""
    seeds, suite = keyed(seed_result.contracts), keyed(suite_result.contracts)
    copied = []
    for key, seed in seeds.items():
        mine = suite[key]
        if seed.blurb and mine.blurb == seed.blurb:
            copied.append(f"{key}: blurb")
        if seed.precision.notes and mine.precision.notes == seed.precision.notes:
            copied.append(f"{key}: precision.notes")
    assert copied + copied_prose_lines(SEEDS, SUITE) == []


# --- the checks above can fail -------------------------------------------------------------------


def test_fact_comparison_reports_a_changed_fact(tmp_path, seed_result):
    """A suite copy with one dtype dropped, one layout flag flipped and one constraint edited."""
    text = (SUITE / "reduce.fkc.md").read_text(encoding="utf-8")
    text = text.replace("dtypes: [F32, F64, BF16, F16]", "dtypes: [F32, F64, BF16]", 1)
    text = text.replace(
        '{ kind: "Vec<usize>", constraint: "sorted ascending, unique, each in 0..input_rank"',
        '{ kind: "Vec<usize>", constraint: "sorted ascending, each in 0..input_rank"',
        1,
    )
    text = text.replace(
        "start_offset: rejected, reverse_strides: rejected",
        "start_offset: accepted, reverse_strides: rejected",
        1,
    )
    (tmp_path / "reduce.fkc.md").write_text(text, encoding="utf-8")
    changed = load_paths([tmp_path])
    assert [str(e) for e in changed.errors] == []
    seeds = {k: v for k, v in keyed(seed_result.contracts).items() if k[0] == "reduce.fkc.md"}
    problems = fact_mismatches(seeds, keyed(changed.contracts))
    assert problems, "an edited fact went unnoticed"
    assert all("sum_reduce_cpu" in p for p in problems), problems
    joined = "\n".join(problems)
    assert "dtypes" in joined and "start_offset" in joined and "constraint" in joined


def test_fact_comparison_ignores_prose_only():
    seed = {"kernel": "k", "blurb": "a", "precision": {"notes": "x", "max_ulp": 1}}
    same = {
        "kernel": "k",
        "blurb": "b",
        "semantics": {"nan": "ignore"},
        "precision": {"max_ulp": 1},
    }
    other = {"kernel": "k", "precision": {"max_ulp": 2}}
    assert tree_differences(fact_tree(seed), fact_tree(same)) == []
    assert tree_differences(fact_tree(seed), fact_tree(other)) == [
        "precision.max_ulp: expected 1, found 2"
    ]


def test_missing_nan_rule_is_reported(seed_result):
    """The seeds carry no ``semantics:`` mapping, so every registrable float block is reported."""
    missing = missing_nan_rules(seed_result.contracts)
    assert len(missing) == 128


def test_copied_prose_is_reported(tmp_path, seed_result):
    """A seed sentence pasted into a suite copy is found."""
    suite_copy = tmp_path / "reduce.fkc.md"
    pasted = prose_lines(SEEDS / "reduce.fkc.md")[0]
    text = (SUITE / "reduce.fkc.md").read_text(encoding="utf-8")
    suite_copy.write_text(text + "\n" + pasted + "\n", encoding="utf-8")
    assert copied_prose_lines(SEEDS, tmp_path) == [
        f"reduce.fkc.md:{len(text.splitlines()) + 2}: {pasted[:60]}"
    ]
