"""Fixtures of the kernel-family tests: each family's broken-backend plugin (tests/plugins) and
its suite contracts by kernel name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "fuel"


def plugin(file: str):
    """tests/plugins/<file>, imported once."""
    name = f"judge_test_{file.removesuffix('.py')}_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def by_kernel(*files: str):
    """kernel name -> contract, over the named suite files (loaded without errors)."""
    from judge.suite import load_paths

    loaded = load_paths([SUITE / f for f in files])
    assert not loaded.errors, loaded.errors
    return {c.kernel: c for c in loaded.contracts}.__getitem__


@pytest.fixture(scope="session")
def broken_cast():
    return plugin("broken_cast.py")


@pytest.fixture(scope="session")
def cast_contract():
    return by_kernel("cast.fkc.md")


@pytest.fixture(scope="session")
def broken_move():
    return plugin("broken_move.py")


@pytest.fixture(scope="session")
def move_contract():
    return by_kernel("data-movement.fkc.md")


@pytest.fixture(scope="session")
def broken_norm():
    return plugin("broken_norm.py")


@pytest.fixture(scope="session")
def norm_contract():
    return by_kernel("softmax-norm.fkc.md")


@pytest.fixture(scope="session")
def broken_matmul():
    return plugin("broken_matmul.py")


@pytest.fixture(scope="session")
def contract():
    """(file, kernel) -> contract of the matmul (mixed Vulkan keys included) and cumsum files."""
    get = by_kernel("matmul.fkc.md", "matmul-mixed-vulkan.fkc.md", "cumsum.fkc.md")
    return lambda file, kernel: get(kernel)


@pytest.fixture(scope="session")
def broken_backward():
    return plugin("broken_backward.py")


@pytest.fixture(scope="session")
def backward_contract():
    return by_kernel("backward.fkc.md")


@pytest.fixture(scope="session")
def broken_quant():
    return plugin("broken_quant.py")


@pytest.fixture(scope="session")
def quant_contract():
    return by_kernel("quant-matmul.fkc.md")


@pytest.fixture(scope="session")
def broken_conv():
    return plugin("broken_conv.py")


@pytest.fixture(scope="session")
def conv_contract():
    """kernel -> contract of the rope, convolution and pad files."""
    return by_kernel("rope.fkc.md", "conv.fkc.md", "pad.fkc.md")


@pytest.fixture(scope="session")
def broken_attn():
    return plugin("broken_attn.py")


@pytest.fixture(scope="session")
def attn_contract():
    return by_kernel("attention.fkc.md")


@pytest.fixture(scope="session")
def broken_scan():
    return plugin("broken_scan.py")


@pytest.fixture(scope="session")
def scan_contract():
    return by_kernel("scans.fkc.md")


@pytest.fixture(scope="session")
def broken_fused():
    return plugin("broken_fused.py")


@pytest.fixture(scope="session")
def fused_contract():
    return by_kernel("fused.fkc.md")


@pytest.fixture(scope="session")
def broken_scatter():
    return plugin("broken_scatter.py")


@pytest.fixture(scope="session")
def scatter_contract():
    return by_kernel("scatter.fkc.md")


@pytest.fixture(scope="session")
def broken_inplace():
    return plugin("broken_inplace.py")


@pytest.fixture(scope="session")
def inplace_contract():
    return by_kernel("inplace.fkc.md")


@pytest.fixture(scope="session")
def broken_slices():
    return plugin("broken_slices.py")


@pytest.fixture(scope="session")
def slices_contract():
    return by_kernel("slices.fkc.md")


@pytest.fixture(scope="session")
def broken_affine():
    return plugin("broken_affine.py")


@pytest.fixture(scope="session")
def affine_int_contract():
    return by_kernel("affine-int.fkc.md")


@pytest.fixture(scope="session")
def broken_invalid():
    return plugin("broken_invalid.py")


@pytest.fixture(autouse=True)
def _compute_only(request, monkeypatch):
    """The families' mini backends compute and check nothing: their items judge what is
    computed, with no error inputs (tests/families/invalid judges those)."""
    if "invalid" not in request.node.nodeid:
        monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")
