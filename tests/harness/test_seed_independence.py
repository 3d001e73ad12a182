"""The cases an item generates depend on the item and the seed only, not on where the checkout lives."""

from __future__ import annotations

import shutil
from pathlib import Path

from judge.profiles import get_profile
from judge.runner import Item, run_item
from judge.suite import load_paths

ROOT = Path(__file__).resolve().parents[2]


def _load(folder: Path, kernel: str):
    loaded = load_paths([folder])
    assert not loaded.errors, loaded.errors
    return next(c for c in loaded.contracts if c.kernel == kernel)


def test_same_verdict_and_counterexample_from_two_locations(tmp_path, broken):
    a = tmp_path / "here"
    b = tmp_path / "some" / "where" / "else"
    for d in (a, b):
        d.mkdir(parents=True)
        shutil.copy(ROOT / "suites" / "fuel" / "reference-elementwise.fkc.md", d)
    failing = [run_item(Item(_load(d, "sqrt"), broken.ExtraUlp(), "F64"), get_profile("ci"), seed=3)
               for d in (a, b)]
    assert failing[0].row.verdict == failing[1].row.verdict == "fail"
    assert failing[0].row.counterexample == failing[1].row.counterexample
    passing = [run_item(Item(_load(d, "sqrt"), broken.MiniCpu(), "F64"), get_profile("ci"), seed=3)
               for d in (a, b)]
    assert passing[0].row.verdict == passing[1].row.verdict == "pass"
    # every generated element counts: the same total means the same generated shapes
    assert passing[0].row.elements == passing[1].row.elements
    assert passing[0].ulp_samples == passing[1].ulp_samples


def test_item_key_names_the_file_not_its_path(tmp_path, broken):
    d = tmp_path / "deep" / "folder"
    d.mkdir(parents=True)
    shutil.copy(ROOT / "suites" / "fuel" / "reduce.fkc.md", d)
    item = Item(_load(d, "sum_reduce_cpu"), broken.MiniCpu(), "F32")
    assert item.key == "reduce.fkc.md::sum_reduce_cpu[mini-cpu-F32]"
    assert str(tmp_path) not in item.key
