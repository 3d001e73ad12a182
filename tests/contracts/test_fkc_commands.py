"""``judge lint``, ``judge show`` and ``judge list`` (SPEC §7)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fkc_testing import ADD, REDUCE, fkc_file

import judge.registry as registry_module
from judge.api import Backend
from judge.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def suite(tmp_path):
    """Two files; ``sum_reduce_cpu`` appears in both."""
    (tmp_path / "a.fkc.md").write_text(fkc_file(REDUCE, ADD))
    (tmp_path / "b.fkc.md").write_text(fkc_file(REDUCE))
    (tmp_path / "notes.md").write_text(fkc_file(REDUCE.replace("rank: any", "rank: 2..4")))
    return tmp_path


def test_lint_clean(suite):
    result = run("lint", str(suite))
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == (
        "3 blocks (3 registrable, 0 describe-only) in 2 files: 0 errors, 0 warnings")


def test_lint_reports_every_error_and_exits_1(tmp_path):
    bad = REDUCE.replace("rank: any", "rank: 2..4")
    (tmp_path / "reduce.fkc.md").write_text(fkc_file(bad, ADD.replace("dtypes: [F32]",
                                                                      "dtypes: [F99]", 1)))
    result = run("lint", str(tmp_path))
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert lines[0].startswith(f"error: {tmp_path}/reduce.fkc.md:")
    assert lines[0].endswith("sum_reduce_cpu accept.inputs[0].rank: '2..4' is not a rank "
                             "(use any, N or A..=B)")
    assert "add_cpu accept.inputs[0].dtypes[0]: unknown dtype 'F99'" in lines[1]
    assert lines[-1] == "2 blocks (0 registrable, 0 describe-only) in 1 file: 2 errors, 0 warnings"


def test_lint_unreadable_path_exits_2(tmp_path):
    result = run("lint", str(tmp_path / "missing"))
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_lint_names_a_file_directly(suite):
    result = run("lint", str(suite / "notes.md"))
    assert result.exit_code == 1
    assert "notes.md:" in result.output


def test_show_ambiguous_name_lists_candidates(suite):
    result = run("show", "sum_reduce_cpu", "--contracts", str(suite))
    assert result.exit_code == 2
    assert f"{suite}/a.fkc.md::sum_reduce_cpu" in result.output
    assert f"{suite}/b.fkc.md::sum_reduce_cpu" in result.output


def test_show_file_qualified_name(suite):
    result = run("show", "b.fkc.md::sum_reduce_cpu", "--contracts", str(suite))
    assert result.exit_code == 0, result.output
    assert f"{suite}/b.fkc.md:" in result.output
    assert "nan" in result.output and "<- " in result.output


def test_show_json_is_the_sorted_tree(suite):
    result = run("show", "add_cpu", "--contracts", str(suite), "--json")
    assert result.exit_code == 0, result.output
    tree = json.loads(result.output)
    assert tree["accept"]["inputs"][1]["shape_constraint"] == "broadcast_to=lhs"
    assert list(tree) == sorted(tree)


def test_show_semantics_sources(tmp_path):
    block = REDUCE.replace('blurb: "Per-axis sum."', 'blurb: "Per-axis max; NaN-as-missing."')
    block += "semantics:\nties: first_index\n"
    (tmp_path / "m.fkc.md").write_text(fkc_file(block))
    result = run("show", "sum_reduce_cpu", "--contracts", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "nan        ignore <- blurb: 'NaN-as-missing'" in result.output
    assert "ties       first_index <- semantics: declared in semantics.ties" in result.output


def test_show_unknown_name_suggests(suite):
    result = run("show", "sum_reduce_cp", "--contracts", str(suite))
    assert result.exit_code == 2
    assert "did you mean sum_reduce_cpu" in result.output


def test_show_broken_contract_prints_its_errors(suite):
    result = run("show", "notes.md::sum_reduce_cpu", "--contracts", str(suite / "notes.md"))
    assert result.exit_code == 1
    assert "'2..4' is not a rank" in result.output


class FakeCpu(Backend):
    name = "fake-cpu"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if dtypes[0] == "F32" else f"no {dtypes[0]} kernel"

    def run(self, contract, call):
        raise NotImplementedError


class FakeGpu(FakeCpu):
    name = "fake-gpu"
    device = "cuda"

    def available(self):
        return "no CUDA device visible"


@pytest.fixture
def fake_registry(monkeypatch):
    registry = registry_module.Registry()
    registry.register(FakeCpu())
    registry.register(FakeGpu())
    registry._loaded = True  # built-ins are not part of this test
    monkeypatch.setattr(registry_module, "_DEFAULT", registry)
    return registry


def test_list_matrix(suite, fake_registry):
    result = run("list", "--contracts", str(suite / "a.fkc.md"))
    assert result.exit_code == 0, result.output
    rows = [line.split(None, 3) for line in result.output.splitlines()[1:] if "::" in line]
    cells = {(r[0].split("::")[1], r[1], r[2]): r[3] for r in rows}
    assert cells == {
        ("sum_reduce_cpu", "F32", "fake-cpu"): "runs",
        ("sum_reduce_cpu", "F64", "fake-cpu"): "unsupported: no F64 kernel",
        ("add_cpu", "F32", "fake-cpu"): "runs",
    }
    assert "unavailable backend fake-gpu: no CUDA device visible" in result.output


def test_list_cross_adds_other_devices(suite, fake_registry):
    class OtherCuda(FakeCpu):
        name = "other-cuda"
        device = "cuda"

    fake_registry.register(OtherCuda())
    plain = run("list", "--contracts", str(suite / "b.fkc.md"))
    cross = run("list", "--contracts", str(suite / "b.fkc.md"), "--cross")
    assert "other-cuda" not in plain.output
    assert "other-cuda" in cross.output


def test_list_unknown_backend_exits_2(suite, fake_registry):
    result = run("list", "--contracts", str(suite), "--backend", "nope")
    assert result.exit_code == 2
    assert "unknown backend 'nope'" in result.output


def test_find_contract_files_keeps_the_path_as_given(suite, monkeypatch):
    from judge.contracts import find_contract_files
    from judge.suite import load_paths

    monkeypatch.chdir(suite.parent)
    root = suite.name
    assert find_contract_files([root]) == [f"{root}/a.fkc.md", f"{root}/b.fkc.md"]
    loaded = load_paths([root])
    assert {c.file for c in loaded.contracts} == {f"{root}/a.fkc.md", f"{root}/b.fkc.md"}
    assert {c.suite for c in loaded.contracts} == {root}
    with pytest.raises(FileNotFoundError):
        find_contract_files([f"{root}/nothing"])


def test_show_file_qualified_by_absolute_path(suite, monkeypatch):
    monkeypatch.chdir(suite.parent)
    result = run("show", f"{suite / 'a.fkc.md'}::sum_reduce_cpu", "--contracts", suite.name)
    assert result.exit_code == 0, result.output
    assert f"{suite.name}/a.fkc.md:" in result.output
