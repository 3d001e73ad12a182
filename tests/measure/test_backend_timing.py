"""The built-in backends' timed calls run the real kernel on resident operands: what is timed
computes what ``run`` computes, and the roofline copies really copy."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from judge.measure.sizes import make_call, plan_call


def suite_contract(kernel: str):
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    loaded = load_paths([Path(default_suite_path())])
    (contract,) = [c for c in loaded.contracts if c.kernel == kernel]
    return contract


def backend(name: str):
    from judge.registry import default_registry

    return default_registry().load_all().backends[name]


def expected_sum(call) -> np.ndarray:
    a, b = (arg.to_array() for arg in call.inputs)
    return (a + b).astype(np.float32)


def test_torch_cpu_times_the_library_call():
    contract = suite_contract("add_elementwise_cpu")
    call = make_call(contract, plan_call(contract, "F32", 4096))
    timed = backend("torch-cpu").timed(contract, call)
    assert timed.clock == "perf_counter_ns" and timed.time_ns() > 0
    assert np.array_equal(timed.launch().numpy(), expected_sum(call))
    nbytes, method = timed.peak_host_bytes()
    assert nbytes == 4096 * 4 and "profiler" in method


def test_kompute_times_the_dispatch_on_resident_buffers():
    from backends.kompute import device

    contract = suite_contract("add_elementwise_vulkan")
    call = make_call(contract, plan_call(contract, "F32", 4096))
    kompute = backend("kompute")
    timed = kompute.timed(contract, call)
    slot = device.last_slot()
    slot.views[-2][:4096] = 0  # clear the host copy of the output, then dispatch alone
    timed.launch()
    assert not slot.views[-2][:4096].any()  # nothing was downloaded by the timed call
    device.manager().sequence().eval(device.kp_module().OpTensorSyncLocal([slot.tensors[-2]]))
    got = slot.tensors[-2].data()[:4096].view(np.float32)
    assert np.array_equal(got, expected_sum(call))
    assert timed.clock == "vulkan_fence_wall" and timed.time_ns() > 0


def test_torch_copy_copies():
    timed = backend("torch-cpu").timed_copy(1 << 16)
    out = timed.launch()
    assert out.numel() == 1 << 16 and bool((out == 1).all())


def test_kompute_copy_shader_copies():
    from backends.kompute import device

    timed = backend("kompute").timed_copy(1 << 16)
    src, dst = timed.tensors
    assert not dst.data().any()
    timed.launch()
    device.manager().sequence().eval(device.kp_module().OpTensorSyncLocal([dst]))
    assert np.array_equal(dst.data(), src.data()) and dst.data().size == (1 << 16) // 4
