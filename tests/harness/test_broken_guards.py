"""Kernels that touch memory just outside their buffers are caught at the ci seed: a store past
the end by ``out_of_bounds``, a load before a misaligned base by the wrong result it gives. The
correct stand-ins pass the same contracts, misaligned bases included."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from contract_variants import variant

from judge.profiles import get_profile
from judge.runner import Item, run_item

ROOT = Path(__file__).resolve().parents[2]
FILE, KERNEL = "reference-elementwise.fkc.md", "neg"
OFFSETS = ("start_offset: rejected", "start_offset: accepted")
WRONG_RESULT = {"nan", "exact", "signed_zero", "inf", "payload", "ulp"}

CASES = [
    # (broken backend class, dtype, the contract accepts start offsets, checks that may catch it)
    ("PairWriter", "BF16", False, {"out_of_bounds"}),
    ("PairWriter", "F16", False, {"out_of_bounds"}),
    ("WordStoreF16", "F16", False, {"out_of_bounds"}),
    ("AlignedLoads", "F16", True, WRONG_RESULT),
    ("AlignedLoads", "BF16", True, WRONG_RESULT),
]


@pytest.fixture(scope="module")
def broken_guards():
    name = "judge_test_broken_guards_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_guards.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _contract(offsets: bool):
    if offsets:
        return variant(FILE, KERNEL, OFFSETS, name=f"{KERNEL}_offsets")
    return variant(FILE, KERNEL)


def _run(backend, dtype, offsets):
    return run_item(Item(_contract(offsets), backend, dtype), get_profile("ci"))


@pytest.mark.parametrize("cls, dtype, offsets, checks", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_broken_backend_is_caught(broken_guards, cls, dtype, offsets, checks):
    result = _run(getattr(broken_guards, cls)(), dtype, offsets)
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"


def test_an_out_of_bounds_message_names_buffer_offset_and_bytes(broken_guards):
    result = _run(broken_guards.WordStoreF16(), "F16", False)
    assert "output 0: 2 guard byte(s) after its buffer changed, bytes +0 to +1 from the view's end" \
        in result.message and "written: 00 00" in result.message, result.message


def test_aligned_loads_pass_where_no_base_is_misaligned(broken_guards):
    """The bug needs a misaligned base: where the contract rejects start offsets, every base
    is aligned and the kernel is right."""
    assert _run(broken_guards.AlignedLoads(), "F16", False).row.verdict == "pass"


def _standins():
    from backends.numpy_backend import NumpyBackend
    from backends.torch_backend import TorchBackend

    return [NumpyBackend(), TorchBackend("torch-cpu", "cpu")]


@pytest.mark.parametrize("offsets", [False, True], ids=["aligned", "misaligned"])
@pytest.mark.parametrize("dtype", ["F32", "BF16", "F16", "F64"])
def test_correct_standins_pass_inside_guards(broken_guards, offsets, dtype):
    for backend in [broken_guards.MiniNumpy(), *_standins()]:
        result = _run(backend, dtype, offsets)
        assert result.row.verdict == "pass", f"{backend.name}: {result.message}"
        assert result.row.cases > 0


def test_a_misaligned_base_alone_shows_the_aligned_loads(broken_guards):
    """Contiguous operands at offset 0: the kernel goes wrong exactly in the cases whose base the
    executor placed one element past the alignment boundary."""
    import numpy as np

    from judge import guards
    from judge.api import TensorArg
    from judge.executor import execute

    contract = _contract(True)
    outcomes = set()
    for n in range(1, 17):
        x = (TensorArg(np.arange(n, dtype=np.float16) + 1, (n,), (1,), 0, "F16"),)
        shifted = guards.plan(contract, x).shifts != (0,)
        ex = execute(broken_guards.AlignedLoads(), contract, x, {})
        wrong = not np.array_equal(ex.outputs[0], -x[0].base)
        assert wrong == shifted, (n, shifted)
        outcomes.add(wrong)
    assert outcomes == {True, False}
