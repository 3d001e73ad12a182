"""judge list --inventory: every OpKind of Fuel's dispatch inventory, covered or why not."""

from __future__ import annotations

import subprocess
import sys

from judge.inventory import coverage, default_inventory_path, load_inventory


def test_the_inventory_lists_every_opkind_once():
    rows = load_inventory()
    names = [r.op_kind for r in rows]
    assert len(names) == len(set(names)) == 115
    assert all(set(r.devices) <= {"Cpu", "Cuda", "Vulkan"} and r.devices for r in rows)


def test_coverage_needs_a_contract_a_reference_and_a_backend(broken, suite, tmp_path):
    neg = suite("reference-elementwise.fkc.md", "neg")
    # An OpKind Fuel would register tomorrow: neither the suite nor the oracle has it yet.
    inventory = tmp_path / "inventory.toml"
    inventory.write_text(default_inventory_path().read_text()
                         + '\n[[opkind]]\nname = "FutureOpKind"\ndevices = ["Cpu"]\n')
    rows = {r.op_kind: r for r in coverage([neg], [broken.MiniCpu()], inventory)}
    assert rows["NegElementwise"].covered and rows["NegElementwise"].backends == ["mini-cpu"]
    assert rows["NegElementwise"].why_not() == "no Cuda/Vulkan contract yet"
    assert not rows["ExpElementwise"].covered  # a reference, but no contract given here
    assert rows["ExpElementwise"].why_not() == "no contract in the suite"
    assert rows["NegInplace"].why_not() == "no contract in the suite"  # a reference, no contract here
    assert rows["WriteSlice"].why_not() == "no contract in the suite"  # a reference, no contract here
    assert rows["FutureOpKind"].why_not() == "no contract in the suite; no reference in the oracle"
    nobody = {r.op_kind: r for r in coverage([neg], [])}
    assert nobody["NegElementwise"].why_not() == "no selected backend runs it"


def test_judge_list_inventory_prints_the_counts():
    out = subprocess.run([sys.executable, "-m", "judge.cli", "list", "--inventory", "--backend", "numpy"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "inventory OpKinds have a contract, a reference and a backend" in out.stdout
    assert "115 of 115 inventory OpKinds" in out.stdout
    assert "WriteSlice" in out.stdout and "no Cuda/Vulkan contract yet" in out.stdout
