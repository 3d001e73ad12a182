"""Guards on the device: an adapter uploads a base buffer with the executor's guards around it
(judge.api.allocation_window), so a device kernel that reads past either end reads the poison,
and an in-place one's stray writes come back to the host guards. Shown here on the CPU through
the same upload path the CUDA adapters take (``upload(..., window=True)``)."""

from __future__ import annotations

import numpy as np
import pytest

from judge import guards
from judge.api import TensorArg, allocation_window

torch = pytest.importorskip("torch")


def _guarded(dtype: str, values, shift: int):
    from numerics.formats import get_format

    base = np.asarray(values, dtype=get_format(dtype).numpy_dtype)
    arg = TensorArg(base, (base.size,), (1,), 0, dtype)
    return guards.guarded(arg, "x", guards.Plan(64, 64, (shift,)), shift=shift)


@pytest.mark.parametrize("shift", [0, 4])
def test_the_window_holds_the_guards_and_keeps_the_base_alignment(shift):
    arg, zone = _guarded("F32", np.arange(7), shift)
    window, start = allocation_window(arg.base)
    assert start >= 64 and window.size >= start + arg.base.nbytes + 64
    assert np.array_equal(window[start:start + arg.base.nbytes].view(np.float32), arg.base)
    assert (window.ctypes.data + start) % 64 == arg.base.ctypes.data % 64 == shift
    assert np.isnan(window[:start].view(np.float32)).all()  # the front guard's poison


def test_a_plain_array_is_its_own_window_and_a_slice_brings_its_neighbours():
    a = np.arange(10.0)
    assert allocation_window(a)[1] == 0 and allocation_window(a)[0].size == a.nbytes
    window, start = allocation_window(a[2:5])
    assert 0 <= start <= 16 and start % 8 == 0  # back to a 64-byte boundary where the array has one
    assert np.array_equal(window[start:start + 24].view(np.float64), a[2:5])
    assert window.nbytes == a.nbytes - (16 - start)


@pytest.mark.parametrize("dtype", ["F32", "BF16", "F16"])
def test_a_device_view_reaches_the_poison_past_either_end(dtype):
    from backends.torch_backend import upload

    arg, _ = _guarded(dtype, [1.0, 2.0, 3.0], 0)
    view, device_window, _ = upload(torch, arg, "cpu", window=True)
    assert device_window is not None
    assert torch.equal(view.float(), torch.tensor([1.0, 2.0, 3.0]))
    before = torch.as_strided(view, (1,), (1,), view.storage_offset() - 1)
    after = torch.as_strided(view, (1,), (1,), view.storage_offset() + 3)
    assert torch.isnan(before.float()).all() and torch.isnan(after.float()).all()


def test_a_stray_write_past_the_end_comes_back_to_the_host_guard():
    from backends.torch_backend import download_window, upload

    arg, zone = _guarded("F32", [1.0, 2.0, 3.0], 0)
    view, device_window, host_window = upload(torch, arg, "cpu", window=True)
    device_window = device_window.clone()  # a device copy: the host bytes stay as they were
    target = device_window[64:64 + 16].view(torch.float32)  # the base and one element past it
    target[:] = torch.tensor([2.0, 3.0, 4.0, 99.0])
    assert guards.breaches(zone) == []
    download_window(device_window, host_window)
    (message,) = guards.breaches(zone)
    assert message.startswith("x: 4 guard byte(s) after its buffer changed") and "00 00 c6 42" in message
