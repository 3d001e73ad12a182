"""Error inputs (SPEC §4): kernels that let an input through that their wrapper must refuse are
caught at the ci seed by ``accepts_invalid``, the input shown; the wrapper that refuses them
passes. The kernel that segfaults on a short operand list runs in a worker process, and the
crash is a finding of the item, not the end of the run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from judge.profiles import get_profile
from judge.registry import load_plugin
from judge.runner import Item, run_item
from judge.sandbox import IsolatedBackend, spec_of

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = ROOT / "tests" / "plugins" / "broken_invalid.py"


def contract_of(kernel: str):
    from judge.suite import load_paths

    loaded = load_paths([ROOT / "suites" / "fuel" / f for f in ("data-movement.fkc.md", "quant-matmul.fkc.md")])
    return next(c for c in loaded.contracts if c.kernel == kernel)

CASES = [
    # (broken backend class, kernel, dtype, what the message names)
    ("ClampedIndices", "index_select_cpu", "F32", "index_range"),
    ("ClampedIndices", "gather_cpu", "F32", "index_range"),
    ("RawOperandTable", "index_select_cpu", "F32", "crashed"),
    ("FlooredBlocks", "nf4_matmul_cpu", "F32", "k % block_size == 0"),
]


def isolated(cls: str):
    """The plugin's backend ``cls`` with its calls in a worker process, which loads the plugin
    file under the same module name and unpickles the backend from it."""
    load_plugin(str(PLUGIN))
    module = next(m for m in list(sys.modules.values())
                  if getattr(m, "__file__", None) == str(PLUGIN) and m.__name__.startswith("judge_plugin_"))
    backend = getattr(module, cls)()
    return IsolatedBackend(backend, spec_of(backend, (str(PLUGIN),)), f"{backend.name} (in a worker)",
                           timeout=60)


def _run(kernel, backend, dtype):
    return run_item(Item(contract_of(kernel), backend, dtype), get_profile("ci"))


@pytest.mark.parametrize("cls, kernel, dtype, named", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_kernel_that_accepts_an_error_input_fails_accepts_invalid(broken_invalid, cls, kernel, dtype, named):
    backend = isolated(cls)
    try:
        result = _run(kernel, backend, dtype)
    finally:
        backend.close()
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.startswith("accepts_invalid:"), result.message
    assert named in result.message and "The input:" in result.message, result.message
    assert result.case is not None and row.counterexample == result.case.case_id


def test_the_segfault_is_named_with_its_signal(broken_invalid):
    backend = isolated("RawOperandTable")
    try:
        result = _run("index_select_cpu", backend, "F32")
    finally:
        backend.close()
    assert "SIGSEGV" in result.message and "operand(s) where it takes 2" in result.message


@pytest.mark.parametrize("kernel", ["index_select_cpu", "gather_cpu", "nf4_matmul_cpu"])
def test_the_wrapper_that_refuses_passes(broken_invalid, kernel):
    result = _run(kernel, broken_invalid.Checked(), "F32")
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
