"""The guard zones around every buffer a kernel is handed (``judge.guards``): their size and
fill, what a stray store or load shows, and that they travel through a sandbox and back."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from judge import guards
from judge.api import TensorArg
from judge.contracts.model import Caps
from numerics.values import POISON_BITS

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugins" / "broken_guards.py"


def _caps(align=None, bits=None) -> Caps:
    return Caps("requires_contiguous", alignment_bytes=align, access_granularity_bits=bits)


@pytest.mark.parametrize("align, bits, want", [(None, None, 64), (16, 32, 64), (64, 8, 64),
                                               (256, 8, 256), (None, 1024, 128), (100, None, 128)])
def test_a_guard_holds_the_alignment_a_granule_and_a_line(align, bits, want):
    assert guards.guard_bytes(_caps(align, bits)) == want


def _arg(n=5, dtype="F32", offset=0) -> TensorArg:
    base = np.arange(n + offset, dtype=np.float32)
    return TensorArg(base, (n,), (1,), offset, dtype)


@pytest.mark.parametrize("shift", [0, 4])
def test_the_base_keeps_its_values_and_sits_where_the_plan_says(shift):
    t = _arg()
    g, zone = guards.guarded(t, "input 'x'", guards.Plan(64, 128, (shift,)), shift)
    assert g.base is not t.base and np.array_equal(g.base, t.base)
    assert (g.shape, g.strides, g.offset, g.dtype) == (t.shape, t.strides, t.offset, t.dtype)
    assert g.base.ctypes.data % 128 == shift
    poison = np.array([POISON_BITS["F32"]], np.uint32).view(np.uint8)
    assert np.array_equal(zone.memory[:zone.front], np.resize(poison, zone.front))
    assert np.array_equal(zone.memory[zone.front + zone.nbytes:], np.resize(poison, 64))
    assert zone.front >= 64 + shift
    assert guards.breaches(zone) == []


def _raw(arg, first: int, count: int) -> np.ndarray:
    """``count`` elements from the view's element ``first`` by address, bounds unchecked."""
    import ctypes

    item = arg.base.itemsize
    address = arg.base.ctypes.data + (arg.offset + first) * item
    return np.frombuffer((ctypes.c_uint8 * (count * item)).from_address(address), dtype=arg.base.dtype)


def test_a_store_past_the_end_names_the_buffer_the_offset_and_the_bytes():
    g, zone = guards.guarded(_arg(), "output 0", guards.Plan(64, 64, (0,)))
    _raw(g, 5, 1)[0] = np.float32(1.0)  # 00 00 80 3f
    (message,) = guards.breaches(zone)
    assert message.startswith("output 0: 4 guard byte(s) after its buffer changed, bytes +0 to +3 "
                              "from the view's end"), message
    assert "written: 00 00 80 3f" in message


def test_a_store_before_the_start_counts_from_the_view_not_the_buffer():
    g, zone = guards.guarded(_arg(n=4, offset=2), "input 'x'", guards.Plan(64, 64, (0,)))
    _raw(g, -3, 1)[0] = np.float32(0.0)  # the element just before the base buffer
    (message,) = guards.breaches(zone)
    assert "before its buffer" in message and "bytes -12 to -9 from the view's start" in message, message


def test_a_load_past_either_end_reads_the_poison_nan():
    g, _ = guards.guarded(_arg(dtype="F32"), "input 'x'", guards.Plan(64, 64, (0,)))
    assert np.isnan(_raw(g, -1, 7)[[0, -1]]).all()


def test_only_inputs_that_accept_a_start_offset_are_misaligned(suite_contract):
    plain = suite_contract("neg")
    offsets = _with_offsets(plain)
    seen = set()
    for k in range(16):
        x = _arg(n=k + 1)
        assert guards.plan(plain, (x,)).shifts == (0,)
        seen.add(guards.plan(offsets, (x,)).shifts)
    assert seen == {(0,), (4,)}  # aligned in some cases, one element past the boundary in others


def _with_offsets(contract):
    from dataclasses import replace

    inputs = tuple(replace(i, layout=replace(i.layout, start_offset=True)) for i in contract.inputs)
    return replace(contract, inputs=inputs)


@pytest.fixture(scope="module")
def suite_contract():
    from judge.suite import load_paths

    loaded = load_paths([ROOT / "suites" / "fuel" / "reference-elementwise.fkc.md"])
    return {c.kernel: c for c in loaded.contracts}.__getitem__


def test_zones_cross_to_a_worker_whole_and_an_in_place_pair_stays_one_buffer():
    from judge.api import KernelCall

    x, zx = guards.guarded(_arg(), "input 'x'", guards.Plan(64, 256, (4,)), 4)
    out = TensorArg(x.base, x.shape, x.strides, x.offset, x.dtype)
    call = KernelCall([x], {}, [out], ["F32"], "c", [zx, zx])
    wire = guards.for_wire(call)
    assert wire.inputs[0].base is None
    there = guards.from_wire(pickle.loads(pickle.dumps(wire)))
    assert there.inputs[0].base is there.outputs[0].base
    assert there.inputs[0].base.ctypes.data % 256 == 4
    _raw(there.outputs[0], 5, 1)[0] = np.float32(2.0)
    for here, back in zip(guards.storage(call), pickle.loads(pickle.dumps(guards.storage(there))), strict=True):
        np.copyto(here, back, casting="no")
    assert len(guards.breaches(zx)) == 1


def test_a_sandboxed_kernel_is_held_to_its_guards(suite_contract):
    from judge.executor import execute
    from judge.registry import load_plugin
    from judge.sandbox import IsolatedBackend, spec_of

    load_plugin(str(PLUGIN))
    import sys

    module = next(m for n, m in sys.modules.items() if n.startswith("judge_plugin_")
                  and getattr(m, "__file__", "") == str(PLUGIN))
    x = (TensorArg(np.arange(5, dtype=np.float32), (5,), (1,), 0, "F32"),)
    found = {}
    for cls in ("MiniNumpy", "PairWriter"):
        inner = getattr(module, cls)()
        backend = IsolatedBackend(inner, spec_of(inner, (str(PLUGIN),)), cls)
        try:
            ex = execute(backend, suite_contract("neg"), x, {})
        finally:
            backend.close()
        found[cls] = [f.check for f in ex.findings]
        assert np.array_equal(ex.outputs[0], -np.arange(5, dtype=np.float32)) if ex.outputs else True
    assert found == {"MiniNumpy": [], "PairWriter": ["out_of_bounds"]}
