"""The Vulkan cast shaders of cast_bits.comp (F8E4M3 <-> F32/F16/BF16, F32 <-> F64) bit for bit
against ml_dtypes and numpy: every E4M3, F16 and BF16 pattern, and F32/F64 samples dense at the
rounding boundaries (ties, 448/464, the subnormal edges, inf, NaN).

NaN results are held to ml_dtypes' bits (sign kept), stricter than the contract, which only asks
for a NaN (the oracle writes the canonical positive NaN; the Judge scores any NaN as a NaN).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from judge.api import KernelCall, TensorArg, contiguous_strides
from judge.executor import poison_output
from numerics.formats import get_format

F8 = ml_dtypes.float8_e4m3fn


@pytest.fixture(scope="module")
def kompute():
    from backends.kompute.adapter import KomputeBackend

    backend = KomputeBackend()
    ok = backend.available()
    if ok is not True:
        pytest.skip(f"Vulkan backend unavailable: {ok}")
    return backend


def _cast(backend, contract, x: np.ndarray, src: str, dst: str) -> np.ndarray:
    """Run the Vulkan cast of contiguous ``x`` (numpy dtype of ``src``) into ``dst``."""
    x = np.ascontiguousarray(x).reshape(-1)
    inp = TensorArg(x, x.shape, contiguous_strides(x.shape), 0, src)
    call = KernelCall([inp], {}, [poison_output(x.shape, dst)], [dst])
    assert backend.supports(contract, (src,)) is True
    (out,) = backend.run(contract, call)
    assert out.dtype == get_format(dst).numpy_dtype and out.shape == x.shape
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def _assert_bits(got: np.ndarray, want: np.ndarray, src_bits: np.ndarray) -> None:
    bad = np.flatnonzero(_bits(got) != _bits(want))
    assert bad.size == 0, (f"{bad.size} of {got.size} differ; first sources "
                           f"{[hex(int(b)) for b in src_bits[bad[:5]]]}: got "
                           f"{[hex(int(b)) for b in _bits(got)[bad[:5]]]}, want "
                           f"{[hex(int(b)) for b in _bits(want)[bad[:5]]]}")


@pytest.mark.parametrize("dst", ["F32", "F16", "BF16"])
def test_every_e4m3_pattern_widens_exactly(kompute, cast_contract, dst):
    src = np.arange(256, dtype=np.uint8)
    want = src.view(F8).astype(get_format(dst).numpy_dtype)
    contract = cast_contract(f"cast_to_{dst.lower()}_vulkan")
    got = _cast(kompute, contract, src.view(F8), "F8E4M3", dst)
    _assert_bits(got, want, src)


@pytest.mark.parametrize("src", ["F16", "BF16"])
def test_every_half_pattern_narrows_to_e4m3(kompute, cast_contract, src):
    bits = np.arange(1 << 16, dtype=np.uint16)
    x = bits.view(get_format(src).numpy_dtype)
    got = _cast(kompute, cast_contract("cast_to_f8e4m3_vulkan"), x, src, "F8E4M3")
    _assert_bits(got, x.astype(F8), bits)


def _f32_boundaries() -> np.ndarray:
    """F32 values at every E4M3 rounding decision: each E4M3 value, each midpoint between
    neighbours (a tie) and the F32 values one ulp either side, both signs; the 448/464/480 edge,
    half the smallest subnormal (2^-10), F32 subnormals, ±inf and NaNs with payloads."""
    grid = np.arange(0x7F, dtype=np.uint8).view(F8).astype(np.float64)  # 0 .. 448
    grid = np.append(grid, [480.0, 512.0])  # 480: the next E4M3 step past 448 (no such value)
    mids = (grid[:-1] + grid[1:]) / 2
    base = np.concatenate([grid, mids, [2.0**-10, 2.0**-11, 3 * 2.0**-11, 1e30]]).astype(np.float32)
    near = np.concatenate([base, np.nextafter(base, np.float32(np.inf)),
                           np.nextafter(base, np.float32(0))])
    special = np.array([0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0x7FC00000,
                        0x7F800001, 0x7FFFFFFF, 0x3A800000, 0x3A7FFFFF, 0x3A800001],
                       np.uint32).view(np.float32)
    both = np.concatenate([near, special])
    return np.concatenate([both, -both])


def test_f32_sample_narrows_to_e4m3(kompute, cast_contract):
    rng = np.random.default_rng(7)
    near_range = (rng.integers(0, 1 << 23, 200_000) | (rng.integers(112, 138, 200_000) << 23)
                  | (rng.integers(0, 2, 200_000) << 31)).astype(np.uint32)  # where E4M3 rounds
    x = np.concatenate([_f32_boundaries(), _random_bits(rng, 200_000, 32).view(np.float32),
                        near_range.view(np.float32)])
    got = _cast(kompute, cast_contract("cast_to_f8e4m3_vulkan"), x, "F32", "F8E4M3")
    _assert_bits(got, x.astype(F8), x.view(np.uint32))
    at_464 = _bits(got)[np.abs(x) == np.float32(464)]
    assert set(at_464.tolist()) == {0x7E, 0xFE}  # the tie rounds to even: 448
    above = _bits(got)[x == np.nextafter(np.float32(464), np.float32(500))]
    assert above.tolist()[0] == 0x7F  # past the tie: NaN


def _random_bits(rng, n: int, width: int) -> np.ndarray:
    words = rng.integers(0, 1 << 32, (n, width // 32), dtype=np.uint64).astype(np.uint32)
    return words.view(np.uint32 if width == 32 else np.uint64).reshape(-1)


def test_f32_widens_to_f64_exactly(kompute, cast_contract):
    rng = np.random.default_rng(8)
    bits = np.concatenate([_random_bits(rng, 300_000, 32),
                           np.arange(0, 1 << 23, 97, dtype=np.uint32),  # subnormals
                           np.array([0, 1, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7F7FFFFF],
                                    np.uint32)])
    bits = np.concatenate([bits, bits | np.uint32(0x80000000)])
    x = bits.view(np.float32)
    got = _cast(kompute, cast_contract("cast_to_f64_vulkan"), x, "F32", "F64")
    with np.errstate(invalid="ignore"):
        want = x.astype(np.float64)  # NaNs quieted, payloads kept
    _assert_bits(got, want, bits)


def test_f64_narrows_to_f32_once(kompute, cast_contract):
    rng = np.random.default_rng(9)
    f32 = _random_bits(rng, 100_000, 32).view(np.float32)
    f32 = f32[np.isfinite(f32)].astype(np.float64)
    up = np.nextafter(f32.astype(np.float32), np.float32(np.inf)).astype(np.float64)
    mids = (f32 + up) / 2  # ties (exact in F64), and one F64 ulp either side
    edges = np.array([2.0**-149, 2.0**-150, 3 * 2.0**-150, 2.0**-126, 2.0**-126 - 2.0**-150,
                      3.4028235677973366e38, 3.4028235677973366e38 * (1 + 2.0**-25), 2.0**128,
                      np.inf, 1e-320, 0.0])
    x = np.concatenate([mids, np.nextafter(mids, np.inf), np.nextafter(mids, 0), edges,
                        _random_bits(rng, 200_000, 64).view(np.float64)])
    x = np.concatenate([x, -x])
    got = _cast(kompute, cast_contract("cast_to_f32_vulkan"), x, "F64", "F32")
    with np.errstate(over="ignore", invalid="ignore"):
        want = x.astype(np.float32)
    nan = np.isnan(x)
    assert np.isnan(got[nan]).all() and (np.signbit(got[nan]) == np.signbit(x[nan])).all()
    _assert_bits(got[~nan], want[~nan], x.view(np.uint64)[~nan])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 7])
@pytest.mark.parametrize(("program", "src_bytes", "dst_bytes"),
                         [("cast_f32_f8e4m3", 4, 1), ("cast_f16_f8e4m3", 2, 1),
                          ("cast_f8e4m3_f16", 1, 2), ("cast_f8e4m3_bf16", 1, 2)])
def test_the_last_word_keeps_the_bytes_past_the_count(kompute, program, src_bytes, dst_bytes, n):
    from backends.kompute import device
    from backends.kompute.launch import _meta

    src = np.zeros(-(-n * src_bytes // 4) * 4, np.uint8)  # zeros cast to zeros
    out = np.full(-(-n * dst_bytes // 4) * 4, 0xAB, np.uint8)
    words = device.dispatch(program, [src.view(np.uint32)], out.view(np.uint32), _meta(n, 0),
                            threads=len(out) // 4)
    got = words.view(np.uint8)
    assert (got[: n * dst_bytes] == 0).all() and (got[n * dst_bytes:] == 0xAB).all()
