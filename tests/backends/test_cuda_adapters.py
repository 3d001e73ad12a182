"""The torch-cuda and cupy adapters on a CUDA device.

Skipped, with the adapter's own reason, only where no CUDA device (or no cupy) is present. On a
GPU every registrable suite contract runs on both adapters for every dtype and accepted layout
and must agree with the numpy adapter (itself held to float64 expectations in
test_cpu_adapters.py); the BF16 widen/narrow kernels cupy needs are checked bit for bit
against ml_dtypes over all 2^16 patterns and a sweep of f32 patterns. That both adapters
support every CUDA contract (supports() needs no device) is checked everywhere.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import sample_calls

from backends.cupy_backend import CupyBackend
from backends.numpy_backend import NumpyBackend
from backends.torch_backend import TorchBackend
from judge.aliasing import aliases
from numerics.formats import get_format
from numerics.values import POISON_BITS

# Looser than the CPU tests: GPU libms (and their f16/bf16 paths) differ from numpy by a few ulp.
TOLERANCE = {"F64": 1e-12, "F32": 1e-5, "F16": 4e-3, "BF16": 3e-2}


@cache
def _backends():
    return {"torch-cuda": TorchBackend("torch-cuda", "cuda"), "cupy": CupyBackend()}


@pytest.fixture(params=["torch-cuda", "cupy"])
def cuda_backend(request):
    backend = _backends()[request.param]
    why = backend.available()
    if why is not True:
        pytest.skip(f"{backend.name} unavailable: {why}")
    return backend


@cache
def suite():
    from judge.suite import load_paths

    loaded = load_paths(None)
    assert not loaded.errors, loaded.errors
    return tuple(loaded.registrable)


def _unavailable() -> str | None:
    """Why no CUDA adapter can run here (None when at least one can)."""
    whys = [f"{name}: {why}" for name, b in _backends().items() if (why := b.available()) is not True]
    return "; ".join(whys) if len(whys) == len(_backends()) else None


def _cases():
    # Without a GPU, one skipped item says why instead of a thousand identical skips.
    why = _unavailable()
    if why is not None:
        yield pytest.param(None, None, None, id="no-cuda", marks=pytest.mark.skip(reason=why))
        return
    for c in filter(sample_calls.hand_built, suite()):
        if c.op_kind == "Cast":  # the suite run draws values each cast pair defines
            continue
        layouts = sample_calls.LAYOUTS if c.handles_strided else ("contiguous",)
        for dtype in c.dtype_fan:
            for layout in layouts:
                name = f"{c.file.rsplit('/', 1)[-1]}::{c.kernel}-{dtype}-{layout}"
                yield pytest.param(c, dtype, layout, id=name)


def _run(backend, contract, dtype, layout):
    """One sample call; an in-place kernel's result is read from its target, the only input
    it may change."""
    call = sample_calls.sample_call(contract, dtype, layout)
    targets = set(aliases(contract).values())
    kept = [t for i, t in enumerate(call.inputs) if i not in targets]
    before = [t.base.copy() for t in kept]
    result = backend.run(contract, call)
    (out,) = [o.to_array() for o in call.outputs] if targets and result is None else result
    for b, t in zip(before, kept, strict=True):
        assert b.tobytes() == t.base.tobytes(), f"{contract.kernel}: an input was modified"
    return np.asarray(out), call.outputs[0]


@pytest.mark.parametrize(("contract_", "dtype", "layout"), list(_cases()))
def test_cuda_adapter_agrees_with_numpy(cuda_backend, contract_, dtype, layout):
    why = cuda_backend.supports(contract_, tuple(s.dtypes[0] if s.dtypes == ("BOOL",) else dtype
                                                 for s in contract_.inputs))
    if why is not True:  # the one refusal a CPU contract may meet here, checked for its reason
        assert cuda_backend.name == "cupy" and aliases(contract_) and "in-place" in why, why
        return
    out, spec = _run(cuda_backend, contract_, dtype, layout)
    assert out.shape == spec.shape and out.dtype == get_format(spec.dtype).numpy_dtype
    bits = out.view(get_format(spec.dtype).bits_dtype)
    assert not (bits == POISON_BITS[spec.dtype]).any(), "output left unwritten"
    want, _ = _run(NumpyBackend(), contract_, dtype, layout)
    if spec.dtype == "BOOL" or not get_format(spec.dtype).is_float:  # integers: exact
        np.testing.assert_array_equal(out, want)
    else:
        tol = TOLERANCE[spec.dtype]
        np.testing.assert_allclose(out.astype(np.float64), want.astype(np.float64),
                                   rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", ["torch-cuda", "cupy"])
def test_every_cuda_contract_is_supported(name):
    # supports() reads only the contract and the adapter's tables, so this holds with no GPU
    # (and no cupy) present too.
    backend = _backends()[name]
    cuda = [c for c in suite() if c.device == "cuda"]
    assert cuda, "the embedded suite has no CUDA contracts"
    refused = [(c.kernel, d, why) for c in cuda for d in c.dtype_fan
               if (why := backend.supports(c, (d,) * len(c.inputs))) is not True]
    # cupy has no float8 dtype and no bfloat16 (a cast into BF16 from a format f32 cannot hold
    # exactly would round twice): those casts are unsupported, each with its reason.
    gaps = [r for r in refused if r[0].startswith("cast_") and "cupy has no" in r[2]]
    assert [r for r in refused if r not in gaps] == []


def test_describe_names_the_gpu(cuda_backend):
    text = cuda_backend.describe()
    assert "cuda" in text.lower() or "nvidia" in text.lower(), text


def _cupy_or_skip():
    why = CupyBackend().available()
    if why is not True:
        pytest.skip(f"cupy unavailable: {why}")
    import cupy

    return cupy


def test_cupy_bf16_widen_is_exact_for_every_pattern():
    cupy = _cupy_or_skip()
    from backends import _cupy_bf16

    patterns = np.arange(1 << 16, dtype=np.uint16)
    got = cupy.asnumpy(_cupy_bf16.widen(cupy.asarray(patterns))).view(np.uint32)
    want = patterns.view(get_format("BF16").numpy_dtype).astype(np.float32).view(np.uint32)
    nan = np.isnan(want.view(np.float32))
    np.testing.assert_array_equal(got[~nan], want[~nan])
    assert np.isnan(got.view(np.float32)[nan]).all()


def test_cupy_bf16_narrow_rounds_to_nearest_even_like_ml_dtypes():
    cupy = _cupy_or_skip()
    from backends import _cupy_bf16

    rng = np.random.default_rng(20260707)
    random_bits = rng.integers(0, 1 << 32, size=1 << 20, dtype=np.uint64).astype(np.uint32)
    # Exact ties (low half 0x8000) on even and odd bf16 neighbours, the overflow edge, specials.
    ties = (np.arange(1 << 12, dtype=np.uint32) << 16) | 0x8000
    edges = np.array([0x7F7F8000, 0x7F7FFFFF, 0xFF7F8000, 0x7F800000, 0x7FC00000, 0x7F800001,
                      0xFF800001, 0x00008000, 0x80008000, 0x00000000, 0x80000000], dtype=np.uint32)
    bits = np.concatenate([random_bits, ties, edges])
    values = bits.view(np.float32)
    got = cupy.asnumpy(_cupy_bf16.narrow(cupy.asarray(values)))
    want = values.astype(get_format("BF16").numpy_dtype).view(np.uint16)
    nan = np.isnan(values)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    # NaN stays NaN (quiet, sign kept) even where truncation alone would give an infinity.
    assert ((got[nan] & 0x7F80) == 0x7F80).all() and ((got[nan] & 0x0040) != 0).all()
    np.testing.assert_array_equal(got[nan] >> 15, (bits[nan] >> 31).astype(np.uint16))
