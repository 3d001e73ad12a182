"""The Pad and PadBackward oracle against independent routes: Pad against ``numpy.pad`` on the
data's bit patterns (``constant`` with the fill's bits, ``reflect``, ``edge``); PadBackward
against MPFR sums over the output positions whose source, found by padding an array of input
indices with the same numpy mode, is the input element. On the cases the Judge draws."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import oracles
from judge.strategies import case_strategy
from numerics.formats import get_format
from numerics.rounding import array_to_bits

conv_mpfr = pytest.importorskip("conv_mpfr")  # tests/families/conv/conv_mpfr.py, beside this file
NUMPY_MODE = {0: "constant", 1: "reflect", 2: "edge"}


def _np_pad(a: np.ndarray, p: dict, fill) -> np.ndarray:
    pads = [tuple(pair) for pair in p["padding"]] or 0
    mode = NUMPY_MODE[p["mode_tag"]]
    if mode == "constant":
        return np.pad(a, pads, mode="constant", constant_values=fill)
    return np.pad(a, pads, mode=mode)


def _check_pad(case, dtype: str) -> int:
    fmt = get_format(dtype)
    (x,) = case.values
    p = case.params
    out = oracles.evaluate("Pad", [x], p, [dtype], {})[0]
    fill = int.from_bytes(bytes(p["fill_bytes"]), "little")
    want = _np_pad(np.ascontiguousarray(x).view(fmt.bits_dtype), p, fill)
    got = np.ascontiguousarray(out.expected).view(fmt.bits_dtype)
    assert got.shape == want.shape and (got == want).all(), p
    return got.size


def _check_backward(case, dtype: str) -> int:
    import gmpy2

    (g,) = case.values
    p = case.params
    out = oracles.evaluate("PadBackward", [g], p, [dtype], {})[0]
    in_shape = tuple(p["in_shape"])
    index = np.arange(math.prod(in_shape), dtype=np.int64).reshape(in_shape)
    source = _np_pad(index, p, -1).reshape(-1)  # the input each output position reads; -1: fill
    flat = g.astype(np.float64).reshape(-1)
    got = array_to_bits(out.expected, dtype).reshape(-1)
    to_format = conv_mpfr.helper()._to_format
    f = get_format(dtype)
    as_float = lambda b: float(np.array([b], f.bits_dtype).view(f.numpy_dtype)[0])  # noqa: E731
    for i in range(index.size):
        grads = [gmpy2.mpfr(float(v), 64) for v in flat[source == i]]
        want = to_format(conv_mpfr.mpfr_sum(grads), dtype)[0]
        assert got[i] == want or (math.isnan(as_float(got[i])) and math.isnan(as_float(want))), (i, p)
        count, abs_sum = out.terms.reshape(-1)[i]
        finite = [abs(Fraction(v)) for v in flat[source == i] if math.isfinite(v)]
        assert (count, abs_sum) == (len(grads) + 1, sum(finite, Fraction(0))), (i, p)
    return got.size


@pytest.mark.parametrize("dtype", ["F32", "F64", "BF16", "F16", "U8", "U32"])
@pytest.mark.parametrize("kernel", ["pad_cpu", "pad_cuda", "pad_backward_cpu"])
def test_oracle_matches_numpy_pad_and_mpfr(conv_contract, kernel, dtype):
    contract = conv_contract(kernel)
    if dtype not in contract.dtype_fan:
        pytest.skip(f"{kernel} has no {dtype}")
    seen = [0]
    check_one = _check_backward if contract.op_kind == "PadBackward" else _check_pad

    @settings(max_examples=60, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(contract, dtype))
    def check(case):
        seen[0] += check_one(case, dtype)

    check()
    assert seen[0] > 100


def test_modes_by_hand():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    fill = list(np.array(-0.0, np.float32).tobytes())
    p = {"in_shape": [3], "out_shape": [7], "padding": [[2, 2]], "fill_bytes": fill}
    run = lambda mode: oracles.evaluate("Pad", [x], {**p, "mode_tag": mode}, ["F32"], {})[0].expected  # noqa: E731
    assert run(1).tolist() == [3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0]
    assert run(2).tolist() == [1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0]
    assert np.signbit(run(0)[[0, 1, 5, 6]]).all()
    g = np.arange(1.0, 8.0, dtype=np.float32)
    back = oracles.evaluate("PadBackward", [g], {**p, "mode_tag": 1}, ["F32"], {})[0].expected
    assert back.tolist() == [3.0 + 7.0, 4.0 + 2.0 + 6.0, 5.0 + 1.0]
    with pytest.raises(ValueError, match="exceeds n - 1"):
        oracles.evaluate("Pad", [x], {**p, "padding": [[3, 0]], "out_shape": [6], "mode_tag": 1}, ["F32"], {})
