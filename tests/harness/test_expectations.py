"""Known divergences: listed failures xfail, stale entries fail, matching is exact."""

from __future__ import annotations

import pytest

from judge.expectations import ExpectationsError, load_expectations
from judge.profiles import get_profile
from judge.runner import Item, run_item

BIN = "elementwise-binary.fkc.md"


def _write(tmp_path, kernel, backend, check, dtype="F32", device=None):
    extra = f'device = "{device}"\n' if device else ""
    p = tmp_path / "expectations.toml"
    p.write_text(
        f'[[divergence]]\nkernel = "{kernel}"\nbackend = "{backend}"\ndtype = "{dtype}"\n'
        f'check = "{check}"\nreason = "test reason"\n{extra}'
    )
    return load_expectations(p)


def test_listed_failure_is_xfail(tmp_path, broken, suite):
    exp = _write(tmp_path, "maximum_elementwise_cpu", "broken-nan-rule", "nan")
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.WrongNanRule(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "xfail" and "test reason" in row.reason


def test_stale_entry_fails(tmp_path, broken, suite):
    exp = _write(tmp_path, "maximum_elementwise_cpu", "mini-cpu", "nan")
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.MiniCpu(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("stale expectation")


@pytest.mark.parametrize("kernel, dtype, device", [
    ("maximum_elementwise", "F32", None),  # a prefix of the kernel name: no match
    ("maximum_elementwise_cpu", "F64", None),  # another dtype
    ("maximum_elementwise_cpu", "F32", "some-gpu"),  # another device
])
def test_matching_is_exact(tmp_path, broken, suite, kernel, dtype, device):
    exp = _write(tmp_path, kernel, "broken-nan-rule", "nan", dtype=dtype, device=device)
    row = run_item(Item(suite(BIN, "maximum_elementwise_cpu"), broken.WrongNanRule(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("nan")


def test_a_listed_check_does_not_excuse_another(tmp_path, broken, suite):
    exp = _write(tmp_path, "neg", "broken-dtype", "shape")
    row = run_item(Item(suite("reference-elementwise.fkc.md", "neg"), broken.WrongDtype(), "F32"),
                   get_profile("ci"), expectations=exp).row
    assert row.verdict == "fail" and row.reason.startswith("dtype")


@pytest.mark.parametrize("body, message", [
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\n', "lacks reason"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nope"\nreason = "r"\n', "not one of"),
    ('[[divergence]]\nkernel = "k"\nbackend = "b"\ndtype = "F32"\ncheck = "nan"\nreason = "r"\ncolour = 1\n', "unknown key"),
    ("[[divergence]\n", "expectations.toml"),
])
def test_bad_expectations_file(tmp_path, body, message):
    p = tmp_path / "expectations.toml"
    p.write_text(body)
    with pytest.raises(ExpectationsError, match=message):
        load_expectations(p)


def test_shipped_expectations_load():
    exp = load_expectations()
    assert all(e.reason for e in exp.entries)
