"""Device-resident pair sweeps (judge.sweep.resident_pairs): a backend that declares
``device_arrays = "dlpack"`` gets each chunk's pairs born on the device and its outputs stay
there for the determinism, unwritten and scoring steps; the sweep's row, metrics, message and
exponent grid equal the host path's, fused (the C twin) and in the array passes.

torch's CPU tensors stand in for the GPU's (DLPack works the same way).
"""

from __future__ import annotations

import numpy as np
import pytest

from judge.api import Backend, is_resident
from judge.sweep import fused, pairs, resident_pairs
from numerics.formats import get_format
from tests.sweep.test_fused_pairs import _mangled, _same

torch = pytest.importorskip("torch")

CHUNKS = {"F16": [0x3C, 0x00, 0x7C, 0xFC], "BF16": [0x3F, 0x00, 0x7F, 0x80]}


def _bits(t) -> np.ndarray:
    return t.reshape(-1).view(torch.int16).numpy().view(np.uint16)


class HostMul(Backend):
    """A multiply with mistakes (``_mangled``) and, where ``skip``, outputs left unwritten."""

    name = "mul-under-test"  # one name: the two sweeps' rows must be equal
    device = "cpu"

    def __init__(self, skip: int = 0):
        self.skip, self.resident_calls = skip, []

    def supports(self, contract, dtypes):
        return True

    def outputs(self, xb: np.ndarray, yb: np.ndarray, dtype: str, poison_bits: np.ndarray) -> np.ndarray:
        t = get_format(dtype).numpy_dtype
        with np.errstate(all="ignore"):
            z = (xb.view(t).astype(np.float64) * yb.view(t).astype(np.float64)).astype(t)
        bits = _mangled(z.view(np.uint16).astype(np.uint32), np.random.default_rng(int(xb[0]))).astype(np.uint16)
        if self.skip:
            bits[::self.skip] = poison_bits[::self.skip]
        return bits

    def run(self, contract, call):
        self.resident_calls.append(is_resident(call.inputs[0]))
        x, y = (a.to_array().reshape(-1).view(np.uint16) for a in call.inputs)
        out = call.outputs[0].to_array().reshape(-1).view(np.uint16)
        bits = self.outputs(x, y, call.inputs[0].dtype, out)
        return [bits.view(call.outputs[0].to_array().dtype).reshape(call.outputs[0].shape)]


class ResidentMul(HostMul):
    device_arrays = "dlpack"

    def run(self, contract, call):
        self.resident_calls.append(is_resident(call.inputs[0]) and is_resident(call.outputs[0]))
        x, y, out = (torch.from_dlpack(a.base) for a in (*call.inputs, call.outputs[0]))
        bits = self.outputs(_bits(x), _bits(y), call.inputs[0].dtype, _bits(out))
        return [torch.from_numpy(bits.view(np.int16)).view(x.dtype)]


@pytest.mark.parametrize("skip", [0, 777])
@pytest.mark.parametrize("fused_path", [False, True])
@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_a_resident_pair_sweep_equals_the_host_sweep(suite, dtype, fused_path, skip):
    if fused_path and fused.fused_unavailable("cpu") is not None:
        pytest.skip(str(fused.fused_unavailable("cpu")))
    (contract,) = suite.find("mul_elementwise_cpu")
    host, resident = HostMul(skip), ResidentMul(skip)
    a, b = (pairs.sweep_pairs(contract, be, dtype, chunk_log2=16, chunks=CHUNKS[dtype], fused=fused_path,
                              device="cpu") for be in (host, resident))
    assert not any(host.resident_calls) and all(resident.resident_calls)
    assert any(n.startswith("device-resident") for n in b.notes)
    assert _same(a, b) == []
    assert a.row.verdict == b.row.verdict == "fail"
    assert (b.row.unwritten_outputs > 50) == bool(skip)  # the mangling may hit the poison by chance


def test_pairs_are_born_with_the_bits_of_their_number():
    x, y = resident_pairs.pair_inputs(torch, torch.device("cpu"), 0x7FFE_FFF0, 32, "BF16")
    p = np.arange(0x7FFE_FFF0, 0x7FFE_FFF0 + 32)
    assert (_bits(x) == p >> 16).all() and (_bits(y) == p & 0xFFFF).all()
    x, y = resident_pairs.pair_inputs(torch, torch.device("cpu"), 0xFFFF_FFF0, 16, "F16")
    assert x.dtype == torch.float16 and (_bits(x) == 0xFFFF).all() and (_bits(y) == np.arange(0xFFF0, 0x10000)).all()


def test_unwritten_spares_a_nan_input_that_carries_the_poison():
    from numerics.values import POISON_BITS

    poison = POISON_BITS["F16"]
    start = poison << 16  # x is the poison pattern itself: a NaN the kernel may pass through
    y = torch.full((8,), poison - (1 << 16) if poison >= 1 << 15 else poison, dtype=torch.int16)
    assert resident_pairs.unwritten(torch, y, start, "F16") == (0, None)
    assert resident_pairs.unwritten(torch, y, 0x3C00_0000, "F16") == (8, 0x3C00_0000)


class PoisonNaN(HostMul):
    """A correct multiply whose every NaN result has the poison's very bits (a kernel may write
    them: torch's vectorised F16 remainder turns the NaN 0x7CA6 into 0x7EA5)."""

    def outputs(self, xb, yb, dtype, poison_bits):
        from numerics.values import POISON_BITS

        t = get_format(dtype).numpy_dtype
        with np.errstate(all="ignore"):
            z = (xb.view(t).astype(np.float64) * yb.view(t).astype(np.float64)).astype(t)
        bits = z.view(np.uint16).copy()
        bits[np.isnan(z)] = POISON_BITS[dtype]
        return bits


class ResidentPoisonNaN(PoisonNaN, ResidentMul):
    pass


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
def test_a_written_poison_is_not_an_unwritten_output(suite, dtype):
    (contract,) = suite.find("mul_elementwise_cpu")
    for backend in (PoisonNaN(), ResidentPoisonNaN()):
        result = pairs.sweep_pairs(contract, backend, dtype, chunk_log2=16, chunks=CHUNKS[dtype], device="cpu")
        assert result.row.unwritten_outputs == 0 and result.row.verdict == "pass", result.summary()
